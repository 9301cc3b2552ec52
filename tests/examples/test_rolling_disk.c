/*
** test_rolling_disk.c — the vertical rolling disk with no forces: heading
** rate and spin rate stay constant and the contact point runs round the
** circle x = x0 + rho (sin(th) - sin(th0)), y = y0 - rho (cos(th) - cos(th0)),
** rho = r ph'/th', th = th0 + th' t.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "check.h"

#include "lagrangec/status.h"
#include "rolling_disk.h"
#include "walk.h"

static const double r = 0.5;                           /* the spec's default */
static const double th_rate = 1.0, ph_rate = 4.0;      /* its initial velocities */

static void against_circle(void *ctx, const lgc_sample *s)
{
    double *worst = ctx;
    const double rho = r * ph_rate / th_rate, th = th_rate * s->t;
    const double expect[] = {
        rho * sin(th), -rho * (cos(th) - 1.0), th, ph_rate * s->t,
        r * ph_rate * cos(th), r * ph_rate * sin(th), th_rate, ph_rate,
    };
    for (int i = 0; i < 8; i++)
        *worst = fmax(*worst, fabs(s->x[i] - expect[i]));
}

static void rolls_round_a_circle(void **state)
{
    (void)state;
    for (int method = 0; method < WALK_METHODS; method++) {
        const lgc_stepper_type *type = walk_method(method);
        walk_run w;
        double worst = 0.0;
        walk_init(&w, &rolling_disk_model, type, 50.0, 5000, 1e-12, LGC_PROJECT_VELOCITY);
        assert_int_equal(walk(&w, against_circle, &worst), LGC_OK);
        print_message("  %s: t = 50 (8 laps), rtol 1e-12, velocity correction: max state error "
                      "%.2e, max |g| %.2e, energy drift %.2e\n",
                      type->name, worst, w.mon.max_g, w.mon.max_energy_drift);
        /* rk4's 400k steps carry ~1.5e-9 of round-off (as much at h/2) */
        assert_le(worst, 2e-9);
        assert_le(w.mon.max_g, 1e-13);
        walk_free(&w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rolls_round_a_circle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
