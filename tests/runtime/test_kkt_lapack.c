/*
** test_kkt_lapack.c — the runtime's LAPACK KKT solve (kkt_lapack.c) gives the
** generated rhs's dxdt, multipliers and status codes, and lgc_system_rhs
** takes it for a large dense model (the 40-link chain_kkt) only.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"

#include "bead_hoop.h"
#include "cart_pendulum.h"
#include "chain_kkt.h"
#include "chain_kkt_vak.h"
#include "disk_link_rolling.h"
#include "disk_link_sliding.h"
#include "double_pendulum.h"
#include "double_pendulum_angle.h"
#include "four_bar.h"
#include "kkt_lapack.h"
#include "knife_edge.h"
#include "lagrangec/model.h"
#include "lagrangec/status.h"
#include "lagrangec/system.h"
#include "leaning_disk.h"
#include "oscillator.h"
#include "pendulum.h"
#include "pendulum_angle.h"
#include "rolling_ball.h"
#include "rolling_disk.h"
#include "slider_crank.h"

#define MAXX 128 /* state and multiplier sizes of every model here */

/* |a - b|inf <= tol |b|inf over n values (any n, both may be 0). */
static void assert_close(const char *what, const char *model, int n, const double a[],
                         const double b[], double tol)
{
    double diff = 0.0, scale = 0.0;
    for (int i = 0; i < n; i++) {
        diff = fmax(diff, fabs(a[i] - b[i]));
        scale = fmax(scale, fabs(b[i]));
    }
    if (!(diff <= tol * scale)) {
        print_error("%s of %s: LAPACK and generated differ by %g (scale %g)\n", what, model,
                    diff, scale);
        fail();
    }
}

/* A state near the initial one: q, q' and the integral states moved by up to `spread`. */
static void perturbed_state(const lgc_model *m, double spread, double x[])
{
    for (int i = 0; i < m->nx; i++)
        x[i] = m->initial_state[i] + spread * (2.0 * rand() / RAND_MAX - 1.0);
}

/* The LAPACK solve against m->rhs at x: same status, dxdt and multipliers. */
static void compare_at(const lgc_model *m, const double p[], const double x[], double tol)
{
    double gen[MAXX], lap[MAXX], gen_mult[MAXX], lap_mult[MAXX];
    double *work = malloc(m->nwork * sizeof *work);
    double *kkt = malloc(lgc_kkt_lapack_size(m) * sizeof *kkt);
    const double *u = m->input_defaults;
    const int nc = m->nh + m->nn;
    assert_le(m->nx, MAXX);
    assert_le(nc, MAXX);
    int rc_gen = m->rhs(0.3, x, u, p, m->alpha, m->beta, gen, gen_mult, work);
    int rc_lap = lgc_kkt_lapack_rhs(m, kkt, 0.3, x, u, p, m->alpha, m->beta, NULL, NULL, lap, lap_mult);
    assert_int_equal(rc_lap, rc_gen);
    if (rc_gen == LGC_MODEL_OK) {
        assert_close("dxdt", m->name, m->nx, lap, gen, tol);
        assert_close("multipliers", m->name, nc, lap_mult, gen_mult, tol);
    }
    free(work);
    free(kkt);
}

static void every_model_matches_generated(void **state)
{
    (void)state;
    const lgc_model *models[] = {
        &knife_edge_model, &pendulum_model, &double_pendulum_model, &slider_crank_model,
        &pendulum_angle_model, &oscillator_model, &double_pendulum_angle_model,
        &disk_link_rolling_model, &disk_link_sliding_model, &rolling_disk_model,
        &rolling_ball_model, &four_bar_model, &bead_hoop_model, &leaning_disk_model,
        &cart_pendulum_model, &chain_kkt_vak_model, &chain_kkt_model,
    };
    double x[MAXX];
    srand(5);
    for (size_t k = 0; k < sizeof models / sizeof *models; k++) {
        const lgc_model *m = models[k];
        compare_at(m, m->parameter_defaults, m->initial_state, 1e-10);
        for (int r = 0; r < 5; r++) {
            perturbed_state(m, 0.5, x);
            compare_at(m, m->parameter_defaults, x, 1e-10);
        }
    }
}

/*
** Zero masses make M zero; c = 0 makes the velocity row of J zero, which
** the minimum-norm solve takes (that row's right side is 0 too).
*/
static void singular_cases_give_the_generated_codes(void **state)
{
    (void)state;
    const lgc_model *m = &chain_kkt_model;
    const int c = lgc_name_index(m->parameter_names, m->np, "c");
    double p[CHAIN_KKT_NP], dxdt[CHAIN_KKT_NX];
    lgc_system sys;
    assert_ge(c, 0);
    assert_int_equal(lgc_system_init(&sys, m), LGC_OK);

    for (int i = 0; i < m->np; i++)
        p[i] = i == c ? 0.0 : m->parameter_defaults[i];
    compare_at(m, p, m->initial_state, 1e-10);
    sys.p[c] = 0.0;
    assert_int_equal(lgc_system_rhs(&sys, 0.0, m->initial_state, dxdt, NULL), LGC_OK);

    for (int i = 0; i < m->np; i++)
        p[i] = m->parameter_names[i][0] == 'm' ? 0.0 : m->parameter_defaults[i];
    compare_at(m, p, m->initial_state, 1e-10);
    memcpy(sys.p, p, sizeof p);
    assert_int_equal(lgc_system_rhs(&sys, 0.0, m->initial_state, dxdt, NULL),
                     LGC_ERR_SINGULAR_MASS);
    lgc_system_free(&sys);
}

/* The rhs wrapper takes LAPACK for the 40-link chain, and its answer is the generated one. */
static void system_rhs_takes_lapack_for_the_chain(void **state)
{
    (void)state;
    const lgc_model *m = &chain_kkt_model;
    assert_int_equal(m->straight_line_solve, 0);
    assert_ge(m->nq, LGC_LAPACK_MIN_NQ);
    lgc_system sys;
    assert_int_equal(lgc_system_init(&sys, m), LGC_OK);
    assert_int_equal(lgc_system_uses_lapack(&sys), 1);
    double x[CHAIN_KKT_NX], dxdt[CHAIN_KKT_NX], mult[CHAIN_KKT_NC];
    double gen[CHAIN_KKT_NX], gen_mult[CHAIN_KKT_NC];
    srand(7);
    perturbed_state(m, 0.5, x);
    assert_int_equal(lgc_system_rhs(&sys, 0.3, x, dxdt, mult), LGC_OK);
    assert_int_equal(m->rhs(0.3, x, sys.u, sys.p, sys.alpha, sys.beta, gen, gen_mult, sys.work),
                     LGC_MODEL_OK);
    assert_close("dxdt", m->name, m->nx, dxdt, gen, 1e-10);
    assert_close("multipliers", m->name, CHAIN_KKT_NC, mult, gen_mult, 1e-10);
    lgc_system_free(&sys);

    const lgc_model *small[] = {&pendulum_model, &knife_edge_model, &chain_kkt_vak_model};
    for (size_t k = 0; k < sizeof small / sizeof *small; k++) {
        assert_int_equal(lgc_system_init(&sys, small[k]), LGC_OK);
        assert_int_equal(lgc_system_uses_lapack(&sys), 0);
        lgc_system_free(&sys);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_model_matches_generated),
        cmocka_unit_test(singular_cases_give_the_generated_codes),
        cmocka_unit_test(system_rhs_takes_lapack_for_the_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
