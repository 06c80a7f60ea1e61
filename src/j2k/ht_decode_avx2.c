/* The HT cleanup pass (ht_cleanup.h) compiled for AVX2, with the MagSgn fields of a quad
 * extracted in vector lanes: the four field lengths, their offsets in the bit accumulator (a
 * prefix sum), the four shifts and masks, the EMB bits and the significance masks each in one
 * vector instruction instead of four scalar chains. The same words as the scalar quad_values in
 * ht_decode.c, bit for bit (tests/unit/test_j2k_ht_simd.c compares the two). Built for x86-64
 * with GCC or clang; elsewhere the file compiles to stubs and ht_decode.c runs the scalar pass. */
#include "core/target.h"
#include "j2k/ht_bits.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* compiled for the baseline instruction set: it runs before anything else here. GCC's and
 * clang's checks of AVX-512 features also require the OS to save the zmm state (XCR0). */
int tsr__ht_cpu_level(void)
{
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("bmi2"))
        return 0;
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                   __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")
               ? 2
               : 1;
}

TSR__TARGET_BEGIN("avx2,bmi,bmi2") /* clang too: the fuzz build runs this pass */
#include <immintrin.h>

/* ht_decode.c's quad_values contract; lanes are the samples in bit-stream order TL, BL, TR, BR. */
TSR__T1_AI void quad_values(uint32_t q, uint32_t U, ms_rd *ms, uint32_t kc, uint32_t mu_lim,
                            uint32_t *v0, uint32_t *v1, unsigned *warn)
{
    const __m128i qv = _mm_set1_epi32((int)q), one = _mm_set1_epi32(1);
    const __m128i sig = _mm_and_si128(_mm_srlv_epi32(qv, _mm_setr_epi32(4, 5, 6, 7)), one);
    const __m128i ek = _mm_and_si128(_mm_srlv_epi32(qv, _mm_setr_epi32(8, 9, 10, 11)), one);
    const __m128i e1 = _mm_and_si128(_mm_srlv_epi32(qv, _mm_setr_epi32(12, 13, 14, 15)), one);
    const __m128i m = _mm_sub_epi32(_mm_setzero_si128(), sig);
    const __m128i n = _mm_and_si128(_mm_sub_epi32(_mm_set1_epi32((int)U), ek), m);
    __m128i end = _mm_add_epi32(n, _mm_slli_si128(n, 4)); /* inclusive prefix sums */
    end = _mm_add_epi32(end, _mm_slli_si128(end, 8));
    const uint32_t tot = (uint32_t)_mm_extract_epi32(end, 3);
    __m128i x;
    if (tot <= 56) { /* the four fields from one accumulator */
        ms_need(ms, tot);
        const __m256i n64 = _mm256_cvtepu32_epi64(n);
        const __m256i f = _mm256_srlv_epi64(_mm256_set1_epi64x((long long)ms->acc),
                                            _mm256_cvtepu32_epi64(_mm_sub_epi32(end, n)));
        const __m256i fm = _mm256_andnot_si256(_mm256_sllv_epi64(_mm256_set1_epi64x(-1), n64), f);
        x = _mm256_castsi256_si128(
            _mm256_permutevar8x32_epi32(fm, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
        ms->acc >>= tot;
        ms->nb -= tot;
    } else {
        const uint32_t x0 = ms_get(ms, (uint32_t)_mm_extract_epi32(n, 0));
        const uint32_t x1 = ms_get(ms, (uint32_t)_mm_extract_epi32(n, 1));
        const uint32_t x2 = ms_get(ms, (uint32_t)_mm_extract_epi32(n, 2));
        const uint32_t x3 = ms_get(ms, (uint32_t)_mm_extract_epi32(n, 3));
        x = _mm_setr_epi32((int)x0, (int)x1, (int)x2, (int)x3);
    }
    x = _mm_or_si128(x, _mm_sllv_epi32(e1, n));
    if (U >= kc) {
        uint32_t xs[4];
        _mm_storeu_si128((__m128i *)xs, x);
        clamp_mu(xs, mu_lim, warn);
        x = _mm_loadu_si128((const __m128i *)xs);
    }
    const __m128i v = _mm_and_si128(_mm_add_epi32(x, _mm_set1_epi32(2)), m);
    const __m128i rows = _mm_shuffle_epi32(v, _MM_SHUFFLE(3, 1, 2, 0)); /* TL TR | BL BR */
    _mm_storel_epi64((__m128i *)v0, rows);
    _mm_storel_epi64((__m128i *)v1, _mm_unpackhi_epi64(rows, rows));
}

/* HT_PAIR_VALUES (ht_cleanup.h): the eight fields of a quad pair in 32-bit lanes (quad 0 in lanes
 * 0-3, quad 1 in 4-7, each in bit-stream order TL, BL, TR, BR) when they fit one accumulator
 * read (<= 56 bits) and both bounds are valid, else 0 (quad by quad). p: the row above the pair's
 * first sample. */
TSR__T1_AI int pair_values(uint32_t q0, uint32_t q1, uint32_t u0, uint32_t u1, const uint32_t *p,
                           ms_rd *ms, uint32_t kc, uint32_t mu_lim, uint32_t *v0, uint32_t *v1,
                           unsigned *warn)
{
    const uint32_t U0 = (q0 & 0xF0) ? quad_bound(q0, p, u0) : 0;
    const uint32_t U1 = (q1 & 0xF0) ? quad_bound(q1, p + 2, u1) : 0;
    if (U0 > 31 || U1 > 31)
        return 0;
    const __m256i qv = _mm256_setr_m128i(_mm_set1_epi32((int)q0), _mm_set1_epi32((int)q1));
    const __m256i Uv = _mm256_setr_m128i(_mm_set1_epi32((int)U0), _mm_set1_epi32((int)U1));
    const __m256i one = _mm256_set1_epi32(1), zero = _mm256_setzero_si256();
    const __m256i sig =
        _mm256_and_si256(_mm256_srlv_epi32(qv, _mm256_setr_epi32(4, 5, 6, 7, 4, 5, 6, 7)), one);
    const __m256i ek =
        _mm256_and_si256(_mm256_srlv_epi32(qv, _mm256_setr_epi32(8, 9, 10, 11, 8, 9, 10, 11)), one);
    const __m256i m = _mm256_sub_epi32(zero, sig);
    const __m256i n = _mm256_and_si256(_mm256_sub_epi32(Uv, ek), m);
    __m256i end = _mm256_add_epi32(n, _mm256_slli_si256(n, 4)); /* prefix sums per quad */
    end = _mm256_add_epi32(end, _mm256_slli_si256(end, 8));
    end = _mm256_add_epi32(
        end,
        _mm256_blend_epi32(zero, _mm256_permutevar8x32_epi32(end, _mm256_set1_epi32(3)), 0xF0));
    const uint32_t tot = (uint32_t)_mm256_extract_epi32(end, 7);
    if (tot > 56)
        return 0;
    if (U0 > kc || U1 > kc)
        *warn |= TSR__T1_W_HT;
    ms_need(ms, tot);
    const __m256i a = _mm256_set1_epi64x((long long)ms->acc), ones = _mm256_set1_epi64x(-1);
    const __m256i start = _mm256_sub_epi32(end, n);
    const __m256i nlo = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(n));
    const __m256i nhi = _mm256_cvtepu32_epi64(_mm256_extracti128_si256(n, 1));
    const __m256i flo = _mm256_andnot_si256(
        _mm256_sllv_epi64(ones, nlo),
        _mm256_srlv_epi64(a, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(start))));
    const __m256i fhi = _mm256_andnot_si256(
        _mm256_sllv_epi64(ones, nhi),
        _mm256_srlv_epi64(a, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(start, 1))));
    ms->acc >>= tot;
    ms->nb -= tot;
    const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    __m256i x = _mm256_blend_epi32(_mm256_permutevar8x32_epi32(flo, even),
                                   _mm256_permutevar8x32_epi32(fhi, even), 0xF0);
    const __m256i e1 = _mm256_and_si256(
        _mm256_srlv_epi32(qv, _mm256_setr_epi32(12, 13, 14, 15, 12, 13, 14, 15)), one);
    x = _mm256_or_si256(x, _mm256_sllv_epi32(e1, n));
    if (U0 >= kc || U1 >= kc) {
        uint32_t xs[8];
        _mm256_storeu_si256((__m256i *)xs, x);
        clamp_mu(xs, mu_lim, warn); /* an empty quad's lanes are 0 here: never clamped */
        clamp_mu(xs + 4, mu_lim, warn);
        x = _mm256_loadu_si256((const __m256i *)xs);
    }
    const __m256i v = _mm256_and_si256(_mm256_add_epi32(x, _mm256_set1_epi32(2)), m);
    /* TL0 TR0 TL1 TR1 | BL0 BR0 BL1 BR1 */
    const __m256i rows = _mm256_permute4x64_epi64(_mm256_shuffle_epi32(v, _MM_SHUFFLE(3, 1, 2, 0)),
                                                  _MM_SHUFFLE(3, 1, 2, 0));
    _mm_storeu_si128((__m128i *)v0, _mm256_castsi256_si128(rows));
    _mm_storeu_si128((__m128i *)v1, _mm256_extracti128_si256(rows, 1));
    return 1;
}

#define HT_PAIR_VALUES pair_values
#define HT_CLEANUP_DEF int tsr__ht_cleanup_avx2
#include "j2k/ht_cleanup.h"
TSR__TARGET_END

#else

int tsr__ht_cpu_level(void)
{
    return 0;
}

int tsr__ht_cleanup_avx2(ht_blk *b, const uint8_t *d, uint32_t lcup, uint32_t kc, unsigned *warn)
{
    (void)b, (void)d, (void)lcup, (void)kc, (void)warn;
    return TSR__T1_EINVAL; /* never called: tsr__ht_cpu_level() is 0 */
}

#endif
