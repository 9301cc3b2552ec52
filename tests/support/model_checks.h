/*
** model_checks.h — what the C tests of generated models share: a
** deterministic stream of states, the same on every machine, a parameter's
** default by name, and the generated Jacobian df/dx against central
** differences of the model's rhs.
** Include after <cmocka.h> and lagrangec/lagrangec.h; C and C++.
*/
#ifndef MODEL_CHECKS_H
#define MODEL_CHECKS_H

#include <math.h>
#include <stdlib.h>

/* A number in [lo, hi) from a 64-bit linear congruential stream. */
static inline double uniform(unsigned long *seed, double lo, double hi)
{
    *seed = *seed * 6364136223846793005UL + 1442695040888963407UL;
    return lo + (hi - lo) * (double)(*seed >> 11) / 9007199254740992.0;
}

/* The default of m's parameter `name`; fails the test if m has none. */
static inline double parameter(const lgc_model *m, const char *name)
{
    int i = lgc_name_index(m->parameter_names, m->np, name);
    if (i < 0) fail_msg("%s has no parameter %s", m->name, name);
    return m->parameter_defaults[i];
}

/*
** m's generated df/dx at the state x (inputs and parameters at their
** defaults) against central differences of its rhs with the step
** 1e-6 (1 + |x_j|): the largest difference, relative to the largest entry
** of the differences. Fails the test, naming the model and the state's
** number `which`, where jacobian or rhs does not return LGC_MODEL_OK.
*/
static inline double jacobian_relative_error(const lgc_model *m, double x[], int which)
{
    const int nx = m->nx;
    double *up = (double *)calloc(nx, sizeof *up), *down = (double *)calloc(nx, sizeof *down);
    double *dfdx = (double *)calloc((size_t)nx * nx, sizeof *dfdx);
    double *dfdu = (double *)calloc((size_t)m->nu * nx + 1, sizeof *dfdu);
    double *work = (double *)calloc(m->nwork_jacobian + m->nwork + 1, sizeof *work);
    int rc = m->jacobian(0.0, x, m->input_defaults, m->parameter_defaults, m->alpha, m->beta, dfdx, dfdu, work);
    if (rc != LGC_MODEL_OK) fail_msg("%s, state %d: jacobian returned %d", m->name, which, rc);
    double largest = 0.0, error = 0.0;
    for (int j = 0; j < nx; ++j) {
        const double h = 1e-6 * (1.0 + fabs(x[j])), xj = x[j];
        x[j] = xj + h;
        const int rc_up = m->rhs(0.0, x, m->input_defaults, m->parameter_defaults, m->alpha, m->beta, up, NULL, work);
        x[j] = xj - h;
        const int rc_down =
            m->rhs(0.0, x, m->input_defaults, m->parameter_defaults, m->alpha, m->beta, down, NULL, work);
        x[j] = xj;
        if (rc_up != LGC_MODEL_OK || rc_down != LGC_MODEL_OK)
            fail_msg("%s, state %d: rhs returned %d and %d about x[%d]", m->name, which, rc_up, rc_down, j);
        for (int i = 0; i < nx; ++i) {
            const double difference = (up[i] - down[i]) / (2 * h);
            largest = fmax(largest, fabs(difference));
            error = fmax(error, fabs(dfdx[i * nx + j] - difference));
        }
    }
    free(up), free(down), free(dfdx), free(dfdu), free(work);
    if (!(largest > 0.0)) fail_msg("%s, state %d: the central differences of rhs are all 0", m->name, which);
    return error / largest;
}

#endif
