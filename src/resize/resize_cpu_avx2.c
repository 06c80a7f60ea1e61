/* AVX2 inner loops of the CPU resize (contracts in resize_cpu_simd.h). Integer loops are exact
 * by construction; the float loop does plan.h's multiplies and adds one by one in its order
 * (mul, add: no FMA, which would round once instead of twice). Built for x86-64 with GCC; the
 * file compiles to stubs elsewhere and the resize_cpu_*.c paths then run their plain loops. */
#include "resize/resize_cpu_simd.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("avx2")
#include <immintrin.h>

int tsr__rcpu_avx2(void)
{
    return __builtin_cpu_supports("avx2") ? 1 : 0;
}

static __m256i load2x128(const uint8_t *lo, const uint8_t *hi)
{
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)lo)),
                                   _mm_loadu_si128((const __m128i *)hi), 1);
}

/* 8 int32 -> 8 int16, saturating, in order. */
static __m128i pack8_i16(__m256i v)
{
    return _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
}

/* One group of the horizontal pass with a constant number of tap pairs. */
static inline __m256i hgroup(const tsr__rcpu_hwin *w, const uint8_t *s, int g, int pairs)
{
    __m256i acc = _mm256_setzero_si256();
    for (int p = 0; p < pairs; p++) {
        const size_t i = (size_t)g * pairs + p;
        const int32_t *b = w->base + 2 * i;
        const __m256i x = _mm256_shuffle_epi8(
            load2x128(s + b[0], s + b[1]), _mm256_loadu_si256((const __m256i *)(w->ctrl + 32 * i)));
        acc = _mm256_add_epi32(
            acc, _mm256_madd_epi16(x, _mm256_loadu_si256((const __m256i *)(w->coef + 16 * i))));
    }
    return acc;
}

/* The horizontal pass with a constant number of tap pairs (inlined per count). */
static inline void hrow_pairs(const tsr__rcpu_hwin *w, const uint8_t *s, int32_t *h, int pairs)
{
    for (int g = 0; g < w->groups; g++)
        _mm256_storeu_si256((__m256i *)(h + 8 * g), hgroup(w, s, g, pairs));
}

int tsr__rcpu_hrow_u8_avx2(const tsr__rcpu_hwin *w, const uint8_t *s, int32_t *h)
{
    if (w->pairs == 2)
        hrow_pairs(w, s, h, 2);
    else
        hrow_pairs(w, s, h, 4);
    return 8 * w->groups;
}

int tsr__rcpu_hrow_lin_u8_avx2(const tsr__rcpu_hwin *w, const uint8_t *s, int16_t *h)
{
    int g = 0;
    for (; g + 2 <= w->groups; g += 2) {
        const __m256i a = _mm256_srai_epi32(hgroup(w, s, g, 1), 4);
        const __m256i b = _mm256_srai_epi32(hgroup(w, s, g + 1, 1), 4);
        /* packs works per lane: a0-3 b0-3 | a4-7 b4-7, put back in order */
        _mm256_storeu_si256((__m256i *)(h + 8 * g),
                            _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8));
    }
    if (g < w->groups) {
        _mm_storeu_si128((__m128i *)(h + 8 * g),
                         pack8_i16(_mm256_srai_epi32(hgroup(w, s, g, 1), 4)));
        g++;
    }
    return 8 * g;
}

/* 16 elements of the linear vertical formula as int16. */
static __m256i vlin16(const int16_t *r0, const int16_t *r1, __m256i b0, __m256i b1)
{
    const __m256i v =
        _mm256_add_epi16(_mm256_mulhi_epi16(_mm256_loadu_si256((const __m256i *)r0), b0),
                         _mm256_mulhi_epi16(_mm256_loadu_si256((const __m256i *)r1), b1));
    return _mm256_srai_epi16(_mm256_add_epi16(v, _mm256_set1_epi16(2)), 2);
}

int tsr__rcpu_vrow_linear_u8_avx2(const int16_t *r0, const int16_t *r1, int b0, int b1, uint8_t *d,
                                  int n)
{
    const __m256i c0 = _mm256_set1_epi16((short)b0), c1 = _mm256_set1_epi16((short)b1);
    int e = 0;
    for (; e + 32 <= n; e += 32) {
        const __m256i lo = vlin16(r0 + e, r1 + e, c0, c1);
        const __m256i hi = vlin16(r0 + e + 16, r1 + e + 16, c0, c1);
        _mm256_storeu_si256((__m256i *)(d + e),
                            _mm256_permute4x64_epi64(_mm256_packus_epi16(lo, hi), 0xD8));
    }
    return e;
}

/* 8 elements of the cubic SIMD formula, rounded to int32 (cvtps rounds half to even). */
static __m256i vcub8(const int32_t *const *r, int e, const __m256 *f)
{
    __m256 t[4];
    for (int k = 0; k < 4; k++)
        t[k] = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)(r[k] + e))),
                             f[k]);
    return _mm256_cvtps_epi32(_mm256_add_ps(t[0], _mm256_add_ps(t[1], _mm256_add_ps(t[2], t[3]))));
}

int tsr__rcpu_vrow_cubic_u8_avx2(const int32_t *const *r, const float *f, uint8_t *d, int n)
{
    const __m256 fv[4] = {_mm256_set1_ps(f[0]), _mm256_set1_ps(f[1]), _mm256_set1_ps(f[2]),
                          _mm256_set1_ps(f[3])};
    int e = 0;
    for (; e + 16 <= n; e += 16) {
        const __m128i lo = pack8_i16(vcub8(r, e, fv)), hi = pack8_i16(vcub8(r, e + 8, fv));
        _mm_storeu_si128((__m128i *)(d + e), _mm_packus_epi16(lo, hi));
    }
    for (; e + 8 <= n; e += 8) {
        const __m128i v = pack8_i16(vcub8(r, e, fv));
        _mm_storel_epi64((__m128i *)(d + e), _mm_packus_epi16(v, v));
    }
    return e;
}

int tsr__rcpu_area2_u8_avx2(const uint8_t *s0, const uint8_t *s1, uint8_t *d, int end, int cn,
                            int src_bytes)
{
    /* Each lane takes g source bytes (whole pixel pairs) and makes g/2 outputs: the shuffle
     * puts the two pixels' samples of one channel side by side, a u8 x s8 multiply-add by 1
     * sums them in 16 bits. */
    static const int8_t order1[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    static const int8_t order3[16] = {0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11, -1, -1, -1, -1};
    static const int8_t order4[16] = {0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15};
    const int8_t *order = cn == 1 ? order1 : cn == 3 ? order3 : cn == 4 ? order4 : NULL;
    if (!order)
        return 0;
    const int g = cn == 3 ? 12 : 16;
    const __m256i ctrl = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)order));
    const __m256i one = _mm256_set1_epi8(1), two = _mm256_set1_epi16(2);
    int e = 0;
    /* loads reach 2e + g + 16 bytes, stores e + g/2 + 8 elements (junk past g is rewritten) */
    for (; 2 * e + g + 16 <= src_bytes && e + g / 2 + 8 <= end; e += g) {
        const __m256i a = _mm256_maddubs_epi16(
            _mm256_shuffle_epi8(load2x128(s0 + 2 * e, s0 + 2 * e + g), ctrl), one);
        const __m256i b = _mm256_maddubs_epi16(
            _mm256_shuffle_epi8(load2x128(s1 + 2 * e, s1 + 2 * e + g), ctrl), one);
        const __m256i v = _mm256_srli_epi16(_mm256_add_epi16(_mm256_add_epi16(a, b), two), 2);
        const __m256i p = _mm256_packus_epi16(v, v);
        _mm_storel_epi64((__m128i *)(d + e), _mm256_castsi256_si128(p));
        _mm_storel_epi64((__m128i *)(d + e + g / 2), _mm256_extracti128_si256(p, 1));
    }
    return e;
}

int tsr__rcpu_area_hrow_u8_avx2(const tsr__rcpu_atab *t, const uint8_t *s, float *h)
{
    const __m256i low = _mm256_set1_epi32(0xff);
    for (int g = 0; g < t->vec_groups; g++) {
        __m256 v = _mm256_setzero_ps();
        for (int k = 0; k < t->taps; k++) {
            const size_t i = ((size_t)g * t->taps + k) * 8;
            const __m256i o = _mm256_loadu_si256((const __m256i *)(t->ofs + i));
            const __m256i x = _mm256_and_si256(_mm256_i32gather_epi32((const int *)s, o, 1), low);
            v = _mm256_add_ps(v,
                              _mm256_mul_ps(_mm256_cvtepi32_ps(x), _mm256_loadu_ps(t->coef + i)));
        }
        _mm256_storeu_ps(h + 8 * g, v);
    }
    return 8 * t->vec_groups;
}

int tsr__rcpu_store_u8_avx2(const float *v, uint8_t *d, int n)
{
    int e = 0;
    for (; e + 16 <= n; e += 16) {
        const __m128i lo = pack8_i16(_mm256_cvtps_epi32(_mm256_loadu_ps(v + e)));
        const __m128i hi = pack8_i16(_mm256_cvtps_epi32(_mm256_loadu_ps(v + e + 8)));
        _mm_storeu_si128((__m128i *)(d + e), _mm_packus_epi16(lo, hi));
    }
    return e;
}

#else

int tsr__rcpu_avx2(void)
{
    return 0;
}
int tsr__rcpu_area_hrow_u8_avx2(const tsr__rcpu_atab *t, const uint8_t *s, float *h)
{
    (void)t, (void)s, (void)h;
    return 0;
}
int tsr__rcpu_store_u8_avx2(const float *v, uint8_t *d, int n)
{
    (void)v, (void)d, (void)n;
    return 0;
}
int tsr__rcpu_hrow_u8_avx2(const tsr__rcpu_hwin *w, const uint8_t *s, int32_t *h)
{
    (void)w, (void)s, (void)h;
    return 0;
}
int tsr__rcpu_hrow_lin_u8_avx2(const tsr__rcpu_hwin *w, const uint8_t *s, int16_t *h)
{
    (void)w, (void)s, (void)h;
    return 0;
}
int tsr__rcpu_vrow_linear_u8_avx2(const int16_t *r0, const int16_t *r1, int b0, int b1, uint8_t *d,
                                  int n)
{
    (void)r0, (void)r1, (void)b0, (void)b1, (void)d, (void)n;
    return 0;
}
int tsr__rcpu_vrow_cubic_u8_avx2(const int32_t *const *r, const float *f, uint8_t *d, int n)
{
    (void)r, (void)f, (void)d, (void)n;
    return 0;
}
int tsr__rcpu_area2_u8_avx2(const uint8_t *s0, const uint8_t *s1, uint8_t *d, int end, int cn,
                            int src_bytes)
{
    (void)s0, (void)s1, (void)d, (void)end, (void)cn, (void)src_bytes;
    return 0;
}

#endif
