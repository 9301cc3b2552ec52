/*
** sweep_run.c — one run of a sweep, in whichever process takes it: the
** run's values over the sweep's base, the start checked (or completed),
** simulate's integration, then its trajectory written whole and its
** result appended to the process's journal, the result last. A run that fails (a refused start, a fault on
** the way) is a result like any other: its status says so, and the runs
** after it go on. The worker's memory is made once and reused, so a run
** allocates nothing but its CSV writer's line.
*/
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lagrangec/initial.h"
#include "lagrangec/status.h"
#include "programs.h"

int lgc_sweep_worker_init(lgc_sweep_worker *w, lgc_sweep *s)
{
    memset(w, 0, sizeof *w);
    w->sweep = s;
    w->trajectory.fd = w->journal.fd = -1;
    const size_t nx = (size_t)s->model->nx + 1;
    w->values = calloc((size_t)s->ncolumns + 1, sizeof *w->values);
    w->before = calloc(nx, sizeof *w->before);
    w->tried = calloc(nx, 1);
    w->freed = calloc(nx, 1);
    return lgc_given_init(&w->given, s->model) == LGC_OK && w->values && w->before && w->tried
                   && w->freed
               ? LGC_OK
               : LGC_ERR_NOMEM;
}

void lgc_sweep_worker_free(lgc_sweep_worker *w)
{
    lgc_given_free(&w->given);
    free(w->values);
    free(w->before);
    free(w->tried);
    free(w->freed);
    lgc_text_free(&w->line);
    lgc_output_discard(&w->trajectory);
    lgc_journal_close(&w->journal);
}

void lgc_sweep_values(const lgc_sweep *s, unsigned long run, double v[])
{
    if (s->nvary > 0)
        for (int j = 0; j < s->nvary; j++)
            v[j] = lgc_vary_draw(&s->vary[j], s->seed, run);
    else
        memcpy(v, s->table.values + (run - 1) * (size_t)s->ncolumns, (size_t)s->ncolumns * sizeof *v);
}

/* The run's system and start: the base with the run's values over it. LGC_OK, or why not into why. */
static int start(lgc_sweep_worker *w, unsigned long run, char *why, size_t size)
{
    lgc_sweep *s = w->sweep;
    lgc_sim_run *r = &s->run;
    const lgc_model *m = s->model;
    memcpy(r->sys.p, s->p0, (size_t)m->np * sizeof *s->p0);
    memcpy(r->sys.u, s->u0, (size_t)m->nu * sizeof *s->u0);
    memcpy(w->given.value, s->base.value, (size_t)m->nx * sizeof *s->base.value);
    memcpy(w->given.set, s->base.set, (size_t)m->nx * sizeof *s->base.set);
    lgc_sweep_values(s, run, w->values);
    for (int j = 0; j < s->ncolumns; j++)
        lgc_target_set(&s->targets[j], w->values[j], &r->sys, &w->given);
    lgc_start_state(&r->sys, &w->given, r->x0, r->fixed);
    int rc = LGC_OK;
    if (r->opt.consistent) {
        memcpy(w->before, r->x0, (size_t)m->nx * sizeof *r->x0);
        lgc_unmet unmet;
        rc = lgc_start_solve(&r->sys, 0.0, r->x0, r->fixed, &w->given, w->before, w->tried, w->freed,
                             &unmet);
        if (rc != LGC_OK)
            lgc_start_incomplete(&r->sys, 0.0, r->x0, rc, &unmet, "--init and the run's values", why,
                                 size);
    }
    if (rc == LGC_OK)
        rc = lgc_start_problem(&r->sys, 0.0, r->x0, 1, why, size);
    if (rc == LGC_OK && (rc = lgc_sim_set_gains(r)) != LGC_OK)
        snprintf(why, size, "%s", lgc_strerror(rc));
    return rc;
}

/* run's line of the index (header: sweep_main.c, the grep tag INDEX-COLUMNS) into w->line. */
static void result_line(lgc_sweep_worker *w, unsigned long run, int started, const char *why)
{
    const lgc_sweep *s = w->sweep;
    const lgc_sim_run *r = &s->run;
    const lgc_model *m = s->model;
    const int ok = started && r->status == LGC_OK;
    const int sampled = started && r->mon.count > 0;
    lgc_text *t = &w->line;
    lgc_text_clear(t);
    lgc_text_printf(t, "%lu,%s", run, ok ? "ok" : "fault");
    for (int j = 0; j < s->ncolumns; j++) {
        lgc_text_add(t, ",", 1);
        lgc_text_number(t, w->values[j]);
    }
    lgc_stats st = {0};
    if (started)
        lgc_driver_stats(r->drv, &st);
    lgc_text_printf(t, ",%lu,", st.steps);
    if (sampled)
        lgc_text_number(t, r->mon.s.t);
    for (int i = 0; i < 2 * m->nq; i++) {
        lgc_text_add(t, ",", 1);
        if (sampled)
            lgc_text_number(t, r->mon.s.x[i]);
    }
    for (int i = 0; i < 2 * m->nh + m->nn; i++) {
        lgc_text_add(t, ",", 1);
        if (sampled)
            lgc_text_number(t, r->mon.max_residual[i]);
    }
    /* Each output at the last sample, and its extremes over the samples. */
    for (int i = 0; i < m->nout; i++) {
        const double v[3] = {r->mon.s.out[i], r->mon.out_min[i], r->mon.out_max[i]};
        for (int k = 0; k < 3; k++) {
            lgc_text_add(t, ",", 1);
            if (sampled)
                lgc_text_number(t, v[k]);
        }
    }
    lgc_text_add(t, ",", 1);
    char lost[512];
    if (sampled && !lgc_integral_lost(m, r->sys.u, lost, sizeof lost))
        lgc_text_number(t, r->mon.max_energy_drift);
    lgc_text_add(t, ",", 1);
    if (!ok) {
        lgc_text_number(t, started ? r->t_fault : 0.0);
        lgc_text_add(t, ",", 1);
        lgc_text_csv_field(t, started ? lgc_strerror(r->status) : why);
    } else {
        lgc_text_add(t, ",", 1);
    }
    lgc_text_add(t, "\n", 1);
}

/* -1 after a message naming what of run could not be written: its trajectory, or (ext NULL) its result. */
static int cannot_write(const lgc_sweep *s, unsigned long run, const char *ext)
{
    char name[LGC_RUN_FILE_MAX];
    lgc_run_file(run, ext ? ext : "csv", name);
    if (ext)
        fprintf(stderr, "lagrangec: %s/run/%s: %s\n", s->out, name, strerror(errno));
    else
        fprintf(stderr, "lagrangec: %s/run: run %lu's result, into this process's journal: %s\n",
                s->out, run, strerror(errno));
    return -1;
}

int lgc_sweep_run(lgc_sweep_worker *w, unsigned long run)
{
    lgc_sweep *s = w->sweep;
    lgc_sim_run *r = &s->run;
    char name[LGC_RUN_FILE_MAX], why[1024];
    const int started = start(w, run, why, sizeof why) == LGC_OK;
    if (s->trajectories) {
        lgc_run_file(run, "csv", name);
        if (lgc_output_open_at(&w->trajectory, s->dir.run_fd, name) != LGC_OK)
            return cannot_write(s, run, "csv");
        r->csv = lgc_csv_open(w->trajectory.fd, s->model);
        if (!r->csv || lgc_csv_header(r->csv) != LGC_OK) {
            if (!r->csv)
                errno = ENOMEM;
            lgc_csv_free(r->csv);
            r->csv = NULL;
            lgc_output_discard(&w->trajectory);
            return cannot_write(s, run, "csv");
        }
    }
    if (started)
        lgc_sim_integrate(r);
    lgc_csv_free(r->csv);
    r->csv = NULL;
    if (started && r->status == LGC_ERR_IO) {
        lgc_output_discard(&w->trajectory);
        return cannot_write(s, run, "csv");
    }
    if (s->trajectories && lgc_output_commit(&w->trajectory) != LGC_OK)
        return cannot_write(s, run, "csv");
    result_line(w, run, started, why);
    if (w->line.failed) {
        errno = ENOMEM;
        return cannot_write(s, run, NULL);
    }
    if (lgc_journal_append(&w->journal, s->dir.run_fd, w->line.s, w->line.len) != 0)
        return cannot_write(s, run, NULL);
    return started && r->status == LGC_OK ? 0 : 1;
}
