/*
** float_accuracy.c — what single precision costs a model, measured. Compiled
** once per model and precision, with STEP, STEP_UPPER, STEP_HEADER (the
** model in the precision measured) and REF, REF_HEADER (it in double):
**   rhs error: NAME_rhs in STEP's precision against REF's in double, at
**     random states near the spec's initial one (both at the same point, the
**     state and parameters rounded to STEP's real first), as
**     max_i |f_i - f_ref,i| / max_i |f_ref,i|: its median and maximum;
**   drift: the largest |phi|, |phi'|, |g| over a run of T_END at H, by
**     NAME_step (RK4 and the correction, metric identity) and by the same
**     RK4 on NAME_rhs alone (the spec's Baumgarte gains, no correction).
** Prints one line: name precision median max corrected uncorrected, each a
** number or '-' (tests/embed/accuracy_table.py makes the README's table).
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include REF_HEADER
#include STEP_HEADER

#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define S(name) XCAT(STEP, name)
#define SU(name) XCAT(STEP_UPPER, name)
#define R(name) XCAT(REF, name)
#define STR(x) #x
#define XSTR(x) STR(x)

typedef S(_real) real;

enum { NX = SU(_NX), STATES = 1000 };
#define H 1e-3
#define T_END 200.0

static real param[SU(_NP_ARRAY)], input[SU(_NU_ARRAY)];

static double uniform(uint64_t *seed)
{
    *seed = *seed * 6364136223846793005u + 1442695040888963407u;
    return (double)(*seed >> 11) / 9007199254740992.0;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median and maximum of the rhs's relative error; 0 states evaluated when all fail. */
static int rhs_error(double *median, double *max)
{
    static double errors[STATES];
    double p[SU(_NP_ARRAY)], u[SU(_NU_ARRAY)], x[NX], f[NX], work[SU(_NWORK)];
    real xs[NX], fs[NX], works[SU(_NWORK)];
    uint64_t seed = 12345;
    int n = 0;
    for (int i = 0; i < SU(_NP); i++)
        p[i] = (double)param[i];
    for (int i = 0; i < SU(_NU); i++)
        u[i] = (double)input[i];
    for (int k = 0; k < STATES; k++) {
        for (int i = 0; i < NX; i++) {
            const double x0 = R(_initial_state)[i];
            xs[i] = (real)(x0 + 0.2 * (2 * uniform(&seed) - 1) * (1 + fabs(x0)));
            x[i] = (double)xs[i];
        }
        if (R(_rhs)(0, x, u, p, SU(_ALPHA), SU(_BETA), f, NULL, work) != 0
            || S(_rhs)(0, xs, input, param, SU(_ALPHA), SU(_BETA), fs, NULL, works) != 0)
            continue;
        double diff = 0, size = 0;
        for (int i = 0; i < NX; i++) {
            diff = fmax(diff, fabs((double)fs[i] - f[i]));
            size = fmax(size, fabs(f[i]));
        }
        errors[n++] = size > 0 ? diff / size : diff;
    }
    qsort(errors, (size_t)n, sizeof *errors, by_value);
    *median = n ? errors[n / 2] : 0;
    *max = n ? errors[n - 1] : 0;
    return n;
}

/* The largest constraint residual at x. */
static double residual(double t, const real x[])
{
    real phi[SU(_NH_ARRAY)], phi_dot[SU(_NH_ARRAY)], g[SU(_NN_ARRAY)];
    double r = 0;
    S(_residuals)((real)t, x, param, phi, phi_dot, g);
    for (int i = 0; i < SU(_NH); i++)
        r = fmax(r, fmax(fabs((double)phi[i]), fabs((double)phi_dot[i])));
    for (int i = 0; i < SU(_NN); i++)
        r = fmax(r, fabs((double)g[i]));
    return r;
}

/* RK4 on the rhs alone, the step's sums without its correction. */
static int plain_rk4(real t, real x[], real h, real work[])
{
    static real k[NX], x0[NX], xt[NX];
    static const real c[3] = {0.5, 0.5, 1}, w[4] = {(real)(1.0 / 6), (real)(1.0 / 3), (real)(1.0 / 3),
                                                    (real)(1.0 / 6)};
    for (int i = 0; i < NX; i++)
        x0[i] = x[i];
    if (S(_rhs)(t, x0, input, param, SU(_ALPHA), SU(_BETA), k, NULL, work) != 0)
        return 1;
    for (int i = 0; i < NX; i++)
        x[i] = x0[i] + h * w[0] * k[i];
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < NX; i++)
            xt[i] = x0[i] + c[j] * h * k[i];
        if (S(_rhs)(t + c[j] * h, xt, input, param, SU(_ALPHA), SU(_BETA), k, NULL, work) != 0)
            return 1;
        for (int i = 0; i < NX; i++)
            x[i] += h * w[j + 1] * k[i];
    }
    return 0;
}

/* The largest residual over the run; -1 when a step failed. */
static double drift(int corrected)
{
    static real x[NX], work[SU(_NWORK_STEP)];
    const long steps = (long)(T_END / H + 0.5);
    double worst = 0;
    for (int i = 0; i < NX; i++)
        x[i] = (real)R(_initial_state)[i];
    for (long n = 0; n < steps; n++) {
        const real t = (real)((double)n * H);
        const int rc = corrected ? S(_step)(t, x, input, param, SU(_ALPHA), SU(_BETA), (real)H, 0, work)
                                 : plain_rk4(t, x, (real)H, work);
        if (rc != 0)
            return -1;
        worst = fmax(worst, residual((double)(n + 1) * H, x));
    }
    return worst;
}

static void print_number(double v)
{
    if (v < 0)
        printf(" failed");
    else
        printf(" %.2g", v);
}

int main(void)
{
    double median = 0, max = 0;
#if SU(_NP) > 0
    for (int i = 0; i < SU(_NP); i++)
        param[i] = (real)R(_param_defaults)[i];
#endif
#if SU(_NU) > 0
    for (int i = 0; i < SU(_NU); i++)
        input[i] = (real)R(_input_defaults)[i];
#endif
    const int single = sizeof(real) == sizeof(float);
    printf("%s %s", XSTR(REF), single ? "float" : "double");
    if (single && rhs_error(&median, &max) > 0) {
        print_number(median);
        print_number(max);
    } else {
        printf(" - -");
    }
    if (SU(_NC) > 0) {
        print_number(drift(1));
        print_number(drift(0));
    } else {
        printf(" - -");
    }
    printf("\n");
    return 0;
}
