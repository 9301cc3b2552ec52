// generate.h — the pipeline for one spec, stage by stage (spec → expressions
// → model → plan → printers), and the files it writes.
#pragma once

#include "emit/emit.h"

namespace lgc {

// ---- generate.cpp ---------------------------------------------------------

struct GeneratedFiles {
  std::string header, source, descriptor, report;  // NAME.h, NAME.c, NAME_model.c, NAME.md
  StackEstimate stack;
};

// CPU seconds one spec's generation may take (generate --time-limit): past
// them it stops with a message naming the limit, whatever stage it is in.
constexpr double kGenerationSeconds = 600;

// `inspect`, where given, sees the model once derived (lagrangec fmu reads its structure).
GeneratedFiles generate(const Spec &spec, Formulation formulation = Formulation::dalembert,
                        bool with_jacobian = true, Precision precision = Precision::double_precision,
                        bool strict = false, double time_limit = kGenerationSeconds,
                        const std::function<void(const Model &)> &inspect = nullptr);
// Writes the files for `spec` into dir, each whole or not at all.
void write_generated(const Spec &spec, const GeneratedFiles &files, const std::string &dir);
// Writes `content` to `path` through a temporary file renamed into place.
void write_file_atomically(const std::string &path, const std::string &content);

}  // namespace lgc
