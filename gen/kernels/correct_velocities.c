// correct_velocities.c — the one-step correction's factor at a state, and
// its velocity part (docs/theory.md, 6.418), as the runtime's
// runtime/src/project.c does it. Needs the model's NAME_mass_matrix,
// NAME_correction_factor and NAME_correction_solve. The generator pastes it
// into a model with constraints and NAME_step (gen/emit/paste_kernel.cpp);
// tests/gen/test_step_kernels.c runs it.

/* The correction's factor at the state, M evaluated first in the metric W = M. */
static int PREFIX_step_factor(real t, const real state[], const real param[], int mass_metric,
    real M[], const real C[], real work[])
{
    if (mass_metric) PREFIX_mass_matrix(t, state, param, M);
    return PREFIX_correction_factor(mass_metric, M, C, work);
}

/*
** Velocities: v += W^-1 C^T K, (C W^-1 C^T) K = -[phi'; g], exact (the rows
** are linear in v); C and rows_dot ([phi'; g], PREFIX_NC) at (t, state).
*/
static int PREFIX_correct_velocities(real t, real state[], const real param[], int mass_metric,
    const real C[], real W[], real correction[], real K[], real d[], const real rows_dot[])
{
    int i;
    const int status = PREFIX_step_factor(t, state, param, mass_metric, W, C, correction);
    if (status != PREFIX_OK) return status;
    for (i = 0; i < PREFIX_NC; ++i) K[i] = -rows_dot[i];
    PREFIX_correction_solve(mass_metric, PREFIX_NC, W, C, correction, K, d);
    for (i = 0; i < PREFIX_NQ; ++i) state[PREFIX_NQ + i] += d[i];
    return PREFIX_OK;
}
