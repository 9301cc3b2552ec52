/*
** test_csv.c — the CSV writer: column names that no coordinate can take,
** and whole lines only when the file cannot grow (a file size limit stands
** in for a full disk: write() stops short there the same way).
*/
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include "check.h"
#include "column_names.h"
#include "lagrangec/csv.h"
#include "lagrangec/status.h"
#include "bicycle.h"
#include "pendulum.h"

/* Coordinates phi1, g1, energy, Fc_x, x, Fc, phi: every column still has its own name. */
static void column_names_are_unique(void **state)
{
    (void)state;
    const lgc_model *m = &column_names_model;
    const int n = lgc_csv_columns(m);
    char names[64][32];
    assert_int_equal(n, 28);
    for (int j = 0; j < n; j++) {
        lgc_csv_column_name(m, j, names[j], sizeof names[j]);
        for (int k = 0; k < j; k++)
            check(strcmp(names[j], names[k]) != 0, "columns %d and %d are both '%s'", k, j, names[j]);
    }
    assert_string_equal(names[lgc_csv_column_phi(m)], "phi[1]");
    assert_string_equal(names[lgc_csv_column_phi_dot(m)], "phi[1]'");
    assert_string_equal(names[lgc_csv_column_g(m)], "g[1]");
    assert_string_equal(names[lgc_csv_column_energy(m)], "T+V");
    assert_string_equal(names[lgc_csv_column_multipliers(m)], "lambda[1]");
    assert_string_equal(names[lgc_csv_column_multipliers(m) + 1], "mu[1]");
    assert_string_equal(names[lgc_csv_column_force(m) + 3], "Fc[Fc_x]");
}

/* A rolling wheel's rows are named after it; the front wheel's contact row is the only holonomic one. */
static void wheel_rows_are_named_after_the_wheel(void **state)
{
    (void)state;
    const lgc_model *m = &bicycle_model;
    static const char *const expected[] = {"phi[front]", "phi[front]'", "g[rear.x]", "g[rear.y]", "g[front.x]",
                                           "g[front.y]", "T+V", "lambda[front]", "mu[rear.x]", "mu[rear.y]",
                                           "mu[front.x]", "mu[front.y]"};
    char name[32];
    for (int i = 0; i < 12; i++) {
        lgc_csv_column_name(m, lgc_csv_column_phi(m) + i, name, sizeof name);
        assert_string_equal(name, expected[i]);
    }
}

/* The pendulum's sample with every field a 17-digit number. */
static lgc_sample long_sample(double x[4], double res[2], double mult[1], double fc[2])
{
    for (int i = 0; i < 4; i++)
        x[i] = -1.2345678901234567e-100 * (i + 1);
    res[0] = res[1] = mult[0] = fc[0] = fc[1] = -9.8765432109876543e-200;
    lgc_sample s = {0.12345678901234567, x, res, res + 1, res + 2, mult, fc, -3.3333333333333333, NULL, NULL};
    return s;
}

/* Rows into a file that may not grow past a limit mid-row: whole lines stay. */
static void a_short_write_leaves_whole_lines(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    lgc_csv *csv = lgc_csv_open(fileno(f), &pendulum_model);
    assert_non_null(csv);
    assert_int_equal(lgc_csv_header(csv), LGC_OK);
    double x[4], res[2], mult[1], fc[2];
    lgc_sample s = long_sample(x, res, mult, fc);
    /* The limit cuts the 5th row; past it write() stops short, then fails (EFBIG). */
    const off_t header = lseek(fileno(f), 0, SEEK_CUR);
    assert_int_equal(lgc_csv_row(csv, &s), LGC_OK);
    const off_t row = lseek(fileno(f), 0, SEEK_CUR) - header;
    struct rlimit old, small = {(rlim_t)(header + 4 * row + row / 2), 0};
    getrlimit(RLIMIT_FSIZE, &old);
    small.rlim_max = old.rlim_max;
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    int rows = 1, rc;
    while ((rc = lgc_csv_row(csv, &s)) == LGC_OK)
        rows++;
    int err = errno;
    setrlimit(RLIMIT_FSIZE, &old);
    lgc_csv_free(csv);
    assert_int_equal(rc, LGC_ERR_IO);
    check(err == EFBIG, "errno %d (%s), not EFBIG", err, strerror(err));
    assert_int_equal(rows, 4);
    /* The file: the header and 4 whole rows, each with every column. */
    rewind(f);
    char line[4096];
    int lines = 0;
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line), commas = 0;
        check(len > 0 && line[len - 1] == '\n', "line %d is cut: '%s'", lines + 1, line);
        for (size_t i = 0; i < len; i++)
            commas += line[i] == ',';
        assert_int_equal(commas + 1, lgc_csv_columns(&pendulum_model));
        lines++;
    }
    assert_int_equal(lines, 5);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(column_names_are_unique),
        cmocka_unit_test(wheel_rows_are_named_after_the_wheel),
        cmocka_unit_test(a_short_write_leaves_whole_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
