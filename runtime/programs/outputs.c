/*
** outputs.c — files a run writes whole: a temporary beside the target,
** renamed over it at the end; temporaries removed on every exit path, the
** signals that end a run included. A temporary's name, .NAME.PID-N, is
** this process's own, so many processes (a sweep's workers) can write
** beside each other. A target that is not a regular file (/dev/null, a
** pipe) is written in place: it has nothing to lose, and must not become one.
*/
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lagrangec/status.h"
#include "programs.h"

/* The temporaries a signal must remove: few (the PNG, the summary; a run's trajectory). */
#define MAX_TEMPS 4
/* A slot is one lock-free store, so a handler sees an output whole or not at all. */
static _Atomic(const lgc_output *) temps[MAX_TEMPS];
static const int ending_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void remove_temps_and_die(int sig)
{
    for (int i = 0; i < MAX_TEMPS; i++) {
        const lgc_output *o = atomic_load(&temps[i]);
        if (o)
            unlinkat(o->dir, o->temp, 0);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The process's id, asked once per process (a fork asks again): a temporary's name has it. */
static pid_t pid;

static void forget_pid(void)
{
    pid = 0;
}

static pid_t own_pid(void)
{
    static int registered;
    if (!registered)
        registered = pthread_atfork(NULL, NULL, forget_pid) == 0;
    if (pid == 0 || !registered)
        pid = getpid();
    return pid;
}

/* Adds (or, with remove, drops) o in the list; the handlers installed at the first. */
static int track(const lgc_output *o, int remove)
{
    static int installed;
    if (!installed && !remove) {
        for (size_t i = 0; i < sizeof ending_signals / sizeof ending_signals[0]; i++) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = remove_temps_and_die;
            sigfillset(&sa.sa_mask);
            sigaction(ending_signals[i], &sa, NULL);
        }
        installed = 1;
    }
    for (int i = 0; i < MAX_TEMPS; i++)
        if (atomic_load(&temps[i]) == (remove ? o : NULL)) {
            atomic_store(&temps[i], remove ? NULL : o);
            return 1;
        }
    return 0;
}

int lgc_output_open_at(lgc_output *o, int dir, const char *path)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->dir = dir;
    const char *slash = strrchr(path, '/');
    const size_t base = slash ? (size_t)(slash - path) + 1 : 0;
    o->path = strdup(path);
    o->temp = malloc(strlen(path) + 48);
    if (!o->path || !o->temp) {
        lgc_output_discard(o);
        errno = ENOMEM;
        return LGC_ERR_IO;
    }
    /* DIR/.NAME.PID-N: in the target's directory, so the rename is atomic; 0666 less the umask. */
    static unsigned long serial;
    do {
        sprintf(o->temp, "%.*s.%s.%ld-%lu", (int)base, path, path + base, (long)own_pid(), serial++);
        o->fd = openat(dir, o->temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    } while (o->fd < 0 && errno == EEXIST);
    if (o->fd < 0) {
        int err = errno;
        free(o->temp);      /* not ours to remove: nothing was made */
        o->temp = NULL;
        lgc_output_discard(o);
        errno = err;
        return LGC_ERR_IO;
    }
    if (!track(o, 0)) {
        lgc_output_discard(o);
        errno = EMFILE;
        return LGC_ERR_IO;
    }
    return LGC_OK;
}

int lgc_output_open(lgc_output *o, const char *option, const char *path)
{
    struct stat st;
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return lgc_usage_error("%s %s: is a directory", option, path);
    /* /dev/null, a pipe, a terminal: written where it is, never replaced by a file. */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        o->dir = AT_FDCWD;
        if ((o->fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
            return lgc_usage_error("%s %s: cannot write there: %s", option, path, strerror(errno));
        return LGC_EXIT_OK;
    }
    if (lgc_output_open_at(o, AT_FDCWD, path) != LGC_OK)
        return lgc_usage_error("%s %s: cannot write there: %s", option, path, strerror(errno));
    return LGC_EXIT_OK;
}

int lgc_output_commit(lgc_output *o)
{
    int rc = close(o->fd) == 0 && (!o->temp || renameat(o->dir, o->temp, o->dir, o->path) == 0)
                 ? LGC_OK
                 : LGC_ERR_IO;
    int err = errno;
    o->fd = -1;
    if (rc == LGC_OK) {
        track(o, 1);
        free(o->temp);
        o->temp = NULL;
    }
    lgc_output_discard(o);
    errno = err;
    return rc;
}

void lgc_output_discard(lgc_output *o)
{
    if (o->fd >= 0)
        close(o->fd);
    if (o->temp) {
        unlinkat(o->dir, o->temp, 0);
        track(o, 1);
    }
    free(o->temp);
    free(o->path);
    memset(o, 0, sizeof *o);
    o->fd = -1;
}

int lgc_scratch_fd(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    char *path = malloc(strlen(dir) + 24);
    if (!path)
        return -1;
    sprintf(path, "%s/lagrangec-XXXXXX", dir);
    int fd = mkstemp(path);
    /* Unlinked at once: nothing is left behind, whatever ends the run. */
    if (fd >= 0)
        unlink(path);
    free(path);
    return fd;
}
