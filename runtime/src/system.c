/* system.c — binding a model to parameters, inputs and gains; rhs wrapper. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kkt_lapack.h"
#include "lagrangec/status.h"
#include "lagrangec/system.h"

/* calloc that never returns NULL for a zero-sized request, so NULL means failure. */
static double *alloc_doubles(int n, const double *init)
{
    double *v = calloc(n > 0 ? (size_t)n : 1, sizeof *v);
    if (v && init && n > 0)
        memcpy(v, init, (size_t)n * sizeof *v);
    return v;
}

int lgc_system_init(lgc_system *sys, const lgc_model *model)
{
    memset(sys, 0, sizeof *sys);
    sys->model = model;
    sys->alpha = model->alpha;
    sys->beta = model->beta;
    sys->p = alloc_doubles(model->np, model->parameter_defaults);
    sys->u = alloc_doubles(model->nu, model->input_defaults);
    sys->work = alloc_doubles(model->nwork, NULL);
    const int switching = model->ncontact > 0 || model->nfriction > 0;
    int lapack = model->kkt_terms && ((!model->straight_line_solve && model->nq >= LGC_LAPACK_MIN_NQ)
                                      || switching);
    if (lapack)
        sys->kkt_work = alloc_doubles((int)lgc_kkt_lapack_size(model), NULL);
    if (switching && (sys->active = malloc((size_t)(model->nh + model->nn))))
        memset(sys->active, 1, (size_t)(model->nh + model->nn));
    if (model->nfriction > 0)
        sys->slide = alloc_doubles(4 * model->nfriction, NULL);
    if (!sys->p || !sys->u || !sys->work || (lapack && !sys->kkt_work)
        || (switching && !sys->active) || (model->nfriction > 0 && !sys->slide)) {
        lgc_system_free(sys);
        return LGC_ERR_NOMEM;
    }
    return LGC_OK;
}

void lgc_system_free(lgc_system *sys)
{
    free(sys->p);
    free(sys->u);
    free(sys->work);
    free(sys->kkt_work);
    free(sys->active);
    free(sys->slide);
    sys->p = sys->u = sys->work = sys->kkt_work = sys->slide = NULL;
    sys->active = NULL;
}

int lgc_system_uses_lapack(const lgc_system *sys)
{
    return sys->kkt_work != NULL;
}

/* The model's, or the LAPACK solve's, conditioning slots (grep tag: WORK-CONDITIONING). */
static const double *conditioning_of(const lgc_system *sys)
{
    const lgc_model *m = sys->model;
    return sys->kkt_work ? lgc_kkt_lapack_conditioning(m, sys->kkt_work)
                         : sys->work + m->work_conditioning;
}

double lgc_system_conditioning(const lgc_system *sys)
{
    return sys->model->nh + sys->model->nn > 0 ? conditioning_of(sys)[0] : 1.0;
}

double lgc_system_inconsistency(const lgc_system *sys)
{
    if (sys->model->nh + sys->model->nn == 0)
        return 0.0;
    const double *c = conditioning_of(sys);
    return c[1] != 0.0 ? c[2] : 0.0;
}

int lgc_system_rhs(lgc_system *sys, double t, const double x[], double dxdt[],
                   double multipliers[])
{
    const lgc_model *m = sys->model;
    sys->nfev++;
    int rc = lgc_model_status(
        sys->kkt_work ? lgc_kkt_lapack_rhs(m, sys->kkt_work, t, x, sys->u, sys->p, sys->alpha,
                                           sys->beta, sys->active, sys->slide, dxdt, multipliers)
                      : m->rhs(t, x, sys->u, sys->p, sys->alpha, sys->beta, dxdt, multipliers,
                               sys->work));
    if (rc != LGC_OK)
        return rc;
    if (m->nh + m->nn > 0 && conditioning_of(sys)[1] != 0.0)
        sys->nfev_min_norm++;
    for (int i = 0; i < m->nx; i++)
        if (!isfinite(dxdt[i]))
            return LGC_ERR_NONFINITE;
    return LGC_OK;
}

double lgc_contact_tolerance(const lgc_model *m, const double x[])
{
    double scale = 1.0;
    for (int i = 0; i < 2 * m->nq; i++)
        scale = fmax(scale, fabs(x[i]));
    return 1e-10 * scale;
}

void lgc_contacts_touching(lgc_system *sys, double t, const double x[], double phi[])
{
    const lgc_model *m = sys->model;
    if (!sys->active)
        return;
    m->residuals(t, x, sys->p, phi, phi + m->nh, phi + 2 * m->nh);
    const double tol = lgc_contact_tolerance(m, x);
    for (int c = m->nh - m->ncontact; c < m->nh; c++)
        sys->active[c] = phi[c] <= tol;
}

int lgc_row_off(const lgc_system *sys, int i)
{
    const lgc_model *m = sys->model;
    if (!sys->active)
        return 0;
    const int row = i < 2 * m->nh ? i % m->nh : i - m->nh;   /* phi and phi' rows alike; g's follow */
    return !sys->active[row];
}

/*
** The constraint error e (phi, or z = ∫g) obeys e'' + alpha e' + beta e = 0;
** a double root at -w, (s + w)^2 = s^2 + 2w s + w^2, damps it critically.
** w = kappa/h ties the decay to the step: the error the integrator makes in
** one step is pulled back over ~1/kappa steps. kappa must stay well below 1:
** RK4's stages leave the constraint manifold by O(h^2), and gains of order
** 1/h, 1/h^2 turn those stage excursions into spurious accelerations (at
** kappa = 0.5 the drift and energy error were 100x worse than without
** stabilisation). kappa = 0.02 was the best or near-best choice on the
** pendulum, double pendulum and slider-crank at h = 1e-2 and 1e-3.
*/
void lgc_baumgarte_auto(double h, double *alpha, double *beta)
{
    double w = LGC_BAUMGARTE_KAPPA / h;
    *alpha = 2.0 * w;
    *beta = w * w;
}

int lgc_model_status(int model_rc)
{
    switch (model_rc) {
    case LGC_MODEL_OK: return LGC_OK;
    case LGC_MODEL_SINGULAR_MASS: return LGC_ERR_SINGULAR_MASS;
    case LGC_MODEL_SINGULAR_CONSTRAINTS: return LGC_ERR_RANK_LOST;
    case LGC_MODEL_FRICTION_INCONSISTENT: return LGC_ERR_FRICTION;
    default: return LGC_ERR_MODEL;
    }
}

int lgc_name_index(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}
