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
** The one place that knows where a start comes from: the spec's initial
** values at the run's parameters (they may be expressions of them), the
** options' values over them. Given are the entries the spec's [initial]
** tables set and those the options set.
*/
void lgc_start_state(const lgc_system *sys, const lgc_given *g, double x[], unsigned char fixed[])
{
    const lgc_model *m = sys->model;
    m->initial_state_at(sys->p, x);
    for (int i = 0; i < m->nx; i++) {
        fixed[i] = g->set[i] || m->initial_given[i];
        if (g->set[i])
            x[i] = g->value[i];
    }
}

/* Says on stderr which coordinates and velocities differ from `before`. */
static void report_changes(const lgc_model *m, const double before[], const double x[],
                           const unsigned char spec_freed[], const char *option)
{
    for (int i = 0; i < 2 * m->nq; i++) {
        if (x[i] == before[i])
            continue;
        fprintf(stderr, "lagrangec: --consistent set %s = %.17g (was %.17g)", m->state_names[i],
                x[i], before[i]);
        if (spec_freed[i])
            fprintf(stderr, "; the spec gives it, but with the values of %s the spec's values "
                            "admit no state on the constraints, so %s wins", option, option);
        fputc('\n', stderr);
    }
}

/* ", x, y": the entries of row (of [phi; phi'; g]) at x, those its Jacobian row holds. */
static void row_entries(const lgc_system *sys, double t, const double x[], int row, char *buf,
                        size_t size)
{
    const lgc_model *m = sys->model;
    const int nc = m->nh + m->nn, c = row < m->nh ? row : row - m->nh;
    const int offset = row < m->nh ? 0 : m->nq;    /* coordinates, or velocities */
    double *C = malloc((size_t)nc * m->nq * sizeof *C + 1);
    size_t used = 0;
    buf[0] = '\0';
    if (!C)
        return;
    m->constraint_jacobian(t, x, sys->p, C);
    for (int i = 0; i < m->nq && used < size; i++)
        if (C[(size_t)c * m->nq + i] != 0.0) {
            int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "",
                             m->state_names[offset + i]);
            used += n > 0 ? (size_t)n : 0;
        }
    free(C);
}

void lgc_start_incomplete(const lgc_system *sys, double t, const double x[], int rc,
                          const lgc_unmet *unmet, const char *option, char *buf, size_t size)
{
    if (rc == LGC_ERR_INCONSISTENT) {
        char what[512], name[32], entries[256];
        lgc_describe_row(sys->model, unmet->row, what, sizeof what);
        lgc_row_name(sys->model, unmet->row, name, sizeof name);
        row_entries(sys, t, x, unmet->row, entries, sizeof entries);
        snprintf(buf, size, "--consistent cannot put the state on the constraints: %s involves "
                            "only entries given by %s (%s), and they do not satisfy it (%s = %.3g "
                            "at t = %g); give values that do, or leave one of them out",
                 what, option, entries, name, unmet->residual, t);
    } else if (rc == LGC_ERR_RANK_LOST)
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

int lgc_start_solve(const lgc_system *sys, double t, double x[], const unsigned char fixed[],
                    const lgc_given *g, const double before[], unsigned char tried[],
                    unsigned char spec_freed[], lgc_unmet *unmet)
{
    const int nx = sys->model->nx, nq = sys->model->nq;
    /*
    ** The spec's values and the options' together may leave nothing free to
    ** solve (the pendulum's spec gives x and y; --init x=0.5 then fixes
    ** both): then the options' values win and the spec's become starting
    ** values, the coordinates' first, the velocities' only if still needed.
    */
    int rc = LGC_OK;
    for (int pass = 0; pass < 3; pass++) {
        for (int i = 0; i < nx; i++) {
            int velocity_part = i >= nq;
            int spec_yields = pass == 2 || (pass == 1 && !velocity_part);
            tried[i] = spec_yields ? g->set[i] : fixed[i];
            spec_freed[i] = fixed[i] && !tried[i];
        }
        memcpy(x, before, (size_t)nx * sizeof *x);
        rc = lgc_state_complete(sys, t, x, tried, unmet);
        if (rc != LGC_ERR_RANK_LOST && rc != LGC_ERR_PROJECTION && rc != LGC_ERR_INCONSISTENT)
            break;
    }
    return rc;
}

int lgc_start_complete(const lgc_system *sys, double t, double x[], const unsigned char fixed[],
                       const lgc_given *g, const char *option)
{
    const lgc_model *m = sys->model;
    const int nx = m->nx;
    double *before = malloc((size_t)nx * sizeof *before + 1);
    unsigned char *tried = malloc((size_t)nx + 1), *spec_freed = calloc((size_t)nx + 1, 1);
    if (!before || !tried || !spec_freed) {
        free(before);
        free(tried);
        free(spec_freed);
        fprintf(stderr, "lagrangec: %s\n", lgc_strerror(LGC_ERR_NOMEM));
        return LGC_EXIT_FAILED;
    }
    memcpy(before, x, (size_t)nx * sizeof *before);
    lgc_unmet unmet;
    int rc = lgc_start_solve(sys, t, x, fixed, g, before, tried, spec_freed, &unmet);
    if (rc != LGC_OK) {
        char why[1024];
        lgc_start_incomplete(sys, t, x, rc, &unmet, option, why, sizeof why);
        fprintf(stderr, "lagrangec: %s\n", why);
    } else {
        report_changes(m, before, x, spec_freed, option);
    }
    free(before);
    free(tried);
    free(spec_freed);
    return rc == LGC_OK ? LGC_EXIT_OK : LGC_EXIT_FAILED;
}

int lgc_start_problem(const lgc_system *sys, double t, const double x[], int initial, char *buf,
                      size_t size)
{
    const lgc_model *m = sys->model;
    const char *the = initial ? "the initial " : "the ";
    for (int i = 0; i < m->nx; i++)
        if (!isfinite(x[i])) {
            snprintf(buf, size, "%s%s is not finite", the, m->state_names[i]);
            return LGC_ERR_NONFINITE;
        }
    int row = -1;
    double residual = 0.0;
    int rc = lgc_state_check(sys, t, x, LGC_INITIAL_TOL, &row, &residual);
    if (rc == LGC_ERR_INCONSISTENT) {
        char what[512], name[32];
        lgc_describe_row(m, row, what, sizeof what);
        lgc_row_name(m, row, name, sizeof name);
        snprintf(buf, size, "%sstate violates %s (%s = %.3g at t = %g, tolerance %g relative)",
                 the, what, name, residual, t, LGC_INITIAL_TOL);
    } else if (rc != LGC_OK) {
        snprintf(buf, size, "%s", lgc_strerror(rc));
    }
    return rc;
}

int lgc_start_check(const lgc_system *sys, double t, const double x[], int initial,
                    const char *option)
{
    char why[1024];
    int rc = lgc_start_problem(sys, t, x, initial, why, sizeof why);
    if (rc == LGC_OK)
        return LGC_EXIT_OK;
    fprintf(stderr, "lagrangec: %s", why);
    if (rc == LGC_ERR_INCONSISTENT)
        fprintf(stderr, "; give a state on the constraints with %s, or add --consistent to "
                        "solve for the coordinates and velocities not given", option);
    fputc('\n', stderr);
    return LGC_EXIT_FAILED;
}
