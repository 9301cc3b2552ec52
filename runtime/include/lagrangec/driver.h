/*
** lagrangec/driver.h — integrates a system to requested times.
** Combines a stepper, error control (adaptive one-step types) and the
** one-step correction; a method that steps itself (CVODE) brings its own
** error control and corrects inside its steps. The steps are the stepper's
** own (a fixed step is the step asked for); a requested time between two
** steps gets the step's interpolant, corrected like the steps. All memory is allocated by
** lgc_driver_alloc; lgc_driver_advance never allocates.
*/
#ifndef LAGRANGEC_DRIVER_H
#define LAGRANGEC_DRIVER_H

#include "lagrangec/project.h"
#include "lagrangec/stepper.h"
#include "lagrangec/thresholds.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
** No run spins at an instant: LGC_ACCUMULATION_SWITCHES contact switches
** (impacts, releases) within LGC_ACCUMULATION_SPAN max(1, |t|) of time
** end it with LGC_ERR_ACCUMULATION. The rest rules (lgc_driver_advance)
** end a geometric sequence of bounces long before: this bound is for what
** they do not foresee. Steps that do not advance t end a run too
** (LGC_ERR_STEP_UNDERFLOW), for every stepper; so a run's events are
** bounded by its steps and these switches.
*/
#define LGC_ACCUMULATION_SWITCHES 256
#define LGC_ACCUMULATION_SPAN 1e-6
/* A fixed step that would end within this fraction of h before t_stop ends on t_stop. */
#define LGC_FIXED_STEP_STRETCH 1e-9

typedef struct lgc_driver_options {
    const lgc_stepper_type *type;
    double h;               /* rk4: the step; adaptive methods: the first step, 0 = estimate */
    double rtol, atol;      /* adaptive methods' error control */
    lgc_project_mode project;
    lgc_metric metric;
    double project_tol;     /* largest |phi| the position correction accepts */
    int project_max_iter;
    /*
    ** No step goes past t_stop: the step that would is shortened to end on
    ** it (a fixed step within LGC_FIXED_STEP_STRETCH h of it is stretched
    ** instead), and no time after it can be requested. INFINITY: no such
    ** bound.
    */
    double t_stop;
    /*
    ** No step is longer than this: dopri5's controller holds its steps to
    ** it (a first step h longer than it is shortened to it), CVODE's adams
    ** and bdf through CVodeSetMaxStep; rk4's fixed step h may not be longer
    ** (lgc_driver_alloc fails). An event that crosses and crosses back
    ** within one step shows no sign change at the step's ends and is not
    ** seen: a bound shorter than the shortest such excursion sees it.
    ** INFINITY: no bound.
    */
    double max_step;
    /*
    ** dopri5 through singular instants (the constraint Jacobian losing rank
    ** at an instant): below this fraction of its largest value, S's
    ** conditioning arms a guard that, after a rejected step, holds the steps
    ** to a quarter of those before and takes them (runtime/src/singular_guard.c).
    ** 0: off.
    */
    double singular_guard;
} lgc_driver_options;

/* The numbers of the defaults below, which simulate's --help prints. */
#define LGC_DEFAULT_RTOL 1e-8
#define LGC_DEFAULT_ATOL 1e-10
#define LGC_DEFAULT_PROJECT_TOL LGC_CORRECTION_TOL
#define LGC_DEFAULT_PROJECT_MAX_ITER LGC_CORRECTION_MAX_ITER
#define LGC_DEFAULT_SINGULAR_GUARD 1e-2

/*
** The defaults, and `lagrangec simulate`'s (runtime/programs take theirs
** from here): dopri5 from a first step it estimates (h = 0), rtol = 1e-8,
** atol = 1e-10; the full correction (positions, then velocities) in the
** identity metric, to |phi| <= LGC_CORRECTION_TOL in at most
** LGC_CORRECTION_MAX_ITER iterations (thresholds.h; nothing to
** correct in an unconstrained model); no t_stop; no maximum step; the
** singular-instant guard at 1e-2. For rk4 set type and h (simulate's --dt).
*/
void lgc_driver_options_default(lgc_driver_options *opt);

typedef struct lgc_stats {
    unsigned long steps;        /* accepted steps */
    unsigned long rejected;     /* steps rejected by the error test (adaptive) */
    unsigned long nfev;         /* rhs evaluations by the integrator */
    unsigned long proj_iter;    /* Gauss–Newton position iterations, total */
    double h_min, h_max;        /* smallest and largest accepted step (0 before one) */
    /* Implicit methods (bdf, adams); 0 for the others: */
    unsigned long njev;         /* Jacobian evaluations */
    unsigned long newton_iters; /* Newton iterations */
    unsigned long convergence_fails;    /* steps retried after Newton failed to converge */
    unsigned long contact_switches;     /* contacts let go or hit (each a fresh start) */
    /* dopri5's singular-instant guard: */
    unsigned long singular_passed;      /* singular instants passed */
    unsigned long guarded_steps;        /* steps it took against the error test */
} lgc_stats;

typedef struct lgc_driver lgc_driver;

/* NULL on bad options or no memory. sys must outlive the driver. */
lgc_driver *lgc_driver_alloc(lgc_system *sys, const lgc_driver_options *opt);
void lgc_driver_free(lgc_driver *d);

/*
** Start at (t0, x0): projects x0 onto the constraints when projection is on,
** and, for dopri5 with h = 0, estimates the first step (bdf and adams: CVODE
** estimates its own). Fixed steps end at t0 + k h. The contacts'
** restitution is read from the system's parameters here
** (LGC_ERR_RESTITUTION where one is outside [0, 1]).
*/
int lgc_driver_reset(lgc_driver *d, double t0, const double x0[]);

/*
** Integrate to t1 and put the state at t1 in x: the last step's end, or its
** interpolant when t1 falls inside it. t1 may lie back to the start of the
** last step taken, and not past t_stop (LGC_ERR_ARG).
*/
int lgc_driver_advance(lgc_driver *d, double t1, double x[]);

/*
** Have fn(ctx, t, x) see every accepted step's state (after the correction)
** before the driver takes it, but for a step inside which a contact
** switches (the run goes on from the switch, not from that state); a
** status other than LGC_OK from fn ends the advance with that status at
** the previous state. fn = NULL: no observer.
*/
typedef int (*lgc_step_observer)(void *ctx, double t, const double x[]);
void lgc_driver_observe(lgc_driver *d, lgc_step_observer fn, void *ctx);

/*
** The model's events (its [events]) are located in every accepted step, on
** the step's interpolant, to the round-off of t: fn(ctx, event, t, x) sees
** each, in time order, x corrected like a sample; a status other than
** LGC_OK from it ends the advance. An event whose action is stop ends the
** run at its time: no step is taken after it, and a requested time past it
** gets the state at it (lgc_driver_stop_time says when). fn = NULL: the
** events are still located (a stop still stops), and nobody is told.
*/
typedef int (*lgc_event_observer)(void *ctx, int event, double t, const double x[]);
void lgc_driver_observe_events(lgc_driver *d, lgc_event_observer fn, void *ctx);
/*
** A model's contacts (lgc_model's ncontact) are watched the same way: when
** one in contact lets go (its multiplier falls through 0) or one apart
** hits (its phi falls through 0), the step ends there, the contact
** switches (an impact by Newton's law, lgc_model's restitution; a rebound
** too slow for the tolerances, or for a fixed step, ends in contact) and
** the method starts afresh. fn sees it as event nevent + 2 c (contact c
** let go) or nevent + 2 c + 1 (it hit), with the state after.
*/

/* The time of the event that stopped the run, or NAN. */
double lgc_driver_stop_time(const lgc_driver *d);

/* Time of the last good internal state (where a fault was detected). */
double lgc_driver_time(const lgc_driver *d);
/* The step size the next step will try. */
double lgc_driver_step_size(const lgc_driver *d);
void lgc_driver_stats(const lgc_driver *d, lgc_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
