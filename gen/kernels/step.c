// step.c — NAME_step: one RK4 step (rk4.c), then, with constraints, the
// one-step correction (gauss_newton.c, correct_velocities.c), as the
// runtime's `--method rk4 --project full` takes it. The line
// PREFIX_STEP_WORK; becomes the model's slices of work (k, x0, xt and the
// correction's arrays), PREFIX_CORRECTION; the model's correction (none,
// velocities, or positions then velocities). Its signature is the one
// NAME.h declares. The generator pastes it into a model
// (gen/emit/paste_kernel.cpp); tests/gen/test_step_kernels.c runs it.

int PREFIX_step(real t, real state[], const real input[], const real param[],
    real baumgarte_alpha, real baumgarte_beta,
    real h, int mass_metric,
    real work[])
{
    PREFIX_STEP_WORK;
    int status = PREFIX_rk4(t, state, input, param, baumgarte_alpha, baumgarte_beta, h, k, x0, xt, work);
    PREFIX_CORRECTION;
    return PREFIX_step_end(state, x0, status);
}
