/* tsr_j2k_decode_image against the planes: each codestream of the conformance and HTJ2K sets and
 * of the kept fuzz inputs is decoded in full and with one set of random options (reduced
 * resolution, layers, a region, a component subset or order, palette off; 1 or 2 threads) through
 * tsr_j2k_decode_alloc and through tsr_j2k_decode_image into images prefilled with two different
 * patterns (one tight, as the CLI's, where a banded tile may keep its resolution below the top in
 * the image's memory; one with rows padded past their end). The image entry must fail exactly where
 * the planes make no image (1-4 planes of one size, <= 16 bits) or the planes decode fails, with
 * the same status; otherwise both images must hold the planes' samples converted by the rule of
 * j2k.h (computed here independently, in 64-bit arithmetic), with the padding untouched.
 * tsr_j2k_decode_rows, with the same options, must give the same status, and its sink every row
 * once, in order, with the tight image's bytes; a sink that stops after its first call must get
 * no other call and the decode must return TSR_ERR_INTERRUPTED. Skips without ../shared/data. */
#define _POSIX_C_SOURCE 200809L
#include "j2k_stream_walk.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

enum { PAD = 7 };
static int compared, refused, streamed;

/* A row sink collecting the rows into a tight image (poisoned first), checking their order. */
typedef struct rows_got {
    uint8_t *img;
    size_t row;       /* bytes of a row */
    uint32_t height;  /* rows of the image */
    uint32_t next;    /* the row the next call must start at */
    uint32_t calls;   /* sink calls */
    int bad;          /* a call out of order, past the end, or with a short stride */
    uint32_t stop_at; /* return non-zero from this call on (0: never) */
} rows_got;

static int take_rows(void *user, const void *rows, size_t stride, uint32_t y, uint32_t count)
{
    rows_got *g = user;
    g->calls++;
    if (y != g->next || count < 1 || count > g->height - y || stride < g->row)
        g->bad = 1;
    else
        for (uint32_t i = 0; i < count; i++)
            memcpy(g->img + (size_t)(y + i) * g->row, (const uint8_t *)rows + i * stride, g->row);
    g->next = y + count;
    return g->stop_at && g->calls >= g->stop_at;
}

/* tsr_j2k_decode_rows with these options against the image decode (status want, tight image
 * ref when want is TSR_OK), then once more with a sink that stops at its first call. */
static void check_rows(tsr_ctx *ctx, const char *path, const uint8_t *data, size_t len,
                       const tsr_j2k_decode_options *o, const tsr_image *desc, tsr_status want,
                       const uint8_t *ref)
{
    const size_t row = (size_t)desc->width * (size_t)desc->channels *
                       (desc->depth == TSR_U16 ? 2 : 1),
                 bytes = row * (size_t)desc->height;
    rows_got g = {malloc(bytes), row, (uint32_t)desc->height, 0, 0, 0, 0};
    if (!g.img) {
        CHECK(0);
        return;
    }
    memset(g.img, 0xC3, bytes);
    tsr_status st = tsr_j2k_decode_rows(ctx, data, len, o, take_rows, &g, NULL);
    CHECK(st == want);
    CHECK(!g.bad);
    if (st == TSR_OK) {
        CHECK(g.next == g.height);
        CHECK(memcmp(g.img, ref, bytes) == 0);
        if (g.bad || g.next != g.height || memcmp(g.img, ref, bytes))
            fprintf(stderr, "%s: decode_rows gave other rows than decode_image\n", path);
        streamed++;
        rows_got s = {g.img, row, g.height, 0, 0, 0, 1};
        CHECK(tsr_j2k_decode_rows(ctx, data, len, o, take_rows, &s, NULL) == TSR_ERR_INTERRUPTED);
        CHECK(s.calls == 1 && !s.bad);
    } else if (st != want) {
        fprintf(stderr, "%s: decode_rows %d, decode_image %d\n", path, (int)st, (int)want);
    }
    free(g.img);
}

/* The pixel value of a plane sample by the rule of j2k.h. */
static uint32_t expect(const tsr_j2k_plane *p, int32_t v, int wide)
{
    const uint64_t m = wide ? 65535 : 255, den = ((uint64_t)1 << p->precision) - 1;
    const int64_t o = p->is_signed ? (int64_t)1 << (p->precision - 1) : 0;
    const uint64_t u = (uint64_t)((int64_t)v + o);
    return (uint32_t)((u * m * 2 + den) / (2 * den));
}

/* Whether the planes make an image, as j2k.h states it. */
static int makes_image(const tsr_j2k_plane *p, uint32_t n)
{
    if (n < 1 || n > 4 || p[0].width == 0 || p[0].height == 0)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (p[i].width != p[0].width || p[i].height != p[0].height || p[i].precision > 16)
            return 0;
    return 1;
}

static void check_options(tsr_ctx *ctx, const char *path, const uint8_t *data, size_t len,
                          const tsr_j2k_decode_options *o)
{
    tsr_j2k_plane *pl = NULL;
    uint32_t np = 0;
    uint32_t nl = 0;
    if (tsr_j2k_decode_layout(ctx, data, len, o, NULL, &nl) == TSR_OK && nl) {
        tsr_j2k_plane lay[64];
        uint32_t k = nl < 64 ? nl : 64; /* described: the first k; then k = all */
        if (tsr_j2k_decode_layout(ctx, data, len, o, lay, &k) == TSR_OK) {
            uint64_t total = 0;
            for (uint32_t i = 0; i < k && i < 64; i++)
                total += (uint64_t)lay[i].width * lay[i].height;
            if (total > ((uint64_t)1 << 24)) /* a fuzz input declaring a huge image */
                return;
        }
    }
    tsr_status sp = tsr_j2k_decode_alloc(ctx, data, len, o, &pl, &np, NULL);
    tsr_image desc;
    tsr_status sl = tsr_j2k_decode_image_layout(ctx, data, len, o, &desc);
    int want_image = sp == TSR_OK && makes_image(pl, np);
    if (sp == TSR_OK) {
        /* the layout refuses exactly the planes that make no image, with UNSUPPORTED */
        CHECK(want_image ? sl == TSR_OK : sl == TSR_ERR_UNSUPPORTED);
        if (want_image ? sl != TSR_OK : sl != TSR_ERR_UNSUPPORTED)
            fprintf(stderr, "%s: image layout status %d, planes %u\n", path, (int)sl, np);
    }
    if (sl != TSR_OK) {
        refused++;
        tsr_j2k_planes_free(ctx, pl, np);
        return;
    }
    const int wide = desc.depth == TSR_U16;
    const size_t es = wide ? 2 : 1, row = (size_t)desc.width * (size_t)desc.channels * es;
    const size_t strides[2] = {row, row + PAD * es}; /* tight (the CLI's), padded */
    uint8_t *img[2];
    tsr_status si[2];
    for (int k = 0; k < 2; k++) {
        img[k] = malloc(strides[k] * (size_t)desc.height);
        if (!img[k]) {
            CHECK(0);
            return;
        }
        memset(img[k], k ? 0xA5 : 0x5A, strides[k] * (size_t)desc.height);
        tsr_image out = desc;
        out.stride = strides[k];
        out.data = img[k];
        si[k] = tsr_j2k_decode_image(ctx, data, len, o, &out, NULL);
        CHECK(si[k] == sp);
        if (si[k] != sp)
            fprintf(stderr, "%s: decode_image %d, planes %d\n", path, (int)si[k], (int)sp);
    }
    if (sp == TSR_OK && si[0] == TSR_OK && si[1] == TSR_OK) {
        CHECK((uint32_t)desc.channels == np && (uint32_t)desc.width == pl[0].width &&
              (uint32_t)desc.height == pl[0].height);
        int bad = 0;
        for (int32_t y = 0; y < desc.height && !bad; y++)
            for (int k = 0; k < 2; k++) {
                const uint8_t *r = img[k] + (size_t)y * strides[k];
                for (int32_t x = 0; x < desc.width; x++)
                    for (uint32_t c = 0; c < np; c++) {
                        const size_t at = (size_t)x * np + c;
                        uint32_t got = wide ? ((const uint16_t *)r)[at] : r[at];
                        if (got != expect(&pl[c], pl[c].data[(size_t)y * pl[c].stride + x], wide))
                            bad = 1;
                    }
                for (size_t b = row; b < strides[k]; b++)
                    if (r[b] != (k ? 0xA5 : 0x5A))
                        bad = 2;
            }
        if (bad)
            fprintf(stderr, "%s: %s\n", path,
                    bad == 1 ? "a pixel differs from the planes" : "a write past the row's end");
        CHECK(!bad);
        compared++;
    }
    check_rows(ctx, path, data, len, o, &desc, si[0], img[0]);
    free(img[0]);
    free(img[1]);
    tsr_j2k_planes_free(ctx, pl, np);
}

static void check_stream(tsr_ctx *ctx, tsr_rng *rng, const char *path, const uint8_t *data,
                         size_t len, const tsr_j2k_info *info)
{
    uint32_t comps[4];
    for (int rep = 0; rep < 2; rep++) {
        tsr_j2k_decode_options o;
        tsr_j2k_decode_options_init(&o);
        o.threads = tsr_rng_range(rng, 1, 2);
        const int v = rep == 0 ? 0 : tsr_rng_range(rng, 1, 5);
        if (v == 1 && info->levels > 0)
            o.reduce = (uint32_t)tsr_rng_range(rng, 1, info->levels < 3 ? (int)info->levels : 3);
        if (v == 2)
            o.layers = 1;
        if (v == 3 && info->width > 1 && info->height > 1) {
            o.region_x = (uint32_t)tsr_rng_range(rng, 0, (int)(info->width - 1));
            o.region_y = (uint32_t)tsr_rng_range(rng, 0, (int)(info->height - 1));
            o.region_w = (uint32_t)tsr_rng_range(rng, 1, (int)info->width);
            o.region_h = (uint32_t)tsr_rng_range(rng, 1, (int)info->height);
        }
        if (v == 4 && info->num_components > 0) {
            /* a subset in some order */
            uint32_t n = (uint32_t)tsr_rng_range(
                rng, 1, info->num_components < 4 ? (int)info->num_components : 4);
            for (uint32_t i = 0; i < n; i++)
                comps[i] = (uint32_t)tsr_rng_range(rng, 0, (int)info->num_components - 1);
            int dup = 0;
            for (uint32_t i = 0; i < n; i++)
                for (uint32_t j = 0; j < i; j++)
                    dup |= comps[i] == comps[j];
            if (!dup) {
                o.components = comps;
                o.num_components = n;
            }
        }
        if (v == 5)
            o.apply_palette = 0;
        check_options(ctx, path, data, len, &o);
    }
}

typedef struct walk {
    tsr_ctx *ctx;
    tsr_rng *rng;
} walk;

static void check_path(const char *path, const uint8_t *data, size_t len, const tsr_j2k_info *info,
                       void *user)
{
    const walk *w = user;
    check_stream(w->ctx, w->rng, path, data, len, info);
}

int main(void)
{
    tsr_ctx *ctx;
    if (tsr_ctx_create(NULL, &ctx) != TSR_OK)
        return 1;
    tsr_rng rng;
    tsr_rng_seed(&rng, 20261130);
    walk w = {ctx, &rng};
    if (!j2k_walk_streams(ctx, check_path, &w)) {
        printf("SKIP: ../shared/data/j2k is absent\n");
        tsr_ctx_destroy(ctx);
        return TSR_TEST_SKIP;
    }
    printf("image decodes compared: %d, refused as no image: %d, row decodes compared: %d\n",
           compared, refused, streamed);
    CHECK(compared > 120 && streamed == compared);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("test_j2k_image");
}
