/*
** impact.h — an impact on the contacts: Newton's law on every row that
** closes or holds, impulses that only push; private to the runtime
** (driver.c).
*/
#ifndef LAGRANGEC_IMPACT_H
#define LAGRANGEC_IMPACT_H

#include "lagrangec/system.h"
#include "lcp.h"

/* What an impact did to each contact. */
enum lgc_impact_outcome {
    LGC_CONTACT_UNCHANGED = 0,
    LGC_CONTACT_BOUNCED,    /* off, it took an impulse and stays off (a rebound) */
    LGC_CONTACT_RESTS,      /* off, it took an impulse and is on now */
    LGC_CONTACT_CLEARS,     /* off, closing at phi = 0, another's impulse turned it: off, moving away */
    LGC_CONTACT_RELEASED,   /* on, the impact pulls it away: off */
};

typedef struct lgc_impact {
    double *M, *C, *Y, *W;      /* M (nq x nq), C (nc x nq), M^-1 C^T (nc x nq by rows), C M^-1 C^T */
    double *res, *dxdt, *f;     /* phi, phi', g; rhs scratch; kkt_terms' f, r, g */
    double *A, *q, *z, *e;      /* the LCP on the contacts; each one's restitution in it */
    double *WE, *Z;             /* the equality rows' block of W, factored; W_EE^-1 W_EK */
    double *impulse;            /* nc: each row's */
    double *restitution;        /* ncontact: each contact's, at the run's parameters */
    int *rows;                  /* nc: the contacts in the problem, then the equality rows */
    unsigned char *outcome;     /* ncontact: enum lgc_impact_outcome */
    unsigned char *slow;        /* ncontact: closing slower than the rest speed */
    lgc_lcp lcp;
} lgc_impact;

/* Scratch for sys->model's impacts; none without contacts (LGC_OK). */
int lgc_impact_init(lgc_impact *im, const lgc_model *m);
void lgc_impact_free(lgc_impact *im);

/*
** Each contact's restitution at sys->p, for the impacts of a run:
** LGC_ERR_RESTITUTION where one is not in [0, 1] (a parameter set so).
*/
int lgc_impact_coefficients(lgc_impact *im, const lgc_system *sys);

/*
** An impact at (t, x), contact `hit`'s phi located through 0: it, the
** contacts that are on, and those off whose phi is within phi_tol and
** closing (their rate of approach phi' = J v + dphi/dt below 0), take
** their impulses together, the other rows (always
** on) keep their rates. On contact i, with e_i its restitution, the rate
** after it is w_i - e_i phi'_i- >= 0 with w_i >= 0, impulse_i >= 0 and
** w_i impulse_i = 0: Newton's law where it pushes, a row that would pull
** is let go (a linear complementarity problem, lcp.h). A row that closes
** slower than v_rest, or whose rebound would be slower than v_rest or its
** flight shorter than h (e |phi'-| <= -phi'' h, phi'' with the row off),
** ends in contact: e_i =
** 0, and it is on after, pushed or not. One closing slower than v_rest
** (or not at all) while phi'' >= 0 (a graze it moves away from) is left
** out and clears. Velocities into x, rows into
** sys->active, what happened to each contact into im->outcome. Never
** allocates.
*/
int lgc_impact_apply(lgc_impact *im, lgc_system *sys, double t, double x[], int hit, double phi_tol,
                     double v_rest, double h);

#endif
