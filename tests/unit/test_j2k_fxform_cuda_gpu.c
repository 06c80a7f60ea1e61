/* The encoder's device transforms (j2k/fxform_cuda.h) against the CPU's, bit for bit.
 *
 * Forward DWT: random samples (5/3: integers of up to 18 bits, what 16-bit samples through the
 * RCT reach; 9/7: floats with fractions, as the ICT leaves them) of tile-components of odd and
 * even sizes (1x1, 1xN, Nx1, 17x3, 4097x3, several row and column segments, 1920x1080) at even
 * and odd origins (tiles past the first), 0..5 levels, the geometry from tsr__tcd_init (the
 * encoder's), rows padded past their width with poison and a poisoned row after the last; the
 * device's whole buffer must equal the CPU's (tsr__fdwt53 / tsr__fdwt97, one thread) byte for
 * byte, so the padding stays untouched.
 *
 * Samples: random 8- and 16-bit images of 1..4 channels (odd sizes, rows padded) through the
 * DC level shift, as integers or floats, with and without the RCT / ICT; the device's planes
 * (poisoned first, padded) must equal tsr__j2k_level_shift1 then tsr__mct_rct_forward /
 * tsr__mct_ict_forward on the host. (The quantisation runs per code-block in the block coders:
 * test_j2k_enc_blocks_cuda_gpu.) TSR_TEST_QUICK: fewer sizes. Skips (77) where there is no CUDA
 * device. */
#include "testlib.h"

#include "cuda/cuda_device.h"
#include "j2k/encode_stages.h"
#include "j2k/fxform_cuda.h"
#include "j2k/fxform_hd.h"
#include "j2k_tilecomp.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POISON 0x7f7f7f7f

static int quick;

/* The first differing element of two buffers of n int32 (n when equal). */
static size_t first_diff(const int32_t *a, const int32_t *b, size_t n)
{
    size_t i = 0;
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

/* One forward DWT case; returns 0 on a mismatch (or failure). */
static int dwt_case(tsr_ctx *ctx, tsr_rng *rng, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h,
                    uint32_t levels, int rev)
{
    tsr__j2k_tilecomp tc;
    if (!j2k_test_geometry(ctx, x0, y0, w, h, levels, rev, &tc))
        return 0;
    tc.stride = w + (size_t)tsr_rng_range(rng, 0, 5);
    const size_t n = tc.stride * ((size_t)h + 1); /* a poisoned row after the last */
    const size_t line = w > h ? w : h;
    int32_t *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    int32_t *tmp = malloc(line * sizeof *tmp);
    int32_t *dev = NULL;
    int ok = want && got && tmp && cudaMalloc((void **)&dev, n * sizeof *dev) == cudaSuccess;
    if (ok) {
        for (size_t i = 0; i < n; i++) {
            const size_t y = i / tc.stride, x = i % tc.stride;
            if (y >= h || x >= w) {
                want[i] = POISON;
            } else if (rev) {
                want[i] = tsr_rng_range(rng, -131072, 131071);
            } else {
                const float f = (float)tsr_rng_range(rng, -(1 << 24), 1 << 24) / 128.0f;
                memcpy(&want[i], &f, sizeof f);
            }
        }
        ok = cudaMemcpy(dev, want, n * sizeof *dev, cudaMemcpyHostToDevice) == cudaSuccess &&
             cudaDeviceSynchronize() == cudaSuccess;
    }
    if (ok) {
        tc.data = want;
        if (rev)
            tsr__fdwt53(&tc, tmp, line, 1);
        else
            tsr__fdwt97(&tc, (float *)(void *)tmp, line, 1);
        const tsr_status st = tsr__j2k_fdwt_cuda(ctx, dev, tc.stride, tc.res, tc.numres, rev);
        if (st != TSR_OK)
            fprintf(stderr, "tsr__j2k_fdwt_cuda: %s\n", tsr_ctx_last_error(ctx));
        memset(got, 0, n * sizeof *got);
        ok = st == TSR_OK && cudaDeviceSynchronize() == cudaSuccess &&
             cudaMemcpy(got, dev, n * sizeof *got, cudaMemcpyDeviceToHost) == cudaSuccess;
    }
    if (ok && memcmp(want, got, n * sizeof *got)) {
        const size_t i = first_diff(want, got, n);
        fprintf(stderr,
                "forward dwt %s %ux%u at (%u, %u), %u levels: first difference at row %zu "
                "column %zu (cpu 0x%08x, cuda 0x%08x)\n",
                rev ? "5/3" : "9/7", w, h, x0, y0, levels, i / tc.stride, i % tc.stride,
                (unsigned)want[i], (unsigned)got[i]);
        ok = 0;
    }
    cudaFree(dev);
    free(want);
    free(got);
    free(tmp);
    return ok;
}

static void test_dwt(tsr_ctx *ctx, tsr_rng *rng)
{
    static const uint32_t sizes[][2] = {{1, 1},    {1, 45},   {45, 1},     {2, 2},
                                        {17, 3},   {3, 17},   {33, 65},    {1024, 7},
                                        {4097, 3}, {70, 250}, {2100, 130}, {1920, 1080}};
    static const uint32_t origins[][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {37, 2}};
    int cases = 0, bad = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const int big = (uint64_t)sizes[s][0] * sizes[s][1] > 200000;
        if (quick && big)
            continue;
        for (size_t o = 0; o < sizeof origins / sizeof origins[0]; o++) {
            if (big && o > 1)
                break;
            for (uint32_t levels = 0; levels <= 5; levels++)
                for (int rev = 0; rev < 2; rev++) {
                    cases++;
                    if (!dwt_case(ctx, rng, origins[o][0], origins[o][1], sizes[s][0], sizes[s][1],
                                  levels, rev))
                        bad++;
                }
        }
    }
    printf("forward DWT: %d cases, %d differ\n", cases, bad);
    CHECK(bad == 0);
}

/* One samples case; returns 0 on a mismatch (or failure). */
static int load_case(tsr_ctx *ctx, tsr_rng *rng, uint32_t w, uint32_t h, uint32_t nc, int wide,
                     int rev, int mct)
{
    const uint32_t prec = wide ? 16 : 8, bytes = wide ? 2 : 1;
    /* padded rows; 16-bit rows stay even (tsr__j2k_fload_cuda refuses odd ones: test_refusals) */
    const size_t sstride = (size_t)w * nc * bytes + (size_t)tsr_rng_range(rng, 0, 3) * bytes;
    const size_t dstride = w + (size_t)tsr_rng_range(rng, 0, 3);
    const size_t plane = dstride * h;
    unsigned char *img = malloc(sstride * h);
    int32_t *want = malloc(4 * plane * sizeof *want), *got = malloc(4 * plane * sizeof *got);
    unsigned char *dimg = NULL;
    int32_t *dev = NULL;
    int ok = img && want && got && cudaMalloc((void **)&dimg, sstride * h) == cudaSuccess &&
             cudaMalloc((void **)&dev, 4 * plane * sizeof *dev) == cudaSuccess;
    if (ok) {
        tsr_rng_fill(rng, img, sstride * h);
        for (size_t i = 0; i < 4 * plane; i++)
            want[i] = POISON;
        for (uint32_t c = 0; c < nc; c++)
            for (uint32_t y = 0; y < h; y++)
                for (uint32_t x = 0; x < w; x++) {
                    const unsigned char *row = img + (size_t)y * sstride;
                    const uint32_t v =
                        wide ? ((const uint16_t *)(const void *)row)[x * nc + c] : row[x * nc + c];
                    int32_t s = tsr__j2k_level_shift1(v, prec);
                    if (!rev) {
                        const float f = (float)s;
                        memcpy(&s, &f, sizeof s);
                    }
                    want[c * plane + y * dstride + x] = s;
                }
        if (mct && rev)
            for (uint32_t y = 0; y < h; y++)
                tsr__mct_rct_forward(want + y * dstride, want + plane + y * dstride,
                                     want + 2 * plane + y * dstride, w);
        else if (mct)
            for (uint32_t y = 0; y < h; y++)
                tsr__mct_ict_forward((float *)(void *)(want + y * dstride),
                                     (float *)(void *)(want + plane + y * dstride),
                                     (float *)(void *)(want + 2 * plane + y * dstride), w);
        ok = cudaMemcpy(dimg, img, sstride * h, cudaMemcpyHostToDevice) == cudaSuccess &&
             cudaMemset(dev, 0x7f, 4 * plane * sizeof *dev) == cudaSuccess &&
             /* the poison is written on the legacy stream, which the context's non-blocking
              * stream does not wait for: finish it before the call (the H200 run without this
              * saw it land after the kernel) */
             cudaDeviceSynchronize() == cudaSuccess;
    }
    if (ok) {
        tsr__j2k_dev_fload o;
        memset(&o, 0, sizeof o);
        o.src = dimg;
        o.src_stride = sstride;
        o.channels = nc;
        o.wide = wide;
        o.prec = prec;
        o.w = w;
        o.h = h;
        o.mct = mct;
        o.rev = rev;
        for (uint32_t c = 0; c < nc; c++)
            o.dst[c] = dev + c * plane;
        o.dst_stride = dstride;
        const tsr_status st = tsr__j2k_fload_cuda(ctx, &o);
        if (st != TSR_OK)
            fprintf(stderr, "tsr__j2k_fload_cuda: %s\n", tsr_ctx_last_error(ctx));
        ok = st == TSR_OK && cudaDeviceSynchronize() == cudaSuccess &&
             cudaMemcpy(got, dev, 4 * plane * sizeof *got, cudaMemcpyDeviceToHost) == cudaSuccess;
    }
    if (ok && memcmp(want, got, 4 * plane * sizeof *got)) {
        const size_t i = first_diff(want, got, 4 * plane);
        fprintf(stderr,
                "samples %ux%u, %u channels of %u bits, %s, mct %d: first difference in "
                "component %zu row %zu column %zu (cpu 0x%08x, cuda 0x%08x)\n",
                w, h, nc, prec, rev ? "int" : "float", mct, i / plane, i % plane / dstride,
                i % plane % dstride, (unsigned)want[i], (unsigned)got[i]);
        ok = 0;
    }
    cudaFree(dimg);
    cudaFree(dev);
    free(img);
    free(want);
    free(got);
    return ok;
}

static void test_load(tsr_ctx *ctx, tsr_rng *rng)
{
    static const uint32_t sizes[][2] = {{1, 1}, {17, 3}, {130, 7}, {4097, 3}, {301, 211}};
    int cases = 0, bad = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (uint32_t nc = 1; nc <= 4; nc++)
            for (int wide = 0; wide < 2; wide++)
                for (int rev = 0; rev < 2; rev++)
                    for (int mct = 0; mct <= (nc >= 3); mct++) {
                        cases++;
                        if (!load_case(ctx, rng, sizes[s][0], sizes[s][1], nc, wide, rev, mct))
                            bad++;
                    }
    printf("samples: %d cases, %d differ\n", cases, bad);
    CHECK(bad == 0);
}

/* Arguments the calls refuse, with a message and nothing written. */
static void test_refusals(tsr_ctx *ctx)
{
    tsr__j2k_dev_fload o;
    memset(&o, 0, sizeof o);
    o.channels = 5;
    o.prec = 8;
    CHECK_STATUS(tsr__j2k_fload_cuda(ctx, &o), TSR_ERR_INVALID_ARGUMENT);
    o.channels = 2;
    o.mct = 1;
    CHECK_STATUS(tsr__j2k_fload_cuda(ctx, &o), TSR_ERR_INVALID_ARGUMENT);
    o.mct = 0;
    o.wide = 1;
    o.prec = 16;
    o.src_stride = 35; /* odd: 16-bit loads would be misaligned */
    o.w = o.h = 1;
    CHECK_STATUS(tsr__j2k_fload_cuda(ctx, &o), TSR_ERR_INVALID_ARGUMENT);
    tsr__j2k_res res[2];
    memset(res, 0, sizeof res);
    res[1].x1 = 10;
    res[1].y1 = 1;
    int32_t *dev = NULL;
    CHECK(cudaMalloc((void **)&dev, 64) == cudaSuccess);
    CHECK_STATUS(tsr__j2k_fdwt_cuda(ctx, dev, 4, res, 2, 1), TSR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(tsr__j2k_fdwt_cuda(ctx, dev, 16, res, 0, 1), TSR_ERR_INVALID_ARGUMENT);
    cudaFree(dev);
}

int main(void)
{
    if (tsr__cuda_device_count() < 1) {
        printf("test_j2k_fxform_cuda_gpu: no CUDA device; skipping\n");
        return TSR_TEST_SKIP;
    }
    quick = tsr_test_quick();
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    opt.backend = TSR_BACKEND_CUDA;
    tsr_ctx *ctx = NULL;
    CHECK(tsr_ctx_create(&opt, &ctx) == TSR_OK);
    if (!ctx)
        return tsr_test_finish("test_j2k_fxform_cuda_gpu");
    tsr_rng rng;
    tsr_rng_seed(&rng, 2600);
    test_dwt(ctx, &rng);
    test_load(ctx, &rng);
    test_refusals(ctx);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("test_j2k_fxform_cuda_gpu");
}
