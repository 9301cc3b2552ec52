/*
** start.c — the state a run or a linearisation starts from: the spec's
** initial values with the options' over them, checked against the
** constraints, or completed onto them (--consistent).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangec/initial.h"
#include "lagrangec/status.h"
#include "programs.h"

int lgc_given_init(lgc_given *g, const lgc_model *m)
{
    g->value = calloc((size_t)m->nx + 1, sizeof *g->value);
    g->set = calloc((size_t)m->nx + 1, sizeof *g->set);
    return g->value && g->set ? LGC_OK : LGC_ERR_NOMEM;
}

void lgc_given_free(lgc_given *g)
{
    free(g->value);
    free(g->set);
}

/*
** The one place that knows where a start comes from. The spec's values are
** the descriptor's initial_state (the values at the default parameters),
** and the entries counted as given are those the options set; when the
** descriptor gains initial_state_at(p, x) and initial_given, they replace
** these two lines.
*/
void lgc_start_state(const lgc_system *sys, const lgc_given *g, double x[], unsigned char fixed[])
{
    const lgc_model *m = sys->model;
    memcpy(x, m->initial_state, (size_t)m->nx * sizeof *x);
    memcpy(fixed, g->set, (size_t)m->nx * sizeof *fixed);
    for (int i = 0; i < m->nx; i++)
        if (g->set[i])
            x[i] = g->value[i];
}

void lgc_start_incomplete(int rc, const char *option, char *buf, size_t size)
{
    if (rc == LGC_ERR_RANK_LOST)
        snprintf(buf, size, "--consistent cannot put the state on the constraints: the "
                            "coordinates and velocities not given by %s cannot satisfy them (give "
                            "fewer, or leave a singular configuration)", option);
    else if (rc == LGC_ERR_PROJECTION)
        snprintf(buf, size, "--consistent: the coordinates not given did not converge onto the "
                            "constraints from the spec's values; give values nearer them with %s",
                 option);
    else
        snprintf(buf, size, "--consistent: %s", lgc_strerror(rc));
}

int lgc_start_complete(const lgc_system *sys, double t, double x[], const unsigned char fixed[],
                       const char *option)
{
    const lgc_model *m = sys->model;
    double *before = malloc((size_t)m->nx * sizeof *before + 1);
    if (!before) {
        fprintf(stderr, "lagrangec: %s\n", lgc_strerror(LGC_ERR_NOMEM));
        return LGC_EXIT_FAILED;
    }
    memcpy(before, x, (size_t)m->nx * sizeof *before);
    int rc = lgc_state_complete(sys, t, x, fixed);
    if (rc != LGC_OK) {
        char why[512];
        lgc_start_incomplete(rc, option, why, sizeof why);
        fprintf(stderr, "lagrangec: %s\n", why);
    }
    for (int i = 0; rc == LGC_OK && i < 2 * m->nq; i++)
        if (x[i] != before[i])
            fprintf(stderr, "lagrangec: --consistent set %s = %.17g (was %.17g)\n",
                    m->state_names[i], x[i], before[i]);
    free(before);
    return rc == LGC_OK ? LGC_EXIT_OK : LGC_EXIT_FAILED;
}

int lgc_start_problem(const lgc_system *sys, double t, const double x[], char *buf, size_t size)
{
    const lgc_model *m = sys->model;
    for (int i = 0; i < m->nx; i++)
        if (!isfinite(x[i])) {
            snprintf(buf, size, "the initial %s is not finite", m->state_names[i]);
            return LGC_ERR_NONFINITE;
        }
    int row = -1;
    double residual = 0.0;
    int rc = lgc_state_check(sys, t, x, LGC_INITIAL_TOL, &row, &residual);
    if (rc == LGC_ERR_INCONSISTENT) {
        char what[128], name[32];
        lgc_describe_row(m, row, what, sizeof what);
        lgc_row_name(m, row, name, sizeof name);
        snprintf(buf, size, "the initial state violates %s: %s = %.3g at t = %g (tolerance %g "
                            "relative)", what, name, residual, t, LGC_INITIAL_TOL);
    } else if (rc != LGC_OK) {
        snprintf(buf, size, "%s", lgc_strerror(rc));
    }
    return rc;
}

int lgc_start_check(const lgc_system *sys, double t, const double x[], const char *option)
{
    char why[512];
    int rc = lgc_start_problem(sys, t, x, why, sizeof why);
    if (rc == LGC_OK)
        return LGC_EXIT_OK;
    fprintf(stderr, "lagrangec: %s", why);
    if (rc == LGC_ERR_INCONSISTENT)
        fprintf(stderr, "; give a state on the constraints with %s, or add --consistent to "
                        "solve for the coordinates and velocities not given", option);
    fputc('\n', stderr);
    return LGC_EXIT_FAILED;
}
