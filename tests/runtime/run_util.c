/* run_util.c — the driver loop, step tracker and states the runtime tests share. */
#include <math.h>
#include <stdlib.h>

#include "lagrangec/status.h"
#include "run_util.h"

const double pendulum_horizontal[4] = {1.0, 0.0, 0.0, 0.0};
const double pendulum_angle_horizontal[2] = {1.5707963267948966, 0.0};

void run_model(const lgc_model *m, const double x0[], const lgc_driver_options *opt,
               const double gains[2], double t_end, double sample, run_result *r)
{
    lgc_system sys;
    double *x = malloc((size_t)m->nx * sizeof *x);
    r->status = lgc_system_init(&sys, m);
    if (r->status == LGC_OK)
        r->status = lgc_monitor_init(&r->mon, m);
    if (gains) {
        sys.alpha = gains[0];
        sys.beta = gains[1];
    }
    lgc_driver *d = lgc_driver_alloc(&sys, opt);
    if (!d || !x) {
        r->status = LGC_ERR_NOMEM;
    } else {
        r->status = lgc_driver_reset(d, 0.0, x0 ? x0 : m->initial_state);
        for (long k = 0; r->status == LGC_OK; k++) {
            double t = fmin(t_end, (double)k * sample);
            r->status = lgc_driver_advance(d, t, x);
            if (r->status == LGC_OK)
                r->status = lgc_monitor_sample(&r->mon, &sys, t, x);
            if (t >= t_end)
                break;
        }
        r->t_fail = lgc_driver_time(d);
        lgc_driver_stats(d, &r->stats);
    }
    lgc_driver_free(d);
    lgc_system_free(&sys);
    free(x);
}

void run_free(run_result *r)
{
    lgc_monitor_free(&r->mon);
}

int run_track(void *tracker, double t, const double x[])
{
    run_tracker *tr = tracker;
    return lgc_monitor_track(tr->mon, tr->sys, t, x);
}
