/*
** test_alloc.c — no heap traffic inside steps: this binary interposes
** malloc, calloc, realloc and free (forwarding to glibc) and counts calls
** made while stepping, OpenBLAS/LAPACK included (the LAPACK KKT path too).
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "chain_kkt.h"
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

/* At least nsteps steps (each tracked) and monitor samples with counting on. */
static void count_steps(const lgc_model *m, const lgc_driver_options *o, unsigned long nsteps)
{
    lgc_system sys;
    lgc_monitor mon;
    run_tracker tr = {&mon, &sys};
    double x[CHAIN_KKT_NX];
    assert_true(m->nx <= CHAIN_KKT_NX);
    assert_int_equal(lgc_system_init(&sys, m), LGC_OK);
    assert_int_equal(lgc_monitor_init(&mon, m), LGC_OK);
    /* Setup does allocate: proof the interposition sees the library's calls. */
    heap_calls = 0;
    counting = 1;
    lgc_driver *d = lgc_driver_alloc(&sys, o);
    counting = 0;
    assert_non_null(d);
    assert_true(heap_calls > 0);
    assert_int_equal(lgc_driver_reset(d, 0.0, m->initial_state), LGC_OK);
    lgc_driver_observe(d, run_track, &tr);
    const double dt = o->type->adaptive ? 1.0 : o->h;
    unsigned long before;
    lgc_stats st;
    int rc = LGC_OK;
    heap_calls = 0;
    counting = 1;
    for (long k = 1; rc == LGC_OK; k++) {
        rc = lgc_driver_advance(d, k * dt, x);
        if (rc == LGC_OK)
            rc = lgc_monitor_sample(&mon, &sys, k * dt, x);
        lgc_driver_stats(d, &st);
        if (st.steps >= nsteps)
            break;
    }
    counting = 0;
    before = heap_calls;
    print_message("  %s project %d metric %d: %lu steps to t = %g, %lu heap calls\n",
                  o->type->name, o->project, o->metric, st.steps, lgc_driver_time(d),
                  before);
    assert_int_equal(rc, LGC_OK);
    assert_true(st.steps >= nsteps);
    assert_int_equal(before, 0);
    lgc_driver_free(d);
    lgc_monitor_free(&mon);
    lgc_system_free(&sys);
}

static void rk4_full_mass_allocates_nothing(void **state)
{
    (void)state;
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.h = 1e-3;
    o.project = LGC_PROJECT_FULL;
    o.metric = LGC_METRIC_MASS;
    count_steps(&pendulum_model, &o, 100000);
    o.metric = LGC_METRIC_IDENTITY;
    count_steps(&pendulum_model, &o, 100000);
}

static void dopri5_velocity_allocates_nothing(void **state)
{
    (void)state;
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.type = lgc_step_dopri5;
    o.h = 0.0;
    o.rtol = 1e-12;
    o.atol = 1e-12;
    o.project = LGC_PROJECT_VELOCITY;
    o.metric = LGC_METRIC_MASS;
    count_steps(&knife_edge_model, &o, 100000);
    o.project = LGC_PROJECT_FULL;
    count_steps(&pendulum_model, &o, 100000);
}

/* The rhs through the runtime's LAPACK KKT solve (kkt_lapack.c). */
static void lapack_kkt_path_allocates_nothing(void **state)
{
    (void)state;
    lgc_system sys;
    assert_int_equal(lgc_system_init(&sys, &chain_kkt_model), LGC_OK);
    assert_true(lgc_system_uses_lapack(&sys));
    lgc_system_free(&sys);
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.h = 1e-3;
    o.project = LGC_PROJECT_FULL;
    o.metric = LGC_METRIC_MASS;
    count_steps(&chain_kkt_model, &o, 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rk4_full_mass_allocates_nothing),
        cmocka_unit_test(dopri5_velocity_allocates_nothing),
        cmocka_unit_test(lapack_kkt_path_allocates_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
