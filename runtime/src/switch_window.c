/* switch_window.c — contact switches accumulating: too many within too short a time. */
#include <math.h>

#include "switch_window.h"

int lgc_switch_window_add(lgc_switch_window *w, double t)
{
    w->t[w->n % LGC_ACCUMULATION_SWITCHES] = t;
    w->n++;
    if (w->n < LGC_ACCUMULATION_SWITCHES)
        return 0;
    const double oldest = w->t[w->n % LGC_ACCUMULATION_SWITCHES];
    return t - oldest <= LGC_ACCUMULATION_SPAN * fmax(1.0, fabs(t));
}
