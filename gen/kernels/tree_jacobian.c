// tree_jacobian.c — the Jacobian of rhs on the articulated-body recursion,
// by the analytical derivatives of the recursive Newton–Euler algorithm
// (Carpentier and Mansard, "Analytical derivatives of rigid body dynamics
// algorithms", RSS 2018): q'' = FD(q, q') solves ID(q, q', q'') = tau(q, q'),
// so d q''/dx = -M^-1 (d ID/dx - d tau/dx), d ID/dx by one tangent pass of
// the recursion per coordinate and per rate (O(N) each over the subtree the
// coordinate moves and its ancestors: O(N^2) in all), M by the
// composite-rigid-body algorithm and its Cholesky factor; a free joint's
// seven coordinates too, and its quaternion's norm row as the recursion
// solves it. Over the tables and with the joint and transform functions of
// articulated.c and tree_dynamics.c, which the generator pastes before it;
// a planar tree (PREFIX_PLANAR_AXIS) takes ID's derivatives and M^-1 from
// planar_jacobian.c instead, pasted before it too. tests/gen/test_kernels.c
// and test_planar_kernels.c run it.

#ifndef PREFIX_PLANAR_AXIS

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

/* R(Q) s, the free joint's rotation times s = |Q|^2: quadratic in Q (joint_turn's R before its division). */
static void PREFIX_quaternion_matrix(const real Q[], real R[])
{
    const real qw = Q[0], qx = Q[1], qy = Q[2], qz = Q[3];
    R[0] = qw*qw + qx*qx - qy*qy - qz*qz;
    R[1] = 2.0*(qx*qy - qw*qz);
    R[2] = 2.0*(qx*qz + qw*qy);
    R[3] = 2.0*(qx*qy + qw*qz);
    R[4] = qw*qw - qx*qx + qy*qy - qz*qz;
    R[5] = 2.0*(qy*qz - qw*qx);
    R[6] = 2.0*(qx*qz - qw*qy);
    R[7] = 2.0*(qy*qz + qw*qx);
    R[8] = qw*qw - qx*qx - qy*qy + qz*qz;
}

/* out (+)= 2 Im(conj(A) B) = 2 (a0 b - b0 a - a x b), bilinear: the free joint's s omega from Q and Q'. */
static void PREFIX_quaternion_rate(const real A[], const real B[], real out[])
{
    out[0] += 2.0*(A[0]*B[1] - B[0]*A[1] - (A[2]*B[3] - A[3]*B[2]));
    out[1] += 2.0*(A[0]*B[2] - B[0]*A[2] - (A[3]*B[1] - A[1]*B[3]));
    out[2] += 2.0*(A[0]*B[3] - B[0]*A[3] - (A[1]*B[2] - A[2]*B[1]));
}

/*
** The free joint's unit direction: coordinate c (0..6: x, y, z, Q's w, x, y,
** z) moved (by_rate 0) or its rate (1). From the link's V = (omega, R^T p'),
** omega = 2 Im(conj(Q) Q')/s, and A = (0; R^T E^T (-g)) + c + (2 Im(conj(Q)
** Q'')/s; R^T p'') with c = (-omega s'/s; -omega x v), R = R(Q)/s (in w), s'
** = 2 Q.Q': dV and dA. dQ moves R as (R(Q + dQ) - R(Q) - R(dQ) - R ds)/s
** (R(Q) quadratic), ds = 2 Q.dQ; x, y, z move neither.
*/
static void PREFIX_free_tangent(int i, const real t[], const real gravity[], const real q[], const real v[],
                                const real qdd[], const real w[], int c, int by_rate, real dV[], real dA[], real dR[])
{
    const int *j = PREFIX_free_coordinate;
    const real *R = w + PREFIX_W_R, *V = w + PREFIX_W_V;
    real Q[4], dQ[4] = {0.0, 0.0, 0.0, 0.0}, Qd[4], dQd[4] = {0.0, 0.0, 0.0, 0.0}, Qdd[4];
    real pd[3], dpd[3] = {0.0, 0.0, 0.0}, pdd[3], g[3], x[9], y[9], dw[3] = {0.0, 0.0, 0.0};
    real s = 0.0, ds = 0.0, sp = 0.0, dsp = 0.0, alpha[3] = {0.0, 0.0, 0.0}, cw[3], cv[3];
    int a, b;
    for (a = 0; a < 4; ++a) Q[a] = q[j[3 + a]], Qd[a] = v[j[3 + a]], Qdd[a] = qdd[j[3 + a]];
    for (a = 0; a < 3; ++a) pd[a] = v[j[a]], pdd[a] = qdd[j[a]], g[a] = -gravity[a];
    if (by_rate) {
        if (c < 3) dpd[c] = 1.0; else dQd[c - 3] = 1.0;
    } else if (c >= 3) {
        dQ[c - 3] = 1.0;
    }
    for (a = 0; a < 4; ++a) {
        s += Q[a]*Q[a];
        ds += 2.0*Q[a]*dQ[a];
        sp += 2.0*Q[a]*Qd[a];
        dsp += 2.0*(dQ[a]*Qd[a] + Q[a]*dQd[a]);
    }
    for (a = 0; a < 9; ++a) dR[a] = 0.0;
    if (!by_rate && c >= 3) {
        real Qp[4];
        for (a = 0; a < 4; ++a) Qp[a] = Q[a] + dQ[a];
        PREFIX_quaternion_matrix(Qp, dR);
        PREFIX_quaternion_matrix(Q, x);
        PREFIX_quaternion_matrix(dQ, y);
        for (a = 0; a < 9; ++a) dR[a] = (dR[a] - x[a] - y[a] - R[a]*ds)/s;
    }
    PREFIX_quaternion_rate(dQ, Qd, dw);  /* d omega = (W(dQ, Q') + W(Q, dQ'))/s - omega ds/s */
    PREFIX_quaternion_rate(Q, dQd, dw);
    for (a = 0; a < 3; ++a) dV[a] = dw[a]/s - V[a]*ds/s;
    if (PREFIX_link_fixed[i]) PREFIX_fixed3(t, 1, g);
    PREFIX_quaternion_rate(Q, Qdd, alpha);  /* omega's part of q'', W(Q, Q'')/s, and its derivative */
    for (a = 0; a < 3; ++a) alpha[a] /= s;
    for (a = 0; a < 3; ++a) dw[a] = 0.0;
    PREFIX_quaternion_rate(dQ, Qdd, dw);
    PREFIX_cross3(dV, V + 3, cv);
    for (a = 0; a < 3; ++a) {
        dV[3 + a] = 0.0;
        dA[3 + a] = 0.0;
        for (b = 0; b < 3; ++b) {
            dV[3 + a] += dR[3*b + a]*pd[b] + R[3*b + a]*dpd[b];
            dA[3 + a] += dR[3*b + a]*(g[b] + pdd[b]);
        }
        cw[a] = -(dV[a]*sp + V[a]*dsp)/s + V[a]*sp*ds/(s*s);
        dA[a] = cw[a] + dw[a]/s - alpha[a]*ds/s;
    }
    PREFIX_cross3(V, dV + 3, x);
    for (a = 0; a < 3; ++a) dA[3 + a] -= cv[a] + x[a];
}

/*
** The derivatives of ID(q, q', qdd) = M qdd + k under the weight (the
** inverse dynamics of tree_inverse_dynamics, weight 1, the free joint's
** gauge included) by each coordinate and each rate: d ID_i/dq_j into
** dq[i*stride + j], d ID_i/dq'_j into dv[i*stride + j] (every entry of the
** NQ x NQ blocks written). `work` as tree_inverse_dynamics left it at the
** same (q, q', qdd, weight 1): each link's turn, V, A and F (its force and
** its subtree's, in W_P); `tangent` PREFIX_NLINK*PREFIX_LINK_TANGENT reals
** and `column` PREFIX_NQ of scratch.
**
** A direction moves link s's angle theta = offset + sign q_j (by sign) or
** its rate (by sign): out from s, for each link of its subtree
**   dV = X dV_parent - dtheta e_k x V + dq'_j S,
**   dc = dV x S q' + V x S dq',  (c = V x S q', S = sign e_k)
**   dA = X dA_parent - dtheta e_k x (A - c) + dc,
**   dF = I dA + dV x* I V + V x* I dV,
** (X depends on theta as d(X m)/dtheta = -e_k x X m, and only link s's
** does) then back to the root, each moved link's joint taking sign dF_k and
** carrying X^T (dF + dtheta e_k x* F) to its parent. A free joint's
** coordinate or rate moves its link's dV and dA as free_tangent says, and
** its joint forces (R f; 2/s Q (0, n)) and gauge (|Q'|^2 + Q.Q'') Q by
** their own derivatives too.
*/
static void PREFIX_tree_inverse_dynamics_derivatives(const real table[], const real q[], const real v[], const real qdd[],
                                                     int stride, real dq[], real dv[], real work[], real tangent[],
                                                     real column[])
{
    const real *gravity = table + PREFIX_NLINK*PREFIX_LINK_TABLE;
    const int *jf = PREFIX_free_coordinate;
    int s, seed, by_rate, i, a, b;
    for (i = 0; i < PREFIX_NLINK; ++i) {
        const real *t = table + i*PREFIX_LINK_TABLE, *w = work + i*PREFIX_LINK_WORK;
        real *d = tangent + i*PREFIX_LINK_TANGENT, motion[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}, c[6];
        if (PREFIX_link_axis[i] >= 0) motion[PREFIX_link_axis[i]] = t[13]*v[PREFIX_link_coordinate[i]];
        PREFIX_motion_cross(w + PREFIX_W_V, motion, c);
        for (a = 0; a < 6; ++a) d[PREFIX_T_AC + a] = w[PREFIX_W_A + a] - c[a];
        PREFIX_link_inertia_times(t, w + PREFIX_W_V, d + PREFIX_T_IV);
    }
    for (s = 0; s < PREFIX_NLINK; ++s) {
        const int seeds = PREFIX_link_axis[s] < 0 ? 7 : 1;
        for (seed = 0; seed < seeds; ++seed)
        for (by_rate = 0; by_rate < 2; ++by_rate) {
            const int j = seeds == 7 ? jf[seed] : PREFIX_link_coordinate[s];
            real *out = by_rate ? dv : dq, dR[9];
            for (i = 0; i < PREFIX_NQ; ++i) out[i*stride + j] = 0.0;
            if (seeds == 7 && seed < 3 && !by_rate) continue;  /* x, y, z: nothing moves but the potential's */
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
                if (k < 0) {  /* the free link: s itself */
                    PREFIX_free_tangent(i, t, gravity, q, v, qdd, w, seed, by_rate, dV, dA, dR);
                } else {
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
                }
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
                if (k < 0) {  /* the free joint's forces, R f and 2/s Q (0, n), and its gauge */
                    const real *F = w + PREFIX_W_P;
                    real Q[4], Qd[4], dQ[4] = {0.0, 0.0, 0.0, 0.0}, dQd[4] = {0.0, 0.0, 0.0, 0.0}, qs = 0.0, ds = 0.0;
                    real e = 0.0, de = 0.0;
                    PREFIX_joint_force(i, t, q, w, d + PREFIX_T_F, column);
                    for (a = 0; a < 4; ++a) Q[a] = q[jf[3 + a]], Qd[a] = v[jf[3 + a]];
                    if (i == s && seed >= 3) (by_rate ? dQd : dQ)[seed - 3] = 1.0;
                    for (a = 0; a < 4; ++a) {
                        qs += Q[a]*Q[a];
                        ds += 2.0*Q[a]*dQ[a];
                        e += Qd[a]*Qd[a] + Q[a]*qdd[jf[3 + a]];
                        de += 2.0*Qd[a]*dQd[a] + dQ[a]*qdd[jf[3 + a]];
                    }
                    if (i == s && !by_rate) {  /* R and Q moved: their own part, at the primal F */
                        real moved[PREFIX_NQ], forces[PREFIX_NQ];
                        for (a = 0; a < 3; ++a)
                            for (b = 0; b < 3; ++b) column[jf[a]] += dR[3*a + b]*F[3 + b];
                        PREFIX_joint_force(i, t, q, w, F, forces);
                        for (a = 0; a < PREFIX_NQ; ++a) moved[a] = 0.0;
                        /* 2/s P(dQ, n) - (the primal's Q part) ds/s, P(Q, n) = (-v.n, w n + v x n) */
                        moved[jf[3]] = -(dQ[1]*F[0] + dQ[2]*F[1] + dQ[3]*F[2]);
                        moved[jf[4]] = dQ[0]*F[0] + dQ[2]*F[2] - dQ[3]*F[1];
                        moved[jf[5]] = dQ[0]*F[1] + dQ[3]*F[0] - dQ[1]*F[2];
                        moved[jf[6]] = dQ[0]*F[2] + dQ[1]*F[1] - dQ[2]*F[0];
                        for (a = 3; a < 7; ++a) column[jf[a]] += 2.0*moved[jf[a]]/qs - forces[jf[a]]*ds/qs;
                    }
                    for (a = 0; a < 4; ++a) column[jf[3 + a]] += de*Q[a] + e*dQ[a];
                    for (a = 0; a < 7; ++a) out[jf[a]*stride + j] = column[jf[a]];
                    continue;
                }
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
#endif /* PREFIX_PLANAR_AXIS */

/*
** The rows of q' and q'' of df/dx (NX x NX) and df/du (NX x nu) of rhs's
** system x' = (q', q'', ...) on the recursion (the rows past them, the
** integral states', are the caller's), at the state x and the accelerations
** qdd rhs gave there, with tau (NQ) and its derivatives dtau_dx (NQ x NX)
** and dtau_du (NQ x nu): q' = v gives the identity's rows; q'' solves
** R(x, q'') = ID - tau + G = 0 with R's derivative by q'' M, so its rows
** are -M^-1 dR/dx and -M^-1 dR/du. G is 0 but on a free joint's
** quaternion Q, where it is Q (Q.tau_Q/s + alpha Q.Q' + beta (s - 1)/2),
** s = |Q|^2: there the recursion's q'' meets the norm row's stabilised
** equation, Q.Q'' = -|Q'|^2 - alpha Q.Q' - beta (s - 1)/2, in place of the
** gauge's row Q.(ID - tau) = 0 (along Q, Q.R = s (Q.Q'' - that)). M
** (NQ x NQ), column (NQ), work (the links') and tangent are scratch.
** Returns 0 when M is not positive definite (LGC_MASS_PIVOT of a diagonal
** entry; on a planar tree, where the recursion's own pass solves with M
** and M is not formed, an articulated inertia about a joint not
** positive), else 1.
*/
static int PREFIX_tree_jacobian(const real table[], const real state[], const real qdd[], const real tau[], real alpha,
                                real beta, const real dtau_dx[], const real dtau_du[], int nu, real dfdx[], real dfdu[],
                                real M[], real column[], real work[], real tangent[])
{
    const int n = PREFIX_NQ, nx = PREFIX_NX, *jf = PREFIX_free_coordinate;
    const real *q = state, *v = state + PREFIX_NQ;
    int i, k;
    for (i = 0; i < 2*n*nx; ++i) dfdx[i] = 0.0;  /* the rows of q'' too: no ID term in an integral state's column */
    for (i = 0; i < n; ++i) dfdx[i*nx + n + i] = 1.0;
    for (i = 0; i < n*nu; ++i) dfdu[i] = 0.0;
#ifdef PREFIX_PLANAR_AXIS
    (void)M;  /* the spatial form's: the planar solves below take the recursion's factors */
    PREFIX_planar_inverse_dynamics(table, q, v, qdd, work);
    PREFIX_planar_inverse_dynamics_derivatives(table, nx, dfdx + n*nx, dfdx + n*nx + n, work, tangent);
    if (!PREFIX_planar(table, q, v, tau, column, work)) return 0;
#else
    PREFIX_tree_inverse_dynamics(table, q, v, qdd, 1, column, work);
    PREFIX_tree_inverse_dynamics_derivatives(table, q, v, qdd, nx, dfdx + n*nx, dfdx + n*nx + n, work, tangent, column);
    PREFIX_tree_mass_matrix(table, q, M, work);
    {
        int j;
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
    }
#endif
    for (i = 0; i < n; ++i)  /* the right sides, row by row: d tau/dx - d ID/dx (- dG/dx), and d tau/du */
        for (k = 0; k < nx; ++k) dfdx[(n + i)*nx + k] = dtau_dx[i*nx + k] - dfdx[(n + i)*nx + k];
    for (i = 0; i < n*nu; ++i) dfdu[n*nu + i] = dtau_du[i];
    if (jf[0] >= 0) {  /* G = Q g, g = Q.tau_Q/s + alpha Q.Q' + beta (s - 1)/2 */
        real Q[4], s = 0.0, Qtau = 0.0, Qrate = 0.0, g;
        int a;
        for (a = 0; a < 4; ++a) {
            Q[a] = q[jf[3 + a]];
            s += Q[a]*Q[a];
            Qtau += Q[a]*tau[jf[3 + a]];
            Qrate += Q[a]*v[jf[3 + a]];
        }
        g = Qtau/s + alpha*Qrate + 0.5*beta*(s - 1.0);
        for (k = 0; k < nx + nu; ++k) {
            /* dg = (dQ.tau_Q + Q.dtau_Q)/s - Q.tau_Q ds/s^2 + alpha (dQ.Q' + Q.dQ') + beta ds/2, ds = 2 Q.dQ */
            real dQ[4] = {0.0, 0.0, 0.0, 0.0}, dg = 0.0, ds = 0.0;
            for (a = 0; a < 4; ++a) {
                if (k == jf[3 + a]) dQ[a] = 1.0;
                dg += Q[a]*(k < nx ? dtau_dx[jf[3 + a]*nx + k] : dtau_du[jf[3 + a]*nu + k - nx])/s;
                if (k == n + jf[3 + a]) dg += alpha*Q[a];
            }
            for (a = 0; a < 4; ++a) {
                ds += 2.0*Q[a]*dQ[a];
                dg += dQ[a]*(tau[jf[3 + a]]/s + alpha*v[jf[3 + a]]);
            }
            dg += -Qtau*ds/(s*s) + 0.5*beta*ds;
            for (a = 0; a < 4; ++a) {
                const real dG = dQ[a]*g + Q[a]*dg;
                if (k < nx)
                    dfdx[(n + jf[3 + a])*nx + k] -= dG;
                else
                    dfdu[(n + jf[3 + a])*nu + k - nx] -= dG;
            }
        }
    }
#ifdef PREFIX_PLANAR_AXIS
    PREFIX_planar_solve_columns(table, q, dfdx + n*nx, nx, work, column);
    PREFIX_planar_solve_columns(table, q, dfdu + n*nu, nu, work, column);
#else
    PREFIX_tree_solve_rows(M, dfdx + n*nx, nx);
    PREFIX_tree_solve_rows(M, dfdu + n*nu, nu);
#endif
    return 1;
}
