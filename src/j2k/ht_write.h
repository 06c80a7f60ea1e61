/* HT bit-stream writers shared by ht_encode_hd.h (cleanup pass) and ht_rd_hd.h (SigProp and
 * MagRef passes): the inverses of ht_decode.c's readers (the CPU's coders use ht_write_cpu.h's
 * packings of the same bits). Only for inclusion by those files.
 *   fwd_wr: bits little-endian from bit 0 of each byte, forward; a byte after a 0xFF holds 7
 *     bits (its MSB 0). MagSgn (T.814 7.1.2) and SigProp (7.1.5) share this packing.
 *   bwd_wr: bits little-endian from bit 0, the bytes in the order written (the caller stores
 *     them backwards); a byte whose low 7 bits are all 1 and that follows one above 0x8F holds 7
 *     bits. VLC (7.1.4) and MagRef (7.1.6) share it.
 * Neither writes past cap: it sets over instead, which the caller checks once at the end.
 * TSR_HD: ht_encode_hd.h runs them on the device too. */
#ifndef TSR_J2K_HT_WRITE_H
#define TSR_J2K_HT_WRITE_H

#include "core/hd.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t *p;
    size_t len, cap;
    uint32_t tmp, nb, room; /* bits in tmp, bits the current byte holds (8 or 7) */
    int over;
} fwd_wr;

TSR_HD void fwd_byte(fwd_wr *w, uint32_t b)
{
    if (w->len < w->cap)
        w->p[w->len++] = (uint8_t)b;
    else
        w->over = 1;
}

/* The low n bits of v (n <= 32), lowest first, as many at a time as the current byte holds. */
TSR_HD void fwd_put(fwd_wr *w, uint32_t v, uint32_t n)
{
    while (n) {
        const uint32_t k = n < w->room - w->nb ? n : w->room - w->nb;
        w->tmp |= (v & ((1u << k) - 1)) << w->nb;
        v >>= k;
        n -= k;
        if ((w->nb += k) == w->room) {
            fwd_byte(w, w->tmp);
            w->room = w->tmp == 0xFF ? 7 : 8;
            w->tmp = 0;
            w->nb = 0;
        }
    }
}

typedef struct {
    uint8_t *p; /* bytes in the order written */
    size_t len, cap;
    uint32_t tmp, nb, last;
    int over;
} bwd_wr;

/* The low n bits of v (n <= 32), lowest first, as many at a time as the current byte holds
 * before its next test: its 8th bit, or its 7th after a byte above 0x8F. */
TSR_HD void bwd_put(bwd_wr *w, uint32_t v, uint32_t n)
{
    while (n) {
        const uint32_t end = w->last > 0x8F && w->nb < 7 ? 7 : 8,
                       k = n < end - w->nb ? n : end - w->nb;
        w->tmp |= (v & ((1u << k) - 1)) << w->nb;
        v >>= k;
        n -= k;
        w->nb += k;
        if (w->nb == 8 || (w->nb == 7 && w->last > 0x8F && w->tmp == 0x7F)) {
            if (w->len < w->cap)
                w->p[w->len++] = (uint8_t)w->tmp;
            else
                w->over = 1;
            w->last = w->tmp;
            w->tmp = 0;
            w->nb = 0;
        }
    }
}

/* The last partial byte, its free bits 0. */
TSR_HD void bwd_end(bwd_wr *w)
{
    if (w->nb) {
        if (w->len < w->cap)
            w->p[w->len++] = (uint8_t)w->tmp;
        else
            w->over = 1;
    }
}

#endif
