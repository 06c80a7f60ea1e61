/* Shared body of the GPU-backend resize tests (test_resize_opencl.c, test_resize_cuda_gpu.c):
 * every path, interpolation, depth and channel count on fresh random inputs, outputs poisoned
 * before each run with two different patterns (so every element must be written), many sizes
 * (1-pixel outputs, one axis only, exact 2x/3x, odd widths, padded strides), compared byte for
 * byte with the reference backend. TSR_TEST_QUICK=1 runs a reduced set (for sanitizers). */
#ifndef TSR_RESIZE_BACKEND_CHECK_H
#define TSR_RESIZE_BACKEND_CHECK_H

#include "testlib.h"

#include <stdlib.h>
#include <string.h>

typedef struct rb_size {
    int sw, sh, dw, dh;
} rb_size;

static const rb_size rb_sizes[] = {
    {1, 1, 1, 1},
    {1, 1, 5, 3},
    {7, 5, 1, 1},
    {9, 7, 9, 7},
    {16, 16, 8, 8},
    {17, 13, 8, 6},
    {18, 12, 6, 4},
    {33, 21, 66, 42},
    {31, 9, 31, 20},
    {31, 9, 12, 9},
    {40, 30, 13, 11},
    {64, 48, 17, 64},
    {5, 3, 11, 7},
    {97, 61, 50, 33},
    {97, 61, 29, 17},
    {120, 80, 39, 26},
    {301, 7, 100, 7},
    {200, 150, 521, 313},
    {640, 360, 213, 120},
    {129, 257, 1, 255},
    {3, 400, 9, 10},
    /* exact 3:2 (resize_dn32.h), one with a partial last thread */
    {48, 30, 32, 20},
    {21, 9, 14, 6},
    {303, 45, 202, 30},
    /* exact 2x with full warps of k_up2_u8 threads and a partial one */
    {300, 20, 600, 40},
};
static const tsr_interp rb_interps[] = {TSR_INTERP_NEAREST,  TSR_INTERP_LINEAR,
                                        TSR_INTERP_CUBIC,    TSR_INTERP_AREA,
                                        TSR_INTERP_LANCZOS4, TSR_INTERP_LINEAR_EXACT};
static const tsr_depth rb_depths[] = {TSR_U8, TSR_U16, TSR_F32};

/* Fills an image with random samples: any byte pattern for u8/u16, finite floats in
 * [-64, 320) with random fractions for f32 (so negative and out-of-range values occur). */
static void rb_fill(tsr_rng *r, tsr_image *img)
{
    size_t row = (size_t)img->width * img->channels * tsr_depth_size(img->depth);
    for (int y = 0; y < img->height; y++) {
        unsigned char *p = (unsigned char *)img->data + (size_t)y * img->stride;
        if (img->depth == TSR_F32) {
            float *f = (float *)p;
            for (size_t i = 0; i < row / 4; i++)
                f[i] = (float)((int)(tsr_rng_next(r) % 384) - 64) +
                       (float)(tsr_rng_next(r) % 65536) / 65536.0f;
        } else {
            tsr_rng_fill(r, p, row);
        }
    }
}

/* Host image with a padded stride (pad bytes beyond the row). */
static int rb_alloc(tsr_ctx *ctx, tsr_image *img, int w, int h, int cn, tsr_depth d, int pad)
{
    (void)ctx;
    memset(img, 0, sizeof *img);
    img->width = w, img->height = h, img->channels = cn, img->depth = d;
    img->stride = (size_t)w * cn * tsr_depth_size(d) + (size_t)pad * tsr_depth_size(d);
    img->data = malloc(img->stride * (size_t)h);
    img->memory = TSR_MEMORY_HOST;
    return img->data != NULL;
}

static int rb_rows_equal(const tsr_image *a, const tsr_image *b)
{
    size_t row = (size_t)a->width * a->channels * tsr_depth_size(a->depth);
    for (int y = 0; y < a->height; y++)
        if (memcmp((const char *)a->data + (size_t)y * a->stride,
                   (const char *)b->data + (size_t)y * b->stride, row))
            return 0;
    return 1;
}

static void rb_poison(tsr_image *img, int pattern)
{
    memset(img->data, pattern, img->stride * (size_t)img->height);
}

/* Runs the backend under test on host images src -> dst (the test file supplies it: the CUDA
 * test can route through device memory). Returns the status. */
typedef tsr_status (*rb_run_fn)(tsr_ctx *ctx, const tsr_image *src, tsr_image *dst,
                                const tsr_resize_options *opt, void *user);

/* The sweep: for every size, interp, depth and channel count, reference vs backend. */
static void rb_sweep(tsr_ctx *ref, tsr_ctx *ctx, rb_run_fn run, void *user, const char *label)
{
    tsr_rng rng;
    tsr_rng_seed(&rng, 20261129);
    int quick = tsr_test_quick();
    int mismatches = 0, cases = 0;
    size_t nsizes = sizeof rb_sizes / sizeof rb_sizes[0];
    for (size_t si = 0; si < nsizes; si++) {
        for (size_t ii = 0; ii < sizeof rb_interps / sizeof rb_interps[0]; ii++) {
            for (size_t di = 0; di < sizeof rb_depths / sizeof rb_depths[0]; di++) {
                for (int cn = 1; cn <= 4; cn++) {
                    if (quick && (si % 3 != 0 || (cn != 3 && cn != 1)))
                        continue;
                    const rb_size *z = &rb_sizes[si];
                    tsr_interp ip = rb_interps[ii];
                    tsr_depth d = rb_depths[di];
                    if (ip == TSR_INTERP_LINEAR_EXACT && d == TSR_F32)
                        continue; /* OpenCV has no f32 linear-exact */
                    tsr_image src, want, got;
                    int pad = (int)(si % 3) * 3;
                    if (!rb_alloc(ctx, &src, z->sw, z->sh, cn, d, pad) ||
                        !rb_alloc(ctx, &want, z->dw, z->dh, cn, d, pad ? 1 : 0) ||
                        !rb_alloc(ctx, &got, z->dw, z->dh, cn, d, (int)(si % 2) * 5)) {
                        CHECK(0 && "out of memory");
                        return;
                    }
                    rb_fill(&rng, &src);
                    tsr_resize_options opt;
                    tsr_resize_options_init(&opt);
                    opt.interp = ip;
                    rb_poison(&want, 0x3c);
                    tsr_status rs = tsr_resize(ref, &src, &want, &opt);
                    if (rs == TSR_ERR_UNSUPPORTED) { /* a combination the reference rejects */
                        tsr_status bs = run(ctx, &src, &got, &opt, user);
                        CHECK(bs == TSR_ERR_UNSUPPORTED);
                    } else {
                        CHECK_OK(ref, rs);
                        for (int pass = 0; pass < 2; pass++) {
                            rb_poison(&got, pass ? 0xa5 : 0x5a);
                            tsr_status bs = run(ctx, &src, &got, &opt, user);
                            CHECK_OK(ctx, bs);
                            cases++;
                            if (bs == TSR_OK && !rb_rows_equal(&want, &got)) {
                                mismatches++;
                                if (mismatches <= 12)
                                    fprintf(stderr,
                                            "%s: mismatch %dx%d -> %dx%d %s depth %d cn %d "
                                            "(poison pass %d)\n",
                                            label, z->sw, z->sh, z->dw, z->dh, tsr_interp_name(ip),
                                            (int)d, cn, pass);
                            }
                        }
                    }
                    free(src.data);
                    free(want.data);
                    free(got.data);
                }
            }
        }
    }
    CHECK(mismatches == 0);
    printf("%s: %d runs compared with the reference, %d mismatches\n", label, cases, mismatches);
}

/* Explicit scale factors (fx, fy given, as cv::resize with dsize empty) and a large-ish random
 * case per interpolation, u8 3 channels. */
static void rb_factors(tsr_ctx *ref, tsr_ctx *ctx, rb_run_fn run, void *user, const char *label)
{
    static const double f[][2] = {
        {0.5, 0.5}, {2.0, 2.0}, {1.0 / 3, 1.0 / 3}, {0.7, 1.3}, {1.5, 0.25}};
    tsr_rng rng;
    tsr_rng_seed(&rng, 7);
    int bad = 0;
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
        for (size_t ii = 0; ii < sizeof rb_interps / sizeof rb_interps[0]; ii++) {
            int sw = 211, sh = 137, dw, dh;
            CHECK_OK(ctx, tsr_resize_size(sw, sh, f[k][0], f[k][1], &dw, &dh));
            tsr_image src, want, got;
            if (!rb_alloc(ctx, &src, sw, sh, 3, TSR_U8, 0) ||
                !rb_alloc(ctx, &want, dw, dh, 3, TSR_U8, 0) ||
                !rb_alloc(ctx, &got, dw, dh, 3, TSR_U8, 0))
                return;
            rb_fill(&rng, &src);
            tsr_resize_options opt;
            tsr_resize_options_init(&opt);
            opt.interp = rb_interps[ii];
            opt.scale_x = f[k][0], opt.scale_y = f[k][1];
            CHECK_OK(ref, tsr_resize(ref, &src, &want, &opt));
            rb_poison(&got, 0x77);
            CHECK_OK(ctx, run(ctx, &src, &got, &opt, user));
            if (!rb_rows_equal(&want, &got)) {
                bad++;
                fprintf(stderr, "%s: factors %g,%g %s mismatch\n", label, f[k][0], f[k][1],
                        tsr_interp_name(rb_interps[ii]));
            }
            free(src.data);
            free(want.data);
            free(got.data);
        }
    }
    CHECK(bad == 0);
}

#endif
