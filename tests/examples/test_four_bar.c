/*
** test_four_bar.c — the Grashof crank-rocker four-bar: T is conserved, the
** crank turns fully (never stops: T > 0 and no toggle position), and the
** rocker swings exactly between its limits, where crank and coupler line up:
** |OC| = b + a or b - a, cos(th4) = (|OC|^2 - d^2 - c^2)/(2 d c).
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "check.h"

#include "four_bar.h"
#include "lagrangec/status.h"
#include "walk.h"

static const double a = 1.0, b = 3.0, c = 2.5, d = 3.0;    /* the spec's defaults */

typedef struct swing {
    double th4_min, th4_max, th2_end, th2_rate_min;
} swing;

static void follow(void *ctx, const lgc_sample *s)
{
    swing *w = ctx;
    w->th4_min = fmin(w->th4_min, s->x[FOUR_BAR_STATE_th4]);
    w->th4_max = fmax(w->th4_max, s->x[FOUR_BAR_STATE_th4]);
    w->th2_end = s->x[FOUR_BAR_STATE_th2];
    w->th2_rate_min = fmin(w->th2_rate_min, s->x[FOUR_BAR_STATE_th2_dot]);
}

static void crank_turns_and_rocker_meets_its_limits(void **state)
{
    (void)state;
    for (int method = 0; method < WALK_METHODS; method++) {
        const lgc_stepper_type *type = walk_method(method);
        const double lo = acos(((b + a) * (b + a) - d * d - c * c) / (2 * d * c));
        const double hi = acos(((b - a) * (b - a) - d * d - c * c) / (2 * d * c));
        walk_run r;
        swing w = {INFINITY, -INFINITY, 0.0, INFINITY};
        walk_init(&r, &four_bar_model, type, 20.0, 40000, 1e-11, LGC_PROJECT_FULL);
        assert_int_equal(walk(&r, follow, &w), LGC_OK);
        print_message("  %s: t = 20: crank turned %.2f times (min rate %.3f); rocker [%.8f, %.8f] vs "
                      "[%.8f, %.8f]: errors %.2e, %.2e; energy drift %.2e; max |phi| %.2e\n",
                      type->name, w.th2_end / (2 * acos(-1.0)), w.th2_rate_min, w.th4_min, w.th4_max, lo, hi,
                      w.th4_min - lo, w.th4_max - hi, r.mon.max_energy_drift, r.mon.max_phi);
        assert_gt(w.th2_rate_min, 0.0);
        assert_gt(w.th2_end, 2 * acos(-1.0) * 5);
        assert_le(fabs(w.th4_min - lo), 1e-6);
        assert_le(fabs(w.th4_max - hi), 1e-6);
        assert_le(r.mon.max_energy_drift, 1e-9);
        walk_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crank_turns_and_rocker_meets_its_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
