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
// links. Every word of it is part of the cache key.
struct Toolchain {
  std::vector<std::string> compiler;
  std::string runtime_include, runtime_library;
  std::vector<std::string> link_args;
};
Toolchain find_toolchain();
// Compiles main.c, NAME.c and NAME_model.c in dir into the program NAME and
// checks that it runs.
void compile_program(const Toolchain &toolchain, const std::string &name, size_t source_size, const OpenDir &dir);

}  // namespace lgc
