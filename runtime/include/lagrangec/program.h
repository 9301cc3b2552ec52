/*
** lagrangec/program.h — the entry of the program `lagrangec simulate` and
** `lagrangec linearize` compile for a model: its main.c is
** `return lgc_main(&NAME_model, argc, argv);`, run as
** `PROGRAM simulate|linearize [OPTIONS]`. lgc_main is not liblagrangec's:
** it is in liblagrangec-program.a (runtime/programs/, which bundles the
** library), what a model's program links. This header sits with the
** library's because a model's program is compiled against that directory.
*/
#ifndef LAGRANGEC_PROGRAM_H
#define LAGRANGEC_PROGRAM_H

#include "lagrangec/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs the command argv[1] (simulate or linearize); the exit status. */
int lgc_main(const lgc_model *model, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
