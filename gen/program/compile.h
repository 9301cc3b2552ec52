// compile.h — how a model's program is compiled and linked.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "program/cache.h"

namespace lgc {

// ---- compile.cpp ----------------------------------------------------------

// How a model's program is compiled: the C compiler ($CC split into words
// as a shell splits them, never run by one; else cc) and the runtime it
// links. Every word of it is part of the cache key. runtime_sources holds
// the runtime's src/ and fmi/, which an FMU compiles and ships.
struct Toolchain {
  std::vector<std::string> compiler;
  std::string runtime_include, runtime_library, runtime_sources;
  std::vector<std::string> link_args;
};
Toolchain find_toolchain();
// Compiles main.c, NAME.c and NAME_model.c in dir into the program NAME and
// checks that it runs.
void compile_program(const Toolchain &toolchain, const std::string &name, size_t source_size, const OpenDir &dir);
// Compiles NAME.c, NAME_model.c, fmu_binding.c in dir and the runtime's
// fmi/ files `fmi_sources` into the FMU's library NAME.so, on the runtime
// library simulate's programs link.
void compile_fmu_library(const Toolchain &toolchain, const std::string &name, size_t source_size,
                         const std::vector<std::string> &fmi_sources, const OpenDir &dir);
// Links the runtime's fmi/describe_main.c against NAME.so in dir and runs
// it with `describe_args` (the generation tool, the source files) into
// dir/modelDescription.xml.
void describe_fmu(const Toolchain &toolchain, const std::string &name,
                  const std::vector<std::string> &describe_args, const OpenDir &dir);

}  // namespace lgc
