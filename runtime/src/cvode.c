/*
** cvode.c — SUNDIALS CVODE's variable-order BDF (orders 1-5) and
** Adams–Moulton (1-12) methods behind the stepper interface: Newton
** iterations on the model's generated Jacobian, dense, solved by LU in
** plain loops (newton_lu.c), or on difference quotients when the model was
** generated without a Jacobian; CVODE's own error control, steps one at a
** time (CV_ONE_STEP, never past t_stop nor longer than max_step) and dense
** output (CVodeGetDky).
** The correction runs inside each BDF step through CVodeSetProjFn, so the
** history CVODE keeps is on the constraints. CVODE projects for BDF only:
** an Adams run corrects the state it reports after each step and
** integrates on from its own, which the Baumgarte terms and the tolerances
** keep near the constraints. Either way the correction goes to the
** constraints' round-off (tol 0 in lgc_projector_alloc): what one leaves
** to a tolerance is noise to the error test (at rtol 1e-13 the double
** pendulum's BDF steps shrank to nothing).
*/
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <cvode/cvode_proj.h>
#include <nvector/nvector_serial.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "lagrangec/status.h"
#include "lagrangec/stepper.h"
#include "newton_lu.h"
#include "vector_ops.h"

_Static_assert(sizeof(sunrealtype) == sizeof(double), "SUNDIALS built for double precision");

typedef struct cvode_state {
    lgc_system *sys;
    lgc_projector *proj;
    double rtol, atol, h0, t_stop, max_step;
    int nx;
    int corrects_inside;    /* CVODE's projection corrects each step (BDF) */
    int called;             /* CVode ran since the last start: its counters are this run's */
    SUNContext ctx;
    void *mem;
    N_Vector y;             /* CVODE's state out, and its dense output */
    SUNMatrix jac;
    SUNLinearSolver ls;
    double *dfdx, *dfdu;    /* the model's Jacobian, row-major, and df/du (unused) */
    double *jwork;          /* the model's Jacobian scratch */
    double *xp;             /* a state being corrected */
    double *yj, *fj;        /* a difference quotient's state and derivative */
    double t0, t1;          /* the last step */
    int fault;              /* the lgc_status a callback failed with, since the last CVode call */
    unsigned long proj_iter;
} cvode_state;

/*
** A callback's status for CVODE: 0, or -1 with the reason kept. Every fault
** of the model ends the run, as it does under the one-step methods: CVODE
** would take it as a cue to shrink its steps onto the singularity.
*/
static int fails(cvode_state *s, int rc)
{
    if (rc == LGC_OK)
        return 0;
    s->fault = rc;
    return -1;
}

static int cvode_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *data)
{
    cvode_state *s = data;
    return fails(s, lgc_system_rhs(s->sys, t, N_VGetArrayPointer(y),
                                         N_VGetArrayPointer(ydot), NULL));
}

/*
** df/dx by forward differences, the way CVODE's own are taken (its dense
** ones allocate a vector each time): column j from y_j + d_j, d_j =
** sqrt(eps) max(|y_j|, the tolerance at y_j), fy = f(t, y) given.
*/
static int difference_quotients(cvode_state *s, double t, const double y[], const double fy[])
{
    const int n = s->nx;
    const double root_eps = sqrt(DBL_EPSILON);
    memcpy(s->yj, y, (size_t)n * sizeof *y);
    for (int j = 0; j < n; j++) {
        const double d = root_eps * fmax(fabs(y[j]), s->rtol * fabs(y[j]) + s->atol);
        s->yj[j] = y[j] + d;
        int rc = lgc_system_rhs(s->sys, t, s->yj, s->fj, NULL);
        if (rc != LGC_OK)
            return rc;
        for (int i = 0; i < n; i++)
            s->dfdx[(size_t)i * n + j] = (s->fj[i] - fy[i]) / d;
        s->yj[j] = y[j];
    }
    return LGC_OK;
}

/*
** CVODE's Newton matrix A = I - gamma df/dx, written straight into its
** column-major matrix from the model's generated df/dx (row-major), or from
** difference quotients: a new one unless CVODE says the last may serve (jok).
*/
static int cvode_newton_matrix(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix A,
                               sunbooleantype jok, sunbooleantype *jcur, sunrealtype gamma,
                               void *data, N_Vector tmp1, N_Vector tmp2, N_Vector tmp3)
{
    cvode_state *s = data;
    const lgc_system *sys = s->sys;
    const int n = s->nx;
    int rc = LGC_OK;
    (void)tmp1, (void)tmp2, (void)tmp3;
    if (!jok && sys->model->jacobian)
        rc = lgc_model_status(sys->model->jacobian(t, N_VGetArrayPointer(y), sys->u, sys->p,
                                                   sys->alpha, sys->beta, s->dfdx, s->dfdu,
                                                   s->jwork));
    else if (!jok)
        rc = difference_quotients(s, t, N_VGetArrayPointer(y), N_VGetArrayPointer(fy));
    *jcur = !jok;
    if (rc != LGC_OK)
        return fails(s, rc);
    double *a = SUNDenseMatrix_Data(A);
    int finite = 1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            const double v = -gamma * s->dfdx[(size_t)i * n + j];
            finite &= isfinite(v) != 0;
            a[(size_t)j * n + i] = v;
        }
    for (int i = 0; i < n; i++)
        a[(size_t)i * n + i] += 1.0;
    return fails(s, finite ? LGC_OK : LGC_ERR_NONFINITE);
}

/*
** A projection that failed at (t, y): where the constraint Jacobian has lost
** rank and the constraints ask for a motion no state gives, that is the
** fault (as the driver finds it for the one-step methods); else it stays
** the projection's.
*/
static int projection_fault(cvode_state *s, double t, const double y[], double scratch[])
{
    int rc = lgc_system_rhs(s->sys, t, y, scratch, NULL);
    if (rc == LGC_OK && lgc_system_inconsistency(s->sys) > LGC_INCONSISTENT_RANK)
        return LGC_ERR_RANK_LOST;
    return rc == LGC_OK ? LGC_ERR_PROJECTION : rc;
}

/*
** CVODE's projection: corr takes ycur onto the constraints. The error
** estimate is left as it is: its component off the constraints is small
** next to the tolerances, and measuring it unprojected keeps the steps
** conservative.
*/
static int cvode_project(sunrealtype t, N_Vector ycur, N_Vector corr, sunrealtype eps,
                         N_Vector err, void *data)
{
    cvode_state *s = data;
    const double *y = N_VGetArrayPointer(ycur);
    double *c = N_VGetArrayPointer(corr);
    int it = 0;
    (void)eps, (void)err;
    memcpy(s->xp, y, (size_t)s->nx * sizeof *s->xp);
    int rc = lgc_project(s->proj, s->sys, t, s->xp, &it);
    s->proj_iter += (unsigned long)it;
    for (int i = 0; i < s->nx; i++)
        c[i] = s->xp[i] - y[i];
    if (rc == LGC_ERR_PROJECTION)
        rc = projection_fault(s, t, y, s->xp);
    if (rc == LGC_ERR_PROJECTION) {  /* recoverable: CVODE retries on a shorter step */
        s->fault = rc;
        return 1;
    }
    return fails(s, rc);
}

/*
** CVODE's error weights, 1 / (rtol |y_i| + atol). A weight that cannot be
** formed (atol = 0 and y_i = 0) asks for no error at all: the tolerance
** fault, as the driver's own error control reports it.
*/
static int cvode_weights(N_Vector y, N_Vector ewt, void *data)
{
    cvode_state *s = data;
    const double *v = N_VGetArrayPointer(y);
    double *w = N_VGetArrayPointer(ewt);
    for (int i = 0; i < s->nx; i++) {
        double size = s->rtol * fabs(v[i]) + s->atol;
        if (!(size > 0.0)) {
            s->fault = LGC_ERR_TOLERANCE;
            return -1;
        }
        w[i] = 1.0 / size;
    }
    return 0;
}

/* CVODE's messages stay unprinted: the flag it returns becomes an lgc_status. */
static void cvode_quiet(int code, const char *module, const char *function, char *msg, void *data)
{
    (void)code, (void)module, (void)function, (void)msg, (void)data;
}

static void cvode_free(void *state)
{
    cvode_state *s = state;
    if (!s)
        return;
    if (s->mem)
        CVodeFree(&s->mem);
    lgc_projector_free(s->proj);
    if (s->ls)
        SUNLinSolFree(s->ls);
    if (s->jac)
        SUNMatDestroy(s->jac);
    if (s->y)
        N_VDestroy(s->y);
    if (s->ctx)
        SUNContext_Free(&s->ctx);
    free(s->dfdx);
    free(s);
}

static void *cvode_alloc(const lgc_stepper_setup *setup, int lmm)
{
    const lgc_model *m = setup->sys->model;
    cvode_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    const int n = m->nx;
    const size_t jacobian_doubles =
        (size_t)n * n + (m->jacobian ? (size_t)n * m->nu + m->nwork_jacobian : 0);
    s->sys = setup->sys;
    s->rtol = setup->rtol;
    s->atol = setup->atol;
    s->h0 = setup->h0;
    s->t_stop = setup->t_stop;
    s->max_step = setup->max_step;
    s->nx = n;
    s->proj = lgc_projector_alloc(m, setup->project, setup->metric, 0.0, setup->project_max_iter);
    s->corrects_inside = lmm == CV_BDF && s->proj && lgc_projector_active(s->proj);
    s->dfdx = calloc(jacobian_doubles + 3 * (size_t)n, sizeof *s->dfdx);
    if (!s->proj || !s->dfdx || SUNContext_Create(NULL, &s->ctx) != 0) {
        cvode_free(s);
        return NULL;
    }
    s->dfdu = s->dfdx + (size_t)n * n;
    s->jwork = s->dfdu + (size_t)n * m->nu;
    s->xp = s->dfdx + jacobian_doubles;
    s->yj = s->xp + n;
    s->fj = s->yj + n;
    /* Everything CVODE allocates, it allocates here: a start only re-initialises. */
    if (!(s->y = N_VNew_Serial(n, s->ctx)) || !(s->mem = CVodeCreate(lmm, s->ctx))
        || !(s->jac = SUNDenseMatrix(n, n, s->ctx)) || !(s->ls = lgc_newton_lu(n, s->ctx))) {
        cvode_free(s);
        return NULL;
    }
    lgc_vector_ops(s->y);
    memcpy(N_VGetArrayPointer(s->y), m->initial_state, (size_t)n * sizeof(double));
    int flag = CVodeSetErrHandlerFn(s->mem, cvode_quiet, NULL);
    if (flag == CV_SUCCESS)
        flag = CVodeInit(s->mem, cvode_rhs, 0.0, s->y);
    if (flag == CV_SUCCESS)
        flag = CVodeSetUserData(s->mem, s);
    if (flag == CV_SUCCESS)
        flag = CVodeWFtolerances(s->mem, cvode_weights);
    if (flag == CV_SUCCESS)
        flag = CVodeSetLinearSolver(s->mem, s->ls, s->jac);
    if (flag == CV_SUCCESS)
        flag = CVodeSetLinSysFn(s->mem, cvode_newton_matrix);
    /*
    ** BDF's Newton matrix and df/dx are CVODE's to renew (its heuristics:
    ** the matrix after 20 steps, a gamma change past 30 % or a failed
    ** iteration; df/dx after 51 steps or when the iteration fails on a
    ** stale one). A stale df/dx converges more slowly, and CVODE's test
    ** (0.1 of the error test's tolerance) then stops the iteration early
    ** enough to bias every step: the stiff spring pendulum, whose stiff
    ** direction turns with the swing, landed 48 times farther from the
    ** reference at rtol 1e-6. At 3e-4 of it the errors are those of a new
    ** matrix at every step (9.3e-6 against 1.3e-5 there, 1.1e-5 against
    ** 5.0e-6 on the lightly damped spring, 2.6e-8 against 3.0e-8 on the
    ** 5-link chain at rtol 1e-10) with 1/3 to 1/60 of the Jacobians, and the
    ** chain's run takes half the instructions (tests/bench/method_bench.py).
    ** CVodeSetStabLimDet was measured too: no fewer steps on either spring,
    ** 10-25 % more instructions; it is not set.
    ** Adams keeps a new matrix every step with the generated Jacobian: its
    ** runs were not measured to gain on the stiff examples, and where the
    ** tolerance cannot be met its longer steps found it later.
    */
    if (flag == CV_SUCCESS && lmm == CV_BDF)
        flag = CVodeSetNonlinConvCoef(s->mem, 3e-4);
    if (flag == CV_SUCCESS && lmm == CV_ADAMS && m->jacobian)
        flag = CVodeSetLSetupFrequency(s->mem, 1);
    if (flag == CV_SUCCESS && lmm == CV_ADAMS && m->jacobian)
        flag = CVodeSetJacEvalFrequency(s->mem, 1);
    if (flag == CV_SUCCESS && s->corrects_inside)
        flag = CVodeSetProjFn(s->mem, cvode_project);
    if (flag != CV_SUCCESS) {
        cvode_free(s);
        return NULL;
    }
    return s;
}

static void *bdf_alloc(const lgc_stepper_setup *setup)
{
    return cvode_alloc(setup, CV_BDF);
}

static void *adams_alloc(const lgc_stepper_setup *setup)
{
    return cvode_alloc(setup, CV_ADAMS);
}

static int cvode_start(void *state, double t0, const double x0[])
{
    cvode_state *s = state;
    memcpy(N_VGetArrayPointer(s->y), x0, (size_t)s->nx * sizeof *x0);
    s->t0 = s->t1 = t0;
    s->called = 0;
    s->proj_iter = 0;
    int flag = CVodeReInit(s->mem, t0, s->y);
    if (flag == CV_SUCCESS)
        flag = CVodeSetInitStep(s->mem, s->h0);
    if (flag == CV_SUCCESS && isfinite(s->t_stop))
        flag = CVodeSetStopTime(s->mem, s->t_stop);
    if (flag == CV_SUCCESS && isfinite(s->max_step))
        flag = CVodeSetMaxStep(s->mem, s->max_step);
    return flag == CV_SUCCESS ? LGC_OK : LGC_ERR_ARG;
}

/*
** The lgc_status of a failed CVode call. A failure a callback caused is the
** callback's own fault (the rhs's singular mass, the Jacobian's NaN, a
** projection that did not converge, a tolerance that cannot be formed);
** CVODE's own failures map to codes of their own.
*/
static int cvode_status(const cvode_state *s, int flag)
{
    switch (flag) {
    case CV_TOO_MUCH_ACC:
        return LGC_ERR_TOLERANCE;
    case CV_ERR_FAILURE:
        return LGC_ERR_ERROR_TEST;
    case CV_CONV_FAILURE:
        return LGC_ERR_CONVERGENCE;
    case CV_RHSFUNC_FAIL: case CV_FIRST_RHSFUNC_ERR: case CV_LSETUP_FAIL:
    case CV_PROJFUNC_FAIL: case CV_REPTD_PROJFUNC_ERR: case CV_ILL_INPUT:
        return s->fault != LGC_OK ? s->fault : flag == CV_ILL_INPUT ? LGC_ERR_ARG : LGC_ERR_SOLVER;
    case CV_TOO_CLOSE:
        return LGC_ERR_ARG;
    case CV_MEM_FAIL:
        return LGC_ERR_NOMEM;
    default:
        return LGC_ERR_SOLVER;
    }
}

/*
** CVODE reads its first call's tout to bound its first step (a tenth of the
** way): t_stop when the run has one, so the steps do not depend on where
** the samples fall.
*/
static int cvode_step(void *state, double toward, double *t1, double x1[])
{
    cvode_state *s = state;
    sunrealtype t = s->t1;
    s->fault = LGC_OK;
    s->called = 1;
    int flag = CVode(s->mem, isfinite(s->t_stop) ? s->t_stop : toward, s->y, &t, CV_ONE_STEP);
    if (flag < 0)
        return cvode_status(s, flag);
    s->t0 = s->t1;
    s->t1 = *t1 = t;
    memcpy(x1, N_VGetArrayPointer(s->y), (size_t)s->nx * sizeof *x1);
    if (s->corrects_inside || !lgc_projector_active(s->proj))
        return LGC_OK;
    int it = 0, rc = lgc_project(s->proj, s->sys, t, x1, &it);
    s->proj_iter += (unsigned long)it;
    return rc == LGC_ERR_PROJECTION ? projection_fault(s, t, N_VGetArrayPointer(s->y), s->xp) : rc;
}

static void cvode_dense(const void *state, double theta, double xout[])
{
    const cvode_state *s = state;
    /* Within the step CVODE just took: its interpolating polynomial, order q. */
    CVodeGetDky(s->mem, s->t0 + theta * (s->t1 - s->t0), 0, s->y);
    memcpy(xout, N_VGetArrayPointer(s->y), (size_t)s->nx * sizeof *xout);
}

static void cvode_stats(const void *state, lgc_method_stats *st)
{
    const cvode_state *s = state;
    long nje = 0, nni = 0, netf = 0, ncfn = 0;
    memset(st, 0, sizeof *st);
    if (!s->called)
        return;
    CVodeGetNumJacEvals(s->mem, &nje);
    CVodeGetNumNonlinSolvIters(s->mem, &nni);
    CVodeGetNumErrTestFails(s->mem, &netf);
    CVodeGetNumNonlinSolvConvFails(s->mem, &ncfn);
    st->jacobian_evals = (unsigned long)nje;
    st->newton_iters = (unsigned long)nni;
    st->error_test_fails = (unsigned long)netf;
    st->convergence_fails = (unsigned long)ncfn;
    st->proj_iter = s->proj_iter;
}

static const lgc_stepper_type bdf_type = {
    .name = "bdf", .order = 5, .adaptive = 1, .leaves_branch = 1, .alloc = bdf_alloc, .free = cvode_free,
    .dense = cvode_dense, .start = cvode_start, .step = cvode_step, .stats = cvode_stats,
};

static const lgc_stepper_type adams_type = {
    .name = "adams", .order = 12, .adaptive = 1, .leaves_branch = 1, .alloc = adams_alloc, .free = cvode_free,
    .dense = cvode_dense, .start = cvode_start, .step = cvode_step, .stats = cvode_stats,
};

const lgc_stepper_type *const lgc_step_bdf = &bdf_type;
const lgc_stepper_type *const lgc_step_adams = &adams_type;
