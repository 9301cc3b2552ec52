/* fixture_kkt.c — allocation-free Schur-complement solve for the fixtures. */
#include <math.h>

#include "fixture_kkt.h"
#include "lagrangec/model.h"

/* In-place lower Cholesky of the n x n row-major A; 0 if not positive definite. */
static int cholesky(int n, double A[])
{
    double scale = 0.0;
    for (int i = 0; i < n; i++)
        scale = fmax(scale, fabs(A[i * n + i]));
    for (int j = 0; j < n; j++) {
        double d = A[j * n + j];
        for (int k = 0; k < j; k++)
            d -= A[j * n + k] * A[j * n + k];
        if (!(d > 1e-13 * scale))
            return 0;
        A[j * n + j] = sqrt(d);
        for (int i = j + 1; i < n; i++) {
            double s = A[i * n + j];
            for (int k = 0; k < j; k++)
                s -= A[i * n + k] * A[j * n + k];
            A[i * n + j] = s / A[j * n + j];
        }
    }
    return 1;
}

/* x = A^-1 b with A = L L^T from cholesky(); b and x may alias. */
static void cholesky_solve(int n, const double L[], const double b[], double x[])
{
    for (int i = 0; i < n; i++) {
        double s = b[i];
        for (int k = 0; k < i; k++)
            s -= L[i * n + k] * x[k];
        x[i] = s / L[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = x[i];
        for (int k = i + 1; k < n; k++)
            s -= L[k * n + i] * x[k];
        x[i] = s / L[i * n + i];
    }
}

int fixture_kkt_solve(int n, int m, double M[], const double J[], const double f[],
                      const double r[], double a[], double lam[], double work[])
{
    double *Y = work;           /* m rows: row i is M^-1 J_i^T */
    double *S = Y + n * m;      /* m x m */
    double *a0 = S + m * m;     /* M^-1 f */
    if (!cholesky(n, M))
        return LGC_MODEL_SINGULAR_MASS;
    cholesky_solve(n, M, f, a0);
    for (int i = 0; i < m; i++)
        cholesky_solve(n, M, J + i * n, Y + i * n);
    for (int i = 0; i < m; i++) {
        double s = r[i];
        for (int k = 0; k < n; k++)
            s -= J[i * n + k] * a0[k];
        lam[i] = s;
        for (int j = 0; j < m; j++) {
            double sij = 0.0;
            for (int k = 0; k < n; k++)
                sij += J[i * n + k] * Y[j * n + k];
            S[i * m + j] = sij;
        }
    }
    if (!cholesky(m, S))
        return LGC_MODEL_SINGULAR_CONSTRAINTS;
    cholesky_solve(m, S, lam, lam);
    for (int k = 0; k < n; k++) {
        a[k] = a0[k];
        for (int j = 0; j < m; j++)
            a[k] += Y[j * n + k] * lam[j];
    }
    return LGC_MODEL_OK;
}
