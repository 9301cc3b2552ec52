// integral.cpp — which quantity the motion conserves, decided at generation
// and said in NAME.md, the summary, the JSON and the CSV's column. The
// Jacobi integral h = q'.dL/dq' - L is conserved when L = T - V has no
// explicit t and nothing does work: no forces (or forces of the inputs
// only, then while they are 0), scleronomic constraints (phi and g without
// t, g homogeneous in q'), no impacts that lose energy. h is T + V when T
// is homogeneous quadratic in q'; coordinates taken in a turning frame
// make T inhomogeneous and keep h, not T + V. Tested at the sample states,
// so that t cancelling out of L (sin^2 + cos^2 of a frame's turn) counts as
// absent.
#include "model/model.h"

#include <algorithm>
#include <cmath>

namespace lgc {

namespace {

using GiNaC::ex;
using Point = Evaluator::Point;

// Round-off of the expressions compared, relative.
constexpr double kTolerance = 1e-9;

// A force's text in a reason, when short enough to read there.
constexpr size_t kLongestText = 60;

bool same(double a, double b) { return std::fabs(a - b) <= kTolerance * (std::fabs(a) + std::fabs(b)); }

class IntegralDeriver {
 public:
  explicit IntegralDeriver(Model &m) : m_(m), s_(m.symbols), points_(sample_points(m, 4)) {}

  void run() {
    m_.integral_absent = why_not_conserved();
    if (!m_.integral_absent.empty()) {
      m_.integral = Model::Integral::none;
      m_.integral_needs_zero_inputs = false;
    } else if (m_.articulated.chosen || homogeneous_quadratic(m_.T)) {  // a tree's T: its joints' rates squared
      m_.integral = Model::Integral::energy;
    } else {
      ex h = m_.V - m_.T;
      for (auto &v : s_.v) h += v * m_.T.diff(v);
      m_.integral = Model::Integral::jacobi;
      m_.jacobi = h;
    }
  }

 private:
  Model &m_;
  const SymbolTable &s_;
  std::vector<Point> points_;

  // The first reason found that nothing is conserved, or "".
  std::string why_not_conserved() {
    for (size_t i = 0; i < m_.nq; ++i) {
      if (m_.Q[i].is_zero()) continue;
      GiNaC::exmap inputs_at_zero;
      for (auto &u : s_.u) inputs_at_zero[u] = 0;
      if (m_.Q[i].subs(inputs_at_zero).expand().is_zero()) {
        m_.integral_needs_zero_inputs = true;
        continue;
      }
      // The force as the spec writes it: GiNaC's own text of it is not the
      // same from run to run (the signs inside a function's argument).
      const auto &written = m_.spec->forces[i];
      std::string text = written ? written->text : "";
      return "the force on " + m_.spec->coordinates[i].name + " does work" +
             (!text.empty() && text.size() <= kLongestText ? " (" + text + ")" : "");
    }
    for (size_t c = 0; c < m_.restitution.size(); ++c) {
      const GiNaC::ex &e = m_.restitution[c];
      if ((e - 1).is_zero()) continue;
      std::string text = GiNaC::is_a<GiNaC::numeric>(e) ? format_double(GiNaC::ex_to<GiNaC::numeric>(e).to_double())
                         : m_.spec->restitution.size() == 1 ? m_.spec->restitution[0].text
                                                            : m_.spec->restitution[c].text;
      return "the contacts' impacts lose energy (restitution " + text + ", not 1)";
    }
    if (!m_.friction.empty())
      return "friction '" + m_.friction[0].name + "' dissipates energy while it slides";
    for (size_t c = 0; c < m_.nh; ++c)
      if (depends_on_t(m_.phi[c])) return m_.constraint_name(c) + " depends on t: it does work";
    for (size_t j = 0; j < m_.nn; ++j) {
      const std::string &name = m_.constraint_name(m_.nh + j);
      if (depends_on_t(m_.g[j])) return name + " depends on t: it does work";
      if (!vanishes_at_rest(j)) return name + " is not homogeneous in the velocities: it does work";
    }
    // A tree on the recursion has no t in its bodies' T and V (its joints turn by coordinates and constants):
    // only the potential written beside them can bring it, and its T is not evaluated where it is large.
    if (depends_on_t(m_.articulated.chosen ? m_.V_written : m_.T - m_.V)) return "L = T - V depends on t explicitly";
    return "";
  }

  Point shifted_t(Point p) const {
    p[s_.t] += 0.6180339887498949;
    return p;
  }

  Point scaled_velocities(Point p, double k) const {
    for (auto &v : s_.v) p[v] *= k;
    return p;
  }

  bool depends_on_t(const ex &e) const {
    if (!s_.has_kind(e, SymbolKind::time)) return false;
    for (const Point &p : points_)
      if (!same(Evaluator(p)(e), Evaluator(shifted_t(p))(e))) return true;
    return false;
  }

  // T(q, 2 q') = 4 T(q, q').
  bool homogeneous_quadratic(const ex &T) const {
    for (const Point &p : points_)
      if (!same(Evaluator(scaled_velocities(p, 2))(T), 4 * Evaluator(p)(T))) return false;
    return true;
  }

  // g_j = B q' + b with b = 0: g at q' = 0 is round-off of g at q'.
  bool vanishes_at_rest(size_t j) const {
    for (const Point &p : points_) {
      double at_rest = Evaluator(scaled_velocities(p, 0))(m_.g[j]);
      double moving = std::fabs(Evaluator(p)(m_.g[j])) + std::fabs(Evaluator(scaled_velocities(p, -1))(m_.g[j]));
      if (!(std::fabs(at_rest) <= kTolerance * moving)) return false;
    }
    return true;
  }
};

}  // namespace

void derive_integral(Model &m) { IntegralDeriver(m).run(); }

}  // namespace lgc
