/*
** test_dense.c — samples land on requested times: dopri5's continuous
** extension and rk4's shortened steps against q = cos t (the generated
** specs/oscillator.toml, w = 1).
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lagrangec/driver.h"
#include "lagrangec/model.h"
#include "lagrangec/status.h"
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
    o.type = lgc_step_dopri5;
    o.h = 0.0;
    o.rtol = 1e-10;
    o.atol = 1e-12;
    unsigned long steps;
    double err = oscillator_error(&o, 0.0137, 20.0, &steps);
    print_message("  dopri5: %lu steps for 1460 samples, max error %.2e\n", steps, err);
    assert_true(steps < 1460);  /* the samples came from interpolation */
    assert_true(err < 1e-8);
}

/* Loose tolerance: many samples per step, all from the interpolant. */
static void dopri5_dense_output_between_steps(void **state)
{
    (void)state;
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.type = lgc_step_dopri5;
    o.h = 0.0;
    o.rtol = 1e-6;
    o.atol = 1e-8;
    unsigned long steps;
    double err = oscillator_error(&o, 0.001, 10.0, &steps);
    print_message("  dopri5 rtol 1e-6: %lu steps for 10001 samples, max error %.2e\n",
                  steps, err);
    assert_true(steps < 200);
    assert_true(err < 1e-5);
}

static void rk4_lands_on_samples(void **state)
{
    (void)state;
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.h = 1e-3;
    unsigned long steps;
    double err = oscillator_error(&o, 0.0137, 20.0, &steps);
    print_message("  rk4: %lu steps, max error %.2e\n", steps, err);
    assert_true(err < 1e-11);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(dopri5_dense_output),
        cmocka_unit_test(dopri5_dense_output_between_steps),
        cmocka_unit_test(rk4_lands_on_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
