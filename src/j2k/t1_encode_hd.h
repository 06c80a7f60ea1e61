/* The Part 1 code-block encoder (t1_encode.h), written once for the host (t1_encode.c) and the
 * device (encode_cuda.cu) with t1_hd.h's qualifiers: the T.800 D.3 passes over stripe columns
 * whose state is one 32-bit word each (t1_encode.h's cols, t1_decode_hd.h's layout: the
 * significance of the column's 4 samples and of all their neighbours, with D.3.1's vertically
 * causal rule applied, the column's signs and its refined / visited bits), so that a context is
 * one lookup of t1_ctx_lut.h's tables (Tables D.1-D.3) on a shifted word and the run-length test
 * of the cleanup pass (D.3.4) is "word == 0"; segment ends by the decoder's segment rule; with
 * track each pass's truncation point and the squared error it removes, IEEE double operations
 * in coding order. A pass keeps the MQ registers and the context states in locals.
 * t1_encode_block is tsr__t1_encode_block's body. */
#ifndef TSR_J2K_T1_ENCODE_HD_H
#define TSR_J2K_T1_ENCODE_HD_H

#include "j2k/t1_ctx_lut.h"
#include "j2k/t1_encode.h"
#include "j2k/t1_hd.h"
#include "j2k/t1_words_hd.h"

#include <stddef.h>
#include <string.h>

TSR__T1_FN void reset_cx(uint8_t *cx)
{
    memset(cx, 0, CX_N);
    cx[0] = TSR__MQC_CX(4, 0);       /* zero coding, all neighbours insignificant (Table D.7) */
    cx[CX_RL] = TSR__MQC_CX(3, 0);   /* run length */
    cx[CX_UNI] = TSR__MQC_CX(46, 0); /* uniform */
}

/* raw segment (D.6): bits as they come, a 0 stuffed after each 0xFF byte */
TSR__T1_FN void raw_put(tsr__t1_enc *e, uint32_t bit)
{
    e->rcur = e->rcur << 1 | bit;
    if (++e->rnb == e->rcap) {
        if (e->segstart + e->rlen < e->buf + e->cap)
            e->segstart[e->rlen++] = (uint8_t)e->rcur;
        else
            e->overflow = 1;
        e->rcap = e->rcur == 0xFF ? 7 : 8;
        e->rcur = 0;
        e->rnb = 0;
    }
}

TSR__T1_FN void start_segment(tsr__t1_enc *e, int raw)
{
    e->raw = raw;
    if (e->used + 2 > e->cap) { /* the output is unusable from here: flagged */
        e->overflow = 1;
        e->used = 0;
    }
    if (raw) {
        e->segstart = e->buf + e->used;
        e->rcur = 0;
        e->rnb = 0;
        e->rcap = 8;
        e->rlen = 0;
    } else {
        tsr__mqe_init(&e->mq, e->buf + e->used, e->cap - e->used);
        e->segstart = e->mq.start;
    }
}

TSR__T1_FN void end_segment(tsr__t1_enc *e, int npasses)
{
    uint32_t len;
    if (e->raw) {
        if (e->rnb) {
            if (e->segstart + e->rlen < e->buf + e->cap)
                e->segstart[e->rlen++] = (uint8_t)(e->rcur << (e->rcap - e->rnb));
            else
                e->overflow = 1;
        }
        len = (uint32_t)e->rlen;
    } else {
        len = tsr__mqe_flush(&e->mq);
        e->overflow |= e->mq.overflow;
    }
    if (e->nsegs >= (int)TSR__T1_MAX_SEGS) {
        e->overflow = 1;
        return;
    }
    e->segs[e->nsegs].data = e->segstart;
    e->segs[e->nsegs].len = len;
    e->segs[e->nsegs].npasses = (uint32_t)npasses;
    e->nsegs++;
    /* two bytes of room after a segment: the MQ encoder's scratch byte of the next one */
    e->used = (size_t)(e->segstart - e->buf) + len + 2;
}

/* What a pass needs besides the words and magnitudes, held in locals while it runs: the MQ
 * registers, the squared error removed so far (with track), and the block's constants. */
typedef struct pstate {
    tsr__mqe mq;
    double dist;
    const uint8_t *zc; /* tsr__t1_zc_lut of the orientation */
    int *sig_pass;
    ptrdiff_t fs;  /* words per stripe: w + 2 */
    uint32_t w, p; /* width, bit-plane */
    int pass, track, exact, vc;
} pstate;

/* track: e->track, or a constant where the caller has one */
TSR__T1_AI pstate pstate_of(const tsr__t1_enc *e, int pass, int p, const int track)
{
    pstate s;
    s.mq = e->mq;
    s.dist = 0;
    s.zc = tsr__t1_zc_lut[e->orient];
    s.sig_pass = e->sig_pass;
    s.fs = e->w + 2;
    s.w = (uint32_t)e->w;
    s.p = (uint32_t)p;
    s.pass = pass;
    s.track = track;
    s.exact = e->exact;
    s.vc = !!(e->style & TSR__T1_STYLE_VCAUSAL);
    return s;
}

/* Decision bit in context ci: the MQ coder, or as it is in a raw pass (D.6). */
TSR__T1_AI void emit(tsr__t1_enc *e, pstate *s, uint8_t *cx, const int raw, uint32_t ci,
                     uint32_t bit)
{
    if (raw)
        raw_put(e, bit);
    else
        tsr__mqe_encode(&s->mq, &cx[ci], bit);
}

/* The same for decisions near 1/2 (tsr__mqe_encode_bf). */
TSR__T1_AI void emit_bf(tsr__t1_enc *e, pstate *s, uint8_t *cx, const int raw, uint32_t ci,
                        uint32_t bit)
{
    if (raw)
        raw_put(e, bit);
    else
        tsr__mqe_encode_bf(&s->mq, &cx[ci], bit);
}

/* The decoder's reconstruction, in steps, of magnitude mag known down to plane p (r = 1/2). */
TSR__T1_FN double recon(int mag, int p)
{
    return (double)((mag >> p) << p) + 0.5 * (double)(1 << p);
}

/* With track: the squared error removed when the magnitude of mag word mw (sign in bit 31)
 * becomes known down to plane s->p (from plane p + 1, or from nothing when first: it just
 * became significant). */
TSR__T1_AI void add_error(pstate *s, uint32_t mw, int first)
{
    if (!s->track)
        return;
    const int mag = (int)(mw & 0x7FFFFFFFu), p = (int)s->p;
    const double t = s->exact ? mag : mag + 0.5, before = first ? t : t - recon(mag, p + 1),
                 after = s->exact && p == 0 ? 0 : t - recon(mag, p);
    s->dist += before * before - after * after;
}

/* Lane k (row y0 + k, column x) of the column at f has just coded 1 in zero coding: its sign
 * (Tables D.2, D.3; raw passes carry the sign bit itself) and its significance. */
TSR__T1_AI void code_sig(tsr__t1_enc *e, pstate *s, uint8_t *cx, const int raw, uint32_t *f,
                         uint32_t *cw, const uint32_t k, uint32_t mw, uint32_t x, uint32_t y0)
{
    const uint32_t neg = mw >> 31, l = tsr__t1_sc_lut[sc_idx(*cw, k, f[-1], f[1])];
    emit_bf(e, s, cx, raw, l & 0x1Fu, raw ? neg : neg ^ (l >> 7));
    set_sig(f, cw, k, s->fs, neg, s->vc);
    e->live[y0 / 4] = e->live[y0 / 4 + 1] = e->live[y0 / 4 + 2] = 1;
    if (s->sig_pass)
        s->sig_pass[(y0 + k) * s->w + x] = s->pass;
    add_error(s, mw, 1);
}

/* Significance propagation (D.3.1) of lane k: an insignificant sample with a significant
 * neighbour. */
TSR__T1_AI void sp_lane(tsr__t1_enc *e, pstate *s, uint8_t *cx, const int raw, uint32_t *f,
                        uint32_t *cw, const uint32_t *m, const uint32_t k, uint32_t x, uint32_t y0)
{
    const uint32_t v = *cw >> 3 * k;
    if (!(v & V_SIG) && (v & V_NBR)) {
        const uint32_t mw = m[k * s->w], bit = mw >> s->p & 1;
        emit_bf(e, s, cx, raw, s->zc[v & 0x1FFu], bit);
        if (bit)
            code_sig(e, s, cx, raw, f, cw, k, mw, x, y0);
        *cw |= V_VIS << 3 * k;
    }
}

/* Cleanup (D.3.4) of lane k outside run mode: a sample neither significant nor visited. */
TSR__T1_AI void cu_lane(tsr__t1_enc *e, pstate *s, uint8_t *cx, uint32_t *f, uint32_t *cw,
                        const uint32_t *m, const uint32_t k, uint32_t x, uint32_t y0)
{
    const uint32_t v = *cw >> 3 * k;
    if (!(v & (V_SIG | V_VIS))) {
        const uint32_t mw = m[k * s->w], bit = mw >> s->p & 1;
        emit(e, s, cx, 0, s->zc[v & 0x1FFu], bit);
        if (bit)
            code_sig(e, s, cx, 0, f, cw, k, mw, x, y0);
    }
}

/* The passes of bit-plane p, pass number `pass`, over stripes of four rows column by column
 * (D.1); each returns the squared error it removed (with track). raw (a raw, bypass, pass) and
 * track are constants where called, so that each form is its own loop. */
TSR__T1_AI double pass_sigprop(tsr__t1_enc *e, int pass, int p, const int raw, const int track)
{
    pstate S = pstate_of(e, pass, p, track), *s = &S;
    uint8_t cx[CX_N];
    memcpy(cx, e->cx, CX_N);
    const uint32_t w = (uint32_t)e->w, h = (uint32_t)e->h;
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        if (!e->live[y0 / 4 + 1])
            continue;
        uint32_t *f = e->cols + (y0 / 4 + 1) * s->fs + 1;
        const uint32_t *m = e->mag + (size_t)y0 * w, n = h - y0 < 4 ? h - y0 : 4;
        for (uint32_t x = 0; x < w; x++, f++, m++) {
            uint32_t cw = *f;
            if (!sp_lanes(cw))
                continue;
            if (n == 4) {
                sp_lane(e, s, cx, raw, f, &cw, m, 0, x, y0);
                sp_lane(e, s, cx, raw, f, &cw, m, 1, x, y0);
                sp_lane(e, s, cx, raw, f, &cw, m, 2, x, y0);
                sp_lane(e, s, cx, raw, f, &cw, m, 3, x, y0);
            } else {
                for (uint32_t k = 0; k < n; k++)
                    sp_lane(e, s, cx, raw, f, &cw, m, k, x, y0);
            }
            *f = cw;
        }
    }
    e->mq = S.mq;
    memcpy(e->cx, cx, CX_N);
    return S.dist;
}

/* Magnitude refinement (D.3.3): the significant samples not coded in this plane's SigProp. */
TSR__T1_AI double pass_magref(tsr__t1_enc *e, int pass, int p, const int raw, const int track)
{
    pstate S = pstate_of(e, pass, p, track), *s = &S;
    uint8_t cx[CX_N];
    memcpy(cx, e->cx, CX_N);
    const uint32_t w = (uint32_t)e->w, h = (uint32_t)e->h;
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        if (!e->live[y0 / 4 + 1])
            continue;
        uint32_t *f = e->cols + (y0 / 4 + 1) * s->fs + 1;
        const uint32_t *m = e->mag + (size_t)y0 * w;
        for (uint32_t x = 0; x < w; x++, f++, m++) {
            /* the lanes of a partial stripe's missing rows are never significant */
            const uint32_t lanes = mr_lanes(*f);
            if (!lanes)
                continue;
            uint32_t cw = *f;
            for (uint32_t k = 0; k < 4; k++) {
                if (!(lanes >> 3 * k & 1))
                    continue;
                const uint32_t v = cw >> 3 * k;
                const uint32_t mw = m[k * w];
                emit_bf(e, s, cx, raw, (v & V_REF) ? 16 : CX_MR + !!(v & V_NBR), mw >> s->p & 1);
                add_error(s, mw, 0);
                cw |= V_REF << 3 * k;
            }
            *f = cw;
        }
    }
    e->mq = S.mq;
    memcpy(e->cx, cx, CX_N);
    return S.dist;
}

/* Cleanup (D.3.4): run-length coding where a full stripe column's word is zero (no sample
 * significant or visited, no significant neighbour: context 0 of Table D.1 in every
 * orientation), zero coding of the rest; clears the visited bits; segmentation symbol. */
TSR__T1_AI double pass_cleanup(tsr__t1_enc *e, int pass, int p, const int track)
{
    pstate S = pstate_of(e, pass, p, track), *s = &S;
    uint8_t cx[CX_N];
    memcpy(cx, e->cx, CX_N);
    const uint32_t w = (uint32_t)e->w, h = (uint32_t)e->h, P = s->p;
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        uint32_t *f = e->cols + (y0 / 4 + 1) * s->fs + 1;
        const uint32_t *m = e->mag + (size_t)y0 * w, n = h - y0 < 4 ? h - y0 : 4;
        if (n < 4) {
            for (uint32_t x = 0; x < w; x++, f++, m++) {
                uint32_t cw = *f;
                for (uint32_t k = 0; k < n; k++)
                    cu_lane(e, s, cx, f, &cw, m, k, x, y0);
                *f = cw & ~VIS_ALL;
            }
            continue;
        }
        const uint32_t *o = e->cor + (size_t)(y0 / 4) * w;
        for (uint32_t x = 0; x < w; x++, f++, m++) {
            uint32_t cw = *f;
            if (cw == 0) {
                if (!(o[x] >> P & 1)) {
                    /* run-length 0 here and in the columns after it that are the same: their
                     * words stay zero, so they are found before any is coded */
                    uint32_t j = 1;
                    while (!(f[j] | o[x + j] >> P)) /* the right border's word is never 0 */
                        j++;
                    tsr__mqe_encode_zeros(&s->mq, &cx[CX_RL], j);
                    x += j - 1;
                    f += j - 1;
                    m += j - 1;
                    continue;
                }
                emit(e, s, cx, 0, CX_RL, 1);
                const uint32_t r = m[0] >> P & 1       ? 0
                                   : m[w] >> P & 1     ? 1
                                   : m[2 * w] >> P & 1 ? 2
                                                       : 3;
                emit(e, s, cx, 0, CX_UNI, r >> 1);
                emit(e, s, cx, 0, CX_UNI, r & 1);
                code_sig(e, s, cx, 0, f, &cw, r, m[r * w], x, y0);
                for (uint32_t k = r + 1; k < 4; k++)
                    cu_lane(e, s, cx, f, &cw, m, k, x, y0);
            } else {
                cu_lane(e, s, cx, f, &cw, m, 0, x, y0);
                cu_lane(e, s, cx, f, &cw, m, 1, x, y0);
                cu_lane(e, s, cx, f, &cw, m, 2, x, y0);
                cu_lane(e, s, cx, f, &cw, m, 3, x, y0);
            }
            *f = cw & ~VIS_ALL;
        }
    }
    if (e->style & TSR__T1_STYLE_SEGSYM) { /* 1010 in the uniform context (D.5) */
        emit(e, s, cx, 0, CX_UNI, 1);
        emit(e, s, cx, 0, CX_UNI, 0);
        emit(e, s, cx, 0, CX_UNI, 1);
        emit(e, s, cx, 0, CX_UNI, 0);
    }
    e->mq = S.mq;
    memcpy(e->cx, cx, CX_N);
    return S.dist;
}

/* Pass `pass` (type 0 SigProp, 1 MagRef, 2 cleanup) of bit-plane p; returns its error removed.
 * One loop each without track (lossless and fixed-step encodes) and with it (style 0); the raw
 * passes' loop tests track as it runs. */
TSR__T1_FN double code_pass(tsr__t1_enc *e, int pass, int type, int p)
{
    const int tr = e->track;
    if (type == 0)
        return e->raw ? pass_sigprop(e, pass, p, 1, tr)
               : tr   ? pass_sigprop(e, pass, p, 0, 1)
                      : pass_sigprop(e, pass, p, 0, 0);
    if (type == 1)
        return e->raw ? pass_magref(e, pass, p, 1, tr)
               : tr   ? pass_magref(e, pass, p, 0, 1)
                      : pass_magref(e, pass, p, 0, 0);
    return tr ? pass_cleanup(e, pass, p, 1) : pass_cleanup(e, pass, p, 0);
}

/* A coefficient's magnitude with its sign (negative) in bit 31. */
TSR__T1_INL uint32_t mag_word(int32_t v)
{
    const uint32_t s = (uint32_t)(v >> 31);
    return (((uint32_t)v ^ s) - s) | s << 31;
}

/* The block's words zeroed (the right border's set to a sentinel), its magnitude words and the
 * full stripes' column ORs (t1_encode.h). */
TSR__T1_FN void load_state(tsr__t1_enc *e)
{
    const uint32_t w = (uint32_t)e->w, h = (uint32_t)e->h;
    memset(e->cols, 0, ((h + 3) / 4 + 2) * (w + 2) * sizeof *e->cols);
    memset(e->live, 0, (h + 3) / 4 + 2);
    for (uint32_t i = 0; i < w * h; i++)
        e->mag[i] = mag_word(e->coef[i]);
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        /* the right border: the cleanup's run search stops there (a bit no column reads) */
        e->cols[(y0 / 4 + 1) * (w + 2) + w + 1] = V_REF;
        if (h - y0 < 4)
            continue;
        const uint32_t *m = e->mag + (size_t)y0 * w;
        uint32_t *o = e->cor + (size_t)(y0 / 4) * w;
        for (uint32_t x = 0; x < w; x++)
            o[x] = (m[x] | m[w + x] | m[2 * w + x] | m[3 * w + x]) & 0x7FFFFFFFu;
        o[w] = 0; /* read with the right border: the next stripe's first, or the spare entry */
    }
    if (e->sig_pass)
        for (uint32_t i = 0; i < w * h; i++)
            e->sig_pass[i] = 1 << 30;
}

TSR__T1_FN int t1_encode_block(tsr__t1_enc *e)
{
    load_state(e);
    reset_cx(e->cx);
    e->nsegs = 0;
    e->used = 0;
    e->overflow = 0;
    const int np = e->K ? 3 * e->K - 2 : 0;
    int seg_first = 0, seg_max = 0;
    for (int pass = 0; pass < np; pass++) {
        if (pass == seg_first) {
            seg_max = (int)tsr__t1_segment_max_passes((unsigned)e->style, (uint32_t)pass,
                                                      (uint32_t)(np - pass), 0);
            start_segment(e, tsr__t1_pass_is_raw((unsigned)e->style, (uint32_t)pass));
        }
        const int type = pass == 0 ? 2 : (pass - 1) % 3;
        const int p = e->K - 1 - (pass + 2) / 3;
        const double dist = code_pass(e, pass, type, p);
        if (e->track) {
            /* a truncation after this pass: the bytes out so far and the three that still hold
             * C register's bits (T.800 C.2: at most 27 bits are pending) */
            e->pass_dist[pass] = dist;
            e->pass_rate[pass] = (uint32_t)(e->mq.bp - e->mq.start) + 3;
        }
        if (e->style & TSR__T1_STYLE_RESET)
            reset_cx(e->cx);
        if (pass + 1 == np || pass + 1 - seg_first == seg_max) {
            end_segment(e, pass + 1 - seg_first);
            seg_first = pass + 1;
        }
    }
    if (e->track && e->nsegs == 1) {
        /* rates within the flushed segment, never ending on 0xFF (a decoder would read it as
         * the first half of a marker) */
        const uint32_t total = e->segs[0].len;
        for (int pass = 0; pass < np; pass++) {
            uint32_t r = pass + 1 == np || e->pass_rate[pass] > total ? total : e->pass_rate[pass];
            if (r > 1 && r < total && e->segs[0].data[r - 1] == 0xFF)
                r--;
            if (pass > 0 && r < e->pass_rate[pass - 1])
                r = e->pass_rate[pass - 1];
            e->pass_rate[pass] = r;
        }
    }
    return np;
}

#endif
