/*
** test_planar_kernels.c — the planar articulated-body recursion
** (gen/kernels/planar.c) on its own, in the precision KERNEL_REAL, on
** random planar trees (planar_solve.c its solve pass; a branched tree of five links turning about N's x,
** constant turns about x between some joints, random masses, first moments,
** inertias, offsets, signs and gravity, the out-of-plane parts included):
** its q'' against the spatial inverse dynamics of tree_dynamics.c (M q'' + k
** = tau + the weight's forces), its solve pass against M, the rows of a
** closed chain on top of it (tree_kkt.c) against M and J, the recursion's
** Jacobian (tree_jacobian.c on planar_jacobian.c's derivatives and solves)
** against central differences of its q'', and its refusal of a singular
** tree.
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
#define PREFIX_NQ 5
#define PREFIX_NX (2*PREFIX_NQ)
#define PREFIX_NC 3
#define PREFIX_PLANAR_AXIS 0
/* The tree: links 0 from N, 1 and 2 on 0, 3 on 2, 4 on 3; each turning about x. */
#define PREFIX_NLINK 5
#define PREFIX_LINK_TABLE 24
#define PREFIX_LINK_WORK 77
#define PREFIX_LINK_TANGENT 31
static const int PREFIX_link_parent[PREFIX_NLINK] = {-1, 0, 0, 2, 3};
static const int PREFIX_link_axis[PREFIX_NLINK] = {0, 0, 0, 0, 0};
static const int PREFIX_link_coordinate[PREFIX_NLINK] = {2, 0, 4, 1, 3};
static const int PREFIX_link_fixed[PREFIX_NLINK] = {1, 0, 1, 0, 1};
static const int PREFIX_free_coordinate[7] = {-1, -1, -1, -1, -1, -1, -1};  /* no free joint */

#include "float_kernels_begin.h"
#include "cholesky.c"
#include "symmetric_eigen.c"
#include "articulated.c"
#include "planar.c"
#include "planar_solve.c"
#include "tree_dynamics.c"
#include "tree_kkt.c"
#include "planar_jacobian.c"
#include "tree_jacobian.c"
#include "float_kernels_end.h"

#define NQ PREFIX_NQ
#define TABLE (PREFIX_NLINK * PREFIX_LINK_TABLE + 3)
#define TRIALS 20
/* Round-off allowed, relative to the sizes of the terms compared. */
#define TOL (sizeof(real) == sizeof(float) ? 2e-4 : 1e-12)

/* A uniform number in [-1, 1] from a fixed sequence. */
static double uniform(void) { return 2.0 * rand() / RAND_MAX - 1.0; }

/*
** A random planar tree's table: each fixed joint frame turned about x by a
** random angle (E = R_x), the rest of each row random, the inertia about x
** above |h_yz|^2/m (the link's planar inertia positive definite).
*/
static void random_table(real table[])
{
    for (int i = 0; i < PREFIX_NLINK; i++) {
        real *t = table + i * PREFIX_LINK_TABLE;
        const double turn = 3 * uniform(), m = 1.5 + uniform();
        for (int k = 0; k < 9; k++)
            t[k] = (real)(k % 4 == 0);
        if (PREFIX_link_fixed[i]) {
            t[4] = t[8] = (real)cos(turn);
            t[7] = (real)sin(turn);
            t[5] = -t[7];
        }
        for (int k = 9; k < 12; k++)
            t[k] = (real)uniform();
        t[12] = (real)(2 * uniform());
        t[13] = uniform() < 0 ? -1 : 1;
        t[14] = (real)m;
        for (int k = 15; k < 18; k++)
            t[k] = (real)(0.5 * uniform());
        t[18] = (real)((t[16] * t[16] + t[17] * t[17]) / m + 0.2 + 0.5 * fabs(uniform()));
        for (int k = 19; k < 24; k++)
            t[k] = (real)(0.3 * uniform());
    }
    for (int k = 0; k < 3; k++)
        table[PREFIX_NLINK * PREFIX_LINK_TABLE + k] = (real)(10 * uniform());
}

static void random_vector(int n, real x[], double size)
{
    for (int i = 0; i < n; i++)
        x[i] = (real)(size * uniform());
}

/* M q'' + k - the weight's forces when `weight`, by the spatial Newton–Euler kernel. */
static void inverse_dynamics(const real table[], const real q[], const real v[], const real qdd[], int weight,
                             real out[])
{
    real work[PREFIX_NLINK * PREFIX_LINK_WORK];
    PREFIX_tree_inverse_dynamics(table, q, v, qdd, weight, out, work);
}

/* A random tree and a state and joint forces on it. */
static void random_state(real table[], real q[], real v[], real tau[])
{
    random_table(table);
    random_vector(NQ, q, 3);
    random_vector(NQ, v, 2);
    random_vector(NQ, tau, 5);
}

/* |got - want| within TOL of scale, per coordinate, with the values. */
static void check_close(const char *what, int trial, const real got[], const real want[], const double scale[])
{
    for (int i = 0; i < NQ; i++)
        check(fabs((double)got[i] - (double)want[i]) <= TOL * scale[i], "trial %d, %s %d: %.12g against %.12g", trial,
              what, i, (double)got[i], (double)want[i]);
}

/* q'' by the planar recursion gives back tau through the spatial inverse dynamics, gravity and rates included. */
static void test_planar_against_inverse_dynamics(void **state)
{
    (void)state;
    srand(11);
    for (int trial = 0; trial < TRIALS; trial++) {
        real table[TABLE], q[NQ], v[NQ], tau[NQ], qdd[NQ], id[NQ], work[PREFIX_NLINK * PREFIX_LINK_WORK];
        double scale[NQ];
        random_state(table, q, v, tau);
        assert_int_equal(PREFIX_planar(table, q, v, tau, qdd, work), 1);
        inverse_dynamics(table, q, v, qdd, 1, id);
        for (int i = 0; i < NQ; i++)
            scale[i] = 1 + fabs((double)tau[i]) + 10 * fabs((double)qdd[i]);
        check_close("M q'' + k - G against tau", trial, id, tau, scale);
    }
}

/* The solve pass, twice after one recursion: M x = f by the spatial inverse dynamics at rest without weight. */
static void test_planar_solve(void **state)
{
    (void)state;
    srand(12);
    for (int trial = 0; trial < TRIALS; trial++) {
        real table[TABLE], q[NQ], v[NQ], tau[NQ], qdd[NQ], rest[NQ] = {0}, work[PREFIX_NLINK * PREFIX_LINK_WORK];
        random_state(table, q, v, tau);
        assert_int_equal(PREFIX_planar(table, q, v, tau, qdd, work), 1);
        for (int pass = 0; pass < 2; pass++) {
            real f[NQ], x[NQ], Mx[NQ];
            double scale[NQ];
            random_vector(NQ, f, 3);
            PREFIX_planar_solve(table, q, f, x, work);
            inverse_dynamics(table, q, rest, x, 0, Mx);
            for (int i = 0; i < NQ; i++)
                scale[i] = 1 + fabs((double)f[i]) + 10 * fabs((double)x[i]);
            check_close("M x against f", trial, Mx, f, scale);
        }
    }
}

/*
** A closed chain: two rows (a tip pinned) solved on top of the planar
** recursion by tree_kkt (its third row left out: multiplier 0): J a = r on
** the rows solved, and M (a - a0) = J^T nu, M by the spatial kernel.
*/
static void test_planar_rows_on_top(void **state)
{
    (void)state;
    srand(13);
    for (int trial = 0; trial < TRIALS; trial++) {
        real table[TABLE], q[NQ], v[NQ], tau[NQ], a[NQ], a0[NQ], J[PREFIX_NC * NQ], nu[PREFIX_NC], r[PREFIX_NC];
        real Y[2 * NQ], S[4], E[4], z[2], conditioning[3], M[NQ * NQ], work[PREFIX_NLINK * PREFIX_LINK_WORK];
        static const int rows[2] = {0, 2};
        random_state(table, q, v, tau);
        random_vector(PREFIX_NC * NQ, J, 1);
        random_vector(PREFIX_NC, r, 2);
        for (int c = 0; c < PREFIX_NC; c++)
            nu[c] = r[c];
        assert_int_equal(PREFIX_planar(table, q, v, tau, a, work), 1);
        for (int i = 0; i < NQ; i++)
            a0[i] = a[i];
        PREFIX_tree_kkt(table, q, J, rows, 2, a, nu, Y, S, E, z, conditioning, work);
        check((double)nu[1] == 0.0, "trial %d: the row left out has multiplier %g", trial, (double)nu[1]);
        for (int k = 0; k < 2; k++) {
            const int c = rows[k];
            double Ja = 0, scale = 1 + fabs((double)r[c]);
            for (int i = 0; i < NQ; i++)
                Ja += (double)J[c * NQ + i] * a[i], scale += fabs((double)J[c * NQ + i] * a[i]);
            check(fabs(Ja - (double)r[c]) <= 10 * TOL * scale, "trial %d, row %d: J a = %.12g, r = %.12g", trial, c,
                  Ja, (double)r[c]);
        }
        PREFIX_tree_mass_matrix(table, q, M, work);
        for (int i = 0; i < NQ; i++) {
            double Mda = 0, Jnu = 0, scale = 1;
            for (int b = 0; b < NQ; b++)
                Mda += (double)M[i * NQ + b] * (a[b] - a0[b]), scale += fabs((double)M[i * NQ + b] * a[b]);
            for (int c = 0; c < PREFIX_NC; c++)
                Jnu += (double)J[c * NQ + i] * nu[c], scale += fabs((double)J[c * NQ + i] * nu[c]);
            check(fabs(Mda - Jnu) <= 10 * TOL * scale, "trial %d, coordinate %d: M (a - a0) = %.12g, J^T nu = %.12g",
                  trial, i, Mda, Jnu);
        }
    }
}

/* q'' by the planar recursion at x = (q, q'). */
static void planar_at(const real table[], const real x[], const real tau[], real out[])
{
    real work[PREFIX_NLINK * PREFIX_LINK_WORK];
    assert_int_equal(PREFIX_planar(table, x, x + NQ, tau, out, work), 1);
}

/*
** tree_jacobian's dq''/dx (tau constant) against central differences of
** the planar recursion's q'' (Richardson's, from steps h and 2h): the
** Jacobian a planar model's bdf and adams take.
*/
static void test_jacobian_of_planar(void **state)
{
    (void)state;
    srand(14);
    const double h = sizeof(real) == sizeof(float) ? 1e-2 : 1e-4;
    const double tol = sizeof(real) == sizeof(float) ? 1e-2 : 1e-8;  /* the differences' error */
    for (int trial = 0; trial < 5; trial++) {
        real table[TABLE], x[2 * NQ], tau[NQ], qdd[NQ], dtau_dx[NQ * 2 * NQ] = {0}, dtau_du[1] = {0};
        real dfdx[2 * NQ * 2 * NQ], dfdu[2 * NQ], M[NQ * NQ], column[NQ], work[PREFIX_NLINK * PREFIX_LINK_WORK];
        real tangent[PREFIX_NLINK * PREFIX_LINK_TANGENT];
        random_table(table);
        random_vector(2 * NQ, x, 1.5);
        random_vector(NQ, tau, 3);
        planar_at(table, x, tau, qdd);
        assert_int_equal(PREFIX_tree_jacobian(table, x, qdd, tau, 0.0, 0.0, dtau_dx, dtau_du, 0, dfdx, dfdu, M, column,
                                              work, tangent),
                         1);
        for (int k = 0; k < 2 * NQ; k++) {
            double d[2][NQ];
            for (int pass = 0; pass < 2; pass++) {
                real plus[2 * NQ], minus[2 * NQ], fp[NQ], fm[NQ];
                const double step = pass ? h : 2 * h;
                for (int a = 0; a < 2 * NQ; a++)
                    plus[a] = minus[a] = x[a];
                plus[k] += (real)step;
                minus[k] -= (real)step;
                planar_at(table, plus, tau, fp);
                planar_at(table, minus, tau, fm);
                for (int i = 0; i < NQ; i++)
                    d[pass][i] = ((double)fp[i] - (double)fm[i]) / ((double)plus[k] - (double)minus[k]);
            }
            for (int i = 0; i < NQ; i++) {
                const double want = (4 * d[1][i] - d[0][i]) / 3, got = (double)dfdx[(NQ + i) * 2 * NQ + k];
                check(fabs(got - want) <= tol * (1 + fabs(want)), "trial %d: dq''%d/dx%d = %.12g, the differences %.12g",
                      trial, i, k, got, want);
            }
        }
    }
}

/* A leaf with no mass and no inertia about the axis: D = 0, refused. */
static void test_planar_refuses_singular(void **state)
{
    (void)state;
    srand(15);
    real table[TABLE], q[NQ], v[NQ], tau[NQ], qdd[NQ], work[PREFIX_NLINK * PREFIX_LINK_WORK];
    random_table(table);
    random_vector(NQ, q, 3);
    random_vector(NQ, v, 2);
    random_vector(NQ, tau, 5);
    for (int k = 14; k < 24; k++)
        table[4 * PREFIX_LINK_TABLE + k] = 0;
    assert_int_equal(PREFIX_planar(table, q, v, tau, qdd, work), 0);
}

int main(void)
{
    (void)PREFIX_tree_energies;  /* tree_dynamics.c's, tested in test_kernels.c */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_planar_against_inverse_dynamics),
        cmocka_unit_test(test_planar_solve),
        cmocka_unit_test(test_planar_rows_on_top),
        cmocka_unit_test(test_jacobian_of_planar),
        cmocka_unit_test(test_planar_refuses_singular),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
