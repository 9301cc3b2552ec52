/*
** mujoco_adapter.c — bench_call for MuJoCo: one mj_forward of the model in
** $BENCH_MJCF (rod_chain.py's MJCF, or a URDF) at its keyframe 0 (qpos0 without
** one), the benchmark state; or at the state in the file $BENCH_STATE (qpos,
** then qvel: mjcf_urdf.py's, for a URDF, which has no keyframe).
** Link with bench_rhs.c and -lmujoco.
*/
#include <stdio.h>
#include <stdlib.h>

#include <mujoco/mujoco.h>

#include "bench_call.h"

static mjModel *model;
static mjData *data;

/* qpos and qvel from the file at path, in MuJoCo's order. */
static void read_state(const char *path)
{
    FILE *f = fopen(path, "r");
    int i, ok = f != NULL;
    for (i = 0; ok && i < model->nq; ++i) ok = fscanf(f, "%lf", &data->qpos[i]) == 1;
    for (i = 0; ok && i < model->nv; ++i) ok = fscanf(f, "%lf", &data->qvel[i]) == 1;
    if (f) fclose(f);
    if (!ok) {
        fprintf(stderr, "mujoco_adapter: %s: not %d positions and %d rates\n", path, model->nq, model->nv);
        exit(2);
    }
}

void bench_setup(void)
{
    const char *path = getenv("BENCH_MJCF");
    char error[1000] = "";
    if (!path) {
        fprintf(stderr, "mujoco_adapter: set BENCH_MJCF to the model's MJCF\n");
        exit(2);
    }
    model = mj_loadXML(path, NULL, error, sizeof error);
    if (!model) {
        fprintf(stderr, "mujoco_adapter: %s: %s\n", path, error);
        exit(2);
    }
    /* BENCH_NO_LIMITS: a URDF's joint limits, which MuJoCo enforces and
       lagrangec keeps as data, left out of the solve (the same problem). */
    if (getenv("BENCH_NO_LIMITS")) model->opt.disableflags |= mjDSBL_LIMIT;
    data = mj_makeData(model);
    mj_resetDataKeyframe(model, data, 0);
    if (getenv("BENCH_STATE")) read_state(getenv("BENCH_STATE"));
}

/* mj_forward recomputes everything from qpos and qvel; it has no status. */
int bench_call(void)
{
    mj_forward(model, data);
    return 0;
}

double bench_result(void)
{
    return data->qacc[model->nv - 1];
}
