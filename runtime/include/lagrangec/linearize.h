/*
** lagrangec/linearize.h — the linear model of a constrained system about an
** operating point, in independent coordinates and speeds (the dependent ones
** eliminated through the constraints), as SymPy's Linearizer computes it.
** The mathematics is in runtime/README.md, "Linearisation".
*/
#ifndef LAGRANGEC_LINEARIZE_H
#define LAGRANGEC_LINEARIZE_H

#include "lagrangec/model.h"
#include "lagrangec/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A point is on the constraints when |phi|, |phi'|, |g| <= TOL max(1, |q, q'|inf). */
#define LGC_LINEARIZE_TOL 1e-8

typedef struct lgc_linearize_work lgc_linearize_work;

typedef struct lgc_linearization {
    const lgc_model *model;
    int nqi, nvi;           /* independent coordinates nq - nh, speeds nq - nh - nn */
    int n, nu;              /* n = nqi + nvi states of the linear model; inputs */
    int *q_ind, *q_dep;     /* coordinate indices, nqi and nh, each ascending */
    int *v_ind, *v_dep;     /* speeds by coordinate index, nvi and nh + nn */
    double *A;              /* n x n, row-major: y' = A y + B du, y = [dq_ind; dv_ind] */
    double *B;              /* n x nu, row-major */
    double *eig_re, *eig_im;    /* n eigenvalues of A, largest real part first */
    double max_accel;       /* max |q''| at the point: 0 at an equilibrium or steady motion */
    int bad_row;            /* after LGC_ERR_INCONSISTENT: the worst row of [phi; phi'; g] */
    double bad_residual;    /* ... and its value */
    lgc_linearize_work *w;  /* workspace, allocated once by init */
} lgc_linearization;

/* Allocates everything lgc_linearize needs; LGC_ERR_ARG for a vakonomic model or one without Jacobians. */
int lgc_linearization_init(lgc_linearization *lin, const lgc_model *model);
void lgc_linearization_free(lgc_linearization *lin);

/*
** Linearises sys (its p and u; the Baumgarte gains play no part) about
** (t, x). q_ind (nqi coordinate indices) and v_ind (nvi) choose the
** independent coordinates and speeds; NULL lets column-pivoted QR choose
** (dependent speeds: the dependent coordinates' speeds and nn more).
** Returns LGC_OK; LGC_ERR_INCONSISTENT if x violates a constraint
** (bad_row, bad_residual say which); LGC_ERR_RANK_LOST if the dependent
** coordinates or speeds cannot be solved for; LGC_ERR_ARG for a bad choice.
** Allocates nothing itself (LAPACK gets the workspace init sized).
*/
int lgc_linearize(lgc_linearization *lin, const lgc_system *sys, double t,
                  const double x[], const int q_ind[], const int v_ind[]);

#ifdef __cplusplus
}
#endif

#endif
