/* A run-time choice between a module's SIMD build and its portable path: on where the processor
 * runs the SIMD build (`has`), unless the environment variable `env` is set and not "0" (the
 * portable path forced, for comparisons; both paths give the same results). Decided on first use
 * and cached; tests may set it either way (on only where the processor has it). One static
 * switch per module:
 *   static tsr__simd_switch sw = TSR__SIMD_SWITCH("TSR_X_SCALAR", has_avx2); */
#ifndef TSR_CORE_SIMD_SWITCH_H
#define TSR_CORE_SIMD_SWITCH_H

typedef struct tsr__simd_switch {
    const char *env;  /* forces the portable path when set and not "0" */
    int (*has)(void); /* whether this processor runs the SIMD build */
    int state;        /* -1 until first asked, then 0 or 1 (atomic accesses) */
} tsr__simd_switch;

#define TSR__SIMD_SWITCH(env, has)                                                                 \
    {                                                                                              \
        (env), (has), -1                                                                           \
    }

/* 1 when the SIMD build is to run. Thread-safe. */
int tsr__simd_on(tsr__simd_switch *s);
/* Sets the choice (on only where the processor has the SIMD build). */
void tsr__simd_set(tsr__simd_switch *s, int on);

#endif
