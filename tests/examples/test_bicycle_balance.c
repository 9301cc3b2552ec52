/*
** test_bicycle_balance.c — specs/bicycle.toml, nonlinear: upright straight
** running at v, rolled by 0.03 rad (delta = thetaB = 0 keeps the front wheel
** on the ground), recovers inside the self-stable speed range (v_w, v_c) =
** (4.29, 6.02) m/s and falls outside it: at 3 m/s the weave grows
** (+1.71/s), at 7 m/s the capsize mode (+0.103/s) slowly tips it over.
** The end values are checked against an independent model
** (tests/examples/reference/whipple_simulate.py: the bicycle derived in
** SymPy from the paper's geometry, scipy's DOP853 at rtol 1e-11; about 13
** minutes, so not run by the tests): phi(20 s) = 7.03768e-5 at 5 m/s,
** phi(2 s) = -0.5206871504 at 3 m/s, phi(20 s) = 0.2908599205 at 7 m/s.
** Every stepper (rk4, dopri5, adams, bdf); the correction keeps phi and g.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "bicycle.h"
#include "lagrangec/status.h"
#include "walk.h"

/* Agreement with the reference run, and the residual the correction keeps. */
#define REFERENCE_TOLERANCE 1e-9
#define RESIDUAL_TOLERANCE 1e-10

typedef struct roll {
    double max_abs, last, max_residual;
} roll;

static void track(void *ctx, const lgc_sample *s)
{
    roll *r = ctx;
    r->last = s->x[BICYCLE_STATE_phi];
    r->max_abs = fmax(r->max_abs, fabs(r->last));
}

static roll ride(const lgc_stepper_type *type, double v, double t_end)
{
    const double *p = bicycle_param_defaults;
    double x[BICYCLE_NX] = {0};
    x[BICYCLE_STATE_phi] = 0.03;
    x[BICYCLE_STATE_x_dot] = v;
    x[BICYCLE_STATE_thetaR_dot] = -v / p[BICYCLE_PARAM_rR];
    x[BICYCLE_STATE_thetaF_dot] = -v / p[BICYCLE_PARAM_rF];
    walk_run w;
    walk_init(&w, &bicycle_model, type, t_end, (int)(t_end * 10), 1e-10, LGC_PROJECT_FULL);
    w.x0 = x;
    roll r = {0, 0, 0};
    int rc = walk(&w, track, &r);
    if (rc != LGC_OK)
        fail_msg("%s, v = %g: the run stopped with status %d", type->name, v, rc);
    r.max_residual = fmax(w.mon.max_phi, w.mon.max_g);
    print_message("  %s: v = %g m/s, t = %g s: phi(t) = %.10e, max |phi| %.3f; max |phi|, |g| residual %.1e\n",
                  type->name, v, t_end, r.last, r.max_abs, r.max_residual);
    if (!(r.max_residual < RESIDUAL_TOLERANCE))
        fail_msg("%s, v = %g: constraint residual %.3e (expected below %g)", type->name, v, r.max_residual,
                 RESIDUAL_TOLERANCE);
    walk_free(&w);
    return r;
}

static void check_end(const lgc_stepper_type *type, double v, roll r, double reference)
{
    if (!(fabs(r.last - reference) < REFERENCE_TOLERANCE))
        fail_msg("%s, v = %g: phi at the end %.10e, the reference run's %.10e (difference %.2e, allowed %g)",
                 type->name, v, r.last, reference, fabs(r.last - reference), REFERENCE_TOLERANCE);
}

static void recovers_at_5_m_per_s(void **state)
{
    (void)state;
    for (int method = 0; method < WALK_METHODS; method++) {
        roll r = ride(walk_method(method), 5.0, 20.0);
        check_end(walk_method(method), 5.0, r, 7.03768e-5);
        if (!(fabs(r.last) < 1e-3 && r.max_abs < 0.05))
            fail_msg("%s, v = 5: phi(20) = %.3e (expected below 1e-3), max |phi| %.3e", walk_method(method)->name,
                     r.last, r.max_abs);
    }
}

static void falls_by_weave_at_3_m_per_s(void **state)
{
    (void)state;
    for (int method = 0; method < WALK_METHODS; method++) {
        roll r = ride(walk_method(method), 3.0, 2.0);
        check_end(walk_method(method), 3.0, r, -0.5206871504);
        if (!(r.max_abs > 0.3))
            fail_msg("%s, v = 3: max |phi| on [0, 2] = %.3e (expected above 0.3)", walk_method(method)->name,
                     r.max_abs);
    }
}

static void capsizes_at_7_m_per_s(void **state)
{
    (void)state;
    for (int method = 0; method < WALK_METHODS; method++) {
        roll r = ride(walk_method(method), 7.0, 20.0);
        check_end(walk_method(method), 7.0, r, 0.2908599205);
        if (!(fabs(r.last) > 0.1))
            fail_msg("%s, v = 7: phi(20) = %.3e (expected above 0.1)", walk_method(method)->name, r.last);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(recovers_at_5_m_per_s),
        cmocka_unit_test(falls_by_weave_at_3_m_per_s),
        cmocka_unit_test(capsizes_at_7_m_per_s),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
