/*
** test_linearize.c — lgc_linearize against closed forms: the pendulum
** (Cartesian and in its angle) at the bottom (+-i sqrt(g/l)) and the top
** (+-sqrt(g/l)), and the leaning disk's upright rolling, stable iff
** Omega^2 > g/(3R), whichever speeds are independent; refused points.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "check.h"

#include "lagrangec/linearize.h"
#include "cart_pendulum.h"
#include "lagrangec/status.h"
#include "leaning_disk.h"
#include "pendulum.h"
#include "pendulum_angle.h"

extern const lgc_model pendulum_model, pendulum_angle_model, leaning_disk_model,
    cart_pendulum_model;

/* A system and a linearisation of one model, with a state to fill in. */
typedef struct fixture {
    lgc_system sys;
    lgc_linearization lin;
    double x[16];
} fixture;

static void open_fixture(fixture *f, const lgc_model *m)
{
    assert_le(m->nx, 16);
    assert_int_equal(lgc_system_init(&f->sys, m), LGC_OK);
    assert_int_equal(lgc_linearization_init(&f->lin, m), LGC_OK);
    for (int i = 0; i < m->nx; i++)
        f->x[i] = 0.0;
}

static void close_fixture(fixture *f)
{
    lgc_linearization_free(&f->lin);
    lgc_system_free(&f->sys);
}

static double max_real_part(const lgc_linearization *lin)
{
    return lin->eig_re[0];  /* sorted: largest first */
}

/* The eigenvalues are the pair +-root (real) or +-i root (imaginary), to 1e-9. */
static void assert_pair(const lgc_linearization *lin, double root, int imaginary)
{
    assert_int_equal(lin->n, 2);
    double err = 0.0;
    for (int i = 0; i < 2; i++) {
        double s = i == 0 ? 1.0 : -1.0;
        double re = imaginary ? 0.0 : s * root, im = imaginary ? s * root : 0.0;
        err = fmax(err, hypot(lin->eig_re[i] - re, lin->eig_im[i] - im) / root);
    }
    print_message("  eigenvalues %s%.17g: relative error %.2e\n", imaginary ? "+-i " : "+-",
                  root, err);
    assert_le(err, 1e-9);
}

/* The Cartesian pendulum at (0, -+l), l = 1.3 and g = 9.81. */
static void pendulum_at(double sign, double expected_x_coefficient)
{
    fixture f;
    open_fixture(&f, &pendulum_model);
    const double l = 1.3, g = 9.81;
    f.sys.p[PENDULUM_PARAM_l] = l;
    f.sys.p[PENDULUM_PARAM_g] = g;
    f.x[PENDULUM_STATE_y] = sign * l;
    assert_int_equal(lgc_linearize(&f.lin, &f.sys, 0.0, f.x, NULL, NULL), LGC_OK);
    assert_int_equal(f.lin.q_ind[0], PENDULUM_STATE_x);   /* QR keeps y dependent */
    assert_int_equal(f.lin.q_dep[0], PENDULUM_STATE_y);
    assert_int_equal(f.lin.v_dep[0], PENDULUM_STATE_y);
    assert_le(fabs(f.lin.A[2] - expected_x_coefficient * g / l), 1e-12 * g / l);
    assert_pair(&f.lin, sqrt(g / l), sign < 0);
    close_fixture(&f);
}

static void pendulum_bottom(void **state)
{
    (void)state;
    pendulum_at(-1.0, -1.0);
}

static void pendulum_top(void **state)
{
    (void)state;
    pendulum_at(1.0, 1.0);
}

static void pendulum_angle_bottom_and_top(void **state)
{
    (void)state;
    fixture f;
    open_fixture(&f, &pendulum_angle_model);
    const double l = f.sys.p[PENDULUM_ANGLE_PARAM_l], g = f.sys.p[PENDULUM_ANGLE_PARAM_g];
    assert_int_equal(lgc_linearize(&f.lin, &f.sys, 0.0, f.x, NULL, NULL), LGC_OK);
    assert_pair(&f.lin, sqrt(g / l), 1);
    f.x[PENDULUM_ANGLE_STATE_theta] = acos(-1.0);  /* pi */
    assert_int_equal(lgc_linearize(&f.lin, &f.sys, 0.0, f.x, NULL, NULL), LGC_OK);
    assert_pair(&f.lin, sqrt(g / l), 0);
    close_fixture(&f);
}

/* Off equilibrium the linearisation still exists, and max_accel says so. */
static void pendulum_away_from_equilibrium_is_flagged(void **state)
{
    (void)state;
    fixture f;
    open_fixture(&f, &pendulum_model);
    f.x[PENDULUM_STATE_x] = sin(0.7);
    f.x[PENDULUM_STATE_y] = -cos(0.7);
    assert_int_equal(lgc_linearize(&f.lin, &f.sys, 0.0, f.x, NULL, NULL), LGC_OK);
    assert_gt(f.lin.max_accel, 1.0);
    close_fixture(&f);
}

static void pendulum_off_the_constraints_is_refused(void **state)
{
    (void)state;
    fixture f;
    open_fixture(&f, &pendulum_model);
    f.x[PENDULUM_STATE_y] = -0.5;
    assert_int_equal(lgc_linearize(&f.lin, &f.sys, 0.0, f.x, NULL, NULL), LGC_ERR_INCONSISTENT);
    assert_int_equal(f.lin.bad_row, 0);     /* phi1 */
    assert_le(fabs(f.lin.bad_residual + 0.75), 1e-15);
    f.x[PENDULUM_STATE_y] = -1.0;
    f.x[PENDULUM_STATE_y_dot] = 1e-3;
    assert_int_equal(lgc_linearize(&f.lin, &f.sys, 0.0, f.x, NULL, NULL), LGC_ERR_INCONSISTENT);
    assert_int_equal(f.lin.bad_row, 1);     /* phi1' */
    /* y cannot be independent at the bottom: A's block in x is 2x = 0. */
    f.x[PENDULUM_STATE_y_dot] = 0.0;
    const int y = PENDULUM_STATE_y;
    assert_int_equal(lgc_linearize(&f.lin, &f.sys, 0.0, f.x, &y, NULL), LGC_ERR_RANK_LOST);
    close_fixture(&f);
}

/*
** The embedding example's plant, upright: s'' = F/M - (m g/(M l)) (x - s),
** x'' = (g/l)(x - s); the tilt (x - s)/l grows at sqrt((M + m) g/(M l)).
*/
static void cart_pendulum_upright(void **state)
{
    (void)state;
    fixture f;
    open_fixture(&f, &cart_pendulum_model);
    const double *p = f.sys.p, M = p[CART_PENDULUM_PARAM_M], m = p[CART_PENDULUM_PARAM_m],
                 l = p[CART_PENDULUM_PARAM_l], g = p[CART_PENDULUM_PARAM_g];
    f.x[CART_PENDULUM_STATE_y] = l;
    assert_int_equal(lgc_linearize(&f.lin, &f.sys, 0.0, f.x, NULL, NULL), LGC_OK);
    assert_int_equal(f.lin.q_dep[0], CART_PENDULUM_STATE_y);
    const double k = m * g / (M * l), expected[2][4] = {{k, -k, 0, 0}, {-g / l, g / l, 0, 0}};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++)
            assert_le(fabs(f.lin.A[(2 + i) * 4 + j] - expected[i][j]), 1e-12 * g / l);
    assert_le(fabs(f.lin.B[2] - 1 / M), 1e-15);
    assert_le(fabs(f.lin.B[3]), 1e-15);
    double root = sqrt((M + m) * g / (M * l));
    double err = fmax(fabs(f.lin.eig_re[0] - root), fabs(f.lin.eig_re[3] + root)) / root;
    print_message("  tilt eigenvalues +-%.17g: relative error %.2e\n", root, err);
    assert_le(err, 1e-9);
    close_fixture(&f);
}

/* Upright rolling at spin Omega with heading psi0: x' = R Omega cos psi0, ... */
static void disk_rolling(fixture *f, double omega, double psi0)
{
    const double R = f->sys.p[LEANING_DISK_PARAM_R];
    f->x[LEANING_DISK_STATE_psi] = psi0;
    f->x[LEANING_DISK_STATE_phi_dot] = omega;
    f->x[LEANING_DISK_STATE_x_dot] = R * omega * cos(psi0);
    f->x[LEANING_DISK_STATE_y_dot] = R * omega * sin(psi0);
    assert_int_equal(lgc_linearize(&f->lin, &f->sys, 0.0, f->x, NULL, NULL), LGC_OK);
    assert_le(f->lin.max_accel, 1e-12);     /* a steady motion */
}

static void open_disk(fixture *f)
{
    open_fixture(f, &leaning_disk_model);
    f->sys.p[LEANING_DISK_PARAM_m] = 2.5;
    f->sys.p[LEANING_DISK_PARAM_R] = 0.3;
    f->sys.p[LEANING_DISK_PARAM_g] = 9.81;
}

static double disk_critical_spin(const fixture *f)
{
    return sqrt(f->sys.p[LEANING_DISK_PARAM_g] / (3.0 * f->sys.p[LEANING_DISK_PARAM_R]));
}

/* Just above the limit nothing grows; just below, the lean does. */
static void disk_stability_limit(void **state)
{
    (void)state;
    fixture f;
    open_disk(&f);
    const double wc = disk_critical_spin(&f);
    disk_rolling(&f, wc * (1 + 1e-3), 0.7);
    print_message("  Omega = 1.001 Omega_c: largest real part %.2e\n", max_real_part(&f.lin));
    assert_le(max_real_part(&f.lin), 1e-9);
    disk_rolling(&f, wc * (1 - 1e-3), 0.7);
    print_message("  Omega = 0.999 Omega_c: largest real part %.2e\n", max_real_part(&f.lin));
    assert_gt(max_real_part(&f.lin), 1e-3);
    close_fixture(&f);
}

/* Bisection on the sign of the largest real part finds g/(3R) to 1e-6. */
static void disk_critical_speed_by_bisection(void **state)
{
    (void)state;
    fixture f;
    open_disk(&f);
    const double wc = disk_critical_spin(&f);
    double lo = 0.5 * wc, hi = 2.0 * wc;    /* unstable, stable */
    while (hi - lo > 1e-12 * wc) {
        double mid = 0.5 * (lo + hi);
        disk_rolling(&f, mid, -1.2);
        if (max_real_part(&f.lin) > 1e-9)
            lo = mid;
        else
            hi = mid;
    }
    double err = fabs(0.5 * (lo + hi) - wc) / wc;
    print_message("  critical spin %.15g, closed form %.15g: relative error %.2e\n",
                  0.5 * (lo + hi), wc, err);
    assert_le(err, 1e-6);
    close_fixture(&f);
}

/* The lean pair from the closed form, whichever speeds are independent. */
static void disk_lean_frequency_and_choice(void **state)
{
    (void)state;
    fixture f;
    open_disk(&f);
    const double m = 2.5, R = 0.3, g = 9.81, Ia = m * R * R / 2, Id = m * R * R / 4;
    const double omega = 7.0;
    /* (Id + m R^2) theta'' = (m g R - (Ia + m R^2) Ia Omega^2 / Id) theta */
    const double k = (m * g * R - (Ia + m * R * R) * Ia * omega * omega / Id) / (Id + m * R * R);
    const int q_all[] = {0, 1, 2, 3, 4};
    const int v_choices[2][3] = {
        {LEANING_DISK_STATE_psi, LEANING_DISK_STATE_theta, LEANING_DISK_STATE_phi},
        {LEANING_DISK_STATE_x, LEANING_DISK_STATE_psi, LEANING_DISK_STATE_theta}};
    for (int c = 0; c < 2; c++) {
        f.x[LEANING_DISK_STATE_psi] = 0.4;
        f.x[LEANING_DISK_STATE_phi_dot] = omega;
        f.x[LEANING_DISK_STATE_x_dot] = R * omega * cos(0.4);
        f.x[LEANING_DISK_STATE_y_dot] = R * omega * sin(0.4);
        assert_int_equal(lgc_linearize(&f.lin, &f.sys, 0.0, f.x, q_all, v_choices[c]), LGC_OK);
        double im = 0.0;
        for (int i = 0; i < f.lin.n; i++)
            im = fmax(im, f.lin.eig_im[i]);
        double err = fabs(im - sqrt(-k)) / sqrt(-k);
        print_message("  lean frequency, speeds choice %d: relative error %.2e\n", c, err);
        assert_le(err, 1e-9);
        assert_le(max_real_part(&f.lin), 1e-9);
    }
    close_fixture(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pendulum_bottom),
        cmocka_unit_test(pendulum_top),
        cmocka_unit_test(pendulum_angle_bottom_and_top),
        cmocka_unit_test(pendulum_away_from_equilibrium_is_flagged),
        cmocka_unit_test(pendulum_off_the_constraints_is_refused),
        cmocka_unit_test(cart_pendulum_upright),
        cmocka_unit_test(disk_stability_limit),
        cmocka_unit_test(disk_critical_speed_by_bisection),
        cmocka_unit_test(disk_lean_frequency_and_choice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
