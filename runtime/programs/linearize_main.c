/* linearize_main.c — the `lagrangec linearize` program: options, checks, A, B, eigenvalues. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangec/linearize.h"
#include "lagrangec/status.h"
#include "simulate_internal.h"

static const char usage[] =
    "usage: %s --at NAME=VALUE... [options]\n"
    "  --at NAME=VALUE            the operating point: x = VALUE a coordinate,\n"
    "                             x'=VALUE a velocity (others: the spec's initial state)\n"
    "  --param NAME=VALUE         set a parameter\n"
    "  --input NAME=VALUE         the input at the point\n"
    "  --independent NAME,...     independent coordinates (nq - nh of them);\n"
    "                             x' names independent speeds (nq - nh - nn),\n"
    "                             else they follow (pivoted QR by default)\n"
    "  --json                     print JSON instead of text\n"
    "  --help                     this text\n"
    "The point must satisfy the constraints (|phi|, |phi'|, |g| <= %g relative).\n";

typedef struct lin_options {
    const char *independent;    /* NULL: pivoted QR chooses */
    int json;
} lin_options;

/* 2, after saying how many independent coordinates or speeds the model has. */
static int independent_count_error(const char *how, int speed, const lgc_linearization *lin)
{
    fprintf(stderr, "lagrangec: --independent names too %s %s (this model has %d: %s)\n", how,
            speed ? "speeds" : "coordinates", speed ? lin->nvi : lin->nqi,
            speed ? "nq - nh - nn" : "nq - nh");
    return 2;
}

/*
** The comma-separated names into q_ind (coordinates) and v_ind (x' speeds);
** *has_q, *has_v say whether any were given. 0, or 2 after a usage error.
*/
static int parse_independent(const lgc_linearization *lin, const char *list, int q_ind[],
                             int v_ind[], int *has_q, int *has_v)
{
    const lgc_model *m = lin->model;
    int nq = 0, nv = 0;
    char name[256];
    for (const char *s = list; *s;) {
        size_t len = strcspn(s, ",");
        if (len == 0 || len >= sizeof name)
            return sim_usage_error("bad name list '%s' for %s", list, "--independent");
        memcpy(name, s, len);
        name[len] = '\0';
        s += len + (s[len] == ',');
        int speed = name[len - 1] == '\'';
        if (speed)
            name[len - 1] = '\0';
        int i = lgc_name_index(m->coordinate_names, m->nq, name);
        if (i < 0) {
            sim_usage_error("unknown coordinate '%s' in %s", name, "--independent");
            sim_list_names("coordinates", m->coordinate_names, m->nq);
            return 2;
        }
        if (speed ? nv == lin->nvi : nq == lin->nqi)
            return independent_count_error("many", speed, lin);
        if (speed)
            v_ind[nv++] = i;
        else
            q_ind[nq++] = i;
    }
    *has_q = nq > 0;
    *has_v = nv > 0;
    if ((nq > 0 && nq < lin->nqi) || (nv > 0 && nv < lin->nvi))
        return independent_count_error("few", !(nq > 0 && nq < lin->nqi), lin);
    return 0;
}

/* 0, -1 after --help (printed), or 2 after a usage error (printed). */
static int parse(int argc, char **argv, lgc_system *sys, double x[], lin_options *opt)
{
    memset(opt, 0, sizeof *opt);
    for (int k = 1; k < argc; k++) {
        const char *o = argv[k];
        if (strcmp(o, "--help") == 0) {
            printf(usage, argc > 0 ? argv[0] : "linearize", LGC_LINEARIZE_TOL);
            return -1;
        }
        if (strcmp(o, "--json") == 0) {
            opt->json = 1;
            continue;
        }
        int known = strcmp(o, "--at") == 0 || strcmp(o, "--param") == 0
                    || strcmp(o, "--input") == 0 || strcmp(o, "--independent") == 0;
        if (!known)
            return sim_usage_error("unknown option '%s'%s (see --help)", o, "");
        if (k + 1 >= argc)
            return sim_usage_error("%s needs a value%s", o, "");
        const char *a = argv[++k];
        int rc;
        if (strcmp(o, "--independent") == 0)
            opt->independent = a;
        else if ((rc = sim_assign(o, a, sys, x)) != 0)
            return rc;
    }
    return 0;
}

/* "holonomic constraint 2 (phi2 = 0.1)" for row i of [phi; phi'; g]. */
static void describe_row(const lgc_model *m, int i, double r, char *buf, size_t size)
{
    if (i < m->nh)
        snprintf(buf, size, "holonomic constraint %d (phi%d = %.3g)", i + 1, i + 1, r);
    else if (i < 2 * m->nh)
        snprintf(buf, size, "the velocity form of holonomic constraint %d (phi%d' = %.3g)",
                 i - m->nh + 1, i - m->nh + 1, r);
    else
        snprintf(buf, size, "nonholonomic constraint %d (g%d = %.3g)", i - 2 * m->nh + 1,
                 i - 2 * m->nh + 1, r);
}

/* The label of row/column j of A: an independent coordinate, then a speed. */
static const char *label(const lgc_linearization *lin, int j)
{
    const lgc_model *m = lin->model;
    return j < lin->nqi ? m->state_names[lin->q_ind[j]]
                        : m->state_names[m->nq + lin->v_ind[j - lin->nqi]];
}

static void print_list(const int idx[], int n, const char *const *names, int offset)
{
    if (n == 0)
        printf("none");
    for (int i = 0; i < n; i++)
        printf("%s%s", i ? ", " : "", names[offset + idx[i]]);
}

static void print_matrix(const lgc_linearization *lin, const double *M, int cols,
                         const char *const *col_names)
{
    printf("  %-10s", "");
    for (int j = 0; j < cols; j++)
        printf(" %17s", col_names ? col_names[j] : label(lin, j));
    putchar('\n');
    for (int i = 0; i < lin->n; i++) {
        printf("  %-10s", label(lin, i));
        for (int j = 0; j < cols; j++)
            printf(" %17.10g", M[(size_t)i * cols + j] + 0.0);  /* + 0.0: no "-0" */
        putchar('\n');
    }
}

static void print_text(const lgc_linearization *lin, const lgc_system *sys, const double x[])
{
    const lgc_model *m = lin->model;
    printf("model:       %s%s%s\n", m->name, m->title ? " — " : "", m->title ? m->title : "");
    printf("point:       t = 0");
    for (int i = 0; i < 2 * m->nq; i++)
        printf(", %s = %.10g", m->state_names[i], x[i]);
    printf("\nparameters: ");
    for (int i = 0; i < m->np; i++)
        printf("%s %s = %.10g", i ? "," : "", m->parameter_names[i], sys->p[i]);
    for (int i = 0; i < m->nu; i++)
        printf("%s %s = %.10g", i ? "," : "\ninputs:     ", m->input_names[i], sys->u[i]);
    printf("\nindependent: ");
    print_list(lin->q_ind, lin->nqi, m->state_names, 0);
    printf("; ");
    print_list(lin->v_ind, lin->nvi, m->state_names, m->nq);
    printf("\ndependent:   ");
    print_list(lin->q_dep, m->nh, m->state_names, 0);
    printf("; ");
    print_list(lin->v_dep, m->nh + m->nn, m->state_names, m->nq);
    printf("\n\nd/dt dy = A dy + B du, dy = the deviations of the independent coordinates and speeds\n\nA:\n");
    print_matrix(lin, lin->A, lin->n, NULL);
    if (m->nu > 0) {
        printf("\nB:\n");
        print_matrix(lin, lin->B, m->nu, m->input_names);
    } else {
        printf("\nB: none (no inputs)\n");
    }
    printf("\neigenvalues of A:\n");
    for (int i = 0; i < lin->n; i++)
        printf("  % .15g %c %.15gi\n", lin->eig_re[i] + 0.0, lin->eig_im[i] < 0 ? '-' : '+',
               fabs(lin->eig_im[i]));
}

static void json_names(const char *key, const int idx[], int n, const char *const *names,
                       int offset)
{
    printf("\"%s\": [", key);
    for (int i = 0; i < n; i++)
        printf("%s\"%s\"", i ? ", " : "", names[offset + idx[i]]);
    printf("]");
}

static void json_values(const char *key, const char *const *names, const double *v, int n)
{
    printf("  \"%s\": {", key);
    for (int i = 0; i < n; i++)
        printf("%s\"%s\": %.17g", i ? ", " : "", names[i], v[i]);
    printf("},\n");
}

static void json_matrix(const char *key, const double *M, int rows, int cols)
{
    printf("  \"%s\": [", key);
    for (int i = 0; i < rows; i++) {
        printf("%s[", i ? ",\n        " : "");
        for (int j = 0; j < cols; j++)
            printf("%s%.17g", j ? ", " : "", M[(size_t)i * cols + j] + 0.0);
        printf("]");
    }
    printf("],\n");
}

static void print_json(const lgc_linearization *lin, const lgc_system *sys, const double x[])
{
    const lgc_model *m = lin->model;
    printf("{\n  \"model\": \"%s\",\n  \"t\": 0,\n", m->name);
    json_values("point", m->state_names, x, 2 * m->nq);
    json_values("parameters", m->parameter_names, sys->p, m->np);
    json_values("inputs", m->input_names, sys->u, m->nu);
    printf("  \"independent\": {");
    json_names("coordinates", lin->q_ind, lin->nqi, m->state_names, 0);
    printf(", ");
    json_names("speeds", lin->v_ind, lin->nvi, m->state_names, m->nq);
    printf("},\n  \"dependent\": {");
    json_names("coordinates", lin->q_dep, m->nh, m->state_names, 0);
    printf(", ");
    json_names("speeds", lin->v_dep, m->nh + m->nn, m->state_names, m->nq);
    printf("},\n  \"states\": [");
    for (int j = 0; j < lin->n; j++)
        printf("%s\"%s\"", j ? ", " : "", label(lin, j));
    printf("],\n");
    json_matrix("A", lin->A, lin->n, lin->n);
    json_matrix("B", lin->B, lin->n, m->nu);
    printf("  \"eigenvalues\": [");
    for (int i = 0; i < lin->n; i++)
        printf("%s{\"re\": %.17g, \"im\": %.17g}", i ? ",\n                  " : "",
               lin->eig_re[i] + 0.0, lin->eig_im[i] + 0.0);
    printf("],\n  \"max_acceleration\": %.17g\n}\n", lin->max_accel);
}

/* Prints why lgc_linearize refused; the exit status. */
static int refuse(const lgc_linearization *lin, int rc)
{
    const lgc_model *m = lin->model;
    char what[160];
    if (rc == LGC_ERR_INCONSISTENT) {
        describe_row(m, lin->bad_row, lin->bad_residual, what, sizeof what);
        fprintf(stderr, "lagrangec: the point violates %s; give a point on the constraints "
                        "with --at (tolerance %g relative)\n", what, LGC_LINEARIZE_TOL);
    } else if (rc == LGC_ERR_RANK_LOST) {
        fprintf(stderr, "lagrangec: the dependent coordinates or speeds cannot be solved for "
                        "at this point (singular constraint block); choose others with "
                        "--independent\n");
    } else if (rc == LGC_ERR_ARG) {
        return sim_usage_error("--independent lists a coordinate or speed twice%s%s", "", "");
    } else {
        fprintf(stderr, "lagrangec: %s\n", lgc_strerror(rc));
    }
    return 1;
}

int lgc_linearize_main(const lgc_model *model, int argc, char **argv)
{
    lgc_linearization lin;
    lgc_system sys;
    double *x = NULL;
    int *ind = NULL, status = 0;
    if (model->vakonomic) {
        fprintf(stderr, "lagrangec: linearize takes the d'Alembert-Lagrange equations only; "
                        "the vakonomic model's multipliers are states with no linearisation "
                        "on the constraints here\n");
        return 2;
    }
    if (lgc_system_init(&sys, model) != LGC_OK) {
        fprintf(stderr, "lagrangec: %s\n", lgc_strerror(LGC_ERR_NOMEM));
        return 1;
    }
    int rc = lgc_linearization_init(&lin, model);
    x = calloc((size_t)model->nx + 1, sizeof *x);
    ind = calloc(2 * (size_t)model->nq + 1, sizeof *ind);
    lin_options opt;
    int has_q = 0, has_v = 0;
    if (rc != LGC_OK || !x || !ind) {
        fprintf(stderr, "lagrangec: %s\n", lgc_strerror(LGC_ERR_NOMEM));
        status = 1;
    } else {
        memcpy(x, model->initial_state, (size_t)model->nx * sizeof *x);
        status = parse(argc, argv, &sys, x, &opt);
        if (status == 0 && opt.independent)
            status = parse_independent(&lin, opt.independent, ind, ind + model->nq, &has_q, &has_v);
    }
    if (status == 0) {
        rc = lgc_linearize(&lin, &sys, 0.0, x, has_q ? ind : NULL, has_v ? ind + model->nq : NULL);
        if (rc != LGC_OK) {
            status = refuse(&lin, rc);
        } else {
            if (opt.json)
                print_json(&lin, &sys, x);
            else
                print_text(&lin, &sys, x);
            if (lin.max_accel > LGC_LINEARIZE_TOL)
                fprintf(stderr, "lagrangec: note: max |q''| = %.3g at the point: not an "
                                "equilibrium or steady motion\n", lin.max_accel);
        }
    }
    lgc_linearization_free(&lin);
    lgc_system_free(&sys);
    free(x);
    free(ind);
    return status < 0 ? 0 : status;
}
