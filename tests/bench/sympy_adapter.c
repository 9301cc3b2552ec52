/*
** sympy_adapter.c — bench_call for SymPy's cse+ccode of M, f, J, r, wrapped
** with a KKT solve as lagrangec's rhs does it: zero M and J, fill them,
** copy q', solve. Compile with -DSYMPY_SOURCE='"sympy_angles_4.c"' and either
** -DMODEL=chain_a4 -DMODEL_SOURCE='"chain_a4.c"' (the very solve lagrangec
** generated for the same chain: the strict "same solve") or neither (the
** dense loops of dense_kkt.h, what a generic wrapper would do).
*/
#include <math.h>
#include <stddef.h>

#include "bench_call.h"
#include SYMPY_SOURCE
#ifdef MODEL_SOURCE
#include MODEL_SOURCE
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#else
#include "dense_kkt.h"
#endif

#define NCX (NC > 0 ? NC : 1) /* no zero-length arrays in C */

static double M[NQ * NQ], J[NCX * NQ], Y[NCX * NQ], S[NCX * NCX], nu[NCX], w[NQ];
static double dxdt[NX];
double bench_state[NX], bench_param[NP];

void bench_setup(void)
{
    int i;
    for (i = 0; i < NX; ++i) bench_state[i] = sympy_initial_state[i];
    for (i = 0; i < NP; ++i) bench_param[i] = sympy_params[i];
}

/* Out of line, so callgrind can count the solve alone (--toggle-collect=bench_solve). */
__attribute__((noinline)) int bench_solve(double a[]);
__attribute__((noinline)) int bench_solve(double a[])
{
#ifdef MODEL_SOURCE
    int status = CAT(MODEL, _factor_kkt)(M, J, Y, S);
    if (status == 0) CAT(MODEL, _solve_kkt)(M, J, S, a, nu, w);
    return status;
#else
    return dense_solve_kkt(M, a, J, nu, Y, S, w);
#endif
}

int bench_call(void)
{
    const double *state = bench_state;
    double *acceleration = dxdt + NQ;
    int i;
    for (i = 0; i < NQ * NQ; ++i) M[i] = 0.0;
    for (i = 0; i < NC * NQ; ++i) J[i] = 0.0;
    for (i = 0; i < NQ; ++i) acceleration[i] = 0.0;
    for (i = 0; i < NC; ++i) nu[i] = 0.0;
    sympy_equations(state, bench_param, M, acceleration, J, nu);
    for (i = 0; i < NQ; ++i) dxdt[i] = state[NQ + i];
    return bench_solve(acceleration);
}

double bench_result(void)
{
    return dxdt[NX - 1];
}
