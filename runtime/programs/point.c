/*
** point.c — the state linearize and eval are asked about: the spec's
** initial state with --at, --param and --input over it (start.c makes it as
** it makes simulate's start), at the time --at t=T or --t T, completed onto
** the constraints with --consistent.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangec/status.h"
#include "programs.h"

int lgc_point_init(lgc_point *pt, const lgc_model *m)
{
    memset(pt, 0, sizeof *pt);
    int rc = lgc_system_init(&pt->sys, m);
    if (rc == LGC_OK)
        rc = lgc_given_init(&pt->given, m);
    pt->x = calloc((size_t)m->nx + 1, sizeof *pt->x);
    pt->fixed = calloc((size_t)m->nx + 1, sizeof *pt->fixed);
    if (rc != LGC_OK || !pt->x || !pt->fixed) {
        fprintf(stderr, "lagrangec: %s\n", lgc_strerror(LGC_ERR_NOMEM));
        return LGC_EXIT_FAILED;
    }
    pt->sys.alpha = pt->sys.beta = 0.0;     /* the gains play no part on the constraints */
    return LGC_EXIT_OK;
}

void lgc_point_free(lgc_point *pt)
{
    lgc_system_free(&pt->sys);
    lgc_given_free(&pt->given);
    free(pt->x);
    free(pt->fixed);
    memset(pt, 0, sizeof *pt);
}

/* The time from `number` (the whole of --t's value, or --at's after "t="). */
static int set_time(lgc_point *pt, const char *number, const char *expects, const char *value)
{
    if (!lgc_parse_number(number, &pt->t))
        return lgc_usage_error("%s with a finite number, got '%s'", expects, value);
    pt->t_given = 1;
    return LGC_EXIT_OK;
}

int lgc_point_option(lgc_point *pt, const char *option, const char *value)
{
    if (strcmp(option, "--consistent") == 0) {
        pt->consistent = 1;
        return LGC_EXIT_OK;
    }
    if (strcmp(option, "--t") == 0)
        return set_time(pt, value, "--t expects the time", value);
    if (strcmp(option, "--at") == 0 && strncmp(value, "t=", 2) == 0)  /* t is no spec's name */
        return set_time(pt, value + 2, "--at expects t=VALUE", value);
    if (strcmp(option, "--at") == 0 || strcmp(option, "--param") == 0
        || strcmp(option, "--input") == 0)
        return lgc_assign(option, value, &pt->sys, &pt->given);
    return -1;
}

int lgc_point_place(lgc_point *pt)
{
    lgc_start_state(&pt->sys, &pt->given, pt->x, pt->fixed);
    return pt->consistent ? lgc_start_complete(&pt->sys, pt->t, pt->x, pt->fixed, &pt->given, "--at")
                          : LGC_EXIT_OK;
}
