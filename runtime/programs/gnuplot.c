/*
** gnuplot.c — running gnuplot on a script, for the plots of a run (plot.c)
** and of a sweep (sweep_plot.c). No user text reaches gnuplot as code: the
** data and the PNG are open files gnuplot inherits (/dev/fd/3 and its
** stdout), not paths in the script; text (a title, a column's name) is a
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

int lgc_gnuplot_find(const char *option, char *buf, size_t size)
{
    if (lgc_find_program("gnuplot", buf, size))
        return LGC_EXIT_OK;
    return lgc_usage_error("%s needs gnuplot, and there is none on PATH (Debian: apt-get install "
                           "gnuplot-nox)", option);
}

/*
** Inside single quotes gnuplot expands nothing (no `command`, no @macro); a
** quote never appears there (gnuplot's '' escape misreads '''' ), nor a
** newline, which would end the command.
*/
void lgc_gnuplot_text(FILE *gp, const char *s)
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

void lgc_gnuplot_begin(FILE *gp, int width, int height)
{
    /* noenhanced: names like knife_edge must not turn into subscripts */
    fprintf(gp, "set terminal pngcairo noenhanced size %d,%d font 'sans,10'\n"
                "set datafile separator ','\nset grid\nq = sprintf('%%c', 39)\n", width, height);
}

/* Runs gnuplot reading the script from a pipe; its pid, or -1 with errno. */
static pid_t start(const char *gnuplot, int data_fd, int png_fd, int *script_fd)
{
    int pipe_fd[2];
    if (pipe(pipe_fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(pipe_fd[1]);  /* else gnuplot never reads the end of its script */
        /* Out of the way of 0, 1 and 3 first, so no dup2 overwrites another. */
        int in = fcntl(pipe_fd[0], F_DUPFD, 10), png = fcntl(png_fd, F_DUPFD, 10),
            data = data_fd >= 0 ? fcntl(data_fd, F_DUPFD, 10) : -1;
        if (in < 0 || png < 0 || (data_fd >= 0 && data < 0) || dup2(in, 0) < 0
            || dup2(png, 1) < 0 || (data >= 0 && dup2(data, 3) < 0))
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

int lgc_gnuplot_render(const char *gnuplot, int data_fd, int png_fd, lgc_gnuplot_script write,
                       const void *ctx)
{
    char *text = NULL;
    size_t len = 0;
    FILE *gp = open_memstream(&text, &len);
    if (!gp) {
        fprintf(stderr, "lagrangec: plot: %s\n", lgc_strerror(LGC_ERR_NOMEM));
        return LGC_ERR_IO;
    }
    write(gp, ctx);
    fclose(gp);
    int script_fd = -1;
    pid_t pid = start(gnuplot, data_fd, png_fd, &script_fd);
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
