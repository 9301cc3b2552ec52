/*
** programs.h — the programs behind `lagrangec simulate` and `lagrangec
** linearize`, apart from the library: one internal header, sectioned by
** the file that defines each part, in the order a run reads them.
** They use the library's public API only. Their symbols are lgc_-prefixed
** too, so no generated model's NAME_ symbols can meet them in a program.
*/
#ifndef LAGRANGEC_PROGRAMS_H
#define LAGRANGEC_PROGRAMS_H

#include <stdio.h>

#include "commands.h"
#include "lagrangec/csv.h"
#include "lagrangec/driver.h"
#include "lagrangec/monitor.h"

/* ---- program.c: lgc_main (lagrangec/program.h) dispatches to these ---- */

int lgc_simulate_main(const lgc_model *model, int argc, char **argv);
int lgc_linearize_main(const lgc_model *model, int argc, char **argv);

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

/* "holonomic constraint 1: x^2 + y^2 - l^2", "the velocity form of ...", ... for row i. */
void lgc_describe_row(const lgc_model *m, int row, char *buf, size_t size);

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
** LGC_EXIT_OK when x is on the constraints at t (lgc_state_check at
** LGC_INITIAL_TOL); else LGC_EXIT_FAILED after a message naming the worst
** row, its residual and the ways out.
*/
int lgc_start_check(const lgc_system *sys, double t, const double x[], const char *option);

/* ---- outputs.c: files a run writes ---- */

/*
** An output replaced whole: written to a temporary beside the path (with
** the umask's mode), renamed over it at the end, and removed on every
** other exit, SIGINT, SIGTERM and SIGHUP included.
*/
typedef struct lgc_output {
    char *path, *temp;
    int fd;                 /* the temporary's; -1 when closed */
} lgc_output;

/* LGC_EXIT_OK, or LGC_EXIT_USAGE after a message naming option and path. */
int lgc_output_open(lgc_output *o, const char *option, const char *path);
/* LGC_OK, or LGC_ERR_IO with errno; the temporary is gone either way. */
int lgc_output_commit(lgc_output *o);
/* Removes the temporary, if any; o may be unopened (zeroed). */
void lgc_output_discard(lgc_output *o);

/* A scratch file nobody else can see (already unlinked); -1 with errno. */
int lgc_scratch_fd(void);

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

/* ---- simulate_main.c: the simulate program ---- */

enum lgc_gains { LGC_GAINS_MODEL, LGC_GAINS_GIVEN, LGC_GAINS_AUTO, LGC_GAINS_OFF };

typedef struct lgc_sim_options {
    double t_end;
    double dt;                  /* 0: not given */
    double rtol, atol;
    const char *method;         /* a stepper type's name (rk4, dopri5, adams, bdf), after parsing */
    enum lgc_gains gains;
    double alpha, beta;         /* with LGC_GAINS_GIVEN */
    lgc_project_mode project;
    int project_given;          /* else the default: full for a constrained model */
    lgc_metric metric;
    double sample;
    int consistent, quiet;
    const char *out, *plot, *summary_json;
} lgc_sim_options;

/* Residuals past this (absolute) end a run with a warning. */
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
    int csv_fd;                 /* -1: none */
    lgc_csv *csv;
    lgc_output png, summary;
    char gnuplot[4096];         /* the gnuplot found on PATH */
    int status;                 /* lgc_status of the run */
    double t_fault;             /* when status != LGC_OK */
    const char *fault_detail;   /* more about a fault: the file that failed */
    int drifted;                /* the worst residual passed LGC_DRIFT_WARNING */
    double wall;                /* seconds spent integrating */
} lgc_sim_run;

/* ---- summary.c: what a run did, for people and as JSON ---- */

/* The warning at the end of a drifting run, on stderr. */
void lgc_summary_warn(const lgc_sim_run *r);
void lgc_summary_print(const lgc_sim_run *r, FILE *out);
void lgc_summary_json(const lgc_sim_run *r, FILE *out);

/* ---- plot.c: the run's PNG through gnuplot ---- */

/* The executable `name` on PATH into buf: 1, or 0 if there is none. */
int lgc_find_program(const char *name, char *buf, size_t size);

/*
** Renders the run's CSV (readable at csv_fd) into png_fd with the gnuplot
** at path `gnuplot`; no user text reaches gnuplot as code. LGC_OK, or
** LGC_ERR_IO after a message.
*/
int lgc_plot(const lgc_model *m, const char *gnuplot, int csv_fd, int png_fd, double energy0);

#endif
