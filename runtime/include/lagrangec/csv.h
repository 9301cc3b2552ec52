/*
** lagrangec/csv.h — the CSV output format (one row per sample).
** Columns (grep tag: CSV-COLUMNS, kept in step with plot.c):
**   t, q..., q'..., phi1..phiH, phi1'..phiH', g1..gN, energy,
**   lambda1..lambdaH, mu1..muN, Fc_q... (one per coordinate: A^T lambda + B^T mu)
*/
#ifndef LAGRANGEC_CSV_H
#define LAGRANGEC_CSV_H

#include <stdio.h>
#include "lagrangec/monitor.h"

#ifdef __cplusplus
extern "C" {
#endif

int lgc_csv_header(FILE *f, const lgc_model *model);
/* Writes one whole line and flushes it, so a crash leaves whole lines. */
int lgc_csv_row(FILE *f, const lgc_model *model, const lgc_sample *s);

/* 1-based column of the first coordinate, residual, energy... for plots. */
int lgc_csv_column_q(const lgc_model *m);
int lgc_csv_column_phi(const lgc_model *m);
int lgc_csv_column_phi_dot(const lgc_model *m);
int lgc_csv_column_g(const lgc_model *m);
int lgc_csv_column_energy(const lgc_model *m);

#ifdef __cplusplus
}
#endif

#endif
