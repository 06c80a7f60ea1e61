/* Unit tests of the JPEG 2000 decoder's stages: tag trees (B.10.2) against an encoder written
 * from the standard's description, 5/3 perfect reconstruction (F.3) for every length and
 * parity, the 9/7 line on constant signals (the DWT's and the output row pass's SIMD builds are
 * compared in test_j2k_builds.c), the 8-bit RGB pixel packing's AVX2 groups against the C loop,
 * progression orders and POC
 * (B.12) on synthetic headers (every packet exactly once, in the order's nesting), and the public
 * API's argument checks; the output helpers (prefaulting, the PGX writer); code-block warnings
 * counted late at their place in the CPU's order (the CUDA decoder's tsr__j2k_warn_at); HT rate
 * control's plane reveal on synthetic candidates. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, rmdir */
#include "testlib.h"

#include "j2k/decode_stages.h"
#include "j2k/encode_stages.h"
#include "j2k/t1_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- tag trees ---------------------------------------------------------------------------- */

typedef struct bitw {
    uint8_t buf[4096];
    size_t n;
    uint32_t acc;
    int ct; /* bits free in the current byte */
} bitw;

/* B.10.1 bit stuffing: after 0xFF only 7 bits go into the next byte. */
static void put_bit(bitw *w, int bit)
{
    if (w->ct == 0) {
        if (w->n && w->buf[w->n - 1] == 0xFF)
            w->ct = 7;
        else
            w->ct = 8;
        w->buf[w->n++] = 0;
    }
    w->ct--;
    w->buf[w->n - 1] |= (uint8_t)(bit << w->ct);
}

typedef struct enc_node {
    int parent, value, low, known;
} enc_node;

static void tgt_encode(bitw *w, enc_node *nodes, int leaf, int threshold)
{
    int stack[64], sp = 0, n = leaf;
    while (nodes[n].parent >= 0) {
        stack[sp++] = n;
        n = nodes[n].parent;
    }
    int low = 0;
    for (;;) {
        if (low > nodes[n].low)
            nodes[n].low = low;
        else
            low = nodes[n].low;
        while (low < threshold) {
            if (low >= nodes[n].value) {
                if (!nodes[n].known) {
                    put_bit(w, 1);
                    nodes[n].known = 1;
                }
                break;
            }
            put_bit(w, 0);
            low++;
        }
        nodes[n].low = low;
        if (!sp)
            break;
        n = stack[--sp];
    }
}

static void test_tag_trees(tsr_rng *rng)
{
    for (int iter = 0; iter < 200; iter++) {
        uint32_t w = (uint32_t)tsr_rng_range(rng, 1, 9), h = (uint32_t)tsr_rng_range(rng, 1, 9);
        size_t nn = tsr__tgt_size(w, h);
        tsr__tgt_node *dn = calloc(nn, sizeof *dn);
        enc_node *en = calloc(nn, sizeof *en);
        tsr__tgt t;
        tsr__tgt_init(&t, w, h, dn);
        CHECK(t.nnodes == nn);
        for (size_t i = 0; i < nn; i++) {
            en[i].parent = dn[i].parent;
            en[i].value = 1 << 20;
        }
        int vals[81];
        for (uint32_t i = 0; i < w * h; i++) {
            vals[i] = tsr_rng_range(rng, 0, 12);
            for (int n = (int)i; n >= 0; n = en[n].parent)
                if (vals[i] < en[n].value)
                    en[n].value = vals[i];
        }
        /* Encode every leaf's value as the decoder asks for it: thresholds 1, 2, ... */
        bitw bw;
        memset(&bw, 0, sizeof bw);
        for (uint32_t i = 0; i < w * h; i++)
            for (int th = 1; th <= vals[i] + 1; th++)
                tgt_encode(&bw, en, (int)i, th);
        tsr__bio b;
        tsr__bio_init(&b, bw.buf, bw.n);
        int ok = 1;
        for (uint32_t i = 0; i < w * h; i++)
            if (tsr__tgt_decode_value(&b, &t, i, 40) != vals[i])
                ok = 0;
        CHECK(ok);
        CHECK(!b.overrun);
        /* Inclusion semantics: value < threshold. */
        tsr__tgt_reset(&t);
        for (size_t i = 0; i < nn; i++) {
            en[i].low = 0;
            en[i].known = 0;
        }
        memset(&bw, 0, sizeof bw);
        for (int th = 1; th <= 4; th++)
            for (uint32_t i = 0; i < w * h; i++)
                tgt_encode(&bw, en, (int)i, th);
        tsr__bio_init(&b, bw.buf, bw.n);
        for (int th = 1; th <= 4; th++)
            for (uint32_t i = 0; i < w * h; i++)
                CHECK(tsr__tgt_decode(&b, &t, i, th) == (vals[i] < th));
        free(dn);
        free(en);
    }
    /* A tree fed only zero bits (a corrupt stream) stops at the cap. */
    tsr__tgt_node nodes[8];
    tsr__tgt t;
    tsr__tgt_init(&t, 2, 2, nodes);
    uint8_t zeros[64] = {0};
    tsr__bio b;
    tsr__bio_init(&b, zeros, sizeof zeros);
    CHECK(tsr__tgt_decode_value(&b, &t, 3, 30) == 31);
}

/* ---- wavelets ----------------------------------------------------------------------------- */

static void test_dwt(tsr_rng *rng)
{
    int32_t x[80], y[80];
    int ok = 1;
    for (uint32_t n = 1; n <= 70; n++)
        for (uint32_t i0 = 0; i0 < 4; i0++)
            for (int rep = 0; rep < 5; rep++) {
                for (uint32_t i = 0; i < n; i++)
                    x[i] = y[i] = tsr_rng_range(rng, -70000, 70000);
                tsr__dwt53_forward_line(y, n, i0);
                tsr__dwt53_line(y, n, i0);
                if (memcmp(x, y, n * sizeof *x))
                    ok = 0;
            }
    CHECK(ok);
    /* 9/7: a constant signal has all its energy in the low band; with the standard's
     * normalisation (low gain 1, high gain 2) the inverse of (c, 0, c, 0, ...) is c. */
    float f[64];
    for (uint32_t n = 2; n < 64; n++)
        for (uint32_t i0 = 0; i0 < 2; i0++) {
            for (uint32_t i = 0; i < n; i++)
                f[i] = ((i0 + i) & 1) ? 0.0f : 100.0f;
            tsr__dwt97_line(f, n, i0);
            float worst = 0;
            for (uint32_t i = 0; i < n; i++) {
                float d = f[i] - 100.0f;
                if (d < 0)
                    d = -d;
                if (d > worst)
                    worst = d;
            }
            CHECK(worst < 1e-3f);
        }
}

/* The 8-bit 3-channel pixel packing (pixels.c) with the AVX2 groups (pixels_avx2.c) against
 * the C loop alone: random rows of every length 0..80 and some long ones, samples in range
 * and far outside it (|v| <= 2^30; the output is the low byte of v + offset either way), random
 * offsets; the same bytes, nothing written past 3 k bytes (both outputs start from the same
 * poison). On a CPU without AVX2 both runs take the C loop. */
static void test_pack3_simd(tsr_rng *rng)
{
    enum { MAXK = 700 };
    static int32_t rows[3][MAXK];
    static uint8_t a[3 * MAXK + 16], b[3 * MAXK + 16];
    tsr__j2k_pixels pk;
    tsr_j2k_plane p[3];
    memset(p, 0, sizeof p);
    for (int c = 0; c < 3; c++)
        p[c].precision = 8;
    int bad = 0;
    for (int rep = 0; rep < 3000; rep++) {
        const uint32_t k = rep < 81 ? (uint32_t)rep : (uint32_t)tsr_rng_range(rng, 0, MAXK);
        for (int c = 0; c < 3; c++)
            p[c].is_signed = tsr_rng_range(rng, 0, 1);
        tsr__j2k_pixels_init(&pk, p, 3, 0);
        CHECK(pk.exact);
        for (int c = 0; c < 3; c++)
            for (uint32_t x = 0; x < k; x++)
                rows[c][x] = rep % 4 ? (int32_t)tsr_rng_range(rng, -128, 255)
                                     : (int32_t)((uint32_t)tsr_rng_next(rng) >> 1) - (1 << 30);
        const int32_t *const s[4] = {rows[0], rows[1], rows[2], NULL};
        memset(a, rep & 0xFF, sizeof a);
        memset(b, rep & 0xFF, sizeof b);
        tsr__ht_set_simd(0);
        tsr__j2k_pixels_row(&pk, s, k, a);
        tsr__ht_set_simd(1);
        tsr__j2k_pixels_row(&pk, s, k, b);
        bad += memcmp(a, b, sizeof a) != 0;
    }
    CHECK(bad == 0);
}

/* ---- progression -------------------------------------------------------------------------- */

typedef struct seen {
    uint32_t n;
    uint32_t l[4096], c[4096], r[4096], p[4096];
} seen;

static int record(void *u, uint32_t l, uint32_t c, uint32_t r, uint32_t p)
{
    seen *s = u;
    if (s->n < 4096) {
        s->l[s->n] = l;
        s->c[s->n] = c;
        s->r[s->n] = r;
        s->p[s->n] = p;
    }
    s->n++;
    return 0;
}

static size_t put16(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)(v >> 8);
    b[1] = (uint8_t)v;
    return 2;
}
static size_t put32(uint8_t *b, uint32_t v)
{
    put16(b, v >> 16);
    put16(b + 2, v & 0xffff);
    return 4;
}

/* A main header: 3 components (the second subsampled 2x1), 100x80 at (3,5), 64x64 tiles,
 * `levels` levels, 32x32 precincts, the given progression and optional POC. */
static size_t make_header(uint8_t *b, int prg, int levels, int poc)
{
    size_t n = 0;
    n += put16(b + n, 0xFF4F);
    n += put16(b + n, 0xFF51);
    n += put16(b + n, 38 + 3 * 3);
    n += put16(b + n, 0);
    n += put32(b + n, 103);
    n += put32(b + n, 85);
    n += put32(b + n, 3);
    n += put32(b + n, 5);
    n += put32(b + n, 64);
    n += put32(b + n, 64);
    n += put32(b + n, 0);
    n += put32(b + n, 0);
    n += put16(b + n, 3);
    const uint8_t comps[9] = {7, 1, 1, 7, 2, 1, 7, 1, 1};
    memcpy(b + n, comps, 9);
    n += 9;
    n += put16(b + n, 0xFF52);
    n += put16(b + n, 12 + levels + 1);
    b[n++] = 1; /* precincts given */
    b[n++] = (uint8_t)prg;
    n += put16(b + n, 3);
    b[n++] = 0;
    b[n++] = (uint8_t)levels;
    b[n++] = 2; /* 16x16 code-blocks */
    b[n++] = 2;
    b[n++] = 0;
    b[n++] = 1;
    for (int r = 0; r <= levels; r++)
        b[n++] = 0x55; /* 32x32 */
    n += put16(b + n, 0xFF5C);
    n += put16(b + n, 3 + 3 * levels + 1);
    b[n++] = 0x40; /* 2 guard bits, no quantisation */
    for (int i = 0; i < 3 * levels + 1; i++)
        b[n++] = 9 << 3;
    if (poc) {
        /* RLCP for resolutions 0..1 of all components, then CPRL for the rest. */
        n += put16(b + n, 0xFF5F);
        n += put16(b + n, 2 + 14);
        const uint8_t e[14] = {0, 0, 0, 3, 2, 3, 1, 0, 0, 0, 3, 33, 3, 4};
        memcpy(b + n, e, 14);
        n += 14;
    }
    n += put16(b + n, 0xFF90); /* the parse stops at the first SOT */
    return n;
}

static void test_progression(tsr_ctx *ctx)
{
    for (int poc = 0; poc < 2; poc++)
        for (int prg = 0; prg < 5; prg++) {
            uint8_t hdr[512];
            size_t n = make_header(hdr, prg, 3, poc);
            tsr__j2k_warn warn;
            memset(&warn, 0, sizeof warn);
            tsr__j2k_cs cs;
            CHECK_OK(ctx, tsr__j2k_parse(ctx, hdr, n, 0, 1, &cs, &warn));
            for (uint32_t tile = 0; tile < cs.ntiles; tile++) {
                tsr__j2k_tcp tcp;
                CHECK_OK(ctx, tsr__j2k_tcp_copy(ctx, &cs, &tcp, &cs.deflt));
                tsr__j2k_tile t;
                tsr__j2k_window win = {cs.x0, cs.y0, cs.x1, cs.y1};
                CHECK_OK(ctx, tsr__tcd_init(ctx, &cs, &tcp, tile, 0, NULL, &win, &t));
                size_t want = 0;
                for (uint32_t c = 0; c < t.ncomps; c++)
                    for (uint32_t r = 0; r < t.comps[c].numres; r++)
                        want += (size_t)t.comps[c].res[r].pw * t.comps[c].res[r].ph * 3;
                static seen s;
                s.n = 0;
                int stopped;
                CHECK_OK(ctx, tsr__pi_iterate(ctx, &cs, &tcp, &t, record, &s, &stopped, 0));
                CHECK(s.n == want);
                /* each packet once */
                int dup = 0;
                for (uint32_t i = 0; i < s.n && i < 4096; i++)
                    for (uint32_t j = i + 1; j < s.n && j < 4096; j++)
                        if (s.l[i] == s.l[j] && s.c[i] == s.c[j] && s.r[i] == s.r[j] &&
                            s.p[i] == s.p[j])
                            dup = 1;
                CHECK(!dup);
                /* nesting of the outermost index */
                int mono = 1;
                for (uint32_t i = 1; i < s.n && i < 4096; i++) {
                    if (poc) {
                        /* first progression: resolutions 0..1 only, RLCP */
                        if (i < 18 && s.r[i] > 1)
                            mono = 0;
                        continue;
                    }
                    if (prg == TSR_J2K_LRCP && s.l[i] < s.l[i - 1])
                        mono = 0;
                    if ((prg == TSR_J2K_RLCP || prg == TSR_J2K_RPCL) && s.r[i] < s.r[i - 1])
                        mono = 0;
                    if (prg == TSR_J2K_CPRL && s.c[i] < s.c[i - 1])
                        mono = 0;
                    /* within a precinct, layers come in order */
                    for (uint32_t j = 0; j < i; j++)
                        if (s.c[j] == s.c[i] && s.r[j] == s.r[i] && s.p[j] == s.p[i] &&
                            s.l[j] > s.l[i])
                            mono = 0;
                }
                CHECK(mono);
                tsr__tcd_free(ctx, &t);
                tsr__j2k_tcp_free(ctx, &tcp);
            }
            tsr__j2k_cs_free(ctx, &cs);
        }
}

/* ---- API argument checks ------------------------------------------------------------------ */

static void test_api(tsr_ctx *ctx)
{
    tsr_j2k_info info;
    const uint8_t junk[4] = {1, 2, 3, 4};
    CHECK_STATUS(tsr_j2k_read_header(ctx, junk, sizeof junk, &info, NULL, 0), TSR_ERR_CORRUPT);
    CHECK(strstr(tsr_ctx_last_error(ctx), "not a JPEG 2000") != NULL);
    uint8_t hdr[512];
    size_t n = make_header(hdr, 0, 3, 0);
    CHECK_OK(ctx, tsr_j2k_read_header(ctx, hdr, n, &info, NULL, 0));
    CHECK(info.width == 100 && info.height == 80 && info.num_components == 3);
    CHECK(info.tiles_x == 2 && info.tiles_y == 2 && info.levels == 3);
    tsr_j2k_decode_options o;
    tsr_j2k_decode_options_init(&o);
    o.reduce = 4;
    uint32_t np = 0;
    CHECK_STATUS(tsr_j2k_decode_layout(ctx, hdr, n, &o, NULL, &np), TSR_ERR_INVALID_ARGUMENT);
    o.reduce = 1;
    CHECK_OK(ctx, tsr_j2k_decode_layout(ctx, hdr, n, &o, NULL, &np));
    CHECK(np == 3);
    tsr_j2k_plane pl[3];
    CHECK_OK(ctx, tsr_j2k_decode_layout(ctx, hdr, n, &o, pl, &np));
    /* component 1: x in [ceil(3/2), ceil(103/2)) = [2, 52), halved: [1, 26) */
    CHECK(pl[0].width == 50 && pl[0].height == 40);
    CHECK(pl[1].x0 == 1 && pl[1].width == 25 && pl[1].height == 40 && pl[1].dx == 2);
    uint32_t comps[2] = {2, 2};
    o.components = comps;
    o.num_components = 2;
    CHECK_STATUS(tsr_j2k_decode_layout(ctx, hdr, n, &o, NULL, &np), TSR_ERR_INVALID_ARGUMENT);
}

/* ---- the pixel limit and empty code-blocks -------------------------------------------------- */

/* A whole codestream of a w x h image of nc components of `prec` bits in one tile, 5 levels,
 * 64x64 code-blocks, reversible 5/3 or irreversible 9/7, whose every packet is empty: every
 * code-block has no coding pass, so every sample is 2^(prec-1) after the DC level shift. */
static size_t make_empty(uint8_t *b, uint32_t w, uint32_t h, uint32_t nc, uint32_t prec, int rev)
{
    const int levels = 5, nsb = 3 * levels + 1;
    size_t n = 0;
    n += put16(b + n, 0xFF4F);
    n += put16(b + n, 0xFF51);
    n += put16(b + n, 38 + 3 * nc);
    n += put16(b + n, 0);
    n += put32(b + n, w);
    n += put32(b + n, h);
    n += put32(b + n, 0);
    n += put32(b + n, 0);
    n += put32(b + n, w);
    n += put32(b + n, h);
    n += put32(b + n, 0);
    n += put32(b + n, 0);
    n += put16(b + n, nc);
    for (uint32_t c = 0; c < nc; c++) {
        b[n++] = (uint8_t)(prec - 1);
        b[n++] = 1;
        b[n++] = 1;
    }
    n += put16(b + n, 0xFF52);
    n += put16(b + n, 12);
    b[n++] = 0; /* maximal precincts */
    b[n++] = 0; /* LRCP */
    n += put16(b + n, 1);
    b[n++] = 0;
    b[n++] = (uint8_t)levels;
    b[n++] = 4; /* 64x64 code-blocks */
    b[n++] = 4;
    b[n++] = 0;
    b[n++] = rev ? 1 : 0;
    n += put16(b + n, 0xFF5C);
    n += put16(b + n, rev ? 3 + nsb : 3 + 2 * nsb);
    b[n++] = rev ? 0x40 : 0x42; /* 2 guard bits; none or scalar expounded quantisation */
    for (int i = 0; i < nsb; i++) {
        if (rev)
            b[n++] = (uint8_t)((prec + 2) << 3);
        else
            n += put16(b + n, (prec + 2) << 11);
    }
    const uint32_t npackets = (levels + 1) * nc; /* one precinct per resolution, one layer */
    n += put16(b + n, 0xFF90);
    n += put16(b + n, 10);
    n += put16(b + n, 0);
    n += put32(b + n, 12 + 2 + npackets);
    b[n++] = 0;
    b[n++] = 1;
    n += put16(b + n, 0xFF93);
    memset(b + n, 0, npackets); /* empty packets: the bit 0 */
    n += npackets;
    n += put16(b + n, 0xFFD9);
    return n;
}

/* The context's max_image_pixels bounds the declared image at the SIZ marker, before anything
 * is allocated for it; any limit up to UINT64_MAX (none) works. */
static void test_pixel_limit(void)
{
    uint8_t b[512];
    tsr_j2k_info info;
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    opt.max_image_pixels = (uint64_t)1 << 20;
    tsr_ctx *ctx;
    CHECK(tsr_ctx_create(&opt, &ctx) == TSR_OK);
    size_t n = make_empty(b, 1024, 1024, 1, 8, 1);
    CHECK_OK(ctx, tsr_j2k_read_header(ctx, b, n, &info, NULL, 0));
    n = make_empty(b, 1025, 1024, 1, 8, 1);
    CHECK_STATUS(tsr_j2k_read_header(ctx, b, n, &info, NULL, 0), TSR_ERR_LIMIT);
    CHECK(strstr(tsr_ctx_last_error(ctx), "1025x1024") &&
          strstr(tsr_ctx_last_error(ctx), "limit of 1048576 pixels"));
    tsr_image desc;
    CHECK_STATUS(tsr_j2k_decode_image_layout(ctx, b, n, NULL, &desc), TSR_ERR_LIMIT);
    tsr_ctx_destroy(ctx);
    /* limits whose four times (the components' samples) do not fit 64 bits */
    const uint64_t big[2] = {(uint64_t)1 << 62, UINT64_MAX};
    for (int i = 0; i < 2; i++) {
        opt.max_image_pixels = big[i];
        CHECK(tsr_ctx_create(&opt, &ctx) == TSR_OK);
        n = make_empty(b, 64, 48, 4, 8, 1);
        CHECK_OK(ctx, tsr_j2k_read_header(ctx, b, n, &info, NULL, 0));
        n = make_empty(b, 65535, 65535, 4, 16, 1);
        CHECK_OK(ctx, tsr_j2k_read_header(ctx, b, n, &info, NULL, 0));
        CHECK(info.width == 65535 && info.num_components == 4);
        tsr_ctx_destroy(ctx);
    }
}

/* Empty code-blocks decode to zero coefficients, which the banded inverse DWT passes over:
 * every pixel is the DC level 2^(p-1), on both wavelets, through the image (banded) path. */
static void test_empty_blocks(tsr_ctx *ctx)
{
    uint8_t b[512];
    for (int rev = 0; rev <= 1; rev++) {
        const size_t n = make_empty(b, 333, 301, 3, 8, rev);
        tsr_image desc, img;
        CHECK_OK(ctx, tsr_j2k_decode_image_layout(ctx, b, n, NULL, &desc));
        CHECK(desc.width == 333 && desc.height == 301 && desc.channels == 3);
        CHECK_OK(ctx, tsr_image_alloc(ctx, &img, desc.width, desc.height, 3, TSR_U8));
        memset(img.data, 0x5a, img.stride * (size_t)img.height); /* poison */
        tsr_j2k_result r;
        CHECK_OK(ctx, tsr_j2k_decode_image(ctx, b, n, NULL, &img, &r));
        CHECK(!r.truncated && r.warnings == 0);
        size_t bad = 0;
        for (int y = 0; y < img.height; y++)
            for (int x = 0; x < 3 * img.width; x++)
                bad += ((const uint8_t *)img.data)[(size_t)y * img.stride + x] != 128;
        CHECK(bad == 0);
        tsr_image_free(ctx, &img);
    }
}

/* ---- output helpers: prefaulting and PGX ---------------------------------------------------- */

/* Prefaulting is a hint: unaligned ranges, empty ones and NULL leave the bytes as they were,
 * populated by any number of threads. */
static void test_prefault(tsr_rng *rng)
{
    size_t n = 3 * 4096 + 123;
    uint8_t *a = malloc(n), *b = malloc(n);
    if (!a || !b) {
        CHECK(0);
        free(a);
        free(b);
        return;
    }
    tsr_rng_fill(rng, a, n);
    memcpy(b, a, n);
    for (int threads = 0; threads <= 5; threads++) { /* 0, 1 and more threads than pages */
        tsr__j2k_prefault(a + 5, n - 5, threads);
        tsr__j2k_prefault(a + 1, 0, threads);
        tsr__j2k_prefault(NULL, 100, threads);
    }
    CHECK(memcmp(a, b, n) == 0);
    free(a);
    free(b);
}

/* PGX over several of the writer's ~1 MB pieces, 1-, 2- and 4-byte samples, padded strides:
 * the file is the header, then every sample big-endian in row order. */
static void test_pgx(tsr_ctx *ctx, tsr_rng *rng)
{
    static const struct {
        uint32_t prec, sgn;
    } kinds[] = {{8, 0}, {12, 1}, {20, 0}};
    char dir[] = "/tmp/tsr_j2k_units_XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    char path[64];
    snprintf(path, sizeof path, "%s/p.pgx", dir);
    for (unsigned k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        tsr_j2k_plane p;
        memset(&p, 0, sizeof p);
        p.width = 1203;
        p.height = 911;
        p.stride = p.width + 5;
        p.precision = kinds[k].prec;
        p.is_signed = kinds[k].sgn;
        p.data = malloc((size_t)p.stride * p.height * sizeof(int32_t));
        if (!p.data) {
            CHECK(0);
            break;
        }
        for (size_t i = 0; i < (size_t)p.stride * p.height; i++) {
            int32_t v = (int32_t)(tsr_rng_next(rng) & ((1u << p.precision) - 1));
            p.data[i] = p.is_signed ? v - (1 << (p.precision - 1)) : v;
        }
        CHECK_OK(ctx, tsr_j2k_save_pgx(ctx, path, &p, 1));
        size_t len;
        unsigned char *f = tsr_test_read_file(path, &len);
        char head[64];
        int hl = snprintf(head, sizeof head, "PG ML %c %u %u %u\n", p.is_signed ? '-' : '+',
                          p.precision, p.width, p.height);
        unsigned bps = p.precision <= 8 ? 1 : p.precision <= 16 ? 2 : 4;
        int same = f && len == (size_t)hl + (size_t)p.width * p.height * bps &&
                   memcmp(f, head, (size_t)hl) == 0;
        for (uint32_t y = 0; same && y < p.height; y++)
            for (uint32_t x = 0; same && x < p.width; x++) {
                const unsigned char *q = f + hl + ((size_t)y * p.width + x) * bps;
                uint32_t v = 0;
                for (unsigned i = 0; i < bps; i++)
                    v = v << 8 | q[i];
                uint32_t want = (uint32_t)p.data[(size_t)y * p.stride + x];
                same = v == (bps == 4 ? want : want & ((1u << (8 * bps)) - 1));
            }
        CHECK(same);
        free(f);
        free(p.data);
    }
    remove(path);
    rmdir(dir);
}

/* ---- late block warnings (the CUDA decoder's order, tsr__j2k_warn_at) --------------------- */

/* Two warning lists end equal: count and first message. */
static int same_warnings(const tsr__j2k_warn *a, const tsr__j2k_warn *b)
{
    return a->count == b->count && strcmp(a->first, b->first) == 0;
}

/* Code-block warnings counted after later tiles' packet warnings, at their position in the
 * CPU's order, give the CPU's count and first warning; a fatal block's report is the CPU's. */
static void test_late_warnings(tsr_ctx *ctx)
{
    tsr__j2k_jobs J;
    memset(&J, 0, sizeof J);
    J.nwarn_blocks = 2;
    J.ncorrupt = 1;
    /* tile 0's blocks warn, then tile 1's packets */
    tsr__j2k_warn cpu, late;
    memset(&cpu, 0, sizeof cpu);
    memset(&late, 0, sizeof late);
    CHECK(tsr__j2k_jobs_report(ctx, &J, 0, &cpu, UINT32_MAX) == TSR_OK);
    tsr__j2k_warnf(&cpu, "tile 1: packet warning");
    tsr__j2k_warnf(&late, "tile 1: packet warning");
    CHECK(tsr__j2k_jobs_report(ctx, &J, 0, &late, 0) == TSR_OK);
    CHECK(same_warnings(&cpu, &late) && cpu.count == 3);
    CHECK(strstr(cpu.first, "tile 0: 2 code-blocks had inconsistent data") != NULL);
    /* a packet warning of tile 0 first, then its blocks, then tile 1's packets */
    memset(&cpu, 0, sizeof cpu);
    memset(&late, 0, sizeof late);
    tsr__j2k_warnf(&cpu, "tile 0: packet warning");
    CHECK(tsr__j2k_jobs_report(ctx, &J, 0, &cpu, UINT32_MAX) == TSR_OK);
    tsr__j2k_warnf(&cpu, "tile 1: packet warning");
    tsr__j2k_warnf(&late, "tile 0: packet warning");
    tsr__j2k_warnf(&late, "tile 1: packet warning");
    CHECK(tsr__j2k_jobs_report(ctx, &J, 0, &late, 1) == TSR_OK);
    CHECK(same_warnings(&cpu, &late) && strcmp(cpu.first, "tile 0: packet warning") == 0);
    /* only corrupt blocks, counted first */
    J.nwarn_blocks = 0;
    memset(&late, 0, sizeof late);
    tsr__j2k_warnf(&late, "tile 2: packet warning");
    CHECK(tsr__j2k_jobs_report(ctx, &J, 1, &late, 0) == TSR_OK);
    CHECK(late.count == 2 && strstr(late.first, "tile 1: 1 code-blocks could not be decoded"));
    /* a fatal block: the CPU's error and message, no warning counted */
    J.fatal = TSR_ERR_UNSUPPORTED;
    memset(&late, 0, sizeof late);
    CHECK(tsr__j2k_jobs_report(ctx, &J, 3, &late, 0) == TSR_ERR_UNSUPPORTED);
    CHECK(strstr(tsr_ctx_last_error(ctx), "tile 3: a code-block uses an unsupported feature"));
    CHECK(late.count == 0);
}

/* HT rate control's plane reveal (tsr__j2k_ht_reveal_planes) on synthetic blocks whose
 * candidates' slopes fall along each block (convex hulls, as the stopping rule assumes): at the
 * threshold of the whole candidates for the budget, and at any above it, every block picks the
 * same bytes from what was revealed as from all of its candidates; some planes are left
 * unrevealed (else the test proves nothing); the result does not depend on threads; with a
 * budget nothing fills, every plane is revealed. */
enum { RV_N = 300 };
typedef struct rv_block {
    uint8_t K;
    uint32_t ns, planes;
    uint8_t plane[TSR__J2K_HT_MAX_SETS];
    uint32_t rate[TSR__J2K_HT_MAX_SETS];
    double dist[TSR__J2K_HT_MAX_SETS];
} rv_block;

static int rv_bad_next; /* a reveal's next hint was neither another block nor RV_N */

static uint32_t rv_reveal(void *user, size_t j, size_t next, int thread, const uint32_t **rate,
                          const double **dist)
{
    (void)thread;
    if (next > RV_N || next == j)
        __atomic_store_n(&rv_bad_next, 1, __ATOMIC_RELAXED);
    rv_block *b = (rv_block *)user + j;
    const uint32_t p = b->K - 1u - b->planes++;
    uint32_t n = 0;
    while (n < b->ns && b->plane[n] >= p)
        n++;
    *rate = b->rate;
    *dist = b->dist;
    return n;
}

/* The bytes all n blocks' hulls keep at threshold lambda. */
static double rv_bytes(tsr__j2k_rd_point (*hull)[TSR__J2K_HT_MAX_SETS], const uint32_t *nh,
                       double lambda)
{
    double sum = 0;
    for (size_t j = 0; j < RV_N; j++) {
        const uint32_t k = tsr__j2k_rd_pick(hull[j], nh[j], lambda);
        sum += k ? hull[j][k - 1].bytes : 0;
    }
    return sum;
}

static void test_ht_reveal(tsr_ctx *ctx, tsr_rng *rng)
{
    static rv_block b[RV_N];
    static tsr__j2k_rd_point full[RV_N][TSR__J2K_HT_MAX_SETS], part[TSR__J2K_HT_MAX_SETS];
    uint8_t K[RV_N];
    double weight[RV_N], total = 0;
    uint32_t nfull[RV_N], nsets[RV_N], nsets2[RV_N];
    size_t all = 0;
    for (size_t j = 0; j < RV_N; j++) {
        K[j] = (uint8_t)(j % 17 == 0 ? 0 : tsr_rng_range(rng, 1, 14));
        weight[j] = 1;
        rv_block *x = &b[j];
        x->K = K[j];
        x->ns = 0;
        double slope = 1e6 * tsr_rng_range(rng, 1, 1000), bytes = 0;
        for (int p = K[j] - 1; p >= 0; p--)
            for (int c = 0; c < (p ? 3 : 1); c++) { /* a set's bytes, what it removes */
                const double add = tsr_rng_range(rng, 10, 400);
                bytes += add;
                x->plane[x->ns] = (uint8_t)p;
                x->rate[x->ns] = (uint32_t)bytes;
                x->dist[x->ns] = slope * add;
                x->ns++;
                slope *= 0.3 + 0.5 * tsr_rng_range(rng, 0, 1000) / 1000.0;
            }
        all += x->ns;
        nfull[j] = tsr__j2k_rd_hull(x->rate, x->dist, x->ns, 1, full[j]);
        total += nfull[j] ? full[j][nfull[j] - 1].bytes : 0;
    }
    const double budget = total / 5;
    for (int threads = 1; threads <= 2; threads++) {
        for (size_t j = 0; j < RV_N; j++)
            b[j].planes = 0;
        CHECK_OK(ctx, tsr__j2k_ht_reveal_planes(ctx, RV_N, K, weight, budget, threads, rv_reveal, b,
                                                threads == 1 ? nsets : nsets2));
    }
    CHECK(memcmp(nsets, nsets2, sizeof nsets) == 0);
    CHECK(!rv_bad_next);
    /* the smallest threshold (a hull slope) whose whole candidates fit the budget */
    double lambda = HUGE_VAL;
    for (size_t j = 0; j < RV_N; j++)
        for (uint32_t k = 0; k < nfull[j]; k++)
            if (full[j][k].slope < lambda && rv_bytes(full, nfull, full[j][k].slope) <= budget)
                lambda = full[j][k].slope;
    CHECK(lambda < HUGE_VAL);
    size_t revealed = 0;
    int same = 1;
    for (size_t j = 0; j < RV_N; j++) {
        CHECK(K[j] ? nsets[j] >= 1 && nsets[j] <= b[j].ns : nsets[j] == 0);
        revealed += nsets[j];
        const uint32_t np = tsr__j2k_rd_hull(b[j].rate, b[j].dist, nsets[j], 1, part);
        for (double f = 1; f <= 64; f *= 2) {
            const uint32_t kf = tsr__j2k_rd_pick(full[j], nfull[j], lambda * f),
                           kp = tsr__j2k_rd_pick(part, np, lambda * f);
            same &= (kf ? full[j][kf - 1].bytes : 0) == (kp ? part[kp - 1].bytes : 0);
        }
    }
    CHECK(same);
    CHECK(revealed < all * 3 / 4);
    for (size_t j = 0; j < RV_N; j++)
        b[j].planes = 0;
    CHECK_OK(ctx,
             tsr__j2k_ht_reveal_planes(ctx, RV_N, K, weight, total * 2, 1, rv_reveal, b, nsets));
    for (size_t j = 0; j < RV_N; j++)
        CHECK(nsets[j] == b[j].ns);
}

int main(void)
{
    tsr_rng rng;
    tsr_rng_seed(&rng, 2026);
    tsr_ctx *ctx;
    if (tsr_ctx_create(NULL, &ctx) != TSR_OK)
        return 1;
    test_tag_trees(&rng);
    test_dwt(&rng);
    test_pack3_simd(&rng);
    test_progression(ctx);
    test_api(ctx);
    test_pixel_limit();
    test_empty_blocks(ctx);
    test_prefault(&rng);
    test_pgx(ctx, &rng);
    test_late_warnings(ctx);
    test_ht_reveal(ctx, &rng);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("test_j2k_units");
}
