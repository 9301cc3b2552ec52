/*
** test_kernels.c — the kernels of gen/kernels/ on their own, in the
** precision KERNEL_REAL (built once in double, once in float), against
** plain references: Cholesky of random SPD matrices and its solves, its
** refusal of singular ones, S = J M^-1 J^T, the dense KKT solve, the
** minimum-norm one on a system whose third row is the sum of the other two,
** the conditioning, the zeroing and the mirroring of a triangle; the
** articulated-body recursion on a branched tree of four links against
** M q'' + k = tau + G from an independent reference, and on the same tree
** the composite-rigid-body M, Newton-Euler's inverse dynamics and the
** energies (tree_dynamics.c) against it; the derivatives of Newton-Euler's
** inverse dynamics and the Jacobian of the recursion's q''
** (tree_jacobian.c) against central differences of the two kernels.
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
#define PREFIX_NX (2*PREFIX_NQ)
#define PREFIX_NC 3
#define PREFIX_OK 0
#define PREFIX_SINGULAR_MASS 1
#define PREFIX_RANK_DEFICIENT 2
/* No rows left out. */
#define PREFIX_ROWS_LEFT_OUT
#define PREFIX_ROWS_SKIPPED
/* The tree of test_articulated_*: link 0 on the ground, 1 and 2 on 0, 3 on 2. */
#define PREFIX_NLINK 4
#define PREFIX_LINK_TABLE 24
#define PREFIX_LINK_WORK 77
#define PREFIX_LINK_TANGENT 31
static const int PREFIX_link_parent[PREFIX_NLINK] = {-1, 0, 0, 2};
static const int PREFIX_link_axis[PREFIX_NLINK] = {2, 1, 0, 2};
static const int PREFIX_link_coordinate[PREFIX_NLINK] = {0, 2, 1, 3};
static const int PREFIX_link_fixed[PREFIX_NLINK] = {0, 1, 1, 1};  /* link 0's E is the identity */
static const int PREFIX_free_coordinate[7] = {-1, -1, -1, -1, -1, -1, -1};  /* no free joint */

#include "float_kernels_begin.h"
#include "cholesky.c"
#include "schur_complement.c"
#include "dense_kkt.c"
#include "symmetric_eigen.c"
#include "min_norm.c"
#include "conditioning.c"
#include "zero.c"
#include "mirror_lower.c"
#include "articulated.c"
#include "tree_dynamics.c"
#include "tree_kkt.c"
#include "tree_jacobian.c"
#include "float_kernels_end.h"

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
** without, the inconsistency it reports is far from round-off (in float too).
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
            check(inconsistency > 0.01, "inconsistency %g of rows 0 + 1 - 2 = 1: not seen", (double)inconsistency);
            continue;
        }
        assert_le(inconsistency, TOL);
        check_kkt(M, J, f, r, a, nu);
        check(fabs(nu[0] + nu[1] - nu[2]) <= TOL * 10, "nu = (%g, %g, %g) along the null direction", (double)nu[0],
              (double)nu[1], (double)nu[2]);
    }
}

/* The dense solve: independent rows solved; dependent ones handed over (RANK_DEFICIENT), in float too. */
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
            check(status == PREFIX_RANK_DEFICIENT, "status %d with row 2 = row 0 + row 1, not RANK_DEFICIENT (%d)",
                  status, PREFIX_RANK_DEFICIENT);
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

/* A link's row of the articulated kernel's table: E = R_x(tilt), origin r, offset and sign, mass m,
   centre c and inertia Ic about it (xx yy zz xy xz yz), the latter moved to the origin. */
static void link_row(double t[], double tilt, const double r[3], double offset, double sign, double m,
                     const double c[3], const double Ic[6])
{
    const double E[9] = {1, 0, 0, 0, cos(tilt), -sin(tilt), 0, sin(tilt), cos(tilt)};
    const double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    for (int a = 0; a < 9; a++)
        t[a] = E[a];
    for (int a = 0; a < 3; a++) {
        t[9 + a] = r[a];
        t[15 + a] = m * c[a];
        t[18 + a] = Ic[a] + m * (cc - c[a] * c[a]);
    }
    t[12] = offset;
    t[13] = sign;
    t[14] = m;
    t[21] = Ic[3] - m * c[0] * c[1];
    t[22] = Ic[4] - m * c[0] * c[2];
    t[23] = Ic[5] - m * c[1] * c[2];
}

/* The test tree's table: tilted joint frames, offsets, signs, off-axis centres, full inertias. */
static void tree_table(double table[])
{
    static const double tilt[4] = {0.0, 0.4, -0.3, 0.7}, offset[4] = {0.1, 0.0, 0.25, -0.2}, sign[4] = {1, -1, 1, 1};
    static const double mass[4] = {1.3, 0.6, 0.9, 0.7};
    static const double r[4][3] = {{0.1, 0, 0.2}, {0.9, 0.1, 0}, {0.8, -0.2, 0.1}, {0.5, 0, 0.3}};
    static const double c[4][3] = {{0.4, 0.05, 0}, {0.3, 0, -0.1}, {0.35, 0.1, 0.02}, {0.2, -0.05, 0.1}};
    static const double Ic[4][6] = {{0.05, 0.08, 0.06, 0.01, -0.005, 0.002}, {0.02, 0.03, 0.04, 0, 0.003, -0.001},
                                    {0.03, 0.05, 0.02, -0.004, 0, 0.001}, {0.01, 0.02, 0.025, 0.002, 0.001, 0}};
    for (int i = 0; i < PREFIX_NLINK; i++)
        link_row(table + i * PREFIX_LINK_TABLE, tilt[i], r[i], offset[i], sign[i], mass[i], c[i], Ic[i]);
    table[PREFIX_NLINK * PREFIX_LINK_TABLE + 0] = 0.5;
    table[PREFIX_NLINK * PREFIX_LINK_TABLE + 1] = -1.0;
    table[PREFIX_NLINK * PREFIX_LINK_TABLE + 2] = -9.81;
}

/* The reference: M(q) and the gravity forces G(q) = sum m Jv^T g from each link's rotation and origin
   in N, built independently of the kernel's spatial algebra; with `potential`, -sum m g . x there too (x each
   link's centre in N). */
static void tree_mass_matrix(const double table[], const double q[], double M[16], double G[4], double *potential)
{
    double Rw[4][9], ow[4][3], axis[4][3];
    for (int i = 0; i < 16; i++)
        M[i] = 0;
    for (int i = 0; i < 4; i++)
        G[i] = 0;
    if (potential)
        *potential = 0;
    for (int i = 0; i < PREFIX_NLINK; i++) {
        const double *t = table + i * PREFIX_LINK_TABLE;
        const int k = PREFIX_link_axis[i], p = PREFIX_link_parent[i], k1 = (k + 1) % 3, k2 = (k + 2) % 3;
        const double th = t[12] + t[13] * q[PREFIX_link_coordinate[i]];
        double Rk[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, Rl[9];
        Rk[4 * k1] = Rk[4 * k2] = cos(th);
        Rk[3 * k1 + k2] = -sin(th);
        Rk[3 * k2 + k1] = sin(th);
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                Rl[3 * a + b] = t[3 * a] * Rk[b] + t[3 * a + 1] * Rk[3 + b] + t[3 * a + 2] * Rk[6 + b];
        for (int a = 0; a < 3; a++) {
            for (int b = 0; b < 3; b++)
                Rw[i][3 * a + b] = p < 0 ? Rl[3 * a + b]
                                         : Rw[p][3 * a] * Rl[b] + Rw[p][3 * a + 1] * Rl[3 + b] + Rw[p][3 * a + 2] * Rl[6 + b];
            ow[i][a] = p < 0 ? t[9 + a]
                             : ow[p][a] + Rw[p][3 * a] * t[9] + Rw[p][3 * a + 1] * t[10] + Rw[p][3 * a + 2] * t[11];
        }
        for (int a = 0; a < 3; a++)
            axis[i][a] = t[13] * Rw[i][3 * a + k];
    }
    for (int i = 0; i < PREFIX_NLINK; i++) {
        const double *t = table + i * PREFIX_LINK_TABLE, m = t[14];
        const double c[3] = {t[15] / m, t[16] / m, t[17] / m}, cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
        double cw[3], Iw[9], Io[9] = {t[18], t[21], t[22], t[21], t[19], t[23], t[22], t[23], t[20]}, Jv[4][3], Jw[4][3];
        for (int a = 0; a < 3; a++)
            cw[a] = ow[i][a] + Rw[i][3 * a] * c[0] + Rw[i][3 * a + 1] * c[1] + Rw[i][3 * a + 2] * c[2];
        if (potential)
            for (int a = 0; a < 3; a++)
                *potential -= m * table[PREFIX_NLINK * PREFIX_LINK_TABLE + a] * cw[a];
        for (int a = 0; a < 3; a++)  /* the inertia about the centre, then in N */
            for (int b = 0; b < 3; b++)
                Io[3 * a + b] -= m * ((a == b) * cc - c[a] * c[b]);
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                double s = 0;
                for (int x = 0; x < 3; x++)
                    for (int y = 0; y < 3; y++)
                        s += Rw[i][3 * a + x] * Io[3 * x + y] * Rw[i][3 * b + y];
                Iw[3 * a + b] = s;
            }
        for (int j = 0; j < 4; j++)
            for (int a = 0; a < 3; a++)
                Jv[j][a] = Jw[j][a] = 0;
        for (int n = i; n >= 0; n = PREFIX_link_parent[n]) {
            const int j = PREFIX_link_coordinate[n];
            const double d[3] = {cw[0] - ow[n][0], cw[1] - ow[n][1], cw[2] - ow[n][2]};
            for (int a = 0; a < 3; a++)
                Jw[j][a] = axis[n][a];
            Jv[j][0] = axis[n][1] * d[2] - axis[n][2] * d[1];
            Jv[j][1] = axis[n][2] * d[0] - axis[n][0] * d[2];
            Jv[j][2] = axis[n][0] * d[1] - axis[n][1] * d[0];
        }
        for (int a = 0; a < 4; a++) {
            for (int b = 0; b < 4; b++) {
                double s = 0;
                for (int x = 0; x < 3; x++) {
                    s += m * Jv[a][x] * Jv[b][x];
                    for (int y = 0; y < 3; y++)
                        s += Jw[a][x] * Iw[3 * x + y] * Jw[b][y];
                }
                M[4 * a + b] += s;
            }
            for (int x = 0; x < 3; x++)
                G[a] += m * Jv[a][x] * table[PREFIX_NLINK * PREFIX_LINK_TABLE + x];
        }
    }
}

/* The upper triangle from the lower one, the lower (and the diagonal) as they were. */
static void test_mirror_lower(void **state)
{
    (void)state;
    real a[PREFIX_NQ * PREFIX_NQ], before[PREFIX_NQ * PREFIX_NQ];
    for (int i = 0; i < PREFIX_NQ * PREFIX_NQ; i++)
        before[i] = a[i] = (real)(i + 1);
    PREFIX_mirror_lower(a);
    for (int i = 0; i < PREFIX_NQ; i++)
        for (int j = 0; j <= i; j++) {
            assert_eq(a[i * PREFIX_NQ + j], before[i * PREFIX_NQ + j]);
            assert_eq(a[j * PREFIX_NQ + i], before[i * PREFIX_NQ + j]);
        }
}

/* k(q, q') = M' q' - d/dq (q'^T M q' / 2) of the reference, by central differences of M. */
static void tree_velocity_terms(const double table[], const double q[], const double v[], double k[4])
{
    const double h = 1e-5;
    for (int a = 0; a < 4; a++)
        k[a] = 0;
    for (int j = 0; j < 4; j++) {
        double qp[4], qm[4], Mp[16], Mm[16], unused[4];
        for (int i = 0; i < 4; i++)
            qp[i] = qm[i] = q[i];
        qp[j] += h;
        qm[j] -= h;
        tree_mass_matrix(table, qp, Mp, unused, NULL);
        tree_mass_matrix(table, qm, Mm, unused, NULL);
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
                const double dM = (Mp[4 * a + b] - Mm[4 * a + b]) / (2 * h);
                k[a] += dM * v[j] * v[b];
                k[j] -= 0.5 * v[a] * dM * v[b];
            }
    }
}

/* A tree of four links (a branch at link 0) against M q'' + k = tau + G: M and G from the reference,
   k = M' v - d/dq (v^T M v / 2) by central differences of M. */
static void test_articulated_tree(void **state)
{
    (void)state;
    double table[PREFIX_NLINK * PREFIX_LINK_TABLE + 3];
    tree_table(table);
    const double q[4] = {0.3, -0.5, 0.8, 0.2}, v[4] = {0.5, -0.3, 1.1, 0.7}, tau[4] = {0.2, -0.1, 0.3, -0.4};
    real tr[PREFIX_NLINK * PREFIX_LINK_TABLE + 3], qr[4], vr[4], taur[4], acc[4], work[PREFIX_NLINK * PREFIX_LINK_WORK];
    to_real(PREFIX_NLINK * PREFIX_LINK_TABLE + 3, table, tr);
    to_real(4, q, qr);
    to_real(4, v, vr);
    to_real(4, tau, taur);
    assert_int_equal(PREFIX_articulated(tr, qr, vr, taur, 0.0, 0.0, acc, work), 1);
    double M[16], G[4], k[4];
    tree_mass_matrix(table, q, M, G, NULL);
    tree_velocity_terms(table, q, v, k);
    const double tol = sizeof(real) == sizeof(float) ? 1e-4 : 1e-8;  /* the differences' error */
    for (int a = 0; a < 4; a++) {
        double lhs = k[a], scale = fabs(tau[a]) + fabs(G[a]) + fabs(k[a]);
        for (int b = 0; b < 4; b++)
            lhs += M[4 * a + b] * acc[b], scale += fabs(M[4 * a + b] * acc[b]);
        if (fabs(lhs - tau[a] - G[a]) > tol * scale)
            fail_msg("row %d: M q'' + k = %.12g, tau + G = %.12g", a, lhs, tau[a] + G[a]);
    }
}


/* The solve pass after the recursion at the same q: M x = f (M the reference's), for two f in a row
   (the first leaves the links' work as the second finds it); then the rows on top of it (tree_kkt):
   M (a - a0) = J^T nu and J a = r on rows 0 and 2, row 1 left out with multiplier 0; and with row 1
   twice row 0 (dependent, r consistent), the minimum-norm solve still meets both rows. */
static void test_articulated_solve_and_rows(void **state)
{
    (void)state;
    double table[PREFIX_NLINK * PREFIX_LINK_TABLE + 3];
    tree_table(table);
    const double q[4] = {0.3, -0.5, 0.8, 0.2}, v[4] = {0.5, -0.3, 1.1, 0.7}, tau[4] = {0.2, -0.1, 0.3, -0.4};
    static const double fs[2][4] = {{1.0, -0.5, 0.25, 2.0}, {-0.3, 0.9, 1.7, -1.1}};
    real tr[PREFIX_NLINK * PREFIX_LINK_TABLE + 3], qr[4], vr[4], taur[4], acc[4], x[4], fr[4];
    real work[PREFIX_NLINK * PREFIX_LINK_WORK];
    to_real(PREFIX_NLINK * PREFIX_LINK_TABLE + 3, table, tr);
    to_real(4, q, qr);
    to_real(4, v, vr);
    to_real(4, tau, taur);
    double M[16], G[4];
    tree_mass_matrix(table, q, M, G, NULL);
    const double tol = sizeof(real) == sizeof(float) ? 1e-4 : 1e-12;
    assert_int_equal(PREFIX_articulated(tr, qr, vr, taur, 0.0, 0.0, acc, work), 1);
    for (int s = 0; s < 2; s++) {
        to_real(4, fs[s], fr);
        PREFIX_articulated_solve(tr, qr, fr, x, work);
        for (int a = 0; a < 4; a++) {
            double Mx = 0, scale = fabs(fs[s][a]);
            for (int b = 0; b < 4; b++)
                Mx += M[4 * a + b] * x[b], scale += fabs(M[4 * a + b] * x[b]);
            if (fabs(Mx - fs[s][a]) > tol * scale)
                fail_msg("f %d, row %d: M x = %.17g, f = %.17g", s, a, Mx, fs[s][a]);
        }
    }
    for (int dependent = 0; dependent < 2; dependent++) {
        double J[12] = {0.4, -1.0, 0.3, 0.8, 0.0, 0.0, 0.0, 0.0, -0.6, 0.2, 1.1, 0.5};
        double r[3] = {0.7, 0.0, -0.4};
        const int rows[2] = {0, dependent ? 1 : 2};
        if (dependent) {
            for (int i = 0; i < 4; i++)
                J[4 + i] = 2 * J[i];
            r[1] = 2 * r[0];
        } else {
            for (int i = 0; i < 4; i++)
                J[4 + i] = 1.0 + i;  /* not solved: its multiplier must stay 0 */
            r[1] = 5.0;
        }
        real Jr[12], nu[3], a[4], a0[4], Y[8], S[4], E[4], z[2], conditioning[3];
        to_real(12, J, Jr);
        to_real(3, r, nu);
        assert_int_equal(PREFIX_articulated(tr, qr, vr, taur, 0.0, 0.0, a, work), 1);
        for (int i = 0; i < 4; i++)
            a0[i] = a[i];
        PREFIX_tree_kkt(tr, qr, Jr, rows, 2, a, nu, Y, S, E, z, conditioning, work);
        if ((double)conditioning[1] != dependent)
            fail_msg("dependent %d: conditioning[1] = %g", dependent, (double)conditioning[1]);
        if (!dependent && (double)nu[1] != 0.0)
            fail_msg("the row left out has multiplier %.17g", (double)nu[1]);
        for (int c = 0; c < 3; c++) {
            if (!dependent && c == 1)
                continue;
            double Ja = 0, scale = fabs(r[c]);
            for (int i = 0; i < 4; i++)
                Ja += J[4 * c + i] * a[i], scale += fabs(J[4 * c + i] * a[i]);
            if (c < 2 || !dependent)
                if (fabs(Ja - r[c]) > tol * 10 * scale)
                    fail_msg("dependent %d, row %d: J a = %.17g, r = %.17g", dependent, c, Ja, r[c]);
        }
        for (int i = 0; i < 4; i++) {
            double Mda = 0, Jnu = 0, scale = 0;
            for (int b = 0; b < 4; b++)
                Mda += M[4 * i + b] * (a[b] - a0[b]), scale += fabs(M[4 * i + b] * a[b]);
            for (int c = 0; c < 3; c++)
                Jnu += J[4 * c + i] * nu[c], scale += fabs(J[4 * c + i] * nu[c]);
            if (fabs(Mda - Jnu) > tol * 10 * scale)
                fail_msg("dependent %d, row %d: M (a - a0) = %.17g, J^T nu = %.17g", dependent, i, Mda, Jnu);
        }
    }
}

/* The tree's M by the composite-rigid-body kernel against the reference's Jacobians, at two states. */
static void test_tree_mass_matrix(void **state)
{
    (void)state;
    double table[PREFIX_NLINK * PREFIX_LINK_TABLE + 3];
    tree_table(table);
    static const double qs[2][4] = {{0.3, -0.5, 0.8, 0.2}, {-1.2, 2.1, -0.4, 2.9}};
    real tr[PREFIX_NLINK * PREFIX_LINK_TABLE + 3], qr[4], Mr[16], work[PREFIX_NLINK * PREFIX_LINK_WORK];
    to_real(PREFIX_NLINK * PREFIX_LINK_TABLE + 3, table, tr);
    const double tol = sizeof(real) == sizeof(float) ? 1e-5 : 1e-13;
    for (int s = 0; s < 2; s++) {
        double M[16], G[4];
        to_real(4, qs[s], qr);
        PREFIX_tree_mass_matrix(tr, qr, Mr, work);
        tree_mass_matrix(table, qs[s], M, G, NULL);
        double scale = 0;
        for (int a = 0; a < 16; a++)
            scale = fmax(scale, fabs(M[a]));
        for (int a = 0; a < 16; a++)
            if (fabs((double)Mr[a] - M[a]) > tol * scale)
                fail_msg("state %d: M[%d][%d] = %.12g, the reference's %.12g", s, a / 4, a % 4, (double)Mr[a], M[a]);
    }
}

/* Newton-Euler's M q'' + k - G against the reference (k by differences of M), with and without the weight. */
static void test_tree_inverse_dynamics(void **state)
{
    (void)state;
    double table[PREFIX_NLINK * PREFIX_LINK_TABLE + 3];
    tree_table(table);
    const double q[4] = {0.3, -0.5, 0.8, 0.2}, v[4] = {0.5, -0.3, 1.1, 0.7}, acc[4] = {-0.7, 0.4, 1.3, -0.2};
    real tr[PREFIX_NLINK * PREFIX_LINK_TABLE + 3], qr[4], vr[4], ar[4], out[4], work[PREFIX_NLINK * PREFIX_LINK_WORK];
    to_real(PREFIX_NLINK * PREFIX_LINK_TABLE + 3, table, tr);
    to_real(4, q, qr);
    to_real(4, v, vr);
    to_real(4, acc, ar);
    double M[16], G[4], k[4];
    tree_mass_matrix(table, q, M, G, NULL);
    tree_velocity_terms(table, q, v, k);
    const double tol = sizeof(real) == sizeof(float) ? 1e-4 : 1e-8;  /* the differences' error */
    for (int weight = 0; weight < 2; weight++) {
        PREFIX_tree_inverse_dynamics(tr, qr, vr, ar, weight, out, work);
        for (int a = 0; a < 4; a++) {
            double want = k[a] - weight * G[a], scale = fabs(k[a]) + fabs(G[a]);
            for (int b = 0; b < 4; b++)
                want += M[4 * a + b] * acc[b], scale += fabs(M[4 * a + b] * acc[b]);
            if (fabs((double)out[a] - want) > tol * scale)
                fail_msg("weight %d, row %d: Newton-Euler %.12g, M q'' + k - G = %.12g", weight, a, (double)out[a], want);
        }
    }
}

/*
** Central differences of f (the kernel's, at real precision) in coordinate k of x (n values), Richardson's
** fourth order from steps 2h and h: out[i] = d f_i/d x_k.
*/
typedef void (*tree_function)(const real table[], const real x[], const real tau[], real out[]);
static void central_difference(tree_function f, const real table[], const real x[], const real tau[], int k, double h,
                               real out[4])
{
    real plus[8], minus[8], fp[4], fm[4];
    double d[2][4];
    for (int pass = 0; pass < 2; pass++) {
        const double step = pass ? h : 2 * h;
        for (int a = 0; a < 8; a++)
            plus[a] = minus[a] = x[a];
        plus[k] += (real)step;
        minus[k] -= (real)step;
        f(table, plus, tau, fp);
        f(table, minus, tau, fm);
        for (int i = 0; i < 4; i++)
            d[pass][i] = ((double)fp[i] - (double)fm[i]) / ((double)plus[k] - (double)minus[k]);
    }
    for (int i = 0; i < 4; i++)
        out[i] = (real)((4 * d[1][i] - d[0][i]) / 3);
}

static const real jacobian_accel[4] = {-0.7f, 0.4f, 1.3f, -0.2f};

/* ID at x = (q, q') and the accelerations jacobian_accel, the weight included. */
static void inverse_dynamics_at(const real table[], const real x[], const real tau[], real out[])
{
    real work[PREFIX_NLINK * PREFIX_LINK_WORK];
    (void)tau;
    PREFIX_tree_inverse_dynamics(table, x, x + 4, jacobian_accel, 1, out, work);
}

/* The recursion's q'' at x = (q, q') under tau. */
static void accelerations_at(const real table[], const real x[], const real tau[], real out[])
{
    real work[PREFIX_NLINK * PREFIX_LINK_WORK];
    assert_int_equal(PREFIX_articulated(table, x, x + 4, tau, 0.0, 0.0, out, work), 1);
}

/*
** d ID/dq, d ID/dq' by the tangent passes, and the recursion's df/dx, df/du
** (tau constant in x, d tau/du a column) by tree_jacobian, against central
** differences of inverse dynamics and of the recursion's q''.
*/
static void test_tree_jacobian(void **state)
{
    (void)state;
    double table[PREFIX_NLINK * PREFIX_LINK_TABLE + 3];
    tree_table(table);
    const double x[8] = {0.3, -0.5, 0.8, 0.2, 0.5, -0.3, 1.1, 0.7}, tau[4] = {0.2, -0.1, 0.3, -0.4};
    real tr[PREFIX_NLINK * PREFIX_LINK_TABLE + 3], xr[8], taur[4], work[PREFIX_NLINK * PREFIX_LINK_WORK];
    real tangent[PREFIX_NLINK * PREFIX_LINK_TANGENT], D[4 * 8], id[4], diff[4], qdd[4];
    real dtau_dx[4 * 8] = {0}, dtau_du[4] = {1.0f, 0.0f, -0.5f, 0.25f}, dfdx[8 * 8], dfdu[8], M[16], column[4];
    const double h = sizeof(real) == sizeof(float) ? 1e-2 : 1e-4;
    const double tol = sizeof(real) == sizeof(float) ? 1e-2 : 1e-8;  /* the differences' error */
    to_real(PREFIX_NLINK * PREFIX_LINK_TABLE + 3, table, tr);
    to_real(8, x, xr);
    to_real(4, tau, taur);
    PREFIX_tree_inverse_dynamics(tr, xr, xr + 4, jacobian_accel, 1, id, work);
    PREFIX_tree_inverse_dynamics_derivatives(tr, xr, xr + 4, jacobian_accel, 8, D, D + 4, work, tangent, column);
    for (int k = 0; k < 8; k++) {
        central_difference(inverse_dynamics_at, tr, xr, taur, k, h, diff);
        for (int i = 0; i < 4; i++)
            if (fabs((double)D[8 * i + k] - (double)diff[i]) > tol * (1 + fabs((double)diff[i])))
                fail_msg("d ID%d/dx%d = %.12g, the differences give %.12g", i, k, (double)D[8 * i + k], (double)diff[i]);
    }
    accelerations_at(tr, xr, taur, qdd);
    assert_int_equal(PREFIX_tree_jacobian(tr, xr, qdd, taur, 0.0, 0.0, dtau_dx, dtau_du, 1, dfdx, dfdu, M, column, work,
                                          tangent), 1);
    for (int k = 0; k < 8; k++) {
        central_difference(accelerations_at, tr, xr, taur, k, h, diff);
        for (int i = 0; i < 8; i++) {
            const double want = i < 4 ? (k == 4 + i) : (double)diff[i - 4];
            if (fabs((double)dfdx[8 * i + k] - want) > tol * (1 + fabs(want)))
                fail_msg("df%d/dx%d = %.12g, the differences give %.12g", i, k, (double)dfdx[8 * i + k], want);
        }
    }
    for (int i = 0; i < 4; i++) {  /* d q''/du: the differences of q'' along tau's column */
        real plus[4], minus[4], ap[4], am[4];
        for (int a = 0; a < 4; a++)
            plus[a] = taur[a] + (real)h * dtau_du[a], minus[a] = taur[a] - (real)h * dtau_du[a];
        accelerations_at(tr, xr, plus, ap);
        accelerations_at(tr, xr, minus, am);
        const double want = ((double)ap[i] - (double)am[i]) / (2 * h);  /* q'' is linear in tau */
        if (fabs((double)dfdu[i]) > 0 || fabs((double)dfdu[4 + i] - want) > tol * (1 + fabs(want)))
            fail_msg("df%d/du = %.12g, df%d/du = %.12g (the differences give %.12g)", i, (double)dfdu[i], 4 + i,
                     (double)dfdu[4 + i], want);
    }
}

/* The energies against q'^T M q' / 2 and -sum m g . x of the reference. */
static void test_tree_energies(void **state)
{
    (void)state;
    double table[PREFIX_NLINK * PREFIX_LINK_TABLE + 3];
    tree_table(table);
    const double q[4] = {0.3, -0.5, 0.8, 0.2}, v[4] = {0.5, -0.3, 1.1, 0.7};
    real tr[PREFIX_NLINK * PREFIX_LINK_TABLE + 3], qr[4], vr[4], TV[2], work[PREFIX_NLINK * PREFIX_LINK_WORK];
    to_real(PREFIX_NLINK * PREFIX_LINK_TABLE + 3, table, tr);
    to_real(4, q, qr);
    to_real(4, v, vr);
    PREFIX_tree_energies(tr, qr, vr, TV, work);
    double M[16], G[4], T = 0, V;
    tree_mass_matrix(table, q, M, G, &V);
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            T += 0.5 * v[a] * M[4 * a + b] * v[b];
    const double tol = sizeof(real) == sizeof(float) ? 1e-5 : 1e-13;
    if (fabs((double)TV[0] - T) > tol * fabs(T))
        fail_msg("T = %.12g, the reference's %.12g", (double)TV[0], T);
    if (fabs((double)TV[1] - V) > tol * (fabs(V) + 1))
        fail_msg("V = %.12g, the reference's %.12g", (double)TV[1], V);
}

/* A leaf whose articulated inertia about its axis is zero (no mass, no inertia): refused. */
static void test_articulated_singular(void **state)
{
    (void)state;
    double table[PREFIX_NLINK * PREFIX_LINK_TABLE + 3];
    tree_table(table);
    for (int a = 14; a < 24; a++)
        table[3 * PREFIX_LINK_TABLE + a] = 0;
    real tr[PREFIX_NLINK * PREFIX_LINK_TABLE + 3], z[4] = {0, 0, 0, 0}, acc[4], work[PREFIX_NLINK * PREFIX_LINK_WORK];
    to_real(PREFIX_NLINK * PREFIX_LINK_TABLE + 3, table, tr);
    assert_int_equal(PREFIX_articulated(tr, z, z, z, 0.0, 0.0, acc, work), 0);
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
        cmocka_unit_test(test_mirror_lower),
        cmocka_unit_test(test_articulated_tree),
        cmocka_unit_test(test_articulated_singular),
        cmocka_unit_test(test_articulated_solve_and_rows),
        cmocka_unit_test(test_tree_mass_matrix),
        cmocka_unit_test(test_tree_inverse_dynamics),
        cmocka_unit_test(test_tree_energies),
        cmocka_unit_test(test_tree_jacobian),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
