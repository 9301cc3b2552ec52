/*
** check.h — cmocka assertions that print the values they compare (a bare
** assert_true prints nothing). Include after <cmocka.h>; C and C++.
*/
#ifndef CHECK_H
#define CHECK_H

/* A comparison of two numbers, read as doubles; on failure both are printed. */
#define CHECK_CMP(a, op, b)                                                              \
    do {                                                                                 \
        const double check_a_ = (double)(a), check_b_ = (double)(b);                    \
        if (!(check_a_ op check_b_))                                                     \
            fail_msg("%s %s %s: %.17g against %.17g", #a, #op, #b, check_a_, check_b_); \
    } while (0)

#define assert_lt(a, b) CHECK_CMP(a, <, b)
#define assert_le(a, b) CHECK_CMP(a, <=, b)
#define assert_gt(a, b) CHECK_CMP(a, >, b)
#define assert_ge(a, b) CHECK_CMP(a, >=, b)
#define assert_eq(a, b) CHECK_CMP(a, ==, b)

/* A condition with the values that explain it: check(ok, "fmt", ...). */
#define check(ok, ...)             \
    do {                           \
        if (!(ok))                 \
            fail_msg(__VA_ARGS__); \
    } while (0)

#endif
