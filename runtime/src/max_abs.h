/*
** max_abs.h — the largest |v[i]|, for residual and tolerance checks across
** the runtime; private to it.
*/
#ifndef LAGRANGEC_MAX_ABS_H
#define LAGRANGEC_MAX_ABS_H

#include <math.h>

/*
** The larger of start and every |v[i]|, NaN once v holds one, so a check
** of the result with isfinite sees it. A plain comparison: no libm call per
** entry on the per-step paths.
*/
static inline double lgc_max_abs(const double v[], int n, double start)
{
    for (int i = 0; i < n; i++) {
        const double a = fabs(v[i]);
        if (a > start || a != a)
            start = a;
    }
    return start;
}

#endif
