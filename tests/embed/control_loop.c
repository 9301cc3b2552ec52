/*
** control_loop.c — a 100 Hz controller balancing the cart-pendulum upright
** and moving the cart to a target, in plain C99 on the generated
** cart_pendulum.{h,c} and libm alone, in the precision they were generated
** in (cart_pendulum_real: double, or float from `generate --real float`;
** <tgmath.h> calls sinf for a float as sin for a double). At start-up, LQR
** gains from the generated Jacobian reduced to the independent coordinates
** (s, x) and speeds, designed in double; then the generated
** cart_pendulum_step (RK4, then the one-step correction onto the rod's
** constraint) stands in for the plant.
** Exit 0 when the cart is at the target +- 1 cm and the rod upright
** +- 0.01 rad for the last second of the run, and the rod's length held to
** PHI_TOLERANCE all along (|phi| = |(x - s)^2 + y^2 - l^2|, m^2).
*/
#include <stdio.h>
#include <tgmath.h>

#include "cart_pendulum.h"

typedef cart_pendulum_real real;

enum { NQ = CART_PENDULUM_NQ, NX = CART_PENDULUM_NX, NI = 2, N = 2 * NI };

#define TS 0.01             /* control period */
#define SUBSTEPS 10         /* plant steps of 1 ms per period */
#define T_END 10.0
#define TARGET 1.0          /* cart position, m */
/*
** |phi| the step's correction holds: its tolerance (1e-13), or phi's round-off
** 64 eps (1 + |A| |q|) where that is larger, with |A| <= 2 l = 1 and |q| <= 1.5
** here: 1.9e-5 in float (3.6e-14 in double, below the tolerance).
*/
#define PHI_TOLERANCE (sizeof(real) == sizeof(float) ? 1.9e-5 : 1e-13)

/* The independent coordinates (the dependent one is y, the rod's height). */
static const int ind[NI] = {CART_PENDULUM_STATE_s, CART_PENDULUM_STATE_x};

/*
** The linear model about upright rest at s = x = 0, y = l, in
** dy = (ds, dx, ds', dx'). With q' = 0, d(phi')/dq = 0, so the rod's rows
** give dq = P dq_ind, dq' = P dq_ind'; P's y row is -A_ind / A_y.
*/
static int linearise(const real p[], double A[N][N], double B[N])
{
    /* Sizes that may be 0 in another model (NU) declare arrays by their _ARRAY length. */
    real x[NX] = {0}, u[CART_PENDULUM_NU_ARRAY] = {0}, C[NQ];
    real dfdx[NX][NX], dfdu[NX][CART_PENDULUM_NU_ARRAY], work[CART_PENDULUM_NWORK_JACOBIAN];
    double P[NQ][NI];
    x[CART_PENDULUM_STATE_y] = p[CART_PENDULUM_PARAM_l];
    if (cart_pendulum_jacobian(0, x, u, p, 0, 0, &dfdx[0][0], &dfdu[0][0], work) != CART_PENDULUM_OK)
        return 1;
    cart_pendulum_constraint_jacobian(0, x, p, C);
    for (int k = 0; k < NQ; k++)
        for (int j = 0; j < NI; j++)
            P[k][j] = k == ind[j] ? 1.0 : 0.0;
    for (int j = 0; j < NI; j++)
        P[CART_PENDULUM_STATE_y][j] = -(double)C[ind[j]] / (double)C[CART_PENDULUM_STATE_y];
    for (int i = 0; i < NI; i++) {
        const real *row = dfdx[NQ + ind[i]];  /* d q_ind''/d(q, q') */
        for (int j = 0; j < NI; j++) {
            double dq = 0.0, dv = 0.0;
            for (int k = 0; k < NQ; k++) {
                dq += (double)row[k] * P[k][j];
                dv += (double)row[NQ + k] * P[k][j];
            }
            A[i][j] = 0.0;
            A[i][NI + j] = i == j;
            A[NI + i][j] = dq;
            A[NI + i][NI + j] = dv;
        }
        B[i] = 0.0;
        B[NI + i] = (double)dfdu[NQ + ind[i]][CART_PENDULUM_INPUT_F];
    }
    return 0;
}

/* Zero-order hold: Ad = e^(A TS), Bd = int_0^TS e^(A t) dt B, by their series. */
static void discretise(double A[N][N], const double B[N], double Ad[N][N], double Bd[N])
{
    double term[N][N], next[N][N], psi[N][N];  /* psi = sum (A TS)^k / (k+1)! */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            term[i][j] = psi[i][j] = i == j;
    for (int k = 1; k < 20; k++) {
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                double s = 0.0;
                for (int l = 0; l < N; l++)
                    s += A[i][l] * term[l][j];
                next[i][j] = s * TS / (k + 1);
            }
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                psi[i][j] += term[i][j] = next[i][j];
    }
    for (int i = 0; i < N; i++) {
        Bd[i] = 0.0;
        for (int j = 0; j < N; j++) {
            double s = 0.0;
            for (int l = 0; l < N; l++)
                s += A[i][l] * psi[l][j];
            Ad[i][j] = (i == j) + TS * s;
            Bd[i] += TS * psi[i][j] * B[j];
        }
    }
}

/*
** Discrete LQR, one input: iterate P = Q + Ad'P Ad - Ad'P Bd K with
** K = (R + Bd'P Bd)^-1 Bd'P Ad to its fixed point. Returns the iterations.
*/
static int lqr(double Ad[N][N], const double Bd[N], const double Q[N], double R, double K[N])
{
    double P[N][N] = {{0}}, PA[N][N], PB[N];
    for (int i = 0; i < N; i++)
        P[i][i] = Q[i];
    for (int it = 1; it <= 100000; it++) {
        for (int i = 0; i < N; i++) {
            PB[i] = 0.0;
            for (int j = 0; j < N; j++) {
                PA[i][j] = 0.0;
                for (int l = 0; l < N; l++)
                    PA[i][j] += P[i][l] * Ad[l][j];
                PB[i] += P[i][j] * Bd[j];
            }
        }
        double r = R;
        for (int i = 0; i < N; i++)
            r += Bd[i] * PB[i];
        for (int j = 0; j < N; j++) {
            K[j] = 0.0;
            for (int i = 0; i < N; i++)
                K[j] += Bd[i] * PA[i][j] / r;
        }
        double change = 0.0, size = 0.0;
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
                double s = (i == j) * Q[i];
                for (int l = 0; l < N; l++)
                    s += Ad[l][i] * (PA[l][j] - PB[l] * K[j]);
                change = fmax(change, fabs(s - P[i][j]));
                size = fmax(size, fabs(s));
                P[i][j] = s;
            }
        if (change <= 1e-13 * size)
            return it;
    }
    return -1;
}

int main(void)
{
    const real *p = cart_pendulum_param_defaults;
    double A[N][N], B[N], Ad[N][N], Bd[N], K[N];
    const double Q[N] = {10.0, 10.0, 1.0, 1.0}, R = 0.1;
    if (linearise(p, A, B) != 0)
        return fputs("linearisation failed\n", stderr), 1;
    discretise(A, B, Ad, Bd);
    int iterations = lqr(Ad, Bd, Q, R, K);
    if (iterations < 0)
        return fputs("Riccati iteration did not converge\n", stderr), 1;
    printf("%s precision; gains (Riccati: %d iterations): K = [%.6g %.6g %.6g %.6g]\n",
           sizeof(real) == sizeof(float) ? "single" : "double", iterations, K[0], K[1], K[2], K[3]);

    /* The loop runs in the model's precision, as it would on the controller. */
    real x[NX], u[CART_PENDULUM_NU_ARRAY], phi[1], phi_dot[1], g[CART_PENDULUM_NN_ARRAY];
    real work[CART_PENDULUM_NWORK_STEP], gain[N], worst_phi = 0;
    const real h = (real)(TS / SUBSTEPS), target = (real)TARGET, near = (real)0.01;
    for (int j = 0; j < N; j++)
        gain[j] = (real)K[j];
    for (int i = 0; i < NX; i++)
        x[i] = cart_pendulum_initial_state[i];
    double settled = -1.0;  /* since when the targets hold, or -1 */
    const long periods = (long)(T_END / TS + 0.5);
    for (long n = 0; n < periods; n++) {
        /* Measure, then hold u = -K dy over the period; upright is x = s = TARGET. */
        const real dy[N] = {x[0] - target, x[1] - target, x[NQ], x[NQ + 1]};
        real F = 0;
        for (int j = 0; j < N; j++)
            F -= gain[j] * dy[j];
        u[CART_PENDULUM_INPUT_F] = F;
        for (int s = 0; s < SUBSTEPS; s++) {
            const real t = (real)(n * SUBSTEPS + s) * h;
            const int rc = cart_pendulum_step(t, x, u, p, CART_PENDULUM_ALPHA, CART_PENDULUM_BETA, h,
                                              0, work);
            if (rc != CART_PENDULUM_OK)
                return fprintf(stderr, "plant step failed: %d\n", rc), 1;
        }
        cart_pendulum_residuals(0, x, p, phi, phi_dot, g);
        worst_phi = fmax(worst_phi, fabs(phi[0]));
        const double t = (double)(n + 1) * TS;
        const real tilt = atan2(x[1] - x[0], x[2]);
        const int ok = fabs(x[0] - target) <= near && fabs(tilt) <= near;
        settled = ok ? (settled < 0 ? t : settled) : -1.0;
        if (n % 100 == 99)
            printf("t = %4.1f  s = % .4f  tilt = % .5f  F = % .3f  |phi| = %.2g\n", t, (double)x[0],
                   (double)tilt, (double)F, (double)fabs(phi[0]));
    }
    if (!((double)worst_phi <= PHI_TOLERANCE))
        return printf("FAILED: |phi| reached %.3g, past %g\n", (double)worst_phi, PHI_TOLERANCE), 1;
    if (settled < 0 || settled > T_END - 1.0)
        return printf("FAILED: not at the target by t = %g\n", T_END - 1.0), 1;
    printf("reached: cart at %.1f +- 0.01 m, rod upright +- 0.01 rad from t = %.2f s; "
           "|phi| <= %.3g all along (tolerance %g)\n", TARGET, settled, (double)worst_phi, PHI_TOLERANCE);
    return 0;
}
