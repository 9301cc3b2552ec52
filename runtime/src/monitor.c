/* monitor.c — residuals, energy and multipliers at output samples and steps. */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "friction.h"
#include "lagrangec/monitor.h"
#include "lagrangec/status.h"
#include "max_abs.h"

/*
** x, phi, phi', g, multipliers, fc, outputs, dxdt, tracked residuals, C,
** row maxima, output extremes, contacts' minima, friction modes, the
** normal forces' scratch and the tracked state in one block
*/
static size_t block_size(const lgc_model *m)
{
    return (size_t)(3 * m->nx + 7 * m->nh + 4 * m->nn + m->nq + (m->nh + m->nn) * m->nq + 3 * m->nout
                    + m->ncontact + m->nfriction * (2 + m->nh + m->nn)) + 1;
}

/* The minimum-norm multipliers' scratch: C C^T, its eigenvalues, dsyev's work (66 a row), nu. */
static size_t min_norm_size(const lgc_model *m)
{
    const size_t nc = (size_t)(m->nh + m->nn);
    return nc * nc + 68 * nc;
}

int lgc_monitor_init(lgc_monitor *mon, const lgc_model *model)
{
    const int nx = model->nx, nh = model->nh, nn = model->nn, nq = model->nq;
    memset(mon, 0, sizeof *mon);
    double *v = calloc(block_size(model), sizeof *v);
    if (!v)
        return LGC_ERR_NOMEM;
    if (model->nredundant > 0 && !(mon->min_norm = calloc(min_norm_size(model), sizeof *v))) {
        free(v);
        return LGC_ERR_NOMEM;
    }
    mon->block = mon->s.x = v;
    mon->s.phi = mon->s.x + nx;
    mon->s.phi_dot = mon->s.phi + nh;
    mon->s.g = mon->s.phi_dot + nh;
    mon->s.mult = mon->s.g + nn;
    mon->s.fc = mon->s.mult + nh + nn;
    mon->s.out = mon->s.fc + nq;
    mon->dxdt = mon->s.out + model->nout;
    mon->res = mon->dxdt + nx;
    mon->jac = mon->res + 2 * nh + nn;
    mon->max_residual = mon->jac + (nh + nn) * nq;
    mon->out_min = mon->max_residual + 2 * nh + nn;
    mon->out_max = mon->out_min + model->nout;
    mon->min_contact_phi = mon->out_max + model->nout;
    mon->s.mode = mon->min_contact_phi + model->ncontact;
    mon->normal = mon->s.mode + model->nfriction;
    mon->normal_rate = mon->normal + model->nfriction;
    mon->track_x = mon->normal_rate + model->nfriction;
    mon->forces = 1;
    mon->quiet_rows = -1;
    mon->energy_scale = 1.0;
    return LGC_OK;
}

void lgc_monitor_free(lgc_monitor *mon)
{
    free(mon->min_norm);
    free(mon->block);
    memset(mon, 0, sizeof *mon);
}

void lgc_monitor_reset(lgc_monitor *mon, const lgc_model *model)
{
    memset(mon->block, 0, block_size(model) * sizeof *mon->block);
    mon->s.t = mon->s.energy = 0.0;
    mon->count = mon->tracked = 0;
    mon->quiet_rows = -1;
    mon->energy_scale = 1.0;
    mon->energy0 = mon->max_phi = mon->max_phi_dot = mon->max_g = mon->max_energy_drift = 0.0;
}

/* fc = C^T mult, C row-major (nh + nn) x nq. */
static void constraint_force(const lgc_model *m, const double C[], const double mult[],
                             double fc[])
{
    const int nc = m->nh + m->nn;
    for (int i = 0; i < m->nq; i++) {
        fc[i] = 0.0;
        for (int c = 0; c < nc; c++)
            fc[i] += C[c * m->nq + i] * mult[c];
    }
}


/*
** mult := its projection onto the range of C (row-major, nc x nq): the
** minimum-norm multipliers with the same C^T mult. C C^T = U diag(s) U^T,
** eigenvalues not above 1e-10 of the largest dropped, as in rhs's solve.
*/
static int minimum_norm(const lgc_model *m, double w[], const double C[], double mult[])
{
    const int nc = m->nh + m->nn, nq = m->nq;
    double *U = w, *s = U + nc * nc, *nu = s + nc, *work = nu + nc;
    cblas_dsyrk(CblasRowMajor, CblasUpper, CblasNoTrans, nc, nq, 1.0, C, nq, 0.0, U, nc);
    if (LAPACKE_dsyev_work(LAPACK_ROW_MAJOR, 'V', 'U', nc, U, nc, s, work, 66 * nc) != 0)
        return LGC_ERR_LAPACK;
    memset(nu, 0, (size_t)nc * sizeof *nu);
    for (int i = 0; i < nc; i++) {
        if (!(s[i] > 1e-10 * s[nc - 1]))
            continue;
        double d = 0.0;
        for (int k = 0; k < nc; k++)
            d += U[k * nc + i] * mult[k];
        for (int k = 0; k < nc; k++)
            nu[k] += U[k * nc + i] * d;
    }
    memcpy(mult, nu, (size_t)nc * sizeof *nu);
    return LGC_OK;
}

/*
** Rows [from, to) of r into their maxima (max_residual's) and into max, the
** group's, returned; a contact apart has no error.
*/
static inline double fold_rows(const lgc_system *sys, const double r[], double row_max[], int from,
                               int to, double max)
{
    for (int i = from; i < to; i++) {
        const double a = sys->active && lgc_row_off(sys, i) ? 0.0 : fabs(r[i]);
        if (a > row_max[i])
            row_max[i] = a;
        if (a > max)
            max = a;
    }
    return max;
}

/*
** Residuals r = [phi; phi'; g] and energy at one state into the extremes:
** one pass over r, at every step (the monitor's observer), so without a
** call per entry where no contact can be apart, nor a libm call.
*/
static int update_extremes(lgc_monitor *mon, const lgc_system *sys, const double r[],
                           double energy)
{
    const lgc_model *m = sys->model;
    const int nh = m->nh, nr = 2 * nh + m->nn;
    if (!isfinite(energy) || !isfinite(lgc_max_abs(r, nr, 0.0)))
        return LGC_ERR_NONFINITE;
    const int first = mon->count + mon->tracked == 0;
    if (first)
        mon->energy0 = energy;
    /* A contact's phi, on or off: how far inside it went, which its residual (0 while off) hides. */
    for (int c = 0; c < m->ncontact; c++) {
        const double phi = r[nh - m->ncontact + c];
        if (first || phi < mon->min_contact_phi[c])
            mon->min_contact_phi[c] = phi;
    }
    mon->max_phi = fold_rows(sys, r, mon->max_residual, 0, nh, mon->max_phi);
    mon->max_phi_dot = fold_rows(sys, r, mon->max_residual, nh, 2 * nh, mon->max_phi_dot);
    mon->max_g = fold_rows(sys, r, mon->max_residual, 2 * nh, nr, mon->max_g);
    const double scale = mon->energy0 != 0.0 ? fabs(mon->energy0) : 1.0;
    const double drift = fabs(energy - mon->energy0) / scale;  /* finite: energy and energy0 are */
    if (drift > mon->max_energy_drift)
        mon->max_energy_drift = drift;
    mon->quiet_rows = sys->active || m->ncontact > 0 ? -1 : nr;
    mon->energy_scale = scale;
    return LGC_OK;
}

/*
** update_extremes where it has little to do, as most states after the first
** few: every |r_i| within its row's maximum (so within its group's) and
** finite (a NaN fails the comparison), the energy finite: at most the drift
** to update. 1 when done so, 0 for update_extremes to do it all. Only after
** a first state (E0) and without contacts (their minima) or rows that may
** be off (their 0): mon->quiet_rows, which update_extremes sets. Inline, on
** the monitor's per-step path, apart from update_extremes' frame.
*/
static inline int fold_quiet(lgc_monitor *mon, const double r[], double energy)
{
    const int nr = mon->quiet_rows;
    const double *row_max = mon->max_residual;
    int within = nr >= 0;
    for (int i = 0; i < nr; i++)
        within &= fabs(r[i]) <= row_max[i];
    const double drift = fabs(energy - mon->energy0) / mon->energy_scale;
    if (!within || !isfinite(drift))
        return 0;
    if (drift > mon->max_energy_drift)
        mon->max_energy_drift = drift;
    return 1;
}

/* A sample lgc_monitor_sample cannot take from the last tracked state: everything evaluated at (t, x). */
#ifdef __GNUC__
__attribute__((noinline))
#endif
static int sample_at(lgc_monitor *mon, lgc_system *sys, double t, const double x[])
{
    const lgc_model *m = sys->model;
    lgc_sample *s = &mon->s;
    const int forces = mon->forces || m->nout > 0;  /* the outputs read the multipliers */
    int rc;
    if (forces) {
        /* Output evaluations are not integration work: keep nfev honest. */
        unsigned long nfev = sys->nfev;
        rc = lgc_system_rhs(sys, t, x, mon->dxdt, s->mult);
        sys->nfev = nfev;
        if (rc != LGC_OK)
            return rc;
    }
    s->t = t;
    memcpy(s->x, x, (size_t)m->nx * sizeof *s->x);
    m->residuals(t, x, sys->p, s->phi, s->phi_dot, s->g);
    if (forces)
        lgc_friction_sliding_forces(sys, t, x, s->g, s->mult, mon->normal, mon->normal_rate);
    for (int k = 0; k < m->nfriction; k++)
        s->mode[k] = lgc_friction_mode(sys, k);
    s->energy = m->integral_value(t, x, sys->p);
    if (forces) {
        if (!isfinite(lgc_max_abs(s->mult, m->nh + m->nn, 0.0)))
            return LGC_ERR_NONFINITE;
        m->constraint_jacobian(t, x, sys->p, mon->jac);
        if (mon->min_norm && (rc = minimum_norm(m, mon->min_norm, mon->jac, s->mult)) != LGC_OK)
            return rc;
        constraint_force(m, mon->jac, s->mult, s->fc);
    }
    if (m->nout) {
        m->outputs(t, x, sys->u, sys->p, s->mult, s->out);
        if (!isfinite(lgc_max_abs(s->out, m->nout, 0.0)))
            return LGC_ERR_NONFINITE;
        for (int i = 0; i < m->nout; i++) {
            mon->out_min[i] = mon->count == 0 ? s->out[i] : fmin(mon->out_min[i], s->out[i]);
            mon->out_max[i] = mon->count == 0 ? s->out[i] : fmax(mon->out_max[i], s->out[i]);
        }
    }
    /* phi, phi', g lie back to back in s */
    if (!fold_quiet(mon, s->phi, s->energy) && (rc = update_extremes(mon, sys, s->phi, s->energy)) != LGC_OK)
        return rc;
    mon->count++;
    return LGC_OK;
}

/* The pointers of two equally long buffers of the monitor's block, exchanged. */
static inline void swap(double **a, double **b)
{
    double *c = *a;
    *a = *b;
    *b = c;
}

int lgc_monitor_sample(lgc_monitor *mon, lgc_system *sys, double t,
                       const double x[])
{
    const lgc_model *m = sys->model;
    if (mon->forces || m->nout > 0 || mon->tracked == 0 || t != mon->track_t
        || memcmp(x, mon->track_x, (size_t)m->nx * sizeof *x) != 0)
        return sample_at(mon, sys, t, x);
    /*
    ** The state the last step's lgc_monitor_track folded in: its residuals
    ** and energy, nothing new. That state and its residuals are already in
    ** the block: the sample takes their buffers, and the tracker the
    ** sample's old ones, to write the next step into.
    */
    lgc_sample *s = &mon->s;
    const int nh = m->nh;
    s->t = t;
    swap(&s->x, &mon->track_x);
    swap(&s->phi, &mon->res);
    s->phi_dot = s->phi + nh;
    s->g = s->phi + 2 * nh;
    for (int k = 0; k < m->nfriction; k++)
        s->mode[k] = lgc_friction_mode(sys, k);
    s->energy = mon->track_energy;
    mon->track_t = NAN;     /* its buffers are the sample's now: the next one evaluates */
    mon->count++;
    return LGC_OK;
}

int lgc_monitor_track(lgc_monitor *mon, const lgc_system *sys, double t,
                      const double x[])
{
    const lgc_model *m = sys->model;
    double *r = mon->res;
    m->residuals(t, x, sys->p, r, r + m->nh, r + 2 * m->nh);
    const double energy = m->integral_value(t, x, sys->p);
    int rc;
    if (!fold_quiet(mon, r, energy) && (rc = update_extremes(mon, sys, r, energy)) != LGC_OK)
        return rc;
    mon->tracked++;
    if (!mon->forces) {     /* for a sample at this state (lgc_monitor_sample) */
        mon->track_t = t;
        mon->track_energy = energy;
        memcpy(mon->track_x, x, (size_t)m->nx * sizeof *x);
    }
    return LGC_OK;
}
