// emit_step.cpp — prints NAME_step: the kernels of one classical RK4 step
// on NAME_rhs and, with constraints, the one-step correction (6.416-6.418)
// through the model's generated correction_factor and correction_solve, as
// the runtime does it for `--method rk4 --project full` (gen/kernels/rk4.c,
// gauss_newton.c, correct_velocities.c, step.c), so that the two agree to
// round-off. For firmware: no allocation, nothing but this file's functions
// and libm.
#include "emit/emit.h"

#include <lagrangec/thresholds.h>

#include "kernel_sources.h"

#include <sstream>

namespace lgc {

std::string emit_step_header_lines(const Plan &plan) {
  const Names &n = plan.names;
  std::ostringstream s;
  s << "#define " << n.size("NWORK_STEP") << " (" << n.size(Size::nwork) << " + " << plan.step_work.size_after_inner()
    << ")  /* ... for " << n.fn("step") << " */\n";
  if (plan.sizes.nc) {
    s << "#define " << n.size("STEP_TOLERANCE") << " " << plan.real.literal(LGC_CORRECTION_TOL) << "  /* " << n.fn("step")
      << "'s position correction: |phi| it stops at */\n";
    s << "#define " << n.size("STEP_MAX_ITERATIONS") << " " << LGC_CORRECTION_MAX_ITER << "  /* ... and its limit */\n";
  }
  return s.str();
}

std::string emit_step(const Plan &plan) {
  const Names &n = plan.names;
  const RealType &real = plan.real;
  const Sizes &z = plan.sizes;
  const std::string OK = n.size("OK");

  std::string slices;
  for (auto &name : plan.step_work.names(0)) slices += (slices.empty() ? "" : " | ") + name;
  const std::string work = "    /* work: the rhs's, then " + slices + " (" + n.size("NWORK_STEP") + " " + real.plural() +
                           ") */\n" + declare_pointers(plan, plan.step.pointers);

  // The model's correction, between the RK4 step and the step's end.
  const std::string at = "(t + h, state, param";
  const std::string factor_work = ", C, W, correction, K, d";
  const std::string velocities =
      n.fn("correct_velocities") + at + ", mass_metric" + factor_work + ", phi_dot);\n";
  std::string correction, kernels = paste_kernel(kernel_rk4, n, real);
  if (!z.nc) {
    correction = "    (void)mass_metric;\n";
  } else if (!z.nh) {
    correction = "    if (status == " + OK + ") {\n" +
                 "        " + n.fn("residuals") + at + ", phi, phi_dot, g);\n" +
                 "        " + n.fn("constraint_jacobian") + at + ", C);\n" +
                 "        status = " + velocities + "    }\n";
    kernels += "\n" + paste_kernel(kernel_correct_velocities, n, real);
  } else {
    correction = "    if (status == " + OK + ")\n        status = " + n.fn("correct_positions") + at + ", mass_metric" +
                 factor_work + ", phi, phi_dot, g, q_prev);\n" +
                 "    if (status == " + OK + ") status = " + velocities;
    kernels += "\n" + paste_kernel(kernel_correct_velocities, n, real) + "\n" + paste_kernel(kernel_gauss_newton, n, real);
  }
  return kernels + "\n" + paste_kernel(kernel_step, n, real, {{"STEP_WORK", work}, {"CORRECTION", correction}});
}

}  // namespace lgc
