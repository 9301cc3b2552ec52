/*
** test_alloc.c — no heap traffic inside steps: this binary interposes
** malloc, calloc, realloc and free (forwarding to glibc) and counts calls
** made while stepping, OpenBLAS/LAPACK included (the LAPACK KKT path too).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "bouncing_ball.h"
#include "chain_kkt.h"
#include "chain_kkt_vak.h"
#include "check.h"
#include "knife_edge.h"
#include "lagrangec/driver.h"
#include "lagrangec/model.h"
#include "lagrangec/monitor.h"
#include "lagrangec/status.h"
#include "pendulum.h"
#include "run_util.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static int counting;
static unsigned long heap_calls;

void *malloc(size_t n)
{
    heap_calls += counting;
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    heap_calls += counting;
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    heap_calls += counting;
    return __libc_realloc(p, n);
}

void free(void *p)
{
    heap_calls += counting;
    __libc_free(p);
}

/*
** At least nsteps steps (each tracked) with counting on, sampled every
** `sample` by the monitor: at step ends and, between them, from the
** stepper's interpolant (corrected like the steps).
*/
static void count_steps(const lgc_model *m, const lgc_driver_options *o, unsigned long nsteps,
                        double sample)
{
    lgc_system sys;
    lgc_monitor mon;
    run_tracker tr = {&mon, &sys};
    double x[CHAIN_KKT_NX];
    assert_le(m->nx, CHAIN_KKT_NX);
    assert_int_equal(lgc_system_init(&sys, m), LGC_OK);
    assert_int_equal(lgc_monitor_init(&mon, m), LGC_OK);
    /* Setup does allocate: proof the interposition sees the library's calls. */
    heap_calls = 0;
    counting = 1;
    lgc_driver *d = lgc_driver_alloc(&sys, o);
    counting = 0;
    assert_non_null(d);
    assert_gt(heap_calls, 0);
    assert_int_equal(lgc_driver_reset(d, 0.0, m->initial_state), LGC_OK);
    lgc_driver_observe(d, run_track, &tr);
    unsigned long before;
    lgc_stats st;
    int rc = LGC_OK;
    heap_calls = 0;
    counting = 1;
    for (long k = 1; rc == LGC_OK; k++) {
        rc = lgc_driver_advance(d, k * sample, x);
        if (rc == LGC_OK)
            rc = lgc_monitor_sample(&mon, &sys, k * sample, x);
        lgc_driver_stats(d, &st);
        if (st.steps >= nsteps)
            break;
    }
    counting = 0;
    before = heap_calls;
    print_message("  %s %s project %d metric %d: %lu steps, %lu samples to t = %g, %lu heap calls\n",
                  m->name, o->type->name, o->project, o->metric, st.steps, mon.count,
                  lgc_driver_time(d), before);
    assert_int_equal(rc, LGC_OK);
    assert_ge(st.steps, nsteps);
    assert_int_equal(before, 0);
    lgc_driver_free(d);
    lgc_monitor_free(&mon);
    lgc_system_free(&sys);
}

/* Every stepper, every correction, both metrics; holonomic and nonholonomic rows. */
static void no_stepper_or_correction_allocates(void **state)
{
    (void)state;
    const lgc_model *models[] = {&pendulum_model, &knife_edge_model};
    const lgc_stepper_type *types[] = {lgc_step_rk4, lgc_step_dopri5, lgc_step_adams, lgc_step_bdf};
    for (int m = 0; m < 2; m++)
        for (int t = 0; t < 4; t++)
            for (int project = LGC_PROJECT_NONE; project <= LGC_PROJECT_FULL; project++)
                for (int metric = LGC_METRIC_IDENTITY; metric <= LGC_METRIC_MASS; metric++) {
                    lgc_driver_options o;
                    lgc_driver_options_default(&o);
                    o.type = types[t];
                    o.h = types[t]->adaptive ? 0.0 : 1e-3;
                    o.rtol = o.atol = 1e-10;
                    o.project = (lgc_project_mode)project;
                    o.metric = (lgc_metric)metric;
                    /*
                    ** Samples between steps: rk4's Hermite, dopri5's and CVODE's own
                    ** interpolants. Once the knife edge runs straight, CVODE's steps
                    ** grow to hundreds of seconds: 300 steps come by t = 100.
                    */
                    count_steps(models[m], &o, types[t]->step ? 300 : 10000,
                                types[t]->adaptive ? 0.0137 : 0.37e-3);
                }
}

/* The rhs through the runtime's LAPACK KKT solve (kkt_lapack.c). */
static void lapack_kkt_path_allocates_nothing(void **state)
{
    (void)state;
    lgc_system sys;
    assert_int_equal(lgc_system_init(&sys, &chain_kkt_model), LGC_OK);
    check(lgc_system_uses_lapack(&sys), "the 40-link chain does not take the LAPACK solve");
    lgc_system_free(&sys);
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.h = 1e-3;
    o.project = LGC_PROJECT_FULL;
    o.metric = LGC_METRIC_MASS;
    count_steps(&chain_kkt_model, &o, 1000, 1e-3);
}

/* CVODE's difference-quotient Jacobian: a model generated without one (vakonomic, too). */
static void bdf_without_a_generated_jacobian_allocates_nothing(void **state)
{
    (void)state;
    assert_null(chain_kkt_vak_model.jacobian);
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.type = lgc_step_bdf;
    o.h = 0.0;
    o.project = LGC_PROJECT_FULL;
    count_steps(&chain_kkt_vak_model, &o, 300, 0.0137);
}

/*
** Steps that switch contacts (the ball's impacts and its coming to rest:
** events located, Newton's law applied, the method restarted) allocate no
** more than plain ones.
*/
static void no_contact_switch_allocates(void **state)
{
    (void)state;
    const lgc_stepper_type *types[] = {lgc_step_rk4, lgc_step_dopri5, lgc_step_adams, lgc_step_bdf};
    for (int t = 0; t < 4; t++) {
        lgc_driver_options o;
        lgc_driver_options_default(&o);
        o.type = types[t];
        o.h = types[t]->adaptive ? 0.0 : 1e-3;
        o.rtol = o.atol = 1e-10;
        o.project = LGC_PROJECT_FULL;
        o.metric = LGC_METRIC_MASS;
        count_steps(&bouncing_ball_model, &o, types[t]->adaptive ? 100 : 3000, types[t]->adaptive ? 0.0137 : 0.37e-3);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_stepper_or_correction_allocates),
        cmocka_unit_test(no_contact_switch_allocates),
        cmocka_unit_test(lapack_kkt_path_allocates_nothing),
        cmocka_unit_test(bdf_without_a_generated_jacobian_allocates_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
