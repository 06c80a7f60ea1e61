/* A run-time choice among a module's builds: level 0 is its portable path, 1 its SIMD build, 2 a
 * wider SIMD build where the module has one. `has` gives the highest level this processor runs
 * (a module with one SIMD build returns 0 or 1). The environment variable `env` set and not "0"
 * forces level 0; level 2 runs only where `env_wide` (NULL where there is no level 2) is set and
 * not "0" (a wider build that is not faster everywhere, for comparisons); every level gives the
 * same results. Decided on first use and cached; tests may set any level (capped at what the
 * processor runs). One static switch per module:
 *   static tsr__simd_switch sw = TSR__SIMD_SWITCH("TSR_X_SCALAR", has_avx2);
 *   static tsr__simd_switch sw = TSR__SIMD_SWITCH2("TSR_X_SCALAR", "TSR_X_AVX512", level); */
#ifndef TSR_CORE_SIMD_SWITCH_H
#define TSR_CORE_SIMD_SWITCH_H

typedef struct tsr__simd_switch {
    const char *env;      /* forces level 0 when set and not "0" */
    const char *env_wide; /* allows level 2 when set and not "0"; NULL: none */
    int (*has)(void);     /* the highest level this processor runs */
    int state;            /* -1 until first asked, then the level (atomic accesses) */
} tsr__simd_switch;

#define TSR__SIMD_SWITCH(env, has)                                                                 \
    {                                                                                              \
        (env), 0, (has), -1                                                                        \
    }
#define TSR__SIMD_SWITCH2(env, env_wide, has)                                                      \
    {                                                                                              \
        (env), (env_wide), (has), -1                                                               \
    }

/* The level to run (0: the portable path). Thread-safe. */
int tsr__simd_on(tsr__simd_switch *s);
/* Sets the level (capped at the highest one the processor runs). */
void tsr__simd_set(tsr__simd_switch *s, int level);

#endif
