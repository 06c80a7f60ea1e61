/* The exact-2x linear upscale kernel's thread body (src/resize/resize_up2.h, run by
 * resize_cuda.cu's k_up2_u8) on the CPU, no GPU needed: every thread of every block of the
 * launch shape the CUDA backend uses, with aligned and unaligned rows, into a poisoned output,
 * against the reference backend, on random sizes (1 to 4 channels, widths and heights from 1,
 * odd and even) and on the benchmark's 1080p -> 4K shape. Also checks that plan.up2 is set
 * exactly for linear 2x on both axes (not for one axis only, other ratios, area or cubic). */
#include "testlib.h"

#include "resize/plan.h"
#include "resize/resize_up2.h"
#include "tessera/tessera.h"

#include <stdlib.h>
#include <string.h>

static tsr_ctx *ref;

/* Emulates k_up2_u8 with th source rows per block over a w x h (cn) image with row strides ss
 * and ds (bytes); al_src / al_dst as the host would find them. */
static void emulate(const uint8_t *src, int32_t ss, uint8_t *dst, int32_t ds, int32_t w, int32_t h,
                    int cn, int th, int al_src, int al_dst)
{
    const int32_t threads = (w + 3) / 4;
    for (int32_t m0 = 0; m0 < h; m0 += th)
        for (int32_t t = threads - 1; t >= 0; t--)
            tsr__up2_thread(src, ss, dst, ds, w, h, cn, t, m0, th, al_src, al_dst, NULL);
}

static int plan_up2(int sw, int sh, int dw, int dh, int cn, tsr_interp interp)
{
    tsr__resize_plan pl;
    CHECK_OK(ref, tsr__resize_plan_build(ref, &pl, sw, sh, dw, dh, cn, TSR_U8, interp,
                                         (double)dw / sw, (double)dh / sh));
    const int up2 = pl.up2;
    tsr__resize_plan_free(ref, &pl);
    return up2;
}

/* One size: reference output vs the emulation for rows per thread th from 1 to 8 (UP2_THMAX in
 * resize_cuda.cu; up2_rows picks any value in between) and both alignments. */
static void one(tsr_rng *r, int w, int h, int cn)
{
    CHECK(plan_up2(w, h, 2 * w, 2 * h, cn, TSR_INTERP_LINEAR) == (w > 1));
    if (w == 1)
        return; /* xmax = 0 there: the plan takes the generic kernels */
    const int32_t ss = w * cn + 8, ds = 2 * w * cn + 16;          /* 8-byte multiples plus slack */
    const int32_t ss16 = (ss + 15) & ~15, ds16 = (ds + 15) & ~15; /* 16-byte rows */
    uint8_t *src = malloc((size_t)ss16 * h + 16), *want = malloc((size_t)ds16 * 2 * h);
    uint8_t *got = malloc((size_t)ds16 * 2 * h + 16);
    tsr_rng_fill(r, src, (size_t)ss16 * h + 16);
    tsr_image si = {w, h, cn, TSR_U8, (size_t)ss16, src, TSR_MEMORY_HOST};
    tsr_image wi = {2 * w, 2 * h, cn, TSR_U8, (size_t)ds16, want, TSR_MEMORY_HOST};
    tsr_resize_options o;
    tsr_resize_options_init(&o);
    o.interp = TSR_INTERP_LINEAR;
    CHECK_OK(ref, tsr_resize(ref, &si, &wi, &o));
    /* the same rows at odd addresses with an odd stride: the unaligned (byte) paths */
    const int32_t us = ss16 + 1, ud = ds16 + 1;
    uint8_t *usrc = malloc((size_t)us * h + 1), *ugot = malloc((size_t)ud * 2 * h + 1);
    for (int y = 0; y < h; y++)
        memcpy(usrc + 1 + (size_t)y * us, src + (size_t)y * ss16, (size_t)w * cn);
    static const int ths[] = {1, 2, 3, 4, 5, 6, 7, 8};
    for (size_t ti = 0; ti < sizeof ths / sizeof ths[0]; ti++)
        for (int al = 0; al < 2; al++) {
            const int th = ths[ti];
            const int32_t s_st = al ? ss16 : us, d_st = al ? ds16 : ud;
            const uint8_t *sp = al ? src : usrc + 1;
            uint8_t *dbuf = al ? got : ugot, *dp = al ? got : ugot + 1;
            memset(dbuf, 0xA5, al ? (size_t)ds16 * 2 * h + 16 : (size_t)ud * 2 * h + 1);
            emulate(sp, s_st, dp, d_st, w, h, cn, th, al, al);
            int bad = 0;
            for (int y = 0; y < 2 * h; y++)
                bad |=
                    memcmp(dp + (size_t)y * d_st, want + (size_t)y * ds16, (size_t)2 * w * cn) != 0;
            if (bad)
                fprintf(stderr, "up2 %dx%d cn %d th %d al %d differs\n", w, h, cn, th, al);
            CHECK(!bad);
        }
    free(usrc);
    free(ugot);
    free(src);
    free(want);
    free(got);
}

int main(void)
{
    ref = tsr_test_reference_ctx();
    tsr_rng rng;
    tsr_rng_seed(&rng, 2026);
    /* plan.up2 only for linear, exactly 2x on both axes */
    CHECK(!plan_up2(40, 30, 80, 61, 3, TSR_INTERP_LINEAR));
    CHECK(!plan_up2(40, 30, 81, 60, 3, TSR_INTERP_LINEAR));
    CHECK(!plan_up2(40, 30, 80, 30, 3, TSR_INTERP_LINEAR));
    CHECK(!plan_up2(40, 30, 80, 60, 3, TSR_INTERP_AREA));
    CHECK(!plan_up2(40, 30, 80, 60, 3, TSR_INTERP_CUBIC));
    CHECK(!plan_up2(40, 30, 120, 90, 3, TSR_INTERP_LINEAR));
    for (int cn = 1; cn <= 4; cn++)
        for (int w = 1; w <= 12; w++)
            for (int h = 1; h <= 5; h++)
                one(&rng, w, h, cn);
    for (int i = 0; i < 60; i++)
        one(&rng, tsr_rng_range(&rng, 1, 300), tsr_rng_range(&rng, 1, 40),
            tsr_rng_range(&rng, 1, 4));
    one(&rng, 1920, 1080, 3);
    tsr_ctx_destroy(ref);
    return tsr_test_finish("test_resize_up2_logic");
}
