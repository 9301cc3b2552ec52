/*
** test_impacts.c — impacts on several contacts at once, and on a contact
** that moves, against closed forms, under every stepper and correction.
** specs/flat_rod.toml: a rod dropped flat hits the floor with both ends
** at t1 = sqrt(2h/g), v = sqrt(2gh); both rows take the impulse together,
** and it leaves flat at e v, without spin, its ends above the floor.
** specs/moving_table.toml: a ball on a table whose top is A sin(nu t):
** at each impact the velocity relative to the table turns over and
** shrinks by e; between them the ball flies on a parabola from the last
** impact's state.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"
#include "flat_rod.h"
#include "events_met.h"
#include "lagrangec/driver.h"
#include "lagrangec/status.h"
#include "lcp.h"
#include "moving_table.h"
#include "pendulum_wall.h"
#include "sled_wall.h"
#include "switch_window.h"


static const char *correction_name(int p)
{
    return p == LGC_PROJECT_NONE ? "none" : p == LGC_PROJECT_VELOCITY ? "velocity" : "full";
}

/* A run's settings beyond the model: its stepper, correction, tolerances, one parameter set. */
typedef struct run_setup {
    const lgc_stepper_type *type;
    int project;
    double h, rtol, atol, t_end;
    const char *param;      /* NULL: the spec's parameters */
    double value;
} run_setup;

static lgc_driver *start_with(lgc_system *sys, const lgc_model *m, const run_setup *r, met *e)
{
    lgc_driver_options opt;
    lgc_driver_options_default(&opt);
    opt.type = r->type;
    opt.h = r->type->adaptive ? 0.0 : r->h;
    opt.rtol = r->rtol;
    opt.atol = r->atol;
    opt.project = r->project;
    opt.t_stop = r->t_end;
    assert_int_equal(lgc_system_init(sys, m), LGC_OK);
    for (int i = 0; r->param && i < m->np; i++)
        if (strcmp(m->parameter_names[i], r->param) == 0)
            sys->p[i] = r->value;
    lgc_driver *d = lgc_driver_alloc(sys, &opt);
    assert_non_null(d);
    e->nx = m->nx;
    lgc_driver_observe_events(d, note, e);
    double x0[MAX_NX];
    assert_in_range(m->nx, 1, MAX_NX);
    m->initial_state_at(sys->p, x0);
    assert_int_equal(lgc_driver_reset(d, 0.0, x0), LGC_OK);
    return d;
}

static lgc_driver *start(lgc_system *sys, const lgc_model *m, const lgc_stepper_type *type, int project,
                         double h, double t_end, met *e)
{
    const run_setup r = {type, project, h, 1e-12, 1e-13, t_end, NULL, 0.0};
    return start_with(sys, m, &r, e);
}

/*
** The rod dropped flat with e1 = 0.5 at one end and e2 = 0.3 at the other
** (--param e2=0.3): both rows push, and their rates after the impact are
** e1 v and e2 v: y' = (e1 + e2) v/2, th' = (e2 - e1) v/L.
*/
static void rod_with_two_restitutions_turns_as_they_say(void **state)
{
    (void)state;
    const lgc_model *m = &flat_rod_model;
    const double g = 9.81, h = 1.0, L = 1.0, e1 = 0.5, e2 = 0.3, v = sqrt(2.0 * g * h);
    for (int k = 0; k < 4; k++) {
        lgc_system sys;
        met *log = calloc(1, sizeof *log);
        assert_non_null(log);
        const run_setup r = {stepper(k), LGC_PROJECT_FULL, 1e-4, 1e-12, 1e-13, 0.5, "e2", e2};
        lgc_driver *d = start_with(&sys, m, &r, log);
        double x[MAX_NX];
        assert_int_equal(lgc_driver_advance(d, 0.5, x), LGC_OK);
        check(log->n == 2 && log->t[0] == log->t[1], "%s: %d events, not both ends' impacts at once",
              stepper(k)->name, log->n);
        const double *after = log->x[1];
        print_message("  %-6s e1 = %.1f, e2 = %.1f: |y' - (e1 + e2) v/2| = %.1e, |th' - (e2 - e1) v/L| = %.1e\n",
                      stepper(k)->name, e1, e2, fabs(after[4] - 0.5 * (e1 + e2) * v),
                      fabs(after[5] - (e2 - e1) * v / L));
        assert_le(fabs(after[4] - 0.5 * (e1 + e2) * v), 1e-9);
        assert_le(fabs(after[5] - (e2 - e1) * v / L), 1e-9);
        lgc_driver_free(d);
        lgc_system_free(&sys);
        free(log);
    }
}

/* A restitution outside [0, 1] at the run's parameters is refused at the start. */
static void restitution_out_of_range_is_refused(void **state)
{
    (void)state;
    const lgc_model *m = &flat_rod_model;
    lgc_system sys;
    assert_int_equal(lgc_system_init(&sys, m), LGC_OK);
    lgc_driver_options opt;
    lgc_driver_options_default(&opt);
    lgc_driver *d = lgc_driver_alloc(&sys, &opt);
    assert_non_null(d);
    for (int i = 0; i < m->np; i++)
        if (strcmp(m->parameter_names[i], "e2") == 0)
            sys.p[i] = 1.5;
    double x0[MAX_NX];
    assert_in_range(m->nx, 1, MAX_NX);
    m->initial_state_at(sys.p, x0);
    assert_int_equal(lgc_driver_reset(d, 0.0, x0), LGC_ERR_RESTITUTION);
    lgc_driver_free(d);
    lgc_system_free(&sys);
}

static void rod_dropped_flat_rebounds_flat(void **state)
{
    (void)state;
    const lgc_model *m = &flat_rod_model;
    double e[2];
    m->restitution(m->parameter_defaults, e);
    const double g = 9.81, h = 1.0, L = 1.0;
    const double t1 = sqrt(2.0 * h / g), v = sqrt(2.0 * g * h), t2 = t1 + 2.0 * e[0] * v / g;
    const int impact1 = m->nevent + 1, impact2 = m->nevent + 3;
    for (int k = 0; k < 4; k++) {
        for (int p = LGC_PROJECT_NONE; p <= LGC_PROJECT_FULL; p++) {
            lgc_system sys;
            met *log = calloc(1, sizeof *log);
            assert_non_null(log);
            lgc_driver *d = start(&sys, m, stepper(k), p, 1e-4, 1.0, log);
            double x[MAX_NX], lowest = INFINITY, worst_flight = 0.0;
            for (int s = 1; s <= 200; s++) {
                const double t = 0.005 * s;
                assert_int_equal(lgc_driver_advance(d, t, x), LGC_OK);
                lowest = fmin(lowest, fmin(x[1] - L / 2 * sin(x[2]), x[1] + L / 2 * sin(x[2])));
                if (t > t1 && t < t2) {     /* the flight up and back: flat, on y = e v tau - g tau^2/2 */
                    const double tau = t - t1;
                    worst_flight = fmax(worst_flight, fabs(x[1] - (e[0] * v * tau - 0.5 * g * tau * tau)));
                    worst_flight = fmax(worst_flight, fabs(x[2]));
                }
            }
            check(log->n >= 2 && log->event[0] != log->event[1]
                      && (log->event[0] == impact1 || log->event[0] == impact2)
                      && (log->event[1] == impact1 || log->event[1] == impact2),
                  "%s, %s: %d events, the first two %d and %d: not both ends' impacts", stepper(k)->name,
                  correction_name(p), log->n, log->event[0], log->event[1]);
            const double *after = log->x[1];
            print_message("  %-6s %-8s both ends at t = %.15f and %.15f (|t - t1| %.1e); after: "
                          "|y' - e v| = %.1e, |th'| = %.1e, |x'| = %.1e; flight off its parabola "
                          "%.1e; lowest end %.1e\n",
                          stepper(k)->name, correction_name(p), log->t[0], log->t[1], fabs(log->t[0] - t1),
                          fabs(after[4] - e[0] * v), fabs(after[5]), fabs(after[3]), worst_flight, lowest);
            assert_eq(log->t[0], log->t[1]);
            assert_le(fabs(log->t[0] - t1), 1e-9);
            assert_le(fabs(after[4] - e[0] * v), 1e-9);
            assert_le(fabs(after[5]), 1e-12);
            assert_le(fabs(after[3]), 1e-12);
            assert_le(worst_flight, 1e-8);
            assert_ge(lowest, -1e-9);
            lgc_driver_free(d);
            lgc_system_free(&sys);
            free(log);
        }
    }
}

/* The table's top and its velocity. */
static double table(double A, double nu, double t)
{
    return A * sin(nu * t);
}

static double table_rate(double A, double nu, double t)
{
    return A * nu * cos(nu * t);
}

/*
** The first time from t0 that a flight y0 + v0 tau - g tau^2/2 meets the
** table: bisection on the sign change, scanned in steps of 1e-4.
*/
static double meets_table(double t0, double y0, double v0, double g, double A, double nu)
{
    double a = t0 + 1e-9, b;
#define GAP(t) (y0 + v0 * ((t) - t0) - 0.5 * g * ((t) - t0) * ((t) - t0) - table(A, nu, (t)))
    for (b = a + 1e-4; GAP(b) > 0.0; b += 1e-4)
        a = b;
    for (int i = 0; i < 200 && b - a > 1e-16; i++) {
        const double c = 0.5 * (a + b);
        if (GAP(c) > 0.0)
            a = c;
        else
            b = c;
    }
#undef GAP
    return 0.5 * (a + b);
}

static void ball_on_a_moving_table_rebounds_at_e_relative_to_it(void **state)
{
    (void)state;
    const lgc_model *m = &moving_table_model;
    double e;
    m->restitution(m->parameter_defaults, &e);
    const double g = 9.81, h = 0.1, A = 0.01, nu = 20.0;
    const int impact = m->nevent + 1;
    for (int k = 0; k < 4; k++) {
        for (int p = LGC_PROJECT_NONE; p <= LGC_PROJECT_FULL; p++) {
            lgc_system sys;
            met *log = calloc(1, sizeof *log);
            assert_non_null(log);
            lgc_driver *d = start(&sys, m, stepper(k), p, 1e-4, 0.6, log);
            double x[2];
            assert_int_equal(lgc_driver_advance(d, 0.6, x), LGC_OK);
            /* Each impact from the state the last one left (the drop's at first). */
            double t0 = 0.0, y0 = h, v0 = 0.0, worst_ratio = 0.0, worst_time = 0.0;
            int bounces = 0;
            for (int i = 0; i < log->n && i < MAX_MET; i++) {
                check(log->event[i] == impact, "%s, %s: event %d is %d, not an impact", stepper(k)->name,
                      correction_name(p), i, log->event[i]);
                const double ti = meets_table(t0, y0, v0, g, A, nu), vt = table_rate(A, nu, ti);
                const double approach = v0 - g * (ti - t0) - vt, rebound = log->x[i][1] - vt;
                worst_time = fmax(worst_time, fabs(log->t[i] - ti));
                if (sys.active[0] && i == log->n - 1) {
                    /* it came to rest: moving with the table */
                    check(fabs(rebound) <= 1e-9, "%s, %s: at rest, but %.3e relative to the table",
                          stepper(k)->name, correction_name(p), rebound);
                } else {
                    worst_ratio = fmax(worst_ratio, fabs(rebound / -approach - e));
                    bounces++;
                }
                t0 = log->t[i];
                y0 = log->x[i][0];
                v0 = log->x[i][1];
            }
            print_message("  %-6s %-8s %d rebounds: max |rebound/approach - e| = %.1e relative to the "
                          "table; impact times off the flights' by %.1e at most\n",
                          stepper(k)->name, correction_name(p), bounces, worst_ratio, worst_time);
            assert_ge(bounces, 3);
            assert_le(worst_ratio, 1e-8);
            assert_le(worst_time, 1e-9);
            lgc_driver_free(d);
            lgc_system_free(&sys);
            free(log);
        }
    }
}

/*
** Impacts with other rows that hold: they keep their rates (their
** impulses from the Schur complement of the impact's problem). The
** pendulum (a holonomic row) swinging into the wall x >= c turns back along
** its circle at e times its speed; the sled (a nonholonomic row) sliding
** into the wall x >= 0 bounces back along its heading at e times its
** speed, its turning rate unchanged.
*/
static void rows_that_hold_keep_their_rates_through_an_impact(void **state)
{
    (void)state;
    const double e = 0.5, g = 9.81, l = 1.0, c = 0.6, drop = sqrt(l * l - c * c), s = sqrt(2.0 * g * drop);
    const double u = 1.0, th0 = 2.5;
    for (int k = 0; k < 4; k++) {
        lgc_system sys;
        met *log = calloc(1, sizeof *log);
        assert_non_null(log);
        /* sampled between steps too: each sample corrected with the wall's contact apart */
        lgc_driver *d = start(&sys, &pendulum_wall_model, stepper(k), LGC_PROJECT_FULL, 1e-4, 0.6, log);
        double x[MAX_NX];
        for (int j = 1; j <= 160; j++)
            assert_int_equal(lgc_driver_advance(d, 0.6 * j / 160.0 + 0.37e-4 * (j < 160), x), LGC_OK);
        check(log->n == 1, "%s: %d events, not the pendulum's impact", stepper(k)->name, log->n);
        const double *p = log->x[0];
        /* before: -s along the circle's tangent (c, -drop)/l turned, (drop, c)/l; after: e s along it */
        const double pend = fmax(fabs(p[2] - e * s * drop / l), fabs(p[3] - e * s * c / l)), x_hit = p[0];
        lgc_driver_free(d);
        lgc_system_free(&sys);
        log->n = 0;
        d = start(&sys, &sled_wall_model, stepper(k), LGC_PROJECT_FULL, 1e-4, 1.5, log);
        assert_int_equal(lgc_driver_advance(d, 1.5, x), LGC_OK);
        check(log->n == 1, "%s: %d events, not the sled's impact", stepper(k)->name, log->n);
        const double *q = log->x[0];
        const double sled = fmax(fmax(fabs(q[3] + e * u * cos(th0)), fabs(q[4] + e * u * sin(th0))), fabs(q[5]));
        print_message("  %-6s pendulum: |v+ - e s t| = %.1e (at x = %.15f); sled: |v+ + e u (cos, sin)(th0)|, "
                      "|th'| = %.1e (at t = %.15f, closed form %.15f)\n",
                      stepper(k)->name, pend, x_hit, sled, log->t[0], 1.0 / (u * -cos(th0)));
        assert_le(pend, 1e-9);
        assert_le(fabs(x_hit - c), 1e-12);
        assert_le(sled, 1e-9);
        assert_le(fabs(log->t[0] - 1.0 / (u * -cos(th0))), 1e-9);
        lgc_driver_free(d);
        lgc_system_free(&sys);
        free(log);
    }
}

/*
** The rod dropped tilted: its ends' impacts alternate and then accumulate
** on one end while the other rests (the Zeno case). Under every stepper
** and at tolerances from loose to the tightest the state's round-off
** allows, the run ends at t_end with the rod resting on both ends, still,
** after a bounded number of switches.
*/
static void tilted_rod_comes_to_rest_at_any_tolerance(void **state)
{
    (void)state;
    const lgc_model *m = &flat_rod_model;
    const double tolerances[][2] = {{1e-6, 1e-8}, {1e-12, 1e-14}, {1e-14, 1e-16}};
    const double rk4_steps[] = {1e-3, 1e-4, 1e-5};
    for (int k = 0; k < 4; k++) {
        for (int j = 0; j < 3; j++) {
            for (double th0 = 0.05; th0 < 1.0; th0 *= 4.0) {
                lgc_system sys;
                met *log = calloc(1, sizeof *log);
                assert_non_null(log);
                const run_setup r = {stepper(k), LGC_PROJECT_FULL, rk4_steps[j], tolerances[j][0],
                                     tolerances[j][1], 3.0, "th0", th0};
                lgc_driver *d = start_with(&sys, m, &r, log);
                double x[MAX_NX];
                const int rc = lgc_driver_advance(d, 3.0, x);
                lgc_stats stats;
                lgc_driver_stats(d, &stats);
                double still = 0.0;
                for (int i = 0; i < 6; i++)
                    still = fmax(still, i == 0 || i == 3 ? 0.0 : fabs(x[i]));
                print_message("  %-6s %s %.0e th0 = %.2f: status %d, %lu switches, %d events, rows on %d %d, "
                              "max |y, th, y', th'| = %.1e at t = 3\n",
                              stepper(k)->name, stepper(k)->adaptive ? "rtol" : "h", stepper(k)->adaptive ? r.rtol : r.h,
                              th0, rc, stats.contact_switches, log->n, sys.active[0], sys.active[1], still);
                assert_int_equal(rc, LGC_OK);
                check(sys.active[0] && sys.active[1], "%s: rows on %d %d at t = 3, not resting",
                      stepper(k)->name, sys.active[0], sys.active[1]);
                assert_le(still, 1e-9);
                assert_le(stats.contact_switches, 200);
                lgc_driver_free(d);
                lgc_system_free(&sys);
                free(log);
            }
        }
    }
}

/*
** The ball on a table vibrating at A = 1 mm, nu = 20 rad/s (A nu^2 < g:
** it comes to rest and rides the table) under rk4 h = 1e-4, as issue 29
** found it spinning at one instant, and under the other steppers: the run
** ends at t = 5 with the ball on the table, after a bounded number of
** switches.
*/
static void ball_on_a_vibrating_table_ends(void **state)
{
    (void)state;
    const lgc_model *m = &moving_table_model;
    for (int k = 0; k < 4; k++) {
        lgc_system sys;
        met *log = calloc(1, sizeof *log);
        assert_non_null(log);
        const run_setup r = {stepper(k), LGC_PROJECT_FULL, 1e-4, 1e-8, 1e-10, 5.0, "A", 1e-3};
        lgc_driver *d = start_with(&sys, m, &r, log);
        double x[2];
        const int rc = lgc_driver_advance(d, 5.0, x);
        lgc_stats stats;
        lgc_driver_stats(d, &stats);
        const double gap = x[0] - 1e-3 * sin(20.0 * 5.0), relative = x[1] - 1e-3 * 20.0 * cos(20.0 * 5.0);
        print_message("  %-6s status %d, %lu switches, %lu steps; at t = 5 row on %d, gap %.1e, relative "
                      "velocity %.1e\n",
                      stepper(k)->name, rc, stats.contact_switches, stats.steps, sys.active[0], gap, relative);
        assert_int_equal(rc, LGC_OK);
        assert_true(sys.active[0]);
        assert_le(fabs(gap), 1e-9);
        assert_le(fabs(relative), 1e-9);
        assert_le(stats.contact_switches, 200);
        lgc_driver_free(d);
        lgc_system_free(&sys);
        free(log);
    }
}

/*
** The bound on accumulating switches: LGC_ACCUMULATION_SWITCHES at one
** instant (or within the span) is an accumulation, one fewer is not, nor
** are as many spread over time.
*/
static void switches_piling_up_are_an_accumulation(void **state)
{
    (void)state;
    lgc_switch_window w = {{0}, 0};
    for (int i = 1; i < LGC_ACCUMULATION_SWITCHES; i++)
        check(!lgc_switch_window_add(&w, 2.0), "switch %d of %d at one instant: an accumulation already", i,
              LGC_ACCUMULATION_SWITCHES);
    check(lgc_switch_window_add(&w, 2.0), "%d switches at one instant: no accumulation seen",
          LGC_ACCUMULATION_SWITCHES);
    lgc_switch_window spread = {{0}, 0};
    for (int i = 0; i < 10 * LGC_ACCUMULATION_SWITCHES; i++)
        check(!lgc_switch_window_add(&spread, 1e-8 * i), "switch %d, 1e-8 apart: an accumulation", i);
    lgc_switch_window zeno = {{0}, 0};
    int seen = 0;
    double t = 1.0, gap = 0.1;
    for (int i = 0; i < 4 * LGC_ACCUMULATION_SWITCHES && !seen; i++, gap *= 0.5)
        seen = lgc_switch_window_add(&zeno, t += gap) ? i + 1 : 0;
    print_message("  a geometric sequence of switches (gaps halving from 0.1) is an accumulation at switch %d\n",
                  seen);
    check(seen > 0, "switches accumulating geometrically never seen");
}

/*
** Lemke's method on small dense problems: for A = B B^T + D (B random,
** D a diagonal that may be 0) and random q, the z it returns satisfies
** the LCP itself, checked here: w = A z + q >= 0, z >= 0, w z = 0 to
** round-off.
*/
static void lemke_solves_small_lcps_exactly(void **state)
{
    (void)state;
    enum { N = 5 };
    lgc_lcp lcp;
    assert_int_equal(lgc_lcp_init(&lcp, N), LGC_OK);
    unsigned long seed = 12345;
    double worst = 0.0;
    int solved = 0;
    for (int trial = 0; trial < 400; trial++) {
        const int m = 1 + trial % N;
        double A[N * N], B[N * N], q[N], z[N];
        for (int i = 0; i < m * m; i++) {
            seed = seed * 6364136223846793005UL + 1442695040888963407UL;
            B[i] = (double)(seed >> 11) / 9007199254740992.0 - 0.5;
        }
        for (int i = 0; i < m; i++) {
            seed = seed * 6364136223846793005UL + 1442695040888963407UL;
            q[i] = (double)(seed >> 11) / 9007199254740992.0 - 0.5;
            for (int j = 0; j < m; j++) {
                A[i * m + j] = (i == j) * 0.1 * (trial % 3);
                for (int k = 0; k < m; k++)
                    A[i * m + j] += B[i * m + k] * B[j * m + k];
            }
        }
        assert_int_equal(lgc_lcp_solve(&lcp, m, A, q, z), LGC_OK);
        double scale = 1.0;
        for (int i = 0; i < m; i++) {
            double w = q[i];
            for (int j = 0; j < m; j++)
                w += A[i * m + j] * z[j];
            scale = fmax(scale, fabs(z[i]));
            worst = fmax(worst, fmax(fmax(-w, -z[i]), fabs(w * z[i])) / scale);
        }
        solved++;
    }
    print_message("  %d LCPs (m = 1..%d): max violation of w >= 0, z >= 0, w z = 0 %.1e\n", solved, N, worst);
    assert_le(worst, 1e-12);
    lgc_lcp_free(&lcp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rod_dropped_flat_rebounds_flat),
        cmocka_unit_test(rod_with_two_restitutions_turns_as_they_say),
        cmocka_unit_test(restitution_out_of_range_is_refused),
        cmocka_unit_test(rows_that_hold_keep_their_rates_through_an_impact),
        cmocka_unit_test(ball_on_a_moving_table_rebounds_at_e_relative_to_it),
        cmocka_unit_test(tilted_rod_comes_to_rest_at_any_tolerance),
        cmocka_unit_test(ball_on_a_vibrating_table_ends),
        cmocka_unit_test(switches_piling_up_are_an_accumulation),
        cmocka_unit_test(lemke_solves_small_lcps_exactly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
