/* csv.c — writing samples as CSV (columns: see CSV-COLUMNS in csv.h). */
#include "lagrangec/csv.h"
#include "lagrangec/status.h"

int lgc_csv_column_q(const lgc_model *m) { (void)m; return 2; }
int lgc_csv_column_phi(const lgc_model *m) { return 2 + 2 * m->nq; }
int lgc_csv_column_phi_dot(const lgc_model *m) { return lgc_csv_column_phi(m) + m->nh; }
int lgc_csv_column_g(const lgc_model *m) { return lgc_csv_column_phi_dot(m) + m->nh; }
int lgc_csv_column_energy(const lgc_model *m) { return lgc_csv_column_g(m) + m->nn; }

int lgc_csv_header(FILE *f, const lgc_model *m)
{
    fprintf(f, "t");
    for (int i = 0; i < m->nq; i++)
        fprintf(f, ",%s", m->coordinate_names[i]);
    for (int i = 0; i < m->nq; i++)
        fprintf(f, ",%s'", m->coordinate_names[i]);
    for (int i = 0; i < m->nh; i++)
        fprintf(f, ",phi%d", i + 1);
    for (int i = 0; i < m->nh; i++)
        fprintf(f, ",phi%d'", i + 1);
    for (int i = 0; i < m->nn; i++)
        fprintf(f, ",g%d", i + 1);
    fprintf(f, ",energy");
    for (int i = 0; i < m->nh; i++)
        fprintf(f, ",lambda%d", i + 1);
    for (int i = 0; i < m->nn; i++)
        fprintf(f, ",mu%d", i + 1);
    for (int i = 0; i < m->nq; i++)
        fprintf(f, ",Fc_%s", m->coordinate_names[i]);
    fputc('\n', f);
    return fflush(f) == 0 && !ferror(f) ? LGC_OK : LGC_ERR_IO;
}

int lgc_csv_row(FILE *f, const lgc_model *m, const lgc_sample *s)
{
    fprintf(f, "%.17g", s->t);
    for (int i = 0; i < 2 * m->nq; i++)
        fprintf(f, ",%.17g", s->x[i]);
    for (int i = 0; i < 2 * m->nh + m->nn; i++)     /* phi, phi', g: contiguous */
        fprintf(f, ",%.17g", s->phi[i]);
    fprintf(f, ",%.17g", s->energy);
    for (int i = 0; i < m->nh + m->nn; i++)
        fprintf(f, ",%.17g", s->mult[i]);
    for (int i = 0; i < m->nq; i++)
        fprintf(f, ",%.17g", s->fc[i]);
    fputc('\n', f);
    return fflush(f) == 0 && !ferror(f) ? LGC_OK : LGC_ERR_IO;
}
