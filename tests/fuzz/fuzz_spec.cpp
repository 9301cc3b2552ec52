// fuzz_spec.cpp — libFuzzer target: any bytes through the whole pipeline
// (spec reader, expression reader, derivation in both formulations, the
// plan, every printer, lagrangec fmu's model structure; in double, or in
// float for inputs of odd length), and
// generate --strict (redundant rows refused). Bytes that start with '<'
// are read as a URDF.
// A SpecError is a clean rejection; anything else escaping is a finding.
#include "generate.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  try {
    const char *path = size > 0 && data[0] == '<' ? "fuzz.urdf" : "fuzz.toml";
    lgc::Spec spec = lgc::read_spec_text(path, std::string(reinterpret_cast<const char *>(data), size));
    // lagrangec fmu's ModelStructure too: each model's dependencies.
    auto structure = [](const lgc::Model &model) { lgc::model_structure(model); };
    lgc::generate(spec, lgc::Formulation::dalembert, true,
                  size % 2 ? lgc::Precision::single_precision : lgc::Precision::double_precision, false,
                  lgc::kGenerationSeconds, structure);
    if (!spec.nonholonomic.empty())
      lgc::generate(spec, lgc::Formulation::vakonomic, true, lgc::Precision::double_precision, false,
                    lgc::kGenerationSeconds, structure);
    lgc::generate(spec, lgc::Formulation::dalembert, false, lgc::Precision::double_precision, true);
  } catch (const lgc::SpecError &) {
  }
  return 0;
}
