/* Run-time choice of a SIMD path (simd_switch.h). */
#include "core/simd_switch.h"

static int cap(tsr__simd_switch *s, int level)
{
    const int has = s->has();
    return level < has ? level : has;
}

int tsr__simd_on(tsr__simd_switch *s)
{
    int level = __atomic_load_n(&s->state, __ATOMIC_RELAXED);
    if (level < 0) {
        level = cap(s, s->dflt);
        __atomic_store_n(&s->state, level, __ATOMIC_RELAXED);
    }
    return level;
}

void tsr__simd_set(tsr__simd_switch *s, int level)
{
    __atomic_store_n(&s->state,
                     level < 0   ? cap(s, s->dflt)
                     : level > 0 ? cap(s, level)
                                 : 0,
                     __ATOMIC_RELAXED);
}
