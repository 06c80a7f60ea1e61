/* A run-time choice among a module's builds: level 0 is its portable path, 1 its SIMD build, 2 a
 * wider SIMD build where the module has one. `has` gives the highest level this processor runs
 * (a module with one SIMD build returns 0 or 1). The library runs min(has(), dflt): dflt caps
 * the default where a wider build is not faster everywhere (it stays available to tests and
 * benchmarks through tsr__simd_set). Every level gives the same results. Decided on first use
 * and cached; the library reads no environment. One static switch per module:
 *   static tsr__simd_switch sw = TSR__SIMD_SWITCH(has_avx2, 1);
 * and the module's internal hook (not exported; tests and benchmarks link through
 * tessera_internal) calls tsr__simd_set to compare its builds on the same input. */
#ifndef TSR_CORE_SIMD_SWITCH_H
#define TSR_CORE_SIMD_SWITCH_H

typedef struct tsr__simd_switch {
    int (*has)(void); /* the highest level this processor runs */
    int dflt;         /* the highest level run unless set */
    int state;        /* -1 until first asked, then the level (atomic accesses) */
} tsr__simd_switch;

#define TSR__SIMD_SWITCH(has, dflt)                                                                \
    {                                                                                              \
        (has), (dflt), -1                                                                          \
    }

/* The level to run (0: the portable path). Thread-safe. */
int tsr__simd_on(tsr__simd_switch *s);
/* Sets the level (capped at the highest one the processor runs); a negative level restores the
 * default. */
void tsr__simd_set(tsr__simd_switch *s, int level);

#endif
