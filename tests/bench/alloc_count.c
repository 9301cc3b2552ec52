/*
** alloc_count.c — an LD_PRELOAD library that counts malloc, calloc and
** realloc calls (forwarding to glibc) and prints the count to stderr at exit,
** so a 100-step and a 50-step run of a simulator show what a step allocates.
*/
#include <stddef.h>
#include <stdio.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static unsigned long heap_calls;

void *malloc(size_t n)
{
    ++heap_calls;
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    ++heap_calls;
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    ++heap_calls;
    return __libc_realloc(p, n);
}

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "alloc_count: %lu\n", heap_calls);
}
