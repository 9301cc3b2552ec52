/*
** friction.h — the modes of a model's Coulomb friction contacts: sticking
** (its slip rows held, their multipliers the friction force) and sliding
** (the rows dropped, -mu_k N d applied); the functions whose zeros switch
** them, and the switches. Private to the runtime (driver.c, events.c).
*/
#ifndef LAGRANGEC_FRICTION_H
#define LAGRANGEC_FRICTION_H

#include "lagrangec/system.h"

/* What a switch did to a contact, for the event log. */
enum lgc_friction_outcome {
    LGC_FRICTION_UNCHANGED = 0,
    LGC_FRICTION_SLIDES,    /* it sticks no longer: the friction it needs left the cone */
    LGC_FRICTION_STICKS     /* its slip reached 0 and the friction sticking needs is inside the cone */
};

typedef struct lgc_friction {
    double *dxdt, *mult;        /* rhs scratch */
    double *normal, *normal_rate;   /* friction_normal's */
    double *res;                /* phi, phi', g */
    double *M, *f, *J, *r, *g;  /* kkt_terms', for a slip's acceleration */
    /*
    ** nfriction: how far back through 0 a slip that has just broken away
    ** may go unseen (lgc_contact_tolerance), until it has moved clear: with
    ** mu_k = mu_s its slip starts at s' = 0, and round-off that turns it
    ** back at once is not a return to sticking.
    */
    double *margin;
    unsigned char *outcome;     /* nfriction: enum lgc_friction_outcome of the last switch */
} lgc_friction;

/* Scratch for sys->model's friction contacts; none without (LGC_OK). */
int lgc_friction_init(lgc_friction *fr, const lgc_model *m);
void lgc_friction_free(lgc_friction *fr);

/*
** Each contact's coefficients at sys->p: LGC_ERR_FRICTION_COEFFICIENT
** where one is negative or the kinetic above the static.
*/
int lgc_friction_coefficients(lgc_system *sys);

/*
** Every contact's mode at (t, x), as a run starts or after an impact: one
** whose slip is below tol settles (lgc_friction_settle), one sliding
** slides along its slip. Modes into sys, slip integrals of the rows that
** stick reset in x.
*/
int lgc_friction_start(lgc_friction *fr, lgc_system *sys, double t, double x[], double tol);

/*
** Every mode at (t, x) as a run starts there: the contacts touching on,
** the others off (res: 2 nh + nn doubles of scratch), the coefficients at
** sys->p checked, then lgc_friction_start.
*/
int lgc_friction_start_run(lgc_friction *fr, lgc_system *sys, double t, double x[], double res[]);

/*
** Contact k's slip is 0 at (t, x): it sticks where the friction sticking
** needs, |lambda_t| <= mu_s N, is inside the cone, else slides against that
** friction (the way the forces push it, reversed or not).
*/
int lgc_friction_settle(lgc_friction *fr, lgc_system *sys, int k, double t, double x[]);

/*
** Contact k, sticking, slides from (t, x): against the friction it needs
** there, if its slip then grows that way; else (a normal force that the
** sliding changes) the other way, for a planar contact; else no mode is
** consistent: LGC_ERR_FRICTION.
*/
int lgc_friction_break(lgc_friction *fr, lgc_system *sys, int k, double t, double x[]);

/*
** The functions whose fall through 0 switches each contact, at (t, x) with
** the multipliers rhs gives there: sticking, mu_s N - |lambda_t|; sliding,
** the slip along its direction d (s . d, plus its margin; a spatial
** contact's d is its slip's at the step's start, lgc_friction_reference).
*/
void lgc_friction_indicators(lgc_friction *fr, const lgc_system *sys, double t, const double x[],
                             const double mult[], double out[]);

/*
** A spatial contact's direction while it slides: its slip's, s/|s|, taken
** at the start of each step (t, x), in sys->slide. Within the step the
** force is along s/|s| while s . d > 0 and along d beyond, so that a slip
** passing through 0 inside a step is a crossing of s . d, located, not a
** flip of the force that the step would straddle.
*/
void lgc_friction_reference(lgc_friction *fr, lgc_system *sys, double t, const double x[]);

/*
** Sliding contact k's direction d, its force -mu_k N d, at the
** nonholonomic residuals g (nn): the one `slide` holds; a spatial
** contact's slip s/|s| while s . d > 0 (lgc_friction_reference).
*/
void lgc_friction_direction(const lgc_model *m, const double slide[], int k, const double g[], double d[2]);

/*
** Each sliding contact's friction force, -mu_k N d, into its slip rows'
** multipliers (rhs leaves them 0), from those of the other rows: mult
** then holds the friction force of every contact, sticking or sliding.
** g: the nonholonomic residuals at (t, x); normal, normal_rate: scratch
** of nfriction and nfriction (nh + nn) doubles.
*/
void lgc_friction_sliding_forces(const lgc_system *sys, double t, const double x[], const double g[],
                                 double mult[], double normal[], double normal_rate[]);

/*
** At a step's end, with the indicators there: a contact that has slid
** clear of its margin is watched at s . d = 0 again.
*/
void lgc_friction_clear(lgc_friction *fr, const lgc_system *sys, double indicators[]);

/* Each contact's mode: 0 sticking; sliding, +1 or -1 (a planar contact's slip sign), +1 spatial. */
double lgc_friction_mode(const lgc_system *sys, int k);

#endif
