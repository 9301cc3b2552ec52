// model.h — stage 3, the model: the mathematics of the system (M, k, A, B,
// the stabilised rows, energies, Jacobians, outputs, events), derived from the
// expressions. Knows no C.
#pragma once

#include "expressions/expressions.h"

#include <tuple>

namespace lgc {

// ---- kinetic.cpp ----------------------------------------------------------

// M and d/dt(dT/dv) - dT/dq without the acceleration terms, from T, the
// spec's at `where`.
struct KineticTerms {
  GiNaC::matrix M;
  std::vector<GiNaC::ex> k;
};
KineticTerms derive_kinetic(const GiNaC::ex &T, const SymbolTable &s, const SourceLoc &where);

// ---- body_dynamics.cpp ----------------------------------------------------

// M and k of the bodies and particles (their weight included), from their
// velocity Jacobians without T: M = sum m Jv^T Jv + Jw^T I Jw and
// k = sum m Jv^T (a0 - gravity) + Jw^T (I alpha0 + w x I w), a0 and alpha0
// the accelerations without q''. For small systems, which are expanded:
// the terms meet in one frame, so no rotation there and back is left that
// only cos^2 + sin^2 = 1 would cancel.
KineticTerms body_dynamics(const FrameTree &frames, const SymbolTable &s, const std::vector<BodyEnergy> &bodies);

// ---- inverse_dynamics.cpp -------------------------------------------------

// M a + k of the bodies and particles (their weight included) at q'' = a,
// by Newton–Euler over the frame tree: linear in the bodies along a chain,
// where M's entries are cubic.
std::vector<GiNaC::ex> inverse_dynamics(const FrameTree &frames, const SymbolTable &s,
                                        const std::vector<BodyEnergy> &bodies, const std::vector<GiNaC::ex> &a);
// Their M and k: column j of M the inverse dynamics of q'' = e_j at rest
// and without weight (the unit-acceleration method), k that of q'' = 0.
KineticTerms newton_euler_dynamics(const FrameTree &frames, const SymbolTable &s, const std::vector<BodyEnergy> &bodies);

// ---- articulated.cpp ------------------------------------------------------

// The bodies as a tree of links for the articulated-body recursion
// (gen/kernels/articulated.c), or why they are not one (`absent`).
struct ArticulatedTree {
  std::string absent;
  struct Link {
    int parent = -1;        // its parent link; -1: it turns from N
    int axis = 2;           // 0, 1, 2: the joint frame's x, y, z; -1: a free joint
    size_t coordinate = 0;  // it turns by offset + sign * q[coordinate]
    // A free joint (from N only): its origin moves by (free[0..2]) along the
    // joint frame's axes, its axes turn from the joint frame's by the
    // quaternion (free[3..6]).
    std::array<size_t, 7> free{};
    GiNaC::ex offset, sign;
    GiNaC::matrix E{3, 3};  // the joint frame's axes in the parent link's
    Components r;           // its origin from the parent's, in the parent's axes
    GiNaC::ex mass;         // of the bodies it carries; their first moment
    Components first_moment;  // and inertia about its origin, in its axes
    GiNaC::matrix inertia{3, 3};
  };
  std::vector<Link> links;    // parents first
  Components gravity;         // in N
  std::vector<GiNaC::ex> tau; // per coordinate: Q - dV/dq of the V written beside the bodies
  bool available() const { return absent.empty(); }
  // rhs's form, chosen from the tree before M is derived (choose_form): by
  // the recursion (then M, k and the inverse dynamics are never derived
  // symbolically: the generated functions compute them over the tables) or
  // by M and its solve; `reason` says why, with the estimated operations.
  bool chosen = false;
  std::string reason;
  size_t recursion_ops = 0, dense_ops = 0;
  // The recursion's cost per link in the dense form's operations, by time:
  // on the spatial arm at 20 links (cc -O2, one machine, medians) rhs took
  // 5.4 us as the recursion (50,500 instructions) and 11.9 us as M and its
  // solve (46,500 instructions for 25,200 counted operations, streaming
  // through the instruction cache): 271 ns per link against 0.47 ns per
  // operation. Kept after the recursion's steps were specialised to each
  // joint's axis (27,300 instructions at 20 links), from the crossover
  // measured on that arm (each form's rhs timed in alternation on a shared
  // machine): the recursion took 1.3 to 1.5 times the dense form's time at
  // 7 and 8 links, 0.60 of it at 10 and 0.35 at 15, so by time the
  // crossover lies between 8 and 10 links, where this value puts it (8).
  // A smaller value would move trees of 6 to 8 links, whose dense form
  // fits the instruction cache, to the slower recursion.
  static constexpr size_t kOpsPerLink = 575;
  // A solve pass (gen/kernels/tree_kkt.c's articulated_solve: M^-1 f
  // with the recursion's factors, no velocities or gravity) per link, in
  // the same units: a constraint row on top of the recursion costs one. By
  // instructions (callgrind, cc -O2 -fno-inline) on the closed chain of 10
  // rods (tests/bench/closed_chain.py): 4,226 per pass against 27,568 for
  // the recursion, 15 % of it.
  static constexpr size_t kSolveOpsPerLink = 90;
  // The same two for the planar recursion (gen/kernels/planar.c), which a
  // tree with planar_axis() takes, in the same units: at 575 per link the
  // spatial recursion takes 1,333 instructions per link (callgrind, cc -O2
  // -fno-inline, the closed chain of 10 rods: 13,327 per call), the planar
  // one 386 (3,861) and its solve pass 98 (975 per pass). rhs of the rod
  // chain (cc -O2) at 10, 20, 50 links: 3,953, 7,918, 19,874 instructions
  // planar against 12,876, 26,476, 67,166 spatial (0.30 of it).
  static constexpr size_t kOpsPerLinkPlanar = 170, kSolveOpsPerLinkPlanar = 42;
  // The recursion's and a solve pass's cost per link for this tree: the planar ones when it has the axis.
  size_t ops_per_link() const { return planar_axis() ? kOpsPerLinkPlanar : kOpsPerLink; }
  size_t solve_ops_per_link() const { return planar_axis() ? kSolveOpsPerLinkPlanar : kSolveOpsPerLink; }
  // The axis (0, 1, 2: N's x, y, z) about which every joint turns, when
  // every link turns about that axis of its joint frame and every joint
  // frame's constant turn keeps it (E e_axis = e_axis): the axis is then
  // the same in every link and in N, and the tree moves in the plane
  // across it. None with a free joint.
  std::optional<int> planar_axis() const;
  // A free joint's cost in links: its 6 x 6 solve (~130 operations), its
  // quaternion's rotation and rates (~110) beside a turning link's.
  static constexpr size_t kFreeLinks = 2;
  // Whether M couples coordinates i and j, from the tree alone (for a model
  // on the recursion, whose M is not symbolic): their links one the other's
  // ancestor, or the same link.
  bool couples(size_t i, size_t j) const;
  // The links, a free joint counted as kFreeLinks.
  size_t cost_in_links() const {
    size_t n = links.size();
    for (const auto &L : links)
      if (L.axis < 0) n += kFreeLinks - 1;
    return n;
  }
  // The dense form's operations per structural nonzero of M's lower
  // triangle (its entries and f, counted on the lowered graph): 110 on the
  // spatial arm of tests/bench/spatial_arm.py at 5 to 20 links, 150 on
  // tests/gen/specs/articulated_tree.toml (13 links, turns between joints, a
  // particle); 38 to 45 on a planar chain of rods (rod_chain.py, 10 to 30
  // links), whose joints all turn about one axis.
  static constexpr size_t kOpsPerEntry = 140, kOpsPerEntryPlanar = 45;
  // What a general fixed turn (a link's E that is not exact quarter turns,
  // as a URDF's rpy in decimals gives) adds to an entry of M whose two
  // links it lies between: the entry, derived symbolically, carries the
  // turn's nine direction cosines through the products of the Jacobians'
  // columns on either side of it, where a signed permutation only renames
  // components. On the Franka Panda (tests/urdf/panda.urdf: 7 links, a
  // general turn at each of the last 6, 56 on the paths of its 28 entries)
  // M, f and their solve counted 16,913 operations on the lowered graph
  // against 4,075 estimated from the entries alone: about 230 per turn on a
  // path. 100, under that, moves it to the recursion (9,675 against 4,096)
  // and no other spec of specs/ or tests/; a tree whose turns cost more is
  // caught by the exact count (kRecountFactor).
  static constexpr size_t kOpsPerTurn = 100;
  // When the estimate chose M (the spec not), M, f and their solve as
  // lowered are counted exactly; past this many times the recursion's
  // estimate the model is derived again on the recursion
  // (RecursionByCount). Not at once past it: near the crossover both forms
  // take about as long (kOpsPerLink is a time, not a count), and the second
  // derivation is paid only where the estimate is plainly wrong.
  static constexpr size_t kRecountFactor = 2;
};
// Thrown by the plan (choose_articulated) when a model's M, f and their
// solve, counted on the lowered graph, exceed kRecountFactor times the
// recursion's estimate though the estimate chose them: generate() derives
// the model again with it, on the recursion.
struct RecursionByCount : std::runtime_error {
  explicit RecursionByCount(size_t counted)
      : std::runtime_error("M's operations counted past the recursion's estimate"), dense_ops(counted) {}
  size_t dense_ops;  // M, f and their solve as lowered
};
// Chooses rhs's form for an unconstrained model whose bodies are a tree
// (tree.chosen, tree.reason), from the tree alone: the recursion's
// kOpsPerLink per link and its table's and tau's operations against an
// estimate of M, f and their solve (kOpsPerEntry per entry of M's lower
// triangle and kOpsPerTurn per general fixed turn between its two links,
// n^3/6 + 2 n^2 for the factor and the solve).
void choose_form(ArticulatedTree &tree, size_t nq, size_t rows = 0);
// The recursion for a tree whose estimate (choose_form) chose M, by the
// exact count: tree.reason says both.
void choose_recursion_by_count(ArticulatedTree &tree, const RecursionByCount &count);
ArticulatedTree articulated_tree(const FrameTree &frames, const SymbolTable &s, const std::vector<BodyEnergy> &bodies,
                                 const std::vector<GiNaC::ex> &tau);

// ---- derive.cpp -----------------------------------------------------------

// How nonholonomic constraints enter the equations (docs/theory.md §1 and §6, seed 003):
// d'Alembert–Lagrange (the physical default), or vakonomic, from the
// augmented Lagrangian L + mu^T g, where mu becomes a state.
enum class Formulation { dalembert, vakonomic };
// "dalembert" or "vakonomic"; nullopt for anything else.
std::optional<Formulation> parse_formulation(const std::string &name);

// Where a constraint row comes from: for messages, the descriptor's
// labels and the CSV's column names.
struct ConstraintOrigin {
  std::string name;    // "holonomic constraint 2", "rolling wheel 'rear': no slip along N.x"
  std::string text;    // as written, its white space folded; "" for a wheel's row
  std::string column;  // in the CSV's phi[...], g[...], lambda[...], mu[...]: "2", "rear.x"
  SourceLoc loc;
  int wheel = -1;      // a wheel's row: the index of its [rolling.NAME]; -1 when written
  std::string row;     // ... and which: "the contact point on the plane", "no slip along N.x"
};

// One entry of the state vector x = (q, q', ∫g, then vakonomic mu).
struct StateVar {
  GiNaC::realsymbol sym;
  std::string name;       // as a user writes it: x, x', int_g1, mu1
  GiNaC::ex initial;      // its initial value, an expression of the parameters
  double initial_value;   // ... at the parameters' defaults
  bool given;             // set by the spec's [initial] tables, not defaulted to 0
};

// The equations of motion, symbolically (docs/theory.md §1).
struct Model {
  const Spec *spec = nullptr;
  SymbolTable symbols;
  GiNaC::realsymbol alpha{"alpha"}, beta{"beta"};  // the Baumgarte gains
  size_t nq = 0, nh = 0, nn = 0;
  // On the recursion (ArticulatedTree::chosen) T is 0 and V the written one: the bodies' are not derived there.
  GiNaC::ex T, V;
  GiNaC::ex V_written;           // V as the spec writes it, without the bodies'
  std::vector<GiNaC::ex> Q;      // applied generalised forces
  GiNaC::matrix M;               // nq x nq
  std::vector<GiNaC::ex> k;      // M q'' + k = Q + J^T nu
  // M a + k with q'' = a as symbols, the bodies' part by Newton–Euler where
  // M and k keep their structure: what the Jacobian differentiates.
  std::vector<GiNaC::realsymbol> accelerations;
  std::vector<GiNaC::ex> inverse_dynamics;
  std::vector<GiNaC::ex> phi, phi_t, phi_dot, c_h;  // holonomic
  GiNaC::matrix A;               // nh x nq
  std::vector<GiNaC::ex> g, b, c_n;                 // nonholonomic
  GiNaC::matrix B;               // nn x nq
  std::vector<GiNaC::realsymbol> z;  // ∫g dt, one per nonholonomic constraint
  std::vector<ConstraintOrigin> origins;  // nh + nn: the written rows, then the wheels', of each kind
  std::vector<BodyEnergy> bodies;         // what [bodies] and [particles] add to T and V
  ArticulatedTree articulated;            // the bodies as a tree of links, or why not
  std::vector<std::vector<std::string>> left_out;  // per wheel: its rows that are 0 at every state, dropped
  size_t ncontact = 0;                    // the last holonomic rows are [constraints] contact's, one-sided
  std::vector<GiNaC::ex> restitution;     // per contact: its coefficient, an expression of the parameters
  // [friction.NAME]: Coulomb contacts whose slip rows are the last
  // nonholonomic rows, on while the contact sticks; the normal force is
  // normal0 + sum_c normal_rate[c] * multiplier c (affine in the multipliers).
  struct Friction {
    std::string name;
    std::vector<size_t> slip_rows;        // one or two, among the nh + nn rows
    GiNaC::ex normal0;                    // of t, the state, inputs and parameters
    std::vector<GiNaC::ex> normal_rate;   // nh + nn
    GiNaC::ex mu_static, mu_kinetic;      // of the parameters
  };
  std::vector<Friction> friction;
  Formulation formulation = Formulation::dalembert;
  std::vector<GiNaC::realsymbol> mu;  // vakonomic only: the multipliers, states
  std::vector<StateVar> state;        // q, q', z, then (vakonomic) mu
  // Right-hand side of the constraint rows J q'' = r (Baumgarte-stabilised).
  std::vector<GiNaC::ex> r;      // nh + nn
  // The integral of the motion (integral.cpp): T + V; the Jacobi integral
  // h = q'.dL/dq' - L where T is not homogeneous quadratic in q'; or none.
  enum class Integral { none, energy, jacobi } integral = Integral::none;
  bool integral_needs_zero_inputs = false;  // the forces are inputs': kept while every input is 0
  std::string integral_absent;              // why none: "the force on x does work (-c*x')"
  GiNaC::ex jacobi;                         // h, when that is the integral
  // [outputs] and [events]: expressions of t, the state, parameters, inputs
  // and the multipliers, these (lambda1..., and d'Alembert's mu1...; a
  // vakonomic mu is its state).
  std::vector<GiNaC::realsymbol> multipliers;  // as rhs writes them: [lambda; mu]
  std::vector<GiNaC::ex> outputs, events;      // one per spec output, event
  // Rows the rows before them imply on the constraints (model_checks.cpp):
  // left out of rhs's KKT solve, kept everywhere else.
  std::vector<size_t> redundant;
  std::vector<NamedValue> beyond_float;  // Scope's: literals a float cannot hold

  size_t nc() const { return nh + nn; }
  // The friction contacts' slip rows, the last nonholonomic ones.
  size_t nslip() const {
    size_t n = 0;
    for (auto &f : friction) n += f.slip_rows.size();
    return n;
  }
  // Row c of the stacked constraint Jacobian J = [A; B], entry i.
  const GiNaC::ex &J(size_t c, size_t i) const { return c < nh ? A(c, i) : B(c - nh, i); }
  // The velocity-level constraint row c, [phi'; g]_c.
  const GiNaC::ex &rate(size_t c) const { return c < nh ? phi_dot[c] : g[c - nh]; }
  // "holonomic constraint 2", and with its text: "holonomic constraint 2: x^2 + y^2 - l^2".
  const std::string &constraint_name(size_t c) const { return origins.at(c).name; }
  std::string constraint_label(size_t c) const;
  const SourceLoc &constraint_loc(size_t c) const { return origins.at(c).loc; }
};

// strict: redundant constraint rows are an error rather than a warning.
// full: M, k and the inverse dynamics derived symbolically even for a tree
// whose rhs takes the articulated-body recursion (the tests' reference);
// otherwise such a model leaves them 0 (ArticulatedTree::chosen).
// recount: the plan's count of the model derived before, which puts it on
// the recursion.
Model derive(const Spec &spec, Formulation formulation = Formulation::dalembert, bool strict = false,
             bool full = false, const RecursionByCount *recount = nullptr);
// Whether the model's only constraint row is its free joint's quaternion
// norm (articulated.cpp), the one row the recursion solves itself.
bool only_free_norm_row(const Model &m);
// That row's index, when the tree has a free joint.
std::optional<size_t> free_norm_row(const Model &m);
// Why the model's constraint rows cannot be solved on top of the recursion
// (the vakonomic formulation, contacts, friction: they stay with M and its
// KKT solve); "" when they can.
std::string rows_refused_on_recursion(const Model &m);
// The rows rhs solves on top of the recursion (docs/theory.md §9): all but
// the free joint's norm row and the redundant ones, in order.
std::vector<size_t> rows_on_top(const Model &m);

// ---- structure.cpp --------------------------------------------------------

// A value rhs reads: a state (x's index), an input, a parameter, or a
// Baumgarte gain (0: alpha, 1: beta).
struct Known {
  enum Kind { state, input, parameter, gain } kind;
  size_t index;
  bool operator<(const Known &o) const { return std::tie(kind, index) < std::tie(o.kind, o.index); }
  bool operator==(const Known &o) const { return kind == o.kind && index == o.index; }
};
// What one of rhs's results depends on, structurally: every known its
// expressions hold, directly or through the KKT solve. `constant`: those it
// is a constant multiple of (q' of der(q)).
struct Dependencies {
  std::set<Known> on, constant;
};
// The dependencies of each derivative of the state (nx), multiplier (nh +
// nn), constraint force (nq) and output (one per spec output): FMI's
// ModelStructure. Conservative: a known a result might depend on is listed;
// q'' and the multipliers depend on what the rows of their block of the KKT
// matrix [M J^T; J 0] hold (its connected parts under M's and J's nonzero
// entries), and everything, with friction or the vakonomic formulation, on
// every known.
struct ModelStructure {
  std::vector<Dependencies> derivatives, multipliers, forces, outputs;
};
ModelStructure model_structure(const Model &model);

// ---- regressor.cpp --------------------------------------------------------

// The inverse dynamics as a linear map of the parameters: tau = M q'' + k - Q
// at every input 0 is Y theta, theta the distinct monomials of the
// parameters tau holds (m*l^2, m*g*l: the standard parameters), each
// column of Y a function of t, the state and q''. The base parameters merge
// each column that is a combination with constant coefficients of columns
// before it into those (exactly, under cos^2 + sin^2 = 1): Y's base columns
// times the base parameters is tau too, and those columns are independent.
struct Regressor {
  std::string absent;               // why there is none; "" when there is one
  std::vector<GiNaC::ex> standard;  // theta, monomials of the parameters
  GiNaC::matrix Y;                  // nq x standard.size()
  std::vector<size_t> base_columns; // the columns of Y kept, in order
  std::vector<GiNaC::ex> base;      // per kept column: its theta and those merged into it
  std::vector<std::vector<size_t>> merged;  // per kept column: its index, then those merged into it
  // As a reader writes them, factors in the spec's parameter order: m1*l1^2, m1*l1^2 + m2*l1^2.
  std::vector<std::string> standard_text, base_text;
  bool available() const { return absent.empty(); }
  // No column merged into another: the base parameters are the standard ones, Y the same.
  bool base_is_standard() const { return base_columns.size() == standard.size(); }
};
Regressor derive_regressor(const Model &m);

// ---- evaluate.cpp ---------------------------------------------------------

// Numeric values of the model's expressions at one point, in double
// precision, for the checks at sample states; symbols without a value are NaN.
class Evaluator {
 public:
  using Point = std::map<GiNaC::ex, double, GiNaC::ex_is_less>;  // symbol -> value
  explicit Evaluator(Point values) : values_(std::move(values)) {}
  double operator()(const GiNaC::ex &e);

 private:
  Point values_;
  // Shared subexpressions once, by address; each kept alive with its value.
  std::unordered_map<const GiNaC::basic *, std::pair<GiNaC::ex, double>> memo_;
};

// ---- model_checks.cpp -----------------------------------------------------

// Checks at sample states that symbolic tests cannot make (a trigonometric
// identity hides a zero); each throws SpecError at the spec's text.
// M positive definite at one of three sampled states.
void check_mass_matrix(const Model &m);
// The same for a model on the recursion, without M: each link's inertia
// about its joint's axis positive at the parameters' defaults (its
// articulated inertia there, which the recursion divides by, is at least
// that, so M is positive definite everywhere); else a warning, and rhs
// reports a singular M where it meets one.
void check_tree_inertia(const Model &m);
// Constraint rows spanned by the rows before them, everywhere or on the
// constraints around the initial state: into m.redundant with a warning,
// or an error when `strict`.
void check_independent_constraints(Model &m, bool strict);
// A warning for each nonholonomic constraint that is a holonomic one
// written in velocity form.
void warn_integrable(const Model &m);
// Whether e(q, t) and its gradient in q are 0 at every sampled state, to
// round-off: identities no CAS applies (sqrt(1 - sin(x)^2) - cos(x)) show.
bool vanishes_at_samples(const Model &m, const GiNaC::ex &e);
// +1 or -1 when e(q, t) has that sign at every sampled state, else 0.
int sign_at_samples(const Model &m, const GiNaC::ex &e);

// The sample states of these checks: coordinates, velocities and t drawn
// by a fixed generator, parameters and inputs at their defaults.
std::vector<Evaluator::Point> sample_points(const Model &m, int count);

// ---- integral.cpp ---------------------------------------------------------

// Which quantity the motion conserves, into m.integral and the fields after
// it: h = q'.dL/dq' - L when L has no explicit t and neither the forces nor
// the constraints do work; h is T + V when T is homogeneous quadratic in q'.
void derive_integral(Model &m);

}  // namespace lgc
