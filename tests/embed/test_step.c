/*
** test_step.c — the generated NAME_step against the runtime's
** `--method rk4 --project full` on the same model, step by step over a run,
** in both metrics. Compiled once per model and variant:
**   STEP, STEP_UPPER  the prefix of the model whose step is tested (a float
**                     variant, a vakonomic one, or the model of specs/)
**   STEP_HEADER       its header
**   REF               the prefix of the double model the runtime integrates
**   BOUND             the largest difference allowed, relative to max(1, |x|)
**   FAULT             the runtime's lgc_status at the end of the run: LGC_OK,
**                     or the fault the step must then report (see below)
** The runtime's observer sees each accepted, corrected step; the step under
** test takes the same step from its own state, so the difference is what
** the two have accumulated since t = 0.
*/
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "lagrangec/driver.h"
#include "lagrangec/status.h"
#include STEP_HEADER

#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define S(name) XCAT(STEP, name)         /* knife_edge_f_step */
#define SU(name) XCAT(STEP_UPPER, name)  /* KNIFE_EDGE_F_NX */

typedef S(_real) real;
extern const struct lgc_model XCAT(REF, _model);

#define H 1e-3
#define T_END 5.0

typedef struct comparison {
    real x[SU(_NX)], u[SU(_NU_ARRAY)], p[SU(_NP_ARRAY)], work[SU(_NWORK_STEP)];
    real alpha, beta;
    int mass_metric;
    double t_prev, worst, worst_t;
    int status;
} comparison;

static int compare_step(void *ctx, double t, const double x[])
{
    comparison *c = ctx;
    double size = 1.0, diff = 0.0;
    c->status = S(_step)((real)c->t_prev, c->x, c->u, c->p, c->alpha, c->beta, (real)(t - c->t_prev),
                         c->mass_metric, c->work);
    if (c->status != SU(_OK))
        return LGC_ERR_PROJECTION;
    for (int i = 0; i < SU(_NX); i++) {
        size = fmax(size, fabs(x[i]));
        diff = fmax(diff, fabs((double)c->x[i] - x[i]));
    }
    if (diff / size > c->worst) {
        c->worst = diff / size;
        c->worst_t = t;
    }
    c->t_prev = t;
    return LGC_OK;
}

static void step_matches_runtime(int mass_metric)
{
    const lgc_model *m = &XCAT(REF, _model);
    lgc_system sys;
    assert_int_equal(lgc_system_init(&sys, m), LGC_OK);
    assert_int_equal(m->nx, SU(_NX));
    comparison c = {.mass_metric = mass_metric, .alpha = (real)sys.alpha, .beta = (real)sys.beta};
    for (int i = 0; i < m->nx; i++)
        c.x[i] = (real)m->initial_state[i];
    for (int i = 0; i < m->np; i++)
        c.p[i] = (real)sys.p[i];
    for (int i = 0; i < m->nu; i++)
        c.u[i] = (real)sys.u[i];
    lgc_driver_options opt;
    lgc_driver_options_default(&opt);
    opt.type = lgc_step_rk4;
    opt.h = H;
    opt.project = LGC_PROJECT_FULL;
    opt.metric = mass_metric ? LGC_METRIC_MASS : LGC_METRIC_IDENTITY;
    lgc_driver *d = lgc_driver_alloc(&sys, &opt);
    assert_non_null(d);
    double x[SU(_NX)];
    assert_int_equal(lgc_driver_reset(d, 0.0, m->initial_state), LGC_OK);
    lgc_driver_observe(d, compare_step, &c);
    int rc = lgc_driver_advance(d, T_END, x);
    /* Where the runtime stopped, the step from the last state they shared fails alike and changes nothing. */
    int fault_status = SU(_OK), unchanged = 1;
    if (rc != LGC_OK && c.status == SU(_OK)) {
        real before[SU(_NX)];
        for (int i = 0; i < SU(_NX); i++)
            before[i] = c.x[i];
        fault_status = S(_step)((real)c.t_prev, c.x, c.u, c.p, c.alpha, c.beta, (real)H, c.mass_metric, c.work);
        for (int i = 0; i < SU(_NX); i++)
            unchanged = unchanged && before[i] == c.x[i];
    }
    lgc_stats stats;
    lgc_driver_stats(d, &stats);
    lgc_driver_free(d);
    lgc_system_free(&sys);
    printf("%s, metric %s: %lu steps, largest difference %.3g (relative) at t = %g, bound %g\n",
           XCAT(REF, _model).name, mass_metric ? "mass" : "identity", stats.steps, c.worst, c.worst_t,
           BOUND);
    if (rc != FAULT || c.status != SU(_OK))
        fail_msg("the run stopped at t = %g: runtime status %d (expected %d), step status %d", c.t_prev, rc,
                 FAULT, c.status);
    if (FAULT == LGC_ERR_NONFINITE && (fault_status != SU(_NOT_FINITE) || !unchanged))
        fail_msg("at t = %g the runtime found a NaN or Inf; the step returned %d (%s the state)", c.t_prev,
                 fault_status, unchanged ? "keeping" : "changing");
    if (!(c.worst <= BOUND))
        fail_msg("the step and the runtime differ by %.3g (relative) at t = %g, past %g", c.worst, c.worst_t,
                 BOUND);
}

static void identity_metric(void **state)
{
    (void)state;
    step_matches_runtime(0);
}

static void mass_metric(void **state)
{
    (void)state;
    step_matches_runtime(1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identity_metric),
        cmocka_unit_test(mass_metric),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
