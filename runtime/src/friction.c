/*
** friction.c — Coulomb friction contacts: sticking and sliding, and the
** switches between them (docs/commands.md, "Friction").
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "friction.h"
#include "lagrangec/status.h"

/* A slip acceleration this small against the accelerations' size is 0 (slides_along). */
#define SLIP_ROUND_OFF 1e-9

int lgc_friction_init(lgc_friction *fr, const lgc_model *m)
{
    const size_t nf = (size_t)m->nfriction, nc = (size_t)(m->nh + m->nn);
    memset(fr, 0, sizeof *fr);
    if (nf == 0)
        return LGC_OK;
    const size_t nq = (size_t)m->nq;
    fr->dxdt = malloc(((size_t)m->nx + nc + nf + nf * nc + 2 * (size_t)m->nh + (size_t)m->nn + nq * nq + nq
                       + nc * nq + nc + (size_t)m->nn + nf) * sizeof *fr->dxdt);
    fr->outcome = calloc(nf, 1);
    if (!fr->dxdt || !fr->outcome) {
        lgc_friction_free(fr);
        return LGC_ERR_NOMEM;
    }
    fr->mult = fr->dxdt + m->nx;
    fr->normal = fr->mult + nc;
    fr->normal_rate = fr->normal + nf;
    fr->res = fr->normal_rate + nf * nc;
    fr->M = fr->res + 2 * m->nh + m->nn;
    fr->f = fr->M + nq * nq;
    fr->J = fr->f + nq;
    fr->r = fr->J + nc * nq;
    fr->g = fr->r + nc;
    fr->margin = fr->g + m->nn;
    return LGC_OK;
}

void lgc_friction_free(lgc_friction *fr)
{
    free(fr->dxdt);
    free(fr->outcome);
    memset(fr, 0, sizeof *fr);
}

int lgc_friction_coefficients(lgc_system *sys)
{
    const lgc_model *m = sys->model;
    const int nf = m->nfriction;
    if (nf == 0)
        return LGC_OK;
    double *mu_static = sys->slide + 2 * nf, *mu_kinetic = mu_static + nf;
    m->friction_coefficients(sys->p, mu_static, mu_kinetic);
    for (int k = 0; k < nf; k++)
        if (!(mu_kinetic[k] >= 0.0 && mu_kinetic[k] <= mu_static[k]))
            return LGC_ERR_FRICTION_COEFFICIENT;
    return LGC_OK;
}

static const int *slip_rows(const lgc_model *m, int k)
{
    return m->friction_slip_rows + 2 * k;
}

/* Contact k's slip s (its second 0 for a planar contact) from residuals res = [phi; phi'; g]. */
static void slip_of(const lgc_model *m, int k, const double res[], double s[2])
{
    const int *rows = slip_rows(m, k);
    for (int j = 0; j < 2; j++)
        s[j] = rows[j] >= 0 ? res[m->nh + rows[j]] : 0.0;   /* g follows phi and phi' */
}

/* It sticks: its slip rows held, their integrals ∫g from 0. */
static void stick(lgc_system *sys, int k, double x[])
{
    const lgc_model *m = sys->model;
    const int *rows = slip_rows(m, k);
    for (int j = 0; j < 2 && rows[j] >= 0; j++) {
        sys->active[rows[j]] = 1;
        x[2 * m->nq + rows[j] - m->nh] = 0.0;
    }
    sys->slide[2 * k] = sys->slide[2 * k + 1] = 0.0;
}

/* It slides along d (unit; not both 0): its slip rows dropped. */
static void slide(lgc_system *sys, int k, const double d[2])
{
    const int *rows = slip_rows(sys->model, k);
    for (int j = 0; j < 2 && rows[j] >= 0; j++)
        sys->active[rows[j]] = 0;
    sys->slide[2 * k] = d[0];
    sys->slide[2 * k + 1] = d[1];
}

/* The unit vector along v, or along (1, 0) where v is 0. */
static void direction(const double v[2], double d[2])
{
    const double n = hypot(v[0], v[1]);
    d[0] = n > 0.0 ? v[0] / n : 1.0;
    d[1] = n > 0.0 ? v[1] / n : 0.0;
}

/* rhs at (t, x) in the modes as they are: the multipliers into fr->mult, not counted as integration work. */
static int multipliers(lgc_friction *fr, lgc_system *sys, double t, const double x[])
{
    const unsigned long nfev = sys->nfev;
    int rc = lgc_system_rhs(sys, t, x, fr->dxdt, fr->mult);
    sys->nfev = nfev;
    return rc;
}

/* Contact k's normal force N0 + dN . mult, from friction_normal's normal and normal_rate. */
static double normal_at(const lgc_model *m, const double normal[], const double normal_rate[], int k,
                        const double mult[])
{
    const int nc = m->nh + m->nn;
    double N = normal[k];
    for (int c = 0; c < nc; c++)
        N += normal_rate[(size_t)k * nc + c] * mult[c];
    return N;
}

static double normal_force(const lgc_friction *fr, const lgc_model *m, int k, const double mult[])
{
    return normal_at(m, fr->normal, fr->normal_rate, k, mult);
}

void lgc_friction_direction(const lgc_model *m, const double slide[], int k, const double g[], double d[2])
{
    const int *rows = slip_rows(m, k);
    d[0] = slide[2 * k];
    d[1] = slide[2 * k + 1];
    if (rows[1] >= 0) {
        const double s[2] = {g[rows[0] - m->nh], g[rows[1] - m->nh]};
        if (s[0] * d[0] + s[1] * d[1] > 0.0)
            direction(s, d);
    }
}

static void friction_force(const lgc_model *m, int k, const double mult[], double f[2])
{
    const int *rows = slip_rows(m, k);
    for (int j = 0; j < 2; j++)
        f[j] = rows[j] >= 0 ? mult[rows[j]] : 0.0;
}

/*
** Contact k's slip acceleration s' at (t, x) in the modes as they are,
** from rhs's accelerations a: s' = B a + c, c from the stabilised right
** side r = -c - alpha g - beta z of its rows.
*/
static int slip_acceleration(lgc_friction *fr, lgc_system *sys, int k, double t, const double x[], double out[2])
{
    const lgc_model *m = sys->model;
    const int nq = m->nq, *rows = slip_rows(m, k);
    int rc = multipliers(fr, sys, t, x);
    if (rc != LGC_OK)
        return rc;
    m->kkt_terms(t, x, sys->u, sys->p, sys->alpha, sys->beta, fr->M, fr->f, fr->J, fr->r, fr->g);
    for (int j = 0; j < 2; j++) {
        out[j] = 0.0;
        if (rows[j] < 0)
            continue;
        const int n = rows[j] - m->nh;   /* among the nonholonomic rows */
        for (int i = 0; i < nq; i++)
            out[j] += fr->J[(size_t)rows[j] * nq + i] * fr->dxdt[nq + i];
        out[j] -= fr->r[rows[j]] + sys->alpha * fr->g[n] + sys->beta * x[2 * nq + n];
    }
    return LGC_OK;
}

/*
** It slides along d if its slip then grows along d (s' . d >= 0): the
** friction against the slip is consistent with it. 1 when so; else it is
** left sticking. Where mu_k = mu_s, s' is 0 at the break itself, to the
** round-off of the accelerations: that is not turning back.
*/
static int slides_along(lgc_friction *fr, lgc_system *sys, int k, double t, double x[], const double d[2],
                        int *rc)
{
    const lgc_model *m = sys->model;
    double a[2], scale = 1.0;
    slide(sys, k, d);
    if ((*rc = slip_acceleration(fr, sys, k, t, x, a)) != LGC_OK)
        return 0;
    for (int i = 0; i < m->nq; i++)
        scale = fmax(scale, fabs(fr->dxdt[m->nq + i]));
    if (a[0] * d[0] + a[1] * d[1] >= -SLIP_ROUND_OFF * scale)
        return 1;
    stick(sys, k, x);
    return 0;
}

int lgc_friction_break(lgc_friction *fr, lgc_system *sys, int k, double t, double x[])
{
    const lgc_model *m = sys->model;
    int rc = multipliers(fr, sys, t, x);
    if (rc != LGC_OK)
        return rc;
    double f[2], d[2];
    friction_force(m, k, fr->mult, f);
    f[0] = -f[0], f[1] = -f[1];     /* it slides the way the friction it needed held it from */
    direction(f, d);
    fr->outcome[k] = LGC_FRICTION_SLIDES;
    fr->margin[k] = lgc_contact_tolerance(m, x);
    if (slides_along(fr, sys, k, t, x, d, &rc) || rc != LGC_OK)
        return rc;
    /*
    ** Where the normal force scales the friction (it is a multiplier), sliding
    ** may change it so that the slip turns back: a planar contact may slide
    ** the other way; with neither, no mode is consistent (Painleve).
    */
    d[0] = -d[0], d[1] = -d[1];
    if (m->friction_slip_rows[2 * k + 1] < 0 && (slides_along(fr, sys, k, t, x, d, &rc) || rc != LGC_OK))
        return rc;
    return LGC_ERR_FRICTION;
}

int lgc_friction_settle(lgc_friction *fr, lgc_system *sys, int k, double t, double x[])
{
    const lgc_model *m = sys->model;
    const int was_sliding = lgc_sliding(sys->slide, k);
    stick(sys, k, x);
    fr->margin[k] = 0.0;
    int rc = multipliers(fr, sys, t, x);
    if (rc != LGC_OK)
        return rc;
    m->friction_normal(t, x, sys->u, sys->p, fr->normal, fr->normal_rate);
    double f[2];
    friction_force(m, k, fr->mult, f);
    const double N = normal_force(fr, m, k, fr->mult), mu_static = sys->slide[2 * m->nfriction + k];
    if (N > 0.0 && hypot(f[0], f[1]) <= mu_static * N) {
        fr->outcome[k] = was_sliding ? LGC_FRICTION_STICKS : LGC_FRICTION_UNCHANGED;
        return LGC_OK;
    }
    return lgc_friction_break(fr, sys, k, t, x);
}

int lgc_friction_start(lgc_friction *fr, lgc_system *sys, double t, double x[], double tol)
{
    const lgc_model *m = sys->model;
    int rc = LGC_OK;
    for (int k = 0; k < m->nfriction && rc == LGC_OK; k++) {
        double s[2], d[2];
        m->residuals(t, x, sys->p, fr->res, fr->res + m->nh, fr->res + 2 * m->nh);
        slip_of(m, k, fr->res, s);
        fr->outcome[k] = LGC_FRICTION_UNCHANGED;
        if (hypot(s[0], s[1]) <= tol) {
            rc = lgc_friction_settle(fr, sys, k, t, x);
        } else {
            direction(s, d);
            slide(sys, k, d);
            fr->margin[k] = 0.0;
        }
    }
    return rc;
}

int lgc_friction_start_run(lgc_friction *fr, lgc_system *sys, double t, double x[], double res[])
{
    lgc_contacts_touching(sys, t, x, res);
    int rc = lgc_friction_coefficients(sys);
    return rc == LGC_OK ? lgc_friction_start(fr, sys, t, x, lgc_contact_tolerance(sys->model, x)) : rc;
}

int lgc_system_start_modes(lgc_system *sys, double t, double x[])
{
    const lgc_model *m = sys->model;
    lgc_friction fr;
    double *res = malloc((size_t)(2 * m->nh + m->nn + 1) * sizeof *res);
    int rc = res ? lgc_friction_init(&fr, m) : LGC_ERR_NOMEM;
    if (rc == LGC_OK) {
        rc = lgc_friction_start_run(&fr, sys, t, x, res);
        lgc_friction_free(&fr);
    }
    free(res);
    return rc;
}

void lgc_friction_indicators(lgc_friction *fr, const lgc_system *sys, double t, const double x[],
                             const double mult[], double out[])
{
    const lgc_model *m = sys->model;
    if (m->nfriction == 0)
        return;
    m->residuals(t, x, sys->p, fr->res, fr->res + m->nh, fr->res + 2 * m->nh);
    m->friction_normal(t, x, sys->u, sys->p, fr->normal, fr->normal_rate);
    for (int k = 0; k < m->nfriction; k++) {
        double s[2], f[2];
        if (lgc_sliding(sys->slide, k)) {
            slip_of(m, k, fr->res, s);
            out[k] = s[0] * sys->slide[2 * k] + s[1] * sys->slide[2 * k + 1] + fr->margin[k];
        } else {
            friction_force(m, k, mult, f);
            out[k] = sys->slide[2 * m->nfriction + k] * normal_force(fr, m, k, mult) - hypot(f[0], f[1]);
        }
    }
}

void lgc_friction_reference(lgc_friction *fr, lgc_system *sys, double t, const double x[])
{
    const lgc_model *m = sys->model;
    if (m->nfriction == 0)
        return;
    m->residuals(t, x, sys->p, fr->res, fr->res + m->nh, fr->res + 2 * m->nh);
    for (int k = 0; k < m->nfriction; k++) {
        double s[2];
        slip_of(m, k, fr->res, s);
        if (slip_rows(m, k)[1] >= 0 && lgc_sliding(sys->slide, k) && hypot(s[0], s[1]) > 0.0)
            direction(s, sys->slide + 2 * k);
    }
}

void lgc_friction_clear(lgc_friction *fr, const lgc_system *sys, double indicators[])
{
    for (int k = 0; k < sys->model->nfriction; k++)
        if (fr->margin[k] > 0.0 && lgc_sliding(sys->slide, k) && indicators[k] > 2.0 * fr->margin[k]) {
            indicators[k] -= fr->margin[k];
            fr->margin[k] = 0.0;
        }
}

double lgc_friction_mode(const lgc_system *sys, int k)
{
    if (!lgc_sliding(sys->slide, k))
        return 0.0;
    return sys->model->friction_slip_rows[2 * k + 1] < 0 && sys->slide[2 * k] < 0.0 ? -1.0 : 1.0;
}

void lgc_friction_sliding_forces(const lgc_system *sys, double t, const double x[], const double g[],
                                 double mult[], double normal[], double normal_rate[])
{
    const lgc_model *m = sys->model;
    const int nf = m->nfriction;
    if (nf == 0)
        return;
    m->friction_normal(t, x, sys->u, sys->p, normal, normal_rate);
    for (int k = 0; k < nf; k++)    /* each N from rhs's multipliers, before any slip's is written */
        normal[k] = normal_at(m, normal, normal_rate, k, mult);
    for (int k = 0; k < nf; k++) {
        if (!lgc_sliding(sys->slide, k))
            continue;
        const int *rows = slip_rows(m, k);
        double d[2];
        lgc_friction_direction(m, sys->slide, k, g, d);
        for (int j = 0; j < 2 && rows[j] >= 0; j++)
            mult[rows[j]] = -sys->slide[3 * nf + k] * normal[k] * d[j];
    }
}
