// fmu.h — `lagrangec fmu`: a spec as an FMI 2.0 FMU.
#pragma once

#include <string>

#include "model/model.h"

namespace lgc {

// ---- fmu.cpp --------------------------------------------------------------

// The FMI kinds an FMU declares (runtime/fmi/fmu.h's LGC_FMU_* bits).
enum FmuKinds { kModelExchange = 1, kCoSimulation = 2, kBothKinds = 3 };

struct FmuOptions {
  Formulation formulation = Formulation::dalembert;
  bool with_jacobian = true, strict = false;
  double time_limit;
  int kinds = kBothKinds;
};

// Generates the spec's C, compiles its FMU library with the runtime's
// fmi/ (as simulate compiles its program), has it describe itself in
// modelDescription.xml, and writes the zip to `output`, whole or not at all.
void export_fmu(const std::string &spec_path, const FmuOptions &options, const std::string &output);

}  // namespace lgc
