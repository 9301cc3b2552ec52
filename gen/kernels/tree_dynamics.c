// tree_dynamics.c — what a model on the articulated-body recursion computes
// besides q'' (gen/kernels/articulated.c), over the same tables and with its
// joint and transform functions, so that nothing symbolic grows with the
// tree: M by the composite-rigid-body algorithm, M q'' + k by the recursive
// Newton–Euler algorithm, and the kinetic energy and the potential of the
// weight (Featherstone, Rigid Body Dynamics Algorithms, ch. 5 and 6). The
// generator pastes it after articulated.c; tests/gen/test_kernels.c runs it.

/* out = I x: a link's spatial inertia (its table row t) times a motion vector x, (J w + h x v; m v - h x w). */
static void PREFIX_link_inertia_times(const real t[], const real x[], real out[])
{
    const real *h = t + 15, *J = t + 18, m = t[14];
    real hw[3], hv[3];
    int a;
    PREFIX_cross3(h, x + 3, hv);
    PREFIX_cross3(h, x, hw);
    out[0] = J[0]*x[0] + J[3]*x[1] + J[4]*x[2] + hv[0];
    out[1] = J[3]*x[0] + J[1]*x[1] + J[5]*x[2] + hv[1];
    out[2] = J[4]*x[0] + J[5]*x[1] + J[2]*x[2] + hv[2];
    for (a = 0; a < 3; ++a) out[3 + a] = m*x[3 + a] - hw[a];
}

/* out = V x* f: the force cross product, (w x n + v x f; w x f); out distinct from both. */
static void PREFIX_force_cross(const real V[], const real f[], real out[])
{
    real vf[3];
    int a;
    PREFIX_cross3(V, f, out);
    PREFIX_cross3(V + 3, f + 3, vf);
    for (a = 0; a < 3; ++a) out[a] += vf[a];
    PREFIX_cross3(V, f + 3, out + 3);
}

/* out = V x m: the motion cross product, (w x mw; w x mv + v x mw); out distinct from both. */
static void PREFIX_motion_cross(const real V[], const real m[], real out[])
{
    real vw[3];
    int a;
    PREFIX_cross3(V, m, out);
    PREFIX_cross3(V, m + 3, out + 3);
    PREFIX_cross3(V + 3, m, vw);
    for (a = 0; a < 3; ++a) out[3 + a] += vw[a];
}

/*
** The free joint's rate bias, its S' q' (0 for a turning joint, whose S is
** constant in the link's axes), added to c: from V = (omega; v) the
** joint's motion, omega' less omega's part of q'', -omega s'/s with
** s' = 2 Q.Q', and (R^T (x, y, z)')' less R^T (x, y, z)'', -omega x v.
*/
static void PREFIX_free_rate_bias(const real q[], const real v[], const real V[], real c[])
{
    const int *j = PREFIX_free_coordinate;
    real s = 0.0, sdot = 0.0, wv[3];
    int a;
    for (a = 3; a < 7; ++a) {
        s += q[j[a]]*q[j[a]];
        sdot += 2.0*q[j[a]]*v[j[a]];
    }
    PREFIX_cross3(V, V + 3, wv);
    for (a = 0; a < 3; ++a) {
        c[a] -= V[a]*sdot/s;
        c[3 + a] -= wv[a];
    }
}

/*
** The free joint's gauge: its quaternion Q's share of T, (Q.Q')^2/2, which
** makes M regular along Q' = Q (docs/theory.md §9; the symbolic form adds
** it to T too). gauge_force adds its Lagrange terms (|Q'|^2 + Q.Q'') Q to
** out; gauge_mass adds Q Q^T to M's quaternion block. No free joint: nothing.
*/
static void PREFIX_gauge_force(const real q[], const real v[], const real qdd[], real out[])
{
    const int *j = PREFIX_free_coordinate;
    real e = 0.0;
    int a;
    if (j[0] < 0) return;
    for (a = 3; a < 7; ++a) e += v[j[a]]*v[j[a]] + q[j[a]]*qdd[j[a]];
    for (a = 3; a < 7; ++a) out[j[a]] += e*q[j[a]];
}

static void PREFIX_gauge_mass(const real q[], real M[])
{
    const int *j = PREFIX_free_coordinate;
    int a, b;
    if (j[0] < 0) return;
    for (a = 3; a < 7; ++a)
        for (b = 3; b < 7; ++b) M[j[a]*PREFIX_NQ + j[b]] += q[j[a]]*q[j[b]];
}

/*
** out = M q'' + k - (the weight's generalised forces when `weight` is 1):
** the joint forces (one per coordinate) that give the accelerations qdd at
** (q, q'), by the recursive Newton–Euler algorithm: out from the root each
** link's velocity V, acceleration A (the weight as the base's acceleration
** -g) and the force f = I A + V x* I V it needs; back to the root, each
** joint's share S^T f and the rest carried to the parent; and the free
** joint's gauge. With q' = 0, qdd = 0 and weight 1 it is the weight's part
** of dV/dq.
*/
static void PREFIX_tree_inverse_dynamics(const real table[], const real q[], const real v[], const real qdd[],
                                         int weight, real out[], real work[])
{
    const real *gravity = table + PREFIX_NLINK*PREFIX_LINK_TABLE;
    const real scale = weight ? 1.0 : 0.0;  /* a real: float builds convert no int */
    const real base[6] = {0.0, 0.0, 0.0, -scale*gravity[0], -scale*gravity[1], -scale*gravity[2]};
    int i, a;
    for (i = 0; i < PREFIX_NLINK; ++i) {
        const real *t = table + i*PREFIX_LINK_TABLE;
        real *w = work + i*PREFIX_LINK_WORK, *V = w + PREFIX_W_V, *A = w + PREFIX_W_A, *f = w + PREFIX_W_P;
        const int p = PREFIX_link_parent[i];
        real motion[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}, c[6], momentum[6], bias[6];
        PREFIX_joint_turn(i, t, q, w);
        if (p < 0) {
            for (a = 0; a < 6; ++a) V[a] = 0.0;
        } else {
            PREFIX_joint_to_link(i, t, q, w, work + p*PREFIX_LINK_WORK + PREFIX_W_V, V);
        }
        PREFIX_joint_motion(i, t, q, w, v, motion);
        for (a = 0; a < 6; ++a) V[a] += motion[a];
        PREFIX_joint_to_link(i, t, q, w, p < 0 ? base : work + p*PREFIX_LINK_WORK + PREFIX_W_A, A);
        PREFIX_motion_cross(V, motion, c);  /* the velocity-product acceleration */
        if (PREFIX_link_axis[i] < 0) PREFIX_free_rate_bias(q, v, V, c);
        PREFIX_joint_motion(i, t, q, w, qdd, c);
        for (a = 0; a < 6; ++a) A[a] += c[a];
        PREFIX_link_inertia_times(t, A, f);
        PREFIX_link_inertia_times(t, V, momentum);
        PREFIX_force_cross(V, momentum, bias);
        for (a = 0; a < 6; ++a) f[a] += bias[a];
    }
    for (i = PREFIX_NLINK - 1; i >= 0; --i) {
        const real *t = table + i*PREFIX_LINK_TABLE;
        real *w = work + i*PREFIX_LINK_WORK;
        const int p = PREFIX_link_parent[i];
        PREFIX_joint_force(i, t, q, w, w + PREFIX_W_P, out);
        if (p >= 0)
            PREFIX_force_to_parent(PREFIX_link_axis[i], w[PREFIX_W_R], w[PREFIX_W_R + 1], PREFIX_link_fixed[i], t, t + 9,
                                   w + PREFIX_W_P, work + p*PREFIX_LINK_WORK + PREFIX_W_P);
    }
    PREFIX_gauge_force(q, v, qdd, out);
}

/*
** The coordinates link i's joint moves, into c (1, or 7 for the free
** joint); returns how many.
*/
static int PREFIX_joint_coordinates(int i, int c[])
{
    int a;
    if (PREFIX_link_axis[i] >= 0) {
        c[0] = PREFIX_link_coordinate[i];
        return 1;
    }
    for (a = 0; a < 7; ++a) c[a] = PREFIX_free_coordinate[a];
    return 7;
}

/*
** M (PREFIX_NQ x PREFIX_NQ, row-major, both triangles) at q by the
** composite-rigid-body algorithm: back to the root, each link's composite
** inertia Ic (its own and its subtree's), for each coordinate of its joint
** the force F = Ic S its unit rate needs, carried up the chain of its
** ancestors, each joint there taking its share S^T F: one row of M and its
** mirror per ancestor; then the free joint's gauge.
*/
static void PREFIX_tree_mass_matrix(const real table[], const real q[], real M[], real work[])
{
    real rate[PREFIX_NQ];
    int i, j, a;
    for (a = 0; a < PREFIX_NQ*PREFIX_NQ; ++a) M[a] = 0.0;
    for (a = 0; a < PREFIX_NQ; ++a) rate[a] = 0.0;
    for (i = 0; i < PREFIX_NLINK; ++i) {
        const real *t = table + i*PREFIX_LINK_TABLE;
        real *w = work + i*PREFIX_LINK_WORK;
        PREFIX_joint_turn(i, t, q, w);
        PREFIX_link_inertia(t, w + PREFIX_W_I);
    }
    for (i = PREFIX_NLINK - 1; i >= 0; --i) {
        const real *t = table + i*PREFIX_LINK_TABLE;
        real *w = work + i*PREFIX_LINK_WORK, *Ic = w + PREFIX_W_I;
        const int p = PREFIX_link_parent[i];
        int own[7], n = PREFIX_joint_coordinates(i, own), c;
        for (c = 0; c < n; ++c) {
            const int row = own[c];
            real S[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}, F[6], carried[6];
            int b;
            rate[row] = 1.0;
            PREFIX_joint_motion(i, t, q, w, rate, S);
            rate[row] = 0.0;
            for (a = 0; a < 6; ++a) {
                F[a] = 0.0;
                for (b = 0; b < 6; ++b) F[a] += Ic[6*a + b]*S[b];
            }
            PREFIX_joint_force(i, t, q, w, F, M + row*PREFIX_NQ);
            for (j = i; PREFIX_link_parent[j] >= 0; j = PREFIX_link_parent[j]) {
                const real *tj = table + j*PREFIX_LINK_TABLE, *wj = work + j*PREFIX_LINK_WORK;
                const int pj = PREFIX_link_parent[j];
                int theirs[7], m, e;
                for (a = 0; a < 6; ++a) carried[a] = 0.0;
                PREFIX_force_to_parent(PREFIX_link_axis[j], wj[PREFIX_W_R], wj[PREFIX_W_R + 1], PREFIX_link_fixed[j], tj,
                                       tj + 9, F, carried);
                for (a = 0; a < 6; ++a) F[a] = carried[a];
                if (PREFIX_link_axis[pj] >= 0) {  /* a turning joint: its one coordinate, S^T F its axis' moment */
                    e = PREFIX_link_coordinate[pj];
                    M[row*PREFIX_NQ + e] = M[e*PREFIX_NQ + row] = table[pj*PREFIX_LINK_TABLE + 13]*F[PREFIX_link_axis[pj]];
                    continue;
                }
                m = PREFIX_joint_coordinates(pj, theirs);
                PREFIX_joint_force(pj, table + pj*PREFIX_LINK_TABLE, q, work + pj*PREFIX_LINK_WORK, F, M + row*PREFIX_NQ);
                for (e = 0; e < m; ++e) M[theirs[e]*PREFIX_NQ + row] = M[row*PREFIX_NQ + theirs[e]];
            }
        }
        if (p >= 0)
            PREFIX_inertia_to_parent(PREFIX_link_axis[i], w[PREFIX_W_R], w[PREFIX_W_R + 1], PREFIX_link_fixed[i], t, t + 9,
                                     Ic, work + p*PREFIX_LINK_WORK + PREFIX_W_I);
    }
    PREFIX_gauge_mass(q, M);
}

/*
** The kinetic energy of the links, out[0] = sum V . I V / 2 (and the free
** joint's gauge, (Q.Q')^2/2), and the potential of their weight, out[1] =
** -sum m g . x (x a link's centre from N's origin), at (q, q'): out from
** the root each link's velocity V, the gravity g in its axes and g . O, O
** its origin from N's.
*/
static void PREFIX_tree_energies(const real table[], const real q[], const real v[], real out[], real work[])
{
    const real *gravity = table + PREFIX_NLINK*PREFIX_LINK_TABLE;
    const real base[6] = {0.0, 0.0, 0.0, gravity[0], gravity[1], gravity[2]};
    int i, a;
    out[0] = out[1] = 0.0;
    for (i = 0; i < PREFIX_NLINK; ++i) {
        const real *t = table + i*PREFIX_LINK_TABLE;
        real *w = work + i*PREFIX_LINK_WORK, *V = w + PREFIX_W_V, *G = w + PREFIX_W_A;
        const int p = PREFIX_link_parent[i];
        const real *parent_g = p < 0 ? base : work + p*PREFIX_LINK_WORK + PREFIX_W_A;
        real momentum[6], origin[3], height, kinetic = 0.0, potential;
        PREFIX_joint_turn(i, t, q, w);
        if (p < 0) {
            for (a = 0; a < 6; ++a) V[a] = 0.0;
        } else {
            PREFIX_joint_to_link(i, t, q, w, work + p*PREFIX_LINK_WORK + PREFIX_W_V, V);
        }
        PREFIX_joint_motion(i, t, q, w, v, V);
        /* g in the link's axes (G + 3, as a motion vector's linear part: the origin adds nothing without an
           angular part) and g . O in G[0]: the parent's plus g . (the origin from the parent's), in the parent's axes. */
        PREFIX_joint_origin(i, t, q, origin);
        height = (p < 0 ? 0.0 : parent_g[0]) + parent_g[3]*origin[0] + parent_g[4]*origin[1] + parent_g[5]*origin[2];
        {
            const real g6[6] = {0.0, 0.0, 0.0, parent_g[3], parent_g[4], parent_g[5]};
            PREFIX_joint_to_link(i, t, q, w, g6, G);
        }
        G[0] = height;
        PREFIX_link_inertia_times(t, V, momentum);
        for (a = 0; a < 6; ++a) kinetic += V[a]*momentum[a];
        potential = -(t[14]*height + G[3]*t[15] + G[4]*t[16] + G[5]*t[17]);
        out[0] += 0.5*kinetic;
        out[1] += potential;
    }
    if (PREFIX_free_coordinate[0] >= 0) {
        real rate = 0.0;
        for (a = 3; a < 7; ++a) rate += q[PREFIX_free_coordinate[a]]*v[PREFIX_free_coordinate[a]];
        out[0] += 0.5*rate*rate;
    }
}
