/* linearize_main.c — the `lagrangec linearize` program: options, point, A, B, eigenvalues. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangec/linearize.h"
#include "lagrangec/status.h"
#include "programs.h"

typedef struct lin_options {
    int json;
    const char *independent;    /* NULL: pivoted QR chooses */
} lin_options;

/*
** Eigenvalues at round-off level. dgeev's are exact for A + E with
** |E| ~ n eps |A|_F = delta: a simple eigenvalue moves by about delta, a
** double zero eigenvalue (a Jordan block: a coordinate whose speed is free,
** like a cart's position) by sqrt(delta |A|_F). Below these it is zero.
*/
typedef struct roundoff {
    double real_part;       /* delta: a real part below it is 0 */
    double eigenvalue;      /* sqrt(n eps) |A|_F: an eigenvalue below it is 0 */
} roundoff;

static roundoff eigen_roundoff(const lgc_linearization *lin)
{
    double norm = 0.0;
    for (int i = 0; i < lin->n * lin->n; i++)
        norm = hypot(norm, lin->A[i]);
    roundoff r = {lin->n * DBL_EPSILON * norm, sqrt(lin->n * DBL_EPSILON) * norm};
    return r;
}

/* Eigenvalue i as printed: zero parts within round-off; 1 if it differs from dgeev's. */
static int rounded_eigenvalue(const lgc_linearization *lin, const roundoff *r, int i, double *re,
                              double *im)
{
    *re = lin->eig_re[i];
    *im = lin->eig_im[i];
    if (hypot(*re, *im) <= r->eigenvalue)
        *re = *im = 0.0;
    else if (fabs(*re) <= r->real_part)
        *re = 0.0;
    *re += 0.0;     /* no "-0" */
    *im += 0.0;
    return *re != lin->eig_re[i] || *im != lin->eig_im[i];
}

/* 2, after saying how many independent coordinates or speeds the model has. */
static int independent_count_error(const char *how, int speed, const lgc_linearization *lin)
{
    return lgc_usage_error("--independent names too %s %s (this model has %d: %s)", how,
                           speed ? "speeds" : "coordinates", speed ? lin->nvi : lin->nqi,
                           speed ? "nq - nh - nn" : "nq - nh");
}

/*
** The comma-separated names into q_ind (coordinates) and v_ind (speeds:
** x' or x_dot); *has_q, *has_v say whether any were given. 0, or 2 after a
** usage error.
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
            return lgc_usage_error("bad name list '%s' for --independent", list);
        memcpy(name, s, len);
        name[len] = '\0';
        s += len + (s[len] == ',');
        int i = lgc_state_index(m, name);
        if (i < 0 || i >= 2 * m->nq) {
            lgc_usage_error("unknown coordinate or speed '%s' in --independent", name);
            lgc_list_names("coordinates", m->coordinate_names, m->nq);
            return LGC_EXIT_USAGE;
        }
        const int speed = i >= m->nq;
        if (speed ? nv == lin->nvi : nq == lin->nqi)
            return independent_count_error("many", speed, lin);
        if (speed)
            v_ind[nv++] = i - m->nq;
        else
            q_ind[nq++] = i;
    }
    *has_q = nq > 0;
    *has_v = nv > 0;
    if ((nq > 0 && nq < lin->nqi) || (nv > 0 && nv < lin->nvi))
        return independent_count_error("few", !(nq > 0 && nq < lin->nqi), lin);
    return LGC_EXIT_OK;
}

/* 0, -1 after --help (printed), or 2 after a usage error (printed). */
static int parse(int argc, char **argv, lgc_point *pt, lin_options *opt)
{
    memset(opt, 0, sizeof *opt);
    lgc_args args;
    lgc_args_init(&args, &lgc_linearize_command, argc, argv);
    int option, rc;
    const char *a;
    while ((rc = lgc_args_next(&args, &option, &a)) == 1) {
        switch (option) {
        case LGC_LIN_HELP:
            lgc_command_help(&lgc_linearize_command, argc > 0 ? argv[0] : "linearize", stdout);
            return -1;
        case LGC_LIN_JSON: opt->json = 1; break;
        case LGC_LIN_INDEPENDENT: opt->independent = a; break;
        default:    /* --at a state or t=T, --param, --input, --consistent */
            if ((rc = lgc_point_option(pt, lgc_linearize_command.options[option].name, a)) != 0)
                return rc;
        }
    }
    return rc;
}

/* What the model's equations are at the point, and whether they are numbers and change with t. */
typedef struct point_probe {
    int finite;             /* rhs and Jacobian finite at (t, x) */
    int time_dependent;     /* they, the residuals or C differ at other times */
} point_probe;

/*
** Evaluates rhs, Jacobian, residuals and constraint Jacobian at (t, x) and
** at two times no sampled motion repeats at: a model whose equations there
** differ depends on t, and its linearisation needs the time.
*/
static int probe(const lgc_system *sys, const double x[], double t, point_probe *out)
{
    const lgc_model *m = sys->model;
    const int nx = m->nx, nc = m->nh + m->nn, nres = 2 * m->nh + m->nn;
    const size_t derivatives = (size_t)nx * nx + (size_t)nx * m->nu + nx;
    const size_t each = derivatives + (size_t)nres + (size_t)nc * m->nq;
    const int nscratch = m->nwork_jacobian > m->nwork ? m->nwork_jacobian : m->nwork;
    double *v = calloc(2 * each + (size_t)nscratch + 1, sizeof *v);
    if (!v)
        return LGC_ERR_NOMEM;
    double *work = v + 2 * each;
    const double times[3] = {t, t + 0.6180339887498949, t + 2.718281828459045};
    out->finite = 1;
    out->time_dependent = 0;
    for (int k = 0; k < 3 && out->finite && !out->time_dependent; k++) {
        double *e = v + (size_t)(k > 0) * each;     /* [0]: at t; [1]: at another time */
        double *J = e, *G = J + (size_t)nx * nx, *f = G + (size_t)nx * m->nu, *r = f + nx,
               *C = r + nres;
        m->jacobian(times[k], x, sys->u, sys->p, 0.0, 0.0, J, G, work);
        m->rhs(times[k], x, sys->u, sys->p, 0.0, 0.0, f, NULL, work);
        m->residuals(times[k], x, sys->p, r, r + m->nh, r + 2 * m->nh);
        m->constraint_jacobian(times[k], x, sys->p, C);
        for (size_t i = 0; k == 0 && i < derivatives; i++)
            out->finite = out->finite && isfinite(e[i]);
        /* An integral without inputs' forces: nothing in the model has t. */
        const int autonomous = m->integral != LGC_INTEGRAL_NONE && !m->integral_needs_zero_inputs;
        out->time_dependent = !autonomous && k > 0 && memcmp(v, e, each * sizeof *v) != 0;
    }
    free(v);
    return LGC_OK;
}

/* max |q_i''| over the independent speeds at the point; an equilibrium's is 0. */
static double independent_acceleration(const lgc_linearization *lin, lgc_system *sys, double t,
                                       const double x[])
{
    const lgc_model *m = lin->model;
    double *dxdt = malloc((size_t)m->nx * sizeof *dxdt + 1), worst = NAN;
    if (dxdt && lgc_system_rhs(sys, t, x, dxdt, NULL) == LGC_OK) {
        worst = 0.0;
        for (int i = 0; i < lin->nvi; i++)
            worst = fmax(worst, fabs(dxdt[m->nq + lin->v_ind[i]]));
    }
    free(dxdt);
    return worst;
}

/*
** What the linear model does with the contacts: it holds every one on, a
** two-sided row (the motion in contact, as NAME_step does); a note says so,
** with each one's push at the point, and which pull there (the motion
** lets go of them at once: this linear model is not the motion). Friction
** contacts are held sticking (their slip rows constraints), as NAME_step
** holds them: a note says so.
*/
static void note_contacts(const lgc_model *m, lgc_system *sys, double t, const double x[])
{
    if (m->nfriction > 0)
        fprintf(stderr, "lagrangec: note: friction contacts held sticking (their slip rows as constraints: "
                        "the motion while each sticks, valid while its friction stays inside mu_s N)\n");
    if (m->ncontact == 0)
        return;
    double *v = malloc(((size_t)m->nx + (size_t)(m->nh + m->nn)) * sizeof *v + 1);
    if (!v || lgc_system_rhs(sys, t, x, v, v + m->nx) != LGC_OK) {
        free(v);
        return;
    }
    const double *lambda = v + m->nx;
    fprintf(stderr, "lagrangec: note: contacts held on, as two-sided rows (the motion in contact, valid "
                    "while each pushes):");
    for (int c = 0; c < m->ncontact; c++) {
        const int row = m->nh - m->ncontact + c;
        fprintf(stderr, "%s contact%d lambda = %.6g (%s)", c ? "," : "", c + 1, lambda[row],
                lambda[row] < 0.0 ? "pulls: it lets go here, and the motion is not this one" : "pushes");
    }
    fprintf(stderr, "\n");
    free(v);
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

static void print_text(const lgc_linearization *lin, const lgc_system *sys, double t,
                       const double x[])
{
    const lgc_model *m = lin->model;
    printf("model:       %s%s%s\n", m->name, m->title ? " — " : "", m->title ? m->title : "");
    printf("point:       t = %.10g", t);
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
    const roundoff r = eigen_roundoff(lin);
    printf("\neigenvalues of A:\n");
    int any = 0;
    for (int i = 0; i < lin->n; i++) {
        double re, im;
        int rounded = rounded_eigenvalue(lin, &r, i, &re, &im);
        printf("  % .15g %c %.15gi", re, im < 0 ? '-' : '+', fabs(im));
        if (rounded)
            printf("   (round-off: %.3g %c %.3gi)", lin->eig_re[i], lin->eig_im[i] < 0 ? '-' : '+',
                   fabs(lin->eig_im[i]));
        putchar('\n');
        any |= rounded;
    }
    if (any)
        printf("round-off: |lambda| <= %.3g (sqrt(n eps) |A|_F) is 0, and so is a real part "
               "<= %.3g (n eps |A|_F)\n", r.eigenvalue, r.real_part);
}

static void json_values(lgc_json *j, const char *key, const char *const *names, const double *v,
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

static void json_names(lgc_json *j, const char *key, const int idx[], int n,
                       const char *const *names, int offset)
{
    lgc_json_key(j, key);
    lgc_json_begin(j, '[');
    for (int i = 0; i < n; i++)
        lgc_json_string(j, names[offset + idx[i]]);
    lgc_json_end(j);
}

static void json_matrix(lgc_json *j, const char *key, const double *M, int rows, int cols)
{
    lgc_json_key(j, key);
    lgc_json_begin(j, '[');
    for (int i = 0; i < rows; i++) {
        lgc_json_begin(j, '[');
        for (int k = 0; k < cols; k++)
            lgc_json_number(j, M[(size_t)i * cols + k]);
        lgc_json_end(j);
    }
    lgc_json_end(j);
}

static void json_sets(lgc_json *j, const char *key, const lgc_linearization *lin, int dep)
{
    const lgc_model *m = lin->model;
    lgc_json_key(j, key);
    lgc_json_begin(j, '{');
    json_names(j, "coordinates", dep ? lin->q_dep : lin->q_ind, dep ? m->nh : lin->nqi,
               m->state_names, 0);
    json_names(j, "speeds", dep ? lin->v_dep : lin->v_ind, dep ? m->nh + m->nn : lin->nvi,
               m->state_names, m->nq);
    lgc_json_end(j);
}

static void print_json(const lgc_linearization *lin, const lgc_system *sys, double t,
                       const double x[], int time_dependent, double accel)
{
    const lgc_model *m = lin->model;
    lgc_json j;
    lgc_json_open(&j, stdout);
    lgc_json_key(&j, "model");
    lgc_json_string(&j, m->name);
    lgc_json_key(&j, "t");
    lgc_json_number(&j, t);
    lgc_json_key(&j, "time_dependent");
    lgc_json_bool(&j, time_dependent);
    json_values(&j, "point", m->state_names, x, 2 * m->nq);
    json_values(&j, "parameters", m->parameter_names, sys->p, m->np);
    json_values(&j, "inputs", m->input_names, sys->u, m->nu);
    json_sets(&j, "independent", lin, 0);
    json_sets(&j, "dependent", lin, 1);
    lgc_json_key(&j, "states");
    lgc_json_begin(&j, '[');
    for (int k = 0; k < lin->n; k++)
        lgc_json_string(&j, label(lin, k));
    lgc_json_end(&j);
    json_matrix(&j, "A", lin->A, lin->n, lin->n);
    json_matrix(&j, "B", lin->B, lin->n, m->nu);
    const roundoff r = eigen_roundoff(lin);
    lgc_json_key(&j, "eigenvalues");
    lgc_json_begin(&j, '[');
    for (int i = 0; i < lin->n; i++) {
        double re, im;
        int rounded = rounded_eigenvalue(lin, &r, i, &re, &im);
        lgc_json_begin(&j, '{');
        lgc_json_key(&j, "re");
        lgc_json_number(&j, re);
        lgc_json_key(&j, "im");
        lgc_json_number(&j, im);
        if (rounded) {
            lgc_json_key(&j, "computed");
            lgc_json_begin(&j, '[');
            lgc_json_number(&j, lin->eig_re[i]);
            lgc_json_number(&j, lin->eig_im[i]);
            lgc_json_end(&j);
        }
        lgc_json_end(&j);
    }
    lgc_json_end(&j);
    lgc_json_key(&j, "roundoff");
    lgc_json_begin(&j, '{');
    lgc_json_key(&j, "eigenvalue");
    lgc_json_number(&j, r.eigenvalue);
    lgc_json_key(&j, "real_part");
    lgc_json_number(&j, r.real_part);
    lgc_json_end(&j);
    lgc_json_key(&j, "max_independent_acceleration");
    lgc_json_number(&j, accel);
    lgc_json_close(&j);
}

/* Prints why lgc_linearize refused; the exit status. */
static int refuse(const lgc_linearization *lin, int rc)
{
    const lgc_model *m = lin->model;
    if (rc == LGC_ERR_INCONSISTENT) {
        char what[512], name[32];
        lgc_describe_row(m, lin->bad_row, what, sizeof what);
        lgc_row_name(m, lin->bad_row, name, sizeof name);
        fprintf(stderr, "lagrangec: the point violates %s (%s = %.3g); give a point on the "
                        "constraints with --at, or add --consistent to solve for the "
                        "coordinates and speeds not given (tolerance %g relative)\n",
                what, name, lin->bad_residual, LGC_LINEARIZE_TOL);
    } else if (rc == LGC_ERR_RANK_LOST) {
        fprintf(stderr, "lagrangec: the dependent coordinates or speeds cannot be solved for "
                        "at this point (singular constraint block); choose others with "
                        "--independent\n");
    } else if (rc == LGC_ERR_ARG) {
        return lgc_usage_error("--independent lists a coordinate or speed twice");
    } else if (rc == LGC_ERR_NONFINITE) {
        fprintf(stderr, "lagrangec: the model's equations or their Jacobian are not finite "
                        "(NaN or Inf) at the point: no linear model there\n");
    } else {
        fprintf(stderr, "lagrangec: %s\n", lgc_strerror(rc));
    }
    return LGC_EXIT_FAILED;
}

/* Linearises at the point and prints; the exit status. */
static int linearize(lgc_linearization *lin, lgc_point *pt, const lin_options *opt, int *ind)
{
    const lgc_model *m = lin->model;
    lgc_system *sys = &pt->sys;
    const double *x = pt->x;
    int has_q = 0, has_v = 0;
    int status = opt->independent
                     ? parse_independent(lin, opt->independent, ind, ind + m->nq, &has_q, &has_v)
                     : LGC_EXIT_OK;
    if (status != LGC_EXIT_OK)
        return status;
    /* A point where the equations are not numbers has no linear model to print. */
    point_probe at;
    int rc = probe(sys, x, pt->t, &at);
    if (rc == LGC_OK && !at.finite)
        rc = LGC_ERR_NONFINITE;
    if (rc == LGC_OK)
        rc = lgc_linearize(lin, sys, pt->t, x, has_q ? ind : NULL, has_v ? ind + m->nq : NULL);
    if (rc != LGC_OK)
        return refuse(lin, rc);
    const double accel = independent_acceleration(lin, sys, pt->t, x);
    if (opt->json)
        print_json(lin, sys, pt->t, x, at.time_dependent, accel);
    else
        print_text(lin, sys, pt->t, x);
    note_contacts(m, sys, pt->t, x);
    if (at.time_dependent && !pt->t_given)
        fprintf(stderr, "lagrangec: note: the model depends on t at this point: linearised at "
                        "t = 0; give the time with --at t=T\n");
    if (!(accel <= LGC_LINEARIZE_TOL))
        fprintf(stderr, "lagrangec: note: max |q''| of the independent speeds = %.3g at the "
                        "point: not an equilibrium or steady motion\n", accel);
    return LGC_EXIT_OK;
}

int lgc_linearize_main(const lgc_model *model, int argc, char **argv)
{
    if (model->vakonomic) {
        fprintf(stderr, "lagrangec: linearize takes the d'Alembert-Lagrange equations only; "
                        "the vakonomic model's multipliers are states with no linearisation "
                        "on the constraints here\n");
        return LGC_EXIT_USAGE;
    }
    if (!model->jacobian) {
        fprintf(stderr, "lagrangec: linearize needs the generated Jacobian, and model '%s' has none: it "
                        "was generated with --no-jacobian\n",
                model->name);
        return LGC_EXIT_FAILED;
    }
    lgc_linearization lin;
    lgc_point pt;
    lin_options opt;
    int status = lgc_point_init(&pt, model);
    int rc = status == LGC_EXIT_OK ? lgc_linearization_init(&lin, model) : LGC_ERR_NOMEM;
    if (rc != LGC_OK)
        memset(&lin, 0, sizeof lin);
    int *ind = calloc(2 * (size_t)model->nq + 1, sizeof *ind);
    if (status == LGC_EXIT_OK && (rc != LGC_OK || !ind)) {
        fprintf(stderr, "lagrangec: %s\n", lgc_strerror(LGC_ERR_NOMEM));
        status = LGC_EXIT_FAILED;
    }
    if (status == LGC_EXIT_OK)
        status = parse(argc, argv, &pt, &opt);
    if (status == LGC_EXIT_OK)
        status = lgc_point_place(&pt);
    if (status == LGC_EXIT_OK)
        status = linearize(&lin, &pt, &opt, ind);
    lgc_linearization_free(&lin);
    lgc_point_free(&pt);
    free(ind);
    return status < 0 ? LGC_EXIT_OK : status;
}
