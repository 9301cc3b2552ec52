/*
** summary.c — what a simulate run did: the warning of a drifting run, the
** summary for people, and the same as JSON (--summary-json).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lagrangec/status.h"
#include "programs.h"

const char *const lgc_project_names[] = {"none", "velocity", "full"};
const char *const lgc_metric_names[] = {"identity", "mass"};

/* The row of [phi; phi'; g] whose largest |residual| is the largest. */
static int worst_row(const lgc_sim_run *r)
{
    int worst = 0;
    for (int i = 1; i < 2 * r->model->nh + r->model->nn; i++)
        if (r->mon.max_residual[i] > r->mon.max_residual[worst])
            worst = i;
    return worst;
}

/* The method counts Newton iterations and Jacobian evaluations (bdf, adams). */
static int own_counters(const lgc_sim_run *r)
{
    return lgc_stepper_type_find(r->opt.method)->stats != NULL;
}

/* rk4 takes steps of h but a last one shortened to end on t_end. */
static int last_step_shortened(const lgc_sim_run *r, const lgc_stats *st)
{
    return st->steps > 1 && st->h_min < r->opt.dt * (1.0 - 1e-9);
}

/* The contact that went deepest inside (the smallest phi); its holonomic row. */
static int deepest_contact(const lgc_sim_run *r)
{
    const lgc_model *m = r->model;
    int deepest = 0;
    for (int c = 1; c < m->ncontact; c++)
        if (r->mon.min_contact_phi[c] < r->mon.min_contact_phi[deepest])
            deepest = c;
    return m->nh - m->ncontact + deepest;
}

void lgc_summary_warn(const lgc_sim_run *r)
{
    const char *level = r->opt.strict ? "error (--strict)" : "warning";
    char what[512], name[32];
    if (r->drifted) {
        const int row = worst_row(r);
        lgc_describe_row(r->model, row, what, sizeof what);
        lgc_row_name(r->model, row, name, sizeof name);
        fprintf(stderr, "lagrangec: %s: the constraints drifted: max |%s| = %.3g, past %g (%s); ", level,
                name, r->mon.max_residual[row], LGC_DRIFT_WARNING, what);
        if (r->opt.project == LGC_PROJECT_NONE)
            fprintf(stderr, "keep them with --project full (the default) or a smaller step\n");
        else
            fprintf(stderr, "with --project %s on, take a smaller step or tighter tolerances\n",
                    lgc_project_names[r->opt.project]);
    }
    if (r->inside) {
        const int row = deepest_contact(r);
        lgc_describe_row(r->model, row, what, sizeof what);
        lgc_row_name(r->model, row, name, sizeof name);
        fprintf(stderr, "lagrangec: %s: a contact went inside: min %s = %.3g, past -%g (%s); take a "
                "smaller step or tighter tolerances\n", level, name,
                r->mon.min_contact_phi[row - (r->model->nh - r->model->ncontact)], LGC_DRIFT_WARNING, what);
    }
}

static void print_steps(const lgc_sim_run *r, const lgc_stats *st, FILE *out)
{
    if (strcmp(r->opt.method, "rk4") == 0) {
        fprintf(out, "method:           rk4, h = %g\n", r->opt.dt);
        if (last_step_shortened(r, st))
            fprintf(out, "steps:            %lu: %lu of h, the last %g to end at t = %g\n",
                    st->steps, st->steps - 1, st->h_min, r->opt.t_end);
        else
            fprintf(out, "steps:            %lu of h\n", st->steps);
    } else {
        fprintf(out, "method:           %s%s, rtol = %g, atol = %g", r->opt.method,
                own_counters(r) ? " (SUNDIALS CVODE)" : "", r->opt.rtol, r->opt.atol);
        if (isfinite(r->opt.max_step))
            fprintf(out, ", max step %g", r->opt.max_step);
        fputc('\n', out);
        fprintf(out, "steps:            %lu (rejected %lu), h from %.3g to %.3g\n", st->steps,
                st->rejected, st->h_min, st->h_max);
    }
    fprintf(out, "rhs evaluations:  %lu\n", st->nfev);
    if (own_counters(r))
        fprintf(out, "Newton:           %lu iterations, %lu Jacobian evaluations, %lu steps "
                "retried after no convergence\n", st->newton_iters, st->njev, st->convergence_fails);
    /* Only where the constraint Jacobian lost rank, or nearly: nothing to say otherwise. */
    if (st->singular_passed || st->guarded_steps || r->sys.nfev_min_norm)
        fprintf(out, "singular:         %lu singular instants passed (%lu steps taken by the guard), "
                "%lu rhs evaluations by the minimum-norm solve\n", st->singular_passed,
                st->guarded_steps, r->sys.nfev_min_norm);
}

static void print_residuals(const lgc_sim_run *r, FILE *out)
{
    const lgc_model *m = r->model;
    if (m->nh + m->nn == 0) {
        fprintf(out, "residuals:        none (no constraints)\n");
        return;
    }
    fprintf(out, "residuals:        max over every accepted step (after correction) and sample\n");
    for (int i = 0; i < 2 * m->nh + m->nn; i++) {
        char name[32], bars[36], what[160];
        lgc_row_name(m, i, name, sizeof name);
        lgc_describe_row(m, i, what, sizeof what);
        snprintf(bars, sizeof bars, "|%s|", name);
        fprintf(out, "  %-15s %.3e   %s\n", bars, r->mon.max_residual[i], what);
    }
    if (m->ncontact == 0)
        return;
    fprintf(out, "contacts:         min phi over every accepted step and sample, on or off (below 0: "
                 "inside)\n");
    for (int c = 0; c < m->ncontact; c++) {
        char name[32];
        const double phi = r->mon.min_contact_phi[c];
        lgc_row_name(m, m->nh - m->ncontact + c, name, sizeof name);
        fprintf(out, "  %-15s % .3e%s\n", name, phi,
                -phi > LGC_DRIFT_WARNING ? "   inside, past the tolerance" : "");
    }
}

/* Each event: how often it was met, and when; the one that stopped the run. */
static void print_events(const lgc_sim_run *r, FILE *out)
{
    const lgc_event_log *log = &r->log;
    fprintf(out, "events:           %lu\n", log->total);
    for (int i = 0; i < log->n; i++) {
        fprintf(out, "  %-15s %lu", log->names[i], log->count[i]);
        if (log->count[i] == 1)
            fprintf(out, ", at t = %.17g", log->first[i]);
        else if (log->count[i] > 1)
            fprintf(out, ", first at t = %.17g, last at t = %.17g", log->first[i], log->last[i]);
        fprintf(out, "%s\n", log->stopped_by == i ? " (stopped the run)" : "");
    }
}

/* Each output at the last sample, and its extremes over the samples. */
static void print_outputs(const lgc_sim_run *r, FILE *out)
{
    const lgc_model *m = r->model;
    fprintf(out, "outputs:          at t = %g (min, max over the samples)\n", r->mon.s.t);
    for (int i = 0; i < m->nout; i++)
        fprintf(out, "  %-12s = % .15g  (%.9g, %.9g)\n", m->output_names[i], r->mon.s.out[i],
                r->mon.out_min[i], r->mon.out_max[i]);
}

void lgc_summary_print(const lgc_sim_run *r, FILE *out)
{
    const lgc_model *m = r->model;
    lgc_stats st;
    lgc_driver_stats(r->drv, &st);
    fprintf(out, "model:            %s%s%s\n", m->name, m->title ? " — " : "", m->title ? m->title : "");
    print_steps(r, &st, out);
    fprintf(out, "stabilisation:    Baumgarte alpha = %g, beta = %g; correction %s, metric %s\n",
            r->sys.alpha, r->sys.beta, lgc_project_names[r->opt.project], lgc_metric_names[r->opt.metric]);
    fprintf(out, "wall time:        %.3f s (%.0f steps/s)\n", r->wall,
            r->wall > 0 ? (double)st.steps / r->wall : 0.0);
    print_residuals(r, out);
    char lost[512];
    if (lgc_integral_lost(m, r->sys.u, lost, sizeof lost))
        fprintf(out, "integral:         not conserved: %s\n", lost);
    else if (m->integral == LGC_INTEGRAL_JACOBI)
        fprintf(out, "Jacobi integral drift: %.3e (max |h-h0|/|h0|%s; h = q'.dL/dq' - L, conserved "
                     "where T + V is not)\n", r->mon.max_energy_drift,
                r->mon.energy0 == 0.0 ? ", h0 = 0: absolute" : "");
    else
        fprintf(out, "energy drift:     %.3e (max |E-E0|/|E0|%s)\n", r->mon.max_energy_drift,
                r->mon.energy0 == 0.0 ? ", E0 = 0: absolute" : "");
    if (r->status != LGC_OK)
        fprintf(out, "failed:           t = %.6g: %s\n", r->t_fault, lgc_strerror(r->status));
    if (r->log.n)
        print_events(r, out);
    fprintf(out, "final state (t = %g):\n", r->mon.s.t);
    for (int i = 0; i < 2 * m->nq; i++)
        fprintf(out, "  %-12s = % .15g\n", m->state_names[i], r->mon.s.x[i]);
    if (m->nout && r->mon.count)
        print_outputs(r, out);
}

/* {"x": ..., "x'": ...}: the coordinates and velocities of x by name. */
static void json_state(lgc_json *j, const lgc_model *m, const double x[])
{
    lgc_json_begin(j, '{');
    for (int i = 0; i < 2 * m->nq; i++) {
        lgc_json_key(j, m->state_names[i]);
        lgc_json_number(j, x[i]);
    }
    lgc_json_end(j);
}

static void json_residuals(lgc_json *j, const lgc_sim_run *r)
{
    const lgc_model *m = r->model;
    lgc_json_key(j, "max_residuals");
    lgc_json_begin(j, '{');
    for (int i = 0; i < 2 * m->nh + m->nn; i++) {
        char name[32];
        lgc_row_name(m, i, name, sizeof name);
        lgc_json_key(j, name);
        lgc_json_number(j, r->mon.max_residual[i]);
    }
    lgc_json_end(j);
    const double none = NAN;    /* null: the model has no such rows */
    lgc_json_key(j, "max_phi");
    lgc_json_number(j, m->nh > 0 ? r->mon.max_phi : none);
    lgc_json_key(j, "max_phi_dot");
    lgc_json_number(j, m->nh > 0 ? r->mon.max_phi_dot : none);
    lgc_json_key(j, "max_g");
    lgc_json_number(j, m->nn > 0 ? r->mon.max_g : none);
    lgc_json_key(j, "min_contact_phi");
    if (m->ncontact == 0) {
        lgc_json_null(j);
        return;
    }
    lgc_json_begin(j, '{');
    for (int c = 0; c < m->ncontact; c++) {
        char name[32];
        lgc_row_name(m, m->nh - m->ncontact + c, name, sizeof name);
        lgc_json_key(j, name);
        lgc_json_number(j, r->mon.min_contact_phi[c]);
    }
    lgc_json_end(j);
}

/* "events": {NAME: {count, first, last}} and "stopped_by": the event's name or null. */
static void json_events(lgc_json *j, const lgc_sim_run *r)
{
    const lgc_model *m = r->model;
    const lgc_event_log *log = &r->log;
    lgc_json_key(j, "events");
    lgc_json_begin(j, '{');
    for (int i = 0; i < log->n; i++) {
        lgc_json_key(j, log->names[i]);
        lgc_json_begin(j, '{');
        lgc_json_key(j, "count");
        lgc_json_count(j, log->count[i]);
        lgc_json_key(j, "first");
        lgc_json_number(j, log->count[i] ? log->first[i] : NAN);
        lgc_json_key(j, "last");
        lgc_json_number(j, log->count[i] ? log->last[i] : NAN);
        lgc_json_end(j);
    }
    lgc_json_end(j);
    lgc_json_key(j, "stopped_by");
    lgc_json_string(j, log->stopped_by >= 0 ? m->event_names[log->stopped_by] : NULL);
}

/* "outputs": {NAME: {final, min, max}} over the samples. */
static void json_outputs(lgc_json *j, const lgc_sim_run *r)
{
    const lgc_model *m = r->model;
    const int any = r->mon.count > 0;
    lgc_json_key(j, "outputs");
    lgc_json_begin(j, '{');
    for (int i = 0; i < m->nout; i++) {
        lgc_json_key(j, m->output_names[i]);
        lgc_json_begin(j, '{');
        lgc_json_key(j, "final");
        lgc_json_number(j, any ? r->mon.s.out[i] : NAN);
        lgc_json_key(j, "min");
        lgc_json_number(j, any ? r->mon.out_min[i] : NAN);
        lgc_json_key(j, "max");
        lgc_json_number(j, any ? r->mon.out_max[i] : NAN);
        lgc_json_end(j);
    }
    lgc_json_end(j);
}

void lgc_summary_json(const lgc_sim_run *r, FILE *out)
{
    const lgc_model *m = r->model;
    const int rk4 = strcmp(r->opt.method, "rk4") == 0;
    lgc_stats st;
    lgc_driver_stats(r->drv, &st);
    lgc_json j;
    lgc_json_open(&j, out);
    lgc_json_key(&j, "model");
    lgc_json_string(&j, m->name);
    lgc_json_key(&j, "title");
    lgc_json_string(&j, m->title);
    lgc_json_key(&j, "status");
    lgc_json_string(&j, r->status == LGC_OK ? "ok" : "fault");
    lgc_json_key(&j, "fault");
    if (r->status == LGC_OK) {
        lgc_json_null(&j);
    } else {
        lgc_json_begin(&j, '{');
        lgc_json_key(&j, "t");
        lgc_json_number(&j, r->t_fault);
        lgc_json_key(&j, "code");
        lgc_json_count(&j, (unsigned long)r->status);
        lgc_json_key(&j, "reason");
        lgc_json_string(&j, lgc_strerror(r->status));
        lgc_json_end(&j);
    }
    lgc_json_key(&j, "method");
    lgc_json_string(&j, r->opt.method);
    lgc_json_key(&j, "h");
    lgc_json_number(&j, rk4 ? r->opt.dt : NAN);
    lgc_json_key(&j, "rtol");
    lgc_json_number(&j, rk4 ? NAN : r->opt.rtol);
    lgc_json_key(&j, "atol");
    lgc_json_number(&j, rk4 ? NAN : r->opt.atol);
    lgc_json_key(&j, "max_step");
    lgc_json_number(&j, r->opt.max_step);   /* null: no bound */
    lgc_json_key(&j, "t_end");
    lgc_json_number(&j, r->opt.t_end);
    lgc_json_key(&j, "steps");
    lgc_json_count(&j, st.steps);
    lgc_json_key(&j, "rejected");
    lgc_json_count(&j, st.rejected);
    lgc_json_key(&j, "h_min");
    lgc_json_number(&j, st.steps > 0 ? st.h_min : NAN);
    lgc_json_key(&j, "h_max");
    lgc_json_number(&j, st.steps > 0 ? st.h_max : NAN);
    lgc_json_key(&j, "rhs_evaluations");
    lgc_json_count(&j, st.nfev);
    /* null for a method without Newton iterations */
    const unsigned long *counts[] = {&st.njev, &st.newton_iters, &st.convergence_fails};
    const char *const count_names[] = {"jacobian_evaluations", "newton_iterations",
                                       "convergence_failures"};
    for (int i = 0; i < 3; i++) {
        lgc_json_key(&j, count_names[i]);
        if (own_counters(r))
            lgc_json_count(&j, *counts[i]);
        else
            lgc_json_null(&j);
    }
    lgc_json_key(&j, "position_iterations");
    lgc_json_count(&j, st.proj_iter);
    lgc_json_key(&j, "singular_passed");
    lgc_json_count(&j, st.singular_passed);
    lgc_json_key(&j, "guarded_steps");
    lgc_json_count(&j, st.guarded_steps);
    lgc_json_key(&j, "min_norm_rhs_evaluations");
    lgc_json_count(&j, r->sys.nfev_min_norm);
    lgc_json_key(&j, "baumgarte");
    lgc_json_begin(&j, '{');
    lgc_json_key(&j, "alpha");
    lgc_json_number(&j, r->sys.alpha);
    lgc_json_key(&j, "beta");
    lgc_json_number(&j, r->sys.beta);
    lgc_json_end(&j);
    lgc_json_key(&j, "correction");
    lgc_json_string(&j, lgc_project_names[r->opt.project]);
    lgc_json_key(&j, "metric");
    lgc_json_string(&j, lgc_metric_names[r->opt.metric]);
    lgc_json_key(&j, "samples");
    lgc_json_count(&j, r->mon.count);
    json_residuals(&j, r);
    char lost[512];
    if (lgc_integral_lost(m, r->sys.u, lost, sizeof lost)) {
        lgc_json_key(&j, "not_conserved");
        lgc_json_string(&j, lost);
    } else {
        lgc_json_key(&j, lgc_integral_json_key(m));
        lgc_json_number(&j, r->mon.max_energy_drift);
    }
    lgc_json_key(&j, "initial_state");
    json_state(&j, m, r->x0);
    lgc_json_key(&j, "final_t");
    lgc_json_number(&j, r->mon.count > 0 ? r->mon.s.t : NAN);
    lgc_json_key(&j, "final_state");
    if (r->mon.count > 0)
        json_state(&j, m, r->mon.s.x);
    else
        lgc_json_null(&j);
    json_events(&j, r);
    json_outputs(&j, r);
    lgc_json_key(&j, "warnings");
    lgc_json_begin(&j, '[');
    if (r->drifted) {
        char name[32], text[96];
        const int row = worst_row(r);
        lgc_row_name(m, row, name, sizeof name);
        snprintf(text, sizeof text, "constraints drifted: max |%s| = %.3g, past %g", name,
                 r->mon.max_residual[row], LGC_DRIFT_WARNING);
        lgc_json_string(&j, text);
    }
    if (r->inside) {
        char name[32], text[96];
        const int row = deepest_contact(r);
        lgc_row_name(m, row, name, sizeof name);
        snprintf(text, sizeof text, "a contact went inside: min %s = %.3g, past -%g", name,
                 r->mon.min_contact_phi[row - (m->nh - m->ncontact)], LGC_DRIFT_WARNING);
        lgc_json_string(&j, text);
    }
    lgc_json_end(&j);
    lgc_json_key(&j, "strict");
    lgc_json_bool(&j, r->opt.strict);
    lgc_json_key(&j, "wall_time");
    lgc_json_number(&j, r->wall);
    lgc_json_close(&j);
}
