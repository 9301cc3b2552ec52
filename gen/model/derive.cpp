// derive.cpp — from a spec to the equations of motion (docs/theory.md §1–§2):
// M, k, Q; A, c_h for holonomic constraints; B, c_n for nonholonomic ones;
// the Baumgarte-stabilised constraint rows J q'' = r; the state and its
// initial values. Mathematics only: the numeric checks are model_checks.cpp.
#include "model/model.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace lgc {

namespace {

using GiNaC::ex;

// A value or parameter default larger than this is a typo, not physics.
constexpr double kLargestValue = 1e30;

class Deriver {
 public:
  Deriver(const Spec &spec, Formulation formulation, bool strict, bool full, const RecursionByCount *recount)
      : spec_(spec), strict_(strict), full_(full), recount_(recount), scope_(spec, m_.symbols) {
    m_.spec = &spec;
    m_.formulation = formulation;
    m_.symbols = make_symbols(spec);
    m_.nq = spec.coordinates.size();
  }

  Model run() {
    read_expressions();
    derive_dynamics();
    if (m_.articulated.chosen)
      check_tree_inertia(m_);
    else
      check_mass_matrix(m_);
    derive_holonomic();
    derive_nonholonomic();
    lay_out_state();
    check_independent_constraints(m_, strict_);
    warn_integrable(m_);
    if (m_.formulation == Formulation::vakonomic) derive_vakonomic();
    read_outputs_and_events();
    m_.beyond_float = scope_.beyond_float;
    derive_integral(m_);
    return std::move(m_);
  }

 private:
  const Spec &spec_;
  bool strict_;
  bool full_;  // M, k and the inverse dynamics symbolically even where rhs takes the recursion
  const RecursionByCount *recount_;  // the plan's count of M, which overrules the estimate
  Model m_;
  Scope scope_;               // the spec's definitions, points and frames
  std::vector<StateVar> mu_;  // the vakonomic multipliers, with their initial values
  // The no-slip rows of the wheels a [friction] names, by wheel, for add_friction_slips.
  std::map<std::string, std::vector<std::pair<ConstraintOrigin, ex>>> wheel_slips_;
  GiNaC::ex written_T_, written_V_;  // T and V as the spec writes them, without the bodies'
  GiNaC::ex gauge_;                   // the quaternions' part of written_T_ (quaternion_gauge)

  const SymbolTable &sym() const { return m_.symbols; }

  std::string name_of(size_t i) const { return spec_.coordinates[i].name; }

  void read_expressions() {
    scope_.read_all();
    gauge_ = quaternion_gauge();
    m_.T = read_expression(spec_.kinetic, scope_, {"the kinetic energy", true, false}) + gauge_;
    m_.V = spec_.potential ? read_expression(*spec_.potential, scope_, {"the potential", false, false}) : ex(0);
    add_bodies();
    for (size_t i = 0; i < m_.nq; ++i) {
      std::string what = "the force on " + name_of(i);
      m_.Q.push_back(spec_.forces[i] ? read_expression(*spec_.forces[i], scope_, {what.c_str(), true, true}).expand()
                                     : ex(0));
    }
    std::vector<ConstraintOrigin> holonomic, nonholonomic;
    for (size_t j = 0; j < spec_.holonomic.size(); ++j) {
      holonomic.push_back(written("holonomic", j, spec_.holonomic[j]));
      m_.phi.push_back(read_expression(spec_.holonomic[j], scope_, {holonomic.back().name.c_str(), false, false}));
    }
    for (size_t j = 0; j < spec_.nonholonomic.size(); ++j) {
      nonholonomic.push_back(written("nonholonomic", j, spec_.nonholonomic[j]));
      m_.g.push_back(read_expression(spec_.nonholonomic[j], scope_, {nonholonomic.back().name.c_str(), true, false}).expand());
    }
    add_quaternion_norms(holonomic);
    add_wheels(holonomic, nonholonomic);
    add_friction_slips(nonholonomic);
    // One-sided rows last among the holonomic ones: the runtime switches them on and off.
    for (size_t j = 0; j < spec_.contacts.size(); ++j) {
      ConstraintOrigin o = written("contact", j, spec_.contacts[j]);
      o.column = "contact" + std::to_string(j + 1);
      holonomic.push_back(o);
      m_.phi.push_back(read_expression(spec_.contacts[j], scope_, {holonomic.back().name.c_str(), false, false}));
    }
    m_.ncontact = spec_.contacts.size();
    read_restitution();
    m_.nh = holonomic.size();
    m_.nn = nonholonomic.size();
    for (auto &f : m_.friction)
      for (size_t &row : f.slip_rows) row += m_.nh;
    m_.origins = holonomic;
    m_.origins.insert(m_.origins.end(), nonholonomic.begin(), nonholonomic.end());
  }

  // The quaternion nodes of the frames, each with the first frame (in the
  // spec's order) that turns by it: where its messages point.
  std::vector<std::pair<int, const NamedText *>> quaternions() {
    std::vector<std::pair<int, const NamedText *>> out;
    std::set<int> seen;
    for (const NamedText &f : spec_.frames)
      for (int n = scope_.frame(NameRef{f.name, f.loc}); n != FrameTree::N; n = scope_.frames.node(n).parent)
        if (scope_.frames.node(n).is_quaternion() && seen.insert(n).second) out.emplace_back(n, &f);
    std::sort(out.begin(), out.end());
    return out;
  }

  // A quaternion's angular velocity does not see its length, so M would be
  // singular along q' = q: T gets (q . q')^2/2, which is 0 wherever its
  // unit norm holds (q . q' = 0 there) and leaves the motion on it as it is.
  ex quaternion_gauge() {
    ex gauge = 0;
    for (auto &[node, frame] : quaternions()) {
      const ex q = scope_.frames.node(node).angle;
      ex q_dot_rate = 0;
      for (size_t k = 0; k < 4; ++k) q_dot_rate += q.op(k) * sym().convective_derivative(q.op(k));
      gauge += q_dot_rate * q_dot_rate / 2;
    }
    return gauge;
  }

  // Each quaternion's unit norm, a holonomic row (phi[quaternion1] in the CSV).
  void add_quaternion_norms(std::vector<ConstraintOrigin> &holonomic) {
    size_t k = 0;
    for (auto &[node, frame] : quaternions()) {
      const ex q = scope_.frames.node(node).angle;
      ex norm = -1;
      for (size_t c = 0; c < 4; ++c) norm += q.op(c) * q.op(c);
      std::string label = "quaternion" + std::to_string(++k);
      holonomic.push_back({"the unit norm of the quaternion of frame '" + frame->name + "'", expression_text(norm),
                           label, frame->loc, -1, ""});
      m_.phi.push_back(norm);
    }
  }

  // Row j of a kind as written: "holonomic constraint 2: x^2 + y^2 - l^2",
  // its white space (line breaks of a multi-line string) folded into single spaces.
  static ConstraintOrigin written(const std::string &kind, size_t j, const SourceText &src) {
    std::string text;
    for (char ch : src.text) {
      bool space = std::isspace((unsigned char)ch);
      if (space && (text.empty() || text.back() == ' ')) continue;
      text += space ? ' ' : ch;
    }
    if (!text.empty() && text.back() == ' ') text.pop_back();
    return {kind + " constraint " + std::to_string(j + 1), text, std::to_string(j + 1), src.loc_of(0), -1, ""};
  }

  // Whether a [friction] names wheel `name`: its no-slip rows are then slips.
  bool has_friction(const std::string &name) const {
    for (const FrictionSpec &f : spec_.friction)
      if (f.wheel && f.wheel->name == name) return true;
    return false;
  }

  // Each [friction.NAME]'s slip velocities, the last nonholonomic rows
  // (numbered among them for now: the holonomic rows come before them):
  // constraints while it sticks, the direction of its force while it slides.
  void add_friction_slips(std::vector<ConstraintOrigin> &nonholonomic) {
    if (!spec_.friction.empty() && m_.formulation == Formulation::vakonomic)
      error_at(spec_.friction[0].loc, "friction needs the d'Alembert formulation: its sticking rows are the "
                                      "constraints of a contact, whose multipliers are its friction force");
    for (const FrictionSpec &f : spec_.friction) {
      Model::Friction &out = m_.friction.emplace_back();
      out.name = f.name;
      if (f.wheel) {
        bool known = false;
        for (const WheelSpec &w : spec_.wheels) known = known || w.name == f.wheel->name;
        if (!known) error_at(f.wheel->loc, "'" + f.wheel->name + "' is not a [rolling] wheel");
        auto rows = wheel_slips_.find(f.wheel->name);
        if (rows == wheel_slips_.end())
          error_at(f.wheel->loc, "wheel '" + f.wheel->name + "' has no no-slip row left to slip (both are 0 at "
                                 "every state)");
        for (auto &[origin, slip] : rows->second) {
          out.slip_rows.push_back(nonholonomic.size());
          nonholonomic.push_back(origin);
          m_.g.push_back(slip);
        }
      }
      for (size_t i = 0; i < f.slip.size(); ++i) {
        std::string column = f.slip.size() == 1 ? f.name : f.name + "." + std::to_string(i + 1);
        ConstraintOrigin o{"friction '" + f.name + "': slip " + std::to_string(i + 1), f.slip[i].text, column,
                           f.slip[i].loc_of(0), -1, ""};
        out.slip_rows.push_back(nonholonomic.size());
        nonholonomic.push_back(o);
        m_.g.push_back(read_expression(f.slip[i], scope_, {o.name.c_str(), true, false}).expand());
      }
      out.mu_static = read_coefficient(f.mu_static, "the static friction coefficient of '" + f.name + "'");
      out.mu_kinetic = out.mu_static;
      if (f.mu_kinetic) {
        out.mu_kinetic = read_coefficient(*f.mu_kinetic, "the kinetic friction coefficient of '" + f.name + "'");
        // Past mu_s, a contact that breaks away would slide with more friction than held it.
        if (at_defaults(out.mu_kinetic) > at_defaults(out.mu_static))
          error_at(f.mu_kinetic->loc_of(0), "the kinetic friction coefficient of '" + f.name +
                                                "' exceeds the static one at the parameters' defaults: it "
                                                "must lie in [0, static]");
      }
    }
  }

  // A friction coefficient: an expression of the parameters, >= 0 at their defaults.
  ex read_coefficient(const SourceText &src, const std::string &what) {
    ex e = read_expression(src, scope_, {what.c_str(), false, false, false, "parameters"});
    double value = at_defaults(e);
    if (!(value >= 0)) {
      char text[32];
      std::snprintf(text, sizeof text, "%g", value);
      error_at(src.loc_of(0), what + " = " + text + " at the parameters' defaults: it must be >= 0");
    }
    return e;
  }

  // Each friction contact's normal force, affine in the multipliers (the
  // sliding force it scales then keeps the KKT system linear).
  void read_friction_normals() {
    for (size_t k = 0; k < m_.friction.size(); ++k) {
      const FrictionSpec &f = spec_.friction[k];
      Model::Friction &out = m_.friction[k];
      std::string what = "the normal force of '" + f.name + "'";
      ex N = read_expression(f.normal, scope_, {what.c_str(), true, true, true, "", true}).expand();
      GiNaC::exmap at_zero;
      for (auto &mult : m_.multipliers) at_zero[mult] = 0;
      out.normal0 = N.subs(at_zero);
      for (auto &mult : m_.multipliers) {
        ex rate = N.diff(mult);
        if (sym().has_kind(rate, SymbolKind::multiplier) || rate.has(mult))
          error_at(f.normal.loc_of(0), what + " is not linear in the multipliers (d/d" + mult.get_name() +
                                           " depends on them): the sliding force it scales would make the "
                                           "equations nonlinear in the accelerations");
        out.normal_rate.push_back(rate);
      }
    }
  }

  // T and V of [bodies] and [particles], added to those written (kept
  // apart: M and k of the bodies come from their Jacobians, not from T).
  // They wait for rhs's form (add_body_energies): a tree on the recursion
  // never needs them, and they grow as the tree's depth squared.
  void add_bodies() {
    written_T_ = m_.T;
    written_V_ = m_.V;
    m_.bodies = body_energies(scope_, false);
    m_.V_written = written_V_;
  }

  void add_body_energies() {
    add_energies(scope_, m_.bodies);
    GiNaC::exvector T = {written_T_}, V = {written_V_};
    for (auto &b : m_.bodies) T.push_back(b.T), V.push_back(b.V);
    m_.T = GiNaC::add(T);
    m_.V = GiNaC::add(V);
  }

  // Each wheel's contact row and its two no-slip rows, but those that are 0
  // at every state: the contact row of a wheel whose centre's height is
  // that of a wheel on the plane (a disk written with its lean), the
  // lateral row of a wheel that stays in a vertical plane (a planar disk:
  // its contact point has no velocity across the plane to forbid).
  void add_wheels(std::vector<ConstraintOrigin> &holonomic, std::vector<ConstraintOrigin> &nonholonomic) {
    int index = 0;
    for (const WheelRows &w : wheel_rows(scope_, [&](const ex &e) { return sign_at_samples(m_, e); })) {
      const std::string &name = w.wheel->name;
      auto origin = [&](const std::string &row, const std::string &column) {
        return ConstraintOrigin{"rolling wheel '" + name + "': " + row, "", column, w.wheel->loc, index, row};
      };
      std::vector<std::string> &left_out = m_.left_out.emplace_back();
      if (vanishes_at_samples(m_, w.contact)) {
        left_out.push_back("the contact point on the plane");
      } else {
        holonomic.push_back(origin("the contact point on the plane", name));
        m_.phi.push_back(w.contact);
      }
      for (int i = 0; i < 2; ++i) {
        const std::string &along = w.tangent[i];  // "N.x" (column rear.x) or "t1" (rear.t1)
        if (vanishes_at_samples(m_, w.no_slip[i])) {
          left_out.push_back("no slip along " + along);
          continue;
        }
        ConstraintOrigin row = origin("no slip along " + along, name + "." + (along.rfind("N.", 0) == 0 ? along.substr(2) : along));
        if (has_friction(name)) {
          wheel_slips_[name].push_back({row, w.no_slip[i]});
          continue;
        }
        nonholonomic.push_back(row);
        m_.g.push_back(w.no_slip[i]);
      }
      ++index;
    }
  }

  // M = ∂²T/∂q'∂q';  k = d/dt(∂T/∂q') − ∂T/∂q + ∂V/∂q without the q'' terms:
  // of the written T and V by derive_kinetic, of the bodies by Newton–Euler
  // or from their velocity Jacobians (which one is chosen below). Neither
  // is expanded: they keep the structure of T and the frames, an entry of
  // M is structurally zero when no term of T couples its two velocities,
  // and the plan's lowering collects and factors what remains.
  void derive_dynamics() {
    const auto &s = sym();
    size_t n = m_.nq;
    KineticTerms kin = derive_kinetic(written_T_, s, spec_.kinetic.loc_of(0));
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        if (s.has_kind(kin.M(i, j), SymbolKind::velocity))
          error_at(spec_.kinetic.loc_of(0),
                   "the kinetic energy is not quadratic in the velocities: d2T/d" + name_of(i) + "'d" +
                       name_of(j) + "' depends on the velocities");
    for (size_t i = 0; i < n; ++i) m_.accelerations.push_back(GiNaC::realsymbol("a" + std::to_string(i + 1)));
    // The bodies as a tree, and rhs's form from it: on the recursion,
    // nothing below is derived (M's entries grow as a chain's length cubed
    // and Lagrange's equations with them); the generated functions compute
    // M, k and the inverse dynamics over the tree's tables instead.
    std::vector<ex> tau;
    for (size_t i = 0; i < n; ++i) tau.push_back(m_.Q[i] - written_V_.diff(s.q[i]));
    if ((written_T_ - gauge_).is_zero()) {
      m_.articulated = articulated_tree(scope_.frames, s, m_.bodies, tau);
    } else {
      m_.articulated.absent = "a kinetic energy is written beside the bodies";
      m_.articulated.tau = tau;
    }
    // Constraint rows are solved on top of the recursion (docs/theory.md §9), but for those refused.
    const std::string refused = rows_refused_on_recursion(m_);
    if (spec_.form == "recursion" && !full_) {
      if (!m_.articulated.available())
        error_at(spec_.form_loc, "form = 'recursion', but the bodies are not a tree the recursion takes: " +
                                     m_.articulated.absent);
      if (!refused.empty()) error_at(spec_.form_loc, "form = 'recursion', but " + refused);
    }
    if (refused.empty() && m_.articulated.available() && !full_) {
      choose_form(m_.articulated, n, rows_on_top(m_).size());
      if (recount_) choose_recursion_by_count(m_.articulated, *recount_);
      if (!spec_.form.empty()) {
        m_.articulated.chosen = spec_.form == "recursion";
        m_.articulated.reason = "the spec asks for it (form = '" + spec_.form + "'; by the count, " +
                                m_.articulated.reason + ")";
      }
    }
    if (!m_.articulated.chosen) add_body_energies();
    if (m_.articulated.chosen) {
      m_.M = GiNaC::matrix(n, n);
      m_.k.assign(n, 0);
      m_.inverse_dynamics.assign(n, 0);
      return;
    }
    auto add_bodies = [&](const KineticTerms &bodies) {
      m_.M = GiNaC::matrix(n, n);
      m_.k.clear();
      for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < n; ++j) m_.M(i, j) = kin.M(i, j) + bodies.M(i, j);
        m_.k.push_back(kin.k[i] + bodies.k[i] + written_V_.diff(s.q[i]));
      }
    };
    // Newton–Euler's M is a pass per coordinate that shares what a chain's
    // bodies share; the Jacobian products are a product per pair of
    // columns, each turned into the body's frame: cheaper while chains are
    // short, n^3 along long ones (tests/bench/spatial_arm.py's kkt_entries:
    // 1312 against 1331 operations at 5 links, 1897 against 2062 at 6,
    // 19670 against 46061 at 20; the bicycle, 4 deep, 2116 against 2441).
    bool long_chains = deepest_chain() >= kNewtonEulerDepth;
    add_bodies(long_chains ? newton_euler_dynamics(scope_.frames, s, m_.bodies)
                           : body_dynamics(scope_.frames, s, m_.bodies));
    // A small system is expanded: like terms merge and cancel exactly (a
    // rod's own centripetal terms), so its equations read as a textbook's;
    // its bodies' terms then come from their Jacobians, which meet in one
    // frame where Newton–Euler turns forces into a frame and back (cos^2 +
    // sin^2 that nothing cancels). Past kExpandBelow terms, a bound
    // computed without expanding, the structure stays: it keeps a chain in
    // relative angles polynomial.
    double terms = 0;
    for (size_t i = 0; i < n && terms <= kExpandBelow; ++i) {
      terms += expanded_size(m_.k[i]);
      for (size_t j = 0; j < n && terms <= kExpandBelow; ++j) terms += expanded_size(m_.M(i, j));
    }
    bool expanded = terms <= kExpandBelow;
    if (expanded) {
      if (long_chains) add_bodies(body_dynamics(scope_.frames, s, m_.bodies));
      for (size_t i = 0; i < n; ++i) {
        m_.k[i] = m_.k[i].expand();
        for (size_t j = 0; j < n; ++j) m_.M(i, j) = m_.M(i, j).expand();
      }
    }
    // M a + k for the Jacobian, which differentiates it: the bodies' part by
    // Newton–Euler at a when the structure stays, so that its derivatives
    // grow like a chain's length squared rather than its fourth power.
    std::vector<ex> a(m_.accelerations.begin(), m_.accelerations.end());
    bool newton_euler = !expanded && !m_.bodies.empty();
    std::vector<ex> bodies_at_a = newton_euler ? inverse_dynamics(scope_.frames, s, m_.bodies, a) : std::vector<ex>();
    for (size_t i = 0; i < n; ++i) {
      const GiNaC::matrix &M = newton_euler ? kin.M : m_.M;
      ex row = newton_euler ? kin.k[i] + bodies_at_a[i] + written_V_.diff(s.q[i]) : m_.k[i];
      for (size_t j = 0; j < n; ++j) row += M(i, j) * a[j];
      m_.inverse_dynamics.push_back(row);
    }
    for (size_t i = 0; i < n; ++i)
      if (m_.M(i, i).is_zero())
        error_at(spec_.kinetic.loc_of(0), "the mass matrix is singular: the kinetic energy does not depend on " +
                                              name_of(i) + "'");
  }

  static constexpr double kExpandBelow = 1000;
  static constexpr size_t kNewtonEulerDepth = 6;

  // The most turns by coordinates on the way from N to a body's inertia
  // axes or to a frame of its centre's terms: how long its chains are.
  size_t deepest_chain() const {
    const FrameTree &frames = scope_.frames;
    auto turns = [&](int frame) {
      size_t count = 0;
      for (int n = frame; n > FrameTree::N; n = frames.node(n).parent)
        count += sym().has_kind(frames.node(n).angle, SymbolKind::coordinate);
      return count;
    };
    size_t deepest = 0;
    for (const BodyEnergy &b : m_.bodies) {
      if (b.axes >= 0) deepest = std::max(deepest, turns(b.axes));
      for (auto &[frame, c] : b.centre.terms) deepest = std::max(deepest, turns(frame));
    }
    return deepest;
  }

  // An upper bound on the terms e has once expanded, without expanding it;
  // past kExpandBelow it stops counting (a chain's expressions share
  // subexpressions: read as trees they are exponentially large).
  static double expanded_size(const ex &e) {
    if (GiNaC::is_a<GiNaC::add>(e)) {
      double n = 0;
      for (size_t i = 0; i < e.nops() && n <= kExpandBelow; ++i) n += expanded_size(e.op(i));
      return n;
    }
    if (GiNaC::is_a<GiNaC::mul>(e)) {
      double n = 1;
      for (size_t i = 0; i < e.nops() && n <= kExpandBelow; ++i) n *= expanded_size(e.op(i));
      return n;
    }
    if (GiNaC::is_a<GiNaC::power>(e) && e.op(1).info(GiNaC::info_flags::posint))
      return std::pow(expanded_size(e.op(0)), GiNaC::ex_to<GiNaC::numeric>(e.op(1)).to_double());
    return 1;
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
          error_at(m_.constraint_loc(m_.nh + j),
                   m_.constraint_name(m_.nh + j) + " is not linear in the velocities: its derivative by " + name_of(i) +
                       "' depends on the velocities");
      }
      bool any = false;
      for (size_t i = 0; i < m_.nq; ++i) any = any || !m_.B(j, i).is_zero();
      if (!any && m_.origins[m_.nh + j].wheel >= 0)  // not a row the user wrote: say what of the wheel makes it
        error_at(m_.constraint_loc(m_.nh + j),
                 m_.constraint_name(m_.nh + j) +
                     " does not contain any velocity: no coordinate moves the wheel's contact point along it, only "
                     "t does, so rolling there is a condition on positions and t; give the wheel the coordinates "
                     "it needs, or leave it out of [rolling] and write that condition in 'holonomic'");
      if (!any)
        error_at(m_.constraint_loc(m_.nh + j),
                 m_.constraint_name(m_.nh + j) +
                     " does not contain any velocity; a constraint on positions belongs in 'holonomic'");
      m_.b.push_back(m_.g[j].subs(at_rest).expand());
      m_.c_n.push_back(s.convective_derivative(m_.g[j]));
      GiNaC::realsymbol z("int_g" + std::to_string(j + 1));
      m_.z.push_back(z);
      m_.r.push_back(-m_.c_n[j] - m_.alpha * m_.g[j] - m_.beta * z);
    }
  }

  // Vakonomic (seed 003, 1.239–1.240): the Lagrange equations of
  // L + mu^T g with mu a state add mu_j (dB_j/dt - dg_j/dq) to k, and the
  // nonholonomic rows' multipliers become -mu'.
  void derive_vakonomic() {
    const auto &s = sym();
    for (size_t j = 0; j < m_.nn; ++j) {
      const GiNaC::realsymbol &mu = mu_[j].sym;
      m_.mu.push_back(mu);
      m_.state.push_back(mu_[j]);
      for (size_t i = 0; i < m_.nq; ++i) {
        ex B_dot = s.convective_derivative(m_.B(j, i));
        ex term = mu * (B_dot - m_.g[j].diff(s.q[i]));
        m_.k[i] += term;
        m_.inverse_dynamics[i] += term;
      }
    }
  }

  // q, q', and the integrals of g, which start at 0; vakonomic mu follow.
  void lay_out_state() {
    const auto &s = sym();
    for (size_t i = 0; i < m_.nq; ++i) m_.state.push_back(state_var(s.q[i], name_of(i), spec_.initial_q[i]));
    for (size_t i = 0; i < m_.nq; ++i) m_.state.push_back(state_var(s.v[i], name_of(i) + "'", spec_.initial_v[i]));
    for (auto &z : m_.z) m_.state.push_back(state_var(z, z.get_name(), std::nullopt));
    // Read in either formulation, so a mistake in one shows in both.
    for (size_t j = 0; j < m_.nn; ++j) {
      GiNaC::realsymbol mu("mu" + std::to_string(j + 1));
      mu_.push_back(state_var(mu, mu.get_name(), spec_.initial_mu[j]));
    }
  }

  // Each contact's restitution, an expression of the parameters in [0, 1]
  // at their defaults (the runtime checks it at the values of a run).
  void read_restitution() {
    for (size_t j = 0; j < m_.ncontact; ++j) {
      if (spec_.restitution.empty()) {
        m_.restitution.push_back(0);
        continue;
      }
      const SourceText &src = spec_.restitution[spec_.restitution.size() == 1 ? 0 : j];
      std::string what = "the restitution of contact " + std::to_string(j + 1);
      ex e = read_expression(src, scope_, {what.c_str(), false, false, false, "parameters"});
      double value = at_defaults(e);
      if (!(value >= 0 && value <= 1)) {
        char text[32];
        std::snprintf(text, sizeof text, "%g", value);
        error_at(src.loc_of(0), what + " = " + text +
                                    " at the parameters' defaults: it must lie in [0, 1], 0 a plastic impact, 1 an "
                                    "elastic one");
      }
      m_.restitution.push_back(e);
    }
  }

  // A state variable with its initial value, an expression of the
  // parameters read from the spec (or 0), and that value at their defaults.
  StateVar state_var(const GiNaC::realsymbol &sym, const std::string &name, const std::optional<SourceText> &src) {
    if (!src) return {sym, name, 0, 0.0, false};
    std::string what = "the initial value of " + name;
    ex e = read_expression(*src, scope_, {what.c_str(), false, false, false, "parameters"});
    double value = at_defaults(e);
    if (!std::isfinite(value))
      error_at(src->loc_of(0), what + " is not a finite number at the parameters' defaults");
    if (std::fabs(value) > kLargestValue)
    {
      char text[32];
      std::snprintf(text, sizeof text, "%g", value);
      error_at(src->loc_of(0), what + " = " + text + " at the parameters' defaults is out of range (|value| <= 1e30)");
    }
    return {sym, name, e, value, true};
  }

  double at_defaults(const ex &e) const { return value_at_defaults(e, sym(), spec_); }

  // [outputs] and [events] may name the multipliers too: lambda1... of the
  // holonomic rows, mu1... of the nonholonomic ones (the names --init and
  // [initial.multiplier] give a vakonomic mu, whose state it is), each row
  // numbered among its kind, a wheel's rows after the written ones.
  void read_outputs_and_events() {
    if (spec_.outputs.empty() && spec_.events.empty() && spec_.friction.empty()) return;
    auto add = [&](const std::string &name, const ex &symbol) {
      m_.symbols.by_name[name] = SymbolInfo{symbol, SymbolKind::multiplier, name};
      m_.symbols.kind_of.emplace(symbol, SymbolKind::multiplier);
    };
    for (size_t c = 0; c < m_.nc(); ++c) {
      bool holonomic = c < m_.nh;
      std::string name = (holonomic ? "lambda" : "mu") + std::to_string(holonomic ? c + 1 : c - m_.nh + 1);
      GiNaC::realsymbol symbol(name);
      m_.multipliers.push_back(symbol);
      add(name, holonomic || m_.mu.empty() ? ex(symbol) : ex(m_.mu[c - m_.nh]));
    }
    for (auto &o : spec_.outputs) {
      std::string what = "output '" + o.name + "'";
      m_.outputs.push_back(read_expression(o.text, scope_, {what.c_str(), true, true, true, "", true}));
    }
    for (auto &e : spec_.events) {
      std::string what = "event '" + e.name + "'";
      m_.events.push_back(read_expression(e.when, scope_, {what.c_str(), true, true, true, "", true}));
    }
    read_friction_normals();
  }

};

}  // namespace

std::optional<Formulation> parse_formulation(const std::string &name) {
  if (name == "dalembert") return Formulation::dalembert;
  if (name == "vakonomic") return Formulation::vakonomic;
  return std::nullopt;
}

Model derive(const Spec &spec, Formulation formulation, bool strict, bool full, const RecursionByCount *recount) {
  return Deriver(spec, formulation, strict, full, recount).run();
}

std::string Model::constraint_label(size_t c) const {
  const ConstraintOrigin &o = origins.at(c);
  return o.text.empty() ? o.name : o.name + ": " + o.text;
}

}  // namespace lgc
