/*
** singular_guard.c — adaptive steps through a singular instant.
**
** Where the constraint Jacobian loses rank at an instant (a four-bar chain
** lying flat) the motion has other branches through the same point, and an
** off-branch perturbation grows like (t* - t)^-2 as the instant nears. An
** embedded error estimate measures that growth; the controller resolves it
** with ever smaller steps, until the solution takes another branch or the
** step underflows. Steps that stay as long as the motion's own scale jump
** over the instant and stay on the branch (fixed-step RK4 does so), and the
** correction after each keeps the constraints.
**
** So: with rho the conditioning of S = J M^-1 J^T at accepted states, the
** guard arms when rho falls below tau (default 1e-2) times its largest
** value so far, and remembers the largest of the last steps before then.
** Once a step is rejected while armed it fires: steps no shorter than a
** quarter of that one, each accepted whatever its error estimate, until rho
** recovers. Measured on IFToMM A02 and A04 (docs/singular.md).
*/
#include <math.h>
#include <string.h>

#include "singular_guard.h"

void lgc_guard_reset(lgc_singular_guard *g, double tau)
{
    memset(g, 0, sizeof *g);
    g->tau = tau;
}

void lgc_guard_accepted(lgc_singular_guard *g, double h, double rho)
{
    if (!(g->tau > 0.0))
        return;
    g->recent[g->n_recent++ % LGC_GUARD_HISTORY] = h;
    g->rho_max = fmax(g->rho_max, rho);
    if (rho < g->tau * g->rho_max) {
        if (!g->armed) {
            double longest = 0.0;
            int n = g->n_recent < LGC_GUARD_HISTORY ? g->n_recent : LGC_GUARD_HISTORY;
            for (int i = 0; i < n; i++)
                longest = fmax(longest, g->recent[i]);
            g->armed = 1;
            g->fired = 0;
            g->floor = 0.25 * longest;
        }
    } else if (g->armed) {
        g->armed = g->fired = 0;
        g->passed++;
    }
}

void lgc_guard_rejected(lgc_singular_guard *g)
{
    if (g->armed)
        g->fired = 1;
}

double lgc_guard_next_h(const lgc_singular_guard *g, double h)
{
    return g->fired ? fmax(h, g->floor) : h;
}

int lgc_guard_takes(const lgc_singular_guard *g, double h)
{
    return g->fired && h <= g->floor * (1.0 + 1e-12);
}
