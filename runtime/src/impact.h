/*
** impact.h — a contact's impact: Newton's law in the mass metric, and
** whether the bodies bounce or stay together; private to the runtime
** (driver.c).
*/
#ifndef LAGRANGEC_IMPACT_H
#define LAGRANGEC_IMPACT_H

#include "lagrangec/system.h"

typedef struct lgc_impact {
    double *M, *C, *y, *dxdt;   /* M (nq x nq), C (nc x nq), M^-1 J^T, rhs scratch */
    double *res, *f;            /* phi, phi', g; kkt_terms' f, r, g */
} lgc_impact;

/* Scratch for sys->model's impacts; none without contacts (LGC_OK). */
int lgc_impact_init(lgc_impact *im, const lgc_model *m);
void lgc_impact_free(lgc_impact *im);

/*
** Contact row `row` hits at (t, x), its phi reaching 0 from above:
** v+ = v- - (1 + e) M^-1 J^T (J M^-1 J^T)^-1 J v- (e the model's
** restitution, J the row of C), into x. A rebound slower than v_rest, or
** one too short for a step of h (rk4; 0 for adaptive methods) to see
** (e |J v-| <= -phi'' h, phi'' with the row off), ends in contact: e = 0
** then, and the row is switched on. A row that is not closing (J v- >= 0),
** or closes slower than v_rest while phi'' >= 0 (a graze it moves away
** from, as just after letting go), gets no impulse and stays off.
** *bounced: 1 when an impulse left the row off (a rebound). Never
** allocates.
*/
int lgc_impact_apply(lgc_impact *im, lgc_system *sys, double t, double x[], int row,
                     double v_rest, double h, int *bounced);

#endif
