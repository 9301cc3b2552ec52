/* simulate.c — the `lagrangec simulate` program: run, write, plot, summarise. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lagrangec/csv.h"
#include "lagrangec/monitor.h"
#include "lagrangec/simulate.h"
#include "lagrangec/status.h"
#include "simulate_internal.h"

typedef struct sim_run {
    const lgc_model *model;
    sim_options opt;
    lgc_system sys;
    lgc_monitor mon;
    lgc_driver *drv;
    double *x;              /* nx: initial state, then the current sample */
    FILE *csv;
    char csv_path[4096];
    int csv_is_temp;
    double wall;            /* seconds spent integrating */
} sim_run;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int fail(double t, int status, const char *detail)
{
    fprintf(stderr, "lagrangec: t = %.6g: %s%s%s\n", t, lgc_strerror(status),
            detail ? ": " : "", detail ? detail : "");
    return 1;
}

/* Gains from the options; auto uses the fixed step, or dopri5's first step. */
static int set_gains(sim_run *r)
{
    lgc_system *sys = &r->sys;
    switch (r->opt.gains) {
    case GAINS_MODEL: break;
    case GAINS_GIVEN: sys->alpha = r->opt.alpha; sys->beta = r->opt.beta; break;
    case GAINS_OFF: sys->alpha = sys->beta = 0.0; break;
    case GAINS_AUTO:
        if (r->opt.dt > 0.0) {
            lgc_baumgarte_auto(r->opt.dt, &sys->alpha, &sys->beta);
        } else {
            /* Estimate dopri5's first step without feedback, then size it. */
            sys->alpha = sys->beta = 0.0;
            int rc = lgc_driver_reset(r->drv, 0.0, r->x);
            if (rc != LGC_OK)
                return rc;
            lgc_baumgarte_auto(lgc_driver_step_size(r->drv), &sys->alpha, &sys->beta);
        }
        break;
    }
    return LGC_OK;
}

static int open_csv(sim_run *r)
{
    if (r->opt.out) {
        snprintf(r->csv_path, sizeof r->csv_path, "%s", r->opt.out);
        r->csv = fopen(r->csv_path, "w");
    } else if (r->opt.plot) {
        snprintf(r->csv_path, sizeof r->csv_path, "/tmp/lagrangec-XXXXXX");
        int fd = mkstemp(r->csv_path);
        r->csv = fd >= 0 ? fdopen(fd, "w") : NULL;
        r->csv_is_temp = 1;
    } else {
        return LGC_OK;
    }
    if (!r->csv) {
        perror(r->csv_path);
        return LGC_ERR_IO;
    }
    /* Rows are flushed one by one; a large buffer keeps each write whole. */
    setvbuf(r->csv, NULL, _IOFBF, 1 << 16);
    return lgc_csv_header(r->csv, r->model);
}

static void progress(const sim_run *r, double t, double *last)
{
    double w = now();
    if (w - *last < 0.25)
        return;
    *last = w;
    fprintf(stderr, "\r  t = %-12.6g %5.1f%%", t, 100.0 * t / r->opt.t_end);
}

/* The driver's observer: each accepted step's state into the extremes. */
static int track_step(void *ctx, double t, const double x[])
{
    sim_run *r = ctx;
    return lgc_monitor_track(&r->mon, &r->sys, t, x);
}

/* Integrate sample by sample, recording and writing each. */
static int run(sim_run *r)
{
    const int show = !r->opt.quiet && isatty(STDERR_FILENO);
    double t = 0.0, last = now(), start = last;
    int rc = lgc_driver_reset(r->drv, 0.0, r->x);
    lgc_driver_observe(r->drv, track_step, r);
    for (long k = 1; rc == LGC_OK; k++) {
        rc = lgc_driver_advance(r->drv, t, r->x);
        if (rc == LGC_OK)
            rc = lgc_monitor_sample(&r->mon, &r->sys, t, r->x);
        if (rc == LGC_OK && r->csv)
            rc = lgc_csv_row(r->csv, r->model, &r->mon.s);
        if (rc != LGC_OK || t >= r->opt.t_end)
            break;
        t = fmin(r->opt.t_end, (double)k * r->opt.sample);
        if (show)
            progress(r, t, &last);
    }
    r->wall = now() - start;
    if (show)
        fputs("\r                              \r", stderr);
    return rc;
}

static void summary(const sim_run *r)
{
    const lgc_model *m = r->model;
    lgc_stats st;
    lgc_driver_stats(r->drv, &st);
    printf("model:            %s%s%s\n", m->name, m->title ? " — " : "",
           m->title ? m->title : "");
    if (strcmp(r->opt.method, "rk4") == 0)
        printf("method:           rk4, h = %g\n", r->opt.dt);
    else
        printf("method:           dopri5, rtol = %g, atol = %g\n", r->opt.rtol, r->opt.atol);
    printf("stabilisation:    Baumgarte alpha = %g, beta = %g; projection %s, metric %s\n",
           r->sys.alpha, r->sys.beta,
           (const char *[]){"none", "velocity", "full"}[r->opt.project],
           r->opt.metric == LGC_METRIC_MASS ? "mass" : "identity");
    printf("steps:            %lu (rejected %lu)\n", st.steps, st.rejected);
    printf("rhs evaluations:  %lu\n", st.nfev);
    printf("wall time:        %.3f s (%.0f steps/s)\n", r->wall,
           r->wall > 0 ? (double)st.steps / r->wall : 0.0);
    printf("maxima over:      every accepted step (after correction) and sample\n");
    if (m->nh > 0) {
        printf("max |phi|:        %.3e\n", r->mon.max_phi);
        printf("max |phi'|:       %.3e\n", r->mon.max_phi_dot);
    } else {
        printf("max |phi|, |phi'|: n/a (no holonomic constraints)\n");
    }
    if (m->nn > 0)
        printf("max |g|:          %.3e\n", r->mon.max_g);
    else
        printf("max |g|:          n/a (no nonholonomic constraints)\n");
    if (m->conservative)
        printf("energy drift:     %.3e (max |E-E0|/|E0|%s)\n", r->mon.max_energy_drift,
               r->mon.energy0 == 0.0 ? ", E0 = 0: absolute" : "");
    else
        printf("energy drift:     n/a (applied forces or explicit time)\n");
    printf("final state (t = %g):\n", r->mon.s.t);
    for (int i = 0; i < m->nq; i++)
        printf("  %-12s = % .15g\n", m->coordinate_names[i], r->mon.s.x[i]);
    for (int i = 0; i < m->nq; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s'", m->coordinate_names[i]);
        printf("  %-12s = % .15g\n", name, r->mon.s.x[m->nq + i]);
    }
}

static int setup(sim_run *r, int argc, char **argv)
{
    const lgc_model *m = r->model;
    if (lgc_system_init(&r->sys, m) != LGC_OK || lgc_monitor_init(&r->mon, m) != LGC_OK
        || !(r->x = calloc((size_t)m->nx + 1, sizeof *r->x)))
        return fail(0.0, LGC_ERR_NOMEM, NULL);
    memcpy(r->x, m->initial_state, (size_t)m->nx * sizeof *r->x);
    int rc = sim_parse_options(argc, argv, &r->sys, r->x, &r->opt);
    if (rc != 0)
        return rc == 1 ? -1 : rc;
    lgc_driver_options dopt;
    lgc_driver_options_default(&dopt);
    dopt.type = lgc_stepper_type_find(r->opt.method);
    dopt.h = r->opt.dt;     /* dopri5: first step; 0 = estimate */
    dopt.rtol = r->opt.rtol;
    dopt.atol = r->opt.atol;
    dopt.project = r->opt.project;
    dopt.metric = r->opt.metric;
    if (!(r->drv = lgc_driver_alloc(&r->sys, &dopt)))
        return fail(0.0, LGC_ERR_NOMEM, "driver setup");
    if ((rc = set_gains(r)) != LGC_OK)
        return fail(0.0, rc, NULL);
    if ((rc = open_csv(r)) != LGC_OK)
        return fail(0.0, rc, r->csv_path);
    return 0;
}

static void teardown(sim_run *r)
{
    if (r->csv)
        fclose(r->csv);
    if (r->csv_is_temp)
        remove(r->csv_path);
    lgc_driver_free(r->drv);
    lgc_monitor_free(&r->mon);
    lgc_system_free(&r->sys);
    free(r->x);
}

int lgc_simulate_main(const lgc_model *model, int argc, char **argv)
{
    sim_run r;
    memset(&r, 0, sizeof r);
    r.model = model;
    int status = setup(&r, argc, argv);
    if (status == 0) {
        int rc = run(&r);
        if (rc != LGC_OK) {
            status = fail(rc == LGC_ERR_IO ? r.mon.s.t : lgc_driver_time(r.drv), rc,
                          rc == LGC_ERR_IO ? r.csv_path : NULL);
        } else {
            if (r.csv && fflush(r.csv) != 0)
                status = fail(r.mon.s.t, LGC_ERR_IO, r.csv_path);
            if (r.opt.plot && status == 0
                && sim_plot(model, r.csv_path, r.opt.plot, r.mon.energy0) != LGC_OK)
                status = fail(r.mon.s.t, LGC_ERR_IO, "gnuplot failed");
        }
        if (!r.opt.quiet && r.drv)
            summary(&r);
    }
    teardown(&r);
    return status < 0 ? 0 : status;
}
