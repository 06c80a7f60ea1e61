/* CUDA seam removal for one grid (carve_cuda_pass.h's handle, and carve_cuda.h's
 * tsr__carve_remove_seams_cuda through pass_device.c's loop): exact vertical seams, backward and
 * forward energy, masks through the 64-bit key (32-bit keys without a mask), bit-identical to
 * the CPU reference because every kernel body is the *_kernel_hd.h headers' integer code (also
 * run on the CPU by test_carve_device_logic).
 *
 * Per seam, three launches and no host round trip (pass_kernel_hd.h's launch order): select
 * (argmin, band hops, bands expanded by warps), remove (shift of luma/mask/orig right of the
 * seam), dp (one launch: warp items over bands x strips, the band's backward energy computed
 * from luma as it is staged, keys in registers, bands chained by generation-tagged keys in a
 * wavefront). The host polls the state every few dozen seams. Batch mode (tsr__carve_cuda_batch):
 * per pass of K seams top-K, trace, sum, gather and the next DP (batch_kernel_hd.h's launch
 * order; kernels in carve_cuda_batch_kernels.cuh). bench/notes/carve.md has the design and the
 * measurements. */
#include "cuda/cuda_internal.cuh"

extern "C" {
#include "carve/carve_cuda.h"
#include "carve/carve_cuda_pass.h"
#include "carve/luma_hd.h"
#include "carve/pass_device.h"
}

#include <string.h>

#include "carve/carve_cuda_kernels.cuh"
#include "carve/carve_cuda_batch_kernels.cuh"

namespace
{

unsigned blocks_for(int64_t n, int per)
{
    return (unsigned)((n + per - 1) / per);
}

/* t1, after the pass's last kernel is enqueued (device_ms: the GPU's span from the first DP to
 * there, without the host's reads of the state or of the seams). */
tsr_status record_end(tsr_ctx *ctx, tsr__carve_cuda *c)
{
    TSR_CUDA_TRY(ctx, cudaEventRecord(c->timer.stop, ctx->cuda->stream));
    c->ended = 1;
    return TSR_OK;
}

/* The DP of generation gen (1: the pass's first; seam k's: k + 2) at width w. */
tsr_status launch_dp(tsr_ctx *ctx, const tsr__carve_cuda *c, int32_t w, uint32_t gen)
{
    dp_launch(c->P, w, gen, NULL, ctx->cuda->stream);
    TSR_CUDA_CHECK_LAUNCH(ctx, "dp_kernel");
    return TSR_OK;
}

/* luma[y * lpitch + x] = luma_hd.h's Y of pixel (x, y) of the device pixels, x < w (grid: x
 * blocks, y = row). */
__global__ void luma_kernel(uint8_t *__restrict__ luma, size_t lpitch, tsr__carve_dev_pixels px,
                            int32_t w)
{
    const int32_t x = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x), y = (int32_t)blockIdx.y;
    if (x >= w)
        return;
    const uint8_t *row = (const uint8_t *)px.pix + (size_t)y * px.pitch;
    luma[(size_t)y * lpitch + (size_t)x] =
        px.depth == TSR_U8
            ? tsr__carve_luma_u8(row + (size_t)x * (size_t)px.channels, px.channels)
            : tsr__carve_luma_u16((const uint16_t *)row + (size_t)x * px.channels, px.channels);
}

} // namespace

extern "C" void tsr__carve_cuda_close(tsr_ctx *ctx, tsr__carve_cuda *c)
{
    if (!c)
        return;
    void *dev[] = {c->P.luma, c->P.mask,    c->P.orig,  c->P.hand64, c->P.hand32, c->P.entry,
                   c->P.back, c->P.tickets, c->P.xs,    c->P.rec,    c->P.state,  c->P.pair,
                   c->P.cols, c->P.luma2,   c->P.mask2, c->P.orig2};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i])
            cudaFree(dev[i]);
    tsr__cuda_timer_destroy(&c->timer);
    tsr__free(ctx, c);
}

static tsr_status open_work(tsr_ctx *ctx, tsr__carve_cuda *c, const tsr__carve_grid *g,
                            const tsr__carve_dev_pixels *pixels, const tsr__cc_state *init)
{
    cudaStream_t s = ctx->cuda->stream;
    const int32_t w = c->w0, h = c->P.h;
    const size_t dp = (size_t)c->P.pitch;
    if (pixels) {
        luma_kernel<<<dim3(blocks_for(w, 256), (unsigned)h), 256, 0, s>>>(c->P.luma, dp, *pixels,
                                                                          w);
        TSR_CUDA_CHECK_LAUNCH(ctx, "luma_kernel");
    } else {
        TSR_CUDA_TRY(ctx, cudaMemcpy2DAsync(c->P.luma, dp, g->luma, (size_t)g->pitch, (size_t)w,
                                            (size_t)h, cudaMemcpyHostToDevice, s));
    }
    if (c->P.mask)
        TSR_CUDA_TRY(ctx, cudaMemcpy2DAsync(c->P.mask, dp, g->mask, (size_t)g->pitch, (size_t)w,
                                            (size_t)h, cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(c->P.state, init, sizeof *init, cudaMemcpyHostToDevice, s));
    /* never-written back-pointer columns past the width are read (and ignored) by the
       expansion's window loads: zero them once */
    TSR_CUDA_TRY(ctx, cudaMemsetAsync(c->P.back, 0, (size_t)h * dp / 4, s));
    if (c->P.pair) /* staged in whole rows by the batch trace: defined past the width too */
        TSR_CUDA_TRY(ctx, cudaMemsetAsync(c->P.pair, 0, (size_t)h * dp / 2, s));
    /* tag 0: never the tag of the generation reading it (the first launch is generation 1) */
    const size_t hand = (size_t)tsr__cc_hand_bands(h, c->kmax > 0) * dp;
    if (c->P.hand64)
        TSR_CUDA_TRY(ctx, cudaMemsetAsync(c->P.hand64, 0, hand * sizeof(uint64_t), s));
    else
        TSR_CUDA_TRY(ctx, cudaMemsetAsync(c->P.hand32, 0, hand * sizeof(uint32_t), s));
    TSR_CUDA_TRY(ctx, cudaMemsetAsync(c->P.tickets, 0, (size_t)c->count * sizeof(uint32_t), s));
    const int64_t cells = (int64_t)w * h;
    orig_init_kernel<<<blocks_for(cells, 256), 256, 0, s>>>(c->P, w);
    TSR_CUDA_CHECK_LAUNCH(ctx, "orig_init_kernel");
    /* The host buffers above are pageable and the caller's: the copies finish before the pass's
       kernels are enqueued (which then run back to back, without a host round trip). On device
       pixels the luma kernel is waited for too, so that t0 marks the first DP alone. */
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    c->gen = 1;
    TSR_CUDA_TRY(ctx, cudaEventRecord(c->timer.start, s));
    return launch_dp(ctx, c, w, 1);
}

/* Both modes' open (kmax: 0 exact mode, else the batch passes' largest K; pixels: NULL to upload
 * g's luma, else the device pixels to compute it from). */
static tsr_status open_pass(tsr_ctx *ctx, const tsr__carve_grid *g,
                            const tsr__carve_dev_pixels *pixels, tsr_carve_energy kind,
                            const uint64_t pen[4], int32_t count, int32_t kmax, int until,
                            int64_t drops, tsr__carve_cuda **out)
{
    *out = NULL;
    if (!ctx->cuda)
        return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "carve: the context has no CUDA device");
    if (g->w < 1 || g->h < 1 || g->w > TSR_CARVE_MAX_SIDE || g->h > TSR_CARVE_MAX_SIDE ||
        count < 1 || count > g->w - 1 || kmax < 0 || kmax > count)
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
    const int32_t pitch = tsr__cc_pitch(w), nb = tsr__cc_hand_bands(h, kmax > 0);
    const size_t cells = (size_t)pitch * (size_t)h, bcells = (size_t)nb * (size_t)pitch;
    c->w0 = w;
    c->count = count;
    c->P.pitch = pitch;
    c->P.h = h;
    c->P.forward = kind == TSR_CARVE_FORWARD;
    c->P.until = until != 0;
    for (int i = 0; i < 4; i++)
        c->P.pen[i] = pen[i];
    TSR_CUDA_TRY_GOTO(ctx, st, fail, cudaMalloc((void **)&c->P.luma, cells));
    if (g->mask)
        TSR_CUDA_TRY_GOTO(ctx, st, fail, cudaMalloc((void **)&c->P.mask, cells));
    TSR_CUDA_TRY_GOTO(ctx, st, fail, cudaMalloc((void **)&c->P.orig, cells * sizeof(uint16_t)));
    if (g->mask) /* the DP's key type: plan.h's 64-bit key with mask terms, else the energy
                    part in 32 bits (dp_row_kernel_hd.h) */
        TSR_CUDA_TRY_GOTO(ctx, st, fail,
                          cudaMalloc((void **)&c->P.hand64, bcells * sizeof(uint64_t)));
    else
        TSR_CUDA_TRY_GOTO(ctx, st, fail,
                          cudaMalloc((void **)&c->P.hand32, bcells * sizeof(uint32_t)));
    TSR_CUDA_TRY_GOTO(ctx, st, fail, cudaMalloc((void **)&c->P.entry, bcells * sizeof(uint16_t)));
    TSR_CUDA_TRY_GOTO(ctx, st, fail, cudaMalloc((void **)&c->P.back, cells / 4));
    TSR_CUDA_TRY_GOTO(ctx, st, fail,
                      cudaMalloc((void **)&c->P.tickets, (size_t)count * sizeof(uint32_t)));
    TSR_CUDA_TRY_GOTO(ctx, st, fail, cudaMalloc((void **)&c->P.xs, (size_t)h * sizeof(int32_t)));
    TSR_CUDA_TRY_GOTO(ctx, st, fail,
                      cudaMalloc((void **)&c->P.rec, (size_t)count * (size_t)h * sizeof(uint16_t)));
    TSR_CUDA_TRY_GOTO(ctx, st, fail, cudaMalloc((void **)&c->P.state, sizeof(tsr__cc_state)));
    if (kmax > 0) {
        c->kmax = kmax;
        TSR_CUDA_TRY_GOTO(ctx, st, fail,
                          cudaMalloc((void **)&c->P.pair, cells / 4 * sizeof(uint16_t)));
        TSR_CUDA_TRY_GOTO(
            ctx, st, fail,
            cudaMalloc((void **)&c->P.cols, (size_t)h * (size_t)kmax * sizeof(int32_t)));
        TSR_CUDA_TRY_GOTO(ctx, st, fail, cudaMalloc((void **)&c->P.luma2, cells));
        if (g->mask)
            TSR_CUDA_TRY_GOTO(ctx, st, fail, cudaMalloc((void **)&c->P.mask2, cells));
        TSR_CUDA_TRY_GOTO(ctx, st, fail,
                          cudaMalloc((void **)&c->P.orig2, cells * sizeof(uint16_t)));
    }
    /* every kernel of the pass loaded before its first event (kernel_load) */
    TSR_CUDA_TRY_GOTO(ctx, st, fail,
                      kmax > 0 ? batch_load() : kernel_load((const void *)select_kernel));
    if (kmax == 0)
        TSR_CUDA_TRY_GOTO(ctx, st, fail, kernel_load((const void *)remove_kernel));
    TSR_CUDA_TRY_GOTO(ctx, st, fail, kernel_load((const void *)dp_kernel_for(c->P)));
    if ((st = tsr__cuda_timer_create(ctx, &c->timer)) != TSR_OK)
        goto fail;
    tsr__cc_state init;
    memset(&init, 0, sizeof init);
    init.drops = drops;
    if (pixels)
        TSR_CUDA_TRY_GOTO(ctx, st, fail, kernel_load((const void *)luma_kernel));
    if ((st = open_work(ctx, c, g, pixels, &init)) != TSR_OK)
        goto fail;
    *out = c;
    return TSR_OK;
fail:
    tsr__carve_cuda_close(ctx, c);
    return st;
}

extern "C" tsr_status tsr__carve_cuda_open(tsr_ctx *ctx, const tsr__carve_grid *g,
                                           tsr_carve_energy kind, const uint64_t pen[4],
                                           int32_t count, int until, int64_t drops,
                                           tsr__carve_cuda **out)
{
    return open_pass(ctx, g, NULL, kind, pen, count, 0, until, drops, out);
}

extern "C" tsr_status tsr__carve_cuda_open_batch(tsr_ctx *ctx, const tsr__carve_grid *g,
                                                 tsr_carve_energy kind, const uint64_t pen[4],
                                                 int32_t count, int32_t kmax, int until,
                                                 int64_t drops, tsr__carve_cuda **out)
{
    if (kmax < 1)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "carve: batch pass with K = %d", (int)kmax);
    return open_pass(ctx, g, NULL, kind, pen, count, kmax, until, drops, out);
}

extern "C" tsr_status tsr__carve_cuda_batch(tsr_ctx *ctx, tsr__carve_cuda *c, int32_t w, int32_t k,
                                            int32_t removed, int more)
{
    if (!c->P.pair || k < 1 || k > c->kmax || k > w - 1 || w > c->w0 || removed < 0 ||
        removed + k > c->count)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "carve: CUDA batch pass of %d seams at width %d",
                         (int)k, (int)w);
    batch_launch(c->P, w, k, removed, more, ctx->cuda->arch >= 90, ctx->cuda->stream, NULL);
    TSR_CUDA_CHECK_LAUNCH(ctx, "batch kernels");
    if (!more) /* no gather after the last pass: the host removes the seams from rec */
        return record_end(ctx, c);
    /* the gathered planes become the pass's (the launches above already hold their copies) */
    uint8_t *l = c->P.luma, *m = c->P.mask;
    uint16_t *o = c->P.orig;
    c->P.luma = c->P.luma2;
    c->P.luma2 = l;
    c->P.mask = c->P.mask2;
    c->P.mask2 = m;
    c->P.orig = c->P.orig2;
    c->P.orig2 = o;
    const int32_t wn = w - k;
    if (c->gen >= (uint32_t)c->count)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "carve: more CUDA DP launches than seams");
    return launch_dp(ctx, c, wn, ++c->gen);
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
        select_kernel<<<1, TSR__CC_SEL_THREADS, 0, s>>>(c->P, w);
        TSR_CUDA_CHECK_LAUNCH(ctx, "select_kernel");
        remove_kernel<<<(unsigned)h, TSR__CC_THREADS, 0, s>>>(c->P, w);
        TSR_CUDA_CHECK_LAUNCH(ctx, "remove_kernel");
        if (k + 1 < c->count) {
            tsr_status st = launch_dp(ctx, c, w - 1, (uint32_t)k + 2);
            if (st != TSR_OK)
                return st;
        }
    }
    return first + n == c->count ? record_end(ctx, c) : TSR_OK;
}

extern "C" tsr_status tsr__carve_cuda_state(tsr_ctx *ctx, tsr__carve_cuda *c, tsr__cc_state *st)
{
    cudaStream_t s = ctx->cuda->stream;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(st, c->P.state, sizeof *st, cudaMemcpyDeviceToHost, s));
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    return TSR_OK;
}

extern "C" tsr_status tsr__carve_cuda_fetch(tsr_ctx *ctx, tsr__carve_cuda *c, int32_t removed,
                                            uint16_t *rec)
{
    if (removed < 0 || removed > c->count)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "carve: CUDA fetch of %d seams", (int)removed);
    cudaStream_t s = ctx->cuda->stream;
    const int32_t h = c->P.h;
    const size_t es = sizeof(uint16_t);
    tsr_status st = c->ended ? TSR_OK : record_end(ctx, c); /* object removal stopped early */
    if (st != TSR_OK)
        return st;
    if (removed > 0)
        TSR_CUDA_TRY(ctx, cudaMemcpyAsync(rec, c->P.rec, (size_t)removed * (size_t)h * es,
                                          cudaMemcpyDeviceToHost, s));
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    return TSR_OK;
}

extern "C" tsr_status tsr__carve_cuda_device_ms(tsr_ctx *ctx, tsr__carve_cuda *c, double *ms)
{
    return tsr__cuda_timer_ms(ctx, &c->timer, ms);
}

/* The device pass's operations for pass_device.c's loop. */
namespace
{

tsr_status ops_open(tsr_ctx *ctx, const tsr__carve_grid *g, const tsr__carve_dev_pixels *pixels,
                    tsr_carve_energy kind, const uint64_t pen[4], int32_t count, int32_t kmax,
                    int until, int64_t drops, void **out)
{
    tsr__carve_cuda *c = NULL;
    tsr_status st = open_pass(ctx, g, pixels, kind, pen, count, kmax, until, drops, &c);
    *out = c;
    return st;
}
tsr_status ops_seams(tsr_ctx *ctx, void *dev, int32_t first, int32_t n)
{
    return tsr__carve_cuda_seams(ctx, (tsr__carve_cuda *)dev, first, n);
}
tsr_status ops_batch(tsr_ctx *ctx, void *dev, int32_t w, int32_t k, int32_t removed, int more)
{
    return tsr__carve_cuda_batch(ctx, (tsr__carve_cuda *)dev, w, k, removed, more);
}
tsr_status ops_state(tsr_ctx *ctx, void *dev, tsr__cc_state *s)
{
    return tsr__carve_cuda_state(ctx, (tsr__carve_cuda *)dev, s);
}
tsr_status ops_fetch(tsr_ctx *ctx, void *dev, int32_t removed, uint16_t *rec)
{
    return tsr__carve_cuda_fetch(ctx, (tsr__carve_cuda *)dev, removed, rec);
}
tsr_status ops_device_ms(tsr_ctx *ctx, void *dev, double *ms)
{
    return tsr__carve_cuda_device_ms(ctx, (tsr__carve_cuda *)dev, ms);
}
void ops_close(tsr_ctx *ctx, void *dev)
{
    tsr__carve_cuda_close(ctx, (tsr__carve_cuda *)dev);
}

const tsr__carve_dev_ops cuda_ops = {ops_open,  ops_seams,     ops_batch, ops_state,
                                     ops_fetch, ops_device_ms, ops_close};

} // namespace

extern "C" tsr_status tsr__carve_remove_seams_cuda(tsr_ctx *ctx, tsr__carve_grid *g, int32_t count,
                                                   tsr__carve_pass *p)
{
    return tsr__carve_remove_seams_dev(ctx, g, count, p, &cuda_ops);
}

extern "C" const tsr__carve_dev_ops *tsr__carve_cuda_ops(void)
{
    return &cuda_ops;
}

extern "C" const uint16_t *tsr__carve_cuda_rec(const tsr__carve_cuda *c)
{
    return c->P.rec;
}
