/*
** lgc_steps.c — lagrangec's side of the throughput figure: the runtime's
** driver stepping one generated model with RK4 from its initial state,
** nothing else in the loop (no monitor, no samples), as mujoco_run.c steps
** MuJoCo's. Compile with -DMODEL=NAME_model and link NAME.c, NAME_model.c,
** liblagrangec.
**   lgc_steps none|velocity|full H T_END   steps/s
*/
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lagrangec/lagrangec.h"

extern const lgc_model MODEL;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *modes[] = {"none", "velocity", "full"};
    int mode = 0;
    while (argc == 4 && mode < 3 && strcmp(argv[1], modes[mode]) != 0) ++mode;
    if (argc != 4 || mode == 3) {
        fprintf(stderr, "usage: lgc_steps none|velocity|full H T_END\n");
        return 2;
    }
    lgc_system sys;
    lgc_driver_options opt;
    lgc_driver_options_default(&opt);
    opt.type = lgc_step_rk4;
    opt.h = atof(argv[2]);
    opt.project = (lgc_project_mode)mode;
    double *x = malloc(MODEL.nx * sizeof *x);
    if (!x || lgc_system_init(&sys, &MODEL) != LGC_OK) return 1;
    memcpy(x, MODEL.initial_state, MODEL.nx * sizeof *x);
    lgc_driver *drv = lgc_driver_alloc(&sys, &opt);
    if (!drv || lgc_driver_reset(drv, 0.0, x) != LGC_OK) return 1;
    double t0 = now();
    int rc = lgc_driver_advance(drv, atof(argv[3]), x);
    double wall = now() - t0;
    lgc_stats st;
    lgc_driver_stats(drv, &st);
    if (rc != LGC_OK) {
        fprintf(stderr, "lgc_steps: t = %g: %s\n", lgc_driver_time(drv), lgc_strerror(rc));
        return 1;
    }
    printf("%.0f\n", st.steps / wall);
    lgc_driver_free(drv);
    lgc_system_free(&sys);
    free(x);
    return 0;
}
