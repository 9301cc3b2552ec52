/*
** kkt_lapack.h — a model's rhs with its KKT system solved by LAPACK
** (kkt_lapack.c); private to the runtime and its tests.
*/
#ifndef LAGRANGEC_KKT_LAPACK_H
#define LAGRANGEC_KKT_LAPACK_H

#include <stddef.h>

#include "lagrangec/model.h"

/* Doubles of workspace lgc_kkt_lapack_rhs needs for model m. */
size_t lgc_kkt_lapack_size(const lgc_model *m);

/* Where lgc_kkt_lapack_rhs leaves S's conditioning, as m->work_conditioning says of m->rhs's work. */
double *lgc_kkt_lapack_conditioning(const lgc_model *m, double work[]);

/*
** What m->rhs computes (dxdt, multipliers may be NULL, the same LGC_MODEL_*
** codes), from m->kkt_terms and a LAPACK solve in `work`, on the rows
** `active` marks (NULL: all; the others, like redundant rows, are left out
** and their multipliers are 0: a contact apart), with the forces of the
** friction contacts that slide (`slide` as lagrangec/system.h's; NULL:
** none). Never allocates.
*/
int lgc_kkt_lapack_rhs(const lgc_model *m, double work[], double t, const double x[],
                       const double u[], const double p[], double alpha, double beta,
                       const unsigned char active[], const double slide[], double dxdt[],
                       double multipliers[]);

#endif
