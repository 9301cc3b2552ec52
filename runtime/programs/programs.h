/*
** simulate_internal.h — internal interfaces of the `simulate` program,
** sectioned by the file that defines them.
*/
#ifndef LAGRANGEC_SIMULATE_INTERNAL_H
#define LAGRANGEC_SIMULATE_INTERNAL_H

#include "lagrangec/driver.h"

/* options.c */

enum baumgarte_choice { GAINS_MODEL, GAINS_GIVEN, GAINS_AUTO, GAINS_OFF };

typedef struct sim_options {
    double t_end;
    double dt;                  /* 0: not given */
    double rtol, atol;
    const char *method;         /* NULL: rk4 if dt given, else dopri5 */
    enum baumgarte_choice gains;
    double alpha, beta;         /* with GAINS_GIVEN */
    lgc_project_mode project;
    lgc_metric metric;
    double sample;              /* 0: t_end / 1000 */
    const char *out, *plot;
    int quiet;
} sim_options;

/*
** Parse argv; --param/--input go straight into sys, --init into x0.
** Returns 0, 1 after --help (printed), or 2 after a usage error (printed).
*/
int sim_parse_options(int argc, char **argv, lgc_system *sys, double x0[],
                      sim_options *opt);

/* "lagrangec: " + the message (fmt with a, b) on stderr; returns 2. */
int sim_usage_error(const char *fmt, const char *a, const char *b);

/* "  known WHAT: a, b, c" on stderr. */
void sim_list_names(const char *what, const char *const *names, int n);

/*
** NAME=VALUE of option opt: --param into sys->p, --input into sys->u, any
** other option into the state x0 by its name (x, x', int_g1, mu1). Returns
** 0, or 2 after a usage error listing the known names.
*/
int sim_assign(const char *opt, const char *arg, lgc_system *sys, double x0[]);

/* plot.c */

/* Render the CSV at csv_path to png_path with gnuplot; LGC_OK or LGC_ERR_IO. */
int sim_plot(const lgc_model *m, const char *csv_path, const char *png_path,
             double energy0);

#endif
