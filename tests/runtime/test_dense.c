/*
** test_dense.c — samples land on requested times from the steps'
** interpolants (dopri5's continuous extension, rk4's cubic Hermite), the
** steps stay the ones asked for, and none passes t_stop: against
** q = cos t (the generated specs/oscillator.toml, w = 1).
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lagrangec/driver.h"
#include "lagrangec/model.h"
#include "lagrangec/status.h"
#include "check.h"
#include "oscillator.h"

/* Max error against (cos t, -sin t) at samples every dt; steps in *steps. */
static double oscillator_error(const lgc_driver_options *o, double dt, double t_end,
                               unsigned long *steps)
{
    lgc_system sys;
    double x[2], worst = 0.0;
    assert_int_equal(lgc_system_init(&sys, &oscillator_model), LGC_OK);
    lgc_driver *d = lgc_driver_alloc(&sys, o);
    assert_non_null(d);
    assert_int_equal(lgc_driver_reset(d, 0.0, oscillator_model.initial_state),
                     LGC_OK);
    for (int k = 0; k * dt <= t_end; k++) {
        double t = k * dt;
        assert_int_equal(lgc_driver_advance(d, t, x), LGC_OK);
        worst = fmax(worst, fmax(fabs(x[0] - cos(t)), fabs(x[1] + sin(t))));
    }
    lgc_stats st;
    lgc_driver_stats(d, &st);
    *steps = st.steps;
    lgc_driver_free(d);
    lgc_system_free(&sys);
    return worst;
}

static void dopri5_dense_output(void **state)
{
    (void)state;
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.project = LGC_PROJECT_NONE;
    o.type = lgc_step_dopri5;
    o.h = 0.0;
    o.rtol = 1e-10;
    o.atol = 1e-12;
    unsigned long steps;
    double err = oscillator_error(&o, 0.0137, 20.0, &steps);
    print_message("  dopri5: %lu steps for 1460 samples, max error %.2e\n", steps, err);
    assert_lt(steps, 1460);  /* the samples came from interpolation */
    assert_lt(err, 1e-8);
}

/* Loose tolerance: many samples per step, all from the interpolant. */
static void dopri5_dense_output_between_steps(void **state)
{
    (void)state;
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.project = LGC_PROJECT_NONE;
    o.type = lgc_step_dopri5;
    o.h = 0.0;
    o.rtol = 1e-6;
    o.atol = 1e-8;
    unsigned long steps;
    double err = oscillator_error(&o, 0.001, 10.0, &steps);
    print_message("  dopri5 rtol 1e-6: %lu steps for 10001 samples, max error %.2e\n",
                  steps, err);
    assert_lt(steps, 200);
    assert_lt(err, 1e-5);
}

/*
** CVODE's samples come from its own interpolating polynomial (CVodeGetDky),
** and its steps are its own whatever the samples (with t_stop set, as
** simulate sets it).
*/
static void cvode_dense_output(void **state)
{
    (void)state;
    const lgc_stepper_type *types[] = {lgc_step_adams, lgc_step_bdf};
    for (int i = 0; i < 2; i++) {
        lgc_driver_options o;
        lgc_driver_options_default(&o);
        o.project = LGC_PROJECT_NONE;
        o.type = types[i];
        o.h = 0.0;
        o.rtol = 1e-10;
        o.atol = 1e-12;
        o.t_stop = 20.0;
        unsigned long steps, steps_at_ends;
        double err = oscillator_error(&o, 1.0 / 64, 20.0, &steps);
        /* the same run sampled only where it ends: the steps are CVODE's, not the samples' */
        double at_end = oscillator_error(&o, 20.0, 20.0, &steps_at_ends);
        print_message("  %s: %lu steps for 1281 samples (%lu unsampled), max error %.2e "
                      "(%.2e at t = 20 alone)\n", types[i]->name, steps, steps_at_ends, err, at_end);
        assert_lt(steps, 1281);
        assert_int_equal(steps, steps_at_ends);
        assert_lt(err, 1e-8);
    }
}

/* Samples between rk4's steps: steps of h only, the error of the method's order. */
static void rk4_samples_between_steps(void **state)
{
    (void)state;
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.type = lgc_step_rk4;
    o.project = LGC_PROJECT_NONE;
    double err[2];
    unsigned long steps[2];
    for (int i = 0; i < 2; i++) {
        o.h = i == 0 ? 0.1 : 0.05;
        err[i] = oscillator_error(&o, 0.0137, 20.0, &steps[i]);
        print_message("  rk4 h = %g: %lu steps, max error %.2e at samples every 0.0137\n", o.h,
                      steps[i], err[i]);
    }
    /* The steps are h's, not cut at the samples: 20/h of them to reach t = 20. */
    assert_int_equal(steps[0], 200);
    assert_int_equal(steps[1], 400);
    /* Fourth order, interpolant included: halving h divides the error by ~16 ... */
    assert_gt(err[0] / err[1], 12);
    /* ... and between the steps it is about the steps' own. */
    unsigned long same;
    o.h = 0.1;
    double at_steps = oscillator_error(&o, 0.1, 20.0, &same);
    print_message("  rk4 h = 0.1: max error %.2e at the steps' ends\n", at_steps);
    assert_le(err[0], 1.5 * at_steps);
    o.h = 1e-3;
    unsigned long fine;
    double err_fine = oscillator_error(&o, 0.0137, 20.0, &fine);
    assert_lt(err_fine, 1e-11);
}

/* No step passes t_stop: rk4's last step is shortened to it, the others' end on it. */
static void t_stop_ends_the_last_step(void **state)
{
    (void)state;
    const lgc_stepper_type *types[] = {lgc_step_rk4, lgc_step_dopri5, lgc_step_adams, lgc_step_bdf};
    for (int i = 0; i < 4; i++) {
        lgc_system sys;
        lgc_driver_options o;
        lgc_driver_options_default(&o);
        o.project = LGC_PROJECT_NONE;
        o.type = types[i];
        o.h = types[i]->adaptive ? 0.0 : 0.3;
        o.rtol = 1e-10;
        o.t_stop = 1.0;
        assert_int_equal(lgc_system_init(&sys, &oscillator_model), LGC_OK);
        lgc_driver *d = lgc_driver_alloc(&sys, &o);
        assert_non_null(d);
        double x[2];
        assert_int_equal(lgc_driver_reset(d, 0.0, oscillator_model.initial_state), LGC_OK);
        assert_int_equal(lgc_driver_advance(d, 1.0, x), LGC_OK);
        assert_eq(lgc_driver_time(d), 1.0);
        assert_int_equal(lgc_driver_advance(d, 1.0 + 1e-9, x), LGC_ERR_ARG);
        lgc_stats st;
        lgc_driver_stats(d, &st);
        print_message("  %s: %lu steps to t_stop = 1, h from %.3g to %.3g, error %.1e\n",
                      types[i]->name, st.steps, st.h_min, st.h_max, fabs(x[0] - cos(1.0)));
        if (!types[i]->adaptive) {
            assert_int_equal(st.steps, 4);  /* 0.3, 0.6, 0.9, then 0.1 to 1 */
            assert_le(fabs(st.h_max - 0.3), 1e-15);
            assert_le(fabs(st.h_min - 0.1), 1e-15);
        }
        /* CVODE's error at one rtol is some ten times dopri5's */
        assert_le(fabs(x[0] - cos(1.0)), !types[i]->adaptive ? 1e-3 : types[i]->step ? 1e-8 : 1e-9);
        lgc_driver_free(d);
        lgc_system_free(&sys);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dopri5_dense_output),
        cmocka_unit_test(dopri5_dense_output_between_steps),
        cmocka_unit_test(cvode_dense_output),
        cmocka_unit_test(rk4_samples_between_steps),
        cmocka_unit_test(t_stop_ends_the_last_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
