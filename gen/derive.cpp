// derive.cpp — from a spec to the equations of motion (DESIGN.md §1):
// M, k, Q; A, c_h for holonomic constraints; B, c_n for nonholonomic ones;
// and the Baumgarte-stabilised constraint rows J q'' = r.
#include "lagrangec.h"

#include <cmath>

namespace lgc {

namespace {

using GiNaC::ex;

// A fixed, reproducible set of sample states for numeric checks.
// A fixed, reproducible sample state (C names to values), parameters and
// inputs at their defaults.
using SamplePoint = std::unordered_map<std::string, double>;

std::vector<SamplePoint> sample_points(const Spec &spec, const SymbolTable &s, int count) {
  std::vector<SamplePoint> points;
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&] {  // xorshift64*: the same sequence on every machine
    state ^= state >> 12, state ^= state << 25, state ^= state >> 27;
    return double((state * 0x2545F4914F6CDD1Dull) >> 11) / double(1ull << 53);
  };
  for (int k = 0; k < count; ++k) {
    SamplePoint p;
    for (auto &q : s.q) p[q.get_name()] = 0.3 + next();
    for (auto &v : s.v) p[v.get_name()] = next() - 0.5;
    for (size_t i = 0; i < s.p.size(); ++i) p[s.p[i].get_name()] = spec.parameters[i].value;
    for (size_t i = 0; i < s.u.size(); ++i) p[s.u[i].get_name()] = spec.inputs[i].value;
    p["t"] = 2 * next() - 1;  // times on both sides of 0, for terms that switch with t
    points.push_back(p);
  }
  return points;
}

// Whether the symmetric matrix is positive definite (a Cholesky attempt).
bool positive_definite(std::vector<double> a, size_t n) {
  for (size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (size_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    if (!(d > 1e-12 * std::fabs(a[j * n + j]) && d > 0)) return false;
    d = std::sqrt(d);
    a[j * n + j] = d;
    for (size_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (size_t k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / d;
    }
  }
  return true;
}

class Deriver {
 public:
  Deriver(const Spec &spec, Formulation formulation) : spec_(spec) {
    m_.spec = &spec;
    m_.formulation = formulation;
    m_.symbols = make_symbols(spec);
    m_.nq = spec.coordinates.size();
    m_.nh = spec.holonomic.size();
    m_.nn = spec.nonholonomic.size();
  }

  Model run() {
    read_expressions();
    derive_dynamics();
    derive_holonomic();
    derive_nonholonomic();
    check_constraint_count();
    check_independent_constraints();
    warn_integrable();
    if (m_.formulation == Formulation::vakonomic) derive_vakonomic();
    lay_out_state();
    derive_kkt_residual();
    m_.conservative = !has_time() && std::all_of(m_.Q.begin(), m_.Q.end(), [](const ex &q) { return q.is_zero(); });
    return std::move(m_);
  }

 private:
  const Spec &spec_;
  Model m_;
  Graph numeric_;  // expressions lowered for the numeric checks

  const SymbolTable &sym() const { return m_.symbols; }

  std::string name_of(size_t i) const { return spec_.coordinates[i].name; }

  void read_expressions() {
    m_.T = read_expression(spec_.kinetic, sym(), {"the kinetic energy", true, false});
    m_.V = spec_.potential ? read_expression(*spec_.potential, sym(), {"the potential", false, false}) : ex(0);
    for (size_t i = 0; i < m_.nq; ++i) {
      std::string what = "the force on " + name_of(i);
      m_.Q.push_back(spec_.forces[i] ? read_expression(*spec_.forces[i], sym(), {what.c_str(), true, true}).expand()
                                     : ex(0));
    }
    for (size_t j = 0; j < m_.nh; ++j) {
      std::string what = "holonomic constraint " + std::to_string(j + 1);
      m_.phi.push_back(read_expression(spec_.holonomic[j], sym(), {what.c_str(), false, false}));
    }
    for (size_t j = 0; j < m_.nn; ++j) {
      std::string what = "nonholonomic constraint " + std::to_string(j + 1);
      m_.g.push_back(read_expression(spec_.nonholonomic[j], sym(), {what.c_str(), true, false}).expand());
    }
  }

  bool has_time() const {
    if (m_.T.has(sym().t) || m_.V.has(sym().t)) return true;
    for (auto &e : m_.phi) if (e.has(sym().t)) return true;
    for (auto &e : m_.g) if (e.has(sym().t)) return true;
    return false;
  }

  // M = ∂²T/∂q'∂q';  k = d/dt(∂T/∂q') − ∂T/∂q + ∂V/∂q without the q'' terms.
  void derive_dynamics() {
    const auto &s = sym();
    size_t n = m_.nq;
    KineticTerms kin = derive_kinetic(m_.T, s);
    m_.M = kin.M;
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) {
        if (s.has_kind(m_.M(i, j), SymbolKind::velocity))
          error_at(spec_.kinetic.loc_of(0),
                   "the kinetic energy is not quadratic in the velocities: d2T/d" + name_of(i) + "'d" +
                       name_of(j) + "' depends on the velocities");
        count_terms(m_.M(i, j));  // before expanding: the expansion is what can explode
        m_.M(i, j) = m_.M(i, j).expand();  // like terms merged, structural zeros found
      }
      ex k = kin.k[i] + m_.V.diff(s.q[i]);
      count_terms(k);
      m_.k.push_back(k.expand());
    }
    check_mass_matrix();
  }

  // Equations past this many terms would take minutes and gigabytes to
  // generate and to compile: stop with a message instead.
  static constexpr size_t kMaxTerms = 1000000;
  size_t terms_ = 0;

  // An upper bound on the terms e has once expanded, without expanding it.
  static double expanded_size(const ex &e) {
    if (GiNaC::is_a<GiNaC::add>(e)) {
      double n = 0;
      for (size_t i = 0; i < e.nops(); ++i) n += expanded_size(e.op(i));
      return n;
    }
    if (GiNaC::is_a<GiNaC::mul>(e)) {
      double n = 1;
      for (size_t i = 0; i < e.nops(); ++i) n *= expanded_size(e.op(i));
      return n;
    }
    if (GiNaC::is_a<GiNaC::power>(e) && e.op(1).info(GiNaC::info_flags::posint))
      return std::pow(expanded_size(e.op(0)), GiNaC::ex_to<GiNaC::numeric>(e.op(1)).to_double());
    return 1;
  }

  void count_terms(const ex &e) {
    terms_ += size_t(std::min(expanded_size(e), double(kMaxTerms) + 1));
    if (terms_ > kMaxTerms)
      error_at(spec_.kinetic.loc_of(0),
               "the equations of motion grow past " + std::to_string(kMaxTerms) +
                   " terms (the generator's limit on their size); a chain in relative angles grows like n^6: "
                   "write such a system in absolute angles, or in Cartesian coordinates with constraints");
  }

  void check_mass_matrix() {
    size_t n = m_.nq;
    for (size_t i = 0; i < n; ++i)
      if (m_.M(i, i).is_zero())
        error_at(spec_.kinetic.loc_of(0), "the mass matrix is singular: the kinetic energy does not depend on " +
                                              name_of(i) + "'");
    for (const SamplePoint &p : sample_points(spec_, sym(), 3)) {
      Evaluator value(numeric_, p);
      std::vector<double> a(n * n);
      for (size_t i = 0; i < n * n; ++i) a[i] = m_.M(i / n, i % n).is_zero() ? 0.0 : value(numeric_.from_ginac(m_.M(i / n, i % n)));
      if (positive_definite(a, n)) return;
    }
    error_at(spec_.kinetic.loc_of(0),
             "the mass matrix d2T/dq'dq' is singular or not positive definite at every sampled state "
             "(with the parameters' default values): check the kinetic energy");
  }

  // φ' = A q' + ∂φ/∂t,  φ'' = A q'' + c_h.
  void derive_holonomic() {
    const auto &s = sym();
    m_.A = GiNaC::matrix(m_.nh, m_.nq);
    for (size_t j = 0; j < m_.nh; ++j) {
      // Kept as written, not expanded: (x2 - x1)^2 differentiates to
      // 2 (x2 - x1), and the common subexpressions stay visible to the CSE.
      ex phi_dot = m_.phi[j].diff(s.t);
      m_.phi_t.push_back(phi_dot);
      for (size_t i = 0; i < m_.nq; ++i) {
        m_.A(j, i) = m_.phi[j].diff(s.q[i]);
        phi_dot += m_.A(j, i) * s.v[i];
      }
      m_.phi_dot.push_back(phi_dot);
      m_.c_h.push_back(s.convective_derivative(m_.phi_dot[j]));
      m_.r.push_back(-m_.c_h[j] - m_.alpha * m_.phi_dot[j] - m_.beta * m_.phi[j]);
    }
  }

  // g = B q' + b,  g' = B q'' + c_n;  the rows are stabilised with ∫g (6.332).
  void derive_nonholonomic() {
    const auto &s = sym();
    m_.B = GiNaC::matrix(m_.nn, m_.nq);
    for (size_t j = 0; j < m_.nn; ++j) {
      GiNaC::exmap at_rest;
      for (auto &v : s.v) at_rest[v] = 0;
      for (size_t i = 0; i < m_.nq; ++i) {
        m_.B(j, i) = m_.g[j].diff(s.v[i]).expand();
        if (s.has_kind(m_.B(j, i), SymbolKind::velocity))
          error_at(spec_.nonholonomic[j].loc_of(0),
                   "nonholonomic constraint " + std::to_string(j + 1) +
                       " is not linear in the velocities: its derivative by " + name_of(i) +
                       "' depends on the velocities");
      }
      bool any = false;
      for (size_t i = 0; i < m_.nq; ++i) any = any || !m_.B(j, i).is_zero();
      if (!any)
        error_at(spec_.nonholonomic[j].loc_of(0),
                 "nonholonomic constraint " + std::to_string(j + 1) +
                     " does not contain any velocity; a constraint on positions belongs in 'holonomic'");
      m_.b.push_back(m_.g[j].subs(at_rest).expand());
      m_.c_n.push_back(s.convective_derivative(m_.g[j]).expand());
      GiNaC::realsymbol z("int_g" + std::to_string(j + 1));
      m_.z.push_back(z);
      m_.r.push_back((-m_.c_n[j] - m_.alpha * m_.g[j] - m_.beta * z).expand());
    }
  }

  // Vakonomic (seed 003, 1.239–1.240): the Lagrange equations of
  // L + mu^T g with mu a state add mu_j (dB_j/dt - dg_j/dq) to k, and the
  // nonholonomic rows' multipliers become -mu'.
  void derive_vakonomic() {
    const auto &s = sym();
    for (size_t j = 0; j < m_.nn; ++j) {
      GiNaC::realsymbol mu("mu" + std::to_string(j + 1));
      m_.mu.push_back(mu);
      for (size_t i = 0; i < m_.nq; ++i) {
        ex B_dot = s.convective_derivative(m_.B(j, i));
        m_.k[i] = (m_.k[i] + mu * (B_dot - m_.g[j].diff(s.q[i]))).expand();
      }
    }
  }

  void lay_out_state() {
    const auto &s = sym();
    for (size_t i = 0; i < m_.nq; ++i) m_.state.push_back({s.q[i], name_of(i), spec_.initial_q[i]});
    for (size_t i = 0; i < m_.nq; ++i) m_.state.push_back({s.v[i], name_of(i) + "'", spec_.initial_v[i]});
    for (auto &z : m_.z) m_.state.push_back({z, z.get_name(), 0.0});
    for (size_t j = 0; j < m_.mu.size(); ++j) m_.state.push_back({m_.mu[j], m_.mu[j].get_name(), spec_.initial_mu[j]});
  }

  // A nonholonomic constraint g = B q' + b is a holonomic one in disguise
  // when the 1-form w = B dq + b dt is integrable: w ^ dw = 0 (Frobenius,
  // for one form; t counts as a coordinate). Tested symbolically, then at
  // sample states so that trigonometric identities do not hide a zero.
  void warn_integrable() {
    const auto &s = sym();
    std::vector<ex> coords(s.q.begin(), s.q.end());
    coords.push_back(s.t);
    size_t n = coords.size();
    auto points = sample_points(spec_, s, 4);
    for (size_t j = 0; j < m_.nn; ++j) {
      std::vector<ex> w;
      for (size_t i = 0; i < m_.nq; ++i) w.push_back(m_.B(j, i));
      w.push_back(m_.b[j]);
      auto d = [&](size_t a, size_t b) { return w[b].diff(GiNaC::ex_to<GiNaC::symbol>(coords[a])); };
      bool exact = true, integrable = true;
      for (size_t a = 0; a < n && integrable; ++a)
        for (size_t b = a + 1; b < n && integrable; ++b) {
          exact = exact && is_zero(d(a, b) - d(b, a), points);
          for (size_t c = b + 1; c < n && integrable; ++c)
            integrable = is_zero(w[a] * (d(b, c) - d(c, b)) + w[b] * (d(c, a) - d(a, c)) + w[c] * (d(a, b) - d(b, a)),
                                 points);
        }
      if (!integrable) continue;
      std::string msg = "nonholonomic constraint " + std::to_string(j + 1) +
                        " is integrable (its 1-form w satisfies w ^ dw = 0), so it is a holonomic constraint "
                        "written in velocity form";
      if (exact && is_polynomial_of_degree_one(w))
        msg += ": write it as holonomic = [\"" + holonomic_form(w, coords) + " - (its initial value)\"]";
      else
        msg += exact ? ": it is the time derivative of a function of q and t; write that function as a holonomic constraint"
                     : ": an integrating factor makes it the time derivative of a function of q and t; write that "
                       "function as a holonomic constraint";
      warn_at(spec_.nonholonomic[j].loc_of(0), msg);
    }
  }

  bool is_zero(const ex &e, const std::vector<SamplePoint> &points) {
    ex x = e.expand();
    if (x.is_zero()) return true;
    int id = numeric_.from_ginac(x);
    for (auto &p : points)
      if (!(std::fabs(Evaluator(numeric_, p)(id)) <= 1e-12)) return false;
    return true;
  }

  // Coefficients free of q and t: w = B dq + b dt with B, b constant.
  bool is_polynomial_of_degree_one(const std::vector<ex> &w) const {
    for (auto &c : w)
      if (sym().has_kind(c, SymbolKind::coordinate) || c.has(sym().t)) return false;
    return true;
  }

  std::string holonomic_form(const std::vector<ex> &w, const std::vector<ex> &coords) const {
    ex phi = 0;
    for (size_t i = 0; i < w.size(); ++i) phi += w[i] * coords[i];
    return c_expression(phi.expand());
  }

  // The KKT residual, with the solution (a, nu) as symbols.
  void derive_kkt_residual() {
    size_t nq = m_.nq, nc = m_.nh + m_.nn;
    for (size_t i = 0; i < nq; ++i) m_.acc.push_back(GiNaC::realsymbol("in_acceleration[" + std::to_string(i) + "]"));
    for (size_t c = 0; c < nc; ++c) m_.nu.push_back(GiNaC::realsymbol("in_multipliers[" + std::to_string(c) + "]"));
    auto J = [&](size_t c, size_t i) { return c < m_.nh ? m_.A(c, i) : m_.B(c - m_.nh, i); };
    for (size_t i = 0; i < nq; ++i) {
      ex row = m_.k[i] - m_.Q[i];
      for (size_t j = 0; j < nq; ++j) row += m_.M(i, j) * m_.acc[j];
      for (size_t c = 0; c < nc; ++c) row -= J(c, i) * m_.nu[c];
      m_.R.push_back(row);
    }
    for (size_t c = 0; c < nc; ++c) {
      ex row = -m_.r[c];
      for (size_t i = 0; i < nq; ++i) row += J(c, i) * m_.acc[i];
      m_.R.push_back(row);
    }
  }

  // Constraints dependent everywhere (a four-bar closed twice) are refused,
  // naming the row the ones before it already imply; rank lost at one
  // instant only is a runtime fault instead (LGC_ERR_RANK_LOST).
  void check_independent_constraints() {
    size_t nc = m_.nh + m_.nn, n = m_.nq;
    auto J = [&](size_t c, size_t i) { return c < m_.nh ? m_.A(c, i) : m_.B(c - m_.nh, i); };
    auto source = [&](size_t c) -> const SourceText & {
      return c < m_.nh ? spec_.holonomic[c] : spec_.nonholonomic[c - m_.nh];
    };
    auto label = [&](size_t c) {
      return (c < m_.nh ? "holonomic constraint " + std::to_string(c + 1)
                        : "nonholonomic constraint " + std::to_string(c - m_.nh + 1));
    };
    for (size_t c = 0; c < m_.nh; ++c) {
      bool any = false;
      for (size_t i = 0; i < n; ++i) any = any || !J(c, i).is_zero();
      if (!any) error_at(source(c).loc_of(0), label(c) + " does not depend on the coordinates");
    }
    std::vector<SamplePoint> initial(1);
    for (size_t i = 0; i < n; ++i) {
      initial[0][sym().q[i].get_name()] = spec_.initial_q[i];
      initial[0][sym().v[i].get_name()] = spec_.initial_v[i];
    }
    for (size_t k = 0; k < sym().p.size(); ++k) initial[0][sym().p[k].get_name()] = spec_.parameters[k].value;
    initial[0]["t"] = 0;
    // Dependent at random states: dependent everywhere. Dependent at the
    // initial state, when it is on the constraints (where a four-bar closed
    // twice shows it): the run would fail at its first step.
    std::vector<std::pair<std::vector<SamplePoint>, std::string>> checks = {
        {sample_points(spec_, sym(), 4), "every sampled state"}};
    Evaluator at_start(numeric_, initial[0]);
    double scale = 1;
    for (double q : spec_.initial_q) scale = std::max(scale, std::fabs(q));
    bool consistent = true;
    for (auto &phi : m_.phi) consistent = consistent && std::fabs(at_start(numeric_.from_ginac(phi))) <= 1e-9 * scale;
    if (consistent) checks.push_back({initial, "the initial state"});
    for (auto &[points, where] : checks) {
      std::vector<bool> dependent = dependent_rows(points);
      for (size_t c = 0; c < nc; ++c)
        if (dependent[c])
          error_at(source(c).loc_of(0), label(c) + " is implied by the constraints before it: its row of the "
                                                   "constraint Jacobian is a combination of theirs at " + where +
                                                   "; remove it");
    }
  }

  // Rows of J = [A; B] that the rows before them span at every one of the
  // points (modified Gram–Schmidt; a NaN counts as independent).
  std::vector<bool> dependent_rows(const std::vector<SamplePoint> &points) {
    size_t nc = m_.nh + m_.nn, n = m_.nq;
    auto J = [&](size_t c, size_t i) { return c < m_.nh ? m_.A(c, i) : m_.B(c - m_.nh, i); };
    std::vector<bool> dependent(nc, true);
    for (const SamplePoint &p : points) {
      Evaluator value(numeric_, p);
      std::vector<std::vector<double>> basis;  // orthonormal, of the rows so far
      for (size_t c = 0; c < nc; ++c) {
        std::vector<double> row(n);
        for (size_t i = 0; i < n; ++i) row[i] = J(c, i).is_zero() ? 0.0 : value(numeric_.from_ginac(J(c, i)));
        auto norm = [&] {
          double s = 0;
          for (double x : row) s += x * x;
          return std::sqrt(s);
        };
        double before = norm();
        for (auto &b : basis) {
          double d = 0;
          for (size_t i = 0; i < n; ++i) d += row[i] * b[i];
          for (size_t i = 0; i < n; ++i) row[i] -= d * b[i];
        }
        double after = norm();
        if (!(after <= 1e-9 * before)) {
          dependent[c] = false;
          if (after > 0)
            for (double &x : row) x /= after;
          basis.push_back(row);
        }
      }
    }
    return dependent;
  }

  void check_constraint_count() {
    size_t m = m_.nh + m_.nn;
    if (m >= m_.nq + 1) {
      const SourceText &last = m_.nn ? spec_.nonholonomic.back() : spec_.holonomic.back();
      error_at(last.loc_of(0), std::to_string(m) + " constraints on " + std::to_string(m_.nq) +
                                   " coordinates: at most as many constraints as coordinates can be independent");
    }
  }
};

}  // namespace

std::optional<Formulation> parse_formulation(const std::string &name) {
  if (name == "dalembert") return Formulation::dalembert;
  if (name == "vakonomic") return Formulation::vakonomic;
  return std::nullopt;
}

Model derive(const Spec &spec, Formulation formulation) { return Deriver(spec, formulation).run(); }

}  // namespace lgc
