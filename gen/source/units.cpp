// units.cpp — the spec's [units]: unit strings in the syntax FMI 2.0
// recommends (the Modelica language's, §19.1: "N.m", "m/s2", "rad/s",
// "kg.m2"), read into SI base-unit exponents and a factor where every
// symbol is one this file knows, and the units of a coordinate's velocity
// and acceleration derived from its own.
#include "source/source.h"

#include <cctype>
#include <cmath>
#include <map>

namespace lgc {

namespace {

constexpr double kPi = 3.14159265358979323846;

// The exponents of kg, m, s, A, K, mol, cd, rad (UnitDefinition's order).
using Exponents = std::array<int, 8>;

struct Known {
  Exponents exponents;
  double factor;
};

// The symbols with an SI definition: the base units, the derived units with
// names, and a few others engineers write (deg, rev, min, h, g).
const std::map<std::string, Known> &known_symbols() {
  static const std::map<std::string, Known> symbols = {
      {"m", {{0, 1, 0, 0, 0, 0, 0, 0}, 1}},          {"g", {{1, 0, 0, 0, 0, 0, 0, 0}, 1e-3}},
      {"s", {{0, 0, 1, 0, 0, 0, 0, 0}, 1}},          {"A", {{0, 0, 0, 1, 0, 0, 0, 0}, 1}},
      {"K", {{0, 0, 0, 0, 1, 0, 0, 0}, 1}},          {"mol", {{0, 0, 0, 0, 0, 1, 0, 0}, 1}},
      {"cd", {{0, 0, 0, 0, 0, 0, 1, 0}, 1}},         {"rad", {{0, 0, 0, 0, 0, 0, 0, 1}, 1}},
      {"N", {{1, 1, -2, 0, 0, 0, 0, 0}, 1}},         {"J", {{1, 2, -2, 0, 0, 0, 0, 0}, 1}},
      {"W", {{1, 2, -3, 0, 0, 0, 0, 0}, 1}},         {"Pa", {{1, -1, -2, 0, 0, 0, 0, 0}, 1}},
      {"Hz", {{0, 0, -1, 0, 0, 0, 0, 0}, 1}},        {"C", {{0, 0, 1, 1, 0, 0, 0, 0}, 1}},
      {"V", {{1, 2, -3, -1, 0, 0, 0, 0}, 1}},        {"Ohm", {{1, 2, -3, -2, 0, 0, 0, 0}, 1}},
      {"deg", {{0, 0, 0, 0, 0, 0, 0, 1}, kPi / 180}}, {"rev", {{0, 0, 0, 0, 0, 0, 0, 1}, 2 * kPi}},
      {"min", {{0, 0, 1, 0, 0, 0, 0, 0}, 60}},       {"h", {{0, 0, 1, 0, 0, 0, 0, 0}, 3600}},
  };
  return symbols;
}

// SI prefixes, "da" before "d" so that the longer one is tried first.
const std::vector<std::pair<std::string, double>> kPrefixes = {
    {"Y", 1e24}, {"Z", 1e21}, {"E", 1e18}, {"P", 1e15}, {"T", 1e12}, {"G", 1e9},   {"M", 1e6},
    {"k", 1e3},  {"h", 1e2},  {"da", 1e1}, {"d", 1e-1}, {"c", 1e-2}, {"m", 1e-3},  {"u", 1e-6},
    {"n", 1e-9}, {"p", 1e-12}, {"f", 1e-15}, {"a", 1e-18}, {"z", 1e-21}, {"y", 1e-24}};

// A recursive-descent reader of the grammar
//   unit        = "1" | numerator [ "/" denominator ]
//   numerator   = "1" | factor { "." factor } | "(" unit ")"
//   denominator = factor | "(" unit ")"
//   factor      = symbol [ [ "+" | "-" ] digits ]     symbol = letters
// accumulating the base-unit exponents while every symbol is known.
class UnitReader {
 public:
  explicit UnitReader(const std::string &text) : s_(text) {}

  UnitInfo read() {
    UnitInfo info;
    info.text = s_;
    Value v = unit();
    if (pos_ != s_.size()) fail("unexpected '" + std::string(1, s_[pos_]) + "'");
    info.has_base = v.known;
    info.factor = v.factor;
    info.exponents = v.exponents;
    return info;
  }

  std::string problem;  // why the text is not a unit, or ""

 private:
  struct Value {
    Exponents exponents{};
    double factor = 1;
    bool known = true;
  };
  const std::string &s_;
  size_t pos_ = 0;

  [[noreturn]] void fail(const std::string &why) {
    throw std::invalid_argument(why + " at character " + std::to_string(pos_ + 1));
  }
  bool at(char c) const { return pos_ < s_.size() && s_[pos_] == c; }

  static Value times(Value a, const Value &b, int sign) {
    for (size_t i = 0; i < a.exponents.size(); ++i) a.exponents[i] += sign * b.exponents[i];
    a.factor = sign > 0 ? a.factor * b.factor : a.factor / b.factor;
    a.known = a.known && b.known;
    return a;
  }

  Value unit() {
    Value v = numerator();
    if (at('/')) {
      ++pos_;
      v = times(v, denominator(), -1);
    }
    return v;
  }

  Value numerator() {
    if (at('1')) {
      ++pos_;
      return {};
    }
    if (at('(')) return parenthesised();
    Value v = factor();
    while (at('.')) {
      ++pos_;
      v = times(v, factor(), 1);
    }
    return v;
  }

  Value denominator() { return at('(') ? parenthesised() : factor(); }

  Value parenthesised() {
    ++pos_;
    Value v = unit();
    if (!at(')')) fail("expected ')'");
    ++pos_;
    return v;
  }

  Value factor() {
    size_t start = pos_;
    while (pos_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (pos_ == start) {
      if (pos_ == s_.size()) fail("expected a unit symbol (letters)");
      fail("expected a unit symbol (letters), not '" + std::string(1, s_[pos_]) + "'");
    }
    Value v = symbol(s_.substr(start, pos_ - start));
    int exponent = 1;
    if (at('+') || at('-') || (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])))) {
      int sign = at('-') ? -1 : 1;
      if (at('+') || at('-')) ++pos_;
      size_t digits = pos_;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      if (pos_ == digits) fail("expected the exponent's digits");
      if (pos_ - digits > 2) fail("exponent too large");
      exponent = sign * std::stoi(s_.substr(digits, pos_ - digits));
    }
    Value out;
    for (size_t i = 0; i < out.exponents.size(); ++i) out.exponents[i] = v.exponents[i] * exponent;
    out.factor = std::pow(v.factor, exponent);
    out.known = v.known;
    return out;
  }

  // A symbol as itself, else as a prefix and a symbol ("mm", "kN", "mrad").
  static Value symbol(const std::string &name) {
    auto &symbols = known_symbols();
    if (auto it = symbols.find(name); it != symbols.end()) return {it->second.exponents, it->second.factor, true};
    for (auto &[prefix, scale] : kPrefixes)
      if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0)
        if (auto it = symbols.find(name.substr(prefix.size())); it != symbols.end())
          return {it->second.exponents, it->second.factor * scale, true};
    Value unknown;
    unknown.known = false;
    return unknown;
  }
};

}  // namespace

std::optional<UnitInfo> read_unit(const std::string &text, std::string &problem) {
  if (text.empty()) {
    problem = "empty";
    return std::nullopt;
  }
  UnitReader reader(text);
  try {
    return reader.read();
  } catch (const std::invalid_argument &e) {
    problem = e.what();
    return std::nullopt;
  }
}

std::string unit_per_second(const std::string &unit) {
  if (unit == "1") return "1/s";
  const size_t slash = unit.rfind('/');
  if (slash == std::string::npos && unit.find('(') == std::string::npos) return unit + "/s";
  if (slash != std::string::npos && unit.find(')', slash) == std::string::npos && unit.compare(slash + 1, 1, "s") == 0) {
    const std::string power = unit.substr(slash + 2);
    if (power.empty()) return unit + "2";
    if (power.find_first_not_of("0123456789") == std::string::npos && power.size() < 3)
      return unit.substr(0, slash + 2) + std::to_string(std::stoi(power) + 1);
  }
  return "(" + unit + ")/s";
}

}  // namespace lgc
