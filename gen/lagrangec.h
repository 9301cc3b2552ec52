// lagrangec.h — the generator's one internal header, sectioned by the file
// that defines each part, in pipeline order. Each stage hands the next one a
// value and never reaches back into an earlier stage's workings:
//
//   spec         spec_reader                       TOML → Spec (texts with positions)
//   expressions  symbols, expr_reader,             Spec → GiNaC expressions in the
//                expression_text, real_functions   spec's own names
//   model        kinetic, derive, evaluate,        the mathematics: M, k, A, B, the
//                model_checks                      stabilised rows (knows no C)
//   plan         lower, differentiate, layout,     one lowered graph; the state and work
//                kkt_plan, plan                    buffers as named slices; the statements
//                                                  of every generated function
//   emit         emit_c, emit_solve,               NAME.h, NAME.c, NAME_model.c, NAME.md,
//                emit_descriptor, emit_report      printed from the plan (no layout here)
//
// generate.cpp runs the pipeline for one spec and writes its files. Apart
// from the pipeline, `simulate` and `linearize`: simulate.cpp runs the
// model's program, which compile.cpp builds into the cache of cache.cpp
// (content hashes by sha256.cpp).
#pragma once

#include <ginac/ginac.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX (sha256.cpp)

namespace lgc {

// ---- diagnostic.cpp -------------------------------------------------------

struct SourceLoc {
  std::string file;
  int line = 0;  // 1-based; 0 means "the file as a whole"
  int col = 0;   // 1-based, in code points
};

// A mistake in the user's spec: reported as FILE:LINE:COL, exit status 1.
struct SpecError : std::runtime_error {
  SourceLoc loc;
  SpecError(SourceLoc l, const std::string &msg) : std::runtime_error(msg), loc(std::move(l)) {}
};

[[noreturn]] void error_at(const SourceLoc &loc, const std::string &msg);
// Prints "FILE:LINE:COL: error: MSG" and, when the line is known, the source
// line with a caret under the column.
void print_error(const SpecError &e, const std::string &source_text);
void warn_at(const SourceLoc &loc, const std::string &msg);
// A bug in the generator, not in the spec.
[[noreturn]] void unreachable(const char *what);

// ---- spec_reader.cpp ------------------------------------------------------

// An expression as written in the spec, with the file position of each byte
// of its decoded text (plus one past the end), so the expression reader can
// point into the TOML file.
struct SourceText {
  std::string text;
  std::vector<SourceLoc> locs;
  SourceLoc loc_of(size_t offset) const { return locs.at(std::min(offset, locs.size() - 1)); }
};

struct NamedValue {
  std::string name;
  double value = 0;
  SourceLoc loc;
};

// A name the spec refers to (a frame, a body), and where it is written.
struct NameRef {
  std::string name;
  SourceLoc loc;
};

// A named expression of [definitions] or [points], or a frame of [frames]
// (its rotation sequence from a parent: "N z(psi) x(phi)").
struct NamedText {
  std::string name;
  SourceLoc loc;
  SourceText text;
};

// [bodies.NAME]: a rigid body; inertia about the centre of mass, in the
// body's frame or in inertia_frame: 3 principal moments, or the 9 entries
// of the tensor by rows.
struct BodySpec {
  std::string name;
  SourceLoc loc;
  SourceText mass, centre;
  NameRef frame;
  std::vector<SourceText> inertia;
  std::optional<NameRef> inertia_frame;
};

// [particles.NAME]: a point mass.
struct ParticleSpec {
  std::string name;
  SourceLoc loc;
  SourceText mass, point;
};

// [rolling.NAME]: a disk wheel, the body `body`, rolling without slipping
// on the plane through N's origin with normal `normal`; its centre is the
// body's unless given.
struct WheelSpec {
  std::string name;
  SourceLoc loc;
  NameRef body;
  std::optional<SourceText> centre;
  SourceText axle, radius, normal;
};

// [events.NAME]: where `when` crosses zero in `direction` (rising: from
// below, falling: from above, both), recorded, or ending the run (stop).
struct EventSpec {
  enum Direction { both = 0, rising = 1, falling = -1 };
  std::string name;
  SourceLoc loc;
  SourceText when;
  Direction direction = both;
  bool stop = false;
};

struct Spec {
  std::string path;
  std::string source;  // the file's bytes, for reports and error carets
  std::string name, title;
  std::vector<NamedValue> coordinates;  // value unused
  std::vector<NamedValue> parameters, inputs;
  // T as written; "0", at the first body or particle, when only they give it.
  SourceText kinetic;
  std::optional<SourceText> potential;
  std::vector<std::optional<SourceText>> forces;  // one per coordinate
  std::vector<SourceText> holonomic, nonholonomic;
  // [constraints] contact: one-sided holonomic rows, phi(q, t) >= 0 free;
  // restitution: Newton's coefficient at their impacts, one for all.
  std::vector<SourceText> contacts;
  double restitution = 0;
  // The [initial] tables, expressions of the parameters; nullopt where the
  // spec gives no value (it is 0).
  std::vector<std::optional<SourceText>> initial_q, initial_v;  // one per coordinate
  std::vector<std::optional<SourceText>> initial_mu;  // one per nonholonomic constraint (vakonomic)
  double alpha = 0, beta = 0;
  // Bodies, frames and wheels, in the order written.
  std::vector<NamedText> definitions, points, frames;
  std::optional<SourceText> gravity;  // a vector
  std::vector<BodySpec> bodies;
  std::vector<ParticleSpec> particles;
  std::vector<WheelSpec> wheels;
  std::vector<NamedText> outputs;  // [outputs] NAME = "EXPR", in the order written
  std::vector<EventSpec> events;   // [events.NAME], in the order written
};

// Reads and checks a spec file; throws SpecError.
Spec read_spec(const std::string &path);
// Same, from text already in memory (the fuzzer's entry point).
Spec read_spec_text(const std::string &path, const std::string &text);

// ---- symbols.cpp ----------------------------------------------------------

enum class SymbolKind { coordinate, velocity, parameter, input, time, constant, multiplier };

// A name an expression may use. Its GiNaC symbol carries the spec's own
// name ("x", "x'", "m", "t"): how code names it is the plan's business.
struct SymbolInfo {
  GiNaC::ex ex;
  SymbolKind kind;
  std::string spec_name;
};

// Every name an expression may use, looked up by spec name.
struct SymbolTable {
  std::map<std::string, SymbolInfo> by_name;
  std::vector<GiNaC::realsymbol> q, v, p, u;
  GiNaC::realsymbol t{"t"};
  std::map<GiNaC::ex, SymbolKind, GiNaC::ex_is_less> kind_of;  // by symbol

  // Whether e contains a symbol of this kind.
  bool has_kind(const GiNaC::ex &e, SymbolKind kind) const;
  // Total time derivative of e(q, q', t) without the q'' terms: ∂e/∂q q' + ∂e/∂t.
  GiNaC::ex convective_derivative(const GiNaC::ex &e) const;
};

SymbolTable make_symbols(const Spec &spec);

// ---- frames.cpp -----------------------------------------------------------

// Vector components in one frame: (x, y, z).
using Components = std::array<GiNaC::ex, 3>;

// A vector as a sum of terms, each its components in one frame (a node of
// the FrameTree): x*N.x + R*A.z is two terms, and nothing is rotated until
// an operation needs two frames in one, into the closest frame both reach.
struct Vector {
  std::map<int, Components> terms;  // frame node -> components; absent: 0
  static Vector unit(int frame, int axis);
};

// Orientation. The Newtonian frame N is node 0; every elementary rotation
// of a frame's sequence from its parent ("N z(psi) x(phi)") is a node of one
// tree, and a named frame is the node of its last rotation. Direction
// cosines: a node's rotation R_a(angle) maps components in the node to
// components in its parent, v_parent = R_a(angle) v_node, with
// R_z(t) = [cos t, -sin t, 0; sin t, cos t, 0; 0, 0, 1] and its cyclic
// permutations for x and y: right-handed, intrinsic (each rotation about
// the axis of the frame just made).
class FrameTree {
 public:
  static constexpr int N = 0;
  struct Node {
    int parent;      // -1 for N
    int axis;        // 0, 1, 2: x, y, z
    GiNaC::ex angle;
    int depth;
  };
  FrameTree();
  // The node turned from `parent` by `angle` about the axis `axis` they share.
  int rotate(int parent, int axis, const GiNaC::ex &angle);
  const Node &node(int id) const { return nodes_.at(id); }
  int size() const { return int(nodes_.size()); }  // nodes; a parent's id is below its children's
  int common_ancestor(int a, int b) const;
  // Components in frame `from` as components in frame `to`.
  Components express(const Components &c, int from, int to) const;
  // The angular velocity of `frame` in N: each rotation's rate about its
  // axis, as a term in the frame it turns from (where the axis is constant).
  Vector angular_velocity(int frame, const SymbolTable &s) const;

 private:
  std::vector<Node> nodes_;
};

// ---- vectors.cpp ----------------------------------------------------------

// Arithmetic on components in one frame.
Components plus(const Components &a, const Components &b);
Components scaled(const GiNaC::ex &s, const Components &a);
Components cross(const Components &a, const Components &b);
GiNaC::ex dot(const Components &a, const Components &b);
bool all_zero(const Components &c);
Components times(const GiNaC::matrix &I, const Components &w);  // I w, I 3 x 3
Components partial(const Components &c, const GiNaC::symbol &q);  // dc/dq

// Vector algebra over the frames of a FrameTree, each result in the
// closest frame its operands share.
Vector operator+(const Vector &a, const Vector &b);
Vector operator*(const GiNaC::ex &s, const Vector &v);
Components components_in(const FrameTree &frames, const Vector &v, int frame);
GiNaC::ex dot(const FrameTree &frames, const Vector &a, const Vector &b);
Vector cross(const FrameTree &frames, const Vector &a, const Vector &b);
// The derivative in N of a vector of coordinates and t (no velocities):
// vel(P) when v is the position of P.
Vector time_derivative(const FrameTree &frames, const SymbolTable &s, const Vector &v);
// Whether a component of v contains a symbol of this kind.
bool has_kind(const SymbolTable &s, const Vector &v, SymbolKind kind);
// The frame in which v's terms are fewest rotations away in total: where
// its components are smallest.
int closest_frame(const FrameTree &frames, const Vector &v);

// ---- frame_rates.cpp ------------------------------------------------------

// A frame's angular velocity in its own components, built from its
// parent's: omega_n = R_n^T omega_p + a theta' for the node's rotation by
// theta about the axis a. A chain's rates are then shared subexpressions of
// their parents', never products multiplied out.
struct FrameRate {
  Components omega;           // with the velocities
  std::vector<Components> J;  // d omega/d q'_i, one per coordinate
  Components alpha;           // d omega/dt = J q'' + bias, q'' the accelerations FrameRates was given
};
class FrameRates {
 public:
  // accelerations: q'' (symbols or numbers), or none for q'' = 0 (alpha
  // is then the bias). At rest (moving false) q' and d/dt are 0 and only
  // q'' moves the frames: M's columns.
  FrameRates(const FrameTree &frames, const SymbolTable &s, std::vector<GiNaC::ex> accelerations = {},
             bool moving = true)
      : frames_(frames), s_(s), accelerations_(std::move(accelerations)), moving_(moving) {}
  const FrameRate &of(int node);
  // The rates of `frame` in the components of `axes`, which turn with it
  // up to rotations about its inertia's axes of symmetry (a wheel's spin):
  // those of the frame both descend from, plus the rates of the turns from
  // there to `frame`.
  FrameRate in_axes(int frame, int axes);
  // The acceleration in N of a vector with components c(q, t) in `frame`,
  // in its components: c'' + 2 omega x c' + alpha x c + omega x (omega x c).
  Components acceleration(int frame, const Components &c);
  // e(q, t)'' with q'' the accelerations.
  GiNaC::ex second_derivative(const GiNaC::ex &e) const;

 private:
  const FrameTree &frames_;
  const SymbolTable &s_;
  std::vector<GiNaC::ex> accelerations_;
  bool moving_;
  std::map<int, FrameRate> rates_;
  GiNaC::ex rate(const GiNaC::ex &e) const;  // e', or 0 at rest
};

// ---- definitions.cpp ------------------------------------------------------

// What an expression computes: a scalar, or a vector.
struct Value {
  bool is_vector = false;
  GiNaC::ex scalar;
  Vector vector;
};

// The names of a spec beyond its symbols: the definitions and points (named
// values) and the frames. Each is read on first use, so they may be written
// in any order; a name that needs itself is an error naming the cycle.
class Scope {
 public:
  Scope(const Spec &spec, const SymbolTable &symbols);
  Scope(const Scope &) = delete;
  const Spec &spec;
  const SymbolTable &symbols;
  FrameTree frames;

  // Reads every frame, definition and point, so that a mistake in one no
  // expression uses is found too.
  void read_all();
  // The value of a definition or point; nullptr if `name` is neither.
  // `use` is where an expression names it (for a cycle's message).
  const Value *value(const std::string &name, const SourceLoc &use);
  // The node of a frame; nullopt if `name` is not one.
  std::optional<int> frame(const std::string &name, const SourceLoc &use);
  // The node of the frame a spec's key names, or an error there.
  int frame(const NameRef &ref);
  // Declared frame names, N first, for messages.
  std::vector<std::string> frame_names() const;
  std::vector<std::string> value_names() const;

 private:
  struct Entry {
    const NamedText *text;
    char kind;  // 'd' definition, 'p' point, 'f' frame
    enum { unread, reading, read } state = unread;
    Value value;
    int node = -1;
  };
  std::map<std::string, Entry> entries_;
  std::vector<std::string> reading_;  // the chain being read, for cycles
  Entry &resolve(Entry &e, const std::string &name, const SourceLoc &use);
};

// ---- expr_reader.cpp ------------------------------------------------------

// What an expression may refer to, and how to name it in a message.
struct ExprContext {
  const char *what;  // "the kinetic energy", "holonomic constraint 2", ...
  bool velocities = true;
  bool inputs = true;
  bool coordinates = true;  // and t
  // What it may depend on, for a message about a name it may not use.
  const char *depends_on = "coordinates and t";
  bool multipliers = false;  // lambda1..., mu1... (outputs and events)
};

// A scalar expression; a vector is an error.
GiNaC::ex read_expression(const SourceText &src, Scope &scope, const ExprContext &ctx);
// A vector expression (a point, a direction); a scalar is an error.
Vector read_vector(const SourceText &src, Scope &scope, const ExprContext &ctx);
// Either (a definition).
Value read_value(const SourceText &src, Scope &scope, const ExprContext &ctx);
// A frame's rotation sequence, "PARENT a(angle) b(angle) ...": its node.
int read_frame(const SourceText &src, Scope &scope, const ExprContext &ctx);

// Functions the expression language knows, for name checks.
bool is_function_name(const std::string &name);
// " (did you mean 'g'?)" when `name` is a near miss of one of `known`, else "".
std::string did_you_mean(const std::string &name, const std::vector<std::string> &known);

// ---- bodies.cpp -----------------------------------------------------------

// What one body or particle contributes to the Lagrangian. T is an
// unexpanded sum of bilinear terms in the velocities, which derive_kinetic
// takes apart without expanding: m/2 (v_x^2 + v_y^2 + v_z^2), v the centre's
// velocity in N's components, and 1/2 sum_ab I_ab w_a w_b, w the angular
// velocity in the axes of the inertia's frame. V is -m gravity . centre.
// What the structural derivation (body_dynamics) needs is kept as read:
// the mass and centre, the weight (m gravity), and for a body (frame >= 0)
// the axes in which its inertia tensor is constant, and the tensor there.
struct BodyEnergy {
  std::string name;
  GiNaC::ex T, V;
  GiNaC::ex mass;
  Vector centre, weight;
  int frame = -1, axes = -1;  // -1: a particle
  GiNaC::matrix inertia{3, 3};
};
std::vector<BodyEnergy> body_energies(Scope &scope);

// ---- wheels.cpp -----------------------------------------------------------

// The rows of one rolling wheel ([rolling.NAME]): with n the plane's unit
// normal, a the axle's unit vector and r the radius, the contact point is
// centre - r k, k = (n - (n.a) a)/sqrt(1 - (n.a)^2), straight "down" in the
// wheel's plane. The holonomic row keeps it on the plane, n . contact = 0;
// the two nonholonomic rows stop its material point sliding along the two
// tangents of the plane: t . (vel(centre) + omega(wheel) x (contact - centre)) = 0.
struct WheelRows {
  const WheelSpec *wheel;
  GiNaC::ex contact;                   // n . contact
  std::array<GiNaC::ex, 2> no_slip;    // along the tangents
  std::array<std::string, 2> tangent;  // their names: "N.x", or "t1"
};
// `sign` is +1 or -1 for an expression of that sign at every sampled
// state, else 0 (model_checks' sign_at_samples).
std::vector<WheelRows> wheel_rows(Scope &scope, const std::function<int(const GiNaC::ex &)> &sign);

// ---- expression_text.cpp --------------------------------------------------

// An expression in the spec's own syntax, terms in a fixed order, for
// messages ("x - y"): the reader's inverse, not the C printer.
std::string expression_text(const GiNaC::ex &e);

// ---- real_functions.cpp ---------------------------------------------------

// abs(x) for real x, whose derivative is sign(x) (not GiNaC's x/abs(x),
// NaN at 0); both lower to C's fabs and copysign(1.0, x).
DECLARE_FUNCTION_1P(real_abs)
DECLARE_FUNCTION_1P(real_sign)

// ---- kinetic.cpp ----------------------------------------------------------

// M and d/dt(dT/dv) - dT/dq without the acceleration terms, from T.
struct KineticTerms {
  GiNaC::matrix M;
  std::vector<GiNaC::ex> k;
};
KineticTerms derive_kinetic(const GiNaC::ex &T, const SymbolTable &s);

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

// ---- derive.cpp -----------------------------------------------------------

// How nonholonomic constraints enter the equations (DESIGN.md §1, seed 003):
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

// The equations of motion, symbolically (DESIGN.md §1).
struct Model {
  const Spec *spec = nullptr;
  SymbolTable symbols;
  GiNaC::realsymbol alpha{"alpha"}, beta{"beta"};  // the Baumgarte gains
  size_t nq = 0, nh = 0, nn = 0;
  GiNaC::ex T, V;
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
  std::vector<bool> contact_kept;         // per wheel: its contact row (false: identically 0, dropped)
  size_t ncontact = 0;                    // the last holonomic rows are [constraints] contact's, one-sided
  Formulation formulation = Formulation::dalembert;
  std::vector<GiNaC::realsymbol> mu;  // vakonomic only: the multipliers, states
  std::vector<StateVar> state;        // q, q', z, then (vakonomic) mu
  // Right-hand side of the constraint rows J q'' = r (Baumgarte-stabilised).
  std::vector<GiNaC::ex> r;      // nh + nn
  bool conservative = false;     // no forces, no explicit t
  // [outputs] and [events]: expressions of t, the state, parameters, inputs
  // and the multipliers, these (lambda1..., and d'Alembert's mu1...; a
  // vakonomic mu is its state).
  std::vector<GiNaC::realsymbol> multipliers;  // as rhs writes them: [lambda; mu]
  std::vector<GiNaC::ex> outputs, events;      // one per spec output, event
  // Rows the rows before them imply on the constraints (model_checks.cpp):
  // left out of rhs's KKT solve, kept everywhere else.
  std::vector<size_t> redundant;

  size_t nc() const { return nh + nn; }
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
Model derive(const Spec &spec, Formulation formulation = Formulation::dalembert, bool strict = false);

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

// ---- lower.cpp ------------------------------------------------------------

// A flat, canonical expression graph: GiNaC trees are interned into nodes
// keyed by structure (symbols by name, numbers by value), so equal
// subexpressions are one node, and every order is independent of GiNaC's
// run-to-run term order. Sums are collected and factored as they are built
// (like terms merged, sin^2 + cos^2 = 1, shared factors out), and operands
// stand in one canonical order that is also the order they are printed in.
struct Node {
  enum Kind : uint8_t { num, sym, add, mul, ipow, pow, call } kind;
  explicit Node(Kind k) : kind(k) {}
  double value = 0;        // num: the value; add: constant term
  std::string name;        // sym: the name the plan gave it; call: C function name
  int exponent = 0;        // ipow: the integer exponent (>= 2)
  int rank = 0;            // sym: its place in the plan's reading order
  // add: (coef, node) terms; mul: (node, ±1) factors (numerator/denominator);
  // ipow/pow/call: operands with coef unused.
  std::vector<std::pair<double, int>> terms;
  uint64_t key = 0;        // structural hash
};

class Graph {
 public:
  // The name a GiNaC symbol gets in the graph, its rank in the order
  // operands are printed in, and whether it is a coefficient (a parameter
  // or a gain: fixed while the state moves); every symbol lowered needs one.
  void name_symbol(const GiNaC::ex &symbol, const std::string &name, int rank, bool coefficient);
  // Calls `exceeded` (which throws) once the nodes hold more than `limit`
  // operands: the size of the code they would print.
  void limit_operands(size_t limit, std::function<void()> exceeded);
  // Of these arguments of sin and cos (nodes), those of the form a ± b are
  // lowered from here on by the addition formulas where that is cheaper.
  void prefer_trig_products(const std::vector<int> &arguments);
  int from_ginac(const GiNaC::ex &e);
  // The node of an expression from_ginac has lowered.
  int lowered(const GiNaC::ex &e) const;
  const Node &node(int id) const { return nodes_[id]; }
  size_t size() const { return nodes_.size(); }
  bool is_zero(int id) const { return nodes_[id].kind == Node::num && nodes_[id].value == 0; }
  // The canonical order of nodes: <0, 0 (the same node) or >0.
  int compare(int a, int b) const;

  // Builders that keep nodes canonical (flattened, coefficients outside,
  // sums factored).
  int number(double v);
  int sum(const std::vector<std::pair<double, int>> &terms, double constant = 0);
  int product(const std::vector<std::pair<int, int>> &factors, double coef = 1);  // (node, ±1)
  int call(const std::string &name, const std::vector<int> &args);
  int integer_power(int base, int exponent);

  // d(node)/d(symbol named var), as a node of this graph (differentiate.cpp):
  // symbolic differentiation on the shared graph, so the derivative shares
  // subexpressions with the function and never expands.
  int derivative(int id, const std::string &var);

 private:
  // Past this many factors in a sum's terms the search for a shared one is
  // not made (the derivative of a long product would cost its square).
  static constexpr size_t kMaxFactoring = 4096;
  int intern(Node n);
  void sort_operands(Node &n) const;
  int signed_sum(Node n);
  std::optional<int> factored(const Node &n);
  std::optional<int> split_by_difference(const Node &n, const std::vector<std::map<int, int>> &factors);
  // A term as its factors and their integer powers: x^3 y / z -> {x:3, y:1, z:-1}.
  std::map<int, int> factors_of(int id) const;
  int from_factors(const std::map<int, int> &factors);
  bool combine_pythagoras(Node &n);
  int trig_of_sum(bool sine, int argument);
  // A node as coefficient × node: (c, inner) for a scaled node, else (1, id).
  std::pair<double, int> split_coefficient(int id) const;
  int call_derivative(const Node &n, int id, const std::string &var);
  int scaled(double coef, int id);  // coef * node, as an add node
  std::vector<Node> nodes_;
  std::unordered_multimap<uint64_t, int> index_;  // structural key -> ids
  // Flattened sums (constant and terms by node, as bits) -> their canonical node.
  using SumKey = std::pair<uint64_t, std::vector<std::pair<uint64_t, int>>>;
  std::map<SumKey, int> sums_;
  std::map<GiNaC::ex, int, GiNaC::ex_is_less> memo_;
  struct SymbolName {
    std::string name;
    int rank;
    bool coefficient;
  };
  std::map<GiNaC::ex, SymbolName, GiNaC::ex_is_less> symbol_names_;
  std::set<std::string> coefficients_;  // names of the coefficient symbols
  std::set<int> trig_products_;  // arguments whose sin and cos use the addition formulas
  size_t operands_ = 0, operand_limit_ = SIZE_MAX;
  std::function<void()> exceeded_;
  // Which symbols each node depends on, as bits indexed by symbol_index_,
  // so a derivative skips every subexpression without its variable.
  std::vector<std::vector<uint64_t>> depends_;
  std::unordered_map<std::string, int> symbol_index_;
  std::unordered_map<uint64_t, int> derivatives_;  // (node, symbol index) -> node
  std::vector<uint64_t> coefficient_bits_;         // the coefficients among symbol_index_
  bool depends_on(int id, int symbol) const;
  // Whether a node depends on nothing but coefficients.
  bool coefficients_only(int id) const;
};

// One line of a block of straight-line code: a temporary w<temp> for a node
// used more than once (or a call), or the block's output number `output`.
struct Statement {
  enum Kind { temp, output } kind;
  int node;
  int temp_number = -1;   // temp: its number, from 1 in order of first use
  int output_index = -1;  // output: its index in the block's outputs
};

// A sum a block computes from another of its sums: m3 + m4 + m5 as w2 + m5
// where w2 = m3 + m4. `base`, then the terms `rest` (the sum's coefficients
// less the base's) and the constant.
struct SumReuse {
  int base;
  std::vector<std::pair<double, int>> rest;
  double constant;
};

// The computation of a block's outputs: its statements, a temporary for
// every node used more than once (and for every function call, and every
// sum another is computed from), and the sums computed from others.
struct Schedule {
  std::vector<Statement> code;
  std::map<int, int> temps;  // node -> temporary number
  std::map<int, SumReuse> reuse;
};
Schedule schedule(Graph &g, const std::vector<int> &outputs);

// Number literal that round-trips, shortest form: "0.5", "2.0", "1e-10".
std::string format_double(double v);

// ---- layout.cpp -----------------------------------------------------------

// The size macros of the generated header (NAME_NQ, ...), in which the C
// spells every size and offset.
enum class Size { nq, nh, nn, nc, nx, np, nu, nwork };
const char *size_suffix(Size s);  // "NQ"

// The numbers behind the size macros, for one model.
struct Sizes {
  size_t nq = 0, nh = 0, nn = 0, nc = 0, nx = 0, np = 0, nu = 0, nwork = 0;
  size_t operator[](Size s) const;
  // The length to declare an array of s elements with: s, or 1 when it is 0.
  size_t array_length(Size s) const { return (*this)[s] ? (*this)[s] : 1; }
};

// A size as the C spells it: count × a product of factors, each a sum of
// size macros: NQ*NQ, 2*NC*NQ, (NQ + NC)*NX; `value` is its number.
struct Extent {
  size_t count = 1;
  std::vector<std::vector<Size>> factors;
  size_t value = 0;
};
// A sum of extents, equal ones merged: 2*NQ + NN.
using Offset = std::vector<Extent>;
Extent make_extent(const Sizes &sizes, std::vector<std::vector<Size>> factors, size_t count = 1);

// A buffer as named slices in order, one level of which may be another
// layout standing in it whole (the Jacobian's work starts with the rhs's).
// The sizes callers allocate and every offset the generated C uses are
// computed here, once.
class Layout {
 public:
  explicit Layout(const Sizes &sizes) : sizes_(sizes) {}
  // A slice of `count` × the product of `factors` (each a sum of sizes).
  void add(const std::string &name, std::vector<std::vector<Size>> factors, size_t count = 1);
  // All of `inner` at this point, spelled as one size macro (NWORK); its
  // slices stay reachable by their names.
  void add_layout(const Layout &inner, Size spelled_as);

  size_t size() const;
  const Extent &extent(const std::string &slice) const;
  // Where the slice starts: the extents before it on its own level.
  Offset offset(const std::string &slice) const;
  // The extents from slice `from` (included) to `to`, on one level.
  Offset between(const std::string &from, const std::string &to) const;
  // Doubles after the inner layout: NWORK_JACOBIAN is NWORK + this.
  size_t size_after_inner() const;
  // Whether `slice` is a slice of the inner layout.
  bool is_inner(const std::string &slice) const;
  std::vector<std::string> names(int level) const;  // of the slices on one level, in order

 private:
  struct Entry {
    std::string name;
    Extent extent;
    int level;  // 0: this layout's own slice; 1: a slice of the inner layout
  };
  const Entry &find(const std::string &slice) const;
  Sizes sizes_;
  std::vector<Entry> entries_;
  std::optional<Extent> inner_;  // the inner layout as one extent, when there is one
};

// A pointer the generated code sets to a slice of a buffer: `base + offset`,
// base the buffer, or the pointer before it on the same level of the layout.
struct Pointer {
  std::string name, base;
  Offset offset;
  std::string slice;
};
// Pointers into `buffer` (a parameter), each (its name, the slice of
// `layout` it points to), in the order they are declared.
std::vector<Pointer> pointers(const Layout &layout, const std::string &buffer,
                              const std::vector<std::pair<std::string, std::string>> &slices);

// ---- kkt_plan.cpp ---------------------------------------------------------

// An element of one of the solver's arrays: M[6], a[2].
struct ArrayRef {
  const char *array;
  size_t index;
};

// One statement of the straight-line KKT solve:
//   heading:  /* text */
//   pivot:    d = target - Σ a*b; fail with `text` unless d > tolerance *
//             target; target = sqrt(d)
//   assign:   target = [base] ∓ Σ a*b [/ divisor]  (sign -1: base minus the
//             products; +1: their sum, 0.0 when there are none)
//   add:      target += base
struct SolveLine {
  enum Kind { heading, pivot, assign, add } kind = heading;
  std::string text;  // heading: the comment; pivot: the status macro's suffix on failure
  const char *tolerance = "";  // pivot: the smallest pivot, as a fraction of the diagonal entry
  ArrayRef target{"", 0};
  std::optional<ArrayRef> base;
  int sign = -1;
  std::vector<std::pair<ArrayRef, ArrayRef>> products;
  std::optional<ArrayRef> divisor;
};

// The KKT solve of NAME_rhs by the range-space method (DESIGN.md §1), over
// the structural nonzeros of M and J and their Cholesky fill-in.
struct KktSolver {
  std::vector<SolveLine> factor, solve;  // NAME_factor_kkt, NAME_solve_kkt
  size_t ops = 0;                        // multiply-adds and divisions in them
  bool straight_line = false;            // small enough to print; else dense loops
  // The array parameters of each that no line mentions (no constraints: J, S, ...).
  std::vector<std::string> factor_unused, solve_unused;
};
KktSolver plan_kkt_solver(const Model &m);

// The one-step correction (6.416-6.418) on the same structure: S = C W^-1
// C^T for W = M (factor_mass: M, then Y = L^-1 C^T, then S) or W = I
// (factor_identity), and the solves K = S^-1 K, d = W^-1 C^T K on the
// holonomic rows (the position correction) and on all rows. Planned only
// for models with constraints; `available` when the straight-line code
// pays by plan_kkt_solver's rule (the runtime's generic path does the rest).
struct CorrectionSolver {
  struct Solve {
    size_t rows;  // the leading constraint rows it corrects: NH or NC
    bool mass;    // metric W = M; else W = I
    std::vector<SolveLine> lines;
    std::vector<std::string> unused;  // of M, C, S, K, d
  };
  std::vector<SolveLine> factor_mass, factor_identity;
  std::vector<std::string> factor_mass_unused, factor_identity_unused;
  std::vector<Solve> solves;  // rows NH first when 0 < NH < NC, then NC; mass first
  size_t ops = 0;
  bool available = false;
};
CorrectionSolver plan_correction_solver(const Model &m);

// ---- plan.cpp -------------------------------------------------------------

// Names of a model's generated identifiers: knife_edge_rhs, KNIFE_EDGE_NQ, ...
struct Names {
  std::string p, P;  // prefix, upper-case prefix
  explicit Names(const std::string &name);
  std::string fn(const char *s) const { return p + "_" + s; }
  std::string size(const char *s) const { return P + "_" + s; }
  std::string size(Size s) const { return P + "_" + size_suffix(s); }
};

// ---- real_type.cpp --------------------------------------------------------

// The precision of the generated C's reals (generate --real): double, or
// float for a controller whose FPU does single precision only.
enum class Precision { double_precision, single_precision };
// "double" or "float"; nullopt for anything else.
std::optional<Precision> parse_precision(const std::string &name);

// How a printer spells a real: every real of the generated code is of the
// header's typedef `type` (NAME_real, of c_type()); its literals and libm
// calls are of that type (0.5f, sinf in single precision).
struct RealType {
  Precision precision;
  std::string type;  // "knife_edge_real"
  RealType(const Names &names, Precision p);
  bool single() const { return precision == Precision::single_precision; }
  const char *c_type() const;                            // "double", "float"
  std::string plural() const { return c_type() + std::string("s"); }  // sizes' unit in comments
  std::string literal(double v) const;                   // "0.5", "0.5f"
  std::string function(const std::string &libm) const;   // "sqrt", "sqrtf"
  std::string suffixed(const std::string &literal) const; // a double literal as one of this type: "1e-8f"
  // C written in double (the dense and minimum-norm solves' loops) in this
  // type: `double` becomes the typedef; in float, literals gain f and
  // sqrt, fabs and HUGE_VAL become sqrtf, fabsf and HUGE_VALF.
  std::string retyped(const std::string &c_in_double) const;
};

// ---- plan.cpp (continued) -------------------------------------------------

// A symbol of the model as generated code holds it: a local loaded from an
// array (x_dot = state[4]), a scalar parameter of the function (t), or an
// array element used in place (in_multipliers[0]).
struct Local {
  enum Kind { loaded, scalar, element } kind;
  enum Role { coordinate, velocity, integral, multiplier, parameter, input, time, gain, solution, reaction } role;
  GiNaC::ex symbol;       // the model's symbol (solution: the plan's own)
  std::string name;       // the C name, also its name in the graph
  std::string array;      // loaded, element: the array parameter it comes from
  size_t index = 0;       // ... and where in it
  std::string spec_name;  // as the spec writes it (x'), for comments
};

// A parameter of a generated function.
struct Param {
  enum Type { real, integer, real_array, const_real_array } type;
  std::string name;
};

struct Signature {
  std::string result;  // "int", "void", "real" (the model's real type)
  std::string name;
  bool is_static = false;
  std::vector<std::vector<Param>> lines;  // parameters, as the declaration breaks them
};

// An output array of a block: only its structural nonzeros are assigned, so
// it is zeroed first when `zeroed`; `mirrored`: a symmetric matrix whose
// upper triangle is copied from the lower one after.
struct OutputArray {
  std::string param;
  Extent extent;
  bool zeroed = false, mirrored = false;
};

// One output of a block: `array` (an index into Block::arrays; -1 for the
// function's return value) [index] = node.
struct Assignment {
  int array;
  size_t index;
  int node;
  std::string comment;  // shown above the line
  std::string note;     // shown after it
};

// A generated function that is straight-line code: its parameters, the
// outputs, the order of their computation, the locals it loads, and the
// parameters nothing reads or writes (marked unused).
struct Block {
  Signature signature;
  std::string doc;  // the header's comment on it, "" for a static function
  std::vector<OutputArray> arrays;
  std::vector<Assignment> outputs;
  Schedule schedule;
  std::vector<const Local *> loads;    // in load order: state, parameters, inputs
  std::vector<std::string> unused;     // in parameter order
};

// A generated function whose body is a fixed algorithm over the plan's
// buffers (the rhs around the KKT solve, the Jacobian's column solves).
struct Routine {
  Signature signature;
  std::string doc;
  std::vector<Pointer> pointers;    // the slices it names, in declaration order
  std::vector<OutputArray> arrays;  // the outputs it fills whole
};

// What the printers print: everything about the generated code that is
// computed rather than written out, computed once.
struct Plan {
  const Model &model;
  Names names;
  RealType real;
  Sizes sizes;
  bool with_jacobian;
  Graph graph;                     // every expression, lowered once
  std::vector<Local> locals;       // in load order
  // The layouts: the state x and its derivative; constraint rows (lambda,
  // mu); the KKT unknowns (a, nu); the work of rhs and of jacobian.
  Layout state, rows, kkt, rhs_work, jacobian_work, parameter_jacobian_work;
  KktSolver solver;
  // The one-step correction, when it is generated: its statements, its
  // work (Y | S), and the two public functions around them.
  CorrectionSolver correction;
  Layout correction_work;
  Routine correction_factor, correction_solve;
  // NAME_step: one RK4 step and the correction, for a model without
  // constraints or with the generated correction and no redundant rows (the
  // correction's factor needs independent rows); its work is the rhs's, then
  // its own slices.
  bool with_step = false;
  Layout step_work;
  Routine step;
  Block kkt_entries, residuals, energy, energies, inverse_dynamics, bias, gravity, mass_matrix, constraint_jacobian, constraint_coordinate_jacobian,
      initial_state_at;
  Routine kkt_terms, rhs;  // kkt_terms: the arrays zeroed, then kkt_entries
  // With Jacobians: the derivatives of the KKT residual, and the routines
  // solving for df/dx and df/du, and for dq''/dp, with them.
  Block residual_derivatives, residual_parameter_derivatives;
  Routine jacobian, parameter_jacobian;
  // With [outputs] / [events]: NAME_outputs and NAME_events, functions of
  // the state and of the multipliers rhs returns there.
  Block outputs, events;

  Plan(const Model &m, bool with_jacobian, Precision precision = Precision::double_precision);
  Plan(const Plan &) = delete;
};

// ---- stack_estimate.cpp ---------------------------------------------------

// The stack the generated functions may take at most, estimated from the
// plan: the largest straight-line block's loaded values and peak live
// temporaries, a slot of the real type each and a quarter more for the
// compiler's own, plus the routines' frames. On specs/ it is above what
// arm-none-eabi-gcc -O2 takes (tests/embed/cross_build.py checks it).
struct StackEstimate {
  // The routines around the blocks (step, rhs, solves, the minimum-norm
  // solve's loops) and the frames of the small blocks they call.
  static constexpr size_t kRoutines = 768;
  // Past this, `generate` warns: a controller task's stack is a few KiB.
  static constexpr size_t kBound = 4096;
  size_t values = 0;  // of the block that holds most at once
  std::string block;  // its name
  size_t bytes = 0;
};
StackEstimate estimate_stack(const Plan &plan);

// ---- emit_c.cpp -----------------------------------------------------------

// NAME.h and NAME.c: standalone C99.
std::string emit_header(const Plan &plan);
std::string emit_source(const Plan &plan);
// Pieces the descriptor's printer shares: the "generated by" line, and a
// C string literal of any text (escapes, no trigraphs).
std::string banner(const Plan &plan, const std::string &file);
std::string string_literal(const std::string &text);
// A function's declarator, and a routine's pointers into its buffers, as
// the other printers of NAME.c write them too.
std::string signature_text(const RealType &real, const Signature &sig);
std::string declare_pointers(const Plan &plan, const std::vector<Pointer> &pointers);

// ---- emit_step.cpp --------------------------------------------------------

// NAME.c's NAME_step (RK4, then the correction) and its helpers; the
// header's lines for it (NAME_NWORK_STEP, the tolerance and iteration limit).
std::string emit_step(const Plan &plan);
std::string emit_step_header_lines(const Plan &plan);

// ---- emit_solve.cpp -------------------------------------------------------

// NAME.c's static KKT solver, NAME_factor_kkt and NAME_solve_kkt: the plan's
// straight-line code, or dense loops over the compile-time sizes.
std::string emit_kkt_solver(const Plan &plan);
// NAME.c's static pieces of the correction: its factors and solves, the
// latter named by correction_solve_name (NAME_correct_mass_holonomic, ...).
std::string emit_correction_solver(const Plan &plan);
std::string correction_solve_name(const Names &n, const CorrectionSolver::Solve &solve, size_t nc);

// ---- emit_descriptor.cpp --------------------------------------------------

// NAME_model.c: the runtime's lgc_model, filled in by field name.
std::string emit_descriptor(const Plan &plan);

// ---- emit_report.cpp ------------------------------------------------------

// NAME.md: the spec and every derived quantity in LaTeX.
std::string emit_report(const Plan &plan);

// ---- generate.cpp ---------------------------------------------------------

struct GeneratedFiles {
  std::string header, source, descriptor, report;  // NAME.h, NAME.c, NAME_model.c, NAME.md
  StackEstimate stack;
};

GeneratedFiles generate(const Spec &spec, Formulation formulation = Formulation::dalembert,
                        bool with_jacobian = true, Precision precision = Precision::double_precision,
                        bool strict = false);
// Writes the files for `spec` into dir, each whole or not at all.
void write_generated(const Spec &spec, const GeneratedFiles &files, const std::string &dir);
// Writes `content` to `path` through a temporary file renamed into place.
void write_file_atomically(const std::string &path, const std::string &content);

// ---- sha256.cpp -----------------------------------------------------------

// SHA-256 of a stream of bytes (libcrypto); hex() ends it (call it once).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256 &) = delete;
  Sha256 &operator=(const Sha256 &) = delete;
  Sha256 &update(const void *data, size_t size);
  Sha256 &update(const std::string &data);
  std::string hex();  // 64 lowercase hex digits

 private:
  ::evp_md_ctx_st *ctx_;  // OpenSSL's EVP_MD_CTX
};
std::string sha256_hex(const std::string &data);
// Of everything left to read from fd; `path` names it in errors.
std::string sha256_hex_of_fd(int fd, const std::string &path);

// ---- cache.cpp ------------------------------------------------------------

// A directory held open, so that what was checked is what is used: `fd` for
// the *at calls and as a working directory, `path` for messages, `via_fd`
// (/proc/self/fd/N) for calls that take a path.
struct OpenDir {
  int fd;
  std::string path, via_fd;
};

// A descriptor, open for fexecve, of the program `name` in entry `entry` of
// the user's cache, after checking it against the entry's manifest. When it
// is missing or does not match, `build` first writes it and its sources into
// an empty staging directory, under the entry's lock (concurrent callers wait,
// then use what it built). Throws, naming the path, when a directory or file
// on the way is not the user's alone.
int cached_program(const std::string &entry, const std::string &name,
                   const std::function<void(const OpenDir &staging)> &build);

// ---- compile.cpp ----------------------------------------------------------

// How a model's program is compiled: the C compiler ($CC split into words
// as a shell splits them, never run by one; else cc) and the runtime it
// links. Every word of it is part of the cache key.
struct Toolchain {
  std::vector<std::string> compiler;
  std::string runtime_include, runtime_library;
  std::vector<std::string> link_args;
};
Toolchain find_toolchain();
// Compiles main.c, NAME.c and NAME_model.c in dir into the program NAME and
// checks that it runs.
void compile_program(const Toolchain &toolchain, const std::string &name, size_t source_size, const OpenDir &dir);

// ---- simulate.cpp ---------------------------------------------------------

// Generates, compiles (once, cached) and runs the model's program with
// command "simulate" or "linearize"; returns only on failure.
int run_model(const std::string &command, const std::string &spec_path, Formulation formulation,
              const std::vector<std::string> &options);

}  // namespace lgc
