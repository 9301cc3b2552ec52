/*
** fuzz_runs.c — libFuzzer target: any bytes as a sweep's runs table
** (runs_table.c), each of their lines as a --vary value (vary.c), drawn
** from, and the bytes as a journal of results (sweep_results.c).
** A rejection must say where (a line and column inside the text) and what;
** a table read must hold whole rows of finite numbers; a draw must be
** finite; a result taken from a journal must be a whole line of the
** index of its run, inside the input. Anything else, or a crash, a leak or a read past the input, is a
** finding.
*/
#define _GNU_SOURCE     /* memmem */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangec/status.h"
#include "programs.h"

/* A mistake's position lies in the text: line 1..lines, column 1..the line's length + 1. */
static void check_position(const char *text, size_t size, const lgc_input_error *e)
{
    int lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += text[i] == '\n';
    if (e->col < 1 || e->line < 0 || e->line > lines || e->message[0] == '\0'
        || (e->line == 0 && (size_t)e->col > size + 1))
        abort();
}

static void table(const char *text, size_t size)
{
    lgc_table t;
    lgc_input_error e;
    memset(&e, 0, sizeof e);
    const int rc = lgc_table_read(text, size, &t, &e);
    if (rc == LGC_ERR_ARG)
        check_position(text, size, &e);
    if (rc != LGC_OK)
        return;
    if (t.ncolumns < 1 || t.nrows < 1)
        abort();
    for (size_t i = 0; i < t.nrows * (size_t)t.ncolumns; i++)
        if (!isfinite(t.values[i]))
            abort();
    for (int j = 0; j < t.ncolumns; j++)
        if (t.names[j][0] == '\0' || t.name_col[j] < 1)
            abort();
    lgc_table_free(&t);
}

static void vary(const char *line, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return;
    memcpy(text, line, size);
    text[size] = '\0';
    lgc_vary v;
    lgc_input_error e;
    memset(&e, 0, sizeof e);
    const int rc = lgc_vary_read(text, &v, &e);
    if (rc == LGC_OK) {
        for (unsigned long run = 1; run <= 4; run++)
            if (!isfinite(lgc_vary_draw(&v, run * 0x9E3779B97F4A7C15ull, run)))
                abort();
        lgc_vary_free(&v);
    } else if (rc == LGC_ERR_ARG) {
        check_position(text, strlen(text), &e);
    }
    free(text);
}

static void journal(const char *text, size_t size)
{
    lgc_results r;
    if (lgc_results_init(&r, 1000) != LGC_OK) {
        lgc_results_free(&r);
        return;
    }
    lgc_results_take_journal(&r, text, size);
    for (unsigned long k = 1; k <= r.nruns; k++) {
        if (!lgc_results_has(&r, k))
            continue;
        const char *line = r.text.s + r.at[k];
        char head[24];
        const int n = snprintf(head, sizeof head, "%lu,", k);
        if (r.len[k] > size || line[r.len[k] - 1] != '\n' || strncmp(line, head, (size_t)n) != 0
            || !memmem(text, size, line, r.len[k]))
            abort();
    }
    lgc_results_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    table(text, size);
    journal(text, size);
    for (size_t start = 0; start < size;) {
        const char *nl = memchr(text + start, '\n', size - start);
        const size_t end = nl ? (size_t)(nl - text) : size;
        vary(text + start, end - start);
        start = end + 1;
    }
    return 0;
}
