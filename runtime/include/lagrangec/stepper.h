/*
** lagrangec/stepper.h — the integration methods: one Runge–Kutta step of an
** lgc_system and the step's interpolant, or a method that chooses its own
** steps (CVODE's BDF and Adams).
** A stepper type is a const table of functions (GSL odeiv2 style); a stepper
** holds the method's memory, allocated once for the system it is made for.
*/
#ifndef LAGRANGEC_STEPPER_H
#define LAGRANGEC_STEPPER_H

#include <stddef.h>
#include "lagrangec/project.h"
#include "lagrangec/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
** What a stepper is made for. One-step methods read the system's size only;
** a method that steps itself also takes the rest: it controls its own error
** and applies the correction inside its steps.
*/
typedef struct lgc_stepper_setup {
    lgc_system *sys;
    double rtol, atol;
    double h0;              /* first step; 0: the method's own estimate */
    double t_stop;          /* no step past it; INFINITY: no bound */
    double max_step;        /* no step longer; INFINITY: no bound */
    lgc_project_mode project;   /* the correction after each step */
    lgc_metric metric;
    double project_tol;     /* as lgc_projector_alloc's */
    int project_max_iter;
} lgc_stepper_setup;

/* What a method that steps itself counts beyond steps and rhs evaluations. */
typedef struct lgc_method_stats {
    unsigned long jacobian_evals;   /* the model's Jacobian (or CVODE's difference quotients) */
    unsigned long newton_iters;     /* nonlinear (Newton) iterations */
    unsigned long error_test_fails; /* steps retried after the error test */
    unsigned long convergence_fails;/* steps retried after Newton failed */
    unsigned long proj_iter;        /* Gauss–Newton position iterations of its corrections */
} lgc_method_stats;

typedef struct lgc_stepper_type {
    const char *name;
    int order;          /* order of the propagated solution (the highest, if it varies) */
    int adaptive;       /* error control by rtol/atol */
    /*
    ** 1: through a singular configuration the method may leave the motion's
    ** branch, its step control resolving the instant with no guard to hold
    ** it (measured: CVODE's adams on IFToMM A02 and A04, its bdf on A02 with
    ** N = 40), so the driver stops it there with LGC_ERR_SINGULAR_METHOD
    ** rather than go on, wrong.
    */
    int leaves_branch;
    /* The method's memory for s->sys (and, for methods that step themselves, s); NULL: none. */
    void *(*alloc)(const lgc_stepper_setup *s);
    void (*free)(void *state);
    /* x(t0 + theta (t1 - t0)), 0 <= theta <= 1, within the last step [t0, t1]. */
    void (*dense)(const void *state, double theta, double xout[]);

    /* ---- one-step methods (rk4, dopri5); NULL for a method that steps itself ---- */

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

    /* ---- methods that step themselves (bdf, adams); NULL for one-step methods ---- */

    /* Start at (t0, x0), x0 on the constraints; forgets any history. */
    int (*start)(void *state, double t0, const double x0[]);
    /*
    ** One step of the method's choosing, corrected, never past t_stop: its
    ** end time into *t1 and the state there into x1. `toward` is a time
    ** ahead the caller wants to reach; it bounds the first step after a start.
    */
    int (*step)(void *state, double toward, double *t1, double x1[]);
    /* Its counters since the last start. */
    void (*stats)(const void *state, lgc_method_stats *st);
} lgc_stepper_type;

extern const lgc_stepper_type *const lgc_step_rk4;
extern const lgc_stepper_type *const lgc_step_dopri5;
/* CVODE (SUNDIALS): variable-order BDF (orders 1-5) and Adams-Moulton (1-12), Newton iterations;
   in a runtime built with SUNDIALS only (meson's -Dsundials; the tests require it) */
extern const lgc_stepper_type *const lgc_step_bdf;
extern const lgc_stepper_type *const lgc_step_adams;

/* The stepper type called `name` ("rk4", "dopri5", "bdf", "adams"), or NULL (bdf and adams in a
   runtime built without SUNDIALS too). */
const lgc_stepper_type *lgc_stepper_type_find(const char *name);

#ifdef __cplusplus
}
#endif

#endif
