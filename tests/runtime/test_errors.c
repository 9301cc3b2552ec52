/*
** test_errors.c — each runtime fault comes back with its own code, at the
** time it happened, and never as NaN in a sample.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fixtures.h"
#include "lagrangec/driver.h"
#include "lagrangec/status.h"
#include "run_util.h"

static int rank_lost_rhs(double t, const double x[], const double u[],
                         const double p[], double alpha, double beta,
                         double dxdt[], double multipliers[], double work[])
{
    if (t >= 0.5)
        return LGC_MODEL_SINGULAR_CONSTRAINTS;
    return fixture_pendulum_model.rhs(t, x, u, p, alpha, beta, dxdt, multipliers,
                                      work);
}

static int nan_force_rhs(double t, const double x[], const double u[],
                         const double p[], double alpha, double beta,
                         double dxdt[], double multipliers[], double work[])
{
    int rc = fixture_pendulum_model.rhs(t, x, u, p, alpha, beta, dxdt, multipliers,
                                        work);
    if (t >= 0.25)
        dxdt[3] = NAN;
    return rc;
}

/* x' = 1/(1 - t)^2: x = 1/(1 - t) blows up at t = 1; steps shrink to nothing. */
static int singular_rhs(double t, const double x[], const double u[],
                        const double p[], double alpha, double beta,
                        double dxdt[], double multipliers[], double work[])
{
    (void)x; (void)u; (void)p; (void)alpha; (void)beta; (void)multipliers; (void)work;
    dxdt[0] = 1.0 / ((1.0 - t) * (1.0 - t));
    dxdt[1] = 0.0;
    return LGC_MODEL_OK;
}

/* phi = x^2 + y^2 + l^2 has no zero: the position correction cannot converge. */
static void unreachable_residuals(double t, const double x[], const double p[],
                                  double phi[], double phi_dot[], double g[])
{
    fixture_pendulum_model.residuals(t, x, p, phi, phi_dot, g);
    phi[0] += 2.0 * p[2] * p[2];
}

static void expect_fault(const lgc_model *m, const lgc_stepper_type *type,
                         lgc_project_mode mode, int status, double t_lo, double t_hi)
{
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.type = type;
    o.h = type->adaptive ? 0.0 : 1e-3;
    o.project = mode;
    run_result r;
    run_model(m, &o, NULL, 2.0, 0.01, &r);
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
    lgc_model m = fixture_pendulum_model;
    m.rhs = rank_lost_rhs;
    expect_fault(&m, lgc_step_rk4, LGC_PROJECT_NONE, LGC_ERR_RANK_LOST, 0.498, 0.5);
    expect_fault(&m, lgc_step_dopri5, LGC_PROJECT_NONE, LGC_ERR_RANK_LOST, 0.3, 0.5);
}

static void nan_force_is_caught(void **state)
{
    (void)state;
    lgc_model m = fixture_pendulum_model;
    m.rhs = nan_force_rhs;
    expect_fault(&m, lgc_step_rk4, LGC_PROJECT_NONE, LGC_ERR_NONFINITE, 0.248, 0.25);
    expect_fault(&m, lgc_step_dopri5, LGC_PROJECT_NONE, LGC_ERR_NONFINITE, 0.1, 0.25);
}

static void step_size_underflow(void **state)
{
    (void)state;
    lgc_model m = fixture_oscillator_model;
    m.rhs = singular_rhs;
    expect_fault(&m, lgc_step_dopri5, LGC_PROJECT_NONE, LGC_ERR_STEP_UNDERFLOW,
                 0.99, 1.0);
}

static void projection_not_converging(void **state)
{
    (void)state;
    lgc_model m = fixture_pendulum_model;
    m.residuals = unreachable_residuals;
    expect_fault(&m, lgc_step_rk4, LGC_PROJECT_FULL, LGC_ERR_PROJECTION, 0.0, 0.0);
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
