/* version.c — the runtime's version, for programs to report or compare. */
#include "lagrangec/version.h"

const char *lgc_version(void)
{
    return LGC_VERSION;
}
