/*
** test_events.c — outputs and events of a spec (tests/runtime/specs/
** pendulum_events.toml) against closed forms, under every stepper: the
** Cartesian pendulum released from rest at theta0 = 1.2 crosses x = 0 at
** odd multiples of the quarter period K(sin(theta0/2)) sqrt(l/g) (K the
** complete elliptic integral of the first kind), and stops at t = t_stop;
** the rod's tension from its multiplier, the energy and the angular
** momentum follow from energy conservation.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "check.h"
#include "lagrangec/driver.h"
#include "lagrangec/monitor.h"
#include "lagrangec/status.h"
#include "pendulum_events.h"

static const double m = 1.3, l = 0.8, g = 9.81, theta0 = 1.2, t_stop = 2.5;

/* K(k) = pi / (2 AGM(1, sqrt(1 - k^2))). */
static double elliptic_k(double k)
{
    double a = 1.0, b = sqrt(1.0 - k * k);
    for (int i = 0; i < 40 && fabs(a - b) > 1e-17 * a; i++) {
        const double an = 0.5 * (a + b);
        b = sqrt(a * b);
        a = an;
    }
    return 2.0 * atan(1.0) / a;   /* pi / (2 a) */
}

static double quarter_period(void)
{
    return elliptic_k(sin(theta0 / 2.0)) * sqrt(l / g);
}

/* Each stepper asked for about 1e-12 of accuracy. */
static void options(lgc_driver_options *opt, const lgc_stepper_type *type)
{
    lgc_driver_options_default(opt);
    opt->type = type;
    opt->h = type->adaptive ? 0.0 : 5e-4;
    opt->rtol = 1e-12;
    opt->atol = 1e-13;
    opt->project = LGC_PROJECT_FULL;
}

typedef struct met {
    int n;
    int event[16];
    double t[16];
    double x0[16];      /* x at the event */
} met;

static int note(void *ctx, int event, double t, const double x[])
{
    met *e = ctx;
    if (e->n < 16) {
        e->event[e->n] = event;
        e->t[e->n] = t;
        e->x0[e->n] = x[0];
    }
    e->n++;
    return LGC_OK;
}

static const lgc_stepper_type *const *steppers(void)
{
    static const lgc_stepper_type *types[5];
    types[0] = lgc_step_rk4, types[1] = lgc_step_dopri5, types[2] = lgc_step_adams;
    types[3] = lgc_step_bdf, types[4] = NULL;
    return types;
}

static void crossings_at_odd_quarter_periods(void **state)
{
    (void)state;
    const lgc_model *model = &pendulum_events_model;
    const double quarter = quarter_period();
    for (const lgc_stepper_type *const *type = steppers(); *type; type++) {
        lgc_system sys;
        lgc_driver_options opt;
        assert_int_equal(lgc_system_init(&sys, model), LGC_OK);
        options(&opt, *type);
        lgc_driver *d = lgc_driver_alloc(&sys, &opt);
        assert_non_null(d);
        met e = {0};
        lgc_driver_observe_events(d, note, &e);
        double x[4];
        assert_int_equal(lgc_driver_reset(d, 0.0, model->initial_state), LGC_OK);
        /* Samples every 0.1 to past the stop: the last one is the state at it. */
        for (int k = 1; k <= 30; k++) {
            assert_int_equal(lgc_driver_advance(d, 0.1 * k, x), LGC_OK);
            if (0.1 * k >= lgc_driver_stop_time(d))
                break;
        }
        /* crossing at T/4, 3T/4, 5T/4 (< t_stop), then the stop */
        assert_int_equal(e.n, 4);
        double worst = 0.0;
        for (int j = 0; j < 3; j++) {
            assert_int_equal(e.event[j], 0);
            worst = fmax(worst, fabs(e.t[j] - (2 * j + 1) * quarter));
            assert_le(fabs(e.x0[j]), 1e-9);
        }
        assert_int_equal(e.event[3], 1);
        const double stop_error = fabs(e.t[3] - t_stop);
        print_message("  %-6s quarter period %.15f: max |t - (2j+1) T/4| = %.2e over 3 crossings; "
                      "|t_stop error| = %.2e\n", (*type)->name, quarter, worst, stop_error);
        assert_le(worst, 1e-9);
        assert_le(stop_error, 4 * 2.2e-16 * t_stop);
        assert_eq(lgc_driver_stop_time(d), e.t[3]);
        lgc_driver_free(d);
        lgc_system_free(&sys);
    }
}

/* The outputs at samples, against their closed forms along the motion. */
static void outputs_follow_closed_forms(void **state)
{
    (void)state;
    const lgc_model *model = &pendulum_events_model;
    assert_int_equal(model->nout, 3);
    assert_string_equal(model->output_names[0], "tension");
    for (const lgc_stepper_type *const *type = steppers(); *type; type++) {
        lgc_system sys;
        lgc_monitor mon;
        lgc_driver_options opt;
        assert_int_equal(lgc_system_init(&sys, model), LGC_OK);
        assert_int_equal(lgc_monitor_init(&mon, model), LGC_OK);
        options(&opt, *type);
        lgc_driver *d = lgc_driver_alloc(&sys, &opt);
        assert_non_null(d);
        double x[4], worst[3] = {0.0, 0.0, 0.0};
        assert_int_equal(lgc_driver_reset(d, 0.0, model->initial_state), LGC_OK);
        for (int k = 0; k <= 200; k++) {
            const double t = 0.01 * k;
            assert_int_equal(lgc_driver_advance(d, t, x), LGC_OK);
            assert_int_equal(lgc_monitor_sample(&mon, &sys, t, x), LGC_OK);
            const double cos_theta = -x[1] / l, c0 = cos(theta0);
            const double expect[3] = {m * g * (3.0 * cos_theta - 2.0 * c0), -m * g * l * c0,
                                      m * l * l * sqrt(fmax(0.0, 2.0 * g / l * (cos_theta - c0)))};
            const double got[3] = {mon.s.out[0], mon.s.out[1], fabs(mon.s.out[2])};
            for (int i = 0; i < 3; i++)
                worst[i] = fmax(worst[i], fabs(got[i] - expect[i]));
        }
        print_message("  %-6s max |error| over 201 samples: tension %.2e, energy %.2e, "
                      "angular momentum %.2e\n", (*type)->name, worst[0], worst[1], worst[2]);
        assert_le(worst[0], 1e-8);
        assert_le(worst[1], 1e-8);
        assert_le(worst[2], 1e-6);
        lgc_driver_free(d);
        lgc_monitor_free(&mon);
        lgc_system_free(&sys);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crossings_at_odd_quarter_periods),
        cmocka_unit_test(outputs_follow_closed_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
