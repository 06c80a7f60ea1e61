/* The CPU's HT bit writers, shared by the CPU's cleanup encoder (ht_encode_cpu.h: MagSgn and
 * VLC) and refinement encoder (ht_refine_encode.c: SigProp and MagRef): ht_write.h's fwd_wr and
 * bwd_wr packings, byte for byte, with the bits kept in a 64-bit accumulator and whole bytes
 * stored lazily (four at a time where none of the four can be a stuffed one).
 *   ms_acc:  fwd_wr's packing (MagSgn 7.1.2, SigProp 7.1.5), bytes stored upwards from p;
 *   vlc_acc: bwd_wr's packing (VLC 7.1.4, MagRef 7.1.6), bytes stored downwards below p, so
 *     that they lie in the segment's (reversed) order.
 * Neither checks a capacity: the caller's buffer holds every byte the bits can make. Puts take
 * at most 32 bits after fewer than 32 waiting ones (each put flushes at 32). Only for inclusion
 * by .c files (static inline; a build for other targets gets its own copy). */
#ifndef TSR_J2K_HT_WRITE_CPU_H
#define TSR_J2K_HT_WRITE_CPU_H

#include <stdint.h>
#include <string.h>

/* MagSgn (fwd_wr's packing): bits from bit 0 up, a byte after a 0xFF holds 7 bits. */
typedef struct {
    uint8_t *p;   /* the next byte */
    uint64_t acc; /* nb bits not yet stored, the first in bit 0 */
    uint32_t nb;
    uint32_t ff; /* the last byte stored was 0xFF */
} ms_acc;

/* Stores bytes while 32 or more bits are waiting. */
static inline void ms_flush(ms_acc *w)
{
    while (w->nb >= 32) {
        const uint32_t t = (uint32_t)w->acc, x = ~t & 0xFFFFFFu;
        if (!w->ff && !((x - 0x010101u) & ~x & 0x808080u)) { /* bytes 0-2 not 0xFF: 4 x 8 bits */
            memcpy(w->p, &t, 4);
            w->p += 4;
            w->acc >>= 32;
            w->nb -= 32;
            w->ff = t >> 24 == 0xFF;
            continue;
        }
        const uint32_t n = w->ff ? 7 : 8, b = t & ((1u << n) - 1);
        *w->p++ = (uint8_t)b;
        w->acc >>= n;
        w->nb -= n;
        w->ff = b == 0xFF;
    }
}

/* The low n bits of v (n <= 32) after the waiting ones (fewer than 32 wait). */
static inline void ms_put(ms_acc *w, uint32_t v, uint32_t n)
{
    w->acc |= ((uint64_t)v & ((1ull << n) - 1)) << w->nb;
    w->nb += n;
    if (w->nb >= 32)
        ms_flush(w);
}

/* Stores the waiting bits' whole bytes: fewer than a byte's bits are left waiting. */
static inline void ms_whole(ms_acc *w)
{
    for (;;) {
        const uint32_t n = w->ff ? 7 : 8;
        if (w->nb < n)
            break;
        const uint32_t b = (uint32_t)w->acc & ((1u << n) - 1);
        *w->p++ = (uint8_t)b;
        w->acc >>= n;
        w->nb -= n;
        w->ff = b == 0xFF;
    }
}

/* The cleanup's MagSgn end (tsr__ht_ms_end) after the waiting bits' whole bytes: the last
 * partial byte's free bits 1, dropped when that makes it 0xFF; else a last 0xFF dropped. */
static inline void ms_finish(ms_acc *w, const uint8_t *start)
{
    ms_whole(w);
    if (w->nb) {
        const uint32_t room = w->ff ? 7 : 8,
                       t = (uint32_t)w->acc | (((1u << (room - w->nb)) - 1) << w->nb);
        if (t != 0xFF)
            *w->p++ = (uint8_t)t;
    } else if (w->p > start && w->p[-1] == 0xFF) {
        w->p--;
    }
}

/* SigProp's end (ht_rd_hd.h's) after the waiting bits' whole bytes: the last partial byte,
 * its free bits 0 (it cannot be 0xFF), and nothing dropped. */
static inline void ms_finish_pad0(ms_acc *w)
{
    ms_whole(w);
    if (w->nb)
        *w->p++ = (uint8_t)w->acc;
}

/* VLC (bwd_wr's packing): bits from bit 0 up; a byte whose low 7 bits are all 1 after a byte
 * above 0x8F holds 7 bits. The bytes are stored downwards from the end, so that they lie in
 * the segment's order. */
typedef struct {
    uint8_t *p; /* the last byte stored; the next goes below it */
    uint64_t acc;
    uint32_t nb;
    uint32_t last; /* the last byte stored */
} vlc_acc;

static inline void vlc_flush(vlc_acc *w)
{
    while (w->nb >= 32) {
        const uint32_t t = (uint32_t)w->acc, x = ~t & 0x7F7F7F7Fu;
        if (!((x - 0x01010101u) & ~x & 0x80808080u)) { /* no byte's low 7 bits all 1 */
            const uint32_t r = __builtin_bswap32(t);
            w->p -= 4;
            memcpy(w->p, &r, 4);
            w->acc >>= 32;
            w->nb -= 32;
            w->last = t >> 24;
            continue;
        }
        const uint32_t n = w->last > 0x8F && (t & 0x7F) == 0x7F ? 7 : 8, b = t & ((1u << n) - 1);
        *--w->p = (uint8_t)b;
        w->acc >>= n;
        w->nb -= n;
        w->last = b;
    }
}

static inline void vlc_put(vlc_acc *w, uint32_t v, uint32_t n) /* v < 2^n, n <= 32 */
{
    w->acc |= (uint64_t)v << w->nb;
    w->nb += n;
    if (w->nb >= 32)
        vlc_flush(w);
}

/* The waiting bits' whole bytes, then bwd_end's partial byte (its free bits 0): the end of
 * the VLC and of MagRef alike. */
static inline void vlc_finish(vlc_acc *w)
{
    for (;;) {
        const uint32_t t = (uint32_t)w->acc;
        uint32_t n = 8;
        if (w->last > 0x8F && w->nb >= 7 && (t & 0x7F) == 0x7F)
            n = 7;
        else if (w->nb < 8)
            break;
        const uint32_t b = t & ((1u << n) - 1);
        *--w->p = (uint8_t)b;
        w->acc >>= n;
        w->nb -= n;
        w->last = b;
    }
    if (w->nb)
        *--w->p = (uint8_t)w->acc;
}

#endif
