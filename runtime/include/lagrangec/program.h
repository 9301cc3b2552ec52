/*
** lagrangec/program.h — the program `lagrangec simulate` and `lagrangec
** linearize` compile for a model: main.c is
** `return lgc_main(&NAME_model, argc, argv);`, run as
** `PROGRAM simulate|linearize [OPTIONS]`.
*/
#ifndef LAGRANGEC_PROGRAM_H
#define LAGRANGEC_PROGRAM_H

#include "lagrangec/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Dispatches to lgc_simulate_main or lgc_linearize_main; 2 on a bad command. */
int lgc_main(const lgc_model *model, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
