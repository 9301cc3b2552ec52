// min_norm.c — the KKT solve where S = J M^-1 J^T is singular or nearly:
// S's eigenvalues by Jacobi rotations and the minimum-norm multipliers.
// Needs cholesky.c, schur_complement.c and symmetric_eigen.c. The generator
// pastes it into a model (gen/emit/paste_kernel.cpp); tests/gen/test_kernels.c
// runs it.

/*
** The KKT system where S = J M^-1 J^T is singular or nearly: at a singular
** configuration (a linkage lying flat) or with rows the others imply.
** S = E diag(lambda) E^T by cyclic Jacobi rotations (symmetric_eigen.c); eigenvalues not above
** LGC_EIGEN_FLOOR of the largest are dropped, so nu = S^+ (r - J a0) is the
** minimum-norm solution (nu in the range of J, the part of it the rows'
** dependence leaves free at 0) and a = a0 + M^-1 J^T nu is the exact
** acceleration wherever the constraints can be met.
**
** On entry M (lower triangle) and J as kkt_terms writes them, whole; on
** return M's factor L, Y = L^-1 J^T, S's eigenvalues on its diagonal and
** their eigenvectors in E's columns.
*/
static int PREFIX_factor_kkt_min_norm(real M[], const real J[], real Y[], real S[], real E[])
{
    int i, j;
    if (!PREFIX_schur_complement(M, J, Y, S)) return PREFIX_SINGULAR_MASS;
    for (i = 0; i < PREFIX_NC; ++i)
        for (j = 0; j < i; ++j) S[j*PREFIX_NC + i] = S[i*PREFIX_NC + j];
    PREFIX_symmetric_eigen(PREFIX_NC, S, E);
    return PREFIX_OK;
}

/*
** With M, Y, S and E as the factor left them: on entry a holds f and nu
** holds r; on return the solution. z is scratch. Unless NULL, *inconsistency
** is the part of r - J a0 in the dropped directions (what no acceleration
** can give) over its size: beyond round-off at a state on the constraints,
** they ask for a motion the mechanism cannot make there (the runtime's
** fault; off them, at a stage of a step, it is no verdict).
*/
static void PREFIX_solve_kkt_min_norm(const real M[], const real Y[], const real S[], const real E[],
                               real a[], real nu[], real z[], real *inconsistency)
{
    int i, k;
    real top = 0.0, size_r = 0.0, size_f = 0.0, dropped = 0.0;
    PREFIX_cholesky_solve(PREFIX_NQ, M, a, 0);
    for (i = 0; i < PREFIX_NC; ++i) {
        for (k = 0; k < PREFIX_NQ; ++k) nu[i] -= Y[i*PREFIX_NQ + k]*a[k];
        size_r += nu[i]*nu[i];
        if (S[i*PREFIX_NC + i] > top) top = S[i*PREFIX_NC + i];
    }
    for (k = 0; k < PREFIX_NQ; ++k) size_f += a[k]*a[k];
    for (i = 0; i < PREFIX_NC; ++i) {
        real s = 0.0;
        for (k = 0; k < PREFIX_NC; ++k) s += E[k*PREFIX_NC + i]*nu[k];
        if (S[i*PREFIX_NC + i] > LGC_EIGEN_FLOOR*top) {
            z[i] = s/S[i*PREFIX_NC + i];
        } else {
            z[i] = 0.0;
            dropped += s*s;
        }
    }
    if (inconsistency) {
        const real size = sqrt(size_r) + sqrt(top*size_f);
        *inconsistency = size > 0.0 ? sqrt(dropped)/size : 0.0;
    }
    for (k = 0; k < PREFIX_NC; ++k) {
        real s = 0.0;
        for (i = 0; i < PREFIX_NC; ++i) s += E[k*PREFIX_NC + i]*z[i];
        nu[k] = s;
    }
    /* a = L^-T (L^-1 f + Y^T nu) = M^-1 (f + J^T nu) */
    for (k = 0; k < PREFIX_NQ; ++k)
        for (i = 0; i < PREFIX_NC; ++i) a[k] += Y[i*PREFIX_NQ + k]*nu[i];
    for (k = PREFIX_NQ - 1; k >= 0; --k) {
        real s = a[k];
        for (i = k + 1; i < PREFIX_NQ; ++i) s -= M[i*PREFIX_NQ + k]*a[i];
        a[k] = s/M[k*PREFIX_NQ + k];
    }
}
