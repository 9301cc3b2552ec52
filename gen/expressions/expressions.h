// expressions.h — stage 2, the expressions: the spec's texts read into GiNaC
// expressions in the spec's own names (symbols, expr_reader), with the frames,
// vectors, bodies and wheels they are built from.
#pragma once

#include <ginac/ginac.h>

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <set>

#include "source/source.h"

namespace lgc {

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

// e at the parameters' defaults (and at the values `more` gives other
// symbols), computed exactly where it can be and to 40 digits where not,
// then rounded once: the same double every run. NaN where e has no real
// value there (log(0), 1/0).
double value_at_defaults(const GiNaC::ex &e, const SymbolTable &s, const Spec &spec, const GiNaC::exmap &more = {});

// Uniform doubles in [0, 1), the same sequence on every machine
// (xorshift64*): the generator's sampled checks.
class SampleSequence {
 public:
  explicit SampleSequence(uint64_t seed = 0x9E3779B97F4A7C15ull) : state_(seed) {}
  double next() {
    state_ ^= state_ >> 12, state_ ^= state_ << 25, state_ ^= state_ >> 27;
    return double((state_ * 0x2545F4914F6CDD1Dull) >> 11) / double(1ull << 53);
  }

 private:
  uint64_t state_;
};

// ∂e/∂x with each shared subexpression of e differentiated once, the
// derivative sharing them in turn: GiNaC's diff walks a subexpression once
// per use, exponentially often along definitions that name the one before
// twice (c_k = c_{k-1} cos q_k - s_{k-1} sin q_k). 0 when e has no x.
GiNaC::ex shared_diff(const GiNaC::ex &e, const GiNaC::symbol &x);

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
// the axis of the frame just made). A node may instead turn by a unit
// quaternion (w, x, y, z) of the coordinates, a free rotation with no
// singular configuration: v_parent = R(q) v_node with R(q) the rotation of a
// unit quaternion, and the node's angular velocity from its parent's, in its
// own components, 2 (w v' - w' v - v x v') for v = (x, y, z).
class FrameTree {
 public:
  static constexpr int N = 0;
  struct Node {
    int parent;      // -1 for N
    int axis;        // 0, 1, 2: x, y, z; -1: a quaternion
    GiNaC::ex angle;  // a quaternion's: lst{w, x, y, z}, so that has() sees what it turns by
    int depth;
    bool is_quaternion() const { return axis < 0; }
  };
  FrameTree();
  // The node turned from `parent` by `angle` about the axis `axis` they share.
  int rotate(int parent, int axis, const GiNaC::ex &angle);
  // The node turned from `parent` by the quaternion (w, x, y, z).
  int rotate_by_quaternion(int parent, const std::array<GiNaC::ex, 4> &q);
  // A quaternion node's 2 (w d(v) - d(w) v - v x d(v)), d applied to each
  // component: with d the rate, its angular velocity from its parent's;
  // with d = d/dq_i, that velocity's Jacobian column (it is linear in the
  // rates); with d the second derivative, the velocity's rate (w' v' - w' v'
  // and v' x v' cancel).
  static Components quaternion_rate(const Node &n, const std::function<GiNaC::ex(const GiNaC::ex &)> &d);
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
  // The numbers written in expressions that a float cannot hold (beyond
  // FLT_MAX, or nonzero below FLT_MIN), as written and where: an error
  // under generate --real float, checked by the plan.
  std::vector<NamedValue> beyond_float;

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
  // Names of this expression alone, before the spec's (a support function's
  // ux, uy, uz), with their symbols.
  const std::map<std::string, GiNaC::ex> *locals = nullptr;
};

// A scalar expression; a vector is an error.
GiNaC::ex read_expression(const SourceText &src, Scope &scope, const ExprContext &ctx);
// A vector expression (a point, a direction); a scalar is an error.
Vector read_vector(const SourceText &src, Scope &scope, const ExprContext &ctx);
// Either (a definition).
Value read_value(const SourceText &src, Scope &scope, const ExprContext &ctx);
// A frame's rotation sequence, "PARENT a(angle) b(angle) ...": its node.
int read_frame(const SourceText &src, Scope &scope, const ExprContext &ctx);

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
// Without `energies`, T and V are left 0 (what a tree on the articulated-body
// recursion never needs: they grow as its depth squared); add_energies
// fills them in later.
std::vector<BodyEnergy> body_energies(Scope &scope, bool energies = true);
void add_energies(Scope &scope, std::vector<BodyEnergy> &bodies);

// ---- wheels.cpp -----------------------------------------------------------

// The rows of one rolling wheel ([rolling.NAME]): with n the plane's unit
// normal, a disk's contact point (a its axle's unit vector, r its radius)
// is centre - r k, k = (n - (n.a) a)/sqrt(1 - (n.a)^2), straight "down" in
// the wheel's plane; a sphere's centre - r n; a convex body's, of support
// function h(u) in its frame's axes, centre + R grad h(-R^T n), R the
// frame's rotation. The holonomic row keeps it on the plane, n . contact = 0;
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
// Number literal that round-trips, shortest form: "0.5", "2.0", "1e-10", "1e-8".
std::string format_double(double v);
// printf's %g text with its exponent's leading zeros dropped: "1e-08" → "1e-8".
std::string short_exponent(const char *g);

// ---- expansion_size.cpp ---------------------------------------------------

// The number of terms GiNaC's expand would make of e (an upper bound: like
// terms not combined), at most cap + 1, counted without expanding.
size_t expanded_terms(const GiNaC::ex &e, size_t cap);

// ---- real_functions.cpp ---------------------------------------------------

// abs(x) for real x, whose derivative is sign(x) (not GiNaC's x/abs(x),
// NaN at 0); both lower to C's fabs and copysign(1.0, x).
DECLARE_FUNCTION_1P(real_abs)
DECLARE_FUNCTION_1P(real_sign)

}  // namespace lgc
