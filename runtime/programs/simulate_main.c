/*
** simulate_main.c — the `lagrangec simulate` program: options, start, run,
** outputs; and the parts of it every run of a sweep shares (lgc_sim_*).
*/
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lagrangec/status.h"
#include "programs.h"

double lgc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int parse_gains(const char *arg, lgc_sim_options *opt)
{
    if (strcmp(arg, "auto") == 0) {
        opt->gains = LGC_GAINS_AUTO;
        return 1;
    }
    if (strcmp(arg, "off") == 0) {
        opt->gains = LGC_GAINS_OFF;
        return 1;
    }
    const char *comma = strchr(arg, ',');
    char alpha[64];
    if (!comma || (size_t)(comma - arg) >= sizeof alpha)
        return 0;
    memcpy(alpha, arg, (size_t)(comma - arg));
    alpha[comma - arg] = '\0';
    opt->gains = LGC_GAINS_GIVEN;
    return lgc_parse_number(alpha, &opt->alpha) && lgc_parse_number(comma + 1, &opt->beta);
}

/* Index of s in the NULL-terminated list, or -1. */
static int keyword(const char *s, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return i;
    return -1;
}

int lgc_sim_take(lgc_sim_run *r, lgc_given *given, int option, const char *a)
{
    static const char *const projects[] = {"none", "velocity", "full", NULL};
    static const char *const metrics[] = {"identity", "mass", NULL};
    lgc_sim_options *opt = &r->opt;
    const char *name = lgc_simulate_command.options[option].name;
    double v = 0.0;
    int ok = 1, k;
    switch (option) {
    case LGC_SIM_PARAM: case LGC_SIM_INIT: case LGC_SIM_INPUT:
        return lgc_assign(name, a, &r->sys, given);
    case LGC_SIM_METHOD:
        if (!lgc_stepper_type_find(a) && (strcmp(a, "bdf") == 0 || strcmp(a, "adams") == 0))
            return lgc_usage_error("%s %s: this lagrangec was built without SUNDIALS CVODE, which bdf and adams "
                                   "use (install libsundials-dev, then: meson setup --wipe BUILD -Dsundials=enabled "
                                   "&& ninja -C BUILD)", name, a);
        ok = lgc_stepper_type_find(a) != NULL;
        opt->method = a;
        break;
    case LGC_SIM_BAUMGARTE: ok = parse_gains(a, opt); break;
    case LGC_SIM_PROJECT:
        ok = (k = keyword(a, projects)) >= 0;
        opt->project = (lgc_project_mode)k;
        opt->project_given = 1;
        break;
    case LGC_SIM_METRIC:
        ok = (k = keyword(a, metrics)) >= 0;
        opt->metric = (lgc_metric)k;
        break;
    case LGC_SIM_OUT: opt->out = a; break;
    case LGC_SIM_PLOT: opt->plot = a; break;
    case LGC_SIM_PLOT_COLUMNS: opt->plot_columns = a; break;    /* names checked by settle */
    case LGC_SIM_PLOT_PATH: opt->plot_path = a; break;
    case LGC_SIM_SUMMARY_JSON: opt->summary_json = a; break;
    case LGC_SIM_EVENTS: opt->events = a; break;
    case LGC_SIM_CONSISTENT: opt->consistent = 1; break;
    case LGC_SIM_QUIET: opt->quiet = 1; break;
    case LGC_SIM_STRICT: opt->strict = 1; break;
    default: {
        const int is_tol = option == LGC_SIM_RTOL || option == LGC_SIM_ATOL;
        ok = lgc_parse_number(a, &v) && (v > 0.0 || (is_tol && v == 0.0));
        double *field[] = {[LGC_SIM_T_END] = &opt->t_end, [LGC_SIM_DT] = &opt->dt,
                           [LGC_SIM_RTOL] = &opt->rtol, [LGC_SIM_ATOL] = &opt->atol,
                           [LGC_SIM_MAX_STEP] = &opt->max_step, [LGC_SIM_SAMPLE] = &opt->sample};
        *field[option] = v;
    }
    }
    return ok ? LGC_EXIT_OK : lgc_usage_error("bad value '%s' for %s", a, name);
}

int lgc_sim_settle(lgc_sim_options *opt, const lgc_model *m)
{
    if (!(opt->rtol + opt->atol > 0.0))
        return lgc_usage_error("--rtol and --atol cannot both be 0");
    /* A step or sample interval at the round-off of t_end would never end. */
    const double t_round = 16.0 * DBL_EPSILON * opt->t_end;
    if (opt->dt > 0.0 && opt->dt < t_round)
        return lgc_usage_error("--dt is below the round-off of t at --t-end (16 eps t_end)");
    if (opt->sample > 0.0 && opt->sample < t_round)
        return lgc_usage_error("--sample is below the round-off of t at --t-end (16 eps t_end)");
    if (opt->max_step < t_round)
        return lgc_usage_error("--max-step is below the round-off of t at --t-end (16 eps t_end)");
    /* The bound holds for every step, the first one given too; rk4's are all --dt. */
    if (opt->dt > opt->max_step)
        return lgc_usage_error("--dt %g is longer than --max-step %g: no step may be longer than "
                               "H (--dt is rk4's step, or the first of an adaptive method)",
                               opt->dt, opt->max_step);
    /* The step is the step: one longer than the run would be a shorter one in disguise. */
    if (opt->dt > opt->t_end)
        return lgc_usage_error("--dt %g is longer than the run (--t-end %g): no step of it can "
                               "be taken", opt->dt, opt->t_end);
    /* --dt is often taken for the output interval (--sample): say which method it chose. */
    if (!opt->method && opt->dt > 0.0 && !opt->quiet)
        fprintf(stderr, "lagrangec: note: --dt %g without --method: fixed-step rk4, every step %g "
                        "(--sample sets the output interval; --method dopri5 --dt %g starts an "
                        "adaptive run at %g)\n", opt->dt, opt->dt, opt->dt, opt->dt);
    lgc_driver_options defaults;
    lgc_driver_options_default(&defaults);
    if (!opt->method)
        opt->method = opt->dt > 0.0 ? "rk4" : defaults.type->name;
    if (strcmp(opt->method, "rk4") == 0 && !(opt->dt > 0.0))
        return lgc_usage_error("--method rk4 needs --dt");
    /* CVODE's steps grow by orders of magnitude from its own first one: no step to size gains on. */
    if (opt->gains == LGC_GAINS_AUTO && lgc_stepper_type_find(opt->method)->step && !(opt->dt > 0.0))
        return lgc_usage_error("--baumgarte auto with --method %s needs --dt, the first step the "
                               "gains are sized on", opt->method);
    if (opt->sample == 0.0)
        opt->sample = opt->t_end / 1000.0;
    /* The runtime's default; "none" said of a model with nothing to correct. */
    if (!opt->project_given)
        opt->project = m->nh + m->nn > 0 ? defaults.project : LGC_PROJECT_NONE;
    return lgc_plot_settle(opt, m);
}

void lgc_sim_options_init(lgc_sim_options *opt)
{
    lgc_driver_options defaults;    /* one table of defaults: the runtime's */
    lgc_driver_options_default(&defaults);
    memset(opt, 0, sizeof *opt);
    opt->t_end = 10.0;
    opt->rtol = defaults.rtol;
    opt->atol = defaults.atol;
    opt->max_step = defaults.max_step;
    opt->metric = defaults.metric;
    opt->gains = LGC_GAINS_MODEL;
}

static int parse(lgc_sim_run *r, lgc_given *given, int argc, char **argv)
{
    lgc_sim_options_init(&r->opt);
    lgc_args args;
    lgc_args_init(&args, &lgc_simulate_command, argc, argv);
    int option, rc;
    const char *value;
    while ((rc = lgc_args_next(&args, &option, &value)) == 1) {
        if (option == LGC_SIM_HELP) {
            lgc_command_help(&lgc_simulate_command, argc > 0 ? argv[0] : "simulate", stdout);
            return -1;
        }
        if ((rc = lgc_sim_take(r, given, option, value)) != LGC_EXIT_OK)
            return rc;
    }
    return rc == 0 ? lgc_sim_settle(&r->opt, r->model) : rc;
}

int lgc_sim_set_gains(lgc_sim_run *r)
{
    lgc_system *sys = &r->sys;
    switch (r->opt.gains) {
    case LGC_GAINS_MODEL: break;
    case LGC_GAINS_GIVEN: sys->alpha = r->opt.alpha; sys->beta = r->opt.beta; break;
    case LGC_GAINS_OFF: sys->alpha = sys->beta = 0.0; break;
    case LGC_GAINS_AUTO:
        if (r->opt.dt > 0.0) {
            lgc_baumgarte_auto(r->opt.dt, &sys->alpha, &sys->beta);
        } else {
            /* Estimate dopri5's first step without feedback, then size it. */
            sys->alpha = sys->beta = 0.0;
            int rc = lgc_driver_reset(r->drv, 0.0, r->x0);
            if (rc != LGC_OK)
                return rc;
            lgc_baumgarte_auto(lgc_driver_step_size(r->drv), &sys->alpha, &sys->beta);
        }
        break;
    }
    return LGC_OK;
}

/* The state to start from: given, completed (--consistent), checked. */
static int start(lgc_sim_run *r, const lgc_given *given)
{
    lgc_start_state(&r->sys, given, r->x0, r->fixed);
    if (r->opt.consistent
        && lgc_start_complete(&r->sys, 0.0, r->x0, r->fixed, given, "--init") != LGC_EXIT_OK)
        return LGC_EXIT_FAILED;
    for (int i = 0; i < r->model->nx; i++)
        if (!isfinite(r->x0[i]))
            return lgc_usage_error("the initial %s is not finite", r->model->state_names[i]);
    return lgc_start_check(&r->sys, 0.0, r->x0, 1, "--init");
}

/* The CSV (--out, or a scratch file for --plot), the PNG and the summary. */
static int open_outputs(lgc_sim_run *r)
{
    const lgc_sim_options *opt = &r->opt;
    int rc;
    if (opt->plot && (rc = lgc_gnuplot_find("--plot", r->gnuplot, sizeof r->gnuplot)) != LGC_EXIT_OK)
        return rc;
    if (opt->out) {
        if ((rc = lgc_output_open(&r->out, "--out", opt->out)) != LGC_EXIT_OK)
            return rc;
        r->csv_fd = r->out.fd;
    } else if (opt->plot && (r->csv_fd = lgc_scratch_fd()) < 0) {
        return lgc_usage_error("--plot: cannot make a scratch file for its data: %s",
                               strerror(errno));
    }
    if (opt->plot && (rc = lgc_output_open(&r->png, "--plot", opt->plot)) != LGC_EXIT_OK)
        return rc;
    if (opt->summary_json && strcmp(opt->summary_json, "-") != 0
        && (rc = lgc_output_open(&r->summary, "--summary-json", opt->summary_json)) != LGC_EXIT_OK)
        return rc;
    if (opt->events) {
        if (r->log.n == 0)
            return lgc_usage_error("--events: the spec has no [events] and no contacts");
        if ((rc = lgc_output_open(&r->events, "--events", opt->events)) != LGC_EXIT_OK)
            return rc;
        r->log.fd = r->events.fd;
    }
    if (r->csv_fd >= 0 && !(r->csv = lgc_csv_open(r->csv_fd, r->model))) {
        fprintf(stderr, "lagrangec: %s\n", lgc_strerror(LGC_ERR_NOMEM));
        return LGC_EXIT_FAILED;
    }
    return LGC_EXIT_OK;
}

int lgc_sim_init(lgc_sim_run *r, const lgc_model *m)
{
    const size_t nx = (size_t)m->nx + 1;
    memset(r, 0, sizeof *r);
    r->model = m;
    r->csv_fd = r->out.fd = r->png.fd = r->summary.fd = r->events.fd = -1;
    if (lgc_system_init(&r->sys, m) != LGC_OK || lgc_monitor_init(&r->mon, m) != LGC_OK
        || lgc_event_log_init(&r->log, m) != LGC_OK
        || !(r->x0 = calloc(2 * nx, sizeof *r->x0)) || !(r->fixed = calloc(nx, sizeof *r->fixed))) {
        fprintf(stderr, "lagrangec: %s\n", lgc_strerror(LGC_ERR_NOMEM));
        return LGC_EXIT_FAILED;
    }
    r->x = r->x0 + nx;
    return LGC_EXIT_OK;
}

int lgc_sim_make_driver(lgc_sim_run *r)
{
    lgc_driver_options dopt;
    lgc_driver_options_default(&dopt);
    dopt.type = lgc_stepper_type_find(r->opt.method);
    dopt.h = r->opt.dt;     /* adaptive methods: the first step; 0 = estimate */
    dopt.rtol = r->opt.rtol;
    dopt.atol = r->opt.atol;
    dopt.max_step = r->opt.max_step;
    dopt.project = r->opt.project;
    dopt.metric = r->opt.metric;
    dopt.t_stop = r->opt.t_end;
    if (!(r->drv = lgc_driver_alloc(&r->sys, &dopt))) {
        fprintf(stderr, "lagrangec: driver setup: %s\n", lgc_strerror(LGC_ERR_NOMEM));
        return LGC_EXIT_FAILED;
    }
    return LGC_EXIT_OK;
}

static int setup(lgc_sim_run *r, int argc, char **argv)
{
    lgc_given given = {NULL, NULL};
    if (lgc_given_init(&given, r->model) != LGC_OK) {
        lgc_given_free(&given);
        fprintf(stderr, "lagrangec: %s\n", lgc_strerror(LGC_ERR_NOMEM));
        return LGC_EXIT_FAILED;
    }
    int rc = parse(r, &given, argc, argv);
    if (rc == LGC_EXIT_OK)
        rc = start(r, &given);
    lgc_given_free(&given);
    if (rc != LGC_EXIT_OK || (rc = open_outputs(r)) != LGC_EXIT_OK
        || (rc = lgc_sim_make_driver(r)) != LGC_EXIT_OK)
        return rc;
    if ((rc = lgc_sim_set_gains(r)) != LGC_OK) {
        fprintf(stderr, "lagrangec: t = 0: %s\n", lgc_strerror(rc));
        return LGC_EXIT_FAILED;
    }
    if (r->csv && lgc_csv_header(r->csv) != LGC_OK)
        return lgc_usage_error("--out %s: %s", r->opt.out ? r->opt.out : "(scratch)",
                               strerror(errno));
    if (r->log.fd >= 0 && lgc_event_log_header(&r->log, r->model) != LGC_OK)
        return lgc_usage_error("--events %s: %s", r->opt.events, strerror(errno));
    return LGC_EXIT_OK;
}

static void progress(const lgc_sim_run *r, double t, double *last)
{
    double w = lgc_now();
    if (w - *last < 0.25)
        return;
    *last = w;
    fprintf(stderr, "\r  t = %-12.6g %5.1f%%", t, 100.0 * t / r->opt.t_end);
}

/* The driver's observer: each accepted step's state into the extremes. */
static int track_step(void *ctx, double t, const double x[])
{
    lgc_sim_run *r = ctx;
    return lgc_monitor_track(&r->mon, &r->sys, t, x);
}

/* The driver's observer of events: into the log (and the --events file). */
static int met_event(void *ctx, int event, double t, const double x[])
{
    lgc_sim_run *r = ctx;
    int rc = lgc_event_log_add(&r->log, r->model, event, t, x);
    if (rc != LGC_OK)
        r->fault_detail = strerror(errno);
    return rc;
}

/*
** Whether the samples after the first can be the steps' own: a fixed step
** of the sample interval from t = 0, where the driver steps on its grid (no
** event, contact or friction switch moves it), every sample time is a step's
** end (the last one too: the step that ends on t_end, as the driver ends
** the one within LGC_FIXED_STEP_STRETCH h of it, is the one whose sample is
** t_end), and nothing reads a sample but the last (no CSV, no outputs, no
** multipliers, no progress shown). Each such sample would be the state the monitor tracked
** at that step, adding nothing to its extremes.
*/
static int samples_are_steps(const lgc_sim_run *r, int show)
{
    const lgc_model *m = r->model;
    const lgc_stepper_type *type = lgc_stepper_type_find(r->opt.method);
    const double h = r->opt.dt, t_end = r->opt.t_end;
    if (show || r->csv || r->mon.forces || m->nout > 0 || m->nevent > 0 || m->ncontact > 0
        || m->nfriction > 0 || !type || type->adaptive || type->step || !(h > 0.0)
        || r->opt.sample != h || !(t_end / h < 1e12))
        return 0;
    /* K: the first step to reach t_end - LGC_FIXED_STEP_STRETCH h (the driver's fixed steps), which ends on t_end. */
    const double reach = t_end - LGC_FIXED_STEP_STRETCH * h;
    double K = fmax(1.0, ceil(reach / h));
    while (K > 1.0 && (K - 1.0) * h >= reach)
        K -= 1.0;
    while (K * h < reach)
        K += 1.0;
    return K * h >= t_end;  /* else sample K is k h < t_end, inside step K */
}

/*
** The rest of a run whose samples are its steps (samples_are_steps): one
** advance to t_end, the monitor tracking every step; then the last step
** taken is the last sample, and the steps before it count as the samples
** they are. A step that fails is taken by no sample, as one advance a sample
** leaves it; r->x the last sample's state then too.
*/
static int advance_to_the_end(lgc_sim_run *r)
{
    const unsigned long before = r->mon.tracked;
    int rc = lgc_driver_advance(r->drv, r->opt.t_end, r->x);
    const unsigned long taken = r->mon.tracked - before;
    if (taken > 0) {
        const int last = lgc_monitor_sample(&r->mon, &r->sys, r->mon.track_t, r->mon.track_x);
        r->mon.count += taken - 1;
        if (rc != LGC_OK)
            memcpy(r->x, r->mon.s.x, (size_t)r->model->nx * sizeof *r->x);
        else
            rc = last;
    }
    return rc;
}

void lgc_sim_integrate(lgc_sim_run *r)
{
    const int show = !r->opt.quiet && isatty(STDERR_FILENO);
    double t = 0.0, last = lgc_now(), begin = last;
    lgc_monitor_reset(&r->mon, r->model);
    r->mon.forces = r->csv != NULL;     /* the multipliers and forces only where a CSV row writes them */
    lgc_event_log_reset(&r->log, r->model);
    r->fault_detail = NULL;
    r->drifted = r->inside = 0;
    lgc_driver_observe(r->drv, track_step, r);
    lgc_driver_observe_events(r->drv, met_event, r);
    int rc = lgc_driver_reset(r->drv, 0.0, r->x0);
    const int steps_only = samples_are_steps(r, show);
    for (long k = 1; rc == LGC_OK; k++) {
        rc = lgc_driver_advance(r->drv, t, r->x);
        const double t_stop = lgc_driver_stop_time(r->drv);
        const int stopped = t >= t_stop;
        if (stopped)
            t = t_stop;     /* the last sample: the state at the event */
        if (rc == LGC_OK)
            rc = lgc_monitor_sample(&r->mon, &r->sys, t, r->x);
        if (rc == LGC_OK && r->csv && (rc = lgc_csv_row(r->csv, &r->mon.s)) != LGC_OK)
            r->fault_detail = strerror(errno);
        if (rc != LGC_OK || stopped || t >= r->opt.t_end)
            break;
        if (steps_only) {
            rc = advance_to_the_end(r);
            break;
        }
        const double next = (double)k * r->opt.sample;
        t = next < r->opt.t_end ? next : r->opt.t_end;  /* fmin's, without its call: neither is NaN */
        if (show)
            progress(r, t, &last);
    }
    r->wall = lgc_now() - begin;
    if (show)
        fputs("\r                              \r", stderr);
    r->status = rc;
    /* A sample that could not be written failed at its own time; a step at the driver's. */
    r->t_fault = rc == LGC_ERR_IO ? t : lgc_driver_time(r->drv);
    if (rc != LGC_OK && r->csv) {
        /* Its rows end at a fault, and the CSV says so (a full disk may refuse even that). */
        char reason[512];
        snprintf(reason, sizeof reason, "%s%s%s", lgc_strerror(rc), r->fault_detail ? ": " : "",
                 r->fault_detail ? r->fault_detail : "");
        lgc_csv_fault(r->csv, r->t_fault, reason);
    }
    for (int i = 0; i < 2 * r->model->nh + r->model->nn; i++)
        if (r->mon.max_residual[i] > LGC_DRIFT_WARNING)
            r->drifted = 1;
    for (int c = 0; c < r->model->ncontact; c++)
        if (-r->mon.min_contact_phi[c] > LGC_DRIFT_WARNING)
            r->inside = 1;
}

/* Plot and summaries after the run; the exit status. */
static int finish(lgc_sim_run *r)
{
    int exit = LGC_EXIT_OK;
    if (r->status != LGC_OK) {
        fprintf(stderr, "lagrangec: t = %.6g: %s%s%s\n", r->t_fault, lgc_strerror(r->status),
                r->fault_detail ? ": " : "", r->fault_detail ? r->fault_detail : "");
        exit = LGC_EXIT_FAILED;
    }
    if (r->drifted || r->inside)
        lgc_summary_warn(r);
    if ((r->drifted || r->inside) && r->opt.strict)
        exit = LGC_EXIT_FAILED;
    if (r->status == LGC_OK && r->opt.plot) {
        char lost[512];
        const int kept = !lgc_integral_lost(r->model, r->sys.u, lost, sizeof lost);
        if (lgc_plot(r->model, &r->opt, r->gnuplot, r->csv_fd, r->png.fd, r->mon.energy0, kept)
            != LGC_OK)
            exit = LGC_EXIT_FAILED;
        else if (lgc_output_commit(&r->png) != LGC_OK) {
            fprintf(stderr, "lagrangec: --plot %s: %s\n", r->opt.plot, strerror(errno));
            exit = LGC_EXIT_FAILED;
        }
    }
    /* The run's rows, a failed run's too (up to its fault row), replace the previous CSV whole. */
    if (r->out.fd >= 0) {
        r->csv_fd = -1;
        if (lgc_output_commit(&r->out) != LGC_OK) {
            fprintf(stderr, "lagrangec: --out %s: %s\n", r->opt.out, strerror(errno));
            exit = LGC_EXIT_FAILED;
        }
    }
    /* The events met, a failed run's too (up to its fault); a file that failed is not left. */
    if (r->events.fd >= 0 && (r->log.failed || lgc_output_commit(&r->events) != LGC_OK)) {
        if (!r->log.failed)
            fprintf(stderr, "lagrangec: --events %s: %s\n", r->opt.events, strerror(errno));
        lgc_output_discard(&r->events);
        exit = LGC_EXIT_FAILED;
    }
    const int json_to_stdout = r->opt.summary_json && strcmp(r->opt.summary_json, "-") == 0;
    if (!r->opt.quiet && !json_to_stdout)
        lgc_summary_print(r, stdout);
    if (json_to_stdout)
        lgc_summary_json(r, stdout);
    if (r->summary.fd >= 0) {
        /* A stream on a copy of the descriptor: commit closes the original. */
        int fd = dup(r->summary.fd);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        int ok = f != NULL;
        if (ok) {
            lgc_summary_json(r, f);
            ok = !ferror(f);
            ok = fclose(f) == 0 && ok;
        } else if (fd >= 0) {
            close(fd);
        }
        if (!ok || lgc_output_commit(&r->summary) != LGC_OK) {
            fprintf(stderr, "lagrangec: --summary-json %s: %s\n", r->opt.summary_json,
                    strerror(errno));
            exit = LGC_EXIT_FAILED;
        }
    }
    return exit;
}

void lgc_sim_free(lgc_sim_run *r)
{
    lgc_csv_free(r->csv);
    if (r->csv_fd >= 0 && r->csv_fd != r->out.fd)
        close(r->csv_fd);
    lgc_output_discard(&r->out);
    lgc_output_discard(&r->png);
    lgc_output_discard(&r->summary);
    lgc_output_discard(&r->events);
    lgc_event_log_free(&r->log);
    lgc_driver_free(r->drv);
    lgc_monitor_free(&r->mon);
    lgc_system_free(&r->sys);
    free(r->x0);
    free(r->fixed);
}

int lgc_simulate_main(const lgc_model *model, int argc, char **argv)
{
    lgc_sim_run r;
    int exit = lgc_sim_init(&r, model);
    if (exit == LGC_EXIT_OK)
        exit = setup(&r, argc, argv);
    if (exit == LGC_EXIT_OK) {
        lgc_sim_integrate(&r);
        exit = finish(&r);
    }
    lgc_sim_free(&r);
    return exit < 0 ? LGC_EXIT_OK : exit;
}
