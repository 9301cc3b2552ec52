/*
** test_max_step.c — lgc_driver_options.max_step: no adaptive step longer.
** The ball of tests/runtime/specs/throw.toml, thrown up at v0 = 5 from
** z = 0, passes z = h = 1 at t = (v0 -+ sqrt(v0^2 - 2 g h))/g, 0.47 s
** apart; at the default tolerances the steps on its parabola grow past
** that, and a step across the apex sees neither crossing (dopri5 and
** adams miss both). Held to 0.1, dopri5, adams and bdf, with the model's
** Jacobian and with difference quotients, find both to 1e-8 and take no
** longer step. The pendulum of pendulum_events.toml keeps the bound under
** every correction; a first step longer than it is shortened; rk4's fixed
** step longer than it, and a bound that is not a number above 0, are
** refused; a bound below the round-off of t is an underflow.
*/
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "check.h"
#include "lagrangec/driver.h"
#include "lagrangec/status.h"
#include "pendulum_events.h"
#include "throw.h"

static const double v0 = 5.0, g = 9.81, h = 1.0, t_end = 1.0;
enum { UP, DOWN };  /* throw.toml's events, in its order */

/* The largest step a run held to max_step may report: t1 - t0 carries t's round-off. */
static double bound_with_roundoff(double max_step, double t)
{
    return max_step + 4.0 * DBL_EPSILON * t;
}

static const lgc_stepper_type *const *adaptive_steppers(void)
{
    static const lgc_stepper_type *types[4];
    types[0] = lgc_step_dopri5, types[1] = lgc_step_adams, types[2] = lgc_step_bdf, types[3] = NULL;
    return types;
}

/* The model as generated, or without its Jacobian (CVODE's Newton on difference quotients). */
static lgc_model variant(const lgc_model *m, int jacobian)
{
    lgc_model v = *m;
    if (!jacobian)
        v.jacobian = NULL;
    return v;
}

typedef struct met {
    int n;
    int event[8];
    double t[8];
} met;

static int note(void *ctx, int event, double t, const double x[])
{
    met *e = ctx;
    (void)x;
    if (e->n < 8) {
        e->event[e->n] = event;
        e->t[e->n] = t;
    }
    e->n++;
    return LGC_OK;
}

/* The default tolerances (rtol 1e-8, atol 1e-10), no step past t_end, steps no longer than max_step. */
static void options(lgc_driver_options *opt, const lgc_stepper_type *type, double max_step)
{
    lgc_driver_options_default(opt);
    opt->project = LGC_PROJECT_NONE;
    opt->type = type;
    opt->h = 0.0;
    opt->t_stop = t_end;
    opt->max_step = max_step;
}

/* The ball from the spec's start to t_end: its events into e, the counters into st. */
static void throw_ball(const lgc_model *model, const lgc_stepper_type *type, double max_step, met *e,
                       lgc_stats *st)
{
    lgc_system sys;
    lgc_driver_options opt;
    double x[2];
    assert_int_equal(lgc_system_init(&sys, model), LGC_OK);
    options(&opt, type, max_step);
    lgc_driver *d = lgc_driver_alloc(&sys, &opt);
    assert_non_null(d);
    *e = (met){0};
    lgc_driver_observe_events(d, note, e);
    assert_int_equal(lgc_driver_reset(d, 0.0, model->initial_state), LGC_OK);
    assert_int_equal(lgc_driver_advance(d, t_end, x), LGC_OK);
    lgc_driver_stats(d, st);
    lgc_driver_free(d);
    lgc_system_free(&sys);
}

static void a_bounded_step_finds_the_crossing_and_its_return(void **state)
{
    (void)state;
    const double root = sqrt(v0 * v0 - 2.0 * g * h);
    const double t_up = (v0 - root) / g, t_down = (v0 + root) / g, max_step = 0.1;
    for (const lgc_stepper_type *const *type = adaptive_steppers(); *type; type++)
        for (int jacobian = 1; jacobian >= 0; jacobian--) {
            const lgc_model model = variant(&throw_model, jacobian);
            met free_run, held;
            lgc_stats free_stats, held_stats;
            throw_ball(&model, *type, INFINITY, &free_run, &free_stats);
            throw_ball(&model, *type, max_step, &held, &held_stats);
            print_message("  %-6s %-10s unbounded: %d of 2 crossings, longest step %.3f; "
                          "held to %g: %d, |t - t_up| = %.1e, |t - t_down| = %.1e, longest %.17g\n",
                          (*type)->name, jacobian ? "jacobian" : "quotients", free_run.n,
                          free_stats.h_max, max_step, held.n, fabs(held.t[0] - t_up),
                          fabs(held.t[1] - t_down), held_stats.h_max);
            /* The bound is what the run turns on: unbounded, the steps outgrow it. */
            check(free_stats.h_max > max_step, "%s: unbounded, the longest step %.17g is within %g "
                  "already", (*type)->name, free_stats.h_max, max_step);
            assert_int_equal(held.n, 2);
            assert_int_equal(held.event[0], UP);
            assert_int_equal(held.event[1], DOWN);
            assert_le(fabs(held.t[0] - t_up), 1e-8);
            assert_le(fabs(held.t[1] - t_down), 1e-8);
            assert_le(held_stats.h_max, bound_with_roundoff(max_step, t_end));
            assert_ge(held_stats.steps, (unsigned long)(t_end / max_step));
        }
}

/* dopri5's first step given (h) or estimated, CVODE's given: none longer than the bound. */
static void a_first_step_longer_than_the_bound_is_shortened(void **state)
{
    (void)state;
    const double max_step = 0.05;
    for (const lgc_stepper_type *const *type = adaptive_steppers(); *type; type++) {
        lgc_system sys;
        lgc_driver_options opt;
        lgc_stats st;
        double x[2];
        assert_int_equal(lgc_system_init(&sys, &throw_model), LGC_OK);
        options(&opt, *type, max_step);
        opt.h = 0.5;
        lgc_driver *d = lgc_driver_alloc(&sys, &opt);
        assert_non_null(d);
        assert_int_equal(lgc_driver_reset(d, 0.0, throw_model.initial_state), LGC_OK);
        assert_le(lgc_driver_step_size(d), max_step);
        assert_int_equal(lgc_driver_advance(d, t_end, x), LGC_OK);
        lgc_driver_stats(d, &st);
        check(st.h_max <= bound_with_roundoff(max_step, t_end) && st.h_min <= max_step,
              "%s: steps from %.17g to %.17g, bound %g", (*type)->name, st.h_min, st.h_max, max_step);
        lgc_driver_free(d);
        lgc_system_free(&sys);
    }
}

/* The pendulum from the spec's start to its stop event (t = 2.5): its events into e, the counters into st. */
static void swing(const lgc_model *model, const lgc_stepper_type *type, lgc_project_mode mode,
                  double max_step, met *e, lgc_stats *st)
{
    lgc_system sys;
    lgc_driver_options opt;
    double x[4];
    assert_int_equal(lgc_system_init(&sys, model), LGC_OK);
    options(&opt, type, max_step);
    opt.t_stop = INFINITY;
    opt.project = mode;
    lgc_driver *d = lgc_driver_alloc(&sys, &opt);
    assert_non_null(d);
    *e = (met){0};
    lgc_driver_observe_events(d, note, e);
    assert_int_equal(lgc_driver_reset(d, 0.0, model->initial_state), LGC_OK);
    assert_int_equal(lgc_driver_advance(d, 3.0, x), LGC_OK);
    lgc_driver_stats(d, st);
    lgc_driver_free(d);
    lgc_system_free(&sys);
}

/*
** A constrained model, every correction: the pendulum released at theta0 =
** 1.2 crosses x = 0 three times and stops at t = 2.5 (test_events.c checks
** the times against the quarter period); held to 0.004, shorter than every
** stepper's longest step unbounded, it meets the same events with no step
** longer.
*/
static void every_correction_keeps_the_bound(void **state)
{
    (void)state;
    const double t_stop = 2.5, max_step = 0.004;
    const lgc_project_mode modes[] = {LGC_PROJECT_NONE, LGC_PROJECT_VELOCITY, LGC_PROJECT_FULL};
    for (const lgc_stepper_type *const *type = adaptive_steppers(); *type; type++)
        for (int jacobian = 1; jacobian >= 0; jacobian--)
            for (int k = 0; k < 3; k++) {
                const lgc_model model = variant(&pendulum_events_model, jacobian);
                met free_run, held;
                lgc_stats free_stats, held_stats;
                swing(&model, *type, modes[k], INFINITY, &free_run, &free_stats);
                swing(&model, *type, modes[k], max_step, &held, &held_stats);
                /* crossings, then the stop */
                assert_int_equal(free_run.n, 4);
                assert_int_equal(held.n, 4);
                double worst = 0.0;
                for (int j = 0; j < 3; j++)
                    worst = fmax(worst, fabs(held.t[j] - free_run.t[j]));
                print_message("  %-6s %-10s project %d: longest step %.3g unbounded, %.17g held to "
                              "%g; crossings %.1e from the unbounded run's\n", (*type)->name,
                              jacobian ? "jacobian" : "quotients", k, free_stats.h_max,
                              held_stats.h_max, max_step, worst);
                check(free_stats.h_max > max_step, "%s, project %d: unbounded, the longest step "
                      "%.17g is within %g already", (*type)->name, k, free_stats.h_max, max_step);
                assert_le(worst, 1e-6);  /* unbounded, bdf is 1.1e-7 off the quarter periods */
                assert_le(fabs(held.t[3] - t_stop), 1e-12);
                assert_le(held_stats.h_max, bound_with_roundoff(max_step, t_stop));
                assert_ge(held_stats.steps, (unsigned long)(t_stop / max_step));
            }
}

/* A fixed step longer than the bound, and a bound that is not a number above 0, make no driver. */
static void options_against_the_bound_are_refused(void **state)
{
    (void)state;
    lgc_system sys;
    lgc_driver_options opt;
    assert_int_equal(lgc_system_init(&sys, &throw_model), LGC_OK);
    options(&opt, lgc_step_rk4, 1e-4);
    opt.h = 1e-3;
    assert_null(lgc_driver_alloc(&sys, &opt));
    opt.max_step = opt.h;
    lgc_driver *d = lgc_driver_alloc(&sys, &opt);
    assert_non_null(d);
    lgc_driver_free(d);
    const double bad[] = {0.0, -0.1, NAN, -INFINITY};
    for (const lgc_stepper_type *const *type = adaptive_steppers(); *type; type++)
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            options(&opt, *type, bad[i]);
            d = lgc_driver_alloc(&sys, &opt);
            check(d == NULL, "%s: max_step %g made a driver", (*type)->name, bad[i]);
        }
    lgc_system_free(&sys);
}

/* Steps below the round-off of t would never end: an underflow, for every adaptive stepper. */
static void a_bound_below_the_roundoff_of_t_underflows(void **state)
{
    (void)state;
    for (const lgc_stepper_type *const *type = adaptive_steppers(); *type; type++) {
        lgc_system sys;
        lgc_driver_options opt;
        double x[2];
        assert_int_equal(lgc_system_init(&sys, &throw_model), LGC_OK);
        options(&opt, *type, 1e-300);
        opt.t_stop = INFINITY;
        lgc_driver *d = lgc_driver_alloc(&sys, &opt);
        assert_non_null(d);
        assert_int_equal(lgc_driver_reset(d, 1.0, throw_model.initial_state), LGC_OK);
        const int rc = lgc_driver_advance(d, 2.0, x);
        check(rc == LGC_ERR_STEP_UNDERFLOW, "%s: %s", (*type)->name, lgc_strerror(rc));
        lgc_driver_free(d);
        lgc_system_free(&sys);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_bounded_step_finds_the_crossing_and_its_return),
        cmocka_unit_test(a_first_step_longer_than_the_bound_is_shortened),
        cmocka_unit_test(every_correction_keeps_the_bound),
        cmocka_unit_test(options_against_the_bound_are_refused),
        cmocka_unit_test(a_bound_below_the_roundoff_of_t_underflows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
