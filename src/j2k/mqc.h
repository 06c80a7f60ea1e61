/* MQ arithmetic decoder (T.800 Annex C.3), internal to Tier-1.
 *
 * A context is one byte: its probability-estimation state index I (T.800 Table C.2) times two
 * plus its MPS, so that one table lookup gives Qe and both successor bytes (the MPS switch of
 * the LPS transition folded in). The decoder registers follow the standard's software
 * conventions: C holds the code value relative to the interval base (Chigh = C >> 16 < A),
 * A the interval size, CT the bits left before the next BYTEIN.
 *
 * Bytes are read only inside [start, end): a decoder positioned at the end sees 0xFF followed by
 * 0xFF, which BYTEIN treats as a marker and answers with 1-bits forever without advancing
 * (T.800 C.3.4), so a truncated or garbage segment can never make it read out of bounds. */
#ifndef TSR_J2K_MQC_H
#define TSR_J2K_MQC_H

#include "j2k/t1_hd.h"

#include <stdint.h>

typedef struct tsr__mqc_state {
    uint16_t qe;
    uint8_t nmps; /* context byte after an MPS */
    uint8_t nlps; /* context byte after an LPS (MPS flipped where SWITCH = 1) */
} tsr__mqc_state;

/* T.800 Table C.2: index, Qe, NMPS, NLPS, SWITCH for the 47 states. */
/* clang-format off */
#define TSR__MQC_TABLE(X)                                                                          \
    X(0, 0x5601, 1, 1, 1) X(1, 0x3401, 2, 6, 0) X(2, 0x1801, 3, 9, 0) X(3, 0x0AC1, 4, 12, 0)         \
    X(4, 0x0521, 5, 29, 0) X(5, 0x0221, 38, 33, 0) X(6, 0x5601, 7, 6, 1) X(7, 0x5401, 8, 14, 0)     \
    X(8, 0x4801, 9, 14, 0) X(9, 0x3801, 10, 14, 0) X(10, 0x3001, 11, 17, 0)                         \
    X(11, 0x2401, 12, 18, 0) X(12, 0x1C01, 13, 20, 0) X(13, 0x1601, 29, 21, 0)                      \
    X(14, 0x5601, 15, 14, 1) X(15, 0x5401, 16, 14, 0) X(16, 0x5101, 17, 15, 0)                      \
    X(17, 0x4801, 18, 16, 0) X(18, 0x3801, 19, 17, 0) X(19, 0x3401, 20, 18, 0)                      \
    X(20, 0x3001, 21, 19, 0) X(21, 0x2801, 22, 19, 0) X(22, 0x2401, 23, 20, 0)                      \
    X(23, 0x2201, 24, 21, 0) X(24, 0x1C01, 25, 22, 0) X(25, 0x1801, 26, 23, 0)                      \
    X(26, 0x1601, 27, 24, 0) X(27, 0x1401, 28, 25, 0) X(28, 0x1201, 29, 26, 0)                      \
    X(29, 0x1101, 30, 27, 0) X(30, 0x0AC1, 31, 28, 0) X(31, 0x09C1, 32, 29, 0)                      \
    X(32, 0x08A1, 33, 30, 0) X(33, 0x0521, 34, 31, 0) X(34, 0x0441, 35, 32, 0)                      \
    X(35, 0x02A1, 36, 33, 0) X(36, 0x0221, 37, 34, 0) X(37, 0x0141, 38, 35, 0)                      \
    X(38, 0x0111, 39, 36, 0) X(39, 0x0085, 40, 37, 0) X(40, 0x0049, 41, 38, 0)                      \
    X(41, 0x0025, 42, 39, 0) X(42, 0x0015, 43, 40, 0) X(43, 0x0009, 44, 41, 0)                      \
    X(44, 0x0005, 45, 42, 0) X(45, 0x0001, 45, 43, 0) X(46, 0x5601, 46, 46, 0)
/* clang-format on */

/* Two context bytes per state: MPS 0 and MPS 1. */
#define TSR__MQC_ENTRY(i, q, nm, nl, sw)                                                           \
    {q, (uint8_t)((nm)*2 + 0), (uint8_t)((nl)*2 + (0 ^ (sw)))},                                    \
        {q, (uint8_t)((nm)*2 + 1), (uint8_t)((nl)*2 + (1 ^ (sw)))},

/* The table: one definition in mqc.c for the host (the encoder's and decoder's), a device copy in
 * each CUDA file that decodes. */
#ifdef __CUDACC__
TSR__T1_LUT tsr__mqc_state tsr__mqc_states[94] = {TSR__MQC_TABLE(TSR__MQC_ENTRY)};
#else
extern const tsr__mqc_state tsr__mqc_states[94];
#endif

/* context byte for state index i and MPS m */
#define TSR__MQC_CX(i, m) ((uint8_t)((i)*2 + (m)))

typedef struct tsr__mqd {
    uint32_t c;
    uint32_t a;
    uint32_t ct;
    const uint8_t *bp; /* the byte last loaded (B); == end once the data ran out */
    const uint8_t *end;
} tsr__mqd;

/* BYTEIN (T.800 C.3.4) on local registers c, ct, bp, end. */
#define TSR__MQD_BYTEIN(c, ct, bp, end)                                                            \
    do {                                                                                           \
        if ((bp) < (end) && *(bp) != 0xFF) {                                                       \
            (bp)++;                                                                                \
            (c) += (uint32_t)((bp) < (end) ? *(bp) : 0xFF) << 8;                                   \
            (ct) = 8;                                                                              \
        } else {                                                                                   \
            uint32_t nx_ = (bp) + 1 < (end) ? (bp)[1] : 0xFF;                                      \
            if (nx_ > 0x8F) {                                                                      \
                (c) += 0xFF00;                                                                     \
                (ct) = 8;                                                                          \
            } else {                                                                               \
                (bp)++;                                                                            \
                (c) += nx_ << 9;                                                                   \
                (ct) = 7;                                                                          \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* RENORMD (T.800 C.3.3) in steps: TSR__MQD_SHIFT shifts A and C left by n bits (n a variable;
 * 0 does nothing), bringing in a byte whenever CT has reached 0 and more bits are needed, as the
 * standard's bit-by-bit loop does; when CT covers n (the usual case) in one step, otherwise in
 * steps of at most CT bits. TSR__MQD_RENORM shifts until A's bit 15 is set. */
#define TSR__MQD_SHIFT(n, a, c, ct, bp, end)                                                       \
    do {                                                                                           \
        if ((n) < (ct)) {                                                                          \
            (a) <<= (n);                                                                           \
            (c) <<= (n);                                                                           \
            (ct) -= (n);                                                                           \
        } else if (n) {                                                                            \
            do {                                                                                   \
                if ((ct) == 0)                                                                     \
                    TSR__MQD_BYTEIN(c, ct, bp, end);                                               \
                const uint32_t s_ = (n) < (ct) ? (n) : (ct);                                       \
                (a) <<= s_;                                                                        \
                (c) <<= s_;                                                                        \
                (ct) -= s_;                                                                        \
                (n) -= s_;                                                                         \
            } while (n);                                                                           \
        }                                                                                          \
    } while (0)

#define TSR__MQD_RENORM(a, c, ct, bp, end)                                                         \
    do {                                                                                           \
        uint32_t n_ = TSR__T1_CLZ(a) - 16;                                                         \
        TSR__MQD_SHIFT(n_, a, c, ct, bp, end);                                                     \
    } while (0)

/* DECODE (T.800 C.3.2) of one decision in context byte *cxp into d (0/1), local registers. */
#define TSR__MQD_DECODE(d, cxp, a, c, ct, bp, end)                                                 \
    do {                                                                                           \
        const tsr__mqc_state *st_ = &tsr__mqc_states[*(cxp)];                                      \
        uint32_t qe_ = st_->qe;                                                                    \
        (a) -= qe_;                                                                                \
        if (((c) >> 16) < qe_) {                                                                   \
            if ((a) < qe_) {                                                                       \
                (d) = *(cxp)&1;                                                                    \
                *(cxp) = st_->nmps;                                                                \
            } else {                                                                               \
                (d) = (*(cxp)&1) ^ 1;                                                              \
                *(cxp) = st_->nlps;                                                                \
            }                                                                                      \
            (a) = qe_;                                                                             \
            TSR__MQD_RENORM(a, c, ct, bp, end);                                                    \
        } else {                                                                                   \
            (c) -= qe_ << 16;                                                                      \
            if ((a)&0x8000) {                                                                      \
                (d) = *(cxp)&1;                                                                    \
            } else {                                                                               \
                if ((a) < qe_) {                                                                   \
                    (d) = (*(cxp)&1) ^ 1;                                                          \
                    *(cxp) = st_->nlps;                                                            \
                } else {                                                                           \
                    (d) = *(cxp)&1;                                                                \
                    *(cxp) = st_->nmps;                                                            \
                }                                                                                  \
                TSR__MQD_RENORM(a, c, ct, bp, end);                                                \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* The same decision as TSR__MQD_DECODE without branches on the decision itself, for contexts
 * whose MPS and LPS are about equally likely (magnitude refinement, signs, significance
 * propagation), where the branches of TSR__MQD_DECODE mispredict about every other time.
 * With A' = A - Qe: the lower sub-interval (Chigh < Qe) gives A = Qe, the upper C -= Qe << 16 and
 * A = A'; the decision is the LPS exactly when "lower" differs from "A' < Qe" (the conditional
 * exchange of C.3.2); the state moves (NMPS or NLPS) only when A then needs renormalising. Only
 * the renormalisation branches (whether CT covers the shift). */
#define TSR__MQD_DECODE_BF(d, cxp, a, c, ct, bp, end)                                              \
    do {                                                                                           \
        const uint32_t cx_ = *(cxp);                                                               \
        const tsr__mqc_state *st_ = &tsr__mqc_states[cx_];                                         \
        const uint32_t qe_ = st_->qe, as_ = (a)-qe_;                                               \
        const uint32_t lo_ = ((c) >> 16) < qe_;                                                    \
        const uint32_t lps_ = lo_ ^ (as_ < qe_);                                                   \
        const uint32_t cu_ = (c) - (qe_ << 16);                                                    \
        (a) = lo_ ? qe_ : as_;                                                                     \
        (c) = lo_ ? (c) : cu_;                                                                     \
        (d) = (cx_ & 1) ^ lps_;                                                                    \
        const uint32_t nx_ = lps_ ? st_->nlps : st_->nmps;                                         \
        *(cxp) = (uint8_t)((a) < 0x8000 ? nx_ : cx_);                                              \
        uint32_t n_ = TSR__T1_CLZ(a) - 16; /* 0: no renormalisation */                             \
        TSR__MQD_SHIFT(n_, a, c, ct, bp, end);                                                     \
    } while (0)

/* INITDEC (T.800 C.3.5) on len bytes at data (len may be 0; data may then be NULL). */
TSR__T1_AI void tsr__mqd_init(tsr__mqd *d, const uint8_t *data, uint32_t len)
{
    static const uint8_t none = 0xFF;
    if (!data) {
        data = &none;
        len = 0;
    }
    const uint8_t *bp = data, *end = data + len;
    uint32_t c = (uint32_t)(len ? data[0] : 0xFF) << 16, ct;
    if (!len)
        bp = end; /* nothing to read: B is the virtual 0xFF at the end */
    TSR__MQD_BYTEIN(c, ct, bp, end);
    c <<= 7;
    ct -= 7;
    d->c = c;
    d->ct = ct;
    d->a = 0x8000;
    d->bp = bp;
    d->end = end;
}

/* Function form (tests, cold paths). */
TSR__T1_AI int tsr__mqd_decode(tsr__mqd *d, uint8_t *cx)
{
    uint32_t a = d->a, c = d->c, ct = d->ct;
    const uint8_t *bp = d->bp, *end = d->end;
    int r;
    TSR__MQD_DECODE(r, cx, a, c, ct, bp, end);
    d->a = a;
    d->c = c;
    d->ct = ct;
    d->bp = bp;
    return r;
}

#endif
