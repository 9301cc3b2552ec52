/*
** test_bicycle.c — specs/bicycle.toml, the Whipple bicycle built from
** frames, bodies and rolling wheels, against the benchmark of Meijaard,
** Papadopoulos, Ruina and Schwab (2007): Table 2's eigenvalues at every
** speed it lists, the weave and capsize speeds by bisection, and the
** lean/steer rows of the linear model against the paper's M, C1, K0, K2 at
** 5 m/s (which, unlike the eigenvalues, see the signs of phi and delta).
**
** Upright straight running at v: x' = v, thetaR' = -v/rR, thetaF' = -v/rF,
** everything else 0. With the independent coordinates all but thetaB and
** the independent speeds phi', thetaR', delta', A is block-triangular: the
** rows of phi, delta, phi', delta' are 0 outside their own columns, and
** that 4 x 4 block has the paper's four eigenvalues. The other six are 0
** in Jordan blocks, which double-precision eigenvalues spread to ~1e-8:
** hence the block, not the whole A.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <lapacke.h>

#include "bicycle.h"
#include "lagrangec/linearize.h"
#include "lagrangec/status.h"

extern const lgc_model bicycle_model;

enum { NY = 10, NB = 4 };
/* y = (x, y, psi, phi, thetaR, delta, thetaF | phi', thetaR', delta'): the block's rows */
static const int kBlock[NB] = {3, 5, 7, 9};
static const int kQInd[7] = {BICYCLE_STATE_x, BICYCLE_STATE_y, BICYCLE_STATE_psi, BICYCLE_STATE_phi,
                             BICYCLE_STATE_thetaR, BICYCLE_STATE_delta, BICYCLE_STATE_thetaF};
static const int kVInd[3] = {BICYCLE_STATE_phi, BICYCLE_STATE_thetaR, BICYCLE_STATE_delta};

typedef struct bike {
    lgc_system sys;
    lgc_linearization lin;
    double block[NB * NB];  /* rows and columns phi, delta, phi', delta' */
} bike;

static void open_bike(bike *b)
{
    assert_int_equal(lgc_system_init(&b->sys, &bicycle_model), LGC_OK);
    assert_int_equal(lgc_linearization_init(&b->lin, &bicycle_model), LGC_OK);
}

static void close_bike(bike *b)
{
    lgc_linearization_free(&b->lin);
    lgc_system_free(&b->sys);
}

/* Linearises at speed v; fills b->block after checking A is block-triangular there. */
static void linearize_at(bike *b, double v)
{
    const double *p = b->sys.p;
    double x[BICYCLE_NX] = {0};
    x[BICYCLE_STATE_x_dot] = v;
    x[BICYCLE_STATE_thetaR_dot] = -v / p[BICYCLE_PARAM_rR];
    x[BICYCLE_STATE_thetaF_dot] = -v / p[BICYCLE_PARAM_rF];
    assert_int_equal(lgc_linearize(&b->lin, &b->sys, 0.0, x, kQInd, kVInd), LGC_OK);
    assert_int_equal(b->lin.n, NY);
    if (b->lin.max_accel > 1e-12)
        fail_msg("v = %g: not a steady motion, max |q''| = %.3e", v, b->lin.max_accel);
    double largest = 0.0, outside = 0.0;
    for (int i = 0; i < NY * NY; i++)
        largest = fmax(largest, fabs(b->lin.A[i]));
    for (int r = 0; r < NB; r++) {
        int inside = 0;
        for (int c = 0; c < NY; c++) {
            int in_block = c == kBlock[0] || c == kBlock[1] || c == kBlock[2] || c == kBlock[3];
            double a = b->lin.A[kBlock[r] * NY + c];
            if (in_block)
                b->block[r * NB + inside++] = a;
            else
                outside = fmax(outside, fabs(a));
        }
    }
    if (outside > 1e-13 * largest)
        fail_msg("v = %g: lean/steer rows outside their block up to %.3e (|A| up to %.3e)", v, outside,
                 largest);
}

/* The block's eigenvalues, largest real part first (ties: larger imaginary part first). */
static void block_eigenvalues(const bike *b, double re[NB], double im[NB])
{
    double a[NB * NB];
    for (int i = 0; i < NB * NB; i++)
        a[i] = b->block[i];
    assert_int_equal(LAPACKE_dgeev(LAPACK_ROW_MAJOR, 'N', 'N', NB, a, NB, re, im, NULL, 1, NULL, 1), 0);
    for (int i = 1; i < NB; i++)
        for (int j = i; j > 0 && (re[j] > re[j - 1] || (re[j] == re[j - 1] && im[j] > im[j - 1])); j--) {
            double t = re[j]; re[j] = re[j - 1]; re[j - 1] = t;
            t = im[j]; im[j] = im[j - 1]; im[j - 1] = t;
        }
}

/* Table 2 as printed: weave (re, im) or at v = 0 two real roots, capsize, castering. */
static const struct {
    double v, weave_re, weave_im, capsize, castering;
} kTable2[] = {
    {0, 5.53094371765393, 3.13164324790656, -3.13164324790656, -5.53094371765393},
    {1, 3.52696170990070, 0.80774027519930, -3.13423125066578, -7.11008014637442},
    {2, 2.68234517512745, 1.68066296590675, -3.07158645641514, -8.67387984831735},
    {3, 1.70675605663975, 2.31582447384325, -2.63366137253667, -10.35101467245920},
    {4, 0.41325331521125, 3.07910818603206, -1.42944427361326, -12.15861426576447},
    {5, -0.77534188219585, 4.46486771378823, -0.32286642900409, -14.07838969279822},
    {6, -1.52644486584142, 5.87673060598709, -0.00406690076970, -16.08537123098030},
    {7, -2.13875644258362, 7.19525913329805, 0.10268170574766, -18.15788466125262},
    {8, -2.69348683581097, 8.46037971396931, 0.14327879765713, -20.27940894394569},
    {9, -3.21675402252485, 9.69377351531791, 0.15790184030917, -22.43788559040858},
    {10, -3.72016840437287, 10.90681139476287, 0.16105338653172, -24.62459635017404},
};

static void table2_eigenvalues(void **state)
{
    (void)state;
    bike b;
    open_bike(&b);
    double worst = 0.0;
    print_message("  v  mode        lagrangec                                   Table 2                              |diff|\n");
    for (size_t k = 0; k < sizeof kTable2 / sizeof kTable2[0]; k++) {
        const double v = kTable2[k].v;
        double re[NB], im[NB];
        linearize_at(&b, v);
        block_eigenvalues(&b, re, im);
        /* each of the paper's, matched with the nearest of ours */
        double w_re = kTable2[k].weave_re, w_im = kTable2[k].weave_im;
        double pair_re[2] = {w_re, v == 0 ? w_im : w_re}, pair_im[2] = {v == 0 ? 0 : w_im, v == 0 ? 0 : -w_im};
        double all_re[NB] = {pair_re[0], pair_re[1], kTable2[k].capsize, kTable2[k].castering};
        double all_im[NB] = {pair_im[0], pair_im[1], 0, 0};
        static const char *mode[NB] = {"weave", "weave", "capsize", "castering"};
        int used[NB] = {0};
        for (int e = 0; e < NB; e++) {
            int best = -1;
            double d_best = INFINITY;
            for (int i = 0; i < NB; i++) {
                double d = hypot(re[i] - all_re[e], im[i] - all_im[e]);
                if (!used[i] && d < d_best)
                    best = i, d_best = d;
            }
            used[best] = 1;
            worst = fmax(worst, d_best);
            print_message("  %2g %-10s %+.14f %+.14fi   %+.14f %+.14fi   %.1e\n", v, mode[e], re[best], im[best],
                          all_re[e], all_im[e], d_best);
            if (d_best > 1e-9)
                fail_msg("v = %g, %s: %.17g%+.17gi, Table 2 %.17g%+.17gi", v, mode[e], re[best], im[best],
                         all_re[e], all_im[e]);
        }
    }
    print_message("  largest difference from Table 2: %.2e\n", worst);
    close_bike(&b);
}

/* The weave pair's real part, and det(block) = |weave|^2 capsize castering. */
static double weave_real_part(bike *b, double v)
{
    double re[NB], im[NB];
    linearize_at(b, v);
    block_eigenvalues(b, re, im);
    for (int i = 0; i < NB; i++)
        if (im[i] > 1.0)
            return re[i];
    fail_msg("v = %g: no weave pair among the block's eigenvalues", v);
    return NAN;
}

static double block_determinant(bike *b, double v)
{
    linearize_at(b, v);
    double a[NB * NB];
    lapack_int pivot[NB];
    for (int i = 0; i < NB * NB; i++)
        a[i] = b->block[i];
    /* info > 0: a pivot is exactly 0, the block singular and its determinant 0 (bisection to
       the last bit can land on the root itself). */
    const lapack_int info = LAPACKE_dgetrf(LAPACK_ROW_MAJOR, NB, NB, a, NB, pivot);
    if (info < 0)
        fail_msg("v = %.17g: dgetrf rejected argument %d", v, (int)-info);
    double det = 1.0;
    for (int i = 0; i < NB; i++)
        det *= pivot[i] == i + 1 ? a[i * NB + i] : -a[i * NB + i];
    return det;
}

/* The root of f in [lo, hi], where f changes sign, to the last bit of v. */
static double bisect(bike *b, double (*f)(bike *, double), double lo, double hi)
{
    double f_lo = f(b, lo);
    if (!(f_lo * f(b, hi) < 0))
        fail_msg("no sign change in [%g, %g]", lo, hi);
    while (hi - lo > 2e-15 * hi) {
        double mid = 0.5 * (lo + hi), f_mid = f(b, mid);
        if ((f_mid < 0) == (f_lo < 0))
            lo = mid, f_lo = f_mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

static void weave_and_capsize_speeds(void **state)
{
    (void)state;
    bike b;
    open_bike(&b);
    const double v_w = bisect(&b, weave_real_part, 4.0, 5.0);
    const double v_c = bisect(&b, block_determinant, 5.5, 6.5);
    const double paper_w = 4.29238253634111, paper_c = 6.02426201538837;
    print_message("  weave speed   %.15f  Table 2(a) %.14f  |diff| %.1e\n", v_w, paper_w, fabs(v_w - paper_w));
    print_message("  capsize speed %.15f  Table 2(a) %.14f  |diff| %.1e\n", v_c, paper_c, fabs(v_c - paper_c));
    if (fabs(v_w - paper_w) > 1e-9 || fabs(v_c - paper_c) > 1e-9)
        fail_msg("weave speed %.17g (paper %.17g), capsize speed %.17g (paper %.17g)", v_w, paper_w, v_c, paper_c);
    close_bike(&b);
}

/*
** At 5 m/s the lean/steer rows are -M^-1 (g K0 + v^2 K2) and -M^-1 v C1
** (the paper's section 5, 14 decimals). A flipped phi or delta would flip
** the off-diagonal entries and leave every eigenvalue as it was.
*/
static void lean_and_steer_rows_match_the_papers_matrices(void **state)
{
    (void)state;
    const double v = 5.0, g = 9.81;
    const double M[2][2] = {{80.81722, 2.31941332208709}, {2.31941332208709, 0.29784188199686}};
    const double C1[2][2] = {{0, 33.86641391492494}, {-0.85035641456978, 1.68540397397560}};
    const double K0[2][2] = {{-80.95, -2.59951685249872}, {-2.59951685249872, -0.80329488458618}};
    const double K2[2][2] = {{0, 76.59734589573222}, {0, 2.65431523794604}};
    const double det = M[0][0] * M[1][1] - M[0][1] * M[1][0];
    const double Minv[2][2] = {{M[1][1] / det, -M[0][1] / det}, {-M[1][0] / det, M[0][0] / det}};
    bike b;
    open_bike(&b);
    linearize_at(&b, v);
    double worst = 0.0;
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 2; c++) {
            double stiffness = 0.0, damping = 0.0;
            for (int k = 0; k < 2; k++) {
                stiffness -= Minv[r][k] * (g * K0[k][c] + v * v * K2[k][c]);
                damping -= Minv[r][k] * v * C1[k][c];
            }
            double got_k = b.block[(2 + r) * NB + c], got_c = b.block[(2 + r) * NB + 2 + c];
            worst = fmax(worst, fmax(fabs(got_k - stiffness), fabs(got_c - damping)));
            if (fabs(got_k - stiffness) > 1e-9 || fabs(got_c - damping) > 1e-9)
                fail_msg("row %d, column %d: stiffness %.15g (paper %.15g), damping %.15g (paper %.15g)", r, c,
                         got_k, stiffness, got_c, damping);
        }
    print_message("  lean/steer rows at 5 m/s: largest difference from the paper's matrices %.1e\n", worst);
    close_bike(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table2_eigenvalues),
        cmocka_unit_test(weave_and_capsize_speeds),
        cmocka_unit_test(lean_and_steer_rows_match_the_papers_matrices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
