/*
** test_simulate.c — the simulate program in process: exit statuses, the
** CSV it writes, options reaching the model, the fixed step that is the
** step, the start checked against the constraints and completed; the
** defaults, the runtime's; the plot's columns by name.
** (tests/cli/test_simulate_cli.cpp runs it as users do, messages and all.)
*/
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"
#include "knife_edge.h"
#include "lagrangec/model.h"
#include "lagrangec/status.h"
#include "pendulum.h"
#include "programs.h"
#include "dead_point.h"

#define RUN(model, ...) \
    run(model, (char *[]){"simulate", __VA_ARGS__, NULL})

static int run(const lgc_model *m, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return lgc_simulate_main(m, argc, argv);
}

/* The first (after the header) and last lines of a CSV, and the number of rows. */
static int csv_rows(const char *path, char first[], char last[], size_t size)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[4096];
    int rows = -1;
    while (fgets(line, sizeof line, f)) {
        if (rows++ == 0)
            snprintf(first, size, "%s", line);
        snprintf(last, size, "%s", line);
    }
    fclose(f);
    return rows;
}

static void usage_errors_exit_2(void **state)
{
    (void)state;
    assert_int_equal(RUN(&pendulum_model, "--param", "mass=2"), LGC_EXIT_USAGE);
    assert_int_equal(RUN(&pendulum_model, "--init", "z'=1"), LGC_EXIT_USAGE);
    assert_int_equal(RUN(&pendulum_model, "--method", "euler"), LGC_EXIT_USAGE);
    assert_int_equal(RUN(&pendulum_model, "--frobnicate"), LGC_EXIT_USAGE);
    assert_int_equal(RUN(&pendulum_model, "--baumgarte", "1"), LGC_EXIT_USAGE);
    assert_int_equal(RUN(&pendulum_model, "--baumgarte", "nan,nan"), LGC_EXIT_USAGE);
    assert_int_equal(RUN(&pendulum_model, "--baumgarte", "1,inf"), LGC_EXIT_USAGE);
    /* A step longer than the run is no step of the run. */
    assert_int_equal(RUN(&pendulum_model, "--dt", "1e300"), LGC_EXIT_USAGE);
    assert_int_equal(RUN(&pendulum_model, "--dt", "1e11"), LGC_EXIT_USAGE);
    /* CVODE's steps change by orders of magnitude: auto gains need a first step to size them on. */
    assert_int_equal(RUN(&pendulum_model, "--method", "bdf", "--baumgarte", "auto"), LGC_EXIT_USAGE);
    assert_int_equal(RUN(&pendulum_model, "--method", "adams", "--baumgarte", "auto", "--t-end", "0.1",
                         "--dt", "1e-3", "--quiet"), LGC_EXIT_OK);
    /* lagrangec's own option, not the program's. */
    assert_int_equal(RUN(&pendulum_model, "--formulation", "vakonomic"), LGC_EXIT_USAGE);
    /* A path the system would cut short is refused, not truncated. */
    char *longer = malloc(PATH_MAX + 8);
    assert_non_null(longer);
    memset(longer, 'a', PATH_MAX + 4);
    memcpy(longer + PATH_MAX, ".csv", 5);
    assert_int_equal(RUN(&pendulum_model, "--out", longer), LGC_EXIT_USAGE);
    free(longer);
}

/* Options reach the model; x_dot names x'; the CSV has the documented header. */
static void writes_csv(void **state)
{
    (void)state;
    const char *path = "test_simulate_out.csv";
    assert_int_equal(RUN(&knife_edge_model, "--t-end", "1", "--dt", "1e-3", "--sample", "0.25",
                         "--project", "velocity", "--init", "x_dot=2", "--init", "phi'=2",
                         "--param", "l=0.5", "--out", (char *)path, "--quiet"),
                     LGC_EXIT_OK);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char header[1024];
    assert_non_null(fgets(header, sizeof header, f));
    fclose(f);
    assert_string_equal(header, "t,x,y,phi,x',y',phi',g[1],T+V,mu[1],Fc[x],Fc[y],Fc[phi]\n");
    char first[4096], last[4096];
    assert_int_equal(csv_rows(path, first, last, sizeof first), 5);
    double t, x, y, phi, vx;
    assert_int_equal(sscanf(first, "%lf,%lf,%lf,%lf,%lf", &t, &x, &y, &phi, &vx), 5);
    assert_eq(vx, 2.0);
    assert_int_equal(sscanf(last, "%lf", &t), 1);
    assert_eq(t, 1.0);
    remove(path);
}

/*
** The step is the step asked for: with h = 0.5 the state at t = 10 (a step's
** end) is the same whatever the sample interval, which only reads the
** steps' interpolant in between.
*/
static void the_step_is_independent_of_the_samples(void **state)
{
    (void)state;
    char first[4096], fine[4096], coarse[4096];
    assert_int_equal(RUN(&pendulum_model, "--dt", "0.5", "--sample", "0.01", "--out",
                         "test_simulate_fine.csv", "--quiet"), LGC_EXIT_OK);
    assert_int_equal(RUN(&pendulum_model, "--dt", "0.5", "--sample", "0.5", "--out",
                         "test_simulate_coarse.csv", "--quiet"), LGC_EXIT_OK);
    assert_int_equal(csv_rows("test_simulate_fine.csv", first, fine, sizeof fine), 1001);
    assert_int_equal(csv_rows("test_simulate_coarse.csv", first, coarse, sizeof coarse), 21);
    assert_string_equal(fine, coarse);
    remove("test_simulate_fine.csv");
    remove("test_simulate_coarse.csv");
}

/* png holds a PNG (its signature); then it is removed. */
static void assert_png_then_remove(const char *png)
{
    FILE *f = fopen(png, "rb");
    assert_non_null(f);
    unsigned char magic[8] = {0};
    assert_int_equal(fread(magic, 1, 8, f), 8);
    fclose(f);
    assert_memory_equal(magic, "\x89PNG\r\n\x1a\n", 8);
    remove(png);
}

/* --plot runs gnuplot and leaves a PNG (no --out: the CSV is a scratch file). */
static void plots_png(void **state)
{
    (void)state;
    const char *png = "test_simulate_plot.png";
    remove(png);
    assert_int_equal(RUN(&pendulum_model, "--t-end", "2", "--plot", (char *)png, "--quiet"),
                     LGC_EXIT_OK);
    assert_png_then_remove(png);
}

/*
** A title that closes gnuplot's quote, breaks the line and calls system(),
** with backquotes, a macro, a carriage return and a trigraph: plotted as
** text, nothing run.
*/
static void a_title_is_text_to_gnuplot(void **state)
{
    (void)state;
    const char *marker = "test_simulate_marker", *png = "test_simulate_title.png";
    remove(marker);
    lgc_model evil = pendulum_model;
    evil.title = "a'\nsystem \"touch test_simulate_marker\"\n'''' `touch test_simulate_marker` @x\r?" "?/ \"";
    assert_int_equal(RUN(&evil, "--t-end", "1", "--plot", (char *)png, "--quiet"), LGC_EXIT_OK);
    check(fopen(marker, "r") == NULL, "gnuplot ran the title: %s exists", marker);
    assert_png_then_remove(png);
}

/*
** --plot-columns and --plot-path name CSV columns (x_dot for x'; not t),
** need --plot, and a path takes two; a good set plots.
*/
static void plot_columns_are_csv_columns(void **state)
{
    (void)state;
    static const struct { const char *name; int column; } names[] = {
        {"x", 1}, {"phi'", 6}, {"phi_dot", 6}, {"mu[1]", 9}, {"Fc[phi]", 12},
        {"t", -1}, {"x_do", -1}, {"mu[1]_dot", -1}, {"", -1}, {"xx", -1},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const int got = lgc_plot_column(&knife_edge_model, names[i].name, strlen(names[i].name));
        check(got == names[i].column, "'%s': column %d, not %d", names[i].name, got, names[i].column);
    }
    const char *png = "test_simulate_columns.png";
    remove(png);
    assert_int_equal(RUN(&knife_edge_model, "--plot-columns", "x"), LGC_EXIT_USAGE);
    assert_int_equal(RUN(&knife_edge_model, "--plot", (char *)png, "--plot-columns", "x,nope"), LGC_EXIT_USAGE);
    assert_int_equal(RUN(&knife_edge_model, "--plot", (char *)png, "--plot-columns", "x,"), LGC_EXIT_USAGE);
    assert_int_equal(RUN(&knife_edge_model, "--plot", (char *)png, "--plot-path", "x"), LGC_EXIT_USAGE);
    assert_int_equal(RUN(&knife_edge_model, "--plot", (char *)png, "--plot-path", "x,t"), LGC_EXIT_USAGE);
    check(fopen(png, "r") == NULL, "a refused plot left %s", png);
    assert_int_equal(RUN(&knife_edge_model, "--t-end", "1", "--plot", (char *)png, "--plot-columns",
                         "x,y_dot,T+V,mu[1]", "--plot-path", "x,y", "--quiet"), LGC_EXIT_OK);
    assert_png_then_remove(png);
}

/* A fault ends the run with status 1 and a message, keeping whole CSV lines. */
static void fault_exits_1(void **state)
{
    (void)state;
    assert_int_equal(RUN(&dead_point_model, "--t-end", "1", "--dt", "1e-3", "--out",
                         "test_simulate_fault.csv"), LGC_EXIT_FAILED);
    FILE *f = fopen("test_simulate_fault.csv", "r");
    assert_non_null(f);
    int c, last = '\n';
    while ((c = fgetc(f)) != EOF)
        last = c;
    fclose(f);
    assert_int_equal(last, '\n');
    remove("test_simulate_fault.csv");
}

/* A start off the circle is refused before anything is written... */
static void a_start_off_the_constraints_is_refused(void **state)
{
    (void)state;
    const char *path = "test_simulate_refused.csv";
    remove(path);
    assert_int_equal(RUN(&pendulum_model, "--init", "x=0.5", "--out", (char *)path, "--quiet"),
                     LGC_EXIT_FAILED);
    check(fopen(path, "r") == NULL, "%s was written for a refused start", path);
}

/* ... and --consistent keeps x = 0.5 and solves y on the circle. */
static void consistent_completes_the_start(void **state)
{
    (void)state;
    const char *path = "test_simulate_consistent.csv";
    assert_int_equal(RUN(&pendulum_model, "--init", "x=0.5", "--consistent", "--t-end", "0.1",
                         "--out", (char *)path, "--quiet"), LGC_EXIT_OK);
    char first[4096], last[4096];
    csv_rows(path, first, last, sizeof first);
    double t, x, y, vx, vy;
    assert_int_equal(sscanf(first, "%lf,%lf,%lf,%lf,%lf", &t, &x, &y, &vx, &vy), 5);
    assert_eq(x, 0.5);
    assert_le(fabs(y + sqrt(0.75)), 1e-15);
    assert_eq(vx, 0.0);
    assert_eq(vy, 0.0);
    remove(path);
}

/*
** A run whose samples are its steps (rk4, --sample = --dt, no CSV) advances
** once to t_end and counts the steps as its samples: what it reports must be
** what one advance and one monitor sample a sample give, bit for bit. The
** reference is that loop, written out here as lgc_sim_integrate had it.
*/
static int track_every_step(void *ctx, double t, const double x[])
{
    lgc_sim_run *r = ctx;
    return lgc_monitor_track(&r->mon, &r->sys, t, x);
}

static int sample_by_sample(lgc_sim_run *r)
{
    lgc_monitor_reset(&r->mon, r->model);
    r->mon.forces = 0;
    lgc_driver_observe(r->drv, track_every_step, r);
    int rc = lgc_driver_reset(r->drv, 0.0, r->x0);
    double t = 0.0;
    for (long k = 1; rc == LGC_OK; k++) {
        rc = lgc_driver_advance(r->drv, t, r->x);
        if (rc == LGC_OK)
            rc = lgc_monitor_sample(&r->mon, &r->sys, t, r->x);
        if (rc != LGC_OK || t >= r->opt.t_end)
            break;
        t = fmin(r->opt.t_end, (double)k * r->opt.sample);
    }
    return rc;
}

typedef struct reported {
    int status;
    double t_fault, t_driver, t, energy, drift, max_phi, max_phi_dot, max_g;
    unsigned long count, tracked, steps;
    double x[16], last[16], residual[16];
} reported;

static void take_reported(const lgc_sim_run *r, int status, reported *out)
{
    const lgc_model *m = r->model;
    assert_true(m->nx <= 16 && 2 * m->nh + m->nn <= 16);
    memset(out, 0, sizeof *out);
    lgc_stats st;
    lgc_driver_stats(r->drv, &st);
    out->status = status;
    out->t_driver = lgc_driver_time(r->drv);
    out->t = r->mon.s.t;
    out->energy = r->mon.s.energy;
    out->drift = r->mon.max_energy_drift;
    out->max_phi = r->mon.max_phi;
    out->max_phi_dot = r->mon.max_phi_dot;
    out->max_g = r->mon.max_g;
    out->count = r->mon.count;
    out->tracked = r->mon.tracked;
    out->steps = st.steps;
    memcpy(out->x, r->mon.s.x, (size_t)m->nx * sizeof *out->x);
    memcpy(out->last, r->x, (size_t)m->nx * sizeof *out->last);
    memcpy(out->residual, r->mon.max_residual, (size_t)(2 * m->nh + m->nn) * sizeof *out->residual);
}

static void assert_samples_are_steps(const lgc_model *m, double h, double t_end, int status)
{
    lgc_sim_run r;
    assert_int_equal(lgc_sim_init(&r, m), LGC_EXIT_OK);
    lgc_sim_options_init(&r.opt);
    r.opt.method = "rk4";
    r.opt.dt = r.opt.sample = h;
    r.opt.t_end = t_end;
    r.opt.quiet = 1;
    assert_int_equal(lgc_sim_settle(&r.opt, m), LGC_EXIT_OK);
    memcpy(r.x0, m->initial_state, (size_t)m->nx * sizeof *r.x0);
    assert_int_equal(lgc_sim_make_driver(&r), LGC_EXIT_OK);
    assert_int_equal(lgc_sim_set_gains(&r), LGC_OK);
    reported once, every;
    lgc_sim_integrate(&r);
    take_reported(&r, r.status, &once);
    take_reported(&r, sample_by_sample(&r), &every);
    print_message("  %s, h %g to %.17g: status %d, %lu samples, %lu steps, last at %.17g\n", m->name, h,
                  t_end, once.status, once.count, once.steps, once.t);
    assert_int_equal(once.status, status);
    assert_int_equal(every.status, status);
    check(memcmp(&once, &every, sizeof once) == 0,
          "one advance and every sample differ: status %d/%d, t %.17g/%.17g, count %lu/%lu, tracked "
          "%lu/%lu, steps %lu/%lu, drift %.17g/%.17g, max phi %.17g/%.17g, x[0] %.17g/%.17g",
          once.status, every.status, once.t, every.t, once.count, every.count, once.tracked, every.tracked,
          once.steps, every.steps, once.drift, every.drift, once.max_phi, every.max_phi, once.x[0], every.x[0]);
    lgc_sim_free(&r);
}

static void samples_on_the_steps_report_as_every_sample(void **state)
{
    (void)state;
    assert_samples_are_steps(&pendulum_model, 1e-2, 1.0, LGC_OK);
    assert_samples_are_steps(&pendulum_model, 1e-2, 1.004, LGC_OK);     /* the last step ends on t_end */
    assert_samples_are_steps(&pendulum_model, 1e-2, 1.0 + 5e-12, LGC_OK);  /* it is within 1e-9 h: one
                                                                              sample inside it */
    assert_samples_are_steps(&dead_point_model, 1e-3, 1.0, LGC_ERR_RANK_LOST);  /* a fault on the way */
}

/*
** One table of defaults: simulate's options, unset, settle on the runtime's
** (lgc_driver_options_default), so an embedder who starts from them gets
** simulate's run; and --help names the same method.
*/
static void simulate_defaults_are_the_runtimes(void **state)
{
    (void)state;
    lgc_driver_options d;
    lgc_driver_options_default(&d);
    lgc_sim_options o;
    lgc_sim_options_init(&o);
    assert_int_equal(lgc_sim_settle(&o, &pendulum_model), LGC_EXIT_OK);
    check(strcmp(o.method, d.type->name) == 0, "simulate's method %s, the runtime's %s", o.method, d.type->name);
    assert_eq(o.dt, d.h);
    assert_eq(o.rtol, d.rtol);
    assert_eq(o.atol, d.atol);
    assert_eq(o.max_step, d.max_step);
    assert_int_equal(o.project, d.project);
    assert_int_equal(o.metric, d.metric);
    check(d.project == LGC_PROJECT_FULL && d.type == lgc_step_dopri5, "the runtime's default: %s, project %d",
          d.type->name, (int)d.project);
    char method[32];
    snprintf(method, sizeof method, "else %s)", d.type->name);
    const char *help = lgc_simulate_command.options[LGC_SIM_METHOD].help;
    check(strstr(help, method) != NULL, "--method's help does not say '%s': %s", method, help);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(usage_errors_exit_2),
        cmocka_unit_test(writes_csv),
        cmocka_unit_test(the_step_is_independent_of_the_samples),
        cmocka_unit_test(plots_png),
        cmocka_unit_test(a_title_is_text_to_gnuplot),
        cmocka_unit_test(plot_columns_are_csv_columns),
        cmocka_unit_test(fault_exits_1),
        cmocka_unit_test(a_start_off_the_constraints_is_refused),
        cmocka_unit_test(consistent_completes_the_start),
        cmocka_unit_test(simulate_defaults_are_the_runtimes),
        cmocka_unit_test(samples_on_the_steps_report_as_every_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
