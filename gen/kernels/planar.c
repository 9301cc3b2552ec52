// planar.c — forward dynamics of a planar tree of rigid links (every joint
// turning about one axis of N, PREFIX_PLANAR_AXIS, and every constant turn
// between them keeping it) by the articulated-body algorithm in the plane:
// three quantities per vector where articulated.c carries six, one sine and
// cosine per link, the articulated inertia a 3 x 3 symmetric block
// (docs/theory.md §9, "The planar recursion"). It reads articulated.c's
// tables (the same rows: the out-of-plane parts of a link's origin, first
// moment and inertia, and of gravity, do not move a planar tree) and its
// work rows (the first 21 reals of each). The generator pastes it
// after articulated.c (gen/emit/emit_articulated.cpp) for a model whose tree
// has the axis (ArticulatedTree::planar_axis); tests/gen/test_planar_kernels.c
// runs it.

/*
** The plane's axes: x and y are N's axes PREFIX_PLANAR_AXIS + 1 and + 2
** (mod 3), so that x, y and the axis are right-handed. Constants, so that
** each model's copy indexes its tables directly.
*/
#define PREFIX_PX ((PREFIX_PLANAR_AXIS + 1) % 3)
#define PREFIX_PY ((PREFIX_PLANAR_AXIS + 2) % 3)

/*
** A planar vector is (angular; x, y) at the link's origin in N's axes: a
** motion (the rate about the axis; the origin's velocity) or a force (the
** moment about the origin; the force). Moving it between origins needs no
** turn, only the origin's offset d from its parent's.
*/
#define PREFIX_L_R 0  /* the cosine and sine of the link's angle in N (before the out pass: of its joint's turn) */
#define PREFIX_L_W 2  /* its rate about the axis */
#define PREFIX_L_D 3  /* d, its origin from the parent's, in N's axes */
#define PREFIX_L_C 5  /* the velocity-product acceleration of its origin, -w_parent^2 d */
#define PREFIX_L_I 7  /* the articulated inertia: ww wx wy xx xy yy; its first column is U = I^A S */
#define PREFIX_L_P 13 /* the articulated bias force */
#define PREFIX_L_U 16 /* 1/D, and u */
#define PREFIX_L_A 18 /* the acceleration */

/*
** Out from the root, link i at q' (w's R holding the cosine and sine of
** its joint's turn, offset + sign q): its angle in N (that turn, the joint
** frame's constant turn about the axis, and the parent's angle), the
** offset d of its origin (r, in the parent's axes, turned into N's), its
** rate, c = -w_parent^2 d, and its own inertia at its origin in N's axes
** [J, -hy, hx; -hy, m, 0; hx, 0, m] (h its first moment turned into N's)
** and bias force (0; -w^2 h) into the articulated ones. Forced inline:
** planar_jacobian.c calls it too, and a second caller would otherwise cost
** rhs its inlining (3 % of its instructions).
*/
PREFIX_HOT void PREFIX_planar_out(int i, const real t[], const real v[], const real *parent, real w[])
{
    const real rx = t[9 + PREFIX_PX], ry = t[9 + PREFIX_PY], hx = t[15 + PREFIX_PX], hy = t[15 + PREFIX_PY];
    real co = w[PREFIX_L_R], si = w[PREFIX_L_R + 1], pc = 1.0, ps = 0.0, pw = 0.0, dx, dy, h0, h1, rate, w2;
    real *I = w + PREFIX_L_I, *P = w + PREFIX_L_P;
    if (PREFIX_link_fixed[i]) {  /* the joint frame's turn: E's column x holds its cosine and sine */
        const real ec = t[3*PREFIX_PX + PREFIX_PX], es = t[3*PREFIX_PY + PREFIX_PX], c0 = co;
        co = ec*c0 - es*si;
        si = es*c0 + ec*si;
    }
    if (parent) {
        const real c0 = co;
        pc = parent[PREFIX_L_R], ps = parent[PREFIX_L_R + 1], pw = parent[PREFIX_L_W];
        co = pc*c0 - ps*si;
        si = ps*c0 + pc*si;
    }
    dx = pc*rx - ps*ry;
    dy = ps*rx + pc*ry;
    h0 = co*hx - si*hy;
    h1 = si*hx + co*hy;
    rate = pw + t[13]*v[PREFIX_link_coordinate[i]];
    w2 = rate*rate;
    w[PREFIX_L_R] = co;
    w[PREFIX_L_R + 1] = si;
    w[PREFIX_L_W] = rate;
    w[PREFIX_L_D] = dx;
    w[PREFIX_L_D + 1] = dy;
    w[PREFIX_L_C] = -pw*pw*dx;
    w[PREFIX_L_C + 1] = -pw*pw*dy;
    I[0] = t[18 + PREFIX_PLANAR_AXIS], I[1] = -h1, I[2] = h0, I[3] = t[14], I[4] = 0.0, I[5] = t[14];
    P[0] = 0.0, P[1] = -w2*h0, P[2] = -w2*h1;
}

/* Back to the parent pw from link i: its force pa at the parent's origin, (n + d x f; f). */
static void PREFIX_planar_force_to_parent(const real w[], const real pa[], real pw[])
{
    const real dx = w[PREFIX_L_D], dy = w[PREFIX_L_D + 1];
    real *force = pw + PREFIX_L_P;
    force[0] += pa[0] + dx*pa[2] - dy*pa[1];
    force[1] += pa[1];
    force[2] += pa[2];
}

/*
** Back to the parent pw from link i: its articulated inertia projected off
** the joint, I^a = I^A - U U^T/D (whose angular row and column are 0),
** carried to the parent's origin, X^T I^a X; and its force there,
** pa = p + I^a c + U u/D (c = (0; cx, cy)).
*/
static void PREFIX_planar_to_parent(const real w[], real pw[])
{
    const real *I = w + PREFIX_L_I, *P = w + PREFIX_L_P, dx = w[PREFIX_L_D], dy = w[PREFIX_L_D + 1];
    const real cx = w[PREFIX_L_C], cy = w[PREFIX_L_C + 1], u = w[PREFIX_L_U + 1];
    const real ux = I[1]*w[PREFIX_L_U], uy = I[2]*w[PREFIX_L_U]; /* U/D's x and y */
    const real e = I[3] - ux*I[1], f = I[4] - ux*I[2], g = I[5] - uy*I[2]; /* I^a's xx, xy, yy */
    const real t1 = dx*f - dy*e, t2 = dx*g - dy*f;
    const real pa[3] = {P[0] + u, P[1] + e*cx + f*cy + ux*u, P[2] + f*cx + g*cy + uy*u};
    real *inertia = pw + PREFIX_L_I;
    PREFIX_planar_force_to_parent(w, pa, pw); /* first: its loads of d come before a store to pw might alias them */
    inertia[0] += dx*t2 - dy*t1;
    inertia[1] += t1;
    inertia[2] += t2;
    inertia[3] += e;
    inertia[4] += f;
    inertia[5] += g;
}

/*
** Out again, link i from its parent's acceleration `from`: a = X from + c
** (c zero: none), and the joint's share dd = (u - U.a)/D added about the
** axis, which makes the angular part (u - Ux ax - Uy ay)/D (Uw/D = 1);
** returns the coordinate's sign*dd.
*/
static real PREFIX_planar_accelerate(const real t[], const real from[], const real c[], real w[])
{
    const real *I = w + PREFIX_L_I, dx = w[PREFIX_L_D], dy = w[PREFIX_L_D + 1];
    const real ax = from[1] - from[0]*dy + c[0], ay = from[2] + from[0]*dx + c[1];
    const real angular = (w[PREFIX_L_U + 1] - I[1]*ax - I[2]*ay)*w[PREFIX_L_U];
    real *A = w + PREFIX_L_A;
    A[0] = angular, A[1] = ax, A[2] = ay;
    return t[13]*(angular - from[0]);
}

/*
** Each link's joint turn, offset + sign q, as its cosine and sine into R of
** its row in `rows` (the work's rows, or planar_jacobian.c's within them):
** in a pass of their own, so that no call in the out pass spills its values.
*/
PREFIX_HOT void PREFIX_planar_turns(const real table[], const real q[], real rows[])
{
    int i;
    for (i = 0; i < PREFIX_NLINK; ++i) {
        const real *t = table + i*PREFIX_LINK_TABLE, angle = t[12] + t[13]*q[PREFIX_link_coordinate[i]];
        rows[i*PREFIX_LINK_WORK + PREFIX_L_R] = cos(angle);
        rows[i*PREFIX_LINK_WORK + PREFIX_L_R + 1] = sin(angle);
    }
}

/*
** q'' of the planar tree at (q, q') under the joint forces tau, gravity's
** components in the plane included: the three passes of PREFIX_articulated.
** Returns 0 when an articulated inertia about a joint's axis is not
** positive (a singular mass matrix), else 1.
*/
static int PREFIX_planar(const real table[], const real q[], const real v[], const real tau[], real accel[],
                         real work[])
{
    const real *gravity = table + PREFIX_NLINK*PREFIX_LINK_TABLE;
    const real base[3] = {0.0, -gravity[PREFIX_PX], -gravity[PREFIX_PY]};
    int i;
    PREFIX_planar_turns(table, q, work);
    for (i = 0; i < PREFIX_NLINK; ++i) {
        const int p = PREFIX_link_parent[i];
        PREFIX_planar_out(i, table + i*PREFIX_LINK_TABLE, v, p < 0 ? 0 : work + p*PREFIX_LINK_WORK,
                          work + i*PREFIX_LINK_WORK);
    }
    for (i = PREFIX_NLINK - 1; i >= 0; --i) {
        const int p = PREFIX_link_parent[i];
        real *w = work + i*PREFIX_LINK_WORK;
        if (!(w[PREFIX_L_I] > 0.0)) return 0;
        w[PREFIX_L_U] = 1.0/w[PREFIX_L_I];
        w[PREFIX_L_U + 1] = table[i*PREFIX_LINK_TABLE + 13]*tau[PREFIX_link_coordinate[i]] - w[PREFIX_L_P];
        if (p >= 0) PREFIX_planar_to_parent(w, work + p*PREFIX_LINK_WORK);
    }
    for (i = 0; i < PREFIX_NLINK; ++i) {
        const int p = PREFIX_link_parent[i];
        real *w = work + i*PREFIX_LINK_WORK;
        accel[PREFIX_link_coordinate[i]] = PREFIX_planar_accelerate(
            table + i*PREFIX_LINK_TABLE, p < 0 ? base : work + p*PREFIX_LINK_WORK + PREFIX_L_A, w + PREFIX_L_C, w);
    }
    return 1;
}
