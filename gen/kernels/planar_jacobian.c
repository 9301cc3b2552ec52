// planar_jacobian.c — what tree_jacobian.c needs of a planar tree (every
// joint turning about PREFIX_PLANAR_AXIS, planar.c's trees), in the plane:
// the derivatives of the inverse dynamics ID(q, q', q'') = M q'' + k under
// the weight by each coordinate and each rate, Newton–Euler at each link's
// origin in N's axes with three quantities per vector as in planar.c, and
// M^-1 applied to them column by column by planar_solve.c's pass (docs/
// theory.md §9, "The Jacobian of the planar recursion"). Reads articulated.c's
// table rows as planar.c does and uses planar_out; the generator pastes it
// after planar.c and planar_solve.c for a planar tree with a Jacobian, and
// tree_jacobian.c calls it in place of its spatial passes.

/*
** Newton–Euler's own row in each link's work row, past the planar passes'
** (which keep their factors for the solves): planar.c's layout (planar_out's
** R, W, D and I; the acceleration in L_A) from PREFIX_L_ID, then the
** subtree's force at the link's origin (the moment about the axis; the
** force) at PREFIX_L_ID + PREFIX_L_F.
*/
#define PREFIX_L_ID 28
#define PREFIX_L_F 21

/*
** A link's row of the tangent scratch: the derivatives of its origin's
** acceleration (x, y; no direction moves alpha), of its subtree's force and
** of its offset d in one direction, and whether the direction moves it (1)
** or not (0).
*/
#define PREFIX_PT_A 0
#define PREFIX_PT_F 2
#define PREFIX_PT_D 5
#define PREFIX_PT_MOVED 7

/* Both rows fit the ones the plan gives each link (a negative size fails the build). */
typedef char PREFIX_planar_rows_fit[PREFIX_L_ID + PREFIX_L_F + 3 <= PREFIX_LINK_WORK &&
                                    PREFIX_PT_MOVED < PREFIX_LINK_TANGENT ? 1 : -1];

/*
** At (q, q', q''), weight 1: out from the root, each link's angle, offset
** d, rate w, first moment h in N's axes and c = -w_p^2 d (planar_out), its
** acceleration (alpha; a) from its parent's, alpha = alpha_p + sign q''_j
** and a = a_p + alpha_p k x d + c, the base's (0; -g); its own force at its origin,
** f = m a + alpha k x h - w^2 h and n = J alpha + h x a; back to the root,
** each subtree's force (n + d x f carried to the parent). In the rows at
** PREFIX_L_ID.
*/
static void PREFIX_planar_inverse_dynamics(const real table[], const real q[], const real v[], const real qdd[],
                                           real work[])
{
    const real *gravity = table + PREFIX_NLINK*PREFIX_LINK_TABLE;
    const real base[3] = {0.0, -gravity[PREFIX_PX], -gravity[PREFIX_PY]};
    int i;
    PREFIX_planar_turns(table, q, work + PREFIX_L_ID);
    for (i = 0; i < PREFIX_NLINK; ++i) {
        const real *t = table + i*PREFIX_LINK_TABLE;
        real *w = work + i*PREFIX_LINK_WORK + PREFIX_L_ID, *A = w + PREFIX_L_A, *F = w + PREFIX_L_F;
        const int p = PREFIX_link_parent[i];
        const real *parent = p < 0 ? 0 : work + p*PREFIX_LINK_WORK + PREFIX_L_ID;
        const real *pa = parent ? parent + PREFIX_L_A : base;
        real m, J, hx, hy, rate;
        PREFIX_planar_out(i, t, v, parent, w);
        m = w[PREFIX_L_I + 3], J = w[PREFIX_L_I], hx = w[PREFIX_L_I + 2], hy = -w[PREFIX_L_I + 1], rate = w[PREFIX_L_W];
        A[0] = pa[0] + t[13]*qdd[PREFIX_link_coordinate[i]];
        A[1] = pa[1] - pa[0]*w[PREFIX_L_D + 1] + w[PREFIX_L_C];
        A[2] = pa[2] + pa[0]*w[PREFIX_L_D] + w[PREFIX_L_C + 1];
        F[0] = J*A[0] + hx*A[2] - hy*A[1];
        F[1] = m*A[1] - A[0]*hy - rate*rate*hx;
        F[2] = m*A[2] + A[0]*hx - rate*rate*hy;
    }
    for (i = PREFIX_NLINK - 1; i >= 0; --i) {
        const int p = PREFIX_link_parent[i];
        const real *w = work + i*PREFIX_LINK_WORK + PREFIX_L_ID, *F = w + PREFIX_L_F;
        real *pF;
        if (p < 0) continue;
        pF = work + p*PREFIX_LINK_WORK + PREFIX_L_ID + PREFIX_L_F;
        pF[0] += F[0] + w[PREFIX_L_D]*F[2] - w[PREFIX_L_D + 1]*F[1];
        pF[1] += F[1];
        pF[2] += F[2];
    }
}

/*
** The derivatives of ID by each coordinate and each rate, as tree_jacobian.c's
** tree_inverse_dynamics_derivatives writes them: d ID_i/dq_j into dq[i*stride
** + j], d ID_i/dq'_j into dv[i*stride + j]; work as planar_inverse_dynamics
** left it at the same (q, q', q''), tangent PREFIX_NLINK*PREFIX_LINK_TANGENT
** reals of scratch.
**
** A coordinate of link s turns s's subtree by sign_s, a rate moves its
** rate w by sign_s. Out from s over the subtree (da = 0 and dd = 0 at s,
** whose parent does not move):
**   by a coordinate: dh = sign_s k x h,  dd = sign_s k x d,  da = da_p + alpha_p k x dd - w_p^2 dd;
**   by a rate:       dw = sign_s,        da = da_p - 2 w_p dw d;
**   df = m da + alpha k x dh - w^2 dh - 2 w dw h,  dn = dh x a + h x da.
** Back to the root, over the subtree and s's ancestors, each link's joint
** takes sign dn of its subtree's and carries dn + dd x F + d x dF and dF to
** its parent.
*/
static void PREFIX_planar_inverse_dynamics_derivatives(const real table[], int stride, real dq[], real dv[],
                                                       const real work[], real tangent[])
{
    int s, by_rate, i;
    for (s = 0; s < PREFIX_NLINK; ++s) {
        const int j = PREFIX_link_coordinate[s];
        const real sign = table[s*PREFIX_LINK_TABLE + 13];
        for (by_rate = 0; by_rate < 2; ++by_rate) {
            real *out = by_rate ? dv : dq;
            for (i = 0; i < PREFIX_NQ; ++i) out[i*stride + j] = 0.0;
            for (i = 0; i < PREFIX_NLINK; ++i) tangent[i*PREFIX_LINK_TANGENT + PREFIX_PT_MOVED] = 0.0;
            for (i = s; i < PREFIX_NLINK; ++i) {  /* out from s, over its subtree */
                const int p = PREFIX_link_parent[i];
                const real *w = work + i*PREFIX_LINK_WORK + PREFIX_L_ID, *A = w + PREFIX_L_A;
                const real dx = w[PREFIX_L_D], dy = w[PREFIX_L_D + 1], hx = w[PREFIX_L_I + 2], hy = -w[PREFIX_L_I + 1];
                const real m = w[PREFIX_L_I + 3], rate = w[PREFIX_L_W];
                real *d = tangent + i*PREFIX_LINK_TANGENT, *da = d + PREFIX_PT_A, *dF = d + PREFIX_PT_F;
                real *dd = d + PREFIX_PT_D, dhx = 0.0, dhy = 0.0, dw = 0.0;
                if (i != s && (p < 0 || tangent[p*PREFIX_LINK_TANGENT + PREFIX_PT_MOVED] == 0.0)) continue;
                d[PREFIX_PT_MOVED] = 1.0;
                da[0] = da[1] = dd[0] = dd[1] = 0.0;
                if (i != s) {
                    const real *pda = tangent + p*PREFIX_LINK_TANGENT + PREFIX_PT_A;
                    const real *pw = work + p*PREFIX_LINK_WORK + PREFIX_L_ID;
                    const real alpha_p = pw[PREFIX_L_A], w_p = pw[PREFIX_L_W];
                    da[0] = pda[0], da[1] = pda[1];
                    if (by_rate) {
                        da[0] -= 2.0*w_p*sign*dx;
                        da[1] -= 2.0*w_p*sign*dy;
                    } else {
                        dd[0] = -sign*dy, dd[1] = sign*dx;
                        da[0] += -alpha_p*dd[1] - w_p*w_p*dd[0];
                        da[1] += alpha_p*dd[0] - w_p*w_p*dd[1];
                    }
                }
                if (by_rate)
                    dw = sign;
                else
                    dhx = -sign*hy, dhy = sign*hx;
                dF[0] = dhx*A[2] - dhy*A[1] + hx*da[1] - hy*da[0];
                dF[1] = m*da[0] - A[0]*dhy - rate*rate*dhx - 2.0*rate*dw*hx;
                dF[2] = m*da[1] + A[0]*dhx - rate*rate*dhy - 2.0*rate*dw*hy;
            }
            for (i = PREFIX_NLINK - 1; i >= 0; --i) {  /* back to the root: the subtree and s's ancestors */
                const int p = PREFIX_link_parent[i];
                const real *w = work + i*PREFIX_LINK_WORK + PREFIX_L_ID, *F = w + PREFIX_L_F;
                const real dx = w[PREFIX_L_D], dy = w[PREFIX_L_D + 1];
                const real *d = tangent + i*PREFIX_LINK_TANGENT, *dF = d + PREFIX_PT_F, *dd = d + PREFIX_PT_D;
                real *pd;
                if (d[PREFIX_PT_MOVED] == 0.0) continue;
                out[PREFIX_link_coordinate[i]*stride + j] = table[i*PREFIX_LINK_TABLE + 13]*dF[0];
                if (p < 0) continue;
                pd = tangent + p*PREFIX_LINK_TANGENT;
                if (pd[PREFIX_PT_MOVED] == 0.0) {  /* an ancestor of s: nothing of its own moves */
                    pd[PREFIX_PT_F] = pd[PREFIX_PT_F + 1] = pd[PREFIX_PT_F + 2] = 0.0;
                    pd[PREFIX_PT_D] = pd[PREFIX_PT_D + 1] = 0.0;
                    pd[PREFIX_PT_MOVED] = 1.0;
                }
                pd[PREFIX_PT_F] += dF[0] + dd[0]*F[2] - dd[1]*F[1] + dx*dF[2] - dy*dF[1];
                pd[PREFIX_PT_F + 1] += dF[1];
                pd[PREFIX_PT_F + 2] += dF[2];
            }
        }
    }
}

/*
** B := M^-1 B for B (NQ rows of `width` reals, row-major), column by column
** by planar_solve's pass with the factors of the PREFIX_planar call before
** it on the same work (tree_jacobian makes that call itself rather than
** rely on its caller's rhs: about 1 % of its count); column (NQ) is scratch.
*/
static void PREFIX_planar_solve_columns(const real table[], const real q[], real B[], int width, real work[],
                                        real column[])
{
    int i, k;
    for (k = 0; k < width; ++k) {
        for (i = 0; i < PREFIX_NQ; ++i) column[i] = B[i*width + k];
        PREFIX_planar_solve(table, q, column, column, work);
        for (i = 0; i < PREFIX_NQ; ++i) B[i*width + k] = column[i];
    }
}
