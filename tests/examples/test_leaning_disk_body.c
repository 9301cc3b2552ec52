/*
** test_leaning_disk_body.c — specs/leaning_disk_body.toml (a body and a
** rolling wheel) against specs/leaning_disk.toml (T and the no-slip rows
** typed by hand) and against the closed-form equations of sympy issue
** 27631 (R the radius; the same coordinates):
**   psi''   = -2 theta' phi' / cos(theta)
**   theta'' = 4 g sin(theta) / (5 R) + sin(2 theta) psi'^2 / 2 + (6/5) cos(theta) psi' phi'
**   phi''   = (2 tan(theta) phi' - (5/3) cos(theta) psi') theta'
** at random states on the constraints, and under --param: the definitions
** Ia = m R^2/2, Id = m R^2/4 follow m and R.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "leaning_disk.h"
#include "leaning_disk_body.h"

static double uniform(double lo, double hi) { return lo + (hi - lo) * (rand() / (double)RAND_MAX); }

static void agrees_at_random_states(double m, double R, double g)
{
    double p_hand[LEANING_DISK_NP], p_body[LEANING_DISK_BODY_NP];
    p_hand[LEANING_DISK_PARAM_m] = p_body[LEANING_DISK_BODY_PARAM_m] = m;
    p_hand[LEANING_DISK_PARAM_R] = p_body[LEANING_DISK_BODY_PARAM_R] = R;
    p_hand[LEANING_DISK_PARAM_g] = p_body[LEANING_DISK_BODY_PARAM_g] = g;
    double worst_hand = 0.0, worst_closed = 0.0;
    for (int k = 0; k < 200; k++) {
        double x[LEANING_DISK_NX] = {0};
        x[LEANING_DISK_STATE_x] = uniform(-2, 2);
        x[LEANING_DISK_STATE_y] = uniform(-2, 2);
        const double psi = x[LEANING_DISK_STATE_psi] = uniform(-3, 3);
        const double theta = x[LEANING_DISK_STATE_theta] = uniform(-1.3, 1.3);
        x[LEANING_DISK_STATE_phi] = uniform(-3, 3);
        const double psi_d = x[LEANING_DISK_STATE_psi_dot] = uniform(-5, 5);
        const double theta_d = x[LEANING_DISK_STATE_theta_dot] = uniform(-5, 5);
        const double phi_d = x[LEANING_DISK_STATE_phi_dot] = uniform(-10, 10);
        x[LEANING_DISK_STATE_x_dot] = R * phi_d * cos(psi);   /* on the no-slip rows */
        x[LEANING_DISK_STATE_y_dot] = R * phi_d * sin(psi);
        double f_hand[LEANING_DISK_NX], f_body[LEANING_DISK_BODY_NX];
        double w_hand[LEANING_DISK_NWORK], w_body[LEANING_DISK_BODY_NWORK];
        assert_int_equal(leaning_disk_rhs(0, x, NULL, p_hand, 0, 0, f_hand, NULL, w_hand), LEANING_DISK_OK);
        assert_int_equal(leaning_disk_body_rhs(0, x, NULL, p_body, 0, 0, f_body, NULL, w_body),
                         LEANING_DISK_BODY_OK);
        const double closed[3] = {
            -2 * theta_d * phi_d / cos(theta),
            4 * g * sin(theta) / (5 * R) + sin(2 * theta) * psi_d * psi_d / 2 + 1.2 * cos(theta) * psi_d * phi_d,
            (2 * tan(theta) * phi_d - 5.0 / 3.0 * cos(theta) * psi_d) * theta_d,
        };
        const int accel[3] = {LEANING_DISK_BODY_STATE_psi_dot, LEANING_DISK_BODY_STATE_theta_dot,
                              LEANING_DISK_BODY_STATE_phi_dot};
        for (int i = 0; i < LEANING_DISK_NX; i++) {
            double scale = 1.0 + fabs(f_hand[i]);
            double d = fabs(f_body[i] - f_hand[i]) / scale;
            if (d > 1e-11)
                fail_msg("state %d, x'[%d]: body %.17g, by hand %.17g", k, i, f_body[i], f_hand[i]);
            worst_hand = fmax(worst_hand, d);
        }
        for (int i = 0; i < 3; i++) {
            double d = fabs(f_body[accel[i]] - closed[i]) / (1.0 + fabs(closed[i]));
            if (d > 1e-11)
                fail_msg("state %d, x'[%d]: body %.17g, closed form %.17g", k, accel[i], f_body[accel[i]],
                         closed[i]);
            worst_closed = fmax(worst_closed, d);
        }
    }
    print_message("  m = %g, R = %g: 200 states, largest relative difference from leaning_disk %.1e, "
                  "from the closed form %.1e\n", m, R, worst_hand, worst_closed);
}

static void body_and_wheel_give_the_hand_written_equations(void **state)
{
    (void)state;
    srand(15);
    agrees_at_random_states(1.0, 0.5, 9.81);
    agrees_at_random_states(2.7, 0.31, 9.81);  /* other parameters: the definitions follow them */
}

/* The wheel's contact row, R cos(theta) - R sqrt(1 - sin(theta)^2), is 0 at every state: dropped. */
static void the_contact_row_is_dropped(void **state)
{
    (void)state;
    assert_int_equal(LEANING_DISK_BODY_NH, 0);
    assert_int_equal(LEANING_DISK_BODY_NN, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(body_and_wheel_give_the_hand_written_equations),
        cmocka_unit_test(the_contact_row_is_dropped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
