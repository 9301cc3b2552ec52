// tree_kkt.c — the constraint rows of a tree on the articulated-body
// recursion (closed loops, rolling wheels): their KKT solve on top of the
// recursion's q'' (docs/theory.md §9), M^-1 applied by the recursion's solve
// pass (PREFIX_articulated_solve below, with the factors PREFIX_articulated
// left, or planar_solve.c's), M never formed. Needs cholesky.c,
// symmetric_eigen.c and articulated.c (and planar.c, planar_solve.c on a
// planar tree). The generator pastes it into a model
// (gen/emit/paste_kernel.cpp); tests/gen/test_kernels.c and
// test_planar_kernels.c run it.

/*
** The solve pass the rows take, PREFIX_solve_pass: the spatial recursion's
** below, or on a planar tree (PREFIX_PLANAR_AXIS defined) planar_solve.c's
** PREFIX_planar_solve, with the factors of the call that made q''.
*/
#ifdef PREFIX_PLANAR_AXIS
#define PREFIX_solve_pass PREFIX_planar_solve
#else
#define PREFIX_solve_pass PREFIX_articulated_solve

/*
** The free joint in PREFIX_articulated_solve: the link's acceleration A
** solves I^A A = f - p by the factor PREFIX_free_acceleration left of I^A
** (its lower triangle), f the wrench of the generalised forces `force` as
** there; then (x, y, z)'' = R a and Q'' = Q (0, A_angular/2): the
** recursion's q'' less every term of the velocities and gravity, and the
** norm row's rho 0.
*/
static void PREFIX_free_solve(const real q[], const real force[], real out[], real w[])
{
    const int *j = PREFIX_free_coordinate;
    const real Q[4] = {q[j[3]], q[j[4]], q[j[5]], q[j[6]]};
    const real tQ[4] = {force[j[3]], force[j[4]], force[j[5]], force[j[6]]};
    const real *R = w + PREFIX_W_R, *L = w + PREFIX_W_I, *P = w + PREFIX_W_P;
    real *A = w + PREFIX_W_C, e[4];
    int a, c, k;
    A[0] = 0.5*(Q[0]*tQ[1] - tQ[0]*Q[1] - (Q[2]*tQ[3] - Q[3]*tQ[2]));
    A[1] = 0.5*(Q[0]*tQ[2] - tQ[0]*Q[2] - (Q[3]*tQ[1] - Q[1]*tQ[3]));
    A[2] = 0.5*(Q[0]*tQ[3] - tQ[0]*Q[3] - (Q[1]*tQ[2] - Q[2]*tQ[1]));
    for (a = 0; a < 3; ++a) A[3 + a] = R[a]*force[j[0]] + R[3 + a]*force[j[1]] + R[6 + a]*force[j[2]];
    for (a = 0; a < 6; ++a) A[a] -= P[a];
    for (c = 0; c < 6; ++c) {
        for (k = 0; k < c; ++k) A[c] -= L[6*c + k]*A[k];
        A[c] /= L[6*c + c];
    }
    for (c = 5; c >= 0; --c) {
        for (k = c + 1; k < 6; ++k) A[c] -= L[6*k + c]*A[k];
        A[c] /= L[6*c + c];
    }
    for (a = 0; a < 3; ++a) out[j[a]] = R[3*a]*A[3] + R[3*a + 1]*A[4] + R[3*a + 2]*A[5];
    /* Q'' = Q (0, A/2) */
    e[0] = -Q[1]*A[0] - Q[2]*A[1] - Q[3]*A[2];
    e[1] = Q[0]*A[0] + Q[2]*A[2] - Q[3]*A[1];
    e[2] = Q[0]*A[1] + Q[3]*A[0] - Q[1]*A[2];
    e[3] = Q[0]*A[2] + Q[1]*A[1] - Q[2]*A[0];
    for (a = 0; a < 4; ++a) out[j[3 + a]] = 0.5*e[a];
}

/*
** out = M^-1 force, the linear part of PREFIX_articulated's q'' in the
** joint forces (a free joint's norm row held: out across it, by the
** row's multiplier, the KKT solve of M and that row), at the q of the
** PREFIX_articulated call just before on the same work: a pass back and
** one out over the tables with that call's turns, U, 1/D and a free
** joint's factor, without velocities, gravity or forming M (O(N)). It
** overwrites the links' c and p (which that call's q'' no longer needs);
** the call after it can solve again.
*/
static void PREFIX_articulated_solve(const real table[], const real q[], const real force[], real out[],
                                     real work[])
{
    static const real rest[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    int i, a;
    for (i = 0; i < PREFIX_NLINK; ++i)
        for (a = 0; a < 6; ++a) work[i*PREFIX_LINK_WORK + PREFIX_W_P + a] = 0.0;
    /* Back to the root: u = S^T (force - p), and p + U u / D onto the parent's p. */
    for (i = PREFIX_NLINK - 1; i >= 0; --i) {
        const real *t = table + i*PREFIX_LINK_TABLE;
        real *w = work + i*PREFIX_LINK_WORK, *P = w + PREFIX_W_P, *U = w + PREFIX_W_U;
        const int k = PREFIX_link_axis[i], p = PREFIX_link_parent[i];
        real pa[6], u;
        if (k < 0) continue;
        u = t[13]*force[PREFIX_link_coordinate[i]] - P[k];
        w[PREFIX_W_D + 1] = u;
        if (p < 0) continue;
        for (a = 0; a < 6; ++a) pa[a] = P[a] + U[a]*u*w[PREFIX_W_D];
        PREFIX_force_to_parent(k, w[PREFIX_W_R], w[PREFIX_W_R + 1], PREFIX_link_fixed[i], t, t + 9, pa,
                               work + p*PREFIX_LINK_WORK + PREFIX_W_P);
    }
    /* Out again: each link's acceleration (into its c) and its joint's. */
    for (i = 0; i < PREFIX_NLINK; ++i) {
        const real *t = table + i*PREFIX_LINK_TABLE;
        real *w = work + i*PREFIX_LINK_WORK, *A = w + PREFIX_W_C, *U = w + PREFIX_W_U;
        const int k = PREFIX_link_axis[i], p = PREFIX_link_parent[i];
        real dd;
        if (k < 0) {
            PREFIX_free_solve(q, force, out, w);
            continue;
        }
        PREFIX_motion_to_link(k, w[PREFIX_W_R], w[PREFIX_W_R + 1], PREFIX_link_fixed[i], t, t + 9,
                              p < 0 ? rest : work + p*PREFIX_LINK_WORK + PREFIX_W_C, A);
        dd = w[PREFIX_W_D + 1];
        for (a = 0; a < 6; ++a) dd -= U[a]*A[a];
        dd *= w[PREFIX_W_D];
        A[k] += dd;
        out[PREFIX_link_coordinate[i]] = t[13]*dd;
    }
}

#endif

/*
** The system of docs/theory.md §3, M a = f + J^T nu, J a = r, by the
** range-space method with the recursion for M^-1: a0 = M^-1 f (the
** recursion's q'', in accel on entry), Y = M^-1 J^T by a solve pass per
** row, S = J Y, S nu = r - J a0, a = a0 + Y nu. Only the rows
** rows[0..m-1] are solved; the others (a free joint's quaternion norm row,
** which the recursion holds itself, and the redundant rows) get multiplier
** 0. On entry J holds the rows' Jacobian (NC x NQ) and nu their right-hand
** side r; on return accel holds q'' and nu the multipliers. Y (m x NQ), S,
** E (m x m) and z (m) are scratch; work is the links' work of the
** PREFIX_articulated call that made a0, at the same q. A pivot of S keeping
** no more than LGC_ROWS_PIVOT of its diagonal entry hands the solve to the
** minimum-norm one (S = E diag(sigma) E^T by Jacobi's rotations,
** eigenvalues not above LGC_EIGEN_FLOOR of the largest dropped), as the
** dense form's. conditioning[0..2]: S's conditioning, 1 when the
** minimum-norm solve made it, and then the part of r - J a0 it dropped over
** |r - J a0| + |J a0| (as the dense rhs's work holds them).
*/
static void PREFIX_tree_kkt(const real table[], const real q[], const real J[], const int rows[], int m,
                            real accel[], real nu[], real Y[], real S[], real E[], real z[], real conditioning[],
                            real work[])
{
    int c, d, k;
    real lo = HUGE_VAL, hi = 0.0;
    for (c = 0; c < m; ++c) PREFIX_solve_pass(table, q, J + rows[c]*PREFIX_NQ, Y + c*PREFIX_NQ, work);
    for (c = 0; c < m; ++c) {
        const real *Jc = J + rows[c]*PREFIX_NQ;
        real s = nu[rows[c]];
        for (k = 0; k < PREFIX_NQ; ++k) s -= Jc[k]*accel[k];
        z[c] = s;
        for (d = 0; d <= c; ++d) {
            real x = 0.0;
            for (k = 0; k < PREFIX_NQ; ++k) x += Jc[k]*Y[d*PREFIX_NQ + k];
            S[c*m + d] = S[d*m + c] = x;
        }
    }
    for (c = 0; c < PREFIX_NC; ++c) nu[c] = 0.0;
    conditioning[1] = conditioning[2] = 0.0;
    if (PREFIX_cholesky(m, S, LGC_ROWS_PIVOT)) {
        PREFIX_cholesky_solve(m, S, z, 1);
        for (c = 0; c < m; ++c) {
            const real p = S[c*m + c]*S[c*m + c];
            if (p < lo) lo = p;
            if (p > hi) hi = p;
        }
    } else {
        /* S singular, or nearly: its eigenvalues, on S afresh (the factor overwrote its lower triangle). */
        real top = 0.0, size_r = 0.0, size_a = 0.0, dropped = 0.0;
        for (c = 0; c < m; ++c) {
            const real *Jc = J + rows[c]*PREFIX_NQ;
            real Ja = 0.0;
            for (k = 0; k < PREFIX_NQ; ++k) Ja += Jc[k]*accel[k];
            size_r += z[c]*z[c];
            size_a += Ja*Ja;
            for (d = 0; d <= c; ++d) {
                real x = 0.0;
                for (k = 0; k < PREFIX_NQ; ++k) x += Jc[k]*Y[d*PREFIX_NQ + k];
                S[c*m + d] = S[d*m + c] = x;
            }
        }
        PREFIX_symmetric_eigen(m, S, E);
        for (c = 0; c < m; ++c)
            if (S[c*m + c] > top) top = S[c*m + c];
        /* nu = E diag(1/sigma) E^T (r - J a0), over the eigenvalues kept; S's diagonal the conditioning's. */
        for (c = 0; c < m; ++c) {
            real s = 0.0;
            for (k = 0; k < m; ++k) s += E[k*m + c]*z[k];
            if (S[c*m + c] > LGC_EIGEN_FLOOR*top) {
                nu[c] = s/S[c*m + c];
            } else {
                nu[c] = 0.0;
                dropped += s*s;
            }
            if (S[c*m + c] < lo) lo = S[c*m + c];
            if (S[c*m + c] > hi) hi = S[c*m + c];
        }
        for (c = 0; c < m; ++c) {
            real s = 0.0;
            for (k = 0; k < m; ++k) s += E[c*m + k]*nu[k];
            z[c] = s;
        }
        for (c = 0; c < m; ++c) nu[c] = 0.0;
        conditioning[1] = 1.0;
        conditioning[2] = size_r + size_a > 0.0 ? sqrt(dropped)/(sqrt(size_r) + sqrt(size_a)) : 0.0;
    }
    conditioning[0] = hi > 0.0 ? lo/hi : 0.0;
    for (c = 0; c < m; ++c) {
        nu[rows[c]] = z[c];
        for (k = 0; k < PREFIX_NQ; ++k) accel[k] += Y[c*PREFIX_NQ + k]*z[c];
    }
}
