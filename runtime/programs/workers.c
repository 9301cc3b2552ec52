/*
** workers.c — a sweep's runs over the processes of one machine: one
** process, or a pool of forked workers that each take the next run as they
** finish one (a counter in shared memory), so many runs share a process
** and its memory, and an uneven run holds up nobody. A worker killed
** mid-run loses that run only (it has no result, and the next sweep redoes
** it); another takes its place. Progress goes to a terminal.
*/
#define _GNU_SOURCE     /* prctl's PR_SET_PDEATHSIG */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "programs.h"

/* What the workers share. */
typedef struct shared {
    atomic_ulong next;          /* the next task to take */
    atomic_ulong done, failed;  /* tasks finished, and those that failed */
    atomic_ulong inner_us;      /* the microseconds the tasks measured of themselves */
    atomic_int stop;            /* a task could not be finished: take no more */
} shared;

/* The progress line on a terminal: when it started, when it was last drawn. */
typedef struct shown {
    double begin, last;
} shown;

/* "\r  done/n runs, F failed, R runs/s, M:SS left", at most 4 times a second; final: erased. */
static void progress(shared *sh, unsigned long n, shown *p, int final)
{
    const double t = lgc_now();
    if (!final && t - p->last < 0.25)
        return;
    p->last = t;
    const unsigned long done = atomic_load(&sh->done), failed = atomic_load(&sh->failed);
    const double rate = done > 0 ? (double)done / (t - p->begin) : 0.0;
    const unsigned long left = rate > 0.0 ? (unsigned long)((double)(n - done) / rate + 0.5) : 0;
    char eta[32] = "-:--";  /* no rate yet */
    if (rate > 0.0)
        snprintf(eta, sizeof eta, "%lu:%02lu", left / 60, left % 60);
    if (final)
        fputs("\r                                                                \r", stderr);
    else
        fprintf(stderr, "\r  %lu/%lu runs, %lu failed, %.1f runs/s, %s left   ", done, n, failed,
                rate, eta);
}

/* Takes tasks until there are none or one could not be finished; progress when p. */
static void work_on(shared *sh, unsigned long n, lgc_task work, void *ctx, shown *p)
{
    for (unsigned long i; !atomic_load(&sh->stop) && (i = atomic_fetch_add(&sh->next, 1)) < n;) {
        double inner = 0.0;
        const int rc = work(ctx, i, &inner);
        if (rc < 0) {
            atomic_store(&sh->stop, 1);
            break;
        }
        atomic_fetch_add(&sh->inner_us, (unsigned long)(inner * 1e6 + 0.5));
        atomic_fetch_add(&sh->failed, (unsigned long)rc);
        atomic_fetch_add(&sh->done, 1);
        if (p)
            progress(sh, n, p, 0);
    }
}

/* A worker: ends with its parent (a killed sweep leaves none behind). */
static pid_t start_worker(shared *sh, unsigned long n, lgc_task work, void *ctx, const sigset_t *mask)
{
    const pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    sigprocmask(SIG_SETMASK, mask, NULL);
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
        _exit(1);
    work_on(sh, n, work, ctx, NULL);
    fflush(NULL);
    _exit(atomic_load(&sh->stop) ? 1 : 0);
}

/* Waits for the workers, replacing any killed while tasks remain. */
static int supervise(shared *sh, unsigned long n, int jobs, lgc_task work, void *ctx, int show,
                     const sigset_t *mask)
{
    sigset_t child;
    sigemptyset(&child);
    sigaddset(&child, SIGCHLD);
    const struct timespec quarter = {0, 250000000};
    shown p = {lgc_now(), 0.0};
    int alive = jobs, rc = 0;
    while (alive > 0) {
        if (show)
            progress(sh, n, &p, 0);
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid == 0) {
            if (show)
                sigtimedwait(&child, NULL, &quarter);
            else
                sigwaitinfo(&child, NULL);
            continue;
        }
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        alive--;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
            continue;
        rc = -1;
        if (WIFSIGNALED(status)) {
            fprintf(stderr, "%slagrangec: a worker was killed by signal %d; its run has no result\n",
                    show ? "\n" : "", WTERMSIG(status));
            if (!atomic_load(&sh->stop) && atomic_load(&sh->next) < n
                && start_worker(sh, n, work, ctx, mask) > 0)
                alive++;
        }
    }
    if (show)
        progress(sh, n, &p, 1);
    return rc;
}

int lgc_pool_run(int jobs, unsigned long n, lgc_task work, void *ctx, int show, lgc_tally *tally)
{
    shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) {
        fprintf(stderr, "lagrangec: cannot share memory with workers: %s\n", strerror(errno));
        return -1;
    }
    atomic_init(&sh->next, 0);
    atomic_init(&sh->done, 0);
    atomic_init(&sh->failed, 0);
    atomic_init(&sh->inner_us, 0);
    atomic_init(&sh->stop, 0);
    int rc = 0;
    if (jobs <= 1) {
        /* This process alone, drawing its progress between runs. */
        shown p = {lgc_now(), 0.0};
        work_on(sh, n, work, ctx, show ? &p : NULL);
        if (show)
            progress(sh, n, &p, 1);
        rc = atomic_load(&sh->stop) ? -1 : 0;
    } else {
        /* SIGCHLD held, so that a worker's end wakes the wait for it. */
        sigset_t child, old;
        sigemptyset(&child);
        sigaddset(&child, SIGCHLD);
        sigprocmask(SIG_BLOCK, &child, &old);
        int started = 0;
        for (; started < jobs; started++)
            if (start_worker(sh, n, work, ctx, &old) < 0) {
                fprintf(stderr, "lagrangec: cannot start a worker: %s\n", strerror(errno));
                atomic_store(&sh->stop, 1);
                break;
            }
        rc = supervise(sh, n, started, work, ctx, show, &old);
        if (started < jobs)
            rc = -1;
        sigprocmask(SIG_SETMASK, &old, NULL);
    }
    tally->done = atomic_load(&sh->done);
    tally->failed = atomic_load(&sh->failed);
    tally->inner_us = atomic_load(&sh->inner_us);
    munmap(sh, sizeof *sh);
    return rc;
}
