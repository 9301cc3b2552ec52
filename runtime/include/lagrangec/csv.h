/*
** lagrangec/csv.h — the CSV output format (one row per sample).
** Columns (grep tag: CSV-COLUMNS, kept in step with runtime/README.md):
**   t, q..., q'..., phi[1]..phi[H], phi[1]'..phi[H]', g[1]..g[N], T+V,
**   lambda[1]..lambda[H], mu[1]..mu[N], Fc[q]... (one per coordinate:
**   A^T lambda + B^T mu on q), then the spec's [outputs] by name. A
**   rolling wheel's rows are named after
**   it instead of numbered (the descriptor's constraint_columns):
**   phi[front], g[rear.x], mu[rear.y].
** A coordinate is a C identifier and a velocity one with a ', so the
** columns of derived quantities, each holding a '[' or a '+', never take
** a coordinate's name: every column name is unique whatever the spec's
** names are. An output's name is a C identifier too, and the generator
** refuses t and the coordinates' names for it.
*/
#ifndef LAGRANGEC_CSV_H
#define LAGRANGEC_CSV_H

#include <stddef.h>
#include "lagrangec/monitor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lgc_csv lgc_csv;

/*
** A writer of model's rows to the file descriptor fd (not closed by
** lgc_csv_free); its row buffer is allocated once. NULL: no memory.
*/
lgc_csv *lgc_csv_open(int fd, const lgc_model *model);
void lgc_csv_free(lgc_csv *w);

/*
** The header, or one row, as one whole line: a line that cannot be written
** whole (a full disk) is cut off again (ftruncate), so the file holds whole
** lines only. LGC_OK or LGC_ERR_IO (errno says why). Never allocates.
*/
int lgc_csv_header(lgc_csv *w);
int lgc_csv_row(lgc_csv *w, const lgc_sample *s);
/*
** The last line of a run that failed: "# fault at t = T: REASON", a comment
** to gnuplot and to readers that skip '#' lines, and a mark to the others
** that the rows before it end at a fault, not at --t-end.
*/
int lgc_csv_fault(lgc_csv *w, double t, const char *reason);

/* Number of columns, and the name of column j (0-based) into buf. */
int lgc_csv_columns(const lgc_model *m);
void lgc_csv_column_name(const lgc_model *m, int j, char *buf, size_t size);

/* 0-based column of the first coordinate, residual, energy... */
int lgc_csv_column_q(const lgc_model *m);
int lgc_csv_column_phi(const lgc_model *m);
int lgc_csv_column_phi_dot(const lgc_model *m);
int lgc_csv_column_g(const lgc_model *m);
int lgc_csv_column_energy(const lgc_model *m);
int lgc_csv_column_multipliers(const lgc_model *m);
int lgc_csv_column_force(const lgc_model *m);
int lgc_csv_column_outputs(const lgc_model *m);
int lgc_csv_column_modes(const lgc_model *m);     /* mode[NAME]: each friction contact's (lgc_sample's mode) */

#ifdef __cplusplus
}
#endif

#endif
