// simulate.h — simulate, linearize and sweep: generate, compile (cached) and
// run the model's program.
#pragma once

#include <string>
#include <vector>

#include "model/model.h"

namespace lgc {

// ---- simulate.cpp ---------------------------------------------------------

// Generates, compiles (once, cached) and runs the model's program with
// command "simulate" or "linearize"; returns only on failure.
int run_model(const std::string &command, const std::string &spec_path, Formulation formulation,
              const std::vector<std::string> &options);

}  // namespace lgc
