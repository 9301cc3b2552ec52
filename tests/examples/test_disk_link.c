/*
** test_disk_link.c — the disk on a sprung link (seed 001, 7.10), rolling and
** sliding. While the friction model slides, |F| = mu_c m g and the motion is
** analytic: x = mu_c g t^2/2, th' = th0' - 2 mu_c g t/r,
** s = -(mu_c m g/k)(1 - cos(sqrt(k/M) t)), until the slip u reaches 0. The
** rolling model is analytic too: (M + m/3) s'' = -k s and x'' = s''/3. After
** the sliding phase the friction model follows the rolling one, the closer
** the smaller the regularisation eps.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "check.h"

#include "disk_link_rolling.h"
#include "disk_link_sliding.h"
#include "lagrangec/status.h"
#include "walk.h"

/* The specs' defaults. */
static const double m = 1.0, r = 0.5, M = 2.0, k = 10.0, g = 9.81, mu_c = 0.3, w0 = 4.0;

/* The analytic sliding phase at t: x, th, s, x', th', s'. */
static void sliding(double t, double q[6])
{
    const double f = mu_c * m * g, ws = sqrt(k / M);
    q[0] = mu_c * g * t * t / 2;
    q[1] = w0 * t - mu_c * g * t * t / r;
    q[2] = -(f / k) * (1 - cos(ws * t));
    q[3] = mu_c * g * t;
    q[4] = w0 - 2 * mu_c * g * t / r;
    q[5] = -(f / k) * ws * sin(ws * t);
}

/* When the analytic slip x' - r th' - s' reaches 0 (it rises monotonically). */
static double stick_time(void)
{
    double lo = 0.0, hi = 1.0, q[6];
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        sliding(mid, q);
        *(q[3] - r * q[4] - q[5] < 0 ? &lo : &hi) = mid;
    }
    return lo;
}

static void against_sliding(void *ctx, const lgc_sample *s)
{
    double *worst = ctx, q[6];
    sliding(s->t, q);
    for (int i = 0; i < 6; i++)
        *worst = fmax(*worst, fabs(s->x[i] - q[i]));
}

static void sliding_phase_is_analytic(void **state)
{
    (void)state;
    for (int method = 0; method < WALK_METHODS; method++) {
        const lgc_stepper_type *type = walk_method(method);
        walk_run w;
        double worst = 0.0;
        walk_init(&w, &disk_link_sliding_model, type, 0.9 * stick_time(), 100, 1e-12,
                  LGC_PROJECT_NONE);
        assert_int_equal(walk(&w, against_sliding, &worst), LGC_OK);
        print_message("  %s: sliding until 0.9 t* (t* = %.6f): max state error %.2e\n", type->name,
                      stick_time(), worst);
        assert_le(worst, 1e-10);
        walk_free(&w);
    }
}

/* The rolling model from (t0, x0): s harmonic at rate sqrt(k/(M + m/3)), x - s/3 uniform. */
typedef struct rolling_start {
    double t0, x0[6], worst;
} rolling_start;

static void against_rolling(void *ctx, const lgc_sample *s)
{
    rolling_start *st = ctx;
    const double W = sqrt(k / (M + m / 3)), tau = s->t - st->t0, *a = st->x0;
    const double sv = a[2] * cos(W * tau) + a[5] / W * sin(W * tau);
    const double sd = -a[2] * W * sin(W * tau) + a[5] * cos(W * tau);
    const double xv = a[0] + (a[3] - a[5] / 3) * tau + (sv - a[2]) / 3;
    st->worst = fmax(st->worst, fmax(fabs(s->x[0] - xv), fabs(s->x[2] - sv)));
    st->worst = fmax(st->worst, fabs(s->x[5] - sd));
}

static void rolling_model_is_analytic(void **state)
{
    (void)state;
    for (int method = 0; method < WALK_METHODS; method++) {
        const lgc_stepper_type *type = walk_method(method);
        walk_run w;
        rolling_start st = {0.0, {0.2, 0.0, 0.2, 0.0, 0.0, 0.0}, 0.0};
        walk_init(&w, &disk_link_rolling_model, type, 10.0, 1000, 1e-12, LGC_PROJECT_FULL);
        assert_int_equal(walk(&w, against_rolling, &st), LGC_OK);
        print_message("  %s: rolling model, t = 10: max error %.2e, energy drift %.2e\n",
                      type->name, st.worst, w.mon.max_energy_drift);
        assert_le(st.worst, 1e-9);
        walk_free(&w);
    }
}

static void keep_state(void *ctx, const lgc_sample *s)
{
    double *x = ctx;
    for (int i = 0; i < 6; i++)
        x[i] = s->x[i];
}

/* Largest x, s difference of the friction model (eps) from the rolling one after t1. */
typedef struct follow {
    double t1;
    double x[1001][6];
    double worst;
} follow;

static void keep_trajectory(void *ctx, const lgc_sample *s)
{
    follow *f = ctx;
    int i = (int)lround((s->t - f->t1) / 5.0 * 1000);
    for (int j = 0; j < 6; j++)
        f->x[i][j] = s->x[j];
}

static void against_trajectory(void *ctx, const lgc_sample *s)
{
    follow *f = ctx;
    const double *x = f->x[(int)lround((s->t - f->t1) / 5.0 * 1000)];
    f->worst = fmax(f->worst, fmax(fabs(s->x[0] - x[0]), fabs(s->x[2] - x[2])));
}

static double sliding_vs_rolling(const lgc_stepper_type *type, double eps)
{
    static follow f;
    double p[DISK_LINK_SLIDING_NP], x1[6], pr[DISK_LINK_ROLLING_NP];
    for (int i = 0; i < DISK_LINK_SLIDING_NP; i++)
        p[i] = disk_link_sliding_param_defaults[i];
    p[DISK_LINK_SLIDING_PARAM_eps] = eps;
    f.t1 = stick_time() + 0.1;
    f.worst = 0.0;
    walk_run ws, wr;
    walk_init(&ws, &disk_link_sliding_model, type, f.t1, 1, 1e-11, LGC_PROJECT_NONE);
    ws.p = p;
    /* Friction stiff on the slip's time scale, ~eps/(mu_c g): a fixed step must resolve it. */
    if (!type->adaptive)
        ws.opt.h = fmin(ws.opt.h, eps / 10);
    assert_int_equal(walk(&ws, keep_state, x1), LGC_OK);
    walk_free(&ws);  /* each walk makes its own monitor */
    ws.x0 = x1;
    ws.t0 = f.t1;
    ws.t_end = f.t1 + 5.0;
    ws.samples = 1000;
    assert_int_equal(walk(&ws, keep_trajectory, &f), LGC_OK);
    /* the rolling model from the same state, its contact offset c0 = x - r th - s */
    for (int i = 0; i < DISK_LINK_ROLLING_NP; i++)
        pr[i] = disk_link_rolling_param_defaults[i];
    pr[DISK_LINK_ROLLING_PARAM_c0] = x1[0] - r * x1[1] - x1[2];
    walk_init(&wr, &disk_link_rolling_model, type, f.t1 + 5.0, 1000, 1e-11, LGC_PROJECT_FULL);
    wr.p = pr;
    wr.x0 = x1;
    wr.t0 = f.t1;
    assert_int_equal(walk(&wr, against_trajectory, &f), LGC_OK);
    walk_free(&ws);
    walk_free(&wr);
    return f.worst;
}

static void sliding_converges_to_rolling(void **state)
{
    (void)state;
    for (int method = 0; method < WALK_METHODS; method++) {
        const lgc_stepper_type *type = walk_method(method);
        double e2 = sliding_vs_rolling(type, 1e-2), e3 = sliding_vs_rolling(type, 1e-3),
               e4 = sliding_vs_rolling(type, 1e-4);
        print_message("  %s: friction vs rolling over 5 s after sticking: eps 1e-2: %.2e, "
                      "1e-3: %.2e, 1e-4: %.2e\n", type->name, e2, e3, e4);
        assert_lt(e3, e2 / 5);
        assert_lt(e4, e3 / 5);
        assert_le(e4, 1e-4);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sliding_phase_is_analytic),
        cmocka_unit_test(rolling_model_is_analytic),
        cmocka_unit_test(sliding_converges_to_rolling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
