/*
** sweep_results.c — the runs' results of a sweep's directory: the lines of
** the index, where they wait until the index is written (the journals) and
** where they end (DIR/runs.csv).
**
** A journal, DIR/run/HOST-PID-N.journal, is one process's: it appends a
** record per run, "LEN HASH LINE", LINE the run's line of the index (LEN
** bytes, the last a newline) and HASH its FNV-1a, in one write(2) and
** without fsync. A record cut short (a process killed mid-write, a power
** loss) fails its length or its hash and ends what is read of its journal:
** its run, and any after it, are redone, and no record is ever taken for
** another. A process never appends to a journal it did not make, so only
** the last record of a journal can be torn.
**
** The index writer removes the journals whose runs are all in the index
** once it is in place, when it is alone in DIR, so a finished DIR holds
** what one process would have written. Records of runs outside the index
** (another shard's, in an index being replaced) go to a journal first.
*/
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "lagrangec/status.h"
#include "programs.h"

#define JOURNAL_EXT ".journal"

/* The whole of name in dir into t (appended): 0, or -1 with errno. */
static int read_all(int dir, const char *name, lgc_text *t)
{
    int fd = lgc_open_regular(dir, name);
    if (fd < 0)
        return -1;
    char buf[1 << 16];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        lgc_text_add(t, buf, (size_t)n);
    }
    const int err = n < 0 ? errno : t->failed ? ENOMEM : 0;
    close(fd);
    errno = err;
    return err ? -1 : 0;
}

/* The run whose line of the index line is ("K,ok," or "K,fault,"), in 1..nruns; 0 if none. */
static unsigned long line_run(const char *line, size_t len, unsigned long nruns)
{
    size_t digits = 0;
    while (digits < len && digits < 20 && line[digits] >= '0' && line[digits] <= '9')
        digits++;
    if (digits == 0 || digits == len || line[digits] != ',' || line[len - 1] != '\n')
        return 0;
    const char *status = line + digits + 1;
    const size_t rest = len - digits - 1;
    if (!(rest >= 3 && memcmp(status, "ok,", 3) == 0) && !(rest >= 6 && memcmp(status, "fault,", 6) == 0))
        return 0;
    const unsigned long k = strtoul(line, NULL, 10);
    return k >= 1 && k <= nruns ? k : 0;
}

/* Run k's line, if it has none yet; 0 when line is not one of the index's. */
static int put(lgc_results *r, const char *line, size_t len, int indexed)
{
    const unsigned long k = line_run(line, len, r->nruns);
    if (k == 0)
        return 0;
    if (r->len[k] == 0) {
        r->at[k] = r->text.len;
        r->len[k] = len;
        r->indexed[k] = (unsigned char)indexed;
        lgc_text_add(&r->text, line, len);
    }
    return 1;
}

/* The length of the next CSV record of s (RFC 4180: a quoted field may hold line ends), 0 if it has no end. */
static size_t record_len(const char *s, size_t len)
{
    int quoted = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '"')
            quoted = !quoted;
        else if (s[i] == '\n' && !quoted)
            return i + 1;
    }
    return 0;
}

/*
** The next journal record of s: its line into *line and *len, and the
** record's length returned; 0 if it is torn or not a record.
*/
static size_t journal_record(const char *s, size_t n, const char **line, size_t *len)
{
    size_t i = 0;
    while (i < n && i < 20 && s[i] >= '0' && s[i] <= '9')
        i++;
    if (i == 0 || i + 18 > n || s[i] != ' ' || s[i + 17] != ' ')
        return 0;
    char hash[17];
    memcpy(hash, s + i + 1, 16);
    hash[16] = '\0';
    if (strspn(hash, "0123456789abcdef") != 16)
        return 0;
    const size_t size = (size_t)strtoull(s, NULL, 10), start = i + 18;
    if (size == 0 || size > n - start || s[start + size - 1] != '\n'
        || strtoull(hash, NULL, 16) != lgc_fnv1a(LGC_FNV1A_START, s + start, size))
        return 0;
    *line = s + start;
    *len = size;
    return start + size;
}

/* Each whole record of a journal's text, to f; stops at the first that is not. */
static void each_record(const lgc_text *t, void (*f)(void *, const char *, size_t), void *ctx)
{
    const char *line;
    size_t len;
    for (size_t at = 0, n; at < t->len && (n = journal_record(t->s + at, t->len - at, &line, &len)); at += n)
        f(ctx, line, len);
}

/* Does name name a journal? */
static int is_journal(const char *name)
{
    const size_t n = strlen(name), e = sizeof JOURNAL_EXT - 1;
    return name[0] != '.' && n > e && strcmp(name + n - e, JOURNAL_EXT) == 0;
}

/* f(ctx, name) for each journal of run_fd; -1 if the directory cannot be read. */
static int each_journal(int run_fd, void (*f)(void *, const char *), void *ctx)
{
    int fd = openat(run_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    for (struct dirent *e; (e = readdir(d));)
        if (is_journal(e->d_name))
            f(ctx, e->d_name);
    closedir(d);
    return 0;
}

typedef struct reading {
    lgc_results *r;
    int run_fd;
    lgc_text journal;
} reading;

static void put_journaled(void *ctx, const char *line, size_t len)
{
    put(ctx, line, len, 0);
}

void lgc_results_take_journal(lgc_results *r, const char *text, size_t len)
{
    const lgc_text t = {(char *)text, len, len, 0};
    each_record(&t, put_journaled, r);
}

static void read_journal(void *ctx, const char *name)
{
    reading *g = ctx;
    lgc_text_clear(&g->journal);
    if (read_all(g->run_fd, name, &g->journal) == 0)
        lgc_results_take_journal(g->r, g->journal.s, g->journal.len);
    else if (errno == ENOMEM)
        g->r->text.failed = 1;
}

int lgc_results_init(lgc_results *r, unsigned long nruns)
{
    memset(r, 0, sizeof *r);
    if (nruns > LGC_SWEEP_MAX_RUNS)
        return LGC_ERR_NOMEM;
    r->nruns = nruns;
    r->at = calloc(nruns + 1, sizeof *r->at);
    r->len = calloc(nruns + 1, sizeof *r->len);
    r->indexed = calloc(nruns + 1, 1);
    return r->at && r->len && r->indexed ? LGC_OK : LGC_ERR_NOMEM;
}

int lgc_results_read(lgc_results *r, int dir_fd, int run_fd, unsigned long nruns)
{
    if (lgc_results_init(r, nruns) != LGC_OK)
        return LGC_ERR_NOMEM;
    /* The index a sweep finished, then what the journals add. */
    lgc_text index = {0};
    if (read_all(dir_fd, LGC_SWEEP_INDEX, &index) == 0) {
        size_t at = record_len(index.s, index.len);     /* the header */
        for (size_t n; at > 0 && at < index.len && (n = record_len(index.s + at, index.len - at)); at += n)
            put(r, index.s + at, n, 1);
    }
    const int index_failed = index.failed;
    lgc_text_free(&index);
    reading g = {r, run_fd, {0}};
    each_journal(run_fd, read_journal, &g);
    if (g.journal.failed)
        r->text.failed = 1;
    lgc_text_free(&g.journal);
    return r->text.failed || index_failed ? LGC_ERR_NOMEM : LGC_OK;
}

void lgc_results_free(lgc_results *r)
{
    lgc_text_free(&r->text);
    free(r->at);
    free(r->len);
    free(r->indexed);
    memset(r, 0, sizeof *r);
}

int lgc_results_has(const lgc_results *r, unsigned long run)
{
    return run >= 1 && run <= r->nruns && r->len[run] > 0;
}

int lgc_results_add(lgc_results *to, const lgc_results *from, unsigned long run)
{
    if (!lgc_results_has(from, run))
        return 0;
    put(to, from->text.s + from->at[run], from->len[run], 0);
    return !to->text.failed;
}

/* This process's journal, made: HOST-PID-N.journal, N the first name no other took. */
static int journal_open(lgc_journal *j, int run_fd)
{
    char host[64] = "host", name[128];
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    for (char *c = host; *c; c++)   /* a name of a file, whatever the host's */
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.'))
            *c = '_';
    for (unsigned long n = 0;; n++) {
        snprintf(name, sizeof name, "%s-%ld-%lu" JOURNAL_EXT, host, (long)getpid(), n);
        j->fd = openat(run_fd, name, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (j->fd >= 0 || errno != EEXIST)
            return j->fd >= 0 ? 0 : -1;
    }
}

int lgc_journal_append(lgc_journal *j, int run_fd, const char *line, size_t len)
{
    if (j->fd < 0 && journal_open(j, run_fd) != 0)
        return -1;
    lgc_text_clear(&j->record);
    lgc_text_printf(&j->record, "%zu %016" PRIx64 " ", len, lgc_fnv1a(LGC_FNV1A_START, line, len));
    lgc_text_add(&j->record, line, len);
    if (j->record.failed) {
        errno = ENOMEM;
        return -1;
    }
    /* One write: appended whole, or (killed, a full disk) a torn record that reads as none. */
    const ssize_t n = write(j->fd, j->record.s, j->record.len);
    if (n == (ssize_t)j->record.len)
        return 0;
    if (n >= 0)
        errno = ENOSPC;
    return -1;
}

void lgc_journal_close(lgc_journal *j)
{
    if (j->fd >= 0)
        close(j->fd);
    j->fd = -1;
    lgc_text_free(&j->record);
}

int lgc_results_carry(const lgc_results *r, int run_fd, const unsigned char *in_index)
{
    lgc_journal j = {-1, {0}};
    int rc = 0;
    for (unsigned long k = 1; k <= r->nruns && rc == 0; k++)
        if (r->indexed[k] && !in_index[k])
            rc = lgc_journal_append(&j, run_fd, r->text.s + r->at[k], r->len[k]);
    lgc_journal_close(&j);
    return rc;
}

typedef struct removing {
    int run_fd;
    const unsigned char *in_index;
    unsigned long nruns;
    lgc_text journal;
    int all_in;
} removing;

static void check_in_index(void *ctx, const char *line, size_t len)
{
    removing *g = ctx;
    const unsigned long k = line_run(line, len, g->nruns);
    g->all_in = g->all_in && k > 0 && g->in_index[k];
}

static void remove_if_indexed(void *ctx, const char *name)
{
    removing *g = ctx;
    lgc_text_clear(&g->journal);
    g->all_in = 1;
    if (read_all(g->run_fd, name, &g->journal) != 0)
        return;
    each_record(&g->journal, check_in_index, g);
    if (g->all_in)
        unlinkat(g->run_fd, name, 0);
}

void lgc_results_remove_journals(const lgc_sweep_dir *d, unsigned long nruns, const unsigned char *in_index)
{
    /* Alone in DIR: no process appends to a journal while it is read and removed. */
    if (flock(d->lock_fd, LOCK_EX | LOCK_NB) == 0) {
        removing g = {d->run_fd, in_index, nruns, {0}, 1};
        each_journal(d->run_fd, remove_if_indexed, &g);
        lgc_text_free(&g.journal);
    }
    flock(d->lock_fd, LOCK_SH);     /* a failed conversion lets the shared lock go */
}
