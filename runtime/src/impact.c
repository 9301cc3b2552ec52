/*
** impact.c — Newton's impact law on the active set of contacts, in the
** mass metric, its impulses from a linear complementarity problem (lcp.c).
*/
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "impact.h"
#include "lagrangec/status.h"

int lgc_impact_init(lgc_impact *im, const lgc_model *m)
{
    const size_t nq = (size_t)m->nq, nc = (size_t)(m->nh + m->nn), nk = (size_t)m->ncontact;
    memset(im, 0, sizeof *im);
    if (nk == 0)
        return LGC_OK;
    const size_t doubles = nq * nq + 2 * nc * nq + 2 * nc * nc + (2 * (size_t)m->nh + (size_t)m->nn)
                           + (size_t)m->nx + (nq + nc + (size_t)m->nn) + nk * nk + 3 * nk
                           + nc * nk + nc + nk;
    im->M = malloc(doubles * sizeof *im->M);
    im->rows = malloc(nc * sizeof *im->rows);
    im->outcome = malloc(2 * nk);
    if (!im->M || !im->rows || !im->outcome || lgc_lcp_init(&im->lcp, (int)nk) != LGC_OK) {
        lgc_impact_free(im);
        return LGC_ERR_NOMEM;
    }
    im->C = im->M + nq * nq;
    im->Y = im->C + nc * nq;
    im->W = im->Y + nc * nq;
    im->WE = im->W + nc * nc;
    im->res = im->WE + nc * nc;
    im->dxdt = im->res + 2 * (size_t)m->nh + (size_t)m->nn;
    im->f = im->dxdt + m->nx;
    im->A = im->f + nq + nc + (size_t)m->nn;
    im->q = im->A + nk * nk;
    im->z = im->q + nk;
    im->e = im->z + nk;
    im->Z = im->e + nk;
    im->impulse = im->Z + nc * nk;
    im->restitution = im->impulse + nc;
    im->slow = im->outcome + nk;
    return LGC_OK;
}

void lgc_impact_free(lgc_impact *im)
{
    free(im->M);
    free(im->rows);
    free(im->outcome);
    lgc_lcp_free(&im->lcp);
    memset(im, 0, sizeof *im);
}

int lgc_impact_coefficients(lgc_impact *im, const lgc_system *sys)
{
    const lgc_model *m = sys->model;
    if (m->ncontact == 0)
        return LGC_OK;
    m->restitution(sys->p, im->restitution);
    for (int c = 0; c < m->ncontact; c++)
        if (!(im->restitution[c] >= 0.0 && im->restitution[c] <= 1.0))
            return LGC_ERR_RESTITUTION;
    return LGC_OK;
}

static double dot(const double a[], const double b[], int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

/* Row i's rate: phi' (J v + dphi/dt) for a holonomic row, g for a nonholonomic one. */
static double rate(const lgc_model *m, const double res[], int i)
{
    return res[m->nh + i];      /* [phi; phi'; g]: phi' and g follow phi */
}

static int redundant(const lgc_model *m, int row)
{
    for (int k = 0; k < m->nredundant; k++)
        if (m->redundant_rows[k] == row)
            return 1;
    return 0;
}

/*
** phi'' of every contact row with the rows as they are (the closing ones
** off): J q'' + c, c from the stabilised right side r = -c - alpha phi' -
** beta phi. Below 0, a row is pushed into contact; its deceleration bounds
** a rebound's flight. Into im->f's r part: returns where they are.
*/
static int accelerations(lgc_impact *im, lgc_system *sys, double t, const double x[], double **phi_dd)
{
    const lgc_model *m = sys->model;
    const int nq = m->nq;
    unsigned long nfev = sys->nfev;
    int rc = lgc_system_rhs(sys, t, x, im->dxdt, NULL);
    sys->nfev = nfev;
    if (rc != LGC_OK)
        return rc;
    double *r = im->f + nq;
    m->kkt_terms(t, x, sys->u, sys->p, sys->alpha, sys->beta, im->M, im->f, im->C, r,
                 r + m->nh + m->nn);
    for (int i = m->nh - m->ncontact; i < m->nh; i++)
        r[i] = dot(im->C + (size_t)i * nq, im->dxdt + nq, nq) - r[i] - sys->alpha * rate(m, im->res, i)
               - sys->beta * im->res[i];
    *phi_dd = r;
    return LGC_OK;
}

int lgc_impact_apply(lgc_impact *im, lgc_system *sys, double t, double x[], int hit, double phi_tol,
                     double v_rest, double h)
{
    const lgc_model *m = sys->model;
    const int nq = m->nq, nh = m->nh, nc = m->nh + m->nn, first = m->nh - m->ncontact;
    double *v = x + nq, *phi_dd = NULL;
    int rc, nk = 0;
    memset(im->outcome, LGC_CONTACT_UNCHANGED, (size_t)m->ncontact);
    m->residuals(t, x, sys->p, im->res, im->res + nh, im->res + 2 * nh);
    for (int i = first; i < nh; i++) {
        if (sys->active[i] || i == first + hit || (im->res[i] <= phi_tol && rate(m, im->res, i) < 0.0))
            im->rows[nk++] = i;
    }
    if ((rc = accelerations(im, sys, t, x, &phi_dd)) != LGC_OK)
        return rc;
    /*
    ** Each contact's restitution in the problem. One slow (or not closing at
    ** all: the hit row at the state located) that the forces pull away is
    ** left out and clears; one slow that they press rests, pushed or not.
    */
    int kept = 0;
    for (int k = 0; k < nk; k++) {
        const int i = im->rows[k];
        const double e = im->restitution[i - first], closing = -rate(m, im->res, i), rebound = e * closing;
        im->slow[i - first] = !sys->active[i] && closing <= v_rest;
        if (im->slow[i - first] && !(phi_dd[i] < 0.0)) {
            im->outcome[i - first] = LGC_CONTACT_CLEARS;
            continue;
        }
        im->e[kept] = sys->active[i] || closing <= v_rest || rebound <= v_rest
                      || rebound <= fmax(0.0, -phi_dd[i]) * h ? 0.0 : e;
        im->q[kept] = (1.0 + im->e[kept]) * rate(m, im->res, i);
        im->rows[kept++] = i;
    }
    nk = kept;
    if (nk == 0)
        return LGC_OK;
    /* The other rows hold: their rates do not change. */
    int n = nk;
    for (int i = 0; i < nc; i++)
        if ((i < first || i >= nh) && !redundant(m, i))
            im->rows[n++] = i;
    const int ne = n - nk;
    /*
    ** Y = M^-1 C^T, row i of Y for row i of C. M is symmetric, so its
    ** row-major array is its column-major one, and C's rows are C^T's
    ** columns: the _work call copies nothing (a row-major call would
    ** allocate a transpose, inside a step).
    */
    m->mass_matrix(t, x, sys->p, im->M);
    m->constraint_jacobian(t, x, sys->p, im->C);
    memcpy(im->Y, im->C, (size_t)nc * (size_t)nq * sizeof *im->Y);
    if (LAPACKE_dposv_work(LAPACK_COL_MAJOR, 'U', nq, nc, im->M, nq, im->Y, nq) != 0)
        return LGC_ERR_SINGULAR_MASS;
    /* W = C M^-1 C^T over the rows in the problem, contacts first: a rate's change per impulse. */
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            im->W[a * n + b] = dot(im->C + (size_t)im->rows[a] * nq, im->Y + (size_t)im->rows[b] * nq, nq);
    /*
    ** The equality rows' impulses keep their rates: W_EE p_E = -W_EK p_K,
    ** so the contacts see A = W_KK - W_KE W_EE^-1 W_EK (column-major Z =
    ** W_EE^-1 W_EK, ne x nk).
    */
    for (int a = 0; a < nk; a++)
        for (int b = 0; b < nk; b++)
            im->A[a * nk + b] = im->W[a * n + b];
    if (ne > 0) {
        for (int a = 0; a < ne; a++) {
            for (int b = 0; b < ne; b++)
                im->WE[b * ne + a] = im->W[(nk + a) * n + nk + b];
            for (int b = 0; b < nk; b++)
                im->Z[b * ne + a] = im->W[(nk + a) * n + b];
        }
        if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', ne, im->WE, ne) != 0
            || LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', ne, nk, im->WE, ne, im->Z, ne) != 0)
            return LGC_ERR_RANK_LOST;
        for (int a = 0; a < nk; a++)
            for (int b = 0; b < nk; b++)
                im->A[a * nk + b] -= dot(im->W + (size_t)a * n + nk, im->Z + (size_t)b * ne, ne);
    }
    if ((rc = lgc_lcp_solve(&im->lcp, nk, im->A, im->q, im->z)) != LGC_OK)
        return rc;
    for (int a = 0; a < nk; a++)
        im->impulse[a] = im->z[a];
    for (int a = 0; a < ne; a++) {
        im->impulse[nk + a] = 0.0;
        for (int b = 0; b < nk; b++)
            im->impulse[nk + a] -= im->Z[b * ne + a] * im->z[b];
    }
    for (int a = 0; a < n; a++)
        for (int j = 0; j < nq; j++)
            v[j] += im->impulse[a] * im->Y[(size_t)im->rows[a] * nq + j];
    for (int a = 0; a < nk; a++) {
        const int i = im->rows[a], c = i - first;
        const double after = rate(m, im->res, i) + dot(im->W + (size_t)a * n, im->impulse, n);
        if (!sys->active[i] && (im->z[a] > 0.0 || im->slow[c])) {
            sys->active[i] = im->e[a] == 0.0;
            im->outcome[c] = sys->active[i] ? LGC_CONTACT_RESTS : LGC_CONTACT_BOUNCED;
        } else if (!sys->active[i]) {
            im->outcome[c] = LGC_CONTACT_CLEARS;
        } else if (after > v_rest) {
            sys->active[i] = 0;
            im->outcome[c] = LGC_CONTACT_RELEASED;
        }
    }
    return LGC_OK;
}
