/*
** switch_window.h — the times of a run's last contact switches, to tell an
** accumulation that nothing ended (switches piling up at one instant, or
** closer and closer) from a run that goes on; private to the runtime
** (driver.c). lagrangec/driver.h states the bound.
*/
#ifndef LAGRANGEC_SWITCH_WINDOW_H
#define LAGRANGEC_SWITCH_WINDOW_H

#include "lagrangec/driver.h"

typedef struct lgc_switch_window {
    double t[LGC_ACCUMULATION_SWITCHES];    /* a ring of the last switches' times */
    unsigned long n;                        /* switches so far */
} lgc_switch_window;

/*
** A switch at t: 1 when it and the LGC_ACCUMULATION_SWITCHES - 1 before it
** fall within LGC_ACCUMULATION_SPAN max(1, |t|), else 0.
*/
int lgc_switch_window_add(lgc_switch_window *w, double t);

#endif
