/* Tier-1 tests: the MQ decoder against the library's MQ encoder (mqc_encode.c, T.800 C.2), and
 * its branch-free decision form in lockstep with the branchy one; EBCOT round trips through the
 * library's Part 1 block encoder (t1_encode.c, T.800 Annex D) for random code-blocks of
 * many sizes, every orientation and every combination of the six Part-1 style bits, truncated
 * after every pass (workspace and output poisoned before each decode); ROI maxshift;
 * truncation of the data at every byte offset and garbage data (run under ASan/UBSan in the
 * sanitizer build); the segment rule against Table D.9.
 * HT (T.814): the CxtVLC rows of Annex C (complete prefix codes, consistent fields) and the
 * generated lookup table; the HT block decoder on garbage code-blocks of every shape (random
 * cleanup / refinement segments, placeholder passes, Scup valid or not, ROI, vertically causal)
 * and every truncation of garbage blocks that it accepted as consistent: no out-of-bounds access
 * (exact-size heap copies, ASan), every output sample written, nothing written outside w x h. */
#include "j2k/ht_cxtvlc.h"
#include "j2k/ht_vlc_lut.h"
#include "j2k/t1_ctx_lut.h"
#include "j2k/mqc.h"
#include "j2k/t1.h"
#include "j2k/t1_encode.h"
#include "ht_random_block.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static void test_mq_roundtrip(tsr_rng *rng)
{
    enum { N = 20000 };
    static uint8_t buf[N * 2 + 64];
    static uint8_t syms[N], cxs[N];
    for (int trial = 0; trial < 200; trial++) {
        int ncx = 1 + tsr_rng_range(rng, 0, 18);
        uint8_t ecx[19], dcx[19];
        int prob[19];
        for (int i = 0; i < ncx; i++) {
            /* every state and MPS as a starting point over the trials */
            int st = (trial * 19 + i) % 47;
            ecx[i] = dcx[i] = TSR__MQC_CX(st, (trial + i) & 1);
            prob[i] = tsr_rng_range(rng, 0, 1000);
        }
        int n = tsr_rng_range(rng, 0, N);
        for (int i = 0; i < n; i++) {
            cxs[i] = (uint8_t)tsr_rng_range(rng, 0, ncx - 1);
            syms[i] = tsr_rng_range(rng, 0, 999) < prob[cxs[i]];
        }
        tsr__mqe e;
        tsr__mqe_init(&e, buf, sizeof buf);
        for (int i = 0; i < n; i++)
            tsr__mqe_encode(&e, &ecx[cxs[i]], syms[i]);
        uint32_t len = tsr__mqe_flush(&e);
        CHECK(buf[0] == 0);
        /* decode from an exact-size heap copy so that ASan sees any overread */
        uint8_t *copy = malloc(len ? len : 1);
        memcpy(copy, e.start, len);
        tsr__mqd d;
        tsr__mqd_init(&d, copy, len);
        int bad = 0;
        for (int i = 0; i < n; i++)
            bad += tsr__mqd_decode(&d, &dcx[cxs[i]]) != syms[i];
        CHECK(bad == 0);
        for (int i = 0; i < ncx; i++)
            CHECK(ecx[i] == dcx[i]);
        /* keep decoding past the end: stays in bounds */
        for (int i = 0; i < 1000; i++)
            (void)tsr__mqd_decode(&d, &dcx[0]);
        CHECK(d.bp <= copy + len);
        free(copy);
    }
}

/* TSR__MQD_DECODE_BF (the branch-free decision) in lockstep with TSR__MQD_DECODE: the same
 * decision, context byte and registers after every step, on encoder output, on random bytes
 * (0xFF runs, marker-like pairs), and running past the end of the data. */
static int mqd_decode_bf(tsr__mqd *d, uint8_t *cx)
{
    uint32_t a = d->a, c = d->c, ct = d->ct;
    const uint8_t *bp = d->bp, *end = d->end;
    int r;
    TSR__MQD_DECODE_BF(r, cx, a, c, ct, bp, end);
    d->a = a;
    d->c = c;
    d->ct = ct;
    d->bp = bp;
    return r;
}

static void test_mq_branch_free(tsr_rng *rng)
{
    enum { N = 6000 };
    static uint8_t buf[N * 2 + 64];
    long steps = 0, bad = 0;
    for (int trial = 0; trial < 400; trial++) {
        uint8_t cx1[19], cx2[19];
        int prob[19];
        for (int i = 0; i < 19; i++) {
            cx1[i] = cx2[i] = TSR__MQC_CX((trial * 19 + i) % 47, (trial + i) & 1);
            prob[i] = tsr_rng_range(rng, 0, 1000);
        }
        uint32_t len;
        const uint8_t *src;
        if (trial % 2 == 0) { /* encoder output */
            tsr__mqe e;
            tsr__mqe_init(&e, buf, sizeof buf);
            int n = tsr_rng_range(rng, 0, N);
            uint8_t ecx[19];
            memcpy(ecx, cx1, sizeof ecx);
            for (int i = 0; i < n; i++) {
                int k = tsr_rng_range(rng, 0, 18);
                tsr__mqe_encode(&e, &ecx[k], tsr_rng_range(rng, 0, 999) < prob[k]);
            }
            len = tsr__mqe_flush(&e);
            src = e.start;
        } else { /* garbage */
            len = (uint32_t)tsr_rng_range(rng, 0, 400);
            tsr_rng_fill(rng, buf, len);
            for (uint32_t i = 0; i + 1 < len; i++)
                if (tsr_rng_range(rng, 0, 7) == 0)
                    buf[i] = 0xFF;
            src = buf;
        }
        uint8_t *copy = malloc(len ? len : 1);
        memcpy(copy, src, len);
        tsr__mqd d1, d2;
        tsr__mqd_init(&d1, copy, len);
        d2 = d1;
        const int n = (int)len * 12 + 200;
        for (int i = 0; i < n; i++) {
            int k = tsr_rng_range(rng, 0, 18);
            int r1 = tsr__mqd_decode(&d1, &cx1[k]), r2 = mqd_decode_bf(&d2, &cx2[k]);
            bad += r1 != r2 || cx1[k] != cx2[k] || d1.a != d2.a || d1.c != d2.c || d1.ct != d2.ct ||
                   d1.bp != d2.bp;
            steps++;
        }
        free(copy);
    }
    printf("mq branch-free: %ld decisions in lockstep, %ld differences\n", steps, bad);
    CHECK(bad == 0);
}

/* Expected output after the first np passes (t1.h, 3.). */
static int32_t expect(const tsr__t1_enc *e, int i, int np, int roi, int rev)
{
    if (e->sig_pass[i] >= np)
        return 0;
    uint32_t q = (uint32_t)(e->coef[i] < 0 ? -e->coef[i] : e->coef[i]);
    int bs = 31 - __builtin_clz(q);
    int p = bs;
    for (int b = bs - 1; b >= 0; b--) {
        int mrpass = 3 * e->K - 3 * b - 4;
        if (mrpass < np)
            p = b;
    }
    q &= ~((1u << p) - 1);
    if (roi && q >= (1u << roi)) {
        q >>= roi;
        p = p > roi ? p - roi : 0;
    }
    uint32_t v = rev ? q + (p ? 1u << (p - 1) : 0) : 2 * q + (1u << p);
    return e->coef[i] < 0 ? -(int32_t)v : (int32_t)v;
}

static void *g_ws;
static size_t g_wss;

static int decode_np(const tsr__t1_enc *e, int np, int roi, int mb, int zbp, int rev, int32_t *out,
                     size_t stride, tsr__t1_seg *segs, unsigned *warn)
{
    /* segments holding the first np passes */
    int ns = 0, left = np;
    for (int s = 0; s < e->nsegs && left > 0; s++) {
        segs[ns] = e->segs[s];
        if ((int)segs[ns].npasses > left)
            segs[ns].npasses = (uint32_t)left;
        left -= (int)segs[ns].npasses;
        ns++;
    }
    /* poisoned workspace (its magnitudes are read only where the flags say significant) and
     * output rows (every sample must be written) */
    memset(g_ws, 0xA5, g_wss);
    for (int y = 0; y < e->h; y++)
        for (size_t x = 0; x < (size_t)e->w; x++)
            out[(size_t)y * stride + x] = 0x55555555;
    tsr__t1_block blk = {.w = (uint32_t)e->w,
                         .h = (uint32_t)e->h,
                         .orient = (uint8_t)e->orient,
                         .style = (uint8_t)e->style,
                         .zero_bp = (uint8_t)zbp,
                         .mb = (uint8_t)mb,
                         .roi_shift = (uint8_t)roi,
                         .reversible = (uint8_t)rev,
                         .npasses = (uint32_t)np,
                         .nsegs = (uint32_t)ns,
                         .segs = segs};
    return tsr__t1_decode(&blk, g_ws, g_wss, out, stride, warn);
}

static void gen_coefs(tsr_rng *rng, int32_t *c, int n, int K, int roi)
{
    int kind = tsr_rng_range(rng, 0, 3);
    for (int i = 0; i < n; i++) {
        int32_t v = 0;
        int r = tsr_rng_range(rng, 0, 99);
        int zero_pct = kind == 0 ? 90 : kind == 1 ? 50 : kind == 2 ? 10 : 99;
        if (r >= zero_pct) {
            int bits = tsr_rng_range(rng, 1, roi ? (roi < K - roi ? roi : K - roi) : K);
            if (roi && tsr_rng_range(rng, 0, 1)) {
                /* ROI coefficient: magnitude of up to K - roi bits, shifted up */
                v = (int32_t)((uint32_t)tsr_rng_range(rng, 1, (1 << bits) - 1) << roi);
                if ((uint32_t)v >= (1u << K))
                    v = 1 << roi;
            } else {
                v = (int32_t)tsr_rng_range(rng, 1, (1 << bits) - 1);
            }
            if (tsr_rng_range(rng, 0, 1))
                v = -v;
        }
        c[i] = v;
    }
}

static void test_ebcot(tsr_rng *rng)
{
    /* 819x5: the most Part-1 column words (t1_internal.h) */
    static const int sizes[][2] = {{1, 1},    {1, 5},    {5, 1},    {2, 3},    {3, 4},    {4, 4},
                                   {7, 9},    {8, 8},    {13, 6},   {16, 16},  {17, 5},   {32, 32},
                                   {33, 31},  {64, 64},  {1024, 4}, {4, 1024}, {1, 1024}, {1024, 1},
                                   {128, 32}, {16, 256}, {819, 5}};
    static int32_t coef[TSR__T1_MAX_AREA];
    static int32_t out[1030 * 1030];
    static uint8_t buf[1 << 20];
    static tsr__t1_enc E;
    static int sig_pass[TSR__T1_MAX_AREA]; /* the pass that made each coefficient significant */
    E.sig_pass = sig_pass;
    tsr__t1_seg segs[TSR__T1_MAX_SEGS];
    int cases = 0, bad_blocks = 0, decodes = 0;
    for (int style = 0; style < 64; style++) {
        for (int si = 0; si < (int)(sizeof sizes / sizeof sizes[0]); si++) {
            tsr__t1_enc *e = &E;
            e->w = sizes[si][0];
            e->h = sizes[si][1];
            /* big blocks only for some styles, to keep the run short */
            if (e->w * e->h > 1024 && (style % 7) != 0)
                continue;
            e->orient = tsr_rng_range(rng, 0, 3);
            e->style = style;
            int roi = tsr_rng_range(rng, 0, 5) == 0 ? tsr_rng_range(rng, 1, 6) : 0;
            e->K = tsr_rng_range(rng, roi ? roi + 1 : 1, roi ? roi + 8 : 14);
            int zbp = tsr_rng_range(rng, 0, 3);
            int mb = e->K + zbp - roi;
            int rev = tsr_rng_range(rng, 0, 1);
            gen_coefs(rng, coef, e->w * e->h, e->K, roi);
            e->coef = coef;
            e->buf = buf;
            e->cap = sizeof buf;
            e->cap = sizeof buf;
            int np = tsr__t1_encode_block(e);
            size_t stride = (size_t)e->w + (size_t)tsr_rng_range(rng, 0, 3);
            /* every truncation point for small blocks, a few for large ones */
            int step = e->w * e->h > 256 ? 1 + np / 4 : 1;
            int blk_bad = 0;
            for (int n = 0; n <= np; n += (n + step > np && n != np) ? np - n : step) {
                unsigned warn = 0;
                int rc = decode_np(e, n, roi, mb, zbp, rev, out, stride, segs, &warn);
                decodes++;
                int mism = rc != TSR__T1_OK;
                for (int y = 0; y < e->h && !mism; y++)
                    for (int x = 0; x < e->w; x++) {
                        int32_t want = expect(e, y * e->w + x, n, roi, rev);
                        if (out[(size_t)y * stride + x] != want) {
                            if (!mism)
                                fprintf(stderr,
                                        "ebcot mismatch: style 0x%02x %dx%d orient %d K %d roi %d "
                                        "rev %d passes %d/%d at (%d,%d): got %d want %d (rc %d)\n",
                                        style, e->w, e->h, e->orient, e->K, roi, rev, n, np, x, y,
                                        out[(size_t)y * stride + x], want, rc);
                            mism = 1;
                            break;
                        }
                    }
                if (rc != TSR__T1_OK && !blk_bad)
                    fprintf(stderr, "ebcot rc %d warn %u: style 0x%02x %dx%d passes %d\n", rc, warn,
                            style, e->w, e->h, n);
                blk_bad |= mism;
                if (n == np)
                    break;
            }
            bad_blocks += blk_bad;
            cases++;
        }
    }
    printf("ebcot: %d blocks, %d decodes, %d blocks mismatched\n", cases, decodes, bad_blocks);
    CHECK(bad_blocks == 0);
    CHECK(cases > 500);
}

/* Truncating every segment at every byte offset, and garbage: must stay in bounds (ASan) and
 * terminate; output fully written. */
static void test_truncation(tsr_rng *rng)
{
    static int32_t coef[TSR__T1_MAX_AREA];
    static int32_t out[64 * 64];
    static uint8_t buf[1 << 18];
    static tsr__t1_enc E;
    tsr__t1_seg segs[TSR__T1_MAX_SEGS];
    int runs = 0;
    for (int t = 0; t < 24; t++) {
        tsr__t1_enc *e = &E;
        e->w = tsr_rng_range(rng, 1, 64);
        e->h = tsr_rng_range(rng, 1, 64);
        e->orient = t & 3;
        e->style = tsr_rng_range(rng, 0, 63);
        e->K = tsr_rng_range(rng, 1, 10);
        gen_coefs(rng, coef, e->w * e->h, e->K, 0);
        e->coef = coef;
        e->buf = buf;
        int np = tsr__t1_encode_block(e);
        int ns = e->nsegs;
        for (int s = 0; s < ns; s++) {
            for (uint32_t cut = 0; cut <= e->segs[s].len; cut++) {
                /* heap copies of exactly the given bytes */
                uint8_t *copies[TSR__T1_MAX_SEGS];
                for (int k = 0; k < ns; k++) {
                    uint32_t len = k == s ? cut : e->segs[k].len;
                    copies[k] = malloc(len ? len : 1);
                    memcpy(copies[k], e->segs[k].data, len);
                    segs[k] = e->segs[k];
                    segs[k].data = copies[k];
                    segs[k].len = len;
                }
                tsr__t1_block blk = {.w = (uint32_t)e->w,
                                     .h = (uint32_t)e->h,
                                     .orient = (uint8_t)e->orient,
                                     .style = (uint8_t)e->style,
                                     .zero_bp = 0,
                                     .mb = (uint8_t)e->K,
                                     .reversible = 1,
                                     .npasses = (uint32_t)np,
                                     .nsegs = (uint32_t)ns,
                                     .segs = segs};
                for (int i = 0; i < e->w * e->h; i++)
                    out[i] = 0x55555555;
                int rc = tsr__t1_decode(&blk, g_ws, g_wss, out, (size_t)e->w, NULL);
                CHECK(rc >= 0);
                int unset = 0;
                for (int i = 0; i < e->w * e->h; i++)
                    unset += out[i] == 0x55555555;
                CHECK(unset == 0);
                runs++;
                for (int k = 0; k < ns; k++)
                    free(copies[k]);
            }
        }
    }
    /* garbage segments with random pass splits */
    for (int t = 0; t < 2000; t++) {
        uint8_t *data[8];
        int ns = tsr_rng_range(rng, 1, 8), np = 0;
        for (int k = 0; k < ns; k++) {
            uint32_t len = (uint32_t)tsr_rng_range(rng, 0, 300);
            data[k] = malloc(len ? len : 1);
            tsr_rng_fill(rng, data[k], len);
            if (tsr_rng_range(rng, 0, 3) == 0)
                memset(data[k], 0xFF, len);
            segs[k].data = data[k];
            segs[k].len = len;
            segs[k].npasses = (uint32_t)tsr_rng_range(rng, 0, 12);
            np += (int)segs[k].npasses;
        }
        tsr__t1_block blk = {.w = (uint32_t)tsr_rng_range(rng, 1, 64),
                             .h = (uint32_t)tsr_rng_range(rng, 1, 64),
                             .orient = (uint8_t)tsr_rng_range(rng, 0, 3),
                             .style = (uint8_t)tsr_rng_range(rng, 0, 63),
                             .zero_bp = (uint8_t)tsr_rng_range(rng, 0, 5),
                             .mb = (uint8_t)tsr_rng_range(rng, 0, 30),
                             .roi_shift = (uint8_t)tsr_rng_range(rng, 0, 1),
                             .reversible = (uint8_t)tsr_rng_range(rng, 0, 1),
                             .npasses = (uint32_t)np,
                             .nsegs = (uint32_t)ns,
                             .segs = segs};
        int rc = tsr__t1_decode(&blk, g_ws, g_wss, out, blk.w, NULL);
        CHECK(rc != TSR__T1_EINVAL);
        runs++;
        for (int k = 0; k < ns; k++)
            free(data[k]);
    }
    printf("truncation/garbage: %d decodes\n", runs);
}

/* The Part-1 context tables (t1_ctx_lut.h, scripts/gen_t1_ctx_lut.py) against T.800 Tables D.1
 * and D.3 evaluated here case by case. */
/* Zero-coding context, T.800 Table D.1, of a lane's 3 x 3 window (bit 4, itself, ignored). */
static uint8_t ref_zc_ctx(int orient, unsigned win)
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
static uint8_t ref_sc_ctx(unsigned idx)
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

static void test_ctx_tables(void)
{
    int bad = 0;
    for (int o = 0; o < 4; o++)
        for (unsigned i = 0; i < 512; i++)
            bad += tsr__t1_zc_lut[o][i] != ref_zc_ctx(o, i);
    for (unsigned i = 0; i < 256; i++)
        bad += tsr__t1_sc_lut[i] != ref_sc_ctx(i);
    CHECK(bad == 0);
}

/* T.814 Annex C rows: per table and context a complete prefix code, fields consistent, and the
 * lookup table ht_vlc_lut.h (scripts/gen_ht_vlc_lut.py) equal to one rebuilt here. */
static void test_ht_tables(void)
{
    const uint8_t(*tabs[2])[7] = {tsr__ht_cxtvlc_table_0, tsr__ht_cxtvlc_table_1};
    const size_t n[2] = {sizeof tsr__ht_cxtvlc_table_0 / 7, sizeof tsr__ht_cxtvlc_table_1 / 7};
    CHECK(n[0] == 444 && n[1] == 358);
    static uint16_t lut[1024];
    static uint8_t hits[1024];
    for (int t = 0; t < 2; t++) {
        memset(hits, 0, sizeof hits);
        for (size_t i = 0; i < n[t]; i++) {
            const uint8_t *r = tabs[t][i];
            const unsigned c = r[0], rho = r[1], uoff = r[2], ek = r[3], e1 = r[4], w = r[5],
                           lw = r[6];
            CHECK(c < 8 && rho < 16 && uoff < 2 && lw >= 1 && lw <= 7 && w < (1u << lw));
            CHECK((ek & ~rho) == 0 && (e1 & ~ek) == 0 && (uoff || (ek == 0 && e1 == 0)));
            CHECK(rho != 0 || c != 0); /* an AZC quad reaches the VLC only when significant */
            for (unsigned hi = 0; hi < (1u << (7 - lw)); hi++) {
                unsigned idx = c * 128 + (w | (hi << lw));
                hits[idx]++;
                lut[idx] = (uint16_t)(lw | uoff << 3 | rho << 4 | ek << 8 | e1 << 12);
            }
        }
        int bad = 0;
        for (int i = 0; i < 1024; i++)
            bad += hits[i] != 1 || lut[i] != tsr__ht_vlc_lut[t][i];
        CHECK(bad == 0);
    }
}

/* One HT decode of segments copied to exact-size heap buffers; checks the output contract. */
static int ht_decode_checked(tsr__t1_block *blk, const tsr__t1_seg *src, int32_t *out,
                             unsigned *warn)
{
    tsr__t1_seg segs[8];
    uint8_t *copies[8];
    for (uint32_t k = 0; k < blk->nsegs; k++) {
        copies[k] = malloc(src[k].len ? src[k].len : 1);
        memcpy(copies[k], src[k].data, src[k].len);
        segs[k] = src[k];
        segs[k].data = copies[k];
    }
    blk->segs = segs;
    const size_t stride = blk->w + 3;
    for (size_t i = 0; i < stride * blk->h; i++)
        out[i] = 0x55555555;
    int rc = tsr__t1_decode(blk, g_ws, g_wss, out, stride, warn);
    CHECK(rc == TSR__T1_OK || rc == TSR__T1_WARN || rc == TSR__T1_CORRUPT);
    int unset = 0, outside = 0;
    for (uint32_t y = 0; y < blk->h; y++)
        for (size_t x = 0; x < stride; x++) {
            int v = out[y * stride + x] == 0x55555555;
            if (x < blk->w)
                unset += v;
            else
                outside += !v;
        }
    CHECK(unset == 0 && outside == 0);
    for (uint32_t k = 0; k < blk->nsegs; k++)
        free(copies[k]);
    blk->segs = src;
    return rc;
}

static void test_ht_garbage(tsr_rng *rng)
{
    static int32_t out[1027 * 64];
    static uint8_t bytes[2][4096];
    int runs = 0, accepted = 0, rcs[4] = {0};
    for (int t = 0; t < 3000; t++) {
        static const uint32_t shapes[][2] = {{1, 1}, {1024, 4}, {4, 1024}, {1, 1024}, {1024, 1},
                                             {3, 5}, {64, 64},  {2, 2},    {1023, 3}, {5, 819}};
        uint32_t w, h;
        if (t % 4 == 0) {
            w = shapes[(t / 4) % 10][0];
            h = shapes[(t / 4) % 10][1];
        } else {
            w = (uint32_t)tsr_rng_range(rng, 1, 64);
            h = (uint32_t)tsr_rng_range(rng, 1, 64);
        }
        /* cleanup segment: random bytes, ending in a plausible Scup most of the time */
        uint32_t lcup = (uint32_t)tsr_rng_range(rng, 0, t % 5 == 0 ? 4000 : 400);
        tsr_rng_fill(rng, bytes[0], lcup);
        if (tsr_rng_range(rng, 0, 5) == 0)
            memset(bytes[0], tsr_rng_range(rng, 0, 1) ? 0xFF : 0x00, lcup);
        if (lcup >= 2 && tsr_rng_range(rng, 0, 4)) {
            uint32_t scup = (uint32_t)tsr_rng_range(rng, 2, (int)(lcup < 4079 ? lcup : 4079));
            bytes[0][lcup - 1] = (uint8_t)(scup >> 4);
            bytes[0][lcup - 2] = (uint8_t)((bytes[0][lcup - 2] & 0xF0) | (scup & 0x0F));
        }
        uint32_t lref = (uint32_t)tsr_rng_range(rng, 0, 200);
        tsr_rng_fill(rng, bytes[1], lref);
        tsr__t1_seg segs[3];
        tsr__t1_block blk = ht_random_block(rng, w, h, bytes[0], lcup, bytes[1], lref, segs, 6, 6);
        unsigned warn = 0;
        int rc = ht_decode_checked(&blk, segs, out, &warn);
        rcs[rc < 0 ? 2 : rc]++;
        runs++;
        if (rc != TSR__T1_OK || t % 8)
            continue;
        /* accepted as consistent: every truncation of every segment stays in bounds */
        accepted++;
        tsr__t1_seg cut[3];
        for (uint32_t s = 0; s < blk.nsegs; s++) {
            uint32_t step = segs[s].len > 300 ? segs[s].len / 150 : 1;
            for (uint32_t len = 0; len < segs[s].len; len += step) {
                memcpy(cut, segs, sizeof cut);
                cut[s].len = len;
                (void)ht_decode_checked(&blk, cut, out, &warn);
                runs++;
            }
        }
    }
    printf("HT garbage/truncation: %d decodes (%d ok, %d warn, %d corrupt; %d accepted blocks "
           "truncated)\n",
           runs, rcs[0], rcs[1], rcs[2], accepted);
    CHECK(rcs[0] > 0 && rcs[2] > 0);
}

static void test_segment_rule(void)
{
    /* Table D.9 and the rules of t1.h, 2. */
    CHECK(tsr__t1_segment_max_passes(0, 0, 40, 0) == TSR__T1_MAX_PASSES);
    CHECK(tsr__t1_segment_max_passes(0x02 | 0x08 | 0x10 | 0x20, 5, 40, 0) == TSR__T1_MAX_PASSES);
    CHECK(tsr__t1_segment_max_passes(0x04, 0, 40, 0) == 1);
    CHECK(tsr__t1_segment_max_passes(0x05, 13, 40, 0) == 1);
    CHECK(tsr__t1_segment_max_passes(0x01, 0, 40, 0) == 10);
    CHECK(tsr__t1_segment_max_passes(0x01, 4, 40, 0) == 6);
    CHECK(tsr__t1_segment_max_passes(0x01, 10, 40, 0) == 2);
    CHECK(tsr__t1_segment_max_passes(0x01, 12, 40, 0) == 1);
    CHECK(tsr__t1_segment_max_passes(0x01, 13, 40, 0) == 2);
    CHECK(tsr__t1_pass_is_raw(0x01, 10) && tsr__t1_pass_is_raw(0x01, 11));
    CHECK(!tsr__t1_pass_is_raw(0x01, 12) && !tsr__t1_pass_is_raw(0x01, 9));
    CHECK(!tsr__t1_pass_is_raw(0x41, 10));
    /* HT: placeholders + cleanup, then SigProp + MagRef */
    CHECK(tsr__t1_segment_max_passes(0x40, 0, 1, 0) == 1);
    CHECK(tsr__t1_segment_max_passes(0x40, 0, 3, 0) == 1);
    CHECK(tsr__t1_segment_max_passes(0x40, 0, 4, 0) == 4);
    CHECK(tsr__t1_segment_max_passes(0x40, 0, 6, 0) == 4);
    CHECK(tsr__t1_segment_max_passes(0x40, 1, 2, 1) == 2);
    CHECK(tsr__t1_segment_max_passes(0x40, 2, 1, 1) == 1);
    CHECK(tsr__t1_segment_max_passes(0x40, 3, 3, 1) == 1);
}

static void test_api(void)
{
    int32_t out[16];
    tsr__t1_block blk = {.w = 4, .h = 4, .mb = 8};
    CHECK(tsr__t1_decode(&blk, g_ws, g_wss, out, 4, NULL) == TSR__T1_OK);
    for (int i = 0; i < 16; i++)
        CHECK(out[i] == 0);
    CHECK(tsr__t1_decode(&blk, g_ws, 16, out, 4, NULL) == TSR__T1_EINVAL);
    CHECK(tsr__t1_decode(&blk, g_ws, g_wss, out, 3, NULL) == TSR__T1_EINVAL);
    blk.w = 2048;
    CHECK(tsr__t1_decode(&blk, g_ws, g_wss, out, 4096, NULL) == TSR__T1_EINVAL);
    blk.w = 128;
    blk.h = 64;
    CHECK(tsr__t1_decode(&blk, g_ws, g_wss, out, 128, NULL) == TSR__T1_EINVAL);
    blk.w = 4;
    blk.h = 4;
    blk.npasses = 3; /* != sum of segments */
    CHECK(tsr__t1_decode(&blk, g_ws, g_wss, out, 4, NULL) == TSR__T1_EINVAL);
    tsr__t1_seg sg = {(const uint8_t *)"\x12\x34", 2, 3};
    blk.segs = &sg;
    blk.nsegs = 1;
    blk.zero_bp = 9; /* P > Mb */
    CHECK(tsr__t1_decode(&blk, g_ws, g_wss, out, 4, NULL) == TSR__T1_CORRUPT);
    blk.zero_bp = 0;
    blk.mb = 31;
    CHECK(tsr__t1_decode(&blk, g_ws, g_wss, out, 4, NULL) == TSR__T1_UNSUPPORTED);
}

int main(void)
{
    tsr_rng rng;
    tsr_rng_seed(&rng, 0x7e55e7a1);
    g_wss = tsr__t1_workspace_size();
    g_ws = malloc(g_wss);
    test_segment_rule();
    test_api();
    test_mq_roundtrip(&rng);
    test_mq_branch_free(&rng);
    test_ebcot(&rng);
    test_truncation(&rng);
    test_ctx_tables();
    test_ht_tables();
    test_ht_garbage(&rng);
    free(g_ws);
    return tsr_test_finish("test_j2k_t1");
}
