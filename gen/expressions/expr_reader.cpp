// expr_reader.cpp — a recursive-descent reader for the spec's expressions,
// building GiNaC expressions directly and reporting errors at their position
// in the TOML file. GiNaC's own parser can neither read x' nor say where an
// error is. A value is a scalar or a vector (N.x, a point, cross(a, b));
// every operation checks which it was given. Frames' rotation sequences
// ("N z(psi) x(phi)") are read here too.
#include "expressions/expressions.h"

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <optional>
#include <functional>
#include <set>

namespace lgc {

namespace {

// Nesting deeper than this is a malformed (or hostile) spec, not physics.
constexpr int kMaxDepth = 200;
// Larger powers are typos, and 2^1e9 would be computed exactly.
constexpr int kMaxExponent = 100;
// Decimal exponents beyond ±400 are neither physics nor representable.
constexpr const char *kOutOfRange = "number out of range (its power of ten must be within -400..400)";

struct Function {
  int arity;
  std::function<GiNaC::ex(const std::vector<GiNaC::ex> &)> make;
};

const std::map<std::string, Function> &functions() {
  using GiNaC::ex;
  using V = std::vector<ex>;
  static const std::map<std::string, Function> table = {
      {"sin", {1, [](const V &a) { return GiNaC::sin(a[0]); }}},
      {"cos", {1, [](const V &a) { return GiNaC::cos(a[0]); }}},
      {"tan", {1, [](const V &a) { return GiNaC::tan(a[0]); }}},
      {"asin", {1, [](const V &a) { return GiNaC::asin(a[0]); }}},
      {"acos", {1, [](const V &a) { return GiNaC::acos(a[0]); }}},
      {"atan", {1, [](const V &a) { return GiNaC::atan(a[0]); }}},
      {"atan2", {2, [](const V &a) { return GiNaC::atan2(a[0], a[1]); }}},
      {"sinh", {1, [](const V &a) { return GiNaC::sinh(a[0]); }}},
      {"cosh", {1, [](const V &a) { return GiNaC::cosh(a[0]); }}},
      {"tanh", {1, [](const V &a) { return GiNaC::tanh(a[0]); }}},
      {"exp", {1, [](const V &a) { return GiNaC::exp(a[0]); }}},
      {"log", {1, [](const V &a) { return GiNaC::log(a[0]); }}},
      {"sqrt", {1, [](const V &a) { return GiNaC::sqrt(a[0]); }}},
      {"abs", {1, [](const V &a) { return real_abs(a[0]); }}},
  };
  return table;
}

// Functions of vectors, read by ExprReader::vector_call, and how many
// vectors each takes (omega takes a frame's name).
const std::map<std::string, size_t> kVectorFunctions = {
    {"dot", 2}, {"cross", 2}, {"norm", 1}, {"vel", 1}, {"omega", 0}};

// The vocabulary the spec reader reserves, each name with one meaning here.
std::string function_list() {
  static const bool known = std::all_of(kFunctionNames.begin(), kFunctionNames.end(), [](const std::string &f) {
    return functions().count(f) + kVectorFunctions.count(f) == 1;
  }) && kFunctionNames.size() == functions().size() + kVectorFunctions.size();
  if (!known) unreachable("kFunctionNames and the expression reader's functions differ");
  std::string s;
  for (auto &f : kFunctionNames) s += (s.empty() ? "" : ", ") + f;
  return s;
}

std::string join(const std::vector<std::string> &names) {
  std::string s;
  for (auto &n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

size_t edit_distance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string did_you_mean(const std::string &id, const std::vector<std::string> &names) {
  std::string closest;
  size_t best = 3;  // suggest only near misses
  for (auto &n : names) {
    size_t d = edit_distance(id, n);
    if (d < best && d < id.size()) best = d, closest = n;
  }
  return closest.empty() ? "" : " (did you mean '" + closest + "'?)";
}

namespace {

class ExprReader {
 public:
  ExprReader(const SourceText &src, Scope &scope, const ExprContext &ctx)
      : src_(src), s_(src.text), scope_(scope), symbols_(scope.symbols), ctx_(ctx) {}

  Value read() {
    skip_space();
    if (pos_ == s_.size()) fail(pos_, std::string(ctx_.what) + " is empty");
    Value e = expr();
    at_end();
    return e;
  }

  // frame := NAME rotation*;  rotation := ('x' | 'y' | 'z') '(' expr ')'
  int frame() {
    skip_space();
    if (pos_ == s_.size()) fail(pos_, std::string(ctx_.what) + " is empty");
    size_t start = pos_;
    std::string parent = identifier();
    if (parent.empty()) fail(start, "expected the name of the parent frame, found " + found());
    int node = frame_node(parent, start);
    for (skip_space(); pos_ < s_.size(); skip_space()) {
      size_t at = pos_;
      std::string axis = identifier();
      if (axis == "X" || axis == "Y" || axis == "Z")
        fail(at, "rotation axes are lower case: x(angle), y(angle), z(angle), each about an axis of the frame "
                 "just made (intrinsic)");
      if (axis == "quaternion") {
        node = quaternion(node);
        continue;
      }
      if (axis != "x" && axis != "y" && axis != "z")
        fail(at, "expected a rotation x(angle), y(angle), z(angle) or quaternion(w, x, y, z), found " +
                     (axis.empty() ? found() : "'" + axis + "'"));
      skip_space();
      size_t open = pos_;
      if (!accept('(')) fail(pos_, "expected '(' and the angle of the rotation " + axis + ", found " + found());
      GiNaC::ex angle = scalar(expr(), open + 1, "an angle");
      if (!accept(')')) unclosed(open);
      node = scope_.frames.rotate(node, axis[0] - 'x', angle);
    }
    return node;
  }

 private:
  // quaternion(w, x, y, z) after `parent`: four scalars.
  int quaternion(int parent) {
    skip_space();
    size_t open = pos_;
    if (!accept('(')) fail(pos_, "expected '(' and the quaternion's w, x, y, z, found " + found());
    std::array<GiNaC::ex, 4> q;
    for (size_t k = 0; k < 4; ++k) {
      if (k > 0 && !accept(','))
        fail(pos_, "a quaternion has four components, w, x, y, z: expected ',' and the next, found " + found());
      size_t at = pos_;
      q[k] = scalar(expr(), at, "a quaternion's component");
    }
    if (!accept(')')) unclosed(open);
    return scope_.frames.rotate_by_quaternion(parent, q);
  }

  const SourceText &src_;
  const std::string &s_;
  Scope &scope_;
  const SymbolTable &symbols_;
  const ExprContext &ctx_;
  size_t pos_ = 0;
  int depth_ = 0;

  void at_end() {
    if (pos_ != s_.size()) {
      if (s_[pos_] == ')') fail(pos_, "unbalanced ')': there is no '(' for it to close");
      fail(pos_, "expected an operator (+ - * / ^) or the end of the expression, found " + found());
    }
  }

  static Value of(const GiNaC::ex &e) { return Value{false, e, {}}; }
  static Value of(const Vector &v) { return Value{true, 0, v}; }

  // The scalar in v, or an error at `at` saying what wanted one.
  GiNaC::ex scalar(const Value &v, size_t at, const std::string &wanted) const {
    if (v.is_vector) fail(at, "a vector where a scalar is expected (" + wanted + "); dot(a, b) and norm(a) make scalars of vectors");
    return v.scalar;
  }

  // The vector in v (0 is the zero vector), or an error at `at` saying what wanted one.
  Vector vector(const Value &v, size_t at, const std::string &wanted) const {
    if (!v.is_vector && v.scalar.is_zero()) return Vector{};
    if (!v.is_vector) fail(at, "a scalar where a vector is expected (" + wanted + "); vectors are made from unit vectors such as N.x");
    return v.vector;
  }

  std::string identifier() {
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum((unsigned char)s_[pos_]) || s_[pos_] == '_')) ++pos_;
    return s_.substr(start, pos_ - start);
  }

  int frame_node(const std::string &name, size_t at) { return scope_.frame(NameRef{name, src_.loc_of(at)}); }

  [[noreturn]] void fail(size_t at, const std::string &msg) const { error_at(src_.loc_of(at), msg); }

  // The word, or the whole UTF-8 character, at pos_.
  std::string found() const {
    if (pos_ >= s_.size()) return "the end of the expression";
    size_t n = 1;
    auto continues = [&](size_t i) {
      unsigned char c = s_[i];
      return std::isalnum((unsigned char)s_[pos_]) || s_[pos_] == '_' ? std::isalnum(c) || c == '_'
                                                                        : (c & 0xC0) == 0x80;
    };
    while (pos_ + n < s_.size() && continues(pos_ + n)) ++n;
    return "'" + s_.substr(pos_, n) + "'";
  }

  void skip_space() {
    while (pos_ < s_.size() && std::isspace((unsigned char)s_[pos_])) ++pos_;
  }

  bool accept(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      skip_space();
      return true;
    }
    return false;
  }

  struct Depth {
    ExprReader &r;
    Depth(ExprReader &reader, size_t at) : r(reader) {
      if (++r.depth_ > kMaxDepth)
        r.fail(at, "expression nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)");
    }
    ~Depth() { --r.depth_; }
  };

  // expr := term (('+' | '-') term)*
  Value expr() {
    Value e = term();
    for (;;) {
      size_t at = pos_;
      bool plus = accept('+');
      if (!plus && !accept('-')) return e;
      Value r = term();
      if (e.is_vector != r.is_vector)
        fail(at, std::string("cannot ") + (plus ? "add" : "subtract") + " a " + (r.is_vector ? "vector" : "scalar") +
                     (plus ? " to" : " from") + " a " + (e.is_vector ? "vector" : "scalar"));
      if (e.is_vector) e = of(e.vector + (plus ? 1 : -1) * r.vector);
      else e = of(evaluated(at, [&] { return plus ? e.scalar + r.scalar : e.scalar - r.scalar; }));
    }
  }

  // term := unary (('*' | '/') unary)*
  Value term() {
    Value e = unary();
    for (;;) {
      size_t at = pos_;
      if (accept('*')) {
        if (pos_ < s_.size() && s_[pos_] == '*') fail(at, "'**' is not an operator: a power is written x^2");
        Value r = unary();
        if (e.is_vector && r.is_vector) fail(at, "cannot multiply two vectors: write dot(a, b) or cross(a, b)");
        if (e.is_vector || r.is_vector) e = of(e.is_vector ? r.scalar * e.vector : e.scalar * r.vector);
        else e = of(evaluated(at, [&] { return e.scalar * r.scalar; }));
      } else if (accept('/')) {
        at = pos_;
        GiNaC::ex d = scalar(unary(), at, "a divisor");
        if (d.is_zero()) fail(at, "division by zero");
        if (e.is_vector) e = of(evaluated(at, [&] { return 1 / d; }) * e.vector);
        else e = of(evaluated(at, [&] { return e.scalar / d; }));
      } else {
        return e;
      }
    }
  }

  // unary := ('-' | '+') unary | power
  Value unary() {
    Depth guard(*this, pos_);
    if (accept('-')) {
      Value v = unary();
      return v.is_vector ? of(-1 * v.vector) : of(-v.scalar);
    }
    if (accept('+')) return unary();
    return power();
  }

  // power := primary ('^' unary)?        (right-associative; -x^2 is -(x^2))
  Value power() {
    size_t base_at = pos_;
    Value base_value = primary();
    size_t at = pos_;
    if (!accept('^')) return base_value;
    GiNaC::ex base = scalar(base_value, base_at, "a base of a power; |v|^2 is dot(v, v)");
    size_t exponent_at = pos_;
    GiNaC::ex exponent = scalar(unary(), exponent_at, "an exponent");
    bool integer = GiNaC::is_a<GiNaC::numeric>(exponent) && GiNaC::ex_to<GiNaC::numeric>(exponent).is_integer();
    if (integer && abs(GiNaC::ex_to<GiNaC::numeric>(exponent)) > kMaxExponent)
      fail(at, "exponent out of range (at most " + std::to_string(kMaxExponent) + " in size)");
    // b^e is exp(e log b): complex, or not differentiable, when b <= 0.
    std::optional<double> b = constant_value(base);
    if (!integer && b && *b <= 0)
      fail(at, "a number <= 0 to a non-integer or symbolic power is not a real function");
    // GiNaC throws on these after allocating the power, and leaks it.
    if (base.is_zero() && integer && !GiNaC::ex_to<GiNaC::numeric>(exponent).is_positive())
      fail(at, exponent.is_zero() ? "0^0 is undefined" : "division by zero (0 to a negative power)");
    return of(evaluated(at, [&] { return GiNaC::pow(base, exponent); }));
  }

  // The value of a constant (no symbols), or nothing; NaN if it is not a
  // finite real number.
  static std::optional<double> constant_value(const GiNaC::ex &e) {
    for (auto i = e.preorder_begin(); i != e.preorder_end(); ++i)
      if (GiNaC::is_a<GiNaC::symbol>(*i)) return std::nullopt;
    try {
      GiNaC::ex v = GiNaC::evalf(e);
      if (GiNaC::is_a<GiNaC::numeric>(v) && GiNaC::ex_to<GiNaC::numeric>(v).is_real()) {
        double d = GiNaC::ex_to<GiNaC::numeric>(v).to_double();
        if (std::isfinite(d)) return d;
      }
    } catch (const std::exception &) {  // CLN's overflow
    }
    return NAN;
  }

  // GiNaC evaluates as it builds (log(0), 0^-1, tan(pi/2) throw): report
  // those at the operator or function that caused them. A constant must be
  // a finite real number, or the C would compute NaN or Inf.
  template <class F>
  GiNaC::ex evaluated(size_t at, F make) const {
    GiNaC::ex e;
    try {
      e = make();
    } catch (const std::exception &x) {
      fail(at, std::string("this cannot be evaluated: ") + x.what());
    }
    std::optional<double> v = constant_value(e);
    if (v && std::isnan(*v)) fail(at, "this constant is not a finite real number (C would compute NaN or Inf)");
    return e;
  }

  // primary := number | name | name "'" | name '.' axis | name '(' expr (',' expr)* ')' | '(' expr ')'
  Value primary() {
    skip_space();
    if (pos_ >= s_.size())
      fail(pos_, "expected a number, a name or '(', found the end of the expression");
    char c = s_[pos_];
    if (c == '(') {
      size_t open = pos_;
      accept('(');
      Value e = expr();
      if (!accept(')')) unclosed(open);
      return e;
    }
    if (std::isdigit((unsigned char)c) || c == '.') return of(number());
    if (std::isalpha((unsigned char)c) || c == '_') return name();
    fail(pos_, "expected a number, a name or '(', found " + found());
  }

  [[noreturn]] void unclosed(size_t open) const {
    SourceLoc o = src_.loc_of(open);
    fail(pos_, "expected ')' to close the '(' at " + std::to_string(o.line) + ":" +
                   std::to_string(o.col) + ", found " + found());
  }

  // Decimal numbers are read exactly: 0.1 is 1/10, so nothing is rounded
  // until the C is printed.
  GiNaC::ex number() {
    size_t start = pos_;
    std::string digits;
    int scale = 0;
    while (pos_ < s_.size() && std::isdigit((unsigned char)s_[pos_])) digits += s_[pos_++];
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      while (pos_ < s_.size() && std::isdigit((unsigned char)s_[pos_])) digits += s_[pos_++], --scale;
    }
    if (digits.empty()) fail(start, "expected a number, found '.'");
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      size_t e_at = pos_++;
      bool negative = pos_ < s_.size() && s_[pos_] == '-';
      if (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+')) ++pos_;
      std::string exp;
      while (pos_ < s_.size() && std::isdigit((unsigned char)s_[pos_])) exp += s_[pos_++];
      if (exp.empty()) fail(e_at, "expected digits after the exponent 'e'");
      if (exp.size() > 3) fail(e_at, kOutOfRange);
      scale += negative ? -std::stoi(exp) : std::stoi(exp);
    }
    if (std::abs(scale) > 400) fail(start, kOutOfRange);
    size_t first = digits.find_first_not_of('0');
    GiNaC::numeric mantissa =
        first == std::string::npos ? GiNaC::numeric(0) : GiNaC::numeric(digits.c_str() + first);
    GiNaC::ex value = evaluated(start, [&] { return mantissa * GiNaC::pow(GiNaC::numeric(10), scale); });
    GiNaC::numeric magnitude = GiNaC::abs(GiNaC::ex_to<GiNaC::numeric>(value));
    if (magnitude > GiNaC::numeric(FLT_MAX) || (!magnitude.is_zero() && magnitude < GiNaC::numeric(FLT_MIN)))
      scope_.beyond_float.push_back({s_.substr(start, pos_ - start), magnitude.to_double(), src_.loc_of(start)});
    skip_space();
    return value;
  }

  // The names this expression may use, in the spec's order.
  std::vector<std::string> usable_names() const {
    std::vector<std::string> names;
    if (ctx_.locals)
      for (auto &[name, symbol] : *ctx_.locals) names.push_back(name);
    for (auto *list : {&symbols_.q, &symbols_.v, &symbols_.p, &symbols_.u})
      for (auto &sym : *list) {
        const SymbolInfo &info = symbols_.by_name.at(sym.get_name());
        if (allowed(info.kind)) names.push_back(info.spec_name);
      }
    if (ctx_.multipliers)
      for (auto &[name, info] : symbols_.by_name)
        if (info.kind == SymbolKind::multiplier) names.push_back(name);
    for (auto &n : scope_.value_names()) names.push_back(n);
    if (ctx_.coordinates) names.push_back("t");
    names.push_back("pi");
    return names;
  }

  std::string unknown_name_message(const std::string &id) const {
    // lambda1..., mu1... are reserved (the spec reader refuses them as names): a multiplier's.
    for (const char *stem : {"lambda", "mu"}) {
      const size_t n = std::strlen(stem);
      if (!ctx_.multipliers && id.size() > n && id.compare(0, n, stem) == 0 &&
          id.find_first_not_of("0123456789", n) == std::string::npos)
        return "multiplier " + id + " in " + ctx_.what + "; multipliers may appear in [outputs] and [events] only";
    }
    std::vector<std::string> names = usable_names();
    return "unknown name '" + id + "'" + did_you_mean(id, names) + "; known names: " + join(names);
  }

  bool allowed(SymbolKind k) const {
    switch (k) {
      case SymbolKind::velocity: return ctx_.velocities;
      case SymbolKind::input: return ctx_.inputs;
      case SymbolKind::coordinate:
      case SymbolKind::time: return ctx_.coordinates;
      case SymbolKind::multiplier: return ctx_.multipliers;
      default: return true;
    }
  }

  // A symbol, a definition or point, a frame's unit vector, or a call.
  Value name() {
    size_t start = pos_;
    std::string id = identifier();
    if (pos_ < s_.size() && s_[pos_] == '.') return unit_vector(id, start);
    if (pos_ < s_.size() && s_[pos_] == '\'') {
      ++pos_;
      if (pos_ < s_.size() && s_[pos_] == '\'')
        fail(start, id + "'' is an acceleration; expressions may use coordinates and their velocities only");
      id += '\'';
    }
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == '(' && id.back() != '\'') return call(id, start);
    if (ctx_.locals && ctx_.locals->count(id)) return of(ctx_.locals->at(id));
    auto it = symbols_.by_name.find(id);
    // NAME_dot is NAME', as --init and runs tables spell it: no other name may be NAME_dot (spec_reader.cpp).
    const size_t stem = id.size() - std::min<size_t>(id.size(), 4);
    if (it == symbols_.by_name.end() && stem > 0 && id.compare(stem, 4, "_dot") == 0) {
      auto velocity = symbols_.by_name.find(id.substr(0, stem) + "'");
      if (velocity != symbols_.by_name.end() && velocity->second.kind == SymbolKind::velocity) it = velocity;
    }
    if (it == symbols_.by_name.end()) {
      if (id.back() == '\'') {
        std::string base = id.substr(0, id.size() - 1);
        if (symbols_.by_name.count(base) || scope_.value(base, src_.loc_of(start)))
          fail(start, "'" + base + "' is not a coordinate, so it has no velocity " + id);
      }
      if (functions().count(id) || kVectorFunctions.count(id))
        fail(start, "'" + id + "' is a function: write " + id + "(...)");
      if (const Value *v = scope_.value(id, src_.loc_of(start))) return allowed_value(*v, start, "definition '" + id + "'");
      if (scope_.frame(id, src_.loc_of(start)))
        fail(start, "'" + id + "' is a frame, not a value; its unit vectors are " + id + ".x, " + id + ".y and " + id + ".z");
      fail(start, unknown_name_message(id));
    }
    const SymbolInfo &info = it->second;
    if (!allowed(info.kind)) not_allowed(info, start, "");
    return of(info.ex);
  }

  [[noreturn]] void not_allowed(const SymbolInfo &info, size_t at, const std::string &through) const {
    std::string id = info.spec_name + through;
    std::string only = std::string(", which may depend on ") + ctx_.depends_on + " only";
    switch (info.kind) {
      case SymbolKind::velocity: fail(at, "velocity " + id + " in " + ctx_.what + only);
      case SymbolKind::coordinate: fail(at, "coordinate '" + info.spec_name + "'" + through + " in " + ctx_.what + only);
      case SymbolKind::time: fail(at, std::string("time 't'") + through + " in " + ctx_.what + only);
      case SymbolKind::multiplier:
        fail(at, "multiplier " + id + " in " + ctx_.what + "; multipliers may appear in [outputs] and [events] only");
      default: fail(at, "input '" + info.spec_name + "'" + through + " in " + ctx_.what + "; inputs may appear in forces only");
    }
  }

  // v, if this expression may use every symbol in it; `via` names how they
  // came in ("definition 'v'", "vel").
  Value allowed_value(const Value &v, size_t at, const std::string &via) const {
    std::vector<GiNaC::ex> parts;
    if (v.is_vector) {
      for (auto &[frame, c] : v.vector.terms) parts.insert(parts.end(), c.begin(), c.end());
    } else {
      parts.push_back(v.scalar);
    }
    // has_kind visits a shared subexpression once; ex::has, on the way to
    // the message only, once per use.
    const std::pair<SymbolKind, const std::vector<GiNaC::realsymbol> *> kinds[] = {
        {SymbolKind::coordinate, &symbols_.q}, {SymbolKind::velocity, &symbols_.v}, {SymbolKind::input, &symbols_.u}};
    for (auto &[kind, list] : kinds)
      for (auto &e : parts)
        if (!allowed(kind) && symbols_.has_kind(e, kind))
          for (auto &sym : *list)
            if (e.has(sym)) not_allowed(symbols_.by_name.at(sym.get_name()), at, " (through " + via + ")");
    for (auto &e : parts)
      if (!allowed(SymbolKind::time) && symbols_.has_kind(e, SymbolKind::time))
        not_allowed(symbols_.by_name.at("t"), at, " (through " + via + ")");
    return v;
  }

  // FRAME.x, FRAME.y, FRAME.z
  Value unit_vector(const std::string &frame_name, size_t start) {
    ++pos_;  // '.'
    size_t axis_at = pos_;
    std::string axis = identifier();
    int node = frame_node(frame_name, start);
    if (axis != "x" && axis != "y" && axis != "z")
      fail(axis_at, "a frame's unit vectors are " + frame_name + ".x, " + frame_name + ".y and " + frame_name +
                        ".z (lower case), not " + (axis.empty() ? found() : "'" + frame_name + "." + axis + "'"));
    skip_space();
    return of(Vector::unit(node, axis[0] - 'x'));
  }

  Value call(const std::string &id, size_t start) {
    if (kVectorFunctions.count(id)) return vector_call(id, start);
    auto f = functions().find(id);
    if (f == functions().end())
      fail(start, "unknown function '" + id + "'; the functions are " + function_list());
    size_t open = pos_;
    accept('(');
    std::vector<GiNaC::ex> args;
    if (!accept(')')) {
      do {
        skip_space();
        size_t arg_at = pos_;
        args.push_back(scalar(expr(), arg_at, "an argument of " + id));
      } while (accept(','));
      if (!accept(')')) unclosed(open);
    }
    if (int(args.size()) != f->second.arity)
      fail(start, id + " takes " + std::to_string(f->second.arity) + " argument" +
                      (f->second.arity == 1 ? "" : "s") + ", found " + std::to_string(args.size()));
    return of(evaluated(start, [&] { return f->second.make(args); }));
  }

  // dot(a, b), cross(a, b), norm(a), vel(P), omega(FRAME).
  Value vector_call(const std::string &id, size_t start) {
    const size_t arity = kVectorFunctions.at(id);
    size_t open = pos_;
    accept('(');
    std::vector<Vector> args;
    int frame = -1;
    if (id == "omega") {
      skip_space();
      size_t at = pos_;
      std::string name = identifier();
      if (name.empty()) fail(at, "omega takes the name of a frame, found " + found());
      frame = frame_node(name, at);
      skip_space();
      if (pos_ < s_.size() && s_[pos_] == ',') fail(start, "omega takes 1 argument, the name of a frame");
    } else if (pos_ < s_.size() && s_[pos_] != ')') {
      do {
        skip_space();
        size_t at = pos_;
        args.push_back(vector(expr(), at, "an argument of " + id));
      } while (accept(','));
    }
    if (!accept(')')) unclosed(open);
    if (id != "omega" && args.size() != arity)
      fail(start, id + " takes " + std::to_string(arity) + (arity == 1 ? " vector" : " vectors") + ", found " +
                      std::to_string(args.size()));
    const FrameTree &frames = scope_.frames;
    Value result;
    if (id == "dot") result = of(dot(frames, args[0], args[1]));
    else if (id == "cross") result = of(cross(frames, args[0], args[1]));
    else if (id == "norm") result = of(GiNaC::sqrt(dot(frames, args[0], args[0])));
    else if (id == "omega") result = of(frames.angular_velocity(frame, symbols_));
    else {
      if (has_kind(symbols_, args[0], SymbolKind::velocity))
        fail(start, "vel of a vector with velocities in it would need accelerations; vel takes a position");
      result = of(time_derivative(frames, symbols_, args[0]));
    }
    return allowed_value(result, start, id);
  }
};

}  // namespace


Value read_value(const SourceText &src, Scope &scope, const ExprContext &ctx) { return ExprReader(src, scope, ctx).read(); }

GiNaC::ex read_expression(const SourceText &src, Scope &scope, const ExprContext &ctx) {
  Value v = read_value(src, scope, ctx);
  if (v.is_vector)
    error_at(src.loc_of(0), std::string(ctx.what) + " is a vector, where a scalar is expected; dot(a, b) and norm(a) "
                                                    "make scalars of vectors");
  return v.scalar;
}

Vector read_vector(const SourceText &src, Scope &scope, const ExprContext &ctx) {
  Value v = read_value(src, scope, ctx);
  if (!v.is_vector && v.scalar.is_zero()) return Vector{};  // "0": the zero vector
  if (!v.is_vector)
    error_at(src.loc_of(0), std::string(ctx.what) + " is a scalar, where a vector is expected (such as \"x*N.x + R*A.z\", "
                                                    "or 0 for the zero vector)");
  return v.vector;
}

int read_frame(const SourceText &src, Scope &scope, const ExprContext &ctx) { return ExprReader(src, scope, ctx).frame(); }

}  // namespace lgc
