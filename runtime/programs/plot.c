/*
** plot.c — one PNG of a run (trajectory, residuals, energy) through gnuplot.
** No user text reaches gnuplot as code: the CSV and the PNG are open files
** gnuplot inherits (/dev/fd/3 and its stdout), not paths in the script; the
** column titles come from the CSV's header as data; the spec's title is a
** single-quoted string with no quote inside (each ' is spliced in as the
** expression q) and no control character. gnuplot runs without a shell.
*/
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lagrangec/status.h"
#include "programs.h"

/* The CSV as gnuplot opens it: descriptor 3 of the child. */
#define CSV "'/dev/fd/3'"

int lgc_find_program(const char *name, char *buf, size_t size)
{
    const char *path = getenv("PATH");
    for (const char *s = path ? path : ""; *s;) {
        size_t len = strcspn(s, ":");
        struct stat st;
        if (len > 0 && (size_t)snprintf(buf, size, "%.*s/%s", (int)len, s, name) < size
            && stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
            return 1;
        s += len + (s[len] == ':');
    }
    return 0;
}

/*
** The text as a gnuplot string expression: 'Newton'.q.'s cradle'. Inside
** single quotes gnuplot expands nothing (no `command`, no @macro); a quote
** never appears there (gnuplot's '' escape misreads '''' ), nor a newline,
** which would end the command.
*/
static void text_expression(FILE *gp, const char *s)
{
    fputc('\'', gp);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\'')
            fputs("'.q.'", gp);
        else
            fputc(c < 0x20 || c == 0x7f ? ' ' : c, gp);
    }
    fputc('\'', gp);
}

/*
** Residuals on a log axis: exact zeros are drawn at the floor, not dropped.
** A contact's phi is its gap while off, no residual: its curve is how far
** inside it is (-phi, at the floor while outside), and its phi', a rate
** of approach while off, is left out.
*/
static void residual_curves(FILE *gp, const lgc_model *m, int *any)
{
    const int first = lgc_csv_column_phi(m);
    for (int i = 0; i < 2 * m->nh + m->nn; i++) {
        const int contact = i < 2 * m->nh && i % m->nh >= m->nh - m->ncontact;
        if (contact && i >= m->nh)
            continue;
        char name[48], title[60];
        lgc_csv_column_name(m, first + i, name, sizeof name);
        snprintf(title, sizeof title, contact ? "inside: -%s" : "|%s|", name);
        fprintf(gp, "%s" CSV " using 1:(max(%s(column(%d)))) with lines title ", *any ? ", " : "plot ",
                contact ? "-" : "abs", first + i + 1);
        text_expression(gp, title);
        *any = 1;
    }
}

/* The whole script, in gnuplot's own terms. */
static void script(FILE *gp, const lgc_model *m, double energy0, int integral_kept)
{
    /* noenhanced: names like knife_edge must not turn into subscripts */
    fputs("set terminal pngcairo noenhanced size 1000,1100 font 'sans,10'\n"
          "set datafile separator ','\nset key autotitle columnhead\n"
          "set key outside right top\nset grid\nset lmargin 12\nset rmargin 18\n"
          "floor = 1e-17\nmax(v) = v > floor ? v : floor\nq = sprintf('%c', 39)\n"
          "run_title = ", gp);
    text_expression(gp, m->name);
    if (m->title) {
        fputs(".': '.", gp);
        text_expression(gp, m->title);
    }
    fputs("\nset multiplot layout 3,1 title run_title\n", gp);

    /* 1: coordinates against t */
    fputs("set title 'trajectory'\nset ylabel 'coordinates'\nplot ", gp);
    for (int i = 0; i < m->nq; i++)
        fprintf(gp, "%s" CSV " using 1:%d with lines", i ? ", " : "", lgc_csv_column_q(m) + i + 1);
    fputc('\n', gp);

    /* 2: constraint residuals */
    int any = 0;
    fputs(m->ncontact ? "set title 'constraint residuals, and how far inside each contact is (values below "
                        "1e-17 drawn at 1e-17)'\n"
                      : "set title 'constraint residuals (values below 1e-17 drawn at 1e-17)'\n", gp);
    fputs("set logscale y\nset format y '%.0e'\nset ylabel '|residual|'\n", gp);
    residual_curves(gp, m, &any);
    if (!any)
        fputs("set label 1 'no constraints' at graph 0.5,0.5 center\n"
              "plot [0:1] [1:10] 1/0 notitle\nunset label 1\n", gp);
    fputs("\nunset logscale y\nset format y '%g'\n", gp);

    /* 3: the integral's error: T + V's, or the Jacobi integral h's */
    double scale = energy0 != 0.0 ? (energy0 < 0 ? -energy0 : energy0) : 1.0;
    const int jacobi = m->integral == LGC_INTEGRAL_JACOBI;
    fprintf(gp, "set title '%s%s'\nset xlabel 't'\nset ylabel '%s'\n",
            energy0 != 0.0 ? (jacobi ? "relative Jacobi integral error (h - h0)/|h0|"
                                     : "relative energy error (E - E0)/|E0|")
                           : (jacobi ? "Jacobi integral error h - h0 (h0 = 0)" : "energy error E - E0 (E0 = 0)"),
            integral_kept ? "" : ", not conserved (the summary says why)",
            jacobi ? "Jacobi integral error" : "energy error");
    fprintf(gp, "plot " CSV " using 1:((column(%d) - (%.17g)) / %.17g) with lines notitle\n",
            lgc_csv_column_energy(m) + 1, energy0, scale);
    fputs("unset multiplot\n", gp);
}

/* Runs gnuplot reading the script from a pipe; its pid, or -1 with errno. */
static pid_t start(const char *gnuplot, int csv_fd, int png_fd, int *script_fd)
{
    int pipe_fd[2];
    if (pipe(pipe_fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(pipe_fd[1]);  /* else gnuplot never reads the end of its script */
        /* Out of the way of 0, 1 and 3 first, so no dup2 overwrites another. */
        int in = fcntl(pipe_fd[0], F_DUPFD, 10), csv = fcntl(csv_fd, F_DUPFD, 10),
            png = fcntl(png_fd, F_DUPFD, 10);
        if (in < 0 || csv < 0 || png < 0 || dup2(in, 0) < 0 || dup2(png, 1) < 0
            || dup2(csv, 3) < 0)
            _exit(127);
        execl(gnuplot, "gnuplot", (char *)NULL);
        fprintf(stderr, "lagrangec: cannot run %s: %s\n", gnuplot, strerror(errno));
        _exit(127);
    }
    int err = errno;
    close(pipe_fd[0]);
    if (pid < 0) {
        close(pipe_fd[1]);
        errno = err;
        return -1;
    }
    *script_fd = pipe_fd[1];
    return pid;
}

/* Writes all of text to fd; 0, or -1 with errno (EPIPE: gnuplot stopped reading). */
static int write_all(int fd, const char *text, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, text, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        text += n;
        len -= (size_t)n;
    }
    return 0;
}

int lgc_plot(const lgc_model *m, const char *gnuplot, int csv_fd, int png_fd, double energy0,
             int integral_kept)
{
    char *text = NULL;
    size_t len = 0;
    FILE *gp = open_memstream(&text, &len);
    if (!gp) {
        fprintf(stderr, "lagrangec: plot: %s\n", lgc_strerror(LGC_ERR_NOMEM));
        return LGC_ERR_IO;
    }
    script(gp, m, energy0, integral_kept);
    fclose(gp);
    int script_fd = -1;
    pid_t pid = start(gnuplot, csv_fd, png_fd, &script_fd);
    if (pid < 0) {
        fprintf(stderr, "lagrangec: plot: cannot start %s: %s\n", gnuplot, strerror(errno));
        free(text);
        return LGC_ERR_IO;
    }
    /* A gnuplot that stops reading gives EPIPE here, not a SIGPIPE that kills the run. */
    struct sigaction ignore, old;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, &old);
    int wrote = write_all(script_fd, text, len);
    close(script_fd);
    sigaction(SIGPIPE, &old, NULL);
    free(text);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (wrote == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return LGC_OK;
    if (WIFEXITED(status))
        fprintf(stderr, "lagrangec: plot: gnuplot failed (exit status %d)\n", WEXITSTATUS(status));
    else
        fprintf(stderr, "lagrangec: plot: gnuplot ended by signal %d\n", WTERMSIG(status));
    return LGC_ERR_IO;
}
