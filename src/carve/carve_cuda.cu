/* CUDA seam removal for one grid (carve_cuda.h): exact vertical seams, backward and forward
 * energy, masks through the 64-bit key, bit-identical to the CPU reference because every kernel
 * body is carve_cuda_logic.h's integer code (also run on the CPU by test_carve_device_logic).
 *
 * First version, simple by design (bench/notes/carve.md lists what the tuned one changes):
 * the full DP every seam in launches of R = 32 rows (trapezoid strips, no grid-wide sync, each
 * band recording where the paths of its last row entered it), a one-block select kernel (argmin
 * tree, one thread hopping h/R band entries, the bands' rows expanded in parallel), a one-block-per-row
 * shift of luma/mask/orig/energy, and an incremental energy update around the removed seam.
 * The host is not involved per seam; it polls the state every few dozen seams. */
#include "cuda/cuda_internal.cuh"

extern "C" {
#include "carve/carve_cuda.h"
}

#include <string.h>

struct tsr__carve_cuda {
    tsr__cc_planes P;
    int32_t w0, count;
};

namespace {

__global__ void orig_init_kernel(__grid_constant__ const tsr__cc_planes P, int32_t w)
{
    const int64_t cell = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (cell < (int64_t)w * P.h)
        P.orig[cell] = (uint16_t)(cell % w);
}

__global__ void energy_full_kernel(__grid_constant__ const tsr__cc_planes P, int32_t w)
{
    const int64_t cell = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (cell < (int64_t)w * P.h)
        tsr__cc_energy_full(&P, w, cell);
}

__global__ void __launch_bounds__(TSR__CC_THREADS)
    dp_band_kernel(__grid_constant__ const tsr__cc_planes P, int32_t w, int32_t y0)
{
    __shared__ uint64_t sh[2][TSR__CC_EXT];
    __shared__ uint16_t org[2][TSR__CC_EXT];
    if (P.state->stop)
        return;
    const int32_t blk = (int32_t)blockIdx.x;
    for (int32_t i = threadIdx.x; i < TSR__CC_EXT; i += TSR__CC_THREADS)
        tsr__cc_band_load(&P, w, y0, blk, i, sh[0]);
    __syncthreads();
    for (int32_t k = 0; k < TSR__CC_BAND && y0 + k < P.h; k++) {
        for (int32_t i = threadIdx.x; i < TSR__CC_EXT; i += TSR__CC_THREADS)
            tsr__cc_band_cell(&P, w, y0, blk, k, i, sh[k & 1], sh[(k + 1) & 1], org[k & 1],
                              org[(k + 1) & 1]);
        __syncthreads();
    }
}

/* No __launch_bounds__: with it ptxas capped this kernel at 32 registers and spilled. */
__global__ void select_kernel(__grid_constant__ const tsr__cc_planes P, int32_t w)
{
    __shared__ uint64_t sv[TSR__CC_THREADS];
    __shared__ int32_t sx[TSR__CC_THREADS];
    __shared__ int32_t exits[TSR__CC_MAX_BANDS];
    __shared__ int32_t go;
    if (P.state->stop)
        return;
    const int32_t t = threadIdx.x;
    tsr__cc_argmin_partial(&P, w, t, TSR__CC_THREADS, &sv[t], &sx[t]);
    __syncthreads();
    for (int32_t s = TSR__CC_THREADS / 2; s > 0; s >>= 1) {
        if (t < s)
            tsr__cc_argmin_combine(&sv[t], &sx[t], sv[t + s], sx[t + s]);
        __syncthreads();
    }
    const int32_t xe = sx[0];
    if (t == 0) {
        go = tsr__cc_select_begin(&P);
        if (go)
            tsr__cc_trace_bands(&P, xe, exits);
    }
    __syncthreads();
    if (!go)
        return;
    const int32_t nb = (P.h + TSR__CC_BAND - 1) / TSR__CC_BAND;
    int32_t sd = 0;
    for (int32_t b = t; b < nb; b += TSR__CC_THREADS)
        sd += tsr__cc_expand_band(&P, b, exits);
    sx[t] = sd; /* sx is free again: every thread read sx[0] before the last barrier */
    __syncthreads();
    for (int32_t s = TSR__CC_THREADS / 2; s > 0; s >>= 1) {
        if (t < s)
            sx[t] += sx[t + s];
        __syncthreads();
    }
    if (t == 0)
        tsr__cc_select_finish(&P, xe, sx[0]);
}

__global__ void __launch_bounds__(TSR__CC_THREADS)
    remove_kernel(__grid_constant__ const tsr__cc_planes P, int32_t w)
{
    if (P.state->stop)
        return;
    const int32_t y = blockIdx.x, t = threadIdx.x;
    const int32_t xs = P.xs[y];
    if (t == 0)
        tsr__cc_remove_record(&P, y);
    for (int32_t c = xs; c < w - 1; c += TSR__CC_THREADS) {
        tsr__cc_cell r;
        tsr__cc_remove_read(&P, w, y, c, t, &r);
        __syncthreads();
        tsr__cc_remove_write(&P, y, c, t, &r);
        __syncthreads();
    }
}

__global__ void energy_band_kernel(__grid_constant__ const tsr__cc_planes P, int32_t w)
{
    if (P.state->stop)
        return;
    const int32_t y = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (y < P.h)
        tsr__cc_energy_band(&P, w, y);
}

unsigned blocks_for(int64_t n, int per)
{
    return (unsigned)((n + per - 1) / per);
}

tsr_status launch_dp(tsr_ctx *ctx, const tsr__carve_cuda *c, int32_t w)
{
    cudaStream_t s = ctx->cuda->stream;
    const unsigned strips = blocks_for(w, TSR__CC_STRIP);
    for (int32_t y0 = 0; y0 < c->P.h; y0 += TSR__CC_BAND) {
        dp_band_kernel<<<strips, TSR__CC_THREADS, 0, s>>>(c->P, w, y0);
        TSR_CUDA_CHECK_LAUNCH(ctx, "dp_band_kernel");
    }
    return TSR_OK;
}

} // namespace

extern "C" void tsr__carve_cuda_close(tsr_ctx *ctx, tsr__carve_cuda *c)
{
    if (!c)
        return;
    void *dev[] = {c->P.luma, c->P.mask, c->P.orig, c->P.energy, c->P.cost,
                   c->P.back, c->P.entry, c->P.xs, c->P.rec,  c->P.state};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i])
            cudaFree(dev[i]);
    tsr__free(ctx, c);
}

#define DEV_ALLOC(ptr, bytes)                                                                      \
    do {                                                                                           \
        cudaError_t e_ = cudaMalloc((void **)&(ptr), (bytes));                                     \
        if (e_ != cudaSuccess) {                                                                   \
            tsr__carve_cuda_close(ctx, c);                                                         \
            return tsr__cuda_error(ctx, e_, "cudaMalloc", __FILE__, __LINE__);                     \
        }                                                                                          \
    } while (0)

/* On failure after the allocations: free and return the status. */
#define OPEN_TRY(call)                                                                             \
    do {                                                                                           \
        tsr_status st_ = (call);                                                                   \
        if (st_ != TSR_OK) {                                                                       \
            tsr__carve_cuda_close(ctx, c);                                                         \
            return st_;                                                                            \
        }                                                                                          \
    } while (0)

static tsr_status open_work(tsr_ctx *ctx, tsr__carve_cuda *c, const tsr__carve_grid *g,
                            const tsr__cc_state *init)
{
    cudaStream_t s = ctx->cuda->stream;
    const int32_t w = c->w0, h = c->P.h;
    TSR_CUDA_TRY(ctx, cudaMemcpy2DAsync(c->P.luma, (size_t)w, g->luma, (size_t)g->pitch, (size_t)w,
                                        (size_t)h, cudaMemcpyHostToDevice, s));
    if (c->P.mask)
        TSR_CUDA_TRY(ctx, cudaMemcpy2DAsync(c->P.mask, (size_t)w, g->mask, (size_t)g->pitch,
                                            (size_t)w, (size_t)h, cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(c->P.state, init, sizeof *init, cudaMemcpyHostToDevice, s));
    const int64_t cells = (int64_t)w * h;
    orig_init_kernel<<<blocks_for(cells, 256), 256, 0, s>>>(c->P, w);
    TSR_CUDA_CHECK_LAUNCH(ctx, "orig_init_kernel");
    if (!c->P.forward) {
        energy_full_kernel<<<blocks_for(cells, 256), 256, 0, s>>>(c->P, w);
        TSR_CUDA_CHECK_LAUNCH(ctx, "energy_full_kernel");
    }
    tsr_status st = launch_dp(ctx, c, w);
    if (st != TSR_OK)
        return st;
    /* The host buffers above are pageable and the caller's: finish before returning. */
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    return TSR_OK;
}

extern "C" tsr_status tsr__carve_cuda_open(tsr_ctx *ctx, const tsr__carve_grid *g,
                                           tsr_carve_energy kind, const uint64_t pen[4],
                                           int32_t count, int until, int64_t drops,
                                           tsr__carve_cuda **out)
{
    *out = NULL;
    if (!ctx->cuda)
        return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "carve: the context has no CUDA device");
    if (g->w < 1 || g->h < 1 || g->w > TSR_CARVE_MAX_SIDE || g->h > TSR_CARVE_MAX_SIDE ||
        count < 1 || count > g->w - 1)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "carve: bad CUDA pass (%dx%d, %d seams)",
                         (int)g->w, (int)g->h, (int)count);
    if (until && !g->mask)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "carve: object removal without a mask");
    tsr__carve_cuda *c;
    tsr_status st = tsr__alloc(ctx, sizeof *c, (void **)&c);
    if (st != TSR_OK)
        return st;
    memset(c, 0, sizeof *c);
    const int32_t w = g->w, h = g->h;
    const size_t cells = (size_t)w * (size_t)h;
    c->w0 = w;
    c->count = count;
    c->P.pitch = w;
    c->P.h = h;
    c->P.forward = kind == TSR_CARVE_FORWARD;
    c->P.until = until != 0;
    for (int i = 0; i < 4; i++)
        c->P.pen[i] = pen[i];
    DEV_ALLOC(c->P.luma, cells);
    if (g->mask)
        DEV_ALLOC(c->P.mask, cells);
    DEV_ALLOC(c->P.orig, cells * sizeof(uint16_t));
    if (!c->P.forward)
        DEV_ALLOC(c->P.energy, cells * sizeof(uint16_t));
    DEV_ALLOC(c->P.cost, cells * sizeof(uint64_t));
    DEV_ALLOC(c->P.back, cells);
    DEV_ALLOC(c->P.entry, (size_t)((h + TSR__CC_BAND - 1) / TSR__CC_BAND) * (size_t)w *
                              sizeof(uint16_t));
    DEV_ALLOC(c->P.xs, (size_t)h * sizeof(int32_t));
    DEV_ALLOC(c->P.rec, (size_t)count * (size_t)h * sizeof(uint16_t));
    DEV_ALLOC(c->P.state, sizeof(tsr__cc_state));
    tsr__cc_state init;
    memset(&init, 0, sizeof init);
    init.drops = drops;
    OPEN_TRY(open_work(ctx, c, g, &init));
    *out = c;
    return TSR_OK;
}

extern "C" tsr_status tsr__carve_cuda_seams(tsr_ctx *ctx, tsr__carve_cuda *c, int32_t first,
                                            int32_t n)
{
    if (first < 0 || n < 0 || first + n > c->count)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "carve: CUDA seams %d..%d of %d", (int)first,
                         (int)(first + n), (int)c->count);
    cudaStream_t s = ctx->cuda->stream;
    const int32_t h = c->P.h;
    for (int32_t k = first; k < first + n; k++) {
        const int32_t w = c->w0 - k; /* the width before seam k (kernels are no-ops once the
                                        state says stop, so a stale width is never used) */
        select_kernel<<<1, TSR__CC_THREADS, 0, s>>>(c->P, w);
        TSR_CUDA_CHECK_LAUNCH(ctx, "select_kernel");
        remove_kernel<<<(unsigned)h, TSR__CC_THREADS, 0, s>>>(c->P, w);
        TSR_CUDA_CHECK_LAUNCH(ctx, "remove_kernel");
        if (!c->P.forward) {
            energy_band_kernel<<<blocks_for(h, 128), 128, 0, s>>>(c->P, w - 1);
            TSR_CUDA_CHECK_LAUNCH(ctx, "energy_band_kernel");
        }
        if (k + 1 < c->count) {
            tsr_status st = launch_dp(ctx, c, w - 1);
            if (st != TSR_OK)
                return st;
        }
    }
    return TSR_OK;
}

extern "C" tsr_status tsr__carve_cuda_state(tsr_ctx *ctx, tsr__carve_cuda *c, tsr__cc_state *st)
{
    cudaStream_t s = ctx->cuda->stream;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(st, c->P.state, sizeof *st, cudaMemcpyDeviceToHost, s));
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    return TSR_OK;
}

extern "C" tsr_status tsr__carve_cuda_fetch(tsr_ctx *ctx, tsr__carve_cuda *c, int32_t removed,
                                            uint16_t *orig, uint16_t *rec)
{
    if (removed < 0 || removed > c->count)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "carve: CUDA fetch of %d seams", (int)removed);
    cudaStream_t s = ctx->cuda->stream;
    const int32_t wn = c->w0 - removed, h = c->P.h;
    const size_t es = sizeof(uint16_t);
    TSR_CUDA_TRY(ctx, cudaMemcpy2DAsync(orig, (size_t)wn * es, c->P.orig, (size_t)c->w0 * es,
                                        (size_t)wn * es, (size_t)h, cudaMemcpyDeviceToHost, s));
    if (removed > 0)
        TSR_CUDA_TRY(ctx, cudaMemcpyAsync(rec, c->P.rec, (size_t)removed * (size_t)h * es,
                                          cudaMemcpyDeviceToHost, s));
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    return TSR_OK;
}
