/*
** fixture_knife_edge.c — the knife-edge dumbbell of seed Example 6.4, written
** by hand in the generator's shape. q = (x, y, phi), V = 0,
** T = m (x'^2 + y'^2) + m l^2 phi'^2 / 2 + m l phi' (-x' sin phi + y' cos phi),
** g = -x' sin phi + y' cos phi (no sideways slip), B = [-sin phi, cos phi, 0],
** c_n = -(x' cos phi + y' sin phi) phi', k = (-m l phi'^2 cos phi,
** -m l phi'^2 sin phi, 0).
*/
#include <math.h>
#include <stddef.h>

#include "fixture_kkt.h"
#include "fixtures.h"

enum { NQ = 3, NH = 0, NN = 1 };

static void mass(const double x[], const double p[], double M[])
{
    const double m = p[0], l = p[1], s = sin(x[2]), c = cos(x[2]);
    M[0] = 2.0 * m;    M[1] = 0.0;        M[2] = -m * l * s;
    M[3] = 0.0;        M[4] = 2.0 * m;    M[5] = m * l * c;
    M[6] = -m * l * s; M[7] = m * l * c;  M[8] = m * l * l;
}

static int knife_edge_rhs(double t, const double x[], const double u[],
                          const double p[], double alpha, double beta,
                          double dxdt[], double multipliers[], double work[])
{
    const double m = p[0], l = p[1];
    const double s = sin(x[2]), c = cos(x[2]);
    const double vx = x[3], vy = x[4], w = x[5], z = x[6];
    double M[NQ * NQ];
    const double J[NN * NQ] = {-s, c, 0.0};
    const double f[NQ] = {m * l * w * w * c, m * l * w * w * s, 0.0};
    const double g = -vx * s + vy * c;
    const double r[NN] = {(vx * c + vy * s) * w - alpha * g - beta * z};
    double mu[NN];
    (void)t;
    (void)u;
    mass(x, p, M);
    int rc = fixture_kkt_solve(NQ, NN, M, J, f, r, dxdt + NQ, mu, work);
    if (rc != LGC_MODEL_OK)
        return rc;
    dxdt[0] = vx;
    dxdt[1] = vy;
    dxdt[2] = w;
    dxdt[6] = g;
    if (multipliers)
        multipliers[0] = mu[0];
    return LGC_MODEL_OK;
}

static void knife_edge_residuals(double t, const double x[], const double p[],
                                 double phi[], double phi_dot[], double g[])
{
    (void)t;
    (void)p;
    (void)phi;
    (void)phi_dot;
    g[0] = -x[3] * sin(x[2]) + x[4] * cos(x[2]);
}

static double knife_edge_energy(double t, const double x[], const double p[])
{
    const double m = p[0], l = p[1];
    const double vx = x[3], vy = x[4], w = x[5];
    (void)t;
    return m * (vx * vx + vy * vy) + 0.5 * m * l * l * w * w
           + m * l * w * (-vx * sin(x[2]) + vy * cos(x[2]));
}

static void knife_edge_mass_matrix(double t, const double x[], const double p[],
                                   double M[])
{
    (void)t;
    mass(x, p, M);
}

static void knife_edge_constraint_jacobian(double t, const double x[],
                                           const double p[], double C[])
{
    (void)t;
    (void)p;
    C[0] = -sin(x[2]);
    C[1] = cos(x[2]);
    C[2] = 0.0;
}

static const char *const coordinate_names[NQ] = {"x", "y", "phi"};
static const char *const parameter_names[2] = {"m", "l"};
static const double parameter_defaults[2] = {1.0, 1.0};
static const double initial_state[2 * NQ + NN] = {0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0};

const lgc_model fixture_knife_edge_model = {
    .name = "knife_edge",
    .title = "Knife-edge dumbbell (seed Example 6.4)",
    .nq = NQ, .nh = NH, .nn = NN, .nx = 2 * NQ + NN, .np = 2, .nu = 0,
    .nwork = FIXTURE_KKT_WORK(NQ, NH + NN),
    .coordinate_names = coordinate_names,
    .parameter_names = parameter_names,
    .input_names = NULL,
    .parameter_defaults = parameter_defaults,
    .input_defaults = NULL,
    .initial_state = initial_state,
    .alpha = 10.0, .beta = 25.0,
    .conservative = 1,
    .rhs = knife_edge_rhs,
    .residuals = knife_edge_residuals,
    .energy = knife_edge_energy,
    .mass_matrix = knife_edge_mass_matrix,
    .constraint_jacobian = knife_edge_constraint_jacobian,
};
