/* Compiling part of a file for a wider instruction set, with GCC or clang:
 *   TSR__TARGET_BEGIN("avx2") ... functions ... TSR__TARGET_END
 * gives every function defined in between the target attribute (GCC: push_options and a target
 * pragma; clang: an attribute push applied to functions). The caller picks such a build at run
 * time from the processor's features (__builtin_cpu_supports), so the file's other functions
 * stay at the baseline. */
#ifndef TSR_CORE_TARGET_H
#define TSR_CORE_TARGET_H

/* 1 where such builds exist: x86-64 with GCC or clang (the x86 targets and
 * __builtin_cpu_supports); elsewhere only the baseline is built. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TSR__X86_TARGETS 1
#else
#define TSR__X86_TARGETS 0
#endif

#define TSR__PRAGMA(x) _Pragma(#x)
#if defined(__clang__)
#define TSR__TARGET_BEGIN(t)                                                                       \
    TSR__PRAGMA(clang attribute push(__attribute__((target(t))), apply_to = function))
#define TSR__TARGET_END TSR__PRAGMA(clang attribute pop)
#elif defined(__GNUC__)
#define TSR__TARGET_BEGIN(t) TSR__PRAGMA(GCC push_options) TSR__PRAGMA(GCC target(t))
#define TSR__TARGET_END TSR__PRAGMA(GCC pop_options)
#endif

#endif
