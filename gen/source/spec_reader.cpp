// spec_reader.cpp — reads a TOML spec into a Spec, checking its shape, types
// and names; expressions stay text (with file positions) for expr_reader.
#include "source/source.h"

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

}  // namespace

const std::vector<std::string> kFunctionNames = {"abs",  "acos",  "asin", "atan", "atan2", "cos",  "cosh",
                                                 "cross", "dot",  "exp",  "log",  "norm",  "omega", "sin",
                                                 "sinh", "sqrt", "tan",  "tanh", "vel"};

bool is_function_name(const std::string &name) {
  return std::binary_search(kFunctionNames.begin(), kFunctionNames.end(), name);
}

namespace {

const std::set<std::string> kTopLevelKeys = {
    "name",          "title",       "coordinates", "parameters", "inputs", "kinetic", "potential",
    "forces",        "constraints", "initial",     "stabilization", "definitions", "frames", "points",
    "gravity",       "bodies",      "particles",   "rolling",       "outputs",     "events",
    "friction",      "urdf",        "units",       "descriptions", "form"};

const std::set<std::string> kEventKeys = {"when", "direction", "action"};
const std::set<std::string> kFrictionKeys = {"slip", "wheel", "normal", "static", "kinetic"};

const std::set<std::string> kBodyKeys = {"mass", "frame", "centre", "inertia", "inertia_frame"};
const std::set<std::string> kParticleKeys = {"mass", "point"};
// The keys of each shape of [rolling.NAME], in WheelSpec::Shape's order,
// and of any shape.
const char *const kShapeNames[] = {"disk", "sphere", "ellipsoid", "support"};
const std::set<std::string> kShapeKeys[] = {
    {"body", "centre", "axle", "radius", "normal", "shape"},
    {"body", "centre", "radius", "normal", "shape"},
    {"body", "centre", "semi_axes", "normal", "shape"},
    {"body", "centre", "support", "normal", "shape"}};
const std::set<std::string> kWheelKeys = [] {
  std::set<std::string> keys;
  for (const auto &shape : kShapeKeys) keys.insert(shape.begin(), shape.end());
  return keys;
}();

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

  // A URDF's declarations come first; the spec's add to them.
  void include(UrdfModel urdf) {
    spec_.urdf_path = urdf.path;
    spec_.urdf_source = std::move(urdf.source);
    spec_.urdf_renamed = std::move(urdf.renamed);
    spec_.coordinates = std::move(urdf.coordinates);
    spec_.parameters = std::move(urdf.parameters);
    spec_.inputs = std::move(urdf.inputs);
    spec_.frames = std::move(urdf.frames);
    spec_.points = std::move(urdf.points);
    spec_.bodies = std::move(urdf.bodies);
    spec_.forces = std::move(urdf.forces);
    spec_.initial_q = std::move(urdf.initial);
    spec_.holonomic = std::move(urdf.holonomic);
    spec_.gravity = std::move(urdf.gravity);
    urdf_robot_ = urdf.robot;
    urdf_loc_ = urdf.loc;
  }

  Spec read() {
    toml::table root;
    try {
      root = toml::parse(spec_.source, spec_.path);
    } catch (const toml::parse_error &e) {
      error_at(loc(e.source().begin), "invalid TOML: " + std::string(e.description()));
    }
    check_keys(root, "", kTopLevelKeys);
    if (const toml::node *u = root.get("urdf")) include_urdf(*u);
    spec_.name = read_name(root);
    spec_.title = optional_string(root, "title").value_or(spec_.name);
    read_coordinates(root);
    read_values(root, "parameters", spec_.parameters);
    read_values(root, "inputs", spec_.inputs);
    read_named_texts(root, "definitions", spec_.definitions);
    read_named_texts(root, "points", spec_.points);
    read_named_texts(root, "frames", spec_.frames);
    if (!root.get("name") && urdf_loc_) spec_.name = unclaimed_prefix(spec_.name);
    check_names();
    if (auto *v = root.get("gravity")) spec_.gravity = expression(*v, "gravity");
    read_bodies(root);
    read_particles(root);
    read_wheels(root);
    read_kinetic(root);
    if (auto *v = root.get("potential")) spec_.potential = expression(*v, "potential");
    read_forces(root);
    read_constraints(root);
    read_friction(root);
    read_initial(root);
    read_stabilization(root);
    read_form(root);
    read_outputs(root);
    read_annotations(root, "units", spec_.units);
    read_annotations(root, "descriptions", spec_.descriptions);
    read_events(root);
    return std::move(spec_);
  }

 private:
  Spec spec_;
  std::vector<size_t> line_start_;  // byte offset of each line
  std::set<std::string> taken_;     // every name declared so far
  std::string urdf_robot_;          // the included URDF's robot, its name an identifier
  std::optional<SourceLoc> urdf_loc_;

  // urdf = "FILE": a path relative to the spec's folder.
  void include_urdf(const toml::node &n) {
    if (!n.is_string()) wrong_type(n, "urdf", "a path (a string)");
    std::filesystem::path file(n.as_string()->get());
    if (file.is_relative()) file = std::filesystem::path(spec_.path).parent_path() / file;
    std::error_code ec;
    if (std::filesystem::exists(file, ec) && !std::filesystem::is_regular_file(file, ec))
      error_at(loc(n), "'urdf' names '" + n.as_string()->get() + "', which is not a regular file");
    include(read_urdf(file.lexically_normal().string(), loc(n), n.as_string()->get()));
  }

  // The robot's name as the model's, lengthened by "_model" while it
  // prefixes a declared name (URDFs name joints "panda_joint1" in robot "panda").
  std::string unclaimed_prefix(std::string name) const {
    auto claimed = [&](const std::string &prefix) {
      for (auto *list : {&spec_.coordinates, &spec_.parameters, &spec_.inputs})
        for (auto &v : *list)
          if (v.name.rfind(prefix + "_", 0) == 0) return true;
      for (auto *list : {&spec_.definitions, &spec_.points, &spec_.frames})
        for (auto &d : *list)
          if (d.name.rfind(prefix + "_", 0) == 0) return true;
      return false;
    };
    while (claimed(name)) name += "_model";
    return name;
  }

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
             "baumgarte_alpha, baumgarte_beta, in_*, out_*, and w, int_g, mu, lambda followed by digits: w0, w1, ..., "
             "pi, pow, sqrt, fabs, copysign)";
    if (name.rfind(spec_.name + "_", 0) == 0)
      return "'" + name + "' starts with the model's prefix '" + spec_.name + "_'";
    if (name == "N") return "'N' is the Newtonian frame, which every spec has; choose another name";
    return "";
  }

  std::string read_name(const toml::table &root) {
    const toml::node *n = root.get("name");
    if (!n && urdf_loc_) return urdf_robot_;
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

  void declare(const NamedValue &v) {
    std::string why = name_problem(v.name);
    if (!why.empty()) error_at(v.loc, why);
    if (!taken_.insert(v.name).second) error_at(v.loc, "the name '" + v.name + "' is declared twice");
  }

  // Every name an expression may use is declared once, whatever declares it.
  void check_names() {
    std::vector<NamedValue> declared;
    for (auto *list : {&spec_.coordinates, &spec_.parameters, &spec_.inputs})
      declared.insert(declared.end(), list->begin(), list->end());
    for (auto *list : {&spec_.definitions, &spec_.points, &spec_.frames})
      for (auto &d : *list) declared.push_back({d.name, 0, d.loc});
    std::sort(declared.begin(), declared.end(), [this](auto &a, auto &b) {  // an included URDF's first
      return std::make_tuple(a.loc.file == spec_.path, a.loc.line, a.loc.col) <
             std::make_tuple(b.loc.file == spec_.path, b.loc.line, b.loc.col);
    });
    for (auto &d : declared) declare(d);
    // A velocity is held in NAME_dot; no other name may be that.
    for (auto &c : spec_.coordinates)
      for (auto &other : declared)
        if (other.name == c.name + "_dot")
          error_at(other.loc, "'" + other.name + "' clashes with the velocity of '" + c.name +
                                  "', which the generated C calls " + c.name + "_dot");
  }

  void read_coordinates(const toml::table &root) {
    const toml::node *n = root.get("coordinates");
    if (!n && urdf_loc_) {
      if (spec_.coordinates.empty()) error_at(*urdf_loc_, "the URDF has no moving joint: a system needs a coordinate");
      return;
    }
    if (!n) error_at(top(), "missing 'coordinates' (a list of names, such as [\"x\", \"y\"])");
    const toml::array *a = n->as_array();
    if (!a) wrong_type(*n, "coordinates", "a list of names");
    if (a->empty() && spec_.coordinates.empty()) error_at(loc(*n), "'coordinates' is empty: a system needs at least one");
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
    size_t included = out.size();
    for (auto &&[k, v] : *t)
      out.push_back({std::string(k.str()), number(v, std::string(k.str())), loc(k.source().begin)});
    in_written_order(out, included);
  }

  // toml++ keeps keys sorted; the spec's order is the order they were written.
  // Items past `first` (those of an included URDF stay first).
  template <class T>
  static void in_written_order(std::vector<T> &items, size_t first = 0) {
    std::sort(items.begin() + first, items.end(), [](auto &a, auto &b) {
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

  // T as written, or "0" when bodies or particles give it all; errors about
  // T then point at the first of them.
  void read_kinetic(const toml::table &root) {
    if (const toml::node *n = root.get("kinetic")) return void(spec_.kinetic = expression(*n, "kinetic"));
    std::vector<SourceLoc> masses;
    for (auto &b : spec_.bodies) masses.push_back(b.loc);
    for (auto &p : spec_.particles) masses.push_back(p.loc);
    if (masses.empty())
      error_at(top(), "missing 'kinetic' (the kinetic energy T, an expression), or [bodies] and [particles] "
                      "to compute it from");
    SourceLoc first = *std::min_element(masses.begin(), masses.end(), [](auto &a, auto &b) {
      return std::tie(a.line, a.col) < std::tie(b.line, b.col);
    });
    spec_.kinetic = SourceText{"0", {first, first}};
  }

  // ---- bodies, frames and wheels ----

  // [definitions], [points], [frames]: name = expression (a number is one too).
  void read_named_texts(const toml::table &root, const std::string &key, std::vector<NamedText> &out) {
    const char *shape = key == "frames"   ? "a rotation sequence from a parent frame (a string such as \"N z(psi) x(phi)\")"
                        : key == "points" ? "a position (a vector expression such as \"x*N.x + R*A.z\")"
                                          : "an expression (a string such as \"m*R^2/2\", or a number)";
    const toml::node *n = root.get(key);
    if (!n) return;
    const toml::table *t = n->as_table();
    if (!t) wrong_type(*n, key, (std::string("a table of name = ") + shape).c_str());
    size_t included = out.size();
    for (auto &&[k, v] : *t) {
      std::string name(k.str());
      if (!v.is_string() && !(v.is_number() && key == "definitions")) wrong_type(v, name, shape);
      out.push_back({name, loc(k.source().begin), expression(v, name)});
    }
    in_written_order(out, included);
  }

  // The subtables of [bodies], [particles] or [rolling], each NAME = {...},
  // in the order written.
  std::vector<std::pair<const toml::key *, const toml::table *>> named_tables(const toml::table &root, const char *key,
                                                                              const char *what) {
    std::vector<std::pair<const toml::key *, const toml::table *>> out;
    const toml::node *n = root.get(key);
    if (!n) return out;
    const toml::table *t = n->as_table();
    if (!t) wrong_type(*n, key, (std::string("a table of [") + key + ".NAME] tables").c_str());
    for (auto &&[k, v] : *t) {
      std::string name(k.str());
      if (!v.is_table())
        error_at(loc(k.source().begin), "'" + name + "' in [" + key + "] must be a table [" + key + "." + name +
                                            "] describing " + what + ", not " + type_name(v));
      if (!is_identifier(name) || name[0] == '_')
        error_at(loc(k.source().begin), "'" + name + "' is not a C identifier (letters, digits and '_', not "
                                        "starting with a digit or '_'): the generated code uses it to name " + what);
      out.push_back({&k, v.as_table()});
    }
    std::sort(out.begin(), out.end(), [](auto &a, auto &b) {
      auto &x = a.first->source().begin, &y = b.first->source().begin;
      return std::tie(x.line, x.column) < std::tie(y.line, y.column);
    });
    return out;
  }

  // Rejects keys outside `known` in [table] (the spec's own, for ""),
  // suggesting the nearest one.
  void check_keys(const toml::table &t, const std::string &table, const std::set<std::string> &known) {
    for (auto &&[k, v] : t) {
      std::string key(k.str());
      if (known.count(key)) continue;
      std::string hint;
      for (auto &good : known)
        if (near_miss(key, good)) hint = " (did you mean '" + good + "'?)";
      error_at(loc(k.source().begin), "unknown key '" + key + "'" + (table.empty() ? "" : " in [" + table + "]") + hint +
                                          (table.empty() ? "; the keys of a spec are " : "; the keys are ") + join(known));
    }
  }

  // One edit apart, or the same letters but for a swapped pair ("center").
  static bool near_miss(const std::string &a, const std::string &b) {
    if (a == b) return false;
    if (a.size() == b.size()) {
      std::vector<size_t> differ;
      for (size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) differ.push_back(i);
      if (differ.size() == 1) return true;
      return differ.size() == 2 && differ[1] == differ[0] + 1 && a[differ[0]] == b[differ[1]] &&
             a[differ[1]] == b[differ[0]];
    }
    const std::string &longer = a.size() > b.size() ? a : b, &shorter = a.size() > b.size() ? b : a;
    if (longer.size() != shorter.size() + 1) return false;
    for (size_t i = 0; i < longer.size(); ++i)
      if (longer.substr(0, i) + longer.substr(i + 1) == shorter) return true;
    return false;
  }

  const toml::node &required(const toml::table &t, const std::string &table, const toml::key &at, const char *key,
                             const char *what) {
    const toml::node *n = t.get(key);
    if (!n) error_at(loc(at.source().begin), "[" + table + "] has no '" + key + "' (" + what + ")");
    return *n;
  }

  NameRef name_ref(const toml::node &n, const std::string &key) {
    if (!n.is_string()) wrong_type(n, key, "a name (a string)");
    return {n.as_string()->get(), loc(n)};
  }

  void read_bodies(const toml::table &root) {
    for (auto [key, t] : named_tables(root, "bodies", "a body")) {
      std::string table = "bodies." + std::string(key->str());
      check_keys(*t, table, kBodyKeys);
      BodySpec b;
      b.name = std::string(key->str());
      b.loc = loc(key->source().begin);
      b.mass = expression(required(*t, table, *key, "mass", "its mass, an expression"), "mass");
      b.frame = name_ref(required(*t, table, *key, "frame", "the name of the frame fixed in it"), "frame");
      b.centre = expression(required(*t, table, *key, "centre", "the position of its centre of mass"), "centre");
      read_inertia(required(*t, table, *key, "inertia",
                            "its inertia about the centre of mass: [Ixx, Iyy, Izz] or the 3 x 3 tensor; "
                            "a point mass belongs in [particles]"),
                   b.inertia);
      if (auto *f = t->get("inertia_frame")) b.inertia_frame = name_ref(*f, "inertia_frame");
      spec_.bodies.push_back(std::move(b));
    }
    check_unique_bodies();
  }

  // [Ixx, Iyy, Izz], or [[Ixx, Ixy, Ixz], [Iyx, Iyy, Iyz], [Izx, Izy, Izz]].
  void read_inertia(const toml::node &n, std::vector<SourceText> &out) {
    const char *shape = "a list of 3 principal moments [Ixx, Iyy, Izz] or 3 rows of the tensor [[Ixx, Ixy, Ixz], ...]";
    const toml::array *a = n.as_array();
    if (!a || a->size() != 3) {
      if (!a) wrong_type(n, "inertia", shape);
      error_at(loc(n), "'inertia' has " + std::to_string(a->size()) + " entries; it must be " + shape);
    }
    bool rows = (*a)[0].is_array();
    for (size_t i = 0; i < 3; ++i) {
      const toml::node &e = (*a)[i];
      if (e.is_array() != rows)
        error_at(loc(e), std::string("'inertia' mixes moments and rows; it must be ") + shape);
      if (!rows) {
        out.push_back(expression(e, "inertia"));
        continue;
      }
      const toml::array *row = e.as_array();
      if (row->size() != 3)
        error_at(loc(e), "row " + std::to_string(i + 1) + " of 'inertia' has " + std::to_string(row->size()) +
                             " entries, not 3");
      for (const toml::node &x : *row) out.push_back(expression(x, "inertia"));
    }
  }

  void read_particles(const toml::table &root) {
    for (auto [key, t] : named_tables(root, "particles", "a particle")) {
      std::string table = "particles." + std::string(key->str());
      check_keys(*t, table, kParticleKeys);
      ParticleSpec p;
      p.name = std::string(key->str());
      p.loc = loc(key->source().begin);
      p.mass = expression(required(*t, table, *key, "mass", "its mass, an expression"), "mass");
      p.point = expression(required(*t, table, *key, "point", "its position, a vector expression"), "point");
      spec_.particles.push_back(std::move(p));
    }
    check_unique_bodies();
  }

  // Bodies and particles share one namespace: a wheel names its body.
  void check_unique_bodies() {
    std::map<std::string, SourceLoc> seen;
    for (auto &b : spec_.bodies) seen.emplace(b.name, b.loc);
    for (auto &p : spec_.particles)
      if (!seen.emplace(p.name, p.loc).second)
        error_at(p.loc, "'" + p.name + "' names both a body and a particle");
  }

  void read_wheels(const toml::table &root) {
    for (auto [key, t] : named_tables(root, "rolling", "a rolling wheel")) {
      std::string table = "rolling." + std::string(key->str());
      check_keys(*t, table, kWheelKeys);
      WheelSpec w;
      w.name = std::string(key->str());
      w.loc = loc(key->source().begin);
      w.shape_loc = w.loc;
      if (const toml::node *shape = t->get("shape")) {
        std::optional<std::string> name = optional_string(*t, "shape");
        w.shape_loc = loc(*shape);
        auto found = std::find(std::begin(kShapeNames), std::end(kShapeNames), *name);
        if (found == std::end(kShapeNames))
          error_at(w.shape_loc, "'shape' = \"" + *name + "\" is not one of disk, sphere, ellipsoid, support" +
                                    did_you_mean_shape(*name));
        w.shape = WheelSpec::Shape(found - std::begin(kShapeNames));
      }
      const std::set<std::string> &keys = kShapeKeys[w.shape];
      std::string shape = kShapeNames[w.shape];
      for (auto &&[k, v] : *t)
        if (!keys.count(std::string(k.str()))) {
          std::string whose;
          for (size_t other = 0; other < std::size(kShapeNames); ++other)
            if (kShapeKeys[other].count(std::string(k.str()))) whose += (whose.empty() ? "" : ", ") + std::string(kShapeNames[other]);
          error_at(loc(k.source().begin), "'" + std::string(k.str()) + "' is a key of " +
                                              (std::string("aeiou").find(whose[0]) == std::string::npos ? "a " : "an ") +
                                              whose + " ([rolling] shape = \"" +
                                              whose.substr(0, whose.find(',')) + "\"); [" + table + "] is a " + shape +
                                              (t->get("shape") ? "" : " (no 'shape': the default)") + ", whose keys are " +
                                              join(keys));
        }
      w.body = name_ref(required(*t, table, *key, "body", "the name of the wheel's body in [bodies]"), "body");
      if (auto *c = t->get("centre")) w.centre = expression(*c, "centre");
      switch (w.shape) {
        case WheelSpec::disk:
          w.axle = expression(required(*t, table, *key, "axle", "the direction of its axle, a vector"), "axle");
          [[fallthrough]];
        case WheelSpec::sphere:
          w.radius = length(required(*t, table, *key, "radius", "its radius, an expression of the parameters"),
                            "radius");
          break;
        case WheelSpec::ellipsoid: {
          const char *shape_of = "a list of the 3 semi-axes [a, b, c] along the body frame's x, y and z axes";
          const toml::node &n = required(*t, table, *key, "semi_axes", shape_of);
          const toml::array *a = n.as_array();
          if (!a) wrong_type(n, "semi_axes", shape_of);
          if (a->size() != 3)
            error_at(loc(n), "'semi_axes' has " + std::to_string(a->size()) + " entries; it must be " + shape_of);
          for (const toml::node &e : *a) w.semi_axes.push_back(length(e, "semi_axes"));
          break;
        }
        case WheelSpec::support: {
          const toml::node &n = required(*t, table, *key, "support",
                                         "the support function h(ux, uy, uz) of the body's surface, an expression");
          if (!n.is_string()) wrong_type(n, "support", "an expression of ux, uy, uz and the parameters (a string)");
          w.support_function = expression(n, "support");
          break;
        }
      }
      w.normal = expression(required(*t, table, *key, "normal", "the normal of the plane it rolls on, a vector"),
                            "normal");
      spec_.wheels.push_back(std::move(w));
    }
  }

  // A radius or a semi-axis: a number or an expression of the parameters.
  SourceText length(const toml::node &n, const std::string &key) {
    if (!n.is_string() && !n.is_number()) wrong_type(n, key, "a number or an expression of the parameters");
    return expression(n, key);
  }

  static std::string did_you_mean_shape(const std::string &name) {
    for (const char *good : kShapeNames)
      if (near_miss(name, good)) return std::string(" (did you mean '") + good + "'?)";
    if (name == "ball") return " (a ball is shape = \"sphere\")";
    if (name == "wheel" || name == "cylinder") return " (a wheel is shape = \"disk\")";
    return "";
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
    for (auto &&[k, v] : *t) {
      std::optional<SourceText> &force = spec_.forces[coordinate_index(k, "forces")];
      force = force ? sum(*force, expression(v, "forces")) : expression(v, "forces");
    }
  }

  // "(a) + (b)", each byte still at its place: a URDF joint's effort and
  // the spec's force on it.
  static SourceText sum(const SourceText &a, const SourceText &b) {
    SourceText s{"(" + a.text + ") + (" + b.text + ")", {}};
    s.locs.push_back(a.loc_of(0));
    s.locs.insert(s.locs.end(), a.locs.begin(), a.locs.end() - 1);
    s.locs.insert(s.locs.end(), 5, b.loc_of(0));
    s.locs.insert(s.locs.end(), b.locs.begin(), b.locs.end() - 1);
    s.locs.push_back(b.locs.back());
    s.locs.push_back(b.locs.back());
    return s;
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
      if (k != "holonomic" && k != "nonholonomic" && k != "contact" && k != "restitution")
        error_at(loc(k.source().begin), "unknown key '" + std::string(k.str()) +
                                            "' in [constraints]; expected holonomic, nonholonomic, contact, "
                                            "restitution");
    read_constraint_list(*t, "holonomic", spec_.holonomic);
    read_constraint_list(*t, "nonholonomic", spec_.nonholonomic);
    read_constraint_list(*t, "contact", spec_.contacts);
    if (const toml::node *e = t->get("restitution")) {
      if (spec_.contacts.empty())
        error_at(loc(*e), "'restitution' without 'contact': it is the coefficient of the contacts' impacts");
      const char *expected = "a number or an expression of the parameters for every contact, or a list of one per "
                             "contact";
      if (const toml::array *a = e->as_array()) {
        if (a->size() != spec_.contacts.size())
          error_at(loc(*e), "'restitution' lists " + std::to_string(a->size()) + " coefficients for " +
                                std::to_string(spec_.contacts.size()) + " contacts: one per contact, or a single one for all");
        for (const toml::node &c : *a) {
          if (!c.is_string() && !c.is_number()) wrong_type(c, "restitution", expected);
          spec_.restitution.push_back(expression(c, "restitution"));
        }
      } else {
        if (!e->is_string() && !e->is_number()) wrong_type(*e, "restitution", expected);
        spec_.restitution.push_back(expression(*e, "restitution"));
      }
    }
  }

  // [initial] holds coordinates by name; its subtable [initial.velocity]
  // holds velocities by coordinate name, and [initial.multiplier] the
  // vakonomic formulation's multipliers mu1, mu2, ... Each value is a number
  // or an expression of the parameters, read by the derivation.
  void read_initial(const toml::table &root) {
    spec_.initial_q.resize(spec_.coordinates.size());
    spec_.initial_v.resize(spec_.coordinates.size());
    spec_.initial_mu.resize(nonholonomic_count());
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

  // Written ones, two no-slip rows per rolling wheel, then the friction contacts' slip rows.
  size_t nonholonomic_count() const {
    size_t slips = 0;
    for (auto &f : spec_.friction) slips += f.slip.size();
    return spec_.nonholonomic.size() + 2 * spec_.wheels.size() + slips;
  }

  size_t multiplier_index(const toml::key &k) const {
    std::string name(k.str());
    size_t count = nonholonomic_count();
    for (size_t j = 0; j < count; ++j)
      if (name == "mu" + std::to_string(j + 1)) return j;
    error_at(loc(k.source().begin),
             "'" + name + "' in [initial.multiplier] is not a multiplier; the spec has " +
                 (count ? "mu1 to mu" + std::to_string(count) + ", one per nonholonomic constraint"
                        : std::string("no nonholonomic constraints")));
  }

  // The CSV's columns t, the coordinates and their velocities are names
  // too; the others hold a '[', a ' or a '+', which no output's name can.
  std::string output_name_problem(const std::string &name) const {
    if (!is_identifier(name))
      return "'" + name + "' is not a C identifier (letters, digits and '_', not starting with a digit): it names "
             "a CSV column";
    if (name == "t") return "'t' is the CSV's time column; choose another name for the output";
    for (auto &c : spec_.coordinates)
      if (c.name == name) return "'" + name + "' is a coordinate, whose CSV column it would repeat";
    return "";
  }

  // [outputs] NAME = "EXPR": CSV columns, one each, in the order written.
  void read_outputs(const toml::table &root) {
    read_named_texts(root, "outputs", spec_.outputs);  // TOML refuses a key written twice
    for (auto &o : spec_.outputs) {
      std::string why = output_name_problem(o.name);
      if (!why.empty()) error_at(o.loc, why);
    }
  }

  // [units] NAME = "UNIT" and [descriptions] NAME = "TEXT": for the spec's
  // coordinates, parameters, inputs and outputs (a velocity's unit is its
  // coordinate's per second). TOML refuses a name written twice.
  void read_annotations(const toml::table &root, const char *key, std::vector<Annotation> &out) {
    const bool units = std::string(key) == "units";
    const char *shape = units ? "a unit (a string such as \"m\", \"rad/s\" or \"N.m\")"
                              : "a description (a string)";
    const toml::node *n = root.get(key);
    if (!n) return;
    const toml::table *t = n->as_table();
    if (!t) wrong_type(*n, key, (std::string("a table of name = ") + shape).c_str());
    for (auto &&[k, v] : *t) {
      std::string name(k.str());
      SourceLoc at = loc(k.source().begin);
      std::string why = annotated_name_problem(name, key);
      if (!why.empty()) error_at(at, why);
      if (!v.is_string()) wrong_type(v, name, shape);
      std::string text = v.as_string()->get();
      if (units && text.empty()) {
        error_at(loc(v), "the unit of '" + name + "' is empty; leave the entry out for none (\"1\" is dimensionless)");
      } else if (units) {
        std::string problem;
        if (!read_unit(text, problem))
          error_at(loc(v), "'" + name + "' = \"" + text + "\" is not a unit in FMI 2.0's syntax (" + problem +
                               "): symbols of letters joined by '.', each with an integer exponent, one '/' "
                               "and parentheses, such as \"m\", \"kg.m2\", \"m/s2\", \"N.m\", \"1/s\"");
      } else if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
        error_at(loc(v), "the description of '" + name + "' is empty; write one or leave the entry out");
      }
      out.push_back({name, at, text});
    }
    in_written_order(out);
  }

  // Why `name` cannot have a unit or description, or "".
  std::string annotated_name_problem(const std::string &name, const char *table) const {
    for (auto *list : {&spec_.coordinates, &spec_.parameters, &spec_.inputs})
      for (auto &v : *list)
        if (v.name == name) return "";
    for (auto &o : spec_.outputs)
      if (o.name == name) return "";
    const std::string in = "'" + name + "' in [" + table + "]";
    if (!name.empty() && name.back() == '\'') {
      std::string base = name.substr(0, name.size() - 1);
      for (auto &c : spec_.coordinates)
        if (c.name == base)
          return in + " is a velocity: " + (std::string(table) == "units"
                                                ? "its unit is its coordinate's per second, give '" + base + "' one"
                                                : "its description is its coordinate's, give '" + base + "' one");
    }
    for (auto *list : {&spec_.definitions, &spec_.points, &spec_.frames})
      for (auto &d : *list)
        if (d.name == name)
          return in + " is a definition, point or frame, not a variable of the model; only coordinates, "
                      "parameters, inputs and outputs have one";
    std::set<std::string> known;
    for (auto *list : {&spec_.coordinates, &spec_.parameters, &spec_.inputs})
      for (auto &v : *list) known.insert(v.name);
    for (auto &o : spec_.outputs) known.insert(o.name);
    return in + " is not a coordinate, parameter, input or output of the spec; they are " +
           (known.empty() ? std::string("none") : join(known));
  }

  // [events.NAME]: when = "EXPR", direction = rising|falling|both (default
  // both), action = record|stop (default record).
  void read_events(const toml::table &root) {
    for (auto [key, t] : named_tables(root, "events", "an event")) {
      std::string table = "events." + std::string(key->str());
      check_keys(*t, table, kEventKeys);
      EventSpec e;
      e.name = std::string(key->str());
      e.loc = loc(key->source().begin);
      e.when = expression(required(*t, table, *key, "when", "the expression whose zero is the event"), "when");
      if (auto direction = optional_string(*t, "direction")) {
        static const std::map<std::string, EventSpec::Direction> kDirections = {
            {"rising", EventSpec::rising}, {"falling", EventSpec::falling}, {"both", EventSpec::both}};
        auto found = kDirections.find(*direction);
        if (found == kDirections.end())
          error_at(loc(*t->get("direction")), "'direction' = \"" + *direction +
                                                  "\" is not one of rising, falling, both");
        e.direction = found->second;
      }
      if (auto action = optional_string(*t, "action")) {
        if (*action != "record" && *action != "stop")
          error_at(loc(*t->get("action")), "'action' = \"" + *action + "\" is not one of record, stop");
        e.stop = *action == "stop";
      }
      spec_.events.push_back(std::move(e));
    }
  }

  // [friction.NAME]: slip = "EXPR" or a list of one or two (or wheel =
  // "WHEEL", a [rolling] wheel's no-slip rows), normal = "EXPR", static =
  // mu_s, kinetic = mu_k (default mu_s). NAME names CSV columns
  // (g[NAME], mode[NAME]) and events (slide[NAME], stick[NAME]).
  void read_friction(const toml::table &root) {
    for (auto [key, t] : named_tables(root, "friction", "a friction contact")) {
      std::string table = "friction." + std::string(key->str());
      check_keys(*t, table, kFrictionKeys);
      FrictionSpec f;
      f.name = std::string(key->str());
      f.loc = loc(key->source().begin);
      const char *slip_shape = "the slip velocity, an expression linear in the velocities, or a list of two "
                               "(the slip along two tangents of a spatial contact)";
      const toml::node *wheel = t->get("wheel"), *slip = t->get("slip");
      if (wheel && slip)
        error_at(loc(*wheel), "[" + table + "] has both 'wheel' and 'slip': a wheel's slip is its no-slip rows'; "
                              "give one of them");
      if (!wheel && !slip)
        error_at(loc(key->source().begin), "[" + table + "] has no 'slip' (its slip velocity, or a list of two) "
                                               "and no 'wheel' (a [rolling] wheel whose no-slip rows slip)");
      if (wheel) {
        f.wheel = name_ref(*wheel, "wheel");
      } else if (const toml::array *a = slip->as_array()) {
        if (a->empty() || a->size() > 2)
          error_at(loc(*slip), "'slip' lists " + std::to_string(a->size()) + " expressions; it must be " + slip_shape);
        for (const toml::node &e : *a) {
          if (!e.is_string()) wrong_type(e, "slip", slip_shape);
          f.slip.push_back(expression(e, "slip"));
        }
      } else {
        if (!slip->is_string()) wrong_type(*slip, "slip", slip_shape);
        f.slip.push_back(expression(*slip, "slip"));
      }
      const char *coefficient = "a number or an expression of the parameters";
      auto read_coefficient = [&](const toml::node &n, const char *name) {
        if (!n.is_string() && !n.is_number()) wrong_type(n, name, coefficient);
        return expression(n, name);
      };
      const toml::node &normal = required(*t, table, *key, "normal",
                                          "the normal force, an expression of the state and the multipliers: "
                                          "\"lambda1\" for the first holonomic row's");
      if (!normal.is_string() && !normal.is_number())
        wrong_type(normal, "normal", "an expression of the state and the multipliers");
      f.normal = expression(normal, "normal");
      f.mu_static = read_coefficient(required(*t, table, *key, "static", "the static friction coefficient"), "static");
      if (const toml::node *k = t->get("kinetic")) f.mu_kinetic = read_coefficient(*k, "kinetic");
      spec_.friction.push_back(std::move(f));
    }
  }

  // form = "recursion" | "dense": rhs's form, where the generator would otherwise count operations.
  void read_form(const toml::table &root) {
    const toml::node *n = root.get("form");
    if (!n) return;
    std::optional<std::string> form = optional_string(root, "form");
    if (*form != "recursion" && *form != "dense")
      error_at(loc(*n), "'form' must be \"recursion\" (the articulated-body recursion) or \"dense\" (M and its "
                        "solve), not '" + *form + "'; without it the generator counts operations");
    spec_.form = *form;
    spec_.form_loc = loc(*n);
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

static bool is_urdf_path(const std::string &path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".urdf") == 0;
}

// A URDF is read as the spec `urdf = "FILE"` with nothing added.
Spec read_spec_text(const std::string &path, const std::string &text) {
  if (!is_urdf_path(path)) return Reader(path, text).read();
  Reader urdf_only(path, "");
  urdf_only.include(read_urdf_text(path, text));
  return urdf_only.read();
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
