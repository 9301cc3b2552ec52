/*
** fixture_oscillator.c — unconstrained models with exact or independent
** solutions: the harmonic oscillator q'' = -w^2 q and the pendulum in its
** angle, theta'' = -(g/l) sin theta (theta from the downward vertical).
*/
#include <math.h>

#include "fixtures.h"

static int oscillator_rhs(double t, const double x[], const double u[],
                          const double p[], double alpha, double beta,
                          double dxdt[], double multipliers[], double work[])
{
    (void)t; (void)u; (void)alpha; (void)beta; (void)multipliers; (void)work;
    dxdt[0] = x[1];
    dxdt[1] = -p[0] * p[0] * x[0];
    return LGC_MODEL_OK;
}

static int angle_rhs(double t, const double x[], const double u[],
                     const double p[], double alpha, double beta,
                     double dxdt[], double multipliers[], double work[])
{
    (void)t; (void)u; (void)alpha; (void)beta; (void)multipliers; (void)work;
    dxdt[0] = x[1];
    dxdt[1] = -(p[0] / p[1]) * sin(x[0]);
    return LGC_MODEL_OK;
}

static void no_residuals(double t, const double x[], const double p[],
                         double phi[], double phi_dot[], double g[])
{
    (void)t; (void)x; (void)p; (void)phi; (void)phi_dot; (void)g;
}

static double oscillator_energy(double t, const double x[], const double p[])
{
    (void)t;
    return 0.5 * x[1] * x[1] + 0.5 * p[0] * p[0] * x[0] * x[0];
}

static double angle_energy(double t, const double x[], const double p[])
{
    (void)t;
    return 0.5 * p[1] * p[1] * x[1] * x[1] - p[0] * p[1] * cos(x[0]);
}

static void unit_mass(double t, const double x[], const double p[], double M[])
{
    (void)t; (void)x; (void)p;
    M[0] = 1.0;
}

static void no_jacobian(double t, const double x[], const double p[], double C[])
{
    (void)t; (void)x; (void)p; (void)C;
}

static const char *const oscillator_names[1] = {"q"};
static const char *const oscillator_params[1] = {"w"};
static const double oscillator_defaults[1] = {1.0};
static const double oscillator_initial[2] = {1.0, 0.0};

const lgc_model fixture_oscillator_model = {
    .name = "oscillator", .title = "Harmonic oscillator",
    .nq = 1, .nh = 0, .nn = 0, .nx = 2, .np = 1, .nu = 0, .nwork = 0,
    .coordinate_names = oscillator_names, .parameter_names = oscillator_params,
    .parameter_defaults = oscillator_defaults, .initial_state = oscillator_initial,
    .conservative = 1,
    .rhs = oscillator_rhs, .residuals = no_residuals, .energy = oscillator_energy,
    .mass_matrix = unit_mass, .constraint_jacobian = no_jacobian,
};

static const char *const angle_names[1] = {"theta"};
static const char *const angle_params[2] = {"g", "l"};
static const double angle_defaults[2] = {9.81, 1.0};
static const double angle_initial[2] = {1.5707963267948966, 0.0};

const lgc_model fixture_pendulum_angle_model = {
    .name = "pendulum_angle", .title = "Pendulum in its angle",
    .nq = 1, .nh = 0, .nn = 0, .nx = 2, .np = 2, .nu = 0, .nwork = 0,
    .coordinate_names = angle_names, .parameter_names = angle_params,
    .parameter_defaults = angle_defaults, .initial_state = angle_initial,
    .conservative = 1,
    .rhs = angle_rhs, .residuals = no_residuals, .energy = angle_energy,
    .mass_matrix = unit_mass, .constraint_jacobian = no_jacobian,
};
