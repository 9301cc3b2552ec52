// tree_kkt_jacobian.c — the Jacobian of rhs with constraint rows on top of
// the recursion (docs/theory.md §9, "The Jacobian with rows on top"): q'' =
// FD(q, q', tau + J^T nu), FD the recursion's forward dynamics, so q''
// differentiated at fixed multipliers nu is tree_jacobian.c's at the total
// force (its d tau/dx with d(J^T nu)/dx at fixed nu), and the rows' own
// part Y dnu/dx follows from J q'' = r: S dnu/dx = d(r - J q'')/dx at fixed
// q'' - J (dq''/dx at fixed nu), S = J Y factored (or decomposed) by rhs's
// tree_kkt.c and reused. Needs cholesky.c, tree_kkt.c and tree_jacobian.c;
// the generator pastes it where rows are on top (gen/emit/emit_articulated.cpp).

/*
** The rows' forces at the multipliers nu rhs left (0 on the rows not
** solved): tau += J^T nu (J NC x NQ), and their derivatives at fixed nu
** into tau's, dtau_dx += dforce_dx (NQ x NX) and dtau_du += dforce_du
** (NQ x NU): tree_jacobian then differentiates FD at the total force. With
** `symmetric`, dforce_dx's block by q holds its lower triangle only (a
** Hessian, of nu.phi), mirrored here first.
*/
static void PREFIX_rows_forces(const real J[], const real nu[], int symmetric, real dforce_dx[],
                               const real dforce_du[], real tau[], real dtau_dx[], real dtau_du[])
{
    int c, i, j;
    for (c = 0; c < PREFIX_NC; ++c)
        for (i = 0; i < PREFIX_NQ; ++i) tau[i] += J[c*PREFIX_NQ + i]*nu[c];
    if (symmetric)
        for (i = 0; i < PREFIX_NQ; ++i)
            for (j = 0; j < i; ++j) dforce_dx[j*PREFIX_NX + i] = dforce_dx[i*PREFIX_NX + j];
    for (i = 0; i < PREFIX_NQ*PREFIX_NX; ++i) dtau_dx[i] += dforce_dx[i];
    for (i = 0; i < PREFIX_NQ*PREFIX_NU; ++i) dtau_du[i] += dforce_du[i];
}

/*
** z := S^-1 z as tree_kkt solved for nu with S: by its Cholesky factor (the
** lower triangle of S), or, when rhs took the minimum-norm solve
** (minimum_norm 1), by S = E diag(sigma) E^T as it left them (sigma on S's
** diagonal), over the same eigenvalues kept (above LGC_EIGEN_FLOOR of the
** largest): the derivative of nu = S^+ (r - J a0) along the rows S spans.
** e (m) is scratch.
*/
static void PREFIX_rows_solve(int m, const real S[], const real E[], int minimum_norm, real z[], real e[])
{
    real top = 0.0;
    int c, k;
    if (!minimum_norm) {
        PREFIX_cholesky_solve(m, S, z, 1);
        return;
    }
    for (c = 0; c < m; ++c)
        if (S[c*m + c] > top) top = S[c*m + c];
    for (c = 0; c < m; ++c) {
        real s = 0.0;
        for (k = 0; k < m; ++k) s += E[k*m + c]*z[k];
        e[c] = S[c*m + c] > LGC_EIGEN_FLOOR*top ? s/S[c*m + c] : 0.0;
    }
    for (c = 0; c < m; ++c) {
        real s = 0.0;
        for (k = 0; k < m; ++k) s += E[c*m + k]*e[k];
        z[c] = s;
    }
}

/*
** The rows' part of dq''/dx, column by column of a block of `width`
** columns (the state's, NX, or the inputs', NU): on entry dqdd (NQ rows,
** `width` apart) holds dq''/dx at fixed nu and drows (m x width) the
** solved rows' d(r - J a)/dx at fixed a = q''; then dnu/dx solves
** S dnu = drows - J dqdd over the rows rows[0..m-1], and dqdd += Y dnu.
** J, Y, S and E as rhs's tree_kkt left them; z and e (m each) scratch.
*/
static void PREFIX_tree_kkt_jacobian(const real J[], const int rows[], int m, const real Y[], const real S[],
                                     const real E[], int minimum_norm, const real drows[], int width, real dqdd[],
                                     real z[], real e[])
{
    int c, i, k;
    for (k = 0; k < width; ++k) {
        for (c = 0; c < m; ++c) {
            const real *Jc = J + rows[c]*PREFIX_NQ;
            real s = drows[c*width + k];
            for (i = 0; i < PREFIX_NQ; ++i) s -= Jc[i]*dqdd[i*width + k];
            z[c] = s;
        }
        PREFIX_rows_solve(m, S, E, minimum_norm, z, e);
        for (i = 0; i < PREFIX_NQ; ++i) {
            real s = 0.0;
            for (c = 0; c < m; ++c) s += Y[c*PREFIX_NQ + i]*z[c];
            dqdd[i*width + k] += s;
        }
    }
}
