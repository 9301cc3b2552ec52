/*
** integral.c — the integral of the motion in a run's reports: what the
** summary, the JSON and the sweep's index call its drift, and whether a run
** keeps it (the model's integral, at the run's inputs).
*/
#include <stdio.h>

#include "programs.h"

const char *lgc_integral_drift_name(const lgc_model *m)
{
    switch (m->integral) {
    case LGC_INTEGRAL_ENERGY: return "energy drift";
    case LGC_INTEGRAL_JACOBI: return "Jacobi integral drift";
    default: return "integral drift";
    }
}

const char *lgc_integral_json_key(const lgc_model *m)
{
    return m->integral == LGC_INTEGRAL_JACOBI ? "jacobi_integral_drift" : "energy_drift";
}

int lgc_integral_lost(const lgc_model *m, const double u[], char *buf, size_t size)
{
    if (m->integral == LGC_INTEGRAL_NONE) {
        snprintf(buf, size, "%s", m->integral_absent ? m->integral_absent : "the model has no integral");
        return 1;
    }
    for (int i = 0; m->integral_needs_zero_inputs && i < m->nu; i++)
        if (u[i] != 0.0) {
            snprintf(buf, size, "the forces are the inputs', and %s = %g is not 0", m->input_names[i], u[i]);
            return 1;
        }
    return 0;
}
