/* commands.c — the option tables and help of simulate, linearize, eval and sweep (see commands.h). */
#include <string.h>

#include "commands.h"
#include "lagrangec/driver.h"
#include "lagrangec/initial.h"
#include "lagrangec/linearize.h"
#include "lagrangec/system.h"

#define TEXT(x) #x
#define NUMBER(x) TEXT(x)

static const char formulation_help[] =
    "how nonholonomic constraints enter the equations: the\n"
    "d'Alembert-Lagrange equations (default) or L + mu g";

static const lgc_option simulate_options[LGC_SIM_NOPTIONS] = {
    [LGC_SIM_T_END] = {"--t-end", "T", LGC_OPTION_VALUE, "end time (default 10)"},
    [LGC_SIM_DT] = {"--dt", "H", LGC_OPTION_VALUE,
                    "rk4's step, every step of the run but a last one\n"
                    "shortened to end on T (--dt without --method chooses\n"
                    "rk4, and says so on stderr; the output interval is\n"
                    "--sample); dopri5, adams, bdf: the first step"},
    [LGC_SIM_RTOL] = {"--rtol", "R", LGC_OPTION_VALUE,
                      "relative tolerance of dopri5, adams, bdf (default " NUMBER(LGC_DEFAULT_RTOL) ")"},
    [LGC_SIM_ATOL] = {"--atol", "A", LGC_OPTION_VALUE,
                      "absolute tolerance of dopri5, adams, bdf (default\n"
                      NUMBER(LGC_DEFAULT_ATOL) "); either tolerance may be 0, not both"},
    [LGC_SIM_MAX_STEP] = {"--max-step", "H", LGC_OPTION_VALUE,
                          "no step of dopri5, adams, bdf longer than H (default:\n"
                          "no bound), so that an event crossing and crossing\n"
                          "back within one step is seen; --dt (rk4's step, the\n"
                          "others' first) may not be longer"},
    [LGC_SIM_METHOD] = {"--method", "rk4|dopri5|adams|bdf", LGC_OPTION_VALUE,
                        "integrator (default rk4 with --dt, else dopri5);\n"
                        "adams and bdf are SUNDIALS CVODE's, Newton on the\n"
                        "generated Jacobian, in a lagrangec built with\n"
                        "SUNDIALS; bdf for stiff models"},
    [LGC_SIM_BAUMGARTE] = {"--baumgarte", "ALPHA,BETA|auto|off", LGC_OPTION_VALUE,
                           "stabilisation gains (default: the spec's); auto: both\n"
                           "roots of s^2 + alpha s + beta at -" NUMBER(LGC_BAUMGARTE_KAPPA)
                           "/h (h: the step,\n"
                           "or dopri5's first)"},
    [LGC_SIM_PROJECT] = {"--project", "none|velocity|full", LGC_OPTION_VALUE,
                         "correction onto the constraints after each step and\n"
                         "at each sample (default for a constrained model: full,\n"
                         "positions then velocities)"},
    [LGC_SIM_METRIC] = {"--metric", "identity|mass", LGC_OPTION_VALUE,
                        "metric of the correction (default identity)"},
    [LGC_SIM_PARAM] = {"--param", "NAME=VALUE", LGC_OPTION_VALUE, "set a parameter"},
    [LGC_SIM_INIT] = {"--init", "NAME=VALUE", LGC_OPTION_VALUE,
                      "initial coordinate; NAME'=VALUE or NAME_dot=VALUE a\n"
                      "velocity; mu1=VALUE a vakonomic multiplier"},
    [LGC_SIM_CONSISTENT] = {"--consistent", NULL, LGC_OPTION_FLAG,
                            "solve the coordinates and velocities not given\n"
                            "(by --init) for a start on the constraints, and say\n"
                            "what was set; without it a start off them by more\n"
                            "than " NUMBER(LGC_INITIAL_TOL) " (relative) is refused"},
    [LGC_SIM_INPUT] = {"--input", "NAME=VALUE", LGC_OPTION_VALUE, "set a constant control input"},
    [LGC_SIM_SAMPLE] = {"--sample", "DT", LGC_OPTION_VALUE,
                        "output interval (default T/1000); samples between\n"
                        "steps come from the step's interpolant"},
    [LGC_SIM_OUT] = {"--out", "FILE.csv", LGC_OPTION_OUTPUT,
                     "samples as CSV: t, q, q', phi[i], phi[i]', g[i], T+V,\n"
                     "lambda[i], mu[i], Fc[q], outputs, mode[friction]"},
    [LGC_SIM_PLOT] = {"--plot", "FILE.png", LGC_OPTION_OUTPUT,
                      "a panel per coordinate against t, each on its own\n"
                      "axis; contacts' gaps, constraint residuals (log scale),\n"
                      "energy error (gnuplot)"},
    [LGC_SIM_PLOT_COLUMNS] = {"--plot-columns", "NAME,...", LGC_OPTION_VALUE,
                              "--plot's panels for these CSV columns in place of\n"
                              "the coordinates': q, q' (or q_dot), outputs,\n"
                              "lambda[i], ... (--out's header names them)"},
    [LGC_SIM_PLOT_PATH] = {"--plot-path", "X,Y", LGC_OPTION_VALUE,
                           "--plot adds a panel of column Y against column X,\n"
                           "equal scales: a vehicle's path (x,y)"},
    [LGC_SIM_SUMMARY_JSON] = {"--summary-json", "FILE|-", LGC_OPTION_OUTPUT,
                              "the summary as JSON, to FILE or (-) stdout"},
    [LGC_SIM_EVENTS] = {"--events", "FILE.csv", LGC_OPTION_OUTPUT,
                        "the spec's [events] as located: event, t, q, q'"},
    [LGC_SIM_QUIET] = {"--quiet", NULL, LGC_OPTION_FLAG, "no summary, no progress"},
    [LGC_SIM_STRICT] = {"--strict", NULL, LGC_OPTION_FLAG,
                        "a run whose constraints drifted past 1e-6, or that\n"
                        "went more than 1e-6 inside a contact, fails (exit 1)\n"
                        "instead of ending with a warning"},
    [LGC_SIM_FORMULATION] = {"--formulation", "dalembert|vakonomic", LGC_OPTION_FRONT,
                             formulation_help},
    [LGC_SIM_HELP] = {"--help", NULL, LGC_OPTION_FLAG, "this text"},
};

static const lgc_option linearize_options[LGC_LIN_NOPTIONS] = {
    [LGC_LIN_AT] = {"--at", "NAME=VALUE", LGC_OPTION_VALUE,
                    "the point: NAME=VALUE a coordinate, NAME'=VALUE or\n"
                    "NAME_dot=VALUE a velocity, t=VALUE the time (others:\n"
                    "the spec's initial state, t = 0)"},
    [LGC_LIN_PARAM] = {"--param", "NAME=VALUE", LGC_OPTION_VALUE, "set a parameter"},
    [LGC_LIN_INPUT] = {"--input", "NAME=VALUE", LGC_OPTION_VALUE, "the input at the point"},
    [LGC_LIN_CONSISTENT] = {"--consistent", NULL, LGC_OPTION_FLAG,
                            "solve the coordinates and velocities not given\n"
                            "(by --at) for a point on the constraints, and say\n"
                            "what was set"},
    [LGC_LIN_INDEPENDENT] = {"--independent", "NAME,...", LGC_OPTION_VALUE,
                             "independent coordinates (nq - nh of them); NAME'\n"
                             "names independent speeds (nq - nh - nn), else they\n"
                             "follow (pivoted QR by default)"},
    [LGC_LIN_JSON] = {"--json", NULL, LGC_OPTION_FLAG, "print JSON instead of text"},
    [LGC_LIN_FORMULATION] = {"--formulation", "dalembert", LGC_OPTION_FRONT,
                             "the d'Alembert-Lagrange equations, the only ones\n"
                             "linearize takes"},
    [LGC_LIN_HELP] = {"--help", NULL, LGC_OPTION_FLAG, "this text"},
};

static const lgc_option eval_options[LGC_EVAL_NOPTIONS] = {
    [LGC_EVAL_AT] = {"--at", "NAME=VALUE", LGC_OPTION_VALUE,
                     "the state: NAME=VALUE a coordinate, NAME'=VALUE or\n"
                     "NAME_dot=VALUE a velocity, t=VALUE the time (others:\n"
                     "the spec's initial state, t = 0)"},
    [LGC_EVAL_T] = {"--t", "T", LGC_OPTION_VALUE, "the time (as --at t=T)"},
    [LGC_EVAL_PARAM] = {"--param", "NAME=VALUE", LGC_OPTION_VALUE, "set a parameter"},
    [LGC_EVAL_INPUT] = {"--input", "NAME=VALUE", LGC_OPTION_VALUE, "the input at the state"},
    [LGC_EVAL_CONSISTENT] = {"--consistent", NULL, LGC_OPTION_FLAG,
                             "solve the coordinates and velocities not given\n"
                             "(by --at) for a state on the constraints, and say\n"
                             "what was set; without it a state off them by more\n"
                             "than " NUMBER(LGC_INITIAL_TOL) " (relative) is refused"},
    [LGC_EVAL_JSON] = {"--json", NULL, LGC_OPTION_FLAG,
                       "print JSON instead of text: t, state, acceleration,\n"
                       "multipliers, constraint_forces, mass_matrix, bias,\n"
                       "energy (T, V), residuals, outputs; a value that is not\n"
                       "a number is null, and why_null says why"},
    [LGC_EVAL_FORMULATION] = {"--formulation", "dalembert|vakonomic", LGC_OPTION_FRONT,
                              formulation_help},
    [LGC_EVAL_HELP] = {"--help", NULL, LGC_OPTION_FLAG, "this text"},
};

static const lgc_option sweep_options[LGC_SWEEP_NOPTIONS] = {
    [LGC_SWEEP_RUNS] = {"--runs", "RUNS.csv", LGC_OPTION_VALUE,
                        "one run per row; the header names parameters,\n"
                        "initial coordinates, velocities (x' or x_dot) and\n"
                        "inputs; what a row leaves out keeps its value"},
    [LGC_SWEEP_SAMPLES] = {"--samples", "N", LGC_OPTION_VALUE,
                           "Monte-Carlo: N runs, each drawing the --vary values"},
    [LGC_SWEEP_VARY] = {"--vary", "NAME=DIST", LGC_OPTION_VALUE,
                        "a value drawn for each run: normal(MU,SIGMA),\n"
                        "uniform(A,B) or lognormal(MU,SIGMA) (exp of a\n"
                        "normal(MU,SIGMA)); one --vary per name"},
    [LGC_SWEEP_SEED] = {"--seed", "S", LGC_OPTION_VALUE,
                        "Monte-Carlo seed, 0 to 2^64-1 (default 0); run k's\n"
                        "values depend on S, k and the name only"},
    [LGC_SWEEP_OUT] = {"--out", "DIR", LGC_OPTION_OUTPUT,
                       "runs.csv (the index), run/NNNNNN.csv (trajectories),\n"
                       "run/*.journal (the runs done, until runs.csv is written)"},
    [LGC_SWEEP_JOBS] = {"-j", "N", LGC_OPTION_VALUE,
                        "worker processes (default: the processors this\n"
                        "process may use; 1 per rank under mpirun)"},
    [LGC_SWEEP_SHARD] = {"--shard", "K/M", LGC_OPTION_VALUE,
                         "only runs K, K+M, K+2M, ... (1 <= K <= M), for a\n"
                         "job array; --merge assembles the shards"},
    [LGC_SWEEP_NO_TRAJECTORIES] = {"--no-trajectories", NULL, LGC_OPTION_FLAG,
                                   "write the index and results only"},
    [LGC_SWEEP_PLOT] = {"--plot", "FILE.png", LGC_OPTION_OUTPUT,
                        "a histogram of one result over the runs that ended\n"
                        "ok, their median and 5% and 95% quantiles (gnuplot)"},
    [LGC_SWEEP_PLOT_COLUMN] = {"--plot-column", "NAME", LGC_OPTION_VALUE,
                               "the index's column --plot draws (default: the\n"
                               "first coordinate's final value, final Q)"},
    [LGC_SWEEP_MERGE] = {"--merge", NULL, LGC_OPTION_FLAG,
                         "lagrangec sweep --merge DIR... --out DIR: one sweep's\n"
                         "directories (shards) into one, no spec needed"},
};

/*
** The options of simulate that name its own outputs and what its plot
** draws (a sweep has its own), and --strict, whose warnings a sweep's runs
** do not print.
*/
static const int sweep_hidden[] = {LGC_SIM_OUT, LGC_SIM_PLOT, LGC_SIM_PLOT_COLUMNS, LGC_SIM_PLOT_PATH,
                                   LGC_SIM_SUMMARY_JSON, LGC_SIM_EVENTS, LGC_SIM_STRICT, -1};

const lgc_command lgc_simulate_command = {
    "simulate", "[OPTIONS]",
    "Generates the model into a cache directory ($LAGRANGEC_CACHE, else\n"
    "$XDG_CACHE_HOME/lagrangec or ~/.cache/lagrangec), compiles it against the\n"
    "runtime once, runs it from the spec's initial state and summarises the run.\n"
    "Exit status: 0 success, 1 a refused start or a failed run (a fault: the\n"
    "CSV is whole up to its time), 2 a usage error (nothing ran).\n",
    simulate_options, LGC_SIM_NOPTIONS, NULL, NULL,
};

const lgc_command lgc_linearize_command = {
    "linearize", "[--at NAME=VALUE...] [OPTIONS]",
    "The linear model y' = A y + B du about a point on the constraints, in\n"
    "independent coordinates and speeds, and the eigenvalues of A. The point\n"
    "must satisfy the constraints (|phi|, |phi'|, |g| <= " NUMBER(LGC_LINEARIZE_TOL)
    " relative).\n"
    "Exit status: 0 success, 1 a refused point, 2 a usage error.\n",
    linearize_options, LGC_LIN_NOPTIONS, NULL, NULL,
};

const lgc_command lgc_eval_command = {
    "eval", "[--at NAME=VALUE...] [OPTIONS]",
    "The model at one state, nothing integrated: q'' by coordinate, the\n"
    "multipliers by constraint row and the constraint forces they give, the\n"
    "mass matrix M, the bias k - Q (M q'' + k - Q = C^T [lambda; mu]), T and\n"
    "V, the residuals and the spec's outputs. The Baumgarte gains play no part\n"
    "(they are 0): the state must satisfy the constraints.\n"
    "Exit status: 0 success, 1 a refused state or a value that is not a\n"
    "number there (printed as nan, or null in JSON), 2 a usage error.\n",
    eval_options, LGC_EVAL_NOPTIONS, NULL, NULL,
};

const lgc_command lgc_sweep_command = {
    "sweep", "--runs RUNS.csv | --samples N --vary NAME=DIST... --out DIR [OPTIONS]",
    "Runs the model once per row of RUNS.csv, or N times with values drawn\n"
    "by --vary, over worker processes (or the ranks of mpirun), and writes\n"
    "DIR: the same bytes however many workers computed it. Rerun the same\n"
    "command after an interruption: finished runs are kept, the rest redone.\n"
    "Exit status: 0 every run succeeded, 1 some failed (runs.csv says which)\n"
    "or did not finish, 2 a usage error (nothing ran).\n",
    sweep_options, LGC_SWEEP_NOPTIONS, &lgc_simulate_command, sweep_hidden,
};

const lgc_command *lgc_command_find(const char *name)
{
    return strcmp(name, "simulate") == 0    ? &lgc_simulate_command
           : strcmp(name, "linearize") == 0 ? &lgc_linearize_command
           : strcmp(name, "eval") == 0      ? &lgc_eval_command
           : strcmp(name, "sweep") == 0     ? &lgc_sweep_command
                                            : NULL;
}

int lgc_command_count(const lgc_command *c)
{
    return c->noptions + (c->base ? c->base->noptions : 0);
}

/* 1 when option i of c is one of its base's that it does not take. */
static int hidden(const lgc_command *c, int i)
{
    for (const int *h = c->base_hidden; i >= c->noptions && h && *h >= 0; h++)
        if (*h == i - c->noptions)
            return 1;
    return 0;
}

const lgc_option *lgc_command_entry(const lgc_command *c, int i)
{
    return i < c->noptions ? &c->options[i] : &c->base->options[i - c->noptions];
}

int lgc_command_option(const lgc_command *c, const char *name)
{
    if (strcmp(name, "-h") == 0)
        name = "--help";
    for (int i = 0; i < lgc_command_count(c); i++)
        if (!hidden(c, i) && strcmp(lgc_command_entry(c, i)->name, name) == 0)
            return i;
    return -1;
}

void lgc_command_help(const lgc_command *c, const char *program, FILE *out)
{
    fprintf(out, "usage: %s %s\n\n%s\noptions:\n", program, c->operands, c->about);
    for (int i = 0; i < lgc_command_count(c); i++) {
        const lgc_option *o = lgc_command_entry(c, i);
        if (i == c->noptions)
            fprintf(out, "\nand, for every run, %s's:\n", c->base->name);
        if (hidden(c, i))
            continue;
        char head[64];
        snprintf(head, sizeof head, "%s%s%s", o->name, o->value ? " " : "", o->value ? o->value : "");
        /* The name column is 28 wide; a longer name puts its help on the next line. */
        fprintf(out, strlen(head) < 27 ? "  %-27s" : "  %s\n%29s", head, "");
        for (const char *s = o->help; *s; s++) {
            fputc(*s, out);
            if (*s == '\n')
                fprintf(out, "%29s", "");
        }
        fputc('\n', out);
    }
}

int lgc_command_given(const lgc_command *c, int argc, char *const argv[], const char *name)
{
    for (int k = 0; k < argc; k++) {
        int i = lgc_command_option(c, argv[k]);
        const lgc_option *o = i >= 0 ? lgc_command_entry(c, i) : NULL;
        if (o && o->kind == LGC_OPTION_FLAG && strcmp(o->name, name) == 0)
            return 1;
        if (o && o->kind != LGC_OPTION_FLAG)
            k++;
    }
    return 0;
}

int lgc_command_wants_help(const lgc_command *c, int argc, char *const argv[])
{
    return lgc_command_given(c, argc, argv, "--help");
}

const char *lgc_command_value(const lgc_command *c, int argc, char *const argv[], const char *name)
{
    const char *value = NULL;
    for (int k = 0; k < argc; k++) {
        int i = lgc_command_option(c, argv[k]);
        const lgc_option *o = i >= 0 ? lgc_command_entry(c, i) : NULL;
        if (o && o->kind != LGC_OPTION_FLAG && ++k < argc && strcmp(o->name, name) == 0)
            value = argv[k];
    }
    return value;
}
