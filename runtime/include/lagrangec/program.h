/*
** lagrangec/program.h — the entry of the program `lagrangec simulate`,
** `linearize` and `sweep` compile for a model: its main.c is
** `return lgc_main(&NAME_model, argc, argv);`, run as
** `PROGRAM simulate|linearize|sweep [OPTIONS]`. lgc_main is not
** liblagrangec's: it is in liblagrangec-program.a (runtime/programs/, which
** bundles the library), what a model's program links. This header sits
** with the library's because a model's program is compiled against that
** directory.
*/
#ifndef LAGRANGEC_PROGRAM_H
#define LAGRANGEC_PROGRAM_H

#include "lagrangec/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs the command argv[1] (simulate, linearize or sweep); the exit status. */
int lgc_main(const lgc_model *model, int argc, char **argv);

/*
** lgc_main whose sweep shares its runs with the other ranks when an MPI
** launcher started it: in liblagrangec-program-mpi.a only, built when
** lagrangec is (meson -Dmpi), and linked with MPI.
*/
int lgc_main_mpi(const lgc_model *model, int argc, char **argv);

/*
** What was compiled, when lagrangec wrote main.c: "FILE SHA256" for each
** generated file, then a null pointer; a sweep's sweep.txt holds it. A
** program whose main.c does not define it (one written by hand) has its
** model fingerprinted by its functions' values at two states instead.
*/
extern const char *const lgc_program_compiled[] __attribute__((weak));

#ifdef __cplusplus
}
#endif

#endif
