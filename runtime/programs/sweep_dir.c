/*
** sweep_dir.c — a sweep's directory, shared by every process working in it
** (workers, MPI ranks, shards):
**
**   DIR/sweep.txt            what each run depends on: the model, the options,
**                            where the values come from, the index's columns
**   DIR/run/NNNNNN.csv       run NNNNNN's trajectory
**   DIR/run/HOST-PID-N.journal  the runs' lines of the index, a file per process,
**                            appended after each trajectory (sweep_results.c)
**   DIR/runs.csv             the index: the results in run order, written last,
**                            its journals then removed
**   DIR/.lock                held shared by every process working in DIR
**
** Every other file is written whole (a temporary and a rename, outputs.c).
** A run without its result is redone by the next sweep; the temporaries a killed
** process left are removed by the next one that finds nobody else at work
** (it gets the lock alone). Nothing here depends on the clock or on which
** process wrote it.
*/
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lagrangec/status.h"
#include "programs.h"

void lgc_run_file(unsigned long run, const char *ext, char buf[LGC_RUN_FILE_MAX])
{
    snprintf(buf, LGC_RUN_FILE_MAX, "%06lu.%s", run, ext);
}

/* path and its missing parents, like mkdir -p. */
static int make_dirs(const char *path)
{
    char *p = strdup(path);
    if (!p)
        return -1;
    int rc = 0;
    for (char *s = p + 1; rc == 0 && *s; s++)
        if (*s == '/' && s[-1] != '/') {
            *s = '\0';
            rc = mkdir(p, 0777) == 0 || errno == EEXIST ? 0 : -1;
            *s = '/';
        }
    if (rc == 0 && mkdir(p, 0777) != 0 && errno != EEXIST)
        rc = -1;
    free(p);
    return rc;
}

static int lock(int fd, int how)
{
    while (flock(fd, how) != 0)
        if (errno != EINTR)
            return -1;
    return 0;
}

/* Does n start with prefix? */
static int starts(const char *n, const char *prefix)
{
    return strncmp(n, prefix, strlen(prefix)) == 0;
}

/* A temporary of sweep.txt or the index in DIR, or of a trajectory in DIR/run (.NNNNNN.csv.PID-N). */
static int is_temporary(const char *n, int in_run)
{
    if (!in_run)
        return starts(n, "." LGC_SWEEP_INDEX ".") || starts(n, "." LGC_SWEEP_MANIFEST ".");
    const size_t digits = n[0] == '.' ? strspn(n + 1, "0123456789") : 0;
    return digits > 0 && starts(n + 1 + digits, ".csv.");
}

/* The temporaries of files written whole that are not being written: only those, never another's file. */
static void remove_temporaries(int dir, int in_run)
{
    int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    for (struct dirent *e; (e = readdir(d));)
        if (is_temporary(e->d_name, in_run))
            unlinkat(dir, e->d_name, 0);
    closedir(d);
}

/*
** Why dir, which has no sweep.txt, is not one a sweep may take (into why,
** 1), or 0: it holds nothing but what a sweep makes before its sweep.txt
** (.lock, an empty run/, the temporaries of a killed maker). Decided before
** anything in dir is made, locked or removed.
*/
static int foreign(int dir, char *why, size_t size)
{
    int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        snprintf(why, size, "it cannot be read: %s", strerror(errno));
        return 1;
    }
    int other = 0;
    for (struct dirent *e; !other && (e = readdir(d));) {
        const char *n = e->d_name;
        struct stat st;
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 || is_temporary(n, 0))
            continue;
        if (fstatat(dir, n, &st, AT_SYMLINK_NOFOLLOW) != 0)
            other = snprintf(why, size, "it has %s", n) > 0;
        else if (strcmp(n, ".lock") == 0 && S_ISREG(st.st_mode))
            continue;
        else if (strcmp(n, "run") == 0 && S_ISDIR(st.st_mode)) {
            int run = openat(dir, "run", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            DIR *r = run >= 0 ? fdopendir(run) : NULL;
            if (!r) {
                if (run >= 0)
                    close(run);
                other = snprintf(why, size, "its run/ cannot be read") > 0;
                continue;
            }
            for (struct dirent *f; !other && (f = readdir(r));)
                if (strcmp(f->d_name, ".") != 0 && strcmp(f->d_name, "..") != 0
                    && !is_temporary(f->d_name, 1))
                    other = snprintf(why, size, "it has run/%s", f->d_name) > 0;
            closedir(r);
        } else {
            other = snprintf(why, size, "it has %s", n) > 0;
        }
    }
    closedir(d);
    return other;
}

/* Does dir hold a sweep.txt (a regular file)? */
static int has_manifest(int dir)
{
    struct stat st;
    return fstatat(dir, LGC_SWEEP_MANIFEST, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* LGC_EXIT_OK when dir is a sweep's, or may become one; else the usage error. */
static int recognise(int dir, const char *path)
{
    char why[512];
    if (has_manifest(dir) || !foreign(dir, why, sizeof why))
        return LGC_EXIT_OK;
    return lgc_usage_error("%s is not a sweep's directory (%s, and no %s): give a new or empty "
                           "directory", path, why, LGC_SWEEP_MANIFEST);
}

int lgc_open_regular(int dir, const char *name)
{
    /* O_NONBLOCK: opening a FIFO for reading would wait for a writer. */
    int fd = openat(dir, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)))
        return fd;
    close(fd);
    errno = EINVAL;
    return -1;
}

int lgc_dir_read_manifest(int dir, lgc_text *t)
{
    lgc_text_clear(t);
    int fd = lgc_open_regular(dir, LGC_SWEEP_MANIFEST);
    if (fd < 0)
        return 0;
    char buf[4096];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) != 0;) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        lgc_text_add(t, buf, (size_t)n);
    }
    close(fd);
    return 1;
}

/* Writes text to name in dir, whole: LGC_OK, or LGC_ERR_IO with errno. */
int lgc_dir_write_file(int dir, const char *name, const char *text, size_t len)
{
    lgc_output o;
    if (lgc_output_open_at(&o, dir, name) != LGC_OK)
        return LGC_ERR_IO;
    if (lgc_write_all(o.fd, text, len) != 0) {
        int err = errno;
        lgc_output_discard(&o);
        errno = err;
        return LGC_ERR_IO;
    }
    return lgc_output_commit(&o);
}

int lgc_manifest_compare(const char *theirs, const char *ours, const char *path)
{
    if (strcmp(theirs, ours) == 0)
        return LGC_EXIT_OK;
    /* The first line that differs, from each. */
    size_t i = 0, start = 0;
    while (theirs[i] && theirs[i] == ours[i])
        if (theirs[i++] == '\n')
            start = i;
    const int a = (int)strcspn(theirs + start, "\n"), b = (int)strcspn(ours + start, "\n");
    /* What the first difference means, when it is the model or the lagrangec that made it. */
    const char *why = starts(ours + start, "version ")
                          ? " (another lagrangec made it: its runs and this one's would mix two "
                            "integrators)"
                      : starts(ours + start, "compiled ") || starts(ours + start, "model ")
                          ? " (the model changed since: the spec was edited, or generated anew; "
                            "its runs are not this model's)"
                          : "";
    return lgc_usage_error("%s holds another sweep: its %s has '%.*s' where this one has "
                           "'%.*s'%s; give another --out, or remove it", path, LGC_SWEEP_MANIFEST,
                           a, theirs + start, b, ours + start, why);
}

/* sweep.txt under an exclusive lock: written if there is none, else compared. */
static int claim(lgc_sweep_dir *d, const char *manifest, int exclusive)
{
    lgc_text there = {0};
    int rc = LGC_EXIT_OK;
    if (lgc_dir_read_manifest(d->fd, &there)) {
        rc = there.failed ? lgc_usage_error("%s: %s", d->path, strerror(ENOMEM))
                          : lgc_manifest_compare(there.s, manifest, d->path);
    } else if (!exclusive) {
        rc = -1;    /* its maker is still at it: try again */
    } else if ((rc = recognise(d->fd, d->path)) == LGC_EXIT_OK
               && lgc_dir_write_file(d->fd, LGC_SWEEP_MANIFEST, manifest, strlen(manifest)) != LGC_OK) {
        rc = lgc_usage_error("%s/%s: %s", d->path, LGC_SWEEP_MANIFEST, strerror(errno));
    }
    lgc_text_free(&there);
    return rc;
}

int lgc_dir_join(lgc_sweep_dir *d, const char *option, const char *path, const char *manifest)
{
    d->path = path;
    d->run_fd = d->lock_fd = -1;
    if (make_dirs(path) != 0 || (d->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return lgc_usage_error("%s %s: %s", option, path, strerror(errno));
    int rc = recognise(d->fd, path);
    if (rc != LGC_EXIT_OK)
        return rc;
    if ((mkdirat(d->fd, "run", 0777) != 0 && errno != EEXIST)
        || (d->run_fd = openat(d->fd, "run", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return lgc_usage_error("%s %s/run: %s", option, path, strerror(errno));
    d->lock_fd = openat(d->fd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (d->lock_fd < 0)
        return lgc_usage_error("%s %s/.lock: %s", option, path, strerror(errno));
    for (;;) {
        /* Alone in DIR: tidy up after the killed, and write or check sweep.txt. */
        if (flock(d->lock_fd, LOCK_EX | LOCK_NB) == 0) {
            remove_temporaries(d->fd, 0);
            remove_temporaries(d->run_fd, 1);
            rc = claim(d, manifest, 1);
            if (rc != LGC_EXIT_OK || lock(d->lock_fd, LOCK_SH) == 0)
                return rc;
        } else if (errno != EWOULDBLOCK && errno != EINTR) {
            break;
        } else if (lock(d->lock_fd, LOCK_SH) == 0) {
            /* Others at work: whoever had it alone wrote sweep.txt before sharing it. */
            rc = claim(d, manifest, 0);
            if (rc >= 0)
                return rc;
            flock(d->lock_fd, LOCK_UN);
            continue;
        }
        break;
    }
    return lgc_usage_error("%s %s/.lock: cannot lock it: %s", option, path, strerror(errno));
}

void lgc_dir_close(lgc_sweep_dir *d)
{
    if (d->run_fd >= 0)
        close(d->run_fd);
    if (d->lock_fd >= 0)
        close(d->lock_fd);
    if (d->fd >= 0)
        close(d->fd);
    d->fd = d->run_fd = d->lock_fd = -1;
}

int lgc_dir_run_done(const lgc_results *r, int run_fd, unsigned long run, int trajectories)
{
    char name[LGC_RUN_FILE_MAX];
    struct stat st;
    if (!lgc_results_has(r, run))
        return 0;
    lgc_run_file(run, "csv", name);
    return !trajectories
           || (fstatat(run_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode));
}

int lgc_dir_write_index(const lgc_sweep_dir *d, const lgc_results *r, const char *header,
                        const unsigned long *runs, size_t n, unsigned long *failed)
{
    lgc_text index = {0};
    unsigned char *in_index = calloc(r->nruns + 1, 1);
    lgc_text_add(&index, header, strlen(header));
    lgc_text_add(&index, "\n", 1);
    size_t missing = 0;
    *failed = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned long k = runs[i];
        if (!lgc_results_has(r, k)) {
            if (missing++ < 10)
                fprintf(stderr, "%s run %lu", missing == 1 ? "lagrangec: no result for" : ",", k);
            continue;
        }
        const char *line = r->text.s + r->at[k];
        lgc_text_add(&index, line, r->len[k]);
        *failed += line[strcspn(line, ",") + 1] == 'f';     /* K,fault,... */
        if (in_index)
            in_index[k] = 1;
    }
    int rc = LGC_OK;
    if (missing > 0) {
        fprintf(stderr, "%s (%zu of %zu runs): rerun the same command to finish them\n",
                missing > 10 ? ", ..." : "", missing, n);
        rc = LGC_ERR_INCONSISTENT;
    } else if (index.failed || !in_index) {
        fprintf(stderr, "lagrangec: %s/%s: %s\n", d->path, LGC_SWEEP_INDEX, strerror(ENOMEM));
        rc = LGC_ERR_NOMEM;
    } else if (lgc_results_carry(r, d->run_fd, in_index) != 0) {
        fprintf(stderr, "lagrangec: %s/run: %s\n", d->path, strerror(errno));
        rc = LGC_ERR_IO;
    } else if (lgc_dir_write_file(d->fd, LGC_SWEEP_INDEX, index.s, index.len) != LGC_OK) {
        fprintf(stderr, "lagrangec: %s/%s: %s\n", d->path, LGC_SWEEP_INDEX, strerror(errno));
        rc = LGC_ERR_IO;
    } else {
        lgc_results_remove_journals(d, r->nruns, in_index);
    }
    free(in_index);
    lgc_text_free(&index);
    return rc;
}

int lgc_dir_say_failed(const lgc_sweep_dir *d, unsigned long failed, size_t n)
{
    if (failed == 0)
        return LGC_EXIT_OK;
    fprintf(stderr, "lagrangec: %lu of %zu runs failed (their status in %s/%s is fault)\n", failed,
            n, d->path, LGC_SWEEP_INDEX);
    return LGC_EXIT_FAILED;
}
