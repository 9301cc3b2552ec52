/*
** plot.c — the PNG of a run: panels stacked on one t axis, each quantity on
** a y axis of its own (each coordinate, or each column --plot-columns
** names; the contacts' gaps; the other constraint rows' residuals on a log
** scale; the integral's error), under the path of --plot-path on equal
** scales. The ranges come from the CSV, read here first: a flat or empty
** curve gets a range made for it, as gnuplot would warn of it. gnuplot.c
** runs the script; names reach it as text (lgc_gnuplot_text), never code.
*/
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangec/status.h"
#include "programs.h"

/* The CSV as gnuplot opens it: descriptor 3 of the child. */
#define CSV "'/dev/fd/3'"

/*
** The picture, in pixels: margins for the y labels and the keys, a band per
** panel title, the t axis's numbers and label at the bottom (the path's
** below it too), the path's plot area.
*/
enum { WIDTH = 1000, LEFT = 130, RIGHT = 200, TOP = 46, BOTTOM = 56, TITLE_BAND = 26, SPACE = 16,
       PATH_HEIGHT = 400 };

/* Residuals on a log axis: exact zeros are drawn at the floor, not dropped. */
#define FLOOR 1e-17

/* A column's finite values: how many, their extremes and those of their magnitudes. */
typedef struct extent {
    long n;
    double lo, hi, abs_lo, abs_hi;
} extent;

typedef enum panel_kind { PANEL_COLUMN, PANEL_GAPS, PANEL_RESIDUALS, PANEL_INTEGRAL } panel_kind;

typedef struct panel {
    panel_kind kind;
    int column;                 /* PANEL_COLUMN's */
    int height;                 /* of its plot area */
    const char *title;          /* NULL: none */
} panel;

typedef struct plot {
    const lgc_model *m;
    const lgc_sim_options *opt;
    double energy0;
    int integral_kept;
    extent *ext;                /* per CSV column */
    panel *panels;              /* against t, top to bottom */
    int npanels;
    int path_x, path_y;         /* --plot-path's columns; -1: no path */
    int height;
    char integral_title[96];
} plot;

/* Row i of [phi; phi'; g] is a contact's (its phi is a gap while off, its phi' a rate of approach). */
static int contact_row(const lgc_model *m, int i)
{
    return i < 2 * m->nh && i % m->nh >= m->nh - m->ncontact;
}

/*
** Row i of [phi; phi'; g] is a friction contact's slip: the CSV column
** (from 0) of that contact's mode, whose 0 says when the slip is a
** residual (sticking); else -1.
*/
static int slip_mode_column(const lgc_model *m, int i)
{
    for (int k = 0; i >= 2 * m->nh && k < 2 * m->nfriction; k++)
        if (m->friction_slip_rows[k] == i - m->nh)
            return lgc_csv_column_modes(m) + k / 2;
    return -1;
}

int lgc_plot_column(const lgc_model *m, const char *name, size_t len)
{
    const int dot = len > 4 && memcmp(name + len - 4, "_dot", 4) == 0;
    char buf[256];
    for (int j = 1; j < lgc_csv_columns(m); j++) {
        lgc_csv_column_name(m, j, buf, sizeof buf);
        const size_t n = strlen(buf);
        const int velocity = j > m->nq && j <= 2 * m->nq;
        if ((n == len && memcmp(buf, name, len) == 0)
            || (dot && velocity && n + 3 == len && memcmp(buf, name, n - 1) == 0))
            return j;
    }
    return -1;
}

/* "  known columns: x, y, ..." on stderr: the columns a name may take. */
static void list_columns(const lgc_model *m)
{
    const int n = lgc_csv_columns(m) - 1;
    char *text = malloc((size_t)n * 256 + 1);
    const char **names = malloc(((size_t)n + 1) * sizeof *names);
    if (text && names) {
        for (int j = 0; j < n; j++) {
            names[j] = text + (size_t)j * 256;
            lgc_csv_column_name(m, j + 1, text + (size_t)j * 256, 256);
        }
        lgc_list_names("columns", names, n);
    }
    free(text);
    free(names);
}

/* Each name of option's list a column (count of them into *count): LGC_EXIT_OK, or USAGE after a message. */
static int check_names(const lgc_model *m, const char *option, const char *list, int *count)
{
    *count = 0;
    for (const char *s = list;; s++) {
        const size_t len = strcspn(s, ",");
        if (len == 0 || lgc_plot_column(m, s, len) < 0) {
            lgc_input_error e = {0, lgc_text_column(list, s), ""};
            if (len == 0)
                snprintf(e.message, sizeof e.message, "an empty name (NAME,NAME,...)");
            else
                snprintf(e.message, sizeof e.message, "no column '%.*s' in the run's CSV (t is "
                         "every panel's axis)", (int)(len < 64 ? len : 64), s);
            lgc_input_error_print(option, list, strlen(list), &e);
            if (len > 0)
                list_columns(m);
            return LGC_EXIT_USAGE;
        }
        ++*count;
        s += len;
        if (!*s)
            return LGC_EXIT_OK;
    }
}

int lgc_plot_settle(const lgc_sim_options *opt, const lgc_model *m)
{
    int n, rc;
    if ((opt->plot_columns || opt->plot_path) && !opt->plot)
        return lgc_usage_error("%s draws on --plot's picture: give --plot FILE.png",
                               opt->plot_columns ? "--plot-columns" : "--plot-path");
    if (opt->plot_columns && (rc = check_names(m, "--plot-columns", opt->plot_columns, &n)) != LGC_EXIT_OK)
        return rc;
    if (opt->plot_path && (rc = check_names(m, "--plot-path", opt->plot_path, &n)) != LGC_EXIT_OK)
        return rc;
    if (opt->plot_path && n != 2)
        return lgc_usage_error("bad value '%s' for --plot-path: two columns, X,Y", opt->plot_path);
    return LGC_EXIT_OK;
}

/* The extents of every column of the CSV at fd, read from its start (its own offset). */
static int read_extents(int fd, const lgc_model *m, extent ext[])
{
    const int ncol = lgc_csv_columns(m);
    for (int j = 0; j < ncol; j++)
        ext[j] = (extent){0, INFINITY, -INFINITY, INFINITY, -INFINITY};
    char path[32];
    snprintf(path, sizeof path, "/dev/fd/%d", fd);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    for (long k = 0; getline(&line, &cap, f) > 0; k++) {
        if (k == 0 || line[0] == '#')   /* the header; a fault row */
            continue;
        char *p = line;
        for (int j = 0; j < ncol && p; j++) {
            char *end;
            const double v = strtod(p, &end);
            if (end != p && isfinite(v)) {
                extent *e = &ext[j];
                e->n++;
                e->lo = fmin(e->lo, v), e->hi = fmax(e->hi, v);
                e->abs_lo = fmin(e->abs_lo, fabs(v)), e->abs_hi = fmax(e->abs_hi, fabs(v));
            }
            p = strchr(end, ',');
            p = p ? p + 1 : NULL;
        }
    }
    free(line);
    fclose(f);
    return 0;
}

/* Values from lo to hi that gnuplot could not scale: none, or all the same (to 1e-12). */
static int flat(double lo, double hi)
{
    return hi - lo <= 1e-12 * fmax(fabs(lo), fabs(hi));
}

/* A tic step of 1, 2 or 5 times a power of 10 giving four to ten tics over lo..hi: a short panel's few. */
static double tic_step(double lo, double hi)
{
    const double rough = (hi - lo) / 4.0, unit = pow(10.0, floor(log10(rough)));
    return rough <= unit ? unit : rough <= 2 * unit ? 2 * unit : rough <= 5 * unit ? 5 * unit : 10 * unit;
}

/*
** axis's range for n values from lo to hi: gnuplot's autoscale (or exactly
** lo..hi: fixed), but around a flat curve and, for none, a placeholder;
** a linear y axis's tics few enough for a short panel.
*/
static void set_range(FILE *gp, char axis, long n, double lo, double hi, int log, int fixed)
{
    if (axis == 'y' && !log && n > 0 && !flat(lo, hi)) {
        /* Digits enough that tics a step apart read apart (T+V = 0.5 with steps of 5e-9). */
        const double step = tic_step(lo, hi);
        const int digits = (int)ceil(log10(fmax(fabs(lo), fabs(hi)) / step)) + 1;
        fprintf(gp, "set ytics %.17g\nset format y '%%.%dg'\n", step, digits < 6 ? 6 : digits > 17 ? 17 : digits);
    } else if (axis == 'y') {
        fputs(log ? "set ytics autofreq\n" : "set ytics autofreq\nset format y '%g'\n", gp);
    }
    if (n == 0)
        fprintf(gp, "set %crange [%g:1]\n", axis, log ? FLOOR : 0.0);
    else if (flat(lo, hi) && log)
        fprintf(gp, "set %crange [%.17g:%.17g]\n", axis, lo / 10, hi * 10);
    else if (flat(lo, hi)) {
        const double d = lo != 0.0 ? 0.05 * fabs(lo) : 1.0;
        fprintf(gp, "set %crange [%.17g:%.17g]\n", axis, lo - d, hi + d);
    } else if (fixed)
        fprintf(gp, "set %crange [%.17g:%.17g]\n", axis, lo, hi);
    else
        fprintf(gp, "set %crange [*:*]\n", axis);
}

/* A panel with no finite value to draw says so. */
static void say_empty(FILE *gp, long n)
{
    if (n == 0)
        fputs("set label 1 'no finite value' at graph 0.5,0.5 center\n", gp);
    else
        fputs("unset label 1\n", gp);
}

/* The plot area from y_top to y_bottom pixels down, between the left and right margins. */
static void place(FILE *gp, const plot *p, int y_top, int y_bottom)
{
    fprintf(gp, "set lmargin at screen %.6f\nset rmargin at screen %.6f\n"
                "set tmargin at screen %.6f\nset bmargin at screen %.6f\n",
            (double)LEFT / WIDTH, 1.0 - (double)RIGHT / WIDTH, 1.0 - (double)y_top / p->height,
            1.0 - (double)y_bottom / p->height);
}

/* ylabel and a curve's title are names: text to gnuplot. */
static void ylabel(FILE *gp, const char *text)
{
    fputs("set ylabel ", gp);
    lgc_gnuplot_text(gp, text);
    fputc('\n', gp);
}

/*
** The path: Y against X, from its start (a dot), on equal scales. The
** ranges are set so a unit is as many pixels on both axes: the larger
** extent, padded, fills its side.
*/
static void path_panel(FILE *gp, const plot *p, int y_top)
{
    const lgc_model *m = p->m;
    const extent *ex = &p->ext[p->path_x], *ey = &p->ext[p->path_y];
    const int y_bottom = y_top + PATH_HEIGHT;
    place(gp, p, y_top, y_bottom);
    char x_name[256], y_name[256];
    lgc_csv_column_name(m, p->path_x, x_name, sizeof x_name);
    lgc_csv_column_name(m, p->path_y, y_name, sizeof y_name);
    fputs("set title 'path (equal scales)'\nset xlabel ", gp);
    lgc_gnuplot_text(gp, x_name);
    fputc('\n', gp);
    ylabel(gp, y_name);
    const long n = ex->n < ey->n ? ex->n : ey->n;
    say_empty(gp, n);
    if (n == 0) {
        fputs("set xrange [0:1]\nset yrange [0:1]\n", gp);
    } else {
        const double width = WIDTH - LEFT - RIGHT, height = y_bottom - y_top;
        const double dx = flat(ex->lo, ex->hi) ? (ex->lo != 0 ? 0.1 * fabs(ex->lo) : 2.0) : 1.1 * (ex->hi - ex->lo),
                     dy = flat(ey->lo, ey->hi) ? (ey->lo != 0 ? 0.1 * fabs(ey->lo) : 2.0) : 1.1 * (ey->hi - ey->lo);
        const double per_unit = fmin(width / dx, height / dy);
        const double xm = 0.5 * (ex->lo + ex->hi), ym = 0.5 * (ey->lo + ey->hi);
        fprintf(gp, "set xrange [%.17g:%.17g]\nset yrange [%.17g:%.17g]\n", xm - 0.5 * width / per_unit,
                xm + 0.5 * width / per_unit, ym - 0.5 * height / per_unit, ym + 0.5 * height / per_unit);
    }
    fprintf(gp, "set key inside left top box opaque\nset ytics autofreq\n"
                "plot " CSV " using %d:%d with lines lw 1.5 notitle, '' every ::0::0 using %d:%d "
                "with points pt 7 ps 1.2 title 'start'\n",
            p->path_x + 1, p->path_y + 1, p->path_x + 1, p->path_y + 1);
    fputs("unset title\nunset xlabel\nset key outside right top nobox noopaque\n", gp);
}

/* The contacts' phi, signed: a gap while off, below 0 inside. */
static void gap_curves(FILE *gp, const plot *p)
{
    const lgc_model *m = p->m;
    const int first = lgc_csv_column_phi(m) + m->nh - m->ncontact;
    double lo = INFINITY, hi = -INFINITY;
    long n = 0;
    for (int c = 0; c < m->ncontact; c++) {
        const extent *e = &p->ext[first + c];
        n += e->n;
        lo = fmin(lo, e->lo), hi = fmax(hi, e->hi);
    }
    say_empty(gp, n);
    set_range(gp, 'y', n, lo, hi, 0, 0);
    fputs("set ylabel 'gap'\nset xzeroaxis lt -1\nplot ", gp);
    for (int c = 0; c < m->ncontact; c++) {
        char name[256];
        lgc_csv_column_name(m, first + c, name, sizeof name);
        fprintf(gp, "%s" CSV " using 1:%d with lines title ", c ? ", " : "", first + c + 1);
        lgc_gnuplot_text(gp, name);
    }
    fputs("\nunset xzeroaxis\n", gp);
}

/*
** |residual| of each row but the contacts', at the floor where below it; a
** friction contact's slip only while it sticks (sliding, it is no error).
*/
static void residual_curves(FILE *gp, const plot *p)
{
    const lgc_model *m = p->m;
    const int first = lgc_csv_column_phi(m);
    double lo = INFINITY, hi = FLOOR;
    long n = 0;
    for (int i = 0; i < 2 * m->nh + m->nn; i++)
        if (!contact_row(m, i) && p->ext[first + i].n > 0) {
            n += p->ext[first + i].n;
            lo = fmin(lo, fmax(p->ext[first + i].abs_lo, FLOOR));
            hi = fmax(hi, p->ext[first + i].abs_hi);
        }
    say_empty(gp, n);
    fputs("set logscale y\nset format y '%.0e'\nset ylabel '|residual|'\n", gp);
    set_range(gp, 'y', n, lo, hi, 1, 0);
    int any = 0;
    for (int i = 0; i < 2 * m->nh + m->nn; i++) {
        if (contact_row(m, i))
            continue;
        char name[256], title[260];
        lgc_csv_column_name(m, first + i, name, sizeof name);
        snprintf(title, sizeof title, "|%s|", name);
        const int mode = slip_mode_column(m, i);
        if (mode >= 0)
            fprintf(gp, "%s" CSV " using 1:(column(%d) == 0 ? max(abs(column(%d))) : NaN) with lines title ",
                    any++ ? ", " : "plot ", mode + 1, first + i + 1);
        else
            fprintf(gp, "%s" CSV " using 1:(max(abs(column(%d)))) with lines title ", any++ ? ", " : "plot ",
                    first + i + 1);
        lgc_gnuplot_text(gp, title);
    }
    fputs("\nunset logscale y\nset format y '%g'\n", gp);
}

/* The integral's error: T + V's, or the Jacobi integral h's, relative to |its start| when not 0. */
static void integral_curve(FILE *gp, const plot *p)
{
    const lgc_model *m = p->m;
    const extent *e = &p->ext[lgc_csv_column_energy(m)];
    const double scale = p->energy0 != 0.0 ? fabs(p->energy0) : 1.0;
    const int jacobi = m->integral == LGC_INTEGRAL_JACOBI;
    say_empty(gp, e->n);
    set_range(gp, 'y', e->n, (e->lo - p->energy0) / scale, (e->hi - p->energy0) / scale, 0, 0);
    fprintf(gp, "set ylabel '%s'\n", jacobi ? "Jacobi integral error" : "energy error");
    fprintf(gp, "plot " CSV " using 1:((column(%d) - (%.17g)) / %.17g) with lines notitle\n",
            lgc_csv_column_energy(m) + 1, p->energy0, scale);
}

/* The integral panel's title: which integral, relative or not, and whether the model keeps it. */
static void integral_title(const plot *p, char *buf, size_t size)
{
    const int jacobi = p->m->integral == LGC_INTEGRAL_JACOBI;
    const char *name = jacobi ? "Jacobi integral" : "energy", *v = jacobi ? "h" : "E";
    if (p->energy0 != 0.0)
        snprintf(buf, size, "relative %s error (%s - %s0)/|%s0|", name, v, v, v);
    else
        snprintf(buf, size, "%s error %s - %s0 (%s0 = 0)", name, v, v, v);
    if (!p->integral_kept)
        snprintf(buf + strlen(buf), size - strlen(buf), ", not conserved (the summary says why)");
}

/* One panel against t; the last one, at the bottom, carries the t axis's numbers. */
static void time_panel(FILE *gp, const plot *p, const panel *q, int last)
{
    if (q->title)
        fprintf(gp, "set title '%s'\n", q->title);
    else
        fputs("unset title\n", gp);
    fputs(last ? "set format x '%g'\nset xlabel 't'\n" : "set format x ''\nunset xlabel\n", gp);
    switch (q->kind) {
    case PANEL_COLUMN: {
        char name[256];
        lgc_csv_column_name(p->m, q->column, name, sizeof name);
        ylabel(gp, name);
        const extent *e = &p->ext[q->column];
        say_empty(gp, e->n);
        set_range(gp, 'y', e->n, e->lo, e->hi, 0, 0);
        fprintf(gp, "plot " CSV " using 1:%d with lines notitle\n", q->column + 1);
        break;
    }
    case PANEL_GAPS: gap_curves(gp, p); break;
    case PANEL_RESIDUALS: residual_curves(gp, p); break;
    case PANEL_INTEGRAL: integral_curve(gp, p); break;
    }
}

/* The whole script, in gnuplot's own terms. */
static void script(FILE *gp, const void *ctx)
{
    const plot *p = ctx;
    lgc_gnuplot_begin(gp, WIDTH, p->height);
    fprintf(gp, "set key autotitle columnhead\nset key outside right top\n"
                "max(v) = v > %g ? v : %g\nrun_title = ", FLOOR, FLOOR);
    lgc_gnuplot_text(gp, p->m->name);
    if (p->m->title) {
        fputs(".': '.", gp);
        lgc_gnuplot_text(gp, p->m->title);
    }
    fputs("\nset multiplot title run_title\n", gp);
    int y = TOP;
    if (p->path_x >= 0) {
        path_panel(gp, p, y + TITLE_BAND);
        y += TITLE_BAND + PATH_HEIGHT + BOTTOM;
    }
    const extent *t = &p->ext[0];
    set_range(gp, 'x', t->n, t->lo, t->hi, 0, 1);
    for (int k = 0; k < p->npanels; k++) {
        const panel *q = &p->panels[k];
        y += q->title ? TITLE_BAND : 0;
        place(gp, p, y, y + q->height);
        time_panel(gp, p, q, k == p->npanels - 1);
        y += q->height + SPACE;
    }
    fputs("unset multiplot\n", gp);
}

/* A panel's height: at least least pixels, and room for the key's lines of its n curves. */
static int key_height(int n, int least)
{
    return 18 * n + 24 > least ? 18 * n + 24 : least;
}

/* The panels against t, and the picture's height. */
static int lay_out(plot *p)
{
    const lgc_model *m = p->m;
    const char *list = p->opt->plot_columns;
    int ncolumns = m->nq;
    if (list) {     /* settled: a name between each two commas */
        ncolumns = 1;
        for (const char *c = list; *c; c++)
            ncolumns += *c == ',';
    }
    p->panels = calloc((size_t)ncolumns + 3, sizeof *p->panels);
    if (!p->panels)
        return -1;
    const int column_height = ncolumns <= 4 ? 150 : 110;
    for (int k = 0; k < ncolumns; k++) {
        int column = lgc_csv_column_q(m) + k;
        if (list) {
            const char *s = list;
            for (int skip = k; skip > 0; skip--)
                s = strchr(s, ',') + 1;
            column = lgc_plot_column(m, s, strcspn(s, ","));
        }
        p->panels[p->npanels++] = (panel){PANEL_COLUMN, column, column_height, NULL};
    }
    int residual_rows = 0;
    for (int i = 0; i < 2 * m->nh + m->nn; i++)
        residual_rows += !contact_row(m, i);
    /* Tall enough for the key's lines beside it, one per curve. */
    if (m->ncontact > 0)
        p->panels[p->npanels++] = (panel){PANEL_GAPS, -1, key_height(m->ncontact, 170),
                                          "contact gaps, signed (below 0: inside)"};
    if (residual_rows > 0)
        p->panels[p->npanels++] = (panel){PANEL_RESIDUALS, -1, key_height(residual_rows, 200),
                                          "constraint residuals (values below 1e-17 drawn at 1e-17)"};
    integral_title(p, p->integral_title, sizeof p->integral_title);
    p->panels[p->npanels++] = (panel){PANEL_INTEGRAL, -1, 160, p->integral_title};
    p->path_x = p->path_y = -1;
    if (p->opt->plot_path) {
        const char *s = p->opt->plot_path, *comma = strchr(s, ',');
        p->path_x = lgc_plot_column(m, s, (size_t)(comma - s));
        p->path_y = lgc_plot_column(m, comma + 1, strlen(comma + 1));
    }
    p->height = TOP + BOTTOM - SPACE + (p->path_x >= 0 ? TITLE_BAND + PATH_HEIGHT + BOTTOM : 0);
    for (int k = 0; k < p->npanels; k++)
        p->height += (p->panels[k].title ? TITLE_BAND : 0) + p->panels[k].height + SPACE;
    return 0;
}

int lgc_plot(const lgc_model *m, const lgc_sim_options *opt, const char *gnuplot, int csv_fd,
             int png_fd, double energy0, int integral_kept)
{
    plot p = {.m = m, .opt = opt, .energy0 = energy0, .integral_kept = integral_kept,
              .path_x = -1, .path_y = -1};
    int rc = LGC_ERR_IO;
    if (!(p.ext = calloc((size_t)lgc_csv_columns(m), sizeof *p.ext)) || lay_out(&p) != 0)
        fprintf(stderr, "lagrangec: plot: %s\n", lgc_strerror(LGC_ERR_NOMEM));
    else if (read_extents(csv_fd, m, p.ext) != 0)
        perror("lagrangec: plot: reading the run's CSV");
    else
        rc = lgc_gnuplot_render(gnuplot, csv_fd, png_fd, script, &p);
    free(p.ext);
    free(p.panels);
    return rc;
}
