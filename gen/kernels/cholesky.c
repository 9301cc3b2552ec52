// cholesky.c — the dense Cholesky factorisation and its triangular solves:
// the dense KKT solve's and the minimum-norm solve's (with
// schur_complement.c), and S's of a tree's rows on the recursion. The
// generator pastes it into a model (gen/emit/paste_kernel.cpp says how its
// words become the model's); tests/gen/test_kernels.c runs it.

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
