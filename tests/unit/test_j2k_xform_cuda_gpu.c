/* The decoder's device stages (j2k/xform_cuda.h) against the CPU's, bit for bit.
 *
 * Inverse DWT: random coefficients (5/3: integers; 9/7: floats of a dequantised band's
 * magnitude, as bits) of tile-components of many sizes (1x1, 1xN, Nx1, thin, one row segment
 * and several, one column segment and several) at even and odd origins, 0..6 levels, the
 * resolutions' geometry from tsr__tcd_init (the decoder's), rows padded past their width with
 * poison and a poisoned row after the last; the device's whole buffer must equal the CPU's
 * (tsr__dwt53_inverse2 / tsr__dwt97_inverse2, one thread) byte for byte, so the padding stays
 * untouched.
 *
 * Output: random sources (integers around and beyond the clamp bounds, floats with ties, NaN,
 * infinities, huge values) for 1..4 channels of precisions 1..16 (and a few of 23..31, the
 * store rule's wide float path), signed and unsigned, narrow and wide, exact and scaled, with
 * the RCT, the ICT or no colour transform, over a random region of a random image (poisoned
 * with 0x7f); the device's image must equal, byte for byte, what the CPU's row path writes
 * (tsr__mct_*_inverse in place, tsr__j2k_store_row_base in place, tsr__j2k_pixels_row).
 * Skips (77) where there is no CUDA device. */
#include "testlib.h"

#include "cuda/cuda_device.h"
#include "j2k/decode_stages.h"
#include "j2k/xform_cuda.h"
#include "j2k_tilecomp.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POISON 0x7f7f7f7f

/* One inverse DWT case; returns 0 on a mismatch (or failure). */
static int dwt_case(tsr_ctx *ctx, tsr_rng *rng, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h,
                    uint32_t levels, int rev)
{
    tsr__j2k_tilecomp tc;
    if (!j2k_test_geometry(ctx, x0, y0, w, h, levels, rev, &tc))
        return 0;
    tc.stride = tc.data_w + (size_t)tsr_rng_range(rng, 0, 5);
    const size_t n = tc.stride * (tc.data_h + 1); /* a poisoned row after the last */
    int32_t *want = malloc(n * sizeof *want), *got = malloc(n * sizeof *got);
    int32_t *scratch = malloc(tsr__dwt_scratch_per_thread(&tc) * sizeof *scratch);
    int32_t *dev = NULL;
    int ok = want && got && scratch && cudaMalloc((void **)&dev, n * sizeof *dev) == cudaSuccess;
    if (ok) {
        for (size_t i = 0; i < n; i++) {
            const size_t y = i / tc.stride, x = i % tc.stride;
            if (y >= tc.data_h || x >= tc.data_w) {
                want[i] = POISON;
            } else if (rev) {
                want[i] = tsr_rng_range(rng, -30000, 30000);
            } else {
                const float f = (float)tsr_rng_range(rng, -(1 << 20), 1 << 20) / 256.0f;
                memcpy(&want[i], &f, sizeof f);
            }
        }
        ok = cudaMemcpy(dev, want, n * sizeof *dev, cudaMemcpyHostToDevice) == cudaSuccess &&
             cudaDeviceSynchronize() == cudaSuccess;
    }
    if (ok) {
        tc.data = want;
        if (rev)
            tsr__dwt53_inverse2(&tc, tc.dec_res, scratch, 1);
        else
            tsr__dwt97_inverse2(&tc, tc.dec_res, scratch, 1);
        const tsr_status st = tsr__j2k_idwt_cuda(ctx, dev, tc.stride, tc.res, tc.dec_res, rev);
        if (st != TSR_OK)
            fprintf(stderr, "tsr__j2k_idwt_cuda: %s\n", tsr_ctx_last_error(ctx));
        memset(got, 0, n * sizeof *got);
        ok = st == TSR_OK && cudaDeviceSynchronize() == cudaSuccess &&
             cudaMemcpy(got, dev, n * sizeof *got, cudaMemcpyDeviceToHost) == cudaSuccess;
    }
    if (ok && memcmp(want, got, n * sizeof *got)) {
        size_t i = 0;
        while (want[i] == got[i])
            i++;
        fprintf(stderr,
                "dwt %s %ux%u at (%u, %u), %u levels: first difference at row %zu column %zu "
                "(cpu 0x%08x, cuda 0x%08x)\n",
                rev ? "5/3" : "9/7", w, h, x0, y0, levels, i / tc.stride, i % tc.stride,
                (unsigned)want[i], (unsigned)got[i]);
        ok = 0;
    }
    cudaFree(dev);
    free(want);
    free(got);
    free(scratch);
    return ok;
}

static void test_dwt(tsr_ctx *ctx, tsr_rng *rng)
{
    static const uint32_t sizes[][2] = {{1, 1},    {1, 45},   {45, 1},    {1, 300},
                                        {4097, 1}, {17, 3},   {33, 65},   {1024, 7},
                                        {4097, 3}, {70, 250}, {2100, 130}};
    static const uint32_t origins[][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}, {6, 13}, {37, 2}};
    int cases = 0, bad = 0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t o = 0; o < sizeof origins / sizeof origins[0]; o++)
            for (uint32_t levels = 0; levels <= 6; levels++)
                for (int rev = 0; rev < 2; rev++) {
                    cases++;
                    if (!dwt_case(ctx, rng, origins[o][0], origins[o][1], sizes[s][0], sizes[s][1],
                                  levels, rev))
                        bad++;
                }
    printf("inverse DWT: %d cases, %d differ\n", cases, bad);
    CHECK(bad == 0);
}

/* ---- output ------------------------------------------------------------------------------ */

/* A random source sample for a channel of bounds [lo, hi]: integers around and beyond the
 * bounds, or floats (bits) with ties, specials and huge values. */
static int32_t out_sample(tsr_rng *rng, int is_float, int64_t lo, int64_t hi)
{
    const int k = tsr_rng_range(rng, 0, 9);
    const int64_t span = hi - lo + 1;
    if (!is_float) {
        const int64_t v = lo - span / 2 + (int64_t)(tsr_rng_next(rng) % (uint64_t)(2 * span));
        if (k == 0)
            return tsr_rng_range(rng, -(1 << 24), 1 << 24);
        return (int32_t)(v < -(1 << 30) ? -(1 << 30) : v > (1 << 30) ? (1 << 30) : v);
    }
    static const float special[] = {0.5f,   -0.5f,  1.5f,  -2.5f,  1e10f,
                                    -1e10f, 4.1e9f, -0.0f, 1e-40f, 8388607.5f};
    float f;
    if (k == 0) {
        const uint32_t bits = (uint32_t)tsr_rng_next(rng); /* NaN, infinities, denormals */
        memcpy(&f, &bits, sizeof f);
    } else if (k == 1) {
        f = special[tsr_rng_range(rng, 0, 9)];
    } else if (k < 4) {
        f = (float)(lo + (int64_t)(tsr_rng_next(rng) % (uint64_t)span)) + 0.5f; /* ties */
    } else {
        f = (float)((double)lo - (double)span / 4 +
                    (double)(tsr_rng_next(rng) % 1000001) / 1e6 * 1.5 * (double)span);
    }
    int32_t v;
    memcpy(&v, &f, sizeof v);
    return v;
}

/* One output case; returns 0 on a mismatch (or failure). */
static int out_case(tsr_ctx *ctx, tsr_rng *rng, uint32_t nchan, int mct, int wide, int big)
{
    /* the tile-component (shared by every channel): its origin and size; the region inside
     * it; the image around the region */
    const int64_t sx0 = tsr_rng_range(rng, 0, 9), sy0 = tsr_rng_range(rng, 0, 9);
    const int64_t sw = big ? tsr_rng_range(rng, 600, 1100) : tsr_rng_range(rng, 1, 70);
    const int64_t sh = big ? tsr_rng_range(rng, 100, 300) : tsr_rng_range(rng, 1, 40);
    const int64_t x0 = sx0 + tsr_rng_range(rng, 0, (int)(sw - 1) / 3);
    const int64_t y0 = sy0 + tsr_rng_range(rng, 0, (int)(sh - 1) / 3);
    const int64_t x1 = x0 + 1 + tsr_rng_range(rng, 0, (int)(sx0 + sw - x0 - 1));
    const int64_t y1 = y0 + 1 + tsr_rng_range(rng, 0, (int)(sy0 + sh - y0 - 1));
    const int64_t dx0 = x0 - tsr_rng_range(rng, 0, 3), dy0 = y0 - tsr_rng_range(rng, 0, 2);
    const size_t iw = (size_t)(x1 - dx0 + tsr_rng_range(rng, 0, 3));
    const size_t ih = (size_t)(y1 - dy0 + tsr_rng_range(rng, 0, 2));
    const size_t pixel = nchan * (wide ? 2u : 1u);
    const size_t dstride = iw * pixel + (size_t)tsr_rng_range(rng, 0, 7);

    /* channels: component c, precision and signedness; all equal to the output's for some
     * cases (the exact packing) */
    tsr_j2k_plane planes[4];
    memset(planes, 0, sizeof planes);
    const int exact = tsr_rng_range(rng, 0, 2) == 0;
    const int far = !exact && tsr_rng_range(rng, 0, 5) == 0;
    for (uint32_t c = 0; c < nchan; c++) {
        planes[c].precision = exact ? (wide ? 16u : 8u)
                              : far ? (uint32_t)tsr_rng_range(rng, 23, 31)
                                    : (uint32_t)tsr_rng_range(rng, 1, 16);
        planes[c].is_signed = tsr_rng_range(rng, 0, 1);
    }
    tsr__j2k_pixels pix;
    tsr__j2k_pixels_init(&pix, planes, nchan, wide);

    /* the sources: components 0 .. max(nchan, 3 with a transform) - 1, own strides */
    const uint32_t ncomp = mct && nchan < 3 ? 3 : nchan;
    int32_t *host[4] = {NULL, NULL, NULL, NULL}, *dev[4] = {NULL, NULL, NULL, NULL};
    size_t sstride[4];
    int is_float[4];
    int64_t lo[4], hi[4], shift[4];
    int ok = 1;
    for (uint32_t c = 0; c < ncomp; c++) {
        const uint32_t p = c < nchan ? planes[c].precision : 8;
        const int sg = c < nchan ? planes[c].is_signed : 0;
        lo[c] = sg ? -((int64_t)1 << (p - 1)) : 0;
        hi[c] = sg ? ((int64_t)1 << (p - 1)) - 1 : ((int64_t)1 << p) - 1;
        shift[c] = sg ? 0 : (int64_t)1 << (p - 1);
        is_float[c] = c < 3 && mct ? mct == 2 : tsr_rng_range(rng, 0, 1);
        sstride[c] = (size_t)sw + (size_t)tsr_rng_range(rng, 0, 4);
        const size_t n = sstride[c] * (size_t)sh;
        host[c] = malloc(n * sizeof(int32_t));
        if (!host[c] || cudaMalloc((void **)&dev[c], n * sizeof(int32_t)) != cudaSuccess) {
            ok = 0;
            break;
        }
        for (size_t i = 0; i < n; i++)
            host[c][i] = c < 3 && mct == 1 ? tsr_rng_range(rng, -(1 << 20), 1 << 20)
                                           : out_sample(rng, is_float[c], lo[c], hi[c]);
        ok = ok && cudaMemcpy(dev[c], host[c], n * sizeof(int32_t), cudaMemcpyHostToDevice) ==
                       cudaSuccess;
    }
    unsigned char *want = malloc(dstride * ih), *got = malloc(dstride * ih), *dimg = NULL;
    ok = ok && want && got && cudaMalloc((void **)&dimg, dstride * ih) == cudaSuccess &&
         cudaMemset(dimg, 0x7f, dstride * ih) == cudaSuccess &&
         cudaDeviceSynchronize() == cudaSuccess;
    if (ok) {
        /* the device first: the CPU path changes the sources in place */
        tsr__j2k_dev_output o;
        memset(&o, 0, sizeof o);
        o.nchan = nchan;
        for (uint32_t c = 0; c < nchan; c++) {
            tsr__j2k_dev_chan *d = &o.chan[c];
            d->src = dev[c];
            d->src_stride = sstride[c];
            d->src_x0 = sx0;
            d->src_y0 = sy0;
            d->lo = lo[c];
            d->hi = hi[c];
            d->shift = shift[c];
            d->is_float = is_float[c];
            d->off = pix.off[c];
            d->num = pix.num[c];
            d->den = pix.den[c];
            d->comp = c;
        }
        o.mct = mct;
        for (int k = 0; k < 3 && mct; k++) {
            o.mct_src[k] = dev[k];
            o.mct_stride[k] = sstride[k];
        }
        o.x0 = x0;
        o.y0 = y0;
        o.x1 = x1;
        o.y1 = y1;
        o.dst = dimg;
        o.dst_stride = dstride;
        o.dst_x0 = dx0;
        o.dst_y0 = dy0;
        o.wide = wide;
        o.exact = pix.exact;
        const tsr_status st = tsr__j2k_output_cuda(ctx, &o);
        if (st != TSR_OK)
            fprintf(stderr, "tsr__j2k_output_cuda: %s\n", tsr_ctx_last_error(ctx));
        ok = st == TSR_OK && cudaDeviceSynchronize() == cudaSuccess &&
             cudaMemcpy(got, dimg, dstride * ih, cudaMemcpyDeviceToHost) == cudaSuccess;
    }
    if (ok) {
        /* the CPU's output_row: transform over whole rows, store in place, pixels */
        memset(want, 0x7f, dstride * ih);
        tsr__j2k_store_plan plan[4];
        for (uint32_t c = 0; c < nchan; c++) {
            tsr__j2k_store_plan *s = &plan[c];
            memset(s, 0, sizeof *s);
            s->row = tsr__j2k_store_row_base;
            s->src = host[c];
            s->src_stride = sstride[c];
            s->p = &planes[c];
            s->x0 = x0;
            s->y0 = y0;
            s->x1 = x1;
            s->y1 = y1;
            s->src_x0 = sx0;
            s->src_y0 = sy0;
            s->lo = lo[c];
            s->hi = hi[c];
            s->shift = shift[c];
            s->is_float = is_float[c];
        }
        for (int64_t y = sy0; y < sy0 + sh; y++) {
            const size_t r = (size_t)(y - sy0);
            if (mct == 1)
                tsr__mct_rct_inverse(host[0] + r * sstride[0], host[1] + r * sstride[1],
                                     host[2] + r * sstride[2], (size_t)sw);
            else if (mct == 2)
                tsr__mct_ict_inverse((float *)(host[0] + r * sstride[0]),
                                     (float *)(host[1] + r * sstride[1]),
                                     (float *)(host[2] + r * sstride[2]), (size_t)sw);
            if (y < y0 || y >= y1)
                continue;
            const int32_t *px[4] = {NULL, NULL, NULL, NULL};
            for (uint32_t c = 0; c < nchan; c++) {
                int32_t *row = host[c] + r * sstride[c] + (size_t)(x0 - sx0);
                plan[c].row(&plan[c], y, row);
                px[c] = row;
            }
            tsr__j2k_pixels_row(&pix, px, (uint32_t)(x1 - x0),
                                want + (size_t)(y - dy0) * dstride + (size_t)(x0 - dx0) * pixel);
        }
        if (memcmp(want, got, dstride * ih)) {
            size_t i = 0;
            while (want[i] == got[i])
                i++;
            fprintf(stderr,
                    "output: %u channels, mct %d, %s, precisions %u %u %u %u (signed %d %d %d "
                    "%d), float %d %d %d %d: first difference at image row %zu byte %zu (cpu "
                    "%u, cuda %u)\n",
                    nchan, mct, wide ? "16-bit" : "8-bit", planes[0].precision, planes[1].precision,
                    planes[2].precision, planes[3].precision, planes[0].is_signed,
                    planes[1].is_signed, planes[2].is_signed, planes[3].is_signed, is_float[0],
                    nchan > 1 ? is_float[1] : -1, nchan > 2 ? is_float[2] : -1,
                    nchan > 3 ? is_float[3] : -1, i / dstride, i % dstride, want[i], got[i]);
            ok = 0;
        }
    }
    for (uint32_t c = 0; c < ncomp; c++) {
        free(host[c]);
        cudaFree(dev[c]);
    }
    cudaFree(dimg);
    free(want);
    free(got);
    return ok;
}

static void test_output(tsr_ctx *ctx, tsr_rng *rng)
{
    int cases = 0, bad = 0;
    for (int rep = 0; rep < 12; rep++)
        for (uint32_t nchan = 1; nchan <= 4; nchan++)
            for (int mct = 0; mct <= 2; mct++)
                for (int wide = 0; wide < 2; wide++) {
                    cases++;
                    if (!out_case(ctx, rng, nchan, mct, wide, rep == 0))
                        bad++;
                }
    printf("output: %d cases, %d differ\n", cases, bad);
    CHECK(bad == 0);
}

/* Arguments the calls refuse, with a message and nothing written. */
static void test_refusals(tsr_ctx *ctx)
{
    tsr__j2k_dev_output o;
    memset(&o, 0, sizeof o);
    o.nchan = 5;
    CHECK_STATUS(tsr__j2k_output_cuda(ctx, &o), TSR_ERR_INVALID_ARGUMENT);
    tsr__j2k_res res[2];
    memset(res, 0, sizeof res);
    res[1].x1 = 10;
    res[1].y1 = 1;
    int32_t *dev = NULL;
    CHECK(cudaMalloc((void **)&dev, 64) == cudaSuccess);
    CHECK_STATUS(tsr__j2k_idwt_cuda(ctx, dev, 4, res, 2, 1), TSR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(tsr__j2k_idwt_cuda(ctx, dev, 16, res, 0, 1), TSR_ERR_INVALID_ARGUMENT);
    cudaFree(dev);
}

int main(void)
{
    if (tsr__cuda_device_count() < 1) {
        printf("test_j2k_xform_cuda_gpu: no CUDA device; skipping\n");
        return TSR_TEST_SKIP;
    }
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    opt.backend = TSR_BACKEND_CUDA;
    tsr_ctx *ctx = NULL;
    CHECK(tsr_ctx_create(&opt, &ctx) == TSR_OK);
    if (!ctx)
        return tsr_test_finish("test_j2k_xform_cuda_gpu");
    tsr_rng rng;
    tsr_rng_seed(&rng, 2000);
    test_dwt(ctx, &rng);
    test_output(ctx, &rng);
    test_refusals(ctx);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("test_j2k_xform_cuda_gpu");
}
