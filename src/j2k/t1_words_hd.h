/* The Part 1 coders' column words (T.800 Annex D over one 32-bit word per stripe column), shared
 * by the decoder (t1_decode_hd.h) and the encoder (t1_encode_hd.h): the layout, a lane's view,
 * the sign-context index, marking a sample significant and the lanes each pass codes. Host C
 * and CUDA device code alike (t1_hd.h's qualifiers). */
#ifndef TSR_J2K_T1_WORDS_HD_H
#define TSR_J2K_T1_WORDS_HD_H

#include "j2k/t1_hd.h"

#include <stddef.h>
#include <stdint.h>

/* ---- flags: one 32-bit word per stripe column ------------------------------------------------
 * A stripe column is 4 samples (rows 0..3 of a stripe). Its word holds:
 *   bits 0..17  significance of the 3 x 6 neighbourhood: row r = -1..4 (-1: the last row of the
 *               stripe above, 4: the first row of the stripe below) at bits 3(r+1) + 0 / 1 / 2
 *               for the west / own / east column;
 *   bit 18      sign of row -1 (own column);
 *   rows k = 0..4: sign at 19 + 3k (row 4: bit 31); rows 0..3: refined at 20 + 3k, visited at
 *               21 + 3k.
 * So the word shifted right by 3k is lane k's view at fixed positions (V_*): its 3 x 3
 * significance window in bits 0..8 (itself bit 4), its own and the south sign, its refined and
 * visited bits (own sign 19, south sign 22); the north sign is bit 16 of the view, bit 18 of the
 * word for lane 0. Signs are set only for significant samples; the words of the padding (one
 * column left and right, one stripe above and below) only ever gain significance bits of real
 * samples. */
enum {
    V_NBR = 0x1EFu,   /* the 8 neighbours in a lane view */
    V_SIG = 1u << 4,  /* significant */
    V_REF = 1u << 20, /* refined at least once */
    V_VIS = 1u << 21  /* coded in this plane's SigProp pass */
};
#define LANE3 0x249u            /* bit 3k for k = 0..3 */
#define VIS_ALL (LANE3 * V_VIS) /* the visited bits of the 4 lanes */

/* contexts (T.800 Table D.7 numbering) */
enum { CX_ZC = 0, CX_SC = 9, CX_MR = 14, CX_RL = 17, CX_UNI = 18, CX_N = 19 };

/* The sign-context index (tsr__t1_sc_lut) of lane k of the column word cw, with we / ew the west
 * and east columns' words (their own-sign bit of row k is the west / east neighbour's sign). */
TSR__T1_INL uint32_t sc_idx(uint32_t cw, const uint32_t k, uint32_t we, uint32_t ew)
{
    const uint32_t sh = 3 * k, v = cw >> sh, n = k ? v >> 12 : cw >> 14;
    return (v >> 1 & 1) | (v >> 6 & 2) | (v >> 1 & 4) | (v >> 2 & 8) | (n & 0x10) |
           (v >> 17 & 0x20) | (we >> (sh + 13) & 0x40) | (ew >> (sh + 12) & 0x80);
}

/* Marks lane k of the stripe column at f significant with sign s (1 = negative): its own word
 * (*cw, the caller's copy of *f, stored by the caller), the west and east words, and at a stripe
 * edge the three words of the stripe above (row 4; not when vertically causal) or below (row
 * -1). */
TSR__T1_AI void set_sig(uint32_t *f, uint32_t *cw, const uint32_t k, const ptrdiff_t fs, uint32_t s,
                        int vcausal)
{
    const uint32_t sh = 3 * k;
    *cw |= (V_SIG | s << 19) << sh;
    f[-1] |= 0x20u << sh;
    f[1] |= 0x08u << sh;
    if (k == 0 && !vcausal) {
        f[-fs - 1] |= 1u << 17;
        f[-fs] |= 1u << 16 | s << 31;
        f[-fs + 1] |= 1u << 15;
    }
    if (k == 3) {
        f[fs - 1] |= 1u << 2;
        f[fs] |= 1u << 1 | s << 18;
        f[fs + 1] |= 1u << 0;
    }
}

/* Lane masks of a column word (bit 3k set where the test holds for lane k):
 * sp_lanes: insignificant with a significant neighbour (coded in SigProp);
 * mr_lanes: significant and not visited (coded in MagRef);
 * cu_lanes: neither significant nor visited (coded in cleanup). */
TSR__T1_INL uint32_t sp_lanes(uint32_t cw)
{
    const uint32_t t = cw & 0x3FFFFu, row = (t | t >> 1 | t >> 2) & 0x9249u; /* rows -1..4 */
    return (row | row >> 3 | row >> 6) & ~(cw >> 4) & LANE3;
}
TSR__T1_INL uint32_t mr_lanes(uint32_t cw)
{
    return cw >> 4 & ~(cw >> 21) & LANE3;
}
TSR__T1_INL uint32_t cu_lanes(uint32_t cw)
{
    return ~(cw >> 4 | cw >> 21) & LANE3;
}

#endif
