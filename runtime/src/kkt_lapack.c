/* kkt_lapack.c — a model's rhs with the generated KKT solve's range-space method done by LAPACK/BLAS. */
#include <cblas.h>
#include <lapacke.h>
#include <string.h>

#include "kkt_lapack.h"

/*
** Workspace: M (nq x nq) | J, then Y (nc x nq) | S (nc x nc) | nu (nc) | diag.
** The model writes M's lower triangle and J row-major: for column-major
** LAPACK that is M's upper triangle and J^T (nq x nc), so nothing is copied.
*/
size_t lgc_kkt_lapack_size(const lgc_model *m)
{
    size_t nq = (size_t)m->nq, nc = (size_t)(m->nh + m->nn);
    return nq * nq + nc * nq + nc * nc + nc + (nq > nc ? nq : nc);
}

/*
** U^T U = a (column-major, upper triangle, n x n). 0 when a pivot keeps no
** more than 1e-13 of its diagonal entry: the generated code's test, so both
** solves call the same matrices singular.
*/
static int factor(int n, double a[], double diag[])
{
    for (int j = 0; j < n; j++)
        diag[j] = a[j * n + j];
    if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', n, a, n) != 0)
        return 0;
    for (int j = 0; j < n; j++) {
        double d = a[j * n + j];
        if (!(d * d > 1e-13 * diag[j]))
            return 0;
    }
    return 1;
}

int lgc_kkt_lapack_rhs(const lgc_model *m, double work[], double t, const double x[],
                       const double u[], const double p[], double alpha, double beta,
                       const unsigned char active[], double dxdt[], double multipliers[])
{
    const int nq = m->nq, nh = m->nh, nn = m->nn, rows = nh + nn;
    double *M = work, *Y = M + nq * nq, *S = Y + rows * nq, *nu = S + rows * rows;
    double *diag = nu + rows, *a = dxdt + nq;
    m->kkt_terms(t, x, u, p, alpha, beta, M, a, Y, nu, dxdt + 2 * nq);
    /* The active rows to the front: J^T's columns and r's entries. */
    int nc = rows;
    if (active) {
        nc = 0;
        for (int c = 0; c < rows; c++)
            if (active[c]) {
                if (nc != c)
                    memcpy(Y + nc * nq, Y + c * nq, (size_t)nq * sizeof *Y);
                nu[nc++] = nu[c];
            }
    }
    for (int i = 0; i < nq; i++)
        dxdt[i] = x[nq + i];
    /*
    ** M = U^T U. With b = U^-T f and Y = U^-T J^T: S = J M^-1 J^T = Y^T Y,
    ** S nu = r - J M^-1 f = r - Y^T b, a = M^-1 (f + J^T nu) = U^-1 (b + Y nu).
    ** Two triangular solves with U instead of the loops' four.
    */
    if (!factor(nq, M, diag))
        return LGC_MODEL_SINGULAR_MASS;
    cblas_dtrsv(CblasColMajor, CblasUpper, CblasTrans, CblasNonUnit, nq, M, nq, a, 1);
    if (nc > 0) {
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, nq, nc,
                    1.0, M, nq, Y, nq);
        cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, nc, nq, 1.0, Y, nq, 0.0, S, nc);
        cblas_dgemv(CblasColMajor, CblasTrans, nq, nc, -1.0, Y, nq, a, 1, 1.0, nu, 1);
        if (!factor(nc, S, diag))
            return LGC_MODEL_SINGULAR_CONSTRAINTS;
        LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', nc, 1, S, nc, nu, nc);
        cblas_dgemv(CblasColMajor, CblasNoTrans, nq, nc, 1.0, Y, nq, nu, 1, 1.0, a, 1);
    }
    cblas_dtrsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, nq, M, nq, a, 1);
    /* Back to their rows (from the end: no entry moves forward), 0 where a row is off. */
    if (active)
        for (int c = rows - 1, k = nc; c >= 0; c--)
            nu[c] = active[c] ? nu[--k] : 0.0;
    /* As the generated rhs: vakonomic mu are states, the rows' own multipliers -mu'. */
    if (m->vakonomic)
        for (int i = 0; i < nn; i++)
            dxdt[2 * nq + nn + i] = -nu[nh + i];
    if (multipliers)
        for (int i = 0; i < rows; i++)
            multipliers[i] = m->vakonomic && i >= nh ? x[2 * nq + nn + i - nh] : nu[i];
    return LGC_MODEL_OK;
}
