/* lcp.c — Lemke's complementary pivoting for small dense LCPs. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "lagrangec/status.h"
#include "lcp.h"

int lgc_lcp_init(lgc_lcp *lcp, int n)
{
    lcp->n = n;
    lcp->tableau = malloc(((size_t)n * (size_t)(2 * n + 2) + 1) * sizeof *lcp->tableau);
    lcp->basis = malloc(((size_t)n + 1) * sizeof *lcp->basis);
    if (!lcp->tableau || !lcp->basis) {
        lgc_lcp_free(lcp);
        return LGC_ERR_NOMEM;
    }
    return LGC_OK;
}

void lgc_lcp_free(lgc_lcp *lcp)
{
    free(lcp->tableau);
    free(lcp->basis);
    lcp->tableau = NULL;
    lcp->basis = NULL;
}

/* Row r's pivot on column c: c becomes basic in r, every other row clears it. */
static void pivot(double *T, int m, int width, int r, int c)
{
    double *pr = T + (size_t)r * width;
    const double inv = 1.0 / pr[c];
    for (int j = 0; j < width; j++)
        pr[j] *= inv;
    for (int i = 0; i < m; i++) {
        double *pi = T + (size_t)i * width;
        const double a = pi[c];
        if (i == r || a == 0.0)
            continue;
        for (int j = 0; j < width; j++)
            pi[j] -= a * pr[j];
        pi[c] = 0.0;
    }
}

int lgc_lcp_solve(lgc_lcp *lcp, int m, const double A[], const double q[], double z[])
{
    const int width = 2 * m + 2, z0 = 2 * m, rhs = 2 * m + 1;
    double *T = lcp->tableau;
    int *basis = lcp->basis, r = 0;
    for (int i = 0; i < m; i++) {
        z[i] = 0.0;
        if (q[i] < q[r])
            r = i;
    }
    if (m == 0 || q[r] >= 0.0)
        return LGC_OK;      /* z = 0: nothing pushes */
    double scale = 0.0;
    for (int i = 0; i < m; i++) {
        double *row = T + (size_t)i * width;
        for (int j = 0; j < m; j++) {
            row[j] = i == j;
            row[m + j] = -A[(size_t)i * m + j];
            scale = fmax(scale, fabs(A[(size_t)i * m + j]));
        }
        row[z0] = -1.0;
        row[rhs] = q[i];
        basis[i] = i;
    }
    /* Pivots smaller than this are the round-off of A's entries, not a direction. */
    const double tiny = 64.0 * DBL_EPSILON * fmax(scale, 1.0);
    int entering = z0;
    /* Lemke's method visits each basis at most once; 2^m bounds them, a multiple of m suffices in practice. */
    for (int iter = 0; iter < 50 * m + 50; iter++) {
        if (entering != z0) {
            r = -1;
            double best = INFINITY;
            for (int i = 0; i < m; i++) {
                const double a = T[(size_t)i * width + entering];
                if (!(a > tiny))
                    continue;
                const double ratio = T[(size_t)i * width + rhs] / a;
                /* Ties go to z0's row, so that the method ends. */
                if (ratio < best - tiny || (ratio <= best + tiny && basis[i] == z0)) {
                    best = ratio;
                    r = i;
                }
            }
            if (r < 0)
                return LGC_ERR_RANK_LOST;   /* a ray */
        }
        const int leaving = basis[r];
        pivot(T, m, width, r, entering);
        basis[r] = entering;
        if (leaving == z0) {
            for (int i = 0; i < m; i++)
                if (basis[i] >= m && basis[i] < z0)
                    z[basis[i] - m] = fmax(0.0, T[(size_t)i * width + rhs]);
            return LGC_OK;
        }
        entering = leaving < m ? leaving + m : leaving - m;    /* the complement of the one that left */
    }
    return LGC_ERR_RANK_LOST;
}
