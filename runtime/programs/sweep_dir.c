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

/* A temporary of sweep.txt, the index or its summaries in DIR, or of a trajectory in DIR/run (.NNNNNN.csv.PID-N). */
static int is_temporary(const char *n, int in_run)
{
    if (!in_run)
        return starts(n, "." LGC_SWEEP_INDEX ".") || starts(n, "." LGC_SWEEP_MANIFEST ".")
               || starts(n, "." LGC_SWEEP_SUMMARY_CSV ".") || starts(n, "." LGC_SWEEP_SUMMARY_JSON ".");
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

int lgc_index_has(const lgc_index_runs *index, unsigned long run)
{
    return index->shards == 0 || (run - 1) % index->shards == index->shard - 1;
}

/* The index's first run after run (nruns + 1: none). */
static unsigned long index_after(const lgc_index_runs *index, unsigned long run, unsigned long nruns)
{
    if (index->shards == 0)
        return run + 1;
    /* (k - 1) % M == K - 1, the least such k above run */
    const unsigned long m = index->shards, want = index->shard - 1, at = run % m;
    const unsigned long k = run + 1 + (want + m - at) % m;
    return k > nruns || k <= run ? nruns + 1 : k;
}

int lgc_dir_run_done(lgc_cursor *c, int run_fd, unsigned long run, int trajectories, lgc_result *r)
{
    char name[LGC_RUN_FILE_MAX];
    struct stat st;
    lgc_result found;
    if (!lgc_cursor_find(c, run, r ? r : &found))
        return 0;
    lgc_run_file(run, "csv", name);
    return !trajectories
           || (fstatat(run_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode));
}

/* The index being written (its temporary, and a buffer of it), the old index's lines of other runs carried, its statistics and counts. */
typedef struct writing {
    lgc_output out;
    lgc_text buf;
    lgc_journal carry;
    lgc_stats_table stats;
    size_t n, missing;
    unsigned long failed;
} writing;

/* buf out when it is full (or, with all, whatever it holds): 0, or -1 with errno. */
static int flush(writing *w, int all)
{
    if (w->buf.failed) {
        errno = ENOMEM;
        return -1;
    }
    if (w->buf.len < ((size_t)1 << 20) && !all)
        return 0;
    const int rc = lgc_write_all(w->out.fd, w->buf.s, w->buf.len);
    lgc_text_clear(&w->buf);
    return rc;
}

static void say_missing(writing *w, unsigned long run)
{
    if (w->missing++ < 10)
        fprintf(stderr, "%s run %lu", w->missing == 1 ? "lagrangec: no result for" : ",", run);
}

/* Every result of c in order: the index's into w, the old index's of other runs carried. 0, or -1 with errno. */
static int stream(const lgc_sweep_dir *d, lgc_cursor *c, unsigned long nruns, const lgc_index_runs *index,
                  writing *w)
{
    unsigned long want = index_after(index, 0, nruns);
    lgc_result r;
    for (; lgc_cursor_get(c, &r); lgc_cursor_next(c)) {
        for (; want < r.run; want = index_after(index, want, nruns))
            say_missing(w, want);
        if (lgc_index_has(index, r.run)) {
            lgc_text_add(&w->buf, r.line, r.len);
            lgc_stats_add(&w->stats, r.line, r.len);
            w->failed += r.line[strcspn(r.line, ",") + 1] == 'f';     /* K,fault,... */
            w->n++;
            want = index_after(index, r.run, nruns);
            if (flush(w, 0) != 0)
                return -1;
        } else if (r.indexed && lgc_journal_append(&w->carry, d->run_fd, r.line, r.len) != 0) {
            return -1;
        }
    }
    for (; want <= nruns; want = index_after(index, want, nruns))
        say_missing(w, want);
    return flush(w, 1);
}

int lgc_dir_write_index(const lgc_sweep_dir *d, unsigned long nruns, const char *header,
                        const lgc_index_runs *index, size_t *n, unsigned long *failed,
                        lgc_stats_table *keep)
{
    writing w;
    memset(&w, 0, sizeof w);
    w.out.fd = w.carry.fd = -1;
    lgc_cursor *c = NULL;
    int rc = lgc_cursor_open(&c, d->fd, d->run_fd, nruns);
    if (rc != LGC_OK) {
        fprintf(stderr, "lagrangec: %s/run: %s\n", d->path, strerror(errno));
    } else if (lgc_output_open_at(&w.out, d->fd, LGC_SWEEP_INDEX) != LGC_OK) {
        fprintf(stderr, "lagrangec: %s/%s: %s\n", d->path, LGC_SWEEP_INDEX, strerror(errno));
        rc = LGC_ERR_IO;
    } else if (lgc_stats_begin(&w.stats, header) != LGC_OK) {
        fprintf(stderr, "lagrangec: %s: %s\n", d->path, strerror(ENOMEM));
        rc = LGC_ERR_NOMEM;
    } else {
        lgc_text_add(&w.buf, header, strlen(header));
        lgc_text_add(&w.buf, "\n", 1);
        if (stream(d, c, nruns, index, &w) != 0) {
            fprintf(stderr, "%slagrangec: %s: %s\n", w.missing ? "\n" : "", d->path, strerror(errno));
            rc = LGC_ERR_IO;
        } else if (w.missing > 0) {
            fprintf(stderr, "%s (%zu of %zu runs): rerun the same command to finish them\n",
                    w.missing > 10 ? ", ..." : "", w.missing, w.n + w.missing);
            rc = LGC_ERR_INCONSISTENT;
        }
    }
    lgc_cursor_close(c);
    /* The carried lines are kept only beside the index that no longer has them. */
    if (rc != LGC_OK && w.carry.fd >= 0)
        unlinkat(d->run_fd, w.carry.name, 0);
    lgc_journal_close(&w.carry);
    if (rc == LGC_OK && lgc_output_commit(&w.out) != LGC_OK) {
        fprintf(stderr, "lagrangec: %s/%s: %s\n", d->path, LGC_SWEEP_INDEX, strerror(errno));
        rc = LGC_ERR_IO;
    }
    lgc_output_discard(&w.out);
    lgc_text_free(&w.buf);
    if (rc == LGC_OK)
        lgc_results_remove_journals(d, nruns, index);
    if (rc == LGC_OK) {
        lgc_stats_finish(&w.stats);
        rc = lgc_stats_write(&w.stats, d->path, d->fd);
    }
    if (keep && rc == LGC_OK)
        *keep = w.stats;
    else
        lgc_stats_free(&w.stats);
    *n = w.n + w.missing;
    *failed = w.failed;
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
