/*
** test_monitor.c — lgc_monitor_track as the driver's step observer gives the
** extremes over every accepted step: against residuals and energy computed
** directly at each step of a second, step-by-step run.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "check.h"

#include "lagrangec/driver.h"
#include "lagrangec/model.h"
#include "lagrangec/monitor.h"
#include "lagrangec/status.h"
#include "pendulum.h"
#include "run_util.h"

/* Uncorrected coarse RK4 (drifting residuals), one advance to t_end. */
static void maxima_over_every_step(void **state)
{
    (void)state;
    const lgc_model *m = &pendulum_model;
    const double h = 1e-2, t_end = 10.0;
    lgc_system sys;
    lgc_monitor mon;
    run_tracker tr = {&mon, &sys};
    double x[PENDULUM_NX], phi, phi_dot;
    assert_int_equal(lgc_system_init(&sys, m), LGC_OK);
    sys.alpha = sys.beta = 0.0;
    assert_int_equal(lgc_monitor_init(&mon, m), LGC_OK);
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.type = lgc_step_rk4;
    o.project = LGC_PROJECT_NONE;
    o.h = h;
    lgc_driver *d = lgc_driver_alloc(&sys, &o);
    assert_non_null(d);

    /* Direct: every step's state, one advance per step. */
    assert_int_equal(lgc_driver_reset(d, 0.0, pendulum_horizontal), LGC_OK);
    const double e0 = m->energy(0.0, pendulum_horizontal, sys.p);
    assert_eq(e0, 0.0);    /* so the drift is absolute */
    double max_phi = 0.0, max_phi_dot = 0.0, max_drift = 0.0;
    const long n = lround(t_end / h);
    for (long k = 1; k <= n; k++) {
        assert_int_equal(lgc_driver_advance(d, k * h, x), LGC_OK);
        m->residuals(k * h, x, sys.p, &phi, &phi_dot, NULL);
        max_phi = fmax(max_phi, fabs(phi));
        max_phi_dot = fmax(max_phi_dot, fabs(phi_dot));
        max_drift = fmax(max_drift, fabs(m->energy(k * h, x, sys.p) - e0));
    }

    /* Tracked: the initial state, then the observer in one advance. */
    assert_int_equal(lgc_driver_reset(d, 0.0, pendulum_horizontal), LGC_OK);
    assert_int_equal(lgc_monitor_track(&mon, &sys, 0.0, pendulum_horizontal), LGC_OK);
    lgc_driver_observe(d, run_track, &tr);
    assert_int_equal(lgc_driver_advance(d, t_end, x), LGC_OK);
    print_message("  max |phi| %.6e (direct %.6e), |phi'| %.6e (%.6e), dE %.6e (%.6e)\n",
                  mon.max_phi, max_phi, mon.max_phi_dot, max_phi_dot,
                  mon.max_energy_drift, max_drift);
    assert_int_equal(mon.tracked, n + 1);
    assert_int_equal(mon.count, 0);
    assert_gt(max_phi, 1e-8);    /* it did drift */
    assert_gt(max_drift, 1e-8);
    assert_le(fabs(mon.max_phi - max_phi), 1e-9 * max_phi);
    assert_le(fabs(mon.max_phi_dot - max_phi_dot), 1e-9 * max_phi_dot);
    assert_le(fabs(mon.max_energy_drift - max_drift), 1e-9 * max_drift);
    lgc_driver_free(d);
    lgc_monitor_free(&mon);
    lgc_system_free(&sys);
}

/*
** Corrected RK4: the residuals stay at round-off and most steps change no
** extreme (the monitor's short fold), some set a new one (its full fold).
** Every maximum is the one over the steps taken directly, exactly; a state
** with a NaN after them is refused and changes nothing.
*/
static void extremes_are_exact_over_quiet_and_new_steps(void **state)
{
    (void)state;
    const lgc_model *m = &pendulum_model;
    const double h = 1e-2, t_end = 10.0;
    lgc_system sys;
    lgc_monitor mon;
    run_tracker tr = {&mon, &sys};
    double x[PENDULUM_NX], r[2], row_max[2] = {0.0, 0.0}, max_drift = 0.0;
    assert_int_equal(lgc_system_init(&sys, m), LGC_OK);
    assert_int_equal(lgc_monitor_init(&mon, m), LGC_OK);
    mon.forces = 0;
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.type = lgc_step_rk4;
    o.h = h;
    lgc_driver *d = lgc_driver_alloc(&sys, &o);
    assert_non_null(d);

    assert_int_equal(lgc_driver_reset(d, 0.0, pendulum_horizontal), LGC_OK);
    const long n = lround(t_end / h);
    double e0 = 0.0;
    long records = 0;
    for (long k = 0; k <= n; k++) {
        assert_int_equal(lgc_driver_advance(d, k * h, x), LGC_OK);
        m->residuals(k * h, x, sys.p, &r[0], &r[1], NULL);
        const double e = m->integral_value(k * h, x, sys.p);
        if (k == 0)
            e0 = e;
        const double drift = fabs(e - e0) / (e0 != 0.0 ? fabs(e0) : 1.0);
        int record = 0;     /* a new row maximum: the full fold (a new drift alone is the short one's) */
        max_drift = fmax(max_drift, drift);
        for (int i = 0; i < 2; i++) {
            record |= fabs(r[i]) > row_max[i];
            row_max[i] = fmax(row_max[i], fabs(r[i]));
        }
        records += record;
    }

    assert_int_equal(lgc_driver_reset(d, 0.0, pendulum_horizontal), LGC_OK);
    assert_int_equal(lgc_monitor_track(&mon, &sys, 0.0, pendulum_horizontal), LGC_OK);
    lgc_driver_observe(d, run_track, &tr);
    assert_int_equal(lgc_driver_advance(d, t_end, x), LGC_OK);
    print_message("  %ld of %ld states set a row's maximum; max |phi| %.17g (direct %.17g), |phi'| %.17g (%.17g), "
                  "drift %.17g (%.17g)\n", records, n + 1, mon.max_residual[0], row_max[0],
                  mon.max_residual[1], row_max[1], mon.max_energy_drift, max_drift);
    assert_lt(records, n / 10);   /* most steps take the short fold */
    assert_eq(mon.max_residual[0], row_max[0]);
    assert_eq(mon.max_residual[1], row_max[1]);
    assert_eq(mon.max_phi, row_max[0]);
    assert_eq(mon.max_phi_dot, row_max[1]);
    assert_eq(mon.max_energy_drift, max_drift);

    /* A NaN in the state: refused, nothing folded in. */
    const double before[3] = {mon.max_residual[0], mon.max_residual[1], mon.max_energy_drift};
    const unsigned long tracked = mon.tracked;
    x[2] = NAN;
    assert_int_equal(lgc_monitor_track(&mon, &sys, t_end + h, x), LGC_ERR_NONFINITE);
    assert_eq(mon.max_residual[0], before[0]);
    assert_eq(mon.max_residual[1], before[1]);
    assert_eq(mon.max_energy_drift, before[2]);
    assert_int_equal(mon.tracked, tracked);
    lgc_driver_free(d);
    lgc_monitor_free(&mon);
    lgc_system_free(&sys);
}

/* A failing observer stops the advance at the last good state. */
static int refuse_after_half(void *ctx, double t, const double x[])
{
    (void)ctx;
    (void)x;
    return t > 0.5005 ? LGC_ERR_NONFINITE : LGC_OK;
}

static void observer_status_ends_advance(void **state)
{
    (void)state;
    lgc_system sys;
    double x[PENDULUM_NX];
    assert_int_equal(lgc_system_init(&sys, &pendulum_model), LGC_OK);
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.type = lgc_step_rk4;
    o.h = 1e-3;
    o.project = LGC_PROJECT_NONE;
    lgc_driver *d = lgc_driver_alloc(&sys, &o);
    assert_non_null(d);
    assert_int_equal(lgc_driver_reset(d, 0.0, pendulum_horizontal), LGC_OK);
    lgc_driver_observe(d, refuse_after_half, NULL);
    assert_int_equal(lgc_driver_advance(d, 1.0, x), LGC_ERR_NONFINITE);
    assert_lt(fabs(lgc_driver_time(d) - 0.5), 1e-9);    /* h = 1e-3 */
    lgc_driver_free(d);
    lgc_system_free(&sys);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(maxima_over_every_step),
        cmocka_unit_test(extremes_are_exact_over_quiet_and_new_steps),
        cmocka_unit_test(observer_status_ends_advance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
