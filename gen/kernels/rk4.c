// rk4.c — one classical RK4 step on a model's NAME_rhs, and the step's end
// (the state checked, or put back). The sums are the runtime's
// (runtime/src/rk4.c), in its order, so that NAME_step and
// `--method rk4` agree to round-off. The generator pastes it into a model
// with NAME_step (gen/emit/paste_kernel.cpp); tests/gen/test_step_kernels.c
// runs it.

/*
** x0 := state, state := x0 + h/6 (k1 + 2 k2 + 2 k3 + k4): PREFIX_OK, or the
** rhs's error with state part-way. k, x0, xt: PREFIX_NX each; work the rhs's.
*/
static int PREFIX_rk4(real t, real state[], const real input[], const real param[],
    real baumgarte_alpha, real baumgarte_beta, real h,
    real k[], real x0[], real xt[], real work[])
{
    /* The stages' times and weights. */
    static const real stage_c[3] = {0.5, 0.5, 1.0};
    static const real weight[4] = {1.0/6, 1.0/3, 1.0/3, 1.0/6};
    int i, j, status;
    for (i = 0; i < PREFIX_NX; ++i) x0[i] = state[i];
    status = PREFIX_rhs(t, x0, input, param, baumgarte_alpha, baumgarte_beta, k, 0, work);
    if (status != PREFIX_OK) return status;
    for (i = 0; i < PREFIX_NX; ++i) state[i] = x0[i] + h*weight[0]*k[i];
    for (j = 0; j < 3; ++j) {
        for (i = 0; i < PREFIX_NX; ++i) xt[i] = x0[i] + stage_c[j]*h*k[i];
        status = PREFIX_rhs(t + stage_c[j]*h, xt, input, param, baumgarte_alpha, baumgarte_beta, k, 0, work);
        if (status != PREFIX_OK) return status;
        for (i = 0; i < PREFIX_NX; ++i) state[i] += h*weight[j + 1]*k[i];
    }
    return PREFIX_OK;
}

/* The step's status, PREFIX_NOT_FINITE at a NaN or Inf; a failed step puts x0 back in state. */
static int PREFIX_step_end(real state[], const real x0[], int status)
{
    int i;
    for (i = 0; i < PREFIX_NX && status == PREFIX_OK; ++i)
        if (!isfinite(state[i])) status = PREFIX_NOT_FINITE;
    if (status != PREFIX_OK)
        for (i = 0; i < PREFIX_NX; ++i) state[i] = x0[i];
    return status;
}
