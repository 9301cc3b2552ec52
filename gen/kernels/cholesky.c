// cholesky.c — the dense Cholesky factorisation, its triangular solves and
// S = J M^-1 J^T from them: the dense KKT solve's and the minimum-norm
// solve's. The generator pastes it into a model (gen/emit/paste_kernel.cpp
// says how its words become the model's); tests/gen/test_kernels.c runs it.

/*
** Dense Cholesky factorisation in place: the lower triangle of the n x n
** row-major matrix a becomes L with L L^T = a. Returns 0 when a pivot keeps
** no more than `tolerance` of its diagonal entry: the matrix is singular,
** indefinite, or nearly.
*/
static int PREFIX_cholesky(int n, real a[], real tolerance)
{
    int i, j, k;
    for (j = 0; j < n; ++j) {
        const real scale = a[j*n + j];
        real d = scale;
        for (k = 0; k < j; ++k) d -= a[j*n + k]*a[j*n + k];
        if (!(d > tolerance*scale)) return 0;
        d = sqrt(d);
        a[j*n + j] = d;
        for (i = j + 1; i < n; ++i) {
            real s = a[i*n + j];
            for (k = 0; k < j; ++k) s -= a[i*n + k]*a[j*n + k];
            a[i*n + j] = s/d;
        }
    }
    return 1;
}

/* b := L^-1 b, then, if `transposed_too`, b := L^-T b: with both, b := a^-1 b. */
static void PREFIX_cholesky_solve(int n, const real L[], real b[], int transposed_too)
{
    int i, k;
    for (i = 0; i < n; ++i) {
        real s = b[i];
        for (k = 0; k < i; ++k) s -= L[i*n + k]*b[k];
        b[i] = s/L[i*n + i];
    }
    if (!transposed_too) return;
    for (i = n - 1; i >= 0; --i) {
        real s = b[i];
        for (k = i + 1; k < n; ++k) s -= L[k*n + i]*b[k];
        b[i] = s/L[i*n + i];
    }
}

/*
** M (lower triangle) becomes its factor L, row i of Y becomes L^-1 J_i^T,
** and S's lower triangle Y Y^T = J M^-1 J^T. Returns 0 when M is not
** positive definite.
*/
static int PREFIX_schur_complement(real M[], const real J[], real Y[], real S[])
{
    int i, j, k;
    if (!PREFIX_cholesky(PREFIX_NQ, M, LGC_MASS_PIVOT)) return 0;
    for (i = 0; i < PREFIX_NC; ++i) {
        for (k = 0; k < PREFIX_NQ; ++k) Y[i*PREFIX_NQ + k] = J[i*PREFIX_NQ + k];
        PREFIX_cholesky_solve(PREFIX_NQ, M, Y + i*PREFIX_NQ, 0);
    }
    for (i = 0; i < PREFIX_NC; ++i)
        for (j = 0; j <= i; ++j) {
            real s = 0.0;
            for (k = 0; k < PREFIX_NQ; ++k) s += Y[i*PREFIX_NQ + k]*Y[j*PREFIX_NQ + k];
            S[i*PREFIX_NC + j] = s;
        }
    return 1;
}
