/*
** eval_main.c — the `lagrangec eval` program: the model at one state,
** nothing integrated: q'', the multipliers and the constraint forces they
** give, M, the bias k - Q, T and V, the residuals and the spec's outputs.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangec/status.h"
#include "programs.h"

typedef struct eval_options {
    int json;
} eval_options;

/* Everything eval prints, evaluated at one state. */
typedef struct evaluation {
    lgc_monitor mon;        /* q'' (mon.dxdt + nq), multipliers, forces, outputs */
    int dynamics;           /* the monitor's lgc_status */
    double *M;              /* nq x nq, row-major */
    double *bias;           /* nq: k - Q */
    double *residuals;      /* [phi; phi'; g] */
    double TV[2];
    double *zero;           /* nq zeros: the bias is the inverse dynamics at q'' = 0 */
} evaluation;

/* 0, -1 after --help (printed), or 2 after a usage error (printed). */
static int parse(int argc, char **argv, lgc_point *pt, eval_options *opt)
{
    memset(opt, 0, sizeof *opt);
    lgc_args args;
    lgc_args_init(&args, &lgc_eval_command, argc, argv);
    int option, rc;
    const char *a;
    while ((rc = lgc_args_next(&args, &option, &a)) == 1) {
        if (option == LGC_EVAL_HELP) {
            lgc_command_help(&lgc_eval_command, argc > 0 ? argv[0] : "eval", stdout);
            return -1;
        }
        if (option == LGC_EVAL_JSON)
            opt->json = 1;
        else if ((rc = lgc_point_option(pt, lgc_eval_command.options[option].name, a)) != 0)
            return rc;
    }
    return rc;
}

static int evaluation_init(evaluation *e, const lgc_model *m)
{
    memset(e, 0, sizeof *e);
    const size_t nq = (size_t)m->nq;
    double *v = calloc(nq * nq + 2 * nq + 2 * (size_t)m->nh + (size_t)m->nn + 1, sizeof *v);
    if (!v || lgc_monitor_init(&e->mon, m) != LGC_OK) {
        free(v);
        return LGC_ERR_NOMEM;
    }
    e->M = v;
    e->bias = e->M + nq * nq;
    e->residuals = e->bias + nq;
    e->zero = e->residuals + 2 * m->nh + m->nn;
    return LGC_OK;
}

static void evaluation_free(evaluation *e)
{
    free(e->M);
    lgc_monitor_free(&e->mon);
}

static void fill_nan(double v[], int n)
{
    for (int i = 0; i < n; i++)
        v[i] = NAN;
}

static int finite(const double v[], int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

/* The model at (t, x), its contacts and friction contacts in the modes a run would start in there. */
static void evaluate(evaluation *e, lgc_system *sys, double t, double x[])
{
    const lgc_model *m = sys->model;
    const int nq = m->nq, nc = m->nh + m->nn;
    lgc_sample *s = &e->mon.s;
    e->dynamics = lgc_system_start_modes(sys, t, x);
    if (e->dynamics == LGC_OK)
        e->dynamics = lgc_monitor_sample(&e->mon, sys, t, x);
    /* What the monitor did not reach has no value: null, and why. */
    if (e->dynamics != LGC_OK && e->dynamics != LGC_ERR_NONFINITE)
        fill_nan(e->mon.dxdt, m->nx), fill_nan(s->mult, nc);
    if (e->dynamics != LGC_OK && !finite(s->mult, nc))
        fill_nan(s->fc, nq), fill_nan(s->out, m->nout), fill_nan(s->mode, m->nfriction);
    m->mass_matrix(t, x, sys->p, e->M);
    m->inverse_dynamics(t, x, sys->u, sys->p, e->zero, e->bias);
    m->residuals(t, x, sys->p, e->residuals, e->residuals + m->nh, e->residuals + 2 * m->nh);
    m->energies(t, x, sys->p, e->TV);
}

/* Why the values of a group are null, or NULL when they are all numbers. */
static const char *why_null(const evaluation *e, const double v[], int n, int dynamic)
{
    if (finite(v, n))
        return NULL;
    if (!dynamic || e->dynamics == LGC_OK || e->dynamics == LGC_ERR_NONFINITE)
        return "not finite at this state";
    return e->dynamics == LGC_ERR_SINGULAR_MASS
               ? "the mass matrix is not positive definite at this state"
           : e->dynamics == LGC_ERR_RANK_LOST
               ? "the constraint rows are dependent at this state and ask for a motion they "
                 "cannot make"
               : lgc_strerror(e->dynamics);
}

/* One group of named values: what eval prints, in the order it prints them. */
typedef struct group {
    const char *key;        /* JSON */
    const char *title;      /* text */
    const double *v;
    int n, dynamic;
    int names;              /* 'q' coordinates, 'm' multipliers, 'r' residual rows, 'o' outputs, 'f' friction */
} group;

static void value_name(const lgc_model *m, int names, int i, char *buf, size_t size)
{
    if (names == 'q')
        snprintf(buf, size, "%s", m->coordinate_names[i]);
    else if (names == 'm')
        lgc_csv_column_name(m, lgc_csv_column_multipliers(m) + i, buf, size);
    else if (names == 'r')
        lgc_row_name(m, i, buf, size);
    else if (names == 'f')
        snprintf(buf, size, "%s", m->friction_names[i]);
    else
        snprintf(buf, size, "%s", m->output_names[i]);
}

enum { NGROUPS = 7 };

static void groups_of(const evaluation *e, const lgc_model *m, group g[NGROUPS])
{
    const int nc = m->nh + m->nn;
    const group all[NGROUPS] = {
        {"acceleration", "acceleration q''", e->mon.dxdt + m->nq, m->nq, 1, 'q'},
        {"multipliers", "multipliers [lambda; mu]", e->mon.s.mult, nc, 1, 'm'},
        {"constraint_forces", "constraint forces C^T [lambda; mu]", e->mon.s.fc, m->nq, 1, 'q'},
        {"bias", "bias k - Q (M q'' + k - Q = C^T [lambda; mu])", e->bias, m->nq, 0, 'q'},
        {"residuals", "residuals [phi; phi'; g]", e->residuals, 2 * m->nh + m->nn, 0, 'r'},
        {"outputs", "outputs", e->mon.s.out, m->nout, 1, 'o'},
        {"friction_modes", "friction modes (0 sticking; sliding +1, or -1 backwards)", e->mon.s.mode,
         m->nfriction, 1, 'f'},
    };
    memcpy(g, all, sizeof all);
}

static void json_named(lgc_json *j, const char *key, const char *const *names, const double *v,
                       int n)
{
    lgc_json_key(j, key);
    lgc_json_begin(j, '{');
    for (int i = 0; i < n; i++) {
        lgc_json_key(j, names[i]);
        lgc_json_number(j, v[i]);
    }
    lgc_json_end(j);
}

static void print_json(const evaluation *e, const lgc_point *pt)
{
    const lgc_model *m = pt->sys.model;
    group g[NGROUPS];
    groups_of(e, m, g);
    char name[512];
    lgc_json j;
    lgc_json_open(&j, stdout);
    lgc_json_key(&j, "model");
    lgc_json_string(&j, m->name);
    lgc_json_key(&j, "t");
    lgc_json_number(&j, pt->t);
    json_named(&j, "state", m->state_names, pt->x, m->nx);
    json_named(&j, "parameters", m->parameter_names, pt->sys.p, m->np);
    json_named(&j, "inputs", m->input_names, pt->sys.u, m->nu);
    for (int k = 0; k < NGROUPS; k++) {
        lgc_json_key(&j, g[k].key);
        lgc_json_begin(&j, '{');
        for (int i = 0; i < g[k].n; i++) {
            value_name(m, g[k].names, i, name, sizeof name);
            lgc_json_key(&j, name);
            lgc_json_number(&j, g[k].v[i]);
        }
        lgc_json_end(&j);
        if (k == 2) {   /* M after the forces, beside the bias */
            lgc_json_key(&j, "mass_matrix");
            lgc_json_begin(&j, '[');
            for (int r = 0; r < m->nq; r++) {
                lgc_json_begin(&j, '[');
                for (int c = 0; c < m->nq; c++)
                    lgc_json_number(&j, e->M[r * m->nq + c]);
                lgc_json_end(&j);
            }
            lgc_json_end(&j);
        }
        if (k == 3) {
            lgc_json_key(&j, "energy");
            lgc_json_begin(&j, '{');
            lgc_json_key(&j, "T");
            lgc_json_number(&j, e->TV[0]);
            lgc_json_key(&j, "V");
            lgc_json_number(&j, e->TV[1]);
            lgc_json_end(&j);
        }
    }
    /* Every null above, and why: JSON has no NaN or Inf. */
    lgc_json_key(&j, "why_null");
    lgc_json_begin(&j, '{');
    for (int k = 0; k < NGROUPS; k++) {
        const char *why = why_null(e, g[k].v, g[k].n, g[k].dynamic);
        if (why) {
            lgc_json_key(&j, g[k].key);
            lgc_json_string(&j, why);
        }
    }
    const char *why = why_null(e, e->M, m->nq * m->nq, 0);
    if (why) {
        lgc_json_key(&j, "mass_matrix");
        lgc_json_string(&j, why);
    }
    if ((why = why_null(e, e->TV, 2, 0))) {
        lgc_json_key(&j, "energy");
        lgc_json_string(&j, why);
    }
    lgc_json_end(&j);
    lgc_json_close(&j);
}

static void print_values(const char *title, const char *const *names, const double *v, int n)
{
    printf("\n%s:\n", title);
    if (n == 0)
        printf("  none\n");
    for (int i = 0; i < n; i++)
        printf("  %-24s % .17g\n", names[i], v[i] + 0.0);  /* + 0.0: no "-0" */
}

static void print_text(const evaluation *e, const lgc_point *pt)
{
    const lgc_model *m = pt->sys.model;
    group g[NGROUPS];
    groups_of(e, m, g);
    char name[512];
    printf("model: %s%s%s\nt = %.17g\n", m->name, m->title ? " — " : "", m->title ? m->title : "",
           pt->t);
    print_values("state", m->state_names, pt->x, m->nx);
    print_values("parameters", m->parameter_names, pt->sys.p, m->np);
    if (m->nu)
        print_values("inputs", m->input_names, pt->sys.u, m->nu);
    for (int k = 0; k < NGROUPS; k++) {
        printf("\n%s:\n", g[k].title);
        if (g[k].n == 0)
            printf("  none\n");
        for (int i = 0; i < g[k].n; i++) {
            value_name(m, g[k].names, i, name, sizeof name);
            printf("  %-24s % .17g\n", name, g[k].v[i] + 0.0);
        }
        const char *why = why_null(e, g[k].v, g[k].n, g[k].dynamic);
        if (why)
            printf("  (nan: %s)\n", why);
    }
    printf("\nmass matrix M (rows and columns: %s", m->coordinate_names[0]);
    for (int i = 1; i < m->nq; i++)
        printf(", %s", m->coordinate_names[i]);
    printf("):\n");
    for (int r = 0; r < m->nq; r++) {
        printf(" ");
        for (int c = 0; c < m->nq; c++)
            printf(" % .10g", e->M[r * m->nq + c] + 0.0);
        putchar('\n');
    }
    printf("\nenergy: T = %.17g, V = %.17g, T + V = %.17g\n", e->TV[0], e->TV[1],
           e->TV[0] + e->TV[1]);
}

/* Evaluates at the point and prints; the exit status: 1 when something has no value there. */
static int eval(lgc_point *pt, int json)
{
    const lgc_model *m = pt->sys.model;
    evaluation e;
    if (evaluation_init(&e, m) != LGC_OK) {
        fprintf(stderr, "lagrangec: %s\n", lgc_strerror(LGC_ERR_NOMEM));
        return LGC_EXIT_FAILED;
    }
    evaluate(&e, &pt->sys, pt->t, pt->x);
    if (json)
        print_json(&e, pt);
    else
        print_text(&e, pt);
    group g[NGROUPS];
    groups_of(&e, m, g);
    int status = LGC_EXIT_OK;
    for (int k = 0; k < NGROUPS; k++) {
        const char *why = why_null(&e, g[k].v, g[k].n, g[k].dynamic);
        if (why) {
            fprintf(stderr, "lagrangec: no %s at this state: %s\n", g[k].key, why);
            status = LGC_EXIT_FAILED;
        }
    }
    if (!finite(e.M, m->nq * m->nq) || !finite(e.TV, 2)) {
        fprintf(stderr, "lagrangec: the mass matrix or the energy is not finite at this state\n");
        status = LGC_EXIT_FAILED;
    }
    evaluation_free(&e);
    return status;
}

int lgc_eval_main(const lgc_model *model, int argc, char **argv)
{
    lgc_point pt;
    eval_options opt;
    int status = lgc_point_init(&pt, model);
    if (status == LGC_EXIT_OK)
        status = parse(argc, argv, &pt, &opt);
    if (status == LGC_EXIT_OK)
        status = lgc_point_place(&pt);
    if (status == LGC_EXIT_OK)
        status = lgc_start_check(&pt.sys, pt.t, pt.x, 0, "--at");
    if (status == LGC_EXIT_OK)
        status = eval(&pt, opt.json);
    lgc_point_free(&pt);
    return status < 0 ? LGC_EXIT_OK : status;
}
