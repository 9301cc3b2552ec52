/* driver.c — stepping, error control, correction and sampling at given times. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lagrangec/control.h"
#include "lagrangec/driver.h"
#include "lagrangec/status.h"
#include "events.h"
#include "impact.h"
#include "singular_guard.h"
#include "switch_window.h"

struct lgc_driver {
    lgc_system *sys;
    lgc_driver_options opt;
    void *step;             /* the stepper type's state */
    lgc_control ctl;
    lgc_projector *proj;
    int nx;
    double t, h;            /* internal time and the next step to try */
    double t_prev;          /* start of the last accepted step (dense output) */
    double t_start;         /* the reset time: fixed step k ends at t_start + k h */
    int have_dxdt;          /* dxdt holds f(t, x), and the interpolant ends there */
    int rejected_last;      /* no step growth right after a rejection */
    double *x, *xnew, *xerr, *dxdt;
    lgc_stats stats;
    lgc_step_observer observer;
    void *observer_ctx;
    unsigned long grid_steps;   /* fixed steps since the start (or a contact's switch) */
    lgc_events events;      /* the model's, located in each step */
    double t_event_stop;    /* when an event stopped the run; NAN: none did */
    lgc_impact impact;
    lgc_friction friction;
    lgc_switch_window switches; /* the last contact switches' times */
    /* What switches at t_contact (NAN: none pending): contact c, or
       friction contact k as ncontact + k. */
    int contact;
    double t_contact;
    lgc_event_observer event_observer;
    void *event_ctx;
    lgc_singular_guard guard;
    unsigned long min_norm_seen;    /* sys->nfev_min_norm at the last consistency check */
};

void lgc_driver_options_default(lgc_driver_options *opt)
{
    opt->type = lgc_step_dopri5;
    opt->h = 0.0;
    opt->rtol = LGC_DEFAULT_RTOL;
    opt->atol = LGC_DEFAULT_ATOL;
    opt->project = LGC_PROJECT_FULL;
    opt->metric = LGC_METRIC_IDENTITY;
    opt->project_tol = LGC_DEFAULT_PROJECT_TOL;
    opt->project_max_iter = LGC_DEFAULT_PROJECT_MAX_ITER;
    opt->t_stop = INFINITY;
    opt->max_step = INFINITY;
    opt->singular_guard = LGC_DEFAULT_SINGULAR_GUARD;
}

lgc_driver *lgc_driver_alloc(lgc_system *sys, const lgc_driver_options *opt)
{
    if (!opt->type || (!opt->type->adaptive && !(opt->h > 0.0)) || isnan(opt->t_stop)
        || !(opt->max_step > 0.0) || (!opt->type->adaptive && opt->h > opt->max_step)
        || !(opt->singular_guard >= 0.0 && opt->singular_guard < 1.0)
        || (opt->type->adaptive && !(opt->rtol >= 0.0 && opt->atol >= 0.0
                                     && opt->rtol + opt->atol > 0.0)))
        return NULL;
    lgc_driver *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    const int nx = sys->model->nx;
    d->sys = sys;
    d->opt = *opt;
    d->nx = nx;
    lgc_control_init(&d->ctl, opt->rtol, opt->atol);
    d->proj = lgc_projector_alloc(sys->model, opt->project, opt->metric,
                                  opt->project_tol, opt->project_max_iter);
    const lgc_stepper_setup setup = {
        .sys = sys, .rtol = opt->rtol, .atol = opt->atol, .h0 = fmin(opt->h, opt->max_step),
        .t_stop = opt->t_stop, .max_step = opt->max_step, .project = opt->project,
        .metric = opt->metric, .project_tol = opt->project_tol,
        .project_max_iter = opt->project_max_iter,
    };
    d->step = opt->type->alloc(&setup);
    d->x = calloc(4 * (size_t)(nx > 0 ? nx : 1), sizeof(double));
    d->t_event_stop = d->t_contact = NAN;
    if (!d->step || !d->proj || !d->x || lgc_friction_init(&d->friction, sys->model) != LGC_OK
        || lgc_events_init(&d->events, sys, &d->friction) != LGC_OK
        || lgc_impact_init(&d->impact, sys->model) != LGC_OK) {
        lgc_driver_free(d);
        return NULL;
    }
    d->xnew = d->x + nx;
    d->xerr = d->xnew + nx;
    d->dxdt = d->xerr + nx;
    return d;
}

void lgc_driver_free(lgc_driver *d)
{
    if (!d)
        return;
    if (d->step)
        d->opt.type->free(d->step);
    lgc_projector_free(d->proj);
    lgc_events_free(&d->events);
    lgc_impact_free(&d->impact);
    lgc_friction_free(&d->friction);
    free(d->x);
    free(d);
}

static int all_finite(const double v[], int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

/* Hairer–Wanner's starting step guess (Solving ODE I, §II.4). */
static int initial_step(lgc_driver *d)
{
    const int n = d->nx, q = d->opt.type->order;
    const lgc_control *c = &d->ctl;
    int rc = lgc_system_rhs(d->sys, d->t, d->x, d->dxdt, NULL);
    if (rc != LGC_OK)
        return rc;
    d->have_dxdt = 1;
    double d0 = lgc_control_error_norm(c, n, d->x, d->x, d->x, NULL);
    double d1 = lgc_control_error_norm(c, n, d->x, d->x, d->dxdt, NULL);
    double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
    for (int i = 0; i < n; i++)
        d->xnew[i] = d->x[i] + h0 * d->dxdt[i];
    if ((rc = lgc_system_rhs(d->sys, d->t + h0, d->xnew, d->xerr, NULL)) != LGC_OK)
        return rc;
    for (int i = 0; i < n; i++)
        d->xerr[i] -= d->dxdt[i];
    double d2 = lgc_control_error_norm(c, n, d->x, d->x, d->xerr, NULL) / h0;
    double dm = fmax(d1, d2);
    double h1 = dm <= 1e-15 ? fmax(1e-6, h0 * 1e-3) : pow(0.01 / dm, 1.0 / q);
    d->h = fmin(fmin(100.0 * h0, h1), d->opt.max_step);
    return LGC_OK;
}

int lgc_driver_reset(lgc_driver *d, double t0, const double x0[])
{
    unsigned long nfev0 = d->sys->nfev;
    int it = 0, rc;
    memset(&d->stats, 0, sizeof d->stats);
    if (!(t0 <= d->opt.t_stop))
        return LGC_ERR_ARG;
    d->t = d->t_prev = d->t_start = t0;
    d->h = fmin(d->opt.h, d->opt.max_step);
    d->have_dxdt = 0;
    d->rejected_last = 0;
    d->t_event_stop = d->t_contact = NAN;
    d->grid_steps = 0;
    d->switches.n = 0;
    lgc_guard_reset(&d->guard, d->sys->model->nh + d->sys->model->nn > 0 ? d->opt.singular_guard : 0.0);
    d->min_norm_seen = d->sys->nfev_min_norm;
    memcpy(d->x, x0, (size_t)d->nx * sizeof *d->x);
    rc = lgc_friction_start_run(&d->friction, d->sys, t0, d->x, d->xerr);  /* xerr: 2 nh + nn <= nx doubles */
    if (rc == LGC_OK)
        rc = lgc_project(d->proj, d->sys, t0, d->x, &it);
    d->stats.proj_iter += (unsigned long)it;
    if (rc == LGC_OK && !all_finite(d->x, d->nx))
        rc = LGC_ERR_NONFINITE;
    for (int c = 0; c < d->sys->model->ncontact; c++)
        lgc_events_margin(&d->events, c, 0.0);
    if (rc == LGC_OK)
        rc = lgc_impact_coefficients(&d->impact, d->sys);
    if (rc == LGC_OK)
        rc = lgc_events_start(&d->events, t0, d->x);
    if (rc == LGC_OK && d->opt.type->start)
        rc = d->opt.type->start(d->step, t0, d->x);
    else if (rc == LGC_OK && d->opt.type->adaptive && !(d->h > 0.0))
        rc = initial_step(d);
    d->stats.nfev += d->sys->nfev - nfev0;
    return rc;
}

/*
** f(t, x) at the current state into dxdt, unless it is there: the next
** step's first stage, and the end slope of the last step's interpolant.
*/
static int end_derivative(lgc_driver *d)
{
    if (d->have_dxdt)
        return LGC_OK;
    int rc = lgc_system_rhs(d->sys, d->t, d->x, d->dxdt, NULL);
    if (rc != LGC_OK)
        return rc;
    if (d->stats.steps > 0)
        d->opt.type->set_end(d->step, d->x, d->dxdt);
    d->have_dxdt = 1;
    return LGC_OK;
}

/*
** Where an rhs since the last check lost rank: the constraints at (t1, x),
** an accepted state, must be consistent (a singular configuration the
** motion passes), else they ask for what no motion gives: a fault. Off the
** constraints, at a stage, the same measure is no verdict.
*/
static int check_consistent(lgc_driver *d, double t1, const double x[], double scratch[])
{
    if (d->sys->nfev_min_norm == d->min_norm_seen)
        return LGC_OK;
    int rc = lgc_system_rhs(d->sys, t1, x, scratch, NULL);
    d->min_norm_seen = d->sys->nfev_min_norm;
    if (rc == LGC_OK && lgc_system_inconsistency(d->sys) > LGC_INCONSISTENT_RANK)
        rc = LGC_ERR_RANK_LOST;
    return rc;
}

/*
** Take xnew at time t1 as the new state: seen by the observer, unless a
** contact switches inside the step (the run goes on from the switch, not
** from xnew: a state past an impact is none the run passes), counted.
*/
static int take_step(lgc_driver *d, double t1)
{
    int cut = 0, rc;
    if (!all_finite(d->xnew, d->nx))
        return LGC_ERR_NONFINITE;
    if ((rc = lgc_events_end(&d->events, t1, d->xnew, &cut)) != LGC_OK)
        return rc;
    if (d->observer && !cut && (rc = d->observer(d->observer_ctx, t1, d->xnew)) != LGC_OK)
        return rc;
    memcpy(d->x, d->xnew, (size_t)d->nx * sizeof *d->x);
    const double h = t1 - d->t;
    d->stats.h_min = d->stats.steps == 0 ? h : fmin(d->stats.h_min, h);
    d->stats.h_max = fmax(d->stats.h_max, h);
    d->t_prev = d->t;
    d->t = t1;
    d->stats.steps++;
    d->grid_steps++;
    return LGC_OK;
}

/* 1 when a spatial friction contact (two slip rows) slides. */
static int spatial_sliding(const lgc_system *sys)
{
    const lgc_model *m = sys->model;
    for (int k = 0; k < m->nfriction; k++)
        if (m->friction_slip_rows[2 * k + 1] >= 0 && lgc_sliding(sys->slide, k))
            return 1;
    return 0;
}

/* The events in the step just taken (its interpolant meeting its end); a stop ends the run. */
static int step_events(lgc_driver *d)
{
    if (d->events.n == 0)
        return LGC_OK;
    int rc = d->opt.type->step ? LGC_OK : end_derivative(d);
    int halt;
    double t_halt;
    if (rc == LGC_OK)
        rc = lgc_events_step(&d->events, d->t_prev, d->t, d->opt.type->dense, d->step,
                             d->proj, d->event_observer, d->event_ctx, &halt, &t_halt);
    const int nevent = d->sys->model->nevent;
    if (rc == LGC_OK && halt >= nevent) {
        d->contact = halt - nevent;
        d->t_contact = t_halt;
    } else if (rc == LGC_OK && halt >= 0) {
        d->t_event_stop = t_halt;
    } else if (rc == LGC_OK && spatial_sliding(d->sys)) {
        /* A spatial contact's slip is watched along its direction at the step's start; f changes with it. */
        lgc_friction_reference(&d->friction, d->sys, d->t, d->x);
        d->have_dxdt = 0;
        rc = lgc_events_start(&d->events, d->t, d->x);
    }
    return rc;
}

/*
** A rebound whose flight would be shorter than this ends in contact: rk4's
** step, which would not see it; for the adaptive methods, a thousand times
** the round-off of t, whatever their tolerances (a flight there is no
** longer an event that can be located).
*/
static double shortest_flight(const lgc_driver *d, double t)
{
    return d->opt.type->adaptive ? 1e3 * DBL_EPSILON * fmax(1.0, fabs(t)) : d->opt.h;
}

/*
** A rebound slower than this ends in contact (as one too short for a fixed
** step): the speed the tolerances resolve, sqrt(atol + rtol |v|).
*/
static double rest_speed(const lgc_driver *d, const double x[])
{
    const int nq = d->sys->model->nq;
    double v = 0.0;
    for (int i = 0; i < nq; i++)
        v = fmax(v, fabs(x[nq + i]));
    return sqrt(d->opt.atol + d->opt.rtol * v);
}

/*
** What the switch at t did to each contact and friction contact, to the
** event observer: an impact's, a release's; a slide's, a stick's.
*/
static int report_impact(lgc_driver *d, double t, const double x[])
{
    const lgc_model *m = d->sys->model;
    for (int c = 0; c < m->ncontact && d->event_observer; c++) {
        const int outcome = d->impact.outcome[c];
        if (outcome == LGC_CONTACT_UNCHANGED || outcome == LGC_CONTACT_CLEARS)
            continue;
        int rc = d->event_observer(d->event_ctx, m->nevent + 2 * c + (outcome != LGC_CONTACT_RELEASED),
                                   t, x);
        if (rc != LGC_OK)
            return rc;
    }
    for (int k = 0; k < m->nfriction && d->event_observer; k++) {
        const int outcome = d->friction.outcome[k];
        if (outcome == LGC_FRICTION_UNCHANGED)
            continue;
        int rc = d->event_observer(d->event_ctx, m->nevent + 2 * m->ncontact + 2 * k
                                   + (outcome == LGC_FRICTION_STICKS), t, x);
        if (rc != LGC_OK)
            return rc;
    }
    return LGC_OK;
}

/*
** The contact pending at t_contact switches: a friction contact sticking
** slides, one sliding settles (sticks, or slides on, reversed or not);
** in contact, it lets go (its
** multiplier reached 0); apart, it hits, and every contact closing there
** or on takes part in the impact (lgc_impact_apply). The run then starts
** afresh from that state, corrected on the new set of rows. A contact
** that bounced starts from above, whatever the round-off left its phi at,
** so that its next return is a crossing; one let go, or that grazed, is
** watched through lgc_contact_tolerance below where it is until it has
** moved away, so that the round-off of phi around 0 (or a drift the
** graze's correction did not remove) is not taken for an impact.
*/
static int switch_contact(lgc_driver *d)
{
    const lgc_model *m = d->sys->model;
    const int row = m->nh - m->ncontact + d->contact, k = d->contact - m->ncontact;
    const double t = d->t_contact;
    double *x = d->xnew;
    int rc = LGC_OK, it = 0;
    if (lgc_switch_window_add(&d->switches, t))
        return LGC_ERR_ACCUMULATION;
    d->opt.type->dense(d->step, (t - d->t_prev) / (d->t - d->t_prev), x);
    if (m->nfriction)
        memset(d->friction.outcome, LGC_FRICTION_UNCHANGED, (size_t)m->nfriction);
    if (k >= 0) {
        if (m->ncontact)
            memset(d->impact.outcome, LGC_CONTACT_UNCHANGED, (size_t)m->ncontact);
        rc = lgc_sliding(d->sys->slide, k) ? lgc_friction_settle(&d->friction, d->sys, k, t, x)
                                           : lgc_friction_break(&d->friction, d->sys, k, t, x);
    } else if (!d->sys->active[row]) {
        rc = lgc_impact_apply(&d->impact, d->sys, t, x, d->contact, lgc_contact_tolerance(m, x),
                              rest_speed(d, x), shortest_flight(d, t));
    } else {
        memset(d->impact.outcome, LGC_CONTACT_UNCHANGED, (size_t)m->ncontact);
        d->impact.outcome[d->contact] = LGC_CONTACT_RELEASED;
        d->sys->active[row] = 0;
    }
    /* A contact's switch changes the normal forces: every friction contact takes its mode afresh. */
    if (rc == LGC_OK && k < 0 && m->nfriction)
        rc = lgc_friction_start(&d->friction, d->sys, t, x, lgc_contact_tolerance(m, x));
    if (rc == LGC_OK)
        rc = lgc_project(d->proj, d->sys, t, x, &it);
    d->stats.proj_iter += (unsigned long)it;
    if (rc == LGC_OK)
        rc = report_impact(d, t, x);
    if (rc != LGC_OK)
        return rc;
    memcpy(d->x, x, (size_t)d->nx * sizeof *d->x);
    d->t = d->t_prev = d->t_start = t;
    d->t_contact = NAN;
    d->grid_steps = 0;
    d->have_dxdt = 0;
    d->stats.contact_switches++;
    if (d->opt.type->start && (rc = d->opt.type->start(d->step, t, d->x)) != LGC_OK)
        return rc;
    /* The flight ahead has nothing to do with the last one: an adaptive step starts from a fresh guess. */
    if (!d->opt.type->start && d->opt.type->adaptive && (rc = initial_step(d)) != LGC_OK)
        return rc;
    const double tol = lgc_contact_tolerance(m, d->x);
    double *phi = d->xerr;      /* 2 nh + nn <= nx doubles of scratch */
    m->residuals(t, d->x, d->sys->p, phi, phi + m->nh, phi + 2 * m->nh);
    for (int c = 0; c < m->ncontact; c++) {
        const int outcome = d->impact.outcome[c], row_c = m->nh - m->ncontact + c;
        if (outcome == LGC_CONTACT_CLEARS || outcome == LGC_CONTACT_RELEASED)
            lgc_events_margin(&d->events, c, tol + fmax(0.0, -phi[row_c]));
        else if (outcome != LGC_CONTACT_UNCHANGED)
            lgc_events_margin(&d->events, c, 0.0);
    }
    if ((rc = lgc_events_start(&d->events, t, d->x)) != LGC_OK)
        return rc;
    for (int c = 0; c < m->ncontact; c++)
        if (d->impact.outcome[c] == LGC_CONTACT_BOUNCED)
            lgc_events_rebound(&d->events, c);
    for (int f = 0; f < m->nfriction; f++)
        if (d->friction.outcome[f] != LGC_FRICTION_UNCHANGED)
            lgc_events_switched(&d->events, f);
    return LGC_OK;
}

/* Take a one-step method's xnew at time t1 as the new state, corrected onto the constraints. */
static int accept_step(lgc_driver *d, double t1)
{
    const double *f = d->opt.type->last_derivative(d->step);
    int it = 0, rc;
    if ((rc = check_consistent(d, t1, d->xnew, d->xerr)) != LGC_OK)
        return rc;
    if (d->opt.project != LGC_PROJECT_NONE) {
        rc = lgc_project(d->proj, d->sys, t1, d->xnew, &it);
        d->stats.proj_iter += (unsigned long)it;
        if (rc != LGC_OK)
            return rc;
        f = NULL;   /* f(t1, x) changed with x; the interpolant must meet x */
    }
    if ((rc = take_step(d, t1)) != LGC_OK)
        return rc;
    d->have_dxdt = f != NULL;
    if (f)
        memcpy(d->dxdt, f, (size_t)d->nx * sizeof *d->dxdt);
    return step_events(d);
}

/*
** Steps of h until the state reaches t1. Step k ends at t_start + k h, not
** at a running sum that would drift from it; only the step that reaches
** t_stop ends there instead.
*/
static int advance_fixed(lgc_driver *d, double t1)
{
    const double h = d->opt.h, t_stop = d->opt.t_stop;
    while (d->t < t1 && isnan(d->t_event_stop) && isnan(d->t_contact)) {
        double tn = d->t_start + (double)(d->grid_steps + 1) * h;
        if (tn >= t_stop - LGC_FIXED_STEP_STRETCH * h)
            tn = t_stop;
        if (!(tn > d->t))
            return LGC_ERR_STEP_UNDERFLOW;  /* h below the round-off of t: no step at all */
        int rc = end_derivative(d);
        if (rc == LGC_OK)
            rc = d->opt.type->apply(d->step, d->sys, d->t, tn - d->t, d->x, d->dxdt,
                                    d->xnew, NULL);
        if (rc == LGC_OK)
            rc = accept_step(d, tn);
        if (rc != LGC_OK)
            return rc;
    }
    return LGC_OK;
}

/* The controller's next step, after the guard's say, held to max_step. */
static double next_step(const lgc_driver *d, double h)
{
    return fmin(lgc_guard_next_h(&d->guard, h), d->opt.max_step);
}

/*
** Adaptive steps until the state reaches t1. A step that would end within
** 1% of t_stop or past it ends on t_stop (as Hairer's DOPRI5 does), unless
** that is longer than max_step.
*/
static int advance_adaptive(lgc_driver *d, double t1)
{
    const int q = d->opt.type->order - 1;  /* order of the error estimate */
    const double t_stop = d->opt.t_stop;
    while (d->t < t1 && isnan(d->t_event_stop) && isnan(d->t_contact)) {
        const int last = d->t + 1.01 * d->h >= t_stop && t_stop - d->t <= d->opt.max_step;
        const double h = last ? t_stop - d->t : d->h;
        /* A step that does not move t (max_step below its round-off) would never end. */
        if (!(d->t + h > d->t))
            return LGC_ERR_STEP_UNDERFLOW;
        int rc = end_derivative(d);
        if (rc == LGC_OK)
            rc = d->opt.type->apply(d->step, d->sys, d->t, h, d->x, d->dxdt, d->xnew, d->xerr);
        if (rc != LGC_OK)
            return rc;
        double roundoff;
        double err = lgc_control_error_norm(&d->ctl, d->nx, d->x, d->xnew, d->xerr, &roundoff);
        /*
         * No step is more accurate than the round-off of its end points; when
         * the tolerances ask for less (ODEPACK's "excess accuracy requested"),
         * err <= 1 would be noise passed off as a tolerance met.
         */
        if (roundoff > 1.0)
            return LGC_ERR_TOLERANCE;
        double hnext = lgc_control_next_h(&d->ctl, h, err, q);
        const int guarded = err > 1.0 && lgc_guard_takes(&d->guard, h);
        if (err <= 1.0 || guarded) {
            if ((rc = accept_step(d, last ? t_stop : d->t + h)) != LGC_OK)
                return rc;
            d->stats.guarded_steps += (unsigned long)guarded;
            /* S's conditioning at the new state: from f there, needed next anyway. */
            if (d->guard.tau > 0.0) {
                if ((rc = end_derivative(d)) != LGC_OK)
                    return rc;
                lgc_guard_accepted(&d->guard, h, lgc_system_conditioning(d->sys));
            }
            d->h = next_step(d, d->rejected_last ? fmin(hnext, h) : hnext);
            d->rejected_last = 0;
        } else {
            d->stats.rejected++;
            d->rejected_last = 1;
            lgc_guard_rejected(&d->guard);
            d->h = next_step(d, hnext);
            if (!(d->h > 16.0 * DBL_EPSILON * fabs(d->t)) || d->h < DBL_MIN)
                return LGC_ERR_STEP_UNDERFLOW;
        }
    }
    return LGC_OK;
}

/*
** A method that leaves the motion's branch at a singular configuration
** stops where the guard would arm (S's conditioning at the accepted state,
** from one more rhs there).
*/
static int refuse_singular(lgc_driver *d, double h, double t1, const double x[])
{
    if (!d->opt.type->leaves_branch || !(d->guard.tau > 0.0))
        return LGC_OK;
    int rc = lgc_system_rhs(d->sys, t1, x, d->xerr, NULL);
    if (rc != LGC_OK)
        return rc;
    lgc_guard_accepted(&d->guard, h, lgc_system_conditioning(d->sys));
    return d->guard.armed ? LGC_ERR_SINGULAR_METHOD : LGC_OK;
}

/*
** The method's own steps (corrected inside them) until the state reaches
** t1. A step at the round-off of t is an underflow, as for dopri5: CVODE
** only warns of one (t + h = t) and goes on, for ever.
*/
static int advance_own(lgc_driver *d, double t1)
{
    while (d->t < t1 && isnan(d->t_event_stop) && isnan(d->t_contact)) {
        double tn;
        int rc = d->opt.type->step(d->step, t1, &tn, d->xnew);
        if (rc == LGC_OK && !(tn - d->t > 16.0 * DBL_EPSILON * fabs(tn)))
            rc = LGC_ERR_STEP_UNDERFLOW;
        if (rc == LGC_OK)
            rc = check_consistent(d, tn, d->xnew, d->xerr);
        if (rc == LGC_OK)
            rc = refuse_singular(d, tn - d->t, tn, d->xnew);
        if (rc == LGC_OK)
            rc = take_step(d, tn);
        if (rc == LGC_OK)
            rc = step_events(d);
        if (rc != LGC_OK)
            return rc;
    }
    return LGC_OK;
}

int lgc_driver_advance(lgc_driver *d, double t1, double x[])
{
    const lgc_stepper_type *type = d->opt.type;
    unsigned long nfev0 = d->sys->nfev;
    if (!(t1 >= d->t_prev && t1 <= d->opt.t_stop))
        return LGC_ERR_ARG;     /* only forwards, within the last step at most */
    int rc;
    for (;;) {
        rc = t1 > d->t_contact ? switch_contact(d) : LGC_OK;
        if (rc == LGC_OK)
            rc = type->step       ? advance_own(d, t1)
                 : type->adaptive ? advance_adaptive(d, t1)
                                  : advance_fixed(d, t1);
        if (rc != LGC_OK || !(t1 > d->t_contact))
            break;
    }
    if (t1 > d->t_event_stop)
        t1 = d->t_event_stop;   /* the run ends there */
    if (rc == LGC_OK && t1 < d->t) {
        if (!type->step)
            rc = end_derivative(d);
        if (rc == LGC_OK) {
            type->dense(d->step, (t1 - d->t_prev) / (d->t - d->t_prev), x);
            /* The interpolant strays by its own error: correct samples too. */
            int it = 0;
            rc = lgc_project(d->proj, d->sys, t1, x, &it);
            d->stats.proj_iter += (unsigned long)it;
        }
    } else if (rc == LGC_OK) {
        memcpy(x, d->x, (size_t)d->nx * sizeof *x);
    }
    d->stats.nfev += d->sys->nfev - nfev0;
    return rc;
}

void lgc_driver_observe_events(lgc_driver *d, lgc_event_observer fn, void *ctx)
{
    d->event_observer = fn;
    d->event_ctx = ctx;
}

double lgc_driver_stop_time(const lgc_driver *d)
{
    return d->t_event_stop;
}

void lgc_driver_observe(lgc_driver *d, lgc_step_observer fn, void *ctx)
{
    d->observer = fn;
    d->observer_ctx = ctx;
}

double lgc_driver_time(const lgc_driver *d)
{
    return d->t;
}

double lgc_driver_step_size(const lgc_driver *d)
{
    return d->h;
}

void lgc_driver_stats(const lgc_driver *d, lgc_stats *stats)
{
    *stats = d->stats;
    stats->singular_passed = d->guard.passed;
    if (d->opt.type->stats) {
        lgc_method_stats own;
        d->opt.type->stats(d->step, &own);
        stats->rejected = own.error_test_fails;
        stats->convergence_fails = own.convergence_fails;
        stats->njev = own.jacobian_evals;
        stats->newton_iters = own.newton_iters;
        stats->proj_iter += own.proj_iter;
    }
}
