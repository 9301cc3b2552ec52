/*
** computed_torque.c — a 1 kHz computed-torque loop making the two-link arm
** (tests/embed/specs/two_link_arm.toml) track a sinusoidal trajectory, in
** plain C99 on the generated two_link_arm.{h,c} and libm alone, in the
** precision they were generated in (sin_real and cos_real call sinf for a
** float, sin for a double; newlib's <tgmath.h> cannot: it lacks csinl).
** Every period: measure (q, q'), command
**   a = q_d'' + KD (q_d' - q') + KP (q_d - q),
** apply tau = two_link_arm_inverse_dynamics at q'' = a (at zero input it is
** M a + k - Q without the motors: the motor torques themselves), held over
** the period, and advance the plant by two_link_arm_step (RK4 on the rhs;
** the arm has no constraints to correct).
**
** Were tau applied continuously, the error e = q_d - q would obey
** e'' + KD e' + KP e = 0 exactly; with KP = W^2, KD = 2 W (critical damping)
** it decays as (e0 + (e0' + W e0) t) e^(-W t). Held over a period of H,
** tau lags the continuous law by tau(t) - tau(t_k): e'' + KD e' + KP e = w
** with w = M^-1 (tau(t) - tau(t_k)), |w| <= max |M^-1 dtau| over a period
** (along the desired trajectory; the change of KD e' + KP e within a
** period adds at most 3 W H of it once the transient is over). The
** impulse response t e^(-W t) of the error dynamics has integral 1/KP, so
** |e_i| <= (1 + 3 W H) max |M^-1 dtau|_i / KP, plus the transient's
** envelope, plus round-off (round_off below). Exit 0 when |e_i| stays within
** that bound from SETTLE to the end.
*/
#include <float.h>
#include <stdio.h>
#include <math.h>

#include "two_link_arm.h"

typedef two_link_arm_real real;

enum { NQ = TWO_LINK_ARM_NQ, NX = TWO_LINK_ARM_NX, NU = TWO_LINK_ARM_NU };
enum { STEPS = 10000 };     /* 10 s at 1 kHz: one common period of both joints' sinusoids */
enum { SETTLE = 1000 };     /* the transient's envelope is below 1e-7 rad by then */

#define H 1e-3              /* control period, s: one plant step */
#define W 20.0              /* the error dynamics' natural frequency, rad/s */
#define KP (W * W)
#define KD (2.0 * W)
#define PI 3.14159265358979323846

static real sin_real(real x)
{
    return sizeof(real) == sizeof(float) ? (real)sinf((float)x) : (real)sin((double)x);
}

static real cos_real(real x)
{
    return sizeof(real) == sizeof(float) ? (real)cosf((float)x) : (real)cos((double)x);
}

/* q_d,i(t) = CENTRE_i + AMPLITUDE_i sin(2 pi t / (PERIOD_i H)); PERIOD_i divides STEPS. */
static const real CENTRE[NQ] = {(real)0.4, (real)0.6};
static const real AMPLITUDE[NQ] = {(real)0.5, (real)0.4};
static const int PERIOD[NQ] = {2000, 1250};

/*
** The desired q, q', q'' at step n. The phase is taken from n modulo the
** period, so that it stays in [0, 2 pi) and keeps its precision in float.
*/
static void desired(long n, real q[NQ], real v[NQ], real a[NQ])
{
    for (int i = 0; i < NQ; i++) {
        const real w = (real)(2.0 * PI / (PERIOD[i] * H));
        const real phase = (real)(2.0 * PI) * (real)(n % PERIOD[i]) / (real)PERIOD[i];
        q[i] = CENTRE[i] + AMPLITUDE[i] * sin_real(phase);
        v[i] = AMPLITUDE[i] * w * cos_real(phase);
        a[i] = -AMPLITUDE[i] * w * w * sin_real(phase);
    }
}

/* M^-1 b for the arm's 2 x 2 mass matrix at the state x. */
static void solve_mass(const real x[NX], const real p[], const real b[NQ], double out[NQ])
{
    real M[NQ * NQ];
    two_link_arm_mass_matrix(0, x, p, M);
    const double det = (double)M[0] * (double)M[3] - (double)M[1] * (double)M[2];
    out[0] = ((double)M[3] * (double)b[0] - (double)M[1] * (double)b[1]) / det;
    out[1] = ((double)M[0] * (double)b[1] - (double)M[2] * (double)b[0]) / det;
}

/*
** Along the desired trajectory: the largest change of M^-1 tau over one
** period per joint (dtau_max), the largest |M^-1 tau| + |q_d''| (the size of
** the terms the rhs subtracts: accel), and the largest |q_d| and |q_d'|.
*/
static void trajectory_sizes(const real p[], double dtau_max[NQ], double *accel, double *q_max, double *v_max)
{
    const real zero[TWO_LINK_ARM_NU_ARRAY] = {0};
    real x[NX], a[NQ], tau[NQ], tau_next[NQ];
    *accel = *q_max = *v_max = 0.0;
    for (int i = 0; i < NQ; i++)
        dtau_max[i] = 0.0;
    desired(0, x, x + NQ, a);
    two_link_arm_inverse_dynamics(0, x, zero, p, a, tau);
    for (long n = 0; n < STEPS; n++) {
        real xn[NX], an[NQ], dtau[NQ];
        double m_dtau[NQ], m_tau[NQ];
        desired(n + 1, xn, xn + NQ, an);
        two_link_arm_inverse_dynamics(0, xn, zero, p, an, tau_next);
        for (int i = 0; i < NQ; i++)
            dtau[i] = tau_next[i] - tau[i];
        solve_mass(x, p, dtau, m_dtau);
        solve_mass(x, p, tau, m_tau);
        for (int i = 0; i < NQ; i++) {
            dtau_max[i] = fmax(dtau_max[i], fabs(m_dtau[i]));
            *accel = fmax(*accel, fabs(m_tau[i]) + fabs((double)a[i]));
            *q_max = fmax(*q_max, fabs((double)x[i]));
            *v_max = fmax(*v_max, fabs((double)x[NQ + i]));
        }
        for (int i = 0; i < NX; i++)
            x[i] = xn[i];
        for (int i = 0; i < NQ; i++) {
            a[i] = an[i];
            tau[i] = tau_next[i];
        }
    }
}

int main(void)
{
    const real *p = two_link_arm_param_defaults;
    const double u = (sizeof(real) == sizeof(float) ? (double)FLT_EPSILON : DBL_EPSILON) / 2;  /* unit round-off */
    double dtau_max[NQ], accel, q_max, v_max;
    trajectory_sizes(p, dtau_max, &accel, &q_max, &v_max);
    /*
    ** Round-off, each period: the state's rounding (2u |q| and 2u |q'|) is a kick
    ** the error dynamics forget over 2/W (position) and 1/W^2 (velocity), summed
    ** at worst coherently over the periods that remember it; the rhs's and the
    ** inverse dynamics' rounding (32u of the terms they add up) is a standing
    ** acceleration error, 1/KP of it a position error; the reference's own
    ** rounding (8u |q_d|) appears in e at most twice.
    */
    const double round_off = 2.0 / (W * H) * 2 * u * q_max + 1.0 / (KP * H) * 2 * u * v_max
                             + 32 * u * accel / KP + 2 * 8 * u * q_max;
    printf("%s precision; W = %g rad/s (KP = %g, KD = %g), %g kHz; max |M^-1 dtau| per period = [%.3g %.3g] rad/s^2; "
           "round-off bound %.3g rad\n", sizeof(real) == sizeof(float) ? "single" : "double", W, KP, KD, 1e-3 / H,
           dtau_max[0], dtau_max[1], round_off);

    real x[NX], qd[NQ], vd[NQ], ad[NQ], a[NQ], tau[NU], work[TWO_LINK_ARM_NWORK_STEP];
    const real zero[TWO_LINK_ARM_NU_ARRAY] = {0}, h = (real)H, kp = (real)KP, kd = (real)KD;
    for (int i = 0; i < NX; i++)
        x[i] = two_link_arm_initial_state[i];
    double e0[NQ], v0[NQ], worst[NQ] = {0}, bound[NQ], tau_max = 0.0;
    desired(0, qd, vd, ad);
    for (int i = 0; i < NQ; i++) {
        e0[i] = fabs((double)(qd[i] - x[i]));
        v0[i] = fabs((double)(vd[i] - x[NQ + i]));
    }
    for (long n = 0; n < STEPS; n++) {
        desired(n, qd, vd, ad);
        const double t = (double)n * H;
        if (n >= SETTLE)
            for (int i = 0; i < NQ; i++) {
                const double e = fabs((double)(qd[i] - x[i]));
                const double transient = (e0[i] + (v0[i] + W * e0[i]) * t) * exp(-W * t);
                worst[i] = fmax(worst[i], e);
                bound[i] = (1 + 3 * W * H) * dtau_max[i] / KP + transient + round_off;
                if (!(e <= bound[i]))
                    return printf("FAILED at t = %.3f: |e_%d| = %.3g rad, past the bound %.3g\n", t, i + 1, e,
                                  bound[i]), 1;
            }
        if (n % 1000 == 0)
            printf("t = %4.1f  e = [% .3e % .3e] rad\n", t, (double)(qd[0] - x[0]), (double)(qd[1] - x[1]));
        for (int i = 0; i < NQ; i++)
            a[i] = ad[i] + kd * (vd[i] - x[NQ + i]) + kp * (qd[i] - x[i]);
        two_link_arm_inverse_dynamics((real)t, x, zero, p, a, tau);
        for (int i = 0; i < NU; i++)
            tau_max = fmax(tau_max, fabs((double)tau[i]));
        const int rc = two_link_arm_step((real)t, x, tau, p, 0, 0, h, 0, work);
        if (rc != TWO_LINK_ARM_OK)
            return printf("FAILED: plant step at t = %.3f: %d\n", t, rc), 1;
    }
    printf("tracked: max |e| from t = %g s to %g s = [%.3g %.3g] rad, within [%.3g %.3g]; max |tau| = %.3g N m\n",
           SETTLE * H, STEPS * H, worst[0], worst[1], bound[0], bound[1], tau_max);
    return 0;
}
