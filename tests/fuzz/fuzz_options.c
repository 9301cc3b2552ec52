/*
** fuzz_options.c — libFuzzer target: any bytes, line by line, as the values
** of simulate's (and so a sweep's) options that name nothing of a model:
** --t-end, --dt, --rtol, --atol, --max-step, --sample, --method,
** --baumgarte, --project, --metric, and the flag --strict (which takes no
** value: any is ignored); --plot and the columns its picture draws,
** --plot-columns and --plot-path, named against an empty model's CSV (t,
** T+V); and the time of linearize and eval (--t T, --at t=T). Each line is
** tried as each option's value; then the lines are one command line (a
** line's first byte picks the option, '0' --t-end to '9' --metric, ':'
** --strict, ';' --plot, '<' --plot-columns and '=' --plot-path in the
** order above, the rest is its value) and the options are settled.
** An option must take its value or refuse it with a usage error; a value
** taken must be one the driver takes (a number in range, a known name);
** settled options must make a run the driver accepts (a --dt no longer
** than --max-step, a bound above the round-off of t, tolerances not both
** 0, rk4 with a step) and a plot of columns the CSV has (two for a path).
** Anything else, or a crash or a leak, is a finding.
*/
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangec/model.h"
#include "programs.h"

static const int options[] = {LGC_SIM_T_END, LGC_SIM_DT, LGC_SIM_RTOL, LGC_SIM_ATOL,
                              LGC_SIM_MAX_STEP, LGC_SIM_SAMPLE, LGC_SIM_METHOD,
                              LGC_SIM_BAUMGARTE, LGC_SIM_PROJECT, LGC_SIM_METRIC, LGC_SIM_STRICT,
                              LGC_SIM_PLOT, LGC_SIM_PLOT_COLUMNS, LGC_SIM_PLOT_PATH};
enum { NOPTIONS = sizeof options / sizeof options[0] };

/* The option a command line's word picks by its first byte: '0' the first, '1' the next, ... */
static int pick(unsigned char b)
{
    return options[(b + NOPTIONS - '0' % NOPTIONS) % NOPTIONS];
}

/* A value option took: in the range the driver takes. */
static int taken_well(const lgc_sim_options *o, int option)
{
    switch (option) {
    case LGC_SIM_T_END: return isfinite(o->t_end) && o->t_end > 0.0;
    case LGC_SIM_DT: return isfinite(o->dt) && o->dt > 0.0;
    case LGC_SIM_RTOL: return isfinite(o->rtol) && o->rtol >= 0.0;
    case LGC_SIM_ATOL: return isfinite(o->atol) && o->atol >= 0.0;
    case LGC_SIM_MAX_STEP: return isfinite(o->max_step) && o->max_step > 0.0;
    case LGC_SIM_SAMPLE: return isfinite(o->sample) && o->sample > 0.0;
    case LGC_SIM_METHOD: return lgc_stepper_type_find(o->method) != NULL;
    case LGC_SIM_BAUMGARTE:
        return o->gains != LGC_GAINS_GIVEN || (isfinite(o->alpha) && isfinite(o->beta));
    case LGC_SIM_PROJECT: return o->project >= LGC_PROJECT_NONE && o->project <= LGC_PROJECT_FULL;
    case LGC_SIM_METRIC: return o->metric == LGC_METRIC_IDENTITY || o->metric == LGC_METRIC_MASS;
    case LGC_SIM_STRICT: return o->strict == 1;
    case LGC_SIM_PLOT: return o->plot != NULL;
    case LGC_SIM_PLOT_COLUMNS: return o->plot_columns != NULL;
    case LGC_SIM_PLOT_PATH: return o->plot_path != NULL;
    default: return 0;
    }
}

/* The number of names in list, each a column of m's CSV; -1 if one is not. */
static int columns(const lgc_model *m, const char *list)
{
    int n = 0;
    for (const char *s = list;; s++, n++) {
        const size_t len = strcspn(s, ",");
        if (lgc_plot_column(m, s, len) < 0)
            return -1;
        s += len;
        if (!*s)
            return n + 1;
    }
}

/* Settled options: what lgc_driver_alloc, a run that ends and its plot ask of them. */
static int settled_well(const lgc_sim_options *o, const lgc_model *m)
{
    const lgc_stepper_type *type = lgc_stepper_type_find(o->method);
    const double t_round = 16.0 * DBL_EPSILON * o->t_end;
    return type && (type->adaptive || o->dt > 0.0) && o->rtol + o->atol > 0.0
           && o->max_step > 0.0 && !(o->dt > o->max_step) && o->max_step >= t_round
           && o->sample >= t_round && !(o->dt > o->t_end)
           && (!(o->plot_columns || o->plot_path) || o->plot)
           && (!o->plot_columns || columns(m, o->plot_columns) > 0)
           && (!o->plot_path || columns(m, o->plot_path) == 2);
}

/* One option's value, on a fresh run: taken well, or refused. */
static void take(lgc_sim_run *r, int option, const char *value)
{
    lgc_sim_options_init(&r->opt);
    const int rc = lgc_sim_take(r, NULL, option, value);
    if ((rc == LGC_EXIT_OK && !taken_well(&r->opt, option))
        || (rc != LGC_EXIT_OK && rc != LGC_EXIT_USAGE))
        abort();
}

/* The time of the point linearize and eval read (point.c): --t's value and --at t=VALUE's. */
static void take_time(const char *value)
{
    char *at = malloc(strlen(value) + 3);
    if (!at)
        return;
    strcpy(at, "t=");
    strcat(at, value);
    const char *const option[2] = {"--t", "--at"}, *const given[2] = {value, at};
    for (int k = 0; k < 2; k++) {
        lgc_point pt;
        memset(&pt, 0, sizeof pt);
        const int rc = lgc_point_option(&pt, option[k], given[k]);
        if ((rc == LGC_EXIT_OK && !(pt.t_given && isfinite(pt.t)))
            || (rc != LGC_EXIT_OK && rc != LGC_EXIT_USAGE))
            abort();
    }
    free(at);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const lgc_model no_constraints;
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    lgc_sim_run r;
    memset(&r, 0, sizeof r);
    /* Each line (up to a NUL, which no command-line word holds) as each option's value. */
    for (char *line = text; line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        for (int i = 0; i < NOPTIONS; i++)
            take(&r, options[i], line);
        take_time(line);
        line = nl ? nl + 1 : NULL;
    }
    /* The lines, restored, as one command line: every option taken, then settled. */
    for (size_t i = 0; i < size; i++)
        text[i] = (char)data[i];
    lgc_sim_options_init(&r.opt);
    int rc = LGC_EXIT_OK;
    for (char *line = text; line && rc == LGC_EXIT_OK;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (*line)
            rc = lgc_sim_take(&r, NULL, pick((unsigned char)*line), line + 1);
        line = nl ? nl + 1 : NULL;
    }
    if (rc == LGC_EXIT_OK && lgc_sim_settle(&r.opt, &no_constraints) == LGC_EXIT_OK
        && !settled_well(&r.opt, &no_constraints))
        abort();
    free(text);
    return 0;
}
