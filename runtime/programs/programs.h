/*
** programs.h — the programs behind `lagrangec simulate`, `lagrangec
** linearize` and `lagrangec sweep`, apart from the library: one internal
** header, sectioned by the file that defines each part, in the order a run
** reads them. They use the library's public API only. Their symbols are
** lgc_-prefixed too, so no generated model's NAME_ symbols can meet them in
** a program.
*/
#ifndef LAGRANGEC_PROGRAMS_H
#define LAGRANGEC_PROGRAMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "commands.h"
#include "lagrangec/csv.h"
#include "lagrangec/driver.h"
#include "lagrangec/initial.h"
#include "lagrangec/monitor.h"

/* ---- program.c: lgc_main (lagrangec/program.h) dispatches to these ---- */

/*
** The processes of an MPI job, as a sweep uses them (mpi_ranks.c, in the
** MPI program only). NULL where a sweep is one process (with its workers).
*/
typedef struct lgc_ranks {
    int rank, size;
    void (*barrier)(void);
    /* Sums n counts over the ranks into rank 0's v. */
    void (*sum)(unsigned long v[], int n);
    /* The largest of the ranks' values, on every rank. */
    int (*max)(int value);
} lgc_ranks;

int lgc_simulate_main(const lgc_model *model, int argc, char **argv);
int lgc_linearize_main(const lgc_model *model, int argc, char **argv);
int lgc_eval_main(const lgc_model *model, int argc, char **argv);
int lgc_sweep_main(const lgc_model *model, const lgc_ranks *ranks, int argc, char **argv);

/* lgc_main, with the ranks of an MPI job for a sweep (NULL: none). */
int lgc_main_ranks(const lgc_model *model, const lgc_ranks *ranks, int argc, char **argv);

/* ---- args.c: reading a command line ---- */

/* "lagrangec: " + the message on stderr; returns LGC_EXIT_USAGE. */
int lgc_usage_error(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* A finite number, the whole of s: 1, else 0. */
int lgc_parse_number(const char *s, double *v);

/* "  known WHAT: a, b, c" on stderr. */
void lgc_list_names(const char *what, const char *const *names, int n);

/* A mistake in an input the user wrote: a file's line and column, or a column of an option's value. */
typedef struct lgc_input_error {
    int line;               /* 1-based; 0 for an option's value */
    int col;                /* 1-based, in characters */
    char message[384];
} lgc_input_error;

/* The column of p on the line that starts at start, in characters (UTF-8 continuation bytes not counted). */
int lgc_text_column(const char *start, const char *p);

/*
** "WHERE:LINE:COL: error: MESSAGE" (WHERE:COL for an option's value) on
** stderr, then the line of text with a caret under the column.
*/
void lgc_input_error_print(const char *where, const char *text, size_t size,
                           const lgc_input_error *e);

typedef struct lgc_args {
    const lgc_command *cmd;
    int argc;
    char **argv;
    int k;                  /* the next word */
} lgc_args;

void lgc_args_init(lgc_args *a, const lgc_command *cmd, int argc, char **argv);

/*
** The next option: its index in the command's table into *option, its
** value (NULL for a flag) into *value. 1 while there is one, 0 at the end,
** LGC_EXIT_USAGE after a message (an unknown option, a missing value,
** lagrangec's own option, an output path of PATH_MAX bytes or more).
*/
int lgc_args_next(lgc_args *a, int *option, const char **value);

/* ---- names.c: states and constraint rows by name ---- */

/* Values of states the options set, before the start is made from them. */
typedef struct lgc_given {
    double *value;          /* nx */
    unsigned char *set;     /* nx: 1 where an option set the value */
} lgc_given;

/* A state by name: x, x', x_dot (for x'), int_g1, mu1; -1 if none. */
int lgc_state_index(const lgc_model *m, const char *name);

/*
** NAME=VALUE of `option`: --param into sys->p, --input into sys->u, any
** other option a state into *start. LGC_EXIT_OK, or LGC_EXIT_USAGE after a
** message listing the known names.
*/
int lgc_assign(const char *option, const char *arg, lgc_system *sys, lgc_given *start);

/* Row i of [phi; phi'; g] as the CSV names it: "phi[1]", "phi[1]'", "g[1]". */
void lgc_row_name(const lgc_model *m, int row, char *buf, size_t size);

/* "energy drift", "Jacobi integral drift" (or "integral drift" for none): the model's integral's. */
const char *lgc_integral_drift_name(const lgc_model *m);
/* The summary JSON's key of that drift: "energy_drift" or "jacobi_integral_drift". */
const char *lgc_integral_json_key(const lgc_model *m);
/*
** 1, and why into buf, when a run at inputs u does not conserve the
** model's integral (it has none, or its forces are inputs not at 0); else 0.
*/
int lgc_integral_lost(const lgc_model *m, const double u[], char *buf, size_t size);

/* "holonomic constraint 1: x^2 + y^2 - l^2", "the velocity form of ...", ... for row i. */
void lgc_describe_row(const lgc_model *m, int row, char *buf, size_t size);

/* What a name sets in a run: a parameter, an input, or a state's initial value. */
typedef enum lgc_target_kind {
    LGC_TARGET_PARAMETER, LGC_TARGET_INPUT, LGC_TARGET_STATE
} lgc_target_kind;

typedef struct lgc_target {
    lgc_target_kind kind;
    int index;              /* into p, u or x */
} lgc_target;

/* The parameter, input or state (x, x', x_dot, int_g1, mu1) called name: 1, else 0. */
int lgc_target_find(const lgc_model *m, const char *name, lgc_target *t);

/* The names lgc_target_find knows, on stderr, after "  known names:". */
void lgc_list_targets(const lgc_model *m);

/* target's value into sys (a parameter, an input) or g (a state). */
void lgc_target_set(const lgc_target *target, double value, lgc_system *sys, lgc_given *g);

/* ---- start.c: the state a run or a linearisation starts from ---- */

int lgc_given_init(lgc_given *g, const lgc_model *m);
void lgc_given_free(lgc_given *g);

/*
** The spec's initial state at sys's parameters with the options' values
** over it, into x; fixed[i] = 1 for the entries given, by the spec's
** [initial] tables or by an option (nx each).
*/
void lgc_start_state(const lgc_system *sys, const lgc_given *g, double x[], unsigned char fixed[]);

/*
** --consistent: puts x on the constraints at t, changing only entries not
** fixed, and says on stderr what it set. When the fixed entries leave no
** solution and some were fixed by the spec alone, those become free (the
** options' values win) and the message says so. `option` names how values
** are given (--init, --at). LGC_EXIT_OK or LGC_EXIT_FAILED after a message.
*/
int lgc_start_complete(const lgc_system *sys, double t, double x[], const unsigned char fixed[],
                       const lgc_given *g, const char *option);

/*
** lgc_start_complete without a word: x from before (nx) onto the
** constraints, spec_freed[i] = 1 where a spec's value had to yield; tried
** is scratch (nx). An lgc_status; LGC_ERR_INCONSISTENT with the row in
** *unmet that only given entries enter and that they do not satisfy.
*/
int lgc_start_solve(const lgc_system *sys, double t, double x[], const unsigned char fixed[],
                    const lgc_given *g, const double before[], unsigned char tried[],
                    unsigned char spec_freed[], lgc_unmet *unmet);

/*
** Why lgc_start_solve failed with rc at x, into buf (the message
** lgc_start_complete prints): an unmet row is named with its entries.
*/
void lgc_start_incomplete(const lgc_system *sys, double t, const double x[], int rc,
                          const lgc_unmet *unmet, const char *option, char *buf, size_t size);

/*
** LGC_OK when x is finite and on the constraints at t (lgc_state_check at
** LGC_INITIAL_TOL); else its lgc_status, and into buf what is wrong (the
** worst row and its residual), of "the initial state" (initial: a run's
** start) or of "the state".
*/
int lgc_start_problem(const lgc_system *sys, double t, const double x[], int initial, char *buf,
                      size_t size);

/*
** LGC_EXIT_OK when x is on the constraints at t (lgc_start_problem); else
** LGC_EXIT_FAILED after a message naming the worst row, its residual and
** the ways out.
*/
int lgc_start_check(const lgc_system *sys, double t, const double x[], int initial,
                    const char *option);

/* ---- point.c: the state linearize and eval are asked about ---- */

typedef struct lgc_point {
    lgc_system sys;         /* the parameters and inputs; Baumgarte gains 0 */
    lgc_given given;        /* the states --at sets */
    double *x;              /* nx: the state, once placed */
    unsigned char *fixed;   /* nx: entries the spec's [initial] or --at gives */
    double t;               /* --at t=T or --t T; else 0 */
    int t_given, consistent;
} lgc_point;

/* LGC_EXIT_OK, or LGC_EXIT_FAILED after a message (no memory); free it either way. */
int lgc_point_init(lgc_point *pt, const lgc_model *m);
void lgc_point_free(lgc_point *pt);

/*
** `option` (an option's name) with its value (NULL for a flag) when it is
** one of the point's: --at NAME=VALUE (t=VALUE the time), --param, --input,
** --t T and --consistent. LGC_EXIT_OK, LGC_EXIT_USAGE after a message, or
** -1 when the option is not the point's.
*/
int lgc_point_option(lgc_point *pt, const char *option, const char *value);

/*
** The state: the spec's initial one at the parameters with --at's values
** over it, then with --consistent completed onto the constraints (start.c).
** LGC_EXIT_OK or LGC_EXIT_FAILED after a message.
*/
int lgc_point_place(lgc_point *pt);

/* ---- outputs.c: files a run writes ---- */

/*
** An output replaced whole: written to a temporary beside the path (with
** the umask's mode), renamed over it at the end, and removed on every
** other exit, SIGINT, SIGTERM and SIGHUP included. While open, o is
** where a signal finds it: it must not move.
*/
typedef struct lgc_output {
    int dir;                /* what path and temp are relative to: AT_FDCWD or a directory */
    char *path, *temp;
    int fd;                 /* the temporary's; -1 when closed */
} lgc_output;

/* LGC_EXIT_OK, or LGC_EXIT_USAGE after a message naming option and path. */
int lgc_output_open(lgc_output *o, const char *option, const char *path);
/* The same, relative to the directory dir; LGC_OK or LGC_ERR_IO with errno, no message. */
int lgc_output_open_at(lgc_output *o, int dir, const char *path);
/* LGC_OK, or LGC_ERR_IO with errno; the temporary is gone either way. */
int lgc_output_commit(lgc_output *o);
/* Removes the temporary, if any; o may be unopened (zeroed). */
void lgc_output_discard(lgc_output *o);

/* A scratch file nobody else can see (already unlinked); -1 with errno. */
int lgc_scratch_fd(void);

/* ---- text.c: a growing string ---- */

typedef struct lgc_text {
    char *s;                /* NUL-terminated once anything was added */
    size_t len, cap;
    int failed;             /* out of memory: what followed was dropped */
} lgc_text;

void lgc_text_clear(lgc_text *t);   /* empty, its memory kept */
void lgc_text_free(lgc_text *t);
void lgc_text_add(lgc_text *t, const char *s, size_t n);
void lgc_text_printf(lgc_text *t, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A number that reads back to the same double ("%.17g"), never "-0". */
void lgc_text_number(lgc_text *t, double v);
/* A CSV field: quoted (RFC 4180) when it holds a comma, a quote or a line end. */
void lgc_text_csv_field(lgc_text *t, const char *s);

/* n bytes of s to fd, whole: 0, or -1 with errno. */
int lgc_write_all(int fd, const char *s, size_t n);

/* ---- json.c: a JSON writer that prints null for NaN and Inf ---- */

typedef struct lgc_json {
    FILE *out;
    int depth, keyed;
    char closer[16];        /* '}' or ']' per open level */
    int count[16];          /* members or elements so far per level */
} lgc_json;

void lgc_json_open(lgc_json *j, FILE *out);     /* the outermost object */
void lgc_json_close(lgc_json *j);
void lgc_json_key(lgc_json *j, const char *key);
void lgc_json_begin(lgc_json *j, char bracket);  /* '{' or '[' */
void lgc_json_end(lgc_json *j);
void lgc_json_number(lgc_json *j, double v);
void lgc_json_count(lgc_json *j, unsigned long n);
void lgc_json_bool(lgc_json *j, int b);
void lgc_json_null(lgc_json *j);
void lgc_json_string(lgc_json *j, const char *s);   /* NULL: null */

/* ---- event_log.c: the events a run met ---- */

typedef struct lgc_event_log {
    int n;                      /* the model's events, then 2 per contact (release, impact) */
    const char **names;         /* n: "bounce", "release[contact1]", "impact[contact1]" */
    char *name_text;
    unsigned long *count;       /* n: how often each was met */
    double *first, *last;       /* n: when, the first and the last time */
    unsigned long total;
    int stopped_by;             /* the event that stopped the run; -1: none */
    int failed;                 /* a row could not be written: the file is not kept */
    int fd;                     /* the --events file's; -1: none */
    char *line;                 /* one row, written whole */
    size_t size;
} lgc_event_log;

/* For m's events and contacts (none: nothing to allocate); LGC_OK or LGC_ERR_NOMEM. */
int lgc_event_log_init(lgc_event_log *log, const lgc_model *m);
void lgc_event_log_free(lgc_event_log *log);
/* No event met yet. */
void lgc_event_log_reset(lgc_event_log *log, const lgc_model *m);
/* The --events file's header, event,t,q...,q'...: LGC_OK or LGC_ERR_IO (errno). */
int lgc_event_log_header(lgc_event_log *log, const lgc_model *m);
/* One event met: counted, and a row to the file if there is one. */
int lgc_event_log_add(lgc_event_log *log, const lgc_model *m, int event, double t,
                      const double x[]);

/* ---- simulate_main.c: the simulate program, and the run a sweep repeats ---- */

enum lgc_gains { LGC_GAINS_MODEL, LGC_GAINS_GIVEN, LGC_GAINS_AUTO, LGC_GAINS_OFF };

typedef struct lgc_sim_options {
    double t_end;
    double dt;                  /* 0: not given */
    double rtol, atol;
    double max_step;            /* INFINITY: not given */
    const char *method;         /* a stepper type's name (rk4, dopri5, adams, bdf), after parsing */
    enum lgc_gains gains;
    double alpha, beta;         /* with LGC_GAINS_GIVEN */
    lgc_project_mode project;
    int project_given;          /* else the default: full for a constrained model */
    lgc_metric metric;
    double sample;
    int consistent, quiet;
    int strict;                 /* a warning of the run (drift, a contact inside) is a fault */
    const char *out, *plot, *summary_json, *events;
    const char *plot_columns;   /* --plot-columns NAME,...: the panels in place of the coordinates' */
    const char *plot_path;      /* --plot-path X,Y: a panel of Y against X */
} lgc_sim_options;

/* Residuals past this (absolute), or a contact this far inside, end a run with a warning. */
#define LGC_DRIFT_WARNING 1e-6

typedef struct lgc_sim_run {
    const lgc_model *model;
    lgc_sim_options opt;
    lgc_system sys;
    lgc_monitor mon;
    lgc_driver *drv;
    double *x0;                 /* nx: the state the run started from */
    double *x;                  /* nx: the current sample */
    unsigned char *fixed;       /* nx: entries of x0 given */
    int csv_fd;                 /* the CSV's rows: out's temporary, a scratch file (--plot), or -1 */
    lgc_csv *csv;
    lgc_output out, png, summary, events;
    lgc_event_log log;          /* the events met */
    char gnuplot[4096];         /* the gnuplot found on PATH */
    int status;                 /* lgc_status of the run */
    double t_fault;             /* when status != LGC_OK */
    const char *fault_detail;   /* more about a fault: the file that failed */
    int drifted;                /* the worst residual passed LGC_DRIFT_WARNING */
    int inside;                 /* a contact went more than LGC_DRIFT_WARNING inside */
    double wall;                /* seconds spent integrating */
} lgc_sim_run;

/* Seconds on a monotonic clock, for the terminal (never into a file a run writes). */
double lgc_now(void);

/* r with its system and monitor made, nothing else: LGC_EXIT_OK, or FAILED after a message. */
int lgc_sim_init(lgc_sim_run *r, const lgc_model *m);
void lgc_sim_free(lgc_sim_run *r);

/* simulate's defaults. */
void lgc_sim_options_init(lgc_sim_options *opt);

/*
** Option `option` (simulate's index) with value a into r->opt, or r->sys
** (--param, --input) and given (--init); LGC_EXIT_OK, or LGC_EXIT_USAGE
** after a message.
*/
int lgc_sim_take(lgc_sim_run *r, lgc_given *given, int option, const char *a);

/* The options that only make sense together, and the defaults that follow from them. */
int lgc_sim_settle(lgc_sim_options *opt, const lgc_model *m);

/* r->drv from the settled options: LGC_EXIT_OK, or FAILED after a message. */
int lgc_sim_make_driver(lgc_sim_run *r);

/* Gains from the options (auto: the fixed step, or dopri5's first from x0): an lgc_status. */
int lgc_sim_set_gains(lgc_sim_run *r);

/*
** From r->x0 at t = 0 to t_end, sample by sample: each into the monitor
** (started afresh) and to r->csv if any; the outcome into r->status,
** t_fault, drifted, inside. Progress on a terminal unless opt.quiet.
*/
void lgc_sim_integrate(lgc_sim_run *r);

/* ---- summary.c: what a run did, for people and as JSON ---- */

/* The names of lgc_project_mode and lgc_metric values, as the options take them. */
extern const char *const lgc_project_names[], *const lgc_metric_names[];

/*
** The warnings at the end of a run that drifted or went inside a contact,
** on stderr; errors with --strict, which fails the run.
*/
void lgc_summary_warn(const lgc_sim_run *r);
void lgc_summary_print(const lgc_sim_run *r, FILE *out);
void lgc_summary_json(const lgc_sim_run *r, FILE *out);

/* ---- gnuplot.c: gnuplot run on a script ---- */

/* The executable `name` on PATH into buf: 1, or 0 if there is none. */
int lgc_find_program(const char *name, char *buf, size_t size);

/* gnuplot on PATH into buf (for option's picture): LGC_EXIT_OK, or USAGE after saying how to get it. */
int lgc_gnuplot_find(const char *option, char *buf, size_t size);

/* Text as a gnuplot string expression, 'Newton'.q.'s cradle' (q: a script's quote, lgc_gnuplot_begin's). */
void lgc_gnuplot_text(FILE *gp, const char *s);

/* A script's first lines: a PNG of width x height pixels, CSV data, grid, q. */
void lgc_gnuplot_begin(FILE *gp, int width, int height);

/* Writes a script to gp from what ctx holds. */
typedef void (*lgc_gnuplot_script)(FILE *gp, const void *ctx);

/*
** The script `write` makes, run by the gnuplot at path `gnuplot` with the
** data at data_fd (-1: none) as its '/dev/fd/3' and png_fd as its output.
** LGC_OK, or LGC_ERR_IO after a message.
*/
int lgc_gnuplot_render(const char *gnuplot, int data_fd, int png_fd, lgc_gnuplot_script write,
                       const void *ctx);

/* ---- plot.c: the run's PNG ---- */

/*
** The column of the run's CSV a --plot-columns or --plot-path name (len
** bytes) takes: its name, or NAME_dot for NAME'; t is none. -1 if none.
*/
int lgc_plot_column(const lgc_model *m, const char *name, size_t len);

/*
** --plot-columns and --plot-path against the model's columns, and --plot
** they need: LGC_EXIT_OK, or LGC_EXIT_USAGE after naming what is wrong
** and listing the columns.
*/
int lgc_plot_settle(const lgc_sim_options *opt, const lgc_model *m);

/*
** Renders the run's CSV (readable at csv_fd) into png_fd with the gnuplot
** at path `gnuplot`: a panel per quantity, the path if asked. LGC_OK, or
** LGC_ERR_IO after a message.
*/
int lgc_plot(const lgc_model *m, const lgc_sim_options *opt, const char *gnuplot, int csv_fd,
             int png_fd, double energy0, int integral_kept);

/* ---- runs_table.c: RUNS.csv, a sweep's table of runs ---- */

typedef struct lgc_table {
    int ncolumns;
    char **names;           /* the header's fields */
    int header_line;        /* the header's line in the file */
    int *name_col;          /* each name's column on that line */
    size_t nrows;
    double *values;         /* nrows x ncolumns, row-major */
} lgc_table;

/*
** text (size bytes) into t: LGC_OK; else LGC_ERR_ARG (or LGC_ERR_NOMEM)
** with the line and column of the mistake, and what it is, in e.
*/
int lgc_table_read(const char *text, size_t size, lgc_table *t, lgc_input_error *e);
void lgc_table_free(lgc_table *t);

/* ---- random.c: counter-based random numbers (Philox4x32-10) ---- */

/* Philox4x32-10's block: out = the ten rounds on ctr under key. */
void lgc_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* FNV-1a over size bytes, from h (LGC_FNV1A_START to begin). */
#define LGC_FNV1A_START 0xCBF29CE484222325ull
uint64_t lgc_fnv1a(uint64_t h, const void *data, size_t size);

/* Two uniforms in (0, 1), a function of (seed, run, stream) alone. */
void lgc_uniform_pair(uint64_t seed, uint64_t run, uint64_t stream, double u[2]);

/* ---- vary.c: --vary NAME=DIST(A,B) ---- */

typedef enum lgc_distribution { LGC_NORMAL, LGC_UNIFORM, LGC_LOGNORMAL } lgc_distribution;

typedef struct lgc_vary {
    char *name;
    lgc_distribution dist;
    double a, b;            /* MU, SIGMA; or A, B */
    uint64_t stream;        /* FNV-1a of the name */
} lgc_vary;

/* text into v: LGC_OK; else LGC_ERR_ARG (or NOMEM) with the column of the mistake in e. */
int lgc_vary_read(const char *text, lgc_vary *v, lgc_input_error *e);
void lgc_vary_free(lgc_vary *v);
/* Run run's value (run counts from 1), from (seed, run, v's name) alone. */
double lgc_vary_draw(const lgc_vary *v, uint64_t seed, unsigned long run);
/* "NAME=DIST(A,B)" with round-trip digits. */
void lgc_vary_describe(const lgc_vary *v, char *buf, size_t size);

/* ---- sweep_dir.c: a sweep's directory ---- */

#define LGC_SWEEP_MANIFEST "sweep.txt"
/* The most runs one sweep may have: its arrays are sized by the count. */
#define LGC_SWEEP_MAX_RUNS 1000000000UL
#define LGC_SWEEP_INDEX "runs.csv"
#define LGC_RUN_FILE_MAX 40

typedef struct lgc_sweep_dir {
    const char *path;
    int fd, run_fd, lock_fd;    /* DIR, DIR/run, DIR/.lock (held shared); -1 when closed */
} lgc_sweep_dir;

/* Run run's file NNNNNN.EXT. */
void lgc_run_file(unsigned long run, const char *ext, char buf[LGC_RUN_FILE_MAX]);

/*
** Opens DIR (made, with its missing parents, if it is not there) and
** DIR/run, and joins the sweep at work in it: alone, it removes the
** temporaries a killed sweep left, and writes sweep.txt (manifest), or
** checks the one there; with others at work, it checks it. LGC_EXIT_OK,
** else LGC_EXIT_USAGE after a message (another sweep's directory, a
** directory of other files, one that cannot be written) naming option.
*/
/* name in dir opened for reading if it is a regular file (no link followed, no FIFO waited on); -1 with errno. */
int lgc_open_regular(int dir, const char *name);
int lgc_dir_join(lgc_sweep_dir *d, const char *option, const char *path, const char *manifest);
void lgc_dir_close(lgc_sweep_dir *d);

/* DIR/sweep.txt into t: 1, or 0 if there is none. */
int lgc_dir_read_manifest(int dir, lgc_text *t);
/* LGC_EXIT_OK if two sweep.txt say the same, else USAGE after naming the first line that differs. */
int lgc_manifest_compare(const char *theirs, const char *ours, const char *path);
/* text written whole to name in dir: LGC_OK, or LGC_ERR_IO with errno. */
int lgc_dir_write_file(int dir, const char *name, const char *text, size_t len);

/* ---- sweep_results.c: the runs' results, in journals and the index ---- */

struct lgc_stats_table;     /* sweep_stats.c's */

/* The runs an index holds: those of one shard (K/M: K, K + M, ...), or all (shards 0). */
typedef struct lgc_index_runs {
    unsigned long shard, shards;
} lgc_index_runs;

int lgc_index_has(const lgc_index_runs *index, unsigned long run);

/* A run's result: its line of the index (len bytes, ending in a newline), read from DIR/runs.csv or a journal. */
typedef struct lgc_result {
    unsigned long run;
    const char *line;
    size_t len;
    int indexed;
} lgc_result;

/*
** The results of a directory's runs 1..nruns in run order, each run once
** (the index's line, else the first journal's), read as they are taken: its
** memory is a buffer per journal, whatever the number of runs.
*/
typedef struct lgc_cursor lgc_cursor;

/* LGC_OK, or LGC_ERR_NOMEM / LGC_ERR_IO with errno (too many journals open); close it either way. */
int lgc_cursor_open(lgc_cursor **c, int dir_fd, int run_fd, unsigned long nruns);
void lgc_cursor_close(lgc_cursor *c);
/* The current result into r: 1, or 0 past the last. Its line lasts until the cursor moves. */
int lgc_cursor_get(const lgc_cursor *c, lgc_result *r);
void lgc_cursor_next(lgc_cursor *c);
/* Moves to run (past those before it; runs only increase): 1 with its result in r, or 0 if it has none. */
int lgc_cursor_find(lgc_cursor *c, unsigned long run, lgc_result *r);

/* A process's journal of results, made at its first record. */
typedef struct lgc_journal {
    int fd;                     /* -1 until made */
    lgc_text record;
    char name[128];             /* in DIR/run, once made */
} lgc_journal;

/* Run's line of the index (len bytes, ending in a newline), appended: 0, or -1 with errno. */
int lgc_journal_append(lgc_journal *j, int run_fd, const char *line, size_t len);
void lgc_journal_close(lgc_journal *j);
/* The journals of runs all in the index removed, when this process is alone in DIR. */
void lgc_results_remove_journals(const lgc_sweep_dir *d, unsigned long nruns, const lgc_index_runs *index);

/* 1 when run is done: its result is at c (into r, if not NULL) and, with trajectories, its CSV in DIR/run. */
int lgc_dir_run_done(lgc_cursor *c, int run_fd, unsigned long run, int trajectories, lgc_result *r);

/*
** DIR/runs.csv, whole: the header and the results of the index's runs, in
** order, streamed from DIR's sources into its temporary; the results of
** other runs read from the old index carried into a journal; then the
** journals it empties removed; then DIR/summary.csv and summary.json, the
** statistics of its numeric columns (sweep_stats.c), handed to *keep (to
** free) when keep is not NULL and all went well. *n: its runs, *failed:
** how many are faults.
** LGC_OK, else an lgc_status after a message (LGC_ERR_INCONSISTENT: runs
** without a result, named; the old index stays).
*/
int lgc_dir_write_index(const lgc_sweep_dir *d, unsigned long nruns, const char *header,
                        const lgc_index_runs *index, size_t *n, unsigned long *failed,
                        struct lgc_stats_table *keep);

/* The exit status of a sweep of n runs, failed of them faults (they are said on stderr). */
int lgc_dir_say_failed(const lgc_sweep_dir *d, unsigned long failed, size_t n);

/* ---- sweep_stats.c: the statistics of the index's numeric columns ---- */

#define LGC_SWEEP_SUMMARY_CSV "summary.csv"
#define LGC_SWEEP_SUMMARY_JSON "summary.json"
#define LGC_STATS_NQUANTILES 7
/* 0, 0.05, 0.25, 0.5, 0.75, 0.95, 1: min, q05, q25, median, q75, q95, max */
extern const double lgc_stats_quantiles[LGC_STATS_NQUANTILES];

/* A column over the runs that ended ok with a finite value there. */
typedef struct lgc_column_stats {
    char *name;
    size_t count, cap;
    double *values;         /* count, sorted by lgc_stats_finish: the quantiles need them */
    double mean, m2, sd;    /* Welford's; sd with n - 1, NaN below 2 values */
    double q[LGC_STATS_NQUANTILES];
} lgc_column_stats;

typedef struct lgc_stats_table {
    lgc_column_stats *col;
    int ncols;
    unsigned long runs, failures;
    int failed;             /* out of memory: nothing to write */
} lgc_stats_table;

/* The columns of the index's header; LGC_OK or LGC_ERR_NOMEM. */
int lgc_stats_begin(lgc_stats_table *t, const char *header);
/* One line of the index (len bytes). */
void lgc_stats_add(lgc_stats_table *t, const char *line, size_t len);
/* The values sorted, sd and the quantiles. */
void lgc_stats_finish(lgc_stats_table *t);
void lgc_stats_free(lgc_stats_table *t);
/* Quantile p of sorted[0..n) (type 7); NaN for n = 0. */
double lgc_stats_quantile(const double sorted[], size_t n, double p);
/* DIR/summary.csv and DIR/summary.json: LGC_OK, or a message naming path. */
int lgc_stats_write(const lgc_stats_table *t, const char *path, int dir);

/* ---- sweep_plot.c: a histogram of one result of a sweep ---- */

/* The column of t called name, or -1. */
int lgc_sweep_plot_column(const lgc_stats_table *t, const char *name);

/*
** t's column `column` (over the runs that ended ok) as a histogram into
** png_fd, with the gnuplot at path `gnuplot`. LGC_OK, or LGC_ERR_IO after
** a message (no value to draw, gnuplot failed).
*/
int lgc_sweep_plot(const lgc_model *m, const lgc_stats_table *t, int column, const char *gnuplot,
                   int png_fd);

/* ---- sweep_main.c: the sweep program ---- */

/* A sweep: its runs, where their values come from, where their results go. */
typedef struct lgc_sweep {
    const lgc_model *model;
    const lgc_ranks *ranks;     /* NULL: this process and its workers alone */
    lgc_sim_run run;            /* simulate's options; the system, monitor, driver a process reuses */
    lgc_given base;             /* the --init values every run starts from */
    double *p0, *u0;            /* the parameters and inputs every run starts from */
    unsigned long nruns;
    /* Each run's values: a row of the table, or one draw of each --vary. */
    const char *runs_path;
    lgc_text table_text;
    lgc_table table;
    lgc_vary *vary;
    const char **vary_text;     /* each --vary as given */
    int nvary;
    uint64_t seed;
    int ncolumns;               /* values a run sets: their names and what they set */
    const char **names;
    lgc_target *targets;
    /* Where they go, and who runs them. */
    const char *out;
    int trajectories, jobs, quiet;
    const char *plot, *plot_column;     /* --plot FILE.png, and the index's column it draws */
    int plot_index;                     /* that column's among the statistics' */
    lgc_output png;
    char gnuplot[4096];
    unsigned long shard, shards;    /* --shard K/M: runs k with (k - 1) mod M = K - 1; 0: all */
    lgc_sweep_dir dir;
    lgc_text header, manifest;  /* the index's first line; sweep.txt */
    unsigned long *todo;        /* runs of this process, then of the index */
} lgc_sweep;

/* Started by an MPI launcher: the number of processes it says, -1 if it does not; 0 if not. */
int lgc_mpi_launched(void);

/* ---- sweep_run.c: one run of a sweep ---- */

/* What a process needs for run after run, made once. */
typedef struct lgc_sweep_worker {
    lgc_sweep *sweep;
    lgc_given given;            /* the run's initial values */
    double *values;             /* the run's values, ncolumns */
    double *before;             /* --consistent's scratch: the start before, nx */
    unsigned char *tried, *freed;   /* and its entries held, nx each */
    lgc_text line;              /* its result */
    lgc_output trajectory;
    lgc_journal journal;        /* this process's: a worker's, made in the worker */
} lgc_sweep_worker;

int lgc_sweep_worker_init(lgc_sweep_worker *w, lgc_sweep *s);
void lgc_sweep_worker_free(lgc_sweep_worker *w);

/* Run run's values (run counts from 1) into v (ncolumns). */
void lgc_sweep_values(const lgc_sweep *s, unsigned long run, double v[]);

/*
** Run run, and its trajectory and result written whole: 0 it succeeded, 1
** it failed (its result says how), -1 a file could not be written (after a
** message).
*/
int lgc_sweep_run(lgc_sweep_worker *w, unsigned long run);

/* ---- workers.c: runs over processes ---- */

/*
** Task i: 0 done, 1 done and failed, -1 stop taking tasks; into *inner the
** seconds of it the task measured itself (a sweep's run: its integration).
*/
typedef int (*lgc_task)(void *ctx, unsigned long i, double *inner);

/* What the tasks came to: how many were done, how many failed, their inner microseconds summed. */
typedef struct lgc_tally {
    unsigned long done, failed, inner_us;
} lgc_tally;

/*
** Tasks 0..n-1 over jobs processes: this one when jobs is 1, else forked
** workers that take the next as they finish. Progress on stderr if show;
** what they came to into *tally. 0, or -1 when some
** task was not done (a worker stopped or was killed).
*/
int lgc_pool_run(int jobs, unsigned long n, lgc_task work, void *ctx, int show, lgc_tally *tally);

#endif
