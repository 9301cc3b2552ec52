/*
** linearize.c — the linear model in independent coordinates and speeds about
** an operating point (runtime/README.md, "Linearisation"), with LAPACK.
**
** From the generated Jacobian with alpha = beta = 0: F_vq = dq''/dq,
** F_vv = dq''/dv, G = dq''/du. On the constraints A dq = 0 and
** C dv + D dq = 0 (C and D = d[phi'; g]/dq the model's own functions), so
** dq = P dq_ind and dv = Vq dq_ind + Vu dv_ind, and
**   dq_ind' = S_qi (Vq dq_ind + Vu dv_ind)
**   dv_ind' = S_vi [(F_vq P + F_vv Vq) dq_ind + F_vv Vu dv_ind + G du].
*/
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangec/linearize.h"
#include "lagrangec/status.h"

/* A dependent block with reciprocal condition number below this is singular. */
#define RCOND 1e-12

struct lgc_linearize_work {
    double *res;            /* 2 nh + nn: phi, phi', g */
    double *C;              /* nc x nq, row-major: [A; B] */
    double *D;              /* nc x nq: d[phi'; g]/dq at fixed q' */
    double *J0;             /* nx x nx: df/dx at alpha = beta = 0 */
    double *f;              /* nx: f at the point */
    double *G;              /* nx x nu: df/du */
    double *jwork;          /* the model's jacobian and rhs scratch */
    double *qr, *tau;       /* nc x nq column-major, nq: pivoted QR */
    double *lu, *rhs;       /* nc x nc and nc x n column-major: dependent solves */
    double *P, *Vq, *Vu;    /* nq x nqi, nq x nqi, nq x nvi, row-major */
    double *eig_a;          /* n x n column-major copy of A for dgeev */
    double *lwork;          /* dgeqp3, dgecon and dgeev workspace */
    lapack_int nlwork;
    lapack_int *jpvt, *ipiv, *iwork;  /* nq each */
    int *mark;              /* nq flags: independent */
};

static lapack_int max_li(lapack_int a, lapack_int b) { return a > b ? a : b; }

/* Workspace dgeqp3 (on nc x nq) and dgeev (on n x n) ask for, and dgecon's 4 nc. */
static lapack_int query_lwork(int nc, int nq, int n)
{
    double q1 = 0.0, q2 = 0.0, dummy = 0.0;
    lapack_int ipiv = 0;
    lapack_int need = 4 * (lapack_int)nc + 1;
    if (nc > 0 && LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, nc, nq, &dummy, nc, &ipiv,
                                      &dummy, &q1, -1) == 0)
        need = max_li(need, (lapack_int)q1);
    if (n > 0 && LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', 'N', n, &dummy, n, &dummy,
                                    &dummy, &dummy, 1, &dummy, 1, &q2, -1) == 0)
        need = max_li(need, (lapack_int)q2);
    return need;
}

int lgc_linearization_init(lgc_linearization *lin, const lgc_model *m)
{
    memset(lin, 0, sizeof *lin);
    if (m->vakonomic || !m->jacobian || !m->constraint_coordinate_jacobian)
        return LGC_ERR_ARG;
    const int nq = m->nq, nc = m->nh + m->nn, nx = m->nx;
    lin->model = m;
    lin->nqi = nq - m->nh;
    lin->nvi = nq - nc;
    lin->n = lin->nqi + lin->nvi;
    lin->nu = m->nu;
    const int n = lin->n;
    lgc_linearize_work *w = calloc(1, sizeof *w);
    int *ints = calloc(3 * (size_t)nq + 1, sizeof *ints);  /* ind, dep lists; mark */
    lin->w = w;
    if (!w || !ints) {
        free(ints);
        lgc_linearization_free(lin);
        return LGC_ERR_NOMEM;
    }
    lin->q_ind = ints;
    lin->q_dep = lin->q_ind + lin->nqi;
    lin->v_ind = lin->q_dep + m->nh;
    lin->v_dep = lin->v_ind + lin->nvi;
    w->mark = lin->v_dep + nc;
    w->nlwork = query_lwork(nc, nq, n);
    int nscratch = m->nwork_jacobian > m->nwork ? m->nwork_jacobian : m->nwork;
    size_t nd = (size_t)(2 * m->nh + m->nn) + 3u * nc * nq + (size_t)nx * nx + (size_t)nx
                + (size_t)nx * m->nu + (size_t)nscratch + nq + (size_t)nc * nc
                + (size_t)nc * n + 3u * nq * nq + 2u * n * n + (size_t)n * m->nu + 2u * n
                + (size_t)w->nlwork + 1;
    double *v = calloc(nd, sizeof *v);
    w->jpvt = calloc(3 * (size_t)nq + 1, sizeof *w->jpvt);
    if (!v || !w->jpvt) {
        free(v);
        lgc_linearization_free(lin);
        return LGC_ERR_NOMEM;
    }
    w->ipiv = w->jpvt + nq;
    w->iwork = w->ipiv + nq;
    w->res = v;
    w->C = w->res + 2 * m->nh + m->nn;
    w->D = w->C + (size_t)nc * nq;
    w->J0 = w->D + (size_t)nc * nq;
    w->f = w->J0 + (size_t)nx * nx;
    w->G = w->f + nx;
    w->jwork = w->G + (size_t)nx * m->nu;
    w->qr = w->jwork + nscratch;
    w->tau = w->qr + (size_t)nc * nq;
    w->lu = w->tau + nq;
    w->rhs = w->lu + (size_t)nc * nc;
    w->P = w->rhs + (size_t)nc * n;
    w->Vq = w->P + (size_t)nq * nq;
    w->Vu = w->Vq + (size_t)nq * nq;
    w->eig_a = w->Vu + (size_t)nq * nq;
    lin->A = w->eig_a + (size_t)n * n;
    lin->B = lin->A + (size_t)n * n;
    lin->eig_re = lin->B + (size_t)n * m->nu;
    lin->eig_im = lin->eig_re + n;
    w->lwork = lin->eig_im + n;
    return LGC_OK;
}

void lgc_linearization_free(lgc_linearization *lin)
{
    if (lin->w) {
        free(lin->w->res);
        free(lin->w->jpvt);
        free(lin->w);
    }
    free(lin->q_ind);
    memset(lin, 0, sizeof *lin);
}

/* LGC_ERR_INCONSISTENT with the worst row, unless |phi|, |phi'|, |g| are small. */
static int check_point(lgc_linearization *lin, const lgc_system *sys, double t,
                       const double x[])
{
    const lgc_model *m = lin->model;
    const int rows = 2 * m->nh + m->nn;
    double *r = lin->w->res, scale = 1.0;
    m->residuals(t, x, sys->p, r, r + m->nh, r + 2 * m->nh);
    for (int i = 0; i < 2 * m->nq; i++)
        scale = fmax(scale, fabs(x[i]));
    lin->bad_row = -1;
    for (int i = 0; i < rows; i++)
        if (!(fabs(r[i]) <= LGC_LINEARIZE_TOL * scale)
            && (lin->bad_row < 0 || !(fabs(r[i]) <= fabs(lin->bad_residual)))) {
            lin->bad_row = i;
            lin->bad_residual = r[i];
        }
    return lin->bad_row < 0 ? LGC_OK : LGC_ERR_INCONSISTENT;
}

/*
** dep := the first k pivots of column-pivoted QR on the first rows of C;
** with fix_q_dep the dependent coordinates' columns are pivoted first.
*/
static int pivots(lgc_linearization *lin, int rows, int k, int dep[], int fix_q_dep)
{
    lgc_linearize_work *w = lin->w;
    const int nq = lin->model->nq;
    if (rows == 0)
        return LGC_OK;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < nq; j++)
            w->qr[i + (size_t)j * rows] = w->C[(size_t)i * nq + j];
    for (int j = 0; j < nq; j++)
        w->jpvt[j] = 0;
    for (int i = 0; fix_q_dep && i < lin->model->nh; i++)
        w->jpvt[lin->q_dep[i]] = 1;
    if (LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, rows, nq, w->qr, rows, w->jpvt, w->tau,
                            w->lwork, w->nlwork) != 0)
        return LGC_ERR_LAPACK;
    for (int i = 0; i < k; i++)
        dep[i] = (int)w->jpvt[i] - 1;
    return LGC_OK;
}

/* Flags the k indices of list in w->mark; LGC_ERR_ARG on a repeat or a bad index. */
static int mark_list(lgc_linearization *lin, const int list[], int k)
{
    const int nq = lin->model->nq;
    int *mark = lin->w->mark;
    for (int j = 0; j < nq; j++)
        mark[j] = 0;
    for (int i = 0; i < k; i++) {
        if (list[i] < 0 || list[i] >= nq || mark[list[i]])
            return LGC_ERR_ARG;
        mark[list[i]] = 1;
    }
    return LGC_OK;
}

/* ind := the indices whose mark is ind_mark, dep := the others; both ascending. */
static void split(lgc_linearization *lin, int ind_mark, int ind[], int dep[])
{
    int a = 0, b = 0;
    for (int j = 0; j < lin->model->nq; j++) {
        if (lin->w->mark[j] == ind_mark)
            ind[a++] = j;
        else
            dep[b++] = j;
    }
}

/*
** Factors the k x k block of the rows x nq row-major M (rows = k) in the
** columns dep, and solves it for w->rhs (k x nrhs column-major) in place.
*/
static int solve_dep(lgc_linearize_work *w, const double *M, int nq, int k,
                     const int dep[], int nrhs)
{
    if (k == 0 || nrhs == 0)
        return LGC_OK;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++)
            w->lu[i + (size_t)j * k] = M[(size_t)i * nq + dep[j]];
    double norm = LAPACKE_dlange_work(LAPACK_COL_MAJOR, '1', k, k, w->lu, k, NULL);
    lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, k, k, w->lu, k, w->ipiv);
    if (info > 0)
        return LGC_ERR_RANK_LOST;
    double rcond = 0.0;
    if (info < 0 || LAPACKE_dgecon_work(LAPACK_COL_MAJOR, '1', k, w->lu, k, norm, &rcond,
                                        w->lwork, w->iwork) != 0)
        return LGC_ERR_LAPACK;
    if (!(rcond >= RCOND))
        return LGC_ERR_RANK_LOST;
    info = LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', k, nrhs, w->lu, k, w->ipiv, w->rhs, k);
    return info == 0 ? LGC_OK : LGC_ERR_LAPACK;
}

/*
** Which coordinates and speeds are independent: given, or by pivoted QR
** (the dependent speeds are those of the dependent coordinates and nn more).
*/
static int choose(lgc_linearization *lin, const int q_ind[], const int v_ind[])
{
    const lgc_model *m = lin->model;
    const int nc = m->nh + m->nn;
    int rc;
    if (q_ind)
        rc = mark_list(lin, q_ind, lin->nqi);
    else if ((rc = pivots(lin, m->nh, m->nh, lin->q_dep, 0)) == LGC_OK)
        rc = mark_list(lin, lin->q_dep, m->nh);
    if (rc != LGC_OK)
        return rc;
    split(lin, q_ind != NULL, lin->q_ind, lin->q_dep);
    if (v_ind)
        rc = mark_list(lin, v_ind, lin->nvi);
    else if ((rc = pivots(lin, nc, nc, lin->v_dep, 1)) == LGC_OK)
        rc = mark_list(lin, lin->v_dep, nc);
    if (rc == LGC_OK)
        split(lin, v_ind != NULL, lin->v_ind, lin->v_dep);
    return rc;
}

/* P (dq = P dq_ind), then Vq and Vu (dv = Vq dq_ind + Vu dv_ind). */
static int tangent_space(lgc_linearization *lin)
{
    const lgc_model *m = lin->model;
    lgc_linearize_work *w = lin->w;
    const int nq = m->nq, nh = m->nh, nc = nh + m->nn, nqi = lin->nqi, nvi = lin->nvi;
    int rc;
    /* A_dep X = A_ind; P's dependent rows are -X. */
    for (int i = 0; i < nh; i++)
        for (int j = 0; j < nqi; j++)
            w->rhs[i + (size_t)j * nh] = w->C[(size_t)i * nq + lin->q_ind[j]];
    if ((rc = solve_dep(w, w->C, nq, nh, lin->q_dep, nqi)) != LGC_OK)
        return rc;
    memset(w->P, 0, (size_t)nq * nqi * sizeof *w->P);
    for (int j = 0; j < nqi; j++) {
        w->P[(size_t)lin->q_ind[j] * nqi + j] = 1.0;
        for (int i = 0; i < nh; i++)
            w->P[(size_t)lin->q_dep[i] * nqi + j] = -w->rhs[i + (size_t)j * nh];
    }
    /* C_dep Y = [C_ind, D P]; Vu's and Vq's dependent rows are -Y. */
    for (int i = 0; i < nc; i++) {
        for (int j = 0; j < nvi; j++)
            w->rhs[i + (size_t)j * nc] = w->C[(size_t)i * nq + lin->v_ind[j]];
        for (int j = 0; j < nqi; j++) {
            double s = 0.0;
            for (int k = 0; k < nq; k++)
                s += w->D[(size_t)i * nq + k] * w->P[(size_t)k * nqi + j];
            w->rhs[i + (size_t)(nvi + j) * nc] = s;
        }
    }
    if ((rc = solve_dep(w, w->C, nq, nc, lin->v_dep, nvi + nqi)) != LGC_OK)
        return rc;
    memset(w->Vu, 0, (size_t)nq * nvi * sizeof *w->Vu);
    memset(w->Vq, 0, (size_t)nq * nqi * sizeof *w->Vq);
    for (int j = 0; j < nvi; j++)
        w->Vu[(size_t)lin->v_ind[j] * nvi + j] = 1.0;
    for (int i = 0; i < nc; i++) {
        for (int j = 0; j < nvi; j++)
            w->Vu[(size_t)lin->v_dep[i] * nvi + j] = -w->rhs[i + (size_t)j * nc];
        for (int j = 0; j < nqi; j++)
            w->Vq[(size_t)lin->v_dep[i] * nqi + j] = -w->rhs[i + (size_t)(nvi + j) * nc];
    }
    return LGC_OK;
}

/* A and B from F (the q'' rows of J0), G, P, Vq, Vu. */
static void reduce(lgc_linearization *lin)
{
    const lgc_model *m = lin->model;
    const lgc_linearize_work *w = lin->w;
    const int nq = m->nq, nx = m->nx, nqi = lin->nqi, nvi = lin->nvi, n = lin->n;
    for (int i = 0; i < nqi; i++) {
        const int r = lin->q_ind[i];
        for (int j = 0; j < nqi; j++)
            lin->A[(size_t)i * n + j] = w->Vq[(size_t)r * nqi + j];
        for (int j = 0; j < nvi; j++)
            lin->A[(size_t)i * n + nqi + j] = w->Vu[(size_t)r * nvi + j];
        for (int k = 0; k < lin->nu; k++)
            lin->B[(size_t)i * lin->nu + k] = 0.0;
    }
    for (int i = 0; i < nvi; i++) {
        const double *F_vq = w->J0 + (size_t)(nq + lin->v_ind[i]) * nx, *F_vv = F_vq + nq;
        double *row = lin->A + (size_t)(nqi + i) * n;
        for (int j = 0; j < nqi; j++) {
            double s = 0.0;
            for (int k = 0; k < nq; k++)
                s += F_vq[k] * w->P[(size_t)k * nqi + j] + F_vv[k] * w->Vq[(size_t)k * nqi + j];
            row[j] = s;
        }
        for (int j = 0; j < nvi; j++) {
            double s = 0.0;
            for (int k = 0; k < nq; k++)
                s += F_vv[k] * w->Vu[(size_t)k * nvi + j];
            row[nqi + j] = s;
        }
        for (int k = 0; k < lin->nu; k++)
            lin->B[(size_t)(nqi + i) * lin->nu + k] = w->G[(size_t)(nq + lin->v_ind[i]) * lin->nu + k];
    }
}

/* Eigenvalues of A, largest real part first (then larger imaginary part). */
static int eigenvalues(lgc_linearization *lin)
{
    lgc_linearize_work *w = lin->w;
    const int n = lin->n;
    if (n == 0)
        return LGC_OK;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            w->eig_a[i + (size_t)j * n] = lin->A[(size_t)i * n + j];
    double dummy = 0.0;
    lapack_int info = LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', 'N', n, w->eig_a, n,
                                         lin->eig_re, lin->eig_im, &dummy, 1, &dummy, 1,
                                         w->lwork, w->nlwork);
    if (info != 0)
        return LGC_ERR_LAPACK;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            double *re = lin->eig_re, *im = lin->eig_im;
            if (re[j] < re[j - 1] || (re[j] == re[j - 1] && im[j] <= im[j - 1]))
                break;
            double tr = re[j], ti = im[j];
            re[j] = re[j - 1], im[j] = im[j - 1];
            re[j - 1] = tr, im[j - 1] = ti;
        }
    return LGC_OK;
}

int lgc_linearize(lgc_linearization *lin, const lgc_system *sys, double t,
                  const double x[], const int q_ind[], const int v_ind[])
{
    const lgc_model *m = lin->model;
    lgc_linearize_work *w = lin->w;
    int rc = check_point(lin, sys, t, x);
    if (rc != LGC_OK)
        return rc;
    m->constraint_jacobian(t, x, sys->p, w->C);
    m->constraint_coordinate_jacobian(t, x, sys->p, w->D);
    if ((rc = choose(lin, q_ind, v_ind)) != LGC_OK)
        return rc;
    if ((rc = lgc_model_status(m->jacobian(t, x, sys->u, sys->p, 0.0, 0.0, w->J0, w->G, w->jwork))) != LGC_OK)
        return rc;
    if ((rc = tangent_space(lin)) != LGC_OK)
        return rc;
    reduce(lin);
    if ((rc = lgc_model_status(m->rhs(t, x, sys->u, sys->p, 0.0, 0.0, w->f, NULL, w->jwork))) != LGC_OK)
        return rc;
    lin->max_accel = 0.0;
    for (int i = 0; i < m->nq; i++)
        lin->max_accel = fmax(lin->max_accel, fabs(w->f[m->nq + i]));
    return eigenvalues(lin);
}
