/* Run-time choice of a SIMD path (simd_switch.h). */
#include "core/simd_switch.h"

#include <stdlib.h>
#include <string.h>

static int env_set(const char *name)
{
    const char *e = name ? getenv(name) : NULL;
    return e && e[0] && strcmp(e, "0") != 0;
}

static int cap(tsr__simd_switch *s, int level)
{
    const int has = s->has();
    return level < has ? level : has;
}

int tsr__simd_on(tsr__simd_switch *s)
{
    int level = __atomic_load_n(&s->state, __ATOMIC_RELAXED);
    if (level < 0) {
        level = env_set(s->env) ? 0 : cap(s, env_set(s->env_wide) ? 2 : 1);
        __atomic_store_n(&s->state, level, __ATOMIC_RELAXED);
    }
    return level;
}

void tsr__simd_set(tsr__simd_switch *s, int level)
{
    __atomic_store_n(&s->state, level > 0 ? cap(s, level) : 0, __ATOMIC_RELAXED);
}
