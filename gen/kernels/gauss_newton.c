// gauss_newton.c — the one-step correction's position part (docs/theory.md,
// 6.416-6.417): Gauss-Newton on phi = 0 with chord steps, as the runtime's
// runtime/src/project.c does it. Needs correct_velocities.c and the model's
// NAME_residuals and NAME_constraint_jacobian. The generator pastes it into
// a model with holonomic rows and NAME_step (gen/emit/paste_kernel.cpp);
// tests/gen/test_step_kernels.c runs it.

/* The larger of start and every |v[i]|, NaN once v holds one (so isfinite sees it). */
static real PREFIX_max_abs(const real v[], int n, real start)
{
    int i;
    for (i = 0; i < n; ++i) {
        const real a = fabs(v[i]);
        if (a > start || a != a) start = a;
    }
    return start;
}

/* Where Gauss-Newton stops: |phi| <= the tolerance, or phi's round-off 64 eps (1 + |A| |q|) if larger. */
static real PREFIX_phi_tolerance(const real C[], const real state[])
{
    const real round_off = 64*DBL_EPSILON*(1.0 + PREFIX_max_abs(C, PREFIX_NH*PREFIX_NQ, 0.0)*PREFIX_max_abs(state, PREFIX_NQ, 0.0));
    return fmax(PREFIX_STEP_TOLERANCE, round_off);
}

/*
** Positions: Gauss-Newton on phi = 0, q += W^-1 A^T K, (A W^-1 A^T) K = -phi,
** to |phi| <= PREFIX_STEP_TOLERANCE or phi's round-off floor, in at most
** PREFIX_STEP_MAX_ITERATIONS steps. A step on an older factor (a chord step)
** stands when it meets that or cuts |phi| by LGC_FACTOR_REUSE; else it is
** undone and a Newton step taken from where it began. PREFIX_OK leaves phi,
** phi_dot, g and C at (t, state), for the velocities.
*/
static int PREFIX_correct_positions(real t, real state[], const real param[], int mass_metric,
    real C[], real W[], real correction[], real K[], real d[],
    real phi[], real phi_dot[], real g[], real q_prev[])
{
    real err, last_err = INFINITY;
    int i, it, status, refactor, chord = 0, undone = 0, C_current = 0;
    for (it = 0;; ++it) {
        PREFIX_residuals(t, state, param, phi, phi_dot, g);
        err = PREFIX_max_abs(phi, PREFIX_NH, 0.0);
        refactor = it == 0;
        if (!refactor && err <= PREFIX_phi_tolerance(C, state)) break;
        if (!refactor && !(err <= LGC_FACTOR_REUSE*last_err)) {
            if (chord) {
                for (i = 0; i < PREFIX_NQ; ++i) state[i] = q_prev[i];
                PREFIX_residuals(t, state, param, phi, phi_dot, g);
                err = PREFIX_max_abs(phi, PREFIX_NH, 0.0);
                ++undone;
            }
            refactor = 1;
        }
        if (refactor) {
            PREFIX_constraint_jacobian(t, state, param, C);
            C_current = 1;
        }
        if (err <= PREFIX_phi_tolerance(C, state)) break;
        if (it - undone == PREFIX_STEP_MAX_ITERATIONS || !isfinite(err)) return PREFIX_CORRECTION_FAILED;
        if (refactor && (status = PREFIX_step_factor(t, state, param, mass_metric, W, C, correction)) != PREFIX_OK)
            return status;
        for (i = 0; i < PREFIX_NH; ++i) K[i] = -phi[i];
        PREFIX_correction_solve(mass_metric, PREFIX_NH, W, C, correction, K, d);
        for (i = 0; i < PREFIX_NQ; ++i) {
            q_prev[i] = state[i];
            state[i] += d[i];
        }
        C_current = 0;
        chord = !refactor;
        last_err = err;
    }
    if (!C_current) PREFIX_constraint_jacobian(t, state, param, C);
    return PREFIX_OK;
}
