// dense_kkt.c — the KKT solve by dense loops over the compile-time sizes,
// where the straight-line code would be too long. Needs cholesky.c and
// schur_complement.c; the line PREFIX_ROWS_LEFT_OUT; becomes the model's
// redundant rows, S's diagonal 1 for each. The generator pastes it into a model
// (gen/emit/paste_kernel.cpp); tests/gen/test_kernels.c runs it.

/*
** The KKT system of lagrangec's docs/theory.md §3,
**     [ M  -J^T ] [ a  ]   [ f ]
**     [ J   0   ] [ nu ] = [ r ],
** by the range-space method: a0 = M^-1 f, S = J M^-1 J^T, S nu = r - J a0,
** a = a0 + M^-1 J^T nu. M and S are symmetric positive definite when the
** mass matrix is and the constraint rows are independent, so two Cholesky
** factorisations do it without pivoting; a pivot of S keeping no more than
** LGC_ROWS_PIVOT of its diagonal entry hands the solve to the minimum-norm one.
**
** Factoring: M (lower triangle) becomes its factor L, S its factor; Y is
** scratch (row i of Y is L^-1 J_i^T, so S = Y Y^T).
*/
static int PREFIX_factor_kkt(real M[], const real J[], real Y[], real S[])
{
    if (!PREFIX_schur_complement(M, J, Y, S)) return PREFIX_SINGULAR_MASS;
    PREFIX_ROWS_LEFT_OUT;
    if (!PREFIX_cholesky(PREFIX_NC, S, LGC_ROWS_PIVOT)) return PREFIX_RANK_DEFICIENT;
    return PREFIX_OK;
}

/* With M and S factored: on entry a holds f and nu holds r; on return the solution. w is scratch. */
static void PREFIX_solve_kkt(const real M[], const real J[], const real S[],
                      real a[], real nu[], real w[])
{
    int i, k;
    PREFIX_cholesky_solve(PREFIX_NQ, M, a, 1);
    for (i = 0; i < PREFIX_NC; ++i)
        for (k = 0; k < PREFIX_NQ; ++k) nu[i] -= J[i*PREFIX_NQ + k]*a[k];
    PREFIX_cholesky_solve(PREFIX_NC, S, nu, 1);
    for (k = 0; k < PREFIX_NQ; ++k) {
        real s = 0.0;
        for (i = 0; i < PREFIX_NC; ++i) s += J[i*PREFIX_NQ + k]*nu[i];
        w[k] = s;
    }
    PREFIX_cholesky_solve(PREFIX_NQ, M, w, 1);
    for (k = 0; k < PREFIX_NQ; ++k) a[k] += w[k];
}
