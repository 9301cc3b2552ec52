/*
** sweep_merge.c — `lagrangec sweep --merge DIR... --out DIR`: the
** directories of one sweep's shards (or of one sweep, run in pieces) into
** one, with no model and no spec: their sweep.txt must say the same, every
** run must have its result in one of them (an index or a journal), and
** each run's trajectory is linked into the output (copied across file
** systems), the index written last from their results. lagrangec itself
** runs this; the result is the directory one sweep of every run would
** have written.
*/
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lagrangec/status.h"
#include "lagrangec/version.h"
#include "programs.h"

/* The value of "KEY VALUE" in sweep.txt, to the line's end; NULL if none. */
static const char *manifest_value(const char *text, const char *key, int *len)
{
    const size_t k = strlen(key);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (strncmp(line, key, k) == 0 && line[k] == ' ') {
            *len = (int)strcspn(line + k + 1, "\n");
            return line + k + 1;
        }
    return NULL;
}

/* name of the run directory `from` into `to`, whole: a hard link, or a copy across file systems. */
static int place(int from, int to, const char *name)
{
    struct stat a, b;
    if (fstatat(from, name, &a, AT_SYMLINK_NOFOLLOW) != 0)
        return -1;
    if (fstatat(to, name, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        return 0;   /* it is there already: the output is this input */
    char temp[LGC_RUN_FILE_MAX + 32];
    snprintf(temp, sizeof temp, ".%s.%ld-link", name, (long)getpid());
    unlinkat(to, temp, 0);
    if (linkat(from, name, to, temp, 0) == 0) {
        if (renameat(to, temp, to, name) == 0)
            return 0;
        int err = errno;
        unlinkat(to, temp, 0);
        errno = err;
        return -1;
    }
    if (errno != EXDEV && errno != EPERM && errno != EMLINK)
        return -1;
    int in = lgc_open_regular(from, name);
    lgc_output out;
    if (in < 0 || lgc_output_open_at(&out, to, name) != LGC_OK) {
        int err = errno;
        if (in >= 0)
            close(in);
        errno = err;
        return -1;
    }
    char buf[1 << 16];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || lgc_write_all(out.fd, buf, (size_t)n) != 0)
            break;
    }
    int err = n != 0 ? errno : 0;
    close(in);
    if (err != 0) {
        lgc_output_discard(&out);
        errno = err;
        return -1;
    }
    return lgc_output_commit(&out) == LGC_OK ? 0 : -1;
}

/* An input: its directory, its run directory, its sweep.txt, its runs' results. */
typedef struct input {
    const char *path;
    int fd, run_fd;
    lgc_text manifest;
    lgc_cursor *results;
} input;

static int open_input(input *in, const char *path)
{
    in->path = path;
    in->run_fd = -1;
    if ((in->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        return lgc_usage_error("--merge %s: %s", path, strerror(errno));
    if (!lgc_dir_read_manifest(in->fd, &in->manifest)
        || (in->run_fd = openat(in->fd, "run", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return lgc_usage_error("--merge %s: not a sweep's directory (no %s or run/)", path,
                               LGC_SWEEP_MANIFEST);
    return in->manifest.failed ? lgc_usage_error("--merge %s: %s", path, strerror(ENOMEM))
                               : LGC_EXIT_OK;
}

/* Every run's trajectory into the output, its result into a journal there; the runs no input has, named. */
static int gather(input *ins, int n, lgc_sweep_dir *out, unsigned long runs, int trajectories)
{
    lgc_cursor *had = NULL;     /* the output's results from before */
    int ok = lgc_cursor_open(&had, out->fd, out->run_fd, runs) == LGC_OK;
    for (int i = 0; ok && i < n; i++)
        ok = lgc_cursor_open(&ins[i].results, ins[i].fd, ins[i].run_fd, runs) == LGC_OK;
    if (!ok) {
        fprintf(stderr, "lagrangec: %s\n", strerror(errno));
        lgc_cursor_close(had);
        return LGC_EXIT_FAILED;
    }
    lgc_journal journal = {-1, {0}, ""};
    unsigned long missing = 0;
    for (unsigned long k = 1; ok && k <= runs; k++) {
        lgc_result r;
        int i = 0;
        while (i < n && !lgc_dir_run_done(ins[i].results, ins[i].run_fd, k, trajectories, &r))
            i++;
        if (i == n && lgc_dir_run_done(had, out->run_fd, k, trajectories, NULL))
            continue;   /* the output has it from before */
        if (i == n) {
            if (missing++ < 10)
                fprintf(stderr, "%s %lu", missing == 1 ? "lagrangec: no directory has run" : ",", k);
            continue;
        }
        char name[LGC_RUN_FILE_MAX];
        lgc_run_file(k, "csv", name);
        if (trajectories && place(ins[i].run_fd, out->run_fd, name) != 0) {
            fprintf(stderr, "%slagrangec: %s/run/%s into %s: %s\n", missing ? "\n" : "",
                    ins[i].path, name, out->path, strerror(errno));
            ok = 0;
        } else if (lgc_journal_append(&journal, out->run_fd, r.line, r.len) != 0) {
            fprintf(stderr, "%slagrangec: %s/run: %s\n", missing ? "\n" : "", out->path, strerror(errno));
            ok = 0;
        }
    }
    lgc_journal_close(&journal);
    lgc_cursor_close(had);
    if (!ok)
        return LGC_EXIT_FAILED;
    if (missing == 0)
        return LGC_EXIT_OK;
    fprintf(stderr, "%s (%lu of %lu runs; a shard missing, or not finished?)\n",
            missing > 10 ? ", ..." : "", missing, runs);
    return LGC_EXIT_FAILED;
}

static int merge(input *ins, int n, const char *out_path, int quiet)
{
    for (int i = 0; i < n; i++) {
        int rc = open_input(&ins[i], ins[i].path);
        if (rc == LGC_EXIT_OK && i > 0)
            rc = lgc_manifest_compare(ins[i].manifest.s, ins[0].manifest.s, ins[i].path);
        if (rc != LGC_EXIT_OK)
            return rc;
    }
    const char *manifest = ins[0].manifest.s;
    int runs_len, trajectories_len, columns_len;
    const char *runs = manifest_value(manifest, "runs", &runs_len),
               *trajectories = manifest_value(manifest, "trajectories", &trajectories_len),
               *columns = manifest_value(manifest, "columns", &columns_len);
    if (!runs || !trajectories || !columns || strspn(runs, "0123456789") == 0
        || strspn(runs, "0123456789") > 10 || strtoul(runs, NULL, 10) > LGC_SWEEP_MAX_RUNS)
        return lgc_usage_error("--merge %s: its %s is not one lagrangec sweep wrote", ins[0].path,
                               LGC_SWEEP_MANIFEST);
    int version_len;
    const char *version = manifest_value(manifest, "version", &version_len);
    if (!version)
        return lgc_usage_error("--merge %s: its %s records no version of lagrangec (an older one "
                               "ran it): merge it with that one", ins[0].path, LGC_SWEEP_MANIFEST);
    if ((size_t)version_len != strlen(LGC_VERSION) || strncmp(version, LGC_VERSION, (size_t)version_len) != 0)
        return lgc_usage_error("--merge %s: lagrangec %.*s ran this sweep, this is lagrangec %s: "
                               "merge it with the one that ran it", ins[0].path, version_len, version,
                               LGC_VERSION);
    const unsigned long nruns = strtoul(runs, NULL, 10);
    char *header = strndup(columns, (size_t)columns_len);
    lgc_sweep_dir out = {NULL, -1, -1, -1};
    int rc = header ? lgc_dir_join(&out, "--out", out_path, manifest) : lgc_usage_error("%s", strerror(ENOMEM));
    if (rc == LGC_EXIT_OK)
        rc = gather(ins, n, &out, nruns, strncmp(trajectories, "yes", 3) == 0);
    unsigned long failed = 0;
    size_t indexed = 0;
    const lgc_index_runs all = {0, 0};
    if (rc == LGC_EXIT_OK && lgc_dir_write_index(&out, nruns, header, &all, &indexed, &failed, NULL) != LGC_OK)
        rc = LGC_EXIT_FAILED;
    if (rc == LGC_EXIT_OK && !quiet)
        fprintf(stderr, "lagrangec: %lu runs from %d directories, %lu failed: %s/%s\n", nruns, n,
                failed, out_path, LGC_SWEEP_INDEX);
    if (rc == LGC_EXIT_OK)
        rc = lgc_dir_say_failed(&out, failed, nruns);
    lgc_dir_close(&out);
    free(header);
    return rc;
}

int lgc_sweep_merge(int argc, char **argv)
{
    input *ins = calloc((size_t)argc + 1, sizeof *ins);
    if (!ins)
        return lgc_usage_error("%s", strerror(ENOMEM));
    const char *out = NULL;
    int n = 0, quiet = 0, rc = LGC_EXIT_OK;
    for (int k = 1; k < argc && rc == LGC_EXIT_OK; k++) {
        if (strcmp(argv[k], "--merge") == 0)
            continue;
        if (strcmp(argv[k], "--quiet") == 0)
            quiet = 1;
        else if (strcmp(argv[k], "--out") == 0 && k + 1 < argc)
            out = argv[++k];
        else if (argv[k][0] == '-')
            rc = lgc_usage_error("--merge takes directories, --out DIR and --quiet; not '%s'", argv[k]);
        else
            ins[n++] = (input){argv[k], -1, -1, {0}, NULL};
    }
    if (rc == LGC_EXIT_OK && n == 0)
        rc = lgc_usage_error("--merge needs the directories to merge");
    if (rc == LGC_EXIT_OK && !out)
        rc = lgc_usage_error("--merge needs --out DIR");
    if (rc == LGC_EXIT_OK)
        rc = merge(ins, n, out, quiet);
    for (int i = 0; i < n; i++) {
        if (ins[i].run_fd >= 0)
            close(ins[i].run_fd);
        if (ins[i].fd >= 0)
            close(ins[i].fd);
        lgc_text_free(&ins[i].manifest);
        lgc_cursor_close(ins[i].results);
    }
    free(ins);
    return rc;
}
