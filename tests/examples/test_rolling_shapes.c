/*
** test_rolling_shapes.c — the [rolling] shapes beyond the disk, each against
** an oracle nobody tuned, under every stepper (rk4, dopri5, adams, bdf):
** - specs/incline_sphere.toml: a sphere rolling on an incline, spinning.
**   Its centre falls along the slope at (5/7) g sin(alpha) and keeps its
**   speed v0 across it, x = (5/14) g sin(alpha) t^2, y = v0 t, and its spin
**   about the normal stays at `spin`; T + V is conserved.
** - specs/rolling_ball_body.toml (a [rolling] sphere) against
**   specs/rolling_ball.toml (the same ball, its no-slip rows typed by
**   hand): the same rhs at random states on the constraints, the same
**   trajectories.
** - tests/examples/specs/incline_sphere_support.toml, the sphere as the
**   support function r |u|: the same rhs as the sphere's.
** - specs/rocking_ellipsoid.toml: small rocking about the c tip at
**   omega^2 = m g (rho - h)/(I + m h^2), rho = a^2/c, h = c,
**   I = m (a^2 + c^2)/5; T + V conserved and the contact on the plane, in
**   that rocking and in a rolling, spinning, tumbling motion.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"

#include "incline_sphere.h"
#include "incline_sphere_support.h"
#include "lagrangec/status.h"
#include "rocking_ellipsoid.h"
#include "rolling_ball.h"
#include "rolling_ball_body.h"
#include "walk.h"

static double uniform(double lo, double hi) { return lo + (hi - lo) * (rand() / (double)RAND_MAX); }

/* A random state of a ball of radius r on the plane z = 0 (q at x[2..5], q' at x[8..11]): a random
** unit quaternion, a random angular velocity w in N, q' = (0, w) q / 2, and the centre rolling,
** (x', y') = r (w_y, -w_x). */
static void random_rolling_ball(double r, double x[14])
{
    memset(x, 0, 14 * sizeof *x);
    x[0] = uniform(-2, 2);
    x[1] = uniform(-2, 2);
    double q[4], n = 0;
    for (int i = 0; i < 4; i++) {
        q[i] = uniform(-1, 1);
        n += q[i] * q[i];
    }
    for (int i = 0; i < 4; i++)
        q[i] /= sqrt(n);
    const double w[3] = {uniform(-5, 5), uniform(-5, 5), uniform(-5, 5)};
    double *qd = x + 8;
    qd[0] = -(w[0] * q[1] + w[1] * q[2] + w[2] * q[3]) / 2;
    qd[1] = (q[0] * w[0] + w[1] * q[3] - w[2] * q[2]) / 2;
    qd[2] = (q[0] * w[1] + w[2] * q[1] - w[0] * q[3]) / 2;
    qd[3] = (q[0] * w[2] + w[0] * q[2] - w[1] * q[1]) / 2;
    memcpy(x + 2, q, sizeof q);
    x[6] = r * w[1];
    x[7] = -r * w[0];
}

/* The spin about N.z from q and q' (at x[q] and x[qd]): w_z = 2 (q0 q3' - q0' q3 + q1 q2' - q2 q1'). */
static double spin_z(const double *q, const double *qd)
{
    return 2 * (q[0] * qd[3] - qd[0] * q[3] + q[1] * qd[2] - q[2] * qd[1]);
}

/* ---- the sphere on the incline ---------------------------------------------------------- */

typedef struct incline_errors {
    double p[INCLINE_SPHERE_NP];
    double x, y, spin;
} incline_errors;

static void incline_visit(void *ctx, const lgc_sample *s)
{
    incline_errors *e = ctx;
    const double *p = e->p;
    const double g = p[INCLINE_SPHERE_PARAM_g], alpha = p[INCLINE_SPHERE_PARAM_alpha];
    const double x = 5.0 / 14.0 * g * sin(alpha) * s->t * s->t, y = p[INCLINE_SPHERE_PARAM_v0] * s->t;
    e->x = fmax(e->x, fabs(s->x[INCLINE_SPHERE_STATE_x] - x) / (1 + fabs(x)));
    e->y = fmax(e->y, fabs(s->x[INCLINE_SPHERE_STATE_y] - y) / (1 + fabs(y)));
    e->spin = fmax(e->spin, fabs(spin_z(s->x + INCLINE_SPHERE_STATE_q0, s->x + INCLINE_SPHERE_STATE_q0_dot) -
                                 p[INCLINE_SPHERE_PARAM_spin]));
}

static void sphere_rolls_down_the_incline_at_five_sevenths_g(void **state)
{
    (void)state;
    for (int method = 0; method < WALK_METHODS; method++) {
        const lgc_stepper_type *type = walk_method(method);
        incline_errors e = {{0}, 0, 0, 0};
        memcpy(e.p, incline_sphere_param_defaults, sizeof e.p);
        walk_run w;
        walk_init(&w, &incline_sphere_model, type, 2.0, 200, 1e-11, LGC_PROJECT_FULL);
        assert_int_equal(walk(&w, incline_visit, &e), LGC_OK);
        print_message("  %s: x against (5/14) g sin(alpha) t^2 %.2e, y against v0 t %.2e (relative); "
                      "spin about the normal off %.2e rad/s; energy drift %.2e; max |phi| %.2e, |g| %.2e\n",
                      type->name, e.x, e.y, e.spin, w.mon.max_energy_drift, w.mon.max_phi, w.mon.max_g);
        assert_le(e.x, 1e-9);
        assert_le(e.y, 1e-9);
        assert_le(e.spin, 1e-8);
        assert_le(w.mon.max_energy_drift, 1e-9);
        assert_le(w.mon.max_g, 1e-10);
        walk_free(&w);
    }
}

/* ---- the sphere against the hand-written ball ------------------------------------------- */

enum { LAP_SAMPLES = 400 };
typedef struct lap {
    double x[LAP_SAMPLES + 1][12];  /* q and q' at each sample */
    int k;
} lap;

static void keep_lap(void *ctx, const lgc_sample *s)
{
    lap *l = ctx;
    memcpy(l->x[l->k++], s->x, sizeof l->x[0]);
}

static void sphere_gives_the_hand_written_rows(void **state)
{
    (void)state;
    srand(26);
    const double *p_hand = rolling_ball_param_defaults, *p_body = rolling_ball_body_param_defaults;
    const double *p_incline = incline_sphere_param_defaults;
    double worst_hand = 0, worst_support = 0;
    for (int k = 0; k < 200; k++) {
        double x[14], f_hand[ROLLING_BALL_NX], f_body[ROLLING_BALL_BODY_NX];
        double w_hand[ROLLING_BALL_NWORK], w_body[ROLLING_BALL_BODY_NWORK];
        random_rolling_ball(p_body[ROLLING_BALL_BODY_PARAM_r], x);
        assert_int_equal(rolling_ball_rhs(0, x, NULL, p_hand, 10, 25, f_hand, NULL, w_hand), ROLLING_BALL_OK);
        assert_int_equal(rolling_ball_body_rhs(0, x, NULL, p_body, 10, 25, f_body, NULL, w_body),
                         ROLLING_BALL_BODY_OK);
        for (int i = 0; i < ROLLING_BALL_NX; i++) {
            const double d = fabs(f_body[i] - f_hand[i]) / (1 + fabs(f_hand[i]));
            check(d <= 1e-12, "state %d, x'[%d]: [rolling] sphere %.17g, by hand %.17g", k, i, f_body[i], f_hand[i]);
            worst_hand = fmax(worst_hand, d);
        }
        double f_sphere[INCLINE_SPHERE_NX], f_support[INCLINE_SPHERE_SUPPORT_NX];
        double w_sphere[INCLINE_SPHERE_NWORK], w_support[INCLINE_SPHERE_SUPPORT_NWORK];
        random_rolling_ball(p_incline[INCLINE_SPHERE_PARAM_r], x);
        assert_int_equal(incline_sphere_rhs(0, x, NULL, p_incline, 10, 25, f_sphere, NULL, w_sphere),
                         INCLINE_SPHERE_OK);
        assert_int_equal(incline_sphere_support_rhs(0, x, NULL, p_incline, 10, 25, f_support, NULL, w_support),
                         INCLINE_SPHERE_SUPPORT_OK);
        for (int i = 0; i < INCLINE_SPHERE_NX; i++) {
            const double d = fabs(f_support[i] - f_sphere[i]) / (1 + fabs(f_sphere[i]));
            check(d <= 1e-12, "state %d, x'[%d]: support r|u| %.17g, sphere %.17g", k, i, f_support[i], f_sphere[i]);
            worst_support = fmax(worst_support, d);
        }
    }
    print_message("  200 states on the constraints: rolling_ball_body against rolling_ball %.1e, "
                  "the support function r|u| against the sphere %.1e (largest relative difference of x')\n",
                  worst_hand, worst_support);

    /* The same trajectories: one lap of rolling_ball's orbit, sampled 400 times. */
    for (int method = 0; method < WALK_METHODS; method++) {
        const lgc_stepper_type *type = walk_method(method);
        static lap laps[2];
        const lgc_model *models[2] = {&rolling_ball_model, &rolling_ball_body_model};
        double max_g[2];
        for (int which = 0; which < 2; which++) {
            walk_run w;
            walk_init(&w, models[which], type, 2 * acos(-1.0), LAP_SAMPLES, 1e-12, LGC_PROJECT_FULL);
            laps[which].k = 0;
            assert_int_equal(walk(&w, keep_lap, &laps[which]), LGC_OK);
            max_g[which] = w.mon.max_g;
            walk_free(&w);
        }
        double worst = 0;
        for (int k = 0; k <= LAP_SAMPLES; k++)
            for (int i = 0; i < 12; i++)
                worst = fmax(worst, fabs(laps[1].x[k][i] - laps[0].x[k][i]));
        print_message("  %s: one lap, largest difference of a state component between the [rolling] sphere "
                      "and rolling_ball %.2e (max |g| %.1e, %.1e)\n", type->name, worst, max_g[1], max_g[0]);
        assert_le(worst, 1e-9);
    }
}

/* ---- the ellipsoid ---------------------------------------------------------------------- */

/* Resting on its c tip, E = N, turning at w (in N), rolling: v = w x (0, 0, c). */
static void ellipsoid_start(const double *p, const double w[3], double x[ROCKING_ELLIPSOID_NX])
{
    const double c = p[ROCKING_ELLIPSOID_PARAM_c];
    memset(x, 0, ROCKING_ELLIPSOID_NX * sizeof *x);
    x[ROCKING_ELLIPSOID_STATE_z] = c;
    x[ROCKING_ELLIPSOID_STATE_q0] = 1;
    x[ROCKING_ELLIPSOID_STATE_x_dot] = w[1] * c;
    x[ROCKING_ELLIPSOID_STATE_y_dot] = -w[0] * c;
    x[ROCKING_ELLIPSOID_STATE_q1_dot] = w[0] / 2;
    x[ROCKING_ELLIPSOID_STATE_q2_dot] = w[1] / 2;
    x[ROCKING_ELLIPSOID_STATE_q3_dot] = w[2] / 2;
}

typedef struct crossings {
    double t_prev, q2_prev;
    double first, last;
    int count;
} crossings;

/* q2 = sin(theta/2), theta the rocking angle: where it changes sign, by linear interpolation. */
static void find_crossings(void *ctx, const lgc_sample *s)
{
    crossings *c = ctx;
    const double q2 = s->x[ROCKING_ELLIPSOID_STATE_q2];
    if (s->t > 0 && (q2 < 0) != (c->q2_prev < 0)) {
        const double t = c->t_prev + (s->t - c->t_prev) * c->q2_prev / (c->q2_prev - q2);
        if (c->count++ == 0)
            c->first = t;
        c->last = t;
    }
    c->t_prev = s->t;
    c->q2_prev = q2;
}

static void ellipsoid_rocks_at_the_small_oscillation_frequency(void **state)
{
    (void)state;
    double p[ROCKING_ELLIPSOID_NP];
    memcpy(p, rocking_ellipsoid_param_defaults, sizeof p);
    const double m = p[ROCKING_ELLIPSOID_PARAM_m], a = p[ROCKING_ELLIPSOID_PARAM_a];
    const double c = p[ROCKING_ELLIPSOID_PARAM_c], g = p[ROCKING_ELLIPSOID_PARAM_g];
    const double rho = a * a / c, h = c, I = m * (a * a + c * c) / 5;
    const double omega = sqrt(m * g * (rho - h) / (I + m * h * h)), period = 2 * acos(-1.0) / omega;
    /* Rocking rates 1e-2 and 5e-3 rad/s, amplitudes rate/omega = 8e-4 and 4e-4 rad: the period's
    ** next term goes as the amplitude squared, so Richardson's (4 P(small) - P(large))/3 leaves it out. */
    const double rates[2] = {1e-2, 5e-3};
    for (int method = 0; method < WALK_METHODS; method++) {
        const lgc_stepper_type *type = walk_method(method);
        double measured[2];
        for (int r = 0; r < 2; r++) {
            double x0[ROCKING_ELLIPSOID_NX];
            ellipsoid_start(p, (double[3]){0, rates[r], 0}, x0);
            crossings cr = {0, 0, 0, 0, 0};
            walk_run w;
            walk_init(&w, &rocking_ellipsoid_model, type, 10.25 * period, 4100, 1e-12, LGC_PROJECT_FULL);
            w.x0 = x0;
            w.p = p;
            assert_int_equal(walk(&w, find_crossings, &cr), LGC_OK);
            assert_int_equal(cr.count, 20);
            measured[r] = 2 * (cr.last - cr.first) / (cr.count - 1);
            print_message("  %s: rate %g: period %.10f s against 2 pi/omega = %.10f s (omega^2 = m g (rho - h)/"
                          "(I + m h^2) = %.6f), relative %.2e; energy drift %.2e; max |phi| (contact, unit norm) "
                          "%.2e, |g| %.2e\n", type->name, rates[r], measured[r], period, omega * omega,
                          fabs(measured[r] - period) / period, w.mon.max_energy_drift, w.mon.max_phi, w.mon.max_g);
            assert_le(fabs(measured[r] - period) / period, 1e-5);
            assert_le(w.mon.max_energy_drift, 1e-9);
            assert_le(w.mon.max_phi, 1e-12);
            walk_free(&w);
        }
        const double extrapolated = (4 * measured[1] - measured[0]) / 3;
        const double err = fabs(extrapolated - period) / period;
        print_message("  %s: at amplitude 0 (Richardson) %.10f s, relative %.2e\n", type->name, extrapolated, err);
        assert_le(err, 1e-8);
    }
}

static void ellipsoid_rolling_and_spinning_keeps_its_energy(void **state)
{
    (void)state;
    for (int method = 0; method < WALK_METHODS; method++) {
        const lgc_stepper_type *type = walk_method(method);
        double x0[ROCKING_ELLIPSOID_NX];
        ellipsoid_start(rocking_ellipsoid_param_defaults, (double[3]){1.5, 2.0, 8.0}, x0);
        walk_run w;
        walk_init(&w, &rocking_ellipsoid_model, type, 5.0, 500, 1e-12, LGC_PROJECT_FULL);
        w.x0 = x0;
        assert_int_equal(walk(&w, NULL, NULL), LGC_OK);
        print_message("  %s: w = (1.5, 2, 8) rad/s, 5 s: energy drift %.2e; max |phi| %.2e, |phi'| %.2e, |g| %.2e\n",
                      type->name, w.mon.max_energy_drift, w.mon.max_phi, w.mon.max_phi_dot, w.mon.max_g);
        assert_le(w.mon.max_energy_drift, 1e-8);
        assert_le(w.mon.max_phi, 1e-12);
        assert_le(w.mon.max_g, 1e-10);
        walk_free(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sphere_rolls_down_the_incline_at_five_sevenths_g),
        cmocka_unit_test(sphere_gives_the_hand_written_rows),
        cmocka_unit_test(ellipsoid_rocks_at_the_small_oscillation_frequency),
        cmocka_unit_test(ellipsoid_rolling_and_spinning_keeps_its_energy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
