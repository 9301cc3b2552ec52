/*
** event_log.c — what simulate keeps of the events a run meets: each
** event's count and first and last times, for the summary, and the
** --events file (event, t, q, q'), each row written whole. The spec's
** events by name, then each contact's: release[contactK], impact[contactK],
** then each friction contact's: slide[NAME], stick[NAME].
*/
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lagrangec/status.h"
#include "programs.h"

/* Longest "%.17g" of a double and its comma. */
#define NUMBER_MAX 25

int lgc_event_log_init(lgc_event_log *log, const lgc_model *m)
{
    memset(log, 0, sizeof *log);
    log->fd = -1;
    log->stopped_by = -1;
    log->n = m->nevent + 2 * m->ncontact + 2 * m->nfriction;
    if (log->n == 0)
        return LGC_OK;
    size_t longest = 0, names = 0;
    for (int i = 0; i < m->nevent; i++)
        names += strlen(m->event_names[i]) + 1;
    for (int c = 0; c < m->ncontact; c++)
        names += 2 * (strlen(m->constraint_columns[m->nh - m->ncontact + c]) + 10);
    for (int k = 0; k < m->nfriction; k++)
        names += 2 * (strlen(m->friction_names[k]) + 8);
    for (int i = 0; i < 2 * m->nq; i++)
        longest = strlen(m->state_names[i]) > longest ? strlen(m->state_names[i]) : longest;
    log->size = (size_t)(2 * m->nq + 2) * (longest + NUMBER_MAX) + names + 2;
    log->count = calloc((size_t)log->n, sizeof *log->count);
    log->first = calloc(2 * (size_t)log->n, sizeof *log->first);
    log->names = calloc((size_t)log->n, sizeof *log->names);
    log->name_text = malloc(names);
    log->line = malloc(log->size);
    if (!log->count || !log->first || !log->names || !log->name_text || !log->line) {
        lgc_event_log_free(log);
        return LGC_ERR_NOMEM;
    }
    log->last = log->first + log->n;
    char *text = log->name_text;
    for (int i = 0; i < log->n; i++) {
        const int c = (i - m->nevent) / 2, k = c - m->ncontact;
        log->names[i] = text;
        if (i < m->nevent)
            text += sprintf(text, "%s", m->event_names[i]) + 1;
        else if (k < 0)
            text += sprintf(text, "%s[%s]", (i - m->nevent) % 2 ? "impact" : "release",
                            m->constraint_columns[m->nh - m->ncontact + c]) + 1;
        else
            text += sprintf(text, "%s[%s]", (i - m->nevent) % 2 ? "stick" : "slide", m->friction_names[k]) + 1;
    }
    return LGC_OK;
}

void lgc_event_log_free(lgc_event_log *log)
{
    free(log->count);
    free(log->first);
    free(log->names);
    free(log->name_text);
    free(log->line);
    memset(log, 0, sizeof *log);
    log->fd = -1;
}

void lgc_event_log_reset(lgc_event_log *log, const lgc_model *m)
{
    (void)m;
    if (log->n)
        memset(log->count, 0, (size_t)log->n * sizeof *log->count);
    log->stopped_by = -1;
    log->total = 0;
    log->failed = 0;
}

/* line[0..len) whole to fd: a short write is an error (the output is then discarded whole). */
static int write_whole(int fd, const char *line, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(fd, line + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = ENOSPC;
            return LGC_ERR_IO;
        }
        done += (size_t)n;
    }
    return LGC_OK;
}

int lgc_event_log_header(lgc_event_log *log, const lgc_model *m)
{
    size_t len = (size_t)snprintf(log->line, log->size, "event,t");
    for (int i = 0; i < 2 * m->nq; i++)
        len += (size_t)snprintf(log->line + len, log->size - len, ",%s", m->state_names[i]);
    log->line[len++] = '\n';
    int rc = write_whole(log->fd, log->line, len);
    log->failed = log->failed || rc != LGC_OK;
    return rc;
}

int lgc_event_log_add(lgc_event_log *log, const lgc_model *m, int event, double t,
                      const double x[])
{
    log->first[event] = log->count[event] == 0 ? t : log->first[event];
    log->last[event] = t;
    log->count[event]++;
    log->total++;
    if (event < m->nevent && m->event_stop[event])
        log->stopped_by = event;
    if (log->fd < 0)
        return LGC_OK;
    size_t len = (size_t)snprintf(log->line, log->size, "%s,%.17g", log->names[event], t);
    for (int i = 0; i < 2 * m->nq; i++)
        len += (size_t)snprintf(log->line + len, log->size - len, ",%.17g", x[i] + 0.0);
    log->line[len++] = '\n';
    int rc = write_whole(log->fd, log->line, len);
    log->failed = log->failed || rc != LGC_OK;
    return rc;
}
