/*
** test_bead_hoop.c — the bead on a rotating hoop (a t-dependent constraint):
** its Jacobi integral is conserved, and started at the relative equilibrium
** cos(theta) = g/(w^2 R) it stays there.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "check.h"

#include "bead_hoop.h"
#include "lagrangec/status.h"
#include "walk.h"

static const double m = 1.0, R = 1.0, g = 9.81, w = 5.0;   /* the spec's defaults */

typedef struct extremes {
    double jacobi0, jacobi_drift;   /* Jacobi integral at t = 0, largest change */
    double theta_error;             /* largest |theta - theta_eq| */
} extremes;

/* m |v - w e_z x r|^2/2 - m w^2 (x^2 + y^2)/2 + m g z: T and V seen from the hoop. */
static double jacobi(const double s[])
{
    const double x = s[0], y = s[1], z = s[2];
    const double vx = s[3] + w * y, vy = s[4] - w * x, vz = s[5];
    return m * (vx * vx + vy * vy + vz * vz) / 2 - m * w * w * (x * x + y * y) / 2 + m * g * z;
}

static void check_jacobi(void *ctx, const lgc_sample *s)
{
    extremes *e = ctx;
    if (s->t == 0.0)
        e->jacobi0 = jacobi(s->x);
    e->jacobi_drift = fmax(e->jacobi_drift, fabs(jacobi(s->x) - e->jacobi0));
    e->theta_error = fmax(e->theta_error, fabs(acos(-s->x[2] / R) - acos(g / (w * w * R))));
}

static void jacobi_integral_is_conserved(void **state)
{
    (void)state;
    for (int method = 0; method < WALK_METHODS; method++) {
        const lgc_stepper_type *type = walk_method(method);
        walk_run r;
        extremes e = {0};
        walk_init(&r, &bead_hoop_model, type, 20.0, 2000, 1e-11, LGC_PROJECT_FULL);
        assert_int_equal(walk(&r, check_jacobi, &e), LGC_OK);
        print_message("  %s: from 1 rad, t = 20: Jacobi integral %.6f, drift %.2e; max |phi| %.2e\n",
                      type->name, e.jacobi0, e.jacobi_drift, r.mon.max_phi);
        assert_le(e.jacobi_drift, 1e-8);
        walk_free(&r);
    }
}

static void relative_equilibrium_holds(void **state)
{
    (void)state;
    for (int method = 0; method < WALK_METHODS; method++) {
        const lgc_stepper_type *type = walk_method(method);
        const double th = acos(g / (w * w * R));
        const double x0[6] = {R * sin(th), 0.0, -R * cos(th), 0.0, w * R * sin(th), 0.0};
        walk_run r;
        extremes e = {0};
        walk_init(&r, &bead_hoop_model, type, 20.0, 2000, 1e-11, LGC_PROJECT_FULL);
        r.x0 = x0;
        assert_int_equal(walk(&r, check_jacobi, &e), LGC_OK);
        print_message("  %s: at cos(theta) = g/(w^2 R) (theta = %.6f), t = 20: max |theta - theta_eq| %.2e\n",
                      type->name, th, e.theta_error);
        assert_le(e.theta_error, 1e-8);
        walk_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(jacobi_integral_is_conserved),
        cmocka_unit_test(relative_equilibrium_holds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
