/* rk4.c — the classical fixed-step fourth-order Runge–Kutta stepper. */
#include <stdlib.h>

#include "lagrangec/status.h"
#include "lagrangec/stepper.h"

typedef struct rk4_state {
    int nx;
    double *k, *xt;     /* stage derivative, stage state */
} rk4_state;

static void *rk4_alloc(int nx)
{
    rk4_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->nx = nx;
    s->k = calloc(2 * (size_t)nx, sizeof(double));
    if (!s->k) {
        free(s);
        return NULL;
    }
    s->xt = s->k + nx;
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
    const double *k = dxdt_in;
    int rc;
    (void)yerr;

    if (!k) {
        if ((rc = lgc_system_rhs(sys, t, x, s->k, NULL)) != LGC_OK)
            return rc;
        k = s->k;
    }
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

static void rk4_free(void *state)
{
    rk4_state *s = state;
    if (s)
        free(s->k);
    free(s);
}

static const lgc_stepper_type rk4_type = {
    "rk4", 4, 0, rk4_alloc, rk4_apply, rk4_last_derivative, NULL, NULL, rk4_free
};

const lgc_stepper_type *const lgc_step_rk4 = &rk4_type;
