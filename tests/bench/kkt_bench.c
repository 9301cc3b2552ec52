/*
** kkt_bench.c — one generated model's rhs (its own KKT solve, straight-line or
** dense loops) against the runtime's LAPACK path (runtime/src/kkt_lapack.c);
** compile with -DMODEL=NAME_model and link NAME.c, NAME_model.c, liblagrangec.
**   kkt_bench generated|lapack|terms ns        median ns per call over 5 runs
**   kkt_bench generated|lapack|terms calls K   K calls, for callgrind --toggle-collect=call_once
**   kkt_bench check                            largest relative difference of dxdt
** `terms` is kkt_terms alone, which both paths call first: a path's solve
** costs its time minus that.
*/
#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kkt_lapack.h"
#include "lagrangec/model.h"

extern const lgc_model MODEL;
static const lgc_model *m = &MODEL;
static double *x, *dxdt, *mult, *work, *kkt, *M, *J, *r;
static enum { GENERATED, LAPACK, TERMS } path;

/* Not static, so callgrind can toggle on it by name. */
int call_once(void);
int call_once(void)
{
    switch (path) {
    case GENERATED:
        return m->rhs(0.0, x, m->input_defaults, m->parameter_defaults, m->alpha, m->beta, dxdt,
                      mult, work);
    case LAPACK:
        return lgc_kkt_lapack_rhs(m, kkt, 0.0, x, m->input_defaults, m->parameter_defaults,
                                  m->alpha, m->beta, NULL, NULL, dxdt, mult);
    default:
        m->kkt_terms(0.0, x, m->input_defaults, m->parameter_defaults, m->alpha, m->beta, M,
                     dxdt + m->nq, J, r, dxdt + 2 * m->nq);
        return 0;
    }
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double run(long k)
{
    double t0 = now();
    for (long i = 0; i < k; ++i)
        if (call_once() != 0) {
            fprintf(stderr, "kkt_bench: singular system\n");
            exit(1);
        }
    return now() - t0;
}

static int cmp(const void *a, const void *b)
{
    double u = *(const double *)a, v = *(const double *)b;
    return (u > v) - (u < v);
}

static double *doubles(size_t n) { return calloc(n + 1, sizeof(double)); }

int main(int argc, char **argv)
{
    const size_t nq = m->nq, nc = m->nh + m->nn;
    x = doubles(m->nx);
    memcpy(x, m->initial_state, m->nx * sizeof *x);
    for (size_t i = 0; i < nq; ++i) x[nq + i] = 0.1 * (i % 3) - 0.1; /* some motion */
    dxdt = doubles(m->nx);
    mult = doubles(nc);
    work = doubles(m->nwork);
    kkt = doubles(lgc_kkt_lapack_size(m));
    M = doubles(nq * nq);
    J = doubles(nc * nq);
    r = doubles(nc);
    if (argc == 2 && strcmp(argv[1], "check") == 0) {
        double *gen = doubles(m->nx), d = 0.0, scale = 0.0;
        run(1);
        memcpy(gen, dxdt, m->nx * sizeof *gen);
        path = LAPACK;
        run(1);
        for (int i = 0; i < m->nx; ++i) {
            d = fmax(d, fabs(dxdt[i] - gen[i]));
            scale = fmax(scale, fabs(gen[i]));
        }
        printf("%.3g\n", d / scale);
        return !(d <= 1e-9 * scale);
    }
    const char *paths[] = {"generated", "lapack", "terms"};
    int p = 0;
    while (argc >= 3 && p < 3 && strcmp(argv[1], paths[p]) != 0) ++p;
    if (argc < 3 || p == 3) {
        fprintf(stderr, "usage: kkt_bench generated|lapack|terms ns | calls K | check\n");
        return 2;
    }
    path = p;
    if (strcmp(argv[2], "calls") == 0 && argc == 4) {
        run(atol(argv[3]));
    } else {
        double ns[5];
        long k = 1;
        while (run(k) < 0.02) k *= 2;
        k *= 2;
        for (int i = 0; i < 5; ++i) ns[i] = 1e9 * run(k) / k;
        qsort(ns, 5, sizeof ns[0], cmp);
        printf("%.1f\n", ns[2]);
    }
    return 0;
}
