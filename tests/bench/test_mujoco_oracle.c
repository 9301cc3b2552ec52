/*
** test_mujoco_oracle.c — the benchmark's chains are one system in both tools:
** MuJoCo's mj_forward (rod_chain.py's MJCF) and every generated writing of
** the chain (absolute angles, relative angles, Cartesian coordinates, bodies
** in relative angles) give
** the same accelerations at random states (and, in MuJoCo's coordinates,
** the same inverse dynamics as mj_inverse), and MuJoCo's RK4 steps are
** lagrangec's; so do the spatial arm of spatial_arm.py (arm_mN.xml) and its
** bodies. Each model's Jacobian matches central differences of its rhs. A benchmark that compared different systems would be worth
** nothing. Usage: test_bench_mujoco_oracle MJCF_DIR (holding rod_mN.xml, arm_mN.xml).
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <mujoco/mujoco.h>

#include "lagrangec/lagrangec.h"
#include "model_checks.h"

/* Every generated writing of the chain, from the build (oracle_models.c.in). */
extern const lgc_model *const all_models[];

#define STATES 20        /* random states per model */
#define RK4_STEPS 500    /* mj_step's from the keyframe, h = the MJCF's timestep */
#define RTOL 1e-9        /* of the largest entry compared */
#define MAX_LINKS 20

static const char *mjcf_dir;

/* The writing a model's name says: rod_aN (absolute), rod_rN (relative), rod_cN (Cartesian),
   rod_bN (bodies, in relative angles), arm_sN (the spatial arm's bodies). */
static char writing(const lgc_model *m)
{
    return m->name[4];
}

static int links(const lgc_model *m)
{
    return writing(m) == 'c' ? m->nq / 2 : m->nq;
}

static mjModel *load_mujoco(const lgc_model *m, int n)
{
    char path[4096], error[1000] = "";
    snprintf(path, sizeof path, "%s/%s_m%d.xml", mjcf_dir, writing(m) == 's' ? "arm" : "rod", n);
    mjModel *mj = mj_loadXML(path, NULL, error, sizeof error);
    if (!mj) fail_msg("%s: %s", path, error);
    if (mj->nq != n || mj->opt.integrator != mjINT_RK4)
        fail_msg("%s: %d joints, integrator %d; expected %d hinges and RK4", path, mj->nq,
                 mj->opt.integrator, n);
    return mj;
}

/*
** MuJoCo's hinge angles, rates and accelerations (phi, phi', phi'') in the
** model's writing: x = (q, q') and a = q''; the spatial arm's are MuJoCo's own. Absolute angles are cumulative
** sums; the joints P_i of the Cartesian writing are sums of l_j (sin, -cos)
** of them, differentiated twice.
*/
static void map_state(const lgc_model *m, const double phi[], const double rate[], const double acc[],
                      double x[], double a[])
{
    const int n = links(m), nq = m->nq;
    double th = 0.0, thd = 0.0, thdd = 0.0, px = 0.0, py = 0.0, vx = 0.0, vy = 0.0, ax = 0.0, ay = 0.0;
    for (int i = 0; i < n; ++i) {
        th += phi[i];
        thd += rate[i];
        thdd += acc[i];
        char name[16];
        snprintf(name, sizeof name, "l%d", i + 1);
        const double l = parameter(m, name), s = sin(th), c = cos(th);
        px += l * s;
        py -= l * c;
        vx += l * c * thd;
        vy += l * s * thd;
        ax += l * (c * thdd - s * thd * thd);
        ay += l * (s * thdd + c * thd * thd);
        switch (writing(m)) {
        case 'r':
        case 'b':
        case 's':
            x[i] = phi[i], x[nq + i] = rate[i], a[i] = acc[i];
            break;
        case 'a':
            x[i] = th, x[nq + i] = thd, a[i] = thdd;
            break;
        default:
            x[2 * i] = px, x[2 * i + 1] = py, x[nq + 2 * i] = vx, x[nq + 2 * i + 1] = vy;
            a[2 * i] = ax, a[2 * i + 1] = ay;
        }
    }
}

/*
** Fails unless got ≈ want entry by entry, naming the model, the case, the
** state entry (prefix "d/dt " for derivatives) and both values; returns the
** largest difference relative to the scale.
*/
static double expect_close(const lgc_model *m, const char *what, int k, const char *prefix, const double got[],
                         const double want[], int first, int count)
{
    double scale = 1.0, worst = 0.0;
    for (int i = 0; i < count; ++i) scale = fmax(scale, fabs(want[i]));
    for (int i = 0; i < count; ++i) {
        worst = fmax(worst, fabs(got[i] - want[i]) / scale);
        if (!(fabs(got[i] - want[i]) <= RTOL * scale))
            fail_msg("%s, %s %d: %s%s = %.17g from lagrangec, %.17g from MuJoCo (difference %.3g, "
                     "allowed %.3g)", m->name, what, k, prefix, m->state_names[first + i], got[i], want[i],
                     got[i] - want[i], RTOL * scale);
    }
    return worst;
}

static const char WRITINGS[] = "arcbs";  /* absolute, relative, Cartesian, bodies, spatial arm */

static int writing_index(const lgc_model *m)
{
    return (int)(strchr(WRITINGS, writing(m)) - WRITINGS);
}

/*
** Fails unless each writing of `expected` (letters of WRITINGS) was compared
** at least once: the build's list of models lost none.
*/
static void expect_writings(const int checked[5], const char *expected, const char *test)
{
    for (const char *w = expected; *w; ++w)
        if (checked[strchr(WRITINGS, *w) - WRITINGS] == 0)
            fail_msg("%s compared %d absolute, %d relative, %d Cartesian, %d bodies and %d spatial arm models; "
                     "expected each of \"%s\" (of \"%s\")", test, checked[0], checked[1], checked[2], checked[3],
                     checked[4], expected, WRITINGS);
}

static void rhs_matches_mj_forward(void **unused)
{
    (void)unused;
    int checked[5] = {0, 0, 0, 0, 0};
    const double pi = acos(-1.0);
    for (const lgc_model *const *mp = all_models; *mp; ++mp) {
        const lgc_model *m = *mp;
        const int n = links(m);
        mjModel *mj = load_mujoco(m, n);
        mjData *d = mj_makeData(mj);
        double *x = calloc(m->nx, sizeof *x), *dxdt = calloc(m->nx, sizeof *dxdt);
        double *work = calloc(m->nwork + 1, sizeof *work), a[2 * MAX_LINKS], worst = 0.0;
        unsigned long seed = 13;
        if (n > MAX_LINKS) fail_msg("%s has %d links, the test holds at most %d", m->name, n, MAX_LINKS);
        for (int k = 0; k < STATES; ++k) {
            for (int i = 0; i < n; ++i) {
                d->qpos[i] = uniform(&seed, -pi, pi);
                d->qvel[i] = uniform(&seed, -3.0, 3.0);
            }
            mj_forward(mj, d);
            map_state(m, d->qpos, d->qvel, d->qacc, x, a);
            int rc = m->rhs(0.0, x, m->input_defaults, m->parameter_defaults, m->alpha, m->beta, dxdt, NULL,
                            work);
            if (rc != LGC_MODEL_OK) fail_msg("%s, state %d: rhs returned %d", m->name, k, rc);
            expect_close(m, "state", k, "d/dt ", dxdt, x + m->nq, 0, m->nq);
            worst = fmax(worst, expect_close(m, "state", k, "d/dt ", dxdt + m->nq, a, m->nq, m->nq));
        }
        print_message("  %-10s %2d links: q'' at %d random states, largest difference from mj_forward's "
                      "%.1e (relative; allowed %.0e)\n", m->name, n, STATES, worst, RTOL);
        ++checked[writing_index(m)];
        free(x), free(dxdt), free(work);
        mj_deleteData(d);
        mj_deleteModel(mj);
    }
    expect_writings(checked, WRITINGS, "rhs_matches_mj_forward");
}

/*
** Inverse dynamics in MuJoCo's own coordinates (the relative angles, the
** bodies', the spatial arm's): the generated tau = M a + k - Q at random
** angles, rates and accelerations is mj_inverse's qfrc_inverse.
*/
static void inverse_dynamics_matches_mj_inverse(void **unused)
{
    (void)unused;
    int checked[5] = {0, 0, 0, 0, 0};
    const double pi = acos(-1.0);
    for (const lgc_model *const *mp = all_models; *mp; ++mp) {
        const lgc_model *m = *mp;
        if (!strchr("rbs", writing(m)))
            continue;
        const int n = links(m);
        mjModel *mj = load_mujoco(m, n);
        mjData *d = mj_makeData(mj);
        double x[4 * MAX_LINKS], a[2 * MAX_LINKS], tau[2 * MAX_LINKS], worst = 0.0;
        unsigned long seed = 29;
        if (n > MAX_LINKS) fail_msg("%s has %d links, the test holds at most %d", m->name, n, MAX_LINKS);
        for (int k = 0; k < STATES; ++k) {
            for (int i = 0; i < n; ++i) {
                d->qpos[i] = uniform(&seed, -pi, pi);
                d->qvel[i] = uniform(&seed, -3.0, 3.0);
                d->qacc[i] = uniform(&seed, -10.0, 10.0);
            }
            mj_inverse(mj, d);
            map_state(m, d->qpos, d->qvel, d->qacc, x, a);
            m->inverse_dynamics(0.0, x, m->input_defaults, m->parameter_defaults, a, tau);
            worst = fmax(worst, expect_close(m, "state", k, "tau of ", tau, d->qfrc_inverse, 0, m->nq));
        }
        print_message("  %-10s %2d links: tau at %d random states, largest difference from mj_inverse's "
                      "%.1e (relative; allowed %.0e)\n", m->name, n, STATES, worst, RTOL);
        ++checked[writing_index(m)];
        mj_deleteData(d);
        mj_deleteModel(mj);
    }
    expect_writings(checked, "rbs", "inverse_dynamics_matches_mj_inverse");
}

/*
** MuJoCo's RK4 (mj_step) and the runtime's rk4 with the same step are the
** same integrator: RK4 commutes with the linear map between relative and
** absolute angles, so the angle writings land on MuJoCo's state to round-off.
** (The Cartesian writing is a nonlinear map: its rk4 differs by the method's
** truncation error, so only its rhs is compared above.)
*/
static void rk4_matches_mj_step(void **unused)
{
    (void)unused;
    int checked[5] = {0, 0, 0, 0, 0};
    for (const lgc_model *const *mp = all_models; *mp; ++mp) {
        const lgc_model *m = *mp;
        if (writing(m) == 'c') continue;
        const int n = links(m);
        mjModel *mj = load_mujoco(m, n);
        mjData *d = mj_makeData(mj);
        double *x = calloc(m->nx, sizeof *x), *want = calloc(m->nx, sizeof *want), a[MAX_LINKS];
        mj_resetDataKeyframe(mj, d, 0);
        map_state(m, d->qpos, d->qvel, d->qacc, x, a);
        for (int k = 0; k < RK4_STEPS; ++k) mj_step(mj, d);
        map_state(m, d->qpos, d->qvel, d->qacc, want, a);

        lgc_system sys;
        lgc_driver_options opt;
        lgc_driver_options_default(&opt);
        opt.type = lgc_step_rk4;
        opt.project = LGC_PROJECT_NONE;
        opt.h = mj->opt.timestep;
        assert_int_equal(lgc_system_init(&sys, m), LGC_OK);
        lgc_driver *drv = lgc_driver_alloc(&sys, &opt);
        assert_non_null(drv);
        assert_int_equal(lgc_driver_reset(drv, 0.0, x), LGC_OK);
        assert_int_equal(lgc_driver_advance(drv, RK4_STEPS * opt.h, x), LGC_OK);
        lgc_stats st;
        lgc_driver_stats(drv, &st);
        assert_int_equal(st.steps, RK4_STEPS);
        const double worst = expect_close(m, "rk4 step", RK4_STEPS, "", x, want, 0, 2 * m->nq);
        print_message("  %-10s %2d links: state after %d rk4 steps of %g, largest difference from mj_step's "
                      "%.1e (relative; allowed %.0e)\n", m->name, n, RK4_STEPS, opt.h, worst, RTOL);
        ++checked[writing_index(m)];
        lgc_driver_free(drv);
        lgc_system_free(&sys);
        free(x), free(want);
        mj_deleteData(d);
        mj_deleteModel(mj);
    }
    expect_writings(checked, "arbs", "rk4_matches_mj_step");
}

/*
** The generated Jacobian df/dx of every model that has one (the 20-link
** spatial arm's differentiates its bodies' Newton-Euler M a + k) against
** central differences of its rhs at random states: relative to the
** largest entry, to the differences' own error.
*/
static void jacobian_matches_differences(void **unused)
{
    (void)unused;
    int checked = 0;
    for (const lgc_model *const *mp = all_models; *mp; ++mp) {
        const lgc_model *m = *mp;
        if (!m->jacobian) continue;
        double *x = calloc(m->nx, sizeof *x), worst = 0.0;
        unsigned long seed = 29;
        for (int k = 0; k < 3; ++k) {
            for (int i = 0; i < m->nx; ++i) x[i] = uniform(&seed, -2.0, 2.0);
            const double error = jacobian_relative_error(m, x, k);
            if (!(error <= 1e-6))
                fail_msg("%s, state %d: df/dx differs from central differences by %.3e of the largest entry "
                         "(allowed 1e-6)", m->name, k, error);
            worst = fmax(worst, error);
        }
        print_message("  %-10s df/dx at 3 random states, largest difference from central differences %.1e "
                      "(relative; allowed 1e-6)\n", m->name, worst);
        ++checked;
        free(x);
    }
    if (checked < 2) fail_msg("%d models with a Jacobian compared; the build lists at least 2", checked);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s MJCF_DIR\n", argv[0]);
        return 2;
    }
    mjcf_dir = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rhs_matches_mj_forward),
        cmocka_unit_test(inverse_dynamics_matches_mj_inverse),
        cmocka_unit_test(rk4_matches_mj_step),
        cmocka_unit_test(jacobian_matches_differences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
