/*
** model_description.c — the FMU's modelDescription.xml, from the model's
** descriptor, fmu_binding.c's units, descriptions and dependencies, and
** fmu.h's numbering, so that what the XML declares is what fmi2.c serves.
** Every name and text is XML-escaped.
*/
#include <stdio.h>
#include <string.h>

#include "lagrangec/driver.h"
#include "lagrangec/stepper.h"
#include "fmu.h"

/* text with & < > " ' escaped, and control characters (no XML 1.0 text) as blanks. */
static void xml_text(FILE *out, const char *text)
{
    for (const unsigned char *s = (const unsigned char *)text; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&apos;", out); break;
        default: fputc(*s < 0x20 ? ' ' : *s, out); break;
        }
    }
}

static void attribute(FILE *out, const char *name, const char *value)
{
    fprintf(out, " %s=\"", name);
    xml_text(out, value);
    fputc('"', out);
}

/* A start value, or "" where the variable takes none. */
static int start_value(const lgc_model *m, lgc_fmu_variable v, double *start)
{
    switch (v.kind) {
    case LGC_FMU_STATE: *start = m->initial_state[v.index]; return 1;
    case LGC_FMU_PARAMETER: *start = m->parameter_defaults[v.index]; return 1;
    case LGC_FMU_GAIN: *start = v.index == 0 ? m->alpha : m->beta; return 1;
    case LGC_FMU_STEP: *start = 0.0; return 1;
    case LGC_FMU_METHOD: *start = LGC_FMU_DEFAULT_METHOD; return 1;
    case LGC_FMU_INPUT: *start = m->input_defaults[v.index]; return 1;
    default: return 0;
    }
}

static const char *description(const lgc_model *m, lgc_fmu_variable v, char *buf, size_t size)
{
    switch (v.kind) {
    case LGC_FMU_STATE:
        if (v.index < m->nq)
            return "coordinate";
        if (v.index < 2 * m->nq)
            snprintf(buf, size, "velocity of %s", m->coordinate_names[v.index - m->nq]);
        else if (v.index < 2 * m->nq + m->nn)
            snprintf(buf, size, "integral of nonholonomic constraint %d's residual", v.index - 2 * m->nq + 1);
        else
            snprintf(buf, size, "vakonomic multiplier of nonholonomic constraint %d", v.index - 2 * m->nq - m->nn + 1);
        return buf;
    case LGC_FMU_DERIVATIVE: return "time derivative of the state (the stabilised rhs)";
    case LGC_FMU_PARAMETER: return "parameter";
    case LGC_FMU_GAIN: return v.index == 0 ? "Baumgarte gain alpha (phi'' + alpha phi' + beta phi = 0)"
                                           : "Baumgarte gain beta (phi'' + alpha phi' + beta phi = 0)";
    case LGC_FMU_STEP: return "Co-Simulation: rk4's step; an adaptive method's first (0: estimated)";
    case LGC_FMU_METHOD: return "Co-Simulation: the method fmi2DoStep integrates with";
    case LGC_FMU_INPUT: return "control input";
    case LGC_FMU_MULTIPLIER: snprintf(buf, size, "multiplier of %s", m->constraint_labels[v.index]); return buf;
    case LGC_FMU_FORCE:
        snprintf(buf, size, "generalised constraint force on %s", m->coordinate_names[v.index]);
        return buf;
    case LGC_FMU_OUTPUT: return "output";
    default: return "";
    }
}

/* causality, variability and initial (NULL: the attribute left out) of each kind. */
static void roles(lgc_fmu_kind kind, const char **causality, const char **variability, const char **initial)
{
    *variability = "continuous";
    *initial = NULL;
    switch (kind) {
    case LGC_FMU_STATE: *causality = "local"; *initial = "exact"; break;
    case LGC_FMU_DERIVATIVE: *causality = "local"; *initial = "calculated"; break;
    case LGC_FMU_PARAMETER:
    case LGC_FMU_GAIN: *causality = "parameter"; *variability = "tunable"; *initial = "exact"; break;
    case LGC_FMU_STEP:
    case LGC_FMU_METHOD: *causality = "parameter"; *variability = "fixed"; *initial = "exact"; break;
    case LGC_FMU_INPUT: *causality = "input"; break;
    default: *causality = "output"; *initial = "calculated"; break;  /* multipliers, forces, outputs */
    }
}

/* Whether a known of this kind may be listed among an unknown's dependencies:
   in Continuous-Time and Event Mode (and at communication points) the states
   and inputs; in Initialization Mode also the parameters and gains, whose
   initial is exact. */
static int listed(lgc_fmu_kind kind, int initialization)
{
    return kind == LGC_FMU_STATE || kind == LGC_FMU_INPUT
           || (initialization && (kind == LGC_FMU_PARAMETER || kind == LGC_FMU_GAIN));
}

/* vr's dependencies listed there, space-separated: their indices, or (kinds) their dependenciesKind. */
static void dependency_list(FILE *out, const lgc_model *m, unsigned vr, int initialization, int kinds)
{
    const char *separator = "";
    for (int k = lgc_fmu_dependency_start[vr]; k < lgc_fmu_dependency_start[vr + 1]; k++) {
        lgc_fmu_variable known;
        if (!lgc_fmu_variable_of(m, lgc_fmu_dependency_on[k], &known) || !listed(known.kind, initialization))
            continue;
        if (kinds)
            fprintf(out, "%s%s", separator, lgc_fmu_dependency_constant[k] ? "constant" : "dependent");
        else
            fprintf(out, "%s%u", separator, lgc_fmu_dependency_on[k] + 1);
        separator = " ";
    }
}

/* <Unknown index=... dependencies=... dependenciesKind=.../> of value reference vr. */
static void unknown(FILE *out, const lgc_model *m, unsigned vr, int initialization)
{
    fprintf(out, "      <Unknown index=\"%u\" dependencies=\"", vr + 1);
    dependency_list(out, m, vr, initialization, 0);
    fputs("\" dependenciesKind=\"", out);
    dependency_list(out, m, vr, initialization, 1);
    fputs("\"/>\n", out);
}

static void unknowns(FILE *out, const lgc_model *m, const char *element, lgc_fmu_kind first, lgc_fmu_kind last)
{
    fprintf(out, "    <%s>\n", element);
    for (unsigned vr = lgc_fmu_first_reference(m, first); vr < lgc_fmu_first_reference(m, (lgc_fmu_kind)(last + 1)); vr++)
        unknown(out, m, vr, 0);
    fprintf(out, "    </%s>\n", element);
}

/* UnitDefinitions: the spec's units and those derived from them (m/s of m). */
static void unit_definitions(FILE *out)
{
    static const char *const base[] = {"kg", "m", "s", "A", "K", "mol", "cd", "rad"};
    if (lgc_fmu_unit_count == 0)
        return;
    fputs("  <UnitDefinitions>\n", out);
    for (int u = 0; u < lgc_fmu_unit_count; u++) {
        const double *b = lgc_fmu_unit_bases[u];
        fputs("    <Unit", out);
        attribute(out, "name", lgc_fmu_unit_names[u]);
        if (!b[0]) {
            fputs("/>\n", out);
            continue;
        }
        fputs(">\n      <BaseUnit", out);
        for (int k = 0; k < 8; k++)
            if (b[2 + k] != 0.0)
                fprintf(out, " %s=\"%d\"", base[k], (int)b[2 + k]);
        if (b[1] != 1.0)
            fprintf(out, " factor=\"%.17g\"", b[1]);
        fputs("/>\n    </Unit>\n", out);
    }
    fputs("  </UnitDefinitions>\n", out);
}

static void source_files(FILE *out, int nfiles, char *const files[])
{
    fputs("    <SourceFiles>\n", out);
    for (int i = 0; i < nfiles; i++) {
        fputs("      <File", out);
        attribute(out, "name", files[i]);
        fputs("/>\n", out);
    }
    fputs("    </SourceFiles>\n", out);
}

int lgc_fmu_model_description(FILE *out, const char *generator, int nfiles, char *const files[])
{
    const lgc_model *m = lgc_fmu_model;
    for (int k = 0; k < LGC_FMU_KINDS; k++)
        if (lgc_fmu_annotated_counts[k] != lgc_fmu_kind_count(m, (lgc_fmu_kind)k)) {
            fprintf(stderr, "fmu_binding.c numbers %d variables of kind %d, the model has %d\n",
                    lgc_fmu_annotated_counts[k], k, lgc_fmu_kind_count(m, (lgc_fmu_kind)k));
            return -1;
        }
    const int directional = m->jacobian && !m->ncontact;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<fmiModelDescription fmiVersion=\"2.0\"", out);
    attribute(out, "modelName", m->name);
    attribute(out, "guid", lgc_fmu_guid);
    attribute(out, "description", m->title ? m->title : "");
    attribute(out, "generationTool", generator);
    fprintf(out, " variableNamingConvention=\"flat\" numberOfEventIndicators=\"%d\">\n",
            lgc_fmu_event_indicator_count(m));
    if (lgc_fmu_kinds & LGC_FMU_MODEL_EXCHANGE) {
        fputs("  <ModelExchange", out);
        attribute(out, "modelIdentifier", m->name);
        fprintf(out, " completedIntegratorStepNotNeeded=\"false\" canGetAndSetFMUstate=\"false\""
                     " canSerializeFMUstate=\"false\" providesDirectionalDerivative=\"%s\">\n",
                directional ? "true" : "false");
        source_files(out, nfiles, files);
        fputs("  </ModelExchange>\n", out);
    }
    if (lgc_fmu_kinds & LGC_FMU_CO_SIMULATION) {
        fputs("  <CoSimulation", out);
        attribute(out, "modelIdentifier", m->name);
        fputs(" canHandleVariableCommunicationStepSize=\"true\" canInterpolateInputs=\"false\""
              " maxOutputDerivativeOrder=\"0\" canGetAndSetFMUstate=\"false\" canSerializeFMUstate=\"false\""
              " providesDirectionalDerivative=\"false\">\n", out);
        source_files(out, nfiles, files);
        fputs("  </CoSimulation>\n", out);
    }
    unit_definitions(out);
    /* solver.method's type: the methods this runtime has. */
    fputs("  <TypeDefinitions>\n    <SimpleType name=\"lagrangec.Method\">\n      <Enumeration>\n", out);
    for (int k = 0; k < LGC_FMU_METHODS; k++)
        if (lgc_stepper_type_find(lgc_fmu_methods[k]))
            fprintf(out, "        <Item name=\"%s\" value=\"%d\"/>\n", lgc_fmu_methods[k], k + 1);
    fputs("      </Enumeration>\n    </SimpleType>\n  </TypeDefinitions>\n", out);
    fputs("  <LogCategories>\n    <Category name=\"logStatusError\"/>\n    <Category name=\"logEvents\"/>\n"
          "  </LogCategories>\n", out);
    fprintf(out, "  <DefaultExperiment startTime=\"0\" stopTime=\"10\" tolerance=\"%g\"/>\n", LGC_DEFAULT_RTOL);
    fputs("  <ModelVariables>\n", out);
    const unsigned n = lgc_fmu_variable_count(m);
    for (unsigned vr = 0; vr < n; vr++) {
        lgc_fmu_variable v;
        char name[512], text[1024];
        const char *causality, *variability, *initial;
        double start;
        lgc_fmu_variable_of(m, vr, &v);
        lgc_fmu_variable_name(m, v, name, sizeof name);
        roles(v.kind, &causality, &variability, &initial);
        fputs("    <ScalarVariable", out);
        attribute(out, "name", name);
        fprintf(out, " valueReference=\"%u\"", vr);
        attribute(out, "description", lgc_fmu_descriptions[vr] ? lgc_fmu_descriptions[vr]
                                                                : description(m, v, text, sizeof text));
        fprintf(out, " causality=\"%s\" variability=\"%s\"", causality, variability);
        if (initial)
            fprintf(out, " initial=\"%s\"", initial);
        fputs(v.kind == LGC_FMU_METHOD ? ">\n      <Enumeration declaredType=\"lagrangec.Method\""
                                       : ">\n      <Real", out);
        if (v.kind == LGC_FMU_DERIVATIVE)
            fprintf(out, " derivative=\"%u\"", lgc_fmu_first_reference(m, LGC_FMU_STATE) + (unsigned)v.index + 1);
        if (lgc_fmu_units[vr] >= 0)
            attribute(out, "unit", lgc_fmu_unit_names[lgc_fmu_units[vr]]);
        if (start_value(m, v, &start))
            fprintf(out, " start=\"%.17g\"", start);   /* an Enumeration's, an integer, prints as one */
        fputs("/>\n    </ScalarVariable>\n", out);
    }
    fputs("  </ModelVariables>\n  <ModelStructure>\n", out);
    if (lgc_fmu_kind_count(m, LGC_FMU_MULTIPLIER) + lgc_fmu_kind_count(m, LGC_FMU_FORCE) + m->nout > 0)
        unknowns(out, m, "Outputs", LGC_FMU_MULTIPLIER, LGC_FMU_OUTPUT);
    unknowns(out, m, "Derivatives", LGC_FMU_DERIVATIVE, LGC_FMU_DERIVATIVE);
    fputs("    <InitialUnknowns>\n", out);
    for (unsigned vr = lgc_fmu_first_reference(m, LGC_FMU_DERIVATIVE); vr < n; vr++) {
        lgc_fmu_variable v;
        lgc_fmu_variable_of(m, vr, &v);
        if (v.kind == LGC_FMU_DERIVATIVE || (v.kind >= LGC_FMU_MULTIPLIER && v.kind <= LGC_FMU_OUTPUT))
            unknown(out, m, vr, 1);
    }
    fputs("    </InitialUnknowns>\n  </ModelStructure>\n</fmiModelDescription>\n", out);
    return ferror(out) ? -1 : 0;
}
