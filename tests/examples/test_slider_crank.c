/*
** test_slider_crank.c — the slider-crank against its one-degree-of-freedom
** reduction: the loop's geometry gives psi = asin(r sin(theta)/L),
** s = r cos(theta) + L cos(psi), and per unit crank rate
** psi' = r cos(theta)/(L cos(psi)), s' = -r sin(theta) - L sin(psi) psi';
** with those T = J(theta) theta'^2/2, and T conserved gives
** theta' = sqrt(2 T0/J(theta)).
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "check.h"

#include "lagrangec/status.h"
#include "slider_crank.h"
#include "walk.h"

/* The spec's defaults. */
static const double r = 0.1, L = 0.3, Jc = 0.01, mr = 0.5, ms = 1.0;

/* Twice the kinetic energy at unit crank rate, and the geometry, at theta. */
static double inertia(double th, double *psi, double *s)
{
    *psi = asin(r * sin(th) / L);
    *s = r * cos(th) + L * cos(*psi);
    const double dpsi = r * cos(th) / (L * cos(*psi)), ds = -r * sin(th) - L * sin(*psi) * dpsi;
    const double vx = -r * sin(th) - L / 2 * sin(*psi) * dpsi, vy = r * cos(th) - L / 2 * cos(*psi) * dpsi;
    return Jc + mr * (vx * vx + vy * vy) + mr * L * L / 12 * dpsi * dpsi + ms * ds * ds;
}

typedef struct reduction {
    double T0, worst_pos, worst_rate;
} reduction;

static void against_reduction(void *ctx, const lgc_sample *s)
{
    reduction *red = ctx;
    double psi, sl;
    const double th = s->x[SLIDER_CRANK_STATE_theta], J = inertia(th, &psi, &sl);
    if (s->t == 0.0)
        red->T0 = J * s->x[SLIDER_CRANK_STATE_theta_dot] * s->x[SLIDER_CRANK_STATE_theta_dot] / 2;
    red->worst_pos = fmax(red->worst_pos, fmax(fabs(s->x[SLIDER_CRANK_STATE_psi] - psi),
                                               fabs(s->x[SLIDER_CRANK_STATE_s] - sl)));
    red->worst_rate = fmax(red->worst_rate,
                           fabs(s->x[SLIDER_CRANK_STATE_theta_dot] - sqrt(2 * red->T0 / J)));
}

static void crank_rate_follows_the_reduction(void **state)
{
    (void)state;
    for (int method = 0; method < WALK_METHODS; method++) {
        const lgc_stepper_type *type = walk_method(method);
        walk_run w;
        reduction red = {0};
        walk_init(&w, &slider_crank_model, type, 10.0, 2000, 1e-12, LGC_PROJECT_FULL);
        assert_int_equal(walk(&w, against_reduction, &red), LGC_OK);
        print_message("  %s: t = 10 (%.1f turns): geometry %.2e, crank rate vs sqrt(2 T0/J) %.2e, "
                      "energy drift %.2e\n", type->name, w.mon.s.x[0] / (2 * acos(-1.0)), red.worst_pos,
                      red.worst_rate, w.mon.max_energy_drift);
        /* samples are corrected to |phi| <= 1e-13: up to 1.4e-12 in psi and s through the loop */
        assert_le(red.worst_pos, 2e-12);
        assert_le(red.worst_rate, 1e-9);
        walk_free(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crank_rate_follows_the_reduction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
