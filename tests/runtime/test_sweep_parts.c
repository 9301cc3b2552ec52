/*
** test_sweep_parts.c — the parts of `lagrangec sweep` that need no run:
** Philox4x32-10 against Random123's known answers, the draws as documented
** (a function of seed, run and name alone; Box–Muller; the ranges), the
** runs-table reader's rows and its mistakes' positions, the --vary reader,
** CSV fields, the statistics of an index (summary.csv).
** (tests/cli/test_sweep_cli.cpp runs whole sweeps.)
*/
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "check.h"
#include "lagrangec/status.h"
#include "programs.h"

/* Random123's kat_vectors, philox4x32 10: counter, key, the block's output. */
static void philox_gives_the_known_answers(void **state)
{
    (void)state;
    static const struct {
        uint32_t ctr[4], key[2], out[4];
    } kat[] = {
        {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
        {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
         {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
        {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
         {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
    };
    for (size_t k = 0; k < sizeof kat / sizeof kat[0]; k++) {
        uint32_t out[4];
        lgc_philox4x32_10(kat[k].ctr, kat[k].key, out);
        for (int i = 0; i < 4; i++)
            check(out[i] == kat[k].out[i], "vector %zu word %d: %08x, expected %08x", k, i,
                  (unsigned)out[i], (unsigned)kat[k].out[i]);
    }
}

static lgc_vary vary(const char *text)
{
    lgc_vary v;
    lgc_input_error e;
    int rc = lgc_vary_read(text, &v, &e);
    check(rc == LGC_OK, "'%s': %s (column %d)", text, e.message, e.col);
    return v;
}

/*
** Each draw is the documented transform of the run's own two uniforms,
** which come from (seed, run, the name's FNV-1a) and nothing else: the same
** whatever was drawn before, and another for another seed, run or name.
*/
static void draws_are_the_documented_transforms(void **state)
{
    (void)state;
    lgc_vary n = vary("m=normal(2,0.5)"), u = vary("m=uniform(-1, 3)"), l = vary("m=lognormal(0,0.25)");
    const uint64_t stream = lgc_fnv1a(LGC_FNV1A_START, "m", 1);
    check(n.stream == stream, "stream %016llx, expected %016llx", (unsigned long long)n.stream,
          (unsigned long long)stream);
    for (unsigned long run = 1; run <= 50; run++) {
        double w[2];
        lgc_uniform_pair(7, run, stream, w);
        check(w[0] > 0.0 && w[0] < 1.0 && w[1] > 0.0 && w[1] < 1.0, "run %lu: u = %g, %g", run, w[0],
              w[1]);
        const double z = sqrt(-2.0 * log(w[0])) * cos(6.283185307179586477 * w[1]);
        assert_eq(lgc_vary_draw(&n, 7, run), 2.0 + 0.5 * z);
        assert_eq(lgc_vary_draw(&u, 7, run), -1.0 * (1.0 - w[0]) + 3.0 * w[0]);
        assert_eq(lgc_vary_draw(&l, 7, run), exp(0.25 * z));
    }
    /* Seed, run and name each change the draw; drawing others in between changes nothing. */
    lgc_vary other = vary("l=normal(2,0.5)");
    const double first = lgc_vary_draw(&n, 7, 3);
    check(lgc_vary_draw(&n, 8, 3) != first, "seed 8 drew run 3's value of seed 7: %g", first);
    check(lgc_vary_draw(&n, 7, 4) != first, "run 4 drew run 3's value: %g", first);
    check(lgc_vary_draw(&other, 7, 3) != first, "name l drew name m's value: %g", first);
    for (unsigned long run = 1; run < 1000; run++)
        lgc_vary_draw(&other, 7, run);
    assert_eq(lgc_vary_draw(&n, 7, 3), first);
    lgc_vary_free(&n);
    lgc_vary_free(&u);
    lgc_vary_free(&l);
    lgc_vary_free(&other);
}

/* 100000 runs' draws have the distributions' moments (to 4 standard errors) and ranges. */
static void draws_have_their_distributions(void **state)
{
    (void)state;
    lgc_vary n = vary("x=normal(1,2)"), u = vary("x=uniform(3,5)");
    const int runs = 100000;
    double sum = 0.0, sum2 = 0.0, usum = 0.0, umin = 5.0, umax = 3.0;
    for (int run = 1; run <= runs; run++) {
        const double x = lgc_vary_draw(&n, 11, (unsigned long)run), y = lgc_vary_draw(&u, 11, (unsigned long)run);
        sum += x;
        sum2 += (x - 1.0) * (x - 1.0);
        usum += y;
        umin = fmin(umin, y);
        umax = fmax(umax, y);
    }
    const double mean = sum / runs, var = sum2 / runs, umean = usum / runs;
    check(fabs(mean - 1.0) < 4.0 * 2.0 / sqrt(runs), "normal(1,2): mean %.6g", mean);
    /* var of the sample variance of a normal: 2 sigma^4 / n */
    check(fabs(var - 4.0) < 4.0 * sqrt(2.0 * 16.0 / runs), "normal(1,2): variance %.6g", var);
    check(fabs(umean - 4.0) < 4.0 * (2.0 / sqrt(12.0)) / sqrt(runs), "uniform(3,5): mean %.6g", umean);
    check(umin > 3.0 && umax < 5.0 && umin < 3.001 && umax > 4.999, "uniform(3,5): from %.9g to %.9g",
          umin, umax);
    lgc_vary_free(&n);
    lgc_vary_free(&u);
}

static void assert_vary_error(const char *text, int col, const char *message)
{
    lgc_vary v;
    lgc_input_error e;
    int rc = lgc_vary_read(text, &v, &e);
    check(rc == LGC_ERR_ARG, "'%s' was read", text);
    check(e.col == col && strcmp(e.message, message) == 0, "'%s': column %d '%s', expected %d '%s'",
          text, e.col, e.message, col, message);
}

static void vary_mistakes_have_their_column(void **state)
{
    (void)state;
    assert_vary_error("m", 2, "expected NAME=normal(MU,SIGMA), NAME=uniform(A,B) or NAME=lognormal(MU,SIGMA)");
    assert_vary_error("=normal(1,2)", 1, "expected a name before '='");
    assert_vary_error("m=gauss(1,2)", 3, "unknown distribution 'gauss': normal, uniform or lognormal");
    assert_vary_error("m=normal", 9, "expected '(' after normal");
    assert_vary_error("m=normal(1,2", 13, "expected ')'");
    assert_vary_error("m=normal(1)", 11, "expected ',' and a second number");
    assert_vary_error("m=normal(a,2)", 10, "'a' is not a finite number");
    assert_vary_error("m=normal(1, inf)", 13, "'inf' is not a finite number");
    assert_vary_error("m=normal(,2)", 10, "expected a number");
    assert_vary_error("m=normal(1,2) x", 15, "unexpected text after ')'");
    assert_vary_error("m=normal(1,-2)", 12, "SIGMA must not be negative");
    assert_vary_error("m=uniform(2,1)", 13, "B must not be less than A in uniform(A,B)");
    assert_vary_error("m=lognormal(700,2)", 17,
                      "lognormal(MU,SIGMA) would overflow: MU + 8.7 SIGMA must stay below 709.783");
    assert_vary_error("m=normal(1e308,1e308)", 16,
                      "normal(MU,SIGMA) would overflow: |MU| + 8.7 SIGMA must stay below "
                      "1.79769e+308");
    lgc_vary v = vary(" m=uniform( 1 ,2 )");
    check(strcmp(v.name, " m") == 0 && v.a == 1.0 && v.b == 2.0, "'%s' %g %g", v.name, v.a, v.b);
    lgc_vary_free(&v);
}

static lgc_table table(const char *text)
{
    lgc_table t;
    lgc_input_error e;
    int rc = lgc_table_read(text, strlen(text), &t, &e);
    check(rc == LGC_OK, "%d:%d: %s", e.line, e.col, e.message);
    return t;
}

static void tables_are_read_row_by_row(void **state)
{
    (void)state;
    lgc_table t = table("\xEF\xBB\xBF# comment\r\n\r\n m , \"x'\" ,x_dot\r\n1,2,3\r\n  # another\n\n-1e-3 ,\"4\", 0x10\n");
    assert_int_equal(t.ncolumns, 3);
    assert_string_equal(t.names[0], "m");
    assert_string_equal(t.names[1], "x'");
    assert_string_equal(t.names[2], "x_dot");
    assert_int_equal(t.header_line, 3);
    assert_int_equal(t.name_col[1], 6);
    assert_int_equal(t.nrows, 2);
    const double expected[] = {1, 2, 3, -1e-3, 4, 16};
    for (int i = 0; i < 6; i++)
        assert_eq(t.values[i], expected[i]);
    lgc_table_free(&t);
    t = table("a \"\"b\"\"\n1");   /* no final newline; a quote inside an unquoted field is text */
    assert_string_equal(t.names[0], "a \"\"b\"\"");
    lgc_table_free(&t);
    t = table("\"a,\"\"b\"\"\"\n1");
    assert_string_equal(t.names[0], "a,\"b\"");
    lgc_table_free(&t);
}

/* A subnormal is a number like any other: the smallest double, and one just below DBL_MIN. */
static void subnormal_values_are_numbers(void **state)
{
    (void)state;
    lgc_table t = table("m,l\n4.9e-324,-2e-310\n");
    check(t.values[0] == 4.9e-324 && t.values[1] == -2e-310, "read %.17g and %.17g", t.values[0], t.values[1]);
    lgc_table_free(&t);
}

static void assert_table_error(const char *text, size_t size, int line, int col, const char *message)
{
    lgc_table t;
    lgc_input_error e;
    int rc = lgc_table_read(text, size, &t, &e);
    check(rc == LGC_ERR_ARG, "'%s' was read", text);
    check(e.line == line && e.col == col && strcmp(e.message, message) == 0,
          "'%s': %d:%d '%s', expected %d:%d '%s'", text, e.line, e.col, e.message, line, col, message);
    assert_null(t.names);
}

#define TABLE_ERROR(text, line, col, message) assert_table_error(text, sizeof text - 1, line, col, message)

static void table_mistakes_have_their_line_and_column(void **state)
{
    (void)state;
    TABLE_ERROR("", 1, 1, "an empty table: the first line names the columns");
    TABLE_ERROR("# only a comment\n\n", 2, 1, "an empty table: the first line names the columns");
    TABLE_ERROR("m,l\n", 1, 4, "no runs: no row follows the header");
    TABLE_ERROR("m,,l\n1,2,3\n", 1, 3, "column 2 has no name");
    TABLE_ERROR("m,l,m\n1,2,3\n", 1, 5, "column 'm' is named twice (columns 1 and 3)");
    TABLE_ERROR("m,l\n1,x\n", 2, 3, "'x' in column 'l' is not a finite number");
    TABLE_ERROR("m,l\n1,nan\n", 2, 3, "'nan' in column 'l' is not a finite number");
    TABLE_ERROR("m,l\n1,1e999\n", 2, 3, "'1e999' in column 'l' is not a finite number");
    TABLE_ERROR("m,l\n1, \n", 2, 4, "no value for column 'l'");
    TABLE_ERROR("m,l\n1\n", 2, 2, "1 value, and the header names 2 columns (the next is 'l')");
    TABLE_ERROR("m,l\n1,2,\n", 2, 5, "more values than the header's 2 columns");
    TABLE_ERROR("m\n\"1\n", 2, 1, "a quoted field that does not end on its line");
    TABLE_ERROR("m\n\"1\" 2\n", 2, 5, "unexpected text after a quoted field");
    TABLE_ERROR("m\n1\n\xc3\xa9,\n", 3, 1, "'\xc3\xa9' in column 'm' is not a finite number");
    TABLE_ERROR("\xc3\xa9\xc3\xa9,,l\n1,2,3\n", 1, 4, "column 2 has no name");
    TABLE_ERROR("m\n1\n2\0\n", 3, 2, "a NUL byte: this is not a text file");
}

static void csv_fields_are_quoted_when_they_must(void **state)
{
    (void)state;
    lgc_text t = {0};
    lgc_text_clear(&t);
    lgc_text_csv_field(&t, "plain x'");
    lgc_text_add(&t, "|", 1);
    lgc_text_csv_field(&t, "a, \"b\"");
    lgc_text_add(&t, "|", 1);
    lgc_text_number(&t, -0.0);
    lgc_text_add(&t, "|", 1);
    lgc_text_number(&t, 0.1);
    assert_string_equal(t.s, "plain x'|\"a, \"\"b\"\"\"|0|0.10000000000000001");
    lgc_text_free(&t);
}

/* |got - want| within 4 ulps of want's size, both printed. */
static void assert_close(const char *what, double got, double want)
{
    check(fabs(got - want) <= 4 * DBL_EPSILON * fmax(1.0, fabs(want)), "%s: %.17g, expected %.17g", what,
          got, want);
}

/*
** The statistics of an index's numeric columns against values worked by
** hand: over the ok runs with a value (run 2 has none of "m,1"), the failed
** run counted in failures only; sd with n - 1; quantiles of type 7, at
** h = (n - 1) p of the sorted values.
*/
static void sweep_statistics_are_the_hand_computed_ones(void **state)
{
    (void)state;
    static const char *const lines[] = {
        "1,ok,1,10,,\n", "2,ok,2,,,\n", "3,fault,5,7,0.5,\"step failed, h = 1e-14\"\n",
        "4,ok,3,30,,\n", "5,ok,4,20,,\n",
    };
    lgc_stats_table t;
    assert_eq(lgc_stats_begin(&t, "run,status,a,\"m,1\",fault t,fault"), LGC_OK);
    for (size_t k = 0; k < sizeof lines / sizeof lines[0]; k++)
        lgc_stats_add(&t, lines[k], strlen(lines[k]));
    lgc_stats_finish(&t);
    assert_eq(t.ncols, 2);
    assert_eq(t.runs, 5);
    assert_eq(t.failures, 1);
    check(strcmp(t.col[0].name, "a") == 0 && strcmp(t.col[1].name, "m,1") == 0, "columns '%s', '%s'",
          t.col[0].name, t.col[1].name);
    /* a: 1, 2, 3, 4; h = 3p */
    const double a[] = {1, 1.15, 1.75, 2.5, 3.25, 3.85, 4};
    assert_eq(t.col[0].count, 4);
    assert_close("mean a", t.col[0].mean, 2.5);
    assert_close("sd a", t.col[0].sd, sqrt(5.0 / 3.0));
    /* m,1: 10, 30, 20 sorted to 10, 20, 30; h = 2p */
    const double m[] = {10, 11, 15, 20, 25, 29, 30};
    assert_eq(t.col[1].count, 3);
    assert_close("mean m,1", t.col[1].mean, 20);
    assert_close("sd m,1", t.col[1].sd, 10);
    for (int k = 0; k < LGC_STATS_NQUANTILES; k++) {
        char what[32];
        snprintf(what, sizeof what, "quantile %g of a", lgc_stats_quantiles[k]);
        assert_close(what, t.col[0].q[k], a[k]);
        snprintf(what, sizeof what, "quantile %g of m,1", lgc_stats_quantiles[k]);
        assert_close(what, t.col[1].q[k], m[k]);
    }

    /* Written: a row per column, the name quoted where it must be; a column of one value has no sd. */
    char dir[] = "/tmp/lgc-stats-XXXXXX";
    check(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
    const int fd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_eq(lgc_stats_write(&t, dir, fd), LGC_OK);
    char buf[1024] = "";
    const int csv = openat(fd, LGC_SWEEP_SUMMARY_CSV, O_RDONLY);
    const ssize_t n = csv >= 0 ? read(csv, buf, sizeof buf - 1) : -1;
    check(n > 0, "%s/%s: %s", dir, LGC_SWEEP_SUMMARY_CSV, strerror(errno));
    check(strncmp(buf, "column,count,failures,mean,sd,min,q05,q25,median,q75,q95,max\na,4,1,2.5,", 71) == 0
              && strstr(buf, "\n\"m,1\",3,1,20,10,10,11,15,20,25,29,30\n"),
          "summary.csv:\n%s", buf);
    close(csv);
    lgc_stats_free(&t);
    assert_eq(lgc_stats_begin(&t, "run,status,a,fault t,fault"), LGC_OK);
    lgc_stats_add(&t, "1,ok,7,,\n", 9);
    lgc_stats_finish(&t);
    check(t.col[0].count == 1 && isnan(t.col[0].sd) && t.col[0].q[3] == 7, "one value: count %zu, sd %g, median %g",
          t.col[0].count, t.col[0].sd, t.col[0].q[3]);
    lgc_stats_free(&t);
    unlinkat(fd, LGC_SWEEP_SUMMARY_CSV, 0);
    unlinkat(fd, LGC_SWEEP_SUMMARY_JSON, 0);
    close(fd);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(philox_gives_the_known_answers),
        cmocka_unit_test(draws_are_the_documented_transforms),
        cmocka_unit_test(draws_have_their_distributions),
        cmocka_unit_test(vary_mistakes_have_their_column),
        cmocka_unit_test(tables_are_read_row_by_row),
        cmocka_unit_test(subnormal_values_are_numbers),
        cmocka_unit_test(table_mistakes_have_their_line_and_column),
        cmocka_unit_test(csv_fields_are_quoted_when_they_must),
        cmocka_unit_test(sweep_statistics_are_the_hand_computed_ones),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
