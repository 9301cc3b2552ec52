/*
** test_double_pendulum.c — the Cartesian double pendulum against the same
** system in its angles, two independent formulations integrated separately,
** and the energy of each.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "check.h"

#include "double_pendulum.h"
#include "double_pendulum_angle.h"
#include "lagrangec/status.h"
#include "walk.h"

#define SAMPLES 500

static double angles[SAMPLES + 1][4];   /* th1, th2, th1', th2' per sample */

static void keep_angles(void *ctx, const lgc_sample *s)
{
    int *k = ctx;
    for (int i = 0; i < 4; i++)
        angles[*k][i] = s->x[i];
    ++*k;
}

typedef struct comparison {
    int k;          /* sample index */
    double worst;   /* largest difference so far */
} comparison;

/* Largest difference of the Cartesian positions and velocities from the angles'. */
static void compare_cartesian(void *ctx, const lgc_sample *s)
{
    comparison *c = ctx;
    const double *a = angles[c->k++];
    const double l1 = 1.0, l2 = 1.0;    /* the specs' defaults */
    const double x1 = l1 * sin(a[0]), y1 = -l1 * cos(a[0]);
    const double expect[8] = {
        x1, y1, x1 + l2 * sin(a[1]), y1 - l2 * cos(a[1]),
        l1 * cos(a[0]) * a[2], l1 * sin(a[0]) * a[2],
        l1 * cos(a[0]) * a[2] + l2 * cos(a[1]) * a[3],
        l1 * sin(a[0]) * a[2] + l2 * sin(a[1]) * a[3],
    };
    for (int i = 0; i < 8; i++)
        c->worst = fmax(c->worst, fabs(s->x[i] - expect[i]));
}

static void cartesian_matches_angles(void **state)
{
    (void)state;
    for (int method = 0; method < WALK_METHODS; method++) {
        const lgc_stepper_type *type = walk_method(method);
        walk_run wa, wc;
        int k = 0;
        comparison c = {0, 0.0};
        walk_init(&wa, &double_pendulum_angle_model, type, 10.0, SAMPLES, 1e-12, LGC_PROJECT_NONE);
        walk_init(&wc, &double_pendulum_model, type, 10.0, SAMPLES, 1e-12, LGC_PROJECT_FULL);
        assert_int_equal(walk(&wa, keep_angles, &k), LGC_OK);
        assert_int_equal(walk(&wc, compare_cartesian, &c), LGC_OK);
        print_message("  %s: t = 10, rtol 1e-12: max state difference %.2e; energy drift "
                      "angles %.2e, Cartesian %.2e; Cartesian max |phi| %.2e\n",
                      type->name, c.worst, wa.mon.max_energy_drift, wc.mon.max_energy_drift, wc.mon.max_phi);
        assert_le(c.worst, 1e-10);
        assert_le(wa.mon.max_energy_drift, 1e-10);
        assert_le(wc.mon.max_energy_drift, 1e-10);
        walk_free(&wa);
        walk_free(&wc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cartesian_matches_angles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
