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
** the angle theta = offset + sign*q[PREFIX_link_coordinate[i]]; or, when
** PREFIX_link_axis[i] is -1 (a free joint, from N only, at most one), its
** origin moves from r by E (x, y, z) and its axes turn from the joint
** frame's by the quaternion Q (normalised), x, y, z and Q's w, x, y, z
** being q[PREFIX_free_coordinate[0..6]];
** PREFIX_link_fixed[i] is 0 when its joint frame's axes are the parent's
** (E below the identity), which the turns then skip. Its row of
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
#define PREFIX_W_R 0     /* cos and sin of the joint's angle; a free joint's rotation, 3 x 3 row-major */
#define PREFIX_W_V 9     /* the link's spatial velocity */
#define PREFIX_W_C 15    /* the velocity-product acceleration */
#define PREFIX_W_I 21    /* the articulated inertia, 6 x 6 row-major */
#define PREFIX_W_P 57    /* the articulated bias force */
#define PREFIX_W_U 63    /* U = I^A S */
#define PREFIX_W_D 69    /* 1/D, and u */
#define PREFIX_W_A 71    /* the spatial acceleration */

/*
** The recursion's per-link steps are written once with the joint's axis k
** as an argument and forced inline where the loops below call them with k
** a constant (a switch on the link's axis), so that each axis gets its own
** copy in which the turn about k touches only the components k + 1 and
** k + 2 and the motion subspace is the one component k: a model's hot code
** is the copies of the axes it uses. Elsewhere (tree_dynamics.c) the same
** names take k at run time.
*/
#if defined(__GNUC__)
#define PREFIX_HOT static inline __attribute__((always_inline))
#else
#define PREFIX_HOT static inline
#endif

/* a x b into out (out distinct from both). */
static inline void PREFIX_cross3(const real a[], const real b[], real out[])
{
    out[0] = a[1]*b[2] - a[2]*b[1];
    out[1] = a[2]*b[0] - a[0]*b[2];
    out[2] = a[0]*b[1] - a[1]*b[0];
}

/* v := R_k(angle) v, or its transpose when sign is -1: a turn about axis k of cos c and sin s. */
PREFIX_HOT void PREFIX_turn3(const int k, real c, real s, real v[])
{
    const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    const real a = v[k1], b = v[k2];
    v[k1] = c*a - s*b;
    v[k2] = s*a + c*b;
}

/* v := E^T v (transposed) or E v. */
static void PREFIX_fixed3(const real E[], int transposed, real v[])
{
    const real a = v[0], b = v[1], c = v[2];
    int r;
    for (r = 0; r < 3; ++r)
        v[r] = transposed ? E[r]*a + E[3 + r]*b + E[6 + r]*c : E[3*r]*a + E[3*r + 1]*b + E[3*r + 2]*c;
}

/*
** out = X m: a motion vector (omega; v) of the parent carried to the link,
** (R^T omega; R^T (v + omega x r)) with R = E R_k(angle); E is skipped when
** it is the identity (`fixed` 0).
*/
PREFIX_HOT void PREFIX_motion_to_link_about(const int k, real c, real s, int fixed, const real E[], const real r[],
                                            const real m[], real out[])
{
    out[0] = m[0];
    out[1] = m[1];
    out[2] = m[2];
    out[3] = m[3] + m[1]*r[2] - m[2]*r[1];
    out[4] = m[4] + m[2]*r[0] - m[0]*r[2];
    out[5] = m[5] + m[0]*r[1] - m[1]*r[0];
    if (fixed) {
        PREFIX_fixed3(E, 1, out);
        PREFIX_fixed3(E, 1, out + 3);
    }
    PREFIX_turn3(k, c, -s, out);
    PREFIX_turn3(k, c, -s, out + 3);
}

/* parent += X^T f: the link's force (n; f) carried to the parent, (R n + r x R f; R f). */
PREFIX_HOT void PREFIX_force_to_parent_about(const int k, real c, real s, int fixed, const real E[], const real r[],
                                             const real f[], real parent[])
{
    real n[3], lin[3];
    n[0] = f[0], n[1] = f[1], n[2] = f[2];
    lin[0] = f[3], lin[1] = f[4], lin[2] = f[5];
    PREFIX_turn3(k, c, s, n);
    PREFIX_turn3(k, c, s, lin);
    if (fixed) {
        PREFIX_fixed3(E, 0, n);
        PREFIX_fixed3(E, 0, lin);
    }
    parent[0] += n[0] + r[1]*lin[2] - r[2]*lin[1];
    parent[1] += n[1] + r[2]*lin[0] - r[0]*lin[2];
    parent[2] += n[2] + r[0]*lin[1] - r[1]*lin[0];
    parent[3] += lin[0];
    parent[4] += lin[1];
    parent[5] += lin[2];
}

/* S := R_k S R_k^T, S symmetric 3 x 3 (both triangles kept). */
PREFIX_HOT void PREFIX_turn_symmetric(const int k, real c, real s, real S[3][3])
{
    const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    const real a = S[k1][k1], b = S[k1][k2], d = S[k2][k2], x = S[k][k1], y = S[k][k2];
    const real t11 = c*a - s*b, t12 = c*b - s*d, t21 = s*a + c*b, t22 = s*b + c*d;
    S[k][k1] = S[k1][k] = c*x - s*y;
    S[k][k2] = S[k2][k] = s*x + c*y;
    S[k1][k1] = t11*c - t12*s;
    S[k1][k2] = S[k2][k1] = t11*s + t12*c;
    S[k2][k2] = t21*s + t22*c;
}

/* B := R_k B R_k^T, B any 3 x 3: rows k + 1 and k + 2 turned, then those columns. */
PREFIX_HOT void PREFIX_turn_general(const int k, real c, real s, real B[3][3])
{
    const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    real x, y;
    x = B[k1][0], y = B[k2][0], B[k1][0] = c*x - s*y, B[k2][0] = s*x + c*y;
    x = B[k1][1], y = B[k2][1], B[k1][1] = c*x - s*y, B[k2][1] = s*x + c*y;
    x = B[k1][2], y = B[k2][2], B[k1][2] = c*x - s*y, B[k2][2] = s*x + c*y;
    x = B[0][k1], y = B[0][k2], B[0][k1] = c*x - s*y, B[0][k2] = s*x + c*y;
    x = B[1][k1], y = B[1][k2], B[1][k1] = c*x - s*y, B[1][k2] = s*x + c*y;
    x = B[2][k1], y = B[2][k2], B[2][k1] = c*x - s*y, B[2][k2] = s*x + c*y;
}

/* X := E X E^T, X any 3 x 3. */
static void PREFIX_fixed_both(const real E[], real X[3][3])
{
    real T[3][3];
    int a, b;
    for (a = 0; a < 3; ++a)  /* T = E X */
        for (b = 0; b < 3; ++b) T[a][b] = E[3*a]*X[0][b] + E[3*a + 1]*X[1][b] + E[3*a + 2]*X[2][b];
    for (a = 0; a < 3; ++a)  /* X = T E^T */
        for (b = 0; b < 3; ++b) X[a][b] = T[a][0]*E[3*b] + T[a][1]*E[3*b + 1] + T[a][2]*E[3*b + 2];
}

/*
** parent += X^T I X, I a link's 6 x 6 symmetric inertia (row-major, both
** triangles) in blocks [A B; B^T C], less U U^T/D when U is not NULL (the
** articulated inertia projected off the joint's axis, inv_D = 1/D; I is
** left as it was): turned by R_k; by E when it is not the identity,
** A' = E A E^T, B' = E B E^T, C' = E C E^T; then moved by r, C_P = C',
** B_P = B' + [r] C', A_P = A' + [r] B'^T - B_P [r], whose row a, column b
** is A'_ab + (r x row b of B')_a + (r x row a of B_P)_b.
*/
PREFIX_HOT void PREFIX_inertia_to_parent_about(const int k, real c, real s, int fixed, const real E[], const real r[],
                                               const real I[], const real U[], real inv_D, real parent[])
{
    real A[3][3], B[3][3], C[3][3], P[3][3], RB[3][3], RP[3][3];
    const real r0 = r[0], r1 = r[1], r2 = r[2];
    if (U) {
        const real W0 = U[0]*inv_D, W1 = U[1]*inv_D, W2 = U[2]*inv_D, W3 = U[3]*inv_D, W4 = U[4]*inv_D,
                   W5 = U[5]*inv_D;
        A[0][0] = I[0] - W0*U[0], A[1][1] = I[7] - W1*U[1], A[2][2] = I[14] - W2*U[2];
        A[0][1] = A[1][0] = I[1] - W0*U[1];
        A[0][2] = A[2][0] = I[2] - W0*U[2];
        A[1][2] = A[2][1] = I[8] - W1*U[2];
        C[0][0] = I[21] - W3*U[3], C[1][1] = I[28] - W4*U[4], C[2][2] = I[35] - W5*U[5];
        C[0][1] = C[1][0] = I[22] - W3*U[4];
        C[0][2] = C[2][0] = I[23] - W3*U[5];
        C[1][2] = C[2][1] = I[29] - W4*U[5];
        B[0][0] = I[3] - W0*U[3], B[0][1] = I[4] - W0*U[4], B[0][2] = I[5] - W0*U[5];
        B[1][0] = I[9] - W1*U[3], B[1][1] = I[10] - W1*U[4], B[1][2] = I[11] - W1*U[5];
        B[2][0] = I[15] - W2*U[3], B[2][1] = I[16] - W2*U[4], B[2][2] = I[17] - W2*U[5];
    } else {
        A[0][0] = I[0], A[1][1] = I[7], A[2][2] = I[14];
        A[0][1] = A[1][0] = I[1], A[0][2] = A[2][0] = I[2], A[1][2] = A[2][1] = I[8];
        C[0][0] = I[21], C[1][1] = I[28], C[2][2] = I[35];
        C[0][1] = C[1][0] = I[22], C[0][2] = C[2][0] = I[23], C[1][2] = C[2][1] = I[29];
        B[0][0] = I[3], B[0][1] = I[4], B[0][2] = I[5];
        B[1][0] = I[9], B[1][1] = I[10], B[1][2] = I[11];
        B[2][0] = I[15], B[2][1] = I[16], B[2][2] = I[17];
    }
    PREFIX_turn_symmetric(k, c, s, A);
    PREFIX_turn_general(k, c, s, B);
    PREFIX_turn_symmetric(k, c, s, C);
    if (fixed) {
        PREFIX_fixed_both(E, A);
        PREFIX_fixed_both(E, B);
        PREFIX_fixed_both(E, C);
    }
    /* B_P = B' + [r] C' */
    P[0][0] = B[0][0] + r1*C[2][0] - r2*C[1][0];
    P[1][0] = B[1][0] + r2*C[0][0] - r0*C[2][0];
    P[2][0] = B[2][0] + r0*C[1][0] - r1*C[0][0];
    P[0][1] = B[0][1] + r1*C[2][1] - r2*C[1][1];
    P[1][1] = B[1][1] + r2*C[0][1] - r0*C[2][1];
    P[2][1] = B[2][1] + r0*C[1][1] - r1*C[0][1];
    P[0][2] = B[0][2] + r1*C[2][2] - r2*C[1][2];
    P[1][2] = B[1][2] + r2*C[0][2] - r0*C[2][2];
    P[2][2] = B[2][2] + r0*C[1][2] - r1*C[0][2];
    /* r x (row a of B'), r x (row a of B_P), the entries A_P takes */
    RB[0][0] = r1*B[0][2] - r2*B[0][1];
    RB[0][1] = r2*B[0][0] - r0*B[0][2];
    RB[0][2] = r0*B[0][1] - r1*B[0][0];
    RB[1][1] = r2*B[1][0] - r0*B[1][2];
    RB[1][2] = r0*B[1][1] - r1*B[1][0];
    RB[2][2] = r0*B[2][1] - r1*B[2][0];
    RP[0][0] = r1*P[0][2] - r2*P[0][1];
    RP[1][0] = r1*P[1][2] - r2*P[1][1];
    RP[1][1] = r2*P[1][0] - r0*P[1][2];
    RP[2][0] = r1*P[2][2] - r2*P[2][1];
    RP[2][1] = r2*P[2][0] - r0*P[2][2];
    RP[2][2] = r0*P[2][1] - r1*P[2][0];
    /* A_P's row a, column b: A'_ab + (r x row b of B')_a + (r x row a of B_P)_b */
    A[0][0] += RB[0][0] + RP[0][0];
    A[1][0] += RB[0][1] + RP[1][0];
    A[1][1] += RB[1][1] + RP[1][1];
    A[2][0] += RB[0][2] + RP[2][0];
    A[2][1] += RB[1][2] + RP[2][1];
    A[2][2] += RB[2][2] + RP[2][2];
    parent[0] += A[0][0], parent[7] += A[1][1], parent[14] += A[2][2];
    parent[1] += A[1][0], parent[6] += A[1][0];
    parent[2] += A[2][0], parent[12] += A[2][0];
    parent[8] += A[2][1], parent[13] += A[2][1];
    parent[3] += P[0][0], parent[4] += P[0][1], parent[5] += P[0][2];
    parent[9] += P[1][0], parent[10] += P[1][1], parent[11] += P[1][2];
    parent[15] += P[2][0], parent[16] += P[2][1], parent[17] += P[2][2];
    parent[18] += P[0][0], parent[24] += P[0][1], parent[30] += P[0][2];
    parent[19] += P[1][0], parent[25] += P[1][1], parent[31] += P[1][2];
    parent[20] += P[2][0], parent[26] += P[2][1], parent[32] += P[2][2];
    parent[21] += C[0][0], parent[28] += C[1][1], parent[35] += C[2][2];
    parent[22] += C[0][1], parent[27] += C[0][1];
    parent[23] += C[0][2], parent[33] += C[0][2];
    parent[29] += C[1][2], parent[34] += C[1][2];
}

/*
** The same three with the axis k at run time (tree_dynamics.c's callers),
** each a switch into its copies.
*/
static void PREFIX_motion_to_link(int k, real c, real s, int fixed, const real E[], const real r[], const real m[],
                                  real out[])
{
    switch (k) {
        case 0: PREFIX_motion_to_link_about(0, c, s, fixed, E, r, m, out); break;
        case 1: PREFIX_motion_to_link_about(1, c, s, fixed, E, r, m, out); break;
        default: PREFIX_motion_to_link_about(2, c, s, fixed, E, r, m, out); break;
    }
}

static void PREFIX_force_to_parent(int k, real c, real s, int fixed, const real E[], const real r[], const real f[],
                                   real parent[])
{
    switch (k) {
        case 0: PREFIX_force_to_parent_about(0, c, s, fixed, E, r, f, parent); break;
        case 1: PREFIX_force_to_parent_about(1, c, s, fixed, E, r, f, parent); break;
        default: PREFIX_force_to_parent_about(2, c, s, fixed, E, r, f, parent); break;
    }
}

/* parent += X^T I X (I as it is, not projected). */
static void PREFIX_inertia_to_parent(int k, real c, real s, int fixed, const real E[], const real r[], const real I[],
                                     real parent[])
{
    switch (k) {
        case 0: PREFIX_inertia_to_parent_about(0, c, s, fixed, E, r, I, 0, 0.0, parent); break;
        case 1: PREFIX_inertia_to_parent_about(1, c, s, fixed, E, r, I, 0, 0.0, parent); break;
        default: PREFIX_inertia_to_parent_about(2, c, s, fixed, E, r, I, 0, 0.0, parent); break;
    }
}

/*
** The joint of link i, its one place (the recursions of this file and of
** tree_dynamics.c call only these for what a joint type decides).
** PREFIX_joint_turn: its turn at q into w[PREFIX_W_R...]: a turning
** joint's cos and sin of the angle; the free joint's rotation R = R(Q)/s,
** s = |Q|^2 (the link's axes in its joint frame's, 3 x 3 row-major).
** PREFIX_joint_motion: its motion S q' for the rates `rate` (one per
** coordinate) added to the link's spatial vector out: a turning joint's
** rate about its axis; the free joint's (omega; R^T (x, y, z)'), omega =
** 2 Im(conj(Q) Q')/s. PREFIX_joint_force: the generalised forces S^T f the
** joint takes from the link's spatial force f = (n; f), into out at its
** coordinates: a turning joint's moment about its axis; the free joint's
** R f on x, y, z and 2/s (-v.n, w n + v x n) on Q = (w, v).
** PREFIX_joint_origin: the link's origin from its parent's, in the
** parent's axes: r, and for the free joint r + E (x, y, z).
** w is the link's work row, its turn filled first.
*/
static void PREFIX_joint_turn(int i, const real t[], const real q[], real w[])
{
    if (PREFIX_link_axis[i] < 0) {
        const int *j = PREFIX_free_coordinate;
        const real qw = q[j[3]], qx = q[j[4]], qy = q[j[5]], qz = q[j[6]];
        const real s = qw*qw + qx*qx + qy*qy + qz*qz;
        real *R = w + PREFIX_W_R;
        R[0] = (qw*qw + qx*qx - qy*qy - qz*qz)/s;
        R[1] = 2.0*(qx*qy - qw*qz)/s;
        R[2] = 2.0*(qx*qz + qw*qy)/s;
        R[3] = 2.0*(qx*qy + qw*qz)/s;
        R[4] = (qw*qw - qx*qx + qy*qy - qz*qz)/s;
        R[5] = 2.0*(qy*qz - qw*qx)/s;
        R[6] = 2.0*(qx*qz - qw*qy)/s;
        R[7] = 2.0*(qy*qz + qw*qx)/s;
        R[8] = (qw*qw - qx*qx - qy*qy + qz*qz)/s;
    } else {
        const real angle = t[12] + t[13]*q[PREFIX_link_coordinate[i]];
        w[PREFIX_W_R] = cos(angle);
        w[PREFIX_W_R + 1] = sin(angle);
    }
}

static void PREFIX_joint_motion(int i, const real t[], const real q[], const real w[], const real rate[], real out[])
{
    if (PREFIX_link_axis[i] < 0) {
        const int *j = PREFIX_free_coordinate;
        const real qw = q[j[3]], qx = q[j[4]], qy = q[j[5]], qz = q[j[6]];
        const real dw = rate[j[3]], dx = rate[j[4]], dy = rate[j[5]], dz = rate[j[6]];
        const real s = qw*qw + qx*qx + qy*qy + qz*qz;
        const real *R = w + PREFIX_W_R;
        int a;
        out[0] += 2.0*(qw*dx - dw*qx - (qy*dz - qz*dy))/s;
        out[1] += 2.0*(qw*dy - dw*qy - (qz*dx - qx*dz))/s;
        out[2] += 2.0*(qw*dz - dw*qz - (qx*dy - qy*dx))/s;
        for (a = 0; a < 3; ++a) out[3 + a] += R[a]*rate[j[0]] + R[3 + a]*rate[j[1]] + R[6 + a]*rate[j[2]];
    } else {
        out[PREFIX_link_axis[i]] += t[13]*rate[PREFIX_link_coordinate[i]];
    }
}

static void PREFIX_joint_force(int i, const real t[], const real q[], const real w[], const real f[], real out[])
{
    if (PREFIX_link_axis[i] < 0) {
        const int *j = PREFIX_free_coordinate;
        const real qw = q[j[3]], v[3] = {q[j[4]], q[j[5]], q[j[6]]};
        const real k = 2.0/(qw*qw + v[0]*v[0] + v[1]*v[1] + v[2]*v[2]);
        const real *R = w + PREFIX_W_R;
        real vn[3];
        int a;
        for (a = 0; a < 3; ++a) out[j[a]] = R[3*a]*f[3] + R[3*a + 1]*f[4] + R[3*a + 2]*f[5];
        PREFIX_cross3(v, f, vn);
        out[j[3]] = -k*(v[0]*f[0] + v[1]*f[1] + v[2]*f[2]);
        for (a = 0; a < 3; ++a) out[j[4 + a]] = k*(qw*f[a] + vn[a]);
    } else {
        out[PREFIX_link_coordinate[i]] = t[13]*f[PREFIX_link_axis[i]];
    }
}

static void PREFIX_joint_origin(int i, const real t[], const real q[], real out[])
{
    int a;
    for (a = 0; a < 3; ++a) out[a] = t[9 + a];
    if (PREFIX_link_axis[i] < 0) {
        const int *j = PREFIX_free_coordinate;
        for (a = 0; a < 3; ++a) out[a] += t[3*a]*q[j[0]] + t[3*a + 1]*q[j[1]] + t[3*a + 2]*q[j[2]];
    }
}

/*
** out = X m: a motion vector m of link i's parent (or of N) carried to the
** link by its joint's transform: motion_to_link for a turning joint; for
** the free joint (R^T E^T omega; R^T E^T (v + omega x o)), o its origin.
*/
static void PREFIX_joint_to_link(int i, const real t[], const real q[], const real w[], const real m[], real out[])
{
    if (PREFIX_link_axis[i] < 0) {
        const real *R = w + PREFIX_W_R;
        real o[3], x[6];
        int a;
        PREFIX_joint_origin(i, t, q, o);
        PREFIX_cross3(m, o, x + 3);
        for (a = 0; a < 3; ++a) {
            x[a] = m[a];
            x[3 + a] += m[3 + a];
        }
        if (PREFIX_link_fixed[i]) {
            PREFIX_fixed3(t, 1, x);
            PREFIX_fixed3(t, 1, x + 3);
        }
        for (a = 0; a < 3; ++a) {
            out[a] = R[a]*x[0] + R[3 + a]*x[1] + R[6 + a]*x[2];
            out[3 + a] = R[a]*x[3] + R[3 + a]*x[4] + R[6 + a]*x[5];
        }
    } else {
        PREFIX_motion_to_link(PREFIX_link_axis[i], w[PREFIX_W_R], w[PREFIX_W_R + 1], PREFIX_link_fixed[i], t, t + 9, m,
                              out);
    }
}

/* I, 6 x 6 row-major: a link's spatial inertia [J [h]; [h]^T m] from its table row t. */
PREFIX_HOT void PREFIX_link_inertia(const real t[], real I[])
{
    const real *h = t + 15, *J = t + 18, m = t[14];
    I[0] = J[0]; I[7] = J[1]; I[14] = J[2];
    I[1] = I[6] = J[3]; I[2] = I[12] = J[4]; I[8] = I[13] = J[5];
    I[3] = I[10] = I[17] = I[18] = I[25] = I[32] = 0.0;
    I[4] = I[24] = -h[2]; I[5] = I[30] = h[1]; I[9] = I[19] = h[2];
    I[11] = I[31] = -h[0]; I[15] = I[20] = -h[1]; I[16] = I[26] = h[0];
    I[21] = I[28] = I[35] = m;
    I[22] = I[23] = I[27] = I[29] = I[33] = I[34] = 0.0;
}

/*
** The spatial recursion's passes; a planar tree (PREFIX_PLANAR_AXIS defined)
** takes planar.c's in their place.
*/
#ifndef PREFIX_PLANAR_AXIS
/*
** A turning joint about its axis k, out from the root: its turn, the
** link's velocity V (its parent's carried to it, `parent` NULL for N, plus
** the joint's motion) and the velocity-product acceleration
** c = V x (rate e_k; 0).
*/
PREFIX_HOT void PREFIX_turning_velocity_about(const int k, int i, const real t[], const real q[], const real v[],
                                              const real parent[], real w[])
{
    const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    const real rate = t[13]*v[PREFIX_link_coordinate[i]], angle = t[12] + t[13]*q[PREFIX_link_coordinate[i]];
    const real co = cos(angle), si = sin(angle);
    real *V = w + PREFIX_W_V, *c = w + PREFIX_W_C;
    w[PREFIX_W_R] = co;  /* PREFIX_joint_turn's */
    w[PREFIX_W_R + 1] = si;
    if (!parent) {
        V[0] = V[1] = V[2] = V[3] = V[4] = V[5] = 0.0;
    } else {
        PREFIX_motion_to_link_about(k, co, si, PREFIX_link_fixed[i], t, t + 9, parent, V);
    }
    V[k] += rate;  /* PREFIX_joint_motion's */
    c[k] = c[3 + k] = 0.0;
    c[k1] = V[k2]*rate;
    c[k2] = -V[k1]*rate;
    c[3 + k1] = V[3 + k2]*rate;
    c[3 + k2] = -V[3 + k1]*rate;
}

static void PREFIX_turning_velocity(int i, const real t[], const real q[], const real v[], const real parent[],
                                    real w[])
{
    switch (PREFIX_link_axis[i]) {
        case 0: PREFIX_turning_velocity_about(0, i, t, q, v, parent, w); break;
        case 1: PREFIX_turning_velocity_about(1, i, t, q, v, parent, w); break;
        default: PREFIX_turning_velocity_about(2, i, t, q, v, parent, w); break;
    }
}

/*
** A turning joint about its axis k, back to the root: U = I^A S (column k
** of the articulated inertia), D = U_k, u = tau - p_k; and when it has a
** parent, its articulated inertia projected off the axis, I^A - U U^T/D,
** and bias force p + I^A c + U (u - U^T c)/D (c zero on k and 3 + k),
** carried onto the parent's. Returns 0 when D is not positive.
*/
PREFIX_HOT int PREFIX_turning_back_about(const int k, int i, const real t[], const real tau[], real w[], real pw[])
{
    const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    const real *I = w + PREFIX_W_I, *P = w + PREFIX_W_P, *c = w + PREFIX_W_C;
    real *U = w + PREFIX_W_U, *pa = w + PREFIX_W_A;  /* p^a into the acceleration's place (scratch) */
    real D, inv_D, u, g;
    U[0] = I[k], U[1] = I[6 + k], U[2] = I[12 + k], U[3] = I[18 + k], U[4] = I[24 + k], U[5] = I[30 + k];
    D = U[k];
    if (!(D > 0.0)) return 0;
    inv_D = 1.0/D;
    u = t[13]*tau[PREFIX_link_coordinate[i]] - P[k];
    w[PREFIX_W_D] = inv_D;
    w[PREFIX_W_D + 1] = u;
    if (!pw) return 1;
    g = (u - (U[k1]*c[k1] + U[k2]*c[k2] + U[3 + k1]*c[3 + k1] + U[3 + k2]*c[3 + k2]))*inv_D;
    {
        const real c1 = c[k1], c2 = c[k2], c4 = c[3 + k1], c5 = c[3 + k2];
        /* row a of I c, its components k and 3 + k 0 */
        pa[0] = P[0] + I[k1]*c1 + I[k2]*c2 + I[3 + k1]*c4 + I[3 + k2]*c5 + U[0]*g;
        pa[1] = P[1] + I[6 + k1]*c1 + I[6 + k2]*c2 + I[9 + k1]*c4 + I[9 + k2]*c5 + U[1]*g;
        pa[2] = P[2] + I[12 + k1]*c1 + I[12 + k2]*c2 + I[15 + k1]*c4 + I[15 + k2]*c5 + U[2]*g;
        pa[3] = P[3] + I[18 + k1]*c1 + I[18 + k2]*c2 + I[21 + k1]*c4 + I[21 + k2]*c5 + U[3]*g;
        pa[4] = P[4] + I[24 + k1]*c1 + I[24 + k2]*c2 + I[27 + k1]*c4 + I[27 + k2]*c5 + U[4]*g;
        pa[5] = P[5] + I[30 + k1]*c1 + I[30 + k2]*c2 + I[33 + k1]*c4 + I[33 + k2]*c5 + U[5]*g;
    }
    PREFIX_force_to_parent_about(k, w[PREFIX_W_R], w[PREFIX_W_R + 1], PREFIX_link_fixed[i], t, t + 9, pa,
                                 pw + PREFIX_W_P);
    PREFIX_inertia_to_parent_about(k, w[PREFIX_W_R], w[PREFIX_W_R + 1], PREFIX_link_fixed[i], t, t + 9, I, U, inv_D,
                                   pw + PREFIX_W_I);
    return 1;
}

/*
** The free joint, out from N: its rotation R, and the link's velocity, the
** joint's own motion V = (omega; R^T (x, y, z)'); c = 0 (V is the joint's
** own velocity, in the link's axes).
*/
static void PREFIX_free_velocity(int i, const real t[], const real q[], const real v[], real w[])
{
    int a;
    PREFIX_joint_turn(i, t, q, w);
    for (a = 0; a < 6; ++a) w[PREFIX_W_V + a] = w[PREFIX_W_C + a] = 0.0;
    PREFIX_joint_motion(i, t, q, w, v, w + PREFIX_W_V);
}

/*
** The free joint, back at N: the link's spatial acceleration A solves
** I^A A = f - p^A, f the joint forces' wrench (n; R^T tau_xyz), n =
** Im(conj(Q) tau_Q)/2 (the power of tau_Q on Q' = Q (0, omega/2)); its
** acceleration from the joint is A + (0; g in the link's axes). Then
** (x, y, z)'' = R (a + omega x v), and Q'' = Q (rho, (s' omega + s omega')/2)/s
** with s' = 2 Q.Q' and rho = Q.Q'' = -|Q'|^2 - alpha Q.Q' - beta (s - 1)/2, the norm
** row's stabilised equation. Returns 0 when I^A is not positive definite.
*/
static int PREFIX_free_acceleration(int fixed, const real t[], const real gravity[], const real q[], const real v[],
                                    const real tau[], real alpha, real beta, real accel[], real w[])
{
    const int *j = PREFIX_free_coordinate;
    const real Q[4] = {q[j[3]], q[j[4]], q[j[5]], q[j[6]]}, dQ[4] = {v[j[3]], v[j[4]], v[j[5]], v[j[6]]};
    const real tQ[4] = {tau[j[3]], tau[j[4]], tau[j[5]], tau[j[6]]};
    const real *R = w + PREFIX_W_R, *V = w + PREFIX_W_V, *P = w + PREFIX_W_P;
    real *L = w + PREFIX_W_I, *A = w + PREFIX_W_A;
    real s = 0.0, sdot = 0.0, rate2 = 0.0, rho, g[3], cw[3], b[4], e[4];
    int a, c, k;
    A[0] = 0.5*(Q[0]*tQ[1] - tQ[0]*Q[1] - (Q[2]*tQ[3] - Q[3]*tQ[2]));
    A[1] = 0.5*(Q[0]*tQ[2] - tQ[0]*Q[2] - (Q[3]*tQ[1] - Q[1]*tQ[3]));
    A[2] = 0.5*(Q[0]*tQ[3] - tQ[0]*Q[3] - (Q[1]*tQ[2] - Q[2]*tQ[1]));
    for (a = 0; a < 3; ++a) A[3 + a] = R[a]*tau[j[0]] + R[3 + a]*tau[j[1]] + R[6 + a]*tau[j[2]];
    for (a = 0; a < 6; ++a) A[a] -= P[a];
    for (c = 0; c < 6; ++c) {  /* I^A = L L^T, in place (lower triangle), and A := I^A^-1 A */
        real d = L[6*c + c];
        for (k = 0; k < c; ++k) d -= L[6*c + k]*L[6*c + k];
        if (!(d > 0.0)) return 0;
        L[6*c + c] = sqrt(d);
        for (a = c + 1; a < 6; ++a) {
            real x = L[6*a + c];
            for (k = 0; k < c; ++k) x -= L[6*a + k]*L[6*c + k];
            L[6*a + c] = x/L[6*c + c];
        }
        for (k = 0; k < c; ++k) A[c] -= L[6*c + k]*A[k];
        A[c] /= L[6*c + c];
    }
    for (c = 5; c >= 0; --c) {
        for (k = c + 1; k < 6; ++k) A[c] -= L[6*k + c]*A[k];
        A[c] /= L[6*c + c];
    }
    /* g in the link's axes: R^T E^T g */
    for (a = 0; a < 3; ++a) g[a] = gravity[a];
    if (fixed) PREFIX_fixed3(t, 1, g);
    for (a = 0; a < 3; ++a) cw[a] = R[a]*g[0] + R[3 + a]*g[1] + R[6 + a]*g[2];
    for (a = 0; a < 3; ++a) g[a] = cw[a];
    PREFIX_cross3(V, V + 3, cw);
    for (a = 0; a < 3; ++a) g[a] += A[3 + a] + cw[a];  /* a + omega x v, a = A's linear part + g */
    for (a = 0; a < 3; ++a) accel[j[a]] = R[3*a]*g[0] + R[3*a + 1]*g[1] + R[3*a + 2]*g[2];
    for (a = 0; a < 4; ++a) {
        s += Q[a]*Q[a];
        sdot += 2.0*Q[a]*dQ[a];
        rate2 += dQ[a]*dQ[a];
    }
    rho = -rate2 - 0.5*alpha*sdot - 0.5*beta*(s - 1.0);
    b[0] = rho;
    for (a = 0; a < 3; ++a) b[1 + a] = 0.5*(sdot*V[a] + s*A[a]);
    /* Q'' = Q b / s */
    e[0] = Q[0]*b[0] - Q[1]*b[1] - Q[2]*b[2] - Q[3]*b[3];
    e[1] = Q[0]*b[1] + Q[1]*b[0] + Q[2]*b[3] - Q[3]*b[2];
    e[2] = Q[0]*b[2] + Q[2]*b[0] + Q[3]*b[1] - Q[1]*b[3];
    e[3] = Q[0]*b[3] + Q[3]*b[0] + Q[1]*b[2] - Q[2]*b[1];
    for (a = 0; a < 4; ++a) accel[j[3 + a]] = e[a]/s;
    return 1;
}

/*
** A turning joint about its axis k, out again: the link's acceleration (its
** parent's, or -g for N, carried to it, plus c and the joint's) and its
** joint's.
*/
PREFIX_HOT void PREFIX_turning_acceleration_about(const int k, int i, const real t[], const real parent[],
                                                  real accel[], real w[])
{
    real *A = w + PREFIX_W_A;
    const real *U = w + PREFIX_W_U, *c = w + PREFIX_W_C;
    real dd;
    PREFIX_motion_to_link_about(k, w[PREFIX_W_R], w[PREFIX_W_R + 1], PREFIX_link_fixed[i], t, t + 9, parent, A);
    A[0] += c[0], A[1] += c[1], A[2] += c[2], A[3] += c[3], A[4] += c[4], A[5] += c[5];
    dd = (w[PREFIX_W_D + 1] - (U[0]*A[0] + U[1]*A[1] + U[2]*A[2] + U[3]*A[3] + U[4]*A[4] + U[5]*A[5]))*w[PREFIX_W_D];
    A[k] += dd;
    accel[PREFIX_link_coordinate[i]] = t[13]*dd;
}

static void PREFIX_turning_acceleration(int i, const real t[], const real parent[], real accel[], real w[])
{
    switch (PREFIX_link_axis[i]) {
        case 0: PREFIX_turning_acceleration_about(0, i, t, parent, accel, w); break;
        case 1: PREFIX_turning_acceleration_about(1, i, t, parent, accel, w); break;
        default: PREFIX_turning_acceleration_about(2, i, t, parent, accel, w); break;
    }
}

/*
** q'' of the tree at (q, q') under the joint forces tau (one per
** coordinate), gravity included; alpha and beta stabilise a free joint's
** quaternion norm (its row phi = |Q|^2 - 1: phi'' + alpha phi' + beta phi = 0).
** Returns 0 when an articulated inertia about a joint's axis (or a free
** joint's) is not positive (a singular mass matrix), else 1.
*/
static int PREFIX_articulated(const real table[], const real q[], const real v[], const real tau[], real alpha,
                              real beta, real accel[], real work[])
{
    const real *gravity = table + PREFIX_NLINK*PREFIX_LINK_TABLE;
    int i, a;
    /* Out from the root: each link's velocity, bias acceleration and force, and its own inertia. */
    for (i = 0; i < PREFIX_NLINK; ++i) {
        const real *t = table + i*PREFIX_LINK_TABLE;
        real *w = work + i*PREFIX_LINK_WORK, *V = w + PREFIX_W_V, *I = w + PREFIX_W_I, *P = w + PREFIX_W_P;
        const int p = PREFIX_link_parent[i];
        const real *h = t + 15, *J = t + 18, m = t[14];
        real n[3], f[3], hv[3];
        if (PREFIX_link_axis[i] < 0)
            PREFIX_free_velocity(i, t, q, v, w);
        else
            PREFIX_turning_velocity(i, t, q, v, p < 0 ? 0 : work + p*PREFIX_LINK_WORK + PREFIX_W_V, w);
        PREFIX_link_inertia(t, I);
        /* p = V x* (I V): the momentum n = J w + h x v, f = m v - h x w; then (w x n + v x f; w x f) */
        PREFIX_cross3(h, V + 3, n);
        PREFIX_cross3(h, V, f);
        for (a = 0; a < 3; ++a) {
            n[a] += J[a]*V[a];
            f[a] = m*V[3 + a] - f[a];
        }
        n[0] += J[3]*V[1] + J[4]*V[2];
        n[1] += J[3]*V[0] + J[5]*V[2];
        n[2] += J[4]*V[0] + J[5]*V[1];
        PREFIX_cross3(V, n, P);
        PREFIX_cross3(V + 3, f, hv);
        for (a = 0; a < 3; ++a) P[a] += hv[a];
        PREFIX_cross3(V, f, P + 3);
    }
    /* Back to the root: each turning link's articulated inertia and bias force onto its parent's. */
    for (i = PREFIX_NLINK - 1; i >= 0; --i) {
        const real *t = table + i*PREFIX_LINK_TABLE;
        const int p = PREFIX_link_parent[i];
        real *w = work + i*PREFIX_LINK_WORK, *pw = p < 0 ? 0 : work + p*PREFIX_LINK_WORK;
        int ok = 1;
        switch (PREFIX_link_axis[i]) {  /* the free joint: from N, solved on the way out */
            case 0: ok = PREFIX_turning_back_about(0, i, t, tau, w, pw); break;
            case 1: ok = PREFIX_turning_back_about(1, i, t, tau, w, pw); break;
            case 2: ok = PREFIX_turning_back_about(2, i, t, tau, w, pw); break;
            default: break;
        }
        if (!ok) return 0;
    }
    /* Out again: each link's acceleration and its joint's. */
    for (i = 0; i < PREFIX_NLINK; ++i) {
        const real *t = table + i*PREFIX_LINK_TABLE;
        real *w = work + i*PREFIX_LINK_WORK;
        const int p = PREFIX_link_parent[i];
        const real base[6] = {0.0, 0.0, 0.0, -gravity[0], -gravity[1], -gravity[2]};
        if (PREFIX_link_axis[i] < 0) {
            if (!PREFIX_free_acceleration(PREFIX_link_fixed[i], t, gravity, q, v, tau, alpha, beta, accel, w)) return 0;
        } else {
            PREFIX_turning_acceleration(i, t, p < 0 ? base : work + p*PREFIX_LINK_WORK + PREFIX_W_A, accel, w);
        }
    }
    return 1;
}
#endif
