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
** From the model's initial state to t_end, sampled every `sample`; gains
** (alpha, beta) override the model's when not NULL.
*/
void run_model(const lgc_model *m, const lgc_driver_options *opt,
               const double gains[2], double t_end, double sample, run_result *r);
void run_free(run_result *r);

#endif
