/*
** singular_guard.h — the adaptive steppers' guard at singular instants
** (singular_guard.c); private to the runtime.
*/
#ifndef LAGRANGEC_SINGULAR_GUARD_H
#define LAGRANGEC_SINGULAR_GUARD_H

enum { LGC_GUARD_HISTORY = 8 };

typedef struct lgc_singular_guard {
    double tau;             /* arm below tau times the largest conditioning; 0: off */
    double rho_max;         /* largest conditioning at an accepted state */
    double recent[LGC_GUARD_HISTORY];   /* the last accepted steps, a ring */
    int n_recent;
    int armed, fired;
    double floor;           /* armed: the step the guard holds to once fired */
    unsigned long passed;   /* singular instants left behind */
    unsigned long guarded;  /* steps accepted at the floor against the error test */
} lgc_singular_guard;

void lgc_guard_reset(lgc_singular_guard *g, double tau);
/* An accepted step of size h, ending where S's conditioning is rho. */
void lgc_guard_accepted(lgc_singular_guard *g, double h, double rho);
/* A step rejected by the error test. */
void lgc_guard_rejected(lgc_singular_guard *g);
/* The next step to try, given the controller's. */
double lgc_guard_next_h(const lgc_singular_guard *g, double h);
/* Whether a step of h that failed the error test is taken all the same. */
int lgc_guard_takes(const lgc_singular_guard *g, double h);

#endif
