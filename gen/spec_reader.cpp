// spec_reader.cpp — reads a TOML spec into a Spec, checking its shape, types
// and names; expressions stay text (with file positions) for expr_reader.
#include "lagrangec.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

namespace lgc {

namespace {

// A parameter default or initial value larger than this is a typo, not physics.
constexpr double kLargestValue = 1e30;

const std::set<std::string> kTopLevelKeys = {
    "name",      "title",  "coordinates", "parameters", "inputs",       "kinetic",
    "potential", "forces", "constraints", "initial",    "stabilization"};

const std::set<std::string> kCKeywords = {
    "auto",     "break",    "case",     "char",       "const",     "continue", "default",
    "do",       "double",   "else",     "enum",       "extern",    "float",    "for",
    "goto",     "if",       "inline",   "int",        "long",      "register", "restrict",
    "return",   "short",    "signed",   "sizeof",     "static",    "struct",   "switch",
    "typedef",  "union",    "unsigned", "void",       "volatile",  "while",    "_Bool",
    "_Complex", "_Imaginary", "_Alignas", "_Alignof", "_Atomic",   "_Generic", "_Noreturn",
    "_Static_assert", "_Thread_local", "bool", "true", "false", "NULL"};

// Identifiers the generated C declares inside its functions (grep tag:
// GENERATED-NAMES, kept in step with plan.cpp), and what it emits from <math.h>.
const std::set<std::string> kGeneratedNames = {
    "state", "input", "param", "work", "baumgarte_alpha", "baumgarte_beta",
    "pow", "sqrt", "fabs", "copysign", "pi"};

class Reader {
 public:
  Reader(std::string path, std::string text) {
    spec_.path = std::move(path);
    spec_.source = std::move(text);
    index_lines();
  }

  Spec read() {
    toml::table root;
    try {
      root = toml::parse(spec_.source, spec_.path);
    } catch (const toml::parse_error &e) {
      error_at(loc(e.source().begin), "invalid TOML: " + std::string(e.description()));
    }
    for (auto &&[key, value] : root)
      if (!kTopLevelKeys.count(std::string(key.str())))
        error_at(loc(key.source().begin), "unknown key '" + std::string(key.str()) +
                                              "'; the keys of a spec are " + join(kTopLevelKeys));
    spec_.name = read_name(root);
    spec_.title = optional_string(root, "title").value_or(spec_.name);
    read_coordinates(root);
    read_values(root, "parameters", spec_.parameters);
    read_values(root, "inputs", spec_.inputs);
    check_names();
    spec_.kinetic = required_expression(root, "kinetic");
    if (auto *v = root.get("potential")) spec_.potential = expression(*v, "potential");
    read_forces(root);
    read_constraints(root);
    read_initial(root);
    read_stabilization(root);
    return std::move(spec_);
  }

 private:
  Spec spec_;
  std::vector<size_t> line_start_;  // byte offset of each line
  std::set<std::string> taken_;     // every name declared so far

  void index_lines() {
    line_start_.push_back(0);
    for (size_t i = 0; i < spec_.source.size(); ++i)
      if (spec_.source[i] == '\n') line_start_.push_back(i + 1);
  }

  SourceLoc loc(const toml::source_position &p) const {
    if (!p) return {spec_.path, 1, 1};
    return {spec_.path, int(p.line), int(p.column)};
  }
  SourceLoc loc(const toml::node &n) const { return loc(n.source().begin); }
  SourceLoc top() const { return {spec_.path, 1, 1}; }

  static std::string join(const std::set<std::string> &names) {
    std::string s;
    for (auto &n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
  }

  static const char *type_name(const toml::node &n) {
    switch (n.type()) {
      case toml::node_type::string: return "a string";
      case toml::node_type::integer: return "an integer";
      case toml::node_type::floating_point: return "a number";
      case toml::node_type::boolean: return "a boolean";
      case toml::node_type::array: return "a list";
      case toml::node_type::table: return "a table";
      default: return "a date or time";
    }
  }

  [[noreturn]] void wrong_type(const toml::node &n, const std::string &key, const char *expected) {
    error_at(loc(n), "'" + key + "' must be " + expected + ", not " + type_name(n));
  }

  std::optional<std::string> optional_string(const toml::table &t, const char *key) {
    const toml::node *n = t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_string()) wrong_type(*n, key, "a string");
    return n->as_string()->get();
  }

  double number(const toml::node &n, const std::string &what) {
    double v;
    if (auto *i = n.as_integer()) v = double(i->get());
    else if (auto *f = n.as_floating_point()) v = f->get();
    else wrong_type(n, what, "a number");
    if (!std::isfinite(v)) error_at(loc(n), "'" + what + "' must be a finite number");
    if (std::fabs(v) > kLargestValue) {
      std::ostringstream s;
      s << "'" << what << "' = " << v << " is out of range (|value| <= 1e30)";
      error_at(loc(n), s.str());
    }
    return v;
  }

  // ---- names ----

  static bool is_identifier(const std::string &s) {
    if (s.empty() || !(std::isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
    for (unsigned char c : s)
      if (!(std::isalnum(c) || c == '_')) return false;
    return true;
  }

  // Why `name` cannot be used for a coordinate, parameter or input, or "".
  std::string name_problem(const std::string &name) const {
    if (!is_identifier(name))
      return "'" + name + "' is not a C identifier (letters, digits and '_', not starting with a digit)";
    if (name[0] == '_') return "'" + name + "' starts with '_', which C reserves";
    if (name == "t") return "'t' is time and cannot be declared";
    if (kCKeywords.count(name)) return "'" + name + "' is a C keyword";
    if (is_function_name(name)) return "'" + name + "' is the name of a function";
    auto numbered = [&](const std::string &stem) {
      return name.size() > stem.size() && name.rfind(stem, 0) == 0 &&
             name.find_first_not_of("0123456789", stem.size()) == std::string::npos;
    };
    if (kGeneratedNames.count(name) || name.rfind("out_", 0) == 0 || name.rfind("in_", 0) == 0 || numbered("w") ||
        numbered("int_g") || numbered("mu") || numbered("lambda"))
      return "'" + name + "' is reserved: the generated C uses it (state, input, param, work, "
             "baumgarte_alpha, baumgarte_beta, in_*, out_*, w1, w2, ..., int_g1, ..., mu1, ..., lambda1, ..., "
             "pi, pow, sqrt, fabs, copysign)";
    if (name.rfind(spec_.name + "_", 0) == 0)
      return "'" + name + "' starts with the model's prefix '" + spec_.name + "_'";
    return "";
  }

  std::string read_name(const toml::table &root) {
    const toml::node *n = root.get("name");
    if (!n) error_at(top(), "missing 'name' (a C identifier that prefixes every generated symbol)");
    if (!n->is_string()) wrong_type(*n, "name", "a string");
    std::string name = n->as_string()->get();
    if (!is_identifier(name) || name[0] == '_')
      error_at(loc(*n), "'name' must be a C identifier not starting with '_', not '" + name + "'");
    if (kCKeywords.count(name)) error_at(loc(*n), "'name' is a C keyword: '" + name + "'");
    auto is_or_prefixes = [&](const std::string &stem) { return name == stem || name.rfind(stem + "_", 0) == 0; };
    // The model's program (simulate's main.c, beside NAME.c) and the runtime
    // it links (lgc_*, header guards LAGRANGEC_*_H) own these names.
    if (name == "main" || is_or_prefixes("lgc") || is_or_prefixes("lagrangec"))
      error_at(loc(*n), "'name' = '" + name + "' would clash with the model's program or the runtime, which use "
                            "main, lgc, lgc_*, lagrangec and lagrangec_*");
    return name;
  }

  void declare(const NamedValue &v, const char *kind) {
    std::string why = name_problem(v.name);
    if (!why.empty()) error_at(v.loc, why);
    if (!taken_.insert(v.name).second) error_at(v.loc, "the name '" + v.name + "' is declared twice");
    (void)kind;
  }

  void check_names() {
    for (auto &c : spec_.coordinates) declare(c, "coordinate");
    for (auto &p : spec_.parameters) declare(p, "parameter");
    for (auto &u : spec_.inputs) declare(u, "input");
    // A velocity is held in NAME_dot; no other name may be that.
    for (auto &c : spec_.coordinates)
      for (auto *list : {&spec_.coordinates, &spec_.parameters, &spec_.inputs})
        for (auto &other : *list)
          if (other.name == c.name + "_dot")
            error_at(other.loc, "'" + other.name + "' clashes with the velocity of '" + c.name +
                                    "', which the generated C calls " + c.name + "_dot");
  }

  void read_coordinates(const toml::table &root) {
    const toml::node *n = root.get("coordinates");
    if (!n) error_at(top(), "missing 'coordinates' (a list of names, such as [\"x\", \"y\"])");
    const toml::array *a = n->as_array();
    if (!a) wrong_type(*n, "coordinates", "a list of names");
    if (a->empty()) error_at(loc(*n), "'coordinates' is empty: a system needs at least one");
    for (const toml::node &e : *a) {
      if (!e.is_string()) error_at(loc(e), std::string("a coordinate must be a name (a string), not ") + type_name(e));
      spec_.coordinates.push_back({e.as_string()->get(), 0, loc(e)});
    }
  }

  void read_values(const toml::table &root, const char *key, std::vector<NamedValue> &out) {
    const toml::node *n = root.get(key);
    if (!n) return;
    const toml::table *t = n->as_table();
    if (!t) wrong_type(*n, key, "a table of name = value");
    for (auto &&[k, v] : *t)
      out.push_back({std::string(k.str()), number(v, std::string(k.str())), loc(k.source().begin)});
    // toml++ keeps keys sorted; the spec's order is the order they were written.
    std::sort(out.begin(), out.end(), [](auto &a, auto &b) {
      return std::tie(a.loc.line, a.loc.col) < std::tie(b.loc.line, b.loc.col);
    });
  }

  // ---- expressions ----

  // Byte offset in the source of a 1-based (line, column in code points).
  size_t offset_of(const toml::source_position &p) const {
    const std::string &src = spec_.source;
    size_t i = line_start_.at(p.line - 1);
    for (unsigned col = 1; col < p.column && i < src.size(); ++col) {
      ++i;
      while (i < src.size() && (static_cast<unsigned char>(src[i]) & 0xC0) == 0x80) ++i;
    }
    return i;
  }

  // Decodes the TOML string literal that starts at `begin`, recording where
  // each decoded byte came from, so errors point at the right column even
  // after escapes and line breaks.
  SourceText string_text(const toml::node &n) {
    const std::string &src = spec_.source;
    SourceText out;
    size_t i = offset_of(n.source().begin);
    int line = int(n.source().begin.line), col = int(n.source().begin.column);
    auto here = [&] { return SourceLoc{spec_.path, line, col}; };
    auto advance = [&](size_t bytes) {
      for (size_t k = 0; k < bytes && i < src.size(); ++k, ++i) {
        if (src[i] == '\n') { ++line; col = 1; }
        else if ((static_cast<unsigned char>(src[i]) & 0xC0) != 0x80) ++col;
      }
    };
    char quote = src[i];
    bool multi = src.compare(i, 3, std::string(3, quote)) == 0;
    advance(multi ? 3 : 1);
    if (multi && src[i] == '\n') advance(1);  // TOML trims the first newline
    const std::string close = multi ? std::string(3, quote) : std::string(1, quote);
    while (i < src.size() && src.compare(i, close.size(), close) != 0) {
      if (quote == '"' && src[i] == '\\') {
        SourceLoc at = here();
        char c = src[i + 1];
        if (multi && (c == '\n' || c == ' ' || c == '\t' || c == '\r')) {
          advance(1);  // line-ending backslash: skip all following whitespace
          while (i < src.size() && std::isspace((unsigned char)src[i])) advance(1);
          continue;
        }
        static const std::map<char, char> simple = {{'b', '\b'}, {'t', '\t'}, {'n', '\n'},
                                                    {'f', '\f'}, {'r', '\r'}, {'"', '"'},
                                                    {'\\', '\\'}};
        if (simple.count(c)) {
          out.text += simple.at(c);
          out.locs.push_back(at);
          advance(2);
        } else {  // \uXXXX, \UXXXXXXXX: only in names, never valid in an expression
          out.text += '?';
          out.locs.push_back(at);
          advance(c == 'u' ? 6 : 10);
        }
        continue;
      }
      out.text += src[i];
      out.locs.push_back(here());
      advance(1);
    }
    out.locs.push_back(here());
    return out;
  }

  SourceText expression(const toml::node &n, const std::string &key) {
    if (n.is_string()) {
      // toml++ has decoded it; our decoding must agree, or positions would lie.
      SourceText s = string_text(n);
      if (s.text != n.as_string()->get()) {
        s.text = n.as_string()->get();
        s.locs.assign(s.text.size() + 1, loc(n));
      }
      return s;
    }
    if (n.is_number()) {
      std::ostringstream s;
      s.precision(17);
      s << number(n, key);
      SourceText out{s.str(), {}};
      out.locs.assign(out.text.size() + 1, loc(n));
      return out;
    }
    wrong_type(n, key, "an expression (a string such as \"m*x'^2/2\", or a number)");
  }

  SourceText required_expression(const toml::table &root, const char *key) {
    const toml::node *n = root.get(key);
    if (!n) error_at(top(), std::string("missing '") + key + "' (the kinetic energy T, an expression)");
    return expression(*n, key);
  }

  int coordinate_index(const toml::key &k, const char *table) const {
    for (size_t i = 0; i < spec_.coordinates.size(); ++i)
      if (spec_.coordinates[i].name == k.str()) return int(i);
    std::string known;
    for (auto &c : spec_.coordinates) known += (known.empty() ? "" : ", ") + c.name;
    error_at(loc(k.source().begin), "'" + std::string(k.str()) + "' in [" + table +
                                        "] is not a coordinate; the coordinates are " + known);
  }

  void read_forces(const toml::table &root) {
    spec_.forces.resize(spec_.coordinates.size());
    const toml::node *n = root.get("forces");
    if (!n) return;
    const toml::table *t = n->as_table();
    if (!t) wrong_type(*n, "forces", "a table of coordinate = generalised force");
    for (auto &&[k, v] : *t) spec_.forces[coordinate_index(k, "forces")] = expression(v, "forces");
  }

  void read_constraint_list(const toml::table &t, const char *key, std::vector<SourceText> &out) {
    const toml::node *n = t.get(key);
    if (!n) return;
    const toml::array *a = n->as_array();
    if (!a) wrong_type(*n, key, "a list of expressions");
    for (const toml::node &e : *a) out.push_back(expression(e, key));
  }

  void read_constraints(const toml::table &root) {
    const toml::node *n = root.get("constraints");
    if (!n) return;
    const toml::table *t = n->as_table();
    if (!t) wrong_type(*n, "constraints", "a table with 'holonomic' and 'nonholonomic' lists");
    for (auto &&[k, v] : *t)
      if (k != "holonomic" && k != "nonholonomic")
        error_at(loc(k.source().begin), "unknown key '" + std::string(k.str()) +
                                            "' in [constraints]; expected holonomic, nonholonomic");
    read_constraint_list(*t, "holonomic", spec_.holonomic);
    read_constraint_list(*t, "nonholonomic", spec_.nonholonomic);
  }

  // [initial] holds coordinates by name; its subtable [initial.velocity]
  // holds velocities by coordinate name, and [initial.multiplier] the
  // vakonomic formulation's multipliers mu1, mu2, ... Each value is a number
  // or an expression of the parameters, read by the derivation.
  void read_initial(const toml::table &root) {
    spec_.initial_q.resize(spec_.coordinates.size());
    spec_.initial_v.resize(spec_.coordinates.size());
    spec_.initial_mu.resize(spec_.nonholonomic.size());
    const toml::node *n = root.get("initial");
    if (!n) return;
    const toml::table *t = n->as_table();
    if (!t) wrong_type(*n, "initial", "a table of coordinate = value");
    for (auto &&[k, v] : *t) {
      if (k == "velocity" && v.is_table()) {
        for (auto &&[kv, vv] : *v.as_table())
          spec_.initial_v[coordinate_index(kv, "initial.velocity")] = initial_value(vv, std::string(kv.str()) + "'");
        continue;
      }
      if (k == "multiplier" && v.is_table()) {
        for (auto &&[km, vm] : *v.as_table())
          spec_.initial_mu[multiplier_index(km)] = initial_value(vm, std::string(km.str()));
        continue;
      }
      spec_.initial_q[coordinate_index(k, "initial")] = initial_value(v, std::string(k.str()));
    }
  }

  SourceText initial_value(const toml::node &n, const std::string &key) {
    if (!n.is_string() && !n.is_number())
      wrong_type(n, key, "a number or an expression of the parameters (a string such as \"l*sin(0.3)\")");
    return expression(n, key);
  }

  size_t multiplier_index(const toml::key &k) const {
    std::string name(k.str());
    size_t count = spec_.nonholonomic.size();
    for (size_t j = 0; j < count; ++j)
      if (name == "mu" + std::to_string(j + 1)) return j;
    error_at(loc(k.source().begin),
             "'" + name + "' in [initial.multiplier] is not a multiplier; the spec has " +
                 (count ? "mu1 to mu" + std::to_string(count) + ", one per nonholonomic constraint"
                        : std::string("no nonholonomic constraints")));
  }

  void read_stabilization(const toml::table &root) {
    const toml::node *n = root.get("stabilization");
    if (!n) return;
    const toml::table *t = n->as_table();
    if (!t) wrong_type(*n, "stabilization", "a table with alpha and beta");
    for (auto &&[k, v] : *t) {
      if (k != "alpha" && k != "beta")
        error_at(loc(k.source().begin), "unknown key '" + std::string(k.str()) +
                                            "' in [stabilization]; expected alpha, beta");
      double x = number(v, std::string(k.str()));
      if (x < 0) error_at(loc(v), "'" + std::string(k.str()) + "' must be >= 0: a negative gain makes the constraint error grow");
      (k == "alpha" ? spec_.alpha : spec_.beta) = x;
    }
  }
};

}  // namespace

Spec read_spec_text(const std::string &path, const std::string &text) {
  return Reader(path, text).read();
}

Spec read_spec(const std::string &path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) error_at({path, 0, 0}, "is a directory, not a spec file");
  std::ifstream in(path, std::ios::binary);
  if (!in) error_at({path, 0, 0}, std::string("cannot read the file: ") + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  return read_spec_text(path, s.str());
}

}  // namespace lgc
