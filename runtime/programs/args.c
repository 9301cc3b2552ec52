/* args.c — reading a command line against its command's option table. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "programs.h"

int lgc_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("lagrangec: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return LGC_EXIT_USAGE;
}

int lgc_parse_number(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    /* A subnormal (4.9e-324) is a number: strtod's ERANGE for it is no overflow. */
    const int range = errno == 0 || (errno == ERANGE && *v != 0.0 && fabs(*v) < DBL_MIN);
    return end != s && *end == '\0' && range && isfinite(*v);
}

void lgc_list_names(const char *what, const char *const *names, int n)
{
    fprintf(stderr, "  known %s:", what);
    if (n == 0)
        fputs(" (none)", stderr);
    for (int i = 0; i < n; i++)
        fprintf(stderr, "%s %s", i > 0 ? "," : "", names[i]);
    fputc('\n', stderr);
}

void lgc_args_init(lgc_args *a, const lgc_command *cmd, int argc, char **argv)
{
    a->cmd = cmd;
    a->argc = argc;
    a->argv = argv;
    a->k = 1;
}

int lgc_args_next(lgc_args *a, int *option, const char **value)
{
    if (a->k >= a->argc)
        return 0;
    const char *o = a->argv[a->k++];
    int i = lgc_command_option(a->cmd, o);
    if (i < 0)
        return lgc_usage_error("unknown option '%s' (see --help)", o);
    const lgc_option *opt = lgc_command_entry(a->cmd, i);
    *option = i;
    *value = NULL;
    if (opt->kind == LGC_OPTION_FLAG)
        return 1;
    if (a->k >= a->argc)
        return lgc_usage_error("%s needs a value", o);
    *value = a->argv[a->k++];
    if (opt->kind == LGC_OPTION_FRONT)
        return lgc_usage_error("%s chooses the model lagrangec generates: give it to "
                               "'lagrangec %s'", o, a->cmd->name);
    /* A path the system would refuse or cut short is refused here, whole. */
    if (opt->kind == LGC_OPTION_OUTPUT && strlen(*value) >= PATH_MAX)
        return lgc_usage_error("%s: the path is longer than PATH_MAX (%d bytes)", o, PATH_MAX);
    if (opt->kind == LGC_OPTION_OUTPUT && **value == '\0')
        return lgc_usage_error("%s needs a file name", o);
    return 1;
}

int lgc_text_column(const char *start, const char *p)
{
    int col = 1;
    for (const char *c = start; c < p; c++)
        col += ((unsigned char)*c & 0xC0) != 0x80;
    return col;
}

void lgc_input_error_print(const char *where, const char *text, size_t size,
                           const lgc_input_error *e)
{
    const char *line = text, *end = text + size;
    if (e->line > 0)
        fprintf(stderr, "%s:%d:%d: error: ", where, e->line, e->col);
    else
        fprintf(stderr, "%s:%d: error: ", where, e->col);
    /* The message quotes the input's text: no control character either. */
    for (const char *c = e->message; *c; c++)
        fputc((unsigned char)*c < 0x20 && *c != '\t' ? '?' : *c, stderr);
    fputc('\n', stderr);
    for (int n = 1; n < e->line && line < end; n++) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        line = nl ? nl + 1 : end;
    }
    const char *stop = line;
    while (stop < end && *stop != '\n' && *stop != '\r')
        stop++;
    if (e->col <= 0 || stop - line > 200 || memchr(line, '\0', (size_t)(stop - line)))
        return;
    /* The line with no control character (an escape could drive the terminal)... */
    fputs("  ", stderr);
    for (const char *c = line; c < stop; c++)
        fputc((unsigned char)*c < 0x20 && *c != '\t' ? '?' : *c, stderr);
    /* ...and the caret under the column, counted in characters; tabs stay tabs. */
    fputs("\n  ", stderr);
    int col = 1;
    for (const char *c = line; c < stop && col < e->col; c++)
        if (((unsigned char)*c & 0xC0) != 0x80) {
            fputc(*c == '\t' ? '\t' : ' ', stderr);
            col++;
        }
    fputs("^\n", stderr);
}
