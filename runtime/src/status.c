/* status.c — messages for lgc_status codes. */
#include "lagrangec/status.h"

const char *lgc_strerror(int status)
{
    switch (status) {
    case LGC_OK: return "success";
    case LGC_ERR_SINGULAR_MASS: return "mass matrix singular (not positive definite)";
    case LGC_ERR_RANK_LOST: return "constraint Jacobian lost rank, and the constraints ask for a motion the mechanism cannot make";
    case LGC_ERR_MODEL: return "model rhs failed with an unknown code";
    case LGC_ERR_NONFINITE: return "non-finite value (NaN or Inf) in state or derivative";
    case LGC_ERR_STEP_UNDERFLOW: return "step size underflow (the solution changes faster than the smallest step: a singularity, blow-up or stiffness)";
    case LGC_ERR_PROJECTION: return "constraint projection did not converge";
    case LGC_ERR_LAPACK: return "LAPACK argument error";
    case LGC_ERR_NOMEM: return "out of memory";
    case LGC_ERR_ARG: return "invalid argument";
    case LGC_ERR_IO: return "output failed";
    case LGC_ERR_INCONSISTENT: return "the state violates a constraint";
    case LGC_ERR_TOLERANCE: return "tolerance unreachable: rtol/atol ask for less error than the round-off of the state (or atol = 0 on a component at 0)";
    case LGC_ERR_CONVERGENCE: return "the implicit method's Newton iteration failed to converge, repeatedly (at its smallest step, or 10 times on one step)";
    case LGC_ERR_ERROR_TEST: return "the error test failed, repeatedly (at the smallest step, or 7 times on one step): a singularity, blow-up or discontinuity";
    case LGC_ERR_SOLVER: return "SUNDIALS failed (its linear solver or its own memory)";
    case LGC_ERR_SINGULAR_METHOD: return "the constraint Jacobian nearly lost rank (a singular configuration), which CVODE's adams and bdf cannot pass: they may leave the motion's branch there; use dopri5 or rk4";
    case LGC_ERR_ACCUMULATION: return "contact switches accumulate: 256 impacts or releases within 1e-6 s (relative to t) and no contact comes to rest (a repeating switch, or a Zeno sequence the rest rules did not end)";
    case LGC_ERR_RESTITUTION: return "a contact's restitution is outside [0, 1] at the run's parameters (0 a plastic impact, 1 an elastic one)";
    case LGC_ERR_FRICTION: return "no consistent friction mode: a sliding contact's normal force would have to pull to keep it closed (Painleve's paradox: the friction the sliding needs jams the contact), or a contact's normal force is negative";
    case LGC_ERR_FRICTION_COEFFICIENT: return "a friction coefficient is negative, or the kinetic one above the static one, at the run's parameters";
    default: return "unknown error";
    }
}
