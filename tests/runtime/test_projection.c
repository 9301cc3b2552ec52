/*
** test_projection.c — constraint drift under each correction mode and
** metric, the auto Baumgarte rule, and the knife-edge acceptance figures.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bead_hoop.h"
#include "bicycle.h"
#include "cart_pendulum.h"
#include "chain_kkt.h"
#include "chain_kkt_vak.h"
#include "disk_link_rolling.h"
#include "double_pendulum.h"
#include "envelope_rows.h"
#include "four_bar.h"
#include "knife_edge.h"
#include "leaning_disk.h"
#include "leaning_disk_body.h"
#include "lagrangec/driver.h"
#include "lagrangec/model.h"
#include "lagrangec/status.h"
#include "pendulum.h"
#include "rank_lost.h"
#include "rolling_ball.h"
#include "rolling_disk.h"
#include "slider_crank.h"
#include "run_util.h"
#include "check.h"

static const double gains_off[2] = {0.0, 0.0};

/* Coarse RK4 on the pendulum, so uncorrected drift is plain to see. */
static run_result pendulum(lgc_project_mode mode, lgc_metric metric,
                           const double gains[2])
{
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.type = lgc_step_rk4;
    o.h = 1e-2;
    o.project = mode;
    o.metric = metric;
    run_result r;
    run_model(&pendulum_model, pendulum_horizontal, &o, gains, 100.0, 1e-2, &r);
    assert_int_equal(r.status, LGC_OK);
    print_message("  project %d metric %d: max |phi| %.2e  |phi'| %.2e  dE %.2e\n",
                  mode, metric, r.mon.max_phi, r.mon.max_phi_dot,
                  r.mon.max_energy_drift);
    return r;
}

static void no_correction_drifts(void **state)
{
    (void)state;
    run_result r = pendulum(LGC_PROJECT_NONE, LGC_METRIC_IDENTITY, gains_off);
    assert_gt(r.mon.max_phi, 1e-8);
    run_free(&r);
}

static void velocity_correction(void **state)
{
    (void)state;
    for (int metric = 0; metric < 2; metric++) {
        run_result r = pendulum(LGC_PROJECT_VELOCITY, (lgc_metric)metric, gains_off);
        assert_le(r.mon.max_phi_dot, 1e-12);
        run_free(&r);
    }
}

static void full_correction(void **state)
{
    (void)state;
    for (int metric = 0; metric < 2; metric++) {
        run_result r = pendulum(LGC_PROJECT_FULL, (lgc_metric)metric, gains_off);
        assert_le(r.mon.max_phi, 1e-12);
        assert_le(r.mon.max_phi_dot, 1e-12);
        run_free(&r);
    }
}

/* dopri5's samples come from its interpolant, corrected like the steps. */
static void full_correction_dopri5(void **state)
{
    (void)state;
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.type = lgc_step_dopri5;
    o.h = 0.0;
    o.project = LGC_PROJECT_FULL;
    o.metric = LGC_METRIC_MASS;
    run_result r;
    run_model(&pendulum_model, pendulum_horizontal, &o, NULL, 20.0, 1e-3, &r);
    assert_int_equal(r.status, LGC_OK);
    print_message("  dopri5 full: %lu steps, max |phi| %.2e  |phi'| %.2e\n",
                  r.stats.steps, r.mon.max_phi, r.mon.max_phi_dot);
    assert_le(r.mon.max_phi, 1e-12);
    assert_le(r.mon.max_phi_dot, 1e-12);
    run_free(&r);
}

/*
** CVODE's methods under each correction and metric: BDF's inside its steps,
** Adams's on the states it reports; every step and sample on the
** constraints. Without gains, so only the correction keeps them.
*/
static void corrections_under_cvode(void **state)
{
    (void)state;
    const lgc_stepper_type *types[] = {lgc_step_adams, lgc_step_bdf};
    for (int i = 0; i < 2; i++)
        for (int mode = LGC_PROJECT_VELOCITY; mode <= LGC_PROJECT_FULL; mode++)
            for (int metric = 0; metric < 2; metric++) {
                lgc_driver_options o;
                lgc_driver_options_default(&o);
                o.type = types[i];
                o.h = 0.0;
                o.project = (lgc_project_mode)mode;
                o.metric = (lgc_metric)metric;
                run_result p, k;
                run_model(&pendulum_model, pendulum_horizontal, &o, gains_off, 20.0, 1e-2, &p);
                run_model(&knife_edge_model, NULL, &o, gains_off, 20.0, 1e-2, &k);
                assert_int_equal(p.status, LGC_OK);
                assert_int_equal(k.status, LGC_OK);
                print_message("  %s project %d metric %d: pendulum max |phi| %.2e |phi'| %.2e; "
                              "knife edge max |g| %.2e\n", types[i]->name, mode, metric,
                              p.mon.max_phi, p.mon.max_phi_dot, k.mon.max_g);
                if (mode == LGC_PROJECT_FULL)
                    assert_le(p.mon.max_phi, 1e-12);
                assert_le(p.mon.max_phi_dot, 1e-12);
                assert_le(k.mon.max_g, 1e-12);
                run_free(&p);
                run_free(&k);
            }
}

/* alpha = 2 kappa/h, beta = (kappa/h)^2: a double root at -kappa/h. */
static void baumgarte_auto_rule(void **state)
{
    (void)state;
    double a, b, h = 1e-2;
    lgc_baumgarte_auto(h, &a, &b);
    assert_lt(fabs(a - 2 * LGC_BAUMGARTE_KAPPA / h), 1e-12 * a);
    assert_lt(fabs(a * a - 4 * b), 1e-12 * a * a);    /* double root */
    double gains[2] = {a, b};
    run_result off = pendulum(LGC_PROJECT_NONE, LGC_METRIC_IDENTITY, gains_off);
    run_result on = pendulum(LGC_PROJECT_NONE, LGC_METRIC_IDENTITY, gains);
    assert_lt(on.mon.max_phi, 0.01 * off.mon.max_phi);
    run_free(&off);
    run_free(&on);
}

/* The figures: m = l = 1, t to 100, RK4 h = 1e-3, velocity correction. */
static void knife_edge_acceptance(void **state)
{
    (void)state;
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.type = lgc_step_rk4;
    o.h = 1e-3;
    o.project = LGC_PROJECT_VELOCITY;
    run_result r;
    run_model(&knife_edge_model, NULL, &o, NULL, 100.0, 1e-3, &r);
    assert_int_equal(r.status, LGC_OK);
    print_message("  knife edge: %lu steps, max |g| %.2e, energy drift %.2e\n",
                  r.stats.steps, r.mon.max_g, r.mon.max_energy_drift);
    assert_le(r.mon.max_g, 1e-12);
    assert_le(r.mon.max_energy_drift, 1e-9);
    run_free(&r);
}

/*
** Rows that coincide (rank_lost after t = 1/2: both rows are the circle)
** make the normal equations singular; the SVD takes over and still puts
** the state back on the circle, in both metrics, from the generated
** correction (whose factor reports the lost rank) as from the generic one.
*/
static void coinciding_rows_take_the_svd(void **state)
{
    (void)state;
    lgc_system sys;
    assert_int_equal(lgc_system_init(&sys, &rank_lost_model), LGC_OK);
    assert_non_null(rank_lost_model.correction_factor);
    lgc_model generic = rank_lost_model;    /* without its generated correction */
    generic.correction_factor = NULL;
    generic.correction_solve = NULL;
    for (int path = 0; path < 2; path++)
        for (int metric = 0; metric < 2; metric++) {
            const lgc_model *m = path == 0 ? &rank_lost_model : &generic;
            lgc_projector *pr = lgc_projector_alloc(m, LGC_PROJECT_FULL, (lgc_metric)metric, 1e-13, 20);
            assert_non_null(pr);
            double x[6] = {0.6, -0.9, 0.0, 1.0, 0.5, 0.0}, phi[2], phi_dot[2];
            int iterations = 0;
            assert_int_equal(lgc_project(pr, &sys, 0.75, x, &iterations), LGC_OK);
            rank_lost_model.residuals(0.75, x, sys.p, phi, phi_dot, NULL);
            print_message("  %s path, metric %d: %d iterations, phi %.1e, phi' %.1e\n",
                          path == 0 ? "generated" : "generic", metric, iterations, phi[0], phi_dot[0]);
            assert_le(fabs(phi[0]), 1e-13);
            assert_le(fabs(phi[1]), 1e-13);
            assert_le(fabs(phi_dot[0]), 1e-13);
            assert_le(fabs(phi_dot[1]), 1e-13);
            lgc_projector_free(pr);
        }
    lgc_system_free(&sys);
}

/* B := A^-1 B by Gaussian elimination with row pivoting; A n x n, B n x k, row-major (A destroyed). */
static void gauss_solve(double *A, int n, double *B, int k)
{
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int i = c + 1; i < n; i++)
            if (fabs(A[i * n + c]) > fabs(A[p * n + c]))
                p = i;
        for (int j = 0; j < n; j++) {
            double t = A[c * n + j]; A[c * n + j] = A[p * n + j]; A[p * n + j] = t;
        }
        for (int j = 0; j < k; j++) {
            double t = B[c * k + j]; B[c * k + j] = B[p * k + j]; B[p * k + j] = t;
        }
        for (int i = c + 1; i < n; i++) {
            const double f = A[i * n + c] / A[c * n + c];
            for (int j = c; j < n; j++)
                A[i * n + j] -= f * A[c * n + j];
            for (int j = 0; j < k; j++)
                B[i * k + j] -= f * B[c * k + j];
        }
    }
    for (int c = n - 1; c >= 0; c--)
        for (int j = 0; j < k; j++) {
            double s = B[c * k + j];
            for (int i = c + 1; i < n; i++)
                s -= A[c * n + i] * B[i * k + j];
            B[c * k + j] = s / A[c * n + c];
        }
}

/*
** The velocity correction against the textbook formula, dv = W^-1 C^T K,
** (C W^-1 C^T) K = -[phi'; g], solved densely here by Gaussian elimination:
** both paths must give the same, the model's generated correction
** (lgc_model's correction_factor: straight-line code over M's and C's
** nonzeros) and the projector's generic one (row lists, envelope Cholesky,
** metric solves), run by hiding the former. Then the full correction from
** moved positions reaches the constraints in a few Gauss-Newton (chord)
** iterations, to the same state on both paths. Every model of specs/ with
** constraints, the envelope's, and the 3-link chain in angles as the
** vakonomic formulation writes it; the 40-link chain in angles is too
** large for a generated correction: its descriptor has none.
*/
static void corrections_match_the_dense_formula(void **state)
{
    (void)state;
    const lgc_model *models[] = {&pendulum_model, &cart_pendulum_model, &double_pendulum_model,
                                 &four_bar_model, &slider_crank_model, &knife_edge_model,
                                 &rolling_disk_model, &rolling_ball_model, &disk_link_rolling_model,
                                 &bead_hoop_model, &leaning_disk_model, &leaning_disk_body_model,
                                 &bicycle_model, &envelope_rows_model,
                                 &chain_kkt_vak_model, &chain_kkt_model};
    for (size_t k = 0; k < sizeof models / sizeof models[0]; k++)
        for (int metric = LGC_METRIC_IDENTITY; metric <= LGC_METRIC_MASS; metric++) {
            const lgc_model *m = models[k];
            const int n = m->nq, nh = m->nh, rows = m->nh + m->nn;
            check((m->correction_factor == NULL) == (m == &chain_kkt_model),
                  "%s: generated correction %s", m->name, m->correction_factor ? "present" : "missing");
            lgc_model generic = *m;     /* the same model without its generated correction */
            generic.correction_factor = NULL;
            generic.correction_solve = NULL;
            generic.nwork_correction = 0;
            lgc_system sys;
            assert_int_equal(lgc_system_init(&sys, m), LGC_OK);
            double *start = calloc((size_t)m->nx, sizeof *start), *want = calloc((size_t)m->nx, sizeof *want);
            double *x = calloc((size_t)m->nx, sizeof *x), *full = calloc((size_t)m->nx, sizeof *full);
            double *C = calloc((size_t)(rows * n), sizeof *C), *W = calloc((size_t)(n * n), sizeof *W);
            double *Y = calloc((size_t)(n * rows), sizeof *Y), *S = calloc((size_t)(rows * rows), sizeof *S);
            double *res = calloc((size_t)(2 * nh + m->nn + 1), sizeof *res);
            memcpy(start, m->initial_state, (size_t)m->nx * sizeof *x);
            for (int i = 0; i < n; i++)
                start[n + i] += 0.3 * sin(1.0 + i);
            m->constraint_jacobian(0.0, start, sys.p, C);
            m->residuals(0.0, start, sys.p, res, res + nh, res + 2 * nh);
            if (metric == LGC_METRIC_MASS)
                m->mass_matrix(0.0, start, sys.p, W);
            else
                for (int i = 0; i < n; i++)
                    W[i * n + i] = 1.0;
            for (int i = 0; i < n; i++)     /* Y = W^-1 C^T */
                for (int c = 0; c < rows; c++)
                    Y[i * rows + c] = C[c * n + i];
            gauss_solve(W, n, Y, rows);
            for (int a = 0; a < rows; a++)
                for (int b = 0; b < rows; b++) {
                    S[a * rows + b] = 0.0;
                    for (int i = 0; i < n; i++)
                        S[a * rows + b] += C[a * n + i] * Y[i * rows + b];
                }
            double K[16];
            assert_true(rows <= 16);
            for (int c = 0; c < rows; c++)
                K[c] = -res[nh + c];        /* phi' and g lie back to back */
            gauss_solve(S, rows, K, 1);
            memcpy(want, start, (size_t)m->nx * sizeof *x);
            for (int i = 0; i < n; i++)
                for (int c = 0; c < rows; c++)
                    want[n + i] += Y[i * rows + c] * K[c];

            for (int path = 0; path < 2; path++) {     /* 0: as generated, 1: generic */
                const lgc_model *pm = path == 0 ? m : &generic;
                const char *path_name = path == 0 ? "generated" : "generic";
                memcpy(x, start, (size_t)m->nx * sizeof *x);
                lgc_projector *pr = lgc_projector_alloc(pm, LGC_PROJECT_VELOCITY, (lgc_metric)metric, 1e-13, 20);
                assert_non_null(pr);
                assert_int_equal(lgc_project(pr, &sys, 0.0, x, NULL), LGC_OK);
                for (int i = 0; i < m->nx; i++)
                    check(fabs(x[i] - want[i]) <= 1e-12 * (1.0 + fabs(want[i])),
                          "%s metric %d, %s path: x[%d] = %.17g, the dense formula gives %.17g", m->name,
                          metric, path_name, i, x[i], want[i]);
                lgc_projector_free(pr);
                if (nh == 0)
                    continue;

                for (int i = 0; i < n; i++)
                    x[i] += 1e-3 * cos(2.0 + i);
                pr = lgc_projector_alloc(pm, LGC_PROJECT_FULL, (lgc_metric)metric, 1e-13, 20);
                int it = 0;
                assert_int_equal(lgc_project(pr, &sys, 0.0, x, &it), LGC_OK);
                m->residuals(0.0, x, sys.p, res, res + nh, res + 2 * nh);
                for (int c = 0; c < 2 * nh + m->nn; c++)
                    check(fabs(res[c]) <= 1e-12, "%s metric %d, %s path: residual %d = %.3g after the full "
                          "correction (%d iterations)", m->name, metric, path_name, c, res[c], it);
                check(it >= 1 && it <= 6, "%s metric %d, %s path: %d Gauss-Newton iterations from 1e-3 away",
                      m->name, metric, path_name, it);
                lgc_projector_free(pr);
                if (path == 0)
                    memcpy(full, x, (size_t)m->nx * sizeof *x);
                else
                    for (int i = 0; i < m->nx; i++)
                        check(fabs(x[i] - full[i]) <= 1e-12 * (1.0 + fabs(full[i])),
                              "%s metric %d: after the full correction x[%d] = %.17g generic, %.17g generated",
                              m->name, metric, i, x[i], full[i]);
            }
            free(start), free(want), free(x), free(full), free(C), free(W), free(Y), free(S), free(res);
            lgc_system_free(&sys);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_correction_drifts),
        cmocka_unit_test(velocity_correction),
        cmocka_unit_test(full_correction),
        cmocka_unit_test(full_correction_dopri5),
        cmocka_unit_test(corrections_under_cvode),
        cmocka_unit_test(baumgarte_auto_rule),
        cmocka_unit_test(knife_edge_acceptance),
        cmocka_unit_test(coinciding_rows_take_the_svd),
        cmocka_unit_test(corrections_match_the_dense_formula),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
