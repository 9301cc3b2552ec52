/*
** light_spring_sundials.c — is BDF the wrong tool for the lightly damped
** stiff spring (specs/spring_pendulum_light.toml), or is the problem hard
** for every implicit method SUNDIALS has? The spring's equations written
** by hand (a probe, not lagrangec's code path), integrated to t = 10 by
** CVODE's BDF (maximum order 5 or 3) and by each of ARKODE's diagonally
** implicit Runge–Kutta tables, L-stable ones among them, at one tolerance.
** Prints steps, right-hand sides (without the difference-quotient
** Jacobian's), Jacobians and the error at t = 10 against a BDF run at
** rtol 1e-13 (BENCHMARKS.md, "Methods", the notes).
**
**   ninja -C build tests/bench/light_spring_sundials
**   build/tests/bench/light_spring_sundials [RTOL]   (default 1e-6; atol = RTOL/1000)
*/
#include <arkode/arkode_arkstep.h>
#include <cvode/cvode.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

/* The spec's parameters and initial state: 1000 rad/s along the spring,
** damping ratio 0.1, a 3.13 rad/s swing from 0.5 rad. */
static const double m = 1.0, g = 9.81, l = 1.0, k = 1.0e6, c = 200.0;
static const double x0[4] = {0.48421979399024506, -0.8863583875092765, 0.0, 0.0};
static const double t_end = 10.0;
static long rhs_calls;

/* ARKODE_DIRKTableID's names, in its order (SUNDIALS 6.4 has no lookup). */
static const char *const dirk_names[] = {
    "SDIRK_2_1_2", "BILLINGTON_3_3_2", "TRBDF2_3_3_2", "KVAERNO_4_2_3", "ARK324L2SA_DIRK_4_2_3", "CASH_5_2_4",
    "CASH_5_3_4", "SDIRK_5_3_4", "KVAERNO_5_3_4", "ARK436L2SA_DIRK_6_3_4", "KVAERNO_7_4_5", "ARK548L2SA_DIRK_8_4_5",
    "ARK437L2SA_DIRK_7_3_4", "ARK548L2SAb_DIRK_8_4_5", "ESDIRK324L2SA_4_2_3", "ESDIRK325L2SA_5_2_3",
    "ESDIRK32I5L2SA_5_2_3", "ESDIRK436L2SA_6_3_4", "ESDIRK43I6L2SA_6_3_4", "QESDIRK436L2SA_6_3_4",
    "ESDIRK437L2SA_7_3_4", "ESDIRK547L2SA_7_4_5", "ESDIRK547L2SA2_7_4_5"};

static int spring(double t, N_Vector state, N_Vector rate, void *user)
{
    (void)t;
    (void)user;
    ++rhs_calls;
    const double *s = N_VGetArrayPointer(state);
    double *d = N_VGetArrayPointer(rate);
    const double x = s[0], y = s[1], vx = s[2], vy = s[3], r2 = x * x + y * y, r = sqrt(r2);
    const double along = k * (r - l) / r + c * (x * vx + y * vy) / r2;  /* spring and damper over r */
    d[0] = vx;
    d[1] = vy;
    d[2] = -along * x / m;
    d[3] = -g - along * y / m;
    return 0;
}

typedef struct {
    long steps, rhs, jacobians;
    double x[4];
} run;

/* table < 0: CVODE BDF with maximum order -table; else ARKODE's DIRK table. */
static run integrate(int table, double rtol, SUNContext ctx)
{
    N_Vector y = N_VNew_Serial(4, ctx);
    for (int i = 0; i < 4; ++i) NV_Ith_S(y, i) = x0[i];
    SUNMatrix A = SUNDenseMatrix(4, 4, ctx);
    SUNLinearSolver ls = SUNLinSol_Dense(y, A, ctx);
    run out = {0};
    long dq = 0;
    double t;
    rhs_calls = 0;
    if (table < 0) {
        void *mem = CVodeCreate(CV_BDF, ctx);
        CVodeInit(mem, spring, 0.0, y);
        CVodeSStolerances(mem, rtol, rtol / 1000);
        CVodeSetLinearSolver(mem, ls, A);
        CVodeSetMaxNumSteps(mem, 100000000);
        CVodeSetMaxOrd(mem, -table);
        CVodeSetStopTime(mem, t_end);
        CVode(mem, t_end, y, &t, CV_NORMAL);
        CVodeGetNumSteps(mem, &out.steps);
        CVodeGetNumLinRhsEvals(mem, &dq);
        CVodeGetNumJacEvals(mem, &out.jacobians);
        CVodeFree(&mem);
    } else {
        void *mem = ARKStepCreate(NULL, spring, 0.0, y, ctx);
        ARKStepSStolerances(mem, rtol, rtol / 1000);
        ARKStepSetLinearSolver(mem, ls, A);
        ARKStepSetMaxNumSteps(mem, 100000000);
        ARKStepSetTableNum(mem, (ARKODE_DIRKTableID)table, ARKODE_ERK_NONE);
        ARKStepSetStopTime(mem, t_end);
        ARKStepEvolve(mem, t_end, y, &t, ARK_NORMAL);
        ARKStepGetNumSteps(mem, &out.steps);
        ARKStepGetNumLinRhsEvals(mem, &dq);
        ARKStepGetNumJacEvals(mem, &out.jacobians);
        ARKStepFree(&mem);
    }
    out.rhs = rhs_calls - dq;
    for (int i = 0; i < 4; ++i) out.x[i] = NV_Ith_S(y, i);
    SUNLinSolFree(ls);
    SUNMatDestroy(A);
    N_VDestroy(y);
    return out;
}

int main(int argc, char **argv)
{
    const double rtol = argc > 1 ? atof(argv[1]) : 1e-6;
    SUNContext ctx;
    if (SUNContext_Create(NULL, &ctx)) return 1;
    const run reference = integrate(-5, 1e-13, ctx);
    printf("method\tsteps\trhs\tjacobians\terror at t = 10\n");
    _Static_assert(sizeof dirk_names / sizeof *dirk_names == ARKODE_MAX_DIRK_NUM - ARKODE_MIN_DIRK_NUM + 1,
                   "a name per ARKODE DIRK table");
    for (int table = -5; table <= ARKODE_MAX_DIRK_NUM; table = table == -3 ? ARKODE_MIN_DIRK_NUM : table + 1) {
        if (table == -4) continue;
        const run r = integrate(table, rtol, ctx);
        double error = 0;
        for (int i = 0; i < 4; ++i) error = fmax(error, fabs(r.x[i] - reference.x[i]));
        char name[64];
        if (table < 0)
            snprintf(name, sizeof name, "CVODE BDF, maximum order %d", -table);
        else
            snprintf(name, sizeof name, "ARKODE %s", dirk_names[table - ARKODE_MIN_DIRK_NUM]);
        printf("%s\t%ld\t%ld\t%ld\t%.1e\n", name, r.steps, r.rhs, r.jacobians, error);
    }
    SUNContext_Free(&ctx);
    return 0;
}
