/*
** lagrangec/initial.h — an initial state against the constraints: the
** check, and the completion of a state given in part.
*/
#ifndef LAGRANGEC_INITIAL_H
#define LAGRANGEC_INITIAL_H

#include "lagrangec/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A start is on the constraints when |phi|, |phi'|, |g| <= TOL max(1, |q, q'|inf). */
#define LGC_INITIAL_TOL 1e-10

/*
** LGC_OK when every row of [phi; phi'; g] at (t, x) is within
** tol max(1, |q, q'|inf); else LGC_ERR_INCONSISTENT with the worst row
** (0-based, in that order) in *row and its residual in *residual.
*/
int lgc_state_check(const lgc_system *sys, double t, const double x[], double tol,
                    int *row, double *residual);

/* A row of [phi; phi'; g] that only fixed entries enter and that does not hold. */
typedef struct lgc_unmet {
    int row;            /* 0-based, in lgc_state_check's order */
    double residual;
} lgc_unmet;

/*
** Puts x on the constraints at time t changing only the coordinates and
** velocities i (< 2 nq) with fixed[i] == 0: Gauss–Newton on phi over the
** free coordinates, each step the smallest change that zeroes the
** linearised rows, until |phi| reaches its round-off; then one smallest
** change of the free velocities that zeroes [phi'; g] (linear in q').
** A row no free entry enters (its Jacobian there 0 at the start) is
** checked at lgc_state_check's tolerance, not solved for.
** LGC_OK; LGC_ERR_INCONSISTENT with such a row in *unmet when it does not
** hold; LGC_ERR_RANK_LOST when the free coordinates or velocities cannot
** satisfy the other rows (too many were fixed, or a singular
** configuration); LGC_ERR_PROJECTION when the iteration does not
** converge; LGC_ERR_NOMEM. For a start, not a step: it allocates its
** workspace.
*/
int lgc_state_complete(const lgc_system *sys, double t, double x[],
                       const unsigned char fixed[], lgc_unmet *unmet);

#ifdef __cplusplus
}
#endif

#endif
