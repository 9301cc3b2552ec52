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
#define PREFIX_L_R 0  /* the cosine and sine of the link's angle in N */
#define PREFIX_L_W 2  /* its rate about the axis */
#define PREFIX_L_D 3  /* d, its origin from the parent's, in N's axes */
#define PREFIX_L_C 5  /* the velocity-product acceleration of its origin, -w_parent^2 d */
#define PREFIX_L_I 7  /* the articulated inertia: ww wx wy xx xy yy; its first column is U = I^A S */
#define PREFIX_L_P 13 /* the articulated bias force */
#define PREFIX_L_U 16 /* 1/D, and u */
#define PREFIX_L_A 18 /* the acceleration */

/*
** Out from the root, link i at (q, q'): its angle in N (the parent's, the
** joint frame's constant turn about the axis, and offset + sign q), the
** offset d of its origin (r, in the parent's axes, turned into N's), its
** rate, c = -w_parent^2 d, and its own inertia at its origin in N's axes
** [J, -hy, hx; -hy, m, 0; hx, 0, m] (h its first moment turned into N's)
** and bias force (0; -w^2 h) into the articulated ones.
*/
static void PREFIX_planar_out(int i, const real t[], const real q[], const real v[], const real *parent, real w[])
{
    const real angle = t[12] + t[13]*q[PREFIX_link_coordinate[i]];
    const real rx = t[9 + PREFIX_PX], ry = t[9 + PREFIX_PY], hx = t[15 + PREFIX_PX], hy = t[15 + PREFIX_PY];
    real co = cos(angle), si = sin(angle), pc = 1.0, ps = 0.0, pw = 0.0, h0, h1, w2;
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
    w[PREFIX_L_R] = co;
    w[PREFIX_L_R + 1] = si;
    w[PREFIX_L_W] = pw + t[13]*v[PREFIX_link_coordinate[i]];
    w[PREFIX_L_D] = pc*rx - ps*ry;
    w[PREFIX_L_D + 1] = ps*rx + pc*ry;
    w[PREFIX_L_C] = -pw*pw*w[PREFIX_L_D];
    w[PREFIX_L_C + 1] = -pw*pw*w[PREFIX_L_D + 1];
    h0 = co*hx - si*hy;
    h1 = si*hx + co*hy;
    w2 = w[PREFIX_L_W]*w[PREFIX_L_W];
    I[0] = t[18 + PREFIX_PLANAR_AXIS], I[1] = -h1, I[2] = h0, I[3] = t[14], I[4] = 0.0, I[5] = t[14];
    P[0] = 0.0, P[1] = -w2*h0, P[2] = -w2*h1;
}

/*
** Back to the parent pw from link i: its articulated inertia projected off
** the joint, I^A - U U^T/D (whose angular row and column are 0), carried to
** the parent's origin, X^T I X.
*/
static void PREFIX_planar_inertia_to_parent(const real w[], real pw[])
{
    const real *I = w + PREFIX_L_I, dx = w[PREFIX_L_D], dy = w[PREFIX_L_D + 1], inv_D = w[PREFIX_L_U];
    const real e = I[3] - I[1]*I[1]*inv_D, f = I[4] - I[1]*I[2]*inv_D, g = I[5] - I[2]*I[2]*inv_D;
    const real t1 = dx*f - dy*e, t2 = dx*g - dy*f;
    real *parent = pw + PREFIX_L_I;
    parent[0] += dx*t2 - dy*t1;
    parent[1] += t1;
    parent[2] += t2;
    parent[3] += e;
    parent[4] += f;
    parent[5] += g;
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
** Out again, link i from its parent's acceleration `from`: X from + c (c
** NULL: none), the joint's share dd = (u - U.A)/D added about the axis;
** returns the coordinate's sign*dd.
*/
static real PREFIX_planar_accelerate(const real t[], const real from[], const real c[], real w[])
{
    const real *I = w + PREFIX_L_I, dx = w[PREFIX_L_D], dy = w[PREFIX_L_D + 1];
    real *A = w + PREFIX_L_A, dd;
    A[0] = from[0];
    A[1] = from[1] - from[0]*dy;
    A[2] = from[2] + from[0]*dx;
    if (c) A[1] += c[0], A[2] += c[1];
    dd = (w[PREFIX_L_U + 1] - (I[0]*A[0] + I[1]*A[1] + I[2]*A[2]))*w[PREFIX_L_U];
    A[0] += dd;
    return t[13]*dd;
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
    for (i = 0; i < PREFIX_NLINK; ++i) {
        const int p = PREFIX_link_parent[i];
        PREFIX_planar_out(i, table + i*PREFIX_LINK_TABLE, q, v, p < 0 ? 0 : work + p*PREFIX_LINK_WORK,
                          work + i*PREFIX_LINK_WORK);
    }
    for (i = PREFIX_NLINK - 1; i >= 0; --i) {
        const real *t = table + i*PREFIX_LINK_TABLE;
        const int p = PREFIX_link_parent[i];
        real *w = work + i*PREFIX_LINK_WORK, *I = w + PREFIX_L_I, *P = w + PREFIX_L_P;
        real u, g, pa[3];
        if (!(I[0] > 0.0)) return 0;
        w[PREFIX_L_U] = 1.0/I[0];
        w[PREFIX_L_U + 1] = u = t[13]*tau[PREFIX_link_coordinate[i]] - P[0];
        if (p < 0) continue;
        /* pa = p + I^a c + U u/D, I^a = I^A - U U^T/D, c = (0; cx, cy): I c + U g, g = (u - U.c)/D */
        g = (u - I[1]*w[PREFIX_L_C] - I[2]*w[PREFIX_L_C + 1])*w[PREFIX_L_U];
        pa[0] = P[0] + u;
        pa[1] = P[1] + I[3]*w[PREFIX_L_C] + I[4]*w[PREFIX_L_C + 1] + I[1]*g;
        pa[2] = P[2] + I[4]*w[PREFIX_L_C] + I[5]*w[PREFIX_L_C + 1] + I[2]*g;
        PREFIX_planar_inertia_to_parent(w, work + p*PREFIX_LINK_WORK);
        PREFIX_planar_force_to_parent(w, pa, work + p*PREFIX_LINK_WORK);
    }
    for (i = 0; i < PREFIX_NLINK; ++i) {
        const int p = PREFIX_link_parent[i], k = PREFIX_link_coordinate[i];
        real *w = work + i*PREFIX_LINK_WORK;
        accel[k] = PREFIX_planar_accelerate(table + i*PREFIX_LINK_TABLE,
                                            p < 0 ? base : work + p*PREFIX_LINK_WORK + PREFIX_L_A, w + PREFIX_L_C, w);
    }
    return 1;
}
