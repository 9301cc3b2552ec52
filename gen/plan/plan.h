// plan.h — stage 4, the plan: the model lowered into one graph of
// instructions (lower, differentiate), the state and work buffers as named
// slices (layout), and the statements of every generated function (kkt_plan,
// plan); the precision the code is printed in (real_type).
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>

#include "model/model.h"

namespace lgc {

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

// One line of a block of straight-line code: a temporary for a node used
// more than once (or a call), a value another block computed read from the
// array of shared terms (`read`, named as that block names it), or the
// block's output number `output`. A temporary that is `shared` is also
// stored into that array.
struct Statement {
  enum Kind { temp, read, output } kind;
  int node;
  std::string temp_name;  // temp, read: its name (Schedule)
  int output_index = -1;  // output: its index in the block's outputs
  bool shared = false;    // temp: stored for the blocks that read it
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
//
// Temporaries are named so that an edit of the spec renames only what it
// changes: a call of one symbol after both (cos_psi), any other after the
// section of the output that first needs it (its array less "out_" and its
// index, M_18; w where the output is the return value) and a count within
// that section (M_18_3). An edit renumbers only the entries whose
// computation it changes, and a changed subexpression keeps its name, so
// the expressions above it read as before. `sections` holds each output's
// section; `taken` the names the block already uses. The nodes of `given`
// (node -> name) another block computes: they are read under that name
// where first needed, and nothing under them is computed here.
struct Schedule {
  std::vector<Statement> code;
  std::map<int, std::string> temps;  // node -> temporary's name
  std::map<int, SumReuse> reuse;
};
Schedule schedule(Graph &g, const std::vector<int> &outputs, const std::vector<std::string> &sections,
                  const std::set<std::string> &taken, const std::map<int, std::string> &given = {});


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
  double tolerance = 0;  // pivot: the smallest pivot, as a fraction of the diagonal entry
  ArrayRef target{"", 0};
  std::optional<ArrayRef> base;
  int sign = -1;
  std::vector<std::pair<ArrayRef, ArrayRef>> products;
  std::optional<ArrayRef> divisor;
};

// The KKT solve of NAME_rhs by the range-space method (docs/theory.md §3), over
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
  // factor_mass is the KKT solve's straight-line factor with C in J's place
  // (all but the status of a small pivot of S): printed as a call of it.
  bool mass_is_kkt_factor = false;
};
CorrectionSolver plan_correction_solver(const Model &m, const KktSolver &kkt);

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
  // One of lagrangec/thresholds.h's pivots and floors (given by its double
  // value) for this type: in float, its _FLOAT counterpart.
  double threshold(double lgc_value) const;
  std::string function(const std::string &libm) const;   // "sqrt", "sqrtf"
  // C written over `real` with double literals and libm (a kernel of
  // gen/kernels/) in this type: `real` becomes the typedef; in float,
  // literals gain f, sqrt, fabs, sin, cos and fmax an f suffix, and
  // HUGE_VAL becomes HUGE_VALF. Each identifier and number is offered first to `word`: its
  // text, or nullopt to retype it so (a kernel's placeholders).
  using WordMap = std::function<std::optional<std::string>(const std::string &)>;
  std::string retyped(const std::string &c_over_real, const WordMap &word) const;
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
  // The parameter its shared temporaries are stored into (out_terms, when
  // not NULL) or its read statements read from (in_terms); "" for none.
  std::string terms;
};

// The temporaries of NAME_kkt_entries that the residual's derivatives need
// again: NAME_jacobian and NAME_parameter_jacobian call the rhs (as
// NAME_rhs_terms) with the slice `terms` of their work, into which
// kkt_entries stores them as it computes them, then hand that slice to the
// derivative blocks, which read them instead of computing them again
// (NAME_rhs itself stores none). In kkt_entries' order, each by its
// temporary's name, which also names its place (NAME_TERM_cos_psi), so that
// a new shared value is a line of its own and renumbers nothing.
struct SharedTerms {
  std::vector<std::pair<int, std::string>> values;  // (node, name) in slot order
  bool empty() const { return values.empty(); }
};

// A generated function whose body is a fixed algorithm over the plan's
// buffers (the rhs around the KKT solve, the Jacobian's column solves).
struct Routine {
  Signature signature;
  std::string doc;
  std::vector<Pointer> pointers;    // the slices it names, in declaration order
  std::vector<OutputArray> arrays;  // the outputs it fills whole
};

// ---- articulated_plan.cpp -------------------------------------------------

// Operations of the nodes `outputs` reach, each node once, by count_ops.py's
// rule (every + - * / and every call 1).
size_t graph_operations(const Graph &g, const std::vector<int> &outputs);

// Which form rhs takes: M and its factor (the KKT solve), or for an
// unconstrained tree of bodies the articulated-body recursion
// (gen/kernels/articulated.c) over tables filled from the parameters, when
// that costs fewer operations. `reason` says why, for NAME.md.
struct ArticulatedForm {
  bool chosen = false;
  std::string reason;
  size_t dense_ops = 0, recursion_ops = 0;
  // The recursion's table and work per link (reals; planar.c uses the
  // first 21 of the work, planar_jacobian.c 24 from offset 28).
  static constexpr size_t kTable = 24, kWork = 77,
                          kTangent = 31;  // per link in gen/kernels/tree_jacobian.c (planar_jacobian.c: 9)
};
// The form the model chose (ArticulatedTree::chosen, from the tree alone);
// for a model that forms M, the reason with the operations counted on the
// lowered graph: M and f (dense_outputs) and the solve against the
// recursion's cost per link. Throws RecursionByCount where that count
// exceeds ArticulatedTree::kRecountFactor times the recursion's estimate
// and neither the spec nor full derivation chose M.
ArticulatedForm choose_articulated(const Model &m, const Graph &g, const std::vector<int> &dense_outputs,
                                   size_t solver_ops);
// Whether link L's joint frame is turned from its parent's axes (E not the
// identity): the tables' link_fixed, which the recursions' turns skip.
bool joint_frame_turned(const ArticulatedTree::Link &L);
// The outputs of NAME_articulated_terms: each link's row of the table, the
// gravity, then tau; with their comments. On a planar tree rhs's passes
// (planar.c) read only some of each row: `terms` fills those, and `rest`
// (NAME_articulated_rest) the others, for the table's other readers.
struct ArticulatedTerms {
  std::vector<Assignment> terms, rest;
};
ArticulatedTerms articulated_terms(const Model &m, Graph &g);

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
  // rhs's form (articulated_plan.cpp); when the recursion: the block that
  // fills its table and the joint forces (out_table, out_tau); on a planar
  // tree, the block that fills the table's entries rhs does not read (no
  // outputs elsewhere), which every other function over the table calls too.
  ArticulatedForm articulated;
  Block articulated_terms, articulated_rest;
  // On the recursion with the Jacobian: NAME_jacobian by
  // gen/kernels/tree_jacobian.c, with tau's derivatives (out_dtau_dx,
  // out_dtau_du), and no parameter_jacobian; with rows on top, the rows'
  // derivatives for gen/kernels/tree_kkt_jacobian.c (rows_derivatives).
  bool tree_jacobian = false;
  Block tau_derivatives, rows_derivatives;
  bool rows_force_symmetric = false;  // rows_derivatives writes d(J^T nu)/dq's lower triangle only
  SharedTerms terms;  // with Jacobians: kkt_entries' values the derivatives read
  // On the recursion: the potential written beside the bodies, V (out_V)
  // and dV/dq (out_dVdq), which the functions over the tables add.
  Block written_potential;
  Block kkt_entries, residuals, energy, energies, inverse_dynamics, bias, gravity, mass_matrix, constraint_jacobian,
      constraint_coordinate_jacobian, initial_state_at;
  Routine kkt_terms, rhs;  // kkt_terms: the arrays zeroed, then kkt_entries
  // With Jacobians: the derivatives of the KKT residual, and the routines
  // solving for df/dx and df/du, and for dq''/dp, with them.
  Block residual_derivatives, residual_parameter_derivatives;
  Routine jacobian, parameter_jacobian;
  // With [outputs] / [events]: NAME_outputs and NAME_events, functions of
  // the state and of the multipliers rhs returns there.
  Block outputs, events;
  // NAME_jacobi_integral, h, when that is the model's integral (T + V,
  // NAME_energy, is not).
  Block jacobi_integral;
  // With contacts: NAME_restitution, each contact's coefficient at the parameters.
  Block restitution;
  // With [friction]: NAME_friction_normal (each contact's normal force,
  // affine in the multipliers) and NAME_friction_coefficients.
  Block friction_normal, friction_coefficients;
  // Where tau is linear in monomials of the parameters: NAME_regressor and
  // NAME_base_parameters (Y_base theta_base = tau), and the same for the
  // standard parameters (Y theta = tau).
  Regressor regressor;
  Block base_regressor, base_parameters, standard_regressor, standard_parameters;

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

}  // namespace lgc
