/*
** test_tumbling.c — tumbling.toml, a free rigid body turned by a quaternion
** frame, integrated by rk4 with the correction onto the quaternion's unit
** norm after each step: over 40 s it flips over (the body's y axis from N.y
** to -N.y and back) and passes within 1.5e-2 rad of the configurations
** where z-y-x Euler angles are singular, and its energy and angular momentum
** in N stay at their initial values to 1e-10 (relative). Its generated
** Jacobian df/dx, differentiated through the quaternion frame, is central
** differences of its rhs.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "lagrangec/lagrangec.h"
#include "model_checks.h"

extern const lgc_model tumbling_model;

#define T_END 40.0
#define STEP 1e-3
#define RTOL 1e-10

static int output(const lgc_model *m, const char *name)
{
    int i = lgc_name_index(m->output_names, m->nout, name);
    if (i < 0) fail_msg("%s has no output %s", m->name, name);
    return i;
}

static void conserves_energy_and_momentum_through_euler_singularities(void **unused)
{
    (void)unused;
    const lgc_model *m = &tumbling_model;
    const int Hx = output(m, "Hx"), sin_pitch = output(m, "sin_pitch"), flip = output(m, "flip");
    double *x = calloc(m->nx, sizeof *x), out[8], H0[3];
    m->initial_state_at(m->parameter_defaults, x);
    m->outputs(0.0, x, m->input_defaults, m->parameter_defaults, NULL, out);
    for (int a = 0; a < 3; ++a) H0[a] = out[Hx + a];
    const double E0 = m->energy(0.0, x, m->parameter_defaults), H0_norm = sqrt(H0[0] * H0[0] + H0[1] * H0[1] + H0[2] * H0[2]);

    lgc_system sys;
    lgc_driver_options opt;
    lgc_driver_options_default(&opt);
    opt.type = lgc_step_rk4;
    opt.project = LGC_PROJECT_FULL;
    opt.h = STEP;
    assert_int_equal(lgc_system_init(&sys, m), LGC_OK);
    lgc_driver *drv = lgc_driver_alloc(&sys, &opt);
    assert_non_null(drv);
    assert_int_equal(lgc_driver_reset(drv, 0.0, x), LGC_OK);
    double worst_E = 0.0, worst_H = 0.0, closest = 1.0, lowest_flip = 1.0, worst_norm = 0.0;
    for (int k = 1; k <= (int)(T_END / STEP + 0.5); ++k) {
        const double t = k * STEP;
        assert_int_equal(lgc_driver_advance(drv, t, x), LGC_OK);
        m->outputs(t, x, m->input_defaults, m->parameter_defaults, NULL, out);
        double dH = 0.0;
        for (int a = 0; a < 3; ++a) dH += (out[Hx + a] - H0[a]) * (out[Hx + a] - H0[a]);
        worst_H = fmax(worst_H, sqrt(dH) / H0_norm);
        worst_E = fmax(worst_E, fabs(m->energy(t, x, m->parameter_defaults) - E0) / E0);
        closest = fmin(closest, acos(fmin(1.0, fabs(out[sin_pitch]))));
        lowest_flip = fmin(lowest_flip, out[flip]);
        worst_norm = fmax(worst_norm, fabs(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3] - 1.0));
    }
    print_message("  %g s of rk4 steps of %g: energy within %.1e, angular momentum within %.1e (relative; allowed "
                  "%.0e); |q| - 1 within %.1e; closest to an Euler-angle singularity %.1e rad; B.y . N.y down to "
                  "%.6f\n", T_END, STEP, worst_E, worst_H, RTOL, worst_norm, closest, lowest_flip);
    if (!(worst_E <= RTOL && worst_H <= RTOL))
        fail_msg("energy drifted by %.3e, angular momentum by %.3e (relative)", worst_E, worst_H);
    if (!(closest < 1.5e-2)) fail_msg("the run came no closer than %.3e rad to pitch +-pi/2", closest);
    if (!(lowest_flip < -0.99)) fail_msg("the body did not flip: B.y . N.y stayed above %.3f", lowest_flip);
    lgc_driver_free(drv);
    lgc_system_free(&sys);
    free(x);
}

static void jacobian_matches_differences(void **unused)
{
    (void)unused;
    const lgc_model *m = &tumbling_model;
    assert_non_null(m->jacobian);
    double *x = calloc(m->nx, sizeof *x), worst = 0.0;
    unsigned long seed = 5;
    for (int k = 0; k < 5; ++k) {
        for (int i = 0; i < m->nx; ++i) x[i] = uniform(&seed, -1.0, 1.0);
        const double error = jacobian_relative_error(m, x, k);
        if (!(error <= 1e-6))
            fail_msg("state %d: df/dx differs from central differences by %.3e of the largest entry (allowed 1e-6)",
                     k, error);
        worst = fmax(worst, error);
    }
    print_message("  df/dx at 5 random states (off the unit norm too), largest difference from central differences "
                  "%.1e (relative; allowed 1e-6)\n", worst);
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(conserves_energy_and_momentum_through_euler_singularities),
                                       cmocka_unit_test(jacobian_matches_differences)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
