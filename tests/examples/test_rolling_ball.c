/*
** test_rolling_ball.c — seed 003's path-dependent orientation. The ball
** rolls once round a circle of radius rho (rate W, no spin about the
** vertical) and comes back to its starting point turned: seen from a frame
** turning with the centre, its angular velocity is the constant
** w_b = (-rho W/r, 0, -W), so after one lap (T = 2 pi/W) its quaternion is
** q_z(2 pi) exp(T w_b/2) = -(cos(a/2), sin(a/2) w_b/|w_b|), a = 2 pi sqrt(1 + rho^2/r^2),
** a net turn of a - 2 pi (mod 2 pi) = 2 pi (sqrt 2 - 1) = 149 degrees for rho = r.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "check.h"

#include "lagrangec/status.h"
#include "rolling_ball.h"
#include "walk.h"

/* The spec's defaults: r = 1, orbit radius rho = 1 at rate W = 1 (k = 7 m W^2/5). */
static const double r = 1.0, rho = 1.0, W = 1.0;

static void keep_last(void *ctx, const lgc_sample *s)
{
    double *x = ctx;
    for (int i = 0; i < ROLLING_BALL_NX; i++)
        x[i] = s->x[i];
    /* the spin about the vertical, w_z = 2 (q0 q3' - q0' q3 + q1 q2' - q2 q1'), stays 0 */
    const double *q = s->x + 2, *v = s->x + 8;
    x[ROLLING_BALL_NX] = fmax(x[ROLLING_BALL_NX],
                              fabs(2 * (q[0] * v[3] - v[0] * q[3] + q[1] * v[2] - q[2] * v[1])));
}

static void one_lap_turns_the_ball(void **state)
{
    (void)state;
    for (int method = 0; method < WALK_METHODS; method++) {
        const lgc_stepper_type *type = walk_method(method);
        const double T = 2 * acos(-1.0) / W, a = T * W * sqrt(1 + rho * rho / (r * r));
        const double n = sqrt(rho * rho / (r * r) + 1);
        const double expect[4] = {-cos(a / 2), sin(a / 2) * rho / r / n, 0.0, sin(a / 2) / n};
        double x[ROLLING_BALL_NX + 1] = {0};
        walk_run w;
        walk_init(&w, &rolling_ball_model, type, T, 1000, 1e-12, LGC_PROJECT_FULL);
        assert_int_equal(walk(&w, keep_last, x), LGC_OK);
        double q_err = 0.0;
        for (int i = 0; i < 4; i++)
            q_err = fmax(q_err, fabs(x[2 + i] - expect[i]));
        const double pos_err = hypot(x[0] - rho, x[1]);
        const double turn = 2 * acos(fabs(x[2]));
        print_message("  %s: one lap: back at start to %.2e; quaternion (%.9f, %.9f, %.9f, %.9f), "
                      "error %.2e; net turn %.4f rad; max |w_z| %.2e; max |phi| %.2e, |g| %.2e\n",
                      type->name, pos_err, x[2], x[3], x[4], x[5], q_err, turn, x[ROLLING_BALL_NX],
                      w.mon.max_phi, w.mon.max_g);
        assert_le(pos_err, 1e-9);
        assert_le(q_err, 1e-9);
        assert_le(fabs(turn - 2 * acos(-1.0) * (sqrt(2.0) - 1)), 1e-8);
        walk_free(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_lap_turns_the_ball),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
