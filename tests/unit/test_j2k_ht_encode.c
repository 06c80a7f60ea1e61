/* HT cleanup-pass encoder (ht_encode.c): blocks of random coefficients of every size class
 * (1x1 .. 64x64, 1024x4, 4x1024, odd sizes), sparse to dense, small to 2^29 magnitudes, coded
 * and decoded by tsr__t1_decode (one HT cleanup pass, zero bit-planes Mb - 1) into poisoned
 * output and workspace: the coefficients come back exactly, without warnings, with the scalar
 * and the AVX2 cleanup decoders. The all-zero block codes nothing. */
#include "j2k/ht_encode.h"
#include "j2k/t1.h"
#include "j2k/t1_internal.h"
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static int32_t g_coef[4096], g_out[4096];
static uint8_t *g_buf;
static void *g_ws;
static size_t g_wss;

static void gen(tsr_rng *rng, uint32_t n, int K)
{
    const int kind = tsr_rng_range(rng, 0, 3);
    for (uint32_t i = 0; i < n; i++) {
        int32_t v = 0;
        const int r = tsr_rng_range(rng, 0, 99);
        const int keep = kind == 0 ? r < 3 : kind == 1 ? r < 30 : kind == 2 ? 1 : r < 70;
        if (keep) {
            const int bits = kind == 2 ? tsr_rng_range(rng, 0, K) : K;
            v = bits ? (int32_t)(tsr_rng_next(rng) & ((1ull << bits) - 1)) : 0;
            if (tsr_rng_range(rng, 0, 1))
                v = -v;
        }
        g_coef[i] = v;
    }
}

static int one(uint32_t w, uint32_t h, int K, int rev)
{
    const size_t cap = tsr__ht_encode_bound(w, h);
    const long len = tsr__ht_encode_block(g_coef, w, h, g_buf, cap);
    int any = 0;
    for (uint32_t i = 0; i < w * h; i++)
        any |= g_coef[i] != 0;
    if (!any)
        return len == 0;
    if (len < 2)
        return 0;
    const int mb = K + 1;
    tsr__t1_seg seg = {.data = g_buf, .len = (uint32_t)len, .npasses = 1};
    tsr__t1_block blk = {.w = w,
                         .h = h,
                         .orient = 0,
                         .style = TSR__T1_STYLE_HT,
                         .zero_bp = (uint8_t)(mb - 1),
                         .mb = (uint8_t)mb,
                         .roi_shift = 0,
                         .reversible = (uint8_t)rev,
                         .npasses = 1,
                         .nsegs = 1,
                         .segs = &seg};
    for (int simd = 0; simd < 2; simd++) {
        tsr__ht_set_simd(simd);
        memset(g_ws, 0xA5, g_wss);
        for (uint32_t i = 0; i < w * h; i++)
            g_out[i] = 0x55555555;
        unsigned warn = 0;
        const int rc = tsr__t1_decode(&blk, g_ws, g_wss, g_out, w, &warn);
        if (rc != TSR__T1_OK) {
            fprintf(stderr, "%ux%u K %d simd %d: decode rc %d warn %u\n", w, h, K, simd, rc, warn);
            return 0;
        }
        for (uint32_t i = 0; i < w * h; i++) {
            const int32_t m = g_coef[i] < 0 ? -g_coef[i] : g_coef[i];
            /* reversible: the integer; irreversible: 2 mu + 1 half steps (the bin's middle) */
            const int32_t want = rev ? g_coef[i]
                                 : m ? (g_coef[i] < 0 ? -(2 * m + 1) : 2 * m + 1)
                                     : 0;
            if (g_out[i] != want) {
                fprintf(stderr, "%ux%u K %d simd %d: sample %u is %d, not %d\n", w, h, K, simd, i,
                        g_out[i], want);
                return 0;
            }
        }
    }
    return 1;
}

int main(void)
{
    tsr_rng rng;
    tsr_rng_seed(&rng, 0x4854454E43ull);
    g_wss = tsr__t1_workspace_size();
    g_ws = malloc(g_wss);
    g_buf = malloc(tsr__ht_encode_bound(1024, 4));
    if (!g_ws || !g_buf)
        return 1;
    static const uint32_t sizes[][2] = {
        {1, 1},   {1, 2},   {2, 1},   {3, 3},   {4, 4},    {5, 7},    {17, 3},  {8, 8},    {16, 16},
        {32, 32}, {64, 64}, {33, 64}, {64, 63}, {1024, 4}, {4, 1024}, {257, 5}, {1023, 3}, {2, 64}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int t = 0; t < 24; t++) {
            const uint32_t w = sizes[s][0], h = sizes[s][1];
            if ((size_t)w * h > 4096)
                continue;
            const int K = t < 4    ? 1
                          : t < 16 ? tsr_rng_range(&rng, 1, 18)
                                   : tsr_rng_range(&rng, 1, 29);
            gen(&rng, w * h, K);
            CHECK(one(w, h, K, t & 1));
        }
    memset(g_coef, 0, sizeof g_coef);
    CHECK(tsr__ht_encode_block(g_coef, 64, 64, g_buf, tsr__ht_encode_bound(64, 64)) == 0);
    CHECK(tsr__ht_encode_block(g_coef, 2048, 2, g_buf, tsr__ht_encode_bound(2048, 2)) == -1);
    free(g_ws);
    free(g_buf);
    return tsr_test_finish("test_j2k_ht_encode");
}
