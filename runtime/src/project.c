/*
** project.c — one-step constraint correction (6.416–6.418) with LAPACK.
**
** The smallest correction d in the metric W = L L^T subject to C d = r is,
** with w = L^T d, the minimum-norm solution of (C L^-T) w = r; that equals
** d = W^-1 C^T K with (C W^-1 C^T) K = r, but dgelsd (SVD) also copes when
** C loses rank. W = I skips the triangular solves.
*/
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>

#include "lagrangec/project.h"
#include "lagrangec/status.h"

/* Singular values below RCOND * s_max count as zero (rank deficiency). */
#define RCOND 1e-12

struct lgc_projector {
    const lgc_model *model;
    lgc_project_mode mode;
    lgc_metric metric;
    double tol;
    int max_iter;
    int n, nh, m;           /* coordinates, holonomic rows, all rows */
    double *C;              /* m x n row-major, [A; B] */
    double *L;              /* n x n, Cholesky factor of M (column-major) */
    double *X;              /* n x m, L^-1 C^T */
    double *a;              /* m x n column-major, dgelsd's matrix */
    double *b;              /* max(m, n): right side in, solution out */
    double *sv;             /* min(m, n) singular values */
    double *res;            /* nh + nh + nn: phi, phi', g */
    double *work;
    lapack_int lwork;
    lapack_int *iwork;
};

static double max_abs(const double v[], int n)
{
    double r = 0.0;
    for (int i = 0; i < n; i++)
        r = fmax(r, fabs(v[i]));
    return r;
}

/* dgelsd's workspace for a rows x n problem; iwork size in *liwork. */
static lapack_int gelsd_query(int rows, int n, lapack_int *liwork)
{
    double wq = 0.0, dummy = 0.0;
    lapack_int iwq = 0, rank = 0;
    int ldb = rows > n ? rows : n;
    lapack_int info = LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, rows, n, 1, &dummy,
                                          rows, &dummy, ldb, &dummy, RCOND, &rank,
                                          &wq, -1, &iwq);
    *liwork = iwq;
    return info == 0 ? (lapack_int)wq : -1;
}

lgc_projector *lgc_projector_alloc(const lgc_model *model, lgc_project_mode mode,
                                   lgc_metric metric, double tol, int max_iter)
{
    lgc_projector *pr = calloc(1, sizeof *pr);
    if (!pr)
        return NULL;
    const int n = model->nq, m = model->nh + model->nn;
    const int big = m > n ? m : n, small = m < n ? m : n;
    pr->model = model;
    pr->mode = mode;
    pr->metric = metric;
    pr->tol = tol;
    pr->max_iter = max_iter;
    pr->n = n;
    pr->nh = model->nh;
    pr->m = m;
    if (mode == LGC_PROJECT_NONE || m == 0)
        return pr;

    lapack_int liw_all = 0, liw_h = 0;
    lapack_int lw_all = gelsd_query(m, n, &liw_all);
    lapack_int lw_h = model->nh > 0 ? gelsd_query(model->nh, n, &liw_h) : 0;
    if (lw_all < 0 || lw_h < 0) {
        free(pr);
        return NULL;
    }
    pr->lwork = lw_all > lw_h ? lw_all : lw_h;
    lapack_int liwork = liw_all > liw_h ? liw_all : liw_h;

    size_t nd = (size_t)m * n * 3 + (size_t)n * n + big + small + 2 * model->nh
                + model->nn + pr->lwork;
    double *v = calloc(nd, sizeof *v);
    pr->iwork = calloc(liwork > 0 ? (size_t)liwork : 1, sizeof *pr->iwork);
    if (!v || !pr->iwork) {
        free(v);
        free(pr->iwork);
        free(pr);
        return NULL;
    }
    pr->C = v;
    pr->X = pr->C + (size_t)m * n;
    pr->a = pr->X + (size_t)m * n;
    pr->L = pr->a + (size_t)m * n;
    pr->b = pr->L + (size_t)n * n;
    pr->sv = pr->b + big;
    pr->res = pr->sv + small;
    pr->work = pr->res + 2 * model->nh + model->nn;
    return pr;
}

void lgc_projector_free(lgc_projector *pr)
{
    if (!pr)
        return;
    free(pr->C);
    free(pr->iwork);
    free(pr);
}

/* L L^T = M(t, x); a failed factorisation means M is not positive definite. */
static int factor_metric(lgc_projector *pr, const lgc_system *sys, double t,
                         const double x[])
{
    if (pr->metric != LGC_METRIC_MASS)
        return LGC_OK;
    pr->model->mass_matrix(t, x, sys->p, pr->L);  /* symmetric: layout-free */
    lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', pr->n, pr->L, pr->n);
    return info == 0 ? LGC_OK : info > 0 ? LGC_ERR_SINGULAR_MASS : LGC_ERR_LAPACK;
}

/*
** d = smallest (in W) solution of C[0..rows) d = r; r is read from pr->b.
** On return pr->b[0..n) holds d.
*/
static int min_norm(lgc_projector *pr, int rows)
{
    const int n = pr->n, ldb = rows > n ? rows : n;
    lapack_int info, rank;
    const double *src = pr->C;
    if (pr->metric == LGC_METRIC_MASS) {
        /* C^T (n x rows, column-major) is C's row-major storage. */
        for (size_t k = 0; k < (size_t)rows * n; k++)
            pr->X[k] = pr->C[k];
        info = LAPACKE_dtrtrs_work(LAPACK_COL_MAJOR, 'L', 'N', 'N', n, rows,
                                   pr->L, n, pr->X, n);
        if (info != 0)
            return LGC_ERR_LAPACK;
        src = pr->X;    /* (C L^-T)^T, column-major: row-major C L^-T */
    }
    /* Row-major rows x n -> column-major, as dgelsd wants. */
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < n; j++)
            pr->a[i + (size_t)j * rows] = src[(size_t)i * n + j];
    info = LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, rows, n, 1, pr->a, rows, pr->b,
                               ldb, pr->sv, RCOND, &rank, pr->work, pr->lwork,
                               pr->iwork);
    if (info < 0)
        return LGC_ERR_LAPACK;
    if (info > 0)
        return LGC_ERR_PROJECTION;  /* SVD did not converge */
    if (pr->metric == LGC_METRIC_MASS) {
        info = LAPACKE_dtrtrs_work(LAPACK_COL_MAJOR, 'L', 'T', 'N', n, 1, pr->L, n,
                                   pr->b, ldb);
        if (info != 0)
            return LGC_ERR_LAPACK;
    }
    return LGC_OK;
}

/*
** Gauss–Newton on the holonomic rows: q += W^-1 A^T K, (A W^-1 A^T) K = -phi,
** until |phi| <= tol, or down to phi's round-off floor, ~eps |A| |q|, where
** a tol tighter than the arithmetic allows would never be met.
*/
static int project_positions(lgc_projector *pr, const lgc_system *sys, double t,
                             double x[], int *iterations)
{
    const lgc_model *m = pr->model;
    const int n = pr->n, nh = pr->nh;
    double *phi = pr->res, *phi_dot = phi + nh, *g = phi_dot + nh;
    int rc;
    for (int it = 0;; it++) {
        m->residuals(t, x, sys->p, phi, phi_dot, g);
        m->constraint_jacobian(t, x, sys->p, pr->C);
        double err = max_abs(phi, nh);
        double floor = 64 * DBL_EPSILON * (1.0 + max_abs(pr->C, nh * n) * max_abs(x, n));
        *iterations = it;
        if (err <= fmax(pr->tol, floor))
            return LGC_OK;
        if (it == pr->max_iter || !isfinite(err))
            return LGC_ERR_PROJECTION;
        if ((rc = factor_metric(pr, sys, t, x)) != LGC_OK)
            return rc;
        for (int i = 0; i < nh; i++)
            pr->b[i] = -phi[i];
        if ((rc = min_norm(pr, nh)) != LGC_OK)
            return rc;
        for (int j = 0; j < n; j++)
            x[j] += pr->b[j];
    }
}

/* v += W^-1 C^T K, (C W^-1 C^T) K = -[phi'; g]: exact, the rows are linear in v. */
static int project_velocities(lgc_projector *pr, const lgc_system *sys, double t,
                              double x[])
{
    const lgc_model *m = pr->model;
    const int n = pr->n, nh = pr->nh;
    double *phi = pr->res, *phi_dot = phi + nh, *g = phi_dot + nh;
    int rc;
    m->residuals(t, x, sys->p, phi, phi_dot, g);
    m->constraint_jacobian(t, x, sys->p, pr->C);
    if ((rc = factor_metric(pr, sys, t, x)) != LGC_OK)
        return rc;
    for (int i = 0; i < pr->m; i++)
        pr->b[i] = -phi_dot[i];     /* phi_dot and g are contiguous */
    if ((rc = min_norm(pr, pr->m)) != LGC_OK)
        return rc;
    for (int j = 0; j < n; j++)
        x[n + j] += pr->b[j];
    return LGC_OK;
}

int lgc_project(lgc_projector *pr, const lgc_system *sys, double t, double x[],
                int *iterations)
{
    int it = 0, rc = LGC_OK;
    if (pr->mode != LGC_PROJECT_NONE && pr->m > 0) {
        if (pr->mode == LGC_PROJECT_FULL && pr->nh > 0)
            rc = project_positions(pr, sys, t, x, &it);
        if (rc == LGC_OK)
            rc = project_velocities(pr, sys, t, x);
    }
    if (iterations)
        *iterations = it;
    return rc;
}
