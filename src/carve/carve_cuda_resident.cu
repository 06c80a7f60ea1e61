/* The device-resident CUDA carve (carve_cuda.h's tsr__carve_remove_resident_cuda): the caller's
 * pixels are uploaded once, their luma is computed on the device (luma_hd.h), the seams are
 * found by pass_device.c's loop over carve_cuda.cu's pass (both modes), the removed pixels are
 * cut out of every row on the device (gather_kernel), and the result is downloaded once into the
 * caller's image; both copies go through a small page-locked ring (tsr__cuda_ring_*), whose
 * threaded copies also fault a fresh output in on every thread. The host touches no pixel: the work
 * a host grid costs (its copy, luma, the gather of rows and the copy out) is what this path saves.
 */
#include "cuda/cuda_internal.cuh"

extern "C" {
#include "carve/carve_cuda.h"
#include "carve/carve_cuda_pass.h"
#include "carve/pass_device.h"
#include "core/ctx.h"
}

#include <string.h>

namespace
{

enum { GATHER_THREADS = 256 };

/* Row y (= blockIdx.x) of dst (w - removed pixels of px bytes) = row y of src (w pixels) without
 * the columns rec[s * h + y], s < removed. A row whose removed columns are not `removed` distinct
 * columns below w sets *bad (and its output row is undefined). Shared memory: the row's removal
 * bitmap (words 32-bit words) and the removed count before each word. */
__global__ void __launch_bounds__(GATHER_THREADS)
    gather_kernel(uint8_t *__restrict__ dst, size_t dpitch, const uint8_t *__restrict__ src,
                  size_t spitch, const uint16_t *__restrict__ rec, int32_t h, int32_t w,
                  int32_t removed, int32_t px, int *bad)
{
    extern __shared__ uint32_t smem[];
    const int32_t words = (w + 31) / 32, y = (int32_t)blockIdx.x, t = (int32_t)threadIdx.x;
    uint32_t *bits = smem, *before = smem + words;
    __shared__ uint32_t part[GATHER_THREADS];
    for (int32_t i = t; i < words; i += GATHER_THREADS)
        bits[i] = 0;
    __syncthreads();
    for (int32_t s = t; s < removed; s += GATHER_THREADS) {
        const uint32_t c = rec[(size_t)s * (size_t)h + (size_t)y];
        if (c >= (uint32_t)w || (atomicOr(&bits[c >> 5], 1u << (c & 31)) >> (c & 31)) & 1u)
            *bad = 1;
    }
    __syncthreads();
    /* exclusive prefix of the words' popcounts: contiguous chunks per thread, chunk sums scanned
       by thread 0 */
    const int32_t chunk = (words + GATHER_THREADS - 1) / GATHER_THREADS;
    const int32_t a = t * chunk, b = a + chunk < words ? a + chunk : words;
    uint32_t sum = 0;
    for (int32_t i = a; i < b; i++)
        sum += (uint32_t)__popc(bits[i]);
    part[t] = sum;
    __syncthreads();
    if (t == 0) {
        uint32_t run = 0;
        for (int32_t i = 0; i < GATHER_THREADS; i++) {
            const uint32_t v = part[i];
            part[i] = run;
            run += v;
        }
    }
    __syncthreads();
    uint32_t run = part[t];
    for (int32_t i = a; i < b; i++) {
        before[i] = run;
        run += (uint32_t)__popc(bits[i]);
    }
    __syncthreads();
    const uint8_t *s = src + (size_t)y * spitch;
    uint8_t *d = dst + (size_t)y * dpitch;
    for (int32_t x = t; x < w; x += GATHER_THREADS) {
        const uint32_t word = bits[x >> 5], bit = 1u << (x & 31);
        if (word & bit)
            continue;
        const int32_t o = x - (int32_t)(before[x >> 5] + (uint32_t)__popc(word & (bit - 1u)));
        for (int32_t k = 0; k < px; k++)
            d[(size_t)o * (size_t)px + (size_t)k] = s[(size_t)x * (size_t)px + (size_t)k];
    }
}

} // namespace

extern "C" tsr_status tsr__carve_remove_resident_cuda(tsr_ctx *ctx, const tsr_image *src,
                                                      tsr_image *dst, tsr__carve_pass *p)
{
    const int32_t w = src->width, h = src->height, wn = dst->width, count = w - wn;
    const int32_t px = src->channels * (int32_t)tsr_depth_size(src->depth);
    const size_t row = (size_t)w * (size_t)px, rown = (size_t)wn * (size_t)px;
    cudaStream_t s = ctx->cuda->stream;
    const tsr__carve_dev_ops *ops = tsr__carve_cuda_ops();
    uint8_t *pix = NULL, *out = NULL;
    int *bad_dev = NULL, bad = 0;
    void *dev = NULL;
    tsr__cc_state state;
    int64_t passes = 0;
    double ms = 0;
    tsr_status st = TSR_OK;
    tsr__cuda_ring ring;
    memset(&ring, 0, sizeof ring);
    tsr__carve_grid g; /* the size alone: no host planes */
    memset(&g, 0, sizeof g);
    g.w = w;
    g.h = h;
    g.pitch = w;
    g.channels = src->channels;
    g.depth = src->depth;
    TSR_CUDA_TRY_GOTO(ctx, st, done, cudaMalloc((void **)&pix, row * (size_t)h));
    TSR_CUDA_TRY_GOTO(ctx, st, done, cudaMalloc((void **)&out, rown * (size_t)h));
    TSR_CUDA_TRY_GOTO(ctx, st, done, cudaMalloc((void **)&bad_dev, sizeof *bad_dev));
    TSR_CUDA_TRY_GOTO(ctx, st, done, cudaMemsetAsync(bad_dev, 0, sizeof *bad_dev, s));
    if ((st = tsr__cuda_ring_upload(ctx, &ring, pix, row, src->data, src->stride, row, (size_t)h,
                                    s)) != TSR_OK)
        goto done;
    {
        const tsr__carve_dev_pixels pixels = {pix, row, src->channels, src->depth};
        if ((st = tsr__carve_dev_run(ctx, &g, &pixels, count, p, ops, &dev, &state, &passes)) !=
            TSR_OK)
            goto done;
    }
    if (state.removed != count) {
        st = tsr__fail(ctx, TSR_ERR_INTERNAL, "carve: the device removed %d of %d seams",
                       (int)state.removed, (int)count);
        goto done;
    }
    /* the pass's end event and its time (fetch of no seams: the records stay on the device) */
    if ((st = ops->fetch(ctx, dev, 0, NULL)) != TSR_OK ||
        (st = ops->device_ms(ctx, dev, &ms)) != TSR_OK)
        goto done;
    gather_kernel<<<(unsigned)h, GATHER_THREADS, (size_t)2 * (size_t)((w + 31) / 32) * 4, s>>>(
        out, rown, pix, row, tsr__carve_cuda_rec((const tsr__carve_cuda *)dev), h, w, count, px,
        bad_dev);
    TSR_CUDA_TRY_GOTO(ctx, st, done, cudaGetLastError());
    TSR_CUDA_TRY_GOTO(ctx, st, done,
                      cudaMemcpyAsync(&bad, bad_dev, sizeof bad, cudaMemcpyDeviceToHost, s));
    if ((st = tsr__cuda_ring_download(ctx, &ring, dst->data, dst->stride, out, rown, rown,
                                      (size_t)h, s)) != TSR_OK)
        goto done;
    if (bad) {
        st = tsr__fail(ctx, TSR_ERR_INTERNAL, "carve: the device's seams overlap in a row");
        goto done;
    }
    p->removed = count;
    p->dp_passes += passes;
    p->energy_sum += state.energy_sum;
    p->device_ms += ms;
    st = tsr__progress(ctx, "carve", (double)count, (double)count);
done:
    if (dev)
        ops->close(ctx, dev);
    cudaStreamSynchronize(s); /* the ring's slots and the buffers are no longer in use */
    tsr__cuda_ring_free(&ring);
    cudaFree(pix);
    cudaFree(out);
    cudaFree(bad_dev);
    return st;
}
