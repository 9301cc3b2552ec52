// expression_text.cpp — an expression (and a number) back in the spec's own syntax, for
// messages that suggest what to write ("x - y"). GiNaC's term order changes
// from run to run, so terms and factors are sorted by their text.
#include "expressions/expressions.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace lgc {

namespace {

using GiNaC::ex;

std::string integer_text(const GiNaC::numeric &n) {
  std::ostringstream s;
  s << n;
  return s.str();
}

std::string number_text(const GiNaC::numeric &n) {
  if (n.is_rational()) return integer_text(n.numer()) + (n.is_integer() ? "" : "/" + integer_text(n.denom()));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", n.to_double());
  return buf;
}

std::string text(const ex &e);

// An operand of a product or a power, in parentheses unless it is atomic.
std::string operand(const ex &e) {
  bool atomic = GiNaC::is_a<GiNaC::symbol>(e) || GiNaC::is_a<GiNaC::function>(e) || GiNaC::is_a<GiNaC::constant>(e) ||
                (GiNaC::is_a<GiNaC::numeric>(e) && GiNaC::ex_to<GiNaC::numeric>(e).is_nonneg_integer());
  return atomic ? text(e) : "(" + text(e) + ")";
}

// A term as its sign and its magnitude's text: -2*x is (true, "2*x").
std::pair<bool, std::string> signed_term(const ex &e) {
  GiNaC::numeric coef = 1;
  std::vector<std::string> num, den;
  auto factor = [&](const ex &f) {
    if (GiNaC::is_a<GiNaC::numeric>(f)) {
      coef *= GiNaC::ex_to<GiNaC::numeric>(f);
    } else if (GiNaC::is_a<GiNaC::power>(f) && f.op(1).info(GiNaC::info_flags::negint)) {
      ex inverse = GiNaC::pow(f.op(0), -f.op(1));
      den.push_back(operand(inverse));
    } else {
      num.push_back(GiNaC::is_a<GiNaC::add>(f) ? "(" + text(f) + ")" : text(f));
    }
  };
  if (GiNaC::is_a<GiNaC::mul>(e))
    for (size_t i = 0; i < e.nops(); ++i) factor(e.op(i));
  else
    factor(e);
  bool negative = coef.is_negative();
  coef = GiNaC::abs(coef);
  std::sort(num.begin(), num.end());
  std::sort(den.begin(), den.end());
  if (coef.is_rational() && coef.denom() != 1) {
    den.insert(den.begin(), integer_text(coef.denom()));
    coef = coef.numer();
  }
  std::string s;
  if (coef != 1 || num.empty()) s = number_text(coef);
  for (auto &f : num) s += (s.empty() ? "" : "*") + f;
  if (den.size() == 1) s += "/" + den[0];
  if (den.size() > 1) {
    std::string d;
    for (auto &f : den) d += (d.empty() ? "" : "*") + f;
    s += "/(" + d + ")";
  }
  return {negative, s};
}

std::string text(const ex &e) {
  if (GiNaC::is_a<GiNaC::numeric>(e)) {
    auto [negative, s] = signed_term(e);
    return (negative ? "-" : "") + s;
  }
  if (GiNaC::is_a<GiNaC::symbol>(e)) return GiNaC::ex_to<GiNaC::symbol>(e).get_name();
  if (GiNaC::is_a<GiNaC::constant>(e)) return "pi";
  if (GiNaC::is_a<GiNaC::add>(e)) {
    std::vector<std::pair<std::string, bool>> terms;
    for (size_t i = 0; i < e.nops(); ++i) {
      auto [negative, s] = signed_term(e.op(i));
      terms.push_back({s, negative});
    }
    std::sort(terms.begin(), terms.end());
    std::string s;
    for (auto &[t, negative] : terms)
      s += s.empty() ? (negative ? "-" : "") + t : (negative ? " - " : " + ") + t;
    return s;
  }
  if (GiNaC::is_a<GiNaC::mul>(e)) {
    auto [negative, s] = signed_term(e);
    return (negative ? "-" : "") + s;
  }
  if (GiNaC::is_a<GiNaC::power>(e)) {
    if (e.op(1).info(GiNaC::info_flags::negint)) return signed_term(e).second;
    return operand(e.op(0)) + "^" + operand(e.op(1));
  }
  if (GiNaC::is_a<GiNaC::function>(e)) {
    std::string name = GiNaC::ex_to<GiNaC::function>(e).get_name();
    std::string s = (name == "real_abs" ? "abs" : name) + "(";
    for (size_t i = 0; i < e.nops(); ++i) s += (i ? ", " : "") + text(e.op(i));
    return s + ")";
  }
  unreachable("an expression of an unexpected GiNaC class reached expression_text");
}

}  // namespace

std::string expression_text(const GiNaC::ex &e) { return text(e); }

std::string short_exponent(const char *g) {
  std::string s = g;
  const size_t e = s.find_first_of("eE");
  if (e == std::string::npos) return s;
  size_t digits = e + 1;
  if (digits < s.size() && (s[digits] == '-' || s[digits] == '+')) ++digits;
  while (digits + 1 < s.size() && s[digits] == '0') s.erase(digits, 1);
  return s;
}

std::string format_double(double v) {
  char buf[40];
  if (v == std::trunc(v) && std::fabs(v) < 1e15) {  // whole numbers in full: 10.0, not 1e+01
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = short_exponent(buf);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // a double literal, not an int
  return s;
}

}  // namespace lgc
