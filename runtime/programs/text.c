/*
** text.c — a growing string for the lines and files a sweep writes: reused
** from run to run, it stops allocating once it has held the longest.
*/
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "programs.h"

/* Room for `more` bytes and a NUL after len: 1, or 0 (and t->failed) without memory. */
static int reserve(lgc_text *t, size_t more)
{
    if (t->failed)
        return 0;
    if (t->len + more < t->cap)
        return 1;
    size_t cap = t->cap ? t->cap : 256;
    while (cap <= t->len + more)
        cap *= 2;
    char *s = realloc(t->s, cap);
    if (!s) {
        t->failed = 1;
        return 0;
    }
    t->s = s;
    t->cap = cap;
    return 1;
}

void lgc_text_clear(lgc_text *t)
{
    t->len = 0;
    t->failed = 0;
    if (reserve(t, 0))
        t->s[0] = '\0';
}

void lgc_text_free(lgc_text *t)
{
    free(t->s);
    memset(t, 0, sizeof *t);
}

void lgc_text_add(lgc_text *t, const char *s, size_t n)
{
    if (!reserve(t, n))
        return;
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

/*
** Formatted into the room after len: one pass where it fits (a number's
** %.17g is most of an index line's cost), a second only after growing.
*/
void lgc_text_printf(lgc_text *t, const char *fmt, ...)
{
    if (!reserve(t, 0))
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->s[t->len] = '\0';
        return;
    }
    if ((size_t)n >= t->cap - t->len) {
        if (!reserve(t, (size_t)n)) {
            t->s[t->len] = '\0';
            return;
        }
        va_start(ap, fmt);
        vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    t->len += (size_t)n;
}

void lgc_text_number(lgc_text *t, double v)
{
    lgc_text_printf(t, "%.17g", v + 0.0);   /* + 0.0: no "-0" */
}

void lgc_text_csv_field(lgc_text *t, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        lgc_text_add(t, s, strlen(s));
        return;
    }
    lgc_text_add(t, "\"", 1);
    for (const char *q; (q = strchr(s, '"')); s = q + 1) {
        lgc_text_add(t, s, (size_t)(q - s));
        lgc_text_add(t, "\"\"", 2);
    }
    lgc_text_add(t, s, strlen(s));
    lgc_text_add(t, "\"", 1);
}

int lgc_write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = ENOSPC;
            return -1;
        }
        s += w;
        n -= (size_t)w;
    }
    return 0;
}
