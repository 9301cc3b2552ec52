/* control.c — step-size control for embedded Runge–Kutta pairs. */
#include <float.h>
#include <math.h>

#include "lagrangec/control.h"

void lgc_control_init(lgc_control *c, double rtol, double atol)
{
    c->rtol = rtol;
    c->atol = atol;
    c->safety = 0.9;
    c->min_factor = 0.2;
    c->max_factor = 10.0;
}

double lgc_control_error_norm(const lgc_control *c, int n, const double x0[],
                              const double x1[], const double err[], double *roundoff)
{
    double sum = 0.0, size = 0.0;
    for (int i = 0; i < n; i++) {
        double m = fmax(fabs(x0[i]), fabs(x1[i]));
        double sk = c->atol + c->rtol * m;
        if (!(sk > 0.0)) {      /* atol = 0 and x_i = 0: no error is small enough */
            size = INFINITY;
            continue;
        }
        double w = 1.0 / sk;
        double r = err[i] * w, s = m * w;
        sum += r * r;
        size += s * s;
    }
    if (roundoff)
        *roundoff = n > 0 ? DBL_EPSILON * sqrt(size / n) : 0.0;
    return n > 0 ? sqrt(sum / n) : 0.0;
}

/* The error of a step of order q scales as h^(q+1): aim for err = safety^(q+1). */
double lgc_control_next_h(const lgc_control *c, double h, double err, int q)
{
    double factor = err > 0.0 ? c->safety * pow(err, -1.0 / (q + 1)) : c->max_factor;
    factor = fmin(c->max_factor, fmax(c->min_factor, factor));
    return h * factor;
}
