/*
** sympy_adapter.c — bench_call for SymPy's cse+ccode of M, f, J, r, wrapped
** with the generated code's own KKT solve (dense_kkt.h), as lagrangec's rhs
** does it: zero M and J, fill them, copy q', solve.
** Compile with -DSYMPY_SOURCE='"sympy_angles_4.c"'.
*/
#include <math.h>
#include <stddef.h>

#include "bench_call.h"
#include SYMPY_SOURCE
#include "dense_kkt.h"

#define NCX (NC > 0 ? NC : 1) /* no zero-length arrays in C */

static double M[NQ * NQ], J[NCX * NQ], Y[NCX * NQ], S[NCX * NCX], nu[NCX], w[NQ];
static double dxdt[NX];

int bench_call(void)
{
    const double *state = sympy_initial_state;
    double *acceleration = dxdt + NQ;
    int i;
    for (i = 0; i < NQ * NQ; ++i) M[i] = 0.0;
    for (i = 0; i < NC * NQ; ++i) J[i] = 0.0;
    for (i = 0; i < NQ; ++i) acceleration[i] = 0.0;
    for (i = 0; i < NC; ++i) nu[i] = 0.0;
    sympy_equations(state, sympy_params, M, acceleration, J, nu);
    for (i = 0; i < NQ; ++i) dxdt[i] = state[NQ + i];
    return dense_solve_kkt(M, acceleration, J, nu, Y, S, w);
}

double bench_result(void)
{
    return dxdt[NX - 1];
}
