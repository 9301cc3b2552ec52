/*
** lagrangec_adapter.c — bench_call for a lagrangec-generated model NAME_rhs.
** Compile with -DMODEL=chain_a4 -DUMODEL=CHAIN_A4 and -include chain_a4.h.
*/
#include <stddef.h>

#include "bench_call.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

static double work[CAT(UMODEL, _NWORK) + 1];
static double dxdt[CAT(UMODEL, _NX)];

int bench_call(void)
{
    /* The spec's gains, as the runtime would pass them. */
    return CAT(MODEL, _rhs)(0.0, CAT(MODEL, _initial_state), NULL, CAT(MODEL, _param_defaults),
                            10.0, 25.0, dxdt, NULL, work);
}

double bench_result(void)
{
    return dxdt[CAT(UMODEL, _NX) - 1];
}
