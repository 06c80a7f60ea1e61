/* The fast-nonstandard block coder's per-block code (format and contract: fast_coder.h),
 * TSR_HD functions over one code-block for the host (fast_coder.c) and a device: the range
 * coder, the contexts from the neighbour masks, one stripe's encoder and the block decoder
 * that runs a plane's stripes side by side. Only for inclusion by those files. */
#ifndef TSR_J2K_FAST_CODER_HD_H
#define TSR_J2K_FAST_CODER_HD_H

#include "core/hd.h"
#include "j2k/t1.h"

#include <stddef.h>
#include <stdint.h>

#define FNS_PROB_BITS 15
#define FNS_PROB_ONE (1u << FNS_PROB_BITS)
#define FNS_ADAPT 5
#define FNS_TOP (1u << 24)
#define FNS_NCTX 17 /* 9 zero coding, 5 sign, 3 refinement */
#define FNS_SC0 9
#define FNS_MR0 14
#define FNS_STRIPE_H 8 /* rows a stripe */
#define FNS_MAX_STRIPES (TSR__T1_MAX_H / FNS_STRIPE_H)
#define FNS_RATE0 3 /* the adaptation rate of a context's first 8 decisions */

/* A context's adaptive probability (of a 0, in 1/2048) and how many decisions it has seen:
 * it moves by 2^-r of the distance to the decision, r = min(FNS_RATE0 + n / 8, FNS_ADAPT) with
 * n the decisions before (fast at first: each stripe's contexts start afresh), and stays
 * within [31, 2048 - 31]. */
typedef struct fns_prob {
    uint16_t p;
    uint16_t n;
} fns_prob;
/* Each context's starting probability of a 0, in 1/256 (zero coding by label: the more
 * significant neighbours, the likelier a 1; signs and refinement even). */
TSR_HD void fns_prob_init(fns_prob *c, uint32_t ctx)
{
    const uint8_t start[FNS_NCTX] = {250, 232, 220, 210, 200, 200, 190, 180, 160,
                                     128, 128, 128, 128, 128, 140, 128, 128};
    c->p = (uint16_t)((uint32_t)start[ctx] << (FNS_PROB_BITS - 8));
    c->n = 0;
}
TSR_HD void fns_prob_update(fns_prob *c, uint32_t bit)
{
    const uint32_t r = FNS_RATE0 + c->n / 8u < FNS_ADAPT ? FNS_RATE0 + c->n / 8u : FNS_ADAPT;
    uint32_t p = c->p;
    if (!bit)
        p += (FNS_PROB_ONE - p) >> r;
    else
        p -= p >> r;
    c->p = (uint16_t)(p < 31 ? 31 : p > FNS_PROB_ONE - 31 ? FNS_PROB_ONE - 31 : p);
    if (c->n < 255)
        c->n++;
}

/* ---- contexts ------------------------------------------------------------------------------
 * Neighbour mask bits: W, E, N, S, NW, NE, SW, SE (a neighbour outside the block counts as
 * not significant). */
TSR_HD uint32_t fns_popc(uint32_t v)
{
    v = (v & 0x55u) + ((v >> 1) & 0x55u); /* 8 bits: the masks' */
    v = (v & 0x33u) + ((v >> 2) & 0x33u);
    return (v & 0x0Fu) + (v >> 4);
}

/* T.800 Table D.1's zero-coding label from the significance counts of the horizontal (h),
 * vertical (v) and diagonal (d) neighbours; HL swaps h and v, HH weighs the diagonals. */
TSR_HD uint32_t fns_zc(uint32_t orient, uint32_t mask)
{
    uint32_t h = fns_popc(mask & 3u), v = fns_popc((mask >> 2) & 3u), d = fns_popc(mask >> 4);
    if (orient == TSR__T1_HL) {
        const uint32_t t = h;
        h = v;
        v = t;
    }
    if (orient == TSR__T1_HH) {
        const uint32_t hv = h + v;
        if (d >= 3)
            return 8;
        if (d == 2)
            return hv ? 7 : 6;
        if (d == 1)
            return hv >= 2 ? 5 : hv == 1 ? 4 : 3;
        return hv >= 2 ? 2 : hv;
    }
    if (h == 2)
        return 8;
    if (h == 1)
        return v ? 7 : d ? 6 : 5;
    if (v)
        return v == 2 ? 4 : 3;
    return d >= 2 ? 2 : d;
}

/* The zero-coding look-up table of an orientation: lut[mask] = fns_zc(orient, mask). */
TSR_HD void fns_zc_table(uint32_t orient, uint8_t *lut)
{
    for (uint32_t m = 0; m < 256; m++)
        lut[m] = (uint8_t)fns_zc(orient, m);
}

/* Sign context (0..4, Table D.3's labels 9..13) and flip bit from the direct neighbours'
 * contributions: +1 significant and positive, -1 significant and negative, 0 otherwise. */
TSR_HD uint32_t fns_sc(int cw, int ce, int cn, int cs, uint32_t *flip)
{
    int hc = cw + ce, vc = cn + cs;
    hc = hc > 1 ? 1 : hc < -1 ? -1 : hc;
    vc = vc > 1 ? 1 : vc < -1 ? -1 : vc;
    *flip = 0;
    if (hc < 0 || (hc == 0 && vc < 0)) {
        hc = -hc;
        vc = -vc;
        *flip = 1;
    }
    return hc == 0 ? (uint32_t)vc : (uint32_t)(3 + vc);
}

/* What coefficient (x, y) of v (signed values, stride apart, w x h) sees of its neighbours at
 * plane p, in the stripe of rows y0 .. y1 - 1: the significance mask and, through fns_sc, the
 * sign context. A neighbour coded before it in this plane (W always; N, NW and SW when in
 * the stripe) counts as significant with its magnitude >> p, any other with its magnitude
 * >> (p + 1): the state after plane p + 1, which another stripe's decoder, adding its plane
 * p bits to v meanwhile, does not change. */
TSR_HD int fns_contrib(int32_t c, uint32_t shift)
{
    const uint32_t m = (uint32_t)(c < 0 ? -(int64_t)c : c);
    return (m >> shift) ? (c < 0 ? -1 : 1) : 0;
}
TSR_HD uint32_t fns_neighbours(const int32_t *v, size_t stride, uint32_t w, uint32_t h, uint32_t x,
                               uint32_t y, uint32_t p, uint32_t y0, uint32_t y1, uint32_t *sc,
                               uint32_t *flip)
{
    const int32_t *row = v + (size_t)y * stride;
    const uint32_t after = p + 1, up_s = y > y0 ? p : after, dn_s = y + 1 < y1 ? p : after;
    const int cw = x > 0 ? fns_contrib(row[x - 1], p) : 0;
    const int ce = x + 1 < w ? fns_contrib(row[x + 1], after) : 0;
    int cn = 0, cs = 0, nw = 0, ne = 0, sw = 0, se = 0;
    if (y > 0) {
        const int32_t *up = row - stride;
        cn = fns_contrib(up[x], up_s);
        nw = x > 0 && fns_contrib(up[x - 1], up_s);
        ne = x + 1 < w && fns_contrib(up[x + 1], after);
    }
    if (y + 1 < h) {
        const int32_t *dn = row + stride;
        cs = fns_contrib(dn[x], after);
        sw = x > 0 && fns_contrib(dn[x - 1], dn_s);
        se = x + 1 < w && fns_contrib(dn[x + 1], after);
    }
    *sc = fns_sc(cw, ce, cn, cs, flip);
    return (uint32_t)(cw != 0) | (uint32_t)(ce != 0) << 1 | (uint32_t)(cn != 0) << 2 |
           (uint32_t)(cs != 0) << 3 | (uint32_t)nw << 4 | (uint32_t)ne << 5 | (uint32_t)sw << 6 |
           (uint32_t)se << 7;
}

/* ---- range encoder (one stripe segment) --------------------------------------------------- */
typedef struct fns_enc {
    uint64_t low;
    uint32_t range;
    uint32_t pending; /* bytes held back: the cache and the 0xFF bytes after it */
    uint8_t cache;
    uint8_t started; /* the first byte (always 0) has been left out */
    uint8_t *out;
    size_t len, cap;
    int over;
    fns_prob prob[FNS_NCTX];
} fns_enc;

TSR_HD void fns_enc_init(fns_enc *e, uint8_t *out, size_t cap)
{
    e->low = 0;
    e->range = 0xFFFFFFFFu;
    e->pending = 1;
    e->cache = 0;
    e->started = 0;
    e->out = out;
    e->len = 0;
    e->cap = cap;
    e->over = 0;
    for (int i = 0; i < FNS_NCTX; i++)
        fns_prob_init(&e->prob[i], (uint32_t)i);
}
TSR_HD void fns_emit(fns_enc *e, uint32_t byte)
{
    if (!e->started) {
        e->started = 1;
        return;
    }
    if (e->len < e->cap)
        e->out[e->len++] = (uint8_t)byte;
    else
        e->over = 1;
}
TSR_HD void fns_shift_low(fns_enc *e)
{
    if ((uint32_t)e->low < 0xFF000000u || (e->low >> 32) != 0) {
        const uint32_t carry = (uint32_t)(e->low >> 32);
        uint32_t b = e->cache;
        do {
            fns_emit(e, (b + carry) & 0xFFu);
            b = 0xFF;
        } while (--e->pending != 0);
        e->cache = (uint8_t)(e->low >> 24);
    }
    e->pending++;
    e->low = (e->low & 0x00FFFFFFu) << 8;
}
TSR_HD void fns_encode(fns_enc *e, uint32_t ctx, uint32_t bit)
{
    const uint32_t bound = (e->range >> FNS_PROB_BITS) * e->prob[ctx].p;
    if (!bit) {
        e->range = bound;
    } else {
        e->low += bound;
        e->range -= bound;
    }
    fns_prob_update(&e->prob[ctx], bit);
    while (e->range < FNS_TOP) {
        e->range <<= 8;
        fns_shift_low(e);
    }
}
/* Ends the segment with the fewest bytes whose value, followed by zeros, lies in the final
 * interval, and drops trailing zero bytes (the decoder reads zeros past the end). */
TSR_HD void fns_enc_finish(fns_enc *e)
{
    uint32_t s = 32;
    for (;; s -= 8) {
        const uint64_t unit = (uint64_t)1 << s, v = (e->low + unit - 1) & ~(unit - 1);
        if (v < e->low + e->range || s == 0) {
            e->low = v;
            break;
        }
    }
    for (uint32_t k = 0; k <= (32 - s) / 8; k++)
        fns_shift_low(e);
    while (e->len && e->out[e->len - 1] == 0)
        e->len--;
}

/* Bytes that always hold one stripe's segment of a block w wide with K bit-planes (a decision
 * narrows the range by at most 2^-7, so at most 7/8 byte each; two decisions per coefficient
 * and plane; 5 flush bytes). */
TSR_HD size_t fns_stripe_room(uint32_t w, uint32_t K)
{
    return (size_t)w * FNS_STRIPE_H * K * 3 + 8;
}

/* Codes stripe s of the block (fast_coder.h: every plane's decisions of its rows; coef's rows
 * stride apart) into e. */
TSR_HD void fns_encode_stripe(fns_enc *e, const int32_t *coef, size_t stride, uint32_t w,
                              uint32_t h, uint32_t K, uint32_t s, const uint8_t *zc)
{
    const uint32_t y0 = FNS_STRIPE_H * s, y1 = y0 + FNS_STRIPE_H < h ? y0 + FNS_STRIPE_H : h;
    for (uint32_t p = K; p-- > 0;)
        for (uint32_t x = 0; x < w; x++)
            for (uint32_t y = y0; y < y1; y++) {
                const int32_t c = coef[(size_t)y * stride + x];
                const uint32_t m = (uint32_t)(c < 0 ? -(int64_t)c : c), hi = m >> (p + 1),
                               bit = (m >> p) & 1u;
                uint32_t sc, flip;
                const uint32_t mask =
                    fns_neighbours(coef, stride, w, h, x, y, p, y0, y1, &sc, &flip);
                if (hi) {
                    fns_encode(e, FNS_MR0 + (hi == 1 ? (mask != 0) : 2u), bit);
                    continue;
                }
                fns_encode(e, zc[mask], bit);
                if (bit)
                    fns_encode(e, FNS_SC0 + sc, (uint32_t)(c < 0) ^ flip);
            }
    fns_enc_finish(e);
}

/* ---- range decoder and the block decoder ---------------------------------------------------- */
typedef struct fns_dec {
    const uint8_t *data;
    uint32_t len, pos;
    uint32_t range, code;
    fns_prob prob[FNS_NCTX];
} fns_dec;

TSR_HD uint32_t fns_next(fns_dec *d)
{
    return d->pos < d->len ? d->data[d->pos++] : 0u;
}
TSR_HD void fns_dec_init(fns_dec *d, const uint8_t *data, uint32_t len)
{
    d->data = data;
    d->len = len;
    d->pos = 0;
    d->range = 0xFFFFFFFFu;
    d->code = 0;
    for (int i = 0; i < 4; i++)
        d->code = d->code << 8 | fns_next(d);
    for (int i = 0; i < FNS_NCTX; i++)
        fns_prob_init(&d->prob[i], (uint32_t)i);
}
TSR_HD uint32_t fns_decode(fns_dec *d, uint32_t ctx)
{
    const uint32_t bound = (d->range >> FNS_PROB_BITS) * d->prob[ctx].p;
    uint32_t bit;
    if (d->code < bound) {
        d->range = bound;
        bit = 0;
    } else {
        d->code -= bound;
        d->range -= bound;
        bit = 1;
    }
    fns_prob_update(&d->prob[ctx], bit);
    while (d->range < FNS_TOP) {
        d->range <<= 8;
        d->code = d->code << 8 | fns_next(d);
    }
    return bit;
}

/* Plane p of stripe s: adds bit p (and signs) to v, which holds the planes above. */
TSR_HD void fns_decode_stripe_plane(fns_dec *d, int32_t *v, size_t stride, uint32_t w, uint32_t h,
                                    uint32_t s, uint32_t p, const uint8_t *zc)
{
    const uint32_t y0 = FNS_STRIPE_H * s, y1 = y0 + FNS_STRIPE_H < h ? y0 + FNS_STRIPE_H : h;
    for (uint32_t x = 0; x < w; x++)
        for (uint32_t y = y0; y < y1; y++) {
            int32_t *c = v + (size_t)y * stride + x;
            const uint32_t m = (uint32_t)(*c < 0 ? -(int64_t)*c : *c), hi = m >> (p + 1);
            uint32_t sc, flip;
            const uint32_t mask = fns_neighbours(v, stride, w, h, x, y, p, y0, y1, &sc, &flip);
            if (hi) {
                if (fns_decode(d, FNS_MR0 + (hi == 1 ? (mask != 0) : 2u)))
                    *c += *c < 0 ? -(int32_t)(1u << p) : (int32_t)(1u << p);
                continue;
            }
            if (!fns_decode(d, zc[mask]))
                continue;
            const uint32_t neg = fns_decode(d, FNS_SC0 + sc) ^ flip;
            *c = neg ? -(int32_t)(1u << p) : (int32_t)(1u << p);
        }
}

/* Reads the stripe lengths: 0, or TSR__T1_CORRUPT when they do not fit in len bytes. */
TSR_HD int fns_read_lengths(const uint8_t *data, uint32_t len, uint32_t S, uint32_t *off,
                            uint32_t *seglen)
{
    uint32_t pos = 0, sum = 0;
    for (uint32_t s = 0; s + 1 < S; s++) {
        uint32_t v = 0, k = 0;
        for (;; k++) {
            if (k == 3 || pos >= len)
                return TSR__T1_CORRUPT;
            const uint32_t b = data[pos++];
            v |= (b & 0x7Fu) << (7 * k);
            if (!(b & 0x80u))
                break;
        }
        seglen[s] = v;
        sum += v;
        if (sum > len)
            return TSR__T1_CORRUPT;
    }
    if (sum > len - pos)
        return TSR__T1_CORRUPT;
    for (uint32_t s = 0; s + 1 < S; s++) {
        off[s] = pos;
        pos += seglen[s];
    }
    off[S - 1] = pos;
    seglen[S - 1] = len - pos;
    return 0;
}

/* The decoder's workspace: a coder per stripe and the zero-coding table. */
typedef struct fns_ws {
    fns_dec dec[FNS_MAX_STRIPES];
    uint32_t off[FNS_MAX_STRIPES], seglen[FNS_MAX_STRIPES];
    uint8_t zc[256];
} fns_ws;

/* tsr__fns_decode (fast_coder.h) */
TSR_HD int fns_decode_block(const tsr__t1_block *blk, void *ws, size_t ws_size, int32_t *out,
                            size_t stride)
{
    const uint32_t w = blk->w, h = blk->h;
    const size_t skip = (16 - ((uintptr_t)ws & 15)) & 15; /* any alignment: fns_ws's inside */
    if (w > TSR__T1_MAX_W || h > TSR__T1_MAX_H || (size_t)w * h > TSR__T1_MAX_AREA ||
        ws_size < sizeof(fns_ws) + skip || stride < w)
        return TSR__T1_EINVAL;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            out[(size_t)y * stride + x] = 0;
    if (!w || !h || blk->npasses == 0)
        return TSR__T1_OK;
    if (blk->roi_shift)
        return TSR__T1_UNSUPPORTED;
    if (blk->mb > 30)
        return TSR__T1_UNSUPPORTED;
    if (blk->npasses != 1 || blk->nsegs != 1 || blk->segs[0].npasses != 1 || blk->zero_bp > blk->mb)
        return TSR__T1_CORRUPT;
    const uint32_t K = (uint32_t)blk->mb - blk->zero_bp, S = (h + FNS_STRIPE_H - 1) / FNS_STRIPE_H;
    fns_ws *W = (fns_ws *)(void *)((char *)ws + skip);
    if (fns_read_lengths(blk->segs[0].data, blk->segs[0].len, S, W->off, W->seglen))
        return TSR__T1_CORRUPT;
    fns_zc_table(blk->orient, W->zc);
    for (uint32_t s = 0; s < S; s++) /* a device: one thread a stripe */
        fns_dec_init(&W->dec[s], blk->segs[0].data + W->off[s], W->seglen[s]);
    for (uint32_t p = K; p-- > 0;) /* a device: a barrier after each plane */
        for (uint32_t s = 0; s < S; s++)
            fns_decode_stripe_plane(&W->dec[s], out, stride, w, h, s, p, W->zc);
    if (!blk->reversible) /* t1.h section 3: one fractional bit, r = 1/2 at plane 0 */
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++) {
                int32_t *c = out + (size_t)y * stride + x;
                *c = *c < 0 ? 2 * *c - 1 : *c > 0 ? 2 * *c + 1 : 0;
            }
    return TSR__T1_OK;
}

#endif
