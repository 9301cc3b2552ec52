/*
** lagrangec/project.h — one-step constraint correction (6.416–6.418).
** Finds the smallest correction, in the metric W (identity or the mass
** matrix), that puts the state back on the constraints: positions first by
** Gauss–Newton (holonomic rows only), then velocities (all rows). The small
** solves are LAPACK's, with workspace sized once at setup.
*/
#ifndef LAGRANGEC_PROJECT_H
#define LAGRANGEC_PROJECT_H

#include "lagrangec/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lgc_project_mode {
    LGC_PROJECT_NONE = 0,
    LGC_PROJECT_VELOCITY = 1,
    LGC_PROJECT_FULL = 2
} lgc_project_mode;

typedef enum lgc_metric {
    LGC_METRIC_IDENTITY = 0,
    LGC_METRIC_MASS = 1
} lgc_metric;

typedef struct lgc_projector lgc_projector;

/*
** tol: largest |phi| accepted by the position iteration, which stops at
** phi's round-off anyway; 0: one iteration at least, then to round-off (a
** correction that is a smooth function of the state, as an implicit
** method's error test needs). max_iter: the iteration's limit.
*/
lgc_projector *lgc_projector_alloc(const lgc_model *model, lgc_project_mode mode,
                                   lgc_metric metric, double tol, int max_iter);
void lgc_projector_free(lgc_projector *pr);

/* 1 when lgc_project changes states: a mode other than none, and constraints to keep. */
int lgc_projector_active(const lgc_projector *pr);

/*
** Correct x in place at time t. Returns LGC_ERR_PROJECTION when the position
** iteration does not reach tol; *iterations (may be NULL) gets its count.
*/
int lgc_project(lgc_projector *pr, const lgc_system *sys, double t, double x[],
                int *iterations);

#ifdef __cplusplus
}
#endif

#endif
