/* Small integer helpers shared by the modules. */
#ifndef TSR_CORE_MINMAX_H
#define TSR_CORE_MINMAX_H

#include <stdint.h>

static inline int32_t tsr__min3(int32_t a, int32_t b, int32_t c)
{
    int32_t m = a < b ? a : b;
    return m < c ? m : c;
}

static inline int32_t tsr__max3(int32_t a, int32_t b, int32_t c)
{
    int32_t m = a > b ? a : b;
    return m > c ? m : c;
}

#endif
