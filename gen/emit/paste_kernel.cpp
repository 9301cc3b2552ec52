// paste_kernel.cpp — a kernel of gen/kernels/ as one model's C. A kernel is
// ordinary C over placeholders that its test defines and this replaces:
// PREFIX_name and PREFIX_SIZE become the model's function and macro names
// (NAME_name, NAME_SIZE), `real` its real type, an LGC_ threshold of
// lagrangec/thresholds.h its literal; the rest is retyped as any C the
// printers write in double (literals and libm calls of the real type).
#include "emit/emit.h"

#include <lagrangec/thresholds.h>

#include <cctype>
#include <map>

namespace lgc {

std::string paste_kernel(const char *kernel, const Names &n, const RealType &real) {
  static const std::map<std::string, double> thresholds = {
      {"LGC_MASS_PIVOT", LGC_MASS_PIVOT},
      {"LGC_ROWS_PIVOT", LGC_ROWS_PIVOT},
      {"LGC_EIGEN_FLOOR", LGC_EIGEN_FLOOR},
  };
  static const std::string prefix = "PREFIX_";
  return real.retyped(kernel, [&](const std::string &word) -> std::optional<std::string> {
    if (word == "real") return real.type;
    if (auto t = thresholds.find(word); t != thresholds.end()) return real.literal(t->second);
    if (word.compare(0, prefix.size(), prefix) != 0 || word.size() == prefix.size()) return std::nullopt;
    const std::string name = word.substr(prefix.size());
    return std::isupper((unsigned char)name[0]) ? n.size(name.c_str()) : n.fn(name.c_str());
  });
}

}  // namespace lgc
