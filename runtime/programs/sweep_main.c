/*
** sweep_main.c — the `lagrangec sweep` program: its options (its own and
** simulate's), where each run's values come from (a table, or draws), the
** directory they go to, which runs are this process's (its shard, its MPI
** rank, not yet done), the workers that run them, the index, and the
** histogram of --plot (sweep_plot.c).
*/
#define _GNU_SOURCE     /* sched_getaffinity */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lagrangec/program.h"
#include "lagrangec/status.h"
#include "lagrangec/version.h"
#include "programs.h"

/* The largest RUNS.csv read: a table of ten million runs fits. */
#define TABLE_MAX ((size_t)1 << 30)
/* The most workers -j starts. */
#define JOBS_MAX 1024

int lgc_mpi_launched(void)
{
    const char *size = getenv("OMPI_COMM_WORLD_SIZE");     /* Open MPI's mpirun */
    if (!size)
        size = getenv("PMI_SIZE");                          /* MPICH, Slurm's PMI-2 */
    if (!size && getenv("PMIX_RANK"))                       /* srun --mpi=pmix */
        size = getenv("SLURM_STEP_NUM_TASKS");
    if (size)
        return atoi(size) > 0 ? atoi(size) : -1;
    return getenv("PMIX_RANK") ? -1 : 0;
}

/* A count: decimal digits only, from lo to hi. */
static int parse_count(const char *s, unsigned long lo, unsigned long hi, unsigned long *v)
{
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 19)
        return 0;
    *v = strtoul(s, NULL, 10);
    return *v >= lo && *v <= hi;
}

static int parse_seed(const char *s, uint64_t *seed)
{
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 20)
        return 0;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    *seed = (uint64_t)v;
    return errno == 0;
}

static int parse_shard(const char *s, lgc_sweep *sw)
{
    const char *slash = strchr(s, '/');
    char k[24];
    if (!slash || (size_t)(slash - s) >= sizeof k)
        return 0;
    memcpy(k, s, (size_t)(slash - s));
    k[slash - s] = '\0';
    return parse_count(k, 1, (unsigned long)-1, &sw->shard)
           && parse_count(slash + 1, 1, (unsigned long)-1, &sw->shards) && sw->shard <= sw->shards;
}

static int add_vary(lgc_sweep *s, const char *text)
{
    lgc_vary *v = realloc(s->vary, (size_t)(s->nvary + 1) * sizeof *v);
    if (v)
        s->vary = v;
    const char **texts = v ? realloc(s->vary_text, (size_t)(s->nvary + 1) * sizeof *texts) : NULL;
    if (texts)
        s->vary_text = texts;
    if (!v || !texts)
        return lgc_usage_error("%s", lgc_strerror(LGC_ERR_NOMEM));
    lgc_input_error e;
    if (lgc_vary_read(text, &s->vary[s->nvary], &e) != LGC_OK) {
        lgc_input_error_print("--vary", text, strlen(text), &e);
        return LGC_EXIT_USAGE;
    }
    s->vary_text[s->nvary++] = text;
    return LGC_EXIT_OK;
}

/* One of sweep's own options. */
static int take(lgc_sweep *s, int option, const char *a)
{
    const char *name = lgc_sweep_command.options[option].name;
    int ok = 1;
    switch (option) {
    case LGC_SWEEP_RUNS: s->runs_path = a; break;
    case LGC_SWEEP_SAMPLES:
        if (!parse_count(a, 1, LGC_SWEEP_MAX_RUNS, &s->nruns))
            return lgc_usage_error("bad value '%s' for --samples: a number of runs from 1 to %lu", a,
                                   LGC_SWEEP_MAX_RUNS);
        break;
    case LGC_SWEEP_VARY: return add_vary(s, a);
    case LGC_SWEEP_SEED: ok = parse_seed(a, &s->seed); break;
    case LGC_SWEEP_OUT: s->out = a; break;
    case LGC_SWEEP_JOBS: {
        unsigned long jobs;
        ok = parse_count(a, 1, JOBS_MAX, &jobs);
        s->jobs = (int)jobs;
        if (!ok)
            return lgc_usage_error("bad value '%s' for -j: a number of workers from 1 to %d", a,
                                   JOBS_MAX);
        break;
    }
    case LGC_SWEEP_SHARD:
        if (!parse_shard(a, s))
            return lgc_usage_error("bad value '%s' for --shard: K/M with 1 <= K <= M", a);
        break;
    case LGC_SWEEP_NO_TRAJECTORIES: s->trajectories = 0; break;
    case LGC_SWEEP_PLOT: s->plot = a; break;
    case LGC_SWEEP_PLOT_COLUMN: s->plot_column = a; break;  /* checked against the index's columns */
    case LGC_SWEEP_MERGE:
        return lgc_usage_error("--merge assembles directories and takes no spec: lagrangec "
                               "sweep --merge DIR... --out DIR");
    }
    return ok ? LGC_EXIT_OK : lgc_usage_error("bad value '%s' for %s", a, name);
}

static int parse(lgc_sweep *s, int argc, char **argv)
{
    lgc_args args;
    lgc_args_init(&args, &lgc_sweep_command, argc, argv);
    int option, rc;
    const char *value;
    while ((rc = lgc_args_next(&args, &option, &value)) == 1) {
        const int sim = option - LGC_SWEEP_NOPTIONS;
        if (sim == LGC_SIM_HELP) {
            lgc_command_help(&lgc_sweep_command, argc > 0 ? argv[0] : "sweep", stdout);
            return -1;
        }
        rc = sim >= 0 ? lgc_sim_take(&s->run, &s->base, sim, value) : take(s, option, value);
        if (rc != LGC_EXIT_OK)
            return rc;
    }
    if (rc != 0)
        return rc;
    if (!s->out)
        return lgc_usage_error("sweep needs --out DIR");
    if (s->runs_path && (s->nvary > 0 || s->nruns > 0))
        return lgc_usage_error("--runs, or --samples with --vary: one or the other");
    if (s->nvary > 0 && s->nruns == 0)
        return lgc_usage_error("--vary needs --samples N");
    if (s->nruns > 0 && s->nvary == 0)
        return lgc_usage_error("--samples needs at least one --vary NAME=DIST");
    if (!s->runs_path && s->nruns == 0)
        return lgc_usage_error("sweep needs --runs RUNS.csv, or --samples N with --vary");
    if (s->plot_column && !s->plot)
        return lgc_usage_error("--plot-column draws on --plot's picture: give --plot FILE.png");
    if (s->plot && (rc = lgc_gnuplot_find("--plot", s->gnuplot, sizeof s->gnuplot)) != LGC_EXIT_OK)
        return rc;
    return lgc_sim_settle(&s->run.opt, s->model);
}

/* The whole of the file at path into t, up to TABLE_MAX bytes. */
static int read_file(const char *path, lgc_text *t)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return lgc_usage_error("--runs %s: %s", path, strerror(errno));
    lgc_text_clear(t);
    char buf[1 << 16];
    ssize_t got;
    while ((got = read(fd, buf, sizeof buf)) != 0 && t->len <= TABLE_MAX) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            break;
        lgc_text_add(t, buf, (size_t)got);
    }
    const int err = got < 0 ? errno : 0;
    close(fd);
    if (err || t->failed || t->len > TABLE_MAX)
        return lgc_usage_error("--runs %s: %s", path, err         ? strerror(err)
                                                      : t->failed ? strerror(ENOMEM)
                                                                  : "larger than 1 GiB");
    return LGC_EXIT_OK;
}

/* Columns of the index that a value's name must not take. */
static const char *const index_words[] = {"run", "status", "steps", "fault", NULL};

/* Why value j cannot be a run's (unknown, an index column's name, set twice) into why; 1 if it can. */
static int bind(lgc_sweep *s, int j, char *why, size_t size)
{
    const char *name = s->names[j];
    if (!lgc_target_find(s->model, name, &s->targets[j])) {
        snprintf(why, size, "not a parameter, state or input of %s", s->model->name);
        return 0;
    }
    for (int i = 0; index_words[i]; i++)
        if (strcmp(name, index_words[i]) == 0) {
            snprintf(why, size, "the name of a column of the index runs.csv (run, status, steps, "
                                "fault): rename it in the spec");
            return 0;
        }
    for (int i = 0; i < j; i++)
        if (s->targets[i].kind == s->targets[j].kind && s->targets[i].index == s->targets[j].index) {
            snprintf(why, size, "it sets what %s %d, %.64s, sets", s->runs_path ? "column" : "--vary",
                     i + 1, s->names[i]);
            return 0;
        }
    return 1;
}

/* The values of each run: RUNS.csv read and its columns bound, or the --vary names bound. */
static int values(lgc_sweep *s)
{
    lgc_input_error e;
    if (s->runs_path) {
        int rc = read_file(s->runs_path, &s->table_text);
        if (rc != LGC_EXIT_OK)
            return rc;
        rc = lgc_table_read(s->table_text.s, s->table_text.len, &s->table, &e);
        if (rc != LGC_OK) {
            lgc_input_error_print(s->runs_path, s->table_text.s, s->table_text.len, &e);
            return LGC_EXIT_USAGE;
        }
        s->nruns = (unsigned long)s->table.nrows;
        s->ncolumns = s->table.ncolumns;
    } else {
        s->ncolumns = s->nvary;
    }
    s->names = calloc((size_t)s->ncolumns + 1, sizeof *s->names);
    s->targets = calloc((size_t)s->ncolumns + 1, sizeof *s->targets);
    if (!s->names || !s->targets)
        return lgc_usage_error("%s", lgc_strerror(LGC_ERR_NOMEM));
    for (int j = 0; j < s->ncolumns; j++) {
        s->names[j] = s->runs_path ? s->table.names[j] : s->vary[j].name;
        char why[256];
        if (bind(s, j, why, sizeof why))
            continue;
        e.line = s->runs_path ? s->table.header_line : 0;
        e.col = s->runs_path ? s->table.name_col[j] : 1;
        snprintf(e.message, sizeof e.message, "%s '%.64s': %s", s->runs_path ? "column" : "name",
                 s->names[j], why);
        if (s->runs_path)
            lgc_input_error_print(s->runs_path, s->table_text.s, s->table_text.len, &e);
        else
            lgc_input_error_print("--vary", s->vary_text[j], strlen(s->vary_text[j]), &e);
        if (s->targets[j].index < 0)
            lgc_list_targets(s->model);
        return LGC_EXIT_USAGE;
    }
    return LGC_EXIT_OK;
}

/*
** The fingerprint of a model whose program does not say what it compiled
** (lgc_program_compiled): its names, sizes and defaults, and the bits of
** its functions at two states.
*/
static uint64_t fingerprint(const lgc_model *m, double *work)
{
    uint64_t h = LGC_FNV1A_START;
    const int sizes[] = {m->nq, m->nh, m->nn, m->nx, m->np, m->nu, m->vakonomic, m->integral};
    h = lgc_fnv1a(h, m->name, strlen(m->name) + 1);
    h = lgc_fnv1a(h, sizes, sizeof sizes);
    for (int i = 0; i < m->nx; i++)
        h = lgc_fnv1a(h, m->state_names[i], strlen(m->state_names[i]) + 1);
    for (int i = 0; i < m->np; i++)
        h = lgc_fnv1a(h, m->parameter_names[i], strlen(m->parameter_names[i]) + 1);
    for (int i = 0; i < m->nu; i++)
        h = lgc_fnv1a(h, m->input_names[i], strlen(m->input_names[i]) + 1);
    h = lgc_fnv1a(h, m->parameter_defaults, (size_t)m->np * sizeof(double));
    h = lgc_fnv1a(h, m->input_defaults, (size_t)m->nu * sizeof(double));
    h = lgc_fnv1a(h, m->initial_state, (size_t)m->nx * sizeof(double));
    const double gains[] = {m->alpha, m->beta};
    h = lgc_fnv1a(h, gains, sizeof gains);
    /* work: x, dxdt, multipliers, residuals, the rhs's scratch */
    const int nc = m->nh + m->nn;
    double *x = work, *dxdt = x + m->nx, *mult = dxdt + m->nx, *res = mult + nc,
           *scratch = res + 2 * m->nh + m->nn;
    for (int probe = 0; probe < 2; probe++) {
        for (int i = 0; i < m->nx; i++)
            x[i] = m->initial_state[i] + (probe ? 0.125 * (i + 1) : 0.0);
        const int rc = m->rhs(0.5, x, m->input_defaults, m->parameter_defaults, 1.0, 1.0, dxdt,
                              mult, scratch);
        m->residuals(0.5, x, m->parameter_defaults, res, res + m->nh, res + 2 * m->nh);
        const double energy = m->energy(0.5, x, m->parameter_defaults);
        h = lgc_fnv1a(h, &rc, sizeof rc);
        h = lgc_fnv1a(h, dxdt, (size_t)(m->nx + nc + 2 * m->nh + m->nn) * sizeof(double));
        h = lgc_fnv1a(h, &energy, sizeof energy);
    }
    return h;
}

/*
** The index's header (grep tag INDEX-COLUMNS: each run's line is
** sweep_run.c's result_line) and sweep.txt: what every run's result
** depends on, compared by the next sweep into the directory.
*/
static int describe(lgc_sweep *s)
{
    const lgc_model *m = s->model;
    const lgc_sim_options *o = &s->run.opt;
    lgc_text *h = &s->header, *t = &s->manifest;
    lgc_text_add(h, "run,status", 10);
    for (int j = 0; j < s->ncolumns; j++) {
        lgc_text_add(h, ",", 1);
        lgc_text_csv_field(h, s->names[j]);
    }
    lgc_text_add(h, ",steps,final t", 14);
    for (int i = 0; i < 2 * m->nq; i++)
        lgc_text_printf(h, ",final %s", m->state_names[i]);
    for (int i = 0; i < 2 * m->nh + m->nn; i++) {
        char row[32];
        lgc_row_name(m, i, row, sizeof row);
        lgc_text_printf(h, ",max |%s|", row);
    }
    for (int i = 0; i < m->nout; i++)
        lgc_text_printf(h, ",final %s,min %s,max %s", m->output_names[i], m->output_names[i],
                        m->output_names[i]);
    lgc_text_printf(h, ",%s,fault t,fault", lgc_integral_drift_name(m));

    /* The runtime's version: runs of two integrators never share an index. */
    lgc_text_printf(t, "lagrangec sweep\nversion %s\n", LGC_VERSION);
    if (lgc_program_compiled) {
        lgc_text_printf(t, "model %s\n", m->name);
        for (const char *const *c = lgc_program_compiled; *c; c++)
            lgc_text_printf(t, "compiled %s\n", *c);
    } else {
        const size_t work = (size_t)(2 * m->nx + 3 * (m->nh + m->nn) + m->nwork) + 1;
        double *scratch = calloc(work, sizeof *scratch);
        if (!scratch)
            return lgc_usage_error("%s", lgc_strerror(LGC_ERR_NOMEM));
        lgc_text_printf(t, "model %s %016llx\n", m->name, (unsigned long long)fingerprint(m, scratch));
        free(scratch);
    }
    lgc_text_printf(t, "formulation %s\nruns %lu\n", m->vakonomic ? "vakonomic" : "dalembert",
                    s->nruns);
    if (s->runs_path) {
        const size_t bytes = s->table.nrows * (size_t)s->ncolumns * sizeof *s->table.values;
        lgc_text_printf(t, "table %016llx\n",
                        (unsigned long long)lgc_fnv1a(LGC_FNV1A_START, s->table.values, bytes));
    } else {
        lgc_text_printf(t, "seed %llu\n", (unsigned long long)s->seed);
        for (int j = 0; j < s->nvary; j++) {
            char v[256];
            lgc_vary_describe(&s->vary[j], v, sizeof v);
            lgc_text_printf(t, "vary %s\n", v);
        }
    }
    static const char *const gains[] = {"model", "given", "auto", "off"};
    lgc_text_printf(t, "method %s\nt-end %.17g\ndt %.17g\nrtol %.17g\natol %.17g\nsample %.17g\n",
                    o->method, o->t_end, o->dt, o->rtol, o->atol, o->sample);
    /* Only when given: the sweep.txt of a sweep without it reads as it always did. */
    if (isfinite(o->max_step))
        lgc_text_printf(t, "max-step %.17g\n", o->max_step);
    if (o->gains == LGC_GAINS_GIVEN)
        lgc_text_printf(t, "baumgarte %.17g,%.17g\n", o->alpha, o->beta);
    else
        lgc_text_printf(t, "baumgarte %s\n", gains[o->gains]);
    lgc_text_printf(t, "project %s\nmetric %s\nconsistent %s\n", lgc_project_names[o->project],
                    lgc_metric_names[o->metric], o->consistent ? "yes" : "no");
    for (int i = 0; i < m->np; i++)
        lgc_text_printf(t, "param %s %.17g\n", m->parameter_names[i], s->p0[i]);
    for (int i = 0; i < m->nu; i++)
        lgc_text_printf(t, "input %s %.17g\n", m->input_names[i], s->u0[i]);
    for (int i = 0; i < m->nx; i++)
        if (s->base.set[i])
            lgc_text_printf(t, "init %s %.17g\n", m->state_names[i], s->base.value[i]);
    lgc_text_printf(t, "trajectories %s\ncolumns %s\n", s->trajectories ? "yes" : "no", h->s);
    return h->failed || t->failed ? lgc_usage_error("%s", lgc_strerror(LGC_ERR_NOMEM)) : LGC_EXIT_OK;
}

/*
** The index's column --plot draws (default: the first coordinate's final
** value), among its statistics' (the numeric columns): LGC_EXIT_OK, or
** USAGE after naming it and listing them.
*/
static int find_plot_column(lgc_sweep *s)
{
    lgc_stats_table t;
    if (lgc_stats_begin(&t, s->header.s) != LGC_OK) {
        lgc_stats_free(&t);
        return lgc_usage_error("%s", lgc_strerror(LGC_ERR_NOMEM));
    }
    char first[256];
    snprintf(first, sizeof first, "final %s", s->model->state_names[0]);
    const char *name = s->plot_column ? s->plot_column : first;
    int rc = LGC_EXIT_OK;
    if ((s->plot_index = lgc_sweep_plot_column(&t, name)) < 0) {
        rc = lgc_usage_error("bad value '%s' for --plot-column: not a numeric column of the index "
                             LGC_SWEEP_INDEX, name);
        const char **names = malloc(((size_t)t.ncols + 1) * sizeof *names);
        for (int j = 0; names && j < t.ncols; j++)
            names[j] = t.col[j].name;
        if (names)
            lgc_list_names("columns", names, t.ncols);
        free(names);
    }
    lgc_stats_free(&t);
    return rc;
}

/* Everything before a run: options, values, model state. Ranks but 0 keep quiet (they would say the same). */
static int prepare(lgc_sweep *s, int argc, char **argv)
{
    const lgc_model *m = s->model;
    int rc = lgc_sim_init(&s->run, m);
    if (rc == LGC_EXIT_OK && lgc_given_init(&s->base, m) != LGC_OK)
        rc = lgc_usage_error("%s", lgc_strerror(LGC_ERR_NOMEM));
    if (rc == LGC_EXIT_OK) {
        lgc_sim_options_init(&s->run.opt);
        rc = parse(s, argc, argv);
    }
    if (rc == LGC_EXIT_OK && !s->ranks && lgc_mpi_launched() != 0 && lgc_mpi_launched() != 1)
        rc = lgc_usage_error("this lagrangec was built without MPI (meson setup -Dmpi=enabled): "
                             "under mpirun every rank would run every run; run it alone with -j");
    if (rc == LGC_EXIT_OK)
        rc = values(s);
    if (rc != LGC_EXIT_OK)
        return rc;
    s->quiet = s->run.opt.quiet;
    s->run.opt.quiet = 1;   /* a run's own progress would cross the sweep's */
    s->p0 = malloc(((size_t)m->np + 1) * sizeof *s->p0);
    s->u0 = malloc(((size_t)m->nu + 1) * sizeof *s->u0);
    if (!s->p0 || !s->u0)
        return lgc_usage_error("%s", lgc_strerror(LGC_ERR_NOMEM));
    memcpy(s->p0, s->run.sys.p, (size_t)m->np * sizeof *s->p0);
    memcpy(s->u0, s->run.sys.u, (size_t)m->nu * sizeof *s->u0);
    if ((rc = describe(s)) != LGC_EXIT_OK || (s->plot && (rc = find_plot_column(s)) != LGC_EXIT_OK))
        return rc;
    return lgc_sim_make_driver(&s->run);
}

/* The processors this process may run on. */
static int processors(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
}

static int work(void *ctx, unsigned long i, double *integrating)
{
    lgc_sweep_worker *w = ctx;
    w->sweep->run.wall = 0.0;   /* stays 0 for a start refused */
    const int rc = lgc_sweep_run(w, w->sweep->todo[i]);
    *integrating = w->sweep->run.wall;
    return rc;
}

/* This process's runs that are not done, over its workers. */
static int run_share(lgc_sweep *s, lgc_tally *tally)
{
    const int rank = s->ranks ? s->ranks->rank : 0, size = s->ranks ? s->ranks->size : 1;
    lgc_cursor *done;
    if (lgc_cursor_open(&done, s->dir.fd, s->dir.run_fd, s->nruns) != LGC_OK) {
        fprintf(stderr, "lagrangec: %s/run: %s\n", s->out, strerror(errno));
        lgc_cursor_close(done);
        return -1;
    }
    size_t n = 0;
    const lgc_index_runs shard = {s->shard, s->shards};
    for (unsigned long k = 1, position = 0; k <= s->nruns; k++)
        if (lgc_index_has(&shard, k) && position++ % (unsigned long)size == (unsigned long)rank
            && !lgc_dir_run_done(done, s->dir.run_fd, k, s->trajectories, NULL))
            s->todo[n++] = k;
    lgc_cursor_close(done);
    int jobs = s->jobs > 0 ? s->jobs : s->ranks ? 1 : processors();
    if ((size_t)jobs > n)
        jobs = n > 0 ? (int)n : 1;
    lgc_sweep_worker w;
    if (lgc_sweep_worker_init(&w, s) != LGC_OK) {
        lgc_sweep_worker_free(&w);
        fprintf(stderr, "lagrangec: %s\n", lgc_strerror(LGC_ERR_NOMEM));
        return -1;
    }
    const int show = !s->quiet && isatty(STDERR_FILENO);
    int rc = lgc_pool_run(jobs, n, work, &w, show, tally);
    lgc_sweep_worker_free(&w);
    return rc;
}

/* The runs of this invocation (its shard) in order, their index, and what it all came to. */
static int finish(lgc_sweep *s, const lgc_tally *ran, double seconds)
{
    size_t n = 0;
    unsigned long failed = 0;
    const lgc_index_runs index = {s->shard, s->shards};
    lgc_stats_table stats;
    memset(&stats, 0, sizeof stats);
    if (lgc_dir_write_index(&s->dir, s->nruns, s->header.s, &index, &n, &failed,
                            s->plot ? &stats : NULL) != LGC_OK)
        return LGC_EXIT_FAILED;
    if (!s->quiet)
        fprintf(stderr, "lagrangec: %zu runs%s, %lu failed: %s/%s (%lu of them run now, in %.3g s: "
                        "%.1f runs/s; integrating %.3g s, summed over the processes)\n", n,
                s->shards ? " of this shard" : "", failed, s->out, LGC_SWEEP_INDEX, ran->done, seconds,
                seconds > 0 ? (double)ran->done / seconds : 0.0, 1e-6 * (double)ran->inner_us);
    int rc = lgc_dir_say_failed(&s->dir, failed, n);
    if (s->plot) {
        if (lgc_sweep_plot(s->model, &stats, s->plot_index, s->gnuplot, s->png.fd) != LGC_OK)
            rc = LGC_EXIT_FAILED;
        else if (lgc_output_commit(&s->png) != LGC_OK) {
            fprintf(stderr, "lagrangec: --plot %s: %s\n", s->plot, strerror(errno));
            rc = LGC_EXIT_FAILED;
        }
    }
    lgc_stats_free(&stats);
    return rc;
}

/* The worst of the ranks' exit statuses, on every rank. */
static int worst(const lgc_sweep *s, int rc)
{
    return s->ranks ? s->ranks->max(rc) : rc;
}

static void sweep_free(lgc_sweep *s)
{
    lgc_sim_free(&s->run);
    lgc_given_free(&s->base);
    lgc_table_free(&s->table);
    for (int j = 0; j < s->nvary; j++)
        lgc_vary_free(&s->vary[j]);
    free(s->vary);
    free(s->vary_text);
    lgc_text_free(&s->table_text);
    free(s->names);
    free(s->targets);
    free(s->p0);
    free(s->u0);
    free(s->todo);
    lgc_text_free(&s->header);
    lgc_text_free(&s->manifest);
    lgc_output_discard(&s->png);
    lgc_dir_close(&s->dir);
}

int lgc_sweep_main(const lgc_model *model, const lgc_ranks *ranks, int argc, char **argv)
{
    lgc_sweep s;
    memset(&s, 0, sizeof s);
    s.model = model;
    s.ranks = ranks;
    s.trajectories = 1;
    s.dir.fd = s.dir.run_fd = s.dir.lock_fd = s.png.fd = -1;
    const int rank = ranks ? ranks->rank : 0;
    /* Every rank reads the same options: only rank 0 says what is wrong with them. */
    int quiet_stderr = -1;
    if (rank > 0) {
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        fflush(stderr);
        quiet_stderr = dup(STDERR_FILENO);
        if (null >= 0)
            dup2(null, STDERR_FILENO), close(null);
    }
    int rc = prepare(&s, argc, argv);
    if (quiet_stderr >= 0) {
        fflush(stderr);
        dup2(quiet_stderr, STDERR_FILENO);
        close(quiet_stderr);
    }
    if (rc == LGC_EXIT_OK && !(s.todo = calloc((size_t)s.nruns + 1, sizeof *s.todo)))
        rc = lgc_usage_error("%s", lgc_strerror(LGC_ERR_NOMEM));
    /* Rank 0 draws the plot, makes the directory and writes sweep.txt; the others then join it. */
    if (rc == LGC_EXIT_OK && rank == 0 && s.plot)
        rc = lgc_output_open(&s.png, "--plot", s.plot);
    if (rc == LGC_EXIT_OK && rank == 0)
        rc = lgc_dir_join(&s.dir, "--out", s.out, s.manifest.s);
    rc = worst(&s, rc);
    if (rc == LGC_EXIT_OK && rank > 0)
        rc = lgc_dir_join(&s.dir, "--out", s.out, s.manifest.s);
    rc = worst(&s, rc);
    if (rc == LGC_EXIT_OK) {
        lgc_tally tally = {0, 0, 0};
        const double begin = lgc_now();
        if (run_share(&s, &tally) != 0)
            rc = LGC_EXIT_FAILED;
        if (ranks) {
            unsigned long counts[3] = {tally.done, tally.failed, tally.inner_us};
            ranks->sum(counts, 3);
            tally = (lgc_tally){counts[0], counts[1], counts[2]};
            if (rank > 0)
                lgc_dir_close(&s.dir);  /* done in DIR: rank 0 may find itself alone there */
            ranks->barrier();   /* every result written: rank 0 reads them all */
        }
        if (rank == 0) {
            const int index = finish(&s, &tally, lgc_now() - begin);
            rc = index > rc ? index : rc;
        }
        rc = worst(&s, rc);
    }
    sweep_free(&s);
    return rc < 0 ? LGC_EXIT_OK : rc;
}
