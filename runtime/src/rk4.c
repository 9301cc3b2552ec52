/*
** rk4.c — the classical fixed-step fourth-order Runge–Kutta stepper, with a
** cubic Hermite interpolant between its end points: from x and f at both
** ends, fourth-order accurate like the step. f at the end is the next
** step's first stage, so the interpolant costs no evaluation of its own.
*/
#include <stdlib.h>
#include <string.h>

#include "lagrangec/status.h"
#include "lagrangec/stepper.h"

typedef struct rk4_state {
    int nx;
    double h;               /* the last step */
    double *k, *xt;         /* stage derivative, stage state */
    double *x0, *f0;        /* the last step's start and f there */
    double *x1, *f1;        /* its accepted end and f there (set_end) */
} rk4_state;

static void *rk4_alloc(const lgc_stepper_setup *setup)
{
    const int nx = setup->sys->model->nx;
    rk4_state *s = calloc(1, sizeof *s);
    double *v = s ? calloc(6 * (size_t)(nx > 0 ? nx : 1), sizeof *v) : NULL;
    if (!v) {
        free(s);
        return NULL;
    }
    s->nx = nx;
    s->k = v;
    s->xt = s->k + nx;
    s->x0 = s->xt + nx;
    s->f0 = s->x0 + nx;
    s->x1 = s->f0 + nx;
    s->f1 = s->x1 + nx;
    return s;
}

/* Accumulates xout = x + h/6 (k1 + 2k2 + 2k3 + k4) stage by stage. */
static int rk4_apply(void *state, lgc_system *sys, double t, double h,
                     const double x[], const double dxdt_in[], double xout[],
                     double yerr[])
{
    rk4_state *s = state;
    const int n = s->nx;
    const double stage_c[3] = {0.5, 0.5, 1.0};
    const double weight[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
    int rc;
    (void)yerr;

    if (dxdt_in)
        memcpy(s->f0, dxdt_in, (size_t)n * sizeof *s->f0);
    else if ((rc = lgc_system_rhs(sys, t, x, s->f0, NULL)) != LGC_OK)
        return rc;
    memcpy(s->x0, x, (size_t)n * sizeof *s->x0);
    s->h = h;
    const double *k = s->f0;
    for (int i = 0; i < n; i++)
        xout[i] = x[i] + h * weight[0] * k[i];
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < n; i++)
            s->xt[i] = x[i] + stage_c[j] * h * k[i];
        if ((rc = lgc_system_rhs(sys, t + stage_c[j] * h, s->xt, s->k, NULL)) != LGC_OK)
            return rc;
        k = s->k;
        for (int i = 0; i < n; i++)
            xout[i] += h * weight[j + 1] * k[i];
    }
    return LGC_OK;
}

static const double *rk4_last_derivative(const void *state)
{
    (void)state;
    return NULL;
}

static void rk4_set_end(void *state, const double x1[], const double f1[])
{
    rk4_state *s = state;
    memcpy(s->x1, x1, (size_t)s->nx * sizeof *s->x1);
    memcpy(s->f1, f1, (size_t)s->nx * sizeof *s->f1);
}

/* The cubic Hermite basis: h00 x0 + h10 h f0 + h01 x1 + h11 h f1. */
static void rk4_dense(const void *state, double theta, double xout[])
{
    const rk4_state *s = state;
    const double th2 = theta * theta, th3 = th2 * theta;
    const double h00 = 2 * th3 - 3 * th2 + 1, h10 = (th3 - 2 * th2 + theta) * s->h;
    const double h01 = 3 * th2 - 2 * th3, h11 = (th3 - th2) * s->h;
    for (int i = 0; i < s->nx; i++)
        xout[i] = h00 * s->x0[i] + h10 * s->f0[i] + h01 * s->x1[i] + h11 * s->f1[i];
}

static void rk4_free(void *state)
{
    rk4_state *s = state;
    if (s)
        free(s->k);
    free(s);
}

static const lgc_stepper_type rk4_type = {
    .name = "rk4", .order = 4, .adaptive = 0, .alloc = rk4_alloc, .free = rk4_free,
    .dense = rk4_dense, .apply = rk4_apply, .last_derivative = rk4_last_derivative,
    .set_end = rk4_set_end,
};

const lgc_stepper_type *const lgc_step_rk4 = &rk4_type;
