/*
** vector_ops.c — the serial N_Vector operations CVODE calls most, compiled
** with the runtime's flags. Debian's SUNDIALS is built without optimisation
** (-O0): its N_VLinearSum and weighted RMS norm took a fifth of a BDF
** step's instructions on a 5-link chain (docs/work-precision.md). CVODE
** clones its vectors from the one it is given, ops table included.
*/
#include <math.h>

#include <nvector/nvector_serial.h>

#include "vector_ops.h"

/* z = a x + b y */
static void linear_sum(sunrealtype a, N_Vector x, sunrealtype b, N_Vector y, N_Vector z)
{
    const sunindextype n = NV_LENGTH_S(x);
    const sunrealtype *xd = NV_DATA_S(x), *yd = NV_DATA_S(y);
    sunrealtype *zd = NV_DATA_S(z);
    for (sunindextype i = 0; i < n; i++)
        zd[i] = a * xd[i] + b * yd[i];
}

/* z = c x */
static void scale(sunrealtype c, N_Vector x, N_Vector z)
{
    const sunindextype n = NV_LENGTH_S(x);
    const sunrealtype *xd = NV_DATA_S(x);
    sunrealtype *zd = NV_DATA_S(z);
    for (sunindextype i = 0; i < n; i++)
        zd[i] = c * xd[i];
}

static void constant(sunrealtype c, N_Vector z)
{
    const sunindextype n = NV_LENGTH_S(z);
    sunrealtype *zd = NV_DATA_S(z);
    for (sunindextype i = 0; i < n; i++)
        zd[i] = c;
}

/* sqrt(sum (x_i w_i)^2 / n) */
static sunrealtype wrms_norm(N_Vector x, N_Vector w)
{
    const sunindextype n = NV_LENGTH_S(x);
    const sunrealtype *xd = NV_DATA_S(x), *wd = NV_DATA_S(w);
    sunrealtype sum = 0.0;
    for (sunindextype i = 0; i < n; i++) {
        const sunrealtype p = xd[i] * wd[i];
        sum += p * p;
    }
    return sqrt(sum / (sunrealtype)n);
}

void lgc_vector_ops(N_Vector v)
{
    v->ops->nvlinearsum = linear_sum;
    v->ops->nvscale = scale;
    v->ops->nvconst = constant;
    v->ops->nvwrmsnorm = wrms_norm;
}
