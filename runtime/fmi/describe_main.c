/*
** describe_main.c — the program `lagrangec fmu` links against the FMU's
** library and runs once to write modelDescription.xml on stdout, so that
** the XML comes from the library it describes.
** usage: describe GENERATION_TOOL SOURCE_FILE...
*/
#include <stdio.h>

#include "fmu.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs("usage: describe GENERATION_TOOL SOURCE_FILE...\n", stderr);
        return 2;
    }
    if (lgc_fmu_model_description(stdout, argv[1], argc - 2, argv + 2) != 0 || fflush(stdout) != 0) {
        perror("describe: modelDescription.xml");
        return 1;
    }
    return 0;
}
