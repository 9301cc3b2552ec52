// model_checks.cpp — what the derivation checks numerically, at a fixed,
// reproducible set of sample states (parameters and inputs at their
// defaults): a positive definite mass matrix, constraint rows independent of
// the rows before them, and nonholonomic constraints that are holonomic ones
// in disguise. Symbolic tests alone miss zeros that identities hide.
#include "model/model.h"

#include <algorithm>
#include <cmath>

namespace lgc {

using GiNaC::ex;
using Point = Evaluator::Point;

std::vector<Point> sample_points(const Model &m, int count) {
  const SymbolTable &s = m.symbols;
  std::vector<Point> points;
  SampleSequence random;
  for (int k = 0; k < count; ++k) {
    Point p;
    for (auto &q : s.q) p[q] = 0.3 + random.next();
    for (auto &v : s.v) p[v] = random.next() - 0.5;
    for (size_t i = 0; i < s.p.size(); ++i) p[s.p[i]] = m.spec->parameters[i].value;
    for (size_t i = 0; i < s.u.size(); ++i) p[s.u[i]] = m.spec->inputs[i].value;
    p[s.t] = 2 * random.next() - 1;  // times on both sides of 0, for terms that switch with t
    points.push_back(p);
  }
  return points;
}

namespace {

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

// Rows of J = [A; B] that the rows before them span at every one of the
// points (modified Gram–Schmidt; a NaN counts as independent).
std::vector<bool> dependent_rows(const Model &m, const std::vector<Point> &points) {
  size_t nc = m.nc(), n = m.nq;
  std::vector<bool> dependent(nc, true);
  for (const Point &p : points) {
    Evaluator value(p);
    std::vector<std::vector<double>> basis;  // orthonormal, of the rows so far
    for (size_t c = 0; c < nc; ++c) {
      std::vector<double> row(n);
      for (size_t i = 0; i < n; ++i) row[i] = m.J(c, i).is_zero() ? 0.0 : value(m.J(c, i));
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

// Zero symbolically, or at every point to round-off.
bool is_zero(const ex &e, const std::vector<Point> &points) {
  ex x = e.expand();
  if (x.is_zero()) return true;
  for (auto &p : points)
    if (!(std::fabs(Evaluator(p)(x)) <= 1e-12)) return false;
  return true;
}

}  // namespace

void check_mass_matrix(const Model &m) {
  size_t n = m.nq;
  for (const Point &p : sample_points(m, 3)) {
    Evaluator value(p);
    std::vector<double> a(n * n);
    for (size_t i = 0; i < n * n; ++i) a[i] = m.M(i / n, i % n).is_zero() ? 0.0 : value(m.M(i / n, i % n));
    if (positive_definite(a, n)) return;
  }
  error_at(m.spec->kinetic.loc_of(0),
           "the mass matrix d2T/dq'dq' is singular or not positive definite at every sampled state "
           "(with the parameters' default values): check the kinetic energy");
}

void check_tree_inertia(const Model &m) {
  const ArticulatedTree &tree = m.articulated;
  for (size_t i = 0; i < tree.links.size(); ++i) {
    const auto &L = tree.links[i];
    if (L.axis < 0) {  // the free joint: its link's own spatial inertia, the least its articulated one can be
      bool positive = value_at_defaults(L.mass, m.symbols, *m.spec) > 0;
      for (unsigned k = 0; k < 3; ++k) positive = positive && value_at_defaults(L.inertia(k, k), m.symbols, *m.spec) > 0;
      if (positive) continue;
      warn_at(m.spec->kinetic.loc_of(0),
              "the bodies moved by the free joint of '" + m.spec->coordinates[L.free[3]].name + "' have no mass or no "
              "inertia about an axis (at the parameters' defaults): the generator cannot show that M is positive "
              "definite without forming it (the articulated-body recursion was chosen); rhs returns a singular mass "
              "matrix where it is not");
      return;
    }
    const unsigned k = unsigned(L.axis);
    if (value_at_defaults(L.inertia(k, k), m.symbols, *m.spec) > 0) continue;
    warn_at(m.spec->kinetic.loc_of(0),
               "the bodies turned by '" + m.spec->coordinates[L.coordinate].name + "' have no inertia about its axis "
               "(at the parameters' defaults): the generator cannot show that M is positive definite without "
               "forming it (the articulated-body recursion was chosen); rhs returns a singular mass matrix where "
               "it is not");
    return;
  }
}

namespace {

// Points of the constraint manifold near `start`: `count` perturbations of
// its coordinates (1e-3 relative) taken back onto phi = 0 by Gauss-Newton
// steps dq = -J^T (J J^T + eps I)^-1 phi (eps keeps dependent rows
// solvable); points where that does not converge are left out.
std::vector<Point> manifold_points(const Model &m, const Point &start, double scale, int count) {
  size_t n = m.nq, nh = m.nh;
  std::vector<Point> points;
  SampleSequence random(0xD1B54A32D192ED03ull);
  for (int k = 0; k < count; ++k) {
    Point p = start;
    for (auto &q : m.symbols.q) p[q] += 2e-3 * scale * (random.next() - 0.5);
    bool converged = false;
    for (int it = 0; it < 30 && !converged; ++it) {
      Evaluator value(p);
      std::vector<double> phi(nh), J(nh * n), S(nh * nh);
      double size = 0;
      for (size_t c = 0; c < nh; ++c) {
        phi[c] = value(m.phi[c]);
        size = std::max(size, std::fabs(phi[c]));
        for (size_t i = 0; i < n; ++i) J[c * n + i] = m.J(c, i).is_zero() ? 0.0 : value(m.J(c, i));
      }
      if (!std::isfinite(size)) break;
      if (size <= 1e-13 * scale) {
        converged = true;
        break;
      }
      double trace = 0;
      for (size_t a = 0; a < nh; ++a)
        for (size_t b = 0; b < nh; ++b) {
          double s = 0;
          for (size_t i = 0; i < n; ++i) s += J[a * n + i] * J[b * n + i];
          S[a * nh + b] = s;
          if (a == b) trace += s;
        }
      for (size_t a = 0; a < nh; ++a) S[a * nh + a] += 1e-14 * trace + 1e-300;
      // Cholesky of S, then K = S^-1 phi.
      std::vector<double> K = phi;
      for (size_t j = 0; j < nh; ++j) {
        double d = S[j * nh + j];
        for (size_t t = 0; t < j; ++t) d -= S[j * nh + t] * S[j * nh + t];
        d = std::sqrt(std::max(d, 1e-300));
        S[j * nh + j] = d;
        for (size_t i = j + 1; i < nh; ++i) {
          double s = S[i * nh + j];
          for (size_t t = 0; t < j; ++t) s -= S[i * nh + t] * S[j * nh + t];
          S[i * nh + j] = s / d;
        }
      }
      for (size_t i = 0; i < nh; ++i) {
        for (size_t t = 0; t < i; ++t) K[i] -= S[i * nh + t] * K[t];
        K[i] /= S[i * nh + i];
      }
      for (size_t i = nh; i-- > 0;) {
        for (size_t t = i + 1; t < nh; ++t) K[i] -= S[t * nh + i] * K[t];
        K[i] /= S[i * nh + i];
      }
      for (size_t i = 0; i < n; ++i) {
        double d = 0;
        for (size_t c = 0; c < nh; ++c) d += J[c * n + i] * K[c];
        p[m.symbols.q[i]] -= d;
      }
    }
    if (converged) points.push_back(p);
  }
  return points;
}

}  // namespace

// Rows the rows before them imply are redundant: at random states (a
// four-bar closed twice), or at the initial state and at points of the
// constraint manifold around it (Bricard's linkage, whose rows are
// independent off the manifold). They are simulated (their multipliers the
// minimum-norm ones) with a warning naming them, or refused when `strict`.
// A row dependent at the initial state only is a singular configuration
// the motion starts in (a four-bar lying flat), not a redundancy.
void check_independent_constraints(Model &m, bool strict) {
  size_t nc = m.nc(), n = m.nq;
  for (size_t c = 0; c < m.nh; ++c) {
    bool any = false;
    for (size_t i = 0; i < n; ++i) any = any || !m.J(c, i).is_zero();
    if (!any) error_at(m.constraint_loc(c), m.constraint_name(c) + " does not depend on the coordinates");
  }
  Point initial;
  double scale = 1;
  for (size_t i = 0; i < n; ++i) {
    initial[m.state[i].sym] = m.state[i].initial_value;
    initial[m.state[n + i].sym] = m.state[n + i].initial_value;
    scale = std::max(scale, std::fabs(m.state[i].initial_value));
  }
  for (size_t k = 0; k < m.symbols.p.size(); ++k) initial[m.symbols.p[k]] = m.spec->parameters[k].value;
  for (size_t k = 0; k < m.symbols.u.size(); ++k) initial[m.symbols.u[k]] = m.spec->inputs[k].value;
  initial[m.symbols.t] = 0;
  std::vector<bool> dependent = dependent_rows(m, sample_points(m, 4));
  std::string where = "every sampled state";
  Evaluator at_start(initial);
  bool consistent = true;
  for (auto &phi : m.phi) consistent = consistent && std::fabs(at_start(phi)) <= 1e-9 * scale;
  if (consistent && std::find(dependent.begin(), dependent.end(), true) == dependent.end()) {
    std::vector<bool> at_initial = dependent_rows(m, {initial});
    if (std::find(at_initial.begin(), at_initial.end(), true) != at_initial.end()) {
      std::vector<Point> around = manifold_points(m, initial, scale, 6);
      around.push_back(initial);
      dependent = around.size() > 1 ? dependent_rows(m, around) : at_initial;
      where = "the initial state and at points of the constraints around it";
      for (size_t c = 0; c < nc; ++c)
        if (at_initial[c] && !dependent[c])
          warn_at(m.constraint_loc(c), m.constraint_name(c) + " is implied by the constraints before it at the "
                                       "initial state only: the motion starts in a singular configuration");
    }
  }
  for (size_t c = 0; c < nc; ++c) {
    if (!dependent[c]) continue;
    std::string msg = m.constraint_name(c) + " is implied by the constraints before it: its row of the constraint "
                                             "Jacobian is a combination of theirs at " + where;
    if (strict) error_at(m.constraint_loc(c), msg + "; remove it (--strict)");
    warn_at(m.constraint_loc(c), msg + "; kept, its multiplier is the minimum-norm one");
    m.redundant.push_back(c);
  }
}

// A nonholonomic constraint g = B q' + b is a holonomic one in disguise
// when the 1-form w = B dq + b dt is integrable: w ^ dw = 0 (Frobenius, for
// one form; t counts as a coordinate). Tested symbolically, then at sample
// states so that trigonometric identities do not hide a zero.
void warn_integrable(const Model &m) {
  const SymbolTable &s = m.symbols;
  std::vector<ex> coords(s.q.begin(), s.q.end());
  coords.push_back(s.t);
  size_t n = coords.size();
  auto points = sample_points(m, 4);
  for (size_t j = 0; j < m.nn - m.nslip(); ++j) {  // a slip row is a velocity, not a constraint written so
    std::vector<ex> w;
    for (size_t i = 0; i < m.nq; ++i) w.push_back(m.B(j, i));
    w.push_back(m.b[j]);
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
    std::string msg = m.constraint_name(m.nh + j) +
                      " is integrable (its 1-form w satisfies w ^ dw = 0), so it is a holonomic constraint "
                      "written in velocity form";
    // With coefficients free of q and t, w is the differential of w . (q, t).
    bool constant = true;
    for (auto &c : w) constant = constant && !s.has_kind(c, SymbolKind::coordinate) && !c.has(s.t);
    if (exact && constant) {
      ex phi = 0;
      for (size_t i = 0; i < w.size(); ++i) phi += w[i] * coords[i];
      msg += ": write it as holonomic = [\"" + expression_text(phi.expand()) + " - (its initial value)\"]";
    } else {
      msg += exact ? ": it is the time derivative of a function of q and t; write that function as a holonomic constraint"
                   : ": an integrating factor makes it the time derivative of a function of q and t; write that "
                     "function as a holonomic constraint";
    }
    // A wheel's row is the spec's [rolling], not a row the user wrote: say both ways on.
    if (m.origins[m.nh + j].wheel >= 0)
      msg += ", instead of the wheel's [rolling] (a planar wheel's rolling is such a row); or keep [rolling] as it "
             "is: the row stays a nonholonomic constraint, exact all the same, its multiplier the friction force along it";
    warn_at(m.constraint_loc(m.nh + j), msg);
  }
}

bool vanishes_at_samples(const Model &m, const ex &e) {
  std::vector<ex> parts = {e.expand()};
  for (auto &q : m.symbols.q) parts.push_back(e.diff(q).expand());
  for (const Point &p : sample_points(m, 4)) {
    Evaluator value(p);
    for (auto &x : parts) {
      // Round-off is relative to the terms that cancel; a single term must be 0.
      double scale = 0;
      if (GiNaC::is_a<GiNaC::add>(x))
        for (size_t i = 0; i < x.nops(); ++i) scale += std::fabs(value(x.op(i)));
      if (!(std::fabs(value(x)) <= 1e-12 * scale)) return false;
    }
  }
  return true;
}

int sign_at_samples(const Model &m, const ex &e) {
  int sign = 0;
  for (const Point &p : sample_points(m, 4)) {
    double v = Evaluator(p)(e);
    int here = v > 0 ? 1 : v < 0 ? -1 : 0;
    if (here == 0 || (sign && here != sign)) return 0;
    sign = here;
  }
  return sign;
}

}  // namespace lgc
