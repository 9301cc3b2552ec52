/* bench_call.h — what an adapter gives the timing harness: one right-hand-side evaluation at a fixed state. */
#ifndef BENCH_CALL_H
#define BENCH_CALL_H

/* Evaluates the rhs once into the adapter's own buffers; returns its status. */
int bench_call(void);
/* A value read from the last result, so the calls cannot be optimised away. */
double bench_result(void);

#endif
