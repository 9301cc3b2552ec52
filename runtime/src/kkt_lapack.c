/* kkt_lapack.c — a model's rhs with the generated KKT solve's range-space method done by LAPACK/BLAS. */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>

#include "friction.h"
#include "kkt_lapack.h"
#include "lagrangec/thresholds.h"

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
    /* With friction: friction_normal's N0 (nfriction) and dN/dnu (nfriction
       x nc), each sliding contact's b = B^T d (nfriction x nq), the force
       matrix G (nq x nc), S' = J M^-1 G (nc x nc), its pivots, a column. */
    double *normal, *normal_rate, *b, *G, *Sp, *column;
    lapack_int *pivots;
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
    const int nf = m->nfriction;
    w.normal = w.conditioning + 3;
    w.normal_rate = w.normal + nf;
    w.b = w.normal_rate + nf * nc;
    w.G = w.b + nf * nq;
    w.Sp = w.G + (nf ? nq * nc : 0);
    w.column = w.Sp + (nf ? nc * nc : 0);
    w.pivots = (lapack_int *)(w.column + (nf ? nc : 0));   /* nc of them fit in nc doubles */
    return w;
}

size_t lgc_kkt_lapack_size(const lgc_model *m)
{
    size_t nq = (size_t)m->nq, nc = (size_t)(m->nh + m->nn), nf = (size_t)m->nfriction;
    return nq * nq + nc * nq + 2 * nc * nc + 3 * nc + (nq > nc ? nq : nc)
           + SYEV_WORK_PER_ROW * (nc > 0 ? nc : 1) + 3
           + (nf ? nf + nf * nc + nf * nq + nq * nc + nc * nc + 2 * nc : 0);
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
** The generated rhs's minimum-norm solve (gen/kernels/min_norm.c): S = E
** diag(eig) E^T, eigenvalues not above LGC_EIGEN_FLOOR of the largest dropped,
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
        if (w->eig[i] > LGC_EIGEN_FLOOR * top) {
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

/*
** Sliding friction (lagrangec/system.h's slide): contact k's force is
** -mu_k N B_k^T d, B_k its slip rows of J (row-major in Y, before the
** rows left out are zeroed), d its direction (lgc_friction_direction),
** N = N0 + dN . nu. N0's part joins f; the part in the multipliers
** makes the force on the rows G nu, G = J^T - sum_k mu_k
** b_k dN_k^T with b_k = B_k^T d (into w->G once the rows left out are
** zeroed). Returns 1 when G is not J^T, 0 when only f changed.
*/
static int sliding_forces(const lgc_model *m, kkt_work *w, const double slide[], double t, const double x[],
                          const double u[], const double p[], const double g[], double f[])
{
    const int nq = m->nq, nh = m->nh, nc = nh + m->nn, nf = m->nfriction;
    const double *mu_kinetic = slide + 3 * nf;
    int coupled = 0;
    m->friction_normal(t, x, u, p, w->normal, w->normal_rate);
    for (int k = 0; k < nf; k++) {
        const int *rows = m->friction_slip_rows + 2 * k;
        double d[2], *b = w->b + (size_t)k * nq;
        for (int i = 0; i < nq; i++)
            b[i] = 0.0;
        if (!lgc_sliding(slide, k))
            continue;
        lgc_friction_direction(m, slide, k, g, d);
        for (int j = 0; j < 2 && rows[j] >= 0; j++)
            for (int i = 0; i < nq; i++)
                b[i] += d[j] * w->Y[(size_t)rows[j] * nq + i];
        for (int i = 0; i < nq; i++)
            f[i] -= mu_kinetic[k] * w->normal[k] * b[i];
        for (int c = 0; c < nc; c++)
            coupled = coupled || w->normal_rate[(size_t)k * nc + c] != 0.0;
    }
    return coupled;
}

/* G = J^T - sum_k mu_k b_k dN_k^T over the rows in the solve, column-major (nq x nc). */
static void force_matrix(const lgc_model *m, kkt_work *w, const unsigned char active[], const double slide[])
{
    const int nq = m->nq, nc = m->nh + m->nn, nf = m->nfriction;
    const double *mu_kinetic = slide + 3 * nf;
    for (size_t i = 0; i < (size_t)nq * nc; i++)
        w->G[i] = w->Y[i];
    for (int k = 0; k < nf; k++)
        for (int c = 0; c < nc; c++) {
            const double rate = w->normal_rate[(size_t)k * nc + c];
            if (rate == 0.0 || left_out(m, active, c))
                continue;
            for (int i = 0; i < nq; i++)
                w->G[(size_t)c * nq + i] -= mu_kinetic[k] * rate * w->b[(size_t)k * nq + i];
        }
}

/*
** The multipliers with a sliding force in them: S' nu = r - Y^T b, S' =
** Y^T U^-T G, by LU. A contact row whose normal force scales a sliding
** friction must keep pushing back (its diagonal of S'^-1 > 0); else no
** mode is consistent (Painleve).
*/
static int solve_coupled(const lgc_model *m, kkt_work *w, const unsigned char active[], const double slide[])
{
    const int nq = m->nq, nc = m->nh + m->nn;
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, nq, nc, 1.0, w->M, nq, w->G, nq);
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, nc, nc, nq, 1.0, w->Y, nq, w->G, nq, 0.0, w->Sp, nc);
    for (int c = 0; c < nc; c++)
        if (left_out(m, active, c))
            w->Sp[(size_t)c * (nc + 1)] = 1.0;
    if (LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, nc, nc, w->Sp, nc, w->pivots) != 0)
        return LGC_MODEL_SINGULAR_CONSTRAINTS;
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', nc, 1, w->Sp, nc, w->pivots, w->nu, nc);
    for (int c = m->nh - m->ncontact; c < m->nh; c++) {
        int scales = 0;
        for (int k = 0; k < m->nfriction; k++)
            scales = scales || (w->normal_rate[(size_t)k * nc + c] != 0.0 && lgc_sliding(slide, k));
        if (!scales || left_out(m, active, c))
            continue;
        for (int i = 0; i < nc; i++)
            w->column[i] = i == c;
        LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', nc, 1, w->Sp, nc, w->pivots, w->column, nc);
        if (!(w->column[c] > 0.0))
            return LGC_MODEL_FRICTION_INCONSISTENT;
    }
    return LGC_MODEL_OK;
}

int lgc_kkt_lapack_rhs(const lgc_model *m, double work[], double t, const double x[],
                       const double u[], const double p[], double alpha, double beta,
                       const unsigned char active[], const double slide[], double dxdt[],
                       double multipliers[])
{
    const int nq = m->nq, nh = m->nh, nn = m->nn, nc = nh + nn;
    kkt_work w = slices(m, work);
    double *a = dxdt + nq;
    m->kkt_terms(t, x, u, p, alpha, beta, w.M, a, w.Y, w.nu, dxdt + 2 * nq);
    for (int i = 0; i < nq; i++)
        dxdt[i] = x[nq + i];
    const int coupled = slide && m->nfriction && sliding_forces(m, &w, slide, t, x, u, p, dxdt + 2 * nq, a);
    /* Rows left out of the solve (redundant, or a contact apart): J's row and r's entry zeroed. */
    int nleft_out = 0;
    for (int c = 0; c < nc; c++)
        if (left_out(m, active, c)) {
            for (int i = 0; i < nq; i++)
                w.Y[c * nq + i] = 0.0;
            w.nu[c] = 0.0;
            nleft_out++;
        }
    if (coupled)
        force_matrix(m, &w, active, slide);     /* from J^T, before Y becomes U^-T J^T */
    /*
    ** M = U^T U. With b = U^-T f and Y = U^-T J^T: S = J M^-1 J^T = Y^T Y,
    ** S nu = r - J M^-1 f = r - Y^T b, a = M^-1 (f + J^T nu) = U^-1 (b + Y nu).
    ** Two triangular solves with U instead of the loops' four.
    */
    if (!factor(nq, w.M, w.diag, LGC_MASS_PIVOT))
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
        if (coupled) {
            int rc = solve_coupled(m, &w, active, slide);
            if (rc != LGC_MODEL_OK)
                return rc;
            w.conditioning[0] = conditioning(m, active, w.S, nc + 1, 0);
            w.conditioning[1] = w.conditioning[2] = 0.0;
            cblas_dgemv(CblasColMajor, CblasNoTrans, nq, nc, 1.0, w.G, nq, w.nu, 1, 1.0, a, 1);
        } else if (factor(nc, w.S, w.diag, LGC_ROWS_PIVOT)) {
            /* (a pivot keeping no more than LGC_ROWS_PIVOT of its diagonal entry: the minimum-norm solve) */
            LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', nc, 1, w.S, nc, w.nu, nc);
            w.conditioning[0] = conditioning(m, active, w.S, nc + 1, 1);
            w.conditioning[1] = w.conditioning[2] = 0.0;
        } else {
            int rc = solve_min_norm(m, nleft_out, &w, a);
            if (rc != LGC_MODEL_OK)
                return rc;
            w.conditioning[1] = 1.0;
        }
        if (!coupled)
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
