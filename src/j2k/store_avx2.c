/* The output row pass (store_row.h) compiled for AVX2: 8-lane vector loops with 32-bit min/max
 * instead of the baseline's 4-lane compare-and-select. Same operations, same order, no FMA, so
 * the same output bit for bit as the baseline build in decode.c, which chooses between the two.
 * Built for x86-64 with GCC or clang; elsewhere a stub that decode.c never calls (tsr__ht_simd()
 * is 0 there). */
#include "core/target.h"
#include "j2k/decode_stages.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
TSR__TARGET_BEGIN("avx2")
#define STORE_ROW tsr__j2k_store_row_avx2
#define STORE_SCOPE
#include "j2k/store_row.h"
TSR__TARGET_END
#else
void tsr__j2k_store_row_avx2(const tsr__j2k_store_plan *s, int64_t y, int32_t *dst)
{
    (void)s;
    (void)y;
    (void)dst;
}
#endif
