/*
** test_stiff.c — the stiff spring pendulum (specs/spring_pendulum.toml):
** a dead fast mode (-3732/s) holds explicit steps below ~1e-3 s for the
** whole run, where BDF follows the slow swing. Issue 14's target: at rtol
** 1e-6 (simulate's atol, 1e-10) bdf needs at most 1/20 of dopri5's rhs
** evaluations to t = 10 and lands within 1e-4 of a tight reference.
** Counts, not times: the same on any machine.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "check.h"

#include "lagrangec/driver.h"
#include "lagrangec/status.h"
#include "spring_pendulum.h"

/* The state at t = 10 into x; the rhs evaluations it took. */
static unsigned long run_to_10(const lgc_stepper_type *type, double rtol, double atol,
                               double x[SPRING_PENDULUM_NX])
{
    lgc_system sys;
    assert_int_equal(lgc_system_init(&sys, &spring_pendulum_model), LGC_OK);
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.project = LGC_PROJECT_NONE;
    o.type = type;
    o.h = 0.0;
    o.rtol = rtol;
    o.atol = atol;
    o.t_stop = 10.0;
    lgc_driver *d = lgc_driver_alloc(&sys, &o);
    assert_non_null(d);
    assert_int_equal(lgc_driver_reset(d, 0.0, spring_pendulum_model.initial_state), LGC_OK);
    assert_int_equal(lgc_driver_advance(d, 10.0, x), LGC_OK);
    lgc_stats st;
    lgc_driver_stats(d, &st);
    lgc_driver_free(d);
    lgc_system_free(&sys);
    return st.nfev;
}

static double distance(const double a[], const double b[])
{
    double worst = 0.0;
    for (int i = 0; i < 2 * SPRING_PENDULUM_NQ; i++)
        worst = fmax(worst, fabs(a[i] - b[i]));
    return worst;
}

static void bdf_takes_a_twentieth_of_dopri5s_evaluations(void **state)
{
    (void)state;
    double reference[SPRING_PENDULUM_NX], check[SPRING_PENDULUM_NX];
    double bdf[SPRING_PENDULUM_NX], dopri5[SPRING_PENDULUM_NX];
    run_to_10(lgc_step_dopri5, 1e-11, 1e-14, reference);
    run_to_10(lgc_step_bdf, 1e-11, 1e-14, check);
    const unsigned long n_bdf = run_to_10(lgc_step_bdf, 1e-6, 1e-10, bdf);
    const unsigned long n_dopri5 = run_to_10(lgc_step_dopri5, 1e-6, 1e-10, dopri5);
    print_message("  rtol 1e-6: bdf %lu rhs evaluations, error %.2e; dopri5 %lu, error %.2e "
                  "(ratio %.1f); references agree to %.1e\n", n_bdf, distance(bdf, reference),
                  n_dopri5, distance(dopri5, reference), (double)n_dopri5 / n_bdf,
                  distance(check, reference));
    assert_le(distance(check, reference), 1e-7);
    assert_le(20 * n_bdf, n_dopri5);
    assert_le(distance(bdf, reference), 1e-4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bdf_takes_a_twentieth_of_dopri5s_evaluations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
