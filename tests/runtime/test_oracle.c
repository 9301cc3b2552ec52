/*
** test_oracle.c — the Cartesian pendulum against the same pendulum in its
** angle (integrated separately), its energy, and its rod tension; both
** generated, from specs/pendulum.toml and specs/pendulum_angle.toml.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "check.h"

#include "lagrangec/driver.h"
#include "lagrangec/model.h"
#include "lagrangec/monitor.h"
#include "lagrangec/status.h"
#include "pendulum.h"
#include "pendulum_angle.h"
#include "run_util.h"

/* Cartesian (method `cart`) and angle (tight dopri5) side by side to t_end. */
static void compare(const lgc_driver_options *cart, double t_end, double tol,
                    double tension_tol)
{
    const lgc_model *pc = &pendulum_model, *pa = &pendulum_angle_model;
    lgc_system sc, sa;
    lgc_monitor mon;
    double xc[4], xa[2];
    assert_int_equal(lgc_system_init(&sc, pc), LGC_OK);
    assert_int_equal(lgc_system_init(&sa, pa), LGC_OK);
    assert_int_equal(lgc_monitor_init(&mon, pc), LGC_OK);
    lgc_driver_options oa;
    lgc_driver_options_default(&oa);
    oa.project = LGC_PROJECT_NONE;
    oa.type = lgc_step_dopri5;
    oa.h = 0.0;
    oa.rtol = 1e-13;
    oa.atol = 1e-15;
    lgc_driver *dc = lgc_driver_alloc(&sc, cart), *da = lgc_driver_alloc(&sa, &oa);
    assert_non_null(dc);
    assert_non_null(da);
    assert_int_equal(lgc_driver_reset(dc, 0.0, pendulum_horizontal), LGC_OK);
    assert_int_equal(lgc_driver_reset(da, 0.0, pendulum_angle_horizontal), LGC_OK);
    const double m = sc.p[PENDULUM_PARAM_m], g = sc.p[PENDULUM_PARAM_g],
                 l = sc.p[PENDULUM_PARAM_l];
    double worst = 0.0, worst_tension = 0.0;
    for (int k = 0; k <= 100; k++) {
        double t = t_end * k / 100;
        assert_int_equal(lgc_driver_advance(dc, t, xc), LGC_OK);
        assert_int_equal(lgc_driver_advance(da, t, xa), LGC_OK);
        const double th = xa[0], w = xa[1];
        worst = fmax(worst, fabs(xc[0] - l * sin(th)));
        worst = fmax(worst, fabs(xc[1] + l * cos(th)));
        worst = fmax(worst, fabs(xc[2] - l * w * cos(th)));
        worst = fmax(worst, fabs(xc[3] - l * w * sin(th)));
        /*
        ** A^T lambda = 2 lambda (x, y) is the rod's pull on the bob; a tension
        ** T pulls towards the pivot, -T (x, y)/l, so T = -2 lambda l.
        */
        assert_int_equal(lgc_monitor_sample(&mon, &sc, t, xc), LGC_OK);
        double tension = -2.0 * mon.s.mult[0] * l;
        double expect = m * (g * cos(th) + l * w * w);
        worst_tension = fmax(worst_tension, fabs(tension - expect));
    }
    print_message("  %s: max state error %.2e, max tension error %.2e\n",
                  cart->type->name, worst, worst_tension);
    assert_le(worst, tol);
    assert_le(worst_tension, tension_tol);
    lgc_driver_free(dc);
    lgc_driver_free(da);
    lgc_monitor_free(&mon);
    lgc_system_free(&sc);
    lgc_system_free(&sa);
}

static void cartesian_dopri5_matches_angle(void **state)
{
    (void)state;
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.project = LGC_PROJECT_NONE;
    o.type = lgc_step_dopri5;
    o.h = 0.0;
    o.rtol = 1e-13;
    o.atol = 1e-15;
    compare(&o, 5.0, 1e-10, 1e-8);
}

/*
** CVODE's methods: BDF corrects inside its steps, Adams the states it
** reports. BDF's error at one rtol is ~100 times dopri5's: it is asked for 1e-14.
*/
static void cartesian_cvode_matches_angle(void **state)
{
    (void)state;
    const lgc_stepper_type *types[] = {lgc_step_adams, lgc_step_bdf};
    for (int i = 0; i < 2; i++) {
        lgc_driver_options o;
        lgc_driver_options_default(&o);
        o.type = types[i];
        o.h = 0.0;
        o.rtol = types[i] == lgc_step_bdf ? 1e-14 : 1e-13;
        o.atol = 1e-15;
        o.project = LGC_PROJECT_FULL;
        compare(&o, 5.0, 1e-10, 1e-8);
    }
}

static void cartesian_rk4_matches_angle(void **state)
{
    (void)state;
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.type = lgc_step_rk4;
    o.project = LGC_PROJECT_NONE;
    o.h = 1e-4;
    compare(&o, 5.0, 1e-10, 1e-8);
}

/* Released from the horizontal, T + V stays at 0 (V = m g y, y = 0 at start). */
static void pendulum_energy_conserved(void **state)
{
    (void)state;
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.type = lgc_step_rk4;
    o.project = LGC_PROJECT_NONE;
    o.h = 1e-3;
    run_result r;
    run_model(&pendulum_model, pendulum_horizontal, &o, NULL, 20.0, 0.01, &r);
    assert_int_equal(r.status, LGC_OK);
    print_message("  rk4 h=1e-3, t=20: max |E - E0| = %.2e, max |phi| = %.2e\n",
                  r.mon.max_energy_drift, r.mon.max_phi);
    assert_le(r.mon.max_energy_drift, 1e-9);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cartesian_dopri5_matches_angle),
        cmocka_unit_test(cartesian_cvode_matches_angle),
        cmocka_unit_test(cartesian_rk4_matches_angle),
        cmocka_unit_test(pendulum_energy_conserved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
