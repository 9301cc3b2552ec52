/* program.c — lgc_main: one compiled program per model serves simulate, linearize, eval and sweep. */
#include <stdio.h>
#include <string.h>

#include "lagrangec/program.h"
#include "programs.h"

int lgc_main_ranks(const lgc_model *model, const lgc_ranks *ranks, int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    int rc;
    /* The command's own argv[0] is the program's, for its usage text. */
    if (strcmp(cmd, "simulate") == 0 || strcmp(cmd, "linearize") == 0 || strcmp(cmd, "eval") == 0
        || strcmp(cmd, "sweep") == 0)
        argv[1] = argv[0];
    if (strcmp(cmd, "simulate") == 0)
        rc = lgc_simulate_main(model, argc - 1, argv + 1);
    else if (strcmp(cmd, "linearize") == 0)
        rc = lgc_linearize_main(model, argc - 1, argv + 1);
    else if (strcmp(cmd, "eval") == 0)
        rc = lgc_eval_main(model, argc - 1, argv + 1);
    else if (strcmp(cmd, "sweep") == 0)
        rc = lgc_sweep_main(model, ranks, argc - 1, argv + 1);
    else {
        fprintf(stderr, "usage: %s simulate|linearize|eval|sweep [OPTIONS]\n", argc > 0 ? argv[0] : "model");
        rc = LGC_EXIT_USAGE;
    }
    return rc;
}

int lgc_main(const lgc_model *model, int argc, char **argv)
{
    return lgc_main_ranks(model, NULL, argc, argv);
}
