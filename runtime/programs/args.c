/* options.c — command-line options of `lagrangec simulate`. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangec/status.h"
#include "simulate_internal.h"

static const char usage[] =
    "usage: %s [options]\n"
    "  --t-end T                  end time (default 10)\n"
    "  --dt H                     fixed step (rk4, the default with --dt);\n"
    "                             dopri5: the first step\n"
    "  --rtol R --atol A          adaptive tolerances, either may be 0 (default 1e-8, 1e-10)\n"
    "  --method rk4|dopri5        integrator (default rk4 with --dt, else dopri5)\n"
    "  --baumgarte ALPHA,BETA|auto|off\n"
    "                             stabilisation gains (default: the spec's);\n"
    "                             auto: both roots of s^2 + alpha s + beta\n"
    "                             at -%g/h (h: the step, or dopri5's first)\n"
    "  --project none|velocity|full   correction after each step (default none)\n"
    "  --metric identity|mass     metric of the correction (default identity)\n"
    "  --param NAME=VALUE         set a parameter\n"
    "  --init NAME=VALUE          initial coordinate; NAME'=VALUE a velocity;\n"
    "                             mu1=VALUE a vakonomic multiplier\n"
    "  --input NAME=VALUE         set a constant control input\n"
    "  --sample DT                output interval (default t_end/1000)\n"
    "  --out FILE.csv             write samples as CSV\n"
    "  --plot FILE.png            plot trajectory, residuals, energy error\n"
    "  --quiet                    no summary, no progress\n"
    "  --help                     this text\n";

int sim_usage_error(const char *fmt, const char *a, const char *b)
{
    fputs("lagrangec: ", stderr);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return 2;
}

static int parse_double(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && *end == '\0' && errno == 0 && isfinite(*v);
}

void sim_list_names(const char *what, const char *const *names, int n)
{
    fprintf(stderr, "  known %s:", what);
    if (n == 0)
        fputs(" (none)", stderr);
    for (int i = 0; i < n; i++)
        fprintf(stderr, "%s %s", i > 0 ? "," : "", names[i]);
    fputc('\n', stderr);
}

/* NAME=VALUE into *name (copied into buf) and *value. */
static int split_assignment(const char *arg, char *buf, size_t size, double *value)
{
    const char *eq = strchr(arg, '=');
    if (!eq || (size_t)(eq - arg) >= size || eq == arg)
        return 0;
    memcpy(buf, arg, (size_t)(eq - arg));
    buf[eq - arg] = '\0';
    return parse_double(eq + 1, value);
}

int sim_assign(const char *opt, const char *arg, lgc_system *sys, double x0[])
{
    const lgc_model *m = sys->model;
    char name[256];
    double value;
    if (!split_assignment(arg, name, sizeof name, &value))
        return sim_usage_error("%s expects NAME=VALUE with a finite number, got '%s'", opt, arg);
    int i;
    if (strcmp(opt, "--param") == 0) {
        if ((i = lgc_name_index(m->parameter_names, m->np, name)) < 0) {
            sim_usage_error("unknown parameter '%s' in %s", name, opt);
            sim_list_names("parameters", m->parameter_names, m->np);
            return 2;
        }
        sys->p[i] = value;
    } else if (strcmp(opt, "--input") == 0) {
        if ((i = lgc_name_index(m->input_names, m->nu, name)) < 0) {
            sim_usage_error("unknown input '%s' in %s", name, opt);
            sim_list_names("inputs", m->input_names, m->nu);
            return 2;
        }
        sys->u[i] = value;
    } else {
        /* The descriptor names every state: x, x', int_g1, (vakonomic) mu1. */
        if ((i = lgc_name_index(m->state_names, m->nx, name)) < 0) {
            sim_usage_error("unknown state '%s' in %s", name, opt);
            sim_list_names("states", m->state_names, m->nx);
            return 2;
        }
        x0[i] = value;
    }
    return 0;
}

static int parse_gains(const char *arg, sim_options *opt)
{
    char *end;
    if (strcmp(arg, "auto") == 0)
        opt->gains = GAINS_AUTO;
    else if (strcmp(arg, "off") == 0)
        opt->gains = GAINS_OFF;
    else {
        opt->gains = GAINS_GIVEN;
        opt->alpha = strtod(arg, &end);
        if (end == arg || *end != ',')
            return 0;
        const char *b = end + 1;
        opt->beta = strtod(b, &end);
        if (end == b || *end != '\0')
            return 0;
    }
    return 1;
}

/* Index of s in the NULL-terminated list, or -1. */
static int keyword(const char *s, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return i;
    return -1;
}

int sim_parse_options(int argc, char **argv, lgc_system *sys, double x0[],
                      sim_options *opt)
{
    static const char *const projects[] = {"none", "velocity", "full", NULL};
    static const char *const metrics[] = {"identity", "mass", NULL};
    static const char *const methods[] = {"rk4", "dopri5", NULL};
    static const char *const with_value[] = {
        "--t-end", "--dt", "--rtol", "--atol", "--method", "--baumgarte",
        "--project", "--metric", "--param", "--init", "--input", "--sample",
        "--out", "--plot", NULL};
    const char *prog = argc > 0 ? argv[0] : "simulate";
    memset(opt, 0, sizeof *opt);
    opt->t_end = 10.0;
    opt->rtol = 1e-8;
    opt->atol = 1e-10;
    opt->gains = GAINS_MODEL;

    for (int k = 1; k < argc; k++) {
        const char *o = argv[k];
        if (strcmp(o, "--help") == 0) {
            printf(usage, prog, LGC_BAUMGARTE_KAPPA);
            return 1;
        }
        if (strcmp(o, "--quiet") == 0) {
            opt->quiet = 1;
            continue;
        }
        if (keyword(o, with_value) < 0)
            return sim_usage_error("unknown option '%s'%s (see --help)", o, "");
        if (k + 1 >= argc)
            return sim_usage_error("%s needs a value%s", o, "");
        const char *a = argv[++k];
        double v = 0.0;
        int ok = 1, rc;
        if (strcmp(o, "--param") == 0 || strcmp(o, "--init") == 0
            || strcmp(o, "--input") == 0) {
            if ((rc = sim_assign(o, a, sys, x0)) != 0)
                return rc;
        } else if (strcmp(o, "--method") == 0) {
            ok = keyword(a, methods) >= 0;
            opt->method = a;
        } else if (strcmp(o, "--baumgarte") == 0) {
            ok = parse_gains(a, opt);
        } else if (strcmp(o, "--project") == 0) {
            ok = (rc = keyword(a, projects)) >= 0;
            opt->project = (lgc_project_mode)rc;
        } else if (strcmp(o, "--metric") == 0) {
            ok = (rc = keyword(a, metrics)) >= 0;
            opt->metric = (lgc_metric)rc;
        } else if (strcmp(o, "--out") == 0) {
            opt->out = a;
        } else if (strcmp(o, "--plot") == 0) {
            opt->plot = a;
        } else {
            int is_tol = strcmp(o, "--rtol") == 0 || strcmp(o, "--atol") == 0;
            ok = parse_double(a, &v) && (v > 0.0 || (is_tol && v == 0.0));
            if (strcmp(o, "--t-end") == 0) opt->t_end = v;
            else if (strcmp(o, "--dt") == 0) opt->dt = v;
            else if (strcmp(o, "--rtol") == 0) opt->rtol = v;
            else if (strcmp(o, "--atol") == 0) opt->atol = v;
            else opt->sample = v;
        }
        if (!ok)
            return sim_usage_error("bad value '%s' for %s", a, o);
    }
    if (!(opt->rtol + opt->atol > 0.0))
        return sim_usage_error("--rtol and --atol cannot both be 0%s%s", "", "");
    /* A step or sample interval at the round-off of t_end would never end. */
    const double t_round = 16.0 * DBL_EPSILON * opt->t_end;
    const char *too_small = opt->dt > 0.0 && opt->dt < t_round             ? "--dt"
                            : opt->sample > 0.0 && opt->sample < t_round ? "--sample"
                                                                         : NULL;
    if (too_small)
        return sim_usage_error("%s is below the round-off of t at --t-end (16 eps t_end)%s",
                               too_small, "");
    if (!opt->method)
        opt->method = opt->dt > 0.0 ? "rk4" : "dopri5";
    if (strcmp(opt->method, "rk4") == 0 && !(opt->dt > 0.0))
        return sim_usage_error("--method rk4 needs --dt%s%s", "", "");
    if (opt->sample == 0.0)
        opt->sample = opt->t_end / 1000.0;
    return 0;
}
