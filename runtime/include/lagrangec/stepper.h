/*
** lagrangec/stepper.h — one Runge–Kutta step of an lgc_system, and the
** step's interpolant.
** A stepper type is a const table of functions (GSL odeiv2 style); a stepper
** holds the stage vectors, allocated once for the system's state size.
*/
#ifndef LAGRANGEC_STEPPER_H
#define LAGRANGEC_STEPPER_H

#include <stddef.h>
#include "lagrangec/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lgc_stepper_type {
    const char *name;
    int order;          /* order of the propagated solution */
    int adaptive;       /* produces an error estimate */
    void *(*alloc)(int nx);
    /*
    ** Advance x from t by h into xout (x unchanged); yerr (adaptive only, may
    ** be NULL otherwise) gets the local error estimate. dxdt_in, if not NULL,
    ** is f(t, x) already known (FSAL); the stepper then skips that call.
    */
    int (*apply)(void *state, lgc_system *sys, double t, double h,
                 const double x[], const double dxdt_in[], double xout[],
                 double yerr[]);
    /* f(t + h, xout) from the last apply, or NULL if the method lacks it. */
    const double *(*last_derivative)(const void *state);
    /*
    ** The end point the last step was accepted with (xout after a correction)
    ** and f there. The interpolant meets it: call before `dense` whenever the
    ** end point moved, and always when last_derivative is NULL.
    */
    void (*set_end)(void *state, const double x1[], const double f1[]);
    /* x(t + theta h), 0 <= theta <= 1, from the last step. */
    void (*dense)(const void *state, double theta, double xout[]);
    void (*free)(void *state);
} lgc_stepper_type;

extern const lgc_stepper_type *const lgc_step_rk4;
extern const lgc_stepper_type *const lgc_step_dopri5;

/* The stepper type called `name` ("rk4", "dopri5"), or NULL. */
const lgc_stepper_type *lgc_stepper_type_find(const char *name);

#ifdef __cplusplus
}
#endif

#endif
