/*
** fuzz_runs.c — libFuzzer target: any bytes as a sweep's runs table
** (runs_table.c), each of their lines as a --vary value (vary.c), drawn
** from, and the bytes as a journal of results (sweep_results.c), read
** from a file of the fuzzer's own directory.
** A rejection must say where (a line and column inside the text) and what;
** a table read must hold whole rows of finite numbers; a draw must be
** finite; a result taken from a journal must be a whole line of the
** index of its run, inside the input. Anything else, or a crash, a leak or a read past the input, is a
** finding.
*/
#define _GNU_SOURCE     /* memmem */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static char journal_path[] = "/tmp/lagrangec-fuzz-XXXXXX";

static void remove_journal_dir(void)
{
    char path[sizeof journal_path + 16];
    snprintf(path, sizeof path, "%s/run/x.journal", journal_path);
    unlink(path);
    snprintf(path, sizeof path, "%s/run", journal_path);
    rmdir(path);
    rmdir(journal_path);
}

/* A directory of the fuzzer's own, made once (removed at exit): DIR/run/x.journal holds each input in turn. */
static void journal_dir(int *dir_fd, int *run_fd)
{
    static int dir = -1, run = -1;
    if (dir < 0) {
        if (!mkdtemp(journal_path) || atexit(remove_journal_dir) != 0
            || (dir = open(journal_path, O_RDONLY | O_DIRECTORY)) < 0 || mkdirat(dir, "run", 0700) != 0
            || (run = openat(dir, "run", O_RDONLY | O_DIRECTORY)) < 0)
            abort();
    }
    *dir_fd = dir;
    *run_fd = run;
}

static void journal(const char *text, size_t size)
{
    int dir, run;
    journal_dir(&dir, &run);
    int fd = openat(run, "x.journal", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || lgc_write_all(fd, text, size) != 0)
        abort();
    close(fd);
    lgc_cursor *c;
    if (lgc_cursor_open(&c, dir, run, 1000) != LGC_OK) {
        lgc_cursor_close(c);
        return;
    }
    unsigned long last = 0;
    lgc_result r;
    for (; lgc_cursor_get(c, &r); lgc_cursor_next(c)) {
        char head[24];
        const int n = snprintf(head, sizeof head, "%lu,", r.run);
        if (r.run <= last || r.run > 1000 || r.len > size || r.line[r.len - 1] != '\n'
            || strncmp(r.line, head, (size_t)n) != 0 || !memmem(text, size, r.line, r.len))
            abort();
        last = r.run;
    }
    lgc_cursor_close(c);
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
