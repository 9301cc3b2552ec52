/*
** project.c — one-step constraint correction (6.416–6.418).
**
** The smallest correction d in the metric W = L L^T subject to C d = r is
** d = L^-T w with w = X^T K, X = C L^-T (X's rows: L^-1 C_i^T), and
** (X X^T) K = r: the normal equations, factored by Cholesky in plain loops
** (the matrices are a few rows: a LAPACK call would cost more than the
** arithmetic, and its SVD ten times more). Where X X^T is singular or too
** ill-conditioned for them (a pivot below 1e-8 of the largest diagonal
** entry: cond(C) past ~1e4), w is the minimum-norm solution of X w = r by
** LAPACK's dgelsd (SVD), which copes when C loses rank. W = I: L = I.
*/
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>

#include "lagrangec/project.h"
#include "lagrangec/status.h"

/* Singular values below RCOND * s_max count as zero (rank deficiency). */
#define RCOND 1e-12
/* A Cholesky pivot of X X^T below this fraction of its largest diagonal entry hands over to the SVD. */
#define NORMAL_PIVOT 1e-8

struct lgc_projector {
    const lgc_model *model;
    lgc_project_mode mode;
    lgc_metric metric;
    double tol;
    int max_iter;
    int n, nh, m;           /* coordinates, holonomic rows, all rows */
    double *C;              /* m x n row-major, [A; B] */
    double *L;              /* n x n row-major, lower Cholesky factor of M (metric mass) */
    double *X;              /* m x n row-major, C L^-T */
    double *S;              /* m x m row-major, X X^T and its factor */
    double *K;              /* m: (X X^T)^-1 r */
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

    size_t nd = (size_t)m * n * 3 + (size_t)n * n + (size_t)m * m + m + big + small
                + 2 * model->nh + model->nn + pr->lwork;
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
    pr->S = pr->L + (size_t)n * n;
    pr->K = pr->S + (size_t)m * m;
    pr->b = pr->K + m;
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

int lgc_projector_active(const lgc_projector *pr)
{
    return pr->mode != LGC_PROJECT_NONE && pr->m > 0;
}

/*
** In place, the lower Cholesky factor of the n x n row-major a (its lower
** triangle read). 0, or -1 when a pivot is not above rel * the largest
** diagonal entry.
*/
static int cholesky(double *a, int n, double rel)
{
    double largest = 0.0;
    for (int i = 0; i < n; i++)
        largest = fmax(largest, a[(size_t)i * n + i]);
    for (int j = 0; j < n; j++) {
        double *rj = a + (size_t)j * n, d = rj[j];
        for (int k = 0; k < j; k++)
            d -= rj[k] * rj[k];
        if (!(d > rel * largest))
            return -1;
        rj[j] = d = sqrt(d);
        for (int i = j + 1; i < n; i++) {
            double *ri = a + (size_t)i * n, s = ri[j];
            for (int k = 0; k < j; k++)
                s -= ri[k] * rj[k];
            ri[j] = s / d;
        }
    }
    return 0;
}

/* x := L^-1 x (trans 0) or L^-T x (trans 1), L n x n lower, row-major. */
static void triangular_solve(const double *L, int n, int trans, double x[])
{
    if (!trans) {
        for (int i = 0; i < n; i++) {
            double s = x[i];
            for (int k = 0; k < i; k++)
                s -= L[(size_t)i * n + k] * x[k];
            x[i] = s / L[(size_t)i * n + i];
        }
    } else {
        for (int i = n - 1; i >= 0; i--) {
            double s = x[i];
            for (int k = i + 1; k < n; k++)
                s -= L[(size_t)k * n + i] * x[k];
            x[i] = s / L[(size_t)i * n + i];
        }
    }
}

/* L L^T = M(t, x); a failed factorisation means M is not positive definite. */
static int factor_metric(lgc_projector *pr, const lgc_system *sys, double t,
                         const double x[])
{
    if (pr->metric != LGC_METRIC_MASS)
        return LGC_OK;
    pr->model->mass_matrix(t, x, sys->p, pr->L);
    return cholesky(pr->L, pr->n, 0.0) == 0 ? LGC_OK : LGC_ERR_SINGULAR_MASS;
}

/* w := the minimum-norm solution of X[0..rows) w = b by SVD, into b. */
static int min_norm_svd(lgc_projector *pr, int rows)
{
    const int n = pr->n, ldb = rows > n ? rows : n;
    lapack_int rank;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < n; j++)
            pr->a[i + (size_t)j * rows] = pr->X[(size_t)i * n + j];
    lapack_int info = LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, rows, n, 1, pr->a, rows, pr->b,
                                          ldb, pr->sv, RCOND, &rank, pr->work, pr->lwork,
                                          pr->iwork);
    if (info < 0)
        return LGC_ERR_LAPACK;
    return info > 0 ? LGC_ERR_PROJECTION : LGC_OK;  /* > 0: the SVD did not converge */
}

/*
** d = the smallest change (in W) with C[0..rows) d = r; r is read from
** pr->b, d written to pr->b[0..n).
*/
static int min_norm(lgc_projector *pr, int rows)
{
    const int n = pr->n;
    const int mass = pr->metric == LGC_METRIC_MASS;
    for (int i = 0; i < rows; i++) {
        double *xi = pr->X + (size_t)i * n;
        for (int j = 0; j < n; j++)
            xi[j] = pr->C[(size_t)i * n + j];
        if (mass)
            triangular_solve(pr->L, n, 0, xi);
    }
    for (int i = 0; i < rows; i++)
        for (int j = 0; j <= i; j++) {
            double s = 0.0;
            for (int k = 0; k < n; k++)
                s += pr->X[(size_t)i * n + k] * pr->X[(size_t)j * n + k];
            pr->S[(size_t)i * rows + j] = s;
        }
    if (cholesky(pr->S, rows, NORMAL_PIVOT) == 0) {
        double *K = pr->K;
        for (int i = 0; i < rows; i++)
            K[i] = pr->b[i];
        triangular_solve(pr->S, rows, 0, K);
        triangular_solve(pr->S, rows, 1, K);
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int i = 0; i < rows; i++)
                s += pr->X[(size_t)i * n + j] * K[i];
            pr->b[j] = s;
        }
    } else {
        int rc = min_norm_svd(pr, rows);
        if (rc != LGC_OK)
            return rc;
    }
    if (mass)
        triangular_solve(pr->L, n, 1, pr->b);
    return LGC_OK;
}

/*
** Gauss–Newton on the holonomic rows: q += W^-1 A^T K, (A W^-1 A^T) K = -phi,
** until |phi| <= tol, or down to phi's round-off floor, ~eps |A| |q|, where
** a tol tighter than the arithmetic allows would never be met. tol = 0
** takes one iteration at least: the corrected state is then a smooth
** function of the state, not one left alone below a threshold.
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
        if (err <= fmax(pr->tol, floor) && (it > 0 || pr->tol > 0.0))
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
    if (lgc_projector_active(pr)) {
        if (pr->mode == LGC_PROJECT_FULL && pr->nh > 0)
            rc = project_positions(pr, sys, t, x, &it);
        if (rc == LGC_OK)
            rc = project_velocities(pr, sys, t, x);
    }
    if (iterations)
        *iterations = it;
    return rc;
}
