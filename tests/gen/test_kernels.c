/*
** test_kernels.c — the kernels of gen/kernels/ on their own, in the
** precision KERNEL_REAL (built once in double, once in float), against
** plain references: Cholesky of random SPD matrices and its solves, its
** refusal of singular ones, S = J M^-1 J^T, the dense KKT solve, the
** minimum-norm one on a system whose third row is the sum of the other two,
** the conditioning and the zeroing.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "check.h"
#include "lagrangec/thresholds.h"

/* The placeholders a model gives the kernels (gen/emit/paste_kernel.cpp). */
typedef KERNEL_REAL real;
#define PREFIX_NQ 4
#define PREFIX_NC 3
#define PREFIX_OK 0
#define PREFIX_SINGULAR_MASS 1
#define PREFIX_RANK_DEFICIENT 2
/* No rows left out. */
#define PREFIX_ROWS_LEFT_OUT
#define PREFIX_ROWS_SKIPPED

/*
** In float, the kernels' libm calls as the generator retypes them
** (gen/plan/real_type.cpp); their literals are float by meson.build's
** -fsingle-precision-constant, as the generator suffixes them f.
*/
#ifdef KERNEL_FLOAT
#define sqrt sqrtf
#define fabs fabsf
#undef HUGE_VAL
#define HUGE_VAL HUGE_VALF
#endif
#include "cholesky.c"
#include "dense_kkt.c"
#include "min_norm.c"
#include "conditioning.c"
#include "zero.c"
#ifdef KERNEL_FLOAT
#undef sqrt
#undef fabs
#endif

#define NMAX 8
/* Round-off allowed of the kernel's real type, relative. */
#define TOL (sizeof(real) == sizeof(float) ? 1e-4 : 1e-11)

/* A uniform number in [-1, 1] from a fixed sequence. */
static double uniform(void) { return 2.0 * rand() / RAND_MAX - 1.0; }

/* a := B B^T + n I for a random n x n B: symmetric positive definite. */
static void random_spd(int n, double a[])
{
    double b[NMAX * NMAX];
    for (int i = 0; i < n * n; i++)
        b[i] = uniform();
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = i == j ? n : 0.0;
            for (int k = 0; k < n; k++)
                s += b[i * n + k] * b[j * n + k];
            a[i * n + j] = s;
        }
}

/* x := a^-1 b by Gaussian elimination with partial pivoting, in double: the reference solve. */
static void reference_solve(int n, const double a_in[], const double b[], double x[])
{
    double a[NMAX * NMAX];
    for (int i = 0; i < n * n; i++)
        a[i] = a_in[i];
    for (int i = 0; i < n; i++)
        x[i] = b[i];
    for (int j = 0; j < n; j++) {
        int p = j;
        for (int i = j + 1; i < n; i++)
            if (fabs(a[i * n + j]) > fabs(a[p * n + j]))
                p = i;
        for (int k = 0; k < n; k++) {
            double t = a[j * n + k];
            a[j * n + k] = a[p * n + k];
            a[p * n + k] = t;
        }
        double t = x[j];
        x[j] = x[p];
        x[p] = t;
        for (int i = j + 1; i < n; i++) {
            double f = a[i * n + j] / a[j * n + j];
            for (int k = j; k < n; k++)
                a[i * n + k] -= f * a[j * n + k];
            x[i] -= f * x[j];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        for (int k = i + 1; k < n; k++)
            x[i] -= a[i * n + k] * x[k];
        x[i] /= a[i * n + i];
    }
}

static void test_cholesky_factors_and_solves(void **state)
{
    (void)state;
    srand(1);
    for (int n = 1; n <= NMAX; n++)
        for (int trial = 0; trial < 20; trial++) {
            double a[NMAX * NMAX], b[NMAX], x[NMAX];
            real L[NMAX * NMAX], y[NMAX];
            random_spd(n, a);
            for (int i = 0; i < n * n; i++)
                L[i] = (real)a[i];
            assert_int_equal(PREFIX_cholesky(n, L, (real)LGC_MASS_PIVOT), 1);
            for (int i = 0; i < n; i++)
                for (int j = 0; j <= i; j++) {
                    double s = 0.0;
                    for (int k = 0; k <= j; k++)
                        s += (double)L[i * n + k] * L[j * n + k];
                    check(fabs(s - a[i * n + j]) <= TOL * (n + a[i * n + i]), "n %d: (L L^T)[%d][%d] = %g, a's %g",
                          n, i, j, s, a[i * n + j]);
                }
            for (int i = 0; i < n; i++)
                y[i] = (real)(b[i] = uniform());
            PREFIX_cholesky_solve(n, L, y, 1);
            reference_solve(n, a, b, x);
            for (int i = 0; i < n; i++)
                check(fabs(y[i] - x[i]) <= TOL * (1.0 + fabs(x[i])), "n %d: x[%d] = %g, not %g", n, i, (double)y[i], x[i]);
        }
}

static void test_cholesky_refuses_singular(void **state)
{
    (void)state;
    real rank_one[4] = {1, 1, 1, 1}, indefinite[4] = {1, 2, 2, 1}, nearly[4] = {1, 1, 1, (real)(1 + 1e-10)};
    assert_int_equal(PREFIX_cholesky(2, rank_one, (real)LGC_ROWS_PIVOT), 0);
    assert_int_equal(PREFIX_cholesky(2, indefinite, (real)LGC_ROWS_PIVOT), 0);
    assert_int_equal(PREFIX_cholesky(2, nearly, (real)LGC_ROWS_PIVOT), 0);
}

/* M, and J's rows random; if `dependent`, row 2 the sum of rows 0 and 1. */
static void random_system(double M[], double J[], int dependent)
{
    random_spd(PREFIX_NQ, M);
    for (int i = 0; i < PREFIX_NC * PREFIX_NQ; i++)
        J[i] = uniform();
    if (dependent)
        for (int k = 0; k < PREFIX_NQ; k++)
            J[2 * PREFIX_NQ + k] = J[k] + J[PREFIX_NQ + k];
}

/* Both in the kernel's real type. */
static void to_real(int n, const double x[], real y[])
{
    for (int i = 0; i < n; i++)
        y[i] = (real)x[i];
}

/* |M a - f - J^T nu| and |J a - r| within round-off: a and nu solve the KKT system. */
static void check_kkt(const double M[], const double J[], const double f[], const double r[], const real a[],
                      const real nu[])
{
    for (int i = 0; i < PREFIX_NC; i++) {
        double s = 0.0;
        for (int k = 0; k < PREFIX_NQ; k++)
            s += J[i * PREFIX_NQ + k] * a[k];
        check(fabs(s - r[i]) <= TOL * 100, "(J a)[%d] = %g, r's %g", i, s, r[i]);
    }
    for (int k = 0; k < PREFIX_NQ; k++) {
        double lhs = 0.0, rhs = f[k];
        for (int j = 0; j < PREFIX_NQ; j++)
            lhs += M[k * PREFIX_NQ + j] * a[j];
        for (int i = 0; i < PREFIX_NC; i++)
            rhs += J[i * PREFIX_NQ + k] * nu[i];
        check(fabs(lhs - rhs) <= TOL * 100, "(M a)[%d] = %g, (f + J^T nu)'s %g", k, lhs, rhs);
    }
}

static void test_schur_complement(void **state)
{
    (void)state;
    srand(2);
    double M[PREFIX_NQ * PREFIX_NQ], J[PREFIX_NC * PREFIX_NQ], Minv_Jt[PREFIX_NC][PREFIX_NQ];
    real Mr[PREFIX_NQ * PREFIX_NQ], Jr[PREFIX_NC * PREFIX_NQ], Y[PREFIX_NC * PREFIX_NQ], S[PREFIX_NC * PREFIX_NC];
    random_system(M, J, 1);
    to_real(PREFIX_NQ * PREFIX_NQ, M, Mr);
    to_real(PREFIX_NC * PREFIX_NQ, J, Jr);
    assert_int_equal(PREFIX_schur_complement(Mr, Jr, Y, S), 1);
    for (int i = 0; i < PREFIX_NC; i++)
        reference_solve(PREFIX_NQ, M, J + i * PREFIX_NQ, Minv_Jt[i]);
    for (int i = 0; i < PREFIX_NC; i++)
        for (int j = 0; j <= i; j++) {
            double s = 0.0;
            for (int k = 0; k < PREFIX_NQ; k++)
                s += J[i * PREFIX_NQ + k] * Minv_Jt[j][k];
            check(fabs(S[i * PREFIX_NC + j] - s) <= TOL * (1.0 + fabs(s)), "S[%d][%d] = %g, not %g", i, j,
                  (double)S[i * PREFIX_NC + j], s);
        }
}

/*
** The minimum-norm solve of [M -J^T; J 0] [a; nu] = [f; r] with J's third
** row the sum of the others: for r with r3 = r1 + r2, J a = r, M a = f +
** J^T nu, and nu has no part along J^T's null direction (1, 1, -1); for r
** without, the inconsistency it reports is far from round-off (in double).
*/
static void test_min_norm_on_dependent_rows(void **state)
{
    (void)state;
    srand(3);
    for (int consistent = 1; consistent >= 0; consistent--) {
        double M[PREFIX_NQ * PREFIX_NQ], J[PREFIX_NC * PREFIX_NQ], f[PREFIX_NQ], r[PREFIX_NC];
        real Mr[PREFIX_NQ * PREFIX_NQ], Jr[PREFIX_NC * PREFIX_NQ], Y[PREFIX_NC * PREFIX_NQ], S[PREFIX_NC * PREFIX_NC],
            E[PREFIX_NC * PREFIX_NC], a[PREFIX_NQ], nu[PREFIX_NC], z[PREFIX_NC], inconsistency = -1;
        random_system(M, J, 1);
        to_real(PREFIX_NQ * PREFIX_NQ, M, Mr);
        to_real(PREFIX_NC * PREFIX_NQ, J, Jr);
        for (int k = 0; k < PREFIX_NQ; k++)
            a[k] = (real)(f[k] = uniform());
        r[0] = uniform();
        r[1] = uniform();
        r[2] = r[0] + r[1] + (consistent ? 0.0 : 1.0);
        for (int i = 0; i < PREFIX_NC; i++)
            nu[i] = (real)r[i];
        assert_int_equal(PREFIX_factor_kkt_min_norm(Mr, Jr, Y, S, E), PREFIX_OK);
        PREFIX_solve_kkt_min_norm(Mr, Y, S, E, a, nu, z, &inconsistency);
        if (!consistent) {
            /* In float, S's zero eigenvalue comes out as round-off, ~1e-7 of the
               largest: above LGC_EIGEN_FLOOR, so kept, and no inconsistency seen. */
            if (sizeof(real) == sizeof(double))
                assert_gt(inconsistency, 0.01);
            continue;
        }
        assert_le(inconsistency, TOL);
        check_kkt(M, J, f, r, a, nu);
        check(fabs(nu[0] + nu[1] - nu[2]) <= TOL * 10, "nu = (%g, %g, %g) along the null direction", (double)nu[0],
              (double)nu[1], (double)nu[2]);
    }
}

/* The dense solve: independent rows solved; dependent ones handed over (RANK_DEFICIENT, in double). */
static void test_dense_kkt(void **state)
{
    (void)state;
    srand(4);
    for (int dependent = 0; dependent <= 1; dependent++) {
        double M[PREFIX_NQ * PREFIX_NQ], J[PREFIX_NC * PREFIX_NQ], f[PREFIX_NQ], r[PREFIX_NC];
        real Mr[PREFIX_NQ * PREFIX_NQ], Jr[PREFIX_NC * PREFIX_NQ], Y[PREFIX_NC * PREFIX_NQ], S[PREFIX_NC * PREFIX_NC],
            a[PREFIX_NQ], nu[PREFIX_NC], w[PREFIX_NQ];
        random_system(M, J, dependent);
        to_real(PREFIX_NQ * PREFIX_NQ, M, Mr);
        to_real(PREFIX_NC * PREFIX_NQ, J, Jr);
        const int status = PREFIX_factor_kkt(Mr, Jr, Y, S);
        if (dependent) {
            /* In float, S's last pivot comes out as round-off, ~1e-7 of its
               diagonal entry: above LGC_ROWS_PIVOT, so not seen as dependent. */
            if (sizeof(real) == sizeof(double))
                assert_int_equal(status, PREFIX_RANK_DEFICIENT);
            continue;
        }
        assert_int_equal(status, PREFIX_OK);
        for (int k = 0; k < PREFIX_NQ; k++)
            a[k] = (real)(f[k] = uniform());
        for (int i = 0; i < PREFIX_NC; i++)
            nu[i] = (real)(r[i] = uniform());
        PREFIX_solve_kkt(Mr, Jr, S, a, nu, w);
        check_kkt(M, J, f, r, a, nu);
    }
}

/* A singular mass matrix stops both factors at once. */
static void test_singular_mass(void **state)
{
    (void)state;
    real M[PREFIX_NQ * PREFIX_NQ] = {0}, J[PREFIX_NC * PREFIX_NQ] = {0}, Y[PREFIX_NC * PREFIX_NQ],
         S[PREFIX_NC * PREFIX_NC], E[PREFIX_NC * PREFIX_NC];
    for (int k = 0; k < PREFIX_NQ - 1; k++)
        M[k * PREFIX_NQ + k] = 1;
    assert_int_equal(PREFIX_factor_kkt(M, J, Y, S), PREFIX_SINGULAR_MASS);
    assert_int_equal(PREFIX_factor_kkt_min_norm(M, J, Y, S, E), PREFIX_SINGULAR_MASS);
}

/* The smallest over the largest of the squared pivots or of the eigenvalues. */
static void test_conditioning(void **state)
{
    (void)state;
    real S[PREFIX_NC * PREFIX_NC] = {0};
    S[0] = 2;
    S[PREFIX_NC + 1] = 4;
    S[2 * PREFIX_NC + 2] = 1;
    assert_true(fabs(PREFIX_conditioning(S, 0) - 1.0 / 16) <= TOL);
    assert_true(fabs(PREFIX_conditioning(S, 1) - 1.0 / 4) <= TOL);
    S[0] = S[PREFIX_NC + 1] = S[2 * PREFIX_NC + 2] = 0;
    assert_true(PREFIX_conditioning(S, 1) == 0);
}

static void test_zero(void **state)
{
    (void)state;
    real a[5] = {1, 2, 3, 4, 5};
    PREFIX_zero(a, 4);
    for (int i = 0; i < 4; i++)
        assert_true(a[i] == 0);
    assert_true(a[4] == 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cholesky_factors_and_solves),
        cmocka_unit_test(test_cholesky_refuses_singular),
        cmocka_unit_test(test_schur_complement),
        cmocka_unit_test(test_min_norm_on_dependent_rows),
        cmocka_unit_test(test_dense_kkt),
        cmocka_unit_test(test_singular_mass),
        cmocka_unit_test(test_conditioning),
        cmocka_unit_test(test_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
