/*
** jacobian_adapter.c — bench_call for a lagrangec-generated model: NAME_rhs,
** then NAME_jacobian at the same state (what an implicit step asks at each
** Newton iterate); -DBENCH_JACOBIAN_ONLY leaves the rhs out. Compile with
** -DMODEL=bicycle -DUMODEL=BICYCLE and -include bicycle.h, with bench_rhs.c:
**   valgrind --tool=callgrind --toggle-collect=bench_call ./exe calls 20
** (tests/bench/jacobian_ir.sh builds and runs the three).
*/
#include <stddef.h>

#include "bench_call.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

static double work[CAT(UMODEL, _NWORK_JACOBIAN)];
static double dxdt[CAT(UMODEL, _NX)];
static double dfdx[CAT(UMODEL, _NX) * CAT(UMODEL, _NX)], dfdu[CAT(UMODEL, _NX) * CAT(UMODEL, _NU_ARRAY)];
double bench_state[CAT(UMODEL, _NX)], bench_param[CAT(UMODEL, _NP) + 1];

void bench_setup(void)
{
    int i;
    for (i = 0; i < CAT(UMODEL, _NX); ++i) bench_state[i] = CAT(MODEL, _initial_state)[i];
    for (i = 0; i < CAT(UMODEL, _NP); ++i) bench_param[i] = CAT(MODEL, _param_defaults)[i];
}

int bench_call(void)
{
    int status = 0;
#ifndef BENCH_JACOBIAN_ONLY
    status = CAT(MODEL, _rhs)(0.0, bench_state, NULL, bench_param, 10.0, 25.0, dxdt, NULL, work);
    if (status) return status;
#endif
    return CAT(MODEL, _jacobian)(0.0, bench_state, NULL, bench_param, 10.0, 25.0, dfdx, dfdu, work);
}

/* A weighted sum of df/dx and dx/dt, so that any entry changed shows. */
double bench_result(void)
{
    double s = 0;
    int i;
    for (i = 0; i < CAT(UMODEL, _NX) * CAT(UMODEL, _NX); ++i) s += (1 + i % 7) * dfdx[i];
    for (i = 0; i < CAT(UMODEL, _NX); ++i) s += (1 + i % 5) * dxdt[i];
    return s;
}
