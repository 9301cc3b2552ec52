/* csv.c — writing samples as CSV, whole lines only (columns: CSV-COLUMNS in csv.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lagrangec/csv.h"
#include "lagrangec/status.h"

/* Longest "%.17g" of a double, -1.2345678901234567e-308, and its comma. */
#define NUMBER_MAX 25
/* Longest column name written: a coordinate's or constraint row's name and 9 more bytes ("lambda[]" and its comma). */
#define NAME_EXTRA 10

struct lgc_csv {
    const lgc_model *model;
    int fd;
    off_t end;              /* offset after the last whole line */
    size_t size;
    char *line;
};

int lgc_csv_column_q(const lgc_model *m) { (void)m; return 1; }
int lgc_csv_column_phi(const lgc_model *m) { return 1 + 2 * m->nq; }
int lgc_csv_column_phi_dot(const lgc_model *m) { return lgc_csv_column_phi(m) + m->nh; }
int lgc_csv_column_g(const lgc_model *m) { return lgc_csv_column_phi_dot(m) + m->nh; }
int lgc_csv_column_energy(const lgc_model *m) { return lgc_csv_column_g(m) + m->nn; }
int lgc_csv_column_multipliers(const lgc_model *m) { return lgc_csv_column_energy(m) + 1; }
int lgc_csv_column_force(const lgc_model *m) { return lgc_csv_column_multipliers(m) + m->nh + m->nn; }
int lgc_csv_column_outputs(const lgc_model *m) { return lgc_csv_column_force(m) + m->nq; }
int lgc_csv_column_modes(const lgc_model *m) { return lgc_csv_column_outputs(m) + m->nout; }
int lgc_csv_columns(const lgc_model *m) { return lgc_csv_column_modes(m) + m->nfriction; }

/* "prefix[row]": row c of [holonomic; nonholonomic] by its column name, k its number in its kind. */
static void row_column(const lgc_model *m, const char *prefix, int c, int k, char *buf, size_t size)
{
    if (m->constraint_columns)
        snprintf(buf, size, "%s[%s]", prefix, m->constraint_columns[c]);
    else
        snprintf(buf, size, "%s[%d]", prefix, k);
}

void lgc_csv_column_name(const lgc_model *m, int j, char *buf, size_t size)
{
    const char *const *q = m->coordinate_names;
    const int phi = lgc_csv_column_phi(m), phi_dot = lgc_csv_column_phi_dot(m),
              g = lgc_csv_column_g(m), mult = lgc_csv_column_multipliers(m),
              fc = lgc_csv_column_force(m), out = lgc_csv_column_outputs(m);
    if (j == 0)
        snprintf(buf, size, "t");
    else if (j < 1 + m->nq)
        snprintf(buf, size, "%s", q[j - 1]);
    else if (j < phi)
        snprintf(buf, size, "%s'", q[j - 1 - m->nq]);
    else if (j < phi_dot)
        row_column(m, "phi", j - phi, j - phi + 1, buf, size);
    else if (j < g) {
        row_column(m, "phi", j - phi_dot, j - phi_dot + 1, buf, size);
        size_t len = 0;
        while (buf[len])
            len++;
        if (len + 1 < size)
            buf[len] = '\'', buf[len + 1] = '\0';
    } else if (j < g + m->nn)
        row_column(m, "g", m->nh + j - g, j - g + 1, buf, size);
    else if (j == g + m->nn)
        snprintf(buf, size, "%s", m->integral == LGC_INTEGRAL_JACOBI ? "h" : "T+V");
    else if (j < mult + m->nh)
        row_column(m, "lambda", j - mult, j - mult + 1, buf, size);
    else if (j < fc)
        row_column(m, "mu", j - mult, j - mult - m->nh + 1, buf, size);
    else if (j < out)
        snprintf(buf, size, "Fc[%s]", q[j - fc]);
    else if (j < out + m->nout)
        snprintf(buf, size, "%s", m->output_names[j - out]);
    else
        snprintf(buf, size, "mode[%s]", m->friction_names[j - out - m->nout]);
}

lgc_csv *lgc_csv_open(int fd, const lgc_model *m)
{
    lgc_csv *w = calloc(1, sizeof *w);
    size_t longest = 0;
    const int rows = m->constraint_columns ? m->nh + m->nn : 0;
    for (int i = 0; i < m->nq + rows + m->nout + m->nfriction; i++) {
        const char *name = i < m->nq                    ? m->coordinate_names[i]
                           : i < m->nq + rows           ? m->constraint_columns[i - m->nq]
                           : i < m->nq + rows + m->nout ? m->output_names[i - m->nq - rows]
                                                        : m->friction_names[i - m->nq - rows - m->nout];
        size_t len = 0;
        while (name[len])
            len++;
        longest = len > longest ? len : longest;
    }
    const size_t per_column = NUMBER_MAX > longest + NAME_EXTRA ? NUMBER_MAX : longest + NAME_EXTRA;
    if (w)
        w->size = (size_t)lgc_csv_columns(m) * per_column + 2;
    if (!w || !(w->line = malloc(w->size))) {
        free(w);
        return NULL;
    }
    w->model = m;
    w->fd = fd;
    w->end = lseek(fd, 0, SEEK_CUR);
    return w;
}

void lgc_csv_free(lgc_csv *w)
{
    if (w)
        free(w->line);
    free(w);
}

/* Writes line[0..len) whole, or cuts the file back to the last whole line. */
static int write_line(lgc_csv *w, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = write(w->fd, w->line + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int err = n == 0 ? ENOSPC : errno;
            /* A pipe or terminal has no length to cut; a file keeps whole lines. */
            if (done > 0 && w->end >= 0 && ftruncate(w->fd, w->end) == 0)
                lseek(w->fd, w->end, SEEK_SET);
            errno = err;
            return LGC_ERR_IO;
        }
        done += (size_t)n;
    }
    if (w->end >= 0)
        w->end += (off_t)len;
    return LGC_OK;
}

int lgc_csv_header(lgc_csv *w)
{
    const int columns = lgc_csv_columns(w->model);
    size_t len = 0;
    for (int j = 0; j < columns; j++) {
        if (j > 0)
            w->line[len++] = ',';
        lgc_csv_column_name(w->model, j, w->line + len, w->size - len - 1);
        while (w->line[len])
            len++;
    }
    w->line[len++] = '\n';
    return write_line(w, len);
}

static size_t put(lgc_csv *w, size_t len, double v)
{
    int n = snprintf(w->line + len, w->size - len, len > 0 ? ",%.17g" : "%.17g", v + 0.0);
    return len + (size_t)n;
}

int lgc_csv_row(lgc_csv *w, const lgc_sample *s)
{
    const lgc_model *m = w->model;
    size_t len = put(w, 0, s->t);
    for (int i = 0; i < 2 * m->nq; i++)
        len = put(w, len, s->x[i]);
    for (int i = 0; i < 2 * m->nh + m->nn; i++)     /* phi, phi', g: contiguous */
        len = put(w, len, s->phi[i]);
    len = put(w, len, s->energy);
    for (int i = 0; i < m->nh + m->nn; i++)
        len = put(w, len, s->mult[i]);
    for (int i = 0; i < m->nq; i++)
        len = put(w, len, s->fc[i]);
    for (int i = 0; i < m->nout; i++)
        len = put(w, len, s->out[i]);
    for (int k = 0; k < m->nfriction; k++)
        len = put(w, len, s->mode[k]);
    w->line[len++] = '\n';
    return write_line(w, len);
}

int lgc_csv_fault(lgc_csv *w, double t, const char *reason)
{
    int n = snprintf(w->line, w->size, "# fault at t = %.17g: %s", t + 0.0, reason);
    size_t len = n < 0 ? 0 : (size_t)n < w->size - 1 ? (size_t)n : w->size - 2;
    for (size_t i = 0; i < len; i++)    /* one line, whatever the reason holds */
        if (w->line[i] == '\n' || w->line[i] == '\r')
            w->line[i] = ' ';
    w->line[len++] = '\n';
    return write_line(w, len);
}
