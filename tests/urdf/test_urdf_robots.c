/*
** test_urdf_robots.c — published robots as URDFs (panda.urdf: a 7-joint arm
** with rpy joint origins and full tensors; a1.urdf: a 12-joint quadruped on a
** floating base; g1.urdf: a 29-joint humanoid on a floating base), and two
** small ones with tensors diagonal in their inertial frames (arm3.urdf,
** floating.urdf), each checked at 20 states against
**   - the exact reference urdf_reference.py writes from the URDF
**     specification (urdf_reference.h): M, the bias k - Q and q'' to 1e-10
**     of the largest entry compared;
**   - MuJoCo 2.2, which reads the same file (mj_loadXML): M, qfrc_bias and
**     the unconstrained acceleration qacc_smooth mapped to these
**     coordinates, to 1e-10 on diagonal tensors and to 1e-5 on full ones:
**     MuJoCo turns a full tensor into principal axes with mju_eig3, whose
**     iteration stops at rotations of ~1e-6 rad (so its inertias are off by
**     up to ~4e-7 relative); the reference, which takes the tensor as
**     written, holds those models to 1e-10.
** A floating joint is MuJoCo's free joint: the same position and unit
** quaternion (w, x, y, z); its velocities are (x', y', z') and the angular
** velocity in the body's axes, w = 2 G(q) q'. With J that map, lagrangec's M
** is J^T M_mj J + q q^T on the quaternion's block (T gets (q.q')^2/2), its
** bias is J^T qfrc_bias up to a multiple of q on that block (the norm's
** multiplier takes it: compared projected), and J q'' is MuJoCo's qacc. The
** states are on the norm's row (unit q, q.q' = 0).
** Then panda.urdf moves for 0.5 s from a state of the stream by RK4 with the
** same step on both (lagrangec's rhs; MuJoCo's qacc_smooth from mj_forward).
** Usage: test_urdf_robots URDF_DIR.
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
#include "urdf_reference.h"

extern const lgc_model panda_model_model, a1_model, g1_model, arm3_model, floating_model;
extern const urdf_reference panda_reference, a1_reference, g1_reference, arm3_reference, floating_reference;

#define REFERENCE_RTOL 1e-10

static const char *urdf_dir;

/* Largest |got - want| over the largest |want|; fails past rtol. */
static double compare(const char *model, const char *what, const char *against, int state, const double got[],
                      const double want[], int count, double rtol)
{
    double scale = 0.0, worst = 0.0;
    for (int i = 0; i < count; ++i) scale = fmax(scale, fabs(want[i]));
    if (scale == 0.0) scale = 1.0;
    for (int i = 0; i < count; ++i) {
        double e = fabs(got[i] - want[i]) / scale;
        worst = fmax(worst, e);
        if (!(e <= rtol))
            fail_msg("%s, state %d: %s[%d] = %.17g from lagrangec, %.17g from %s (%.1e of the largest, %.17g; "
                     "allowed %.0e)", model, state, what, i, got[i], want[i], against, e, scale, rtol);
    }
    return worst;
}

/* Takes out of v, on each quaternion's block, its component along q. */
static void project(const urdf_reference *r, const double x[], double v[])
{
    for (int k = 0; k < r->nquaternions; ++k) {
        const int i = r->quaternions[k];
        double along = 0.0;
        for (int c = 0; c < 4; ++c) along += v[i + c] * x[i + c];
        for (int c = 0; c < 4; ++c) v[i + c] -= along * x[i + c];
    }
}

typedef struct {
    const lgc_model *model;
    const urdf_reference *reference;
    const char *urdf;
    double mujoco_rtol; /* 1e-10 on diagonal tensors, 1e-5 on full ones */
} robot_case;

/* MuJoCo's model of the file, and J (nv x nq): its velocities from q'. */
typedef struct {
    mjModel *mj;
    mjData *d;
    int *qpos_of; /* per MuJoCo joint: its first coordinate here */
} mujoco_side;

static mujoco_side load_mujoco(const robot_case *c)
{
    const lgc_model *m = c->model;
    char path[4096], error[1000] = "";
    snprintf(path, sizeof path, "%s/%s", urdf_dir, c->urdf);
    mujoco_side s = {mj_loadXML(path, NULL, error, sizeof error), NULL, NULL};
    if (!s.mj) fail_msg("%s: %s", path, error);
    if (s.mj->nq != m->nq) fail_msg("%s: MuJoCo has %d coordinates, lagrangec %d", path, s.mj->nq, m->nq);
    s.d = mj_makeData(s.mj);
    s.qpos_of = calloc(s.mj->njnt, sizeof *s.qpos_of);
    for (int j = 0; j < s.mj->njnt; ++j) {
        char name[200];
        snprintf(name, sizeof name, "%s%s", mj_id2name(s.mj, mjOBJ_JOINT, j),
                 s.mj->jnt_type[j] == mjJNT_FREE ? "_x" : "");
        int i = lgc_name_index(m->state_names, m->nq, name);
        if (i < 0) fail_msg("%s: lagrangec has no coordinate %s for MuJoCo's joint %d", path, name, j);
        s.qpos_of[j] = i;
    }
    return s;
}

static void free_mujoco(mujoco_side *s)
{
    free(s->qpos_of);
    mj_deleteData(s->d);
    mj_deleteModel(s->mj);
}

/* J at x: MuJoCo's nv velocities = J q' (row-major nv x nq). */
static void velocity_map(const mujoco_side *s, int nq, const double x[], double J[])
{
    const mjModel *mj = s->mj;
    memset(J, 0, sizeof *J * mj->nv * nq);
    for (int j = 0; j < mj->njnt; ++j) {
        const int i = s->qpos_of[j], v = mj->jnt_dofadr[j];
        if (mj->jnt_type[j] != mjJNT_FREE) {
            J[v * nq + i] = 1.0;
            continue;
        }
        for (int k = 0; k < 3; ++k) J[(v + k) * nq + i + k] = 1.0;
        const double w = x[i + 3], qx = x[i + 4], qy = x[i + 5], qz = x[i + 6];
        const double G[3][4] = {{-qx, w, qz, -qy}, {-qy, -qz, w, qx}, {-qz, qy, -qx, w}};
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 4; ++c) J[(v + 3 + r) * nq + i + 3 + c] = 2.0 * G[r][c];
    }
}

/* MuJoCo at the state x (these coordinates): its qpos, qvel = J q'. */
static void mujoco_at(mujoco_side *s, int nq, const double x[], const double J[])
{
    const mjModel *mj = s->mj;
    for (int j = 0; j < mj->njnt; ++j) {
        const int count = mj->jnt_type[j] == mjJNT_FREE ? 7 : 1;
        for (int k = 0; k < count; ++k) s->d->qpos[mj->jnt_qposadr[j] + k] = x[s->qpos_of[j] + k];
    }
    for (int a = 0; a < mj->nv; ++a) {
        s->d->qvel[a] = 0.0;
        for (int i = 0; i < nq; ++i) s->d->qvel[a] += J[a * nq + i] * x[nq + i];
    }
    mj_forward(s->mj, s->d);
}

static void check_robot(const robot_case *c)
{
    const lgc_model *m = c->model;
    const urdf_reference *r = c->reference;
    const int n = m->nq;
    if (r->nq != n) fail_msg("%s: the reference has %d coordinates, lagrangec %d", m->name, r->nq, n);
    for (int i = 0; i < n; ++i)
        if (strcmp(r->names[i], m->state_names[i]) != 0)
            fail_msg("%s: coordinate %d is %s for lagrangec, %s for the reference (the URDF's joint order)", m->name,
                     i, m->state_names[i], r->names[i]);
    mujoco_side s = load_mujoco(c);
    const int nv = s.mj->nv;
    double *x = calloc(m->nx, sizeof *x), *dxdt = calloc(m->nx, sizeof *dxdt);
    double *work = calloc(m->nwork + 1, sizeof *work);
    double *M = calloc(n * n, sizeof *M), *bias = calloc(n, sizeof *bias), *want = calloc(n * n, sizeof *want);
    double *J = calloc(nv * n, sizeof *J), *full = calloc(nv * nv, sizeof *full), *Ja = calloc(nv, sizeof *Ja);
    double worst[2][3] = {{0}};
    for (int k = 0; k < r->states; ++k) {
        memcpy(x, r->x + (size_t)k * 2 * n, sizeof *x * 2 * n);
        m->mass_matrix(0.0, x, m->parameter_defaults, M);
        m->bias(0.0, x, m->parameter_defaults, bias);
        project(r, x, bias);
        int rc = m->rhs(0.0, x, m->input_defaults, m->parameter_defaults, m->alpha, m->beta, dxdt, NULL, work);
        if (rc != LGC_MODEL_OK) fail_msg("%s, state %d: rhs returned %d", m->name, k, rc);
        /* The reference. */
        memcpy(want, r->bias + (size_t)k * n, sizeof *want * n);
        project(r, x, want);
        worst[0][0] = fmax(worst[0][0], compare(m->name, "M", "the reference", k, M, r->M + (size_t)k * n * n, n * n,
                                                REFERENCE_RTOL));
        worst[0][1] = fmax(worst[0][1], compare(m->name, "bias", "the reference", k, bias, want, n, REFERENCE_RTOL));
        worst[0][2] = fmax(worst[0][2], compare(m->name, "q''", "the reference", k, dxdt + n, r->qdd + (size_t)k * n,
                                                n, REFERENCE_RTOL));
        /* MuJoCo. */
        velocity_map(&s, n, x, J);
        mujoco_at(&s, n, x, J);
        mj_fullM(s.mj, full, s.d->qM);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                double v = 0.0;
                for (int a = 0; a < nv; ++a)
                    for (int b = 0; b < nv; ++b) v += J[a * n + i] * full[a * nv + b] * J[b * n + j];
                want[i * n + j] = v;
            }
        for (int q = 0; q < r->nquaternions; ++q)
            for (int i = r->quaternions[q]; i < r->quaternions[q] + 4; ++i)
                for (int j = r->quaternions[q]; j < r->quaternions[q] + 4; ++j) want[i * n + j] += x[i] * x[j];
        worst[1][0] = fmax(worst[1][0], compare(m->name, "M", "MuJoCo", k, M, want, n * n, c->mujoco_rtol));
        for (int i = 0; i < n; ++i) {
            want[i] = 0.0;
            for (int a = 0; a < nv; ++a) want[i] += J[a * n + i] * s.d->qfrc_bias[a];
        }
        project(r, x, want);
        worst[1][1] = fmax(worst[1][1], compare(m->name, "bias", "MuJoCo", k, bias, want, n, c->mujoco_rtol));
        for (int a = 0; a < nv; ++a) {
            Ja[a] = 0.0;
            for (int i = 0; i < n; ++i) Ja[a] += J[a * n + i] * dxdt[n + i];
        }
        worst[1][2] = fmax(worst[1][2], compare(m->name, "J q''", "MuJoCo", k, Ja, s.d->qacc_smooth, nv,
                                                c->mujoco_rtol));
    }
    print_message("  %-8s %2d coordinates, %d states: largest difference (relative) of M, bias, q'' from the "
                  "reference %.1e %.1e %.1e (allowed %.0e), from MuJoCo %.1e %.1e %.1e (allowed %.0e)\n",
                  c->urdf, n, r->states, worst[0][0], worst[0][1], worst[0][2], REFERENCE_RTOL, worst[1][0],
                  worst[1][1], worst[1][2], c->mujoco_rtol);
    free(x), free(dxdt), free(work), free(M), free(bias), free(want), free(J), free(full), free(Ja);
    free_mujoco(&s);
}

static void panda_matches(void **unused)
{
    (void)unused;
    check_robot(&(robot_case){&panda_model_model, &panda_reference, "panda.urdf", 1e-5});
}

static void a1_matches(void **unused)
{
    (void)unused;
    check_robot(&(robot_case){&a1_model, &a1_reference, "a1.urdf", 1e-5});
}

static void g1_matches(void **unused)
{
    (void)unused;
    check_robot(&(robot_case){&g1_model, &g1_reference, "g1.urdf", 1e-5});
}

static void diagonal_tensors_match(void **unused)
{
    (void)unused;
    check_robot(&(robot_case){&arm3_model, &arm3_reference, "arm3.urdf", 1e-10});
    check_robot(&(robot_case){&floating_model, &floating_reference, "floating.urdf", 1e-10});
}

/* One RK4 step of dx/dt = f(x) of size n. */
typedef void (*field)(void *context, const double x[], double dxdt[]);
static void rk4(field f, void *context, int n, double h, double x[])
{
    double k[4][64], y[64];
    for (int s = 0; s < 4; ++s) {
        for (int i = 0; i < n; ++i) y[i] = x[i] + (s == 0 ? 0.0 : (s == 3 ? h : h / 2) * k[s - 1][i]);
        f(context, y, k[s]);
    }
    for (int i = 0; i < n; ++i) x[i] += h / 6 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
}

static double lagrangec_work[4096];
static void lagrangec_field(void *context, const double x[], double dxdt[])
{
    const lgc_model *m = context;
    int rc = m->rhs(0.0, x, m->input_defaults, m->parameter_defaults, m->alpha, m->beta, dxdt, NULL, lagrangec_work);
    if (rc != LGC_MODEL_OK) fail_msg("%s: rhs returned %d", m->name, rc);
}

static void mujoco_field(void *context, const double x[], double dxdt[])
{
    mujoco_side *s = context;
    const int n = s->mj->nv; /* hinges only: qpos and qvel line up */
    mju_copy(s->d->qpos, x, n);
    mju_copy(s->d->qvel, x + n, n);
    mj_forward(s->mj, s->d);
    mju_copy(dxdt, x + n, n);
    mju_copy(dxdt + n, s->d->qacc_smooth, n);
}

static void panda_trajectory_matches(void **unused)
{
    (void)unused;
    const lgc_model *m = &panda_model_model;
    const robot_case c = {m, &panda_reference, "panda.urdf", 1e-5};
    mujoco_side s = load_mujoco(&c);
    const int n = m->nq;
    if (m->nx != 2 * n || s.mj->nv != n || m->nwork > 4096) fail_msg("panda: %d states, %d dofs", m->nx, s.mj->nv);
    for (int j = 0; j < s.mj->njnt; ++j)
        if (s.qpos_of[j] != s.mj->jnt_qposadr[j]) fail_msg("panda: MuJoCo's joint %d is coordinate %d", j, s.qpos_of[j]);
    double x[14], y[14];
    memcpy(x, panda_reference.x, sizeof x);
    memcpy(y, x, sizeof y);
    const double h = 1e-3;
    double worst = 0.0, scale = 0.0;
    for (int step = 1; step <= 500; ++step) {
        rk4(lagrangec_field, (void *)m, 2 * n, h, x);
        rk4(mujoco_field, &s, 2 * n, h, y);
        for (int i = 0; i < 2 * n; ++i) scale = fmax(scale, fabs(y[i]));
        for (int i = 0; i < 2 * n; ++i) {
            worst = fmax(worst, fabs(x[i] - y[i]) / scale);
            if (!(fabs(x[i] - y[i]) <= 1e-5 * scale))
                fail_msg("panda at t = %g: %s = %.17g by lagrangec, %.17g by MuJoCo (RK4, step %g)", step * h,
                         m->state_names[i], x[i], y[i], h);
        }
    }
    print_message("  panda.urdf RK4 with step %g for 0.5 s from state 0: largest difference of the state from "
                  "MuJoCo's %.1e of its largest entry (allowed 1e-5)\n", h, worst);
    free_mujoco(&s);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s URDF_DIR\n", argv[0]);
        return 2;
    }
    urdf_dir = argv[1];
    const struct CMUnitTest tests[] = {cmocka_unit_test(diagonal_tensors_match), cmocka_unit_test(panda_matches),
                                       cmocka_unit_test(panda_trajectory_matches), cmocka_unit_test(a1_matches),
                                       cmocka_unit_test(g1_matches)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
