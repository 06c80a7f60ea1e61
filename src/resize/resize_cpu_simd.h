/* The vector inner loops of the CPU resize (resize_cpu_*.c), one file per instruction set:
 * resize_cpu_avx2.c (x86-64 AVX2). Each loop computes a prefix of a row with the same integer or
 * float operations as the plain loop it accelerates (plan.h's formulas, no reassociation of a
 * float sum, no FMA) and returns how many elements it did; the caller finishes the row with the
 * plain code. Without AVX2 (other CPUs, other compilers) tsr__rcpu_avx2() is 0 and the loops
 * are never called. */
#ifndef TSR_RESIZE_CPU_SIMD_H
#define TSR_RESIZE_CPU_SIMD_H

#include <stdint.h>

/* Horizontal u8 separable taps as 16-bit pairs (plan.h step 1, u8 = exact int32 sums).
 * Output elements are taken in groups of 8, two lanes of 4. For group g, tap pair p (taps 2p,
 * 2p+1) and lane l, the lane loads the 16 source bytes at base[(g*pairs + p)*2 + l];
 * ctrl[(g*pairs + p)*32 + 16*l + 4*i ..] = {o0, 0x80, o1, 0x80} picks, for the lane's element
 * i, its two taps' bytes (offsets o0, o1 from base) as an int16 pair, and
 * coef[(g*pairs + p)*16 + 8*l + 2*i ..] = {a_2p, a_2p+1} are their coefficients; a 16-bit
 * multiply-add gives a_2p*S0 + a_2p+1*S1 in int32, exactly. h[e] is the sum over the pairs. */
typedef struct tsr__rcpu_hwin {
    int groups; /* elements [0, 8*groups) are covered */
    int pairs;  /* ksize / 2 */
    int32_t *base;
    uint8_t *ctrl;
    int16_t *coef;
} tsr__rcpu_hwin;

/* Fractional-area horizontal taps (plan.h TSR__RESIZE_AREA), u8/u16, in groups of 8 elements:
 * tap t of element 8g + i reads source element ofs[(g*taps + t)*8 + i] with weight
 * coef[(g*taps + t)*8 + i], in the plan's order; elements with fewer taps than `taps` end with
 * weight-0 taps, which add +0 to a sum that is >= +0 and so leave it unchanged. */
typedef struct tsr__rcpu_atab {
    int groups;     /* ceil(width / 8); the last group's extra elements are padding */
    int vec_groups; /* u8: groups [0, vec_groups) read 4 bytes at each offset inside the row */
    int taps;
    int32_t *ofs;
    float *coef;
} tsr__rcpu_atab;

/* 1 when the AVX2 loops can run on this CPU. */
int tsr__rcpu_avx2(void);

/* h[e] for e < 8*w->groups from source row s (see tsr__rcpu_hwin), ksize 4 or 8. */
int tsr__rcpu_hrow_u8_avx2(const tsr__rcpu_hwin *w, const uint8_t *s, int32_t *h);

/* The same for ksize 2 (one pair), storing h >> 4 as int16 (it fits: see resize_cpu_separable.c).
 */
int tsr__rcpu_hrow_lin_u8_avx2(const tsr__rcpu_hwin *w, const uint8_t *s, int16_t *h);

/* u8 linear vertical pass from rows of h >> 4, elements [0, n rounded down to 32):
 * D = sat_u8((((b0*r0)>>16) + ((b1*r1)>>16) + 2) >> 2). */
int tsr__rcpu_vrow_linear_u8_avx2(const int16_t *r0, const int16_t *r1, int b0, int b1, uint8_t *d,
                                  int n);

/* u8 cubic vertical pass, SIMD form, elements [0, n rounded down to 8):
 * D = sat_u8(rne((float)r0*f[0] + ((float)r1*f[1] + ((float)r2*f[2] + (float)r3*f[3])))). */
int tsr__rcpu_vrow_cubic_u8_avx2(const int32_t *const *r, const float *f, uint8_t *d, int n);

/* Area 2x2 fast formula, u8, cn 1, 3 or 4: d[e] = (s0[i] + s0[i+cn] + s1[i] + s1[i+cn] + 2) >> 2,
 * i = (e/cn)*2cn + e%cn, for a prefix of [0, end); src_bytes: readable bytes of s0 and s1. */
int tsr__rcpu_area2_u8_avx2(const uint8_t *s0, const uint8_t *s1, uint8_t *d, int end, int cn,
                            int src_bytes);

/* h = 0.f; h = h + (float)S * coef for each tap in order; elements [0, 8*t->vec_groups). */
int tsr__rcpu_area_hrow_u8_avx2(const tsr__rcpu_atab *t, const uint8_t *s, float *h);

/* d = sat_u8(rne(v)) for elements [0, n rounded down to 16); v finite. */
int tsr__rcpu_store_u8_avx2(const float *v, uint8_t *d, int n);

#endif
