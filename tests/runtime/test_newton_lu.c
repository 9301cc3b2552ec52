/*
** test_newton_lu.c — the LU that solves CVODE's Newton systems
** (runtime/src/newton_lu.c) against residuals: random systems of every size
** up to 12, some with zero diagonals (pivoting needed), and a singular one.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "check.h"
#include "newton_lu.h"

/* A number in [-1/2, 1/2) from a linear congruential generator: the same on every machine. */
static double uniform(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (double)(*seed >> 8) / 16777216.0 - 0.5;
}

/* |A x - b|_inf / (|A|_inf |x|_inf) for the solver's x of A x = b, A random (zero diagonal if asked). */
static double relative_residual(SUNContext ctx, int n, int zero_diagonal, unsigned *seed)
{
    SUNMatrix A = SUNDenseMatrix(n, n, ctx), A0 = SUNDenseMatrix(n, n, ctx);
    N_Vector x = N_VNew_Serial(n, ctx), b = N_VNew_Serial(n, ctx);
    SUNLinearSolver S = lgc_newton_lu(n, ctx);
    assert_non_null(S);
    double norm_a = 0.0, norm_x = 0.0, worst = 0.0;
    for (int i = 0; i < n; i++) {
        double row = 0.0;
        for (int j = 0; j < n; j++) {
            double v = zero_diagonal && i == j ? 0.0 : uniform(seed);
            SM_ELEMENT_D(A, i, j) = SM_ELEMENT_D(A0, i, j) = v;
            row += fabs(v);
        }
        norm_a = fmax(norm_a, row);
        NV_Ith_S(b, i) = uniform(seed);
    }
    assert_int_equal(SUNLinSolSetup(S, A), SUNLS_SUCCESS);
    assert_int_equal(SUNLinSolSolve(S, A, x, b, 0.0), SUNLS_SUCCESS);
    for (int i = 0; i < n; i++) {
        double r = -NV_Ith_S(b, i);
        for (int j = 0; j < n; j++)
            r += SM_ELEMENT_D(A0, i, j) * NV_Ith_S(x, j);
        worst = fmax(worst, fabs(r));
        norm_x = fmax(norm_x, fabs(NV_Ith_S(x, i)));
    }
    SUNLinSolFree(S);
    SUNMatDestroy(A);
    SUNMatDestroy(A0);
    N_VDestroy(x);
    N_VDestroy(b);
    return worst / (norm_a * norm_x);
}

static void solves_to_round_off(void **state)
{
    (void)state;
    SUNContext ctx;
    assert_int_equal(SUNContext_Create(NULL, &ctx), 0);
    unsigned seed = 14;
    double worst = 0.0;
    for (int n = 1; n <= 12; n++)
        for (int zero_diagonal = 0; zero_diagonal < 2; zero_diagonal++)
            for (int k = 0; k < 20; k++)
                worst = fmax(worst, relative_residual(ctx, n, zero_diagonal && n > 1, &seed));
    print_message("  480 random systems, n = 1..12: largest relative residual %.2e\n", worst);
    assert_le(worst, 1e-14);
    SUNContext_Free(&ctx);
}

/* A zero pivot is CVODE's recoverable failure: it retries with a smaller step. */
static void singular_matrix_is_recoverable(void **state)
{
    (void)state;
    SUNContext ctx;
    assert_int_equal(SUNContext_Create(NULL, &ctx), 0);
    SUNMatrix A = SUNDenseMatrix(3, 3, ctx);
    SUNLinearSolver S = lgc_newton_lu(3, ctx);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            SM_ELEMENT_D(A, i, j) = (double)(i + 1) * (j + 1);   /* rank 1 */
    assert_int_equal(SUNLinSolSetup(S, A), SUNLS_LUFACT_FAIL);
    assert_int_equal(SUNLinSolLastFlag(S), 2);
    SUNLinSolFree(S);
    SUNMatDestroy(A);
    SUNContext_Free(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(solves_to_round_off),
        cmocka_unit_test(singular_matrix_is_recoverable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
