/*
** sweep_stats.c — the statistics of a sweep's results, gathered line by
** line as the index is streamed (sweep_dir.c) and written beside it:
** DIR/summary.csv and DIR/summary.json.
**
** A column of the summary is every numeric column of the index: those
** after run and status up to, not including, fault t and fault (which only
** a failed run fills). Its statistics are over the runs that ended ok and
** have a finite value there: count, mean and standard deviation (n - 1 in
** the denominator) by Welford's updates, and the quantiles, which need the
** values: one double per ok run per column is held, sorted at the end.
** failures is the number of runs that faulted, the same for every column.
** A quantile p is Hyndman and Fan's type 7 (R's default, numpy's "linear"):
** with the n values sorted, x[h] interpolated linearly at h = (n - 1) p.
*/
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lagrangec/status.h"
#include "programs.h"

const double lgc_stats_quantiles[LGC_STATS_NQUANTILES] = {0.0, 0.05, 0.25, 0.5, 0.75, 0.95, 1.0};
static const char *const quantile_names[LGC_STATS_NQUANTILES] = {"min", "q05", "q25", "median",
                                                                 "q75", "q95", "max"};

/* Columns of the index before the summary's and after them. */
#define LEADING 2   /* run, status */
#define TRAILING 2  /* fault t, fault */

/* The next CSV field of s[*at..len) (RFC 4180), unquoted into f; *at past it (SIZE_MAX after the last). 0 at the end. */
static int next_field(const char *s, size_t len, size_t *at, lgc_text *f)
{
    lgc_text_clear(f);
    lgc_text_add(f, "", 0);
    if (*at == SIZE_MAX)
        return 0;
    int quoted = 0;
    for (size_t i = *at; i < len; i++) {
        if (s[i] == '"' && quoted && i + 1 < len && s[i + 1] == '"') {
            lgc_text_add(f, s + i++, 1);
        } else if (s[i] == '"') {
            quoted = !quoted;
        } else if (s[i] == ',' && !quoted) {
            *at = i + 1;
            return 1;
        } else if ((s[i] == '\n' || s[i] == '\r') && !quoted) {
            break;
        } else {
            lgc_text_add(f, s + i, 1);
        }
    }
    *at = SIZE_MAX;
    return 1;
}

int lgc_stats_begin(lgc_stats_table *t, const char *header)
{
    memset(t, 0, sizeof *t);
    lgc_text f = {0};
    const size_t len = strlen(header);
    int total = 0;
    for (size_t at = 0; next_field(header, len, &at, &f);)
        total++;
    t->ncols = total > LEADING + TRAILING ? total - LEADING - TRAILING : 0;
    t->col = calloc((size_t)t->ncols + 1, sizeof *t->col);
    int k = 0;
    for (size_t at = 0; t->col && next_field(header, len, &at, &f); k++)
        if (k >= LEADING && k < LEADING + t->ncols && !(t->col[k - LEADING].name = strdup(f.s)))
            t->failed = 1;
    t->failed |= !t->col || f.failed;
    lgc_text_free(&f);
    return t->failed ? LGC_ERR_NOMEM : LGC_OK;
}

/* v into c: Welford's update of mean and m2, and the value kept for the quantiles. */
static int add_value(lgc_column_stats *c, double v)
{
    if (c->count == c->cap) {
        const size_t cap = c->cap ? 2 * c->cap : 64;
        double *more = realloc(c->values, cap * sizeof *more);
        if (!more)
            return -1;
        c->values = more;
        c->cap = cap;
    }
    c->values[c->count++] = v;
    const double d = v - c->mean;
    c->mean += d / (double)c->count;
    c->m2 += d * (v - c->mean);
    return 0;
}

void lgc_stats_add(lgc_stats_table *t, const char *line, size_t len)
{
    lgc_text f = {0};
    size_t at = 0;
    t->runs++;
    for (int k = 0; !t->failed && k < LEADING + t->ncols && next_field(line, len, &at, &f); k++) {
        if (k == 1 && strcmp(f.s, "ok") != 0) {
            t->failures++;
            break;
        }
        char *end = NULL;
        const double v = k >= LEADING && f.len > 0 ? strtod(f.s, &end) : NAN;
        if (isfinite(v) && *end == '\0' && add_value(&t->col[k - LEADING], v) != 0)
            t->failed = 1;
    }
    t->failed |= f.failed;
    lgc_text_free(&f);
}

static int ascending(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double lgc_stats_quantile(const double sorted[], size_t n, double p)
{
    if (n == 0)
        return NAN;
    const double h = (double)(n - 1) * p;
    const size_t lo = (size_t)floor(h);
    return lo + 1 < n ? sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]) : sorted[n - 1];
}

void lgc_stats_finish(lgc_stats_table *t)
{
    for (int j = 0; j < t->ncols; j++) {
        lgc_column_stats *c = &t->col[j];
        if (c->count > 0)    /* no values may mean no array: qsort takes none */
            qsort(c->values, c->count, sizeof *c->values, ascending);
        c->sd = c->count > 1 ? sqrt(c->m2 / (double)(c->count - 1)) : NAN;
        if (c->count == 0)
            c->mean = NAN;
        for (int k = 0; k < LGC_STATS_NQUANTILES; k++)
            c->q[k] = lgc_stats_quantile(c->values, c->count, lgc_stats_quantiles[k]);
    }
}

void lgc_stats_free(lgc_stats_table *t)
{
    for (int j = 0; t->col && j < t->ncols; j++) {
        free(t->col[j].name);
        free(t->col[j].values);
    }
    free(t->col);
    memset(t, 0, sizeof *t);
}

/* A number of the summary: empty (CSV) where there is none. */
static void csv_number(lgc_text *s, double v)
{
    lgc_text_add(s, ",", 1);
    if (isfinite(v))
        lgc_text_number(s, v);
}

static void write_csv(const lgc_stats_table *t, lgc_text *s)
{
    lgc_text_add(s, "column,count,failures,mean,sd", 29);
    for (int k = 0; k < LGC_STATS_NQUANTILES; k++)
        lgc_text_printf(s, ",%s", quantile_names[k]);
    lgc_text_add(s, "\n", 1);
    for (int j = 0; j < t->ncols; j++) {
        const lgc_column_stats *c = &t->col[j];
        lgc_text_csv_field(s, c->name);
        lgc_text_printf(s, ",%zu,%lu", c->count, t->failures);
        csv_number(s, c->mean);
        csv_number(s, c->sd);
        for (int k = 0; k < LGC_STATS_NQUANTILES; k++)
            csv_number(s, c->q[k]);
        lgc_text_add(s, "\n", 1);
    }
}

static void write_json(const lgc_stats_table *t, FILE *out)
{
    lgc_json j;
    lgc_json_open(&j, out);
    lgc_json_key(&j, "runs");
    lgc_json_count(&j, t->runs);
    lgc_json_key(&j, "failures");
    lgc_json_count(&j, t->failures);
    lgc_json_key(&j, "over");
    lgc_json_string(&j, "the runs that ended ok, with a finite value in the column");
    lgc_json_key(&j, "sd");
    lgc_json_string(&j, "sample standard deviation (n - 1)");
    lgc_json_key(&j, "quantiles");
    lgc_json_string(&j, "Hyndman-Fan type 7: sorted x interpolated linearly at h = (n - 1) p");
    lgc_json_key(&j, "columns");
    lgc_json_begin(&j, '{');
    for (int c = 0; c < t->ncols; c++) {
        const lgc_column_stats *col = &t->col[c];
        lgc_json_key(&j, col->name);
        lgc_json_begin(&j, '{');
        lgc_json_key(&j, "count");
        lgc_json_count(&j, col->count);
        lgc_json_key(&j, "failures");
        lgc_json_count(&j, t->failures);
        lgc_json_key(&j, "mean");
        lgc_json_number(&j, col->mean);
        lgc_json_key(&j, "sd");
        lgc_json_number(&j, col->sd);
        for (int k = 0; k < LGC_STATS_NQUANTILES; k++) {
            lgc_json_key(&j, quantile_names[k]);
            lgc_json_number(&j, col->q[k]);
        }
        lgc_json_end(&j);
    }
    lgc_json_end(&j);
    lgc_json_close(&j);
}

/* name in dir, whole from text: LGC_OK, or a message and LGC_ERR_IO. */
static int write_file(const char *path, int dir, const char *name, const lgc_text *text)
{
    lgc_output o;
    int rc = text->failed ? (errno = ENOMEM, LGC_ERR_IO) : lgc_output_open_at(&o, dir, name);
    if (rc == LGC_OK && lgc_write_all(o.fd, text->s, text->len) != 0) {
        const int err = errno;
        lgc_output_discard(&o);
        errno = err;
        rc = LGC_ERR_IO;
    }
    if (rc == LGC_OK && (rc = lgc_output_commit(&o)) != LGC_OK)
        lgc_output_discard(&o);
    if (rc != LGC_OK)
        fprintf(stderr, "lagrangec: %s/%s: %s\n", path, name, strerror(errno));
    return rc;
}

int lgc_stats_write(const lgc_stats_table *t, const char *path, int dir)
{
    if (t->failed) {
        fprintf(stderr, "lagrangec: %s/%s: %s\n", path, LGC_SWEEP_SUMMARY_CSV, strerror(ENOMEM));
        return LGC_ERR_NOMEM;
    }
    lgc_text csv = {0}, json = {0};
    write_csv(t, &csv);
    char *buf = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&buf, &size);
    if (mem) {
        write_json(t, mem);
        if (fclose(mem) == 0)
            lgc_text_add(&json, buf, size);
        else
            json.failed = 1;
    } else {
        json.failed = 1;
    }
    free(buf);
    int rc = write_file(path, dir, LGC_SWEEP_SUMMARY_CSV, &csv);
    if (rc == LGC_OK)
        rc = write_file(path, dir, LGC_SWEEP_SUMMARY_JSON, &json);
    lgc_text_free(&csv);
    lgc_text_free(&json);
    return rc;
}
