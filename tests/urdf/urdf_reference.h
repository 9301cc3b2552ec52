/*
** urdf_reference.h — the exact reference urdf_reference.py writes from a
** URDF (the specification's joint transforms, velocity Jacobians and a
** Newton-Euler pass; not the generator's code): at each state x (lagrangec's
** 2 nq, its coordinates `names` in its order), M (nq x nq, row-major), the
** bias k - Q with no input, and q''. On each quaternion's block (four
** coordinates from quaternions[i]) the bias is defined up to a multiple of
** the quaternion, which the norm's multiplier takes: compare it projected.
*/
#ifndef URDF_REFERENCE_H
#define URDF_REFERENCE_H

typedef struct {
    const char *name;
    int nq, states;
    const char *const *names;
    int nquaternions;
    const int *quaternions;
    const double *x, *M, *bias, *qdd;
} urdf_reference;

#endif
