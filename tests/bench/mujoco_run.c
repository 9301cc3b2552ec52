/*
** mujoco_run.c — MuJoCo's side of the first-run and throughput figures.
**   mujoco_run MODEL.xml load         median ms of mj_loadXML + mj_makeData over 5 loads
**   mujoco_run MODEL.xml steps T_END  steps/s of mj_step (the model's integrator
**                                     and timestep) from keyframe 0 to T_END
**   mujoco_run MODEL.xml qacc         qacc of mj_forward at keyframe 0, one a line
*/
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static mjModel *load(const char *path)
{
    char error[1000] = "";
    mjModel *m = mj_loadXML(path, NULL, error, sizeof error);
    if (!m) {
        fprintf(stderr, "mujoco_run: %s: %s\n", path, error);
        exit(2);
    }
    return m;
}

static void load_ms(const char *path)
{
    double ms[5];
    for (int r = 0; r < 5; ++r) {
        double t0 = now();
        mjModel *m = load(path);
        mjData *d = mj_makeData(m);
        ms[r] = 1e3 * (now() - t0);
        mj_deleteData(d);
        mj_deleteModel(m);
    }
    qsort(ms, 5, sizeof ms[0], cmp);
    printf("%.3f\n", ms[2]);
}

/* A run that blew up would be measuring NaN arithmetic: it fails instead. */
static int steps_per_second(const char *path, double t_end)
{
    mjModel *m = load(path);
    mjData *d = mj_makeData(m);
    const long steps = lround(t_end / m->opt.timestep);
    mj_resetDataKeyframe(m, d, 0);
    double t0 = now();
    for (long k = 0; k < steps; ++k) mj_step(m, d);
    double wall = now() - t0;
    int finite = 1;
    for (int i = 0; i < m->nq; ++i) finite &= isfinite(d->qpos[i]);
    printf("%.0f\n", steps / wall);
    mj_deleteData(d);
    mj_deleteModel(m);
    if (!finite) fprintf(stderr, "mujoco_run: the state is not finite at t = %g\n", t_end);
    return !finite;
}

static void accelerations(const char *path)
{
    mjModel *m = load(path);
    mjData *d = mj_makeData(m);
    mj_resetDataKeyframe(m, d, 0);
    mj_forward(m, d);
    for (int i = 0; i < m->nv; ++i) printf("%.17g\n", d->qacc[i]);
    mj_deleteData(d);
    mj_deleteModel(m);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[2], "load") == 0) {
        load_ms(argv[1]);
        return 0;
    }
    if (argc == 3 && strcmp(argv[2], "qacc") == 0) {
        accelerations(argv[1]);
        return 0;
    }
    if (argc == 4 && strcmp(argv[2], "steps") == 0) return steps_per_second(argv[1], atof(argv[3]));
    fprintf(stderr, "usage: mujoco_run MODEL.xml load | steps T_END | qacc\n");
    return 2;
}
