/*
** test_constraint_force.c — the generalised constraint forces the monitor
** reports and the CSV writes (Fc = A^T lambda + B^T mu), against Newton's
** laws: the knife edge pushes particle 1 sideways with m v w (v its speed
** along the rod, w = phi'), the force that turns the dumbbell's centre of
** mass; the pendulum's rod pulls the bob towards the pivot with tension
** m (g cos(theta) + l theta'^2) = m (-g y + |v|^2)/l.
*/
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "knife_edge.h"
#include "lagrangec/csv.h"
#include "lagrangec/status.h"
#include "pendulum.h"
#include "check.h"
#include "walk.h"

static void knife_edge_force(void *ctx, const lgc_sample *s)
{
    double *worst = ctx;
    const double m = 1.0, phi = s->x[2], v = s->x[3] * cos(phi) + s->x[4] * sin(phi), w = s->x[5];
    const double expect[3] = {-m * v * w * sin(phi), m * v * w * cos(phi), 0.0};
    for (int i = 0; i < 3; i++)
        *worst = fmax(*worst, fabs(s->fc[i] - expect[i]));
}

static void knife_edge_lateral_force(void **state)
{
    (void)state;
    for (int method = 0; method < WALK_METHODS; method++) {
        const lgc_stepper_type *type = walk_method(method);
        walk_run w;
        double worst = 0.0;
        walk_init(&w, &knife_edge_model, type, 10.0, 1000, 1e-12, LGC_PROJECT_VELOCITY);
        assert_int_equal(walk(&w, knife_edge_force, &worst), LGC_OK);
        print_message("  %s: knife edge, t = 10: max |Fc - m v w n| %.2e\n", type->name, worst);
        assert_le(worst, 1e-9);
        walk_free(&w);
    }
}

static void pendulum_force(void *ctx, const lgc_sample *s)
{
    double *worst = ctx;
    const double m = 1.0, g = 9.81, l = 1.0, x = s->x[0], y = s->x[1];
    const double tension = m * (-g * y + s->x[2] * s->x[2] + s->x[3] * s->x[3]) / l;
    *worst = fmax(*worst, fabs(s->fc[0] + tension * x / l));
    *worst = fmax(*worst, fabs(s->fc[1] + tension * y / l));
}

static void pendulum_rod_tension(void **state)
{
    (void)state;
    for (int method = 0; method < WALK_METHODS; method++) {
        const lgc_stepper_type *type = walk_method(method);
        walk_run w;
        double worst = 0.0;
        walk_init(&w, &pendulum_model, type, 10.0, 1000, 1e-12, LGC_PROJECT_FULL);
        assert_int_equal(walk(&w, pendulum_force, &worst), LGC_OK);
        print_message("  %s: pendulum, t = 10: max |Fc + T (x, y)/l| %.2e\n", type->name, worst);
        assert_le(worst, 1e-9);
        walk_free(&w);
    }
}

/* The CSV carries Fc[coordinate] after the multipliers, as the sample has it. */
static void csv_writes_the_forces(void **state)
{
    (void)state;
    walk_run w;
    walk_init(&w, &knife_edge_model, lgc_step_dopri5, 1.0, 1, 1e-10, LGC_PROJECT_VELOCITY);
    assert_int_equal(walk(&w, NULL, NULL), LGC_OK);
    FILE *f = tmpfile();
    assert_non_null(f);
    lgc_csv *csv = lgc_csv_open(fileno(f), &knife_edge_model);
    assert_non_null(csv);
    assert_int_equal(lgc_csv_header(csv), LGC_OK);
    assert_int_equal(lgc_csv_row(csv, &w.mon.s), LGC_OK);
    lgc_csv_free(csv);
    rewind(f);
    char line[2048];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "t,x,y,phi,x',y',phi',g[1],T+V,mu[1],Fc[x],Fc[y],Fc[phi]\n");
    assert_non_null(fgets(line, sizeof line, f));
    char *p = line;
    double v[13];
    for (int i = 0; i < 13; i++, p++)
        v[i] = strtod(p, &p);
    for (int i = 0; i < 3; i++)
        assert_eq(v[10 + i], w.mon.s.fc[i]);
    fclose(f);
    walk_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(knife_edge_lateral_force),
        cmocka_unit_test(pendulum_rod_tension),
        cmocka_unit_test(csv_writes_the_forces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
