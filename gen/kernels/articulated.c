// articulated.c — forward dynamics of a tree of rigid links by the
// articulated-body algorithm (Featherstone, Rigid Body Dynamics Algorithms,
// ch. 7): O(N) loops over the model's tables, for models too large for the
// straight-line M and its factor. The generator pastes it into a model
// (gen/emit/paste_kernel.cpp) after the model's tables; tests/gen/test_kernels.c
// runs it.

/*
** The tree: PREFIX_NLINK links, parents before children. Link i turns from
** its parent link (or the Newtonian frame when PREFIX_link_parent[i] is -1)
** about axis PREFIX_link_axis[i] (0, 1, 2: x, y, z of the joint frame) by
** the angle theta = offset + sign*q[PREFIX_link_coordinate[i]]. Its row of
** `table` (PREFIX_LINK_TABLE reals, filled from the parameters) holds:
**   [0..8]   E, row-major: the joint frame's axes in the parent link's
**   [9..11]  r, the link's origin from the parent's, in the parent's axes
**   [12, 13] the angle's offset and sign
**   [14]     the link's mass m, [15..17] m c (c the centre in its axes)
**   [18..23] its inertia about its origin, in its axes: xx yy zz xy xz yz
** and past the links, the gravity's components in the Newtonian frame.
** Spatial vectors are (angular; linear) at a link's origin in its axes.
** `work` holds PREFIX_LINK_WORK reals per link.
*/
#define PREFIX_W_R 0     /* the link's axes in the parent's: v_parent = R v_link */
#define PREFIX_W_V 9     /* its spatial velocity */
#define PREFIX_W_C 15    /* the velocity-product acceleration */
#define PREFIX_W_I 21    /* the articulated inertia, 6 x 6 row-major */
#define PREFIX_W_P 57    /* the articulated bias force */
#define PREFIX_W_U 63    /* U = I^A S */
#define PREFIX_W_D 69    /* 1/D, and u */
#define PREFIX_W_A 71    /* the spatial acceleration */

/* a x b into out (out distinct from both). */
static void PREFIX_cross3(const real a[], const real b[], real out[])
{
    out[0] = a[1]*b[2] - a[2]*b[1];
    out[1] = a[2]*b[0] - a[0]*b[2];
    out[2] = a[0]*b[1] - a[1]*b[0];
}

/* out = R^T (omega; v + omega x r): a motion vector of the parent carried to the link. */
static void PREFIX_motion_to_link(const real R[], const real r[], const real m[], real out[])
{
    real moved[3];
    int a;
    PREFIX_cross3(m, r, moved);
    for (a = 0; a < 3; ++a) moved[a] += m[3 + a];
    for (a = 0; a < 3; ++a) {
        out[a] = R[a]*m[0] + R[3 + a]*m[1] + R[6 + a]*m[2];
        out[3 + a] = R[a]*moved[0] + R[3 + a]*moved[1] + R[6 + a]*moved[2];
    }
}

/* parent += the link's force f (n; f) carried to the parent: (R n + r x R f; R f). */
static void PREFIX_force_to_parent(const real R[], const real r[], const real f[], real parent[])
{
    real n[3], lin[3], moment[3];
    int a;
    for (a = 0; a < 3; ++a) {
        n[a] = R[3*a]*f[0] + R[3*a + 1]*f[1] + R[3*a + 2]*f[2];
        lin[a] = R[3*a]*f[3] + R[3*a + 1]*f[4] + R[3*a + 2]*f[5];
    }
    PREFIX_cross3(r, lin, moment);
    for (a = 0; a < 3; ++a) {
        parent[a] += n[a] + moment[a];
        parent[3 + a] += lin[a];
    }
}

/*
** parent += X^T I X, I a link's 6 x 6 symmetric inertia in blocks [A B; B^T C]:
** rotated, A' = R A R^T, B' = R B R^T, C' = R C R^T; then moved by r,
** C_P = C', B_P = B' + [r] C', A_P = A' + [r] B'^T - B_P [r].
*/
static void PREFIX_inertia_to_parent(const real R[], const real r[], const real I[], real parent[])
{
    real T[3][3], A[3][3], B[3][3], C[3][3], BP[3][3];
    int blk, a, b, k;
    for (blk = 0; blk < 3; ++blk) {
        const int row = blk == 2 ? 3 : 0, col = blk == 0 ? 0 : 3;
        real (*out)[3] = blk == 0 ? A : blk == 1 ? B : C;
        for (a = 0; a < 3; ++a)  /* T = R X */
            for (b = 0; b < 3; ++b)
                T[a][b] = R[3*a]*I[6*row + col + b] + R[3*a + 1]*I[6*(row + 1) + col + b] +
                          R[3*a + 2]*I[6*(row + 2) + col + b];
        for (a = 0; a < 3; ++a)  /* out = T R^T */
            for (b = 0; b < 3; ++b)
                out[a][b] = T[a][0]*R[3*b] + T[a][1]*R[3*b + 1] + T[a][2]*R[3*b + 2];
    }
    for (k = 0; k < 3; ++k) {  /* [r] C' column by column; BP = B' + it */
        const real c[3] = {C[0][k], C[1][k], C[2][k]};
        real rc[3];
        PREFIX_cross3(r, c, rc);
        for (a = 0; a < 3; ++a) BP[a][k] = B[a][k] + rc[a];
    }
    for (k = 0; k < 3; ++k) {  /* column k of [r] B'^T is r x (row k of B') */
        const real c[3] = {B[k][0], B[k][1], B[k][2]};
        real rc[3];
        PREFIX_cross3(r, c, rc);
        for (a = 0; a < 3; ++a) A[a][k] += rc[a];
    }
    for (a = 0; a < 3; ++a) {  /* row a of BP [r] is -(r x row a of BP) */
        const real c[3] = {BP[a][0], BP[a][1], BP[a][2]};
        real rc[3];
        PREFIX_cross3(r, c, rc);
        for (k = 0; k < 3; ++k) A[a][k] += rc[k];
    }
    for (a = 0; a < 3; ++a)
        for (b = 0; b < 3; ++b) {
            parent[6*a + b] += A[a][b];
            parent[6*a + 3 + b] += BP[a][b];
            parent[6*(3 + a) + b] += BP[b][a];
            parent[6*(3 + a) + 3 + b] += C[a][b];
        }
}

/*
** q'' of the tree at (q, q') under the joint forces tau (one per
** coordinate), gravity included. Returns 0 when an articulated inertia
** about a joint's axis is not positive (a singular mass matrix), else 1.
*/
static int PREFIX_articulated(const real table[], const real q[], const real v[], const real tau[],
                              real accel[], real work[])
{
    const real *gravity = table + PREFIX_NLINK*PREFIX_LINK_TABLE;
    int i, a, b;
    /* Out from the root: each link's axes, velocity, bias acceleration and force, and its own inertia. */
    for (i = 0; i < PREFIX_NLINK; ++i) {
        const real *t = table + i*PREFIX_LINK_TABLE;
        real *w = work + i*PREFIX_LINK_WORK, *R = w + PREFIX_W_R, *V = w + PREFIX_W_V, *I = w + PREFIX_W_I;
        const int k = PREFIX_link_axis[i], k1 = (k + 1) % 3, k2 = (k + 2) % 3, p = PREFIX_link_parent[i];
        const real rate = t[13]*v[PREFIX_link_coordinate[i]];
        const real angle = t[12] + t[13]*q[PREFIX_link_coordinate[i]], c = cos(angle), s = sin(angle);
        const real *h = t + 15, *J = t + 18;
        real n[3], f[3], hv[3];
        for (a = 0; a < 3; ++a) {  /* R = E R_k(angle) */
            R[3*a + k] = t[3*a + k];
            R[3*a + k1] = c*t[3*a + k1] + s*t[3*a + k2];
            R[3*a + k2] = c*t[3*a + k2] - s*t[3*a + k1];
        }
        if (p < 0) {
            for (a = 0; a < 6; ++a) V[a] = 0.0;
        } else {
            PREFIX_motion_to_link(R, t + 9, work + p*PREFIX_LINK_WORK + PREFIX_W_V, V);
        }
        V[k] += rate;
        /* c = V x (rate e_k; 0) */
        w[PREFIX_W_C + k] = w[PREFIX_W_C + 3 + k] = 0.0;
        w[PREFIX_W_C + k1] = V[k2]*rate;
        w[PREFIX_W_C + k2] = -V[k1]*rate;
        w[PREFIX_W_C + 3 + k1] = V[3 + k2]*rate;
        w[PREFIX_W_C + 3 + k2] = -V[3 + k1]*rate;
        /* I = [J [h]; [h]^T m] */
        for (a = 0; a < 36; ++a) I[a] = 0.0;
        I[0] = J[0]; I[7] = J[1]; I[14] = J[2];
        I[1] = I[6] = J[3]; I[2] = I[12] = J[4]; I[8] = I[13] = J[5];
        I[21] = I[28] = I[35] = t[14];
        I[4] = -h[2]; I[5] = h[1]; I[9] = h[2]; I[11] = -h[0]; I[15] = -h[1]; I[16] = h[0];
        for (a = 0; a < 3; ++a)
            for (b = 0; b < 3; ++b) I[6*(3 + a) + b] = I[6*b + 3 + a];
        /* p = V x* (I V): the momentum (n; f), then (w x n + v x f; w x f) */
        for (a = 0; a < 3; ++a) {
            n[a] = 0.0;
            f[a] = 0.0;
            for (b = 0; b < 6; ++b) {
                n[a] += I[6*a + b]*V[b];
                f[a] += I[6*(3 + a) + b]*V[b];
            }
        }
        PREFIX_cross3(V, n, w + PREFIX_W_P);
        PREFIX_cross3(V + 3, f, hv);
        for (a = 0; a < 3; ++a) w[PREFIX_W_P + a] += hv[a];
        PREFIX_cross3(V, f, w + PREFIX_W_P + 3);
    }
    /* Back to the root: each link's articulated inertia and bias force onto its parent's. */
    for (i = PREFIX_NLINK - 1; i >= 0; --i) {
        const real *t = table + i*PREFIX_LINK_TABLE;
        real *w = work + i*PREFIX_LINK_WORK, *I = w + PREFIX_W_I, *P = w + PREFIX_W_P, *U = w + PREFIX_W_U;
        const int k = PREFIX_link_axis[i], p = PREFIX_link_parent[i];
        real D, u;
        for (a = 0; a < 6; ++a) U[a] = I[6*a + k];
        D = U[k];
        if (!(D > 0.0)) return 0;
        u = t[13]*tau[PREFIX_link_coordinate[i]] - P[k];
        w[PREFIX_W_D] = 1.0/D;
        w[PREFIX_W_D + 1] = u;
        if (p < 0) continue;
        for (a = 0; a < 6; ++a) {
            const real scaled = U[a]*w[PREFIX_W_D];
            for (b = 0; b < 6; ++b) I[6*a + b] -= scaled*U[b];
        }
        for (a = 0; a < 6; ++a) {
            real s = P[a] + U[a]*u*w[PREFIX_W_D];
            for (b = 0; b < 6; ++b) s += I[6*a + b]*w[PREFIX_W_C + b];
            w[PREFIX_W_A + a] = s;  /* scratch: the bias force carried up */
        }
        {
            real *pw = work + p*PREFIX_LINK_WORK;
            PREFIX_inertia_to_parent(w + PREFIX_W_R, t + 9, I, pw + PREFIX_W_I);
            PREFIX_force_to_parent(w + PREFIX_W_R, t + 9, w + PREFIX_W_A, pw + PREFIX_W_P);
        }
    }
    /* Out again: each link's acceleration and its joint's. */
    for (i = 0; i < PREFIX_NLINK; ++i) {
        const real *t = table + i*PREFIX_LINK_TABLE;
        real *w = work + i*PREFIX_LINK_WORK, *A = w + PREFIX_W_A, *U = w + PREFIX_W_U;
        const int k = PREFIX_link_axis[i], p = PREFIX_link_parent[i];
        real dd = w[PREFIX_W_D + 1];
        if (p < 0) {
            const real base[6] = {0.0, 0.0, 0.0, -gravity[0], -gravity[1], -gravity[2]};
            PREFIX_motion_to_link(w + PREFIX_W_R, t + 9, base, A);
        } else {
            PREFIX_motion_to_link(w + PREFIX_W_R, t + 9, work + p*PREFIX_LINK_WORK + PREFIX_W_A, A);
        }
        for (a = 0; a < 6; ++a) A[a] += w[PREFIX_W_C + a];
        for (a = 0; a < 6; ++a) dd -= U[a]*A[a];
        dd *= w[PREFIX_W_D];
        A[k] += dd;
        accel[PREFIX_link_coordinate[i]] = t[13]*dd;
    }
    return 1;
}
