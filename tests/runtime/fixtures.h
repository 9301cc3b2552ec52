/*
** fixtures.h — hand-written models in the shape the generator emits, used by
** the runtime tests until generated ones replace them.
*/
#ifndef FIXTURES_H
#define FIXTURES_H

#include "lagrangec/model.h"

/* Planar pendulum in Cartesian x, y: phi = x^2 + y^2 - l^2; p = m, g, l. */
extern const lgc_model fixture_pendulum_model;
/* Knife-edge dumbbell (seed Example 6.4): q = x, y, phi; p = m, l. */
extern const lgc_model fixture_knife_edge_model;
/* Harmonic oscillator q'' = -w^2 q, q(0) = 1, q'(0) = 0; p = w. */
extern const lgc_model fixture_oscillator_model;
/* The pendulum in its angle from the downward vertical; p = g, l. */
extern const lgc_model fixture_pendulum_angle_model;

#endif
