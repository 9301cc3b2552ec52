/*
** bench_rhs.c — times bench_call (one rhs evaluation, from an adapter).
**   bench_rhs ns        median ns per call over 5 runs of about 0.1 s each
**   bench_rhs calls K   K calls and nothing else, for
**                       valgrind --tool=callgrind --toggle-collect=bench_call
**   bench_rhs value     one call, then the last entry of dx/dt, to check
**                       that both sides compute the same thing
*/
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_call.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Seconds for k calls; a failed solve would make the numbers meaningless. */
static double run(long k)
{
    double t0 = now();
    long i;
    for (i = 0; i < k; ++i)
        if (bench_call() != 0) {
            fprintf(stderr, "bench_rhs: the rhs reported a singular system\n");
            exit(1);
        }
    return now() - t0;
}

int main(int argc, char **argv)
{
    bench_setup();
    if (argc == 3 && strcmp(argv[1], "calls") == 0) {
        run(atol(argv[2]));
    } else if (argc == 2 && strcmp(argv[1], "value") == 0) {
        run(1);
        printf("%.17g\n", bench_result());
    } else if (argc == 2 && strcmp(argv[1], "ns") == 0) {
        double ns[5];
        long k = 1;
        int r;
        while (run(k) < 0.02) k *= 2; /* also warms the caches */
        k *= 5;
        for (r = 0; r < 5; ++r) ns[r] = 1e9 * run(k) / k;
        qsort(ns, 5, sizeof ns[0], cmp);
        printf("%.1f\n", ns[2]);
    } else {
        fprintf(stderr, "usage: bench_rhs ns | calls K | value\n");
        return 2;
    }
    return bench_result() != bench_result(); /* 1 on NaN */
}
