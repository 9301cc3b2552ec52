/*
** random.c — counter-based random numbers for Monte-Carlo sweeps: every
** number is a function of (seed, run, stream) alone, never a position in a
** shared stream, so any run's values can be recomputed without the others.
**
** The block function is Philox4x32-10 (Salmon, Moraes, Dror, Shaw,
** "Parallel random numbers: as easy as 1, 2, 3", SC11), checked against
** Random123's known-answer vectors (tests/runtime/test_sweep_parts.c).
** The counter is (run low, run high, stream low, stream high) and the key
** the seed's two halves; a stream is the FNV-1a hash of a variable's name,
** so a variable's values do not depend on which others are drawn.
*/
#include "programs.h"

/* The high and low words of a * b. */
static uint32_t mulhilo(uint32_t a, uint32_t b, uint32_t *lo)
{
    const uint64_t p = (uint64_t)a * b;
    *lo = (uint32_t)p;
    return (uint32_t)(p >> 32);
}

void lgc_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3], k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            k0 += 0x9E3779B9u;      /* the Weyl sequence of the key schedule */
            k1 += 0xBB67AE85u;
        }
        uint32_t lo0, lo1;
        const uint32_t hi0 = mulhilo(0xD2511F53u, c0, &lo0);
        const uint32_t hi1 = mulhilo(0xCD9E8D57u, c2, &lo1);
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

uint64_t lgc_fnv1a(uint64_t h, const void *data, size_t size)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++)
        h = (h ^ p[i]) * 0x100000001B3ull;
    return h;
}

/* 53 bits of two words as a double in (0, 1): k + 1/2 over 2^53, never 0 or 1. */
static double open_unit(uint32_t hi, uint32_t lo)
{
    const uint64_t k = ((uint64_t)hi << 32 | lo) >> 11;
    return ((double)k + 0.5) * 0x1.0p-53;
}

void lgc_uniform_pair(uint64_t seed, uint64_t run, uint64_t stream, double u[2])
{
    const uint32_t ctr[4] = {(uint32_t)run, (uint32_t)(run >> 32), (uint32_t)stream,
                             (uint32_t)(stream >> 32)};
    const uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    uint32_t out[4];
    lgc_philox4x32_10(ctr, key, out);
    u[0] = open_unit(out[0], out[1]);
    u[1] = open_unit(out[2], out[3]);
}
