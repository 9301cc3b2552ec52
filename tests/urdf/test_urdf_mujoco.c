/*
** test_urdf_mujoco.c — each URDF here is one system for lagrangec and for
** MuJoCo 2.2, which reads URDF itself (mj_loadXML): at random states the
** generated M(q) is mj_fullM's and the generated q'' is MuJoCo's
** unconstrained acceleration (qacc_smooth, so that joint limits, which MuJoCo
** enforces, do not enter). MuJoCo drops <mimic>: for mimic.urdf the
** constrained q'' is solved here from MuJoCo's own M and forces with the
** URDF's row q_knee = m q_hip + offset. cart_spring.toml includes cart.urdf
** and adds the spring -k*slider, which MuJoCo gets as an applied force.
** MuJoCo names planar.urdf's joint base_TX, base_TY, base_RZ. A floating
** joint is MuJoCo's free joint (the same quaternion, and the angular
** velocity in the body's axes): floating.urdf is compared through that map
** at rest.
** Usage: test_urdf_mujoco URDF_DIR.
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

extern const lgc_model arm3_model, cart_model, cart_spring_model, fixed_merge_model, mimic_model, planar_model,
    floating_model;

#define STATES 20
#define RTOL 1e-9 /* of the largest entry compared */
#define MAX_DOF 8

static const char *urdf_dir;

/* Largest |got - want| over the largest |want| (at least 1); fails past RTOL. */
static double compare(const lgc_model *m, const char *what, int state, const double got[], const double want[],
                      int count)
{
    double scale = 1.0, worst = 0.0;
    for (int i = 0; i < count; ++i) scale = fmax(scale, fabs(want[i]));
    for (int i = 0; i < count; ++i) {
        worst = fmax(worst, fabs(got[i] - want[i]) / scale);
        if (!(fabs(got[i] - want[i]) <= RTOL * scale))
            fail_msg("%s, state %d: %s[%d] = %.17g from lagrangec, %.17g from MuJoCo", m->name, state, what, i,
                     got[i], want[i]);
    }
    return worst;
}

/*
** One model against MuJoCo on `urdf`. Its coordinates are MuJoCo's joints
** by name (dof[i]: MuJoCo's dof of coordinate i), or by `mujoco_names`. `mimic`: the index of the
** following coordinate and of the one it follows, with multiplier and
** offset; spring: the parameter k of -k*slider on coordinate 0.
*/
typedef struct {
    const lgc_model *model;
    const char *urdf;
    int mimic, followed;
    double multiplier, offset;
    int spring;
    const char *const *mujoco_names;
} oracle_case;

static void check_case(const oracle_case *c)
{
    const lgc_model *m = c->model;
    const int n = m->nq;
    char path[4096], error[1000] = "";
    snprintf(path, sizeof path, "%s/%s", urdf_dir, c->urdf);
    mjModel *mj = mj_loadXML(path, NULL, error, sizeof error);
    if (!mj) fail_msg("%s: %s", path, error);
    if (mj->nv != n || n > MAX_DOF) fail_msg("%s: MuJoCo has %d dofs, lagrangec %d coordinates", path, mj->nv, n);
    int dof[MAX_DOF];
    for (int i = 0; i < n; ++i) {
        const char *name = c->mujoco_names ? c->mujoco_names[i] : m->state_names[i];
        int j = mj_name2id(mj, mjOBJ_JOINT, name);
        if (j < 0) fail_msg("%s: MuJoCo has no joint %s", path, name);
        dof[i] = mj->jnt_dofadr[j];
    }
    mjData *d = mj_makeData(mj);
    double *x = calloc(m->nx, sizeof *x), *dxdt = calloc(m->nx, sizeof *dxdt);
    double *work = calloc(m->nwork + 1, sizeof *work);
    double M[MAX_DOF * MAX_DOF], want_M[MAX_DOF * MAX_DOF], full[MAX_DOF * MAX_DOF], want_a[MAX_DOF];
    double worst_M = 0.0, worst_a = 0.0;
    unsigned long seed = 7;
    for (int k = 0; k < STATES; ++k) {
        for (int i = 0; i < n; ++i) {
            x[i] = uniform(&seed, -3.0, 3.0);
            x[n + i] = uniform(&seed, -2.0, 2.0);
        }
        if (c->mimic >= 0) {
            x[c->mimic] = c->multiplier * x[c->followed] + c->offset;
            x[n + c->mimic] = c->multiplier * x[n + c->followed];
        }
        for (int i = 0; i < n; ++i) {
            d->qpos[mj->jnt_qposadr[mj->dof_jntid[dof[i]]]] = x[i];
            d->qvel[dof[i]] = x[n + i];
            d->qfrc_applied[dof[i]] = 0.0;
        }
        if (c->spring) d->qfrc_applied[dof[0]] = -parameter(m, "k") * x[0];
        mj_forward(mj, d);
        mj_fullM(mj, full, d->qM);
        for (int i = 0; i < n; ++i) {
            want_a[i] = d->qacc_smooth[dof[i]];
            for (int j = 0; j < n; ++j) want_M[i * n + j] = full[dof[i] * n + dof[j]];
        }
        if (c->mimic >= 0) { /* a = a0 - M^-1 r (r.a0)/(r.M^-1 r), r the row's gradient */
            double r[MAX_DOF] = {0}, Minv_r[MAX_DOF], ra = 0.0, rMr = 0.0;
            r[dof[c->mimic]] = 1.0;
            r[dof[c->followed]] = -c->multiplier;
            mj_solveM(mj, d, Minv_r, r, 1);
            for (int i = 0; i < n; ++i) ra += r[dof[i]] * d->qacc_smooth[dof[i]], rMr += r[dof[i]] * Minv_r[dof[i]];
            for (int i = 0; i < n; ++i) want_a[i] -= Minv_r[dof[i]] * ra / rMr;
        }
        m->mass_matrix(0.0, x, m->parameter_defaults, M);
        int rc = m->rhs(0.0, x, m->input_defaults, m->parameter_defaults, m->alpha, m->beta, dxdt, NULL, work);
        if (rc != LGC_MODEL_OK) fail_msg("%s, state %d: rhs returned %d", m->name, k, rc);
        worst_M = fmax(worst_M, compare(m, "M", k, M, want_M, n * n));
        worst_a = fmax(worst_a, compare(m, "q''", k, dxdt + n, want_a, n));
    }
    print_message("  %-12s %d coordinates: at %d random states, largest difference from MuJoCo's M %.1e, "
                  "q'' %.1e (relative; allowed %.0e)\n", m->name, n, STATES, worst_M, worst_a, RTOL);
    free(x), free(dxdt), free(work);
    mj_deleteData(d);
    mj_deleteModel(mj);
}

static void urdfs_match_mujoco(void **unused)
{
    (void)unused;
    const oracle_case cases[] = {
        {&arm3_model, "arm3.urdf", -1, -1, 0, 0, 0, NULL},
        {&cart_model, "cart.urdf", -1, -1, 0, 0, 0, NULL},
        {&cart_spring_model, "cart.urdf", -1, -1, 0, 0, 1, NULL},
        {&fixed_merge_model, "fixed_merge.urdf", -1, -1, 0, 0, 0, NULL},
        {&mimic_model, "mimic.urdf", 1, 0, -0.5, 0.2, 0, NULL},
        {&planar_model, "planar.urdf", -1, -1, 0, 0, 0, (const char *const[]){"base_TX", "base_TY", "base_RZ", "arm"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) check_case(&cases[i]);
}

/*
** floating.urdf: coordinates base_x, base_y, base_z (the position),
** base_qw, base_qx, base_qy, base_qz (a unit quaternion, with its norm as a
** holonomic row and (q . q')^2/2 added to T, 0 on that row), then the arm's
** six hinges; MuJoCo's free joint has the position, the same quaternion,
** the velocity in the world's axes and the angular velocity in the body's,
** 2 G(q) q', then the hinges.
** With J that map of velocities, M - q q^T (the quaternion's block) is
** J^T M_mj J; at rest, the weight's forces across q are J^T qfrc_bias, and
** J q'' is MuJoCo's qacc.
*/
static void floating_base_matches_mujoco_at_rest(void **unused)
{
    (void)unused;
    const lgc_model *m = &floating_model;
    char path[4096], error[1000] = "";
    snprintf(path, sizeof path, "%s/floating.urdf", urdf_dir);
    mjModel *mj = mj_loadXML(path, NULL, error, sizeof error);
    if (!mj) fail_msg("%s: %s", path, error);
    enum { HINGES = 6, NV = 6 + HINGES, NQ = 7 + HINGES };
    if (mj->nv != NV || mj->nq != NQ || m->nq != NQ)
        fail_msg("%s: MuJoCo has %d dofs, lagrangec %d coordinates; expected a free joint and %d hinges", path, mj->nv,
                 m->nq, HINGES);
    mjData *d = mj_makeData(mj);
    double x[2 * NQ] = {0}, dxdt[2 * NQ], *work = calloc(m->nwork + 1, sizeof *work);
    double full[NV * NV], M[NQ * NQ], want_M[NQ * NQ], bias[NQ], want_bias[NQ], Ja[NV];
    double worst_M = 0.0, worst_bias = 0.0, worst_a = 0.0;
    unsigned long seed = 11;
    for (int k = 0; k < STATES; ++k) {
        for (int i = 0; i < NQ; ++i) x[i] = uniform(&seed, -3.0, 3.0);
        mju_normalize4(x + 3);
        mju_copy(d->qpos, x, NQ);
        mju_zero(d->qvel, NV);
        mj_forward(mj, d);
        mj_fullM(mj, full, d->qM);
        const double w = x[3], qx = x[4], qy = x[5], qz = x[6];
        const double G[3][4] = {{-qx, w, qz, -qy}, {-qy, -qz, w, qx}, {-qz, qy, -qx, w}};
        double J[NV * NQ] = {0}; /* row: MuJoCo's dof, column: the coordinate */
        for (int i = 0; i < 3; ++i) J[i * NQ + i] = 1.0;
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 4; ++c) J[(3 + r) * NQ + 3 + c] = 2.0 * G[r][c];
        for (int h = 0; h < HINGES; ++h) J[(6 + h) * NQ + 7 + h] = 1.0;
        for (int i = 0; i < NQ; ++i) {
            want_bias[i] = 0.0;
            for (int a = 0; a < NV; ++a) want_bias[i] += J[a * NQ + i] * d->qfrc_bias[a];
            for (int j = 0; j < NQ; ++j) {
                want_M[i * NQ + j] = (i >= 3 && i < 7 && j >= 3 && j < 7) ? x[i] * x[j] : 0.0;
                for (int a = 0; a < NV; ++a)
                    for (int b = 0; b < NV; ++b) want_M[i * NQ + j] += J[a * NQ + i] * full[a * NV + b] * J[b * NQ + j];
            }
        }
        m->mass_matrix(0.0, x, m->parameter_defaults, M);
        m->bias(0.0, x, m->parameter_defaults, bias);
        double along_q = 0.0; /* the weight's force along q, which the norm's row takes */
        for (int c = 3; c < 7; ++c) along_q += bias[c] * x[c];
        for (int c = 3; c < 7; ++c) bias[c] -= along_q * x[c];
        int rc = m->rhs(0.0, x, m->input_defaults, m->parameter_defaults, m->alpha, m->beta, dxdt, NULL, work);
        if (rc != LGC_MODEL_OK) fail_msg("floating, state %d: rhs returned %d", k, rc);
        for (int a = 0; a < NV; ++a) {
            Ja[a] = 0.0;
            for (int i = 0; i < NQ; ++i) Ja[a] += J[a * NQ + i] * dxdt[NQ + i];
        }
        worst_M = fmax(worst_M, compare(m, "M", k, M, want_M, NQ * NQ));
        worst_bias = fmax(worst_bias, compare(m, "k - Q across q", k, bias, want_bias, NQ));
        worst_a = fmax(worst_a, compare(m, "J q''", k, Ja, d->qacc_smooth, NV));
    }
    print_message("  %-12s %d coordinates: at %d random configurations at rest, largest difference from MuJoCo's "
                  "M %.1e, k - Q %.1e, q'' %.1e (relative; allowed %.0e)\n", m->name, NQ, STATES, worst_M,
                  worst_bias, worst_a, RTOL);
    free(work);
    mj_deleteData(d);
    mj_deleteModel(mj);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s URDF_DIR\n", argv[0]);
        return 2;
    }
    urdf_dir = argv[1];
    const struct CMUnitTest tests[] = {cmocka_unit_test(urdfs_match_mujoco),
                                       cmocka_unit_test(floating_base_matches_mujoco_at_rest)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
