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
/* clang-format off */
enum {
    F_N = 1u << 0, F_S = 1u << 1, F_W = 1u << 2, F_E = 1u << 3, /* neighbour significant */
    F_NW = 1u << 4, F_NE = 1u << 5, F_SW = 1u << 6, F_SE = 1u << 7,
    F_SIG = 1u << 8,   /* significant */
    F_VISIT = 1u << 9, /* coded in this plane's SigProp pass */
    F_REF = 1u << 10,  /* refined at least once */
    F_SGN = 1u << 11,  /* negative */
    F_NS = 1u << 12, F_SS = 1u << 13, F_WS = 1u << 14, F_ES = 1u << 15 /* neighbour negative */
};
/* clang-format on */
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
/* Layout: stripe-column major. Coefficient (x, y) lives at
 *   idx(x, y) = (y / 4 + 1) * ss + (x + 1) * 4 + (y & 3),   ss = (w + 2) * 4
 * so the 4 coefficients of a stripe column are adjacent (one 64-bit load tests them all), west /
 * east neighbours are at -4 / +4, and the north neighbour of lane 0 is lane 3 of the previous
 * stripe (-ss + 3). One padding stripe above and below and one padding column left and right
 * (plus the unused lanes of a partial last stripe) absorb every neighbour update. Magnitudes use
 * the same indices. */
typedef struct dec {
    uint16_t *flags;
    uint32_t *mag;
    uint32_t w, h, ss, nfull; /* nfull: number of full stripes */
    int vcausal;
    const uint8_t *zc; /* zc table for the orientation */
    const uint8_t *sc;
    uint8_t cx[CX_N];
    tsr__mqd mq;
    rawd raw;
} dec;

#define AI static inline __attribute__((always_inline))

/* Marks the coefficient at f (lane k of its stripe column) significant with sign s (1 =
 * negative) and tells its neighbours. */
AI void set_sig(uint16_t *f, const int k, const ptrdiff_t ss, uint32_t s, int vcausal)
{
    const ptrdiff_t up = k ? -1 : -ss + 3, dn = k != 3 ? 1 : ss - 3;
    *f |= (uint16_t)(F_SIG | (s ? F_SGN : 0));
    if (!(vcausal && k == 0)) {
        f[up - 4] |= F_SE;
        f[up] |= (uint16_t)(F_S | (s ? F_SS : 0));
        f[up + 4] |= F_SW;
    }
    f[-4] |= (uint16_t)(F_E | (s ? F_ES : 0));
    f[4] |= (uint16_t)(F_W | (s ? F_WS : 0));
    f[dn - 4] |= F_NE;
    f[dn] |= (uint16_t)(F_N | (s ? F_NS : 0));
    f[dn + 4] |= F_NW;
}

#define SC_IDX(f) (((f)&0xFu) | (((f) >> 8) & 0xF0u))

/* MQ registers as locals of a pass function */
typedef struct mqr {
    uint32_t a, c, ct;
    const uint8_t *bp, *end;
} mqr;

AI uint32_t mq_dec(mqr *r, uint8_t *cxp)
{
    uint32_t d;
    TSR__MQD_DECODE(d, cxp, r->a, r->c, r->ct, r->bp, r->end);
    return d;
}

/* the same for near-equiprobable contexts (mqc.h, TSR__MQD_DECODE_BF) */
AI uint32_t mq_dec_bf(mqr *r, uint8_t *cxp)
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

static inline uint64_t load4(const uint16_t *f)
{
    uint64_t v;
    memcpy(&v, f, 8);
    return v;
}
#define LANES(m) ((uint64_t)(m)*0x0001000100010001ull)

/* Lane tests on 4 flag words at once (bit 8 of each lane set where the test holds):
 * sp_lanes: insignificant with a significant neighbour (coded in SigProp);
 * mr_lanes: significant and not visited (coded in MagRef);
 * cu_lanes: neither significant nor visited (coded in cleanup). */
static inline uint64_t sp_lanes(uint64_t v)
{
    uint64_t nb = ((v & LANES(F_NBR)) + LANES(0xFF)) & LANES(F_SIG);
    return nb & ~v;
}
static inline uint64_t mr_lanes(uint64_t v)
{
    return v & ~(v >> 1) & LANES(F_SIG);
}
static inline uint64_t cu_lanes(uint64_t v)
{
    return ~(v | v >> 1) & LANES(F_SIG);
}

/* --- significance propagation ------------------------------------------------------------------
 */
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

AI void sp_step(CTXP, mqr *R, uint16_t *f, uint32_t *m, const int k, uint32_t v3,
                const ptrdiff_t ss, const int vc)
{
    uint32_t fl = *f;
    if ((fl & (F_SIG | F_NBR)) > 0 && (fl & (F_SIG | F_NBR)) < F_SIG) {
        if (mq_dec_bf(R, &cx[zc[fl & F_NBR]])) {
            uint32_t s = sc[SC_IDX(fl)];
            uint32_t sb = mq_dec_bf(R, &cx[s & 0x1F]) ^ (s >> 7);
            set_sig(f, k, ss, sb, vc);
            *m = v3;
        }
        *f |= F_VISIT;
    }
}

AI void sp_step_raw(dec *d, uint16_t *f, uint32_t *m, const int k, uint32_t v3, const ptrdiff_t ss,
                    const int vc)
{
    uint32_t fl = *f;
    if ((fl & (F_SIG | F_NBR)) > 0 && (fl & (F_SIG | F_NBR)) < F_SIG) {
        if (raw_bit(&d->raw)) {
            set_sig(f, k, ss, raw_bit(&d->raw), vc);
            *m = v3;
        }
        *f |= F_VISIT;
    }
}

static void pass_sigprop(dec *d, uint32_t bpl, int raw)
{
    MQ_LOAD(d);
    CTX_LOCALS(d);
    const uint32_t w = d->w, v3 = 3u << bpl;
    const ptrdiff_t ss = d->ss;
    const int vc = d->vcausal;
    for (uint32_t st = 0; st * 4 < d->h; st++) {
        uint16_t *f = d->flags + (st + 1) * ss + 4;
        uint32_t *m = d->mag + (st + 1) * ss + 4;
        if (st < d->nfull) {
            for (uint32_t x = 0; x < w; x++, f += 4, m += 4) {
                if (!sp_lanes(load4(f)))
                    continue;
                if (raw) {
                    sp_step_raw(d, f + 0, m + 0, 0, v3, ss, vc);
                    sp_step_raw(d, f + 1, m + 1, 1, v3, ss, vc);
                    sp_step_raw(d, f + 2, m + 2, 2, v3, ss, vc);
                    sp_step_raw(d, f + 3, m + 3, 3, v3, ss, vc);
                } else {
                    sp_step(CTXA, &R, f + 0, m + 0, 0, v3, ss, vc);
                    sp_step(CTXA, &R, f + 1, m + 1, 1, v3, ss, vc);
                    sp_step(CTXA, &R, f + 2, m + 2, 2, v3, ss, vc);
                    sp_step(CTXA, &R, f + 3, m + 3, 3, v3, ss, vc);
                }
            }
        } else {
            const uint32_t n = d->h - st * 4;
            for (uint32_t x = 0; x < w; x++, f += 4, m += 4) {
                if (!sp_lanes(load4(f)))
                    continue;
                for (uint32_t k = 0; k < n; k++) {
                    if (raw) {
                        if (k == 0)
                            sp_step_raw(d, f, m, 0, v3, ss, vc);
                        else if (k == 1)
                            sp_step_raw(d, f + 1, m + 1, 1, v3, ss, vc);
                        else
                            sp_step_raw(d, f + 2, m + 2, 2, v3, ss, vc);
                    } else {
                        if (k == 0)
                            sp_step(CTXA, &R, f, m, 0, v3, ss, vc);
                        else if (k == 1)
                            sp_step(CTXA, &R, f + 1, m + 1, 1, v3, ss, vc);
                        else
                            sp_step(CTXA, &R, f + 2, m + 2, 2, v3, ss, vc);
                    }
                }
            }
        }
    }
    MQ_SAVE(d);
    CTX_SAVE(d);
}

/* --- magnitude refinement ----------------------------------------------------------------------
 */
static void pass_magref(dec *d, uint32_t bpl, int raw)
{
    MQ_LOAD(d);
    CTX_LOCALS(d);
    (void)zc;
    (void)sc;
    const uint32_t w = d->w, half = 1u << bpl;
    const ptrdiff_t ss = d->ss;
    for (uint32_t st = 0; st * 4 < d->h; st++) {
        uint16_t *f = d->flags + (st + 1) * ss + 4;
        uint32_t *m = d->mag + (st + 1) * ss + 4;
        for (uint32_t x = 0; x < w; x++, f += 4, m += 4) {
            /* the lanes to refine (MagRef changes no significance, so the set is fixed; the
             * unused lanes of a partial stripe are never significant) */
            for (uint64_t lanes = mr_lanes(load4(f)); lanes; lanes &= lanes - 1) {
                const uint32_t k = (uint32_t)__builtin_ctzll(lanes) >> 4, fl = f[k];
                uint32_t bit;
                if (raw)
                    bit = raw_bit(&d->raw);
                else
                    bit = mq_dec_bf(&R, &cx[(fl & F_REF) ? 16 : 14 + !!(fl & F_NBR)]);
                m[k] = bit ? m[k] + half : m[k] - half;
                f[k] = (uint16_t)(fl | F_REF);
            }
        }
    }
    MQ_SAVE(d);
    CTX_SAVE(d);
}

/* --- cleanup ---------------------------------------------------------------------------------- */
AI void cu_sign(CTXP, mqr *R, uint16_t *f, uint32_t *m, const int k, uint32_t v3,
                const ptrdiff_t ss, const int vc)
{
    (void)zc;
    uint32_t s = sc[SC_IDX(*f)];
    uint32_t sb = mq_dec_bf(R, &cx[s & 0x1F]) ^ (s >> 7);
    set_sig(f, k, ss, sb, vc);
    *m = v3;
}

AI void cu_step(CTXP, mqr *R, uint16_t *f, uint32_t *m, const int k, uint32_t v3,
                const ptrdiff_t ss, const int vc)
{
    uint32_t fl = *f;
    if (!(fl & (F_SIG | F_VISIT))) {
        if (mq_dec_bf(R, &cx[zc[fl & F_NBR]]))
            cu_sign(CTXA, R, f, m, k, v3, ss, vc);
    }
}

/* Clears the visited bits of the stripe column at f (after its last cleanup step). */
static inline void clear_visit(uint16_t *f)
{
    const uint64_t v = load4(f) & ~LANES(F_VISIT);
    memcpy(f, &v, 8);
}

/* Cleanup pass; returns the segmentation symbol check result (1 = ok) when segsym. */
static int pass_cleanup(dec *d, uint32_t bpl, int segsym)
{
    MQ_LOAD(d);
    CTX_LOCALS(d);
    const uint32_t w = d->w, v3 = 3u << bpl;
    const ptrdiff_t ss = d->ss;
    const int vc = d->vcausal;
    const uint64_t busy = LANES(F_SIG | F_VISIT | F_NBR);
    for (uint32_t st = 0; st * 4 < d->h; st++) {
        uint16_t *f = d->flags + (st + 1) * ss + 4;
        uint32_t *m = d->mag + (st + 1) * ss + 4;
        if (st < d->nfull) {
            for (uint32_t x = 0; x < w; x++, f += 4, m += 4) {
                const uint64_t v = load4(f);
                if (!cu_lanes(v)) { /* nothing to code */
                    clear_visit(f);
                    continue;
                }
                if (!(v & busy)) {
                    if (!mq_dec(&R, &cx[CX_RL]))
                        continue;
                    uint32_t r = mq_dec(&R, &cx[CX_UNI]) << 1;
                    r |= mq_dec(&R, &cx[CX_UNI]);
                    switch (r) {
                    case 0:
                        cu_sign(CTXA, &R, f, m, 0, v3, ss, vc);
                        cu_step(CTXA, &R, f + 1, m + 1, 1, v3, ss, vc);
                        cu_step(CTXA, &R, f + 2, m + 2, 2, v3, ss, vc);
                        cu_step(CTXA, &R, f + 3, m + 3, 3, v3, ss, vc);
                        break;
                    case 1:
                        cu_sign(CTXA, &R, f + 1, m + 1, 1, v3, ss, vc);
                        cu_step(CTXA, &R, f + 2, m + 2, 2, v3, ss, vc);
                        cu_step(CTXA, &R, f + 3, m + 3, 3, v3, ss, vc);
                        break;
                    case 2:
                        cu_sign(CTXA, &R, f + 2, m + 2, 2, v3, ss, vc);
                        cu_step(CTXA, &R, f + 3, m + 3, 3, v3, ss, vc);
                        break;
                    default: cu_sign(CTXA, &R, f + 3, m + 3, 3, v3, ss, vc); break;
                    }
                    continue;
                }
                cu_step(CTXA, &R, f + 0, m + 0, 0, v3, ss, vc);
                cu_step(CTXA, &R, f + 1, m + 1, 1, v3, ss, vc);
                cu_step(CTXA, &R, f + 2, m + 2, 2, v3, ss, vc);
                cu_step(CTXA, &R, f + 3, m + 3, 3, v3, ss, vc);
                clear_visit(f);
            }
        } else {
            const uint32_t n = d->h - st * 4;
            for (uint32_t x = 0; x < w; x++, f += 4, m += 4) {
                cu_step(CTXA, &R, f, m, 0, v3, ss, vc);
                if (n > 1)
                    cu_step(CTXA, &R, f + 1, m + 1, 1, v3, ss, vc);
                if (n > 2)
                    cu_step(CTXA, &R, f + 2, m + 2, 2, v3, ss, vc);
                clear_visit(f);
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

/* One output value without ROI: the magnitude (with its fractional bit dropped when reversible)
 * where the flags say significant, else 0 (the magnitudes of insignificant coefficients are
 * whatever the workspace held: masked, never used), negated where negative. */
AI int32_t out_value(uint32_t fl, uint32_t m, uint32_t sh)
{
    const uint32_t v = (m >> sh) & (0u - ((fl >> 8) & 1u)), neg = 0u - ((fl >> 11) & 1u);
    return (int32_t)((v ^ neg) - neg);
}

/* Writes the output (t1.h, 3.) from the magnitudes and signs, stripe by stripe: a stripe
 * column's 4 lanes go to 4 rows. */
static void finish(const tsr__t1_block *blk, const dec *d, int32_t *out, size_t stride)
{
    const uint32_t w = blk->w, h = blk->h, s = blk->roi_shift;
    const int rev = blk->reversible;
    if (s) {
        for (uint32_t y = 0; y < h; y++) {
            const uint16_t *f = d->flags + (y / 4 + 1) * d->ss + 4 + (y & 3);
            const uint32_t *m = d->mag + (y / 4 + 1) * d->ss + 4 + (y & 3);
            int32_t *o = out + (size_t)y * stride;
            for (uint32_t x = 0; x < w; x++) {
                uint32_t fl = f[4 * x];
                o[x] = (fl & F_SIG) ? tsr__t1_recon(m[4 * x], fl & F_SGN, s, rev) : 0;
            }
        }
        return;
    }
    const uint32_t sh = rev ? 1 : 0;
    for (uint32_t st = 0; st * 4 < h; st++) {
        const uint16_t *f = d->flags + (st + 1) * d->ss + 4;
        const uint32_t *m = d->mag + (st + 1) * d->ss + 4;
        int32_t *o = out + (size_t)st * 4 * stride;
        if (st < d->nfull) {
            for (uint32_t x = 0; x < w; x++, f += 4, m += 4) {
                o[x] = out_value(f[0], m[0], sh);
                o[stride + x] = out_value(f[1], m[1], sh);
                o[2 * stride + x] = out_value(f[2], m[2], sh);
                o[3 * stride + x] = out_value(f[3], m[3], sh);
            }
        } else {
            for (uint32_t k = 0; k < h - st * 4; k++)
                for (uint32_t x = 0; x < w; x++)
                    o[k * stride + x] = out_value(f[4 * x + k], m[4 * x + k], sh);
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

int tsr__t1_decode(const tsr__t1_block *blk, void *wsp, size_t ws_size, int32_t *out, size_t stride,
                   unsigned *warnings)
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
    d->ss = (blk->w + 2) * 4;
    d->nfull = blk->h / 4;
    d->flags = ws->flags;
    d->mag = ws->mag;
    d->vcausal = !!(blk->style & TSR__T1_STYLE_VCAUSAL);
    d->zc = l->zc[blk->orient];
    d->sc = l->sc;
    /* flags of every stripe incl. the two padding stripes; magnitudes are written when a
     * coefficient becomes significant and used only for significant ones (finish masks the
     * others) */
    memset(ws->flags, 0, (size_t)((blk->h + 3) / 4 + 2) * d->ss * sizeof(uint16_t));
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
