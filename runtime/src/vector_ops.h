/*
** vector_ops.h — optimised operations for CVODE's serial vectors
** (vector_ops.c); private to the runtime.
*/
#ifndef LAGRANGEC_VECTOR_OPS_H
#define LAGRANGEC_VECTOR_OPS_H

#include <sundials/sundials_nvector.h>

/*
** Replaces the hottest operations of serial vector v (and of every vector
** cloned from it later) by loops compiled with the runtime's optimisation.
*/
void lgc_vector_ops(N_Vector v);

#endif
