/* program.c — lgc_main: one compiled program per model serves simulate and linearize. */
#include <stdio.h>
#include <string.h>

#include "lagrangec/program.h"
#include "programs.h"

int lgc_main(const lgc_model *model, int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    int (*run)(const lgc_model *, int, char **) =
        strcmp(cmd, "simulate") == 0    ? lgc_simulate_main
        : strcmp(cmd, "linearize") == 0 ? lgc_linearize_main
                                        : NULL;
    if (!run) {
        fprintf(stderr, "usage: %s simulate|linearize [OPTIONS]\n", argc > 0 ? argv[0] : "model");
        return LGC_EXIT_USAGE;
    }
    /* The command's own argv[0] is the program's, for its usage text. */
    argv[1] = argv[0];
    return run(model, argc - 1, argv + 1);
}
