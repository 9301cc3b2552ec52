/*
** test_stiff.c — the two stiff spring pendulums: a fast mode along the
** spring (1000 rad/s) under a 3.13 rad/s swing, overdamped
** (specs/spring_pendulum.toml, -3732/s: dead after t = 0.1) and lightly
** damped (specs/spring_pendulum_light.toml, -100 +- 995i/s). The fast mode
** holds explicit steps below ~1e-3 s for the whole run, where BDF follows
** the slow swing. Issue 14's target on the overdamped one: at rtol 1e-6
** (simulate's atol, 1e-10) bdf needs at most 1/20 of dopri5's rhs
** evaluations to t = 10 and lands within 1e-4 of a tight reference. On the
** lightly damped one bdf's higher orders are unstable for a range of steps
** (the root's angle, 84 degrees, lies outside BDF4's and BDF5's stability
** sectors): within 1e-4 with at most 1/3 of dopri5's evaluations, what it
** achieves (issue 28 asks 1/15; BENCHMARKS.md "Methods" says why not).
** On both, CVODE renews df/dx by its own heuristics: at most one Jacobian
** per two steps (a new one at every step before issue 28). Counts, not
** times: the same on any machine.
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
#include "spring_pendulum_light.h"

_Static_assert(SPRING_PENDULUM_NX == SPRING_PENDULUM_LIGHT_NX, "both springs have the same state");
enum { NX = SPRING_PENDULUM_NX };

/* The state at t = 10 into x; the run's counts into st. */
static void run_to_10(const lgc_model *model, const lgc_stepper_type *type, double rtol, double atol,
                      double x[NX], lgc_stats *st)
{
    lgc_system sys;
    assert_int_equal(lgc_system_init(&sys, model), LGC_OK);
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
    assert_int_equal(lgc_driver_reset(d, 0.0, model->initial_state), LGC_OK);
    assert_int_equal(lgc_driver_advance(d, 10.0, x), LGC_OK);
    lgc_driver_stats(d, st);
    lgc_driver_free(d);
    lgc_system_free(&sys);
}

static double distance(const double a[], const double b[])
{
    double worst = 0.0;
    for (int i = 0; i < NX; i++)
        worst = fmax(worst, fabs(a[i] - b[i]));
    return worst;
}

/* bdf at rtol 1e-6 against dopri5: within 1e-4, at most 1/ratio of its evaluations. */
static void bdf_against_dopri5(const lgc_model *model, unsigned long ratio)
{
    double reference[NX], check[NX], bdf[NX], dopri5[NX];
    lgc_stats st_ref, st_check, st_bdf, st_dopri5;
    run_to_10(model, lgc_step_dopri5, 1e-11, 1e-14, reference, &st_ref);
    run_to_10(model, lgc_step_bdf, 1e-11, 1e-14, check, &st_check);
    run_to_10(model, lgc_step_bdf, 1e-6, 1e-10, bdf, &st_bdf);
    run_to_10(model, lgc_step_dopri5, 1e-6, 1e-10, dopri5, &st_dopri5);
    print_message("  %s, rtol 1e-6: bdf %lu rhs evaluations, %lu steps, %lu Jacobians, error %.2e; "
                  "dopri5 %lu, error %.2e (ratio %.1f, at least %lu asked); references agree to %.1e\n",
                  model->name, st_bdf.nfev, st_bdf.steps, st_bdf.njev, distance(bdf, reference),
                  st_dopri5.nfev, distance(dopri5, reference), (double)st_dopri5.nfev / st_bdf.nfev, ratio,
                  distance(check, reference));
    assert_le(distance(check, reference), 1e-7);
    assert_le(ratio * st_bdf.nfev, st_dopri5.nfev);
    assert_le(distance(bdf, reference), 1e-4);
    assert_le(2 * st_bdf.njev, st_bdf.steps);
}

static void overdamped_bdf_takes_a_twentieth_of_dopri5s_evaluations(void **state)
{
    (void)state;
    bdf_against_dopri5(&spring_pendulum_model, 20);
}

static void lightly_damped_bdf_takes_a_third_of_dopri5s_evaluations(void **state)
{
    (void)state;
    bdf_against_dopri5(&spring_pendulum_light_model, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(overdamped_bdf_takes_a_twentieth_of_dopri5s_evaluations),
        cmocka_unit_test(lightly_damped_bdf_takes_a_third_of_dopri5s_evaluations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
