/*
** dopri5.c — Dormand–Prince 5(4) with its fourth-order continuous extension
** (Hairer, Nørsett & Wanner, Solving ODE I, §II.5-6; the coefficients of
** their DOPRI5 code). First same as last: k7 = f(t + h, xout).
*/
#include <stdlib.h>

#include "lagrangec/status.h"
#include "lagrangec/stepper.h"

static const double c2 = 1.0 / 5, c3 = 3.0 / 10, c4 = 4.0 / 5, c5 = 8.0 / 9;
static const double a21 = 1.0 / 5;
static const double a31 = 3.0 / 40, a32 = 9.0 / 40;
static const double a41 = 44.0 / 45, a42 = -56.0 / 15, a43 = 32.0 / 9;
static const double a51 = 19372.0 / 6561, a52 = -25360.0 / 2187,
                    a53 = 64448.0 / 6561, a54 = -212.0 / 729;
static const double a61 = 9017.0 / 3168, a62 = -355.0 / 33, a63 = 46732.0 / 5247,
                    a64 = 49.0 / 176, a65 = -5103.0 / 18656;
static const double a71 = 35.0 / 384, a73 = 500.0 / 1113, a74 = 125.0 / 192,
                    a75 = -2187.0 / 6784, a76 = 11.0 / 84;
static const double e1 = 71.0 / 57600, e3 = -71.0 / 16695, e4 = 71.0 / 1920,
                    e5 = -17253.0 / 339200, e6 = 22.0 / 525, e7 = -1.0 / 40;
static const double d1 = -12715105075.0 / 11282082432.0,
                    d3 = 87487479700.0 / 32700410799.0,
                    d4 = -10690763975.0 / 1880347072.0,
                    d5 = 701980252875.0 / 199316789632.0,
                    d6 = -1453857185.0 / 822651844.0,
                    d7 = 69997945.0 / 29380423.0;

typedef struct dopri5_state {
    int nx;
    double *k1, *k2, *k3, *k4, *k5, *k6, *k7, *xt;
    double *r1, *r2, *r3, *r4, *r5;     /* dense output coefficients */
} dopri5_state;

enum { NVEC = 13 };

static void *dopri5_alloc(const lgc_stepper_setup *setup)
{
    const int nx = setup->sys->model->nx;
    dopri5_state *s = calloc(1, sizeof *s);
    double *v = s ? calloc((size_t)NVEC * (size_t)(nx > 0 ? nx : 1), sizeof *v) : NULL;
    if (!v) {
        free(s);
        return NULL;
    }
    double **slot[NVEC] = {&s->k1, &s->k2, &s->k3, &s->k4, &s->k5, &s->k6, &s->k7,
                           &s->xt, &s->r1, &s->r2, &s->r3, &s->r4, &s->r5};
    for (int j = 0; j < NVEC; j++)
        *slot[j] = v + (size_t)j * nx;
    s->nx = nx;
    return s;
}

static int dopri5_apply(void *state, lgc_system *sys, double t, double h,
                        const double x[], const double dxdt_in[], double xout[],
                        double yerr[])
{
    dopri5_state *s = state;
    const int n = s->nx;
    double *k1 = s->k1, *k2 = s->k2, *k3 = s->k3, *k4 = s->k4, *k5 = s->k5,
           *k6 = s->k6, *k7 = s->k7, *xt = s->xt;
    int rc;

    if (dxdt_in) {
        for (int i = 0; i < n; i++)
            k1[i] = dxdt_in[i];
    } else if ((rc = lgc_system_rhs(sys, t, x, k1, NULL)) != LGC_OK) {
        return rc;
    }
    for (int i = 0; i < n; i++)
        xt[i] = x[i] + h * a21 * k1[i];
    if ((rc = lgc_system_rhs(sys, t + c2 * h, xt, k2, NULL)) != LGC_OK)
        return rc;
    for (int i = 0; i < n; i++)
        xt[i] = x[i] + h * (a31 * k1[i] + a32 * k2[i]);
    if ((rc = lgc_system_rhs(sys, t + c3 * h, xt, k3, NULL)) != LGC_OK)
        return rc;
    for (int i = 0; i < n; i++)
        xt[i] = x[i] + h * (a41 * k1[i] + a42 * k2[i] + a43 * k3[i]);
    if ((rc = lgc_system_rhs(sys, t + c4 * h, xt, k4, NULL)) != LGC_OK)
        return rc;
    for (int i = 0; i < n; i++)
        xt[i] = x[i] + h * (a51 * k1[i] + a52 * k2[i] + a53 * k3[i] + a54 * k4[i]);
    if ((rc = lgc_system_rhs(sys, t + c5 * h, xt, k5, NULL)) != LGC_OK)
        return rc;
    for (int i = 0; i < n; i++)
        xt[i] = x[i] + h * (a61 * k1[i] + a62 * k2[i] + a63 * k3[i] + a64 * k4[i]
                            + a65 * k5[i]);
    if ((rc = lgc_system_rhs(sys, t + h, xt, k6, NULL)) != LGC_OK)
        return rc;
    for (int i = 0; i < n; i++)
        xout[i] = x[i] + h * (a71 * k1[i] + a73 * k3[i] + a74 * k4[i] + a75 * k5[i]
                              + a76 * k6[i]);
    if ((rc = lgc_system_rhs(sys, t + h, xout, k7, NULL)) != LGC_OK)
        return rc;

    for (int i = 0; i < n; i++) {
        if (yerr)
            yerr[i] = h * (e1 * k1[i] + e3 * k3[i] + e4 * k4[i] + e5 * k5[i]
                           + e6 * k6[i] + e7 * k7[i]);
        double dx = xout[i] - x[i];
        double bspl = h * k1[i] - dx;
        s->r1[i] = x[i];
        s->r2[i] = dx;
        s->r3[i] = bspl;
        s->r4[i] = dx - h * k7[i] - bspl;
        s->r5[i] = h * (d1 * k1[i] + d3 * k3[i] + d4 * k4[i] + d5 * k5[i]
                        + d6 * k6[i] + d7 * k7[i]);
    }
    return LGC_OK;
}

static const double *dopri5_last_derivative(const void *state)
{
    return ((const dopri5_state *)state)->k7;
}

static void dopri5_dense(const void *state, double theta, double xout[])
{
    const dopri5_state *s = state;
    const double theta1 = 1.0 - theta;
    for (int i = 0; i < s->nx; i++)
        xout[i] = s->r1[i] + theta * (s->r2[i] + theta1 * (s->r3[i]
                  + theta * (s->r4[i] + theta1 * s->r5[i])));
}

/*
** The interpolant at theta = 1 is r1 + r2: moving r2 to x1 - r1 adds theta dx
** for a correction dx of the end point. f1 is not used: the shape of the
** fourth-order interpolant stays the one the stages gave.
*/
static void dopri5_set_end(void *state, const double x1[], const double f1[])
{
    dopri5_state *s = state;
    (void)f1;
    for (int i = 0; i < s->nx; i++)
        s->r2[i] = x1[i] - s->r1[i];
}

static void dopri5_free(void *state)
{
    dopri5_state *s = state;
    if (s)
        free(s->k1);
    free(s);
}

static const lgc_stepper_type dopri5_type = {
    .name = "dopri5", .order = 5, .adaptive = 1, .alloc = dopri5_alloc, .free = dopri5_free,
    .dense = dopri5_dense, .apply = dopri5_apply, .last_derivative = dopri5_last_derivative,
    .set_end = dopri5_set_end,
};

const lgc_stepper_type *const lgc_step_dopri5 = &dopri5_type;
