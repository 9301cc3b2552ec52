// test_generated.cpp — the generated C of every spec in specs/, in every
// variant (d'Alembert and vakonomic, with and without --no-jacobian), as a
// user gets it: `lagrangec generate`, compiled, loaded. Each model is held
// against the symbolic model, evaluated numerically by GiNaC (independently
// of the lowering, the plan and the printers): at random states q'' and the
// multipliers satisfy M q'' + k = Q + J^T nu and J q'' = r to 1e-12, and
// every other generated function matches its expression; the regressor
// gives the inverse dynamics, with as many base parameters as its rank. The Jacobian
// matches central differences of rhs; a model generated without it is the
// same model, bit for bit.
#include "model/model.h"
#include <lagrangec/model.h>

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <unordered_map>

#include "process.hpp"

#include "cmocka.hpp"  // last: cmocka defines a macro `fail`

namespace fs = std::filesystem;

namespace {

using GiNaC::ex;

struct Variant {
  const char *name;
  std::vector<std::string> options;
  lgc::Formulation formulation;
  bool jacobian;
};

const Variant kVariants[] = {
    {"dalembert", {}, lgc::Formulation::dalembert, true},
    {"dalembert-no-jacobian", {"--no-jacobian"}, lgc::Formulation::dalembert, false},
    {"vakonomic", {"--formulation", "vakonomic"}, lgc::Formulation::vakonomic, true},
    {"vakonomic-no-jacobian", {"--formulation", "vakonomic", "--no-jacobian"}, lgc::Formulation::vakonomic, false},
};

std::vector<fs::path> specs() { return files_in(SPECS_DIR, ".toml"); }

// The specs a variant's formulation takes: the vakonomic one refuses
// friction (its sticking rows would be variational, not a contact's).
std::vector<fs::path> specs_of(const Variant &v) {
  std::vector<fs::path> out;
  for (auto &s : specs())
    if (v.formulation == lgc::Formulation::dalembert || lgc::read_spec(s.string()).friction.empty()) out.push_back(s);
  return out;
}

// The models of one variant, from a shared object built of every spec's
// NAME.c and NAME_model.c.
struct Models {
  void *library = nullptr;
  std::vector<const lgc_model *> models;  // in the order of specs()
};
std::map<std::string, Models> loaded;  // by variant name

int generate_and_load(void **) {
  fs::path dir = scratch("generated");
  for (const Variant &v : kVariants) {
    fs::path out = dir / v.name, library = dir / (std::string(v.name) + ".so");
    std::vector<std::string> generate = {LAGRANGEC, "generate"};
    for (auto &s : specs_of(v)) generate.push_back(s.string());
    generate.insert(generate.end(), v.options.begin(), v.options.end());
    generate.insert(generate.end(), {"-o", out.string()});
    Result g = run(generate);
    if (g.status != 0) return std::fprintf(stderr, "%s: generate failed:\n%s", v.name, g.err.c_str()), -1;
    std::vector<std::string> cc = {"cc", "-shared", "-fPIC", "-O0", "-std=c99", "-I", out.string(), "-I", RUNTIME_INCLUDE};
    for (auto &c : files_in(out, ".c")) cc.push_back(c.string());
    cc.insert(cc.end(), {"-o", library.string(), "-lm"});
    Result c = run(cc);
    if (c.status != 0) return std::fprintf(stderr, "%s: cc failed:\n%s", v.name, c.err.c_str()), -1;
    Models &m = loaded[v.name];
    m.library = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!m.library) return std::fprintf(stderr, "%s: %s\n", v.name, dlerror()), -1;
    for (auto &s : specs_of(v)) {
      auto *model = static_cast<const lgc_model *>(dlsym(m.library, (s.stem().string() + "_model").c_str()));
      if (!model) return std::fprintf(stderr, "%s: no %s_model\n", v.name, s.stem().c_str()), -1;
      m.models.push_back(model);
    }
  }
  fs::remove_all(dir);
  return 0;
}

int unload(void **) {
  for (auto &[name, m] : loaded) dlclose(m.library);
  return 0;
}

// GiNaC's own numeric value of a model expression at the point `at` gives
// its symbols: what evalf(e.subs(at)) gives, computed node by node with
// GiNaC's numbers (at its Digits), each
// node once however often the expression shares it (subs and evalf walk a
// shared subexpression once per path to it, and a tree of bodies' M and k
// share their links' kinematics down the chain). The nodes are held, so a
// node's address names one node for as long as its value is remembered; a
// change of `at` forgets the values.
struct Evaluator {
  GiNaC::exmap at;
  double operator()(const ex &e) const {
    if (!same_point()) memo.clear(), point = at;
    return value(e).to_double();
  }
  // A product's (or a power's) value in double arithmetic over its factors'
  // values: for a scale, not a reference.
  double rough(const ex &e) const {
    if (!same_point()) memo.clear(), point = at;
    return rough_value(e);
  }

 private:
  mutable GiNaC::exmap point;
  mutable std::unordered_map<const GiNaC::basic *, std::pair<ex, GiNaC::numeric>> memo;  // node -> (the node, its value)

  bool same_point() const {
    if (point.size() != at.size()) return false;
    for (auto a = at.cbegin(), b = point.cbegin(); a != at.cend(); ++a, ++b)
      if (!a->first.is_equal(b->first) || !a->second.is_equal(b->second)) return false;
    return true;
  }
  static std::string to_string(const ex &e) {
    std::ostringstream s;
    s << e;
    return s.str().substr(0, 200);
  }
  double rough_value(const ex &e) const {
    if (GiNaC::is_a<GiNaC::mul>(e)) {
      double v = 1;
      for (size_t i = 0; i < e.nops(); ++i) v *= rough_value(e.op(i));
      return v;
    }
    if (GiNaC::is_a<GiNaC::power>(e)) return std::pow(rough_value(e.op(0)), rough_value(e.op(1)));
    return value(e).to_double();
  }
  GiNaC::numeric value(const ex &e) const {
    const GiNaC::basic *node = &GiNaC::ex_to<GiNaC::basic>(e);
    auto hit = memo.find(node);
    if (hit != memo.end()) return hit->second.second;
    ex v;
    if (GiNaC::is_a<GiNaC::numeric>(e)) {
      v = GiNaC::evalf(e);
    } else if (GiNaC::is_a<GiNaC::symbol>(e)) {
      auto s = at.find(e);
      v = s == at.end() ? e : GiNaC::evalf(s->second);
    } else if (GiNaC::is_a<GiNaC::add>(e) || GiNaC::is_a<GiNaC::mul>(e)) {
      // The node over its operands' values (add and mul give an overall
      // coefficient as their last operand).
      const bool sum = GiNaC::is_a<GiNaC::add>(e);
      GiNaC::numeric n = sum ? 0 : 1;
      for (size_t i = 0; i < e.nops(); ++i) n = sum ? n + value(e.op(i)) : n * value(e.op(i));
      v = n;
    } else if (GiNaC::is_a<GiNaC::power>(e)) {
      v = GiNaC::evalf(GiNaC::pow(value(e.op(0)), value(e.op(1))));
    } else if (GiNaC::is_a<GiNaC::function>(e)) {
      GiNaC::exvector args;
      for (size_t i = 0; i < e.nops(); ++i) args.push_back(value(e.op(i)));
      v = GiNaC::evalf(GiNaC::function(GiNaC::ex_to<GiNaC::function>(e).get_serial(), args));
    } else {
      v = GiNaC::evalf(e.subs(at));
    }
    if (!GiNaC::is_a<GiNaC::numeric>(v)) fail_msg("not a number at the point: %s", to_string(e).c_str());
    // A node only `e` holds (an operand op() put together, an expanded
    // sum's term) is reached by no other path: not worth remembering.
    if (node->get_refcount() > 1) memo.emplace(node, std::make_pair(e, GiNaC::ex_to<GiNaC::numeric>(v)));
    return GiNaC::ex_to<GiNaC::numeric>(v);
  }
};

double norm(const std::vector<double> &v) {
  double s = 0;
  for (double x : v) s = std::max(s, std::fabs(x));
  return s;
}

void check_relative(const char *model, const char *variant, const char *what, const std::vector<double> &residual,
                    std::initializer_list<double> scales) {
  double scale = 1e-300;
  for (double s : scales) scale = std::max(scale, s);
  double rel = norm(residual) / scale;
  if (!(rel <= 1e-12)) fail_msg("%s (%s): %s off by %.3g (relative)", model, variant, what, rel);
}

// A generated value against its expression's, to 1e-13 relative to scale
// (default: the value itself).
void check_value(const char *model, const char *variant, const std::string &what, double got, double want,
                 double scale = 0) {
  if (!(std::fabs(got - want) <= 1e-13 * (1 + std::max(scale, std::fabs(want)))))
    fail_msg("%s (%s): %s = %.17g, the expression gives %.17g", model, variant, what.c_str(), got, want);
}

// The generated correction at M, C (a state's): for a random target r on
// the holonomic rows and on all rows, in both metrics, d must satisfy the
// rows, C d = r, and be the smallest such in W, W d = C^T K. A factor that
// finds S too ill-conditioned at this state (SINGULAR_CONSTRAINTS) leaves
// it to the runtime's SVD: nothing to check then.
void check_correction(const lgc_model *gm, const char *vname, const std::vector<double> &M,
                      const std::vector<double> &C, std::mt19937_64 &rng) {
  const size_t nq = size_t(gm->nq), nh = size_t(gm->nh), nc = size_t(gm->nh + gm->nn);
  if (!nc) return;
  if (!gm->correction_factor) fail_msg("%s (%s): no generated correction", gm->name, vname);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int mass = 0; mass < 2; ++mass)
    for (size_t rows : {nh, nc}) {
      if (!rows) continue;
      std::vector<double> L(M), work(size_t(gm->nwork_correction) + 1), K(nc), r(nc), d(nq);
      if (gm->correction_factor(mass, L.data(), C.data(), work.data()) == LGC_MODEL_SINGULAR_CONSTRAINTS) continue;
      for (size_t c = 0; c < rows; ++c) K[c] = r[c] = u(rng);
      gm->correction_solve(mass, int(rows), L.data(), C.data(), work.data(), K.data(), d.data());
      std::vector<double> Cd(rows, 0.0), Wd(nq, 0.0), CtK(nq, 0.0);
      double scale = 1e-300;
      for (size_t c = 0; c < rows; ++c)
        for (size_t i = 0; i < nq; ++i) {
          Cd[c] += C[c * nq + i] * d[i], CtK[i] += C[c * nq + i] * K[c];
          scale = std::max(scale, std::fabs(C[c * nq + i] * d[i]));
        }
      for (size_t i = 0; i < nq; ++i)
        for (size_t j = 0; j < nq; ++j) Wd[i] += (mass ? M[i * nq + j] : i == j) * d[j];
      for (size_t c = 0; c < rows; ++c)
        if (!(std::fabs(Cd[c] - r[c]) <= 1e-9 * std::max(scale, std::fabs(r[c]))))
          fail_msg("%s (%s): the correction (metric %s, %zu rows) gives (C d)[%zu] = %.17g for r = %.17g", gm->name,
                   vname, mass ? "mass" : "identity", rows, c, Cd[c], r[c]);
      double wscale = std::max(norm(Wd), norm(CtK));
      for (size_t i = 0; i < nq; ++i)
        if (!(std::fabs(Wd[i] - CtK[i]) <= 1e-9 * wscale))
          fail_msg("%s (%s): the correction (metric %s, %zu rows) is not W^-1 C^T K: (W d)[%zu] = %.17g, "
                   "(C^T K)[%zu] = %.17g", gm->name, vname, mass ? "mass" : "identity", rows, i, Wd[i], i, CtK[i]);
    }
}

// The coordinates of each quaternion norm row (docs/theory.md, the free
// joint): the rows whose origin's column is "quaternionK", by row.
std::map<size_t, std::vector<size_t>> quaternion_rows(const lgc::Model &m) {
  std::map<size_t, std::vector<size_t>> out;
  for (size_t c = 0; c < m.nh; ++c)
    if (m.origins[c].column.rfind("quaternion", 0) == 0)
      for (size_t i = 0; i < m.nq; ++i)
        if (m.phi[c].has(m.symbols.q[i])) out[c].push_back(i);
  return out;
}

// x moved onto its quaternions' norm rows: each Q scaled to |Q| = 1 and Q'
// made orthogonal to it (Q.Q' = 0).
void onto_the_norms(const lgc::Model &m, std::vector<double> &x) {
  for (auto &[row, Q] : quaternion_rows(m)) {
    double s = 0, r = 0;
    for (size_t i : Q) s += x[i] * x[i];
    for (size_t i : Q) x[i] /= std::sqrt(s);
    for (size_t i : Q) r += x[i] * x[m.nq + i];
    for (size_t i : Q) x[m.nq + i] -= r * x[i];
  }
}

// The norm rows at a point off them: J q'' = r, Baumgarte's stabilised
// row, which rhs by the recursion solves wherever |Q| and Q.Q' are.
void check_norm_rows_off_the_norm(const lgc_model *gm, const lgc::Model &m, const std::vector<double> &x, double t,
                                  double alpha, double beta) {
  const size_t nq = m.nq;
  std::vector<double> p(gm->parameter_defaults, gm->parameter_defaults + gm->np);
  std::vector<double> in(gm->input_defaults ? gm->input_defaults : nullptr,
                         gm->input_defaults ? gm->input_defaults + gm->nu : nullptr);
  std::vector<double> dxdt(gm->nx), multipliers(m.nc() + 1), work(gm->nwork + 1);
  assert_int_equal(gm->rhs(t, x.data(), in.data(), p.data(), alpha, beta, dxdt.data(), multipliers.data(), work.data()),
                   LGC_MODEL_OK);
  Evaluator ev;
  for (size_t i = 0; i < m.state.size(); ++i) ev.at[m.state[i].sym] = x[i];
  for (size_t i = 0; i < p.size(); ++i) ev.at[m.symbols.p[i]] = p[i];
  ev.at[m.symbols.t] = t, ev.at[m.alpha] = alpha, ev.at[m.beta] = beta;
  for (auto &[row, Q] : quaternion_rows(m)) {
    double Jq = 0, scale = 0;
    for (size_t i : Q) {
      Jq += ev(m.J(row, i)) * dxdt[nq + i];
      scale = std::max(scale, std::fabs(ev(m.J(row, i)) * dxdt[nq + i]));
    }
    const double r = ev(m.r[row]);
    if (!(std::fabs(Jq - r) <= 1e-12 * std::max(scale, std::fabs(r))))
      fail_msg("%s: off the norm, row %zu: J q'' = %.17g, r = %.17g", gm->name, row, Jq, r);
  }
}

// At `trials` random points (GiNaC evaluates the symbolic side in its
// arbitrary-precision floats, the test's cost on a large tree). With
// `on_norms` (rhs by the recursion through a free joint) each quaternion is
// put on its norm, |Q| = 1 and Q.Q' = 0, where both forms are the same
// motion; the norm row's multiplier (reported 0) is then the one that the
// form with M gives, fitted from M q'' + k - Q along the row, which checks
// every equation across it. The row itself, J q'' = r, holds everywhere:
// it is checked first at the random point off the norm.
void check_model(const lgc_model *gm, const Variant &variant, const lgc::Model &m, std::mt19937_64 &rng,
                 int trials = 8, bool on_norms = false) {
  const char *name = gm->name, *vname = variant.name;
  size_t nq = m.nq, nh = m.nh, nn = m.nn, nc = m.nc();
  assert_int_equal(gm->nq, nq);
  assert_int_equal(gm->nx, m.state.size());
  assert_int_equal(gm->vakonomic, !m.mu.empty());
  // What does not change from trial to trial, derived once: the expanded
  // energy and its terms (for the round-off scale), and D = d(rate)/dq.
  const ex energy_sum = m.T + m.V, energy = GiNaC::expand(energy_sum);
  std::vector<ex> energy_terms;
  for (size_t i = 0; i < (GiNaC::is_a<GiNaC::add>(energy) ? energy.nops() : 0); ++i) energy_terms.push_back(energy.op(i));
  std::vector<ex> D_expr(nc * nq);
  for (size_t c = 0; c < nc; ++c)
    for (size_t i = 0; i < nq; ++i) D_expr[c * nq + i] = m.rate(c).diff(m.symbols.q[i]);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<double> x(gm->nx), p(gm->parameter_defaults, gm->parameter_defaults + gm->np);
    std::vector<double> in(gm->input_defaults ? gm->input_defaults : nullptr,
                           gm->input_defaults ? gm->input_defaults + gm->nu : nullptr);
    for (double &xi : x) xi = u(rng);
    double t = u(rng), alpha = 10 * std::fabs(u(rng)), beta = 25 * std::fabs(u(rng));
    Evaluator ev;
    if (on_norms) {
      check_norm_rows_off_the_norm(gm, m, x, t, alpha, beta);
      onto_the_norms(m, x);
    }
    for (size_t i = 0; i < m.state.size(); ++i) ev.at[m.state[i].sym] = x[i];
    for (size_t i = 0; i < p.size(); ++i) ev.at[m.symbols.p[i]] = p[i];
    for (size_t i = 0; i < in.size(); ++i) ev.at[m.symbols.u[i]] = in[i];
    ev.at[m.symbols.t] = t, ev.at[m.alpha] = alpha, ev.at[m.beta] = beta;

    std::vector<double> dxdt(gm->nx), multipliers(nc + 1), work(gm->nwork + 1);
    int status = gm->rhs(t, x.data(), in.data(), p.data(), alpha, beta, dxdt.data(), multipliers.data(), work.data());
    assert_int_equal(status, LGC_MODEL_OK);
    const double *qdd = dxdt.data() + nq;
    // The solve's multipliers: vakonomic models return the state mu for the
    // nonholonomic rows, whose own multipliers are -mu'.
    std::vector<double> nu(multipliers.begin(), multipliers.begin() + long(nc));
    for (size_t j = 0; j < m.mu.size(); ++j) {
      check_value(name, vname, "multiplier mu" + std::to_string(j + 1), multipliers[nh + j], x[2 * nq + nn + j]);
      nu[nh + j] = -dxdt[2 * nq + nn + j];
    }

    // The expressions' values at this point, each evaluated once.
    std::vector<double> M_value(nq * nq), J_value(nc * nq);
    for (size_t i = 0; i < nq; ++i)
      for (size_t j = 0; j < nq; ++j) M_value[i * nq + j] = ev(m.M(i, j));
    for (size_t c = 0; c < nc; ++c)
      for (size_t i = 0; i < nq; ++i) J_value[c * nq + i] = ev(m.J(c, i));
    if (on_norms)
      for (auto &[row, Q] : quaternion_rows(m)) {
        check_value(name, vname, "the norm row's multiplier", nu[row], 0.0);
        double along = 0, JJ = 0;  // J_row . (M q'' + k - Q - the other rows' J^T nu) / |J_row|^2
        for (size_t i = 0; i < nq; ++i) {
          double e = ev(m.k[i]) - ev(m.Q[i]);
          for (size_t j = 0; j < nq; ++j) e += M_value[i * nq + j] * qdd[j];
          for (size_t c = 0; c < nc; ++c)
            if (c != row) e -= J_value[c * nq + i] * nu[c];
          along += J_value[row * nq + i] * e, JJ += J_value[row * nq + i] * J_value[row * nq + i];
        }
        nu[row] = along / JJ;
      }

    // M q'' + k - Q - J^T nu = 0, row by row.
    std::vector<double> dyn(nq), Mq(nq), k(nq), Q(nq), Jnu(nq, 0.0);
    for (size_t i = 0; i < nq; ++i) {
      for (size_t j = 0; j < nq; ++j) Mq[i] += M_value[i * nq + j] * qdd[j];
      k[i] = ev(m.k[i]), Q[i] = ev(m.Q[i]);
      for (size_t c = 0; c < nc; ++c) Jnu[i] += J_value[c * nq + i] * nu[c];
      dyn[i] = Mq[i] + k[i] - Q[i] - Jnu[i];
    }
    check_relative(name, vname, "M q'' + k = Q + J^T nu", dyn, {norm(Mq), norm(k), norm(Q), norm(Jnu)});
    // J q'' = r, the Baumgarte-stabilised constraint rows.
    std::vector<double> rows(nc), Jq(nc, 0.0), r(nc);
    for (size_t c = 0; c < nc; ++c) {
      for (size_t i = 0; i < nq; ++i) Jq[c] += J_value[c * nq + i] * qdd[i];
      r[c] = ev(m.r[c]);
      rows[c] = Jq[c] - r[c];
    }
    // A redundant row is implied by the others on the constraints only; at
    // this random state it is independent, and rhs leaves it out.
    for (size_t c : m.redundant) rows[c] = 0.0;
    if (nc) check_relative(name, vname, "J q'' = r", rows, {norm(Jq), norm(r)});
    for (size_t i = 0; i < nq; ++i) check_value(name, vname, "q' in dx/dt", dxdt[i], x[nq + i]);
    for (size_t j = 0; j < nn; ++j) check_value(name, vname, "(int g)' = g", dxdt[2 * nq + j], ev(m.g[j]));

    // The other generated functions.
    std::vector<double> phi(nh + 1), phi_dot(nh + 1), g(nn + 1), M(nq * nq), C(nc * nq + 1), D(nc * nq + 1);
    gm->residuals(t, x.data(), p.data(), phi.data(), phi_dot.data(), g.data());
    for (size_t j = 0; j < nh; ++j) {
      check_value(name, vname, "phi" + std::to_string(j + 1), phi[j], ev(m.phi[j]));
      check_value(name, vname, "phi" + std::to_string(j + 1) + "'", phi_dot[j], ev(m.phi_dot[j]));
    }
    for (size_t j = 0; j < nn; ++j) check_value(name, vname, "g" + std::to_string(j + 1), g[j], ev(m.g[j]));
    // The generated energy is T + V as the lowering arranged it: its round-off
    // is at most that of the largest term of the expanded sum (a stiff
    // spring's k r^2/2 and -k l r cancel to far less than either).
    // The terms' values only scale the round-off: in double arithmetic, over
    // the values of their factors (tens of thousands of terms for a tree).
    double terms = 0;
    for (const ex &term : energy_terms) terms = std::max(terms, std::fabs(ev.rough(term)));
    const double energy_value = ev(energy_sum);
    check_value(name, vname, "the energy", gm->energy(t, x.data(), p.data()), energy_value, terms);
    double TV[2];  // T and V apart, each to the round-off of the energy's terms
    gm->energies(t, x.data(), p.data(), TV);
    check_value(name, vname, "T", TV[0], ev(m.T), terms);
    check_value(name, vname, "V", TV[1], ev(m.V), terms);
    // A controller's entry points. Inverse dynamics at rhs's q'' gives the
    // rows' forces J^T nu; at any a it is M a + k - Q, to 1e-12 relative.
    // With `on_norms`, each of these only across the norm rows (their
    // component along J_row taken out): along Q the symbolic k and dV/dq
    // are derivatives across |Q| = 1, of T and V as their terms continue
    // off it, which the tables' rigid motion does not copy (docs/theory.md
    // §9, the norm row's multiplier); that component only moves the row's
    // multiplier.
    auto across = [&](std::vector<double> v) {
      if (on_norms)
        for (auto &[row, Qs] : quaternion_rows(m)) {
          double along = 0, JJ = 0;
          for (size_t i = 0; i < nq; ++i)
            along += J_value[row * nq + i] * v[i], JJ += J_value[row * nq + i] * J_value[row * nq + i];
          for (size_t i = 0; i < nq; ++i) v[i] -= along / JJ * J_value[row * nq + i];
        }
      return v;
    };
    std::vector<double> tau(nq), a(nq), id(nq), Ma(nq, 0.0), bias(nq), dVdq(nq);
    gm->inverse_dynamics(t, x.data(), in.data(), p.data(), qdd, tau.data());
    for (size_t i = 0; i < nq; ++i) id[i] = tau[i] - Jnu[i];
    check_relative(name, vname, "inverse dynamics at rhs's q'' = J^T nu", across(id),
                   {norm(Mq), norm(k), norm(Q), norm(Jnu)});
    for (double &ai : a) ai = 10 * u(rng);
    gm->inverse_dynamics(t, x.data(), in.data(), p.data(), a.data(), tau.data());
    for (size_t i = 0; i < nq; ++i) {
      for (size_t j = 0; j < nq; ++j) Ma[i] += M_value[i * nq + j] * a[j];
      id[i] = tau[i] - (Ma[i] + k[i] - Q[i]);
    }
    check_relative(name, vname, "inverse dynamics = M a + k - Q", across(id), {norm(Ma), norm(k), norm(Q)});
    // The bias: k - Q with every input 0; the gravity: dV/dq.
    gm->bias(t, x.data(), p.data(), bias.data());
    gm->gravity(t, x.data(), p.data(), dVdq.data());
    for (size_t i = 0; i < in.size(); ++i) ev.at[m.symbols.u[i]] = 0.0;
    std::vector<double> bias_want(nq), dVdq_want(nq);
    for (size_t i = 0; i < nq; ++i) bias_want[i] = k[i] - ev(m.Q[i]), dVdq_want[i] = ev(m.V.diff(m.symbols.q[i]));
    const std::vector<double> bias_got = across(bias), dVdq_got = across(dVdq);
    const std::vector<double> bias_across = across(bias_want), dVdq_across = across(dVdq_want);
    for (size_t i = 0; i < nq; ++i) {
      const double Q0 = k[i] - bias_want[i];
      check_value(name, vname, "bias row " + std::to_string(i), bias_got[i], bias_across[i],
                  std::max(std::fabs(k[i]), std::fabs(Q0)));
      check_value(name, vname, "dV/dq" + std::to_string(i), dVdq_got[i], dVdq_across[i]);
    }
    for (size_t i = 0; i < in.size(); ++i) ev.at[m.symbols.u[i]] = in[i];
    gm->mass_matrix(t, x.data(), p.data(), M.data());
    gm->constraint_jacobian(t, x.data(), p.data(), C.data());
    gm->constraint_coordinate_jacobian(t, x.data(), p.data(), D.data());
    for (size_t i = 0; i < nq; ++i)
      for (size_t j = 0; j < nq; ++j)
        check_value(name, vname, "M" + std::to_string(i) + std::to_string(j), M[i * nq + j], M_value[i * nq + j]);
    for (size_t c = 0; c < nc; ++c)
      for (size_t i = 0; i < nq; ++i) {
        std::string at = "[" + std::to_string(c) + "][" + std::to_string(i) + "]";
        check_value(name, vname, "C" + at, C[c * nq + i], J_value[c * nq + i]);
        check_value(name, vname, "D" + at, D[c * nq + i], ev(D_expr[c * nq + i]));
      }
    check_correction(gm, vname, M, C, rng);
  }
}

// The initial state: at the defaults, at other parameters, and which
// entries the spec gives; the constraints' labels.
void check_initial_state_and_labels(const lgc_model *gm, const Variant &variant, const lgc::Model &m,
                                    std::mt19937_64 &rng) {
  std::vector<double> x(gm->nx), p(gm->parameter_defaults, gm->parameter_defaults + gm->np);
  gm->initial_state_at(p.data(), x.data());
  for (size_t i = 0; i < x.size(); ++i) {
    check_value(gm->name, variant.name, "initial " + m.state[i].name + " at the defaults", x[i], gm->initial_state[i]);
    if (gm->initial_given[i] != m.state[i].given)
      fail_msg("%s (%s): initial_given[%zu] = %d, the spec %s it", gm->name, variant.name, i, gm->initial_given[i],
               m.state[i].given ? "gives" : "does not give");
  }
  std::uniform_real_distribution<double> u(0.5, 2);
  Evaluator ev;
  for (size_t k = 0; k < p.size(); ++k) ev.at[m.symbols.p[k]] = p[k] *= u(rng);
  gm->initial_state_at(p.data(), x.data());
  for (size_t i = 0; i < x.size(); ++i)
    check_value(gm->name, variant.name, "initial " + m.state[i].name + " at other parameters", x[i],
                ev(m.state[i].initial));
  for (size_t c = 0; c < m.nc(); ++c)
    if (m.constraint_label(c) != gm->constraint_labels[c])
      fail_msg("%s (%s): constraint_labels[%zu] = \"%s\", expected \"%s\"", gm->name, variant.name, c,
               gm->constraint_labels[c], m.constraint_label(c).c_str());
  if (m.nc() == 0 && gm->constraint_labels) fail_msg("%s: constraint_labels set without constraints", gm->name);
}

// The derivative of each f_i in direction k by Ridders' method (Numerical
// Recipes' dfridr): central differences at steps shrinking from h by 1.4,
// extrapolated in a Richardson tableau, keeping the estimate that changes
// least; near a singular configuration no single step is accurate enough.
std::vector<double> ridders(const std::function<std::vector<double>(double)> &difference, double h, size_t n) {
  const int kSteps = 12;
  const double kShrink = 1.4, kShrink2 = kShrink * kShrink;
  std::vector<std::vector<double>> d;  // d[s]: central differences at step h/1.4^s
  for (int step = 0; step < kSteps; ++step, h /= kShrink) d.push_back(difference(h));
  std::vector<double> best(n);
  for (size_t i = 0; i < n; ++i) {
    std::vector<std::vector<double>> a(kSteps, std::vector<double>(kSteps));
    double error = INFINITY;
    best[i] = d[0][i];
    a[0][0] = d[0][i];
    for (int s = 1; s < kSteps; ++s) {
      a[0][s] = d[s][i];
      double factor = kShrink2;
      for (int j = 1; j <= s; ++j, factor *= kShrink2) {
        a[j][s] = (a[j - 1][s] * factor - a[j - 1][s - 1]) / (factor - 1);
        double change = std::max(std::fabs(a[j][s] - a[j - 1][s]), std::fabs(a[j][s] - a[j - 1][s - 1]));
        if (change <= error) error = change, best[i] = a[j][s];
      }
      if (std::fabs(a[s][s] - a[s - 1][s - 1]) >= 2 * error) break;  // higher orders only get worse
    }
  }
  return best;
}

// df/dx and df/du against Ridders' differences of rhs, to 1e-6 relative
// to 1 + |df/dx|.
void check_jacobian(const lgc_model *gm, const Variant &variant, std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  int nx = gm->nx, nu = gm->nu;
  double worst = 0;
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> x(nx), p(gm->parameter_defaults, gm->parameter_defaults + gm->np), in(nu);
    for (double &xi : x) xi = u(rng);
    for (double &ui : in) ui = u(rng);
    double t = u(rng), alpha = 10, beta = 25;
    std::vector<double> dfdx(nx * nx), dfdu(nx * nu + 1), work(gm->nwork_jacobian), f1(nx), f2(nx);
    assert_int_equal(gm->jacobian(t, x.data(), in.data(), p.data(), alpha, beta, dfdx.data(), dfdu.data(), work.data()),
                     LGC_MODEL_OK);
    for (int k = 0; k < nx + nu; ++k) {
      auto difference = [&](double h) {  // of every f_i in direction k, step h
        std::vector<double> xp = x, xm = x, up = in, um = in, d(nx);
        (k < nx ? xp[k] : up[k - nx]) += h;
        (k < nx ? xm[k] : um[k - nx]) -= h;
        gm->rhs(t, xp.data(), up.data(), p.data(), alpha, beta, f1.data(), nullptr, work.data());
        gm->rhs(t, xm.data(), um.data(), p.data(), alpha, beta, f2.data(), nullptr, work.data());
        for (int i = 0; i < nx; ++i) d[i] = (f1[i] - f2[i]) / (2 * h);
        return d;
      };
      std::vector<double> fd = ridders(difference, 1e-3 * (1 + std::fabs(k < nx ? x[k] : in[k - nx])), size_t(nx));
      for (int i = 0; i < nx; ++i) {
        double exact = k < nx ? dfdx[i * nx + k] : dfdu[i * nu + k - nx];
        double error = std::fabs(fd[i] - exact) / (1 + std::fabs(exact));
        worst = std::max(worst, error);
        if (!(error <= 1e-6))
          fail_msg("%s (%s): df%d/d%s%d = %.10g, the differences give %.10g", gm->name, variant.name, i,
                   k < nx ? "x" : "u", k < nx ? k : k - nx, exact, fd[i]);
      }
    }
  }
  print_message("  %-22s %-10s df/dx, df/du within %.1e of the differences\n", gm->name, variant.name, worst);
}

// dq''/dp against Ridders' differences of rhs's q'' in each parameter, to
// 1e-6 relative to 1 + |dq''/dp|.
void check_parameter_jacobian(const lgc_model *gm, const Variant &variant, std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  const int nx = gm->nx, nq = gm->nq, np = gm->np;
  double worst = 0;
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<double> x(nx), p(gm->parameter_defaults, gm->parameter_defaults + np), in(gm->nu + 1);
    for (double &xi : x) xi = u(rng);
    for (double &ui : in) ui = u(rng);
    double t = u(rng), alpha = 10, beta = 25;
    std::vector<double> dqdd_dp(nq * np + 1), work(gm->nwork_parameter_jacobian), f1(nx), f2(nx);
    assert_int_equal(gm->parameter_jacobian(t, x.data(), in.data(), p.data(), alpha, beta, dqdd_dp.data(), work.data()),
                     LGC_MODEL_OK);
    for (int k = 0; k < np; ++k) {
      auto difference = [&](double h) {  // of every q''_i in parameter k, step h
        std::vector<double> pp = p, pm = p, d(nq);
        pp[k] += h, pm[k] -= h;
        gm->rhs(t, x.data(), in.data(), pp.data(), alpha, beta, f1.data(), nullptr, work.data());
        gm->rhs(t, x.data(), in.data(), pm.data(), alpha, beta, f2.data(), nullptr, work.data());
        for (int i = 0; i < nq; ++i) d[i] = (f1[nq + i] - f2[nq + i]) / (2 * h);
        return d;
      };
      // A step relative to the parameter: the heavy top's inertias are 2e-4.
      std::vector<double> fd = ridders(difference, 1e-3 * (p[k] != 0 ? std::fabs(p[k]) : 1), size_t(nq));
      for (int i = 0; i < nq; ++i) {
        double exact = dqdd_dp[i * np + k], error = std::fabs(fd[i] - exact) / (1 + std::fabs(exact));
        worst = std::max(worst, error);
        if (!(error <= 1e-6))
          fail_msg("%s (%s): dq''%d/d%s = %.10g, the differences give %.10g", gm->name, variant.name, i,
                   gm->parameter_names[k], exact, fd[i]);
      }
    }
  }
  print_message("  %-22s %-10s dq''/dp within %.1e of the differences\n", gm->name, variant.name, worst);
}

// The numerical rank of A (rows x cols, row-major): Householder QR with
// column pivoting, A's columns scaled to unit length first (a parameter's
// units must not decide); a diagonal below 1e-9 of the first ends it.
// `kept` and `next` get the last diagonal counted and the first one not.
int numerical_rank(std::vector<double> A, size_t rows, size_t cols, double &kept, double &next) {
  auto at = [&](size_t i, size_t j) -> double & { return A[i * cols + j]; };
  for (size_t j = 0; j < cols; ++j) {
    double n = 0;
    for (size_t i = 0; i < rows; ++i) n += at(i, j) * at(i, j);
    for (size_t i = 0; n > 0 && i < rows; ++i) at(i, j) /= std::sqrt(n);
  }
  int rank = 0;
  double first = 0;
  kept = next = 0;
  for (size_t k = 0; k < std::min(rows, cols); ++k) {
    size_t best = k;
    double best_norm = -1;
    for (size_t j = k; j < cols; ++j) {
      double n = 0;
      for (size_t i = k; i < rows; ++i) n += at(i, j) * at(i, j);
      if (n > best_norm) best = j, best_norm = n;
    }
    for (size_t i = 0; i < rows; ++i) std::swap(at(i, k), at(i, best));
    double norm_k = std::sqrt(best_norm);
    if (k == 0) first = norm_k;
    if (!(norm_k > 1e-9 * first)) {
      next = norm_k / first;
      break;
    }
    kept = norm_k / first;
    ++rank;
    // The reflection that takes column k below the diagonal to 0.
    std::vector<double> v(rows - k);
    for (size_t i = k; i < rows; ++i) v[i - k] = at(i, k);
    v[0] += v[0] >= 0 ? norm_k : -norm_k;
    double vv = 0;
    for (double e : v) vv += e * e;
    for (size_t j = k; j < cols && vv > 0; ++j) {
      double d = 0;
      for (size_t i = k; i < rows; ++i) d += v[i - k] * at(i, j);
      for (size_t i = k; i < rows; ++i) at(i, j) -= 2 * d / vv * v[i - k];
    }
  }
  return rank;
}

// Y theta - tau, tau the inverse dynamics; its scale the largest of |tau|
// and of the products Y_ik theta_k (the sum's round-off).
void check_product(const lgc_model *gm, const Variant &variant, const char *what, const std::vector<double> &Y,
                   const std::vector<double> &theta, const std::vector<double> &tau) {
  size_t nq = tau.size(), n = theta.size();
  std::vector<double> residual(nq);
  double terms = 0;
  for (size_t i = 0; i < nq; ++i) {
    residual[i] = -tau[i];
    for (size_t k = 0; k < n; ++k) {
      residual[i] += Y[i * n + k] * theta[k];
      terms = std::max(terms, std::fabs(Y[i * n + k] * theta[k]));
    }
  }
  check_relative(gm->name, variant.name, what, residual, {norm(tau), terms});
}

// The regressor: Y theta = tau (the inverse dynamics at every input 0), in
// the base and in the standard parameters, at 50 random states, q'' and
// parameters, to 1e-12 relative; and as many base parameters as the
// numerical rank of the standard regressor stacked over those states.
void check_regressor(const lgc_model *gm, const Variant &variant, const lgc::Model &m, std::mt19937_64 &rng) {
  if (!gm->regressor) {
    lgc::Regressor r = lgc::derive_regressor(m);
    if (r.available()) fail_msg("%s (%s): the model has a regressor, the generated code none", gm->name, variant.name);
    print_message("  %-22s %-22s no regressor: %s\n", gm->name, variant.name, r.absent.c_str());
    return;
  }
  std::uniform_real_distribution<double> u(-1, 1);
  const size_t nq = gm->nq, ns = gm->nstandard, nb = gm->nbase, states = 50;
  std::vector<double> stacked;  // (states * nq) x ns
  for (size_t trial = 0; trial < states; ++trial) {
    std::vector<double> x(gm->nx), a(nq), p(gm->parameter_defaults, gm->parameter_defaults + gm->np), in(gm->nu + 1, 0.0);
    for (double &xi : x) xi = u(rng);
    for (double &ai : a) ai = 10 * u(rng);
    for (double &pi : p) pi = pi != 0 ? pi * (1 + 0.5 * u(rng)) : u(rng);
    double t = u(rng);
    std::vector<double> tau(nq), Yb(nq * nb), Ys(nq * ns), base(nb), standard(ns);
    gm->inverse_dynamics(t, x.data(), in.data(), p.data(), a.data(), tau.data());
    gm->regressor(t, x.data(), a.data(), Yb.data());
    gm->base_parameters(p.data(), base.data());
    gm->standard_regressor(t, x.data(), a.data(), Ys.data());
    gm->standard_parameters(p.data(), standard.data());
    check_product(gm, variant, "Y theta = tau in the base parameters", Yb, base, tau);
    check_product(gm, variant, "Y theta = tau in the standard parameters", Ys, standard, tau);
    // No parameter combines (NBASE = NSTANDARD): the two regressors and parameter vectors are one.
    if (nb == ns && (Yb != Ys || base != standard))
      fail_msg("%s (%s): %zu base and standard parameters, yet the base and the standard regressor or parameters "
               "differ (Y[0] %.17g against %.17g, theta[0] %.17g against %.17g)", gm->name, variant.name, ns,
               Yb[0], Ys[0], base[0], standard[0]);
    stacked.insert(stacked.end(), Ys.begin(), Ys.end());
  }
  double kept, next;
  int rank = numerical_rank(stacked, states * nq, ns, kept, next);
  if (rank != int(nb))
    fail_msg("%s (%s): %zu base parameters, but the standard regressor over %zu states has rank %d (diagonal %.3g, "
             "then %.3g)", gm->name, variant.name, nb, states, rank, kept, next);
  char gap[32] = "none left";
  if (size_t(rank) < ns) std::snprintf(gap, sizeof gap, "%.1e", next);
  print_message("  %-22s %-22s %2zu standard, %2zu base parameters, rank %2d (last |R_kk| %.1e, next %s)\n",
                gm->name, variant.name, ns, nb, rank, kept, gap);
}

// A model generated without the Jacobian has none, and computes the rest
// bit for bit as the one with it.
void check_same_without_jacobian(const lgc_model *without, const lgc_model *with, std::mt19937_64 &rng) {
  if (without->jacobian || without->nwork_jacobian)
    fail_msg("%s: generated with --no-jacobian, yet jacobian is set", without->name);
  assert_int_equal(without->nwork, with->nwork);
  std::uniform_real_distribution<double> u(-1, 1);
  int nx = with->nx, nc = with->nh + with->nn;
  std::vector<double> x(nx), p(with->parameter_defaults, with->parameter_defaults + with->np), in(with->nu + 1);
  for (double &xi : x) xi = u(rng);
  std::vector<double> f1(nx), f2(nx), m1(nc + 1), m2(nc + 1), work(with->nwork);
  assert_int_equal(with->rhs(0.5, x.data(), in.data(), p.data(), 3, 4, f1.data(), m1.data(), work.data()), LGC_MODEL_OK);
  assert_int_equal(without->rhs(0.5, x.data(), in.data(), p.data(), 3, 4, f2.data(), m2.data(), work.data()),
                   LGC_MODEL_OK);
  if (std::memcmp(f1.data(), f2.data(), f1.size() * sizeof(double)) || std::memcmp(m1.data(), m2.data(), nc * sizeof(double)))
    fail_msg("%s: rhs differs between the models generated with and without the Jacobian", with->name);
}

// Each model's random points from its own name, so that a spec added to
// specs/ does not move the points every other model is checked at.
std::mt19937_64 rng_for(const lgc_model *gm, uint64_t salt) {
  uint64_t h = 1469598103934665603ull ^ salt;  // FNV-1a
  for (const char *c = gm->name; *c; ++c) h = (h ^ (unsigned char)*c) * 1099511628211ull;
  return std::mt19937_64(h);
}

void every_variant_satisfies_the_equations(void **) {
  for (const Variant &v : kVariants) {
    const auto &models = loaded.at(v.name).models;
    assert_int_equal(models.size(), specs_of(v).size());
    for (const lgc_model *gm : models) {
      lgc::Spec spec = lgc::read_spec(std::string(SPECS_DIR) + "/" + gm->name + ".toml");
      lgc::Model m = lgc::derive(spec, v.formulation);  // m refers to spec: both live here
      std::mt19937_64 rng = rng_for(gm, 7);
      check_model(gm, v, m, rng);
      check_initial_state_and_labels(gm, v, m, rng);
    }
  }
}

void jacobians_match_central_differences(void **) {
  for (const Variant &v : kVariants)
    if (v.jacobian)
      for (const lgc_model *gm : loaded.at(v.name).models) {
        std::mt19937_64 rng = rng_for(gm, 11);
        check_jacobian(gm, v, rng);
        check_parameter_jacobian(gm, v, rng);
      }
}

void regressors_match_inverse_dynamics(void **) {
  for (const Variant &v : kVariants)
    for (const lgc_model *gm : loaded.at(v.name).models) {
      std::mt19937_64 rng = rng_for(gm, 17);
      lgc::Spec spec = lgc::read_spec(std::string(SPECS_DIR) + "/" + gm->name + ".toml");
      lgc::Model m = lgc::derive(spec, v.formulation);
      check_regressor(gm, v, m, rng);
    }
}

void no_jacobian_changes_nothing_else(void **) {
  for (auto [without, with] : {std::pair{"dalembert-no-jacobian", "dalembert"}, {"vakonomic-no-jacobian", "vakonomic"}})
    for (size_t i = 0; i < loaded.at(with).models.size(); ++i) {
      std::mt19937_64 rng = rng_for(loaded.at(with).models[i], 13);
      check_same_without_jacobian(loaded.at(without).models[i], loaded.at(with).models[i], rng);
    }
}

// What the vakonomic variants leave out, they refuse with the reason.
void vakonomic_refuses_friction(void **) {
  for (auto &s : specs()) {
    if (lgc::read_spec(s.string()).friction.empty()) continue;
    Result r = run({LAGRANGEC, "equations", s.string(), "--formulation", "vakonomic"});
    if (r.status != 1 || r.err.find("friction needs the d'Alembert formulation") == std::string::npos)
      fail_msg("%s: vakonomic gave exit %d, stderr:\n%s", s.c_str(), r.status, r.err.c_str());
  }
}

// A tree of bodies past the crossover (tests/gen/specs/articulated_tree.toml:
// two arms of 6 links on a turning base, offset turns between joints, a
// particle, a written potential and forces) takes the articulated-body
// recursion for rhs and no Jacobian; it must satisfy the same equations.
// kkt_terms of a model on the recursion (M's lower triangle and f over the
// tables, a free joint's norm row J and r from its expressions): the KKT
// system they make, solved here by elimination with partial pivoting,
// gives rhs's q'', at random states put on the norms (where both forms are
// the same motion).
void check_kkt_terms(const lgc_model *gm, const lgc::Model &m, std::mt19937_64 &rng) {
  const size_t nq = m.nq, nc = m.nc(), n = nq + nc;
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<double> x(gm->nx), p(gm->parameter_defaults, gm->parameter_defaults + gm->np);
    std::vector<double> in(gm->input_defaults ? gm->input_defaults : nullptr,
                           gm->input_defaults ? gm->input_defaults + gm->nu : nullptr);
    for (double &xi : x) xi = u(rng);
    onto_the_norms(m, x);
    const double t = u(rng), alpha = 10 * std::fabs(u(rng)), beta = 25 * std::fabs(u(rng));
    std::vector<double> dxdt(gm->nx), multipliers(nc + 1), work(gm->nwork + 1);
    assert_int_equal(gm->rhs(t, x.data(), in.data(), p.data(), alpha, beta, dxdt.data(), multipliers.data(), work.data()),
                     LGC_MODEL_OK);
    std::vector<double> M(nq * nq), f(nq), J(nc * nq + 1), r(nc + 1), g(m.nn + 1);
    gm->kkt_terms(t, x.data(), in.data(), p.data(), alpha, beta, M.data(), f.data(), J.data(), r.data(), g.data());
    std::vector<double> K(n * (n + 1), 0.0);  // [M J^T; J 0 | f; r], row by row
    for (size_t i = 0; i < nq; ++i) {
      for (size_t j = 0; j < nq; ++j) K[i * (n + 1) + j] = j <= i ? M[i * nq + j] : M[j * nq + i];
      for (size_t c = 0; c < nc; ++c) K[i * (n + 1) + nq + c] = K[(nq + c) * (n + 1) + i] = J[c * nq + i];
      K[i * (n + 1) + n] = f[i];
    }
    for (size_t c = 0; c < nc; ++c) K[(nq + c) * (n + 1) + n] = r[c];
    for (size_t c = 0; c < n; ++c) {
      size_t best = c;
      for (size_t i = c + 1; i < n; ++i)
        if (std::fabs(K[i * (n + 1) + c]) > std::fabs(K[best * (n + 1) + c])) best = i;
      for (size_t j = 0; j <= n; ++j) std::swap(K[c * (n + 1) + j], K[best * (n + 1) + j]);
      for (size_t i = c + 1; i < n; ++i) {
        const double e = K[i * (n + 1) + c] / K[c * (n + 1) + c];
        for (size_t j = c; j <= n; ++j) K[i * (n + 1) + j] -= e * K[c * (n + 1) + j];
      }
    }
    std::vector<double> a(n);
    for (size_t c = n; c-- > 0;) {
      double v = K[c * (n + 1) + n];
      for (size_t j = c + 1; j < n; ++j) v -= K[c * (n + 1) + j] * a[j];
      a[c] = v / K[c * (n + 1) + c];
    }
    std::vector<double> diff(nq);
    double scale = 0;
    for (size_t i = 0; i < nq; ++i) diff[i] = a[i] - dxdt[nq + i], scale = std::max(scale, std::fabs(dxdt[nq + i]));
    check_relative(gm->name, "articulated", "kkt_terms' KKT solve less rhs's q''", diff, {scale});
  }
}

// rows: the constraint rows rhs solves on top of the recursion (tree_kkt),
// beside a free joint's norm row; planar: rhs takes the planar recursion
// (planar.c), every joint turning about one axis of N.
void check_articulated(const std::string &name, bool free_joint, size_t rows = 0, bool planar = false) {
  const std::string spec = std::string(GEN_SPECS_DIR) + "/" + name + ".toml";
  fs::path dir = scratch(name), library = dir / (name + ".so");
  Result g = run({LAGRANGEC, "generate", spec, "-o", dir.string()});
  if (g.status != 0) fail_msg("generate failed:\n%s", g.err.c_str());
  std::ifstream c_file(dir / (name + ".c"));
  std::string c_text((std::istreambuf_iterator<char>(c_file)), std::istreambuf_iterator<char>());
  if (c_text.find("rhs by the articulated-body recursion") == std::string::npos)
    fail_msg("%s: rhs is not the articulated-body recursion", spec.c_str());
  std::string upper = name;
  for (char &c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
  const std::string planar_call = name + "_planar(table, state, state + " + upper + "_NQ, tau, out_dxdt";
  if ((c_text.find(planar_call) != std::string::npos) != planar)
    fail_msg("%s: rhs %s the planar recursion (%s)", spec.c_str(), planar ? "does not take" : "takes",
             planar_call.c_str());
  // M, the inverse dynamics, the bias, the gravity forces and the energies over the tables, not as expressions.
  for (const std::string &call : {name + "_tree_mass_matrix(table, state, out_M, links);",
                                  name + "_tree_inverse_dynamics(table, state, state + " + upper +
                                      "_NQ, in_acceleration, 1, out_tau, links);",
                                  name + "_tree_energies(table, state, state + " + upper + "_NQ, out_TV, links);"})
    if (c_text.find(call) == std::string::npos)
      fail_msg("%s: the generated C does not call %s", spec.c_str(), call.c_str());
  const std::string on_top = name + "_tree_kkt(table, state, J, " + name + "_rows, " + std::to_string(rows) + ",";
  if (rows && c_text.find(on_top) == std::string::npos)
    fail_msg("%s: the generated C does not solve %zu rows on top of the recursion (%s)", spec.c_str(), rows,
             on_top.c_str());
  Result c = run({"cc", "-shared", "-fPIC", "-O0", "-std=c99", "-I", dir.string(), "-I", RUNTIME_INCLUDE,
                  (dir / (name + ".c")).string(), (dir / (name + "_model.c")).string(), "-o", library.string(), "-lm"});
  if (c.status != 0) fail_msg("cc failed:\n%s", c.err.c_str());
  void *so = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!so) fail_msg("%s", dlerror());
  auto *gm = static_cast<const lgc_model *>(dlsym(so, (name + "_model").c_str()));
  if (!gm) fail_msg("no %s_model", name.c_str());
  // The recursion's own Jacobian, with rows on top too (test_tree_jacobian.cpp checks it); no dq''/dp.
  if (!gm->jacobian || gm->parameter_jacobian)
    fail_msg("%s with %zu rows on top: jacobian %p, parameter_jacobian %p", name.c_str(), rows, (void *)gm->jacobian,
             (void *)gm->parameter_jacobian);
  if (gm->regressor) fail_msg("the recursion's model has a regressor");
  lgc::Spec s = lgc::read_spec(spec);
  // The reference: M, k, T and the inverse dynamics derived symbolically, as the generator does not for this tree.
  lgc::Model m = lgc::derive(s, lgc::Formulation::dalembert, false, true);
  if (m.articulated.chosen) fail_msg("derive(full) chose the recursion: no symbolic M to compare with");
  if (m.nc() != rows + (free_joint ? 1 : 0)) fail_msg("%s: %zu constraint rows", name.c_str(), m.nc());
  std::mt19937_64 rng = rng_for(gm, 7);
  const Variant v = {"articulated", {}, lgc::Formulation::dalembert, false};
  check_model(gm, v, m, rng, 2, free_joint);  // 13 links: 8 points ran past 10 minutes under the sanitizers
  check_kkt_terms(gm, m, rng);
  dlclose(so);
  fs::remove_all(dir);
}

void articulated_model_satisfies_the_equations(void **) { check_articulated("articulated_tree", false); }

// The same tree on a free base (tests/gen/specs/floating_tree.toml: a
// quaternion from a frame at a constant turn from N, forces and a potential
// on its coordinates), its rhs the recursion with the free joint.
void floating_model_satisfies_the_equations(void **) { check_articulated("floating_tree", true); }

// A planar tree (tests/gen/specs/planar_tree.toml: two arms of 3 links on a
// base, every joint about N.z, constant turns about z between joints, bodies
// and gravity off the plane), its rhs the planar recursion.
void planar_model_satisfies_the_equations(void **) { check_articulated("planar_tree", false, 0, true); }

// A tree on the recursion whose third link carries only a particle on its
// joint's axis (tests/gen/specs/axle_arm.toml): without M, the generator
// cannot show it positive definite from the links' own inertias, and says so.
void tree_without_axis_inertia_warns(void **) {
  const std::string spec = std::string(GEN_SPECS_DIR) + "/axle_arm.toml";
  fs::path dir = scratch("axle");
  Result g = run({LAGRANGEC, "generate", spec, "-o", dir.string(), "--no-jacobian"});
  const std::string expected = spec + ":109:9: warning: the bodies turned by 'q3' have no inertia about its axis (at "
                               "the parameters' defaults): the generator cannot show that M is positive definite "
                               "without forming it (the articulated-body recursion was chosen)";
  if (g.status != 0 || g.err.find(expected) == std::string::npos)
    fail_msg("%s: exit %d, stderr:\n%s", spec.c_str(), g.status, g.err.c_str());
  fs::remove_all(dir);
}

// Trees with constraint rows solved on top of the recursion (docs/theory.md
// §9), each against its symbolic model (M, k, J and r of the dense form):
// a planar chain of 8 rods whose tip is pinned (two holonomic rows: a closed
// loop, on the recursion by form = "recursion"), a chain of 6 with a knife
// edge at its tip (a nonholonomic row), both on the planar recursion and
// its solve pass, and a free base with arms of 3
// and 1 links with a holonomic row beside its quaternion's norm (all by
// form = "recursion": the count keeps trees this small dense).
void closed_chain_satisfies_the_equations(void **) { check_articulated("closed_chain", false, 2, true); }
void knife_chain_satisfies_the_equations(void **) { check_articulated("knife_chain", false, 1, true); }
void floating_pinned_satisfies_the_equations(void **) { check_articulated("floating_pinned", true, 1); }

// The last line of a CSV, as numbers.
std::vector<double> last_row(const fs::path &csv) {
  std::ifstream in(csv);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  std::vector<double> out;
  std::stringstream s(last);
  for (std::string cell; std::getline(s, cell, ',');) out.push_back(std::strtod(cell.c_str(), nullptr));
  return out;
}

// The closed chain simulated through every method and correction the
// runtime offers, on the recursion and (form = "dense") on M and its solve:
// each run keeps the constraints (--strict) and ends where the dense one
// does, to the methods' tolerance.
void closed_chain_simulates_as_the_dense_form(void **) {
  const std::string spec = std::string(GEN_SPECS_DIR) + "/closed_chain.toml";
  fs::path dir = scratch("closed_chain_runs"), dense = dir / "closed_chain.toml";
  std::ifstream in(spec);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string recursion = "form = \"recursion\"";
  const size_t at = text.find(recursion);
  if (at == std::string::npos) fail_msg("%s: no %s", spec.c_str(), recursion.c_str());
  std::ofstream(dense) << text.replace(at, recursion.size(), "form = \"dense\"");
  const std::string cache = "LAGRANGEC_CACHE=" + (dir / "cache").string();
  for (const char *method : {"rk4", "dopri5", "adams", "bdf"})
    for (const char *project : {"none", "velocity", "full"})
      for (const char *metric : {"identity", "mass"}) {
        std::vector<std::vector<double>> ends;
        for (const std::string &s : {spec, dense.string()}) {
          const fs::path csv = dir / "run.csv";
          Result r = run({"env", cache, LAGRANGEC, "simulate", s, "--method", method, "--dt", "1e-3", "--t-end", "0.2",
                          "--project", project, "--metric", metric, "--strict", "--quiet", "--out", csv.string()});
          if (r.status != 0)
            fail_msg("%s --method %s --project %s --metric %s: exit %d, stderr:\n%s", s.c_str(), method, project,
                     metric, r.status, r.err.c_str());
          ends.push_back(last_row(csv));
        }
        if (ends[0].size() != ends[1].size() || ends[0].empty()) fail_msg("%s: the CSVs differ in columns", method);
        for (size_t i = 0; i < 17; ++i)  // t, q, q'
          if (!(std::fabs(ends[0][i] - ends[1][i]) <= 1e-7 * (1 + std::fabs(ends[1][i]))))
            fail_msg("--method %s --project %s --metric %s: column %zu ends at %.17g on the recursion, %.17g on M",
                     method, project, metric, i, ends[0][i], ends[1][i]);
      }
  fs::remove_all(dir);
}

}  // namespace

// `test_generated`: specs/ in every variant (generated-equations);
// `test_generated articulated`: the tree of its own (generated-articulated);
// `test_generated articulated-constrained`: trees with rows on top of the
// recursion (generated-articulated-constrained).
int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_variant_satisfies_the_equations),
      cmocka_unit_test(jacobians_match_central_differences),
      cmocka_unit_test(no_jacobian_changes_nothing_else),
      cmocka_unit_test(regressors_match_inverse_dynamics),
      cmocka_unit_test(vakonomic_refuses_friction),
  };
  const struct CMUnitTest articulated[] = {cmocka_unit_test(articulated_model_satisfies_the_equations),
                                           cmocka_unit_test(floating_model_satisfies_the_equations),
                                           cmocka_unit_test(planar_model_satisfies_the_equations),
                                           cmocka_unit_test(tree_without_axis_inertia_warns)};
  const struct CMUnitTest constrained[] = {cmocka_unit_test(closed_chain_satisfies_the_equations),
                                           cmocka_unit_test(knife_chain_satisfies_the_equations),
                                           cmocka_unit_test(floating_pinned_satisfies_the_equations),
                                           cmocka_unit_test(closed_chain_simulates_as_the_dense_form)};
  if (argc > 1 && std::string(argv[1]) == "articulated") return cmocka_run_group_tests(articulated, nullptr, nullptr);
  if (argc > 1 && std::string(argv[1]) == "articulated-constrained")
    return cmocka_run_group_tests(constrained, nullptr, nullptr);
  return cmocka_run_group_tests(tests, generate_and_load, unload);
}
