/*
** test_contacts.c — one-sided contacts against closed forms, under every
** stepper. specs/sphere.toml: a particle released at rest at theta0 from
** the top of a frictionless sphere leaves it where cos(theta) =
** (2/3) cos(theta0) (its multiplier falling through 0), then flies on the
** parabola of its state there. specs/bouncing_ball.toml: dropped from h
** with restitution e, the apexes fall by e^2 each, and the impacts end in
** contact at sqrt(2h/g) (1 + 2e/(1 - e)), up to the flights the rest rule
** cuts short (a rebound slower than sqrt(atol + rtol |v|), or, for rk4,
** than g h: the tail 2 v_rest/(g (1 - e)) of the series at most, and
** the impacts' times as the methods locate them at rtol 1e-12: 5e-6).
** specs/newtons_cradle.toml: five equal balls, elastic contacts, one sent
** into the four at rest with gaps between them: impacts one after another
** at (gap0 + k gap)/v0, each an exchange of velocities, the last ball off
** at v0 and the others at rest.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "bouncing_ball.h"
#include "check.h"
#include "events_met.h"
#include "lagrangec/driver.h"
#include "lagrangec/status.h"
#include "newtons_cradle.h"
#include "sphere.h"


static lgc_driver *start(lgc_system *sys, const lgc_model *m, const lgc_stepper_type *type, double h,
                         double t_end, met *e)
{
    lgc_driver_options opt;
    lgc_driver_options_default(&opt);
    opt.type = type;
    opt.h = type->adaptive ? 0.0 : h;
    opt.rtol = 1e-12;
    opt.atol = 1e-13;
    opt.project = LGC_PROJECT_FULL;
    opt.t_stop = t_end;     /* as simulate's: a polynomial flight lets an adaptive step grow without end */
    assert_int_equal(lgc_system_init(sys, m), LGC_OK);
    lgc_driver *d = lgc_driver_alloc(sys, &opt);
    assert_non_null(d);
    assert_in_range(m->nx, 1, MAX_NX);
    e->nx = m->nx;
    lgc_driver_observe_events(d, note, e);
    assert_int_equal(lgc_driver_reset(d, 0.0, m->initial_state), LGC_OK);
    return d;
}

static void particle_leaves_the_sphere_and_flies_on_a_parabola(void **state)
{
    (void)state;
    const lgc_model *m = &sphere_model;
    const double R = 1.0, g = 9.81, theta0 = 0.1, cos_leave = 2.0 / 3.0 * cos(theta0);
    const int release = m->nevent + 0, below = 0;
    for (int k = 0; k < 4; k++) {
        lgc_system sys;
        met e = {0};
        lgc_driver *d = start(&sys, m, stepper(k), 2e-4, 2.0, &e);
        double x[6], worst_parabola = 0.0;
        int released = -1;
        for (int s = 1; s <= 400 && isnan(lgc_driver_stop_time(d)); s++) {
            const double t = 0.005 * s;
            assert_int_equal(lgc_driver_advance(d, fmin(t, lgc_driver_stop_time(d)), x), LGC_OK);
            for (int i = 0; i < e.n && released < 0; i++)
                if (e.event[i] == release)
                    released = i;
            if (released < 0 || t <= e.t[released] || t > lgc_driver_stop_time(d))
                continue;
            const double *r = e.x[released], tau = t - e.t[released];
            worst_parabola = fmax(worst_parabola, fabs(x[0] - (r[0] + r[3] * tau)));
            worst_parabola = fmax(worst_parabola, fabs(x[2] - (r[2] + r[5] * tau - 0.5 * g * tau * tau)));
        }
        check(released >= 0, "%s: the particle never left the sphere", stepper(k)->name);
        assert_int_equal(e.event[e.n - 1], below);
        const double *r = e.x[released];
        const double cos_theta = r[2] / sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        /* the speed there: v^2 = 2 g R (cos(theta0) - cos(theta)) */
        const double v2 = r[3] * r[3] + r[4] * r[4] + r[5] * r[5];
        const double v2_error = fabs(v2 - 2.0 * g * R * (cos(theta0) - cos_leave));
        print_message("  %-6s leaves at t = %.12f: |cos(theta) - (2/3) cos(theta0)| = %.2e, "
                      "|v^2 - 2gR(cos0 - cos)| = %.2e; max distance from the parabola %.2e\n",
                      stepper(k)->name, e.t[released], fabs(cos_theta - cos_leave), v2_error,
                      worst_parabola);
        assert_le(fabs(cos_theta - cos_leave), 1e-9);
        assert_le(v2_error, 1e-8);
        assert_le(worst_parabola, 1e-9);
        lgc_driver_free(d);
        lgc_system_free(&sys);
    }
}

static void ball_apexes_fall_by_e_squared_and_the_bounces_end(void **state)
{
    (void)state;
    const lgc_model *m = &bouncing_ball_model;
    double e;
    m->restitution(m->parameter_defaults, &e);
    const double g = 9.81, h0 = 1.0, h_rk4 = 1e-3;
    const double t1 = sqrt(2.0 * h0 / g), v1 = g * t1, t_rest = t1 + 2.0 * v1 * e / (g * (1.0 - e));
    const int apex = 0, impact = m->nevent + 1;
    for (int k = 0; k < 4; k++) {
        lgc_system sys;
        met *log = calloc(1, sizeof *log);
        assert_non_null(log);
        lgc_driver *d = start(&sys, m, stepper(k), h_rk4, 5.0, log);
        double x[2];
        for (int s = 1; s <= 100; s++)
            assert_int_equal(lgc_driver_advance(d, 0.05 * s, x), LGC_OK);
        /* apexes: heights h0 e^(2j), j = 1, 2, ...; the ratio of each to the one before */
        double worst_ratio = 0.0, last = h0;
        int apexes = 0, last_impact = -1;
        for (int i = 0; i < log->n && i < MAX_MET; i++) {
            if (log->event[i] == impact)
                last_impact = i;
            if (log->event[i] != apex || log->x[i][0] < 1e-3)
                continue;   /* ratios of heights above 1 mm: below, the round-off of y dominates */
            worst_ratio = fmax(worst_ratio, fabs(log->x[i][0] / last - e * e));
            last = log->x[i][0];
            apexes++;
        }
        const double v_rest = fmax(sqrt(1e-13 + 1e-12 * v1), stepper(k)->adaptive ? 0.0 : g * h_rk4);
        /* the tail the rest rule cuts, and the integration's own error at rtol 1e-12 */
        const double bound = 2.0 * v_rest / (g * (1.0 - e)) + 5e-6;
        const double rest_error = fabs(log->t[last_impact] - t_rest);
        print_message("  %-6s %d apexes above 1 mm: max |h_j/h_(j-1) - e^2| = %.2e; at rest at t = %.10f "
                      "after %d events: |t - t_rest| = %.2e (bound %.2e); y(5) = %.2e\n",
                      stepper(k)->name, apexes, worst_ratio, log->t[last_impact], log->n, rest_error,
                      bound, x[0]);
        assert_int_equal(log->n < MAX_MET, 1);
        assert_ge(apexes, 10);
        assert_le(worst_ratio, 1e-6);
        assert_le(rest_error, bound);
        assert_le(fabs(x[0]), 1e-12);   /* on the floor, at rest */
        assert_le(fabs(x[1]), 1e-12);
        lgc_driver_free(d);
        lgc_system_free(&sys);
        free(log);
    }
}

static void cradle_passes_the_ball_on(void **state)
{
    (void)state;
    const lgc_model *m = &newtons_cradle_model;
    const double *p = m->parameter_defaults;
    const double v0 = p[lgc_name_index(m->parameter_names, m->np, "v0")],
                 gap = p[lgc_name_index(m->parameter_names, m->np, "gap")],
                 gap0 = p[lgc_name_index(m->parameter_names, m->np, "gap0")];
    for (int k = 0; k < 4; k++) {
        lgc_system sys;
        met *log = calloc(1, sizeof *log);
        assert_non_null(log);
        lgc_driver *d = start(&sys, m, stepper(k), 1e-4, 1.0, log);
        double x[MAX_NX], worst_t = 0.0, worst_v = 0.0;
        assert_int_equal(lgc_driver_advance(d, 1.0, x), LGC_OK);
        check(log->n == m->ncontact, "%s: %d events, expected %d impacts", stepper(k)->name, log->n, m->ncontact);
        for (int c = 0; c < m->ncontact; c++) {
            assert_int_equal(log->event[c], m->nevent + 2 * c + 1);     /* impact[contact c+1], in order */
            worst_t = fmax(worst_t, fabs(log->t[c] - (gap0 + c * gap) / v0));
        }
        for (int i = 0; i < m->nq; i++)
            worst_v = fmax(worst_v, fabs(x[m->nq + i] - (i == m->nq - 1 ? v0 : 0.0)));
        print_message("  %-6s impacts at (gap0 + k gap)/v0 to %.1e; velocities after (0, 0, 0, 0, v0) to %.1e\n",
                      stepper(k)->name, worst_t, worst_v);
        assert_le(worst_t, 1e-9);
        assert_le(worst_v, 1e-12 * v0);
        lgc_driver_free(d);
        lgc_system_free(&sys);
        free(log);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(particle_leaves_the_sphere_and_flies_on_a_parabola),
        cmocka_unit_test(ball_apexes_fall_by_e_squared_and_the_bounces_end),
        cmocka_unit_test(cradle_passes_the_ball_on),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
