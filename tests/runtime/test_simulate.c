/*
** test_simulate.c — the `lagrangec simulate` program: exit codes, the CSV it
** writes, options reaching the model.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "knife_edge.h"
#include "lagrangec/model.h"
#include "lagrangec/simulate.h"
#include "pendulum.h"
#include "rank_lost.h"

#define RUN(model, ...) \
    run(model, (char *[]){"simulate", __VA_ARGS__, NULL})

static int run(const lgc_model *m, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    return lgc_simulate_main(m, argc, argv);
}

static void unknown_names_exit_2(void **state)
{
    (void)state;
    assert_int_equal(RUN(&pendulum_model, "--param", "mass=2"), 2);
    assert_int_equal(RUN(&pendulum_model, "--init", "z'=1"), 2);
    assert_int_equal(RUN(&pendulum_model, "--method", "euler"), 2);
    assert_int_equal(RUN(&pendulum_model, "--frobnicate"), 2);
    assert_int_equal(RUN(&pendulum_model, "--baumgarte", "1"), 2);
}

static void writes_csv(void **state)
{
    (void)state;
    const char *path = "test_simulate_out.csv";
    assert_int_equal(RUN(&knife_edge_model, "--t-end", "1", "--dt", "1e-3",
                         "--sample", "0.25", "--project", "velocity", "--init",
                         "x'=2", "--param", "l=0.5", "--out", (char *)path, "--quiet"),
                     0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "t,x,y,phi,x',y',phi',g1,energy,mu1,Fc_x,Fc_y,Fc_phi\n");
    int rows = 0;
    double t = -1, x = 0, y, phi, vx = 0;
    while (fgets(line, sizeof line, f)) {
        assert_true(sscanf(line, "%lf,%lf,%lf,%lf,%lf", &t, &x, &y, &phi, &vx) == 5);
        if (rows++ == 0)
            assert_true(vx == 2.0);
    }
    fclose(f);
    assert_int_equal(rows, 5);
    assert_true(t == 1.0);
    remove(path);
}

/* --plot runs gnuplot and leaves a PNG (no --out: the CSV is a temporary). */
static void plots_png(void **state)
{
    (void)state;
    const char *png = "test_simulate_plot.png";
    remove(png);
    assert_int_equal(RUN(&pendulum_model, "--t-end", "2", "--project", "full",
                         "--plot", (char *)png, "--quiet"), 0);
    FILE *f = fopen(png, "rb");
    assert_non_null(f);
    unsigned char magic[8] = {0};
    assert_int_equal(fread(magic, 1, 8, f), 8);
    fclose(f);
    assert_memory_equal(magic, "\x89PNG\r\n\x1a\n", 8);
    remove(png);
}

/* A fault ends the run with status 1 and a message, keeping whole CSV lines. */
static void fault_exits_1(void **state)
{
    (void)state;
    assert_int_equal(RUN(&rank_lost_model, "--t-end", "1", "--dt", "1e-3", "--out",
                         "test_simulate_fault.csv"), 1);
    FILE *f = fopen("test_simulate_fault.csv", "r");
    assert_non_null(f);
    int c, last = '\n';
    while ((c = fgetc(f)) != EOF)
        last = c;
    fclose(f);
    assert_int_equal(last, '\n');
    remove("test_simulate_fault.csv");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unknown_names_exit_2),
        cmocka_unit_test(writes_csv),
        cmocka_unit_test(plots_png),
        cmocka_unit_test(fault_exits_1),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
