/*
** sweep_results.c — the runs' results of a sweep's directory: the lines of
** the index, where they wait until the index is written (the journals) and
** where they end (DIR/runs.csv); read in run order, a buffer at a time, so
** that what a process holds of them does not grow with the number of runs.
**
** A journal, DIR/run/HOST-PID-N.journal, is one process's: it appends a
** record per run, "LEN HASH LINE", LINE the run's line of the index (LEN
** bytes, the last a newline) and HASH its FNV-1a, in one write(2) and
** without fsync. A record cut short (a process killed mid-write, a power
** loss) fails its length or its hash and ends what is read of its journal:
** its run, and any after it, are redone, and no record is ever taken for
** another. A process never appends to a journal it did not make, so only
** the last record of a journal can be torn; and it takes its runs in
** increasing order (workers.c, sweep_main.c), so each journal, like the
** index, is in run order, and the results of a directory are the merge of
** its sources (a heap of them), the index's line first when two have one.
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
/* Reading stops at a record longer than this (a journal torn into garbage). */
#define RECORD_MAX ((size_t)1 << 24)
#define READ_SIZE ((size_t)1 << 14)

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

/*
** A source of results in run order: DIR/runs.csv (its lines after the
** header) or a journal (its records, up to the first torn one). A record
** whose run is not after the one before it in its source (no writer makes
** one) is not taken: its run is redone.
*/
typedef struct source {
    int fd;
    int journal;                /* records "LEN HASH LINE"; else the index's lines */
    lgc_text buf;               /* read, not yet taken: buf.s[at..buf.len) */
    size_t at;
    int eof;
    unsigned long run, last;    /* the current record's run (0: none left), the one before */
    const char *line;           /* the current record's line, len bytes */
    size_t len;
} source;

/* A buffer's more of src, after what is not yet taken: 0, or -1 with errno. */
static int fill(source *src)
{
    const size_t avail = src->buf.len - src->at;
    if (avail > RECORD_MAX) {
        errno = EFBIG;
        return -1;
    }
    if (src->at > 0)
        memmove(src->buf.s, src->buf.s + src->at, avail);
    src->buf.len = avail;
    src->at = 0;
    char chunk[READ_SIZE];
    ssize_t got;
    while ((got = read(src->fd, chunk, sizeof chunk)) < 0 && errno == EINTR)
        ;
    if (got < 0)
        return -1;
    src->eof = got == 0;
    lgc_text_add(&src->buf, chunk, (size_t)got);
    if (src->buf.failed)
        errno = ENOMEM;
    return src->buf.failed ? -1 : 0;
}

/* What src has read and not yet taken ("" before its first read: the buffer has no storage yet). */
static const char *unread(const source *src)
{
    return src->buf.s ? src->buf.s + src->at : "";
}

/* The next record of src made its current one (run 0 at its end, or where it cannot be read). */
static void source_next(source *src, unsigned long nruns)
{
    for (;;) {
        const char *s = unread(src), *line = s;
        const size_t avail = src->buf.len - src->at;
        size_t n = 0, len = 0;
        if (avail > 0)
            n = src->journal ? journal_record(s, avail, &line, &len) : (len = record_len(s, avail));
        if (n > 0) {
            src->at += n;
            const unsigned long k = line_run(line, len, nruns);
            if (k == 0 || k <= src->last)
                continue;
            src->run = src->last = k;
            src->line = line;
            src->len = len;
            return;
        }
        if (src->eof || fill(src) != 0) {
            src->run = 0;
            return;
        }
    }
}

/* name in dir as a source, at its first record: 0, or -1 when it is none (not a regular file). */
static int source_open(source *src, int dir, const char *name, int journal, unsigned long nruns)
{
    memset(src, 0, sizeof *src);
    src->journal = journal;
    if ((src->fd = lgc_open_regular(dir, name)) < 0)
        return -1;
    if (!journal) {     /* past the header */
        size_t n;
        while ((n = record_len(unread(src), src->buf.len - src->at)) == 0 && !src->eof)
            if (fill(src) != 0)
                break;
        src->at += n;
    }
    source_next(src, nruns);
    return 0;
}

static void source_close(source *src)
{
    if (src->fd >= 0)
        close(src->fd);
    lgc_text_free(&src->buf);
    src->fd = -1;
}

/* The results of a directory in run order: its sources on a heap, the least (run, then the index first) on top. */
struct lgc_cursor {
    unsigned long nruns;
    source *src;                /* nsrc: the index (if any) first, then the journals */
    int nsrc;
    int *heap, nheap;           /* the sources with a record left, by index into src */
};

static int before(const lgc_cursor *c, int a, int b)
{
    return c->src[a].run < c->src[b].run || (c->src[a].run == c->src[b].run && a < b);
}

static void sift_down(lgc_cursor *c, int i)
{
    for (;;) {
        int least = i, l = 2 * i + 1, r = l + 1;
        if (l < c->nheap && before(c, c->heap[l], c->heap[least]))
            least = l;
        if (r < c->nheap && before(c, c->heap[r], c->heap[least]))
            least = r;
        if (least == i)
            return;
        int t = c->heap[i];
        c->heap[i] = c->heap[least];
        c->heap[least] = t;
        i = least;
    }
}

typedef struct opening {
    lgc_cursor *c;
    int run_fd, failed;
} opening;

static void open_journal(void *ctx, const char *name)
{
    opening *o = ctx;
    lgc_cursor *c = o->c;
    source *more = realloc(c->src, (size_t)(c->nsrc + 1) * sizeof *more);
    if (!more) {
        o->failed = ENOMEM;
        return;
    }
    c->src = more;
    if (source_open(&c->src[c->nsrc], o->run_fd, name, 1, c->nruns) == 0)
        c->nsrc++;
    else if (errno == EMFILE || errno == ENFILE || errno == ENOMEM)
        o->failed = errno;      /* a journal left out would have its runs redone: say so instead */
}

int lgc_cursor_open(lgc_cursor **cursor, int dir_fd, int run_fd, unsigned long nruns)
{
    lgc_cursor *c = calloc(1, sizeof *c);
    *cursor = c;
    if (!c || !(c->src = malloc(sizeof *c->src))) {
        errno = ENOMEM;
        return LGC_ERR_NOMEM;
    }
    c->nruns = nruns;
    if (source_open(&c->src[0], dir_fd, LGC_SWEEP_INDEX, 0, nruns) == 0)
        c->nsrc = 1;
    opening o = {c, run_fd, 0};
    if (each_journal(run_fd, open_journal, &o) != 0)
        o.failed = errno;
    if (o.failed || !(c->heap = malloc(((size_t)c->nsrc + 1) * sizeof *c->heap))) {
        errno = o.failed ? o.failed : ENOMEM;
        return errno == ENOMEM ? LGC_ERR_NOMEM : LGC_ERR_IO;
    }
    for (int i = 0; i < c->nsrc; i++)
        if (c->src[i].run > 0)
            c->heap[c->nheap++] = i;
    for (int i = c->nheap / 2 - 1; i >= 0; i--)
        sift_down(c, i);
    return LGC_OK;
}

void lgc_cursor_close(lgc_cursor *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->nsrc; i++)
        source_close(&c->src[i]);
    free(c->src);
    free(c->heap);
    free(c);
}

int lgc_cursor_get(const lgc_cursor *c, lgc_result *r)
{
    if (c->nheap == 0)
        return 0;
    const source *top = &c->src[c->heap[0]];
    *r = (lgc_result){top->run, top->line, top->len, !top->journal};
    return 1;
}

void lgc_cursor_next(lgc_cursor *c)
{
    if (c->nheap == 0)
        return;
    /* Every source's record of the current run: the one taken, the others the same run's again. */
    const unsigned long run = c->src[c->heap[0]].run;
    while (c->nheap > 0 && c->src[c->heap[0]].run == run) {
        source_next(&c->src[c->heap[0]], c->nruns);
        if (c->src[c->heap[0]].run == 0)
            c->heap[0] = c->heap[--c->nheap];
        sift_down(c, 0);
    }
}

int lgc_cursor_find(lgc_cursor *c, unsigned long run, lgc_result *r)
{
    while (lgc_cursor_get(c, r) && r->run < run)
        lgc_cursor_next(c);
    return c->nheap > 0 && r->run == run;
}

/* This process's journal, made: HOST-PID-N.journal, N the first name no other took. */
static int journal_open(lgc_journal *j, int run_fd)
{
    char host[64] = "host";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    for (char *c = host; *c; c++)   /* a name of a file, whatever the host's */
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '.'))
            *c = '_';
    for (unsigned long n = 0;; n++) {
        snprintf(j->name, sizeof j->name, "%s-%ld-%lu" JOURNAL_EXT, host, (long)getpid(), n);
        j->fd = openat(run_fd, j->name, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
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

/* Is every whole record of the journal name of a run of the index (a torn last one's run was redone)? */
static int all_in_index(int run_fd, const char *name, unsigned long nruns, const lgc_index_runs *index)
{
    source src;
    if (source_open(&src, run_fd, name, 1, nruns) != 0)
        return 0;
    int all = 1;
    for (; all && src.run > 0; source_next(&src, nruns))
        all = lgc_index_has(index, src.run);
    source_close(&src);
    return all;
}

typedef struct removing {
    int run_fd;
    unsigned long nruns;
    const lgc_index_runs *index;
} removing;

static void remove_if_indexed(void *ctx, const char *name)
{
    const removing *g = ctx;
    if (all_in_index(g->run_fd, name, g->nruns, g->index))
        unlinkat(g->run_fd, name, 0);
}

void lgc_results_remove_journals(const lgc_sweep_dir *d, unsigned long nruns, const lgc_index_runs *index)
{
    /* Alone in DIR: no process appends to a journal while it is read and removed. */
    if (flock(d->lock_fd, LOCK_EX | LOCK_NB) == 0) {
        removing g = {d->run_fd, nruns, index};
        each_journal(d->run_fd, remove_if_indexed, &g);
    }
    flock(d->lock_fd, LOCK_SH);     /* a failed conversion lets the shared lock go */
}
