/*
** lcp.h — the linear complementarity problem w = A z + q, w >= 0, z >= 0,
** w'z = 0, by Lemke's complementary pivoting; private to the runtime
** (impact.c: the impulses of an impact, which only push).
*/
#ifndef LAGRANGEC_LCP_H
#define LAGRANGEC_LCP_H

/* The tableau for problems of up to n rows, its size set once. */
typedef struct lgc_lcp {
    int n;
    double *tableau;        /* n x (2n + 2): [I, -A, -1, q] as it pivots */
    int *basis;             /* n: the variable basic in each row (w_i: i, z_i: n + i, z0: 2n) */
} lgc_lcp;

int lgc_lcp_init(lgc_lcp *lcp, int n);
void lgc_lcp_free(lgc_lcp *lcp);

/*
** z for A (m x m, row-major, m <= lcp->n) and q; w = A z + q. LGC_OK, or
** LGC_ERR_RANK_LOST when Lemke's method ends on a ray (no solution it can
** reach: A is not copositive-plus there) or does not end within its
** bound on pivots. Exact (to the round-off of the pivots), never
** allocates: an impact's few rows make a small dense problem.
*/
int lgc_lcp_solve(lgc_lcp *lcp, int m, const double A[], const double q[], double z[]);

#endif
