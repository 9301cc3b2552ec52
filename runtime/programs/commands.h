/*
** commands.h — the options and help of `lagrangec simulate`, `lagrangec
** linearize`, `lagrangec eval` and `lagrangec sweep`, and the exit statuses of lagrangec and
** of these programs: one definition, read by the model's program
** (runtime/programs/) and by the `lagrangec` command (gen/program/main.cpp), which
** prints a command's help without a spec or a compile. C, so C++ includes
** it too.
*/
#ifndef LAGRANGEC_COMMANDS_H
#define LAGRANGEC_COMMANDS_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit statuses; lgc_status codes never reach the exit status. */
enum lgc_exit {
    LGC_EXIT_OK = 0,
    LGC_EXIT_FAILED = 1,    /* an error in a spec, a refused state or point, a failed run */
    LGC_EXIT_USAGE = 2      /* a bad command line, an output that cannot be written,
                               a missing tool: nothing ran */
};

typedef enum lgc_option_kind {
    LGC_OPTION_FLAG,        /* takes no value */
    LGC_OPTION_VALUE,       /* takes a value */
    LGC_OPTION_OUTPUT,      /* takes the path of a file the command writes */
    LGC_OPTION_FRONT        /* takes a value that lagrangec itself reads (the model it
                               generates); the program never sees it */
} lgc_option_kind;

typedef struct lgc_option {
    const char *name;       /* "--t-end" */
    const char *value;      /* what the help calls the value, "T"; NULL for a flag */
    lgc_option_kind kind;
    const char *help;       /* lines joined by '\n' */
} lgc_option;

typedef struct lgc_command lgc_command;
struct lgc_command {
    const char *name;       /* "simulate" */
    const char *operands;   /* the usage line after the command and the spec */
    const char *about;      /* printed after the usage line */
    const lgc_option *options;
    int noptions;
    /*
    ** A command may take another's options after its own (sweep takes
    ** simulate's): those of `base` but the ones listed in base_hidden
    ** (-1 ends the list), as indices from noptions on. NULL: none.
    */
    const lgc_command *base;
    const int *base_hidden;
};

/* The options of simulate, by index into lgc_simulate_command.options. */
enum lgc_simulate_option {
    LGC_SIM_T_END, LGC_SIM_DT, LGC_SIM_RTOL, LGC_SIM_ATOL, LGC_SIM_MAX_STEP, LGC_SIM_METHOD,
    LGC_SIM_BAUMGARTE, LGC_SIM_PROJECT, LGC_SIM_METRIC, LGC_SIM_PARAM, LGC_SIM_INIT,
    LGC_SIM_CONSISTENT, LGC_SIM_INPUT, LGC_SIM_SAMPLE, LGC_SIM_OUT, LGC_SIM_PLOT,
    LGC_SIM_PLOT_COLUMNS, LGC_SIM_PLOT_PATH, LGC_SIM_SUMMARY_JSON, LGC_SIM_EVENTS, LGC_SIM_QUIET, LGC_SIM_STRICT, LGC_SIM_FORMULATION, LGC_SIM_HELP,
    LGC_SIM_NOPTIONS
};

/* The options of linearize, by index into lgc_linearize_command.options. */
enum lgc_linearize_option {
    LGC_LIN_AT, LGC_LIN_PARAM, LGC_LIN_INPUT, LGC_LIN_CONSISTENT, LGC_LIN_INDEPENDENT,
    LGC_LIN_JSON, LGC_LIN_FORMULATION, LGC_LIN_HELP, LGC_LIN_NOPTIONS
};

/* The options of eval, by index into lgc_eval_command.options. */
enum lgc_eval_option {
    LGC_EVAL_AT, LGC_EVAL_T, LGC_EVAL_PARAM, LGC_EVAL_INPUT, LGC_EVAL_CONSISTENT, LGC_EVAL_JSON,
    LGC_EVAL_FORMULATION, LGC_EVAL_HELP, LGC_EVAL_NOPTIONS
};

/*
** The options of sweep, by index into lgc_sweep_command.options; from
** LGC_SWEEP_NOPTIONS on, simulate's (index - LGC_SWEEP_NOPTIONS) but
** --out, --plot, --plot-columns, --plot-path, --summary-json, --events and
** --strict (sweep's own --plot draws the runs' spread).
*/
enum lgc_sweep_option {
    LGC_SWEEP_RUNS, LGC_SWEEP_SAMPLES, LGC_SWEEP_VARY, LGC_SWEEP_SEED, LGC_SWEEP_OUT,
    LGC_SWEEP_JOBS, LGC_SWEEP_SHARD, LGC_SWEEP_NO_TRAJECTORIES, LGC_SWEEP_PLOT,
    LGC_SWEEP_PLOT_COLUMN, LGC_SWEEP_MERGE,
    LGC_SWEEP_NOPTIONS
};

extern const lgc_command lgc_simulate_command, lgc_linearize_command, lgc_eval_command,
    lgc_sweep_command;

/* "simulate", "linearize", "eval" or "sweep"; NULL for any other name. */
const lgc_command *lgc_command_find(const char *name);

/* The number of options c takes, its base's included. */
int lgc_command_count(const lgc_command *c);

/* Option i of c (0 <= i < lgc_command_count(c)). */
const lgc_option *lgc_command_entry(const lgc_command *c, int i);

/* The index of option `name` among c's ("-h" is --help's), or -1. */
int lgc_command_option(const lgc_command *c, const char *name);

/* "usage: PROGRAM OPERANDS", the about text and the options, to out. */
void lgc_command_help(const lgc_command *c, const char *program, FILE *out);

/*
** 1 when the flag `name` is among args (the words after the command), read
** as the command reads them: an option's value is never taken for an option.
*/
int lgc_command_given(const lgc_command *c, int argc, char *const argv[], const char *name);

/* 1 when args ask for --help (lgc_command_given). */
int lgc_command_wants_help(const lgc_command *c, int argc, char *const argv[]);

/*
** `lagrangec sweep --merge DIR... --out DIR`: lagrangec runs it itself, with
** no model (sweep_merge.c); argv[0] names the command. The exit status.
*/
int lgc_sweep_merge(int argc, char **argv);

/* The value of the last option `name` among args, read as above; NULL if none. */
const char *lgc_command_value(const lgc_command *c, int argc, char *const argv[], const char *name);

#ifdef __cplusplus
}
#endif

#endif
