/*
** lagrangec/monitor.h — what is reported at an output sample: constraint
** residuals, energy, multipliers, and their running extremes over the
** samples and, through lgc_monitor_track, over every accepted step.
*/
#ifndef LAGRANGEC_MONITOR_H
#define LAGRANGEC_MONITOR_H

#include "lagrangec/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lgc_sample {
    double t;
    double *x;          /* nx: state */
    double *phi;        /* nh */
    double *phi_dot;    /* nh */
    double *g;          /* nn */
    double *mult;       /* nh + nn: [lambda; mu] */
    double *fc;         /* nq: generalised constraint force A^T lambda + B^T mu */
    double energy;      /* the model's integral_value: T + V, or h (its Jacobi integral) */
    double *out;        /* model->nout: the spec's [outputs] */
    double *mode;       /* model->nfriction: 0 sticking; sliding +1, or -1 (planar, slipping backwards) */
} lgc_sample;

typedef struct lgc_monitor {
    lgc_sample s;           /* the last sample */
    double *dxdt;           /* scratch for the multiplier evaluation */
    double *jac;            /* scratch for C = [A; B], (nh + nn) x nq */
    double *res;            /* scratch for tracked residuals, 2 nh + nn */
    unsigned long count;    /* samples taken */
    unsigned long tracked;  /* states seen by lgc_monitor_track */
    double energy0;         /* energy (T + V, or h) at the first state seen */
    double max_phi, max_phi_dot, max_g;
    double *max_residual;   /* 2 nh + nn: max |r_i| of each row of [phi; phi'; g] (0 for a contact off) */
    double *min_contact_phi;    /* ncontact: each contact's smallest phi, on or off (below 0: inside) */
    double *normal, *normal_rate;   /* friction's normal forces: scratch */
    double max_energy_drift;    /* max |E - E0| / |E0| (absolute if E0 = 0) */
    double *out_min, *out_max;  /* model->nout: each output's extremes over the samples */
    double *min_norm;       /* with redundant rows: scratch of the minimum-norm multipliers, else NULL */
    int forces;             /* samples evaluate s.mult and s.fc (lgc_monitor_init: 1); 0 where nothing reads
                               them: s.mult, s.fc left as they were, unless the model's outputs need them */
    double *track_x;        /* nx: with forces 0, the state lgc_monitor_track last folded in, */
    double track_t, track_energy;   /* its time (NAN once a sample took that state) and energy (its
                                       residuals in res) */
    int quiet_rows;         /* 2 nh + nn once a first state is folded in, for a step's short fold (no contact,
                               no row that may be off); -1: not (yet) */
    double energy_scale;    /* |E0|, or 1 where E0 = 0: the drift's divisor */
    double *block;          /* the one allocation s.x, res, track_x... lie in (a sample at the tracked
                               state exchanges s.x with track_x and s.phi with res) */
} lgc_monitor;

int lgc_monitor_init(lgc_monitor *mon, const lgc_model *model);
void lgc_monitor_free(lgc_monitor *mon);

/* Forget every sample and extreme, as lgc_monitor_init left it; no allocation. */
void lgc_monitor_reset(lgc_monitor *mon, const lgc_model *model);

/*
** Evaluate everything at (t, x) into mon->s and update the extremes.
** s.fc = C^T [lambda; mu] with C the model's constraint_jacobian; s.out
** the model's outputs, from the same multipliers: with mon->forces 0 and no
** outputs, neither is evaluated (no rhs: a sample costs its residuals and
** energy, and nothing more where it is the state lgc_monitor_track last
** folded in, as a fixed step's sample is). With redundant rows
** (model->nredundant) the multipliers are the minimum-norm ones giving that
** fc: rhs's (0 on those rows) projected onto the range of C. For a
** vakonomic model mu is the state mu, and the force of the constraints has
** further terms (mu' B, mu (B' - dg/dq)) that fc leaves out. s.x and
** s.phi (s.phi_dot, s.g after it) may lie elsewhere in the monitor's block
** from one sample to the next: read them through mon->s, keep no copy of
** the pointers.
*/
int lgc_monitor_sample(lgc_monitor *mon, lgc_system *sys, double t,
                       const double x[]);

/*
** Fold the residuals and energy at (t, x) into the extremes only: no
** multipliers, no rhs evaluation, mon->s untouched. For an observer of every
** accepted step (lgc_driver_observe); never allocates.
*/
int lgc_monitor_track(lgc_monitor *mon, const lgc_system *sys, double t,
                      const double x[]);

#ifdef __cplusplus
}
#endif

#endif
