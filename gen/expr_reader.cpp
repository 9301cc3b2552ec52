// expr_reader.cpp — a recursive-descent reader for the spec's expressions,
// building GiNaC expressions directly and reporting errors at their position
// in the TOML file. GiNaC's own parser can neither read x' nor say where an
// error is.
#include "lagrangec.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <functional>

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

std::string function_list() {
  std::string s;
  for (auto &f : functions()) s += (s.empty() ? "" : ", ") + f.first;
  return s;
}

class ExprReader {
 public:
  ExprReader(const SourceText &src, const SymbolTable &symbols, const ExprContext &ctx)
      : src_(src), s_(src.text), symbols_(symbols), ctx_(ctx) {}

  GiNaC::ex read() {
    skip_space();
    if (pos_ == s_.size()) fail(pos_, std::string(ctx_.what) + " is empty");
    GiNaC::ex e = expr();
    if (pos_ != s_.size()) {
      if (s_[pos_] == ')') fail(pos_, "unbalanced ')': there is no '(' for it to close");
      fail(pos_, "expected an operator (+ - * / ^) or the end of the expression, found " + found());
    }
    return e;
  }

 private:
  const SourceText &src_;
  const std::string &s_;
  const SymbolTable &symbols_;
  const ExprContext &ctx_;
  size_t pos_ = 0;
  int depth_ = 0;

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
  GiNaC::ex expr() {
    GiNaC::ex e = term();
    for (;;) {
      size_t at = pos_;
      if (accept('+')) {
        GiNaC::ex r = term();
        e = evaluated(at, [&] { return e + r; });
      } else if (accept('-')) {
        GiNaC::ex r = term();
        e = evaluated(at, [&] { return e - r; });
      } else {
        return e;
      }
    }
  }

  // term := unary (('*' | '/') unary)*
  GiNaC::ex term() {
    GiNaC::ex e = unary();
    for (;;) {
      size_t at = pos_;
      if (accept('*')) {
        GiNaC::ex r = unary();
        e = evaluated(at, [&] { return e * r; });
      } else if (accept('/')) {
        at = pos_;
        GiNaC::ex d = unary();
        if (d.is_zero()) fail(at, "division by zero");
        e = evaluated(at, [&] { return e / d; });
      } else {
        return e;
      }
    }
  }

  // unary := ('-' | '+') unary | power
  GiNaC::ex unary() {
    Depth guard(*this, pos_);
    if (accept('-')) return -unary();
    if (accept('+')) return unary();
    return power();
  }

  // power := primary ('^' unary)?        (right-associative; -x^2 is -(x^2))
  GiNaC::ex power() {
    GiNaC::ex base = primary();
    size_t at = pos_;
    if (!accept('^')) return base;
    GiNaC::ex exponent = unary();
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
    return evaluated(at, [&] { return GiNaC::pow(base, exponent); });
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

  // primary := number | name | name "'" | name '(' expr (',' expr)* ')' | '(' expr ')'
  GiNaC::ex primary() {
    skip_space();
    if (pos_ >= s_.size())
      fail(pos_, "expected a number, a name or '(', found the end of the expression");
    char c = s_[pos_];
    if (c == '(') {
      size_t open = pos_;
      accept('(');
      GiNaC::ex e = expr();
      if (!accept(')')) unclosed(open);
      return e;
    }
    if (std::isdigit((unsigned char)c) || c == '.') return number();
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
    skip_space();
    return evaluated(start, [&] { return mantissa * GiNaC::pow(GiNaC::numeric(10), scale); });
  }

  // The names this expression may use, in the spec's order.
  std::vector<std::string> usable_names() const {
    std::vector<std::string> names;
    for (auto *list : {&symbols_.q, &symbols_.v, &symbols_.p, &symbols_.u})
      for (auto &sym : *list) {
        const SymbolInfo &info = symbols_.by_name.at(sym.get_name());
        if (allowed(info.kind)) names.push_back(info.spec_name);
      }
    if (ctx_.coordinates) names.push_back("t");
    names.push_back("pi");
    return names;
  }

  static size_t edit_distance(const std::string &a, const std::string &b) {
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

  std::string unknown_name_message(const std::string &id) const {
    std::string known, closest;
    size_t best = 3;  // suggest only near misses
    for (auto &n : usable_names()) {
      known += (known.empty() ? "" : ", ") + n;
      size_t d = edit_distance(id, n);
      if (d < best && d < id.size()) best = d, closest = n;
    }
    return "unknown name '" + id + "'" + (closest.empty() ? "" : " (did you mean '" + closest + "'?)") +
           "; known names: " + known;
  }

  bool allowed(SymbolKind k) const {
    switch (k) {
      case SymbolKind::velocity: return ctx_.velocities;
      case SymbolKind::input: return ctx_.inputs;
      case SymbolKind::coordinate:
      case SymbolKind::time: return ctx_.coordinates;
      default: return true;
    }
  }

  GiNaC::ex name() {
    size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum((unsigned char)s_[pos_]) || s_[pos_] == '_')) ++pos_;
    std::string id = s_.substr(start, pos_ - start);
    if (pos_ < s_.size() && s_[pos_] == '\'') {
      ++pos_;
      if (pos_ < s_.size() && s_[pos_] == '\'')
        fail(start, id + "'' is an acceleration; expressions may use coordinates and their velocities only");
      id += '\'';
    }
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == '(' && id.back() != '\'') return call(id, start);
    auto it = symbols_.by_name.find(id);
    if (it == symbols_.by_name.end()) {
      if (id.back() == '\'') {
        std::string base = id.substr(0, id.size() - 1);
        if (symbols_.by_name.count(base))
          fail(start, "'" + base + "' is not a coordinate, so it has no velocity " + id);
      }
      if (functions().count(id))
        fail(start, "'" + id + "' is a function: write " + id + "(...)");
      fail(start, unknown_name_message(id));
    }
    const SymbolInfo &info = it->second;
    if (!allowed(info.kind)) {
      std::string only = std::string(", which may depend on ") + ctx_.depends_on + " only";
      switch (info.kind) {
        case SymbolKind::velocity: fail(start, "velocity " + id + " in " + ctx_.what + only);
        case SymbolKind::coordinate: fail(start, "coordinate '" + id + "' in " + ctx_.what + only);
        case SymbolKind::time: fail(start, std::string("time 't' in ") + ctx_.what + only);
        default: fail(start, "input '" + id + "' in " + ctx_.what + "; inputs may appear in forces only");
      }
    }
    return info.ex;
  }

  GiNaC::ex call(const std::string &id, size_t start) {
    auto f = functions().find(id);
    if (f == functions().end())
      fail(start, "unknown function '" + id + "'; the functions are " + function_list());
    size_t open = pos_;
    accept('(');
    std::vector<GiNaC::ex> args;
    if (!accept(')')) {
      do args.push_back(expr());
      while (accept(','));
      if (!accept(')')) unclosed(open);
    }
    if (int(args.size()) != f->second.arity)
      fail(start, id + " takes " + std::to_string(f->second.arity) + " argument" +
                      (f->second.arity == 1 ? "" : "s") + ", found " + std::to_string(args.size()));
    return evaluated(start, [&] { return f->second.make(args); });
  }
};

}  // namespace

bool is_function_name(const std::string &name) { return functions().count(name) > 0; }

GiNaC::ex read_expression(const SourceText &src, const SymbolTable &symbols, const ExprContext &ctx) {
  return ExprReader(src, symbols, ctx).read();
}

}  // namespace lgc
