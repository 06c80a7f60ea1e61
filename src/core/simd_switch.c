/* Run-time choice of a SIMD path (simd_switch.h). */
#include "core/simd_switch.h"

#include <stdlib.h>
#include <string.h>

int tsr__simd_on(tsr__simd_switch *s)
{
    int on = __atomic_load_n(&s->state, __ATOMIC_RELAXED);
    if (on < 0) {
        const char *e = getenv(s->env);
        on = s->has() && !(e && e[0] && strcmp(e, "0") != 0);
        __atomic_store_n(&s->state, on, __ATOMIC_RELAXED);
    }
    return on;
}

void tsr__simd_set(tsr__simd_switch *s, int on)
{
    __atomic_store_n(&s->state, on && s->has(), __ATOMIC_RELAXED);
}
