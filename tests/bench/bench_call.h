/* bench_call.h — what an adapter gives the timing harness: one right-hand-side evaluation at a fixed state. */
#ifndef BENCH_CALL_H
#define BENCH_CALL_H

/*
** Copies the state and parameters into writable globals, so the compiler
** cannot fold the trigonometry of a constant state away.
*/
void bench_setup(void);
/* Evaluates the rhs once into the adapter's own buffers; returns its status. */
int bench_call(void);
/* A value read from the last result, so the calls cannot be optimised away. */
double bench_result(void);

#endif
