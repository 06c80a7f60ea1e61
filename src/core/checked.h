/* Checked size arithmetic: every size computed from input goes through these.
 * Each returns 1 and stores the result when it fits, 0 (leaving *out untouched) when it overflows.
 */
#ifndef TSR_CORE_CHECKED_H
#define TSR_CORE_CHECKED_H

#include <stddef.h>
#include <stdint.h>

static inline int tsr__size_mul(size_t a, size_t b, size_t *out)
{
    size_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return 0;
    *out = r;
    return 1;
}

static inline int tsr__size_add(size_t a, size_t b, size_t *out)
{
    size_t r;
    if (__builtin_add_overflow(a, b, &r))
        return 0;
    *out = r;
    return 1;
}

/* a*b*c */
static inline int tsr__size_mul3(size_t a, size_t b, size_t c, size_t *out)
{
    size_t ab;
    return tsr__size_mul(a, b, &ab) && tsr__size_mul(ab, c, out);
}

#endif
