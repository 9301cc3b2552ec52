// real_type.cpp — how the printers spell a real of the generated C: the
// model's typedef (NAME_real), a literal of its type and a libm function of
// its type. Every printer writes reals through this one helper, so the
// generated C is double or float throughout (--real), never a mix.
#include "plan/plan.h"

#include <lagrangec/thresholds.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

namespace lgc {

std::optional<Precision> parse_precision(const std::string &name) {
  if (name == "double") return Precision::double_precision;
  if (name == "float") return Precision::single_precision;
  return std::nullopt;
}

RealType::RealType(const Names &names, Precision p) : precision(p), type(names.p + "_real") {}

const char *RealType::c_type() const { return single() ? "float" : "double"; }

// Double: format_double's shortest round-trip form. Float: the shortest
// that reads back as the same float, suffixed f (10.0f, 0.1f, 1e-13f).
std::string RealType::literal(double v) const {
  if (!single()) return format_double(v);
  const float f = float(v);
  if (std::isinf(f)) return f < 0 ? "-HUGE_VALF" : "HUGE_VALF";  // past float's range, as (float)v is
  char buf[40];
  if (f == std::trunc(f) && std::fabs(f) < 1e7f) {
    std::snprintf(buf, sizeof buf, "%.1f", double(f));
    return std::string(buf) + "f";
  }
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, double(f));
    if (std::strtof(buf, nullptr) == f) break;
  }
  std::string s = short_exponent(buf);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s + "f";
}

double RealType::threshold(double lgc_value) const {
  static const std::map<double, double> in_float = {{LGC_MASS_PIVOT, LGC_MASS_PIVOT_FLOAT},
                                                    {LGC_ROWS_PIVOT, LGC_ROWS_PIVOT_FLOAT},
                                                    {LGC_EIGEN_FLOOR, LGC_EIGEN_FLOOR_FLOAT}};
  if (!single()) return lgc_value;
  const auto t = in_float.find(lgc_value);
  if (t == in_float.end()) unreachable("a threshold thresholds.h does not give in float");
  return t->second;
}

std::string RealType::function(const std::string &libm) const { return single() ? libm + "f" : libm; }

std::string RealType::retyped(const std::string &c, const WordMap &mapped) const {
  auto word_char = [](char ch) { return std::isalnum((unsigned char)ch) || ch == '_'; };
  std::string out;
  for (size_t i = 0; i < c.size();) {
    if (word_char(c[i])) {
      size_t end = i;
      while (end < c.size() && (word_char(c[end]) || (std::isdigit((unsigned char)c[i]) &&
                                                       (c[end] == '.' || ((c[end] == '-' || c[end] == '+') &&
                                                                          (c[end - 1] == 'e' || c[end - 1] == 'E'))))))
        ++end;
      const std::string word = c.substr(i, end - i);
      if (auto text = mapped(word))
        out += *text;
      else if (word == "real")
        out += type;
      else if (single() && (word == "sqrt" || word == "fabs" || word == "sin" || word == "cos" || word == "fmax"))
        out += word + "f";
      else if (single() && word == "HUGE_VAL")
        out += "HUGE_VALF";
      else if (single() && std::isdigit((unsigned char)word[0]) && word.find_first_of(".eE") != std::string::npos)
        out += word + "f";  // a floating literal: 0.5, 1e-13
      else
        out += word;
      i = end;
    } else {
      out += c[i++];
    }
  }
  return out;
}

}  // namespace lgc
