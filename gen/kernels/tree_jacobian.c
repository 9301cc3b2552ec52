// tree_jacobian.c — the Jacobian of rhs on the articulated-body recursion,
// by the analytical derivatives of the recursive Newton–Euler algorithm
// (Carpentier and Mansard, "Analytical derivatives of rigid body dynamics
// algorithms", RSS 2018): q'' = FD(q, q') solves ID(q, q', q'') = tau(q, q'),
// so d q''/dx = -M^-1 (d ID/dx - d tau/dx), d ID/dx by one tangent pass of
// the recursion per coordinate and per rate (O(N) each over the subtree the
// coordinate moves and its ancestors: O(N^2) in all), M by the
// composite-rigid-body algorithm and its Cholesky factor. Turning joints
// only. Over the tables and with the joint and transform functions of
// articulated.c and tree_dynamics.c, which the generator pastes before it;
// tests/gen/test_kernels.c runs it.

/*
** A link's row of the tangent scratch (PREFIX_LINK_TANGENT reals): the
** derivatives of its velocity V, acceleration A and force F in one
** direction, and whether the direction moves them (1) or not (0); then,
** the same for every direction, its momentum I V and A - c (c = V x S q',
** the velocity-product acceleration).
*/
#define PREFIX_T_V 0
#define PREFIX_T_A 6
#define PREFIX_T_F 12
#define PREFIX_T_MOVED 18
#define PREFIX_T_IV 19
#define PREFIX_T_AC 25

/* out += scale (e_k x m_a; e_k x m_b), m a motion or a force vector, e_k the joint's axis. */
static void PREFIX_axis_cross_add(int k, real scale, const real m[], real out[])
{
    const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    out[k1] -= scale*m[k2];
    out[k2] += scale*m[k1];
    out[3 + k1] -= scale*m[3 + k2];
    out[3 + k2] += scale*m[3 + k1];
}

/*
** The derivatives of ID(q, q', qdd) = M qdd + k under the weight (the
** inverse dynamics of tree_inverse_dynamics, weight 1) by each coordinate
** and each rate: d ID_i/dq_j into dq[i*stride + j], d ID_i/dq'_j into
** dv[i*stride + j] (every entry of the NQ x NQ blocks written). `work` as
** tree_inverse_dynamics left it at the same (q, q', qdd, weight 1): each
** link's turn, V, A and F (its force and its subtree's, in W_P);
** `tangent` PREFIX_NLINK*PREFIX_LINK_TANGENT reals of scratch.
**
** A direction moves link s's angle theta = offset + sign q_j (by sign) or
** its rate (by sign): out from s, for each link of its subtree
**   dV = X dV_parent - dtheta e_k x V + dq'_j S,
**   dc = dV x S q' + V x S dq',  (c = V x S q', S = sign e_k)
**   dA = X dA_parent - dtheta e_k x (A - c) + dc,
**   dF = I dA + dV x* I V + V x* I dV,
** (X depends on theta as d(X m)/dtheta = -e_k x X m, and only link s's
** does) then back to the root, each moved link's joint taking sign dF_k and
** carrying X^T (dF + dtheta e_k x* F) to its parent.
*/
static void PREFIX_tree_inverse_dynamics_derivatives(const real table[], const real q[], const real v[], int stride,
                                                     real dq[], real dv[], real work[], real tangent[])
{
    int s, by_rate, i, a;
    for (i = 0; i < PREFIX_NLINK; ++i) {
        const real *t = table + i*PREFIX_LINK_TABLE, *w = work + i*PREFIX_LINK_WORK;
        real *d = tangent + i*PREFIX_LINK_TANGENT, motion[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}, c[6];
        motion[PREFIX_link_axis[i]] = t[13]*v[PREFIX_link_coordinate[i]];
        PREFIX_motion_cross(w + PREFIX_W_V, motion, c);
        for (a = 0; a < 6; ++a) d[PREFIX_T_AC + a] = w[PREFIX_W_A + a] - c[a];
        PREFIX_link_inertia_times(t, w + PREFIX_W_V, d + PREFIX_T_IV);
    }
    for (s = 0; s < PREFIX_NLINK; ++s) {
        const int j = PREFIX_link_coordinate[s];
        for (by_rate = 0; by_rate < 2; ++by_rate) {
            real *out = by_rate ? dv : dq;
            for (i = 0; i < PREFIX_NQ; ++i) out[i*stride + j] = 0.0;
            for (i = 0; i < PREFIX_NLINK; ++i) tangent[i*PREFIX_LINK_TANGENT + PREFIX_T_MOVED] = 0.0;
            for (i = s; i < PREFIX_NLINK; ++i) {  /* out from s, over its subtree */
                const real *t = table + i*PREFIX_LINK_TABLE, *w = work + i*PREFIX_LINK_WORK;
                const real *V = w + PREFIX_W_V;
                real *d = tangent + i*PREFIX_LINK_TANGENT, *dV = d + PREFIX_T_V, *dA = d + PREFIX_T_A, *dF = d + PREFIX_T_F;
                const int p = PREFIX_link_parent[i], k = PREFIX_link_axis[i];
                const real sign = t[13];
                real motion[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}, dc[6], x[6], momentum[6], y[6];
                if (i != s && (p < 0 || tangent[p*PREFIX_LINK_TANGENT + PREFIX_T_MOVED] == 0.0)) continue;
                d[PREFIX_T_MOVED] = 1.0;
                motion[k] = sign*v[PREFIX_link_coordinate[i]];
                if (i == s) {
                    for (a = 0; a < 12; ++a) d[a] = 0.0;
                } else {
                    PREFIX_joint_to_link(i, t, q, w, tangent + p*PREFIX_LINK_TANGENT + PREFIX_T_V, dV);
                    PREFIX_joint_to_link(i, t, q, w, tangent + p*PREFIX_LINK_TANGENT + PREFIX_T_A, dA);
                }
                if (i == s && by_rate) {
                    dV[k] += sign;
                } else if (i == s) {
                    PREFIX_axis_cross_add(k, -sign, V, dV);
                    PREFIX_axis_cross_add(k, -sign, d + PREFIX_T_AC, dA);
                }
                PREFIX_motion_cross(dV, motion, dc);
                if (i == s && by_rate) {  /* V x S dq' */
                    real unit[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
                    unit[k] = sign;
                    PREFIX_motion_cross(V, unit, x);
                    for (a = 0; a < 6; ++a) dc[a] += x[a];
                }
                for (a = 0; a < 6; ++a) dA[a] += dc[a];
                PREFIX_link_inertia_times(t, dA, dF);
                PREFIX_force_cross(dV, d + PREFIX_T_IV, y);
                for (a = 0; a < 6; ++a) dF[a] += y[a];
                PREFIX_link_inertia_times(t, dV, momentum);
                PREFIX_force_cross(V, momentum, y);
                for (a = 0; a < 6; ++a) dF[a] += y[a];
            }
            for (i = PREFIX_NLINK - 1; i >= 0; --i) {  /* back to the root: the subtree and s's ancestors */
                const real *t = table + i*PREFIX_LINK_TABLE, *w = work + i*PREFIX_LINK_WORK;
                real *d = tangent + i*PREFIX_LINK_TANGENT, *pd, carried[6];
                const int p = PREFIX_link_parent[i], k = PREFIX_link_axis[i];
                if (d[PREFIX_T_MOVED] == 0.0) continue;
                out[PREFIX_link_coordinate[i]*stride + j] = t[13]*d[PREFIX_T_F + k];
                if (p < 0) continue;
                for (a = 0; a < 6; ++a) carried[a] = d[PREFIX_T_F + a];
                if (i == s && !by_rate) PREFIX_axis_cross_add(k, t[13], w + PREFIX_W_P, carried);
                pd = tangent + p*PREFIX_LINK_TANGENT;
                if (pd[PREFIX_T_MOVED] == 0.0) {  /* an ancestor of s: nothing of its own moves */
                    for (a = 0; a < 6; ++a) pd[PREFIX_T_F + a] = 0.0;
                    pd[PREFIX_T_MOVED] = 1.0;
                }
                PREFIX_force_to_parent(k, w[PREFIX_W_R], w[PREFIX_W_R + 1], PREFIX_link_fixed[i], t, t + 9, carried,
                                       pd + PREFIX_T_F);
            }
        }
    }
}

/* row -= l other, over `width` reals (by pairs: half the loop's own instructions). */
static void PREFIX_row_axpy(real l, const real other[], real row[], int width)
{
    int k;
    for (k = 0; k + 1 < width; k += 2) {
        row[k] -= l*other[k];
        row[k + 1] -= l*other[k + 1];
    }
    if (k < width) row[k] -= l*other[k];
}

/*
** B := M^-1 B for B (NQ rows of `width` reals, row-major) with L L^T = M (L
** the lower triangle of M): by whole rows, L's entries one at a time.
*/
static void PREFIX_tree_solve_rows(const real L[], real B[], int width)
{
    const int n = PREFIX_NQ;
    int i, j, k;
    for (i = 0; i < n; ++i) {
        real *row = B + i*width, scale = 1.0/L[i*n + i];
        for (j = 0; j < i; ++j) PREFIX_row_axpy(L[i*n + j], B + j*width, row, width);
        for (k = 0; k < width; ++k) row[k] *= scale;
    }
    for (i = n - 1; i >= 0; --i) {
        real *row = B + i*width, scale = 1.0/L[i*n + i];
        for (j = i + 1; j < n; ++j) PREFIX_row_axpy(L[j*n + i], B + j*width, row, width);
        for (k = 0; k < width; ++k) row[k] *= scale;
    }
}

/*
** df/dx (NX x NX, NX = 2 NQ) and df/du (NX x nu) of rhs's system
** x' = (q', q'') on the recursion, at the state x and the accelerations
** qdd rhs gave there, with tau's derivatives dtau_dx (NQ x NX) and dtau_du
** (NQ x nu): q' = v gives the identity's rows; q'' the rows
** -M^-1 (d ID/dx - d tau/dx) and M^-1 d tau/du. M (NQ x NQ), column (NQ),
** work (the links') and tangent are scratch. Returns 0 when M is not
** positive definite (LGC_MASS_PIVOT of a diagonal entry), else 1.
*/
static int PREFIX_tree_jacobian(const real table[], const real state[], const real qdd[], const real dtau_dx[],
                                const real dtau_du[], int nu, real dfdx[], real dfdu[], real M[], real column[],
                                real work[], real tangent[])
{
    const int n = PREFIX_NQ, nx = 2*PREFIX_NQ;
    const real *q = state, *v = state + PREFIX_NQ;
    int i, j, k;
    for (i = 0; i < n*nx; ++i) dfdx[i] = 0.0;
    for (i = 0; i < n; ++i) dfdx[i*nx + n + i] = 1.0;
    for (i = 0; i < n*nu; ++i) dfdu[i] = 0.0;
    PREFIX_tree_inverse_dynamics(table, q, v, qdd, 1, column, work);
    PREFIX_tree_inverse_dynamics_derivatives(table, q, v, nx, dfdx + n*nx, dfdx + n*nx + n, work, tangent);
    PREFIX_tree_mass_matrix(table, q, M, work);
    for (j = 0; j < n; ++j) {  /* M = L L^T in place (the lower triangle) */
        const real scale = M[j*n + j];
        real d = scale;
        for (k = 0; k < j; ++k) d -= M[j*n + k]*M[j*n + k];
        if (!(d > LGC_MASS_PIVOT*scale)) return 0;
        M[j*n + j] = d = sqrt(d);
        for (i = j + 1; i < n; ++i) {
            real x = M[i*n + j];
            for (k = 0; k < j; ++k) x -= M[i*n + k]*M[j*n + k];
            M[i*n + j] = x/d;
        }
    }
    for (i = 0; i < n; ++i)  /* the right sides, row by row: d tau/dx - d ID/dx, and d tau/du */
        for (k = 0; k < nx; ++k) dfdx[(n + i)*nx + k] = dtau_dx[i*nx + k] - dfdx[(n + i)*nx + k];
    for (i = 0; i < n*nu; ++i) dfdu[n*nu + i] = dtau_du[i];
    PREFIX_tree_solve_rows(M, dfdx + n*nx, nx);
    PREFIX_tree_solve_rows(M, dfdu + n*nu, nu);
    return 1;
}
