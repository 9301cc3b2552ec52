// emit_step.cpp — prints NAME_step: one classical RK4 step on NAME_rhs,
// then the one-step correction (6.416-6.418) through the model's generated
// correction_factor and correction_solve, as the runtime does it for
// `--method rk4 --project full` (rk4.c's sums in rk4.c's order, project.c's
// Gauss-Newton with its chord steps), so that the two agree to round-off.
// For firmware: no allocation, nothing but this file's functions and libm.
#include "emit/emit.h"

#include <lagrangec/thresholds.h>

#include <cfloat>
#include <sstream>

namespace lgc {

namespace {

// Where phi's round-off lies, 64 eps (1 + |A| |q|), eps of the real type.
double round_off_scale(const RealType &real) { return 64 * (real.single() ? FLT_EPSILON : DBL_EPSILON); }

}  // namespace

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
  const std::string &R = real.type;
  const Sizes &z = plan.sizes;
  const std::string X = n.size(Size::nx), Q = n.size(Size::nq), H = n.size(Size::nh), C = n.size(Size::nc);
  const std::string OK = n.size("OK"), rhs_args = "input, param, baumgarte_alpha, baumgarte_beta";
  std::ostringstream s;

  s << "/* The state the step began from, back in state, and the status: a failed step changes nothing. */\n"
    << "static int " << n.fn("step_undone") << "(" << R << " state[], const " << R << " x0[], int status)\n{\n"
    << "    int i;\n    for (i = 0; i < " << X << "; ++i) state[i] = x0[i];\n    return status;\n}\n\n";
  if (z.nh)
    s << "/* The larger of start and every |v[i]|, NaN once v holds one (so isfinite sees it). */\n"
      << "static " << R << " " << n.fn("max_abs") << "(const " << R << " v[], int n, " << R << " start)\n{\n"
      << "    int i;\n    for (i = 0; i < n; ++i) {\n"
      << "        const " << R << " a = " << real.function("fabs") << "(v[i]);\n"
      << "        if (a > start || a != a) start = a;\n    }\n    return start;\n}\n\n";
  if (z.nc) {
    if (z.nh)
      s << "/* Where Gauss-Newton stops: |phi| <= the tolerance, or phi's round-off 64 eps (1 + |A| |q|) if larger. */\n"
        << "static " << R << " " << n.fn("phi_tolerance") << "(const " << R << " C[], const " << R << " state[])\n{\n"
        << "    const " << R << " round_off = " << real.literal(round_off_scale(real)) << "*(" << real.literal(1.0)
        << " + " << n.fn("max_abs") << "(C, " << H << "*" << Q << ", " << real.literal(0.0) << ")*" << n.fn("max_abs")
        << "(state, " << Q << ", " << real.literal(0.0) << "));\n"
        << "    return " << real.function("fmax") << "(" << n.size("STEP_TOLERANCE") << ", round_off);\n}\n\n";
    s << "/* The correction's factor at the state, M evaluated first in the metric W = M. */\n"
      << "static int " << n.fn("step_factor") << "(" << R << " t, const " << R << " state[], const " << R
      << " param[], int mass_metric,\n    " << R << " M[], const " << R << " C[], " << R << " work[])\n{\n"
      << "    if (mass_metric) " << n.fn("mass_matrix") << "(t, state, param, M);\n"
      << "    return " << n.fn("correction_factor") << "(mass_metric, M, C, work);\n}\n\n";
  }

  std::string slices;
  for (auto &name : plan.step_work.names(0)) slices += (slices.empty() ? "" : " | ") + name;
  s << signature_text(real, plan.step.signature) << "\n{\n"
    << "    /* work: the rhs's, then " << slices << " (" << n.size("NWORK_STEP") << " " << real.plural() << ") */\n";
  s << declare_pointers(plan, plan.step.pointers);
  s << "    /* RK4's stage times and weights; the sums below are rk4.c's, in its order. */\n"
    << "    static const " << R << " stage_c[3] = {" << real.literal(0.5) << ", " << real.literal(0.5) << ", "
    << real.literal(1.0) << "};\n"
    << "    static const " << R << " weight[4] = {" << real.literal(1.0 / 6) << ", " << real.literal(1.0 / 3) << ", "
    << real.literal(1.0 / 3) << ", " << real.literal(1.0 / 6) << "};\n";
  if (z.nc) s << "    const " << R << " t1 = t + h;\n";
  if (z.nh)
    s << "    " << R << " err, last_err = INFINITY;\n"
      << "    int i, j, it, status, refactor, chord = 0, undone = 0, C_current = 0;\n";
  else
    s << "    int i, j, status;\n";
  if (!z.nc) s << "    (void)mass_metric;\n";
  s << "    for (i = 0; i < " << X << "; ++i) x0[i] = state[i];\n"
    << "    status = " << n.fn("rhs") << "(t, x0, " << rhs_args << ", k, 0, work);\n"
    << "    if (status != " << OK << ") return status;\n"
    << "    for (i = 0; i < " << X << "; ++i) state[i] = x0[i] + h*weight[0]*k[i];\n"
    << "    for (j = 0; j < 3; ++j) {\n"
    << "        for (i = 0; i < " << X << "; ++i) xt[i] = x0[i] + stage_c[j]*h*k[i];\n"
    << "        status = " << n.fn("rhs") << "(t + stage_c[j]*h, xt, " << rhs_args << ", k, 0, work);\n"
    << "        if (status != " << OK << ") return " << n.fn("step_undone") << "(state, x0, status);\n"
    << "        for (i = 0; i < " << X << "; ++i) state[i] += h*weight[j + 1]*k[i];\n"
    << "    }\n";
  const std::string finite_check = "    for (i = 0; i < " + X + "; ++i)\n        if (!isfinite(state[i])) return " +
                                   n.fn("step_undone") + "(state, x0, " + n.size("NOT_FINITE") + ");\n";
  if (!z.nc) return s.str() + finite_check + "    return " + OK + ";\n}\n";

  const std::string undone = "return " + n.fn("step_undone") + "(state, x0, ";
  const std::string floor = n.fn("phi_tolerance") + "(C, state)";
  if (z.nh) {
    s << "    /*\n"
         "    ** Positions: Gauss-Newton on phi = 0, q += W^-1 A^T K, (A W^-1 A^T) K = -phi,\n"
         "    ** to |phi| <= the tolerance or phi's round-off floor. A step on an older\n"
         "    ** factor (a chord step) stands when it meets that or cuts |phi| by "
      << LGC_FACTOR_REUSE << ";\n"
         "    ** else it is undone and a Newton step taken from where it began.\n"
         "    */\n"
      << "    for (it = 0;; ++it) {\n"
      << "        " << n.fn("residuals") << "(t1, state, param, phi, phi_dot, g);\n"
      << "        err = " << n.fn("max_abs") << "(phi, " << H << ", " << real.literal(0.0) << ");\n"
      << "        refactor = it == 0;\n"
      << "        if (!refactor && err <= " << floor << ") break;\n"
      << "        if (!refactor && !(err <= " << real.literal(LGC_FACTOR_REUSE) << "*last_err)) {\n"
      << "            if (chord) {\n"
      << "                for (i = 0; i < " << Q << "; ++i) state[i] = q_prev[i];\n"
      << "                " << n.fn("residuals") << "(t1, state, param, phi, phi_dot, g);\n"
      << "                err = " << n.fn("max_abs") << "(phi, " << H << ", " << real.literal(0.0) << ");\n"
      << "                ++undone;\n"
      << "            }\n"
      << "            refactor = 1;\n"
      << "        }\n"
      << "        if (refactor) {\n"
      << "            " << n.fn("constraint_jacobian") << "(t1, state, param, C);\n"
      << "            C_current = 1;\n"
      << "        }\n"
      << "        if (err <= " << floor << ") break;\n"
      << "        if (it - undone == " << n.size("STEP_MAX_ITERATIONS") << " || !isfinite(err)) " << undone
      << n.size("CORRECTION_FAILED") << ");\n"
      << "        if (refactor && (status = " << n.fn("step_factor") << "(t1, state, param, mass_metric, W, C, correction)) != "
      << OK << ")\n"
      << "            " << undone << "status);\n"
      << "        for (i = 0; i < " << H << "; ++i) K[i] = -phi[i];\n"
      << "        " << n.fn("correction_solve") << "(mass_metric, " << H << ", W, C, correction, K, d);\n"
      << "        for (i = 0; i < " << Q << "; ++i) {\n"
      << "            q_prev[i] = state[i];\n"
      << "            state[i] += d[i];\n"
      << "        }\n"
      << "        C_current = 0;\n"
      << "        chord = !refactor;\n"
      << "        last_err = err;\n"
      << "    }\n";
  }
  s << "    /* Velocities: v += W^-1 C^T K, (C W^-1 C^T) K = -[phi'; g], exact (the rows are linear in v). */\n";
  if (z.nh) {
    s << "    if (!C_current) " << n.fn("constraint_jacobian") << "(t1, state, param, C);\n";
  } else {
    s << "    " << n.fn("residuals") << "(t1, state, param, phi, phi_dot, g);\n"
      << "    " << n.fn("constraint_jacobian") << "(t1, state, param, C);\n";
  }
  s << ""
    << "    status = " << n.fn("step_factor") << "(t1, state, param, mass_metric, W, C, correction);\n"
    << "    if (status != " << OK << ") " << undone << "status);\n"
    << "    for (i = 0; i < " << C << "; ++i) K[i] = -phi_dot[i];  /* phi' and g lie together */\n"
    << "    " << n.fn("correction_solve") << "(mass_metric, " << C << ", W, C, correction, K, d);\n"
    << "    for (i = 0; i < " << Q << "; ++i) state[" << Q << " + i] += d[i];\n"
    << finite_check << "    return " << OK << ";\n}\n";
  return s.str();
}

}  // namespace lgc
