/* Part-1 EBCOT code-block decoder (T.800 Annex D) and the segment rule of t1.h.
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

/* Zero-coding context, T.800 Table D.1, of a lane's 3 x 3 window (bit 4, itself, ignored). */
static uint8_t zc_ctx(int orient, unsigned win)
{
    int h = (win >> 3 & 1) + (win >> 5 & 1), v = (win >> 1 & 1) + (win >> 7 & 1);
    int d = (win & 1) + (win >> 2 & 1) + (win >> 6 & 1) + (win >> 8 & 1);
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

/* The sign-context index (sc_ctx) of lane k of the column word cw, with we / ew the west and
 * east columns' words (their own-sign bit of row k is the west / east neighbour's sign). */
static inline uint32_t sc_idx(uint32_t cw, const uint32_t k, uint32_t we, uint32_t ew)
{
    const uint32_t sh = 3 * k, v = cw >> sh, n = k ? v >> 12 : cw >> 14;
    return (v >> 1 & 1) | (v >> 6 & 2) | (v >> 1 & 4) | (v >> 2 & 8) | (n & 0x10) |
           (v >> 17 & 0x20) | (we >> (sh + 13) & 0x40) | (ew >> (sh + 12) & 0x80);
}

typedef struct luts {
    uint8_t zc[4][512];
    uint8_t sc[256];
} luts;

static luts g_luts;
static int g_luts_ready;

static void luts_build(luts *l)
{
    for (int o = 0; o < 4; o++)
        for (unsigned i = 0; i < 512; i++)
            l->zc[o][i] = zc_ctx(o, i);
    for (unsigned i = 0; i < 256; i++)
        l->sc[i] = sc_ctx(i);
}

/* The tables are a pure function of nothing: building them twice concurrently writes the same
 * bytes, but to stay clear of data races they are built once, under a spin lock, into a local
 * copy that is then published. */
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

#define AI static inline __attribute__((always_inline))

/* Marks lane k of the stripe column at f significant with sign s (1 = negative): its own word
 * (*cw, the caller's copy of *f, stored by the caller), the west and east words, and at a stripe
 * edge the three words of the stripe above (row 4; not when vertically causal) or below (row
 * -1). */
AI void set_sig(uint32_t *f, uint32_t *cw, const uint32_t k, const ptrdiff_t fs, uint32_t s,
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

/* Lane masks of a column word (bit 3k set where the test holds for lane k):
 * sp_lanes: insignificant with a significant neighbour (coded in SigProp);
 * mr_lanes: significant and not visited (coded in MagRef);
 * cu_lanes: neither significant nor visited (coded in cleanup). */
static inline uint32_t sp_lanes(uint32_t cw)
{
    const uint32_t t = cw & 0x3FFFFu, row = (t | t >> 1 | t >> 2) & 0x9249u; /* rows -1..4 */
    return (row | row >> 3 | row >> 6) & ~(cw >> 4) & LANE3;
}
static inline uint32_t mr_lanes(uint32_t cw)
{
    return cw >> 4 & ~(cw >> 21) & LANE3;
}
static inline uint32_t cu_lanes(uint32_t cw)
{
    return ~(cw >> 4 | cw >> 21) & LANE3;
}

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
AI void mq_sign(CTXP, mqr *R, uint32_t *f, uint32_t *cw, uint32_t *m, const uint32_t k, uint32_t v3,
                const ptrdiff_t fs, const int vc)
{
    (void)zc;
    const uint32_t s = sc[sc_idx(*cw, k, f[-1], f[1])];
    const uint32_t sb = mq_dec_bf(R, &cx[s & 0x1F]) ^ (s >> 7);
    set_sig(f, cw, k, fs, sb, vc);
    m[k] = v3;
}

/* --- significance propagation ------------------------------------------------------------------
 */
AI void sp_step(CTXP, mqr *R, uint32_t *f, uint32_t *cw, uint32_t *m, const uint32_t k, uint32_t v3,
                const ptrdiff_t fs, const int vc)
{
    const uint32_t v = *cw >> 3 * k;
    if (!(v & V_SIG) && (v & V_NBR)) {
        if (mq_dec_bf(R, &cx[zc[v & 0x1FFu]]))
            mq_sign(CTXA, R, f, cw, m, k, v3, fs, vc);
        *cw |= V_VIS << 3 * k;
    }
}

AI void sp_step_raw(dec *d, uint32_t *f, uint32_t *cw, uint32_t *m, const uint32_t k, uint32_t v3,
                    const ptrdiff_t fs, const int vc)
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

static void pass_sigprop(dec *d, uint32_t bpl, int raw)
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
static void pass_magref(dec *d, uint32_t bpl, int raw)
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
                const uint32_t sh = (uint32_t)__builtin_ctz(lanes), k = sh * 11 >> 5, v = cw >> sh;
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
AI void cu_step(CTXP, mqr *R, uint32_t *f, uint32_t *cw, uint32_t *m, const uint32_t k, uint32_t v3,
                const ptrdiff_t fs, const int vc)
{
    const uint32_t v = *cw >> 3 * k;
    if (!(v & (V_SIG | V_VIS))) {
        if (mq_dec_bf(R, &cx[zc[v & 0x1FFu]]))
            mq_sign(CTXA, R, f, cw, m, k, v3, fs, vc);
    }
}

/* Cleanup pass; returns the segmentation symbol check result (1 = ok) when segsym. Clears the
 * visited bits of every column (after its last step). */
static int pass_cleanup(dec *d, uint32_t bpl, int segsym)
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
AI int32_t out_value(uint32_t cw, const uint32_t k, uint32_t m, uint32_t sh)
{
    const uint32_t v = (m >> sh) & (0u - (cw >> (3 * k + 4) & 1u));
    const uint32_t neg = 0u - (cw >> (3 * k + 19) & 1u);
    return (int32_t)((v ^ neg) - neg);
}

/* Writes the output (t1.h, 3.) from the magnitudes and signs, stripe by stripe: a stripe
 * column's 4 lanes go to 4 rows. */
static void finish(const tsr__t1_block *blk, const dec *d, int32_t *out, size_t stride)
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
    d->fs = blk->w + 2;
    d->nfull = blk->h / 4;
    d->cols = ws->cols;
    d->mag = ws->mag;
    d->vcausal = !!(blk->style & TSR__T1_STYLE_VCAUSAL);
    d->zc = l->zc[blk->orient];
    d->sc = l->sc;
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
