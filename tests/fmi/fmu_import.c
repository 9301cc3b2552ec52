/*
** fmu_import.c — a minimal FMI 2.0 importer: dlopens an unzipped FMU's
** binaries/linux64/NAME.so and drives the standard's calling sequences.
**
**   fmu_import run DIR NAME GUID cs|me T_END DT H NX NIND [param:|enum:|set:|tune:VR=VALUE...] [at:T] VR...
**     sets the parameters (Real, Enumeration) before initialisation and the
**     inputs once initialised (a running instance's inputs changed), then prints t and the variables VR... as CSV every
**     DT up to T_END: by
**     Co-Simulation (fmi2DoStep of DT), or by Model Exchange with this
**     importer's own integrator, RK4 of step H (dividing DT), whose steps
**     each event indicator's sign change is bisected to 1e-13 in, then
**     handled in event mode as the standard's state machine says (and a
**     step event, where fmi2CompletedIntegratorStep asks for one); a stop
**     event (fmi2Discard, or terminateSimulation) ends it with a row at its
**     time, as simulate's last.
**   fmu_import changes DIR NAME GUID NX NIN VR_INPUT... VR_OUTPUT...
**     which derivatives and outputs each state and input moves
**     (run_changes): the test compares them with ModelStructure.
**   fmu_import checks DIR NAME GUID NX NIND VR_PARAMETER VR_OUTPUT VR_UNKNOWN DIRECTIONAL VR_METHOD VR_STEP
**     the state machine's error paths (calls out of order, unknown value
**     references, a wrong GUID, a kind's function on the other kind): each
**     fmi2Error and a message to the logger, never a crash; two instances
**     in one process independent; a parameter tunable in Event Mode and
**     between steps, solver.step not; no heap allocation inside fmi2DoStep (in
**     a build without sanitizers); directional derivatives against central
**     differences where DIRECTIONAL is 1, refused where 0.
*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include "check.h"
#include "fmi2FunctionTypes.h"

/* ---- heap calls, counted around fmi2DoStep ---------------------------------- */

static unsigned long heap_calls;
#if COUNT_ALLOCATIONS
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
void *malloc(size_t n) { ++heap_calls; return __libc_malloc(n); }
void *calloc(size_t n, size_t size) { ++heap_calls; return __libc_calloc(n, size); }
void *realloc(void *p, size_t n) { ++heap_calls; return __libc_realloc(p, n); }
#endif

/* ---- the FMU's functions ---------------------------------------------------- */

typedef struct fmu {
    void *library;
    fmi2InstantiateTYPE *Instantiate;
    fmi2FreeInstanceTYPE *FreeInstance;
    fmi2SetupExperimentTYPE *SetupExperiment;
    fmi2EnterInitializationModeTYPE *EnterInitializationMode;
    fmi2ExitInitializationModeTYPE *ExitInitializationMode;
    fmi2TerminateTYPE *Terminate;
    fmi2ResetTYPE *Reset;
    fmi2GetRealTYPE *GetReal;
    fmi2SetRealTYPE *SetReal;
    fmi2GetVersionTYPE *GetVersion;
    fmi2GetTypesPlatformTYPE *GetTypesPlatform;
    fmi2DoStepTYPE *DoStep;
    fmi2GetBooleanStatusTYPE *GetBooleanStatus;
    fmi2GetRealStatusTYPE *GetRealStatus;
    fmi2EnterEventModeTYPE *EnterEventMode;
    fmi2NewDiscreteStatesTYPE *NewDiscreteStates;
    fmi2EnterContinuousTimeModeTYPE *EnterContinuousTimeMode;
    fmi2CompletedIntegratorStepTYPE *CompletedIntegratorStep;
    fmi2SetTimeTYPE *SetTime;
    fmi2SetContinuousStatesTYPE *SetContinuousStates;
    fmi2GetContinuousStatesTYPE *GetContinuousStates;
    fmi2GetDerivativesTYPE *GetDerivatives;
    fmi2GetEventIndicatorsTYPE *GetEventIndicators;
    fmi2GetFMUstateTYPE *GetFMUstate;
    fmi2GetDirectionalDerivativeTYPE *GetDirectionalDerivative;
    fmi2SetDebugLoggingTYPE *SetDebugLogging;
    fmi2GetIntegerTYPE *GetInteger;
    fmi2SetIntegerTYPE *SetInteger;
} fmu;

static const char *dir, *model_name, *guid;
static fmu f;
/*
** run: what the arguments set: parameters before initialisation
** ("param:VR=VALUE", Real; "enum:VR=VALUE", an Enumeration), inputs once
** the instance runs ("set:VR=VALUE"), and parameters tuned at the first
** communication point at or past T ("tune:VR=VALUE", "at:T"): between
** steps (Co-Simulation), in Event Mode (Model Exchange).
*/
typedef struct settings {
    fmi2ValueReference vr[8];
    double value[8];
    size_t n;
} settings;
static settings parameters, enumerations, inputs, tunes;
static double tune_time = INFINITY;

static int take_setting(settings *s, const char *text)
{
    return s->n < 8 && sscanf(text, "%u=%lf", &s->vr[s->n], &s->value[s->n]) == 2 ? (int)++s->n : 0;
}

static void *symbol(const char *name)
{
    void *s = dlsym(f.library, name);
    if (!s) {
        fprintf(stderr, "fmu_import: %s: %s\n", name, dlerror());
        exit(1);
    }
    return s;
}

static void load(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/binaries/linux64/%s.so", dir, model_name);
    if (!(f.library = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        fprintf(stderr, "fmu_import: %s\n", dlerror());
        exit(1);
    }
#define LOAD(name) f.name = symbol("fmi2" #name)
    LOAD(Instantiate); LOAD(FreeInstance); LOAD(SetupExperiment); LOAD(EnterInitializationMode);
    LOAD(ExitInitializationMode); LOAD(Terminate); LOAD(Reset); LOAD(GetReal); LOAD(SetReal);
    LOAD(GetVersion); LOAD(GetTypesPlatform); LOAD(DoStep); LOAD(GetBooleanStatus); LOAD(GetRealStatus); LOAD(EnterEventMode);
    LOAD(NewDiscreteStates); LOAD(EnterContinuousTimeMode); LOAD(CompletedIntegratorStep); LOAD(SetTime);
    LOAD(SetContinuousStates); LOAD(GetContinuousStates); LOAD(GetDerivatives); LOAD(GetEventIndicators);
    LOAD(GetFMUstate); LOAD(GetDirectionalDerivative);
    LOAD(SetDebugLogging); LOAD(GetInteger); LOAD(SetInteger);
#undef LOAD
}

/* ---- callbacks -------------------------------------------------------------- */

static int errors_logged;
static int quiet_log;

static void logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status, fmi2String category,
                   fmi2String message, ...)
{
    (void)env;
    if (status >= fmi2Error)
        errors_logged++;
    if (quiet_log)
        return;
    va_list args;
    va_start(args, message);
    fprintf(stderr, "[%s %s %d] ", instance, category, (int)status);
    vfprintf(stderr, message, args);
    fputc('\n', stderr);
    va_end(args);
}

static void *allocate(size_t n, size_t size) { return calloc(n, size); }

static const fmi2CallbackFunctions callbacks = {logger, allocate, free, NULL, NULL};

static fmi2Component instantiate(const char *name, fmi2Type type)
{
    return f.Instantiate(name, type, guid, "", &callbacks, fmi2False, fmi2False);
}

static void must(fmi2Status status, const char *what)
{
    if (status != fmi2OK) {
        fprintf(stderr, "fmu_import: %s returned %d\n", what, (int)status);
        exit(1);
    }
}

/* ---- run: a trajectory --------------------------------------------------- */

static void print_row(fmi2Component c, double t, const fmi2ValueReference vr[], size_t nvr, double values[])
{
    must(f.GetReal(c, vr, nvr, values), "fmi2GetReal");
    printf("%.17g", t);
    for (size_t i = 0; i < nvr; i++)
        printf(",%.17g", values[i]);
    putchar('\n');
}

static void start(fmi2Component c, double t_end)
{
    must(f.SetupExperiment(c, fmi2True, 1e-8, 0.0, fmi2True, t_end), "fmi2SetupExperiment");
    must(f.SetReal(c, parameters.vr, parameters.n, parameters.value), "fmi2SetReal (the parameters)");
    for (size_t i = 0; i < enumerations.n; i++)
        must(f.SetInteger(c, &enumerations.vr[i], 1, &(fmi2Integer){(fmi2Integer)enumerations.value[i]}),
             "fmi2SetInteger");
    must(f.EnterInitializationMode(c), "fmi2EnterInitializationMode");
    must(f.ExitInitializationMode(c), "fmi2ExitInitializationMode");
    /* Inputs change at a running instance: in step-complete mode, or in event mode. */
    must(f.SetReal(c, inputs.vr, inputs.n, inputs.value), "fmi2SetReal (the inputs)");
}

static int run_cs(double t_end, double dt, const fmi2ValueReference vr[], size_t nvr, double values[])
{
    fmi2Component c = instantiate("cs", fmi2CoSimulation);
    if (!c)
        return 1;
    start(c, t_end);
    const long n = lround(t_end / dt);
    print_row(c, 0.0, vr, nvr, values);
    for (long k = 0; k < n; k++) {
        if (tunes.n && (double)k * dt >= tune_time - 1e-12) {
            must(f.SetReal(c, tunes.vr, tunes.n, tunes.value), "fmi2SetReal (tuning the parameters)");
            tunes.n = 0;
        }
        fmi2Status s = f.DoStep(c, (double)k * dt, (double)(k + 1) * dt - (double)k * dt, fmi2True);
        if (s == fmi2Discard) {     /* a stop event: the last row is at its time */
            fmi2Boolean terminated = fmi2False;
            double t_event;
            must(f.GetBooleanStatus(c, fmi2Terminated, &terminated), "fmi2GetBooleanStatus");
            must(f.GetRealStatus(c, fmi2LastSuccessfulTime, &t_event), "fmi2GetRealStatus");
            if (!terminated)
                return 1;
            print_row(c, t_event, vr, nvr, values);
            break;
        }
        must(s, "fmi2DoStep");
        print_row(c, (double)(k + 1) * dt, vr, nvr, values);
    }
    f.Terminate(c);
    f.FreeInstance(c);
    return 0;
}

typedef struct me_run {
    fmi2Component c;
    size_t nx, nind;
    double *x, *k[4], *tmp, *ind_before, *ind_now, *x0;
} me_run;

static void derivatives_at(me_run *r, double t, const double x[], double dxdt[])
{
    must(f.SetTime(r->c, t), "fmi2SetTime");
    must(f.SetContinuousStates(r->c, x, r->nx), "fmi2SetContinuousStates");
    must(f.GetDerivatives(r->c, dxdt, r->nx), "fmi2GetDerivatives");
}

/* One RK4 step of h from (t, x0) into x. */
static void rk4(me_run *r, double t, const double x0[], double h, double x[])
{
    const size_t n = r->nx;
    static const double a[] = {0.0, 0.5, 0.5, 1.0};
    for (int s = 0; s < 4; s++) {
        for (size_t i = 0; i < n; i++)
            r->tmp[i] = x0[i] + (s ? a[s] * h * r->k[s - 1][i] : 0.0);
        derivatives_at(r, t + a[s] * h, r->tmp, r->k[s]);
    }
    for (size_t i = 0; i < n; i++)
        x[i] = x0[i] + h / 6.0 * (r->k[0][i] + 2.0 * r->k[1][i] + 2.0 * r->k[2][i] + r->k[3][i]);
}

static void indicators_at(me_run *r, double t, const double x[], double out[])
{
    must(f.SetTime(r->c, t), "fmi2SetTime");
    must(f.SetContinuousStates(r->c, x, r->nx), "fmi2SetContinuousStates");
    must(f.GetEventIndicators(r->c, out, r->nind), "fmi2GetEventIndicators");
}

static int crossed(const me_run *r, const double before[], const double now[])
{
    for (size_t i = 0; i < r->nind; i++)
        if ((before[i] > 0.0 && now[i] <= 0.0) || (before[i] < 0.0 && now[i] >= 0.0))
            return 1;
    return 0;
}

/* In event mode: the discrete states settled, continuous-time mode, the states read back. Returns terminate. */
static int settle(me_run *r, double x[])
{
    fmi2EventInfo info;
    do
        must(f.NewDiscreteStates(r->c, &info), "fmi2NewDiscreteStates");
    while (info.newDiscreteStatesNeeded && !info.terminateSimulation);
    if (info.terminateSimulation)
        return 1;
    must(f.EnterContinuousTimeMode(r->c), "fmi2EnterContinuousTimeMode");
    must(f.GetContinuousStates(r->c, x, r->nx), "fmi2GetContinuousStates");
    return 0;
}

/* An event at (t, x), from continuous-time mode. Returns terminate. */
static int handle_event(me_run *r, double t, double x[])
{
    must(f.SetTime(r->c, t), "fmi2SetTime");
    must(f.SetContinuousStates(r->c, x, r->nx), "fmi2SetContinuousStates");
    must(f.EnterEventMode(r->c), "fmi2EnterEventMode");
    return settle(r, x);
}

/*
** From (t, x) to t1: RK4 steps of at most h; a step in which an indicator
** changes sign is bisected (the same RK4 from the step's start) to the
** crossing, where the event is handled, and the rest of the step taken.
*/
static int advance_me(me_run *r, double *t, double x[], double t1, double h)
{
    while (*t < t1 - 1e-12) {
        const double step = fmin(h, t1 - *t);
        memcpy(r->x0, x, r->nx * sizeof *x);
        rk4(r, *t, r->x0, step, x);
        indicators_at(r, *t + step, x, r->ind_now);
        if (!crossed(r, r->ind_before, r->ind_now)) {
            *t += step;
            fmi2Boolean enter, terminate;
            must(f.CompletedIntegratorStep(r->c, fmi2True, &enter, &terminate), "fmi2CompletedIntegratorStep");
            if (terminate || (enter && handle_event(r, *t, x)))
                return 1;
            must(f.GetEventIndicators(r->c, r->ind_before, r->nind), "fmi2GetEventIndicators");
            continue;
        }
        double lo = 0.0, hi = step;
        while (hi - lo > 1e-13) {
            const double mid = 0.5 * (lo + hi);
            rk4(r, *t, r->x0, mid, x);
            indicators_at(r, *t + mid, x, r->ind_now);
            if (crossed(r, r->ind_before, r->ind_now))
                hi = mid;
            else
                lo = mid;
        }
        rk4(r, *t, r->x0, hi, x);
        *t += hi;
        if (handle_event(r, *t, x))
            return 1;
        indicators_at(r, *t, x, r->ind_before);
    }
    *t = t1;
    return 0;
}

static int run_me(double t_end, double dt, double h, const fmi2ValueReference vr[], size_t nvr, double values[],
                  size_t nx, size_t nind)
{
    me_run r = {.nx = nx, .nind = nind};
    if (!(r.c = instantiate("me", fmi2ModelExchange)))
        return 1;
    double *block = calloc(9 * (nx + nind) + 9, sizeof *block);
    r.x = block, r.tmp = r.x + nx, r.x0 = r.tmp + nx, r.ind_before = r.x0 + nx, r.ind_now = r.ind_before + nind;
    for (int s = 0; s < 4; s++)
        r.k[s] = r.ind_now + nind + (size_t)s * nx;
    start(r.c, t_end);
    double t = 0.0;
    int terminate = settle(&r, r.x);
    indicators_at(&r, t, r.x, r.ind_before);
    print_row(r.c, t, vr, nvr, values);
    const long n = lround(t_end / dt);
    for (long k = 1; k <= n && !terminate; k++) {
        if (tunes.n && t >= tune_time - 1e-12) {
            must(f.EnterEventMode(r.c), "fmi2EnterEventMode");
            must(f.SetReal(r.c, tunes.vr, tunes.n, tunes.value), "fmi2SetReal (tuning the parameters)");
            tunes.n = 0;
            if ((terminate = settle(&r, r.x)))
                break;
            indicators_at(&r, t, r.x, r.ind_before);
        }
        /* A stop event leaves the FMU in event mode at its state: the last row is at its time. */
        if (!(terminate = advance_me(&r, &t, r.x, (double)k * dt, h))) {
            must(f.SetTime(r.c, t), "fmi2SetTime");
            must(f.SetContinuousStates(r.c, r.x, nx), "fmi2SetContinuousStates");
        }
        print_row(r.c, t, vr, nvr, values);
    }
    f.Terminate(r.c);
    f.FreeInstance(r.c);
    free(block);
    return 0;
}

/* ---- changes: which unknowns each state and input moves ------------------- */

/*
** Model Exchange at the start (states perturbed first by `spread`, so that
** no velocity is 0 and few terms vanish), in continuous-time mode: for each
** state and each input (VR_INPUT...), one line "state J" or "input VR" and
** the unknowns (VR_UNKNOWN...: derivatives by their state's index as
** "der:K", outputs by value reference) whose value a relative change of
** 1e-6 moves by more than 1e-12 relative: what a dependency list must hold.
*/
static int run_changes(size_t nx, const fmi2ValueReference in[], size_t nin, const fmi2ValueReference out[],
                       size_t nout)
{
    fmi2Component c = instantiate("changes", fmi2ModelExchange);
    if (!c)
        return 1;
    must(f.SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0), "fmi2SetupExperiment");
    must(f.EnterInitializationMode(c), "fmi2EnterInitializationMode");
    must(f.ExitInitializationMode(c), "fmi2ExitInitializationMode");
    fmi2EventInfo info;
    do
        must(f.NewDiscreteStates(c, &info), "fmi2NewDiscreteStates");
    while (info.newDiscreteStatesNeeded && !info.terminateSimulation);
    must(f.EnterContinuousTimeMode(c), "fmi2EnterContinuousTimeMode");
    double *block = calloc(4 * nx + 2 * nout + nin + 4, sizeof *block);
    double *x = block, *dx0 = x + nx, *dx = dx0 + nx, *x1 = dx + nx, *y0 = x1 + nx, *y = y0 + nout, *u = y + nout;
    must(f.GetContinuousStates(c, x, nx), "fmi2GetContinuousStates");
    for (size_t j = 0; j < nx; j++)
        x[j] += 0.1 * (double)(j % 7 + 1) / 7.0;
    must(f.SetContinuousStates(c, x, nx), "fmi2SetContinuousStates");
    if (nin)
        must(f.GetReal(c, in, nin, u), "fmi2GetReal (the inputs)");
    for (size_t k = 0; k < nin; k++)
        u[k] += 0.3;
    if (nin)
        must(f.SetReal(c, in, nin, u), "fmi2SetReal (the inputs)");
    must(f.GetDerivatives(c, dx0, nx), "fmi2GetDerivatives");
    if (nout)
        must(f.GetReal(c, out, nout, y0), "fmi2GetReal (the outputs)");
    for (size_t j = 0; j < nx + nin; j++) {
        const int state = j < nx;
        const double h = 1e-6 * fmax(1.0, fabs(state ? x[j] : u[j - nx]));
        if (state) {
            memcpy(x1, x, nx * sizeof *x);
            x1[j] += h;
            must(f.SetContinuousStates(c, x1, nx), "fmi2SetContinuousStates");
            printf("state %zu", j);
        } else {
            double v = u[j - nx] + h;
            must(f.SetReal(c, &in[j - nx], 1, &v), "fmi2SetReal (an input)");
            printf("input %u", (unsigned)in[j - nx]);
        }
        must(f.GetDerivatives(c, dx, nx), "fmi2GetDerivatives");
        if (nout)
            must(f.GetReal(c, out, nout, y), "fmi2GetReal (the outputs)");
        for (size_t k = 0; k < nx; k++)
            if (fabs(dx[k] - dx0[k]) > 1e-12 * fmax(1.0, fabs(dx0[k])))
                printf(" der:%zu", k);
        for (size_t k = 0; k < nout; k++)
            if (fabs(y[k] - y0[k]) > 1e-12 * fmax(1.0, fabs(y0[k])))
                printf(" %u", (unsigned)out[k]);
        putchar('\n');
        if (state)
            must(f.SetContinuousStates(c, x, nx), "fmi2SetContinuousStates");
        else
            must(f.SetReal(c, &in[j - nx], 1, &u[j - nx]), "fmi2SetReal (an input)");
    }
    f.Terminate(c);
    f.FreeInstance(c);
    free(block);
    return 0;
}

/* ---- checks: the state machine's error paths, two instances ---------------- */

static size_t check_nx, check_nind;
static int check_directional;   /* modelDescription.xml's providesDirectionalDerivative (ModelExchange) */
static fmi2ValueReference vr_parameter, vr_output, vr_unknown, vr_method, vr_step;

/* A call that must fail with fmi2Error and say why to the logger. */
#define REFUSED(call)                                                                     \
    do {                                                                                  \
        const int logged_ = errors_logged;                                                \
        const fmi2Status status_ = (call);                                                \
        check(status_ == fmi2Error, "%s returned %d, not fmi2Error", #call, (int)status_); \
        check(errors_logged > logged_, "%s said nothing to the logger", #call);           \
    } while (0)

static void test_versions(void **state)
{
    (void)state;
    assert_string_equal(f.GetVersion(), "2.0");
    assert_string_equal(f.GetTypesPlatform(), "default");
}

static void test_instantiate_refusals(void **state)
{
    (void)state;
    const int logged = errors_logged;
    assert_null(f.Instantiate("bad", fmi2CoSimulation, "{not-this-fmu}", "", &callbacks, fmi2False, fmi2False));
    assert_true(errors_logged > logged);
    assert_null(f.Instantiate("bad", fmi2CoSimulation, guid, "", NULL, fmi2False, fmi2False));
    assert_null(f.Instantiate("", fmi2CoSimulation, guid, "", &callbacks, fmi2False, fmi2False));
    assert_null(f.Instantiate("bad", (fmi2Type)7, guid, "", &callbacks, fmi2False, fmi2False));
    f.FreeInstance(NULL);
    assert_int_equal(f.DoStep(NULL, 0.0, 0.1, fmi2True), fmi2Error);
}

static void test_cs_out_of_order(void **state)
{
    (void)state;
    fmi2Component c = instantiate("order", fmi2CoSimulation);
    assert_non_null(c);
    double v[1];
    REFUSED(f.DoStep(c, 0.0, 0.1, fmi2True));
    REFUSED(f.ExitInitializationMode(c));
    REFUSED(f.SetDebugLogging(c, fmi2True, 1, (fmi2String[]){"logEverything"}));
    /* solver.method is an Enumeration: the Integer functions, its items only. */
    REFUSED(f.SetReal(c, &vr_method, 1, (double[]){2.0}));
    REFUSED(f.SetInteger(c, &vr_method, 1, (fmi2Integer[]){99}));
    REFUSED(f.SetInteger(c, &vr_parameter, 1, (fmi2Integer[]){1}));
    assert_int_equal(f.SetInteger(c, &vr_method, 1, (fmi2Integer[]){2}), fmi2OK);   /* rk4: needs a step */
    assert_int_equal(f.SetDebugLogging(c, fmi2False, 2, (fmi2String[]){"logEvents", "logStatusError"}), fmi2OK);
    REFUSED(f.GetReal(c, &vr_output, 1, v));
    REFUSED(f.Terminate(c));
    assert_int_equal(f.SetupExperiment(c, fmi2True, 1e-8, 0.0, fmi2True, 1.0), fmi2OK);
    assert_int_equal(f.EnterInitializationMode(c), fmi2OK);
    REFUSED(f.SetupExperiment(c, fmi2True, 1e-8, 0.0, fmi2True, 1.0));
    REFUSED(f.DoStep(c, 0.0, 0.1, fmi2True));
    REFUSED(f.ExitInitializationMode(c));                          /* rk4 without solver.step */
    fmi2Integer method;
    assert_int_equal(f.GetInteger(c, &vr_method, 1, &method), fmi2OK);
    assert_int_equal(method, 2);
    assert_int_equal(f.SetInteger(c, &vr_method, 1, (fmi2Integer[]){1}), fmi2OK);
    assert_int_equal(f.ExitInitializationMode(c), fmi2OK);
    REFUSED(f.SetInteger(c, &vr_method, 1, (fmi2Integer[]){2}));  /* fixed after initialisation */
    REFUSED(f.SetReal(c, &vr_step, 1, (double[]){0.01}));        /* solver.step: fixed after initialisation */
    REFUSED(f.SetReal(c, &vr_parameter, 1, (double[]){NAN}));
    double p;
    assert_int_equal(f.GetReal(c, &vr_parameter, 1, &p), fmi2OK);
    assert_int_equal(f.SetReal(c, &vr_parameter, 1, &p), fmi2OK);   /* tunable between steps */
    REFUSED(f.SetReal(c, &vr_output, 1, (double[]){2.0}));       /* an output */
    REFUSED(f.GetReal(c, &vr_unknown, 1, v));
    REFUSED(f.SetReal(c, &vr_unknown, 1, (double[]){1.0}));
    REFUSED(f.DoStep(c, 0.5, 0.1, fmi2True));                    /* not where it is */
    REFUSED(f.DoStep(c, 0.0, -0.1, fmi2True));
    REFUSED(f.DoStep(c, 0.0, 2.0, fmi2True));                    /* past the stop time */
    REFUSED(f.GetDerivatives(c, v, check_nx));                     /* Model Exchange's */
    REFUSED(f.EnterEventMode(c));
    REFUSED(f.GetFMUstate(c, &(fmi2FMUstate){NULL}));
    assert_int_equal(f.DoStep(c, 0.0, 0.1, fmi2True), fmi2OK);
    assert_int_equal(f.Terminate(c), fmi2OK);
    REFUSED(f.DoStep(c, 0.1, 0.1, fmi2True));
    /* After fmi2Reset it starts again from the beginning. */
    assert_int_equal(f.Reset(c), fmi2OK);
    REFUSED(f.DoStep(c, 0.0, 0.1, fmi2True));
    f.FreeInstance(c);
}

static void test_me_out_of_order(void **state)
{
    (void)state;
    fmi2Component c = instantiate("order-me", fmi2ModelExchange);
    assert_non_null(c);
    double x[64], ind[64];
    fmi2EventInfo info;
    fmi2Boolean enter, terminate;
    assert_true(check_nx <= 64 && check_nind < 64);
    REFUSED(f.GetDerivatives(c, x, check_nx));
    REFUSED(f.NewDiscreteStates(c, &info));
    REFUSED(f.DoStep(c, 0.0, 0.1, fmi2True));                    /* Co-Simulation's */
    assert_int_equal(f.SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0), fmi2OK);
    assert_int_equal(f.EnterInitializationMode(c), fmi2OK);
    assert_int_equal(f.ExitInitializationMode(c), fmi2OK);
    /* Event mode: the parameters are tunable, solver.step is not. */
    REFUSED(f.SetContinuousStates(c, x, check_nx));
    REFUSED(f.SetReal(c, &vr_step, 1, (double[]){0.01}));
    double p;
    assert_int_equal(f.GetReal(c, &vr_parameter, 1, &p), fmi2OK);
    assert_int_equal(f.SetReal(c, &vr_parameter, 1, &p), fmi2OK);
    REFUSED(f.CompletedIntegratorStep(c, fmi2True, &enter, &terminate));
    assert_int_equal(f.NewDiscreteStates(c, &info), fmi2OK);
    assert_int_equal(f.EnterContinuousTimeMode(c), fmi2OK);
    /* Continuous-time mode */
    REFUSED(f.NewDiscreteStates(c, &info));
    REFUSED(f.GetContinuousStates(c, x, check_nx + 1));
    REFUSED(f.GetEventIndicators(c, ind, check_nind + 1));
    REFUSED(f.SetReal(c, &vr_parameter, 1, (double[]){2.0}));
    REFUSED(f.SetTime(c, NAN));
    assert_int_equal(f.GetContinuousStates(c, x, check_nx), fmi2OK);
    x[0] = NAN;
    REFUSED(f.SetContinuousStates(c, x, check_nx));
    assert_int_equal(f.GetDerivatives(c, x, check_nx), fmi2OK);
    assert_int_equal(f.CompletedIntegratorStep(c, fmi2True, &enter, &terminate), fmi2OK);
    assert_int_equal(f.Terminate(c), fmi2OK);
    f.FreeInstance(c);
}

/* Steps c to t_end by dt and returns its state vector's first entry and the output. */
static void step_to(fmi2Component c, double t_end, double dt, double out[2])
{
    const long n = lround(t_end / dt);
    for (long k = 0; k < n; k++)
        assert_int_equal(f.DoStep(c, (double)k * dt, (double)(k + 1) * dt - (double)k * dt, fmi2True), fmi2OK);
    const fmi2ValueReference vr[2] = {0, vr_output};
    assert_int_equal(f.GetReal(c, vr, 2, out), fmi2OK);
}

static void test_two_instances(void **state)
{
    (void)state;
    /* Alone, at the defaults. */
    double alone[2], a_out[2], b_out[2];
    fmi2Component solo = instantiate("solo", fmi2CoSimulation);
    start(solo, 2.0);
    step_to(solo, 2.0, 0.01, alone);
    f.FreeInstance(solo);
    /* Two at once, one of them at another parameter value, stepped in turns. */
    fmi2Component a = instantiate("a", fmi2CoSimulation), b = instantiate("b", fmi2CoSimulation);
    assert_non_null(a);
    assert_non_null(b);
    double p;
    assert_int_equal(f.GetReal(b, &vr_parameter, 1, &p), fmi2Error);  /* not before initialisation */
    assert_int_equal(f.SetReal(b, &vr_parameter, 1, (double[]){2.0}), fmi2OK);
    must(f.SetupExperiment(a, fmi2True, 1e-8, 0.0, fmi2True, 2.0), "setup a");
    must(f.SetupExperiment(b, fmi2True, 1e-8, 0.0, fmi2True, 2.0), "setup b");
    must(f.EnterInitializationMode(a), "init a");
    must(f.EnterInitializationMode(b), "init b");
    must(f.ExitInitializationMode(b), "exit b");
    must(f.ExitInitializationMode(a), "exit a");
    const fmi2ValueReference vr[2] = {0, vr_output};
    for (long k = 0; k < 200; k++) {
        const double t = (double)k * 0.01, h = (double)(k + 1) * 0.01 - t;
        assert_int_equal(f.DoStep(b, t, h, fmi2True), fmi2OK);
        assert_int_equal(f.DoStep(a, t, h, fmi2True), fmi2OK);
    }
    assert_int_equal(f.GetReal(a, vr, 2, a_out), fmi2OK);
    assert_int_equal(f.GetReal(b, vr, 2, b_out), fmi2OK);
    /* a ran as if alone, to the bit; b, at its own parameter, elsewhere. */
    assert_true(a_out[0] == alone[0] && a_out[1] == alone[1]);
    check(b_out[0] != a_out[0] || b_out[1] != a_out[1], "b at another parameter ran as a did");
    f.FreeInstance(a);
    f.FreeInstance(b);
}

static void test_no_allocation_in_do_step(void **state)
{
    (void)state;
    if (!COUNT_ALLOCATIONS)
        skip();     /* a sanitizer's allocator: this importer cannot count */
    const unsigned long at_start = heap_calls;
    fmi2Component c = instantiate("heap", fmi2CoSimulation);
    start(c, 2.0);
    check(heap_calls > at_start, "no heap call counted at instantiation: the count does not see the FMU's");
    assert_int_equal(f.DoStep(c, 0.0, 0.01, fmi2True), fmi2OK);
    const unsigned long before = heap_calls;
    for (long k = 1; k < 200; k++)
        assert_int_equal(f.DoStep(c, (double)k * 0.01, 0.01, fmi2True), fmi2OK);
    assert_int_equal(heap_calls, before);
    f.FreeInstance(c);
}

/*
** fmi2GetDirectionalDerivative against central differences of
** fmi2GetDerivatives, column by column of df/dx; refused where the
** description says it is not provided.
*/
static void test_directional_derivative(void **state)
{
    (void)state;
    fmi2Component c = instantiate("jacobian", fmi2ModelExchange);
    assert_non_null(c);
    const size_t nx = check_nx;
    double x[64], xp[64], fp[64], fm[64], seed = 1.0, column[64];
    fmi2ValueReference known, unknown[64];
    assert_true(nx <= 64);
    for (size_t i = 0; i < nx; i++)
        unknown[i] = (fmi2ValueReference)(nx + i);     /* der(x_i): the block after the states */
    assert_int_equal(f.SetupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0), fmi2OK);
    assert_int_equal(f.EnterInitializationMode(c), fmi2OK);
    assert_int_equal(f.ExitInitializationMode(c), fmi2OK);
    fmi2EventInfo info;
    assert_int_equal(f.NewDiscreteStates(c, &info), fmi2OK);
    assert_int_equal(f.EnterContinuousTimeMode(c), fmi2OK);
    assert_int_equal(f.GetContinuousStates(c, x, nx), fmi2OK);
    known = 0;
    if (!check_directional) {
        REFUSED(f.GetDirectionalDerivative(c, unknown, nx, &known, 1, &seed, column));
        f.FreeInstance(c);
        return;
    }
    REFUSED(f.GetDirectionalDerivative(c, &known, 1, &known, 1, &seed, column));   /* a state is no unknown */
    double worst = 0.0;
    for (size_t j = 0; j < nx; j++) {
        known = (fmi2ValueReference)j;
        assert_int_equal(f.SetContinuousStates(c, x, nx), fmi2OK);
        assert_int_equal(f.GetDirectionalDerivative(c, unknown, nx, &known, 1, &seed, column), fmi2OK);
        const double h = 1e-6 * fmax(1.0, fabs(x[j]));
        memcpy(xp, x, nx * sizeof *x);
        xp[j] = x[j] + h;
        assert_int_equal(f.SetContinuousStates(c, xp, nx), fmi2OK);
        assert_int_equal(f.GetDerivatives(c, fp, nx), fmi2OK);
        xp[j] = x[j] - h;
        assert_int_equal(f.SetContinuousStates(c, xp, nx), fmi2OK);
        assert_int_equal(f.GetDerivatives(c, fm, nx), fmi2OK);
        for (size_t i = 0; i < nx; i++) {
            const double fd = (fp[i] - fm[i]) / (2.0 * h);
            worst = fmax(worst, fabs(column[i] - fd) / fmax(1.0, fabs(fd)));
        }
    }
    check(worst < 1e-5, "df/dx off its central differences by %g", worst);
    f.FreeInstance(c);
}

/* ---- main ------------------------------------------------------------------- */

static fmi2ValueReference *references(int n, char **text)
{
    fmi2ValueReference *vr = calloc((size_t)n + 1, sizeof *vr);
    for (int i = 0; i < n; i++)
        vr[i] = (fmi2ValueReference)strtoul(text[i], NULL, 10);
    return vr;
}

int main(int argc, char **argv)
{
    if (argc >= 11 && strcmp(argv[1], "run") == 0) {
        dir = argv[2], model_name = argv[3], guid = argv[4];
        load();
        const double t_end = atof(argv[6]), dt = atof(argv[7]), h = atof(argv[8]);
        const size_t nx = strtoul(argv[9], NULL, 10), nind = strtoul(argv[10], NULL, 10);
        int first = 11;
        for (; first < argc && strchr(argv[first], ':'); first++) {
            const char *text = strchr(argv[first], ':') + 1;
            if (strncmp(argv[first], "at:", 3) == 0) {
                tune_time = atof(text);
                continue;
            }
            settings *s = strncmp(argv[first], "set:", 4) == 0     ? &inputs
                          : strncmp(argv[first], "param:", 6) == 0 ? &parameters
                          : strncmp(argv[first], "enum:", 5) == 0  ? &enumerations
                          : strncmp(argv[first], "tune:", 5) == 0  ? &tunes : NULL;
            if (!s || !take_setting(s, text))
                return 2;
        }
        const int nvr = argc - first;
        fmi2ValueReference *vr = references(nvr, argv + first);
        double *values = calloc((size_t)nvr + 1, sizeof *values);
        int rc = strcmp(argv[5], "cs") == 0 ? run_cs(t_end, dt, vr, (size_t)nvr, values)
                                            : run_me(t_end, dt, h, vr, (size_t)nvr, values, nx, nind);
        free(vr);
        free(values);
        return rc;
    }
    if (argc >= 7 && strcmp(argv[1], "changes") == 0) {
        dir = argv[2], model_name = argv[3], guid = argv[4];
        load();
        const size_t nx = strtoul(argv[5], NULL, 10), nin = strtoul(argv[6], NULL, 10);
        if ((size_t)argc < 7 + nin)
            return 2;
        fmi2ValueReference *in = references((int)nin, argv + 7);
        fmi2ValueReference *out = references(argc - 7 - (int)nin, argv + 7 + nin);
        int rc = run_changes(nx, in, nin, out, (size_t)(argc - 7) - nin);
        free(in);
        free(out);
        return rc;
    }
    if (argc == 13 && strcmp(argv[1], "checks") == 0) {
        dir = argv[2], model_name = argv[3], guid = argv[4];
        check_nx = strtoul(argv[5], NULL, 10), check_nind = strtoul(argv[6], NULL, 10);
        vr_parameter = (fmi2ValueReference)strtoul(argv[7], NULL, 10);
        vr_output = (fmi2ValueReference)strtoul(argv[8], NULL, 10);
        vr_unknown = (fmi2ValueReference)strtoul(argv[9], NULL, 10);
        check_directional = atoi(argv[10]);
        vr_method = (fmi2ValueReference)strtoul(argv[11], NULL, 10);
        vr_step = (fmi2ValueReference)strtoul(argv[12], NULL, 10);
        quiet_log = 1;
        load();
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_versions),
            cmocka_unit_test(test_instantiate_refusals),
            cmocka_unit_test(test_cs_out_of_order),
            cmocka_unit_test(test_me_out_of_order),
            cmocka_unit_test(test_two_instances),
            cmocka_unit_test(test_no_allocation_in_do_step),
            cmocka_unit_test(test_directional_derivative),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
    }
    fputs("usage: fmu_import run DIR NAME GUID cs|me T_END DT H NX NIND [param:|enum:|set:|tune:VR=VALUE...] [at:T] VR...\n"
          "       fmu_import changes DIR NAME GUID NX NIN VR_INPUT... VR_OUTPUT...\n"
          "       fmu_import checks DIR NAME GUID NX NIND VR_PARAMETER VR_OUTPUT VR_UNKNOWN DIRECTIONAL VR_METHOD VR_STEP\n",
          stderr);
    return 2;
}
