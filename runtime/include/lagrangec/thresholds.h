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
/*
** The same three in a model generated in float (--real float), where
** round-off alone leaves pivots and eigenvalues ~1e-7 of the largest, above
** the values for double: dependent rows would be solved as independent ones.
** Each keeps as many of float's digits as its double value keeps of
** double's, t^(log FLT_EPSILON / log DBL_EPSILON) rounded (1.8e-6, 2.9e-4,
** 3.8e-5): a rows pivot of 3e-4 is, like 1e-8 in double, about half the
** digits.
*/
#define LGC_MASS_PIVOT_FLOAT 2e-6
#define LGC_ROWS_PIVOT_FLOAT 3e-4
#define LGC_EIGEN_FLOOR_FLOAT 4e-5
/* A Gauss–Newton step on an old factor must cut |phi| by this factor, or the next one refactors. */
#define LGC_FACTOR_REUSE 0.25
/* The position correction's default: |phi| it stops at, and its iteration limit. */
#define LGC_CORRECTION_TOL 1e-13
#define LGC_CORRECTION_MAX_ITER 20

#endif
