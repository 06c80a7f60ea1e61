/* The exact 3:2 downscale kernel's thread body (src/resize/resize_dn32.h, run by
 * resize_cuda.cu's k_dn32_u8) on the CPU, no GPU needed: every thread of the launch, with aligned
 * and unaligned rows, into a poisoned output, against the reference backend, linear, area and
 * nearest, on random 3:2 sizes (1 to 4 channels, widths with and without a partial last thread)
 * and on 1920x1080 -> 1280x720. Also checks that plan.dn32 is set exactly for u8 linear, area and
 * nearest at 3:2 on both axes (not one axis only, other ratios, cubic, u16 or f32). */
#include "testlib.h"

#include "resize/plan.h"
#include "resize/resize_dn32.h"
#include "tessera/tessera.h"

#include <stdlib.h>
#include <string.h>

static tsr_ctx *ref;

static int plan_dn32(int sw, int sh, int dw, int dh, tsr_depth depth, tsr_interp interp)
{
    tsr__resize_plan pl;
    CHECK_OK(ref, tsr__resize_plan_build(ref, &pl, sw, sh, dw, dh, 3, depth, interp,
                                         (double)dw / sw, (double)dh / sh));
    const int dn32 = pl.dn32;
    tsr__resize_plan_free(ref, &pl);
    return dn32;
}

/* Emulates k_dn32_u8 for the plan of sw x sh -> dw x dh into dst (row stride ds). */
static void emulate(const tsr__resize_plan *pl, const uint8_t *src, int32_t ss, uint8_t *dst,
                    int32_t ds, int al)
{
    float w[8] = {0};
    if (pl->dn32 == TSR__DN32_AREA)
        for (int i = 0; i < 4; i++) {
            w[i] = ((const float *)pl->table[TSR__RT_XCOEF])[i];
            w[4 + i] = ((const float *)pl->table[TSR__RT_YCOEF])[i];
        }
    const int32_t threads = (pl->dst_w + 7) / 8;
    for (int32_t k = pl->dst_h / 2 - 1; k >= 0; k--)
        for (int32_t t = 0; t < threads; t++)
            tsr__dn32_thread(src, ss, dst, ds, pl->dst_w, pl->cn, t, k, pl->dn32, w, al, al);
}

/* One size and interpolation: the reference vs the emulation, aligned and unaligned rows. */
static void one(tsr_rng *r, int m, int n, int cn, tsr_interp interp)
{
    const int sw = 3 * m, sh = 3 * n, dw = 2 * m, dh = 2 * n;
    tsr__resize_plan pl;
    CHECK_OK(ref, tsr__resize_plan_build(ref, &pl, sw, sh, dw, dh, cn, TSR_U8, interp,
                                         (double)dw / sw, (double)dh / sh));
    CHECK(pl.dn32 == (interp == TSR_INTERP_LINEAR ? TSR__DN32_LINEAR
                      : interp == TSR_INTERP_AREA ? TSR__DN32_AREA
                                                  : TSR__DN32_NEAREST));
    if (!pl.dn32) {
        fprintf(stderr, "dn32 not planned for %dx%d -> %dx%d interp %d\n", sw, sh, dw, dh, interp);
        tsr__resize_plan_free(ref, &pl);
        return;
    }
    const int32_t ss = (sw * cn + 8 + 15) & ~15, ds = (dw * cn + 16 + 15) & ~15; /* 16-byte rows */
    uint8_t *src = malloc((size_t)ss * sh + 16), *want = malloc((size_t)ds * dh);
    uint8_t *got = malloc((size_t)ds * dh + 16);
    tsr_rng_fill(r, src, (size_t)ss * sh + 16);
    tsr_image si = {sw, sh, cn, TSR_U8, (size_t)ss, src, TSR_MEMORY_HOST};
    tsr_image wi = {dw, dh, cn, TSR_U8, (size_t)ds, want, TSR_MEMORY_HOST};
    tsr_resize_options o;
    tsr_resize_options_init(&o);
    o.interp = interp;
    CHECK_OK(ref, tsr_resize(ref, &si, &wi, &o));
    /* the same rows at odd addresses with an odd stride: the unaligned (byte) paths */
    const int32_t us = ss + 1, ud = ds + 1;
    uint8_t *usrc = malloc((size_t)us * sh + 1), *ugot = malloc((size_t)ud * dh + 1);
    for (int y = 0; y < sh; y++)
        memcpy(usrc + 1 + (size_t)y * us, src + (size_t)y * ss, (size_t)sw * cn);
    for (int al = 0; al < 2; al++) {
        const int32_t d_st = al ? ds : ud;
        uint8_t *dp = al ? got : ugot + 1;
        memset(al ? got : ugot, 0xA5, al ? (size_t)ds * dh + 16 : (size_t)ud * dh + 1);
        emulate(&pl, al ? src : usrc + 1, al ? ss : us, dp, d_st, al);
        int bad = 0;
        for (int y = 0; y < dh; y++)
            bad |= memcmp(dp + (size_t)y * d_st, want + (size_t)y * ds, (size_t)dw * cn) != 0;
        if (bad)
            fprintf(stderr, "dn32 %dx%d cn %d interp %d al %d differs\n", sw, sh, cn, interp, al);
        CHECK(!bad);
    }
    tsr__resize_plan_free(ref, &pl);
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
    /* plan.dn32 only for u8 linear and area, exactly 3:2 on both axes */
    CHECK(plan_dn32(48, 30, 32, 20, TSR_U8, TSR_INTERP_LINEAR) == TSR__DN32_LINEAR);
    CHECK(plan_dn32(48, 30, 32, 20, TSR_U8, TSR_INTERP_AREA) == TSR__DN32_AREA);
    CHECK(!plan_dn32(48, 30, 32, 30, TSR_U8, TSR_INTERP_LINEAR));
    CHECK(!plan_dn32(48, 30, 32, 21, TSR_U8, TSR_INTERP_AREA));
    CHECK(!plan_dn32(48, 30, 33, 20, TSR_U8, TSR_INTERP_LINEAR));
    CHECK(plan_dn32(48, 30, 32, 20, TSR_U8, TSR_INTERP_NEAREST) == TSR__DN32_NEAREST);
    CHECK(!plan_dn32(48, 30, 32, 21, TSR_U8, TSR_INTERP_NEAREST));
    CHECK(!plan_dn32(48, 30, 32, 20, TSR_F32, TSR_INTERP_NEAREST));
    CHECK(!plan_dn32(48, 30, 32, 20, TSR_U8, TSR_INTERP_CUBIC));
    CHECK(!plan_dn32(48, 30, 32, 20, TSR_U16, TSR_INTERP_LINEAR));
    CHECK(!plan_dn32(48, 30, 32, 20, TSR_U16, TSR_INTERP_AREA));
    CHECK(!plan_dn32(48, 30, 16, 10, TSR_U8, TSR_INTERP_LINEAR));
    for (int cn = 1; cn <= 4; cn++)
        for (int m = 1; m <= 9; m++)
            for (int n = 1; n <= 3; n++) {
                one(&rng, m, n, cn, TSR_INTERP_LINEAR);
                one(&rng, m, n, cn, TSR_INTERP_AREA);
                one(&rng, m, n, cn, TSR_INTERP_NEAREST);
            }
    for (int i = 0; i < 40; i++) {
        const int m = tsr_rng_range(&rng, 1, 200), n = tsr_rng_range(&rng, 1, 20);
        const int cn = tsr_rng_range(&rng, 1, 4);
        one(&rng, m, n, cn, TSR_INTERP_LINEAR);
        one(&rng, m, n, cn, TSR_INTERP_AREA);
        one(&rng, m, n, cn, TSR_INTERP_NEAREST);
    }
    one(&rng, 640, 360, 3, TSR_INTERP_LINEAR);
    one(&rng, 640, 360, 3, TSR_INTERP_AREA);
    one(&rng, 640, 360, 3, TSR_INTERP_NEAREST);
    tsr_ctx_destroy(ref);
    return tsr_test_finish("test_resize_dn32_logic");
}
