// planar_solve.c — the solve pass of the planar recursion (planar.c):
// M^-1 f with the factors of the PREFIX_planar call before it, for the
// constraint rows solved on top of it (tree_kkt.c's PREFIX_solve_pass on a
// planar tree), and for its Jacobian's M^-1 (planar_jacobian.c). The
// generator pastes it after planar.c when a planar tree has such rows or a
// Jacobian; tests/gen/test_planar_kernels.c runs it.

/*
** out = M^-1 force at the q of the PREFIX_planar call just before on the
** same work: a pass back and one out with that call's turns, offsets, U
** and 1/D, without velocities or gravity (tree_kkt.c's solve pass on a
** planar tree). It overwrites the links' bias force, u and acceleration;
** the call after it can solve again.
*/
static void PREFIX_planar_solve(const real table[], const real q[], const real force[], real out[], real work[])
{
    static const real rest[3] = {0.0, 0.0, 0.0};  /* the root's acceleration, and every link's c */
    int i;
    (void)q;  /* the pass's signature, PREFIX_articulated_solve's: a planar tree has no quaternion */
    for (i = 0; i < PREFIX_NLINK; ++i)
        work[i*PREFIX_LINK_WORK + PREFIX_L_P] = work[i*PREFIX_LINK_WORK + PREFIX_L_P + 1] =
            work[i*PREFIX_LINK_WORK + PREFIX_L_P + 2] = 0.0;
    for (i = PREFIX_NLINK - 1; i >= 0; --i) {
        const real *t = table + i*PREFIX_LINK_TABLE;
        const int p = PREFIX_link_parent[i];
        real *w = work + i*PREFIX_LINK_WORK, *I = w + PREFIX_L_I, *P = w + PREFIX_L_P;
        real u, g, pa[3];
        w[PREFIX_L_U + 1] = u = t[13]*force[PREFIX_link_coordinate[i]] - P[0];
        if (p < 0) continue;
        g = u*w[PREFIX_L_U];
        pa[0] = P[0] + u;
        pa[1] = P[1] + I[1]*g;
        pa[2] = P[2] + I[2]*g;
        PREFIX_planar_force_to_parent(w, pa, work + p*PREFIX_LINK_WORK);
    }
    for (i = 0; i < PREFIX_NLINK; ++i) {
        const int p = PREFIX_link_parent[i];
        out[PREFIX_link_coordinate[i]] = PREFIX_planar_accelerate(
            table + i*PREFIX_LINK_TABLE, p < 0 ? rest : work + p*PREFIX_LINK_WORK + PREFIX_L_A, rest,
            work + i*PREFIX_LINK_WORK);
    }
}
