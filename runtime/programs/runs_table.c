/*
** runs_table.c — RUNS.csv, a sweep's table of runs: a header naming the
** columns, then one run per row of numbers. Read whole before anything
** runs; a mistake gets its line and column (in characters) and the
** column's name. Lines may end in CRLF, a UTF-8 byte-order mark may open
** the file, blank lines and lines starting with '#' are skipped, and a
** field may be quoted as RFC 4180 quotes ("a ""b""") on one line.
*/
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangec/status.h"
#include "programs.h"

/* A line being read: its text, number and where the next field starts. */
typedef struct line {
    const char *start, *end;    /* end: at '\n', '\r\n' or the end of the text */
    int number;
} line;

/* A field of a line, unquoted, and the column it starts at. */
typedef struct field {
    char *text;
    size_t len, cap;
    int col;
} field;

/* Column of p on its line, in characters. */
static int column(const line *l, const char *p)
{
    return lgc_text_column(l->start, p);
}

/* The mistake at column col of line l. */
static int error_at(lgc_input_error *e, const line *l, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    e->line = l->number;
    e->col = col;
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    return LGC_ERR_ARG;
}

static int no_memory(lgc_input_error *e)
{
    e->line = e->col = 0;
    snprintf(e->message, sizeof e->message, "%s", lgc_strerror(LGC_ERR_NOMEM));
    return LGC_ERR_NOMEM;
}

/* One more character; f->text stays a string. */
static int append(field *f, char c)
{
    if (f->len + 1 >= f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 64;
        char *text = realloc(f->text, cap);
        if (!text)
            return 0;
        f->text = text;
        f->cap = cap;
    }
    f->text[f->len++] = c;
    f->text[f->len] = '\0';
    return 1;
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/*
** field := blanks ( '"' ( [^"] | '""' )* '"' | [^,]* ) blanks
** The field at *p into f (blanks around an unquoted one dropped); *p
** moves to the ',' after it or to the line's end.
*/
static int read_field(const line *l, const char **p, field *f, lgc_input_error *e)
{
    const char *s = skip_blanks(*p, l->end);
    f->len = 0;
    f->text[0] = '\0';
    f->col = column(l, s);
    if (s < l->end && *s == '"') {
        for (s++;; s++) {
            if (s == l->end)
                return error_at(e, l, f->col, "a quoted field that does not end on its line");
            if (*s == '"' && !(s + 1 < l->end && s[1] == '"'))
                break;
            if (*s == '"')
                s++;
            if (!append(f, *s))
                return no_memory(e);
        }
        s = skip_blanks(s + 1, l->end);
        if (s < l->end && *s != ',')
            return error_at(e, l, column(l, s), "unexpected text after a quoted field");
    } else {
        const char *stop = s;
        while (stop < l->end && *stop != ',')
            stop++;
        const char *last = stop;
        while (last > s && (last[-1] == ' ' || last[-1] == '\t'))
            last--;
        for (; s < last; s++)
            if (!append(f, *s))
                return no_memory(e);
        s = stop;
    }
    *p = s;
    return LGC_OK;
}

/* The next line from *at (and *number), skipping blank and '#' lines: 1, or 0 at the end. */
static int next_line(const char **at, const char *text_end, int *number, line *l)
{
    while (*at < text_end) {
        const char *start = *at, *nl = memchr(start, '\n', (size_t)(text_end - start));
        const char *end = nl ? nl : text_end;
        *at = nl ? nl + 1 : text_end;
        ++*number;
        if (end > start && end[-1] == '\r')
            end--;
        const char *first = skip_blanks(start, end);
        if (first == end || *first == '#')
            continue;
        l->start = start;
        l->end = end;
        l->number = *number;
        return 1;
    }
    return 0;
}

static int read_header(const line *l, lgc_table *t, field *f, lgc_input_error *e)
{
    const char *p = l->start;
    for (;;) {
        int rc = read_field(l, &p, f, e);
        if (rc != LGC_OK)
            return rc;
        if (f->len == 0)
            return error_at(e, l, f->col, "column %d has no name", t->ncolumns + 1);
        for (int j = 0; j < t->ncolumns; j++)
            if (strcmp(t->names[j], f->text) == 0)
                return error_at(e, l, f->col, "column '%s' is named twice (columns %d and %d)",
                                f->text, j + 1, t->ncolumns + 1);
        char **names = realloc(t->names, (size_t)(t->ncolumns + 1) * sizeof *names);
        int *cols = names ? realloc(t->name_col, (size_t)(t->ncolumns + 1) * sizeof *cols) : NULL;
        if (names)
            t->names = names;
        if (cols)
            t->name_col = cols;
        if (!names || !cols || !(t->names[t->ncolumns] = strdup(f->text)))
            return no_memory(e);
        t->name_col[t->ncolumns++] = f->col;
        if (p == l->end)
            break;
        p++;    /* the ',' */
    }
    t->header_line = l->number;
    return LGC_OK;
}

static int read_row(const line *l, lgc_table *t, field *f, size_t *cap, lgc_input_error *e)
{
    const size_t n = (size_t)t->ncolumns;
    if (t->nrows == *cap) {
        size_t rows = *cap ? 2 * *cap : 64;
        double *v = rows <= SIZE_MAX / sizeof *v / n ? realloc(t->values, rows * n * sizeof *v) : NULL;
        if (!v)
            return no_memory(e);
        t->values = v;
        *cap = rows;
    }
    double *row = t->values + t->nrows * n;
    const char *p = l->start;
    for (size_t j = 0;; j++) {
        if (j == n)
            return error_at(e, l, column(l, p), "more values than the header's %zu columns", n);
        int rc = read_field(l, &p, f, e);
        if (rc != LGC_OK)
            return rc;
        const char *name = t->names[j];
        if (f->len == 0)
            return error_at(e, l, f->col, "no value for column '%s'", name);
        if (!lgc_parse_number(f->text, &row[j]))
            return error_at(e, l, f->col, "'%.40s%s' in column '%s' is not a finite number",
                            f->text, f->len > 40 ? "..." : "", name);
        if (p == l->end) {
            if (j + 1 < n)
                return error_at(e, l, column(l, p), "%zu value%s, and the header names %zu "
                                                    "columns (the next is '%s')", j + 1,
                                j > 0 ? "s" : "", n, t->names[j + 1]);
            break;
        }
        p++;    /* the ',' */
    }
    t->nrows++;
    return LGC_OK;
}

int lgc_table_read(const char *text, size_t size, lgc_table *t, lgc_input_error *e)
{
    memset(t, 0, sizeof *t);
    const char *at = text, *end = text + size;
    const char *nul = memchr(text, '\0', size);
    if (size >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        at += 3;
    int number = 0;
    line l = {text, end, 1};
    field f = {malloc(64), 0, 64, 0};
    size_t cap = 0;
    int rc = LGC_OK;
    if (!f.text) {
        rc = no_memory(e);
    } else if (nul) {
        /* A NUL byte is no text: say where it is and read no further. */
        for (const char *p = text; p < nul; p++)
            if (*p == '\n')
                l.start = p + 1, l.number++;
        rc = error_at(e, &l, column(&l, nul), "a NUL byte: this is not a text file");
    } else if (!next_line(&at, end, &number, &l)) {
        l.number = number > 0 ? number : 1;
        rc = error_at(e, &l, 1, "an empty table: the first line names the columns");
    } else {
        rc = read_header(&l, t, &f, e);
        const line header = l;
        while (rc == LGC_OK && next_line(&at, end, &number, &l))
            rc = read_row(&l, t, &f, &cap, e);
        if (rc == LGC_OK && t->nrows == 0)
            rc = error_at(e, &header, column(&header, header.end), "no runs: no row follows the header");
    }
    free(f.text);
    if (rc != LGC_OK)
        lgc_table_free(t);
    return rc;
}

void lgc_table_free(lgc_table *t)
{
    for (int j = 0; j < t->ncolumns; j++)
        free(t->names[j]);
    free(t->names);
    free(t->name_col);
    free(t->values);
    memset(t, 0, sizeof *t);
}
