/*
** initial.c — an initial state against the constraints: the check, and the
** completion of the coordinates and velocities not given (LAPACK dgelsd
** for the smallest change over the free columns, as project.c).
*/
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>

#include "lagrangec/initial.h"
#include "lagrangec/status.h"
#include "max_abs.h"

/* Singular values below RCOND s_max count as zero (project.c's). */
#define RCOND 1e-12
#define MAX_ITER 50


/*
** A friction contact's slip is a velocity, a constraint only while it
** sticks: at a start its residual in res = [phi; phi'; g] is 0.
*/
static void leave_slips(const lgc_model *m, double res[])
{
    for (int i = 0; i < 2 * m->nfriction; i++)
        if (m->friction_slip_rows[i] >= 0)
            res[m->nh + m->friction_slip_rows[i]] = 0.0;   /* g follows phi and phi' */
}

int lgc_state_check(const lgc_system *sys, double t, const double x[], double tol,
                    int *row, double *residual)
{
    const lgc_model *m = sys->model;
    const int rows = 2 * m->nh + m->nn;
    double *r = malloc((size_t)(rows > 0 ? rows : 1) * sizeof *r);
    if (!r)
        return LGC_ERR_NOMEM;
    m->residuals(t, x, sys->p, r, r + m->nh, r + 2 * m->nh);
    leave_slips(m, r);
    const double bound = tol * fmax(1.0, lgc_max_abs(x, 2 * m->nq, 0.0));
    *row = -1;
    for (int i = 0; i < rows; i++) {
        /* A contact (the last ncontact holonomic rows) may be apart: only phi < 0 is wrong. */
        const int contact = i < 2 * m->nh && i % m->nh >= m->nh - m->ncontact;
        if (contact && (i >= m->nh || r[i] >= -bound))
            continue;
        if (!(fabs(r[i]) <= bound) && (*row < 0 || !(fabs(r[i]) <= fabs(*residual)))) {
            *row = i;
            *residual = r[i];
        }
    }
    free(r);
    return *row < 0 ? LGC_OK : LGC_ERR_INCONSISTENT;
}

typedef struct completion {
    const lgc_model *m;
    int nq, nc, nfree, nsolved;
    int *free_cols;         /* nq: the free columns of this pass */
    int *solved;            /* nc: the rows a free column enters, solved for */
    unsigned char *checked; /* nc: the rows no free column enters, checked only */
    double *C;              /* nc x nq row-major: [A; B] */
    double *a;              /* nc x nq column-major: the free columns */
    double *b;              /* max(nc, nq): right side in, change out */
    double *sv, *res;       /* singular values; phi, phi', g */
    double *work;
    lapack_int lwork, *iwork;
} completion;

/*
** Splits the rows [0, rows) of C at x: a row that no free column enters
** (its entries there all 0) is decided by the given entries alone, so it
** is checked, not solved for (x^2 + y^2 - 1 with x and y given, while
** z - x gives z); the others are listed in c->solved.
*/
static void split_rows(completion *c, int rows)
{
    c->nsolved = 0;
    for (int i = 0; i < rows; i++) {
        int entered = 0;
        for (int j = 0; j < c->nfree && !entered; j++)
            entered = c->C[(size_t)i * c->nq + c->free_cols[j]] != 0.0;
        c->checked[i] = !entered;
        if (entered)
            c->solved[c->nsolved++] = i;
    }
}

/*
** The worst checked row among res[0 .. rows) past the start's tolerance
** (lgc_state_check's): LGC_ERR_INCONSISTENT with it in *unmet, else LGC_OK.
*/
static int check_rows(const completion *c, const double res[], int rows, int offset,
                      const double x[], lgc_unmet *unmet)
{
    const double bound = LGC_INITIAL_TOL * fmax(1.0, lgc_max_abs(x, 2 * c->nq, 0.0));
    int rc = LGC_OK;
    for (int i = 0; i < rows; i++)
        if (c->checked[i] && !(fabs(res[i]) <= bound)
            && (rc == LGC_OK || !(fabs(res[i]) <= fabs(unmet->residual)))) {
            unmet->row = offset + i;
            unmet->residual = res[i];
            rc = LGC_ERR_INCONSISTENT;
        }
    return rc;
}

/*
** The smallest change d of the free columns with C[solved] d = b[solved]
** (rows of C): into b. LGC_ERR_RANK_LOST when those columns do not span
** the rows.
*/
static int smallest_change(completion *c)
{
    const int rows = c->nsolved, n = c->nfree, ldb = rows > n ? rows : n;
    if (n < rows)
        return LGC_ERR_RANK_LOST;
    for (int i = 0; i < rows; i++) {
        c->b[i] = c->b[c->solved[i]];    /* solved[i] >= i: packed in place */
        for (int j = 0; j < n; j++)
            c->a[i + (size_t)j * rows] = c->C[(size_t)c->solved[i] * c->nq + c->free_cols[j]];
    }
    if (rows == 0) {
        for (int j = 0; j < n; j++)
            c->b[j] = 0.0;
        return LGC_OK;
    }
    lapack_int rank = 0;
    lapack_int info = LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, rows, n, 1, c->a, rows, c->b,
                                          ldb, c->sv, RCOND, &rank, c->work, c->lwork,
                                          c->iwork);
    if (info != 0)
        return info < 0 ? LGC_ERR_LAPACK : LGC_ERR_PROJECTION;
    return rank < rows ? LGC_ERR_RANK_LOST : LGC_OK;
}

/* The free columns among fixed[offset .. offset + nq). */
static void choose_free(completion *c, const unsigned char fixed[], int offset)
{
    c->nfree = 0;
    for (int j = 0; j < c->nq; j++)
        if (!fixed[offset + j])
            c->free_cols[c->nfree++] = j;
}

/*
** A contact apart or touching (phi >= 0) is left as it is: its targets
** become 0 (C d = 0 on its row), so nothing is pulled onto it; one that
** penetrates is brought back to phi = 0. A friction contact's slip too is
** left as it is: a slip is a velocity, a constraint only while it sticks.
*/
static void leave_contacts(const lgc_model *m, double res[])
{
    for (int i = m->nh - m->ncontact; i < m->nh; i++)
        if (res[i] >= 0.0)
            res[i] = res[m->nh + i] = 0.0;
    leave_slips(m, res);
}

/* The largest |res[i]| over the solved rows; NaN once one is (lgc_max_abs's rule). */
static double solved_max_abs(const completion *c, const double res[])
{
    double worst = 0.0;
    for (int i = 0; i < c->nsolved; i++) {
        worst = lgc_max_abs(&res[c->solved[i]], 1, worst);
        if (isnan(worst))
            break;
    }
    return worst;
}

static int complete_positions(completion *c, const lgc_system *sys, double t, double x[],
                              lgc_unmet *unmet)
{
    const lgc_model *m = c->m;
    const int nh = m->nh;
    double *phi = c->res;
    for (int it = 0;; it++) {
        m->residuals(t, x, sys->p, phi, phi + nh, phi + 2 * nh);
        leave_contacts(m, phi);
        m->constraint_jacobian(t, x, sys->p, c->C);
        if (it == 0)
            split_rows(c, nh);
        /* phi's round-off, as project.c's floor: no closer can be asked for. */
        double floor = 64 * DBL_EPSILON * (1.0 + lgc_max_abs(c->C, nh * c->nq, 0.0) * lgc_max_abs(x, c->nq, 0.0));
        double worst = solved_max_abs(c, phi);
        if (worst <= floor)
            return check_rows(c, phi, nh, 0, x, unmet);
        if (it == MAX_ITER || !isfinite(worst))
            return LGC_ERR_PROJECTION;
        for (int i = 0; i < nh; i++)
            c->b[i] = -phi[i];
        int rc = smallest_change(c);
        if (rc != LGC_OK)
            return rc;
        for (int j = 0; j < c->nfree; j++)
            x[c->free_cols[j]] += c->b[j];
    }
}

static int complete_velocities(completion *c, const lgc_system *sys, double t, double x[],
                               lgc_unmet *unmet)
{
    const lgc_model *m = c->m;
    double *r = c->res;
    m->residuals(t, x, sys->p, r, r + m->nh, r + 2 * m->nh);
    leave_contacts(m, r);
    m->constraint_jacobian(t, x, sys->p, c->C);
    split_rows(c, c->nc);
    for (int i = 0; i < c->nc; i++)
        c->b[i] = -r[m->nh + i];    /* phi' and g are contiguous */
    int rc = smallest_change(c);
    if (rc != LGC_OK)
        return rc;
    for (int j = 0; j < c->nfree; j++)
        x[c->nq + c->free_cols[j]] += c->b[j];
    /* The checked rows do not move with the free velocities: r holds them still. */
    return check_rows(c, r + m->nh, c->nc, m->nh, x, unmet);
}

int lgc_state_complete(const lgc_system *sys, double t, double x[],
                       const unsigned char fixed[], lgc_unmet *unmet)
{
    const lgc_model *m = sys->model;
    completion c = {m, m->nq, m->nh + m->nn, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                    NULL, NULL, 0, NULL};
    if (c.nc == 0)
        return LGC_OK;
    const int big = c.nc > c.nq ? c.nc : c.nq;
    double wq = 0.0, dummy = 0.0;
    lapack_int iwq = 0, rank = 0;
    if (LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, c.nc, c.nq, 1, &dummy, c.nc, &dummy, big, &dummy,
                            RCOND, &rank, &wq, -1, &iwq) != 0)
        return LGC_ERR_LAPACK;
    /* The query's sizes for all rows and columns cover every smaller pass. */
    c.lwork = (lapack_int)wq + 1;
    size_t nd = 2u * (size_t)c.nc * c.nq + big + big + (size_t)(2 * m->nh + m->nn) + c.lwork;
    double *v = calloc(nd, sizeof *v);
    c.iwork = calloc((size_t)iwq + 1, sizeof *c.iwork);
    c.free_cols = calloc((size_t)c.nq + 1, sizeof *c.free_cols);
    c.solved = calloc((size_t)c.nc, sizeof *c.solved);
    c.checked = calloc((size_t)c.nc, 1);
    int rc = LGC_ERR_NOMEM;
    if (v && c.iwork && c.free_cols && c.solved && c.checked) {
        c.C = v;
        c.a = c.C + (size_t)c.nc * c.nq;
        c.b = c.a + (size_t)c.nc * c.nq;
        c.sv = c.b + big;
        c.res = c.sv + big;
        c.work = c.res + 2 * m->nh + m->nn;
        choose_free(&c, fixed, 0);
        rc = m->nh > 0 ? complete_positions(&c, sys, t, x, unmet) : LGC_OK;
        if (rc == LGC_OK) {
            choose_free(&c, fixed, c.nq);
            rc = complete_velocities(&c, sys, t, x, unmet);
        }
    }
    free(v);
    free(c.iwork);
    free(c.free_cols);
    free(c.solved);
    free(c.checked);
    return rc;
}
