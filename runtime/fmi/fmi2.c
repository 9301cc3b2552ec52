/*
** fmi2.c — the FMI 2.0 functions of a model's FMU (Model Exchange and
** Co-Simulation), on the runtime: lgc_system for the model at the
** instance's parameters and inputs, lgc_monitor for the multipliers,
** constraint forces and outputs, lgc_driver for a Co-Simulation step
** (stepper, correction, events, contacts), lgc_impact for a Model
** Exchange impact. Everything an instance holds is in its lgc_fmu_instance,
** allocated at fmi2Instantiate and fmi2ExitInitializationMode: no call
** after that allocates, and no two instances share anything but the
** model's constant descriptor. Every error reaches the importer through its
** logger and fmi2Error; nothing exits.
*/
#define _POSIX_C_SOURCE 200809L  /* strdup */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangec/driver.h"
#include "lagrangec/monitor.h"
#include "lagrangec/status.h"
#include "lagrangec/system.h"
#include "fmi2Functions.h"
#include "fmu.h"
#include "impact.h"

/* The standard's state machines (sections 3.2.3 and 4.2.4), both kinds in one. */
typedef enum {
    MODE_INSTANTIATED,
    MODE_INITIALIZATION,
    MODE_STEP_COMPLETE,     /* Co-Simulation, between steps */
    MODE_EVENT,             /* Model Exchange */
    MODE_CONTINUOUS,        /* Model Exchange */
    MODE_TERMINATED,
    MODE_ERROR
} fmu_mode;

/* Bit masks of modes, for what each function accepts. */
#define IN(mode) (1u << (mode))
#define AFTER_START (IN(MODE_INITIALIZATION) | IN(MODE_STEP_COMPLETE) | IN(MODE_EVENT) \
                     | IN(MODE_CONTINUOUS) | IN(MODE_TERMINATED) | IN(MODE_ERROR))
#define RUNNING (IN(MODE_STEP_COMPLETE) | IN(MODE_EVENT) | IN(MODE_CONTINUOUS))

typedef struct lgc_fmu_instance {
    fmi2CallbackFunctions callbacks;
    char *name;
    fmi2Type type;
    int logging;
    fmu_mode mode;
    const lgc_model *m;
    lgc_system sys;
    lgc_monitor mon;        /* multipliers, forces and outputs at (t, x); its dxdt the derivatives */
    int evaluated;          /* mon holds (t, x, u, p) as they are */
    double t, t_stop, tolerance;
    double *x;              /* nx: the state */
    double *x_start;        /* nx: the states the importer set before initialisation */
    unsigned char *x_set;   /* nx: 1 where it set one */
    /* Co-Simulation */
    int method;             /* solver.method: 1 + its index in lgc_fmu_methods */
    double step;            /* solver.step: rk4's step, an adaptive method's first (0: estimated) */
    lgc_driver *driver;
    int inputs_changed;     /* an input or a parameter, since the last step: the driver restarts from (t, x) */
    int terminated;         /* a stop event ended the run at t */
    /* Model Exchange */
    lgc_impact impact;
    double *indicators, *indicators_before;     /* the event indicators now, and at the last step or event */
    double *margin;         /* ncontact: a contact let go or bounced is watched this far below phi = 0 */
    double *residuals;      /* 2 nh + nn */
    double *dfdx, *dfdu, *jacobian_work;
} lgc_fmu_instance;

/* ---- messages ----------------------------------------------------------- */

static void say(lgc_fmu_instance *c, fmi2Status status, const char *category, const char *format, ...)
{
    if (!c->callbacks.logger || (status == fmi2OK && !c->logging))
        return;
    char message[512], literal[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    /* The logger takes the message as a printf format: each '%' doubled, it is the text itself. */
    size_t n = 0;
    for (const char *s = message; *s && n + 2 < sizeof literal; s++) {
        if (*s == '%')
            literal[n++] = '%';
        literal[n++] = *s;
    }
    literal[n] = '\0';
    c->callbacks.logger(c->callbacks.componentEnvironment, c->name, status, category, literal);
}

static fmi2Status error(lgc_fmu_instance *c, const char *function, const char *format, ...)
{
    char message[400];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    say(c, fmi2Error, "logStatusError", "%s: %s", function, message);
    return fmi2Error;
}

/* A fault of the model or the runtime: the instance may not go on. */
static fmi2Status fault(lgc_fmu_instance *c, const char *function, int rc)
{
    c->mode = MODE_ERROR;
    return error(c, function, "%s at t = %.17g", lgc_strerror(rc), c->t);
}

static const char *mode_name(fmu_mode mode)
{
    static const char *const names[] = {"instantiated", "initialization mode", "step complete",
                                        "event mode", "continuous-time mode", "terminated", "error"};
    return names[mode];
}

/* The instance, when c is one and may take `function` now; else NULL, said. */
static lgc_fmu_instance *allowed(fmi2Component component, const char *function, unsigned modes)
{
    lgc_fmu_instance *c = component;
    if (!c)
        return NULL;
    if (!(modes & IN(c->mode))) {
        error(c, function, "not allowed in %s", mode_name(c->mode));
        return NULL;
    }
    return c;
}

static lgc_fmu_instance *allowed_for(fmi2Component component, const char *function, unsigned modes,
                                     fmi2Type type)
{
    lgc_fmu_instance *c = component;
    if (c && c->type != type) {
        error(c, function, "a %s function, and this instance is for %s",
              type == fmi2ModelExchange ? "Model Exchange" : "Co-Simulation",
              c->type == fmi2ModelExchange ? "Model Exchange" : "Co-Simulation");
        return NULL;
    }
    return allowed(component, function, modes);
}

/* ---- the model at (t, x) ------------------------------------------------ */

static int evaluate(lgc_fmu_instance *c)
{
    if (c->evaluated)
        return LGC_OK;
    int rc = lgc_monitor_sample(&c->mon, &c->sys, c->t, c->x);
    c->evaluated = rc == LGC_OK;
    return rc;
}

static double *instance_doubles(size_t n)
{
    return calloc(n + 1, sizeof(double));
}

/* The state to start from: the spec's initial values at the parameters, the importer's over them. */
static void start_state(lgc_fmu_instance *c)
{
    c->m->initial_state_at(c->sys.p, c->x);
    for (int i = 0; i < c->m->nx; i++)
        if (c->x_set[i])
            c->x[i] = c->x_start[i];
    c->evaluated = 0;
}

static void defaults(lgc_fmu_instance *c)
{
    const lgc_model *m = c->m;
    if (m->np)
        memcpy(c->sys.p, m->parameter_defaults, (size_t)m->np * sizeof *c->sys.p);
    if (m->nu)
        memcpy(c->sys.u, m->input_defaults, (size_t)m->nu * sizeof *c->sys.u);
    c->sys.alpha = m->alpha;
    c->sys.beta = m->beta;
    memset(c->x_set, 0, (size_t)m->nx + 1);
    c->t = 0.0;
    c->t_stop = INFINITY;
    c->tolerance = LGC_DEFAULT_RTOL;
    c->method = LGC_FMU_DEFAULT_METHOD;
    c->step = 0.0;
    c->terminated = 0;
    c->inputs_changed = 0;
    start_state(c);
}

static void free_instance(lgc_fmu_instance *c)
{
    lgc_driver_free(c->driver);
    lgc_impact_free(&c->impact);
    lgc_monitor_free(&c->mon);
    lgc_system_free(&c->sys);
    free(c->x);
    free(c->x_start);
    free(c->x_set);
    free(c->indicators);
    free(c->indicators_before);
    free(c->margin);
    free(c->residuals);
    free(c->dfdx);
    free(c->dfdu);
    free(c->jacobian_work);
    free(c->name);
    c->callbacks.freeMemory(c);
}

/* ---- common functions --------------------------------------------------- */

const char *fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }

const char *fmi2GetVersion(void) { return "2.0"; }

fmi2Status fmi2SetDebugLogging(fmi2Component component, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[])
{
    lgc_fmu_instance *c = allowed(component, "fmi2SetDebugLogging", IN(MODE_INSTANTIATED) | AFTER_START);
    if (!c)
        return fmi2Error;
    /* The categories modelDescription.xml declares; both are logged when logging is on. */
    for (size_t i = 0; i < nCategories; i++)
        if (!categories || !categories[i]
            || (strcmp(categories[i], "logStatusError") != 0 && strcmp(categories[i], "logEvents") != 0))
            return error(c, "fmi2SetDebugLogging", "no log category %s (there are logStatusError and logEvents)",
                         categories && categories[i] ? categories[i] : "(null)");
    c->logging = loggingOn;
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation, const fmi2CallbackFunctions *functions,
                              fmi2Boolean visible, fmi2Boolean loggingOn)
{
    (void)fmuResourceLocation;
    (void)visible;
    if (!functions || !functions->allocateMemory || !functions->freeMemory)
        return NULL;
    lgc_fmu_instance *c = functions->allocateMemory(1, sizeof *c);
    if (!c)
        return NULL;
    memset(c, 0, sizeof *c);
    memcpy(&c->callbacks, functions, sizeof c->callbacks);
    c->type = fmuType;
    c->logging = loggingOn;
    c->m = lgc_fmu_model;
    c->name = strdup(instanceName && *instanceName ? instanceName : "lagrangec");
    const char *refusal = NULL;
    const int kind = fmuType == fmi2ModelExchange ? LGC_FMU_MODEL_EXCHANGE
                     : fmuType == fmi2CoSimulation ? LGC_FMU_CO_SIMULATION : 0;
    if (!instanceName || !*instanceName)
        refusal = "the instance has no name";
    else if (!fmuGUID || strcmp(fmuGUID, lgc_fmu_guid) != 0)
        refusal = "the GUID is not this FMU's (its modelDescription.xml and library differ)";
    else if (!(lgc_fmu_kinds & kind))
        refusal = "this FMU was exported without that FMI kind (lagrangec fmu --kind)";
    if (refusal) {
        if (c->name)
            error(c, "fmi2Instantiate", "%s", refusal);
        free(c->name);
        functions->freeMemory(c);
        return NULL;
    }
    const lgc_model *m = c->m;
    const size_t nx = (size_t)m->nx, nind = (size_t)lgc_fmu_event_indicator_count(m);
    int ok = c->name && lgc_system_init(&c->sys, m) == LGC_OK && lgc_monitor_init(&c->mon, m) == LGC_OK
             && (c->x = instance_doubles(nx)) && (c->x_start = instance_doubles(nx))
             && (c->x_set = calloc(nx + 1, 1));
    if (ok && fmuType == fmi2ModelExchange) {
        ok = lgc_impact_init(&c->impact, m) == LGC_OK && (c->indicators = instance_doubles(nind))
             && (c->indicators_before = instance_doubles(nind))
             && (c->margin = instance_doubles((size_t)m->ncontact))
             && (c->residuals = instance_doubles((size_t)(2 * m->nh + m->nn)));
        if (ok && m->jacobian)
            ok = (c->dfdx = instance_doubles(nx * nx)) && (c->dfdu = instance_doubles(nx * (size_t)m->nu))
                 && (c->jacobian_work = instance_doubles((size_t)m->nwork_jacobian));
    }
    if (!ok) {
        if (c->name)
            error(c, "fmi2Instantiate", "%s", lgc_strerror(LGC_ERR_NOMEM));
        free_instance(c);
        return NULL;
    }
    defaults(c);
    c->mode = MODE_INSTANTIATED;
    return c;
}

void fmi2FreeInstance(fmi2Component component)
{
    if (component)
        free_instance(component);
}

fmi2Status fmi2SetupExperiment(fmi2Component component, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                               fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    lgc_fmu_instance *c = allowed(component, "fmi2SetupExperiment", IN(MODE_INSTANTIATED));
    if (!c)
        return fmi2Error;
    if (toleranceDefined && !(tolerance > 0.0 && tolerance < 1.0))
        return error(c, "fmi2SetupExperiment", "the tolerance %g is not in (0, 1)", tolerance);
    if (!isfinite(startTime) || (stopTimeDefined && !(stopTime >= startTime)))
        return error(c, "fmi2SetupExperiment", "start %g and stop %g are not a time span", startTime,
                     stopTime);
    c->tolerance = toleranceDefined ? tolerance : LGC_DEFAULT_RTOL;
    c->t = startTime;
    c->t_stop = stopTimeDefined ? stopTime : INFINITY;
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component component)
{
    lgc_fmu_instance *c = allowed(component, "fmi2EnterInitializationMode", IN(MODE_INSTANTIATED));
    if (!c)
        return fmi2Error;
    start_state(c);
    c->mode = MODE_INITIALIZATION;
    return fmi2OK;
}

/* Where each contact starts (on where it touches), and each one's restitution at the parameters. */
static int start_contacts(lgc_fmu_instance *c)
{
    lgc_contacts_touching(&c->sys, c->t, c->x, c->residuals);
    for (int k = 0; k < c->m->ncontact; k++)
        c->margin[k] = 0.0;
    return lgc_impact_coefficients(&c->impact, &c->sys);
}

static void event_indicators(lgc_fmu_instance *c, double out[]);

fmi2Status fmi2ExitInitializationMode(fmi2Component component)
{
    static const char *const function = "fmi2ExitInitializationMode";
    lgc_fmu_instance *c = allowed(component, function, IN(MODE_INITIALIZATION));
    if (!c)
        return fmi2Error;
    const lgc_model *m = c->m;
    for (int i = 0; i < m->nx; i++)
        if (!isfinite(c->x[i]))
            return error(c, function, "the initial %s is not finite", m->state_names[i]);
    int rc;
    if (c->type == fmi2CoSimulation) {
        lgc_driver_options options;
        lgc_driver_options_default(&options);
        options.type = lgc_stepper_type_find(lgc_fmu_methods[c->method - 1]);
        options.h = c->step;
        options.rtol = c->tolerance;
        options.atol = c->tolerance * (LGC_DEFAULT_ATOL / LGC_DEFAULT_RTOL);
        options.t_stop = c->t_stop;
        if (!options.type->adaptive && !(c->step > 0.0))
            return error(c, function, "solver.method %s takes a fixed step: set solver.step", options.type->name);
        lgc_driver_free(c->driver);
        if (!(c->driver = lgc_driver_alloc(&c->sys, &options)))
            return fault(c, function, LGC_ERR_NOMEM);
        /* The driver's start is the state corrected onto the constraints. */
        if ((rc = lgc_driver_reset(c->driver, c->t, c->x)) != LGC_OK
            || (rc = lgc_driver_advance(c->driver, c->t, c->x)) != LGC_OK)
            return fault(c, function, rc);
        c->inputs_changed = 0;
        c->terminated = 0;
        c->mode = MODE_STEP_COMPLETE;
    } else {
        if (m->ncontact && (rc = start_contacts(c)) != LGC_OK)
            return fault(c, function, rc);
        c->mode = MODE_EVENT;
    }
    c->evaluated = 0;
    if ((rc = evaluate(c)) != LGC_OK)
        return fault(c, function, rc);
    if (c->type == fmi2ModelExchange)
        event_indicators(c, c->indicators_before);
    return fmi2OK;
}

fmi2Status fmi2Terminate(fmi2Component component)
{
    lgc_fmu_instance *c = allowed(component, "fmi2Terminate", RUNNING);
    if (!c)
        return fmi2Error;
    c->mode = MODE_TERMINATED;
    return fmi2OK;
}

fmi2Status fmi2Reset(fmi2Component component)
{
    lgc_fmu_instance *c = allowed(component, "fmi2Reset", IN(MODE_INSTANTIATED) | AFTER_START);
    if (!c)
        return fmi2Error;
    defaults(c);
    c->mode = MODE_INSTANTIATED;
    return fmi2OK;
}

/* ---- values -------------------------------------------------------------- */

/*
** Every reference known and of the function's type (Real, or the
** Enumeration solver.method for the Integer functions), else an error
** naming the first that is not.
*/
static int references_known(lgc_fmu_instance *c, const char *function, const fmi2ValueReference vr[],
                            size_t nvr, int integer)
{
    lgc_fmu_variable v;
    if (nvr > 0 && !vr) {
        error(c, function, "no value references");
        return 0;
    }
    for (size_t i = 0; i < nvr; i++) {
        if (!lgc_fmu_variable_of(c->m, vr[i], &v)) {
            error(c, function, "no variable has value reference %u (there are %u)", vr[i],
                  lgc_fmu_variable_count(c->m));
            return 0;
        }
        if ((v.kind == LGC_FMU_METHOD) != integer) {
            char name[256];
            lgc_fmu_variable_name(c->m, v, name, sizeof name);
            error(c, function, "%s (value reference %u) is %s", name, vr[i],
                  integer ? "a Real" : "an Enumeration (fmi2GetInteger, fmi2SetInteger)");
            return 0;
        }
    }
    return 1;
}

fmi2Status fmi2GetReal(fmi2Component component, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[])
{
    static const char *const function = "fmi2GetReal";
    lgc_fmu_instance *c = allowed(component, function, AFTER_START);
    if (!c || !references_known(c, function, vr, nvr, 0))
        return fmi2Error;
    if (nvr > 0 && !value)
        return error(c, function, "no array for the values");
    int rc;
    for (size_t i = 0; i < nvr; i++) {
        lgc_fmu_variable v;
        lgc_fmu_variable_of(c->m, vr[i], &v);
        const int computed = v.kind == LGC_FMU_DERIVATIVE || v.kind == LGC_FMU_MULTIPLIER
                             || v.kind == LGC_FMU_FORCE || v.kind == LGC_FMU_OUTPUT;
        if (computed && (rc = evaluate(c)) != LGC_OK)
            return c->mode == MODE_INITIALIZATION ? error(c, function, "%s", lgc_strerror(rc))
                                                  : fault(c, function, rc);
        switch (v.kind) {
        case LGC_FMU_STATE: value[i] = c->x[v.index]; break;
        case LGC_FMU_DERIVATIVE: value[i] = c->mon.dxdt[v.index]; break;
        case LGC_FMU_PARAMETER: value[i] = c->sys.p[v.index]; break;
        case LGC_FMU_GAIN: value[i] = v.index == 0 ? c->sys.alpha : c->sys.beta; break;
        case LGC_FMU_STEP: value[i] = c->step; break;
        case LGC_FMU_INPUT: value[i] = c->sys.u[v.index]; break;
        case LGC_FMU_MULTIPLIER: value[i] = c->mon.s.mult[v.index]; break;
        case LGC_FMU_FORCE: value[i] = c->mon.s.fc[v.index]; break;
        case LGC_FMU_OUTPUT: value[i] = c->mon.s.out[v.index]; break;
        default: break;
        }
    }
    return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component component, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[])
{
    static const char *const function = "fmi2SetReal";
    lgc_fmu_instance *c = allowed(component, function, IN(MODE_INSTANTIATED) | IN(MODE_INITIALIZATION) | RUNNING);
    if (!c || !references_known(c, function, vr, nvr, 0))
        return fmi2Error;
    if (nvr > 0 && !value)
        return error(c, function, "no array for the values");
    const int before_start = c->mode == MODE_INSTANTIATED || c->mode == MODE_INITIALIZATION;
    int tuned = 0;
    /* All or nothing: check every reference before setting one. */
    for (size_t i = 0; i < nvr; i++) {
        lgc_fmu_variable v;
        char name[256];
        lgc_fmu_variable_of(c->m, vr[i], &v);
        lgc_fmu_variable_name(c->m, v, name, sizeof name);
        /* The parameters and gains are tunable: rhs reads them at every call, and
           a new value takes effect in Event Mode (Model Exchange) or between
           steps (Co-Simulation) as the standard allows; solver.step is fixed. */
        const int tunable = (v.kind == LGC_FMU_PARAMETER || v.kind == LGC_FMU_GAIN)
                            && (c->mode == MODE_EVENT || c->mode == MODE_STEP_COMPLETE);
        const int settable = v.kind == LGC_FMU_INPUT || tunable
                             || (before_start && (v.kind == LGC_FMU_STATE || v.kind == LGC_FMU_PARAMETER
                                                  || v.kind == LGC_FMU_GAIN || v.kind == LGC_FMU_STEP));
        if (!settable)
            return error(c, function, "%s (value reference %u) cannot be set in %s", name, vr[i],
                         mode_name(c->mode));
        if (!isfinite(value[i]) || (v.kind == LGC_FMU_STEP && value[i] < 0.0))
            return error(c, function, "%s = %g: not a finite number%s", name, value[i],
                         v.kind == LGC_FMU_STEP ? " of 0 or more" : "");
    }
    for (size_t i = 0; i < nvr; i++) {
        lgc_fmu_variable v;
        lgc_fmu_variable_of(c->m, vr[i], &v);
        switch (v.kind) {
        case LGC_FMU_STATE:
            c->x[v.index] = c->x_start[v.index] = value[i];
            c->x_set[v.index] = 1;
            break;
        case LGC_FMU_PARAMETER:
            tuned |= c->sys.p[v.index] != value[i];
            c->sys.p[v.index] = value[i];
            break;
        case LGC_FMU_GAIN:
            tuned |= *(v.index == 0 ? &c->sys.alpha : &c->sys.beta) != value[i];
            *(v.index == 0 ? &c->sys.alpha : &c->sys.beta) = value[i];
            break;
        case LGC_FMU_STEP: c->step = value[i]; break;
        case LGC_FMU_INPUT:
            c->inputs_changed |= c->sys.u[v.index] != value[i];
            c->sys.u[v.index] = value[i];
            break;
        default: break;
        }
    }
    /* The start follows the parameters (the spec's initial values may be expressions of them). */
    if (before_start)
        start_state(c);
    /* A parameter tuned while running: Co-Simulation's next step starts anew
       from the state (the driver's reset: corrected onto the constraints at
       the new values, the restitution and friction coefficients at them), as
       simulate would start from it; Model Exchange's contacts take their
       restitution at the new values. */
    else if (tuned) {
        c->inputs_changed = 1;
        if (c->type == fmi2ModelExchange && c->m->ncontact) {
            int rc = lgc_impact_coefficients(&c->impact, &c->sys);
            if (rc != LGC_OK)
                return fault(c, function, rc);
        }
    }
    c->evaluated = 0;
    return fmi2OK;
}

/* Nor Boolean nor String variables here: no reference is of those types. */
static fmi2Status no_such_type(fmi2Component component, const char *function, size_t nvr, const char *type)
{
    lgc_fmu_instance *c = allowed(component, function, IN(MODE_INSTANTIATED) | AFTER_START);
    if (!c)
        return fmi2Error;
    return nvr == 0 ? fmi2OK : error(c, function, "this FMU has no %s variables", type);
}

/* The Integer functions serve the one Enumeration, solver.method. */
fmi2Status fmi2GetInteger(fmi2Component component, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[])
{
    static const char *const function = "fmi2GetInteger";
    lgc_fmu_instance *c = allowed(component, function, AFTER_START);
    if (!c || !references_known(c, function, vr, nvr, 1))
        return fmi2Error;
    if (nvr > 0 && !value)
        return error(c, function, "no array for the values");
    for (size_t i = 0; i < nvr; i++)
        value[i] = c->method;
    return fmi2OK;
}

fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[])
{
    (void)vr, (void)value;
    return no_such_type(c, "fmi2GetBoolean", nvr, "Boolean");
}

fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2String value[])
{
    (void)vr, (void)value;
    return no_such_type(c, "fmi2GetString", nvr, "String");
}

fmi2Status fmi2SetInteger(fmi2Component component, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Integer value[])
{
    static const char *const function = "fmi2SetInteger";
    lgc_fmu_instance *c = allowed(component, function, IN(MODE_INSTANTIATED) | IN(MODE_INITIALIZATION));
    if (!c || !references_known(c, function, vr, nvr, 1))
        return fmi2Error;
    if (nvr > 0 && !value)
        return error(c, function, "no array for the values");
    for (size_t i = 0; i < nvr; i++)
        if (value[i] < 1 || value[i] > LGC_FMU_METHODS || !lgc_stepper_type_find(lgc_fmu_methods[value[i] - 1]))
            return error(c, function, "solver.method = %d: not a method of this FMU (modelDescription.xml's "
                         "lagrangec.Method)", value[i]);
    if (nvr > 0)
        c->method = value[nvr - 1];     /* every reference is solver.method's: the last value stays */
    return fmi2OK;
}

fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Boolean value[])
{
    (void)vr, (void)value;
    return no_such_type(c, "fmi2SetBoolean", nvr, "Boolean");
}

fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[])
{
    (void)vr, (void)value;
    return no_such_type(c, "fmi2SetString", nvr, "String");
}

/* ---- FMU states: not offered (canGetAndSetFMUstate="false") ------------- */

static fmi2Status no_fmu_state(fmi2Component component, const char *function)
{
    lgc_fmu_instance *c = component;
    return c ? error(c, function, "this FMU does not save its state (canGetAndSetFMUstate is false)")
             : fmi2Error;
}

fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate *s)
{
    (void)s;
    return no_fmu_state(c, "fmi2GetFMUstate");
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate s)
{
    (void)s;
    return no_fmu_state(c, "fmi2SetFMUstate");
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate *s)
{
    (void)s;
    return no_fmu_state(c, "fmi2FreeFMUstate");
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate s, size_t *size)
{
    (void)s, (void)size;
    return no_fmu_state(c, "fmi2SerializedFMUstateSize");
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate s, fmi2Byte bytes[], size_t size)
{
    (void)s, (void)bytes, (void)size;
    return no_fmu_state(c, "fmi2SerializeFMUstate");
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte bytes[], size_t size, fmi2FMUstate *s)
{
    (void)s, (void)bytes, (void)size;
    return no_fmu_state(c, "fmi2DeSerializeFMUstate");
}

/*
** d der(x) from dx and du (Model Exchange, a model generated with its
** Jacobian and without contacts, whose rows the Jacobian does not switch):
** the rows of df/dx and df/du the unknowns name, times the knowns' seeds.
*/
fmi2Status fmi2GetDirectionalDerivative(fmi2Component component, const fmi2ValueReference unknowns[],
                                        size_t nUnknown, const fmi2ValueReference knowns[], size_t nKnown,
                                        const fmi2Real dvKnown[], fmi2Real dvUnknown[])
{
    static const char *const function = "fmi2GetDirectionalDerivative";
    lgc_fmu_instance *c = allowed_for(component, function,
                                      IN(MODE_INITIALIZATION) | IN(MODE_EVENT) | IN(MODE_CONTINUOUS),
                                      fmi2ModelExchange);
    if (!c || !references_known(c, function, unknowns, nUnknown, 0)
        || !references_known(c, function, knowns, nKnown, 0))
        return fmi2Error;
    const lgc_model *m = c->m;
    if (!m->jacobian || m->ncontact)
        return error(c, function, "this FMU provides no directional derivatives (providesDirectionalDerivative "
                     "is false: %s)", m->jacobian ? "its contacts switch rows" : "generated without the Jacobian");
    if ((nKnown && !dvKnown) || (nUnknown && !dvUnknown))
        return error(c, function, "no array for the seeds or the results");
    lgc_fmu_variable v;
    for (size_t k = 0; k < nKnown; k++)
        if (lgc_fmu_variable_of(m, knowns[k], &v), v.kind != LGC_FMU_STATE && v.kind != LGC_FMU_INPUT)
            return error(c, function, "value reference %u is not a state or an input", knowns[k]);
    for (size_t i = 0; i < nUnknown; i++)
        if (lgc_fmu_variable_of(m, unknowns[i], &v), v.kind != LGC_FMU_DERIVATIVE)
            return error(c, function, "value reference %u is not a derivative", unknowns[i]);
    int rc = m->jacobian(c->t, c->x, c->sys.u, c->sys.p, c->sys.alpha, c->sys.beta, c->dfdx, c->dfdu,
                         c->jacobian_work);
    if (rc != LGC_MODEL_OK)
        return fault(c, function, lgc_model_status(rc));
    for (size_t i = 0; i < nUnknown; i++) {
        lgc_fmu_variable row;
        lgc_fmu_variable_of(m, unknowns[i], &row);
        double sum = 0.0;
        for (size_t k = 0; k < nKnown; k++) {
            lgc_fmu_variable_of(m, knowns[k], &v);
            sum += dvKnown[k] * (v.kind == LGC_FMU_STATE ? c->dfdx[(size_t)row.index * m->nx + v.index]
                                                         : c->dfdu[(size_t)row.index * m->nu + v.index]);
        }
        dvUnknown[i] = sum;
    }
    return fmi2OK;
}

/* ---- Co-Simulation --------------------------------------------------------- */

fmi2Status fmi2SetRealInputDerivatives(fmi2Component component, const fmi2ValueReference vr[], size_t nvr,
                                       const fmi2Integer order[], const fmi2Real value[])
{
    (void)vr, (void)order, (void)value;
    lgc_fmu_instance *c = allowed_for(component, "fmi2SetRealInputDerivatives", AFTER_START, fmi2CoSimulation);
    if (!c)
        return fmi2Error;
    return nvr == 0 ? fmi2OK
                    : error(c, "fmi2SetRealInputDerivatives", "inputs are held over a step (canInterpolateInputs "
                            "is false)");
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component component, const fmi2ValueReference vr[], size_t nvr,
                                        const fmi2Integer order[], fmi2Real value[])
{
    (void)vr, (void)order, (void)value;
    lgc_fmu_instance *c = allowed_for(component, "fmi2GetRealOutputDerivatives", AFTER_START, fmi2CoSimulation);
    if (!c)
        return fmi2Error;
    return nvr == 0 ? fmi2OK
                    : error(c, "fmi2GetRealOutputDerivatives", "maxOutputDerivativeOrder is 0");
}

fmi2Status fmi2DoStep(fmi2Component component, fmi2Real currentCommunicationPoint, fmi2Real communicationStepSize,
                      fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    static const char *const function = "fmi2DoStep";
    (void)noSetFMUStatePriorToCurrentPoint;
    lgc_fmu_instance *c = allowed_for(component, function, IN(MODE_STEP_COMPLETE), fmi2CoSimulation);
    if (!c)
        return fmi2Error;
    if (c->terminated)
        return error(c, function, "the run ended at t = %.17g (a stop event); it can only be terminated", c->t);
    if (!(fabs(currentCommunicationPoint - c->t) <= 1e-9 * fmax(1.0, fabs(c->t))))
        return error(c, function, "the step starts at %.17g, and the FMU is at t = %.17g",
                     currentCommunicationPoint, c->t);
    if (!(communicationStepSize > 0.0) || !isfinite(communicationStepSize))
        return error(c, function, "the step size %g is not positive", communicationStepSize);
    const double t1 = c->t + communicationStepSize;
    if (t1 > c->t_stop * (1 + 1e-12) + 1e-12)
        return error(c, function, "the step ends at %.17g, past the stop time %.17g", t1, c->t_stop);
    int rc;
    /* New inputs are a new start: the method's saved derivatives were the old inputs'. */
    if (c->inputs_changed && (rc = lgc_driver_reset(c->driver, c->t, c->x)) != LGC_OK)
        return fault(c, function, rc);
    c->inputs_changed = 0;
    c->evaluated = 0;
    if ((rc = lgc_driver_advance(c->driver, fmin(t1, c->t_stop), c->x)) != LGC_OK) {
        c->t = lgc_driver_time(c->driver);
        return fault(c, function, rc);
    }
    const double t_event = lgc_driver_stop_time(c->driver);
    if (t_event <= t1) {
        c->t = t_event;
        c->terminated = 1;
        say(c, fmi2OK, "logEvents", "a stop event ended the run at t = %.17g", t_event);
        return fmi2Discard;
    }
    c->t = t1;
    return fmi2OK;
}

fmi2Status fmi2CancelStep(fmi2Component component)
{
    lgc_fmu_instance *c = allowed_for(component, "fmi2CancelStep", AFTER_START, fmi2CoSimulation);
    return c ? error(c, "fmi2CancelStep", "fmi2DoStep never returns fmi2Pending here") : fmi2Error;
}

fmi2Status fmi2GetStatus(fmi2Component component, const fmi2StatusKind s, fmi2Status *value)
{
    lgc_fmu_instance *c = allowed_for(component, "fmi2GetStatus", AFTER_START, fmi2CoSimulation);
    if (!c)
        return fmi2Error;
    if (s != fmi2DoStepStatus || !value)
        return error(c, "fmi2GetStatus", "only fmi2DoStepStatus is known");
    *value = c->mode == MODE_ERROR ? fmi2Error : c->terminated ? fmi2Discard : fmi2OK;
    return fmi2OK;
}

fmi2Status fmi2GetRealStatus(fmi2Component component, const fmi2StatusKind s, fmi2Real *value)
{
    lgc_fmu_instance *c = allowed_for(component, "fmi2GetRealStatus", AFTER_START, fmi2CoSimulation);
    if (!c)
        return fmi2Error;
    if (s != fmi2LastSuccessfulTime || !value)
        return error(c, "fmi2GetRealStatus", "only fmi2LastSuccessfulTime is known");
    *value = c->t;
    return fmi2OK;
}

fmi2Status fmi2GetIntegerStatus(fmi2Component component, const fmi2StatusKind s, fmi2Integer *value)
{
    (void)s, (void)value;
    lgc_fmu_instance *c = allowed_for(component, "fmi2GetIntegerStatus", AFTER_START, fmi2CoSimulation);
    return c ? error(c, "fmi2GetIntegerStatus", "no integer status is known") : fmi2Error;
}

fmi2Status fmi2GetBooleanStatus(fmi2Component component, const fmi2StatusKind s, fmi2Boolean *value)
{
    lgc_fmu_instance *c = allowed_for(component, "fmi2GetBooleanStatus", AFTER_START, fmi2CoSimulation);
    if (!c)
        return fmi2Error;
    if (s != fmi2Terminated || !value)
        return error(c, "fmi2GetBooleanStatus", "only fmi2Terminated is known");
    *value = c->terminated;
    return fmi2OK;
}

fmi2Status fmi2GetStringStatus(fmi2Component component, const fmi2StatusKind s, fmi2String *value)
{
    (void)s, (void)value;
    lgc_fmu_instance *c = allowed_for(component, "fmi2GetStringStatus", AFTER_START, fmi2CoSimulation);
    return c ? error(c, "fmi2GetStringStatus", "no string status is known") : fmi2Error;
}

/* ---- Model Exchange -------------------------------------------------------- */

/*
** The spec's events, then each contact's: apart, its phi (plus the margin
** of one just let go or bounced, so that phi's round-off about 0 is no
** crossing); on, its multiplier, which falls through 0 where it lets go.
*/
static void event_indicators(lgc_fmu_instance *c, double out[])
{
    const lgc_model *m = c->m;
    if (m->nevent)
        m->events(c->t, c->x, c->sys.u, c->sys.p, c->mon.s.mult, out);
    if (!m->ncontact)
        return;
    m->residuals(c->t, c->x, c->sys.p, c->residuals, c->residuals + m->nh, c->residuals + 2 * m->nh);
    for (int k = 0; k < m->ncontact; k++) {
        const int row = m->nh - m->ncontact + k;
        out[m->nevent + k] = c->sys.active[row] ? c->mon.s.mult[row] : c->residuals[row] + c->margin[k];
    }
}

fmi2Status fmi2EnterEventMode(fmi2Component component)
{
    lgc_fmu_instance *c = allowed_for(component, "fmi2EnterEventMode", IN(MODE_EVENT) | IN(MODE_CONTINUOUS),
                                      fmi2ModelExchange);
    if (!c)
        return fmi2Error;
    c->mode = MODE_EVENT;
    return fmi2OK;
}

/* A stop event whose indicator crossed, in its direction, since the last step. */
static int stop_event_crossed(const lgc_fmu_instance *c)
{
    const lgc_model *m = c->m;
    for (int i = 0; i < m->nevent; i++) {
        const double before = c->indicators_before[i], now = c->indicators[i];
        const int rising = before < 0.0 && now >= 0.0, falling = before > 0.0 && now <= 0.0;
        const int dir = m->event_direction[i];
        if (m->event_stop[i] && ((rising && dir >= 0) || (falling && dir <= 0)))
            return 1;
    }
    return 0;
}

/*
** A contact that has moved away past its margin, or has stopped moving
** away (its apex), is watched at phi = 0 again: a margin kept longer would
** grow with each bounce too low to clear it, and sink the body. Returns 1
** where one so watched is at or below phi = 0: it hits now. Needs
** c->residuals at (t, x) (event_indicators).
*/
static int release_margins(lgc_fmu_instance *c)
{
    const lgc_model *m = c->m;
    int below = 0;
    for (int k = 0; k < m->ncontact; k++) {
        const int row = m->nh - m->ncontact + k;
        if (c->margin[k] > 0.0 && (c->residuals[row] > c->margin[k] || c->residuals[m->nh + row] <= 0.0)) {
            c->margin[k] = 0.0;
            below |= c->residuals[row] <= lgc_contact_tolerance(m, c->x);
        }
    }
    return below;
}

/*
** The contacts' switches at this event: one on whose multiplier fell
** through 0 lets go; one apart whose phi reached 0 closing hits, and the
** impact (lgc_impact_apply, Newton's law with the contacts' restitution)
** changes the velocities, as the driver's switches do.
*/
static int switch_contacts(lgc_fmu_instance *c, int *changed)
{
    const lgc_model *m = c->m;
    int rc;
    for (int k = 0; k < m->ncontact; k++) {
        const int row = m->nh - m->ncontact + k;
        if ((rc = evaluate(c)) != LGC_OK)
            return rc;
        m->residuals(c->t, c->x, c->sys.p, c->residuals, c->residuals + m->nh, c->residuals + 2 * m->nh);
        const double tol = lgc_contact_tolerance(m, c->x);
        if (c->sys.active[row] && c->mon.s.mult[row] < 0.0) {
            c->sys.active[row] = 0;
        } else if (!c->sys.active[row] && c->residuals[row] + c->margin[k] <= tol
                   && c->residuals[m->nh + row] < 0.0) {
            double v = 0.0;
            for (int i = 0; i < m->nq; i++)
                v = fmax(v, fabs(c->x[m->nq + i]));
            const double rest_speed = sqrt(c->tolerance * (LGC_DEFAULT_ATOL / LGC_DEFAULT_RTOL) + c->tolerance * v);
            const double shortest_flight = 1e3 * 2.220446049250313e-16 * fmax(1.0, fabs(c->t));
            rc = lgc_impact_apply(&c->impact, &c->sys, c->t, c->x, k, tol, rest_speed, shortest_flight);
            if (rc != LGC_OK)
                return rc;
        } else {
            continue;
        }
        *changed = 1;
        c->evaluated = 0;
        /* Apart now: watched from below where it is, so that it must move away before it can hit. */
        m->residuals(c->t, c->x, c->sys.p, c->residuals, c->residuals + m->nh, c->residuals + 2 * m->nh);
        for (int j = 0; j < m->ncontact; j++) {
            const int row_j = m->nh - m->ncontact + j;
            c->margin[j] = c->sys.active[row_j] ? 0.0 : tol + fmax(0.0, -c->residuals[row_j]);
        }
    }
    return LGC_OK;
}

fmi2Status fmi2NewDiscreteStates(fmi2Component component, fmi2EventInfo *info)
{
    static const char *const function = "fmi2NewDiscreteStates";
    lgc_fmu_instance *c = allowed_for(component, function, IN(MODE_EVENT), fmi2ModelExchange);
    if (!c)
        return fmi2Error;
    if (!info)
        return error(c, function, "no fmi2EventInfo");
    int rc, changed = 0;
    if ((rc = evaluate(c)) != LGC_OK)
        return fault(c, function, rc);
    event_indicators(c, c->indicators);
    info->terminateSimulation = stop_event_crossed(c);
    release_margins(c);     /* as at a step: an event may be a contact's apex */
    if (!info->terminateSimulation && (rc = switch_contacts(c, &changed)) != LGC_OK)
        return fault(c, function, rc);
    if ((rc = evaluate(c)) != LGC_OK)
        return fault(c, function, rc);
    event_indicators(c, c->indicators_before);
    info->newDiscreteStatesNeeded = fmi2False;
    info->nominalsOfContinuousStatesChanged = fmi2False;
    info->valuesOfContinuousStatesChanged = changed;
    info->nextEventTimeDefined = fmi2False;
    info->nextEventTime = 0.0;
    return fmi2OK;
}

fmi2Status fmi2EnterContinuousTimeMode(fmi2Component component)
{
    lgc_fmu_instance *c = allowed_for(component, "fmi2EnterContinuousTimeMode", IN(MODE_EVENT), fmi2ModelExchange);
    if (!c)
        return fmi2Error;
    c->mode = MODE_CONTINUOUS;
    return fmi2OK;
}

fmi2Status fmi2CompletedIntegratorStep(fmi2Component component, fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi2Boolean *enterEventMode, fmi2Boolean *terminateSimulation)
{
    static const char *const function = "fmi2CompletedIntegratorStep";
    (void)noSetFMUStatePriorToCurrentPoint;
    lgc_fmu_instance *c = allowed_for(component, function, IN(MODE_CONTINUOUS), fmi2ModelExchange);
    if (!c)
        return fmi2Error;
    if (!enterEventMode || !terminateSimulation)
        return error(c, function, "no flags to set");
    int rc = evaluate(c);
    if (rc != LGC_OK)
        return fault(c, function, rc);
    event_indicators(c, c->indicators_before);
    const int below = release_margins(c);
    event_indicators(c, c->indicators_before);
    *enterEventMode = below;
    *terminateSimulation = fmi2False;
    return fmi2OK;
}

fmi2Status fmi2SetTime(fmi2Component component, fmi2Real time)
{
    /* Initialization mode too: importers set the start time there, as fmi2SetupExperiment does. */
    lgc_fmu_instance *c = allowed_for(component, "fmi2SetTime",
                                      IN(MODE_INITIALIZATION) | IN(MODE_EVENT) | IN(MODE_CONTINUOUS),
                                      fmi2ModelExchange);
    if (!c)
        return fmi2Error;
    if (!isfinite(time))
        return error(c, "fmi2SetTime", "the time %g is not finite", time);
    c->t = time;
    c->evaluated = 0;
    return fmi2OK;
}

/* An array of the states' length, else an error. */
static int states_array(lgc_fmu_instance *c, const char *function, const void *array, size_t n)
{
    if (!array && n > 0) {
        error(c, function, "no array");
        return 0;
    }
    if (n != (size_t)c->m->nx) {
        error(c, function, "%zu values for the %d states", n, c->m->nx);
        return 0;
    }
    return 1;
}

fmi2Status fmi2SetContinuousStates(fmi2Component component, const fmi2Real x[], size_t nx)
{
    static const char *const function = "fmi2SetContinuousStates";
    lgc_fmu_instance *c = allowed_for(component, function, IN(MODE_CONTINUOUS), fmi2ModelExchange);
    if (!c || !states_array(c, function, x, nx))
        return fmi2Error;
    for (size_t i = 0; i < nx; i++)
        if (!isfinite(x[i]))
            return error(c, function, "%s = %g: not a finite number", c->m->state_names[i], x[i]);
    memcpy(c->x, x, nx * sizeof *x);
    c->evaluated = 0;
    return fmi2OK;
}

#define ME_VALUES (IN(MODE_INITIALIZATION) | IN(MODE_EVENT) | IN(MODE_CONTINUOUS) | IN(MODE_TERMINATED) | IN(MODE_ERROR))

fmi2Status fmi2GetDerivatives(fmi2Component component, fmi2Real derivatives[], size_t nx)
{
    static const char *const function = "fmi2GetDerivatives";
    lgc_fmu_instance *c = allowed_for(component, function, ME_VALUES, fmi2ModelExchange);
    if (!c || !states_array(c, function, derivatives, nx))
        return fmi2Error;
    int rc = evaluate(c);
    if (rc != LGC_OK)
        return fault(c, function, rc);
    memcpy(derivatives, c->mon.dxdt, nx * sizeof *derivatives);
    return fmi2OK;
}

fmi2Status fmi2GetEventIndicators(fmi2Component component, fmi2Real eventIndicators[], size_t ni)
{
    static const char *const function = "fmi2GetEventIndicators";
    lgc_fmu_instance *c = allowed_for(component, function, ME_VALUES, fmi2ModelExchange);
    if (!c)
        return fmi2Error;
    const int n = lgc_fmu_event_indicator_count(c->m);
    if (ni != (size_t)n || (ni > 0 && !eventIndicators))
        return error(c, function, "%zu values for the %d event indicators", ni, n);
    int rc = evaluate(c);
    if (rc != LGC_OK)
        return fault(c, function, rc);
    event_indicators(c, c->indicators);
    memcpy(eventIndicators, c->indicators, ni * sizeof *eventIndicators);
    return fmi2OK;
}

fmi2Status fmi2GetContinuousStates(fmi2Component component, fmi2Real x[], size_t nx)
{
    static const char *const function = "fmi2GetContinuousStates";
    lgc_fmu_instance *c = allowed_for(component, function, ME_VALUES, fmi2ModelExchange);
    if (!c || !states_array(c, function, x, nx))
        return fmi2Error;
    memcpy(x, c->x, nx * sizeof *x);
    return fmi2OK;
}

fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component component, fmi2Real x_nominal[], size_t nx)
{
    static const char *const function = "fmi2GetNominalsOfContinuousStates";
    lgc_fmu_instance *c = allowed_for(component, function, IN(MODE_INSTANTIATED) | ME_VALUES, fmi2ModelExchange);
    if (!c || !states_array(c, function, x_nominal, nx))
        return fmi2Error;
    for (size_t i = 0; i < nx; i++)
        x_nominal[i] = 1.0;
    return fmi2OK;
}
