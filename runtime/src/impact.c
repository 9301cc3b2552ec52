/* impact.c — Newton's impact law through a contact's row, in the mass metric. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "impact.h"
#include "lagrangec/status.h"

int lgc_impact_init(lgc_impact *im, const lgc_model *m)
{
    const size_t nq = (size_t)m->nq, nc = (size_t)(m->nh + m->nn);
    memset(im, 0, sizeof *im);
    if (m->ncontact == 0)
        return LGC_OK;
    if (!(im->M = malloc((nq * nq + nc * nq + nq + (size_t)m->nx + 3 * nc + nq + (size_t)m->nn + 1)
                         * sizeof *im->M)))
        return LGC_ERR_NOMEM;
    im->C = im->M + nq * nq;
    im->y = im->C + nc * nq;
    im->dxdt = im->y + nq;
    im->res = im->dxdt + m->nx;
    im->f = im->res + nc + m->nh;
    return LGC_OK;
}

void lgc_impact_free(lgc_impact *im)
{
    free(im->M);
    memset(im, 0, sizeof *im);
}

static double dot(const double a[], const double b[], int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

int lgc_impact_apply(lgc_impact *im, lgc_system *sys, double t, double x[], int row,
                     double v_rest, double h, int *bounced)
{
    const lgc_model *m = sys->model;
    const int nq = m->nq;
    double *v = x + nq;
    const double *J = im->C + (size_t)row * nq;
    *bounced = 0;
    m->mass_matrix(t, x, sys->p, im->M);
    m->constraint_jacobian(t, x, sys->p, im->C);
    /*
    ** y = M^-1 J^T. M is symmetric, so its row-major array is its column-major
    ** one: the _work call on it copies nothing (a row-major call would
    ** allocate a transpose, inside a step).
    */
    memcpy(im->y, J, (size_t)nq * sizeof *im->y);
    if (LAPACKE_dposv_work(LAPACK_COL_MAJOR, 'U', nq, 1, im->M, nq, im->y, nq) != 0)
        return LGC_ERR_SINGULAR_MASS;
    const double w = dot(J, im->y, nq), vn = dot(J, v, nq);
    if (!(w > 0.0))
        return LGC_ERR_RANK_LOST;
    if (vn >= 0.0)
        return LGC_OK;  /* phi at 0, but not closing: no impulse, still apart */
    /*
    ** phi'' with the row off, J q'' + c (c from the stabilised right-hand
    ** side r = -c - alpha phi' - beta phi): below 0, the row is pushed
    ** into contact; its normal deceleration bounds a rebound's flight.
    */
    unsigned long nfev = sys->nfev;
    int rc = lgc_system_rhs(sys, t, x, im->dxdt, NULL);
    sys->nfev = nfev;
    if (rc != LGC_OK)
        return rc;
    double *phi = im->res, *r = im->f + nq;
    m->kkt_terms(t, x, sys->u, sys->p, sys->alpha, sys->beta, im->M, im->f, im->C, r, r + m->nh + m->nn);
    m->residuals(t, x, sys->p, phi, phi + m->nh, phi + 2 * m->nh);
    m->constraint_jacobian(t, x, sys->p, im->C);     /* kkt_terms wrote J there too */
    const double phi_dd = dot(J, im->dxdt + nq, nq) - r[row] - sys->alpha * phi[m->nh + row]
                          - sys->beta * phi[row];
    const double rebound = m->restitution * fabs(vn), pressed = fmax(0.0, -phi_dd);
    int stays;
    if (fabs(vn) <= v_rest) {
        if (!(phi_dd < 0.0))
            return LGC_OK;  /* a graze it moves away from: no impact, still apart */
        stays = 1;
    } else {
        stays = rebound <= v_rest || rebound <= pressed * h;
    }
    const double e = stays ? 0.0 : m->restitution;
    for (int i = 0; i < nq; i++)
        v[i] -= (1.0 + e) * vn / w * im->y[i];
    sys->active[row] = (unsigned char)stays;
    *bounced = !stays;
    return LGC_OK;
}
