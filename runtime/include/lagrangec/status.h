/*
** lagrangec/status.h — status codes shared by every runtime call.
*/
#ifndef LAGRANGEC_STATUS_H
#define LAGRANGEC_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Runtime faults; each has its own code so a caller can tell them apart. */
typedef enum lgc_status {
    LGC_OK = 0,
    LGC_ERR_SINGULAR_MASS = 1,      /* rhs: mass matrix not positive definite */
    LGC_ERR_RANK_LOST = 2,          /* rhs: constraint Jacobian lost rank, constraints inconsistent */
    LGC_ERR_MODEL = 3,              /* rhs returned an unknown non-zero code */
    LGC_ERR_NONFINITE = 4,          /* NaN or Inf in the state or derivative */
    LGC_ERR_STEP_UNDERFLOW = 5,     /* adaptive step fell below round-off of t */
    LGC_ERR_PROJECTION = 6,         /* position projection did not converge */
    LGC_ERR_LAPACK = 7,             /* a LAPACK call reported an argument error */
    LGC_ERR_NOMEM = 8,              /* allocation failed at setup */
    LGC_ERR_ARG = 9,                /* invalid argument or option */
    LGC_ERR_IO = 10,                /* output file or plotting failed */
    LGC_ERR_INCONSISTENT = 11,      /* the state violates a constraint */
    LGC_ERR_TOLERANCE = 12,         /* tolerances below the state's round-off */
    LGC_ERR_CONVERGENCE = 13,       /* implicit method: Newton failed to converge, repeatedly */
    LGC_ERR_ERROR_TEST = 14,        /* implicit method: the error test failed, repeatedly */
    LGC_ERR_SOLVER = 15,            /* SUNDIALS failed on its own (its linear solver, its memory) */
    LGC_ERR_SINGULAR_METHOD = 16,   /* adams, bdf at a singular configuration: they cannot pass one */
    LGC_ERR_ACCUMULATION = 17,      /* contact switches pile up without end (lagrangec/driver.h) */
    LGC_ERR_RESTITUTION = 18,       /* a contact's restitution outside [0, 1] at the run's parameters */
    LGC_ERR_FRICTION = 19,          /* no consistent friction mode (Painleve's paradox) */
    LGC_ERR_FRICTION_COEFFICIENT = 20   /* a friction coefficient < 0, or kinetic above static */
} lgc_status;

/* The largest lgc_status code. */
#define LGC_STATUS_LAST LGC_ERR_FRICTION_COEFFICIENT

/* A short English reason for `status`, never NULL. */
const char *lgc_strerror(int status);

#ifdef __cplusplus
}
#endif

#endif
