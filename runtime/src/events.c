/* events.c — crossings of a model's event functions located in a step (Illinois). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "lagrangec/status.h"

int lgc_events_init(lgc_events *ev, lgc_system *sys, lgc_friction *friction)
{
    const lgc_model *m = sys->model;
    const int n = m->nevent + m->ncontact + m->nfriction, nx = m->nx;
    memset(ev, 0, sizeof *ev);
    ev->sys = sys;
    ev->friction = friction;
    ev->n = n;
    if (n == 0)
        return LGC_OK;
    double *v = calloc((size_t)(4 * n + 2 * nx + 3 * m->nh + 2 * m->nn + m->ncontact) + 1, sizeof *v);
    if (!v)
        return LGC_ERR_NOMEM;
    ev->g0 = v;
    ev->g1 = ev->g0 + n;
    ev->t_hit = ev->g1 + n;
    ev->g = ev->t_hit + n;
    ev->x = ev->g + n;
    ev->dxdt = ev->x + nx;
    ev->mult = ev->dxdt + nx;
    ev->res = ev->mult + m->nh + m->nn;
    ev->margin = ev->res + 2 * m->nh + m->nn;
    return LGC_OK;
}

void lgc_events_free(lgc_events *ev)
{
    free(ev->g0);
    memset(ev, 0, sizeof *ev);
}

/*
** The event functions at (t, x) into g, with the multipliers of rhs there.
** Evaluations for events are not integration work: nfev stays as it was.
*/
static int values(lgc_events *ev, double t, const double x[], double g[])
{
    lgc_system *sys = ev->sys;
    const lgc_model *m = sys->model;
    unsigned long nfev = sys->nfev;
    int rc = lgc_system_rhs(sys, t, x, ev->dxdt, ev->mult);
    sys->nfev = nfev;
    if (rc != LGC_OK)
        return rc;
    if (m->nevent)
        m->events(t, x, sys->u, sys->p, ev->mult, g);
    if (m->ncontact)
        m->residuals(t, x, sys->p, ev->res, ev->res + m->nh, ev->res + 2 * m->nh);
    for (int c = 0; c < m->ncontact; c++) {
        const int row = m->nh - m->ncontact + c;
        g[m->nevent + c] = sys->active[row] ? ev->mult[row] : ev->res[row] + ev->margin[c];
    }
    lgc_friction_indicators(ev->friction, sys, t, x, ev->mult, g + m->nevent + m->ncontact);
    for (int i = 0; i < ev->n; i++)
        if (!isfinite(g[i]))
            return LGC_ERR_NONFINITE;
    return LGC_OK;
}

int lgc_events_start(lgc_events *ev, double t, const double x[])
{
    return ev->n ? values(ev, t, x, ev->g0) : LGC_OK;
}

void lgc_events_rebound(lgc_events *ev, int c)
{
    double *g = &ev->g0[ev->sys->model->nevent + c];
    if (!(*g > 0.0))
        *g = DBL_MIN;
}

void lgc_events_margin(lgc_events *ev, int c, double margin)
{
    ev->margin[c] = margin;
}

void lgc_events_switched(lgc_events *ev, int k)
{
    double *g = &ev->g0[ev->sys->model->nevent + ev->sys->model->ncontact + k];
    if (!(*g > 0.0))
        *g = DBL_MIN;
}

/*
** Whether function i crosses from a to b (b may be 0: the crossing is at
** the end) in its direction; a contact's or a friction contact's falls.
*/
static int crosses(const lgc_model *m, int i, double a, double b)
{
    const int dir = i < m->nevent ? m->event_direction[i] : -1;
    if (a == 0.0)   /* it crossed at the last step's end, and was seen there */
        return 0;
    if (b != 0.0 && (a < 0.0) == (b < 0.0))
        return 0;
    return dir == 0 || (dir > 0) == (a < 0.0);
}

/*
** The crossing of function i in (t0, t1], ga = g(t0) and gb = g(t1) of
** opposite signs (or gb = 0): Illinois' false position, with a bisection
** whenever two of its steps together fail to halve the bracket (an end
** where g is at its round-off, as a contact's phi just after an impact,
** stalls false position), until the bracket is at the round-off of t. The
** end with the smaller |g|.
*/
static int locate(lgc_events *ev, int i, double t0, double t1, double ga, double gb,
                  lgc_interpolant dense, const void *ctx, double *t_root)
{
    double a = t0, b = t1, width = t1 - t0;
    int side = 0, since = 0, rc = LGC_OK;   /* since: iterations since the bracket last halved */
    for (int iter = 0; iter < 400 && gb != 0.0; iter++) {
        if (b - a <= 4.0 * DBL_EPSILON * fmax(fabs(a), fabs(b)))
            break;
        double c = since >= 2 ? 0.5 * (a + b) : b - gb * (b - a) / (gb - ga);
        if (!(c > a && c < b))
            c = 0.5 * (a + b);
        dense(ctx, (c - t0) / (t1 - t0), ev->x);
        if ((rc = values(ev, c, ev->x, ev->g)) != LGC_OK)
            return rc;
        const double gc = ev->g[i];
        if (gc == 0.0) {
            a = b = c;
            gb = 0.0;
        } else if ((gc < 0.0) == (gb < 0.0)) {
            b = c;
            gb = gc;
            if (side == -1)
                ga *= 0.5;
            side = -1;
        } else {
            a = c;
            ga = gc;
            if (side == +1)
                gb *= 0.5;
            side = +1;
        }
        if (b - a <= 0.5 * width) {
            width = b - a;
            since = 0;
        } else {
            since++;
        }
    }
    *t_root = fabs(ga) < fabs(gb) ? a : b;
    return LGC_OK;
}

int lgc_events_end(lgc_events *ev, double t1, const double x1[], int *cut)
{
    const lgc_model *m = ev->sys->model;
    *cut = 0;
    if (ev->n == 0)
        return LGC_OK;
    int rc = values(ev, t1, x1, ev->g1);
    for (int i = m->nevent; i < ev->n && rc == LGC_OK; i++)
        *cut = *cut || crosses(m, i, ev->g0[i], ev->g1[i]);
    return rc;
}

int lgc_events_step(lgc_events *ev, double t0, double t1, lgc_interpolant dense, const void *dense_ctx,
                    lgc_projector *proj, lgc_event_observer fn, void *fn_ctx, int *halt, double *t_halt)
{
    const lgc_model *m = ev->sys->model;
    int rc;
    *halt = -1;
    *t_halt = NAN;
    if (ev->n == 0)
        return LGC_OK;
    for (int i = 0; i < ev->n; i++) {
        ev->t_hit[i] = NAN;
        if (crosses(m, i, ev->g0[i], ev->g1[i])
            && (rc = locate(ev, i, t0, t1, ev->g0[i], ev->g1[i], dense, dense_ctx,
                            &ev->t_hit[i])) != LGC_OK)
            return rc;
    }
    /* In time order (events in a step are few): report each, up to the first that halts. */
    for (;;) {
        int next = -1;
        for (int i = 0; i < ev->n; i++)
            if (!isnan(ev->t_hit[i]) && (next < 0 || ev->t_hit[i] < ev->t_hit[next]))
                next = i;
        if (next < 0)
            break;
        const double t = ev->t_hit[next];
        ev->t_hit[next] = NAN;
        if (next >= m->nevent || m->event_stop[next]) {
            *halt = next;
            *t_halt = t;
        }
        if (next >= m->nevent)
            break;
        dense(dense_ctx, (t - t0) / (t1 - t0), ev->x);
        int it = 0;
        if ((rc = lgc_project(proj, ev->sys, t, ev->x, &it)) != LGC_OK)
            return rc;
        if (fn && (rc = fn(fn_ctx, next, t, ev->x)) != LGC_OK)
            return rc;
        if (*halt >= 0)
            break;
    }
    /* A contact off that has moved clear of its margin is watched at phi = 0 again. */
    for (int c = 0; c < m->ncontact; c++) {
        const int i = m->nevent + c;
        if (ev->margin[c] > 0.0 && !ev->sys->active[m->nh - m->ncontact + c]
            && ev->g1[i] > 2.0 * ev->margin[c]) {
            ev->g1[i] -= ev->margin[c];
            ev->margin[c] = 0.0;
        }
    }
    if (m->nfriction)
        lgc_friction_clear(ev->friction, ev->sys, ev->g1 + m->nevent + m->ncontact);
    memcpy(ev->g0, ev->g1, (size_t)ev->n * sizeof *ev->g0);
    return LGC_OK;
}
