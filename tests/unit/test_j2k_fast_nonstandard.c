/* The fast-nonstandard block coder (src/j2k/fast_coder.h) and its encode mode:
 * - the block coder alone: random blocks of every shape class (1x1, 4x1024, 1024x4, odd
 *   sizes, 64x64), orientations and bit-plane counts, dense and sparse, coded and decoded back
 *   exactly (output poisoned first), reversible and irreversible (one fractional bit);
 * - corrupt block data: absurd or over-long stripe lengths are TSR__T1_CORRUPT with the output
 *   zeroed, random bytes and truncations decode without a crash;
 * - the mode end to end: lossless round trips bit-exact for 8/16-bit, 1-4 channels, 1x1, 17x3,
 *   4097x3, several code-block sizes and tiles; lossy decodes equal those of the standard
 *   coder at the same step (the same quantised coefficients, fully decoded, give the same
 *   pixels); the header says nonstandard (and a standard stream does not); the options it
 *   refuses; truncated files decode with an error or warning, never a crash. */
#define _POSIX_C_SOURCE 200809L
#include "j2k/fast_coder.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static tsr_ctx *g_ctx;

/* ---- the block coder ------------------------------------------------------------------- */
static void random_block(tsr_rng *rng, int32_t *c, uint32_t n, uint32_t K)
{
    const int sparse = tsr_rng_range(rng, 0, 2);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t m = (uint32_t)(tsr_rng_next(rng) & ((1ull << K) - 1));
        if (sparse == 1)
            m >>= tsr_rng_range(rng, 0, (int)K);
        else if (sparse == 2 && tsr_rng_range(rng, 0, 9))
            m = 0;
        c[i] = tsr_rng_range(rng, 0, 1) ? -(int32_t)m : (int32_t)m;
    }
    c[tsr_rng_range(rng, 0, (int)n - 1)] = (int32_t)((1u << (K - 1)) | 1u); /* K planes */
}

static void test_blocks(tsr_rng *rng)
{
    static const uint32_t shapes[][2] = {{1, 1},   {4, 1024}, {1024, 4}, {17, 3},
                                         {64, 64}, {33, 7},   {5, 129},  {32, 32}};
    int32_t *coef = malloc(4096 * sizeof *coef), *out = malloc(4096 * sizeof *out);
    size_t cap = tsr__fns_encode_bound(4, 1024, 30);
    uint8_t *buf = malloc(cap);
    char *wsb = malloc(tsr__fns_workspace_size() + 1); /* the workspace at odd addresses too */
    int bad = 0;
    for (int t = 0; t < 200 && !bad; t++) {
        const uint32_t w = shapes[t % 8][0], h = shapes[t % 8][1], n = w * h;
        const uint32_t K = (uint32_t)tsr_rng_range(rng, 1, t % 5 ? 12 : 30);
        const uint32_t orient = (uint32_t)tsr_rng_range(rng, 0, 3);
        const int rev = tsr_rng_range(rng, 0, 1);
        random_block(rng, coef, n, K);
        const long len = tsr__fns_encode_block(coef, w, h, orient, K, buf, cap);
        CHECK(len > 0);
        if (len <= 0)
            break;
        tsr__t1_seg seg = {buf, (uint32_t)len, 1};
        const uint8_t mb = (uint8_t)(K + tsr_rng_range(rng, 0, 30 - (int)K));
        tsr__t1_block blk = {w, h,   (uint8_t)orient, 0, (uint8_t)(mb - K), mb, 0, (uint8_t)rev, 1,
                             1, &seg};
        memset(out, 0xA5, 4096 * sizeof *out);
        void *ws = wsb + (t & 1);
        const int rc = tsr__fns_decode(&blk, ws, tsr__fns_workspace_size(), out, w);
        CHECK(rc == TSR__T1_OK);
        for (uint32_t i = 0; i < n; i++) {
            const int32_t want = rev           ? coef[i]
                                 : coef[i] < 0 ? 2 * coef[i] - 1
                                 : coef[i] > 0 ? 2 * coef[i] + 1
                                               : 0;
            if (out[i] != want) {
                fprintf(stderr, "block %ux%u K %u orient %u: coefficient %u is %d, not %d\n", w, h,
                        K, orient, i, out[i], want);
                bad = 1;
                break;
            }
        }
        CHECK(!bad);
        /* damaged copies: random bytes, truncations; with more than one stripe (8 rows), a
         * length beyond the data and an over-long varint */
        uint8_t *copy = malloc((size_t)len + 8);
        for (int k = 0; k < 4; k++) {
            memcpy(copy, buf, (size_t)len);
            seg.data = copy;
            seg.len = (uint32_t)(k == 0 ? tsr_rng_range(rng, 0, (int)len) : len);
            if (k == 1)
                copy[tsr_rng_range(rng, 0, (int)len - 1)] ^= (uint8_t)tsr_rng_range(rng, 1, 255);
            if (k == 2 && h > 8) { /* the first stripe length made absurd */
                copy[0] = 0xFF;
                copy[1] = 0xFF;
                copy[2] = 0x7F;
                seg.len = len < 3 ? 3 : (uint32_t)len;
            }
            if (k == 3 && h > 8) { /* an over-long varint */
                copy[0] = copy[1] = copy[2] = 0x80;
                seg.len = len < 4 ? 4 : (uint32_t)len;
                copy[3] = 1;
            }
            memset(out, 0xA5, 4096 * sizeof *out);
            const int r = tsr__fns_decode(&blk, ws, tsr__fns_workspace_size(), out, w);
            CHECK(r == TSR__T1_OK || r == TSR__T1_CORRUPT);
            if (k >= 2 && h > 8) {
                CHECK(r == TSR__T1_CORRUPT);
                int zero = 1;
                for (uint32_t i = 0; i < n; i++)
                    zero &= out[i] == 0;
                CHECK(zero);
            }
        }
        free(copy);
        seg.data = buf;
        seg.len = (uint32_t)len;
    }
    void *ws = wsb;
    /* contract edges: nothing coded, ROI, more passes than one */
    tsr__t1_seg seg = {buf, 0, 0};
    tsr__t1_block blk = {8, 8, 0, 0, 0, 10, 0, 1, 0, 0, &seg};
    memset(out, 0xA5, 64 * sizeof *out);
    CHECK(tsr__fns_decode(&blk, ws, tsr__fns_workspace_size(), out, 8) == TSR__T1_OK);
    CHECK(out[0] == 0 && out[63] == 0);
    blk.npasses = 1;
    blk.nsegs = 1;
    seg.npasses = 1;
    blk.roi_shift = 3;
    CHECK(tsr__fns_decode(&blk, ws, tsr__fns_workspace_size(), out, 8) == TSR__T1_UNSUPPORTED);
    blk.roi_shift = 0;
    blk.npasses = seg.npasses = 2;
    CHECK(tsr__fns_decode(&blk, ws, tsr__fns_workspace_size(), out, 8) == TSR__T1_CORRUPT);
    blk.npasses = seg.npasses = 1;
    blk.zero_bp = 11;
    CHECK(tsr__fns_decode(&blk, ws, tsr__fns_workspace_size(), out, 8) == TSR__T1_CORRUPT);
    CHECK(tsr__fns_decode(&blk, ws, 16, out, 8) == TSR__T1_EINVAL);
    CHECK(tsr__fns_encode_block(coef, 8, 8, 0, 5, buf, 10) == -1);
    free(coef);
    free(out);
    free(buf);
    free(wsb);
}

/* ---- the mode end to end ------------------------------------------------------------------ */
static void fill(tsr_rng *rng, tsr_image *img)
{
    const int wide = img->depth == TSR_U16, kind = tsr_rng_range(rng, 0, 2);
    const uint32_t maxv = wide ? 65535 : 255;
    for (int32_t y = 0; y < img->height; y++)
        for (int32_t x = 0; x < img->width * img->channels; x++) {
            uint32_t v = kind == 0   ? (uint32_t)(tsr_rng_next(rng) % (maxv + 1))
                         : kind == 1 ? ((uint32_t)(x * 5 + y * 3) * (wide ? 131u : 1u) +
                                        (uint32_t)tsr_rng_range(rng, 0, 5)) %
                                           (maxv + 1)
                                     : maxv / 3;
            uint8_t *row = (uint8_t *)img->data + (size_t)y * img->stride;
            if (wide)
                ((uint16_t *)(void *)row)[x] = (uint16_t)v;
            else
                row[x] = (uint8_t)v;
        }
}

/* Decodes data into a fresh image (poisoned first); 0 on success. */
static tsr_status decode(const uint8_t *data, size_t len, tsr_image *out, tsr_j2k_result *res)
{
    tsr_image desc;
    tsr_status st = tsr_j2k_decode_image_layout(g_ctx, data, len, NULL, &desc);
    if (st)
        return st;
    if ((st = tsr_image_alloc(g_ctx, out, desc.width, desc.height, desc.channels, desc.depth)))
        return st;
    memset(out->data, 0xA5, out->stride * (size_t)out->height);
    st = tsr_j2k_decode_image(g_ctx, data, len, NULL, out, res);
    if (st)
        tsr_image_free(g_ctx, out);
    return st;
}

static int same_image(const tsr_image *a, const tsr_image *b)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels ||
        a->depth != b->depth)
        return 0;
    const size_t row = (size_t)a->width * a->channels * tsr_depth_size(a->depth);
    for (int32_t y = 0; y < a->height; y++)
        if (memcmp((const uint8_t *)a->data + (size_t)y * a->stride,
                   (const uint8_t *)b->data + (size_t)y * b->stride, row))
            return 0;
    return 1;
}

static void test_lossless(tsr_rng *rng)
{
    static const int sizes[][2] = {{1, 1}, {17, 3}, {4097, 3}, {3, 70}, {130, 67}, {64, 64}};
    static const uint32_t cblks[][2] = {{64, 64}, {4, 4}, {32, 16}, {1024, 4}, {4, 1024}};
    for (int t = 0; t < 24; t++) {
        tsr_image img;
        const int ch = 1 + t % 4;
        const tsr_depth depth = (t / 4) % 2 ? TSR_U16 : TSR_U8;
        CHECK_OK(g_ctx, tsr_image_alloc(g_ctx, &img, sizes[t % 6][0], sizes[t % 6][1], ch, depth));
        fill(rng, &img);
        tsr_j2k_encode_options opt;
        tsr_j2k_encode_options_init(&opt);
        opt.mode = TSR_J2K_MODE_FAST_NONSTANDARD;
        opt.cblk_width = cblks[t % 5][0];
        opt.cblk_height = cblks[t % 5][1];
        if (t % 3 == 2) {
            opt.tile_width = 48;
            opt.tile_height = 32;
        }
        if (t % 7 == 3)
            opt.container = TSR_J2K_JP2;
        uint8_t *data = NULL;
        size_t len = 0;
        CHECK_OK(g_ctx, tsr_j2k_encode(g_ctx, &img, &opt, &data, &len));
        tsr_j2k_info info;
        CHECK_OK(g_ctx, tsr_j2k_read_header(g_ctx, data, len, &info, NULL, 0));
        CHECK(info.nonstandard == 1);
        tsr_image out;
        tsr_j2k_result res;
        CHECK_OK(g_ctx, decode(data, len, &out, &res));
        CHECK(res.warnings == 0);
        const int same = same_image(&img, &out);
        if (!same)
            fprintf(stderr, "lossless %dx%d x%d %s cblk %ux%u: differs\n", img.width, img.height,
                    ch, depth == TSR_U16 ? "16-bit" : "8-bit", opt.cblk_width, opt.cblk_height);
        CHECK(same);
        tsr_image_free(g_ctx, &out);
        /* truncated files: an error or a warning, never a crash */
        for (int k = 1; k <= 3; k++) {
            const size_t cut = len * (size_t)k / 4;
            tsr_image o2;
            tsr_j2k_result r2;
            memset(&r2, 0, sizeof r2);
            const tsr_status st = decode(data, cut, &o2, &r2);
            CHECK(st != TSR_OK || r2.truncated || r2.warnings);
            if (!st)
                tsr_image_free(g_ctx, &o2);
        }
        tsr_j2k_free(g_ctx, data);
        tsr_image_free(g_ctx, &img);
    }
}

static void test_lossy(tsr_rng *rng)
{
    for (int t = 0; t < 6; t++) {
        tsr_image img;
        CHECK_OK(g_ctx, tsr_image_alloc(g_ctx, &img, 97 + 31 * t, 75, 1 + t % 4,
                                        t % 2 ? TSR_U16 : TSR_U8));
        fill(rng, &img);
        tsr_j2k_encode_options opt;
        tsr_j2k_encode_options_init(&opt);
        opt.lossless = 0;
        opt.quant_step = t % 3 == 0 ? 1.0f / 64 : t % 3 == 1 ? 1.0f / 512 : 1.0f / 16;
        if (t == 4)
            opt.tile_width = opt.tile_height = 40;
        uint8_t *a = NULL, *b = NULL;
        size_t la = 0, lb = 0;
        CHECK_OK(g_ctx, tsr_j2k_encode(g_ctx, &img, &opt, &a, &la));
        opt.mode = TSR_J2K_MODE_FAST_NONSTANDARD;
        CHECK_OK(g_ctx, tsr_j2k_encode(g_ctx, &img, &opt, &b, &lb));
        tsr_j2k_info ia, ib;
        CHECK_OK(g_ctx, tsr_j2k_read_header(g_ctx, a, la, &ia, NULL, 0));
        CHECK_OK(g_ctx, tsr_j2k_read_header(g_ctx, b, lb, &ib, NULL, 0));
        CHECK(ia.nonstandard == 0 && ib.nonstandard == 1);
        tsr_image da, db;
        tsr_j2k_result ra, rb;
        CHECK_OK(g_ctx, decode(a, la, &da, &ra));
        CHECK_OK(g_ctx, decode(b, lb, &db, &rb));
        const int same = same_image(&da, &db);
        if (!same)
            fprintf(stderr, "lossy %d: the fast decode differs from the standard one\n", t);
        CHECK(same && ra.warnings == 0 && rb.warnings == 0);
        tsr_image_free(g_ctx, &da);
        tsr_image_free(g_ctx, &db);
        tsr_j2k_free(g_ctx, a);
        tsr_j2k_free(g_ctx, b);
        tsr_image_free(g_ctx, &img);
    }
}

static void test_refused(void)
{
    tsr_image img;
    CHECK_OK(g_ctx, tsr_image_alloc(g_ctx, &img, 16, 16, 3, TSR_U8));
    memset(img.data, 7, img.stride * 16);
    for (int k = 0; k < 5; k++) {
        tsr_j2k_encode_options opt;
        tsr_j2k_encode_options_init(&opt);
        opt.mode = TSR_J2K_MODE_FAST_NONSTANDARD;
        if (k == 0)
            opt.ht = 1;
        else if (k == 1) {
            opt.lossless = 0;
            opt.num_rates = 1;
            opt.rates[0] = 1;
        } else if (k == 2) {
            opt.lossless = 0;
            opt.num_psnrs = 1;
            opt.psnrs[0] = 30;
        } else if (k == 3)
            opt.layers = 3;
        else
            opt.mode = 7;
        uint8_t *data = NULL;
        size_t len = 0;
        const tsr_status st = tsr_j2k_encode(g_ctx, &img, &opt, &data, &len);
        CHECK(st == (k == 4 ? TSR_ERR_INVALID_ARGUMENT : TSR_ERR_UNSUPPORTED) && !data);
    }
    tsr_image_free(g_ctx, &img);
}

int main(void)
{
    g_ctx = tsr_test_reference_ctx();
    tsr_rng rng;
    tsr_rng_seed(&rng, 0xfa57);
    test_blocks(&rng);
    test_lossless(&rng);
    test_lossy(&rng);
    test_refused();
    tsr_ctx_destroy(g_ctx);
    return tsr_test_finish("test_j2k_fast_nonstandard");
}
