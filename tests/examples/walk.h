/* walk.h — run a generated model through the driver and show each sample to a check. */
#ifndef WALK_H
#define WALK_H

#include "lagrangec/driver.h"
#include "lagrangec/monitor.h"

/* Called at each of the samples; s holds residuals, energy, multipliers, fc. */
typedef void (*walk_visit)(void *ctx, const lgc_sample *s);

typedef struct walk_run {
    const lgc_model *model;
    const double *x0;           /* NULL: the model's initial state */
    const double *p;            /* NULL: the model's parameter defaults */
    double t0, t_end;
    int samples;                /* visits at t0 + k (t_end - t0)/samples, k = 0..samples */
    lgc_driver_options opt;
    lgc_monitor mon;            /* extremes over samples and steps; walk_free frees it */
} walk_run;

/* The methods every example runs under, k = 0 .. WALK_METHODS - 1: rk4, dopri5, adams, bdf. */
#define WALK_METHODS 4
const lgc_stepper_type *walk_method(int k);

/*
** `type` with the given correction, asked for accuracy rtol: dopri5 at rtol,
** adams at rtol/10 and bdf at rtol/100 (atol = rtol/100 for all), rk4 at
** h = rtol^(1/4)/8 (its error per unit time goes as h^4). At one rtol,
** adams and bdf landed up to 10 and 1000 times further from these oracles
** than dopri5, whose error at tight tolerances is well below them.
*/
void walk_init(walk_run *w, const lgc_model *m, const lgc_stepper_type *type, double t_end,
               int samples, double rtol, lgc_project_mode project);
/* The run's lgc_status; every accepted step is tracked into w->mon too. */
int walk(walk_run *w, walk_visit fn, void *ctx);
void walk_free(walk_run *w);

#endif
