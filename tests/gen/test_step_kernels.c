/*
** test_step_kernels.c — the step's kernels of gen/kernels/ (rk4.c,
** correct_velocities.c, gauss_newton.c, step.c) on their own, in the
** precision KERNEL_REAL (built once in double, once in float), on a small
** model this file writes: q = (x, y, z), x and y harmonic and z' ' = t^3,
** with the holonomic row phi = x^2 + y^2 - p0 and the nonholonomic
** g = z' - p1 x'. Against closed forms: the RK4 step of the oscillator
** (its amplification polynomial) and of the cubic (Simpson's rule, exact);
** the position correction in W = I against the nearest point of the circle,
** its chord steps and their undoing; the velocity correction against C v = 0
** and W d orthogonal to C's null space; a failed or non-finite step leaving
** the state as it was.
*/
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"
#include "lagrangec/thresholds.h"

/* The placeholders a model gives the kernels (gen/emit/paste_kernel.cpp). */
typedef KERNEL_REAL real;
#define PREFIX_NQ 3
#define PREFIX_NH 1
#define PREFIX_NN 1
#define PREFIX_NC 2
#define PREFIX_NX 6
#define PREFIX_OK 0
#define PREFIX_SINGULAR_MASS 1
#define PREFIX_SINGULAR_CONSTRAINTS 3
#define PREFIX_CORRECTION_FAILED 8
#define PREFIX_NOT_FINITE 9
#define PREFIX_STEP_TOLERANCE ((real)LGC_CORRECTION_TOL)
#define PREFIX_STEP_MAX_ITERATIONS LGC_CORRECTION_MAX_ITER
/* The step's work as the generator slices it (plan.cpp's step_work_layout), the rhs's none. */
#define NWORK_STEP (3 * PREFIX_NX + PREFIX_NC * PREFIX_NQ + PREFIX_NQ * PREFIX_NQ + PREFIX_NC * PREFIX_NC + \
                    PREFIX_NC + PREFIX_NQ + 2 * PREFIX_NH + PREFIX_NN + PREFIX_NQ)
#define PREFIX_STEP_WORK                                                                                   \
    real *k = work, *x0 = k + PREFIX_NX, *xt = x0 + PREFIX_NX, *C = xt + PREFIX_NX,                       \
         *W = C + PREFIX_NC * PREFIX_NQ, *correction = W + PREFIX_NQ * PREFIX_NQ,                         \
         *K = correction + PREFIX_NC * PREFIX_NC, *d = K + PREFIX_NC, *phi = d + PREFIX_NQ,              \
         *phi_dot = phi + PREFIX_NH, *g = phi_dot + PREFIX_NH, *q_prev = g + PREFIX_NN
/* The correction gen/emit/emit_step.cpp prints for a model with holonomic rows. */
#define PREFIX_CORRECTION                                                                                  \
    if (status == PREFIX_OK)                                                                               \
        status = PREFIX_correct_positions(t + h, state, param, mass_metric, C, W, correction, K, d, phi, \
                                          phi_dot, g, q_prev);                                            \
    if (status == PREFIX_OK)                                                                               \
    status = PREFIX_correct_velocities(t + h, state, param, mass_metric, C, W, correction, K, d, phi_dot)

/* ---- the model ---------------------------------------------------------- */

/* What the model's functions count and how the rhs misbehaves, per test. */
static int rhs_calls, rhs_fail_at, rhs_nan_at, jacobian_calls, factor_calls, factor_fails;
static int residual_calls;
static real residual_states[64][PREFIX_NQ];

static void reset_model(void)
{
    rhs_calls = jacobian_calls = factor_calls = factor_fails = residual_calls = 0;
    rhs_fail_at = rhs_nan_at = -1;
}

/* x'' = -x, y'' = -y + u0, z'' = t^3. The call rhs_fail_at fails, rhs_nan_at gives NaN. */
static int PREFIX_rhs(real t, const real x[], const real input[], const real param[], real alpha, real beta,
                      real dxdt[], real multipliers[], real work[])
{
    (void)param, (void)alpha, (void)beta, (void)multipliers, (void)work;
    const int call = rhs_calls++;
    if (call == rhs_fail_at)
        return PREFIX_SINGULAR_MASS;
    for (int i = 0; i < 3; i++)
        dxdt[i] = x[3 + i];
    dxdt[3] = -x[0];
    dxdt[4] = -x[1] + input[0];
    dxdt[5] = call == rhs_nan_at ? (real)NAN : t * t * t;
    return PREFIX_OK;
}

static void PREFIX_residuals(real t, const real x[], const real param[], real phi[], real phi_dot[], real g[])
{
    (void)t;
    if (residual_calls < 64)
        memcpy(residual_states[residual_calls], x, sizeof residual_states[0]);
    residual_calls++;
    phi[0] = x[0] * x[0] + x[1] * x[1] - param[0];
    phi_dot[0] = 2 * x[0] * x[3] + 2 * x[1] * x[4];
    g[0] = x[5] - param[1] * x[3];
}

static void PREFIX_constraint_jacobian(real t, const real x[], const real param[], real C[])
{
    (void)t;
    jacobian_calls++;
    C[0] = 2 * x[0], C[1] = 2 * x[1], C[2] = 0;
    C[3] = -param[1], C[4] = 0, C[5] = 1;
}

/* M = diag(p2, p3, p4). */
static void PREFIX_mass_matrix(real t, const real x[], const real param[], real M[])
{
    (void)t, (void)x;
    for (int i = 0; i < 9; i++)
        M[i] = 0;
    for (int i = 0; i < 3; i++)
        M[4 * i] = param[2 + i];
}

/* W's diagonal: M's (the test's M is diagonal) or 1. */
static real metric(int mass_metric, const real M[], int j) { return mass_metric ? M[4 * j] : 1; }

/* S = C W^-1 C^T in work (NC x NC), as the model's correction_factor leaves its factor. */
static int PREFIX_correction_factor(int mass_metric, real M[], const real C[], real work[])
{
    factor_calls++;
    if (factor_fails)
        return PREFIX_SINGULAR_CONSTRAINTS;
    for (int a = 0; a < PREFIX_NC; a++)
        for (int b = 0; b < PREFIX_NC; b++) {
            real s = 0;
            for (int j = 0; j < PREFIX_NQ; j++)
                s += C[a * PREFIX_NQ + j] * C[b * PREFIX_NQ + j] / metric(mass_metric, M, j);
            work[a * PREFIX_NC + b] = s;
        }
    return work[0] > 0 ? PREFIX_OK : PREFIX_SINGULAR_CONSTRAINTS;
}

/* K := S_rows^-1 K (Cramer's rule, rows <= 2), d = W^-1 C_rows^T K. */
static void PREFIX_correction_solve(int mass_metric, int rows, const real M[], const real C[], real work[], real K[],
                                    real d[])
{
    const real *S = work;
    if (rows == 1) {
        K[0] /= S[0];
    } else {
        const real det = S[0] * S[3] - S[1] * S[2], k0 = K[0], k1 = K[1];
        K[0] = (S[3] * k0 - S[1] * k1) / det;
        K[1] = (S[0] * k1 - S[2] * k0) / det;
    }
    for (int j = 0; j < PREFIX_NQ; j++) {
        real s = 0;
        for (int a = 0; a < rows; a++)
            s += C[a * PREFIX_NQ + j] * K[a];
        d[j] = s / metric(mass_metric, M, j);
    }
}

/*
** In float, the kernels' libm calls and epsilon as the generator retypes
** them (gen/plan/real_type.cpp, gen/emit/paste_kernel.cpp); their literals
** are float by meson.build's -fsingle-precision-constant. A conversion in
** them is an error, as in the embedded builds (tests/embed/).
*/
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wconversion"
#ifdef KERNEL_FLOAT
#pragma GCC diagnostic error "-Wdouble-promotion"
#define fabs fabsf
#define fmax fmaxf
#undef DBL_EPSILON
#define DBL_EPSILON FLT_EPSILON
#endif
int PREFIX_step(real t, real state[], const real input[], const real param[], real baumgarte_alpha,
                real baumgarte_beta, real h, int mass_metric, real work[]);
#include "rk4.c"
#include "correct_velocities.c"
#include "gauss_newton.c"
#include "step.c"
#ifdef KERNEL_FLOAT
#undef fabs
#undef fmax
#endif
#pragma GCC diagnostic pop

/* ---- the tests ------------------------------------------------------------ */

/* Round-off allowed of the kernel's real type, relative. */
#define TOL (sizeof(real) == sizeof(float) ? 1e-5 : 1e-13)

static const real input[1] = {0.25};
/* r^2, the nonholonomic row's slope, the masses. */
static const real param[5] = {1.0, 0.5, 1.0, 4.0, 2.0};

/* RK4 on the oscillator is its amplification polynomial, on z'' = t^3 Simpson's rule (exact for a cubic). */
static void test_rk4_against_closed_forms(void **state)
{
    (void)state;
    const double t = 0.7, h = 0.1, x_in[6] = {0.3, -0.2, 0.1, 0.9, 0.4, -0.6};
    real x[6], k[6], x0[6], xt[6];
    for (int i = 0; i < 6; i++)
        x[i] = (real)x_in[i];
    reset_model();
    assert_int_equal(PREFIX_rk4((real)t, x, input, param, 0, 0, (real)h, k, x0, xt, NULL), PREFIX_OK);
    assert_int_equal(rhs_calls, 4);
    for (int i = 0; i < 6; i++)
        assert_eq(x0[i], (real)x_in[i]);
    /* x' = v, v' = -x: P(hA) = (1 - h^2/2 + h^4/24) I + (h - h^3/6) A. */
    const double a = 1 - h * h / 2 + h * h * h * h / 24, b = h - h * h * h / 6;
    const double want_x = a * x_in[0] + b * x_in[3], want_v = -b * x_in[0] + a * x_in[3];
    check(fabs(x[0] - want_x) <= TOL, "x: %.17g, RK4's polynomial %.17g", (double)x[0], want_x);
    check(fabs(x[3] - want_v) <= TOL, "x': %.17g, RK4's polynomial %.17g", (double)x[3], want_v);
    /* z' gains the integral of t^3 over the step. */
    const double want_vz = x_in[5] + (pow(t + h, 4) - pow(t, 4)) / 4;
    check(fabs(x[5] - want_vz) <= TOL, "z': %.17g, exact %.17g", (double)x[5], want_vz);
    /* y' = v_y, v_y' = -y + u: the oscillator about y = u. */
    const double want_y = input[0] + a * (x_in[1] - input[0]) + b * x_in[4];
    check(fabs(x[1] - want_y) <= TOL, "y: %.17g, RK4's polynomial %.17g", (double)x[1], want_y);
}

/* The rhs failing at any stage, or a stage reaching NaN: the step's status, the state as it was. */
static void test_step_failures_change_nothing(void **state)
{
    (void)state;
    const real start[6] = {0.6, 0.8, 0.1, 0.3, -0.2, 0.4};
    real x[6], work[NWORK_STEP];
    for (int fail = 0; fail < 4; fail++) {
        reset_model();
        rhs_fail_at = fail;
        memcpy(x, start, sizeof x);
        assert_int_equal(PREFIX_step(0, x, input, param, 0, 0, (real)0.01, 1, work), PREFIX_SINGULAR_MASS);
        check(memcmp(x, start, sizeof x) == 0, "rhs failing at call %d: the state changed (x %g)", fail, (double)x[0]);
    }
    reset_model();
    rhs_nan_at = 3;
    memcpy(x, start, sizeof x);
    const int status = PREFIX_step(0, x, input, param, 0, 0, (real)0.01, 0, work);
    check(status == PREFIX_CORRECTION_FAILED || status == PREFIX_NOT_FINITE, "NaN in the last stage: status %d", status);
    check(memcmp(x, start, sizeof x) == 0, "NaN in the last stage: the state changed");
    reset_model();
    factor_fails = 1;
    memcpy(x, start, sizeof x);
    assert_int_equal(PREFIX_step(0, x, input, param, 0, 0, (real)0.01, 1, work), PREFIX_SINGULAR_CONSTRAINTS);
    check(memcmp(x, start, sizeof x) == 0, "the factor failing: the state changed");
}

/* The step_end's own check: a NaN or Inf reached by a step that succeeded. */
static void test_step_end_not_finite(void **state)
{
    (void)state;
    real x[6] = {1, 2, 3, 4, 5, 6}, x0[6] = {6, 5, 4, 3, 2, 1};
    assert_int_equal(PREFIX_step_end(x, x0, PREFIX_OK), PREFIX_OK);
    assert_eq(x[0], 1);
    x[4] = (real)INFINITY;
    assert_int_equal(PREFIX_step_end(x, x0, PREFIX_OK), PREFIX_NOT_FINITE);
    for (int i = 0; i < 6; i++)
        assert_eq(x[i], x0[i]);
}

/* Runs the position correction from (r cos th, r sin th, 0.4) with v = 0; returns its status. */
static int correct_from(double r, double th, int mass_metric, real x[6], real C[6], real phi[1], real rows_dot[2])
{
    real W[9], S[4], K[2], d[3], q_prev[3];
    x[0] = (real)(r * cos(th)), x[1] = (real)(r * sin(th)), x[2] = (real)0.4;
    x[3] = x[4] = x[5] = 0;
    reset_model();
    return PREFIX_correct_positions(0, x, param, mass_metric, C, W, S, K, d, phi, rows_dot, rows_dot + 1, q_prev);
}

/* In W = I Gauss-Newton on x^2 + y^2 = 1 keeps to the ray: the nearest point, z untouched. */
static void test_positions_nearest_point(void **state)
{
    (void)state;
    for (int mass_metric = 0; mass_metric <= 1; mass_metric++) {
        real x[6], C[6], phi[1], rows_dot[2], C_at[6], phi_at[1], dot_at[2];
        const double th = 0.6;
        assert_int_equal(correct_from(1.05, th, mass_metric, x, C, phi, rows_dot), PREFIX_OK);
        check(fabs(phi[0]) <= PREFIX_phi_tolerance(C, x), "W %s: |phi| %g past the tolerance %g",
              mass_metric ? "M" : "I", (double)phi[0], (double)PREFIX_phi_tolerance(C, x));
        assert_eq(x[2], (real)0.4);
        if (!mass_metric) {
            check(fabs(x[0] - cos(th)) <= TOL && fabs(x[1] - sin(th)) <= TOL, "(%.17g, %.17g), not (%.17g, %.17g)",
                  (double)x[0], (double)x[1], cos(th), sin(th));
            /* One Newton step, then chord steps on its factor (each cuts |phi| by about 1/20). */
            assert_int_equal(factor_calls, 1);
            assert_gt(residual_calls, 2);
        }
        /* phi, phi', g and C left at the state, for the velocities. */
        PREFIX_residuals(0, x, param, phi_at, dot_at, dot_at + 1);
        PREFIX_constraint_jacobian(0, x, param, C_at);
        assert_eq(phi[0], phi_at[0]);
        for (int i = 0; i < 6; i++)
            assert_eq(C[i], C_at[i]);
    }
}

/* From r = 2 a chord step cuts |phi| by less than LGC_FACTOR_REUSE: undone, a Newton step from where it began. */
static void test_positions_chord_undone(void **state)
{
    (void)state;
    real x[6], C[6], phi[1], rows_dot[2];
    assert_int_equal(correct_from(2.0, 0.3, 0, x, C, phi, rows_dot), PREFIX_OK);
    check(fabs(x[0] - cos(0.3)) <= TOL && fabs(x[1] - sin(0.3)) <= TOL, "(%.17g, %.17g), not on the ray at r 1",
          (double)x[0], (double)x[1]);
    /* Residuals twice at one state: the chord step undone and its start evaluated again. */
    int again = 0;
    for (int a = 1; a < residual_calls && a < 64; a++)
        again += memcmp(residual_states[a], residual_states[a - 1], sizeof residual_states[0]) != 0 &&
                 a >= 2 && memcmp(residual_states[a], residual_states[a - 2], sizeof residual_states[0]) == 0;
    assert_int_equal(again, 1);
    assert_ge(factor_calls, 2);
}

/* x^2 + y^2 = -1 has no solution: the correction gives up. */
static void test_positions_fail(void **state)
{
    (void)state;
    real p[5], x[6], C[6], W[9], S[4], K[2], d[3], phi[1], rows_dot[2], q_prev[3];
    memcpy(p, param, sizeof p);
    p[0] = -1;
    x[0] = (real)0.5, x[1] = (real)0.2, x[2] = x[3] = x[4] = x[5] = 0;
    reset_model();
    assert_int_equal(PREFIX_correct_positions(0, x, p, 0, C, W, S, K, d, phi, rows_dot, rows_dot + 1, q_prev),
                     PREFIX_CORRECTION_FAILED);
}

/* The velocities meet C v = 0, and W d is orthogonal to C's null space: the smallest d in W. */
static void test_velocities(void **state)
{
    (void)state;
    for (int mass_metric = 0; mass_metric <= 1; mass_metric++) {
        const real start[6] = {(real)0.6, (real)0.8, (real)0.1, (real)0.3, (real)-0.2, (real)0.4};
        real x[6], C[6], W[9], S[4], K[2], d[3], phi[1], rows_dot[2];
        memcpy(x, start, sizeof x);
        reset_model();
        PREFIX_residuals(0, x, param, phi, rows_dot, rows_dot + 1);
        PREFIX_constraint_jacobian(0, x, param, C);
        assert_int_equal(PREFIX_correct_velocities(0, x, param, mass_metric, C, W, S, K, d, rows_dot), PREFIX_OK);
        for (int i = 0; i < 3; i++)
            assert_eq(x[i], start[i]);
        PREFIX_residuals(0, x, param, phi, rows_dot, rows_dot + 1);
        check(fabs(rows_dot[0]) <= TOL && fabs(rows_dot[1]) <= TOL, "W %s: C v = (%g, %g)", mass_metric ? "M" : "I",
              (double)rows_dot[0], (double)rows_dot[1]);
        /* C's null space: the cross product of its rows. */
        const double n[3] = {C[1] * C[5] - C[2] * C[4], C[2] * C[3] - C[0] * C[5], C[0] * C[4] - C[1] * C[3]};
        double along = 0;
        for (int j = 0; j < 3; j++)
            along += n[j] * (mass_metric ? param[2 + j] : 1) * (x[3 + j] - start[3 + j]);
        check(fabs(along) <= TOL, "W %s: n^T W d = %g", mass_metric ? "M" : "I", along);
    }
    /* The factor failing: its status, the velocities as they were. */
    real x[6] = {0.6, 0.8, 0.1, 0.3, -0.2, 0.4}, C[6], W[9], S[4], K[2], d[3], rows_dot[2] = {1, 1};
    reset_model();
    factor_fails = 1;
    PREFIX_constraint_jacobian(0, x, param, C);
    assert_int_equal(PREFIX_correct_velocities(0, x, param, 1, C, W, S, K, d, rows_dot), PREFIX_SINGULAR_CONSTRAINTS);
    assert_eq(x[3], (real)0.3);
}

/* A whole step: RK4, then on the constraint manifold, positions and velocities. */
static void test_step_lands_on_constraints(void **state)
{
    (void)state;
    real x[6] = {0.6, 0.8, 0.1, 0.3, -0.225, 0.15}, work[NWORK_STEP], phi[1], rows_dot[2], C[6];
    for (int mass_metric = 0; mass_metric <= 1; mass_metric++)
        for (int n = 0; n < 10; n++) {
            reset_model();
            assert_int_equal(PREFIX_step((real)(0.01 * n), x, input, param, 0, 0, (real)0.01, mass_metric, work),
                             PREFIX_OK);
            PREFIX_residuals(0, x, param, phi, rows_dot, rows_dot + 1);
            PREFIX_constraint_jacobian(0, x, param, C);
            check(fabs(phi[0]) <= PREFIX_phi_tolerance(C, x), "step %d: |phi| %g", n, (double)phi[0]);
            check(fabs(rows_dot[0]) <= TOL && fabs(rows_dot[1]) <= TOL, "step %d: phi' %g, g %g", n,
                  (double)rows_dot[0], (double)rows_dot[1]);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rk4_against_closed_forms),
        cmocka_unit_test(test_step_failures_change_nothing),
        cmocka_unit_test(test_step_end_not_finite),
        cmocka_unit_test(test_positions_nearest_point),
        cmocka_unit_test(test_positions_chord_undone),
        cmocka_unit_test(test_positions_fail),
        cmocka_unit_test(test_velocities),
        cmocka_unit_test(test_step_lands_on_constraints),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
