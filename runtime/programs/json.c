/*
** json.c — a small JSON writer: members one per line, arrays (and what is
** in them) on one line;
** strings escaped, and a number that is not finite written as null, so the
** output is always JSON.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "programs.h"

static void write_string(lgc_json *j, const char *s)
{
    fputc('"', j->out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(j->out, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(j->out, "\\u%04x", c);
        else
            fputc(c, j->out);
    }
    fputc('"', j->out);
}

void lgc_json_open(lgc_json *j, FILE *out)
{
    memset(j, 0, sizeof *j);    /* keyed too: the first value reads it */
    j->out = out;
    lgc_json_begin(j, '{');
}

void lgc_json_close(lgc_json *j)
{
    lgc_json_end(j);
    fputc('\n', j->out);
}

/* Members of objects go one per line, unless inside an array: inline there. */
static int one_per_line(const lgc_json *j, int level)
{
    for (int i = 0; i <= level; i++)
        if (j->closer[i] == ']')
            return 0;
    return 1;
}

/* The separator before a value or member at the current depth. */
static void separate(lgc_json *j)
{
    if (j->depth == 0)
        return;
    const int level = j->depth - 1;
    if (j->count[level]++ > 0)
        fputc(',', j->out);
    if (one_per_line(j, level))
        fprintf(j->out, "\n%*s", 2 * j->depth, "");
    else if (j->count[level] > 1)
        fputc(' ', j->out);
}

void lgc_json_key(lgc_json *j, const char *key)
{
    separate(j);
    write_string(j, key);
    fputs(": ", j->out);
    j->keyed = 1;
}

/* A value: after a key, in place; in an array, after its separator. */
static void value(lgc_json *j)
{
    if (!j->keyed)
        separate(j);
    j->keyed = 0;
}

void lgc_json_begin(lgc_json *j, char bracket)
{
    value(j);
    fputc(bracket, j->out);
    j->closer[j->depth] = bracket == '{' ? '}' : ']';
    j->count[j->depth] = 0;
    j->depth++;
}

void lgc_json_end(lgc_json *j)
{
    j->depth--;
    if (one_per_line(j, j->depth) && j->count[j->depth] > 0)
        fprintf(j->out, "\n%*s", 2 * j->depth, "");
    fputc(j->closer[j->depth], j->out);
}

void lgc_json_number(lgc_json *j, double v)
{
    value(j);
    if (isfinite(v))
        fprintf(j->out, "%.17g", v + 0.0);  /* + 0.0: no "-0" */
    else
        fputs("null", j->out);
}

void lgc_json_count(lgc_json *j, unsigned long n)
{
    value(j);
    fprintf(j->out, "%lu", n);
}

void lgc_json_bool(lgc_json *j, int b)
{
    value(j);
    fputs(b ? "true" : "false", j->out);
}

void lgc_json_null(lgc_json *j)
{
    value(j);
    fputs("null", j->out);
}

void lgc_json_string(lgc_json *j, const char *s)
{
    value(j);
    if (s)
        write_string(j, s);
    else
        fputs("null", j->out);
}
