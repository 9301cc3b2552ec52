// lagrangec.h — the generator's one internal header, sectioned by the file
// that defines each part. The pipeline, in file order:
//   spec_reader → expr_reader → derive → lower → emit_c / emit_report
#pragma once

#include <ginac/ginac.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <string>
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

struct Spec {
  std::string path;
  std::string source;  // the file's bytes, for reports and error carets
  std::string name, title;
  std::vector<NamedValue> coordinates;  // value unused
  std::vector<NamedValue> parameters, inputs;
  SourceText kinetic;
  std::optional<SourceText> potential;
  std::vector<std::optional<SourceText>> forces;  // one per coordinate
  std::vector<SourceText> holonomic, nonholonomic;
  std::vector<double> initial_q, initial_v;       // one per coordinate
  std::vector<double> initial_mu;                 // one per nonholonomic constraint (vakonomic)
  double alpha = 0, beta = 0;
};

// Reads and checks a spec file; throws SpecError.
Spec read_spec(const std::string &path);
// Same, from text already in memory (the fuzzer's entry point).
Spec read_spec_text(const std::string &path, const std::string &text);

// ---- expr_reader.cpp ------------------------------------------------------

enum class SymbolKind { coordinate, velocity, parameter, input, time, constant };

struct SymbolInfo {
  GiNaC::ex ex;
  SymbolKind kind;
  std::string spec_name;  // as written: "x", "x'", "m", "t", "pi"
  std::string c_name;     // the C local that holds it: "x", "x_dot", "m", "t"
};

// Every name an expression may use, looked up by spec name.
struct SymbolTable {
  std::map<std::string, SymbolInfo> by_name;
  std::vector<GiNaC::realsymbol> q, v, p, u;
  GiNaC::realsymbol t{"t"};
  // GiNaC symbol name (== c_name) to its info, for the printers.
  std::map<std::string, SymbolInfo> by_c_name;

  std::map<GiNaC::ex, SymbolKind, GiNaC::ex_is_less> kind_of;  // by symbol

  // Whether e contains a symbol of this kind (symbols.cpp).
  bool has_kind(const GiNaC::ex &e, SymbolKind kind) const;
  // Total time derivative of e(q, q', t) without the q'' terms: ∂e/∂q q' + ∂e/∂t.
  GiNaC::ex convective_derivative(const GiNaC::ex &e) const;
};

// ---- symbols.cpp ----------------------------------------------------------

SymbolTable make_symbols(const Spec &spec);

// What an expression may refer to, and how to name it in a message.
struct ExprContext {
  const char *what;  // "the kinetic energy", "holonomic constraint 2", ...
  bool velocities = true;
  bool inputs = true;
};

GiNaC::ex read_expression(const SourceText &src, const SymbolTable &symbols,
                          const ExprContext &ctx);

// Functions the expression language knows, for name checks.
bool is_function_name(const std::string &name);

// ---- real_functions.cpp ---------------------------------------------------

// abs(x) for real x, whose derivative is sign(x) (not GiNaC's x/abs(x),
// NaN at 0); both lower to C's fabs and copysign(1.0, x).
DECLARE_FUNCTION_1P(real_abs)
DECLARE_FUNCTION_1P(real_sign)

// ---- derive.cpp -----------------------------------------------------------

// How nonholonomic constraints enter the equations (DESIGN.md §1, seed 003):
// d'Alembert–Lagrange (the physical default), or vakonomic, from the
// augmented Lagrangian L + mu^T g, where mu becomes a state.
enum class Formulation { dalembert, vakonomic };
// "dalembert" or "vakonomic"; nullopt for anything else.
std::optional<Formulation> parse_formulation(const std::string &name);

// One entry of the state vector, in order (grep tag: STATE-LAYOUT).
struct StateVar {
  GiNaC::realsymbol sym;
  std::string name;  // as a user writes it: x, x', int_g1, mu1
  double initial;
};

// The equations of motion, symbolically (DESIGN.md §1).
struct Model {
  const Spec *spec = nullptr;
  SymbolTable symbols;
  GiNaC::realsymbol alpha{"baumgarte_alpha"}, beta{"baumgarte_beta"};
  size_t nq = 0, nh = 0, nn = 0;
  GiNaC::ex T, V;
  std::vector<GiNaC::ex> Q;      // applied generalised forces
  GiNaC::matrix M;               // nq x nq
  std::vector<GiNaC::ex> k;      // M q'' + k = Q + J^T nu
  std::vector<GiNaC::ex> phi, phi_t, phi_dot, c_h;  // holonomic
  GiNaC::matrix A;               // nh x nq
  std::vector<GiNaC::ex> g, b, c_n;                 // nonholonomic
  GiNaC::matrix B;               // nn x nq
  std::vector<GiNaC::realsymbol> z;  // ∫g dt, one per nonholonomic constraint
  Formulation formulation = Formulation::dalembert;
  std::vector<GiNaC::realsymbol> mu;  // vakonomic only: the multipliers, states
  std::vector<StateVar> state;        // q, q', z, then (vakonomic) mu
  // Right-hand side of the constraint rows J q'' = r (Baumgarte-stabilised).
  std::vector<GiNaC::ex> r;      // nh + nn
  bool conservative = false;     // no forces, no explicit t

  // For the Jacobian of the first-order system: the KKT residual
  // R(x, u, a, nu) = [M a + k - Q - J^T nu; J a - r], zero at a = q'' and
  // nu = the multipliers, so the solve's sensitivity is K d(a, nu)/dx = -dR/dx.
  // a and nu stand in R as symbols; emit_c differentiates R and g.
  std::vector<GiNaC::realsymbol> acc, nu;  // C names in_acceleration[i], in_multipliers[c]
  std::vector<GiNaC::ex> R;                // nq + nc rows
  bool with_jacobian = true;               // emit NAME_jacobian
};

Model derive(const Spec &spec, Formulation formulation = Formulation::dalembert);

// ---- kinetic.cpp ----------------------------------------------------------

// M and d/dt(dT/dv) - dT/dq without the acceleration terms, from T.
struct KineticTerms {
  GiNaC::matrix M;
  std::vector<GiNaC::ex> k;
};
KineticTerms derive_kinetic(const GiNaC::ex &T, const SymbolTable &s);

// ---- lower.cpp ------------------------------------------------------------

// A flat, canonical expression graph: GiNaC trees are interned into nodes
// keyed by structure (symbols by name, numbers by value), so equal
// subexpressions are one node and every order is independent of GiNaC's
// run-to-run term order.
struct Node {
  enum Kind : uint8_t { num, sym, add, mul, ipow, pow, call } kind;
  explicit Node(Kind k) : kind(k) {}
  double value = 0;        // num: the value; add: constant term
  std::string name;        // sym: C name; call: C function name
  int exponent = 0;        // ipow: the integer exponent (>= 2)
  // add: (coef, node) terms; mul: (node, ±1) factors (numerator/denominator);
  // ipow/pow/call: operands with coef unused.
  std::vector<std::pair<double, int>> terms;
  uint64_t key = 0;        // structural hash, the canonical sort key
};

class Graph {
 public:
  int from_ginac(const GiNaC::ex &e);
  const Node &node(int id) const { return nodes_[id]; }
  size_t size() const { return nodes_.size(); }
  bool is_zero(int id) const { return nodes_[id].kind == Node::num && nodes_[id].value == 0; }

  // Builders that keep nodes canonical (flattened, coefficients outside).
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
  int intern(Node n);
  void sort_operands(Node &n) const;
  int signed_sum(Node n);
  // A term as its factors and their integer powers: x^3 y / z -> {x:3, y:1, z:-1}.
  std::map<int, int> factors_of(int id) const;
  int from_factors(const std::map<int, int> &factors);
  bool combine_pythagoras(Node &n);
  // A node as coefficient × node: (c, inner) for a scaled node, else (1, id).
  std::pair<double, int> split_coefficient(int id) const;
  int call_derivative(const Node &n, int id, const std::string &var);
  int scaled(double coef, int id);  // coef * node, as an add node
  std::vector<Node> nodes_;
  std::unordered_multimap<uint64_t, int> index_;  // structural key -> ids
  std::map<GiNaC::ex, int, GiNaC::ex_is_less> memo_;
  // Which symbols each node depends on, as bits indexed by symbol_index_,
  // so a derivative skips every subexpression without its variable.
  std::vector<std::vector<uint64_t>> depends_;
  std::unordered_map<std::string, int> symbol_index_;
  std::unordered_map<uint64_t, int> derivatives_;  // (node, symbol index) -> node
  bool depends_on(int id, int symbol) const;
};

// ---- evaluate.cpp ---------------------------------------------------------

// Numeric values of a graph's nodes at one point, symbols given by C name
// (a symbol without a value is NaN).
class Evaluator {
 public:
  Evaluator(const Graph &g, std::unordered_map<std::string, double> values) : graph_(g), values_(std::move(values)) {}
  double operator()(int id);

 private:
  static double call(const std::string &f, double a, double b);
  const Graph &graph_;
  std::unordered_map<std::string, double> values_;
  std::unordered_map<int, double> memo_;
};

// A block of straight-line code: named outputs computed from shared
// temporaries, numbered in order of first use.
struct Assignment {
  std::string target;   // "M[4]", "phi[0]"
  int node;
  std::string comment;  // optional, shown above the line
};

struct Statement {
  enum Kind { temp, output } kind;
  int node;
  int temp_index = -1;      // temp: w<temp_index>
  const Assignment *out = nullptr;
};

// Orders the computation of `outputs`: a temporary for every node used more
// than once (and for every function call), outputs in the given order.
std::vector<Statement> schedule(const Graph &g, const std::vector<Assignment> &outputs,
                                std::map<int, int> &temp_of);

// Number literal that round-trips, shortest form: "0.5", "2.0", "1e-10".
std::string format_double(double v);

// ---- emit_c.cpp -----------------------------------------------------------

// Names of a model's generated identifiers: knife_edge_rhs, KNIFE_EDGE_NQ, ...
struct Names {
  std::string p, P;  // prefix, upper-case prefix
  explicit Names(const Model &m);
  std::string fn(const char *s) const { return p + "_" + s; }
  std::string size(const char *s) const { return P + "_" + s; }
};

// The stacked constraint Jacobian J = [A; B] of a model.
GiNaC::matrix stacked_jacobian(const Model &m);

struct GeneratedFiles {
  std::string header, source, descriptor, report;  // NAME.h, NAME.c, NAME_model.c, NAME.md
};

std::string emit_header(const Model &m);
std::string emit_source(const Model &m);
std::string emit_descriptor(const Model &m);
// An expression in C syntax, in canonical order, for messages.
std::string c_expression(const GiNaC::ex &e);

// ---- emit_solve.cpp -------------------------------------------------------

// NAME.c's static KKT solver, NAME_factor_kkt and NAME_solve_kkt: straight
// line over the structural nonzeros of M and J when that code is small,
// else dense loops over the compile-time sizes.
std::string emit_kkt_solver(const Model &m);
bool kkt_solver_is_straight_line(const Model &m);

// ---- emit_report.cpp ------------------------------------------------------

std::string emit_report(const Model &m);

// ---- generate.cpp ---------------------------------------------------------

GeneratedFiles generate(const Spec &spec, Formulation formulation = Formulation::dalembert,
                        bool with_jacobian = true);
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
