/* plot.c — one PNG of a run (trajectory, residuals, energy) through gnuplot. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <sys/wait.h>

#include "lagrangec/csv.h"
#include "lagrangec/status.h"
#include "simulate_internal.h"

/* A gnuplot single-quoted string: the only escape is '' for '. */
static void quoted(FILE *gp, const char *s)
{
    fputc('\'', gp);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', gp);
        fputc(*s, gp);
    }
    fputc('\'', gp);
}

/* Residuals on a log axis: exact zeros are drawn at the floor, not dropped. */
static void residual_curves(FILE *gp, const char *csv, int first, int count,
                            const char *fmt, int *any)
{
    for (int i = 0; i < count; i++) {
        fputs(*any ? ", " : "plot ", gp);
        quoted(gp, csv);
        fprintf(gp, " using 1:(max(abs(column(%d)))) with lines title '", first + i);
        fprintf(gp, fmt, i + 1);
        fputs("'", gp);
        *any = 1;
    }
}

int sim_plot(const lgc_model *m, const char *csv, const char *png, double energy0)
{
    FILE *gp = popen("gnuplot", "w");
    if (!gp)
        return LGC_ERR_IO;
    /* noenhanced: names like knife_edge must not turn into subscripts */
    fputs("set terminal pngcairo noenhanced size 1000,1100 font 'sans,10'\n"
          "set output ", gp);
    quoted(gp, png);
    fputs("\nset datafile separator ','\nset key autotitle columnhead\n"
          "set key outside right top\nset grid\nset lmargin 12\nset rmargin 18\n"
          "floor = 1e-17\nmax(v) = v > floor ? v : floor\n", gp);
    fprintf(gp, "set multiplot layout 3,1 title '%s: %s'\n", m->name,
            m->title ? m->title : "");

    /* 1: coordinates against t */
    fputs("set title 'trajectory'\nset ylabel 'coordinates'\nplot ", gp);
    for (int i = 0; i < m->nq; i++) {
        fputs(i ? ", " : "", gp);
        quoted(gp, csv);
        fprintf(gp, " using 1:%d with lines", lgc_csv_column_q(m) + i);
    }
    fputc('\n', gp);

    /* 2: constraint residuals */
    int any = 0;
    fputs("set title 'constraint residuals (values below 1e-17 drawn at 1e-17)'\n"
          "set logscale y\nset format y '%.0e'\nset ylabel '|residual|'\n", gp);
    residual_curves(gp, csv, lgc_csv_column_phi(m), m->nh, "|phi%d|", &any);
    residual_curves(gp, csv, lgc_csv_column_phi_dot(m), m->nh, "|phi%d''|", &any);
    residual_curves(gp, csv, lgc_csv_column_g(m), m->nn, "|g%d|", &any);
    if (!any)
        fputs("set label 1 'no constraints' at graph 0.5,0.5 center\n"
              "plot [0:1] [1:10] 1/0 notitle\nunset label 1\n", gp);
    fputs("\nunset logscale y\nset format y '%g'\n", gp);

    /* 3: energy error */
    int ce = lgc_csv_column_energy(m);
    double scale = energy0 != 0.0 ? (energy0 < 0 ? -energy0 : energy0) : 1.0;
    fprintf(gp, "set title '%s%s'\nset xlabel 't'\nset ylabel 'energy error'\n",
            energy0 != 0.0 ? "relative energy error (E - E0)/|E0|"
                           : "energy error E - E0 (E0 = 0)",
            m->conservative ? "" : ", not conserved: applied forces or explicit time");
    fputs("plot ", gp);
    quoted(gp, csv);
    fprintf(gp, " using 1:((column(%d) - (%.17g)) / %.17g) with lines notitle\n",
            ce, energy0, scale);
    fputs("unset multiplot\n", gp);
    int status = pclose(gp);
    return status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0
               ? LGC_OK : LGC_ERR_IO;
}
