/*
** fmu.h — what the FMU's library knows of its model, and the numbering of
** its variables (value references) that fmi2.c serves and
** model_description.c declares: one numbering, here.
*/
#ifndef LAGRANGEC_FMU_H
#define LAGRANGEC_FMU_H

#include <stddef.h>
#include <stdio.h>
#include "lagrangec/model.h"

/*
** Written by `lagrangec fmu` into fmu_binding.c: the model, the
** instantiation token that modelDescription.xml's guid repeats, and the
** FMI kinds the FMU declares (LGC_FMU_MODEL_EXCHANGE | LGC_FMU_CO_SIMULATION).
*/
extern const lgc_model *const lgc_fmu_model;
extern const char lgc_fmu_guid[];
extern const int lgc_fmu_kinds;

enum { LGC_FMU_MODEL_EXCHANGE = 1, LGC_FMU_CO_SIMULATION = 2 };

/*
** Also written there, from the spec ([units], [descriptions]) and the
** model's structure, each list per variable in value-reference order (the
** numbering below; lgc_fmu_annotated_counts, each kind's count as the
** generator numbered them, which lgc_fmu_model_description checks):
**   lgc_fmu_unit_names, lgc_fmu_unit_bases: UnitDefinitions' units (of
**     lgc_fmu_unit_count), each base row {has_base, factor, then the
**     exponents of kg, m, s, A, K, mol, cd, rad}; a unit without a BaseUnit
**     has has_base 0;
**   lgc_fmu_units: each variable's unit, an index into those, or -1;
**   lgc_fmu_descriptions: each variable's description, or NULL for the
**     default model_description.c gives;
**   lgc_fmu_dependency_start (one more than the variables) and
**   lgc_fmu_dependency_on, lgc_fmu_dependency_constant: a derivative's or
**     output's dependencies, the value references from start[vr] to
**     start[vr + 1], ascending, each constant (FMI's dependenciesKind
**     "constant") or not ("dependent"): states, inputs, parameters and
**     gains, of which modelDescription.xml's Outputs and Derivatives list
**     the states and inputs, and InitialUnknowns all (each a known there).
** Each array has one entry past those, so that none is empty.
*/
extern const int lgc_fmu_annotated_counts[];
extern const int lgc_fmu_unit_count;
extern const char *const lgc_fmu_unit_names[];
extern const double lgc_fmu_unit_bases[][10];
extern const int lgc_fmu_units[];
extern const char *const lgc_fmu_descriptions[];
extern const int lgc_fmu_dependency_start[];
extern const unsigned lgc_fmu_dependency_on[];
extern const unsigned char lgc_fmu_dependency_constant[];

/*
** The variables, in value-reference order, each kind a block:
**   states x (nx: q, q', then the integrals of g, then vakonomic mu),
**   their derivatives der(x) (nx), the parameters (np), the Baumgarte gains
**   alpha and beta (2), Co-Simulation's step (1: rk4's, or an adaptive
**   method's first, 0 = estimated), the inputs (nu), the multipliers
**   [lambda; mu] (nh + nn), the constraint forces Fc = C^T [lambda; mu]
**   (nq), the spec's outputs (nout), all Real; then Co-Simulation's method
**   (1, an Enumeration: lgc_fmu_methods).
*/
typedef enum lgc_fmu_kind {
    LGC_FMU_STATE,
    LGC_FMU_DERIVATIVE,
    LGC_FMU_PARAMETER,
    LGC_FMU_GAIN,
    LGC_FMU_STEP,
    LGC_FMU_INPUT,
    LGC_FMU_MULTIPLIER,
    LGC_FMU_FORCE,
    LGC_FMU_OUTPUT,
    LGC_FMU_METHOD,
    LGC_FMU_KINDS
} lgc_fmu_kind;

/*
** The methods Co-Simulation steps with, by the Enumeration's values 1, 2...
** (lgc_stepper_type_find's names); those this runtime has not (bdf and
** adams without SUNDIALS) are left out of modelDescription.xml and refused.
*/
#define LGC_FMU_METHODS 4
extern const char *const lgc_fmu_methods[LGC_FMU_METHODS];
#define LGC_FMU_DEFAULT_METHOD 1    /* dopri5, simulate's default */

typedef struct lgc_fmu_variable {
    lgc_fmu_kind kind;
    int index;              /* within its kind */
} lgc_fmu_variable;

/* Variables of the kind, and the value reference of its first. */
int lgc_fmu_kind_count(const lgc_model *m, lgc_fmu_kind kind);
unsigned lgc_fmu_first_reference(const lgc_model *m, lgc_fmu_kind kind);
/* Every variable. */
unsigned lgc_fmu_variable_count(const lgc_model *m);
/* The variable of value reference vr: 1, or 0 where there is none. */
int lgc_fmu_variable_of(const lgc_model *m, unsigned vr, lgc_fmu_variable *v);
/*
** Its name: a state's as the spec's coordinates (x, x', int_g1), "der("
** and the state's name and ")" for a derivative, "alpha" and "beta" under
** "baumgarte.", solver.step and solver.method, and the multipliers,
** forces and outputs as the CSV's columns (lambda[1], Fc[x], the spec's
** output names).
*/
void lgc_fmu_variable_name(const lgc_model *m, lgc_fmu_variable v, char *buf, size_t size);

/* Event indicators: the spec's events, then one per contact. */
int lgc_fmu_event_indicator_count(const lgc_model *m);

/*
** modelDescription.xml for the model (model_description.c) to `out`, its
** generationTool `generator`, its SourceFiles `files`: 0, or -1 where
** writing failed.
*/
int lgc_fmu_model_description(FILE *out, const char *generator, int nfiles, char *const files[]);

#endif
