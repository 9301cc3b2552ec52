// tree_kkt.c — the constraint rows of a tree on the articulated-body
// recursion (closed loops, rolling wheels): their KKT solve on top of the
// recursion's q'' (docs/theory.md §9), M^-1 applied by the recursion's solve
// pass (articulated.c's PREFIX_articulated_solve), M never formed. Needs
// cholesky.c and articulated.c. The generator pastes it into a model
// (gen/emit/paste_kernel.cpp); tests/gen/test_kernels.c runs it.

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
    int c, d, k, sweep;
    real lo = HUGE_VAL, hi = 0.0;
    for (c = 0; c < m; ++c) PREFIX_articulated_solve(table, q, J + rows[c]*PREFIX_NQ, Y + c*PREFIX_NQ, work);
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
                E[c*m + d] = E[d*m + c] = c == d ? 1.0 : 0.0;
            }
        }
        for (sweep = 0; sweep < 50; ++sweep) {
            real off = 0.0, all = 0.0;
            for (c = 0; c < m; ++c)
                for (d = 0; d < m; ++d) {
                    const real e = S[c*m + d]*S[c*m + d];
                    all += e;
                    if (c != d) off += e;
                }
            if (!(off > 1e-30*all)) break;
            for (c = 0; c < m; ++c)
                for (d = c + 1; d < m; ++d) {
                    /* The rotation in the plane (c, d) that zeroes S[c][d]. */
                    const real scd = S[c*m + d];
                    real theta, t, co, si;
                    if (scd == 0.0) continue;
                    theta = (S[d*m + d] - S[c*m + c])/(2.0*scd);
                    t = (theta >= 0.0 ? 1.0 : -1.0)/(fabs(theta) + sqrt(theta*theta + 1.0));
                    co = 1.0/sqrt(t*t + 1.0);
                    si = t*co;
                    for (k = 0; k < m; ++k) {
                        const real x = S[k*m + c], y = S[k*m + d];
                        S[k*m + c] = co*x - si*y;
                        S[k*m + d] = si*x + co*y;
                    }
                    for (k = 0; k < m; ++k) {
                        const real x = S[c*m + k], y = S[d*m + k];
                        S[c*m + k] = co*x - si*y;
                        S[d*m + k] = si*x + co*y;
                    }
                    S[c*m + d] = S[d*m + c] = 0.0;
                    for (k = 0; k < m; ++k) {
                        const real x = E[k*m + c], y = E[k*m + d];
                        E[k*m + c] = co*x - si*y;
                        E[k*m + d] = si*x + co*y;
                    }
                }
        }
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
