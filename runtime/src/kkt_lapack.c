/* kkt_lapack.c — a model's rhs with the generated KKT solve's range-space method done by LAPACK/BLAS. */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>

#include "kkt_lapack.h"

/* dsyev's workspace per row of S: its blocked reduction's (nb + 2) n, nb = 64. */
enum { SYEV_WORK_PER_ROW = 66 };

/*
** Workspace: M (nq x nq) | J, then Y (nc x nq) | S (nc x nc) | nu (nc) | diag
** | the minimum-norm solve's E (nc x nc), eigenvalues (nc), z (nc) and
** dsyev's work | conditioning (3, as the generated rhs's work holds it).
** The model writes M's lower triangle and J row-major: for column-major
** LAPACK that is M's upper triangle and J^T (nq x nc), so nothing is copied.
*/
typedef struct kkt_work {
    double *M, *Y, *S, *nu, *diag, *E, *eig, *z, *syev, *conditioning;
    int lwork;
} kkt_work;

static kkt_work slices(const lgc_model *m, double work[])
{
    const int nq = m->nq, nc = m->nh + m->nn;
    kkt_work w;
    w.M = work;
    w.Y = w.M + nq * nq;
    w.S = w.Y + nc * nq;
    w.nu = w.S + nc * nc;
    w.diag = w.nu + nc;
    w.E = w.diag + (nq > nc ? nq : nc);
    w.eig = w.E + nc * nc;
    w.z = w.eig + nc;
    w.syev = w.z + nc;
    w.lwork = SYEV_WORK_PER_ROW * (nc > 0 ? nc : 1);
    w.conditioning = w.syev + w.lwork;
    return w;
}

size_t lgc_kkt_lapack_size(const lgc_model *m)
{
    size_t nq = (size_t)m->nq, nc = (size_t)(m->nh + m->nn);
    return nq * nq + nc * nq + 2 * nc * nc + 3 * nc + (nq > nc ? nq : nc)
           + SYEV_WORK_PER_ROW * (nc > 0 ? nc : 1) + 3;
}

double *lgc_kkt_lapack_conditioning(const lgc_model *m, double work[])
{
    return slices(m, work).conditioning;
}

/*
** U^T U = a (column-major, upper triangle, n x n). 0 when a pivot keeps no
** more than `tolerance` of its diagonal entry: the generated code's test,
** so both solves call the same matrices singular.
*/
static int factor(int n, double a[], double diag[], double tolerance)
{
    for (int j = 0; j < n; j++)
        diag[j] = a[j * n + j];
    if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', n, a, n) != 0)
        return 0;
    for (int j = 0; j < n; j++) {
        double d = a[j * n + j];
        if (!(d * d > tolerance * diag[j]))
            return 0;
    }
    return 1;
}

/* A row left out of the solve: redundant, or a contact apart (not `active`). */
static int left_out(const lgc_model *m, const unsigned char active[], int row)
{
    if (active && !active[row])
        return 1;
    for (int k = 0; k < m->nredundant; k++)
        if (m->redundant_rows[k] == row)
            return 1;
    return 0;
}

/* The smallest over the largest of the values d[i * stride], rows left out excepted (1 with none left). */
static double conditioning(const lgc_model *m, const unsigned char active[], const double d[], int stride,
                           int squared)
{
    double lo = HUGE_VAL, hi = 0.0;
    for (int i = 0; i < m->nh + m->nn; i++) {
        if (left_out(m, active, i))
            continue;
        double v = squared ? d[i * stride] * d[i * stride] : d[i * stride];
        lo = fmin(lo, v);
        hi = fmax(hi, v);
    }
    if (lo == HUGE_VAL)
        return 1.0;
    return hi > 0.0 ? lo / hi : 0.0;
}

/*
** The generated rhs's minimum-norm solve (gen/emit/emit_solve.cpp): S = E
** diag(eig) E^T, eigenvalues not above 1e-10 of the largest dropped,
** nu := S^+ nu; the dropped part of nu over its size (with `f` = U^-T f)
** is what the constraints ask for that no motion gives.
*/
static int solve_min_norm(const lgc_model *m, int nleft_out, kkt_work *w, const double f[])
{
    const int nq = m->nq, nc = m->nh + m->nn;
    cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, nc, nq, 1.0, w->Y, nq, 0.0, w->E, nc);
    if (LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'V', 'U', nc, w->E, nc, w->eig, w->syev, w->lwork) != 0)
        return LGC_MODEL_SINGULAR_CONSTRAINTS;
    const double top = w->eig[nc - 1];
    double dropped = 0.0;
    for (int i = 0; i < nc; i++) {
        double s = cblas_ddot(nc, w->E + i * nc, 1, w->nu, 1);
        if (w->eig[i] > 1e-10 * top) {
            w->z[i] = s / w->eig[i];
        } else {
            w->z[i] = 0.0;
            dropped += s * s;
        }
    }
    double size = cblas_dnrm2(nc, w->nu, 1) + sqrt(fmax(top, 0.0)) * cblas_dnrm2(nq, f, 1);
    w->conditioning[2] = size > 0.0 ? sqrt(dropped) / size : 0.0;
    cblas_dgemv(CblasColMajor, CblasNoTrans, nc, nc, 1.0, w->E, nc, w->z, 1, 0.0, w->nu, 1);
    /* The rows left out have zero eigenvalues: skip them. */
    w->conditioning[0] = nleft_out < nc ? w->eig[nleft_out] / top : 1.0;
    return LGC_MODEL_OK;
}

int lgc_kkt_lapack_rhs(const lgc_model *m, double work[], double t, const double x[],
                       const double u[], const double p[], double alpha, double beta,
                       const unsigned char active[], double dxdt[], double multipliers[])
{
    const int nq = m->nq, nh = m->nh, nn = m->nn, nc = nh + nn;
    kkt_work w = slices(m, work);
    double *a = dxdt + nq;
    m->kkt_terms(t, x, u, p, alpha, beta, w.M, a, w.Y, w.nu, dxdt + 2 * nq);
    for (int i = 0; i < nq; i++)
        dxdt[i] = x[nq + i];
    /* Rows left out of the solve (redundant, or a contact apart): J's row and r's entry zeroed. */
    int nleft_out = 0;
    for (int c = 0; c < nc; c++)
        if (left_out(m, active, c)) {
            for (int i = 0; i < nq; i++)
                w.Y[c * nq + i] = 0.0;
            w.nu[c] = 0.0;
            nleft_out++;
        }
    /*
    ** M = U^T U. With b = U^-T f and Y = U^-T J^T: S = J M^-1 J^T = Y^T Y,
    ** S nu = r - J M^-1 f = r - Y^T b, a = M^-1 (f + J^T nu) = U^-1 (b + Y nu).
    ** Two triangular solves with U instead of the loops' four.
    */
    if (!factor(nq, w.M, w.diag, 1e-13))
        return LGC_MODEL_SINGULAR_MASS;
    cblas_dtrsv(CblasColMajor, CblasUpper, CblasTrans, CblasNonUnit, nq, w.M, nq, a, 1);
    if (nc > 0) {
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, nq, nc,
                    1.0, w.M, nq, w.Y, nq);
        cblas_dsyrk(CblasColMajor, CblasUpper, CblasTrans, nc, nq, 1.0, w.Y, nq, 0.0, w.S, nc);
        cblas_dgemv(CblasColMajor, CblasTrans, nq, nc, -1.0, w.Y, nq, a, 1, 1.0, w.nu, 1);
        for (int c = 0; c < nc; c++)
            if (left_out(m, active, c))
                w.S[c * (nc + 1)] = 1.0;   /* so its multiplier comes out 0 */
        /* A pivot keeping no more than 1e-8 of its diagonal entry: the minimum-norm solve. */
        if (factor(nc, w.S, w.diag, 1e-8)) {
            LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', nc, 1, w.S, nc, w.nu, nc);
            w.conditioning[0] = conditioning(m, active, w.S, nc + 1, 1);
            w.conditioning[1] = w.conditioning[2] = 0.0;
        } else {
            int rc = solve_min_norm(m, nleft_out, &w, a);
            if (rc != LGC_MODEL_OK)
                return rc;
            w.conditioning[1] = 1.0;
        }
        cblas_dgemv(CblasColMajor, CblasNoTrans, nq, nc, 1.0, w.Y, nq, w.nu, 1, 1.0, a, 1);
    }
    cblas_dtrsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, nq, w.M, nq, a, 1);
    /* As the generated rhs: vakonomic mu are states, the rows' own multipliers -mu'. */
    if (m->vakonomic)
        for (int i = 0; i < nn; i++)
            dxdt[2 * nq + nn + i] = -w.nu[nh + i];
    if (multipliers)
        for (int i = 0; i < nc; i++)
            multipliers[i] = m->vakonomic && i >= nh ? x[2 * nq + nn + i - nh] : w.nu[i];
    return LGC_MODEL_OK;
}
