/*
** lagrangec/system.h — a model bound to parameter, input and Baumgarte values.
** The system owns copies of p and u and the model's rhs scratch, all sized
** from the descriptor once; evaluating it never allocates.
*/
#ifndef LAGRANGEC_SYSTEM_H
#define LAGRANGEC_SYSTEM_H

#include "lagrangec/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lgc_system {
    const lgc_model *model;
    double *p;              /* np parameters, starts at model defaults */
    double *u;              /* nu inputs, starts at model defaults */
    double alpha, beta;     /* Baumgarte gains passed to model->rhs */
    double *work;           /* model->nwork doubles of rhs scratch */
    double *kkt_work;       /* LAPACK solve's scratch when it replaces the model's, else NULL */
    /*
    ** nh + nn, for a model with contacts (else NULL): 1 where a row holds,
    ** 0 for a contact apart, whose row the rhs, the correction and the
    ** residual checks leave out. Every other row is 1. Set by whoever
    ** steps the model (the driver: at a start, a release and an impact).
    */
    unsigned char *active;
    /*
    ** For a model with friction (else NULL): 4 nfriction doubles. First
    ** each contact's slip direction while it slides (2 each: d, unit, its
    ** force -mu_k N d; a planar contact's second 0), 0, 0 while it sticks;
    ** its slip rows are off in `active` while it slides. Then mu_static,
    ** mu_kinetic (nfriction each) at p. Set by whoever steps the model.
    */
    double *slide;
    unsigned long nfev;     /* rhs evaluations so far */
    unsigned long nfev_min_norm;    /* ... of them solved by the minimum-norm fallback */
} lgc_system;

/*
** Allocates p, u, work; gains from model->alpha/beta. When the model's own
** KKT solve is the dense-loop one and it has at least LGC_LAPACK_MIN_NQ
** coordinates, or when it has contacts (whose rows come and go),
** lgc_system_rhs solves with LAPACK instead, and init allocates that
** solve's scratch too.
*/
int lgc_system_init(lgc_system *sys, const lgc_model *model);
void lgc_system_free(lgc_system *sys);

/*
** From this many coordinates LAPACK (OpenBLAS, 1 thread) beats the generated
** dense-loop solve: at 24 with 12 rows 4.4 vs 5.5 us, at 22 the loops still
** win. BENCHMARKS.md, "Large systems", measured by
** `OPENBLAS_NUM_THREADS=1 /usr/bin/python3 -B tests/bench/kkt_bench.py BUILD_DIR`.
** Straight-line solves are always kept: for sparse models they are far faster.
*/
#define LGC_LAPACK_MIN_NQ 24

/* 1 when lgc_system_rhs solves the KKT system with LAPACK, not the model's rhs. */
int lgc_system_uses_lapack(const lgc_system *sys);

/*
** dxdt = f(t, x); multipliers (nh+nn, may be NULL) are the constraint forces.
** Maps the model's codes to lgc_status and rejects non-finite derivatives.
*/
int lgc_system_rhs(lgc_system *sys, double t, const double x[], double dxdt[],
                   double multipliers[]);

/*
** The conditioning of S = J M^-1 J^T at the last lgc_system_rhs: its
** smallest over its largest squared pivot (or eigenvalue, where the
** minimum-norm solve made it), rows the generator found redundant left
** out; near 0 where the constraint Jacobian nearly loses rank. 1 without
** constraints.
*/
double lgc_system_conditioning(const lgc_system *sys);

/*
** Where the last lgc_system_rhs lost rank: the part of the constraint rows'
** right side no acceleration meets, relative to its size; 0 elsewhere.
** Beyond LGC_INCONSISTENT_RANK at a state on the constraints, they ask for
** a motion the mechanism cannot make (the driver's LGC_ERR_RANK_LOST).
*/
double lgc_system_inconsistency(const lgc_system *sys);
#define LGC_INCONSISTENT_RANK 1e-6

/*
** Auto Baumgarte rule: place both roots of s^2 + alpha s + beta at -kappa/h
** (critical damping), i.e. alpha = 2 kappa/h, beta = (kappa/h)^2, with
** kappa = 0.02: a constraint error decays by e^-kappa per step. Derivation
** and measurements: runtime/README.md.
*/
#define LGC_BAUMGARTE_KAPPA 0.02
void lgc_baumgarte_auto(double h, double *alpha, double *beta);

/*
** How close to 0 a contact's phi is touching at x: 1e-10 relative to the
** state's largest entry (at least 1), as the start's check of the rows.
*/
double lgc_contact_tolerance(const lgc_model *m, const double x[]);
/*
** The contacts touching at (t, x) on (phi within lgc_contact_tolerance),
** the others off: a start's active set.
*/
void lgc_contacts_touching(lgc_system *sys, double t, const double x[], double phi[]);
/*
** The modes at (t, x) as a run starts there (lgc_driver_reset's): the
** contacts touching on, the others off; a friction contact whose slip is 0
** sticks if the friction that needs is inside its cone, else slides against
** it, and one slipping slides (x's slip integrals reset where one sticks).
** For a caller that evaluates the model at a state (eval); allocates its
** scratch. LGC_ERR_FRICTION_COEFFICIENT, LGC_ERR_FRICTION, or an rhs's fault.
*/
int lgc_system_start_modes(lgc_system *sys, double t, double x[]);

/* 1 when row i (of [phi; phi'; g], 2 nh + nn) is a contact's that is off, or a sliding contact's slip. */
int lgc_row_off(const lgc_system *sys, int i);

/* 1 when friction contact k slides (slide as lgc_system's). */
static inline int lgc_sliding(const double slide[], int k)
{
    return slide[2 * k] != 0.0 || slide[2 * k + 1] != 0.0;
}

/* The lgc_status for a return code of a model's rhs or jacobian. */
int lgc_model_status(int model_rc);

/* Index of a name in a list of n names, or -1. */
int lgc_name_index(const char *const *names, int n, const char *name);

#ifdef __cplusplus
}
#endif

#endif
