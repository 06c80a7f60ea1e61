/* Tier-1 encoding of one Part 1 code-block (T.800 Annex D, EBCOT with the MQ coder of C.2): the
 * three coding passes per bit-plane with the context rules of D.3 (Tables D.1-D.3), the
 * code-block styles of Table A.19 (bypass, context reset, termination of every pass, vertically
 * causal contexts, segmentation symbols), and the segments the decoder's segment rule expects
 * (tsr__t1_segment_max_passes, t1.h section 2). The inverse of t1_decode.c: a block coded here
 * and given to tsr__t1_decode with all its passes returns exactly its coefficients.
 *
 * Coefficients are signed integers in the coded domain (sign and magnitude; |v| < 2^K, K the
 * block's coded bit-planes, K = Mb - zero bit-planes). The state is the encoder's workspace:
 * one per thread, zeroed before its first block (so that inputs a caller never sets, such as
 * sig_pass, are NULL) and reused for every block. */
#ifndef TSR_J2K_T1_ENCODE_H
#define TSR_J2K_T1_ENCODE_H

#include "j2k/mqc_encode.h"
#include "j2k/t1.h"
#include "j2k/t1_internal.h"

#include <stddef.h>
#include <stdint.h>

typedef struct tsr__t1_enc {
    /* inputs */
    int w, h, orient, style; /* size (w * h <= TSR__T1_MAX_AREA), TSR__T1_LL.., style byte */
    int K;                   /* bit-planes to code (0: none) */
    const int32_t *coef;     /* w * h coefficients, row-major, |v| < 2^K */
    uint8_t *buf;            /* output for all segments: cap bytes (tsr__t1_encode_bound) */
    size_t cap;
    int track;     /* record each pass's truncation point (style 0: one MQ segment) */
    int exact;     /* with track: the coefficients are exact (reversible), not a step's floor */
    int *sig_pass; /* NULL, or w * h entries (row-major) that receive the pass that made each
                    * coefficient significant (1 << 30 while none did) */
    /* outputs */
    tsr__t1_seg segs[TSR__T1_MAX_SEGS]; /* data inside buf */
    /* with track: bytes of the segment a decoder needs for passes 0..p (non-decreasing, the last
     * one the whole segment), and the squared error pass p removes, in quantisation steps, for
     * coefficients whose true magnitude is the middle of their quantisation bin, or the
     * magnitude itself when exact (E.1.1.2's reconstruction, r = 1/2, of the bits decoded) */
    uint32_t pass_rate[TSR__T1_MAX_PASSES];
    double pass_dist[TSR__T1_MAX_PASSES];
    int nsegs;
    int overflow; /* buf was too small: the segments are not usable */
    /* one 32-bit word per stripe column (4 rows), t1_decode_hd.h's layout: the significance of
     * the column's samples and their neighbours, its signs, refined and visited bits; (ceil(h /
     * 4) + 2) stripes of w + 2 words, a border column and stripe on each side; the right border's
     * words also hold a bit no column reads (V_REF of lane 0), so that they are never zero */
    uint32_t cols[TSR__T1_COLS_MAX];
    /* magnitudes, row-major as coef, with the sign (negative) in bit 31 */
    uint32_t mag[TSR__T1_MAX_AREA];
    /* per column of a full stripe (st w + x): the OR of its 4 magnitudes (the run-length test);
     * one spare entry after the last */
    uint32_t cor[TSR__T1_MAX_AREA / 4 + 1];
    /* per stripe, from index 1 (0 and ceil(h / 4) + 1: borders): nonzero once a coefficient in it
     * or in a stripe next to it is significant; SigProp and MagRef skip the stripes still zero */
    uint8_t live[TSR__T1_MAX_H / 4 + 2];
    uint8_t cx[19]; /* context states (Table D.7 numbering) */
    /* the segment being written */
    int raw;
    tsr__mqe mq;
    uint8_t *segstart;
    uint32_t rcur, rnb, rcap;
    size_t rlen;
    size_t used;
} tsr__t1_enc;

/* The number of bit-planes a block needs: the bit length of its largest magnitude. */
int tsr__t1_bitplanes(const int32_t *coef, size_t n);
/* Bytes of output that always suffice for a block of `area` coefficients and K bit-planes. */
size_t tsr__t1_encode_bound(uint32_t area, int K);
/* Encodes all 3K - 2 passes (none when K = 0) into e->segs; returns the number of passes. */
int tsr__t1_encode_block(tsr__t1_enc *e);

#endif
