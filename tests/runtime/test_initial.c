/*
** test_initial.c — a start against the constraints: lgc_state_check names
** the worst row; lgc_state_complete keeps the fixed entries exactly and
** solves the others onto every row, or says it cannot.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "bead_hoop.h"
#include "chain_kkt_vak.h"
#include "check.h"
#include "four_bar.h"
#include "knife_edge.h"
#include "lagrangec/initial.h"
#include "lagrangec/status.h"
#include "pendulum.h"

/* The largest |residual| of [phi; phi'; g] at (t, x). */
static double worst_residual(const lgc_system *sys, double t, const double x[])
{
    double r[16] = {0};
    const lgc_model *m = sys->model;
    assert_le(2 * m->nh + m->nn, 16);
    m->residuals(t, x, sys->p, r, r + m->nh, r + 2 * m->nh);
    double worst = 0.0;
    for (int i = 0; i < 2 * m->nh + m->nn; i++)
        worst = fmax(worst, fabs(r[i]));
    return worst;
}

static void check_names_the_worst_row(void **state)
{
    (void)state;
    lgc_system sys;
    assert_int_equal(lgc_system_init(&sys, &pendulum_model), LGC_OK);
    int row = -2;
    double residual = 0.0;
    assert_int_equal(lgc_state_check(&sys, 0.0, pendulum_initial_state, LGC_INITIAL_TOL, &row,
                                     &residual), LGC_OK);
    assert_int_equal(row, -1);
    double x[4] = {0.5, pendulum_initial_state[1], 0.0, 1.0};   /* off the circle, and moving off it */
    assert_int_equal(lgc_state_check(&sys, 0.0, x, LGC_INITIAL_TOL, &row, &residual),
                     LGC_ERR_INCONSISTENT);
    /* phi = 0.25 + 0.7702 - 1 = 0.0202; phi' = 2 y y' = -1.755: the worst. */
    assert_int_equal(row, 1);
    assert_le(fabs(residual - 2 * x[1]), 1e-15);
    lgc_system_free(&sys);
}

/* The four-bar's crank at 1.5708 rad and 2 rad/s: coupler and rocker follow. */
static void complete_keeps_the_given_entries(void **state)
{
    (void)state;
    lgc_system sys;
    assert_int_equal(lgc_system_init(&sys, &four_bar_model), LGC_OK);
    double x[FOUR_BAR_NX];
    memcpy(x, four_bar_initial_state, sizeof x);
    x[FOUR_BAR_STATE_th2] = 1.5708;
    unsigned char fixed[FOUR_BAR_NX] = {0};
    fixed[FOUR_BAR_STATE_th2] = fixed[FOUR_BAR_STATE_th2_dot] = 1;
    lgc_unmet unmet;
    assert_int_equal(lgc_state_complete(&sys, 0.0, x, fixed, &unmet), LGC_OK);
    assert_eq(x[FOUR_BAR_STATE_th2], 1.5708);
    assert_eq(x[FOUR_BAR_STATE_th2_dot], 2.0);
    assert_le(worst_residual(&sys, 0.0, x), 1e-14);
    int row;
    double residual;
    assert_int_equal(lgc_state_check(&sys, 0.0, x, LGC_INITIAL_TOL, &row, &residual), LGC_OK);
    lgc_system_free(&sys);
}

/* A time-dependent row at t = 0.3: the bead goes to the hoop's plane there. */
static void complete_at_a_time(void **state)
{
    (void)state;
    lgc_system sys;
    assert_int_equal(lgc_system_init(&sys, &bead_hoop_model), LGC_OK);
    double x[BEAD_HOOP_NX];
    memcpy(x, bead_hoop_initial_state, sizeof x);
    unsigned char fixed[BEAD_HOOP_NX] = {0};
    fixed[BEAD_HOOP_STATE_z] = 1;
    lgc_unmet unmet;
    assert_int_equal(lgc_state_complete(&sys, 0.3, x, fixed, &unmet), LGC_OK);
    const double rho = sqrt(1.0 - x[BEAD_HOOP_STATE_z] * x[BEAD_HOOP_STATE_z]), wt = 5.0 * 0.3;
    assert_le(fabs(x[BEAD_HOOP_STATE_x] - rho * cos(wt)), 1e-14);
    assert_le(fabs(x[BEAD_HOOP_STATE_y] - rho * sin(wt)), 1e-14);
    assert_le(worst_residual(&sys, 0.3, x), 1e-13);
    lgc_system_free(&sys);
}

/* A row only fixed entries enter that they do not satisfy: refused, named, x as it was. */
static void complete_says_when_it_cannot(void **state)
{
    (void)state;
    lgc_system sys;
    assert_int_equal(lgc_system_init(&sys, &pendulum_model), LGC_OK);
    double x[4] = {0.5, -0.5, 0.0, 0.0};
    unsigned char both[4] = {1, 1, 0, 0};
    lgc_unmet unmet;
    assert_int_equal(lgc_state_complete(&sys, 0.0, x, both, &unmet), LGC_ERR_INCONSISTENT);
    assert_int_equal(unmet.row, 0);
    assert_eq(unmet.residual, 0.25 + 0.25 - 1.0);
    assert_eq(x[0], 0.5);
    assert_eq(x[1], -0.5);
    lgc_system_free(&sys);
    /* The knife edge's g = -x' sin(phi) + y' cos(phi) does not hold phi': x', y' fixed, it is checked. */
    assert_int_equal(lgc_system_init(&sys, &knife_edge_model), LGC_OK);
    double k[KNIFE_EDGE_NX] = {0};
    k[KNIFE_EDGE_STATE_x_dot] = k[KNIFE_EDGE_STATE_y_dot] = 1.0;
    unsigned char speeds[KNIFE_EDGE_NX] = {0};
    speeds[KNIFE_EDGE_STATE_x_dot] = speeds[KNIFE_EDGE_STATE_y_dot] = 1;
    assert_int_equal(lgc_state_complete(&sys, 0.0, k, speeds, &unmet), LGC_ERR_INCONSISTENT);
    assert_int_equal(unmet.row, 0);
    assert_eq(unmet.residual, 1.0);
    lgc_system_free(&sys);
}

/* A vakonomic model: its multipliers are states the completion leaves alone. */
static void complete_leaves_the_multipliers(void **state)
{
    (void)state;
    lgc_system sys;
    assert_int_equal(lgc_system_init(&sys, &chain_kkt_vak_model), LGC_OK);
    const lgc_model *m = &chain_kkt_vak_model;
    double x[CHAIN_KKT_VAK_NX];
    memcpy(x, m->initial_state, sizeof x);
    for (int i = 0; i < 2 * m->nq; i++)
        x[i] += 0.1 * (i + 1);
    x[m->nx - 1] = 0.25;
    unsigned char fixed[CHAIN_KKT_VAK_NX] = {0};
    lgc_unmet unmet;
    assert_int_equal(lgc_state_complete(&sys, 0.0, x, fixed, &unmet), LGC_OK);
    assert_le(worst_residual(&sys, 0.0, x), 1e-13);
    assert_eq(x[m->nx - 1], 0.25);
    lgc_system_free(&sys);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(check_names_the_worst_row),
        cmocka_unit_test(complete_keeps_the_given_entries),
        cmocka_unit_test(complete_at_a_time),
        cmocka_unit_test(complete_says_when_it_cannot),
        cmocka_unit_test(complete_leaves_the_multipliers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
