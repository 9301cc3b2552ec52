/*
** lagrangec/model.h — the model descriptor.
** A generated NAME_model.c fills in one `lgc_model` for its system; the
** runtime reads nothing else about a model. The generated NAME.c itself does
** not include this header, so it stays standalone for embedding.
*/
#ifndef LAGRANGEC_MODEL_H
#define LAGRANGEC_MODEL_H

#ifdef __cplusplus
extern "C" {
#endif

/*
** Return codes of a model's rhs and jacobian: the one definition. The
** generator prints each generated header's NAME_OK, NAME_SINGULAR_MASS and
** NAME_SINGULAR_CONSTRAINTS from these values.
*/
enum lgc_model_status {
    LGC_MODEL_OK = 0,
    LGC_MODEL_SINGULAR_MASS = 1,        /* M(q, t) not positive definite */
    LGC_MODEL_SINGULAR_CONSTRAINTS = 2, /* J M^-1 J^T singular and the constraints
                                           ask for a motion they cannot make */
    /* Internal to the generated rhs (its fast solve handing over to the
       minimum-norm one); never returned. */
    LGC_MODEL_RANK_DEFICIENT = 3,
    /* The runtime's own solve with sliding friction: a sliding contact
       whose normal force cannot push (Painleve); never generated. */
    LGC_MODEL_FRICTION_INCONSISTENT = 4
};

/* The integral of the motion a model has (lgc_model's integral). */
enum lgc_integral {
    LGC_INTEGRAL_NONE = 0,
    LGC_INTEGRAL_ENERGY = 1,            /* T + V */
    LGC_INTEGRAL_JACOBI = 2             /* h = q'.dL/dq' - L */
};

/*
** State layout (grep tag: STATE-LAYOUT, the generator's gen/plan/plan.cpp):
**   x[0 .. nq)           coordinates q
**   x[nq .. 2nq)         velocities q'
**   x[2nq .. 2nq+nn)     integrals of the nonholonomic residuals, z = ∫g dt
**   x[2nq+nn .. nx)      vakonomic formulation only: the multipliers mu
** Constraint rows are ordered holonomic first, then nonholonomic:
**   C = [A; B] is (nh+nn) x nq, row-major; multipliers are [lambda; mu].
**
** A generated NAME_model.c sets every field by name. Lists of zero entries
** (no parameters, no inputs, no constraints) are NULL.
*/
typedef struct lgc_model {
    const char *name;                   /* the spec's `name` */
    const char *title;                  /* the spec's `title` */
    int nq;                             /* coordinates */
    int nh;                             /* holonomic constraints */
    int nn;                             /* nonholonomic constraints */
    int nx;                             /* state size: 2 nq + nn, + nn if vakonomic */
    int np;                             /* parameters */
    int nu;                             /* control inputs */
    int nwork;                          /* doubles of scratch rhs needs */
    const char *const *coordinate_names;    /* nq */
    const char *const *state_names;         /* nx: x, x', int_g1, (vakonomic) mu1 */
    const char *const *parameter_names;     /* np */
    const char *const *input_names;         /* nu */
    /* nh + nn, for messages: "holonomic constraint 1: x^2 + y^2 - l^2". */
    const char *const *constraint_labels;
    /* nh + nn, or NULL: each row's name in the CSV's phi[...], g[...],
       lambda[...], mu[...] ("rear.x" for a rolling wheel's row); NULL, or a
       written row: its number among the rows of its kind. */
    const char *const *constraint_columns;
    const double *parameter_defaults;       /* np */
    const double *input_defaults;           /* nu */
    const double *initial_state;            /* nx, at the parameter defaults */
    /* The spec's initial state at parameters p ([initial] values may be expressions of them). */
    void (*initial_state_at)(const double p[], double x[]);
    /* nx: 1 where the spec's [initial] tables give the value, 0 where it defaulted to 0. */
    const unsigned char *initial_given;
    double alpha, beta;                 /* the spec's Baumgarte defaults */
    /*
    ** The integral of the motion, as lagrangec generate derived it (NAME.md
    ** says why): LGC_INTEGRAL_ENERGY, T + V; LGC_INTEGRAL_JACOBI, the Jacobi
    ** integral h = q'.dL/dq' - L, where T is not homogeneous quadratic in q'
    ** (coordinates in a turning frame); LGC_INTEGRAL_NONE, integral_absent
    ** says why. With integral_needs_zero_inputs the forces are the inputs'
    ** only, and the integral holds while every input is 0.
    */
    int integral;
    int integral_needs_zero_inputs;
    const char *integral_absent;        /* why none, or NULL */
    int vakonomic;                      /* nonholonomic multipliers are states */

    /* dx/dt of the stabilised first-order system; multipliers may be NULL. */
    int (*rhs)(double t, const double x[], const double u[], const double p[],
               double alpha, double beta, double dxdt[], double multipliers[],
               double work[]);
    /* The KKT pieces rhs solves: M (lower triangle), f = Q - k, J, r, and g. */
    void (*kkt_terms)(double t, const double x[], const double u[], const double p[],
                      double alpha, double beta, double M[], double f[], double J[],
                      double r[], double g[]);
    int straight_line_solve;            /* rhs's solve is specialised straight-line code (or the recursion) */
    /* With constraints: where rhs leaves, in work, the conditioning of
       S = J M^-1 J^T (its smallest over its largest squared pivot, or
       eigenvalue; near 0 where J nearly loses rank); after it 1 when the
       minimum-norm solve made the last call, and then the part of the
       constraint rows' right side no acceleration meets, relative (grep
       tag: WORK-CONDITIONING, gen/plan/plan.cpp). */
    int work_conditioning;
    /* Rows the others imply on the constraints (lagrangec generate names
       them): left out of rhs's solve, their multipliers 0 there; the
       monitor reports the minimum-norm multipliers instead. */
    int nredundant;
    const int *redundant_rows;          /* nredundant, or NULL */
    /* phi (nh), phi' (nh), g (nn) at the state x. */
    void (*residuals)(double t, const double x[], const double p[],
                      double phi[], double phi_dot[], double g[]);
    /* T + V. */
    double (*energy)(double t, const double x[], const double p[]);
    /* The integral's value: h for LGC_INTEGRAL_JACOBI, else T + V (energy). */
    double (*integral_value)(double t, const double x[], const double p[]);
    /* T and V apart: TV[0] = T, TV[1] = V. */
    void (*energies)(double t, const double x[], const double p[], double TV[]);
    /* tau = M a + k - Q (nq) at the accelerations a (nq), under the inputs u. */
    void (*inverse_dynamics)(double t, const double x[], const double u[], const double p[],
                             const double a[], double tau[]);
    /* k - Q with every input 0 (nq). */
    void (*bias)(double t, const double x[], const double p[], double bias[]);
    /* dV/dq (nq). */
    void (*gravity)(double t, const double x[], const double p[], double dVdq[]);
    /* M, nq x nq, row-major. */
    void (*mass_matrix)(double t, const double x[], const double p[], double M[]);
    /* C = [A; B] = d(phi', g)/dq', (nh+nn) x nq, row-major. */
    void (*constraint_jacobian)(double t, const double x[], const double p[],
                                double C[]);
    /* D = d(phi', g)/dq at fixed q', (nh+nn) x nq, row-major. */
    void (*constraint_coordinate_jacobian)(double t, const double x[], const double p[],
                                           double D[]);
    /* df/dx (nx x nx) and df/du (nx x nu) of rhs's system, row-major; NULL
       when generated with --no-jacobian. */
    int (*jacobian)(double t, const double x[], const double u[], const double p[],
                    double alpha, double beta, double dfdx[], double dfdu[],
                    double work[]);
    int nwork_jacobian;                 /* doubles of scratch jacobian needs */
    /* dq''/dp (nq x np), row-major; NULL when jacobian is (--no-jacobian). */
    int (*parameter_jacobian)(double t, const double x[], const double u[], const double p[],
                              double alpha, double beta, double dqdd_dp[], double work[]);
    int nwork_parameter_jacobian;       /* doubles of scratch parameter_jacobian needs */
    /* Identification, where tau is linear in monomials of the parameters
       (else NULL, and NAME.md says why): regressor(t, x, a, Y) is Y (nq x
       nbase, row-major), Y base_parameters(p) = tau at every input 0; the
       same with the standard parameters, the monomials themselves. */
    int nstandard, nbase;
    void (*regressor)(double t, const double x[], const double a[], double Y[]);
    void (*base_parameters)(const double p[], double theta[]);
    void (*standard_regressor)(double t, const double x[], const double a[], double Y[]);
    void (*standard_parameters)(const double p[], double theta[]);
    /* The one-step correction specialised to the model (NAME.h says what
       each argument holds); NULL without constraints, or when the model is
       too large for straight-line code: lagrangec/project.h's generic path
       does it then. */
    int (*correction_factor)(int mass_metric, double M[], const double C[], double work[]);
    void (*correction_solve)(int mass_metric, int rows, const double M[], const double C[],
                             double work[], double K[], double d[]);
    int nwork_correction;               /* doubles of scratch the two need */

    /*
    ** The spec's [outputs] and [events] (0 and NULL when it has none):
    ** functions of (t, x, u, p) and of the multipliers [lambda; mu] (nh + nn)
    ** that rhs writes at that state.
    */
    int nout;
    const char *const *output_names;    /* nout: the CSV's column names */
    void (*outputs)(double t, const double x[], const double u[], const double p[],
                    const double multipliers[], double out[]);
    int nevent;
    const char *const *event_names;     /* nevent */
    const signed char *event_direction; /* nevent: +1 rising, -1 falling, 0 both */
    const unsigned char *event_stop;    /* nevent: 1 ends the run, 0 records it */
    void (*events)(double t, const double x[], const double u[], const double p[],
                   const double multipliers[], double out[]);

    /*
    ** The spec's one-sided contacts ([constraints] contact): the last
    ** ncontact holonomic rows, phi >= 0 free. The runtime switches each on
    ** (in contact, its multiplier pushing: lambda >= 0) and off (apart);
    ** an impact changes the velocities by Newton's law, contact c's
    ** coefficient e[c] from `restitution` at the parameters p (ncontact).
    */
    int ncontact;
    void (*restitution)(const double p[], double e[]);

    /*
    ** The spec's Coulomb friction contacts ([friction.NAME]). Contact k's
    ** slip velocities are the rows friction_slip_rows[2k], [2k + 1] (-1
    ** for a planar contact), nonholonomic, the last ones: the runtime holds
    ** them (sticking: their multipliers are the friction force) or drops
    ** them and applies -mu_k N s/|s| (sliding). N = normal[k] +
    ** normal_rate[k nc ..] . multipliers, from friction_normal.
    */
    int nfriction;
    const char *const *friction_names;      /* nfriction */
    const int *friction_slip_rows;          /* 2 nfriction */
    void (*friction_normal)(double t, const double x[], const double u[], const double p[],
                            double normal[], double normal_rate[]);
    void (*friction_coefficients)(const double p[], double mu_static[], double mu_kinetic[]);
} lgc_model;

#ifdef __cplusplus
}
#endif

#endif
