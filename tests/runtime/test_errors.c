/*
** test_errors.c — each runtime fault comes back with its own code, at the
** time it happened, and never as NaN in a sample. The faulty models are
** generated from the specs in tests/runtime/specs, which really misbehave.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "blow_up.h"
#include "lagrangec/driver.h"
#include "lagrangec/model.h"
#include "lagrangec/status.h"
#include "nan_force.h"
#include "rank_lost.h"
#include "run_util.h"
#include "unsatisfiable.h"

static void expect_fault(const lgc_model *m, const lgc_stepper_type *type,
                         lgc_project_mode mode, int status, double t_lo, double t_hi)
{
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.type = type;
    o.h = type->adaptive ? 0.0 : 1e-3;
    o.project = mode;
    run_result r;
    run_model(m, NULL, &o, NULL, 2.0, 0.01, &r);
    print_message("  %s: status %d (%s) at t = %g\n", type->name, r.status,
                  lgc_strerror(r.status), r.t_fail);
    assert_int_equal(r.status, status);
    assert_true(r.t_fail >= t_lo && r.t_fail <= t_hi);
    assert_true(isfinite(r.mon.max_phi) && isfinite(r.mon.max_energy_drift));
    run_free(&r);
}

static void rhs_reports_rank_loss(void **state)
{
    (void)state;
    const lgc_model *m = &rank_lost_model;
    expect_fault(m, lgc_step_rk4, LGC_PROJECT_NONE, LGC_ERR_RANK_LOST, 0.498, 0.5);
    expect_fault(m, lgc_step_dopri5, LGC_PROJECT_NONE, LGC_ERR_RANK_LOST, 0.3, 0.5);
}

static void nan_force_is_caught(void **state)
{
    (void)state;
    const lgc_model *m = &nan_force_model;
    expect_fault(m, lgc_step_rk4, LGC_PROJECT_NONE, LGC_ERR_NONFINITE, 0.248, 0.25);
    expect_fault(m, lgc_step_dopri5, LGC_PROJECT_NONE, LGC_ERR_NONFINITE, 0.1, 0.25);
}

static void step_size_underflow(void **state)
{
    (void)state;
    expect_fault(&blow_up_model, lgc_step_dopri5, LGC_PROJECT_NONE,
                 LGC_ERR_STEP_UNDERFLOW, 0.99, 1.0);
}

static void projection_not_converging(void **state)
{
    (void)state;
    expect_fault(&unsatisfiable_model, lgc_step_rk4, LGC_PROJECT_FULL,
                 LGC_ERR_PROJECTION, 0.0, 0.0);
}

static void messages_are_distinct(void **state)
{
    (void)state;
    for (int a = LGC_OK; a <= LGC_ERR_IO; a++)
        for (int b = a + 1; b <= LGC_ERR_IO; b++)
            assert_string_not_equal(lgc_strerror(a), lgc_strerror(b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rhs_reports_rank_loss),
        cmocka_unit_test(nan_force_is_caught),
        cmocka_unit_test(step_size_underflow),
        cmocka_unit_test(projection_not_converging),
        cmocka_unit_test(messages_are_distinct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
