/*
** events_met.h — what a test's run met: each event's index, time and state,
** as lgc_driver_observe_events hands them to `note`, and the four steppers
** in the order the tests take them. C; include after lagrangec/driver.h.
*/
#ifndef EVENTS_MET_H
#define EVENTS_MET_H

#include "lagrangec/driver.h"
#include "lagrangec/status.h"

#define MAX_MET 512
#define MAX_NX 16       /* the largest state of the models the tests run with it */

typedef struct met {
    int nx;             /* the state's size (MAX_NX at most): set before the run */
    int n;              /* events met, those past MAX_MET counted but not kept */
    int event[MAX_MET];
    double t[MAX_MET];
    double x[MAX_MET][MAX_NX];
} met;

/* The observer: ctx is a met. */
static inline int note(void *ctx, int event, double t, const double x[])
{
    met *e = ctx;
    if (e->n < MAX_MET) {
        e->event[e->n] = event;
        e->t[e->n] = t;
        for (int i = 0; i < e->nx; i++)
            e->x[e->n][i] = x[i];
    }
    e->n++;
    return LGC_OK;
}

/* Stepper k of rk4, dopri5, adams, bdf. */
static inline const lgc_stepper_type *stepper(int k)
{
    const lgc_stepper_type *types[] = {lgc_step_rk4, lgc_step_dopri5, lgc_step_adams, lgc_step_bdf};
    return types[k];
}

#endif
