/*
** lagrangec_adapter.c — bench_call for a lagrangec-generated model NAME_rhs.
** Compile with -DMODEL=chain_a4 -DUMODEL=CHAIN_A4 and -include chain_a4.h.
*/
#include <stddef.h>

#include "bench_call.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* -DBENCH_INPUTS=NAME_input_defaults for a model with inputs (a URDF's efforts). */
#ifndef BENCH_INPUTS
#define BENCH_INPUTS NULL
#endif

static double work[CAT(UMODEL, _NWORK) + 1];
static double dxdt[CAT(UMODEL, _NX)];
double bench_state[CAT(UMODEL, _NX)], bench_param[CAT(UMODEL, _NP) + 1];

void bench_setup(void)
{
    int i;
    for (i = 0; i < CAT(UMODEL, _NX); ++i) bench_state[i] = CAT(MODEL, _initial_state)[i];
    for (i = 0; i < CAT(UMODEL, _NP); ++i) bench_param[i] = CAT(MODEL, _param_defaults)[i];
}

int bench_call(void)
{
    /* The spec's gains, as the runtime would pass them. */
    return CAT(MODEL, _rhs)(0.0, bench_state, BENCH_INPUTS, bench_param,
                            10.0, 25.0, dxdt, NULL, work);
}

double bench_result(void)
{
    return dxdt[CAT(UMODEL, _NX) - 1];
}
