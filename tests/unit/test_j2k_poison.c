/* The decoder writes every sample of the caller's planes and nothing beyond: each codestream of
 * the conformance and HTJ2K sets and of the kept fuzz inputs is decoded twice into planes
 * prefilled with two different patterns (rows padded past the width), in full and with one of
 * --reduce 1, one layer, a region, one component (in turn; 1 and 2 threads). Both decodes must
 * return the same status and, when they succeed, the same samples, with the padding untouched: a
 * sample the decoder left alone would keep its two different patterns. Skips without
 * ../shared/data. */
#define _POSIX_C_SOURCE 200809L
#include "j2k_stream_walk.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

enum { PAD = 3 };
static int decoded;

/* Decodes into planes filled with `poison` (row padding included); *out receives them. */
static tsr_status decode_poisoned(tsr_ctx *ctx, const uint8_t *data, size_t len,
                                  const tsr_j2k_decode_options *o, int32_t poison,
                                  tsr_j2k_plane **out, uint32_t *n)
{
    *out = NULL;
    *n = 0;
    tsr_status st = tsr_j2k_decode_layout(ctx, data, len, o, NULL, n);
    if (st || *n == 0)
        return st;
    tsr_j2k_plane *p = calloc(*n, sizeof *p);
    if (!p)
        return TSR_ERR_OUT_OF_MEMORY;
    *out = p;
    if ((st = tsr_j2k_decode_layout(ctx, data, len, o, p, n)))
        return st;
    uint64_t total = 0;
    for (uint32_t i = 0; i < *n; i++)
        total += (uint64_t)(p[i].width + PAD) * p[i].height;
    if (total > ((uint64_t)1 << 26)) /* a fuzz input declaring a huge image: not this test's */
        return TSR_ERR_LIMIT;
    for (uint32_t i = 0; i < *n; i++) {
        p[i].stride = p[i].width + PAD;
        size_t m = p[i].stride * (p[i].height ? p[i].height : 1);
        p[i].data = malloc(m * sizeof *p[i].data);
        if (!p[i].data)
            return TSR_ERR_OUT_OF_MEMORY;
        for (size_t k = 0; k < m; k++)
            p[i].data[k] = poison;
    }
    return tsr_j2k_decode(ctx, data, len, o, p, *n, NULL);
}

static void free_planes(tsr_j2k_plane *p, uint32_t n)
{
    for (uint32_t i = 0; p && i < n; i++)
        free(p[i].data);
    free(p);
}

/* The full decode and one of the other four option sets, taking turns from stream to stream. */
static void check_stream(tsr_ctx *ctx, const char *path, const uint8_t *data, size_t len,
                         const tsr_j2k_info *info, int turn)
{
    const uint32_t comp0 = 0;
    for (int v = 0; v < 5; v = v ? 5 : 1 + turn % 4) {
        tsr_j2k_decode_options o;
        tsr_j2k_decode_options_init(&o);
        o.threads = 1 + (v & 1);
        if (v == 1)
            o.reduce = info->levels > 0 ? 1 : 0;
        if (v == 2)
            o.layers = 1;
        if (v == 3) {
            o.region_x = info->width / 4;
            o.region_y = info->height / 3;
            o.region_w = info->width / 2 + 1;
            o.region_h = info->height / 3 + 1;
        }
        if (v == 4) {
            o.components = &comp0;
            o.num_components = 1;
        }
        tsr_j2k_plane *a, *b;
        uint32_t na, nb;
        tsr_status sa = decode_poisoned(ctx, data, len, &o, (int32_t)0x5A5A5A5A, &a, &na);
        tsr_status sb = decode_poisoned(ctx, data, len, &o, (int32_t)0xA5A5A5A5, &b, &nb);
        CHECK(sa == sb && na == nb);
        if (sa == TSR_OK && sb == TSR_OK && na == nb) {
            int same = 1, pad = 1;
            for (uint32_t i = 0; i < na; i++)
                for (uint32_t y = 0; y < a[i].height; y++) {
                    const int32_t *ra = a[i].data + (size_t)y * a[i].stride;
                    const int32_t *rb = b[i].data + (size_t)y * b[i].stride;
                    if (memcmp(ra, rb, a[i].width * sizeof *ra))
                        same = 0;
                    for (uint32_t x = a[i].width; x < a[i].stride; x++)
                        if (ra[x] != (int32_t)0x5A5A5A5A || rb[x] != (int32_t)0xA5A5A5A5)
                            pad = 0;
                }
            if (!same || !pad)
                fprintf(stderr, "%s, options %d: %s\n", path, v,
                        !same ? "a sample left unwritten" : "a write past the row's end");
            CHECK(same && pad);
            decoded++;
        }
        free_planes(a, na);
        free_planes(b, nb);
    }
}

static void check_path(const char *path, const uint8_t *data, size_t len, const tsr_j2k_info *info,
                       void *user)
{
    static int turn;
    check_stream(user, path, data, len, info, turn++);
}

int main(void)
{
    tsr_ctx *ctx;
    if (tsr_ctx_create(NULL, &ctx) != TSR_OK)
        return 1;
    if (!j2k_walk_streams(ctx, check_path, ctx)) {
        printf("SKIP: ../shared/data/j2k is absent\n");
        tsr_ctx_destroy(ctx);
        return TSR_TEST_SKIP;
    }
    printf("poisoned decodes compared: %d\n", decoded);
    CHECK(decoded > 150);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("test_j2k_poison");
}
