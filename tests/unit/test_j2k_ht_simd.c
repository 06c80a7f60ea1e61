/* The HT cleanup pass compiled for AVX2 (src/j2k/ht_decode_avx2.c) against the scalar reference
 * (ht_decode.c), both forced through tsr__ht_set_simd(): the same return code, warnings and output
 * samples (outputs poisoned with two different patterns, so an unwritten sample differs)
 * - on random code-blocks of random shapes, bit depths, ROI shifts, placeholder passes and
 *   random cleanup / refinement bytes with a valid Scup, and on every truncation of some of them;
 * - on every HTJ2K conformance codestream (../shared/data/j2k/htj2k), whole-image decodes at
 *   full and reduced resolution.
 * Skips (77) on a CPU or compiler without the AVX2 pass; the other j2k tests run whichever
 * pass this machine selects (AVX2 where present); test_j2k_builds compares the other builds. */
#include "j2k/t1_internal.h"
#include "tessera/j2k.h"
#include "ht_random_block.h"
#include "testlib.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *g_ws;
static size_t g_wss;

/* One decode with the given pass into out (w + 3) x h, poisoned with `poison` first. */
static int decode_with(int simd, tsr__t1_block *blk, int32_t *out, int32_t poison, unsigned *warn)
{
    const size_t n = (size_t)(blk->w + 3) * blk->h;
    for (size_t i = 0; i < n; i++)
        out[i] = poison;
    tsr__ht_set_simd(simd);
    return tsr__t1_decode(blk, g_ws, g_wss, out, blk->w + 3, warn);
}

/* Both passes on one block: 1 when they agree. */
static int same_block(tsr__t1_block *blk, int *rc_out)
{
    static int32_t a[1027 * 64], b[1027 * 64];
    unsigned wa = 0, wb = 0;
    const int ra = decode_with(0, blk, a, 0x55555555, &wa);
    const int rb = decode_with(1, blk, b, 0x2AAAAAAA, &wb);
    *rc_out = ra;
    int ok = ra == rb && wa == wb;
    for (uint32_t y = 0; y < blk->h && ok; y++)
        ok = memcmp(a + (size_t)y * (blk->w + 3), b + (size_t)y * (blk->w + 3),
                    blk->w * sizeof *a) == 0;
    return ok;
}

static void test_random_blocks(tsr_rng *rng)
{
    static uint8_t bytes[2][4096];
    int runs = 0, bad = 0, rcs[4] = {0};
    for (int t = 0; t < 20000; t++) {
        static const uint32_t shapes[][2] = {{64, 64}, {32, 32}, {1024, 4}, {4, 1024}, {3, 5},
                                             {1, 1},   {16, 64}, {63, 63},  {2, 2},    {5, 819}};
        uint32_t w = shapes[t % 10][0], h = shapes[t % 10][1];
        if (t % 3 == 0) {
            w = (uint32_t)tsr_rng_range(rng, 1, 64);
            h = (uint32_t)tsr_rng_range(rng, 1, 64);
        }
        const uint32_t lcup = (uint32_t)tsr_rng_range(rng, 2, t % 7 == 0 ? 4000 : 1200);
        tsr_rng_fill(rng, bytes[0], lcup);
        const uint32_t scup = (uint32_t)tsr_rng_range(rng, 2, (int)(lcup < 400 ? lcup : 400));
        bytes[0][lcup - 1] = (uint8_t)(scup >> 4);
        bytes[0][lcup - 2] = (uint8_t)((bytes[0][lcup - 2] & 0xF0) | (scup & 0x0F));
        const uint32_t lref = (uint32_t)tsr_rng_range(rng, 0, 300);
        tsr_rng_fill(rng, bytes[1], lref);
        tsr__t1_seg segs[3];
        tsr__t1_block blk = ht_random_block(rng, w, h, bytes[0], lcup, bytes[1], lref, segs, 3, 8);
        int rc;
        bad += !same_block(&blk, &rc);
        rcs[rc < 0 ? 2 : rc]++;
        runs++;
        if (t % 50)
            continue;
        for (uint32_t len = 0; len < lcup; len += 1 + lcup / 40) { /* truncations */
            segs[segs[0].npasses == 1 ? 0 : 1].len = len;          /* the cleanup segment */
            bad += !same_block(&blk, &rc);
            runs++;
        }
    }
    printf("HT AVX2 vs scalar, random blocks: %d decodes (%d ok, %d warn, %d corrupt), %d differ\n",
           runs, rcs[0], rcs[1], rcs[2], bad);
    CHECK(bad == 0);
    CHECK(rcs[0] > 100 && rcs[1] > 100);
}

/* Decodes data with the given pass; planes through the context. */
static tsr_status decode_stream(tsr_ctx *ctx, int simd, const uint8_t *data, size_t len,
                                uint32_t reduce, tsr_j2k_plane **pl, uint32_t *np,
                                tsr_j2k_result *res)
{
    tsr_j2k_decode_options opt;
    tsr_j2k_decode_options_init(&opt);
    opt.reduce = reduce;
    tsr__ht_set_simd(simd);
    *pl = NULL;
    *np = 0;
    return tsr_j2k_decode_alloc(ctx, data, len, &opt, pl, np, res);
}

static void test_streams(tsr_ctx *ctx, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        printf("SKIP part: %s absent\n", dir);
        return;
    }
    int streams = 0, bad = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        const char *x = strrchr(e->d_name, '.');
        if (!x || (strcmp(x, ".j2k") && strcmp(x, ".jhc") && strcmp(x, ".jph")))
            continue;
        char path[1300];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        uint8_t *data = tsr_test_read_file(path, &len);
        if (!data)
            continue;
        for (uint32_t reduce = 0; reduce <= 1; reduce++) {
            tsr_j2k_plane *pa, *pb;
            uint32_t na, nb;
            tsr_j2k_result ra, rb;
            const tsr_status sa = decode_stream(ctx, 0, data, len, reduce, &pa, &na, &ra);
            const tsr_status sb = decode_stream(ctx, 1, data, len, reduce, &pb, &nb, &rb);
            int ok = sa == sb && na == nb &&
                     (sa || (ra.truncated == rb.truncated && ra.warnings == rb.warnings &&
                             strcmp(ra.warning, rb.warning) == 0));
            for (uint32_t c = 0; ok && !sa && c < na; c++) {
                ok = pa[c].width == pb[c].width && pa[c].height == pb[c].height;
                for (uint32_t y = 0; ok && y < pa[c].height; y++)
                    ok = memcmp(pa[c].data + y * pa[c].stride, pb[c].data + y * pb[c].stride,
                                pa[c].width * sizeof(int32_t)) == 0;
            }
            if (!ok)
                printf("DIFF: %s reduce %u\n", e->d_name, reduce);
            bad += !ok;
            streams++;
            if (!sa)
                tsr_j2k_planes_free(ctx, pa, na);
            if (!sb)
                tsr_j2k_planes_free(ctx, pb, nb);
        }
        free(data);
    }
    closedir(d);
    printf("HT AVX2 vs scalar, %s: %d decodes, %d differ\n", dir, streams, bad);
    CHECK(streams > 0 && bad == 0);
}

int main(void)
{
    tsr__ht_set_simd(1);
    if (!tsr__ht_simd()) {
        printf("SKIP: no AVX2 HT cleanup pass on this CPU or compiler\n");
        return TSR_TEST_SKIP;
    }
    tsr_rng rng;
    tsr_rng_seed(&rng, 0x5ad2a5c1);
    g_wss = tsr__t1_workspace_size();
    g_ws = malloc(g_wss);
    test_random_blocks(&rng);
    free(g_ws);
    const char *data = tsr_test_data("j2k");
    if (data) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/htj2k", data);
        tsr_ctx_options o;
        tsr_ctx_options_init(&o);
        o.backend = TSR_BACKEND_CPU;
        tsr_ctx *ctx;
        CHECK(tsr_ctx_create(&o, &ctx) == TSR_OK);
        test_streams(ctx, dir);
        tsr_ctx_destroy(ctx);
    } else {
        printf("SKIP part: ../shared/data/j2k is absent\n");
    }
    return tsr_test_finish("test_j2k_ht_simd");
}
