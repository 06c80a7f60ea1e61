/* The HT block decoder on the host: ht_decode_hd.h's decoder with the cleanup pass of the
 * CPU's vector level (tsr__ht_simd), and that level's switch. */
#include "core/simd_switch.h"
#include "j2k/ht_bits.h"

#define TSR__HT_CLEANUP(b, d, lcup, kc, warn)                                                      \
    (tsr__ht_simd() ? tsr__ht_cleanup_avx2(b, d, lcup, kc, warn) : cleanup(b, d, lcup, kc, warn))
#include "j2k/ht_decode_hd.h"

/* The decoder's one choice of builds (simd_switch.h): level 1 runs the AVX2 builds (this
 * cleanup pass, ht_decode_avx2.c; the DWT's level passes, dwt_avx2.c; the output rows,
 * store_avx2.c; the RGB packing, pixels_avx2.c), level 2 the AVX-512 builds where there are
 * (dwt_avx512.c, store_avx512.c) and the AVX2 ones elsewhere. The library runs level 1 at most
 * (level 2 measured 1-3% slower on Zen 4: bench/notes/j2k-ht.md, section 13); tests and
 * benchmarks select any level through tsr__ht_set_simd. */
static tsr__simd_switch g_simd = TSR__SIMD_SWITCH(tsr__ht_cpu_level, 1);

int tsr__ht_simd(void)
{
    return tsr__simd_on(&g_simd);
}

void tsr__ht_set_simd(int on)
{
    tsr__simd_set(&g_simd, on);
}

int tsr__ht_decode(const tsr__t1_block *blk, tsr__t1_ws *ws, int32_t *out, size_t stride,
                   unsigned *warnings)
{
    return ht_decode_block(blk, ws, out, stride, warnings);
}
