/* run_util.h — run a model through the driver and collect what tests check. */
#ifndef RUN_UTIL_H
#define RUN_UTIL_H

#include "lagrangec/driver.h"
#include "lagrangec/monitor.h"

typedef struct run_result {
    int status;             /* lgc_status of the run */
    double t_fail;          /* driver time when status != LGC_OK */
    lgc_stats stats;
    lgc_monitor mon;        /* extremes over all samples; freed by run_free */
} run_result;

/*
** From x0 (the model's initial state when NULL) to t_end, sampled every
** `sample`; gains (alpha, beta) override the model's when not NULL.
*/
void run_model(const lgc_model *m, const double x0[], const lgc_driver_options *opt,
               const double gains[2], double t_end, double sample, run_result *r);
void run_free(run_result *r);

/* A step observer (lgc_driver_observe) feeding lgc_monitor_track. */
typedef struct run_tracker {
    lgc_monitor *mon;
    lgc_system *sys;
} run_tracker;
int run_track(void *tracker, double t, const double x[]);

/*
** The pendulum of specs/pendulum.toml released at rest from the horizontal
** (x = l = 1, y = 0), and the same in specs/pendulum_angle.toml (theta = pi/2).
*/
extern const double pendulum_horizontal[4], pendulum_angle_horizontal[2];

#endif
