// paste_kernel.cpp — a kernel of gen/kernels/ as one model's C. A kernel is
// ordinary C over placeholders that its test defines and this replaces:
// PREFIX_name and PREFIX_SIZE become the model's function and macro names
// (NAME_name, NAME_SIZE), `real` its real type, an LGC_ threshold of
// lagrangec/thresholds.h its literal (its float counterpart in float), DBL_EPSILON the real type's epsilon as
// a literal, and a line `PREFIX_NAME;` alone the model's statements for it;
// literals and libm calls take the real type.
#include "emit/emit.h"

#include <lagrangec/thresholds.h>

#include <cctype>
#include <cfloat>
#include <sstream>

namespace lgc {

std::string paste_kernel(const char *kernel, const Names &n, const RealType &real,
                         const std::map<std::string, std::string> &lines) {
  static const std::map<std::string, double> thresholds = {
      {"LGC_MASS_PIVOT", LGC_MASS_PIVOT},
      {"LGC_ROWS_PIVOT", LGC_ROWS_PIVOT},
      {"LGC_EIGEN_FLOOR", LGC_EIGEN_FLOOR},
  };
  static const std::string prefix = "PREFIX_";
  auto word = [&](const std::string &w) -> std::optional<std::string> {
    if (auto t = thresholds.find(w); t != thresholds.end()) return real.literal(real.threshold(t->second));
    if (w == "LGC_FACTOR_REUSE") return real.literal(LGC_FACTOR_REUSE);
    if (w == "DBL_EPSILON") return real.literal(real.single() ? FLT_EPSILON : DBL_EPSILON);
    if (w.compare(0, prefix.size(), prefix) != 0 || w.size() == prefix.size()) return std::nullopt;
    const std::string name = w.substr(prefix.size());
    return std::isupper((unsigned char)name[0]) ? n.size(name.c_str()) : n.fn(name.c_str());
  };
  std::istringstream in(kernel);
  std::string line, out;
  while (std::getline(in, line)) {
    const size_t start = line.find_first_not_of(' ');
    if (start != std::string::npos && line.compare(start, prefix.size(), prefix) == 0 && line.back() == ';') {
      auto given = lines.find(line.substr(start + prefix.size(), line.size() - 1 - start - prefix.size()));
      if (given != lines.end()) {
        out += given->second;  // already the model's C
        continue;
      }
    }
    out += real.retyped(line, word) + "\n";
  }
  return out;
}

}  // namespace lgc
