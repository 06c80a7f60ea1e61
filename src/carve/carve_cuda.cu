/* CUDA seam removal for one grid (carve_cuda.h): exact vertical seams, backward and forward
 * energy, masks through the 64-bit key (32-bit keys without a mask), bit-identical to the CPU
 * reference because every kernel body is carve_cuda_logic.h's integer code (also run on the CPU
 * by test_carve_device_logic).
 *
 * Per seam, three launches and no host round trip (carve_cuda_logic.h's launch order): select
 * (argmin, band hops, bands expanded by warps), remove (shift of luma/mask/orig right of the
 * seam), dp (one launch: warp items over bands x strips, the band's backward energy computed
 * from luma as it is staged, keys in registers, bands chained by generation-tagged keys in a
 * wavefront). The host polls
 * the state every few dozen seams. Batch mode (tsr__carve_cuda_batch): per pass of K seams
 * top-K, trace, sum, gather and the next DP (carve_cuda_batch_logic.h's launch order;
 * kernels in carve_cuda_batch_kernels.cuh). bench/notes/carve.md has the design and the
 * measurements. */
#include "cuda/cuda_internal.cuh"

extern "C" {
#include "carve/carve_cuda.h"
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
    TSR_CUDA_TRY(ctx, cudaEventRecord(c->t1, ctx->cuda->stream));
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
    if (c->t0)
        cudaEventDestroy(c->t0);
    if (c->t1)
        cudaEventDestroy(c->t1);
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
    const size_t dp = (size_t)c->P.pitch;
    TSR_CUDA_TRY(ctx, cudaMemcpy2DAsync(c->P.luma, dp, g->luma, (size_t)g->pitch, (size_t)w,
                                        (size_t)h, cudaMemcpyHostToDevice, s));
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
       kernels are enqueued (which then run back to back, without a host round trip). */
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    c->gen = 1;
    TSR_CUDA_TRY(ctx, cudaEventRecord(c->t0, s));
    return launch_dp(ctx, c, w, 1);
}

/* Both modes' open (kmax: 0 exact mode, else the batch passes' largest K). */
static tsr_status open_pass(tsr_ctx *ctx, const tsr__carve_grid *g, tsr_carve_energy kind,
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
    DEV_ALLOC(c->P.luma, cells);
    if (g->mask)
        DEV_ALLOC(c->P.mask, cells);
    DEV_ALLOC(c->P.orig, cells * sizeof(uint16_t));
    if (g->mask) /* the DP's key type: plan.h's 64-bit key with mask terms, else the energy
                    part in 32 bits (carve_cuda_dp_row.h) */
        DEV_ALLOC(c->P.hand64, bcells * sizeof(uint64_t));
    else
        DEV_ALLOC(c->P.hand32, bcells * sizeof(uint32_t));
    DEV_ALLOC(c->P.entry, bcells * sizeof(uint16_t));
    DEV_ALLOC(c->P.back, cells / 4);
    DEV_ALLOC(c->P.tickets, (size_t)count * sizeof(uint32_t));
    DEV_ALLOC(c->P.xs, (size_t)h * sizeof(int32_t));
    DEV_ALLOC(c->P.rec, (size_t)count * (size_t)h * sizeof(uint16_t));
    DEV_ALLOC(c->P.state, sizeof(tsr__cc_state));
    if (kmax > 0) {
        c->kmax = kmax;
        DEV_ALLOC(c->P.pair, cells / 4 * sizeof(uint16_t));
        DEV_ALLOC(c->P.cols, (size_t)h * (size_t)kmax * sizeof(int32_t));
        DEV_ALLOC(c->P.luma2, cells);
        if (g->mask)
            DEV_ALLOC(c->P.mask2, cells);
        DEV_ALLOC(c->P.orig2, cells * sizeof(uint16_t));
    }
    /* every kernel of the pass loaded before its first event (kernel_load) */
    cudaError_t e = kmax > 0 ? batch_load() : kernel_load((const void *)select_kernel);
    if (e == cudaSuccess && kmax == 0)
        e = kernel_load((const void *)remove_kernel);
    if (e == cudaSuccess)
        e = kernel_load((const void *)dp_kernel_for(c->P));
    if (e != cudaSuccess) {
        tsr__carve_cuda_close(ctx, c);
        return tsr__cuda_error(ctx, e, "loading the carve kernels", __FILE__, __LINE__);
    }
    e = cudaEventCreate(&c->t0);
    if (e == cudaSuccess)
        e = cudaEventCreate(&c->t1);
    if (e != cudaSuccess) {
        tsr__carve_cuda_close(ctx, c);
        return tsr__cuda_error(ctx, e, "cudaEventCreate", __FILE__, __LINE__);
    }
    tsr__cc_state init;
    memset(&init, 0, sizeof init);
    init.drops = drops;
    OPEN_TRY(open_work(ctx, c, g, &init));
    *out = c;
    return TSR_OK;
}

extern "C" tsr_status tsr__carve_cuda_open(tsr_ctx *ctx, const tsr__carve_grid *g,
                                           tsr_carve_energy kind, const uint64_t pen[4],
                                           int32_t count, int until, int64_t drops,
                                           tsr__carve_cuda **out)
{
    return open_pass(ctx, g, kind, pen, count, 0, until, drops, out);
}

extern "C" tsr_status tsr__carve_cuda_open_batch(tsr_ctx *ctx, const tsr__carve_grid *g,
                                                 tsr_carve_energy kind, const uint64_t pen[4],
                                                 int32_t count, int32_t kmax, int until,
                                                 int64_t drops, tsr__carve_cuda **out)
{
    if (kmax < 1)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "carve: batch pass with K = %d", (int)kmax);
    return open_pass(ctx, g, kind, pen, count, kmax, until, drops, out);
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
    float f = 0;
    TSR_CUDA_TRY(ctx, cudaEventSynchronize(c->t1));
    TSR_CUDA_TRY(ctx, cudaEventElapsedTime(&f, c->t0, c->t1));
    *ms = f;
    return TSR_OK;
}
