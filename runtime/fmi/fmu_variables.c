/* fmu_variables.c — the FMU's value references and variable names (fmu.h). */
#include <stdio.h>
#include <string.h>

#include "lagrangec/csv.h"
#include "fmu.h"

const char *const lgc_fmu_methods[LGC_FMU_METHODS] = {"dopri5", "rk4", "bdf", "adams"};

int lgc_fmu_kind_count(const lgc_model *m, lgc_fmu_kind kind)
{
    switch (kind) {
    case LGC_FMU_STATE:
    case LGC_FMU_DERIVATIVE: return m->nx;
    case LGC_FMU_PARAMETER: return m->np;
    case LGC_FMU_GAIN: return 2;
    case LGC_FMU_STEP:
    case LGC_FMU_METHOD: return 1;
    case LGC_FMU_INPUT: return m->nu;
    case LGC_FMU_MULTIPLIER: return m->nh + m->nn;
    case LGC_FMU_FORCE: return m->nh + m->nn > 0 ? m->nq : 0;
    case LGC_FMU_OUTPUT: return m->nout;
    default: return 0;
    }
}

unsigned lgc_fmu_first_reference(const lgc_model *m, lgc_fmu_kind kind)
{
    unsigned vr = 0;
    for (int k = 0; k < (int)kind; k++)
        vr += (unsigned)lgc_fmu_kind_count(m, (lgc_fmu_kind)k);
    return vr;
}

unsigned lgc_fmu_variable_count(const lgc_model *m)
{
    return lgc_fmu_first_reference(m, LGC_FMU_KINDS);
}

int lgc_fmu_variable_of(const lgc_model *m, unsigned vr, lgc_fmu_variable *v)
{
    for (int k = 0; k < LGC_FMU_KINDS; k++) {
        const unsigned n = (unsigned)lgc_fmu_kind_count(m, (lgc_fmu_kind)k);
        if (vr < n) {
            v->kind = (lgc_fmu_kind)k;
            v->index = (int)vr;
            return 1;
        }
        vr -= n;
    }
    return 0;
}

void lgc_fmu_variable_name(const lgc_model *m, lgc_fmu_variable v, char *buf, size_t size)
{
    switch (v.kind) {
    case LGC_FMU_STATE: snprintf(buf, size, "%s", m->state_names[v.index]); break;
    case LGC_FMU_DERIVATIVE: snprintf(buf, size, "der(%s)", m->state_names[v.index]); break;
    case LGC_FMU_PARAMETER: snprintf(buf, size, "%s", m->parameter_names[v.index]); break;
    case LGC_FMU_GAIN: snprintf(buf, size, "baumgarte.%s", v.index == 0 ? "alpha" : "beta"); break;
    case LGC_FMU_STEP: snprintf(buf, size, "solver.step"); break;
    case LGC_FMU_METHOD: snprintf(buf, size, "solver.method"); break;
    case LGC_FMU_INPUT: snprintf(buf, size, "%s", m->input_names[v.index]); break;
    case LGC_FMU_MULTIPLIER:
        lgc_csv_column_name(m, lgc_csv_column_multipliers(m) + v.index, buf, size);
        break;
    case LGC_FMU_FORCE: lgc_csv_column_name(m, lgc_csv_column_force(m) + v.index, buf, size); break;
    case LGC_FMU_OUTPUT: lgc_csv_column_name(m, lgc_csv_column_outputs(m) + v.index, buf, size); break;
    default: snprintf(buf, size, "?"); break;
    }
}

int lgc_fmu_event_indicator_count(const lgc_model *m)
{
    return m->nevent + m->ncontact;
}
