/* MQ arithmetic encoder (T.800 Annex C.2), internal to the Tier-1 encoder (t1_encode_hd.h, whose
 * qualifiers, t1_hd.h's, make it host C or device code); the probability state table and the
 * context bytes are the decoder's (mqc.h). Registers follow the standard's
 * software conventions (C.2: C, A, CT, BP). Output goes to [start, end): a byte that would land
 * at or past end is dropped and sets `overflow` (the caller sizes the buffer by
 * tsr__t1_encode_bound, so this is a guard, not an expected outcome). A coding pass keeps a copy
 * of the registers in a local (t1_encode_hd.h), so that they live in machine registers. */
#ifndef TSR_J2K_MQC_ENCODE_H
#define TSR_J2K_MQC_ENCODE_H

#include "j2k/mqc.h"

#include <stddef.h>
#include <stdint.h>

typedef struct tsr__mqe {
    uint32_t a, c, ct;
    uint8_t *bp;    /* the byte last written (B); start - 1 before the first */
    uint8_t *start; /* the first byte of the segment */
    uint8_t *end;
    int overflow;
} tsr__mqe;

/* INITENC (C.2.8) on buf[0, cap): buf[0] is a scratch byte before the segment, which starts at
 * buf + 1 (cap >= 2). */
TSR__T1_INL void tsr__mqe_init(tsr__mqe *e, uint8_t *buf, size_t cap)
{
    e->start = buf + 1;
    e->bp = buf;
    e->end = buf + cap;
    *e->bp = 0;
    e->a = 0x8000;
    e->c = 0;
    e->ct = 12;
    e->overflow = 0;
}

/* The coding steps, inline: PUT (a byte, bounded), BYTEOUT (C.2.7, Figure C.9: after a 0xFF
 * only 7 bits go out; a carry into the previous byte propagates once), RENORME (C.2.6) and
 * ENCODE (C.2.2: CODEMPS/CODELPS with the conditional exchange) of decision d in the context
 * byte *cx (updated). */
TSR__T1_AI void tsr__mqe_put(tsr__mqe *e, uint32_t byte)
{
    if (e->bp + 1 >= e->end) {
        e->overflow = 1;
        return;
    }
    e->bp++;
    *e->bp = (uint8_t)byte;
}

/* BYTEOUT (C.2.7, Figure C.9): after a 0xFF only 7 bits go out (bit stuffing); a carry into
 * the previous byte propagates once. */
TSR__T1_AI void tsr__mqe_byteout(tsr__mqe *e)
{
    if (*e->bp == 0xFF) {
        tsr__mqe_put(e, e->c >> 20);
        e->c &= 0xFFFFF;
        e->ct = 7;
    } else if (e->c < 0x8000000) {
        tsr__mqe_put(e, e->c >> 19);
        e->c &= 0x7FFFF;
        e->ct = 8;
    } else {
        (*e->bp)++;
        if (*e->bp == 0xFF) {
            e->c &= 0x7FFFFFF;
            tsr__mqe_put(e, e->c >> 20);
            e->c &= 0xFFFFF;
            e->ct = 7;
        } else {
            tsr__mqe_put(e, e->c >> 19);
            e->c &= 0x7FFFF;
            e->ct = 8;
        }
    }
}

/* RENORME (C.2.6) for 0 < A <= 0xFFFF (nothing when A >= 0x8000): A and C shift left until A's bit
 * 15 is set, a byte going out whenever CT reaches 0. The shifts between two BYTEOUTs are done at
 * once (the count from the leading zeros of A), which is the same arithmetic as the standard's
 * bit-by-bit loop. */
TSR__T1_AI void tsr__mqe_renorm(tsr__mqe *e)
{
    uint32_t n = TSR__T1_CLZ(e->a) - 16;
    while (n >= e->ct) {
        e->a <<= e->ct;
        e->c <<= e->ct;
        n -= e->ct;
        tsr__mqe_byteout(e);
    }
    e->a <<= n;
    e->c <<= n;
    e->ct -= n;
}

TSR__T1_AI void tsr__mqe_encode(tsr__mqe *e, uint8_t *cx, uint32_t d)
{
    const tsr__mqc_state *st = &tsr__mqc_states[*cx];
    const uint32_t qe = st->qe;
    e->a -= qe;
    if (d == (*cx & 1u)) { /* CODEMPS (C.2.5) */
        if (e->a & 0x8000) {
            e->c += qe;
            return;
        }
        if (e->a < qe)
            e->a = qe;
        else
            e->c += qe;
        *cx = st->nmps;
    } else { /* CODELPS (C.2.4), with the conditional exchange */
        if (e->a < qe)
            e->c += qe;
        else
            e->a = qe;
        *cx = st->nlps;
    }
    tsr__mqe_renorm(e);
}

/* The same ENCODE by selects instead of branches, for decisions near 1/2 (signs, refinement,
 * significance propagation) whose MPS / LPS branch a predictor cannot learn: with X the
 * conditional exchange (A - Qe < Qe), the upper sub-interval (C += Qe, A -= Qe) is coded when
 * MPS != X, the lower one (A = Qe) otherwise; the state moves (NMPS or NLPS) exactly when A then
 * needs renormalising, which an MPS with A - Qe >= 0x8000 does not (renormalisation by 0 bits). */
TSR__T1_AI void tsr__mqe_encode_bf(tsr__mqe *e, uint8_t *cx, uint32_t d)
{
    const tsr__mqc_state *st = &tsr__mqc_states[*cx];
    const uint32_t qe = st->qe, a = e->a - qe, mps = d == (*cx & 1u), upper = mps ^ (a < qe);
    e->c += upper ? qe : 0;
    e->a = upper ? a : qe;
    const uint32_t next = mps ? st->nmps : st->nlps;
    *cx = (uint8_t)(e->a & 0x8000 ? *cx : next);
    tsr__mqe_renorm(e); /* no shift when A >= 0x8000 */
}

/* ENCODE of j decisions 0 in context *cx, the same arithmetic as j calls of tsr__mqe_encode:
 * while 0 is the MPS, the run of decisions that leave A >= 0x8000 (no renormalisation: each
 * subtracts Qe from A and adds it to C) is done as one multiplication; the one that
 * renormalises, and every decision while 0 is the LPS, goes through tsr__mqe_encode. */
TSR__T1_AI void tsr__mqe_encode_zeros(tsr__mqe *e, uint8_t *cx, uint32_t j)
{
    while (j) {
        if (!(*cx & 1u)) {
            const uint32_t qe = tsr__mqc_states[*cx].qe, t = (e->a - 0x8000) / qe;
            if (t >= j) {
                e->a -= j * qe;
                e->c += j * qe;
                return;
            }
            e->a -= t * qe;
            e->c += t * qe;
            j -= t;
        }
        tsr__mqe_encode(e, cx, 0);
        j--;
    }
}

/* FLUSH (C.2.9); returns the segment's length in bytes from e->start (a final 0xFF is not
 * part of it). */
TSR__T1_INL uint32_t tsr__mqe_flush(tsr__mqe *e)
{
    /* SETBITS (C.2.9, Figure C.11) */
    uint32_t tempc = e->c + e->a;
    e->c |= 0xFFFF;
    if (e->c >= tempc)
        e->c -= 0x8000;
    e->c <<= e->ct;
    tsr__mqe_byteout(e);
    e->c <<= e->ct;
    tsr__mqe_byteout(e);
    if (*e->bp != 0xFF)
        e->bp++; /* past the last byte: at most end */
    return (uint32_t)(e->bp - e->start);
}

#endif
