/* The inverse DWT's level passes (dwt_level.h) compiled for AVX2: the compiler's vector loops
 * over 8 lanes instead of 4. Same operations, same order, no FMA, so the same output bit for bit
 * as the baseline build in dwt.c, which chooses between the two. Built for x86-64 with GCC or
 * clang; elsewhere a stub that dwt.c never calls (tsr__ht_simd() is 0 there). */
#include "core/target.h"
#include "j2k/decode_stages.h"

void tsr__dwt_level_2d_avx2(int32_t *data, size_t stride, uint32_t rw, uint32_t rh, uint32_t snx,
                            uint32_t sny, uint32_t x0, uint32_t y0, int rev, int32_t *scratch,
                            size_t scratch_per_thread, int threads);
void tsr__dwt_hrow_avx2(int32_t *row, uint32_t rw, uint32_t snx, uint32_t x0, int rev,
                        int32_t *tmp);
void tsr__dwt_vstrip_avx2(int32_t *data, size_t stride, uint32_t rw, uint32_t rh, uint32_t sny,
                          uint32_t y0, int rev, uint32_t s, int32_t *tmp);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
TSR__TARGET_BEGIN("avx2")
#define DWT_LEVEL_2D tsr__dwt_level_2d_avx2
#define DWT_HROW tsr__dwt_hrow_avx2
#define DWT_VSTRIP tsr__dwt_vstrip_avx2
#define DWT_SCOPE
#include "j2k/dwt_level.h"
TSR__TARGET_END
#else
void tsr__dwt_level_2d_avx2(int32_t *data, size_t stride, uint32_t rw, uint32_t rh, uint32_t snx,
                            uint32_t sny, uint32_t x0, uint32_t y0, int rev, int32_t *scratch,
                            size_t scratch_per_thread, int threads)
{
    (void)data;
    (void)stride;
    (void)rw;
    (void)rh;
    (void)snx;
    (void)sny;
    (void)x0;
    (void)y0;
    (void)rev;
    (void)scratch;
    (void)scratch_per_thread;
    (void)threads;
}
void tsr__dwt_hrow_avx2(int32_t *row, uint32_t rw, uint32_t snx, uint32_t x0, int rev, int32_t *tmp)
{
    (void)row;
    (void)rw;
    (void)snx;
    (void)x0;
    (void)rev;
    (void)tmp;
}
void tsr__dwt_vstrip_avx2(int32_t *data, size_t stride, uint32_t rw, uint32_t rh, uint32_t sny,
                          uint32_t y0, int rev, uint32_t s, int32_t *tmp)
{
    (void)data;
    (void)stride;
    (void)rw;
    (void)rh;
    (void)sny;
    (void)y0;
    (void)rev;
    (void)s;
    (void)tmp;
}
#endif
