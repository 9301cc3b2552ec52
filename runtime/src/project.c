/*
** project.c — one-step constraint correction (6.416–6.418).
**
** The smallest correction d in the metric W = L L^T subject to C d = r is
** d = L^-T w with w = X^T K, X = C L^-T (X's rows: L^-1 C_i^T), and
** (X X^T) K = r: the normal equations, factored by Cholesky in plain
** loops (the matrices are a few rows: a LAPACK call would cost more than the
** arithmetic, and its SVD ten times more). Constraint rows touch a few
** coordinates each: X's rows are kept as lists of their nonzeros, X X^T is
** formed from them, and its Cholesky factor stays inside X X^T's envelope
** (each row from its first nonzero: a chain's tridiagonal X X^T factors in
** O(m)). Gauss–Newton on the positions reuses the factor while |phi| falls
** by LGC_FACTOR_REUSE per iteration. Where X X^T is singular or too
** ill-conditioned for them (a pivot below LGC_ROWS_PIVOT of the largest diagonal
** entry: cond(C) past ~1e4), w is the minimum-norm solution of X w = r by
** LAPACK's dgelsd (SVD), which copes when C loses rank. W = I: L = I, X = C.
**
** A model generated with its own correction (lgc_model's correction_factor,
** straight-line code over the structural nonzeros of M and C) factors and
** solves through it instead; where it finds a pivot too small (the same
** LGC_ROWS_PIVOT, of the pivot's own diagonal entry) the path above takes over.
*/
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangec/project.h"
#include "lagrangec/status.h"
#include "lagrangec/thresholds.h"
#include "max_abs.h"

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
    double *L;              /* n x n row-major, lower Cholesky factor of M (metric mass) */
    double *X;              /* m x n row-major, C L^-T (metric mass) */
    const double *Xrows;    /* the rows factored: X, or C for metric identity */
    int *nz;                /* m x n: row i's nonzero columns of Xrows, nnz[i] of them */
    int *nnz;
    int *first;             /* m: X X^T's row i starts at column first[i] (its envelope) */
    int factored;           /* rows of Xrows whose X X^T's Cholesky factor is in S; 0: none (SVD) */
    double *S;              /* m x m row-major, X X^T and its factor */
    double *K;              /* m: (X X^T)^-1 r */
    double *a;              /* m x n column-major, dgelsd's matrix */
    double *b;              /* max(m, n): right side in, solution out */
    double *sv;             /* min(m, n) singular values */
    double *res;            /* nh + nh + nn: phi, phi', g */
    double *q_prev;         /* n: the positions a Gauss–Newton step started from */
    double c_max;           /* max |C_ij| of the holonomic rows as constraint_rows last formed them; < 0: not yet scanned */
    int *c_nz;              /* the holonomic rows' structural nonzeros in C (row-major offsets), nc_nz of them */
    int nc_nz;
    double *cwork;          /* the generated correction's work; NULL: the generic path only */
    int generated;          /* the factor is the generated one's (all rows; its leading block the holonomic) */
    double *work;
    lapack_int lwork;
    lapack_int *iwork;
};


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

/*
** C's structural nonzeros on the holonomic rows, for the round-off floor's
** |C| (a scan of them, not of the dense nh x n C, at every Gauss–Newton
** check that needs it): the entries nonzero, or not finite, at any of four
** generic points (t, x, p), each coordinate, velocity and parameter a
** different irrational-looking value of either sign, so that no entry that
** is not identically zero vanishes at all four. In pr->C (overwritten by
** the run's first C).
*/
static int structural_nonzeros(lgc_projector *pr)
{
    const lgc_model *m = pr->model;
    const int n = pr->n, nh = pr->nh, nx = m->nx, np = m->np;
    double *v = calloc((size_t)nx + np + 1, sizeof *v);
    if (!v)
        return LGC_ERR_NOMEM;
    double *x = v, *p = v + nx;
    pr->nc_nz = 0;
    for (int k = 0; k < nh * n; k++)
        pr->c_nz[k] = 0;    /* a flag per entry until the offsets are packed */
    for (int point = 0; point < 4; point++) {
        const double sign = point % 2 ? -1.0 : 1.0;
        for (int i = 0; i < nx; i++)
            x[i] = sign * (0.3 + 0.1 * point + 0.6180339887 * fmod(0.7548776662 * (i + 1) + 0.31 * point, 1.0));
        for (int i = 0; i < np; i++)
            p[i] = (m->parameter_defaults ? m->parameter_defaults[i] : 0.0)
                   + 0.4142135624 + 0.17 * point + 0.2360679775 * fmod(0.5698402910 * (i + 1), 1.0);
        m->constraint_jacobian(0.5772156649 + 0.25 * point, x, p, pr->C);
        for (int k = 0; k < nh * n; k++)
            if (pr->C[k] != 0.0)
                pr->c_nz[k] = 1;
    }
    for (int k = 0; k < nh * n; k++)
        if (pr->c_nz[k])
            pr->c_nz[pr->nc_nz++] = k;
    free(v);
    return LGC_OK;
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
    pr->c_max = -1.0;
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
                + 2 * model->nh + model->nn + n + pr->lwork;
    double *v = calloc(nd, sizeof *v);
    pr->iwork = calloc(liwork > 0 ? (size_t)liwork : 1, sizeof *pr->iwork);
    pr->nz = calloc((size_t)m * n + 2 * (size_t)m + (size_t)model->nh * n, sizeof *pr->nz);
    if (!v || !pr->iwork || !pr->nz) {
        free(v);
        free(pr->iwork);
        free(pr->nz);
        free(pr);
        return NULL;
    }
    if (model->correction_factor) {
        pr->cwork = calloc((size_t)model->nwork_correction + 1, sizeof *pr->cwork);
        if (!pr->cwork) {
            free(v);
            free(pr->iwork);
            free(pr->nz);
            free(pr);
            return NULL;
        }
    }
    pr->nnz = pr->nz + (size_t)m * n;
    pr->first = pr->nnz + m;
    pr->c_nz = pr->first + m;
    pr->C = v;
    pr->X = pr->C + (size_t)m * n;
    pr->a = pr->X + (size_t)m * n;
    pr->L = pr->a + (size_t)m * n;
    pr->S = pr->L + (size_t)n * n;
    pr->K = pr->S + (size_t)m * m;
    pr->b = pr->K + m;
    pr->sv = pr->b + big;
    pr->res = pr->sv + small;
    pr->q_prev = pr->res + 2 * model->nh + model->nn;
    pr->work = pr->q_prev + n;
    if (structural_nonzeros(pr) != LGC_OK) {
        lgc_projector_free(pr);
        return NULL;
    }
    return pr;
}

void lgc_projector_free(lgc_projector *pr)
{
    if (!pr)
        return;
    free(pr->C);
    free(pr->cwork);
    free(pr->iwork);
    free(pr->nz);
    free(pr);
}

int lgc_projector_active(const lgc_projector *pr)
{
    return pr->mode != LGC_PROJECT_NONE && pr->m > 0;
}

/*
** In place, the lower Cholesky factor of the n x n row-major a (its lower
** triangle read), row i from column first[i] on (NULL: 0), the factor
** staying inside that envelope. 0, or -1 when a pivot is not above rel *
** the largest diagonal entry.
*/
static int cholesky(double *a, int n, const int *first, double rel)
{
    double largest = 0.0;
    for (int i = 0; i < n; i++)
        largest = fmax(largest, a[(size_t)i * n + i]);
    for (int j = 0; j < n; j++) {
        double *rj = a + (size_t)j * n, d = rj[j];
        const int fj = first ? first[j] : 0;
        for (int k = fj; k < j; k++)
            d -= rj[k] * rj[k];
        if (!(d > rel * largest))
            return -1;
        rj[j] = d = sqrt(d);
        for (int i = j + 1; i < n; i++) {
            const int fi = first ? first[i] : 0;
            if (fi > j)
                continue;
            double *ri = a + (size_t)i * n, s = ri[j];
            for (int k = fi > fj ? fi : fj; k < j; k++)
                s -= ri[k] * rj[k];
            ri[j] = s / d;
        }
    }
    return 0;
}

/* x := L^-1 x (trans 0) or L^-T x (trans 1), L n x n lower, row-major, rows from first[i] (NULL: 0). */
static void triangular_solve(const double *L, int n, const int *first, int trans, double x[])
{
    if (!trans) {
        for (int i = 0; i < n; i++) {
            double s = x[i];
            for (int k = first ? first[i] : 0; k < i; k++)
                s -= L[(size_t)i * n + k] * x[k];
            x[i] = s / L[(size_t)i * n + i];
        }
    } else {
        for (int i = n - 1; i >= 0; i--) {
            const double xi = x[i] /= L[(size_t)i * n + i];
            for (int k = first ? first[i] : 0; k < i; k++)
                x[k] -= L[(size_t)i * n + k] * xi;
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
    return cholesky(pr->L, pr->n, NULL, 0.0) == 0 ? LGC_OK : LGC_ERR_SINGULAR_MASS;
}

/* w := the minimum-norm solution of X[0..rows) w = b by SVD, into b. */
static int min_norm_svd(lgc_projector *pr, int rows)
{
    const int n = pr->n, ldb = rows > n ? rows : n;
    lapack_int rank;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < n; j++)
            pr->a[i + (size_t)j * rows] = pr->Xrows[(size_t)i * n + j];
    lapack_int info = LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, rows, n, 1, pr->a, rows, pr->b,
                                          ldb, pr->sv, RCOND, &rank, pr->work, pr->lwork,
                                          pr->iwork);
    if (info < 0)
        return LGC_ERR_LAPACK;
    return info > 0 ? LGC_ERR_PROJECTION : LGC_OK;  /* > 0: the SVD did not converge */
}

/*
** The Cholesky factor of X X^T for C[0..rows) at the state C and L were
** evaluated at, into S; pr->factored = rows, or 0 when the SVD must solve.
*/
static void factor_rows(lgc_projector *pr, int rows)
{
    const int n = pr->n;
    if (pr->metric == LGC_METRIC_MASS) {
        for (int i = 0; i < rows; i++) {
            double *xi = pr->X + (size_t)i * n;
            for (int j = 0; j < n; j++)
                xi[j] = pr->C[(size_t)i * n + j];
            triangular_solve(pr->L, n, NULL, 0, xi);
        }
        pr->Xrows = pr->X;
    } else {
        pr->Xrows = pr->C;
    }
    for (int i = 0; i < rows; i++) {
        const double *xi = pr->Xrows + (size_t)i * n;
        int *nzi = pr->nz + (size_t)i * n, c = 0;
        for (int j = 0; j < n; j++)
            if (xi[j] != 0.0)
                nzi[c++] = j;
        pr->nnz[i] = c;
    }
    for (int i = 0; i < rows; i++) {
        const double *xi = pr->Xrows + (size_t)i * n;
        const int *nzi = pr->nz + (size_t)i * n;
        pr->first[i] = i;
        for (int j = 0; j <= i; j++) {
            const double *xj = pr->Xrows + (size_t)j * n;
            const int *nzj = pr->nz + (size_t)j * n;
            double s = 0.0;
            /* rows whose nonzero columns lie apart meet in nothing */
            if (pr->nnz[i] > 0 && pr->nnz[j] > 0 && nzj[0] <= nzi[pr->nnz[i] - 1]
                && nzi[0] <= nzj[pr->nnz[j] - 1])
                for (int c = 0; c < pr->nnz[i]; c++)
                    s += xi[nzi[c]] * xj[nzi[c]];
            pr->S[(size_t)i * rows + j] = s;
            if (s != 0.0 && j < pr->first[i])
                pr->first[i] = j;
        }
        /* A row of zeros (a contact apart) asks nothing: its multiplier is 0, its pivot 1. */
        if (pr->nnz[i] == 0)
            pr->S[(size_t)i * rows + i] = 1.0;
    }
    pr->factored = cholesky(pr->S, rows, pr->first, LGC_ROWS_PIVOT) == 0 ? rows : 0;
}

/*
** The factor for C[0..rows) at the state x, C evaluated there: the
** generated one when the model has it and the rows keep their rank, else
** factor_rows's.
*/
static int factor(lgc_projector *pr, const lgc_system *sys, double t, const double x[], int rows)
{
    int rc;
    pr->generated = 0;
    pr->factored = 0;
    if (pr->cwork) {
        const int mass = pr->metric == LGC_METRIC_MASS;
        if (mass)
            pr->model->mass_matrix(t, x, sys->p, pr->L);
        rc = pr->model->correction_factor(mass, pr->L, pr->C, pr->cwork);
        if (rc == LGC_MODEL_SINGULAR_MASS)
            return LGC_ERR_SINGULAR_MASS;
        if (rc == LGC_MODEL_OK) {
            pr->generated = 1;
            return LGC_OK;
        }
    }
    if ((rc = factor_metric(pr, sys, t, x)) != LGC_OK)
        return rc;
    factor_rows(pr, rows);
    return LGC_OK;
}

/* Whether the factor in place serves C[0..rows). */
static int factored_for(const lgc_projector *pr, int rows)
{
    return pr->generated || pr->factored == rows;
}

/*
** d = the smallest change (in W) with C[0..rows) d = r, C as factored by
** factor; r is read from pr->b, d written to pr->b[0..n).
*/
static int min_norm(lgc_projector *pr, int rows)
{
    const int n = pr->n;
    if (pr->generated) {
        memcpy(pr->K, pr->b, (size_t)rows * sizeof *pr->K);
        pr->model->correction_solve(pr->metric == LGC_METRIC_MASS, rows, pr->L, pr->C, pr->cwork,
                                    pr->K, pr->b);
        return LGC_OK;
    }
    if (pr->factored == rows) {
        double *K = pr->K;
        for (int i = 0; i < rows; i++)
            K[i] = pr->b[i];
        triangular_solve(pr->S, rows, pr->first, 0, K);
        triangular_solve(pr->S, rows, pr->first, 1, K);
        for (int j = 0; j < n; j++)
            pr->b[j] = 0.0;
        for (int i = 0; i < rows; i++) {
            const double *xi = pr->Xrows + (size_t)i * n;
            const int *nzi = pr->nz + (size_t)i * n;
            for (int c = 0; c < pr->nnz[i]; c++)
                pr->b[nzi[c]] += xi[nzi[c]] * K[i];
        }
    } else {
        int rc = min_norm_svd(pr, rows);
        if (rc != LGC_OK)
            return rc;
    }
    if (pr->metric == LGC_METRIC_MASS)
        triangular_solve(pr->L, n, NULL, 1, pr->b);
    return LGC_OK;
}

/*
** A contact apart is no constraint: its residuals become 0 and its row of
** C zeros, so the correction neither closes its gap nor holds it (held,
** C d = 0 on its row would fight a row that holds: a pendulum's rod
** beside a wall it is apart from). The same for a sliding contact's slip.
*/
static void free_contacts(const lgc_system *sys, double res[])
{
    const lgc_model *m = sys->model;
    for (int i = 0; sys->active && i < 2 * m->nh + m->nn; i++)
        if (lgc_row_off(sys, i))
            res[i] = 0.0;
}

/* C at (t, x), the rows of the contacts apart (and of sliding slips) zeros. */
static void constraint_rows(lgc_projector *pr, const lgc_system *sys, double t, const double x[])
{
    const lgc_model *m = pr->model;
    m->constraint_jacobian(t, x, sys->p, pr->C);
    for (int i = 0; sys->active && i < m->nh + m->nn; i++)
        if (lgc_row_off(sys, i < m->nh ? i : i + m->nh))
            memset(pr->C + (size_t)i * pr->n, 0, (size_t)pr->n * sizeof *pr->C);
    pr->c_max = -1.0;
}

/*
** Whether err is within the tolerance, or down to phi's round-off at x,
** ~eps |C| |q| with C the last one formed. The floor is the check's only
** cost beyond a comparison: it is looked at only where err is above tol,
** and |C| scanned once per C formed, on its structural nonzeros.
*/
static int converged(lgc_projector *pr, const double x[], double err)
{
    if (err <= pr->tol)
        return 1;
    if (pr->c_max < 0.0) {
        double c = 0.0;
        for (int k = 0; k < pr->nc_nz; k++) {
            const double a = fabs(pr->C[pr->c_nz[k]]);
            if (a > c || a != a)
                c = a;
        }
        pr->c_max = c;
    }
    return err <= 64 * DBL_EPSILON * (1.0 + pr->c_max * lgc_max_abs(x, pr->n, 0.0));
}

/*
** Gauss–Newton on the holonomic rows: q += W^-1 A^T K, (A W^-1 A^T) K = -phi,
** until |phi| <= tol, or down to phi's round-off floor, ~eps |A| |q| (converged), where
** a tol tighter than the arithmetic allows would never be met. tol = 0
** takes one iteration at least: the corrected state is then a smooth
** function of the state, not one left alone below a threshold. A step on
** an older A W^-1 A^T (a chord step) stands when it meets the tolerance or
** cuts |phi| by LGC_FACTOR_REUSE; one that does neither is undone, and a
** Newton step on a fresh factor taken from where it began, so the iteration
** never does worse than Newton's. On return the residuals are x's; *c_current says whether C is.
*/
static int project_positions(lgc_projector *pr, const lgc_system *sys, double t,
                             double x[], int *iterations, int *c_current)
{
    const lgc_model *m = pr->model;
    const int n = pr->n, nh = pr->nh;
    double *phi = pr->res, *phi_dot = phi + nh, *g = phi_dot + nh;
    double last_err = INFINITY;
    int rc, chord = 0, undone = 0;
    *c_current = 0;
    for (int it = 0;; it++) {
        m->residuals(t, x, sys->p, phi, phi_dot, g);
        free_contacts(sys, phi);
        double err = lgc_max_abs(phi, nh, 0.0);
        int refactor = it == 0 || !factored_for(pr, nh);
        *iterations = it;
        if (!refactor && converged(pr, x, err))
            return LGC_OK;  /* a chord step that met the tolerance stands, whatever it cut */
        if (!refactor && !(err <= LGC_FACTOR_REUSE * last_err)) {
            if (chord) {
                memcpy(x, pr->q_prev, (size_t)n * sizeof *x);
                m->residuals(t, x, sys->p, phi, phi_dot, g);
                free_contacts(sys, phi);
                err = lgc_max_abs(phi, nh, 0.0);
                undone++;
            }
            refactor = 1;
        }
        if (refactor) {
            constraint_rows(pr, sys, t, x);
            *c_current = 1;
        }
        if ((it > 0 || pr->tol > 0.0) && converged(pr, x, err))
            return LGC_OK;
        if (it - undone == pr->max_iter || !isfinite(err))  /* steps undone count for nothing */
            return LGC_ERR_PROJECTION;
        if (refactor && (rc = factor(pr, sys, t, x, nh)) != LGC_OK)
            return rc;
        for (int i = 0; i < nh; i++)
            pr->b[i] = -phi[i];
        if ((rc = min_norm(pr, nh)) != LGC_OK)
            return rc;
        memcpy(pr->q_prev, x, (size_t)n * sizeof *x);
        for (int j = 0; j < n; j++)
            x[j] += pr->b[j];
        *c_current = 0;
        chord = !refactor;
        last_err = err;
    }
}

/*
** v += W^-1 C^T K, (C W^-1 C^T) K = -[phi'; g]: exact, the rows are linear
** in v. have_res, have_c: the residuals, C already evaluated at x.
*/
static int project_velocities(lgc_projector *pr, const lgc_system *sys, double t,
                              double x[], int have_res, int have_c)
{
    const lgc_model *m = pr->model;
    const int n = pr->n, nh = pr->nh;
    double *phi = pr->res, *phi_dot = phi + nh, *g = phi_dot + nh;
    int rc;
    if (!have_res) {
        m->residuals(t, x, sys->p, phi, phi_dot, g);
        free_contacts(sys, phi);
    }
    if (!have_c)
        constraint_rows(pr, sys, t, x);
    if ((rc = factor(pr, sys, t, x, pr->m)) != LGC_OK)
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
    int it = 0, rc = LGC_OK, positions = 0, c_current = 0;
    if (lgc_projector_active(pr)) {
        if (pr->mode == LGC_PROJECT_FULL && pr->nh > 0) {
            rc = project_positions(pr, sys, t, x, &it, &c_current);
            positions = 1;
        }
        if (rc == LGC_OK)
            rc = project_velocities(pr, sys, t, x, positions, c_current);
    }
    if (iterations)
        *iterations = it;
    return rc;
}
