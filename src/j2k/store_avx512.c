/* The output row pass (store_row.h) compiled for AVX-512 (F, BW, DQ, VL): 16-lane vector loops
 * instead of AVX2's 8. Same operations, same order, no FMA, so the same output bit for bit as
 * the baseline build in decode_tile.c and the AVX2 one (store_avx2.c); decode_tile.c chooses by
 * tsr__ht_simd()'s level. Built for x86-64 with GCC or clang; elsewhere the portable code under
 * this name, never called there (the level is 0). */
#include "core/target.h"
#include "j2k/decode_stages.h"

#define STORE_ROW tsr__j2k_store_row_avx512
#define STORE_SCOPE
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
TSR__TARGET_BEGIN("avx512f,avx512bw,avx512dq,avx512vl")
#include "j2k/store_row.h"
TSR__TARGET_END
#else
#include "j2k/store_row.h"
#endif
