// symmetric_eigen.c — a symmetric matrix's eigenvalues and eigenvectors by
// cyclic Jacobi rotations, for the minimum-norm KKT solves (min_norm.c, and
// tree_kkt.c on the recursion) where S = J M^-1 J^T is singular or nearly.
// The generator pastes it into a model (gen/emit/paste_kernel.cpp);
// tests/gen/test_kernels.c runs it.

/*
** S, m x m row-major and whole on entry, becomes diag(lambda) and E its
** eigenvectors, S = E diag(lambda) E^T, sweeping until the off-diagonal
** part is round-off of the whole (a few sweeps; at most 50).
*/
static void PREFIX_symmetric_eigen(int m, real S[], real E[])
{
    int i, j, k, sweep;
    for (i = 0; i < m; ++i)
        for (j = 0; j < m; ++j) E[i*m + j] = i == j ? 1.0 : 0.0;
    for (sweep = 0; sweep < 50; ++sweep) {
        real off = 0.0, all = 0.0;
        for (i = 0; i < m; ++i)
            for (j = 0; j < m; ++j) {
                const real e = S[i*m + j]*S[i*m + j];
                all += e;
                if (i != j) off += e;
            }
        if (!(off > 1e-30*all)) break;
        for (i = 0; i < m; ++i)
            for (j = i + 1; j < m; ++j) {
                /* The rotation in the plane (i, j) that zeroes S[i][j]. */
                const real sij = S[i*m + j];
                real theta, t, c, s;
                if (sij == 0.0) continue;
                theta = (S[j*m + j] - S[i*m + i])/(2.0*sij);
                t = (theta >= 0.0 ? 1.0 : -1.0)/(fabs(theta) + sqrt(theta*theta + 1.0));
                c = 1.0/sqrt(t*t + 1.0);
                s = t*c;
                for (k = 0; k < m; ++k) {
                    const real x = S[k*m + i], y = S[k*m + j];
                    S[k*m + i] = c*x - s*y;
                    S[k*m + j] = s*x + c*y;
                }
                for (k = 0; k < m; ++k) {
                    const real x = S[i*m + k], y = S[j*m + k];
                    S[i*m + k] = c*x - s*y;
                    S[j*m + k] = s*x + c*y;
                }
                S[i*m + j] = 0.0;
                S[j*m + i] = 0.0;
                for (k = 0; k < m; ++k) {
                    const real x = E[k*m + i], y = E[k*m + j];
                    E[k*m + i] = c*x - s*y;
                    E[k*m + j] = s*x + c*y;
                }
            }
    }
}
