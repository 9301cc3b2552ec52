/*
** lagrangec_adapter.c — bench_call for a lagrangec-generated model: NAME_rhs;
** with -DBENCH_JACOBIAN, NAME_rhs and then NAME_jacobian at the same state
** (what an implicit step asks at each Newton iterate), and with
** -DBENCH_JACOBIAN_ONLY the Jacobian alone (tests/bench/jacobian_ir.sh).
** Compile with -DMODEL=chain_a4 -DUMODEL=CHAIN_A4 and -include chain_a4.h.
** With -DBENCH_PRINT_DXDT it is a program of its own, without bench_rhs.c:
** dx/dt at the benchmark state, one entry a line (articulated_bench.py checks
** Simbody's q'' against it).
*/
#include <stddef.h>
#ifdef BENCH_PRINT_DXDT
#include <stdio.h>
#endif

#include "bench_call.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* -DBENCH_INPUTS=NAME_input_defaults for a model with inputs (a URDF's efforts). */
#ifndef BENCH_INPUTS
#define BENCH_INPUTS NULL
#endif

#ifdef BENCH_JACOBIAN_ONLY
#define BENCH_JACOBIAN
#endif

#define NX CAT(UMODEL, _NX)
#ifdef BENCH_JACOBIAN
static double work[CAT(UMODEL, _NWORK_JACOBIAN)];
static double dfdx[NX * NX], dfdu[NX * CAT(UMODEL, _NU_ARRAY)];
#else
static double work[CAT(UMODEL, _NWORK) + 1];
#endif
static double dxdt[NX];
double bench_state[NX], bench_param[CAT(UMODEL, _NP) + 1];

void bench_setup(void)
{
    int i;
    for (i = 0; i < NX; ++i) bench_state[i] = CAT(MODEL, _initial_state)[i];
    for (i = 0; i < CAT(UMODEL, _NP); ++i) bench_param[i] = CAT(MODEL, _param_defaults)[i];
}

int bench_call(void)
{
    int status = 0;
    /* The spec's gains, as the runtime would pass them. */
#ifndef BENCH_JACOBIAN_ONLY
    status = CAT(MODEL, _rhs)(0.0, bench_state, BENCH_INPUTS, bench_param, 10.0, 25.0, dxdt, NULL, work);
#endif
#ifdef BENCH_JACOBIAN
    if (status == 0)
        status = CAT(MODEL, _jacobian)(0.0, bench_state, BENCH_INPUTS, bench_param, 10.0, 25.0, dfdx, dfdu, work);
#endif
    return status;
}

/* dx/dt's last entry; with the Jacobian, a weighted sum of df/dx and dx/dt,
   so that any entry changed shows. */
double bench_result(void)
{
#ifdef BENCH_JACOBIAN
    double s = 0;
    int i;
    for (i = 0; i < NX * NX; ++i) s += (1 + i % 7) * dfdx[i];
    for (i = 0; i < NX; ++i) s += (1 + i % 5) * dxdt[i];
    return s;
#else
    return dxdt[NX - 1];
#endif
}

#ifdef BENCH_PRINT_DXDT
int main(void)
{
    int i, status;
    bench_setup();
    status = bench_call();
    for (i = 0; i < NX; ++i) printf("%.17g\n", dxdt[i]);
    return status != 0;
}
#endif
