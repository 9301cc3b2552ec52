/*
** thresholds.h — the numerical thresholds the runtime's solves and the
** generated code's share. The generator includes this header and prints
** its literals from these numbers, so a model's NAME_rhs and NAME_step and
** the runtime decide alike.
*/
#ifndef LAGRANGEC_THRESHOLDS_H
#define LAGRANGEC_THRESHOLDS_H

/* A Cholesky pivot of the mass matrix keeping no more than this fraction of its diagonal entry: M is singular. */
#define LGC_MASS_PIVOT 1e-13
/*
** ... of S = J M^-1 J^T, or of the correction's normal equations: the rows
** are dependent, or nearly, and the minimum-norm solve takes over.
*/
#define LGC_ROWS_PIVOT 1e-8
/* The minimum-norm solve drops S's eigenvalues not above this fraction of the largest. */
#define LGC_EIGEN_FLOOR 1e-10
/* A Gauss–Newton step on an old factor must cut |phi| by this factor, or the next one refactors. */
#define LGC_FACTOR_REUSE 0.25
/* The position correction's default: |phi| it stops at, and its iteration limit. */
#define LGC_CORRECTION_TOL 1e-13
#define LGC_CORRECTION_MAX_ITER 20

#endif
