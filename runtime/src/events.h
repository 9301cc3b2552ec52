/*
** events.h — locating a model's events (its [events], model->events) in a
** step, on the step's interpolant; private to the runtime (driver.c uses
** it, lagrangec/driver.h says what a caller sees).
*/
#ifndef LAGRANGEC_EVENTS_H
#define LAGRANGEC_EVENTS_H

#include "friction.h"
#include "lagrangec/driver.h"

/*
** The functions watched: the model's events, then one per contact: its
** multiplier while in contact (falling through 0: it lets go), its phi
** (plus its margin) while apart (falling through 0: an impact); then one
** per friction contact (lgc_friction_indicators: falling through 0, it
** switches).
*/
typedef struct lgc_events {
    lgc_system *sys;
    lgc_friction *friction;
    int n;                  /* model->nevent + model->ncontact + model->nfriction */
    double *g0, *g1;        /* the event functions at the step's start and end */
    double *t_hit;          /* where each crosses inside the step; NAN: nowhere */
    double *x;              /* a state on the interpolant */
    double *dxdt, *mult;    /* rhs scratch: the multipliers the functions read */
    double *g;              /* the functions at one interpolated state */
    double *res;            /* phi, phi', g: the contacts' phi */
    double *margin;         /* ncontact: how far inside its phi may go unseen (lgc_events_margin) */
} lgc_events;

/* Scratch for sys->model's events; a model without any needs none (LGC_OK). */
int lgc_events_init(lgc_events *ev, lgc_system *sys, lgc_friction *friction);
void lgc_events_free(lgc_events *ev);

/* The functions at the start of the run (t, x): where the first step's crossings are seen from. */
int lgc_events_start(lgc_events *ev, double t, const double x[]);

/*
** Contact c has just bounced off: it starts from above, whatever the
** round-off left its phi at (-1e-17), so that its next return to 0 is a
** crossing, even one inside the first step. Call after lgc_events_start.
*/
void lgc_events_rebound(lgc_events *ev, int c);

/*
** Friction contact k has just switched: it starts from above, whatever the
** round-off left its function at, so that only a true return is a switch.
** Call after lgc_events_start.
*/
void lgc_events_switched(lgc_events *ev, int k);

/*
** Contact c, off, is seen to hit only where phi falls through -margin, not
** 0, until it has moved more than margin away (a step ending with phi >
** margin sets it back to 0): after a release or a graze at phi = 0, the
** round-off of phi around 0 is not an impact. Call before
** lgc_events_start; 0 at the start of a run.
*/
void lgc_events_margin(lgc_events *ev, int c, double margin);

/*
** The functions at the end (t1, x1) of a step about to be taken, for
** lgc_events_step; *cut: 1 when a contact's crosses in the step, which
** then ends at the crossing (the run goes on from there, not from x1).
*/
int lgc_events_end(lgc_events *ev, double t1, const double x1[], int *cut);

/* x(t0 + theta (t1 - t0)) on the last step's interpolant. */
typedef void (*lgc_interpolant)(const void *ctx, double theta, double x[]);

/*
** The crossings, in their directions, in the step just taken from t0 to t1
** (the functions at its end from lgc_events_end): each located on the
** interpolant to the round-off of t and,
** in time order, handed to fn with its state (corrected by proj), up to the
** first that ends the step there: an event that stops the run, or a
** contact's (not handed to fn: the driver acts on it). That one's index
** (nevent + c for contact c) and time go to *halt and *t_halt (else -1,
** NAN). The end becomes the next step's start. Never allocates.
*/
int lgc_events_step(lgc_events *ev, double t0, double t1, lgc_interpolant dense, const void *dense_ctx, lgc_projector *proj,
                    lgc_event_observer fn, void *fn_ctx, int *halt, double *t_halt);

#endif
