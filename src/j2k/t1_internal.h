/* Tier-1 internals shared by the Part-1 and HT decoders (host and device, t1_hd.h). */
#ifndef TSR_J2K_T1_INTERNAL_H
#define TSR_J2K_T1_INTERNAL_H

#include "core/hd.h"
#include "j2k/t1.h"
#include "j2k/t1_hd.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* HT state arrays (flags, mag): at most 12320 entries; Part-1 magnitudes (mag): ceil(h/4) stripes
 * of 4w entries, at most 6552 (h = 5, w = 819) */
#define TSR__T1_FLAGS_MAX 12320u
/* Part-1 column words: (ceil(h/4) + 2) stripes of w + 2 words; at most 4 * 821 (h = 5, w = 819;
 * w * h <= 4096) */
#define TSR__T1_COLS_MAX 3284u

typedef struct tsr__t1_ws {
    uint16_t flags[TSR__T1_FLAGS_MAX];
    uint32_t mag[TSR__T1_FLAGS_MAX];
    uint32_t cols[TSR__T1_COLS_MAX];
    /* HT: per-quad scratch (exponents, significance, sigprop/magref state) */
    uint8_t ht_scratch[32768];
} tsr__t1_ws;

/* Writes 0 to the block's w x h samples. */
TSR__T1_INL void tsr__t1_zero_out(const tsr__t1_block *blk, int32_t *out, size_t stride)
{
    for (uint32_t y = 0; y < blk->h; y++)
        memset(out + (size_t)y * stride, 0, blk->w * sizeof(int32_t));
}

/* One output value (t1.h, 3.) from a magnitude with one fractional bit whose lowest set bit is
 * the half step of the lowest decoded plane (mag2 = 2q + 2^p, nonzero), the sign, the ROI shift
 * and the reversible flag. */
TSR_HD int32_t tsr__t1_recon(uint32_t mag2, uint32_t neg, uint32_t roi, int rev)
{
    uint32_t v;
    if (roi && (mag2 >> 1) >= (1u << roi)) {
        uint32_t p = TSR__T1_CTZ(mag2);
        uint32_t q = ((mag2 - (1u << p)) >> 1) >> roi;
        p = p > roi ? p - roi : 0;
        v = rev ? q + (p ? 1u << (p - 1) : 0) : 2 * q + (1u << p);
    } else {
        v = rev ? mag2 >> 1 : mag2;
    }
    return neg ? -(int32_t)v : (int32_t)v;
}

/* HT code-block (ht_decode.c, body in ht_decode_hd.h); blk validated, w, h > 0. */
#ifndef __CUDACC__
int tsr__ht_decode(const tsr__t1_block *blk, tsr__t1_ws *ws, int32_t *out, size_t stride,
                   unsigned *warnings);
/* The decoder's vector level: 0 = the portable code, 1 = AVX2 (and BMI2), 2 = AVX2 plus the
 * AVX-512 F/BW/DQ/VL builds. tsr__ht_decode runs the AVX2 HT cleanup (ht_decode_avx2.c) from
 * level 1; dwt.c and decode_tile.c index their level passes' and output rows' builds
 * (dwt_avx2.c, dwt_avx512.c, store_avx2.c, store_avx512.c) by it. Decided at the first call:
 * the highest level the CPU runs, but at most 1 (level 2 is not faster on the machines
 * measured). tsr__ht_set_simd() is the internal hook that overrides it (tests and benchmarks:
 * every level on the same input, capped at what the CPU runs; a negative level restores the
 * default); all levels give identical results. */
int tsr__ht_simd(void);
void tsr__ht_set_simd(int level);
#endif

#endif
