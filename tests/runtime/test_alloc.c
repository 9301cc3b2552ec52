/*
** test_alloc.c — no heap traffic inside steps: this binary interposes
** malloc, calloc, realloc and free (forwarding to glibc) and counts calls
** made while stepping, OpenBLAS/LAPACK included (the LAPACK KKT path too),
** through the switches: contacts hitting (several rows at once), coming to
** rest and letting go,
** stop events, singular instants passed or refused.
*/
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "a02_n2.h"
#include "billiard_ball.h"
#include "bouncing_ball.h"
#include "chain_kkt.h"
#include "chain_kkt_vak.h"
#include "check.h"
#include "disk_link.h"
#include "flat_rod.h"
#include "knife_edge.h"
#include "lagrangec/driver.h"
#include "lagrangec/model.h"
#include "lagrangec/monitor.h"
#include "lagrangec/status.h"
#include "pendulum.h"
#include "pendulum_wall.h"
#include "run_util.h"
#include "painleve_rod.h"
#include "sled_wall.h"
#include "sphere.h"

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

/* A step observer: the monitor's tracking, and the sign changes of `watch` over the steps. */
typedef struct watcher {
    run_tracker tracker;
    double (*watch)(const double x[]);
    double last;
    unsigned long sign_changes;
} watcher;

static int watch_step(void *ctx, double t, const double x[])
{
    watcher *w = ctx;
    if (w->watch) {
        const double v = w->watch(x);
        w->sign_changes += (v < 0.0) != (w->last < 0.0);
        w->last = v;
    }
    return run_track(&w->tracker, t, x);
}

/* What a counted run did. */
typedef struct counted_run {
    int status;
    lgc_stats stats;
    double t;                   /* the driver's time at the end */
    double t_stop;              /* when a stop event ended the run; NAN: none did */
    unsigned long samples;
    unsigned long heap_calls;   /* while stepping and sampling */
    unsigned long sign_changes; /* of the watched function, over the accepted steps */
    unsigned long releases;     /* contacts that let go */
    unsigned long min_norm_rhs; /* rhs calls solved by the minimum-norm fallback (rank lost) */
    int nevent;                 /* the model's events: contacts' switches come after them */
} counted_run;

/* The driver's observer of events: counts the contacts' releases (event nevent + 2 c). */
static int count_release(void *ctx, int event, double t, const double x[])
{
    counted_run *r = ctx;
    (void)t;
    (void)x;
    r->releases += event >= r->nevent && (event - r->nevent) % 2 == 0;
    return LGC_OK;
}

/*
** From x0 (the model's start when NULL), sampled every `sample` by the
** monitor (at step ends and, between them, from the stepper's interpolant,
** corrected like the steps) with heap counting on, until nsteps steps are
** taken, t_end is reached, an event stops the run (later times would all
** get the state at the stop: no step is taken after it) or a step fails.
*/
static counted_run count_run(const lgc_model *m, const double x0[], const lgc_driver_options *o,
                             unsigned long nsteps, double t_end, double sample,
                             double (*watch)(const double x[]))
{
    lgc_system sys;
    lgc_monitor mon;
    watcher w = {{&mon, &sys}, watch, 0.0, 0};
    counted_run r = {LGC_OK, {0}, 0.0, NAN, 0, 0, 0, 0, 0, m->nevent};
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
    if (!x0)
        x0 = m->initial_state;
    if (watch)
        w.last = watch(x0);
    const unsigned long min_norm0 = sys.nfev_min_norm;
    lgc_driver_observe(d, watch_step, &w);
    lgc_driver_observe_events(d, count_release, &r);
    /* The reset counts too: a contact's switch restarts the method the same way, inside a step. */
    heap_calls = 0;
    counting = 1;
    r.status = lgc_driver_reset(d, 0.0, x0);
    for (long k = 1; r.status == LGC_OK; k++) {
        const double t = fmin(t_end, (double)k * sample);
        r.status = lgc_driver_advance(d, t, x);
        if (r.status == LGC_OK)
            r.status = lgc_monitor_sample(&mon, &sys, fmin(t, lgc_driver_stop_time(d)), x);
        lgc_driver_stats(d, &r.stats);
        if (r.stats.steps >= nsteps || t >= t_end || t >= lgc_driver_stop_time(d))
            break;
    }
    counting = 0;
    r.heap_calls = heap_calls;
    r.min_norm_rhs = sys.nfev_min_norm - min_norm0;
    r.t = lgc_driver_time(d);
    r.t_stop = lgc_driver_stop_time(d);
    r.samples = mon.count;
    r.sign_changes = w.sign_changes;
    print_message("  %s %s%s project %d metric %d: status %d, %lu steps (%lu rejected, %lu guarded), "
                  "%lu rhs (%lu minimum-norm), %lu contact switches (%lu releases), %lu samples to t = %.6g (stop %g), %lu heap calls\n",
                  m->name, o->type->name, m->jacobian ? "" : " (no Jacobian)", o->project, o->metric,
                  r.status, r.stats.steps, r.stats.rejected, r.stats.guarded_steps, r.stats.nfev, r.min_norm_rhs,
                  r.stats.contact_switches, r.releases, r.samples, r.t, r.t_stop, r.heap_calls);
    lgc_driver_free(d);
    lgc_monitor_free(&mon);
    lgc_system_free(&sys);
    return r;
}

/* At least nsteps steps, none of them (nor a sample between them) touching the heap. */
static void count_steps(const lgc_model *m, const lgc_driver_options *o, unsigned long nsteps,
                        double sample)
{
    counted_run r = count_run(m, NULL, o, nsteps, INFINITY, sample, NULL);
    assert_int_equal(r.status, LGC_OK);
    assert_ge(r.stats.steps, nsteps);
    assert_int_equal(r.heap_calls, 0);
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
    o.type = lgc_step_rk4;
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

/*
** The variants of a stepper run: rk4, dopri5, and CVODE's adams and bdf
** with the generated Jacobian and without it (difference quotients).
*/
enum { VARIANTS = 6 };

static const lgc_stepper_type *variant_type(int k)
{
    const lgc_stepper_type *types[VARIANTS] = {lgc_step_rk4, lgc_step_dopri5, lgc_step_adams,
                                               lgc_step_adams, lgc_step_bdf, lgc_step_bdf};
    return types[k];
}

static lgc_model variant_model(const lgc_model *m, int k)
{
    lgc_model v = *m;
    if (k == 3 || k == 5)
        v.jacobian = NULL;
    return v;
}

static lgc_driver_options variant_options(int k, lgc_project_mode project, lgc_metric metric)
{
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.type = variant_type(k);
    o.h = o.type->adaptive ? 0.0 : 1e-3;
    o.rtol = o.atol = 1e-10;
    o.project = project;
    o.metric = metric;
    return o;
}

/*
** The sphere's contact letting go (issue 17: its multiplier located through
** 0 on the step's interpolant, the row switched off, the method started
** afresh), then the flight to its stop event at the equator: every
** stepper, every correction. The run ends at the stop (about t = 1.13; the
** release is at 0.91), whatever the step count.
*/
static void no_contact_release_allocates(void **state)
{
    (void)state;
    for (int k = 0; k < VARIANTS; k++)
        for (int project = LGC_PROJECT_NONE; project <= LGC_PROJECT_FULL; project++)
            for (int metric = LGC_METRIC_IDENTITY; metric <= LGC_METRIC_MASS; metric++) {
                const lgc_model m = variant_model(&sphere_model, k);
                const lgc_driver_options o = variant_options(k, (lgc_project_mode)project, (lgc_metric)metric);
                const double t_end = 3.0;
                counted_run r = count_run(&m, NULL, &o, ULONG_MAX, t_end, o.type->adaptive ? 0.0137 : 0.37e-3, NULL);
                assert_int_equal(r.status, LGC_OK);
                assert_int_equal(r.releases, 1);
                assert_lt(r.t_stop, t_end);
                assert_int_equal(r.heap_calls, 0);
            }
}

/* sin(th0) of IFToMM A02: 0 where the rods lie flat, the singular instants. */
static double a02_crank_sine(const double x[])
{
    return sin(x[A02_N2_STATE_th0]);
}

/*
** IFToMM A02 (N = 2) through its singular instants under the full
** correction (issue 18), sampled between the steps: rk4 passes them as it
** is, dopri5 with its guard (steps against the error test); the spec's
** start meets flat positions at t = 0.71 and 2.1. CVODE's adams and bdf
** refuse one by design (LGC_ERR_SINGULAR_METHOD, before the first): the
** refusal allocates nothing either.
*/
static void no_singular_passage_allocates(void **state)
{
    (void)state;
    for (int k = 0; k < VARIANTS; k++)
        for (int metric = LGC_METRIC_IDENTITY; metric <= LGC_METRIC_MASS; metric++) {
            const lgc_model m = variant_model(&a02_n2_model, k);
            const lgc_driver_options o = variant_options(k, LGC_PROJECT_FULL, (lgc_metric)metric);
            counted_run r = count_run(&m, NULL, &o, ULONG_MAX, 2.5, o.type->adaptive ? 0.0137 : 0.37e-3,
                                      a02_crank_sine);
            if (o.type->leaves_branch) {
                assert_int_equal(r.status, LGC_ERR_SINGULAR_METHOD);
                assert_int_equal(r.sign_changes, 0);
            } else {
                assert_int_equal(r.status, LGC_OK);
                assert_int_equal(r.sign_changes, 2);
            }
            if (o.type == lgc_step_dopri5)
                assert_int_equal(r.stats.singular_passed, 2);
            assert_int_equal(r.heap_calls, 0);
        }
}

/*
** A02 started on a flat position (cranks along +x turning at -1 rad/s,
** couplers still: on the constraints, velocities included), where the
** constraint Jacobian has lost rank: the rhs takes its minimum-norm solve
** (in dopri5's first-step estimate, or in the first step) and the driver
** checks the constraints' consistency at the first accepted state. Steps
** from the spec's start never land close enough to an instant for either.
*/
static void no_step_from_a_singular_start_allocates(void **state)
{
    (void)state;
    double flat[A02_N2_NX] = {0.0};
    flat[A02_N2_STATE_th0_dot] = flat[A02_N2_STATE_th1_dot] = flat[A02_N2_STATE_th2_dot] = -1.0;
    for (int k = 0; k < VARIANTS; k++)
        for (int metric = LGC_METRIC_IDENTITY; metric <= LGC_METRIC_MASS; metric++) {
            const lgc_model m = variant_model(&a02_n2_model, k);
            const lgc_driver_options o = variant_options(k, LGC_PROJECT_FULL, (lgc_metric)metric);
            counted_run r = count_run(&m, flat, &o, ULONG_MAX, 0.5, o.type->adaptive ? 0.0137 : 0.37e-3,
                                      NULL);
            assert_int_equal(r.status, LGC_OK);
            assert_ge(r.min_norm_rhs, 1);
            assert_int_equal(r.heap_calls, 0);
        }
}

/*
** Impacts on several rows at once and rest: the rod dropped flat (both
** ends' rows in one impact, its LCP), then tilted (the ends' impacts
** alternating, accumulating on one end, the rod resting on both), every
** stepper variant and correction, to t = 3 where it rests.
*/
static void no_impact_on_several_rows_allocates(void **state)
{
    (void)state;
    const double flat[FLAT_ROD_NX] = {0.0, 1.0, 0.0, 0.0, 0.0, 0.0};
    const double tilted[FLAT_ROD_NX] = {0.0, 1.0, 0.3, 0.0, 0.0, 0.0};
    for (int k = 0; k < VARIANTS; k++)
        for (int project = LGC_PROJECT_NONE; project <= LGC_PROJECT_FULL; project++)
            for (int start = 0; start < 2; start++) {
                const lgc_model m = variant_model(&flat_rod_model, k);
                const lgc_driver_options o = variant_options(k, (lgc_project_mode)project, LGC_METRIC_MASS);
                counted_run r = count_run(&m, start ? tilted : flat, &o, ULONG_MAX, 3.0,
                                          o.type->adaptive ? 0.0137 : 0.37e-3, NULL);
                assert_int_equal(r.status, LGC_OK);
                assert_ge(r.stats.contact_switches, 5);
                assert_int_equal(r.heap_calls, 0);
            }
}

/* Model m over 3 s under every stepper variant and correction: a switch at least, no heap call. */
static void every_variant_switches_without_the_heap(const lgc_model *model)
{
    for (int k = 0; k < VARIANTS; k++)
        for (int project = LGC_PROJECT_NONE; project <= LGC_PROJECT_FULL; project++) {
            const lgc_model m = variant_model(model, k);
            const lgc_driver_options o = variant_options(k, (lgc_project_mode)project, LGC_METRIC_MASS);
            counted_run r = count_run(&m, NULL, &o, ULONG_MAX, 3.0, o.type->adaptive ? 0.0137 : 0.37e-3, NULL);
            assert_int_equal(r.status, LGC_OK);
            assert_ge(r.stats.contact_switches, 1);
            assert_int_equal(r.heap_calls, 0);
        }
}

/*
** Impacts with rows that hold, whose impulses come from the impact
** problem's Schur complement (LAPACK's Cholesky on their block): the
** pendulum into its wall (a holonomic row), the sled into its (a
** nonholonomic one), every stepper variant and correction.
*/
static void no_impact_with_rows_that_hold_allocates(void **state)
{
    (void)state;
    const lgc_model *models[] = {&pendulum_wall_model, &sled_wall_model};
    for (int i = 0; i < 2; i++)
        every_variant_switches_without_the_heap(models[i]);
}

/*
** Friction switches (sticking to sliding and back, located, the method
** restarted): a planar contact (the disk on its link), a spatial one (the
** billiard ball, its direction taken at every step), and one whose normal
** force is a contact's multiplier (Painleve's rod, the LU solve), every
** stepper variant and correction.
*/
static void no_friction_switch_allocates(void **state)
{
    (void)state;
    const lgc_model *models[] = {&disk_link_model, &billiard_ball_model, &painleve_rod_model};
    for (int i = 0; i < 3; i++)
        every_variant_switches_without_the_heap(models[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_stepper_or_correction_allocates),
        cmocka_unit_test(no_contact_switch_allocates),
        cmocka_unit_test(no_contact_release_allocates),
        cmocka_unit_test(no_impact_on_several_rows_allocates),
        cmocka_unit_test(no_impact_with_rows_that_hold_allocates),
        cmocka_unit_test(no_friction_switch_allocates),
        cmocka_unit_test(no_singular_passage_allocates),
        cmocka_unit_test(no_step_from_a_singular_start_allocates),
        cmocka_unit_test(lapack_kkt_path_allocates_nothing),
        cmocka_unit_test(bdf_without_a_generated_jacobian_allocates_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
