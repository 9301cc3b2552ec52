/*
** dense_kkt.h — the generated code's KKT solve (range-space method, two dense
** Cholesky factorisations in plain loops over compile-time sizes NQ and NC),
** copied from the generated NAME.c as of issue 5, so the SymPy side and the
** LAPACK micro-benchmark are measured against the same loops.
** Define NQ and NC before including it.
*/
#include <math.h>

/* L L^T = a in the lower triangle of the row-major n x n a; 0 when not positive definite. */
static int dense_cholesky(int n, double a[])
{
    int i, j, k;
    for (j = 0; j < n; ++j) {
        const double scale = a[j*n + j];
        double d = scale;
        for (k = 0; k < j; ++k) d -= a[j*n + k]*a[j*n + k];
        if (!(d > 1e-13*scale)) return 0;
        d = sqrt(d);
        a[j*n + j] = d;
        for (i = j + 1; i < n; ++i) {
            double s = a[i*n + j];
            for (k = 0; k < j; ++k) s -= a[i*n + k]*a[j*n + k];
            a[i*n + j] = s/d;
        }
    }
    return 1;
}

/* b := L^-1 b, then, if `transposed_too`, b := L^-T b: with both, b := a^-1 b. */
static void dense_cholesky_solve(int n, const double L[], double b[], int transposed_too)
{
    int i, k;
    for (i = 0; i < n; ++i) {
        double s = b[i];
        for (k = 0; k < i; ++k) s -= L[i*n + k]*b[k];
        b[i] = s/L[i*n + i];
    }
    if (!transposed_too) return;
    for (i = n - 1; i >= 0; --i) {
        double s = b[i];
        for (k = i + 1; k < n; ++k) s -= L[k*n + i]*b[k];
        b[i] = s/L[i*n + i];
    }
}

/*
** Solves the KKT system of docs/theory.md §3,
**     [ M  -J^T ] [ a  ]   [ f ]
**     [ J   0   ] [ nu ] = [ r ],
** by the range-space method: a0 = M^-1 f, S = J M^-1 J^T, S nu = r - J a0,
** a = a0 + M^-1 J^T nu. M and S are symmetric positive definite when the
** mass matrix is and the constraint rows are independent, so two Cholesky
** factorisations do it without pivoting. On entry a holds f and nu holds r;
** M (lower triangle) and J are overwritten/read; Y, S, w are scratch.
*/
static int dense_solve_kkt(double M[], double a[], const double J[], double nu[],
                      double Y[], double S[], double w[])
{
    int i, j, k;
    if (!dense_cholesky(NQ, M)) return 1;  /* SINGULAR_MASS */
    dense_cholesky_solve(NQ, M, a, 1);
    /* Row i of Y is L^-1 J_i^T, so S = Y Y^T. */
    for (i = 0; i < NC; ++i) {
        for (k = 0; k < NQ; ++k) Y[i*NQ + k] = J[i*NQ + k];
        dense_cholesky_solve(NQ, M, Y + i*NQ, 0);
    }
    for (i = 0; i < NC; ++i) {
        for (j = 0; j <= i; ++j) {
            double s = 0.0;
            for (k = 0; k < NQ; ++k) s += Y[i*NQ + k]*Y[j*NQ + k];
            S[i*NC + j] = s;
        }
        for (k = 0; k < NQ; ++k) nu[i] -= J[i*NQ + k]*a[k];
    }
    if (!dense_cholesky(NC, S)) return 2;  /* SINGULAR_CONSTRAINTS */
    dense_cholesky_solve(NC, S, nu, 1);
    for (k = 0; k < NQ; ++k) {
        double s = 0.0;
        for (i = 0; i < NC; ++i) s += J[i*NQ + k]*nu[i];
        w[k] = s;
    }
    dense_cholesky_solve(NQ, M, w, 1);
    for (k = 0; k < NQ; ++k) a[k] += w[k];
    return 0;
}
