/*
** kkt_bench.c — the generated fixed-size loop KKT solve (dense_kkt.h) against
** the same range-space solve through OpenBLAS/LAPACK, on one random system
** with NQ coordinates and NC constraint rows (compile with -DNQ=.. -DNC=..).
**   kkt_bench loop|lapack ns        median ns per solve over 5 runs
**   kkt_bench loop|lapack calls K   K solves, for callgrind --toggle-collect=solve_once
**   kkt_bench check                 largest difference between the two answers
** Each solve first copies M, f, r in from pristine copies, as the rhs fills
** them before solving; both paths pay that.
*/
#define _POSIX_C_SOURCE 199309L
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dense_kkt.h"

#define NCX (NC > 0 ? NC : 1) /* no zero-length arrays in C */

static double M0[NQ * NQ], J[NCX * NQ], f0[NQ], r0[NCX];
static double M[NQ * NQ], a[NQ], nu[NCX], Y[NCX * NQ], S[NCX * NCX], w[NQ];

/* M = B B^T + NQ I (row-major, lower triangle used), J, f, r uniform in [-1, 1]. */
static void make_system(void)
{
    static double B[NQ * NQ];
    int i, j, k;
    srand(1);
    for (i = 0; i < NQ * NQ; ++i) B[i] = 2.0 * rand() / RAND_MAX - 1.0;
    for (i = 0; i < NC * NQ; ++i) J[i] = 2.0 * rand() / RAND_MAX - 1.0;
    for (i = 0; i < NQ; ++i) f0[i] = 2.0 * rand() / RAND_MAX - 1.0;
    for (i = 0; i < NC; ++i) r0[i] = 2.0 * rand() / RAND_MAX - 1.0;
    for (i = 0; i < NQ; ++i)
        for (j = 0; j < NQ; ++j) {
            double s = i == j ? NQ : 0.0;
            for (k = 0; k < NQ; ++k) s += B[i * NQ + k] * B[j * NQ + k];
            M0[i * NQ + j] = s;
        }
}

static void load(void)
{
    memcpy(M, M0, sizeof M);
    memcpy(a, f0, sizeof a);
    memcpy(nu, r0, sizeof nu);
}

/*
** The same steps with LAPACK. Row-major lower triangle = column-major upper
** triangle U, with U^T U = M; J row-major (NC x NQ) is J^T column-major.
*/
static int lapack_solve_kkt(void)
{
    if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', NQ, M, NQ) != 0) return 1;
    LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', NQ, 1, M, NQ, a, NQ);
    if (NC == 0) return 0;
    memcpy(Y, J, sizeof Y);
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, NQ, NC, 1.0, M, NQ, Y, NQ);
    cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, NC, NQ, 1.0, Y, NQ, 0.0, S, NC);
    cblas_dgemv(CblasRowMajor, CblasNoTrans, NC, NQ, -1.0, J, NQ, a, 1, 1.0, nu, 1);
    if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', NC, S, NC) != 0) return 2;
    LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', NC, 1, S, NC, nu, NC);
    cblas_dgemv(CblasRowMajor, CblasTrans, NC, NQ, 1.0, J, NQ, nu, 1, 0.0, w, 1);
    LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', NQ, 1, M, NQ, w, NQ);
    cblas_daxpy(NQ, 1.0, w, 1, a, 1);
    return 0;
}

static int use_lapack;

/* Not static, so callgrind can toggle on it by name. */
int solve_once(void);
int solve_once(void)
{
    load();
    return use_lapack ? lapack_solve_kkt() : dense_solve_kkt(M, a, J, nu, Y, S, w);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double run(long k)
{
    double t0 = now();
    long i;
    for (i = 0; i < k; ++i)
        if (solve_once() != 0) {
            fprintf(stderr, "kkt_bench: singular system\n");
            exit(1);
        }
    return now() - t0;
}

static int cmp(const void *x, const void *y)
{
    double u = *(const double *)x, v = *(const double *)y;
    return (u > v) - (u < v);
}

int main(int argc, char **argv)
{
    make_system();
    if (argc == 2 && strcmp(argv[1], "check") == 0) {
        double loop_a[NQ], d = 0.0;
        int i;
        run(1);
        memcpy(loop_a, a, sizeof a);
        use_lapack = 1;
        run(1);
        for (i = 0; i < NQ; ++i) d = fmax(d, fabs(a[i] - loop_a[i]));
        printf("%.3g\n", d);
        return !(d < 1e-9);
    }
    if (argc < 3 || (strcmp(argv[1], "loop") != 0 && strcmp(argv[1], "lapack") != 0)) {
        fprintf(stderr, "usage: kkt_bench loop|lapack ns | calls K | check\n");
        return 2;
    }
    use_lapack = strcmp(argv[1], "lapack") == 0;
    if (strcmp(argv[2], "calls") == 0 && argc == 4) {
        run(atol(argv[3]));
    } else {
        double ns[5];
        long k = 1;
        int r;
        while (run(k) < 0.02) k *= 2;
        k *= 2;
        for (r = 0; r < 5; ++r) ns[r] = 1e9 * run(k) / k;
        qsort(ns, 5, sizeof ns[0], cmp);
        printf("%.1f\n", ns[2]);
    }
    return 0;
}
