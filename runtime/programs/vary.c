/*
** vary.c — `--vary NAME=DIST(A,B)`: reading it, with the column of any
** mistake, and drawing run k's value from (seed, k, NAME) alone
** (random.c). normal(MU,SIGMA) is MU + SIGMA z with z from Box–Muller on
** the run's two uniforms, z = sqrt(-2 ln u1) cos(2 pi u2); lognormal(MU,SIGMA)
** is exp(MU + SIGMA z); uniform(A,B) is A (1 - u1) + B u1.
*/
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangec/status.h"
#include "programs.h"

/*
** The largest |z| Box–Muller can give: u1 >= 2^-54 (random.c), so
** |z| <= sqrt(2 * 54 ln 2) = 8.65. Bounds on MU and SIGMA against it keep
** every value finite.
*/
#define Z_MAX 8.7
#define TWO_PI 6.283185307179586477

static const char *const distributions[] = {[LGC_NORMAL] = "normal", [LGC_UNIFORM] = "uniform",
                                            [LGC_LOGNORMAL] = "lognormal"};

static int error_at(lgc_input_error *e, const char *text, const char *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    e->line = 0;
    e->col = lgc_text_column(text, at);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    return LGC_ERR_ARG;
}

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* A number from s up to (not including) one of `ends`, blanks around it allowed; *next after it. */
static int number(const char *text, const char *s, const char *ends, double *v, const char **next,
                  lgc_input_error *e)
{
    s = skip_blanks(s);
    const char *end = s + strcspn(s, ends);
    if (*end == '\0')
        return error_at(e, text, end, "expected '%c'", ends[0] == ',' ? ',' : ')');
    const char *last = end;
    while (last > s && (last[-1] == ' ' || last[-1] == '\t'))
        last--;
    char buf[64];
    if (last == s || (size_t)(last - s) >= sizeof buf)
        return error_at(e, text, s, "expected a number");
    memcpy(buf, s, (size_t)(last - s));
    buf[last - s] = '\0';
    if (!lgc_parse_number(buf, v))
        return error_at(e, text, s, "'%s' is not a finite number", buf);
    *next = end;
    return LGC_OK;
}

/*
** vary := NAME '=' DIST '(' NUMBER ',' NUMBER ')'
** DIST := 'normal' | 'uniform' | 'lognormal'
*/
int lgc_vary_read(const char *text, lgc_vary *v, lgc_input_error *e)
{
    memset(v, 0, sizeof *v);
    const char *eq = strchr(text, '=');
    if (!eq)
        return error_at(e, text, text + strlen(text), "expected NAME=normal(MU,SIGMA), "
                                                       "NAME=uniform(A,B) or NAME=lognormal(MU,SIGMA)");
    if (eq == text)
        return error_at(e, text, text, "expected a name before '='");
    const char *open = strchr(eq, '(');
    const size_t dist_len = open ? (size_t)(open - eq - 1) : strlen(eq + 1);
    int dist = -1;
    for (int i = 0; i < 3; i++)
        if (strlen(distributions[i]) == dist_len && strncmp(eq + 1, distributions[i], dist_len) == 0)
            dist = i;
    if (dist < 0)
        return error_at(e, text, eq + 1, "unknown distribution '%.*s': normal, uniform or lognormal",
                        (int)(dist_len < 40 ? dist_len : 40), eq + 1);
    if (!open)
        return error_at(e, text, eq + 1 + dist_len, "expected '(' after %s", distributions[dist]);
    const char *s, *b_at = NULL;
    int rc = number(text, open + 1, ",)", &v->a, &s, e);
    if (rc == LGC_OK && *s != ',')
        rc = error_at(e, text, s, "expected ',' and a second number");
    if (rc == LGC_OK) {
        b_at = skip_blanks(s + 1);
        rc = number(text, s + 1, ")", &v->b, &s, e);
    }
    if (rc != LGC_OK)
        return rc;
    if (*skip_blanks(s + 1) != '\0')
        return error_at(e, text, skip_blanks(s + 1), "unexpected text after ')'");
    v->dist = (lgc_distribution)dist;
    if (dist == LGC_UNIFORM && v->b < v->a)
        return error_at(e, text, b_at, "B must not be less than A in uniform(A,B)");
    if (dist != LGC_UNIFORM && v->b < 0.0)
        return error_at(e, text, b_at, "SIGMA must not be negative");
    if (dist == LGC_NORMAL && !(fabs(v->a) + Z_MAX * v->b <= DBL_MAX))
        return error_at(e, text, b_at, "normal(MU,SIGMA) would overflow: |MU| + %g SIGMA must "
                                       "stay below %g", Z_MAX, DBL_MAX);
    if (dist == LGC_LOGNORMAL && !(v->a + Z_MAX * v->b < log(DBL_MAX)))
        return error_at(e, text, b_at, "lognormal(MU,SIGMA) would overflow: MU + %g SIGMA must "
                                       "stay below %.6g", Z_MAX, log(DBL_MAX));
    if (!(v->name = malloc((size_t)(eq - text) + 1))) {
        snprintf(e->message, sizeof e->message, "%s", lgc_strerror(LGC_ERR_NOMEM));
        return LGC_ERR_NOMEM;
    }
    memcpy(v->name, text, (size_t)(eq - text));
    v->name[eq - text] = '\0';
    v->stream = lgc_fnv1a(LGC_FNV1A_START, v->name, strlen(v->name));
    return LGC_OK;
}

void lgc_vary_free(lgc_vary *v)
{
    free(v->name);
    v->name = NULL;
}

double lgc_vary_draw(const lgc_vary *v, uint64_t seed, unsigned long run)
{
    double u[2];
    lgc_uniform_pair(seed, run, v->stream, u);
    if (v->dist == LGC_UNIFORM)
        return v->a * (1.0 - u[0]) + v->b * u[0];
    const double z = sqrt(-2.0 * log(u[0])) * cos(TWO_PI * u[1]);
    return v->dist == LGC_NORMAL ? v->a + v->b * z : exp(v->a + v->b * z);
}

void lgc_vary_describe(const lgc_vary *v, char *buf, size_t size)
{
    snprintf(buf, size, "%s=%s(%.17g,%.17g)", v->name, distributions[v->dist], v->a, v->b);
}
