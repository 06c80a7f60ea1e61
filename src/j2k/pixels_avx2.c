/* The 3-channel 8-bit exact case of the pixel packing (pixels.c) for AVX2 machines: 16 pixels at
 * a time, each channel's 16 samples plus its offset reduced to their low byte (the same byte as
 * pixels.c's (uint8_t)(v + off) for any v), packed to 16 bytes, and the three channels
 * interleaved with byte shuffles. pixels.c calls it where tsr__ht_simd() selects the AVX2
 * builds; tests/unit/test_j2k_units.c compares it with the C loop. Built for x86-64 with GCC or
 * clang; elsewhere a stub that pixels.c never calls. */
#include "core/target.h"
#include "j2k/decode_stages.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
TSR__TARGET_BEGIN("avx2")
#include <immintrin.h>

/* 16 samples of one channel plus off as 16 bytes (low bytes, in order). */
static inline __m128i bytes16(const int32_t *s, __m256i off)
{
    const __m256i lo8 = _mm256_set1_epi32(0xFF);
    const __m256i a =
        _mm256_and_si256(_mm256_add_epi32(_mm256_loadu_si256((const __m256i *)s), off), lo8);
    const __m256i b =
        _mm256_and_si256(_mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(s + 8)), off), lo8);
    /* 16-bit packs work per 128-bit lane: a0 b0 | a1 b1 -> reorder the quarters */
    const __m256i w = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8);
    const __m128i lo = _mm256_castsi256_si128(w), hi = _mm256_extracti128_si256(w, 1);
    return _mm_packus_epi16(lo, hi);
}

uint32_t tsr__j2k_pack3_avx2(const int32_t *const s[3], const int32_t off[3], uint32_t k,
                             uint8_t *out)
{
    /* output byte j of a 48-byte group is channel j % 3 of pixel j / 3; shuffle masks pick,
     * for each of the three 16-byte outputs, the bytes each channel supplies (-1: none) */
    static const int8_t m[3][3][16] = {
        {{0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1, -1, 5},
         {-1, 0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1, -1},
         {-1, -1, 0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1}},
        {{-1, -1, 6, -1, -1, 7, -1, -1, 8, -1, -1, 9, -1, -1, 10, -1},
         {5, -1, -1, 6, -1, -1, 7, -1, -1, 8, -1, -1, 9, -1, -1, 10},
         {-1, 5, -1, -1, 6, -1, -1, 7, -1, -1, 8, -1, -1, 9, -1, -1}},
        {{-1, 11, -1, -1, 12, -1, -1, 13, -1, -1, 14, -1, -1, 15, -1, -1},
         {-1, -1, 11, -1, -1, 12, -1, -1, 13, -1, -1, 14, -1, -1, 15, -1},
         {10, -1, -1, 11, -1, -1, 12, -1, -1, 13, -1, -1, 14, -1, -1, 15}}};
    const __m256i o0 = _mm256_set1_epi32(off[0]), o1 = _mm256_set1_epi32(off[1]),
                  o2 = _mm256_set1_epi32(off[2]);
    uint32_t x = 0;
    for (; x + 16 <= k; x += 16) {
        const __m128i c[3] = {bytes16(s[0] + x, o0), bytes16(s[1] + x, o1), bytes16(s[2] + x, o2)};
        for (int j = 0; j < 3; j++) {
            __m128i v = _mm_setzero_si128();
            for (int ch = 0; ch < 3; ch++)
                v = _mm_or_si128(
                    v, _mm_shuffle_epi8(c[ch], _mm_loadu_si128((const __m128i *)m[j][ch])));
            _mm_storeu_si128((__m128i *)(out + (size_t)x * 3 + 16 * (size_t)j), v);
        }
    }
    return x;
}
TSR__TARGET_END
#else
uint32_t tsr__j2k_pack3_avx2(const int32_t *const s[3], const int32_t off[3], uint32_t k,
                             uint8_t *out)
{
    (void)s;
    (void)off;
    (void)k;
    (void)out;
    return 0;
}
#endif
