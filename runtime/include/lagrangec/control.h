/*
** lagrangec/control.h — error control for adaptive steppers (rtol/atol).
*/
#ifndef LAGRANGEC_CONTROL_H
#define LAGRANGEC_CONTROL_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lgc_control {
    double rtol, atol;
    double safety;          /* 0.9 */
    double min_factor;      /* 0.2: largest shrink per step */
    double max_factor;      /* 10: largest growth per step */
} lgc_control;

void lgc_control_init(lgc_control *c, double rtol, double atol);

/*
** RMS of err_i / w_i with w_i = atol + rtol max(|x0_i|, |x1_i|) over the n
** entries; a step is acceptable when it is <= 1. If `roundoff` is not NULL
** it gets the same norm of the state's own round-off, eps max(|x0_i|, |x1_i|):
** above 1, no step's error estimate can show the tolerances met. It is
** infinite where w_i = 0 (atol = 0, x0_i = x1_i = 0); err leaves those out.
*/
double lgc_control_error_norm(const lgc_control *c, int n, const double x0[],
                              const double x1[], const double err[], double *roundoff);

/* Next step size after a step of size h with error norm `err` (order q). */
double lgc_control_next_h(const lgc_control *c, double h, double err, int q);

#ifdef __cplusplus
}
#endif

#endif
