/* main.c — integrates the model generated from spring.toml at build time with the lagrangec runtime. */
#include <math.h>
#include <stdio.h>

#include <lagrangec/lagrangec.h>

#include "spring.h"

int main(void)
{
    lgc_system sys;
    if (lgc_system_init(&sys, &spring_model) != LGC_OK)
        return 1;
    lgc_driver_options o;
    lgc_driver_options_default(&o);
    o.type = lgc_step_dopri5;
    o.h = 0.0;
    o.rtol = 1e-10;
    o.atol = 1e-12;
    lgc_driver *d = lgc_driver_alloc(&sys, &o);
    double x[SPRING_NX];
    int rc = d ? lgc_driver_reset(d, 0.0, spring_initial_state) : LGC_ERR_NOMEM;
    if (rc == LGC_OK)
        rc = lgc_driver_advance(d, 1.0, x);
    const double w = sqrt(spring_param_defaults[SPRING_PARAM_k] / spring_param_defaults[SPRING_PARAM_m]);
    if (rc == LGC_OK)
        printf("k = %g: q(1) = %.9f, cos(%g) = %.9f\n", spring_param_defaults[SPRING_PARAM_k],
               x[SPRING_STATE_q], w, cos(w));
    lgc_driver_free(d);
    lgc_system_free(&sys);
    return rc == LGC_OK && fabs(x[SPRING_STATE_q] - cos(w)) < 1e-8 ? 0 : 1;
}
