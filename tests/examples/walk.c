/* walk.c — the driver loop the example tests share (see walk.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangec/status.h"
#include "walk.h"

const lgc_stepper_type *walk_method(int k)
{
    const lgc_stepper_type *const all[WALK_METHODS] = {lgc_step_rk4, lgc_step_dopri5, lgc_step_adams,
                                                       lgc_step_bdf};
    return all[k];
}

void walk_init(walk_run *w, const lgc_model *m, const lgc_stepper_type *type, double t_end,
               int samples, double rtol, lgc_project_mode project)
{
    memset(w, 0, sizeof *w);
    w->model = m;
    w->t_end = t_end;
    w->samples = samples;
    lgc_driver_options_default(&w->opt);
    w->opt.type = type;
    w->opt.h = type->adaptive ? 0.0 : pow(rtol, 0.25) / 8;
    w->opt.rtol = type == lgc_step_dopri5 ? rtol : type == lgc_step_adams ? rtol / 10 : rtol / 100;
    w->opt.atol = rtol / 100;
    w->opt.project = project;
}

typedef struct tracker {
    lgc_monitor *mon;
    const lgc_system *sys;
} tracker;

static int track(void *ctx, double t, const double x[])
{
    tracker *tr = ctx;
    return lgc_monitor_track(tr->mon, tr->sys, t, x);
}

int walk(walk_run *w, walk_visit fn, void *ctx)
{
    const lgc_model *m = w->model;
    lgc_system sys;
    double *x = malloc((size_t)m->nx * sizeof *x);
    if (!x || lgc_system_init(&sys, m) != LGC_OK) {
        free(x);
        return LGC_ERR_NOMEM;
    }
    if (w->p)
        memcpy(sys.p, w->p, (size_t)m->np * sizeof *sys.p);
    int rc = lgc_monitor_init(&w->mon, m);
    lgc_driver *d = rc == LGC_OK ? lgc_driver_alloc(&sys, &w->opt) : NULL;
    tracker tr = {&w->mon, &sys};
    if (!d)
        rc = LGC_ERR_NOMEM;
    else
        rc = lgc_driver_reset(d, w->t0, w->x0 ? w->x0 : m->initial_state);
    if (d)
        lgc_driver_observe(d, track, &tr);
    for (int k = 0; rc == LGC_OK && k <= w->samples; k++) {
        double t = w->t0 + (w->t_end - w->t0) * k / w->samples;
        if ((rc = lgc_driver_advance(d, t, x)) == LGC_OK
            && (rc = lgc_monitor_sample(&w->mon, &sys, t, x)) == LGC_OK && fn)
            fn(ctx, &w->mon.s);
    }
    lgc_driver_free(d);
    lgc_system_free(&sys);
    free(x);
    return rc;
}

void walk_free(walk_run *w)
{
    lgc_monitor_free(&w->mon);
}
