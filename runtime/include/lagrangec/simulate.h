/*
** lagrangec/simulate.h — the program behind `lagrangec simulate`.
** The generated main.c is `return lgc_simulate_main(&NAME_model, argc, argv);`.
** Exit status: 0 success, 1 runtime fault, 2 usage error.
*/
#ifndef LAGRANGEC_SIMULATE_H
#define LAGRANGEC_SIMULATE_H

#include "lagrangec/model.h"

#ifdef __cplusplus
extern "C" {
#endif

int lgc_simulate_main(const lgc_model *model, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
