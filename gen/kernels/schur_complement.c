// schur_complement.c — S = J M^-1 J^T by M's Cholesky factor: the dense
// KKT solve's and the minimum-norm solve's (not a tree's on the recursion,
// which pastes cholesky.c alone). Needs cholesky.c. The generator pastes it
// into a model (gen/emit/paste_kernel.cpp); tests/gen/test_kernels.c runs it.

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
