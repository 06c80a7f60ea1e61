/* The inverse DWT's level passes (dwt_level.h) compiled for AVX-512 (F, BW, DQ, VL): the
 * compiler's vector loops over 16 lanes instead of AVX2's 8. Same operations, same order, no FMA
 * (-ffp-contract=off; AVX-512F has fused forms, which the build never forms), so the same output
 * bit for bit as the baseline and AVX2 builds; dwt.c chooses among the three. Built for x86-64
 * with GCC or clang; elsewhere the portable code under these names, which dwt.c never calls
 * (tsr__ht_simd() is 0 there). */
#include "core/target.h"
#include "j2k/decode_stages.h"

void tsr__dwt_level_2d_avx512(int32_t *data, size_t stride, uint32_t rw, uint32_t rh, uint32_t snx,
                              uint32_t sny, uint32_t x0, uint32_t y0, int rev, int32_t *scratch,
                              size_t scratch_per_thread, int threads);
void tsr__dwt_hrow_avx512(int32_t *row, uint32_t rw, uint32_t snx, uint32_t x0, int rev,
                          int32_t *tmp);
void tsr__dwt_vstrip_avx512(int32_t *data, size_t stride, uint32_t rw, uint32_t rh, uint32_t sny,
                            uint32_t y0, int rev, uint32_t s, int32_t *tmp);

#define DWT_LEVEL_2D tsr__dwt_level_2d_avx512
#define DWT_HROW tsr__dwt_hrow_avx512
#define DWT_VSTRIP tsr__dwt_vstrip_avx512
#define DWT_SCOPE
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
TSR__TARGET_BEGIN("avx512f,avx512bw,avx512dq,avx512vl")
#include "j2k/dwt_level.h"
TSR__TARGET_END
#else
#include "j2k/dwt_level.h"
#endif
