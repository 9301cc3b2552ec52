/*
** sweep_plot.c — a sweep's PNG: the spread of one result over the runs
** that ended ok, a histogram of a column of the index with its median and
** 5% and 95% quantiles marked, and the number of runs in the title. The
** values are the index's statistics' (sweep_stats.c: sorted, finite, of ok
** runs); the counts reach gnuplot as a datablock of numbers, the names as
** text (lgc_gnuplot_text).
*/
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangec/status.h"
#include "programs.h"

/* The most bins drawn: more are bars too thin to see. */
#define MAX_BINS 80

/* Quantiles of lgc_stats_quantiles by index: q05, q25, median, q75, q95. */
enum { Q05 = 1, Q25 = 2, MEDIAN = 3, Q75 = 4, Q95 = 5 };

typedef struct histogram {
    const lgc_model *m;
    const lgc_stats_table *t;
    const lgc_column_stats *c;
} histogram;

int lgc_sweep_plot_column(const lgc_stats_table *t, const char *name)
{
    for (int j = 0; j < t->ncols; j++)
        if (strcmp(t->col[j].name, name) == 0)
            return j;
    return -1;
}

/*
** Bins of the Freedman-Diaconis width, 2 IQR / n^(1/3) (the square root
** of n of them when the IQR is 0), from the least value; all values the
** same: one bin around them.
*/
static int bins(const lgc_column_stats *c, double *start, double *width)
{
    const double lo = c->values[0], hi = c->values[c->count - 1];
    if (hi - lo <= 1e-12 * fmax(fabs(lo), fabs(hi))) {
        *width = lo != 0.0 ? 0.1 * fabs(lo) : 1.0;
        *start = lo - 0.5 * *width;
        return 1;
    }
    const double iqr = c->q[Q75] - c->q[Q25], fd = 2.0 * iqr / cbrt((double)c->count);
    double n = fd > 0.0 ? ceil((hi - lo) / fd) : ceil(sqrt((double)c->count));
    n = fmax(1.0, fmin(n, MAX_BINS));
    *start = lo;
    *width = (hi - lo) / n;
    return (int)n;
}

static void script(FILE *gp, const void *ctx)
{
    const histogram *h = ctx;
    const lgc_column_stats *c = h->c;
    double start, width;
    const int n = bins(c, &start, &width);
    unsigned long counts[MAX_BINS] = {0}, most = 1;
    for (size_t i = 0; i < c->count; i++) {
        int k = (int)((c->values[i] - start) / width);
        k = k < 0 ? 0 : k >= n ? n - 1 : k;
        if (++counts[k] > most)
            most = counts[k];
    }
    lgc_gnuplot_begin(gp, 1000, 560);
    fputs("$bins << EOD\n", gp);
    for (int k = 0; k < n; k++)
        fprintf(gp, "%.17g,%lu\n", start + (k + 0.5) * width, counts[k]);
    fputs("EOD\n", gp);
    const unsigned long ok = h->t->runs - h->t->failures;
    fputs("set title ", gp);
    lgc_gnuplot_text(gp, h->m->name);
    fputs(".': '.", gp);
    lgc_gnuplot_text(gp, c->name);
    fprintf(gp, ".' over the %lu runs that ended ok (of %lu)", ok, h->t->runs);
    if (c->count != ok)
        fprintf(gp, ", %zu with a finite value", c->count);
    fputs("'\nset xlabel ", gp);
    lgc_gnuplot_text(gp, c->name);
    fprintf(gp, "\nset ylabel 'runs'\nset key below horizontal\nset bmargin 5.5\n"
                "set boxwidth %.17g absolute\nset style fill solid 0.5 border -1\n"
                "set xrange [%.17g:%.17g]\nset yrange [0:%g]\n",
            width, start - width, start + (n + 1) * width, ceil(1.1 * (double)most));
    /* The median, and the 5% and 95% quantiles (one key entry for the two). */
    static const char median_style[] = "dt 1 lw 2 lc rgb '#c00000'",
                      tail_style[] = "dt 2 lw 1.5 lc rgb '#303030'";
    const int mark[] = {MEDIAN, Q05, Q95};
    for (int k = 0; k < 3; k++)
        fprintf(gp, "set arrow %d from %.17g, graph 0 to %.17g, graph 1 nohead front %s\n", k + 1,
                c->q[mark[k]], c->q[mark[k]], k == 0 ? median_style : tail_style);
    fprintf(gp, "plot $bins using 1:2 with boxes lc rgb '#4a7ab5' title 'runs per bin (%.4g wide)', "
                "keyentry with lines %s title 'median %.6g', "
                "keyentry with lines %s title '5%% and 95%%: %.6g, %.6g'",
            width, median_style, c->q[MEDIAN], tail_style, c->q[Q05], c->q[Q95]);
    fputc('\n', gp);
}

int lgc_sweep_plot(const lgc_model *m, const lgc_stats_table *t, int column, const char *gnuplot,
                   int png_fd)
{
    const histogram h = {m, t, &t->col[column]};
    if (h.c->count == 0) {
        fprintf(stderr, "lagrangec: --plot: no run ended ok with a finite %s: no histogram\n",
                h.c->name);
        return LGC_ERR_IO;
    }
    return lgc_gnuplot_render(gnuplot, -1, png_fd, script, &h);
}
