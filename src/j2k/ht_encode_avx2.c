/* The CPU's HT cleanup encoder's row preparation (tsr__ht_enc_prep, ht_encode.h) compiled for
 * AVX2: four quads at a time, the samples put in quad order (TL, BL, TR, BR) by unpacking the
 * two rows, the exponents from the float conversion of 2 mu - 1 (exact below 2^24; a group with
 * a larger magnitude and the last quads go to the scalar tsr__ht_enc_prep). The same row as the
 * scalar preparation (test_j2k_ht_encode compares the encoder's bytes at both levels). Built for
 * x86-64 with GCC or clang; elsewhere a stub that ht_encode.c never calls. */
#include "core/target.h"
#include "j2k/ht_encode.h"
#include "j2k/ht_encode_hd.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
TSR__TARGET_BEGIN("avx2,bmi,bmi2,lzcnt")
#include <immintrin.h>

/* The exponents (low byte of each lane) of 8 lanes as 8 bytes: lanes 0-3 in bytes 0-3 (quad
 * a), 4-7 in bytes 4-7 (quad b). */
static inline __m128i bytes_of(__m256i lo, __m256i hi)
{
    const __m256i w = _mm256_packus_epi32(lo, hi); /* lo 0-3, hi 0-3 | lo 4-7, hi 4-7 */
    const __m256i b = _mm256_packus_epi16(w, w);   /* the same as bytes, twice per lane */
    return _mm256_castsi256_si128(
        _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 0, 0, 0, 0)));
}

void tsr__ht_enc_prep_avx2(const int32_t *r0, const int32_t *r1, uint32_t qw, uint32_t shift,
                           tsr__ht_enc_row *row)
{
    const __m128i sh = _mm_cvtsi32_si128((int)shift);
    const __m256i one = _mm256_set1_epi32(1), lim = _mm256_set1_epi32((1 << 23) - 1),
                  bias = _mm256_set1_epi32(126);
    uint32_t q = 0;
    __m256i all = _mm256_setzero_si256();
    for (; q + 4 <= qw; q += 4) {
        const __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(r0 + 2 * q));
        const __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(r1 + 2 * q));
        const __m256i ul = _mm256_unpacklo_epi32(a, b), uh = _mm256_unpackhi_epi32(a, b);
        const __m256i v[2] = {_mm256_permute2x128_si256(ul, uh, 0x20),  /* quads q, q + 1 */
                              _mm256_permute2x128_si256(ul, uh, 0x31)}; /* q + 2, q + 3 */
        __m256i e[2], m[2];
        int big = 0;
        __m256i ors = _mm256_setzero_si256();
        uint32_t sig[2];
        for (int i = 0; i < 2; i++) {
            const __m256i mu = _mm256_srl_epi32(_mm256_abs_epi32(v[i]), sh);
            const __m256i nz = _mm256_cmpgt_epi32(mu, _mm256_setzero_si256());
            ors = _mm256_or_si256(ors, mu);
            big |= _mm256_movemask_epi8(_mm256_cmpgt_epi32(mu, lim));
            const __m256i y = _mm256_sub_epi32(_mm256_add_epi32(mu, mu), one);
            const __m256i f = _mm256_castps_si256(_mm256_cvtepi32_ps(y));
            e[i] = _mm256_and_si256(_mm256_sub_epi32(_mm256_srli_epi32(f, 23), bias), nz);
            const __m256i x =
                _mm256_add_epi32(_mm256_sub_epi32(_mm256_add_epi32(mu, mu), _mm256_set1_epi32(2)),
                                 _mm256_srli_epi32(v[i], 31));
            m[i] = _mm256_and_si256(x, nz);
            sig[i] = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(nz));
        }
        if (big) /* (these four quads go to the scalar preparation, their magnitudes too) */
            break;
        all = _mm256_or_si256(all, ors);
        _mm256_storeu_si256((__m256i *)(void *)(row->x + 4 * q), m[0]);
        _mm256_storeu_si256((__m256i *)(void *)(row->x + 4 * q + 8), m[1]);
        _mm_storeu_si128((__m128i *)(void *)(row->e + q), bytes_of(e[0], e[1]));
        __m256i mx[2];
        for (int i = 0; i < 2; i++) {
            const __m256i t = _mm256_max_epu32(e[i], _mm256_shuffle_epi32(e[i], 0xB1));
            mx[i] = _mm256_max_epu32(t, _mm256_shuffle_epi32(t, 0x4E));
        }
        const __m128i xb = bytes_of(mx[0], mx[1]); /* each quad's maximum in its 4 bytes */
        const __m128i xs = _mm_shuffle_epi8(
            xb, _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
        const uint32_t emx = (uint32_t)_mm_cvtsi128_si32(xs);
        memcpy(row->emax + q, &emx, 4);
        const uint32_t rr =
            (sig[0] & 0xF) | (sig[0] >> 4) << 8 | (sig[1] & 0xF) << 16 | (sig[1] >> 4) << 24;
        memcpy(row->rho + q, &rr, 4);
    }
    __m128i o = _mm_or_si128(_mm256_castsi256_si128(all), _mm256_extracti128_si256(all, 1));
    o = _mm_or_si128(o, _mm_shuffle_epi32(o, 0x4E));
    o = _mm_or_si128(o, _mm_shuffle_epi32(o, 0xB1));
    row->mor |= (uint32_t)_mm_cvtsi128_si32(o);
    tsr__ht_enc_prep(r0, r1, q, qw, shift, row);
}

#define HT_ENC_FN(name) tsr__ht_enc_##name##_avx2
#define HT_ENC_SCOPE
#define HT_ENC_PREP(r0, r1, qw, shift, row) tsr__ht_enc_prep_avx2(r0, r1, qw, shift, row)
#include "j2k/ht_encode_cpu.h"
TSR__TARGET_END
#else
void tsr__ht_enc_prep_avx2(const int32_t *r0, const int32_t *r1, uint32_t qw, uint32_t shift,
                           tsr__ht_enc_row *row)
{
    tsr__ht_enc_prep(r0, r1, 0, qw, shift, row);
}

long tsr__ht_enc_cleanup_avx2(const int32_t *coef, size_t stride, uint32_t w, uint32_t h,
                              uint32_t shift, uint8_t *buf, size_t cap,
                              const uint16_t (*tables)[8 * 16][17], const uint32_t *uvlc,
                              uint32_t *mor)
{
    (void)coef;
    (void)stride;
    (void)w;
    (void)h;
    (void)shift;
    (void)buf;
    (void)cap;
    (void)tables;
    (void)uvlc;
    *mor = 0;
    return -1;
}
#endif
