/* The Part-1 EBCOT code-block decoder (T.800 Annex D) and tsr__t1_decode's whole contract
 * (t1.h: checks, the segments, both block coders), written once for the host (t1_decode.c) and
 * the device (t1_cuda.cu): t1_hd.h's qualifiers, no allocation, no recursion, every array in the
 * caller's workspace or on a small stack. The includer defines TSR__T1_HT_DECODE(blk, ws, out,
 * stride, warnings), the HT block decoder (t1_internal.h's tsr__ht_decode contract), and gets
 * t1_decode_block(), tsr__t1_decode's semantics. Only for inclusion by those two files.
 *
 * State: one 32-bit word per stripe column (4 samples) in an array with a border of one column
 * and one stripe, so that neighbour updates never need bounds checks. The word keeps the
 * significance of the column's samples and of all their neighbours (rows -1..4 of the own, west
 * and east columns), the column's signs and its samples' "visited in this plane" / "refined
 * before" bits (layout below); the zero-coding context of a sample is one table lookup on a
 * shifted word, its sign context one on its own and the two neighbour words. Magnitudes live in
 * a separate uint32 array with ONE fractional bit: after the cleanup or SigProp pass of
 * plane b makes a coefficient significant it holds 3 << b (= 2*2^b + 2^b: the value plus half the
 * step of plane b), and every MagRef pass of plane b adds or subtracts 2^b (bit 1 / bit 0), so
 * the lowest set bit is always the half step of the last plane decoded for it (t1.h, 3.).
 * Passes scan stripes of 4 rows column by column (T.800 D.1). */
#ifndef TSR_J2K_T1_DECODE_HD_H
#define TSR_J2K_T1_DECODE_HD_H

#include "j2k/t1.h"
#include "j2k/mqc.h"
#include "j2k/t1_ctx_lut.h"
#include "j2k/t1_hd.h"
#include "j2k/t1_words_hd.h"
#include "j2k/t1_internal.h"

#include <string.h>

TSR__T1_FN tsr__t1_ws *t1_ws_align(void *ws, size_t size)
{
    uintptr_t p = (uintptr_t)ws, q = (p + 63) & ~(uintptr_t)63;
    if (!ws || size < sizeof(tsr__t1_ws) + (q - p))
        return NULL;
    return (tsr__t1_ws *)q;
}

TSR__T1_FN void reset_contexts(uint8_t *cx)
{
    memset(cx, 0, CX_N);
    cx[CX_ZC] = TSR__MQC_CX(4, 0);
    cx[CX_RL] = TSR__MQC_CX(3, 0);
    cx[CX_UNI] = TSR__MQC_CX(46, 0);
}

/* ---- raw (bypass) bit reader, T.800 D.6 ------------------------------------------------------ */
typedef struct rawd {
    const uint8_t *bp, *end;
    uint32_t c, ct;
} rawd;

TSR__T1_FN void raw_init(rawd *r, const uint8_t *data, uint32_t len)
{
    r->bp = data;
    r->end = data + len;
    r->c = 0;
    r->ct = 0;
}

TSR__T1_INL uint32_t raw_bit(rawd *r)
{
    if (r->ct == 0) {
        uint32_t nx = r->bp < r->end ? *r->bp : 0xFF;
        if (r->c == 0xFF) {
            if (nx > 0x8F) {
                r->c = 0xFF;
                r->ct = 8;
            } else {
                r->c = nx;
                r->bp++;
                r->ct = 7;
            }
        } else {
            r->c = nx;
            if (r->bp < r->end)
                r->bp++;
            r->ct = 8;
        }
    }
    r->ct--;
    return (r->c >> r->ct) & 1;
}

/* ---- the decoder ----------------------------------------------------------------------------- */
/* Layout: the word of stripe column (x, stripe st) is cols[(st + 1) * fs + x + 1], fs = w + 2
 * (padding stripe above and below, padding column left and right: every neighbour update lands
 * inside). Magnitudes: mag[st * 4w + 4x + k] for row 4st + k. */
typedef struct dec {
    uint32_t *cols;
    uint32_t *mag;
    uint32_t w, h, fs, nfull; /* nfull: number of full stripes */
    int vcausal;
    const uint8_t *zc; /* zc table for the orientation */
    const uint8_t *sc;
    uint8_t cx[CX_N];
    tsr__mqd mq;
    rawd raw;
} dec;

/* MQ registers as locals of a pass function */
typedef struct mqr {
    uint32_t a, c, ct;
    const uint8_t *bp, *end;
} mqr;

TSR__T1_AI uint32_t mq_dec(mqr *r, uint8_t *cxp)
{
    uint32_t d;
    TSR__MQD_DECODE(d, cxp, r->a, r->c, r->ct, r->bp, r->end);
    return d;
}

/* the same for near-equiprobable contexts (mqc.h, TSR__MQD_DECODE_BF) */
TSR__T1_AI uint32_t mq_dec_bf(mqr *r, uint8_t *cxp)
{
    uint32_t d;
    TSR__MQD_DECODE_BF(d, cxp, r->a, r->c, r->ct, r->bp, r->end);
    return d;
}

#define MQ_LOAD(D) mqr R = {(D)->mq.a, (D)->mq.c, (D)->mq.ct, (D)->mq.bp, (D)->mq.end}
#define MQ_SAVE(D)                                                                                 \
    do {                                                                                           \
        (D)->mq.a = R.a;                                                                           \
        (D)->mq.c = R.c;                                                                           \
        (D)->mq.ct = R.ct;                                                                         \
        (D)->mq.bp = R.bp;                                                                         \
    } while (0)

/* The context tables and states are passed as locals, never re-read through d: every context
 * update is a store through a char type, which would otherwise force reloads. */
#define CTXP const uint8_t *zc, const uint8_t *sc, uint8_t *cx
#define CTXA zc, sc, cx
#define CTX_LOCALS(D)                                                                              \
    const uint8_t *const zc = (D)->zc, *const sc = (D)->sc;                                        \
    uint8_t cxl[CX_N];                                                                             \
    uint8_t *const cx = cxl;                                                                       \
    memcpy(cxl, (D)->cx, CX_N)
#define CTX_SAVE(D) memcpy((D)->cx, cxl, CX_N)

/* Sign decision of lane k (view v) and its significance. */
TSR__T1_AI void mq_sign(CTXP, mqr *R, uint32_t *f, uint32_t *cw, uint32_t *m, const uint32_t k,
                        uint32_t v3, const ptrdiff_t fs, const int vc)
{
    (void)zc;
    const uint32_t s = sc[sc_idx(*cw, k, f[-1], f[1])];
    const uint32_t sb = mq_dec_bf(R, &cx[s & 0x1F]) ^ (s >> 7);
    set_sig(f, cw, k, fs, sb, vc);
    m[k] = v3;
}

/* --- significance propagation ------------------------------------------------------------------
 */
TSR__T1_AI void sp_step(CTXP, mqr *R, uint32_t *f, uint32_t *cw, uint32_t *m, const uint32_t k,
                        uint32_t v3, const ptrdiff_t fs, const int vc)
{
    const uint32_t v = *cw >> 3 * k;
    if (!(v & V_SIG) && (v & V_NBR)) {
        if (mq_dec_bf(R, &cx[zc[v & 0x1FFu]]))
            mq_sign(CTXA, R, f, cw, m, k, v3, fs, vc);
        *cw |= V_VIS << 3 * k;
    }
}

TSR__T1_AI void sp_step_raw(dec *d, uint32_t *f, uint32_t *cw, uint32_t *m, const uint32_t k,
                            uint32_t v3, const ptrdiff_t fs, const int vc)
{
    const uint32_t v = *cw >> 3 * k;
    if (!(v & V_SIG) && (v & V_NBR)) {
        if (raw_bit(&d->raw)) {
            set_sig(f, cw, k, fs, raw_bit(&d->raw), vc);
            m[k] = v3;
        }
        *cw |= V_VIS << 3 * k;
    }
}

TSR__T1_FN void pass_sigprop(dec *d, uint32_t bpl, int raw)
{
    MQ_LOAD(d);
    CTX_LOCALS(d);
    const uint32_t w = d->w, v3 = 3u << bpl;
    const ptrdiff_t fs = d->fs;
    const int vc = d->vcausal;
    for (uint32_t st = 0; st * 4 < d->h; st++) {
        uint32_t *f = d->cols + (st + 1) * fs + 1;
        uint32_t *m = d->mag + (size_t)st * 4 * w;
        const uint32_t n = st < d->nfull ? 4 : d->h - st * 4;
        for (uint32_t x = 0; x < w; x++, f++, m += 4) {
            uint32_t cw = *f;
            if (!sp_lanes(cw))
                continue;
            if (n == 4) {
                if (raw) {
                    sp_step_raw(d, f, &cw, m, 0, v3, fs, vc);
                    sp_step_raw(d, f, &cw, m, 1, v3, fs, vc);
                    sp_step_raw(d, f, &cw, m, 2, v3, fs, vc);
                    sp_step_raw(d, f, &cw, m, 3, v3, fs, vc);
                } else {
                    sp_step(CTXA, &R, f, &cw, m, 0, v3, fs, vc);
                    sp_step(CTXA, &R, f, &cw, m, 1, v3, fs, vc);
                    sp_step(CTXA, &R, f, &cw, m, 2, v3, fs, vc);
                    sp_step(CTXA, &R, f, &cw, m, 3, v3, fs, vc);
                }
            } else {
                for (uint32_t k = 0; k < n; k++) {
                    if (raw)
                        sp_step_raw(d, f, &cw, m, k, v3, fs, vc);
                    else
                        sp_step(CTXA, &R, f, &cw, m, k, v3, fs, vc);
                }
            }
            *f = cw;
        }
    }
    MQ_SAVE(d);
    CTX_SAVE(d);
}

/* --- magnitude refinement ----------------------------------------------------------------------
 */
TSR__T1_FN void pass_magref(dec *d, uint32_t bpl, int raw)
{
    MQ_LOAD(d);
    CTX_LOCALS(d);
    (void)zc;
    (void)sc;
    const uint32_t w = d->w, half = 1u << bpl;
    for (uint32_t st = 0; st * 4 < d->h; st++) {
        uint32_t *f = d->cols + (st + 1) * d->fs + 1;
        uint32_t *m = d->mag + (size_t)st * 4 * w;
        for (uint32_t x = 0; x < w; x++, f++, m += 4) {
            /* the lanes to refine (MagRef changes no significance, so the set is fixed; the
             * unused lanes of a partial stripe are never significant) */
            uint32_t lanes = mr_lanes(*f);
            if (!lanes)
                continue;
            uint32_t cw = *f;
            for (; lanes; lanes &= lanes - 1) {
                const uint32_t sh = TSR__T1_CTZ(lanes), k = sh * 11 >> 5, v = cw >> sh;
                uint32_t bit;
                if (raw)
                    bit = raw_bit(&d->raw);
                else
                    bit = mq_dec_bf(&R, &cx[(v & V_REF) ? 16 : 14 + !!(v & V_NBR)]);
                m[k] = bit ? m[k] + half : m[k] - half;
                cw |= V_REF << sh;
            }
            *f = cw;
        }
    }
    MQ_SAVE(d);
    CTX_SAVE(d);
}

/* --- cleanup ---------------------------------------------------------------------------------- */
TSR__T1_AI void cu_step(CTXP, mqr *R, uint32_t *f, uint32_t *cw, uint32_t *m, const uint32_t k,
                        uint32_t v3, const ptrdiff_t fs, const int vc)
{
    const uint32_t v = *cw >> 3 * k;
    if (!(v & (V_SIG | V_VIS))) {
        if (mq_dec_bf(R, &cx[zc[v & 0x1FFu]]))
            mq_sign(CTXA, R, f, cw, m, k, v3, fs, vc);
    }
}

/* Cleanup pass; returns the segmentation symbol check result (1 = ok) when segsym. Clears the
 * visited bits of every column (after its last step). */
TSR__T1_FN int pass_cleanup(dec *d, uint32_t bpl, int segsym)
{
    MQ_LOAD(d);
    CTX_LOCALS(d);
    const uint32_t w = d->w, v3 = 3u << bpl;
    const ptrdiff_t fs = d->fs;
    const int vc = d->vcausal;
    for (uint32_t st = 0; st * 4 < d->h; st++) {
        uint32_t *f = d->cols + (st + 1) * fs + 1;
        uint32_t *m = d->mag + (size_t)st * 4 * w;
        if (st < d->nfull) {
            for (uint32_t x = 0; x < w; x++, f++, m += 4) {
                uint32_t cw = *f;
                if (cw == 0) {
                    /* run-length mode: all 4 insignificant, none visited, no significant
                     * neighbour */
                    if (!mq_dec(&R, &cx[CX_RL]))
                        continue;
                    uint32_t r = mq_dec(&R, &cx[CX_UNI]) << 1;
                    r |= mq_dec(&R, &cx[CX_UNI]);
                    switch (r) {
                    case 0:
                        mq_sign(CTXA, &R, f, &cw, m, 0, v3, fs, vc);
                        cu_step(CTXA, &R, f, &cw, m, 1, v3, fs, vc);
                        cu_step(CTXA, &R, f, &cw, m, 2, v3, fs, vc);
                        cu_step(CTXA, &R, f, &cw, m, 3, v3, fs, vc);
                        break;
                    case 1:
                        mq_sign(CTXA, &R, f, &cw, m, 1, v3, fs, vc);
                        cu_step(CTXA, &R, f, &cw, m, 2, v3, fs, vc);
                        cu_step(CTXA, &R, f, &cw, m, 3, v3, fs, vc);
                        break;
                    case 2:
                        mq_sign(CTXA, &R, f, &cw, m, 2, v3, fs, vc);
                        cu_step(CTXA, &R, f, &cw, m, 3, v3, fs, vc);
                        break;
                    default: mq_sign(CTXA, &R, f, &cw, m, 3, v3, fs, vc); break;
                    }
                    *f = cw;
                    continue;
                }
                if (cu_lanes(cw)) {
                    cu_step(CTXA, &R, f, &cw, m, 0, v3, fs, vc);
                    cu_step(CTXA, &R, f, &cw, m, 1, v3, fs, vc);
                    cu_step(CTXA, &R, f, &cw, m, 2, v3, fs, vc);
                    cu_step(CTXA, &R, f, &cw, m, 3, v3, fs, vc);
                }
                *f = cw & ~VIS_ALL;
            }
        } else {
            const uint32_t n = d->h - st * 4;
            for (uint32_t x = 0; x < w; x++, f++, m += 4) {
                uint32_t cw = *f;
                for (uint32_t k = 0; k < n; k++)
                    cu_step(CTXA, &R, f, &cw, m, k, v3, fs, vc);
                *f = cw & ~VIS_ALL;
            }
        }
    }
    int ok = 1;
    if (segsym) {
        uint32_t v = mq_dec(&R, &cx[CX_UNI]) << 3;
        v |= mq_dec(&R, &cx[CX_UNI]) << 2;
        v |= mq_dec(&R, &cx[CX_UNI]) << 1;
        v |= mq_dec(&R, &cx[CX_UNI]);
        ok = v == 0xA;
    }
    MQ_SAVE(d);
    CTX_SAVE(d);
    return ok;
}

/* One output value without ROI: lane k's magnitude (with its fractional bit dropped when
 * reversible) where its word says significant, else 0 (the magnitudes of insignificant samples
 * are whatever the workspace held: masked, never used), negated where negative. */
TSR__T1_AI int32_t out_value(uint32_t cw, const uint32_t k, uint32_t m, uint32_t sh)
{
    const uint32_t v = (m >> sh) & (0u - (cw >> (3 * k + 4) & 1u));
    const uint32_t neg = 0u - (cw >> (3 * k + 19) & 1u);
    return (int32_t)((v ^ neg) - neg);
}

/* Writes the output (t1.h, 3.) from the magnitudes and signs, stripe by stripe: a stripe
 * column's 4 lanes go to 4 rows. */
TSR__T1_FN void finish(const tsr__t1_block *blk, const dec *d, int32_t *out, size_t stride)
{
    const uint32_t w = blk->w, h = blk->h, s = blk->roi_shift;
    const int rev = blk->reversible;
    const uint32_t sh = rev ? 1 : 0;
    for (uint32_t st = 0; st * 4 < h; st++) {
        const uint32_t *f = d->cols + (st + 1) * d->fs + 1;
        const uint32_t *m = d->mag + (size_t)st * 4 * w;
        int32_t *o = out + (size_t)st * 4 * stride;
        const uint32_t n = st < d->nfull ? 4 : h - st * 4;
        if (s) {
            for (uint32_t k = 0; k < n; k++)
                for (uint32_t x = 0; x < w; x++) {
                    const uint32_t cw = f[x];
                    o[k * stride + x] =
                        cw >> (3 * k + 4) & 1
                            ? tsr__t1_recon(m[4 * x + k], cw >> (3 * k + 19) & 1, s, rev)
                            : 0;
                }
        } else if (n == 4) {
            for (uint32_t x = 0; x < w; x++, m += 4) {
                const uint32_t cw = f[x];
                o[x] = out_value(cw, 0, m[0], sh);
                o[stride + x] = out_value(cw, 1, m[1], sh);
                o[2 * stride + x] = out_value(cw, 2, m[2], sh);
                o[3 * stride + x] = out_value(cw, 3, m[3], sh);
            }
        } else {
            for (uint32_t k = 0; k < n; k++)
                for (uint32_t x = 0; x < w; x++)
                    o[k * stride + x] = out_value(f[x], k, m[4 * x + k], sh);
        }
    }
}

TSR__T1_FN int t1_check_block(const tsr__t1_block *blk, int32_t *out, size_t stride)
{
    if (!blk || blk->w > TSR__T1_MAX_W || blk->h > TSR__T1_MAX_H ||
        (uint64_t)blk->w * blk->h > TSR__T1_MAX_AREA || blk->orient > 3 ||
        blk->nsegs > TSR__T1_MAX_SEGS || (blk->nsegs && !blk->segs) || stride < blk->w ||
        (!out && blk->w && blk->h))
        return TSR__T1_EINVAL;
    uint64_t tot = 0;
    for (uint32_t i = 0; i < blk->nsegs; i++) {
        if (blk->segs[i].len && !blk->segs[i].data)
            return TSR__T1_EINVAL;
        tot += blk->segs[i].npasses;
    }
    if (tot != blk->npasses)
        return TSR__T1_EINVAL;
    if (blk->mb > 30 || blk->mb + blk->roi_shift > 31)
        return TSR__T1_UNSUPPORTED;
    return TSR__T1_OK;
}

/* tsr__t1_decode (t1.h) */
TSR__T1_FN int t1_decode_block(const tsr__t1_block *blk, void *wsp, size_t ws_size, int32_t *out,
                               size_t stride, unsigned *warnings)
{
    unsigned warn = 0;
    if (warnings)
        *warnings = 0;
    int rc = t1_check_block(blk, out, stride);
    if (rc != TSR__T1_OK) {
        if (rc == TSR__T1_UNSUPPORTED)
            tsr__t1_zero_out(blk, out, stride);
        return rc;
    }
    tsr__t1_ws *ws = t1_ws_align(wsp, ws_size);
    if (!ws)
        return TSR__T1_EINVAL;
    if (!blk->w || !blk->h)
        return TSR__T1_OK;
    if (blk->style & TSR__T1_STYLE_HT)
        return TSR__T1_HT_DECODE(blk, ws, out, stride, warnings);

    const int K = (int)blk->mb + (int)blk->roi_shift - (int)blk->zero_bp;
    if (K < 0 || (K == 0 && blk->npasses)) {
        tsr__t1_zero_out(blk, out, stride);
        return K < 0 ? TSR__T1_CORRUPT : TSR__T1_WARN;
    }
    uint32_t npasses = blk->npasses;
    const uint32_t maxp = K > 0 ? 3u * (uint32_t)K - 2 : 0;
    if (npasses > maxp) {
        npasses = maxp;
        warn |= TSR__T1_W_PASSES;
    }
    if (npasses == 0) {
        tsr__t1_zero_out(blk, out, stride);
        return TSR__T1_OK;
    }

    dec D;
    dec *d = &D;
    d->w = blk->w;
    d->h = blk->h;
    d->fs = blk->w + 2;
    d->nfull = blk->h / 4;
    d->cols = ws->cols;
    d->mag = ws->mag;
    d->vcausal = !!(blk->style & TSR__T1_STYLE_VCAUSAL);
    d->zc = tsr__t1_zc_lut[blk->orient];
    d->sc = tsr__t1_sc_lut;
    /* the words of every stripe incl. the two padding stripes; magnitudes are written when a
     * sample becomes significant and used only for significant ones (finish masks the others) */
    memset(ws->cols, 0, (size_t)((blk->h + 3) / 4 + 2) * d->fs * sizeof *ws->cols);
    reset_contexts(d->cx);

    const unsigned style = blk->style;
    uint32_t seg = 0, seg_left = 0;
    int raw = 0;
    int bpl = K - 1;
    for (uint32_t pass = 0; pass < npasses; pass++) {
        if (seg_left == 0) {
            while (seg < blk->nsegs && blk->segs[seg].npasses == 0)
                seg++;
            if (seg >= blk->nsegs)
                break; /* cannot happen: npasses <= sum */
            const tsr__t1_seg *sg = &blk->segs[seg++];
            seg_left = sg->npasses;
            raw = tsr__t1_pass_is_raw(style, pass);
            if (raw)
                raw_init(&d->raw, sg->data ? sg->data : (const uint8_t *)"", sg->len);
            else
                tsr__mqd_init(&d->mq, sg->data, sg->len);
        }
        seg_left--;
        const uint32_t type = pass == 0 ? 2 : (pass - 1) % 3; /* 0 SP, 1 MR, 2 CU */
        if (type == 0) {
            pass_sigprop(d, (uint32_t)bpl, raw);
        } else if (type == 1) {
            pass_magref(d, (uint32_t)bpl, raw);
        } else {
            if (!pass_cleanup(d, (uint32_t)bpl, !!(style & TSR__T1_STYLE_SEGSYM)))
                warn |= TSR__T1_W_SEGSYM;
            bpl--;
        }
        if (style & TSR__T1_STYLE_RESET)
            reset_contexts(d->cx);
    }
    finish(blk, d, out, stride);
    if (warnings)
        *warnings = warn;
    return warn ? TSR__T1_WARN : TSR__T1_OK;
}

#endif
