/*
** fixture_pendulum.c — planar pendulum in Cartesian coordinates, written by
** hand in the generator's shape. y points up; T = m (x'^2 + y'^2) / 2,
** V = m g y, phi = x^2 + y^2 - l^2, so A = [2x, 2y], c_h = 2 (x'^2 + y'^2).
*/
#include <stddef.h>

#include "fixture_kkt.h"
#include "fixtures.h"

enum { NQ = 2, NH = 1, NN = 0 };

static int pendulum_rhs(double t, const double x[], const double u[],
                        const double p[], double alpha, double beta,
                        double dxdt[], double multipliers[], double work[])
{
    const double m = p[0], g = p[1], l = p[2];
    const double q1 = x[0], q2 = x[1], v1 = x[2], v2 = x[3];
    double M[NQ * NQ] = {m, 0.0, 0.0, m};
    const double J[NH * NQ] = {2.0 * q1, 2.0 * q2};
    const double f[NQ] = {0.0, -m * g};
    const double phi = q1 * q1 + q2 * q2 - l * l;
    const double phi_dot = 2.0 * (q1 * v1 + q2 * v2);
    const double r[NH] = {-2.0 * (v1 * v1 + v2 * v2) - alpha * phi_dot - beta * phi};
    double lam[NH];
    (void)t;
    (void)u;
    int rc = fixture_kkt_solve(NQ, NH, M, J, f, r, dxdt + NQ, lam, work);
    if (rc != LGC_MODEL_OK)
        return rc;
    dxdt[0] = v1;
    dxdt[1] = v2;
    if (multipliers)
        multipliers[0] = lam[0];
    return LGC_MODEL_OK;
}

static void pendulum_residuals(double t, const double x[], const double p[],
                               double phi[], double phi_dot[], double g[])
{
    (void)t;
    (void)g;
    phi[0] = x[0] * x[0] + x[1] * x[1] - p[2] * p[2];
    phi_dot[0] = 2.0 * (x[0] * x[2] + x[1] * x[3]);
}

static double pendulum_energy(double t, const double x[], const double p[])
{
    (void)t;
    return 0.5 * p[0] * (x[2] * x[2] + x[3] * x[3]) + p[0] * p[1] * x[1];
}

static void pendulum_mass_matrix(double t, const double x[], const double p[],
                                 double M[])
{
    (void)t;
    (void)x;
    M[0] = p[0];
    M[1] = 0.0;
    M[2] = 0.0;
    M[3] = p[0];
}

static void pendulum_constraint_jacobian(double t, const double x[],
                                         const double p[], double C[])
{
    (void)t;
    (void)p;
    C[0] = 2.0 * x[0];
    C[1] = 2.0 * x[1];
}

static const char *const coordinate_names[NQ] = {"x", "y"};
static const char *const parameter_names[3] = {"m", "g", "l"};
static const double parameter_defaults[3] = {1.0, 9.81, 1.0};
static const double initial_state[2 * NQ + NN] = {1.0, 0.0, 0.0, 0.0};

const lgc_model fixture_pendulum_model = {
    .name = "pendulum",
    .title = "Planar pendulum, Cartesian coordinates",
    .nq = NQ, .nh = NH, .nn = NN, .nx = 2 * NQ + NN, .np = 3, .nu = 0,
    .nwork = FIXTURE_KKT_WORK(NQ, NH + NN),
    .coordinate_names = coordinate_names,
    .parameter_names = parameter_names,
    .input_names = NULL,
    .parameter_defaults = parameter_defaults,
    .input_defaults = NULL,
    .initial_state = initial_state,
    .alpha = 10.0, .beta = 25.0,
    .conservative = 1,
    .rhs = pendulum_rhs,
    .residuals = pendulum_residuals,
    .energy = pendulum_energy,
    .mass_matrix = pendulum_mass_matrix,
    .constraint_jacobian = pendulum_constraint_jacobian,
};
