/*
** test_heavy_top.c — specs/heavy_top.toml, a body on a fixed pivot
** (z-x-z angles psi, theta, phi; centre of mass at l on the axis; moments
** A, A, C about it). With I1 = A + m l^2 and w3 = phi' + psi' cos(theta):
**   p_phi = C w3,  p_psi = I1 psi' sin(theta)^2 + C w3 cos(theta),
**   E = I1/2 (theta'^2 + psi'^2 sin(theta)^2) + C/2 w3^2 + m g l cos(theta)
** are conserved; over a run they drift only by the integrator's error, and
** the steady precession theta = theta0, psi' = Omega, w3 = (I1 Omega^2
** cos(theta0) + m g l)/(C Omega) is an exact solution.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "heavy_top.h"
#include "lagrangec/status.h"
#include "walk.h"

typedef struct conserved {
    double p_phi, p_psi, energy;
} conserved;

static conserved of_state(const double *x, const double *p)
{
    const double m = p[HEAVY_TOP_PARAM_m], l = p[HEAVY_TOP_PARAM_l], A = p[HEAVY_TOP_PARAM_A],
                 C = p[HEAVY_TOP_PARAM_C], g = p[HEAVY_TOP_PARAM_g];
    const double I1 = A + m * l * l, th = x[HEAVY_TOP_STATE_theta], th_d = x[HEAVY_TOP_STATE_theta_dot],
                 psi_d = x[HEAVY_TOP_STATE_psi_dot];
    const double w3 = x[HEAVY_TOP_STATE_phi_dot] + psi_d * cos(th), s = sin(th);
    return (conserved){C * w3, I1 * psi_d * s * s + C * w3 * cos(th),
                       I1 / 2 * (th_d * th_d + psi_d * psi_d * s * s) + C / 2 * w3 * w3 + m * g * l * cos(th)};
}

typedef struct drift {
    conserved start, worst;
    double theta0, theta_worst;   /* steady precession: the largest |theta - theta0| */
} drift;

static void track(void *ctx, const lgc_sample *s)
{
    drift *d = ctx;
    conserved c = of_state(s->x, heavy_top_param_defaults);
    d->worst.p_phi = fmax(d->worst.p_phi, fabs(c.p_phi - d->start.p_phi) / fabs(d->start.p_phi));
    d->worst.p_psi = fmax(d->worst.p_psi, fabs(c.p_psi - d->start.p_psi) / fabs(d->start.p_psi));
    d->worst.energy = fmax(d->worst.energy, fabs(c.energy - d->start.energy) / fabs(d->start.energy));
    d->theta_worst = fmax(d->theta_worst, fabs(s->x[HEAVY_TOP_STATE_theta] - d->theta0));
}

static void run(const lgc_stepper_type *type, const double *x0, double *theta0, drift *d)
{
    walk_run w;
    walk_init(&w, &heavy_top_model, type, 5.0, 500, 1e-11, LGC_PROJECT_NONE);
    w.x0 = x0;
    *d = (drift){of_state(x0, heavy_top_param_defaults), {0, 0, 0}, theta0 ? *theta0 : x0[HEAVY_TOP_STATE_theta], 0};
    assert_int_equal(walk(&w, track, d), LGC_OK);
    walk_free(&w);
}

static void nutating_top_conserves_its_momenta_and_energy(void **state)
{
    (void)state;
    for (int method = 0; method < WALK_METHODS; method++) {
        const lgc_stepper_type *type = walk_method(method);
        drift d;
        run(type, heavy_top_initial_state, NULL, &d);
        print_message("  %s: t = 5, rtol 1e-11: relative drift p_phi %.1e, p_psi %.1e, energy %.1e; theta "
                      "nutates by up to %.3f rad\n", type->name, d.worst.p_phi, d.worst.p_psi, d.worst.energy,
                      d.theta_worst);
        if (d.worst.p_phi > 1e-8 || d.worst.p_psi > 1e-8 || d.worst.energy > 1e-8)
            fail_msg("%s: drift p_phi %.3e, p_psi %.3e, energy %.3e", type->name, d.worst.p_phi, d.worst.p_psi,
                     d.worst.energy);
        if (d.theta_worst < 1e-3)
            fail_msg("%s: theta stayed within %.3e of its start: not a nutating run", type->name, d.theta_worst);
    }
}

static void steady_precession_stays_steady(void **state)
{
    (void)state;
    const double *p = heavy_top_param_defaults;
    const double m = p[HEAVY_TOP_PARAM_m], l = p[HEAVY_TOP_PARAM_l], I1 = p[HEAVY_TOP_PARAM_A] + m * l * l,
                 C = p[HEAVY_TOP_PARAM_C], g = p[HEAVY_TOP_PARAM_g];
    double theta0 = 0.7, omega = 1.5;
    const double w3 = (I1 * omega * omega * cos(theta0) + m * g * l) / (C * omega);
    double x[HEAVY_TOP_NX] = {0};
    x[HEAVY_TOP_STATE_theta] = theta0;
    x[HEAVY_TOP_STATE_psi_dot] = omega;
    x[HEAVY_TOP_STATE_phi_dot] = w3 - omega * cos(theta0);
    for (int method = 0; method < WALK_METHODS; method++) {
        const lgc_stepper_type *type = walk_method(method);
        drift d;
        run(type, x, &theta0, &d);
        print_message("  %s: steady precession at %.1f rad/s, t = 5: |theta - theta0| up to %.1e\n", type->name,
                      omega, d.theta_worst);
        if (d.theta_worst > 1e-8)
            fail_msg("%s: theta left %.17g by %.3e", type->name, theta0, d.theta_worst);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nutating_top_conserves_its_momenta_and_energy),
        cmocka_unit_test(steady_precession_stays_steady),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
