/* The forward DWT's line kernels (fdwt_lines.h) compiled for AVX2: the compiler's vector loops
 * over 8 lanes instead of 4. Same operations, same order, no FMA, so the same output bit for bit
 * as the baseline build in fdwt.c, which chooses between the two. Built for x86-64 with GCC or
 * clang; elsewhere stubs that fdwt.c never calls (tsr__ht_cpu_level() is 0 there). */
#include "core/target.h"
#include "j2k/encode_stages.h"
#include "j2k/fxform_hd.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
TSR__TARGET_BEGIN("avx2")
#define FDWT_FN(name) tsr__fdwt_##name##_avx2
#define FDWT_SCOPE
#include "j2k/fdwt_lines.h"
TSR__TARGET_END
#else
void tsr__fdwt_row53_avx2(int32_t *dst, const int32_t *x, uint32_t n, int32_t *t)
{
    (void)dst;
    (void)x;
    (void)n;
    (void)t;
}
void tsr__fdwt_strip53_avx2(void *rows, uint32_t n, uint32_t i0, uint32_t cols)
{
    (void)rows;
    (void)n;
    (void)i0;
    (void)cols;
}
void tsr__fdwt_row97_avx2(float *dst, const float *x, uint32_t n, float *t)
{
    (void)dst;
    (void)x;
    (void)n;
    (void)t;
}
void tsr__fdwt_strip97_avx2(void *rows, uint32_t n, uint32_t i0, uint32_t cols)
{
    (void)rows;
    (void)n;
    (void)i0;
    (void)cols;
}
#endif
