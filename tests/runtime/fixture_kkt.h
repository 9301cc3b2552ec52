/*
** fixture_kkt.h — the saddle-point solve the hand-written fixtures share,
** standing in for what a generator would emit inline.
*/
#ifndef FIXTURE_KKT_H
#define FIXTURE_KKT_H

/* Doubles of work fixture_kkt_solve needs for n coordinates, m constraints. */
#define FIXTURE_KKT_WORK(n, m) ((n) * (m) + (m) * (m) + (n))

/*
** Solve M a = f + J^T lam, J a = r (M n x n and J m x n, row-major) by
** Cholesky of M and of S = J M^-1 J^T. M is overwritten. Returns
** LGC_MODEL_SINGULAR_MASS or LGC_MODEL_SINGULAR_CONSTRAINTS on failure.
*/
int fixture_kkt_solve(int n, int m, double M[], const double J[], const double f[],
                      const double r[], double a[], double lam[], double work[]);

#endif
