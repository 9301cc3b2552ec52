/*
** text.c — a growing string for the lines and files a sweep writes: reused
** from run to run, it stops allocating once it has held the longest.
*/
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "programs.h"

/* Room for `more` bytes and a NUL after len: 1, or 0 (and t->failed) without memory. */
static int reserve(lgc_text *t, size_t more)
{
    if (t->failed)
        return 0;
    if (t->len + more < t->cap)
        return 1;
    size_t cap = t->cap ? t->cap : 256;
    while (cap <= t->len + more)
        cap *= 2;
    char *s = realloc(t->s, cap);
    if (!s) {
        t->failed = 1;
        return 0;
    }
    t->s = s;
    t->cap = cap;
    return 1;
}

void lgc_text_clear(lgc_text *t)
{
    t->len = 0;
    t->failed = 0;
    if (reserve(t, 0))
        t->s[0] = '\0';
}

void lgc_text_free(lgc_text *t)
{
    free(t->s);
    memset(t, 0, sizeof *t);
}

void lgc_text_add(lgc_text *t, const char *s, size_t n)
{
    if (!reserve(t, n))
        return;
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

/*
** Formatted into the room after len: one pass where it fits (a number's
** %.17g is most of an index line's cost), a second only after growing.
*/
void lgc_text_printf(lgc_text *t, const char *fmt, ...)
{
    if (!reserve(t, 0))
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->s[t->len] = '\0';
        return;
    }
    if ((size_t)n >= t->cap - t->len) {
        if (!reserve(t, (size_t)n)) {
            t->s[t->len] = '\0';
            return;
        }
        va_start(ap, fmt);
        vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    t->len += (size_t)n;
}

/*
** v's "%.17g", byte for byte, without printf where the arithmetic is short:
** v finite, 1e-40 <= |v| < 1e16 (residuals, drifts, states, times; glibc's
** exact printing costs ~2,000 instructions a number, most of an index line).
** |v| = m 2^e exactly; D, v's 17 significant digits, is m 10^k 2^e rounded
** to the nearest integer (ties to even, as printf in the default rounding
** mode), with k chosen so that 10^16 <= D < 10^17. m 10^k < 2^53 10^56 is
** held exactly in eight 32-bit limbs. 0 where v is outside that range: the
** caller prints it with printf.
*/
static size_t digits_17g(double v, char out[32])
{
    const double a = fabs(v);
    if (!(a >= 1e-40 && a < 1e15))
        return 0;
    uint64_t bits;
    memcpy(&bits, &a, sizeof bits);
    const uint64_t m = (bits & ((UINT64_C(1) << 52) - 1)) | UINT64_C(1) << 52;
    const int s = 1075 - (int)(bits >> 52);   /* a = m 2^-s, 2^52 <= m < 2^53, s > 0 in the range */
    const uint64_t lo = UINT64_C(10000000000000000), hi = 10 * lo;
    /* 10^E <= a < 10^(E+1): E is floor((52 - s) log10 2) (78913 / 2^18 of it) or one more; k = 16 - E. */
    const int x = 52 - s;
    int k = 16 - (x >= 0 ? x * 78913 : x * 78913 - 262143) / 262144;
    uint64_t D = 0;                 /* n 2^-s's integer part, and whether the rest is */
    int above = 0, below = 0;       /* at least a half, anything beyond the half */
    for (int tries = 0;; tries++) {
        if (tries == 4 || k < 0 || k > 60)
            return 0;                   /* not reached in the range */
        uint32_t n[10] = {(uint32_t)m, (uint32_t)(m >> 32)};
        for (int left = k; left > 0; left -= 9) {     /* n *= 10^k, 10^9 at a time */
            uint32_t factor = 1;
            for (int j = 0; j < (left < 9 ? left : 9); j++)
                factor *= 10;
            uint64_t carry = 0;
            for (int i = 0; i < 8; i++) {
                const uint64_t p = (uint64_t)n[i] * factor + carry;
                n[i] = (uint32_t)p;
                carry = p >> 32;
            }
        }
        /* n's 64 bits from s up (none above them), the half's bit and the rest below s. */
        const int w = s / 32, off = s % 32;
        if (w + 2 >= 10)
            return 0;
        const uint64_t low = (uint64_t)n[w] | (uint64_t)n[w + 1] << 32;
        D = low >> off | (off ? (uint64_t)n[w + 2] << (64 - off) : 0);
        if ((off ? n[w + 2] >> off : n[w + 2]) != 0)
            return 0;                   /* D past 64 bits: not reached */
        for (int i = w + 3; i < 10; i++)
            if (n[i] != 0)
                return 0;
        const int h = s - 1;            /* the half's bit */
        above = n[h / 32] >> (h % 32) & 1;
        below = (n[h / 32] & ((UINT32_C(1) << (h % 32)) - 1)) != 0;
        for (int i = 0; i < h / 32 && !below; i++)
            below = n[i] != 0;
        if (D < lo)
            k++;                        /* fewer than 17 digits before the point: one more */
        else if (D >= hi)
            k--;
        else
            break;
    }
    if (above && (below || (D & 1)))
        D++;                            /* to 10^17 at most */
    int E = 16 - k;                 /* the exponent of D's first digit */
    if (D == hi) {                  /* rounded up to 10^17 */
        D = lo;
        E++;
    }
    char d[17];
    for (int i = 16; i >= 0; i--, D /= 10)
        d[i] = (char)('0' + D % 10);
    int nd = 17;                    /* significant digits left once the trailing zeros go */
    while (nd > 1 && d[nd - 1] == '0')
        nd--;
    size_t len = 0;
    if (v < 0)
        out[len++] = '-';
    if (E < -4 || E >= 17) {        /* %e's form */
        out[len++] = d[0];
        if (nd > 1) {
            out[len++] = '.';
            memcpy(out + len, d + 1, (size_t)nd - 1);
            len += (size_t)nd - 1;
        }
        out[len++] = 'e';
        out[len++] = E < 0 ? '-' : '+';
        const int x = E < 0 ? -E : E;
        if (x >= 100)
            out[len++] = (char)('0' + x / 100);
        out[len++] = (char)('0' + x / 10 % 10);
        out[len++] = (char)('0' + x % 10);
    } else if (E >= 0) {            /* %f's: E + 1 digits before the point */
        memcpy(out + len, d, (size_t)E + 1);
        len += (size_t)E + 1;
        if (nd > E + 1) {
            out[len++] = '.';
            memcpy(out + len, d + E + 1, (size_t)(nd - E - 1));
            len += (size_t)(nd - E - 1);
        }
    } else {                        /* 0.000ddd */
        out[len++] = '0';
        out[len++] = '.';
        for (int i = 0; i < -E - 1; i++)
            out[len++] = '0';
        memcpy(out + len, d, (size_t)nd);
        len += (size_t)nd;
    }
    return len;
}

void lgc_text_number(lgc_text *t, double v)
{
    char s[32];
    const size_t n = digits_17g(v, s);
    if (n > 0)
        lgc_text_add(t, s, n);
    else
        lgc_text_printf(t, "%.17g", v + 0.0);   /* + 0.0: no "-0" */
}

void lgc_text_csv_field(lgc_text *t, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        lgc_text_add(t, s, strlen(s));
        return;
    }
    lgc_text_add(t, "\"", 1);
    for (const char *q; (q = strchr(s, '"')); s = q + 1) {
        lgc_text_add(t, s, (size_t)(q - s));
        lgc_text_add(t, "\"\"", 2);
    }
    lgc_text_add(t, s, strlen(s));
    lgc_text_add(t, "\"", 1);
}

int lgc_write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = ENOSPC;
            return -1;
        }
        s += w;
        n -= (size_t)w;
    }
    return 0;
}
