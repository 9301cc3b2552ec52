/*
** test_errors.c — each runtime fault comes back with its own code, at the
** time it happened, and never as NaN in a sample. The faulty models are
** generated from the specs in tests/runtime/specs, which really misbehave.
*/
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "check.h"

#include "blow_up.h"
#include "lagrangec/driver.h"
#include "lagrangec/model.h"
#include "lagrangec/status.h"
#include "mass_runs_out.h"
#include "dead_point.h"
#include "nan_force.h"
#include "pendulum.h"
#include "rank_lost.h"
#include "run_util.h"
#include "runaway.h"
#include "shrinking_rod.h"

/* The driver's defaults with `type` (dopri5 adaptive, rk4 at h = 1e-3) and `mode`. */
static lgc_driver_options fault_options(const lgc_stepper_type *type, lgc_project_mode mode)
{
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.type = type;
    o.h = type->adaptive ? 0.0 : 1e-3;
    o.project = mode;
    return o;
}

/* A run from x0 (NULL: the model's) to t_end that must stop with `status` at a time in [t_lo, t_hi]. */
static void expect_fault_with(const lgc_model *m, const double x0[], const lgc_driver_options *o,
                              double t_end, int status, double t_lo, double t_hi)
{
    run_result r;
    run_model(m, x0, o, NULL, t_end, 0.01, &r);
    print_message("  %s: status %d (%s) at t = %.17g\n", o->type->name, r.status,
                  lgc_strerror(r.status), r.t_fail);
    assert_int_equal(r.status, status);
    assert_ge(r.t_fail, t_lo);
    assert_le(r.t_fail, t_hi);
    check(isfinite(r.mon.max_phi) && isfinite(r.mon.max_energy_drift),
          "max |phi| %g, energy drift %g: not finite", r.mon.max_phi, r.mon.max_energy_drift);
    run_free(&r);
}

static void expect_fault(const lgc_model *m, const lgc_stepper_type *type,
                         lgc_project_mode mode, int status, double t_lo, double t_hi)
{
    lgc_driver_options o = fault_options(type, mode);
    expect_fault_with(m, NULL, &o, 2.0, status, t_lo, t_hi);
}

/* CVODE's methods: a fault of the model ends the run with its own code, not CVODE's. */
static const lgc_stepper_type *const *cvode_types(void)
{
    static const lgc_stepper_type *types[2];
    types[0] = lgc_step_adams;
    types[1] = lgc_step_bdf;
    return types;
}

/* m (1 - t) x'^2/2: the mass runs out at t = 1, where rk4's last stage lands. */
static void rhs_reports_singular_mass(void **state)
{
    (void)state;
    expect_fault(&mass_runs_out_model, lgc_step_rk4, LGC_PROJECT_NONE, LGC_ERR_SINGULAR_MASS,
                 0.998, 0.9995);
    /* x'' = 1/(m (1 - t)): steps that follow it shrink to t's round-off before t = 1. */
    for (int i = 0; i < 2; i++)
        expect_fault(&mass_runs_out_model, cvode_types()[i], LGC_PROJECT_NONE,
                     LGC_ERR_STEP_UNDERFLOW, 0.99, 1.0);
}

/*
** Rank lost where the constraints ask for a motion the mechanism cannot
** make (dead_point, from t = 1/2) is a fault for every stepper and
** correction; rank lost with consistent rows (rank_lost: they coincide
** from t = 1/2) is a singular configuration, simulated through, except by
** adams and bdf, which refuse to go on at one (they may leave the motion's
** branch).
*/
static void rhs_reports_rank_loss(void **state)
{
    (void)state;
    for (int mode = LGC_PROJECT_NONE; mode <= LGC_PROJECT_FULL; mode++) {
        for (int k = 0; k < 4; k++) {
            const lgc_stepper_type *type = k == 0 ? lgc_step_rk4 : k == 1 ? lgc_step_dopri5 : cvode_types()[k - 2];
            const int refused = type->leaves_branch;
            expect_fault(&dead_point_model, type, (lgc_project_mode)mode,
                         refused ? LGC_ERR_SINGULAR_METHOD : LGC_ERR_RANK_LOST, 0.3, 0.502);
            lgc_driver_options o = fault_options(type, (lgc_project_mode)mode);
            if (refused) {
                expect_fault_with(&rank_lost_model, NULL, &o, 1.0, LGC_ERR_SINGULAR_METHOD, 0.3, 0.502);
                continue;
            }
            run_result r;
            run_model(&rank_lost_model, NULL, &o, NULL, 1.0, 0.01, &r);
            print_message("  rank_lost, %s, correction %d: status %d, max |phi| %.3g\n", type->name, mode,
                          r.status, r.mon.max_phi);
            assert_int_equal(r.status, LGC_OK);
            run_free(&r);
        }
    }
}

static void nan_force_is_caught(void **state)
{
    (void)state;
    const lgc_model *m = &nan_force_model;
    expect_fault(m, lgc_step_rk4, LGC_PROJECT_NONE, LGC_ERR_NONFINITE, 0.248, 0.25);
    expect_fault(m, lgc_step_dopri5, LGC_PROJECT_NONE, LGC_ERR_NONFINITE, 0.1, 0.25);
    for (int i = 0; i < 2; i++)
        expect_fault(m, cvode_types()[i], LGC_PROJECT_FULL, LGC_ERR_NONFINITE, 0.1, 0.25);
}

/* x'' = 2/(1 - t)^3: the steps fall below t's round-off. */
static void step_size_underflow(void **state)
{
    (void)state;
    expect_fault(&blow_up_model, lgc_step_dopri5, LGC_PROJECT_NONE,
                 LGC_ERR_STEP_UNDERFLOW, 0.99, 1.0);
    for (int i = 0; i < 2; i++)
        expect_fault(&blow_up_model, cvode_types()[i], LGC_PROJECT_NONE,
                     LGC_ERR_STEP_UNDERFLOW, 0.99, 1.0);
}

/*
** x = e^t with a pure absolute tolerance of 1e-12: the round-off of x,
** eps e^t, passes it at t = ln(1e-12/eps) = 8.41264; the step that would
** cross it cannot be checked to 1e-12, so the run stops at its start
** instead of passing noise off as a met tolerance (CVODE checks where a step
** starts: its run stops on the first step after the crossing). A relative
** tolerance below eps stops at once, one just above it never.
*/
static void tolerance_unreachable(void **state)
{
    (void)state;
    const lgc_stepper_type *types[] = {lgc_step_dopri5, lgc_step_adams, lgc_step_bdf};
    for (int i = 0; i < 3; i++) {
        lgc_driver_options o = fault_options(types[i], LGC_PROJECT_NONE);
        const double t_roundoff = log(1e-12 / DBL_EPSILON);
        o.rtol = 0.0;
        o.atol = 1e-12;
        expect_fault_with(&runaway_model, NULL, &o, 10.0, LGC_ERR_TOLERANCE, t_roundoff - 0.02,
                          types[i]->step ? t_roundoff + 0.02 : t_roundoff);
        o.rtol = 1e-16;
        o.atol = 0.0;
        expect_fault_with(&runaway_model, NULL, &o, 10.0, LGC_ERR_TOLERANCE, 0.0, 0.0);
        o.rtol = 1e-15;
        run_result r;
        run_model(&runaway_model, NULL, &o, NULL, 20.0, 0.01, &r);
        assert_int_equal(r.status, LGC_OK);
        run_free(&r);
    }
}

/*
** Pure relative control (atol = 0) weighs each component by its larger end
** of a step: the pendulum released at rest (x' = y' = 0 at t = 0) runs; at
** rest at the bottom x stays exactly 0, so no error is small enough there.
*/
static void pure_relative_tolerance(void **state)
{
    (void)state;
    const lgc_stepper_type *types[] = {lgc_step_dopri5, lgc_step_adams, lgc_step_bdf};
    for (int i = 0; i < 3; i++) {
        lgc_driver_options o = fault_options(types[i], LGC_PROJECT_NONE);
        o.atol = 0.0;
        const double bottom[] = {0.0, -1.0, 0.0, 0.0};
        expect_fault_with(&pendulum_model, bottom, &o, 1.0, LGC_ERR_TOLERANCE, 0.0, 0.0);
        if (types[i]->step)
            continue;   /* CVODE weighs by the state at hand: x' = 0 at the start is one at 0 */
        run_result r;
        run_model(&pendulum_model, NULL, &o, NULL, 1.0, 0.01, &r);
        assert_int_equal(r.status, LGC_OK);
        assert_lt(r.mon.max_phi, 1e-6);
        run_free(&r);
    }
}

/* Past t = 1 the rod's squared length l^2 - t is negative: nothing to project on. */
static void projection_not_converging(void **state)
{
    (void)state;
    expect_fault(&shrinking_rod_model, lgc_step_rk4, LGC_PROJECT_FULL,
                 LGC_ERR_PROJECTION, 0.999, 1.0);
    /* CVODE's steps follow the bob's speed, which grows without bound, down to t's round-off. */
    for (int i = 0; i < 2; i++)
        expect_fault(&shrinking_rod_model, cvode_types()[i], LGC_PROJECT_FULL,
                     LGC_ERR_STEP_UNDERFLOW, 0.99, 1.0);
    /* A correction allowed no iteration fails inside CVODE's first step, with its own code. */
    for (int i = 0; i < 2; i++) {
        lgc_driver_options o = fault_options(cvode_types()[i], LGC_PROJECT_FULL);
        o.project_max_iter = 0;
        expect_fault_with(&pendulum_model, NULL, &o, 1.0, LGC_ERR_PROJECTION, 0.0, 0.0);
    }
}

static void messages_are_distinct(void **state)
{
    (void)state;
    for (int a = LGC_OK; a <= LGC_STATUS_LAST; a++)
        for (int b = a + 1; b <= LGC_STATUS_LAST; b++)
            assert_string_not_equal(lgc_strerror(a), lgc_strerror(b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rhs_reports_singular_mass),
        cmocka_unit_test(rhs_reports_rank_loss),
        cmocka_unit_test(nan_force_is_caught),
        cmocka_unit_test(step_size_underflow),
        cmocka_unit_test(tolerance_unreachable),
        cmocka_unit_test(pure_relative_tolerance),
        cmocka_unit_test(projection_not_converging),
        cmocka_unit_test(messages_are_distinct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
