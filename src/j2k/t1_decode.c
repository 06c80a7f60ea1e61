/* Part-1 EBCOT code-block decoder (T.800 Annex D) and the segment rule of t1.h.
 *
 * State: one 16-bit flag word per coefficient in a (w+2) x (h+2) array with a one-coefficient
 * border, so that neighbours never need bounds checks. Each word keeps the coefficient's own
 * significance / sign / "visited in this plane" / "refined before" bits and, maintained as
 * coefficients become significant, the significance of its 8 neighbours and the signs of its
 * 4 direct neighbours; the context of any decision is then one table lookup. Magnitudes live in
 * a separate uint32 array (w x h) with ONE fractional bit: after the cleanup or SigProp pass of
 * plane b makes a coefficient significant it holds 3 << b (= 2*2^b + 2^b: the value plus half the
 * step of plane b), and every MagRef pass of plane b adds or subtracts 2^b (bit 1 / bit 0), so
 * the lowest set bit is always the half step of the last plane decoded for it (t1.h, 3.).
 * Passes scan stripes of 4 rows column by column (T.800 D.1). */
#include "j2k/t1.h"
#include "j2k/mqc.h"
#include "j2k/t1_internal.h"

#include <string.h>

uint32_t tsr__t1_segment_max_passes(unsigned style, uint32_t first, uint32_t avail,
                                    int ht_cleanup_seen)
{
    if (style & TSR__T1_STYLE_HT) {
        if (!ht_cleanup_seen) {
            if (avail == 0)
                return 1;
            return avail - (avail - 1) % 3;
        }
        switch (first % 3) {
        case 0: return 1;
        case 1: return 2;
        default: return 1;
        }
    }
    if (style & TSR__T1_STYLE_TERMALL)
        return 1;
    if (style & TSR__T1_STYLE_BYPASS) {
        if (first < 10)
            return 10 - first;
        return (first - 10) % 3 == 0 ? 2 : 1;
    }
    return TSR__T1_MAX_PASSES;
}

size_t tsr__t1_workspace_size(void)
{
    return sizeof(tsr__t1_ws) + 64;
}

tsr__t1_ws *tsr__t1_ws_align(void *ws, size_t size)
{
    uintptr_t p = (uintptr_t)ws, q = (p + 63) & ~(uintptr_t)63;
    if (!ws || size < sizeof(tsr__t1_ws) + (q - p))
        return NULL;
    return (tsr__t1_ws *)q;
}

/* ---- flags ---------------------------------------------------------------------------------- */
enum {
    F_N = 1u << 0, F_S = 1u << 1, F_W = 1u << 2, F_E = 1u << 3, /* neighbour significant */
    F_NW = 1u << 4, F_NE = 1u << 5, F_SW = 1u << 6, F_SE = 1u << 7,
    F_SIG = 1u << 8,   /* significant */
    F_VISIT = 1u << 9, /* coded in this plane's SigProp pass */
    F_REF = 1u << 10,  /* refined at least once */
    F_SGN = 1u << 11,  /* negative */
    F_NS = 1u << 12, F_SS = 1u << 13, F_WS = 1u << 14, F_ES = 1u << 15 /* neighbour negative */
};
#define F_NBR 0xFFu

/* contexts (T.800 Table D.7 numbering) */
enum { CX_ZC = 0, CX_SC = 9, CX_MR = 14, CX_RL = 17, CX_UNI = 18, CX_N = 19 };

/* Zero-coding contexts, T.800 Table D.1, indexed by orientation and the 8 neighbour bits. */
static uint8_t zc_ctx(int orient, unsigned nb)
{
    int h = !!(nb & F_W) + !!(nb & F_E), v = !!(nb & F_N) + !!(nb & F_S);
    int d = !!(nb & F_NW) + !!(nb & F_NE) + !!(nb & F_SW) + !!(nb & F_SE);
    if (orient == TSR__T1_HL) {
        int t = h;
        h = v;
        v = t;
    }
    if (orient != TSR__T1_HH) {
        if (h == 2)
            return 8;
        if (h == 1)
            return v >= 1 ? 7 : d >= 1 ? 6 : 5;
        if (v == 2)
            return 4;
        if (v == 1)
            return 3;
        return d >= 2 ? 2 : d == 1 ? 1 : 0;
    }
    int hv = h + v;
    if (d >= 3)
        return 8;
    if (d == 2)
        return hv >= 1 ? 7 : 6;
    if (d == 1)
        return hv >= 2 ? 5 : hv == 1 ? 4 : 3;
    return hv >= 2 ? 2 : hv == 1 ? 1 : 0;
}

/* Sign contexts, T.800 Table D.3: index = N,S,W,E significance (bits 0-3) | their signs (bits
 * 4-7); value = context | xor bit << 7. */
static uint8_t sc_ctx(unsigned idx)
{
    int v = 0, h = 0;
    if (idx & 1) /* N */
        v += (idx & 0x10) ? -1 : 1;
    if (idx & 2) /* S */
        v += (idx & 0x20) ? -1 : 1;
    if (idx & 4) /* W */
        h += (idx & 0x40) ? -1 : 1;
    if (idx & 8) /* E */
        h += (idx & 0x80) ? -1 : 1;
    v = v < -1 ? -1 : v > 1 ? 1 : v;
    h = h < -1 ? -1 : h > 1 ? 1 : h;
    int cx, x = 0;
    if (h == 1)
        cx = v == 1 ? 13 : v == 0 ? 12 : 11;
    else if (h == 0) {
        cx = v == 0 ? 9 : 10;
        x = v == -1;
    } else {
        cx = v == 1 ? 11 : v == 0 ? 12 : 13;
        x = 1;
    }
    return (uint8_t)(cx | x << 7);
}

typedef struct luts {
    uint8_t zc[4][256];
    uint8_t sc[256];
} luts;

static luts g_luts;
static int g_luts_ready;

static void luts_build(luts *l)
{
    for (int o = 0; o < 4; o++)
        for (unsigned i = 0; i < 256; i++)
            l->zc[o][i] = zc_ctx(o, i);
    for (unsigned i = 0; i < 256; i++)
        l->sc[i] = sc_ctx(i);
}

/* The tables are a pure function of nothing: building them twice concurrently writes the same
 * bytes, but to stay clear of data races we build them into a local copy once per call site
 * where not ready (cheap: 1.3 KB) -- see get_luts. */
static const luts *get_luts(void)
{
    if (!__atomic_load_n(&g_luts_ready, __ATOMIC_ACQUIRE)) {
        static luts tmp;
        static int lock;
        while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
            ;
        if (!g_luts_ready) {
            luts_build(&tmp);
            memcpy(&g_luts, &tmp, sizeof tmp);
            __atomic_store_n(&g_luts_ready, 1, __ATOMIC_RELEASE);
        }
        __atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
    }
    return &g_luts;
}

static void reset_contexts(uint8_t *cx)
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

static void raw_init(rawd *r, const uint8_t *data, uint32_t len)
{
    r->bp = data;
    r->end = data + len;
    r->c = 0;
    r->ct = 0;
}

static inline uint32_t raw_bit(rawd *r)
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
typedef struct dec {
    uint16_t *flags; /* at (0,0) of the padded array */
    uint32_t *mag;
    uint32_t w, h, fw; /* fw = w + 2 */
    int vcausal;
    const uint8_t *zc; /* zc table for the orientation */
    const uint8_t *sc;
    uint8_t cx[CX_N];
    tsr__mqd mq;
    rawd raw;
} dec;

/* Marks (x, y) significant with sign s (1 = negative) and tells its neighbours. */
static inline void set_sig(dec *d, uint16_t *f, uint32_t y, uint32_t s)
{
    const uint32_t fw = d->fw;
    *f |= (uint16_t)(F_SIG | (s ? F_SGN : 0));
    if (!(d->vcausal && (y & 3) == 0)) {
        f[-(ptrdiff_t)fw - 1] |= F_SE;
        f[-(ptrdiff_t)fw] |= (uint16_t)(F_S | (s ? F_SS : 0));
        f[-(ptrdiff_t)fw + 1] |= F_SW;
    }
    f[-1] |= (uint16_t)(F_E | (s ? F_ES : 0));
    f[1] |= (uint16_t)(F_W | (s ? F_WS : 0));
    f[fw - 1] |= F_NE;
    f[fw] |= (uint16_t)(F_N | (s ? F_NS : 0));
    f[fw + 1] |= F_NW;
}

#define SC_IDX(f) (((f) & 0xFu) | (((f) >> 8) & 0xF0u))

#define MQ_LOCALS(D)                                                                               \
    uint32_t a = (D)->mq.a, c = (D)->mq.c, ct = (D)->mq.ct;                                       \
    const uint8_t *bp = (D)->mq.bp, *const end = (D)->mq.end
#define MQ_SAVE(D)                                                                                 \
    do {                                                                                           \
        (D)->mq.a = a;                                                                             \
        (D)->mq.c = c;                                                                             \
        (D)->mq.ct = ct;                                                                           \
        (D)->mq.bp = bp;                                                                           \
    } while (0)
#define DEC(r, cxp) TSR__MQD_DECODE(r, cxp, a, c, ct, bp, end)

static void pass_sigprop_mq(dec *d, uint32_t bpl)
{
    MQ_LOCALS(d);
    const uint32_t w = d->w, h = d->h, fw = d->fw;
    const uint32_t v3 = 3u << bpl;
    uint8_t *cx = d->cx;
    const uint8_t *zc = d->zc, *sc = d->sc;
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        const uint32_t ye = y0 + 4 < h ? y0 + 4 : h;
        uint16_t *fcol = d->flags + (size_t)(y0 + 1) * fw + 1;
        uint32_t *mcol = d->mag + (size_t)y0 * w;
        for (uint32_t x = 0; x < w; x++, fcol++, mcol++) {
            uint16_t *f = fcol;
            uint32_t *m = mcol;
            for (uint32_t y = y0; y < ye; y++, f += fw, m += w) {
                uint32_t fl = *f;
                if ((fl & (F_SIG | F_NBR)) > 0 && (fl & (F_SIG | F_NBR)) < F_SIG) {
                    uint32_t bit;
                    DEC(bit, &cx[zc[fl & F_NBR]]);
                    if (bit) {
                        uint32_t s = sc[SC_IDX(fl)], sb;
                        DEC(sb, &cx[s & 0x1F]);
                        sb ^= s >> 7;
                        set_sig(d, f, y, sb);
                        *m = v3;
                    }
                    *f |= F_VISIT;
                }
            }
        }
    }
    MQ_SAVE(d);
}

static void pass_sigprop_raw(dec *d, uint32_t bpl)
{
    const uint32_t w = d->w, h = d->h, fw = d->fw;
    const uint32_t v3 = 3u << bpl;
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        const uint32_t ye = y0 + 4 < h ? y0 + 4 : h;
        for (uint32_t x = 0; x < w; x++) {
            uint16_t *f = d->flags + (size_t)(y0 + 1) * fw + 1 + x;
            uint32_t *m = d->mag + (size_t)y0 * w + x;
            for (uint32_t y = y0; y < ye; y++, f += fw, m += w) {
                uint32_t fl = *f;
                if ((fl & (F_SIG | F_NBR)) > 0 && (fl & (F_SIG | F_NBR)) < F_SIG) {
                    if (raw_bit(&d->raw)) {
                        set_sig(d, f, y, raw_bit(&d->raw));
                        *m = v3;
                    }
                    *f |= F_VISIT;
                }
            }
        }
    }
}

static void pass_magref_mq(dec *d, uint32_t bpl)
{
    MQ_LOCALS(d);
    const uint32_t w = d->w, h = d->h, fw = d->fw;
    const uint32_t half = 1u << bpl;
    uint8_t *cx = d->cx;
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        const uint32_t ye = y0 + 4 < h ? y0 + 4 : h;
        for (uint32_t x = 0; x < w; x++) {
            uint16_t *f = d->flags + (size_t)(y0 + 1) * fw + 1 + x;
            uint32_t *m = d->mag + (size_t)y0 * w + x;
            for (uint32_t y = y0; y < ye; y++, f += fw, m += w) {
                uint32_t fl = *f;
                if ((fl & (F_SIG | F_VISIT)) == F_SIG) {
                    uint32_t bit, k = (fl & F_REF) ? 16 : (fl & F_NBR) ? 15 : 14;
                    DEC(bit, &cx[k]);
                    *m = bit ? *m + half : *m - half;
                    *f = (uint16_t)(fl | F_REF);
                }
            }
        }
    }
    MQ_SAVE(d);
}

static void pass_magref_raw(dec *d, uint32_t bpl)
{
    const uint32_t w = d->w, h = d->h, fw = d->fw;
    const uint32_t half = 1u << bpl;
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        const uint32_t ye = y0 + 4 < h ? y0 + 4 : h;
        for (uint32_t x = 0; x < w; x++) {
            uint16_t *f = d->flags + (size_t)(y0 + 1) * fw + 1 + x;
            uint32_t *m = d->mag + (size_t)y0 * w + x;
            for (uint32_t y = y0; y < ye; y++, f += fw, m += w) {
                uint32_t fl = *f;
                if ((fl & (F_SIG | F_VISIT)) == F_SIG) {
                    *m = raw_bit(&d->raw) ? *m + half : *m - half;
                    *f = (uint16_t)(fl | F_REF);
                }
            }
        }
    }
}

/* Cleanup pass; returns the segmentation symbol check result (1 = ok) when segsym. */
static int pass_cleanup(dec *d, uint32_t bpl, int segsym)
{
    MQ_LOCALS(d);
    const uint32_t w = d->w, h = d->h, fw = d->fw;
    const uint32_t v3 = 3u << bpl;
    uint8_t *cx = d->cx;
    const uint8_t *zc = d->zc, *sc = d->sc;
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        const uint32_t ye = y0 + 4 < h ? y0 + 4 : h;
        uint16_t *fcol = d->flags + (size_t)(y0 + 1) * fw + 1;
        uint32_t *mcol = d->mag + (size_t)y0 * w;
        for (uint32_t x = 0; x < w; x++, fcol++, mcol++) {
            uint16_t *f = fcol;
            uint32_t *m = mcol;
            uint32_t y = y0;
            if (ye - y0 == 4 &&
                ((f[0] | f[fw] | f[2 * fw] | f[3 * fw]) & (F_SIG | F_VISIT | F_NBR)) == 0) {
                uint32_t bit;
                DEC(bit, &cx[CX_RL]);
                if (!bit)
                    continue;
                uint32_t r0, r1;
                DEC(r0, &cx[CX_UNI]);
                DEC(r1, &cx[CX_UNI]);
                uint32_t r = r0 << 1 | r1;
                f += r * fw;
                m += r * w;
                y += r;
                {
                    uint32_t fl = *f, s = sc[SC_IDX(fl)], sb;
                    DEC(sb, &cx[s & 0x1F]);
                    sb ^= s >> 7;
                    set_sig(d, f, y, sb);
                    *m = v3;
                }
                f += fw;
                m += w;
                y++;
            }
            for (; y < ye; y++, f += fw, m += w) {
                uint32_t fl = *f;
                if (!(fl & (F_SIG | F_VISIT))) {
                    uint32_t bit;
                    DEC(bit, &cx[zc[fl & F_NBR]]);
                    if (bit) {
                        uint32_t s = sc[SC_IDX(fl)], sb;
                        DEC(sb, &cx[s & 0x1F]);
                        sb ^= s >> 7;
                        set_sig(d, f, y, sb);
                        *m = v3;
                    }
                }
            }
            /* clear the visited bits of the column for the next plane */
            f = fcol;
            for (y = y0; y < ye; y++, f += fw)
                *f &= (uint16_t)~F_VISIT;
        }
    }
    int ok = 1;
    if (segsym) {
        uint32_t b0, b1, b2, b3;
        DEC(b0, &cx[CX_UNI]);
        DEC(b1, &cx[CX_UNI]);
        DEC(b2, &cx[CX_UNI]);
        DEC(b3, &cx[CX_UNI]);
        ok = (b0 << 3 | b1 << 2 | b2 << 1 | b3) == 0xA;
    }
    MQ_SAVE(d);
    return ok;
}

/* Writes the output (t1.h, 3.) from the magnitudes and signs. */
void tsr__t1_finish(const tsr__t1_block *blk, const uint32_t *mag, const uint16_t *flags,
                    size_t fw, uint32_t sgn_bit, int32_t *out, size_t stride)
{
    const uint32_t w = blk->w, h = blk->h, s = blk->roi_shift;
    const int rev = blk->reversible;
    for (uint32_t y = 0; y < h; y++) {
        const uint32_t *m = mag + (size_t)y * w;
        const uint16_t *f = flags + (size_t)(y + 1) * fw + 1;
        int32_t *o = out + (size_t)y * stride;
        if (!s) {
            if (rev) {
                for (uint32_t x = 0; x < w; x++) {
                    int32_t v = (int32_t)(m[x] >> 1);
                    o[x] = (f[x] & sgn_bit) ? -v : v;
                }
            } else {
                for (uint32_t x = 0; x < w; x++) {
                    int32_t v = (int32_t)m[x];
                    o[x] = (f[x] & sgn_bit) ? -v : v;
                }
            }
            continue;
        }
        for (uint32_t x = 0; x < w; x++) {
            uint32_t v = m[x];
            if (v) {
                uint32_t p = (uint32_t)__builtin_ctz(v);
                uint32_t q = (v - (1u << p)) >> 1;
                if (q >= (1u << s)) {
                    q >>= s;
                    p = p > s ? p - s : 0;
                }
                v = rev ? q + (p ? 1u << (p - 1) : 0) : 2 * q + (1u << p);
            }
            o[x] = (f[x] & sgn_bit) ? -(int32_t)v : (int32_t)v;
        }
    }
}

int tsr__t1_check_block(const tsr__t1_block *blk, int32_t *out, size_t stride)
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

void tsr__t1_zero_out(const tsr__t1_block *blk, int32_t *out, size_t stride)
{
    for (uint32_t y = 0; y < blk->h; y++)
        memset(out + (size_t)y * stride, 0, blk->w * sizeof(int32_t));
}

int tsr__t1_decode(const tsr__t1_block *blk, void *wsp, size_t ws_size, int32_t *out,
                   size_t stride, unsigned *warnings)
{
    unsigned warn = 0;
    if (warnings)
        *warnings = 0;
    int rc = tsr__t1_check_block(blk, out, stride);
    if (rc != TSR__T1_OK) {
        if (rc == TSR__T1_UNSUPPORTED)
            tsr__t1_zero_out(blk, out, stride);
        return rc;
    }
    tsr__t1_ws *ws = tsr__t1_ws_align(wsp, ws_size);
    if (!ws)
        return TSR__T1_EINVAL;
    if (!blk->w || !blk->h)
        return TSR__T1_OK;
    if (blk->style & TSR__T1_STYLE_HT)
        return tsr__ht_decode(blk, ws, out, stride, warnings);

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
    const luts *l = get_luts();
    d->w = blk->w;
    d->h = blk->h;
    d->fw = blk->w + 2;
    d->flags = ws->flags;
    d->mag = ws->mag;
    d->vcausal = !!(blk->style & TSR__T1_STYLE_VCAUSAL);
    d->zc = l->zc[blk->orient];
    d->sc = l->sc;
    memset(ws->flags, 0, (size_t)(blk->w + 2) * (blk->h + 2) * sizeof(uint16_t));
    memset(ws->mag, 0, (size_t)blk->w * blk->h * sizeof(uint32_t));
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
            if (raw)
                pass_sigprop_raw(d, (uint32_t)bpl);
            else
                pass_sigprop_mq(d, (uint32_t)bpl);
        } else if (type == 1) {
            if (raw)
                pass_magref_raw(d, (uint32_t)bpl);
            else
                pass_magref_mq(d, (uint32_t)bpl);
        } else {
            if (!pass_cleanup(d, (uint32_t)bpl, !!(style & TSR__T1_STYLE_SEGSYM)))
                warn |= TSR__T1_W_SEGSYM;
            bpl--;
        }
        if (style & TSR__T1_STYLE_RESET)
            reset_contexts(d->cx);
    }
    tsr__t1_finish(blk, ws->mag, ws->flags, d->fw, F_SGN, out, stride);
    if (warnings)
        *warnings = warn;
    return warn ? TSR__T1_WARN : TSR__T1_OK;
}
