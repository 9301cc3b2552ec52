/*
** test_friction.c — Coulomb friction contacts against closed forms, under
** every stepper. specs/bowling_ball.toml: thrown with slip s0 = v0 - r w0,
** the ball slides at s' = g sin(alpha) - (7/2) mu g cos(alpha) sign(s0)
** until s = 0 at t1 = |s0| / ((7/2) mu g cos(alpha) - g sin(alpha)
** sign(s0)), then rolls at x'' = (5/7) g sin(alpha); on a slope steeper
** than tan(alpha) = (7/2) mu it slides for ever. specs/disk_link.toml: the
** link pulled out by 1, the disk cannot roll (it would need a friction of
** 10/7 > mu_s m g), slides with F = -mu_k m g, the link on s = s_eq + (1 -
** s_eq) cos(w t) (s_eq = mu_k m g/k, w^2 = k/M), until the slip
** x' - r th' - s' = 3 mu_k g t ... (the disk's part) meets the link's: it
** rolls from there, the link on w_r^2 = 3k/(3M + m), until the friction
** rolling needs, k |s| m/(3M + m), reaches mu_s m g. specs/billiard_ball.toml:
** a spatial contact, its slip keeping its direction, s' = -(7/2) mu g s/|s|,
** the centre on a parabola until s = 0. specs/belt_block.toml: stick-slip,
** each phase in closed form. tests/runtime/specs/painleve_rod.toml: the
** normal force a multiplier that scales the sliding friction: its value
** at the start, m g/(1 + 3 cos^2 th + 3 mu sign(s) sin th cos th), and no
** consistent mode where that denominator is negative.
** specs/incline_wheel_friction.toml: friction on a rolling wheel's no-slip
** row; from rest on the incline it rolls, x'' = (2/3) g sin(alpha), where
** tan(alpha) <= 3 mu_s, and else slides, x'' = g (sin(alpha) - mu_k
** cos(alpha)), th'' = 2 mu_k g cos(alpha)/r.
** tests/examples/specs/bowling_sphere.toml: the bowling ball as a spatial
** [rolling] sphere (a quaternion), friction on the sphere's no-slip rows:
** the same closed form, w_y in place of theta'.
*/
#define _GNU_SOURCE    /* M_PI */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "belt_block.h"
#include "billiard_ball.h"
#include "bowling_ball.h"
#include "bowling_sphere.h"
#include "check.h"
#include "disk_link.h"
#include "incline_wheel_friction.h"
#include "painleve_rod.h"
#include "events_met.h"
#include "lagrangec/driver.h"
#include "lagrangec/status.h"


/* A run of m from x0 at parameters p under stepper k, to t_end; its events into e, its end into x. */
static int run(const lgc_model *m, const double p[], const double x0[], int k, double t_end, met *e,
               double x[])
{
    lgc_driver_options opt;
    lgc_driver_options_default(&opt);
    opt.type = stepper(k);
    opt.h = opt.type->adaptive ? 0.0 : 1e-4;
    opt.rtol = 1e-12;
    opt.atol = 1e-13;
    opt.t_stop = t_end;
    lgc_system sys;
    assert_int_equal(lgc_system_init(&sys, m), LGC_OK);
    for (int i = 0; i < m->np; i++)
        sys.p[i] = p[i];
    lgc_driver *d = lgc_driver_alloc(&sys, &opt);
    assert_non_null(d);
    assert_in_range(m->nx, 1, MAX_NX);
    e->nx = m->nx;
    lgc_driver_observe_events(d, note, e);
    int rc = lgc_driver_reset(d, 0.0, x0);
    if (rc == LGC_OK)
        rc = lgc_driver_advance(d, t_end, x);
    lgc_driver_free(d);
    lgc_system_free(&sys);
    return rc;
}

#define MAX_PARAMETERS 16

/* The model's default parameters into p. */
static void defaults_of(const lgc_model *m, double p[MAX_PARAMETERS])
{
    assert_in_range(m->np, 1, MAX_PARAMETERS);
    for (int i = 0; i < m->np; i++)
        p[i] = m->parameter_defaults[i];
}

static double parameter(const lgc_model *m, const double p[], const char *name)
{
    int i = lgc_name_index(m->parameter_names, m->np, name);
    assert_true(i >= 0);
    return p[i];
}

static void set_parameter(const lgc_model *m, double p[], const char *name, double value)
{
    int i = lgc_name_index(m->parameter_names, m->np, name);
    assert_true(i >= 0);
    p[i] = value;
}

/* A ball thrown at (alpha, spin) slides until its slip s = v - r w reaches 0 at t1, at v1, then
** rolls at 5/7 g sin(alpha) to t_end = t1 + 1, at v_end. */
typedef struct {
    double v0, t1, v1, t_end, v_end;
} throw_closed_form;

/* m's parameters and start for the throw (alpha, spin) into p and x0, and its closed form. */
static throw_closed_form thrown(const lgc_model *m, double alpha, double spin, double p[], double x0[])
{
    defaults_of(m, p);
    set_parameter(m, p, "alpha", alpha);
    set_parameter(m, p, "spin", spin);
    m->initial_state_at(p, x0);
    const double g = parameter(m, p, "g"), mu = parameter(m, p, "mu"), r = parameter(m, p, "r"),
                 v0 = parameter(m, p, "v0"), s0 = v0 - r * spin, sign = s0 > 0.0 ? 1.0 : -1.0;
    const double rate = 3.5 * mu * g * cos(alpha) - g * sin(alpha) * sign;
    throw_closed_form c = {v0, fabs(s0) / rate, 0.0, 0.0, 0.0};
    c.v1 = v0 + (g * sin(alpha) - mu * g * cos(alpha) * sign) * c.t1;
    c.t_end = c.t1 + 1.0;
    c.v_end = c.v1 + 5.0 / 7.0 * g * sin(alpha) * (c.t_end - c.t1);
    return c;
}

/* The throw run under stepper k to t_end: one event, the lane's stick, where it starts to roll. */
static void run_to_roll(const lgc_model *m, const double p[], const double x0[], int k, double t_end, met *e, double x[])
{
    const int stick = m->nevent + 2 * m->ncontact + 1;
    assert_int_equal(run(m, p, x0, k, t_end, e, x), LGC_OK);
    check(e->n == 1 && e->event[0] == stick, "%s: %d events, the first %d; expected one stick[lane] (%d)",
          stepper(k)->name, e->n, e->n ? e->event[0] : -1, stick);
}

/* The ball thrown at (alpha, spin): the time its slip reaches 0, and its speed then and at t_end. */
static void ball_slides_then_rolls(double alpha, double spin)
{
    const lgc_model *m = &bowling_ball_model;
    double p[MAX_PARAMETERS], x0[MAX_NX], x[MAX_NX];
    const throw_closed_form c = thrown(m, alpha, spin, p, x0);
    const double r = parameter(m, p, "r"), v0 = c.v0, t1 = c.t1, v1 = c.v1, t_end = c.t_end, v_end = c.v_end;
    for (int k = 0; k < 4; k++) {
        met e = {0};
        run_to_roll(m, p, x0, k, t_end, &e, x);
        const double dt = fabs(e.t[0] - t1), dv = fabs(e.x[0][2] - v1), dv_end = fabs(x[2] - v_end),
                     roll = fabs(x[2] - r * x[3]);
        print_message("  %-6s alpha %.2f spin %6.1f: rolls at t = %.15f (closed form %.15f, %.1e); x' %.1e "
                      "off then, %.1e at t_end; |x' - r theta'| %.1e\n",
                      stepper(k)->name, alpha, spin, e.t[0], t1, dt, dv, dv_end, roll);
        assert_le(dt, 1e-9 * t1);
        assert_le(dv, 1e-9 * v0);
        assert_le(dv_end, 1e-8 * v0);
        assert_le(roll, 1e-9 * v0);
    }
}

/* The same for the [rolling] sphere: x at 0, x' at 6, w_y = 2 (q0 q2' - q0' q2 + q3 q1' - q1 q3'). */
static double sphere_w_y(const double *x)
{
    const double *q = x + 2, *v = x + 8;
    return 2 * (q[0] * v[2] - v[0] * q[2] + q[3] * v[1] - q[1] * v[3]);
}

static void sphere_slides_then_rolls(double alpha, double spin)
{
    const lgc_model *m = &bowling_sphere_model;
    double p[MAX_PARAMETERS], x0[MAX_NX], x[MAX_NX];
    const throw_closed_form c = thrown(m, alpha, spin, p, x0);
    const double r = parameter(m, p, "r"), v0 = c.v0, t1 = c.t1, v1 = c.v1, t_end = c.t_end, v_end = c.v_end;
    for (int k = 0; k < 4; k++) {
        met e = {0};
        run_to_roll(m, p, x0, k, t_end, &e, x);
        const double dt = fabs(e.t[0] - t1), dv = fabs(e.x[0][6] - v1), dv_end = fabs(x[6] - v_end),
                     roll = fabs(x[6] - r * sphere_w_y(x)), lateral = fmax(fabs(x[1]), fabs(x[7]));
        print_message("  %-6s sphere alpha %.2f spin %6.1f: rolls at t = %.15f (closed form %.15f, %.1e); x' %.1e "
                      "off then, %.1e at t_end; |x' - r w_y| %.1e; |y|, |y'| %.1e\n",
                      stepper(k)->name, alpha, spin, e.t[0], t1, dt, dv, dv_end, roll, lateral);
        /* bowling_ball's motion is polynomial in t, which every stepper integrates exactly; the
        ** sphere's quaternion turns at half its spin (75 rad/s at spin 150, some 20 turns before it
        ** rolls), and CVODE's rtol bounds each step's error, not their sum over the turns: adams and
        ** bdf found the instant to 3.1e-9 and 7.7e-9 at that spin, the velocity to 2.9e-8 of v0
        ** (rounding in the generated sums moves these by a factor of a few). rk4 and dopri5 keep
        ** 2e-9. */
        const double tol = k < 2 ? 2e-9 : 1e-7;
        assert_le(dt, 10.0 * tol * t1);
        assert_le(dv, tol * v0);
        assert_le(dv_end, 5.0 * tol * v0);
        assert_le(roll, tol * v0);
        assert_le(lateral, 1e-12);
    }
}

static void bowling_sphere_slides_then_rolls(void **state)
{
    (void)state;
    sphere_slides_then_rolls(0.0, 0.0);
    sphere_slides_then_rolls(0.1, -50.0);
    sphere_slides_then_rolls(-0.2, 150.0);
}

static void bowling_ball_slides_then_rolls(void **state)
{
    (void)state;
    ball_slides_then_rolls(0.0, 0.0);       /* thrown without spin */
    ball_slides_then_rolls(0.1, -50.0);     /* with backspin, down a slope */
    ball_slides_then_rolls(-0.2, 150.0);    /* with topspin, up a slope */
}

static void bowling_ball_slides_for_ever_on_a_steep_slope(void **state)
{
    (void)state;
    const lgc_model *m = &bowling_ball_model;
    double p[MAX_PARAMETERS], x0[MAX_NX], x[MAX_NX];
    defaults_of(m, p);
    const double mu = parameter(m, p, "mu"), g = parameter(m, p, "g"), v0 = parameter(m, p, "v0");
    const double alpha = atan(3.5 * mu) + 0.05, t_end = 3.0;
    set_parameter(m, p, "alpha", alpha);
    m->initial_state_at(p, x0);
    for (int k = 0; k < 4; k++) {
        met e = {0};
        assert_int_equal(run(m, p, x0, k, t_end, &e, x), LGC_OK);
        const double v_end = v0 + g * (sin(alpha) - mu * cos(alpha)) * t_end;
        print_message("  %-6s tan(alpha) = %.3f > 3.5 mu: %d events, x' off by %.1e at t = 3\n", stepper(k)->name,
                      tan(alpha), e.n, fabs(x[2] - v_end));
        assert_int_equal(e.n, 0);
        assert_le(fabs(x[2] - v_end), 1e-8 * v0);
    }
}

/* The smallest root of f in (a, b), f(a) and f(b) of opposite signs, by bisection to round-off. */
static double root(double (*f)(double, const double *), const double *c, double a, double b)
{
    for (int i = 0; i < 200; i++) {
        const double mid = 0.5 * (a + b);
        if ((f(mid, c) > 0.0) == (f(a, c) > 0.0))
            a = mid;
        else
            b = mid;
    }
    return 0.5 * (a + b);
}

/* The slip while the disk slides from rest: u(t) = -3 mu_k g t + (1 - s_eq) w sin(w t). c: mu_k g, 1 - s_eq, w. */
static double slip(double t, const double *c)
{
    return -3.0 * c[0] * t + c[1] * c[2] * sin(c[2] * t);
}

/* The link rolling from (s1, s1') at w_r, plus the threshold: c: s1, s1'/w_r, w_r, threshold. */
static double link_past_threshold(double tau, const double *c)
{
    return c[0] * cos(c[2] * tau) + c[1] * sin(c[2] * tau) + c[3];
}

static void disk_slides_rolls_and_slides_again(void **state)
{
    (void)state;
    const lgc_model *m = &disk_link_model;
    const double *p = m->parameter_defaults;
    const double mg = parameter(m, p, "m") * parameter(m, p, "g"), k_spring = parameter(m, p, "k"),
                 M = parameter(m, p, "M"), mass = parameter(m, p, "m");
    const double s_eq = parameter(m, p, "mu_k") * mg / k_spring, w = sqrt(k_spring / M);
    const double c_slide[3] = {parameter(m, p, "mu_k") * parameter(m, p, "g"), 1.0 - s_eq, w};
    const double t1 = root(slip, c_slide, 0.1, 1.0);
    const double s1 = s_eq + (1.0 - s_eq) * cos(w * t1), s1_dot = -(1.0 - s_eq) * w * sin(w * t1);
    const double w_r = sqrt(3.0 * k_spring / (3.0 * M + mass));
    const double threshold = parameter(m, p, "mu_s") * mg * (3.0 * M + mass) / (k_spring * mass);
    const double c_roll[4] = {s1, s1_dot / w_r, w_r, threshold};
    const double t2 = t1 + root(link_past_threshold, c_roll, 0.0, 0.5 * M_PI / w_r + 0.5);
    const int slide = m->nevent + 2 * m->ncontact, stick = slide + 1;
    for (int k = 0; k < 4; k++) {
        met e = {0};
        double x[MAX_NX];
        assert_int_equal(run(m, p, m->initial_state, k, 1.5, &e, x), LGC_OK);
        check(e.n == 2 && e.event[0] == stick && e.event[1] == slide,
              "%s: %d events (%d, %d); expected stick[contact] then slide[contact]", stepper(k)->name, e.n,
              e.n > 0 ? e.event[0] : -1, e.n > 1 ? e.event[1] : -1);
        print_message("  %-6s rolls at t = %.15f (closed form %.15f, %.1e), slides at %.15f (%.15f, %.1e), "
                      "s there %.15f (-%.15f)\n",
                      stepper(k)->name, e.t[0], t1, fabs(e.t[0] - t1), e.t[1], t2, fabs(e.t[1] - t2), e.x[1][2],
                      threshold);
        assert_le(fabs(e.t[0] - t1), 1e-9);
        assert_le(fabs(e.t[1] - t2), 1e-9);
        assert_le(fabs(e.x[1][2] + threshold), 1e-9);
    }
}

static void billiard_ball_curves_then_rolls_straight(void **state)
{
    (void)state;
    const lgc_model *m = &billiard_ball_model;
    const double *p = m->parameter_defaults;
    const double g = parameter(m, p, "g"), mu = parameter(m, p, "mu"), r = parameter(m, p, "r"),
                 v0 = parameter(m, p, "v0");
    const double s0[2] = {v0 - r * parameter(m, p, "spin_y"), r * parameter(m, p, "spin_x")};
    const double size = hypot(s0[0], s0[1]), t1 = size / (3.5 * mu * g), t_end = 1.0;
    const double d[2] = {s0[0] / size, s0[1] / size};
    /* the centre at t1 on the parabola, then straight on at v1 */
    const double v1[2] = {v0 - mu * g * t1 * d[0], -mu * g * t1 * d[1]};
    const double p1[2] = {v0 * t1 - 0.5 * mu * g * t1 * t1 * d[0], -0.5 * mu * g * t1 * t1 * d[1]};
    const int stick = m->nevent + 2 * m->ncontact + 1;
    for (int k = 0; k < 4; k++) {
        met e = {0};
        double x[MAX_NX];
        assert_int_equal(run(m, p, m->initial_state, k, t_end, &e, x), LGC_OK);
        check(e.n == 1 && e.event[0] == stick, "%s: %d events; expected one stick[cloth]", stepper(k)->name, e.n);
        const double dt = fabs(e.t[0] - t1), dp = hypot(e.x[0][0] - p1[0], e.x[0][1] - p1[1]),
                     dv = hypot(x[5] - v1[0], x[6] - v1[1]),
                     dx = hypot(x[0] - (p1[0] + v1[0] * (t_end - t1)), x[1] - (p1[1] + v1[1] * (t_end - t1)));
        print_message("  %-6s rolls at t = %.15f (closed form %.15f, %.1e); centre %.1e off the parabola "
                      "there; at t = 1 velocity %.1e, centre %.1e off\n",
                      stepper(k)->name, e.t[0], t1, dt, dp, dv, dx);
        assert_le(dt, 1e-9 * t1);
        assert_le(dp, 1e-9);
        assert_le(dv, 1e-9 * v0);
        assert_le(dx, 1e-9);
    }
}

/* The block's slide from x_b at the belt's speed: x = x_k + (x_b - x_k) cos wt + (V/w) sin wt; c: x_b - x_k, V, w. */
static double block_slip(double tau, const double *c)
{
    return -c[0] * c[2] * sin(c[2] * tau) + c[1] * cos(c[2] * tau) - c[1];
}

static void belt_block_sticks_and_slips(void **state)
{
    (void)state;
    const lgc_model *m = &belt_block_model;
    const double *p = m->parameter_defaults;
    const double mg = parameter(m, p, "m") * parameter(m, p, "g"), k_spring = parameter(m, p, "k"),
                 V = parameter(m, p, "V"), w = sqrt(k_spring / parameter(m, p, "m"));
    const double x_b = parameter(m, p, "mu_s") * mg / k_spring, x_k = parameter(m, p, "mu_k") * mg / k_spring;
    /* stuck from x = 0 to x_b; sliding half an oscillation about x_k, back to the belt's speed at 2 x_k - x_b */
    const double c[3] = {x_b - x_k, V, w};
    const double t_break = x_b / V, t_stick = t_break + root(block_slip, c, 1e-6, 2.0 * M_PI / w - 1e-6);
    const double x_stick = x_k + (x_b - x_k) * cos(w * (t_stick - t_break)) + V / w * sin(w * (t_stick - t_break));
    const double t_break2 = t_stick + (x_b - x_stick) / V;
    const int slide = m->nevent + 2 * m->ncontact, stick = slide + 1;
    for (int k = 0; k < 4; k++) {
        met e = {0};
        double x[MAX_NX];
        assert_int_equal(run(m, p, m->initial_state, k, t_break2 + 0.1, &e, x), LGC_OK);
        check(e.n == 3 && e.event[0] == slide && e.event[1] == stick && e.event[2] == slide,
              "%s: %d events; expected slide, stick, slide", stepper(k)->name, e.n);
        print_message("  %-6s breaks away at %.15f (%.1e), sticks at %.15f (%.1e) at x %.1e off, breaks at %.15f "
                      "(%.1e)\n",
                      stepper(k)->name, e.t[0], fabs(e.t[0] - t_break), e.t[1], fabs(e.t[1] - t_stick),
                      fabs(e.x[1][0] - x_stick), e.t[2], fabs(e.t[2] - t_break2));
        assert_le(fabs(e.t[0] - t_break), 1e-9);
        assert_le(fabs(e.t[1] - t_stick), 1e-9);
        assert_le(fabs(e.x[1][0] - x_stick), 1e-9);
        assert_le(fabs(e.t[2] - t_break2), 1e-9);
    }
}

/* The rod's push at the start, sliding either way, and no mode at all past Painleve's coefficient. */
static void painleve_rod_pushes_or_jams(void **state)
{
    (void)state;
    const lgc_model *m = &painleve_rod_model;
    double p[MAX_PARAMETERS];
    defaults_of(m, p);
    const double mg = parameter(m, p, "m") * parameter(m, p, "g"), th = M_PI / 4;
    for (int k = 0; k < 4; k++)
        for (int sign = -1; sign <= 1; sign += 2)
            for (int jam = 0; jam <= 1; jam++) {
                const double mu = jam ? 2.0 : 1.0;   /* Painleve's bound at 45 degrees: 5/3 */
                set_parameter(m, p, "mu", mu);
                set_parameter(m, p, "v", sign);
                const double denominator = 1 + 3 * cos(th) * cos(th) + 3 * mu * sign * sin(th) * cos(th);
                lgc_driver_options opt;
                lgc_driver_options_default(&opt);
                opt.type = stepper(k);
                opt.h = opt.type->adaptive ? 0.0 : 1e-4;
                lgc_system sys;
                assert_int_equal(lgc_system_init(&sys, m), LGC_OK);
                for (int i = 0; i < m->np; i++)
                    sys.p[i] = p[i];
                double x0[MAX_NX], dxdt[MAX_NX], mult[4];
                assert_in_range(m->nx, 1, MAX_NX);
                m->initial_state_at(p, x0);
                lgc_driver *d = lgc_driver_alloc(&sys, &opt);
                assert_non_null(d);
                const int rc = lgc_driver_reset(d, 0.0, x0);
                if (denominator < 0.0) {
                    check(rc == LGC_ERR_FRICTION, "%s: sliding %+d at mu = %g: status %d, expected LGC_ERR_FRICTION",
                          stepper(k)->name, sign, mu, rc);
                } else {
                    assert_int_equal(rc, LGC_OK);
                    assert_int_equal(lgc_system_rhs(&sys, 0.0, x0, dxdt, mult), LGC_OK);
                    const double push = mg / denominator;
                    if (k == 0)
                        print_message("  sliding %+d, mu = %g: push %.15f (closed form %.15f, %.1e)\n", sign, mu,
                                      mult[0], push, fabs(mult[0] - push));
                    assert_le(fabs(mult[0] - push), 1e-12 * push);
                }
                lgc_driver_free(d);
                lgc_system_free(&sys);
            }
}

static void wheel_rolls_or_slides_down_the_incline(void **state)
{
    (void)state;
    const lgc_model *m = &incline_wheel_friction_model;
    double p[MAX_PARAMETERS], x[MAX_NX];
    defaults_of(m, p);
    const double g = parameter(m, p, "g"), alpha = parameter(m, p, "alpha"), r = parameter(m, p, "r"), t_end = 1.0;
    for (int slides = 0; slides <= 1; slides++) {
        const double mu_s = slides ? 0.05 : 0.2, mu_k = 0.8 * mu_s;   /* 3 mu_s against tan(alpha) = 0.31 */
        set_parameter(m, p, "mu_s", mu_s);
        set_parameter(m, p, "mu_k", mu_k);
        const double a = slides ? g * (sin(alpha) - mu_k * cos(alpha)) : 2.0 / 3.0 * g * sin(alpha);
        const double spin = slides ? 2.0 * mu_k * g * cos(alpha) / r : a / r;
        for (int k = 0; k < 4; k++) {
            met e = {0};
            assert_int_equal(run(m, p, m->initial_state, k, t_end, &e, x), LGC_OK);
            const double dv = fabs(x[2] - a * t_end), dw = fabs(x[3] - spin * t_end);
            print_message("  %-6s mu_s = %.2f (%s): %d switches; x' off %.1e, th' off %.1e at t = 1\n",
                          stepper(k)->name, mu_s, slides ? "slides" : "rolls", e.n, dv, dw);
            assert_int_equal(e.n, 0);
            assert_le(dv, 1e-9 * a);
            assert_le(dw, 1e-9 * spin);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bowling_ball_slides_then_rolls),
        cmocka_unit_test(bowling_sphere_slides_then_rolls),
        cmocka_unit_test(bowling_ball_slides_for_ever_on_a_steep_slope),
        cmocka_unit_test(disk_slides_rolls_and_slides_again),
        cmocka_unit_test(billiard_ball_curves_then_rolls_straight),
        cmocka_unit_test(belt_block_sticks_and_slips),
        cmocka_unit_test(painleve_rod_pushes_or_jams),
        cmocka_unit_test(wheel_rolls_or_slides_down_the_incline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
