/*
** newton_lu.c — CVODE's Newton systems (I - gamma J) d = r by LU with
** partial pivoting in plain loops. Debian's SUNDIALS is built without
** optimisation (-O0): its dense LU took 22k instructions for a 20 x 20
** matrix, OpenBLAS's dgetrf 36k (its set-up outweighs 2700 multiply-adds);
** these loops take a few thousand (docs/work-precision.md).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "newton_lu.h"

typedef struct newton_lu {
    int n;
    int *pivot;             /* row k was swapped with row pivot[k] */
    sunindextype last;      /* the column of a zero pivot + 1, else 0 */
} newton_lu;

static SUNLinearSolver_Type lu_type(SUNLinearSolver S)
{
    (void)S;
    return SUNLINEARSOLVER_DIRECT;
}

static SUNLinearSolver_ID lu_id(SUNLinearSolver S)
{
    (void)S;
    return SUNLINEARSOLVER_CUSTOM;
}

static int lu_initialize(SUNLinearSolver S)
{
    (void)S;
    return SUNLS_SUCCESS;
}

/*
** A = P L U in place (column-major, L unit lower). A zero pivot is
** recoverable: CVODE retries the step with a smaller one.
*/
static int lu_setup(SUNLinearSolver S, SUNMatrix A)
{
    newton_lu *c = S->content;
    const int n = c->n;
    double *a = SUNDenseMatrix_Data(A);
    for (int k = 0; k < n; k++) {
        double *ak = a + (size_t)k * n;
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(ak[i]) > fabs(ak[p]))
                p = i;
        c->pivot[k] = p;
        if (ak[p] == 0.0) {
            c->last = k + 1;
            return SUNLS_LUFACT_FAIL;
        }
        if (p != k)
            for (int j = 0; j < n; j++) {
                double *aj = a + (size_t)j * n, swap = aj[k];
                aj[k] = aj[p];
                aj[p] = swap;
            }
        const double inv = 1.0 / ak[k];
        for (int i = k + 1; i < n; i++)
            ak[i] *= inv;
        for (int j = k + 1; j < n; j++) {
            double *aj = a + (size_t)j * n;
            const double f = aj[k];
            if (f != 0.0)
                for (int i = k + 1; i < n; i++)
                    aj[i] -= f * ak[i];
        }
    }
    c->last = 0;
    return SUNLS_SUCCESS;
}

/* x = U^-1 L^-1 P b: P as the rows were swapped, whole, in the factorisation. */
static int lu_solve(SUNLinearSolver S, SUNMatrix A, N_Vector x, N_Vector b, sunrealtype tol)
{
    const newton_lu *c = S->content;
    const int n = c->n;
    const double *a = SUNDenseMatrix_Data(A);
    double *v = N_VGetArrayPointer(x);
    (void)tol;
    memcpy(v, N_VGetArrayPointer(b), (size_t)n * sizeof *v);
    for (int k = 0; k < n; k++) {
        const int p = c->pivot[k];
        const double swap = v[p];
        v[p] = v[k];
        v[k] = swap;
    }
    for (int k = 0; k < n; k++) {
        const double *ak = a + (size_t)k * n;
        for (int i = k + 1; i < n; i++)
            v[i] -= v[k] * ak[i];
    }
    for (int k = n - 1; k >= 0; k--) {
        const double *ak = a + (size_t)k * n;
        v[k] /= ak[k];
        for (int i = 0; i < k; i++)
            v[i] -= v[k] * ak[i];
    }
    return SUNLS_SUCCESS;
}

static sunindextype lu_last_flag(SUNLinearSolver S)
{
    return ((newton_lu *)S->content)->last;
}

static int lu_free(SUNLinearSolver S)
{
    if (!S)
        return SUNLS_SUCCESS;
    newton_lu *c = S->content;
    if (c)
        free(c->pivot);
    free(c);
    S->content = NULL;
    SUNLinSolFreeEmpty(S);
    return SUNLS_SUCCESS;
}

SUNLinearSolver lgc_newton_lu(int n, SUNContext ctx)
{
    SUNLinearSolver S = SUNLinSolNewEmpty(ctx);
    newton_lu *c = S ? calloc(1, sizeof *c) : NULL;
    if (S)
        S->content = c;
    if (!c || !(c->pivot = calloc(n > 0 ? (size_t)n : 1, sizeof *c->pivot))) {
        lu_free(S);
        return NULL;
    }
    c->n = n;
    S->ops->gettype = lu_type;
    S->ops->getid = lu_id;
    S->ops->initialize = lu_initialize;
    S->ops->setup = lu_setup;
    S->ops->solve = lu_solve;
    S->ops->lastflag = lu_last_flag;
    S->ops->free = lu_free;
    return S;
}
