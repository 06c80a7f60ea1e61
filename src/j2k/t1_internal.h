/* Tier-1 internals shared by t1_decode.c and ht_decode.c. */
#ifndef TSR_J2K_T1_INTERNAL_H
#define TSR_J2K_T1_INTERNAL_H

#include "j2k/t1.h"

#include <stddef.h>
#include <stdint.h>

/* (w+2)*(h+2) for w, h <= 1024, w*h <= 4096 is at most 1026*6 */
#define TSR__T1_FLAGS_MAX 6160u

typedef struct tsr__t1_ws {
    uint16_t flags[TSR__T1_FLAGS_MAX];
    uint32_t mag[TSR__T1_MAX_AREA];
    /* HT: per-quad scratch (exponents, significance, sigprop/magref state) */
    uint8_t ht_scratch[32768];
} tsr__t1_ws;

tsr__t1_ws *tsr__t1_ws_align(void *ws, size_t size);
int tsr__t1_check_block(const tsr__t1_block *blk, int32_t *out, size_t stride);
void tsr__t1_zero_out(const tsr__t1_block *blk, int32_t *out, size_t stride);
/* out from magnitudes (one fractional bit, t1_decode.c) and the sign bit sgn_bit of flags
 * (padded array of row width fw) */
void tsr__t1_finish(const tsr__t1_block *blk, const uint32_t *mag, const uint16_t *flags,
                    size_t fw, uint32_t sgn_bit, int32_t *out, size_t stride);

/* HT code-block (ht_decode.c); blk validated, w, h > 0. */
int tsr__ht_decode(const tsr__t1_block *blk, tsr__t1_ws *ws, int32_t *out, size_t stride,
                   unsigned *warnings);

#endif
