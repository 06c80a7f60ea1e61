/* CUDA backend of tsr_resize: executes a plan (plan.h) bit-identically to resize_ref.c.
 *
 * The per-element arithmetic is resize.cl's (included below, shared with the OpenCL backend).
 * Kernels: resize_cuda_kernels.cuh (included below).
 * Images: device images (TSR_MEMORY_CUDA) are used in place; host images are staged through the
 * page-locked and device buffers resize keeps on the context (struct lane: no allocation once
 * warm). The plan's tables are copied to a lane's table buffer on the stream when the plan
 * differs from the last one copied there (plan ids).
 * Synchronisation: with a stream of the caller's (tsr_ctx_options.cuda_stream) and device images
 * the work is only queued on it; otherwise the call returns when the output is written. */
#include "cuda/cuda_internal.cuh"

#include "resize/resize.cl"
extern "C" {
#include "core/checked.h"
#include "resize/resize_backends.h"
#include "resize/resize_gpu.h"
}
#include "resize/resize_dn32.h"
#include "resize/resize_up2.h"

#include <atomic>
#include <math.h>
#include <string.h>

/* What resize keeps on a context between calls: per lane (the context's stream, and the second
 * stream of a batch) the device copies of the source, destination and plan tables, and the
 * page-locked staging of host images. A lane's buffers are used by one image at a time. */
struct lane {
    tsr__cuda_buffer src, dst, tab;    /* device */
    tsr__cuda_buffer pin_src, pin_dst; /* page-locked host */
    tsr__cuda_staging down;            /* the host destination's download in flight */
};
struct resize_cuda_state {
    struct lane lanes[2];
};

static void resize_cuda_state_destroy(tsr_ctx *ctx, void *state)
{
    struct resize_cuda_state *rs = (struct resize_cuda_state *)state;
    if (ctx->cuda)
        cudaStreamSynchronize(ctx->cuda->stream);
    for (int k = 0; k < 2; k++) {
        struct lane *l = &rs->lanes[k];
        tsr__cuda_buffer_free(&l->src);
        tsr__cuda_buffer_free(&l->dst);
        tsr__cuda_buffer_free(&l->tab);
        tsr__cuda_host_buffer_free(&l->pin_src);
        tsr__cuda_host_buffer_free(&l->pin_dst);
        tsr__cuda_staging_free(&l->down);
    }
    tsr__free(ctx, rs);
}

static const tsr__ctx_state_kind resize_cuda_kind = {"resize CUDA buffers",
                                                     resize_cuda_state_destroy};

static tsr_status lanes_of(tsr_ctx *ctx, struct lane **out)
{
    struct resize_cuda_state *rs;
    tsr_status st = tsr__ctx_state_get(ctx, &resize_cuda_kind, sizeof *rs, (void **)&rs);
    *out = st == TSR_OK ? rs->lanes : NULL;
    return st;
}

/* The device sources of tsr__resize_cuda_sources: one buffer, kept, growing. */
struct resize_sources_state {
    tsr__cuda_buffer buf;
};

static void resize_sources_destroy(tsr_ctx *ctx, void *state)
{
    struct resize_sources_state *rs = (struct resize_sources_state *)state;
    if (ctx->cuda)
        cudaStreamSynchronize(ctx->cuda->stream);
    tsr__cuda_buffer_free(&rs->buf);
    tsr__free(ctx, rs);
}

static const tsr__ctx_state_kind resize_sources_kind = {"resize device sources",
                                                        resize_sources_destroy};

extern "C" tsr_status tsr__resize_cuda_sources(tsr_ctx *ctx, tsr_image *src, size_t count)
{
    struct resize_sources_state *rs;
    tsr_status st = tsr__ctx_state_get(ctx, &resize_sources_kind, sizeof *rs, (void **)&rs);
    if (st != TSR_OK)
        return st;
    /* rows 256-byte aligned, as cudaMallocPitch lays them out */
    size_t total = 0;
    for (size_t i = 0; i < count; i++) {
        size_t row, stride, bytes;
        if (!tsr__size_mul((size_t)src[i].width, (size_t)src[i].channels, &row) ||
            !tsr__size_add(row, 255, &stride) ||
            !tsr__size_mul(stride & ~(size_t)255, (size_t)src[i].height, &bytes) ||
            !tsr__size_add(total, bytes, &total))
            return tsr__fail(ctx, TSR_ERR_OVERFLOW, "resize: device sources overflow");
        src[i].stride = stride & ~(size_t)255;
    }
    if ((st = tsr__cuda_buffer_reserve(ctx, &rs->buf, total)) != TSR_OK)
        return st;
    size_t at = 0;
    for (size_t i = 0; i < count; i++) {
        src[i].data = (unsigned char *)rs->buf.ptr + at;
        at += src[i].stride * (size_t)src[i].height;
    }
    return TSR_OK;
}

#include "resize/resize_cuda.h"
#include "resize/resize_cuda_kernels.cuh"
#include "resize/resize_cuda_walk.cuh"

/* The library's launch shapes (tsr__resize_cuda_tuning, resize_gpu.h): k_lin2_u8 with 8
 * elements a thread on grids of LN2_BLOCKS blocks, k_areaw_u8 aiming at 2^18 threads, every
 * specialised kernel on. */
static const tsr__resize_cuda_tuning library_tuning = {8, 512, 262144, 0, 0, 0, 0};

enum { WALK_RMAX = 32 };

/* Rows per block for the walker kernels: the largest R <= WALK_RMAX (a power of two) that still
 * gives about a full wave of threads (2^18) on a large GPU; fewer rows per block means more
 * horizontal passes repeated at block edges, more rows means fewer blocks. 0 when the grid
 * does not fit. */
static int walk_rows(int blocks_x, int threads, int dh, int target)
{
    int R = WALK_RMAX;
    while (R > 1 && (double)blocks_x * threads * ((dh + R - 1) / R) < (double)target)
        R /= 2;
    while ((dh + R - 1) / R > 65535 && R < WALK_RMAX)
        R *= 2;
    return (dh + R - 1) / R > 65535 ? 0 : R;
}

/* Rows per tile for k_stile_u8: the largest th <= ST_THMAX (a power of two) whose tile source
 * rows fit in ST_SMEM and whose grid has >= 1024 blocks (down to th = 4), with *nrmax the row count
 * the shared memory is sized for; 0 if none. A tile of th output rows spans YOFS[dy1-1] - YOFS[dy0]
 * <= ceil((th-1)*scale) + 1 source rows (YOFS = floor of an affine function of dy with slope scale
 * = src/dst, or 1/inv_scale_y when the caller gave factors), plus ksize; one row of margin. The
 * kernel checks each tile anyway. */
static int stile_rows(const tsr__resize_plan *pl, int te, int hb, int gx, int *nrmax)
{
    double sc = (double)pl->src_h / (double)pl->dst_h;
    if (pl->inv_scale_y > 0 && 1.0 / pl->inv_scale_y > sc)
        sc = 1.0 / pl->inv_scale_y;
    for (int th = ST_THMAX; th >= 1; th /= 2) {
        double nm = ceil((th - 1) * sc) + pl->ksize + 2;
        /* fewer rows when the grid would have fewer than ~8 blocks per SM of a large GPU */
        if (nm * te * hb <= ST_SMEM &&
            (th <= 4 || (double)gx * ((pl->dst_h + th - 1) / th) >= 1024)) {
            *nrmax = (int)nm;
            return th;
        }
    }
    return 0;
}

/* Most column taps of one output column in an AREA plan (XSTART differences). */
static int area_max_taps(const tsr__resize_plan *pl)
{
    const int32_t *xs = (const int32_t *)pl->table[TSR__RT_XSTART];
    int m = 0;
    for (int dx = 0; dx < pl->dst_w; dx++)
        m = xs[dx + 1] - xs[dx] > m ? xs[dx + 1] - xs[dx] : m;
    return m;
}

/* Launch shape of k_lin2_u8 with ept elements per thread: tile rows th (the largest power of
 * two <= LN_THMAX that still gives >= LN2_BLOCKS blocks: tall tiles repay the staging of the
 * rows above and below and the per-thread tap setup, which at 2 rows per tile cost more than the
 * walk itself; bench/notes/resize.md, runs 17-19), the staged row pitch W in tap pairs
 * (the widest tile span, exact from XOFS, rounded up to 16), nrmax rows of shared memory (a
 * bound, like stile_rows'; the kernel checks each tile). 0 when the tiles do not fit in LN_SMEM
 * or the grid in 65535 rows; target: the blocks to aim for (tuning.lin2_blocks). LN_BLOCKS is the
 * grid size the other kernels aim for. */
enum { LN_BLOCKS = 2048 };
struct lin2_shape {
    dim3 grid;
    int th, W, nrmax;
    size_t smem;
};
static int lin2_geometry(const tsr__resize_plan *pl, int ept, int target, lin2_shape *g)
{
    const int32_t *xofs = (const int32_t *)pl->table[TSR__RT_XOFS];
    const int cn = pl->cn, n = pl->dst_w * cn, te = LN_NT * ept, gx = (n + te - 1) / te;
    int W = 0;
    for (int b = 0; b < gx; b++) {
        const int e0 = b * te, e1 = (e0 + te < n ? e0 + te : n) - 1;
        const int span = (xofs[e1 / cn] + 1) * cn - ((xofs[e0 / cn] * cn) & ~15);
        W = span > W ? span : W;
    }
    W = (W + 15) & ~15;
    double sc = (double)pl->src_h / (double)pl->dst_h;
    if (pl->inv_scale_y > 0 && 1.0 / pl->inv_scale_y > sc)
        sc = 1.0 / pl->inv_scale_y;
    int th = LN_THMAX;
    while (th > 1 && (double)gx * ((pl->dst_h + th - 1) / th) < target)
        th /= 2;
    while ((pl->dst_h + th - 1) / th > 65535 && th < LN_THMAX)
        th *= 2;
    g->th = th;
    g->W = W;
    g->nrmax = (int)ceil((th - 1) * sc) + 3;
    g->smem = (size_t)g->nrmax * W * 2;
    g->grid = dim3(gx, (pl->dst_h + th - 1) / th);
    return g->smem <= LN_SMEM && g->grid.y <= 65535;
}

/* Launch shape of k_walk_u8 with ks taps: the staged row pitch W in tap pairs (the widest
 * tile's window span, exact from XOFS, rounded up to 16), tile rows th (the largest power of two
 * <= WK_THMAX whose grid still has >= WK_BLOCKS blocks and whose nrmax rows of W pairs fit in
 * WK_SMEM; nrmax a bound like stile_rows': the span of th rows' YOFS plus the ks taps and one
 * row of margin; the kernel checks each tile). 0 when nothing fits. */
enum { WK_BLOCKS = 1024 };
static int walk_geometry(const tsr__resize_plan *pl, int ks, lin2_shape *g)
{
    const int32_t *xofs = (const int32_t *)pl->table[TSR__RT_XOFS];
    const int cn = pl->cn, n = pl->dst_w * cn, te = WK_NT * WK_EPT, gx = (n + te - 1) / te;
    int W = 0;
    for (int b = 0; b < gx; b++) {
        const int e0 = b * te, e1 = (e0 + te < n ? e0 + te : n) - 1;
        const int sb = (wk_window(xofs[e0 / cn], pl->src_w, ks) * cn) & ~15;
        const int span = (wk_window(xofs[e1 / cn], pl->src_w, ks) + ks) * cn - sb;
        W = span > W ? span : W;
    }
    W = (W + 15) & ~15;
    double sc = (double)pl->src_h / (double)pl->dst_h;
    if (pl->inv_scale_y > 0 && 1.0 / pl->inv_scale_y > sc)
        sc = 1.0 / pl->inv_scale_y;
    for (int th = WK_THMAX; th >= 1; th /= 2) {
        const int nrmax = (int)ceil((th - 1) * sc) + ks + 1;
        const int gy = (pl->dst_h + th - 1) / th;
        if ((size_t)nrmax * W * 2 <= WK_SMEM && gy <= 65535 &&
            (th == 1 || (double)gx * gy >= WK_BLOCKS)) {
            g->th = th;
            g->W = W;
            g->nrmax = nrmax;
            g->smem = (size_t)nrmax * W * 2;
            g->grid = dim3(gx, gy);
            return 1;
        }
    }
    return 0;
}

/* The taps of the row walker k_walk_u8 for this plan, 0 when it does not take it: u8
 * lanczos4 (8), and u8 cubic (4) that is not a vertical downscale (at most one new tap row per
 * output row), both with horizontal scale <= WK_XMAX. Cubic vertical downscales stay on
 * k_stile_u8, which was faster there (H200, 2026-12-03, kernel alone: 4K->1080p 34.9 against
 * 39.5 us, 8K->4K 103.1 against 112.6; upscales 1080p->4K 49.2 against 42.0, 4K->8K 165.9
 * against 131.8; bench/notes/resize.md). */
static int walk_taps(const tsr__resize_plan *pl)
{
    if (pl->path != TSR__RESIZE_SEPARABLE || pl->depth != TSR_U8 || pl->cn < 1 || pl->cn > 4 ||
        pl->src_w > WK_XMAX * pl->dst_w)
        return 0;
    if (pl->ksize == 4 && pl->src_h <= pl->dst_h)
        return 4;
    if (pl->ksize == 8 && pl->vec_end == 0) /* lanczos4's vertical pass is integer (plan.h) */
        return 8;
    return 0;
}

/* Row bands of k_up2_u8's grid (gx blocks per band; band b holds source rows b*h/nb ..
 * (b+1)*h/nb - 1): whole waves of resident blocks, the fewest waves whose bands hold at most
 * UP2_THMAX rows. Every band re-reads the row above it (the prologue), so fewer, taller bands
 * cost less; walks of 17 rows were slower than two waves of 8 (bench/notes/resize.md, run 25).
 * Filling every wave keeps all resident slots busy to the end: a grid that ends a few blocks
 * into a wave runs those blocks with the GPU mostly idle, and one that leaves slots empty has
 * fewer warps to hide its loads. */
static int up2_bands(tsr_ctx *ctx, int cn, int gx, int h)
{
    /* resident blocks per SM of each instance (a property of the binary and the device
     * architecture: computed once; concurrent first calls store the same value) */
    static std::atomic<int> per_sm[5];
    if (!per_sm[cn].load(std::memory_order_relaxed)) {
        int n = 0;
        switch (cn) {
        case 1: cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k_up2_u8<1>, UP2_NT, 0); break;
        case 2: cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k_up2_u8<2>, UP2_NT, 0); break;
        case 3: cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k_up2_u8<3>, UP2_NT, 0); break;
        default: cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k_up2_u8<4>, UP2_NT, 0); break;
        }
        per_sm[cn].store(n > 0 ? n : 1, std::memory_order_relaxed);
    }
    int64_t wave = (int64_t)per_sm[cn].load(std::memory_order_relaxed) *
                   ctx->cuda->prop.multiProcessorCount / gx; /* bands per wave */
    wave = wave < 1 ? 1 : wave;
    int64_t nb = (h + UP2_THMAX * wave - 1) / (UP2_THMAX * wave) * wave;
    nb = nb > h ? h : nb;
    return (int)(nb > 65535 ? 65535 : nb);
}

/* Launches the kernels for one image on `stream` in the shapes of `tu`. s, d are device
 * pointers with the strides in p; t is the device copy of the tables. */
static tsr_status launch(tsr_ctx *ctx, const tsr__resize_plan *pl, const uchar *s, uchar *d,
                         const uchar *t, const rk_params &p, cudaStream_t stream,
                         const tsr__resize_cuda_tuning &tu)
{
    if (pl->path == TSR__RESIZE_COPY) {
        size_t row = (size_t)pl->dst_w * pl->cn * pl->depth;
        TSR_CUDA_TRY(ctx, cudaMemcpy2DAsync(d, p.dstride, s, p.sstride, row, pl->dst_h,
                                            cudaMemcpyDeviceToDevice, stream));
        return TSR_OK;
    }
    int gy = pl->dst_h < 65535 ? pl->dst_h : 65535;
    /* k_up2_u8 and k_dn32_u8 want word-aligned rows (source 4 bytes, output 8): with others
     * every thread would take its byte-wise path, 12-15x slower than with aligned rows and 2-4x
     * slower than the generic kernels (1918x1080 -> 2x: 208 us against 53 generic; 1917x1080 ->
     * 1278x720: 34 us, NPP 13; bench/results/resize-h200-2026-11-30-o.md) */
    const int als = (((size_t)s | (size_t)p.sstride) & 3) == 0;
    const int ald = (((size_t)d | (size_t)p.dstride) & 7) == 0;
    if (pl->up2 && als && ald && !tu.no_up2) {
        const int gx = ((pl->src_w + 3) / 4 + UP2_NT - 1) / UP2_NT;
        const int nb = up2_bands(ctx, pl->cn, gx, pl->src_h);
        const dim3 grid(gx, nb);
        switch (pl->cn) {
        case 1: k_up2_u8<1><<<grid, UP2_NT, 0, stream>>>(s, d, p, nb, als, ald); break;
        case 2: k_up2_u8<2><<<grid, UP2_NT, 0, stream>>>(s, d, p, nb, als, ald); break;
        case 3: k_up2_u8<3><<<grid, UP2_NT, 0, stream>>>(s, d, p, nb, als, ald); break;
        default: k_up2_u8<4><<<grid, UP2_NT, 0, stream>>>(s, d, p, nb, als, ald); break;
        }
        TSR_CUDA_CHECK_LAUNCH(ctx, "k_up2_u8");
        return TSR_OK;
    }
    if (pl->dn32 && als && ald && !tu.no_dn32) {
        dn32_weights w = {};
        if (pl->dn32 == TSR__DN32_AREA) {
            const float *xw = (const float *)pl->table[TSR__RT_XCOEF];
            const float *yw = (const float *)pl->table[TSR__RT_YCOEF];
            for (int i = 0; i < 4; i++)
                w.w[i] = xw[i], w.w[4 + i] = yw[i];
        }
        const dim3 grid(((pl->dst_w + 7) / 8 + DN32_NT - 1) / DN32_NT,
                        pl->dst_h / 2 < 65535 ? pl->dst_h / 2 : 65535);
#define TSR_DN32(CN, MODE) k_dn32_u8<CN, MODE><<<grid, DN32_NT, 0, stream>>>(s, d, p, w, als, ald)
        switch (pl->cn * 4 + pl->dn32) {
        case 5: TSR_DN32(1, TSR__DN32_LINEAR); break;
        case 6: TSR_DN32(1, TSR__DN32_AREA); break;
        case 7: TSR_DN32(1, TSR__DN32_NEAREST); break;
        case 9: TSR_DN32(2, TSR__DN32_LINEAR); break;
        case 10: TSR_DN32(2, TSR__DN32_AREA); break;
        case 11: TSR_DN32(2, TSR__DN32_NEAREST); break;
        case 13: TSR_DN32(3, TSR__DN32_LINEAR); break;
        case 14: TSR_DN32(3, TSR__DN32_AREA); break;
        case 15: TSR_DN32(3, TSR__DN32_NEAREST); break;
        case 17: TSR_DN32(4, TSR__DN32_LINEAR); break;
        case 18: TSR_DN32(4, TSR__DN32_AREA); break;
        default: TSR_DN32(4, TSR__DN32_NEAREST); break;
        }
#undef TSR_DN32
        TSR_CUDA_CHECK_LAUNCH(ctx, "k_dn32_u8");
        return TSR_OK;
    }
    const int lin2_plan =
        pl->path == TSR__RESIZE_SEPARABLE && pl->unit_pairs && pl->src_w <= LN_XMAX * pl->dst_w;
    lin2_shape lg;
    const int ept = tu.lin2_ept == 4 ? 4 : 8;
    if (!tu.no_lin2 && lin2_plan && lin2_geometry(pl, ept, tu.lin2_blocks, &lg)) {
        const int al16 = (((size_t)s | (size_t)p.sstride) & 15) == 0;
        const int vst = (((size_t)d | (size_t)p.dstride) & (size_t)(ept - 1)) == 0;
#define TSR_LIN2(CN, EPT)                                                                          \
    k_lin2_u8<CN, EPT>                                                                             \
        <<<lg.grid, LN_NT, lg.smem, stream>>>(s, d, t, p, lg.th, lg.W, lg.nrmax, al16, vst)
        switch (pl->cn * 32 + ept) {
        case 36: TSR_LIN2(1, 4); break;
        case 68: TSR_LIN2(2, 4); break;
        case 100: TSR_LIN2(3, 4); break;
        case 132: TSR_LIN2(4, 4); break;
        case 40: TSR_LIN2(1, 8); break;
        case 72: TSR_LIN2(2, 8); break;
        case 104: TSR_LIN2(3, 8); break;
        default: TSR_LIN2(4, 8); break;
        }
#undef TSR_LIN2
        TSR_CUDA_CHECK_LAUNCH(ctx, "k_lin2_u8");
        return TSR_OK;
    }
    const int walk_ks = walk_taps(pl);
    if (!tu.no_walk && walk_ks && walk_geometry(pl, walk_ks, &lg)) {
        const int al16 = (((size_t)s | (size_t)p.sstride) & 15) == 0;
        const int vst = (((size_t)d | (size_t)p.dstride) & 3) == 0;
#define TSR_WALK(KS, CN)                                                                           \
    k_walk_u8<KS, CN>                                                                              \
        <<<lg.grid, WK_NT, lg.smem, stream>>>(s, d, t, p, lg.th, lg.W, lg.nrmax, al16, vst)
        switch (walk_ks * 8 + pl->cn) {
        case 33: TSR_WALK(4, 1); break;
        case 34: TSR_WALK(4, 2); break;
        case 35: TSR_WALK(4, 3); break;
        case 36: TSR_WALK(4, 4); break;
        case 65: TSR_WALK(8, 1); break;
        case 66: TSR_WALK(8, 2); break;
        case 67: TSR_WALK(8, 3); break;
        default: TSR_WALK(8, 4); break;
        }
#undef TSR_WALK
        TSR_CUDA_CHECK_LAUNCH(ctx, "k_walk_u8");
        return TSR_OK;
    }
    /* Output tiles (k_stile_u8) for every other u8 separable plan with 2 or 4 taps whose tile
     * rows fit. */
    if (pl->path == TSR__RESIZE_SEPARABLE && pl->depth == TSR_U8 &&
        (pl->ksize == 2 || pl->ksize == 4) && pl->cn >= 1 && pl->cn <= 4) {
        const int te = pl->cn == 3 ? 192 : 256, hb = pl->ksize == 2 ? 2 : 4;
        const int n = pl->dst_w * pl->cn;
        int nrmax = 0;
        const int th = stile_rows(pl, te, hb, (n + te - 1) / te, &nrmax);
        if (th && (pl->dst_h + th - 1) / th <= 65535) {
            dim3 grid((n + te - 1) / te, (pl->dst_h + th - 1) / th);
            const size_t smem = (size_t)nrmax * te * hb;
            const int vst = (((size_t)d | (size_t)p.dstride) & (pl->ksize == 2 ? 7 : 3)) == 0;
#define TSR_STILE(KS, CN) k_stile_u8<KS, CN><<<grid, te, smem, stream>>>(s, d, t, p, th, nrmax, vst)
            switch (pl->cn * 8 + pl->ksize) {
            case 10: TSR_STILE(2, 1); break;
            case 18: TSR_STILE(2, 2); break;
            case 26: TSR_STILE(2, 3); break;
            case 34: TSR_STILE(2, 4); break;
            case 12: TSR_STILE(4, 1); break;
            case 20: TSR_STILE(4, 2); break;
            case 28: TSR_STILE(4, 3); break;
            default: TSR_STILE(4, 4); break;
            }
#undef TSR_STILE
            TSR_CUDA_CHECK_LAUNCH(ctx, "k_stile_u8");
            return TSR_OK;
        }
    }
    if (pl->path == TSR__RESIZE_AREA && pl->depth == TSR_U8) {
        const int mt = area_max_taps(pl), n = pl->dst_w * pl->cn;
        const int gx = (n + AW_NT * AW_EPT - 1) / (AW_NT * AW_EPT);
        const int R = walk_rows(gx, AW_NT, pl->dst_h, tu.area_threads);
        if (R && mt <= 4) {
            dim3 grid(gx, (pl->dst_h + R - 1) / R);
            int vst = (((size_t)d | (size_t)p.dstride) & 3) == 0;
            if (mt <= 2)
                k_areaw_u8<2><<<grid, AW_NT, 0, stream>>>(s, d, t, p, R, vst);
            else if (mt == 3)
                k_areaw_u8<3><<<grid, AW_NT, 0, stream>>>(s, d, t, p, R, vst);
            else
                k_areaw_u8<4><<<grid, AW_NT, 0, stream>>>(s, d, t, p, R, vst);
            TSR_CUDA_CHECK_LAUNCH(ctx, "k_areaw_u8");
            return TSR_OK;
        }
    }
    if (pl->path == TSR__RESIZE_AREA_FAST && pl->depth == TSR_U8 && pl->iscale_x == 2 &&
        pl->iscale_y == 2) {
        int px4 = (pl->dst_w + 3) / 4;
        dim3 grid((px4 + 127) / 128, gy);
        int al = ((((size_t)s | (size_t)p.sstride) & 7) == 0) &&
                 ((((size_t)d | (size_t)p.dstride) & 3) == 0);
        if (al && pl->cn == 3)
            k_area2_u8v<3><<<grid, 128, 0, stream>>>(s, d, p);
        else if (al && pl->cn == 4)
            k_area2_u8v<4><<<grid, 128, 0, stream>>>(s, d, p);
        else if (al && pl->cn == 1)
            k_area2_u8v<1><<<grid, 128, 0, stream>>>(s, d, p);
        else
            k_area2_u8<<<grid, 128, 0, stream>>>(s, d, p);
        TSR_CUDA_CHECK_LAUNCH(ctx, "k_area2_u8");
        return TSR_OK;
    }
    if (pl->path == TSR__RESIZE_NEAREST) {
        int pb = pl->cn * pl->depth;
        /* rows per thread: NN_ROWS, fewer while the grid has under LN_BLOCKS blocks */
        const int gxn = ((pl->dst_w + 3) / 4 + 127) / 128;
        int nrows = NN_ROWS;
        while (nrows > 1 && gxn * ((pl->dst_h + nrows - 1) / nrows) < LN_BLOCKS)
            nrows /= 2;
        int gyn = (pl->dst_h + nrows - 1) / nrows;
        if (pb <= 4 && gyn <= 65535) {
            int al = (((size_t)d | (size_t)p.dstride) & 3) == 0;
            dim3 grid(gxn, gyn);
            switch (pb) {
            case 1: k_nearest4<1><<<grid, 128, 0, stream>>>(s, d, t, p, al, nrows); break;
            case 2: k_nearest4<2><<<grid, 128, 0, stream>>>(s, d, t, p, al, nrows); break;
            case 3: k_nearest4<3><<<grid, 128, 0, stream>>>(s, d, t, p, al, nrows); break;
            default: k_nearest4<4><<<grid, 128, 0, stream>>>(s, d, t, p, al, nrows); break;
            }
            TSR_CUDA_CHECK_LAUNCH(ctx, "k_nearest4");
            return TSR_OK;
        }
        dim3 grid((pl->dst_w + 127) / 128, gy);
        k_nearest<<<grid, 128, 0, stream>>>(s, d, t, p);
        TSR_CUDA_CHECK_LAUNCH(ctx, "k_nearest");
        return TSR_OK;
    }
    int n = pl->dst_w * pl->cn;
    dim3 grid((n + 127) / 128, gy);
    k_generic<<<grid, 128, 0, stream>>>(s, d, t, p);
    TSR_CUDA_CHECK_LAUNCH(ctx, "k_generic");
    return TSR_OK;
}

extern "C" tsr_status tsr__resize_cuda_launch(tsr_ctx *ctx, const tsr__resize_plan *pl,
                                              const void *s, size_t sstride, void *d,
                                              size_t dstride, const void *tab, void *stream,
                                              const tsr__resize_cuda_tuning *tuning)
{
    rk_params p;
    if (!tsr__resize_gpu_params(pl, sstride, dstride, &p))
        return tsr__fail(ctx, TSR_ERR_LIMIT, "stride too large");
    return launch(ctx, pl, (const uchar *)s, (uchar *)d, (const uchar *)tab, p,
                  (cudaStream_t)stream, tuning ? *tuning : library_tuning);
}

/* Uploads the plan's tables to device buffer `tab` on `stream`; fills *p (strides given). */
static tsr_status upload_tables(tsr_ctx *ctx, const tsr__resize_plan *pl, tsr__cuda_buffer *tab,
                                size_t sstride, size_t dstride, cudaStream_t stream, rk_params *p,
                                uchar **dtab)
{
    size_t tbytes = tsr__resize_gpu_params(pl, sstride, dstride, p);
    if (!tbytes)
        return tsr__fail(ctx, TSR_ERR_LIMIT,
                         "image row stride or plan tables too large for the CUDA kernels");
    tsr_status st = tsr__cuda_buffer_reserve(ctx, tab, tbytes);
    if (st != TSR_OK)
        return st;
    void *t = tab->ptr;
    *dtab = (uchar *)t;
    /* Tables of this very plan (the context caches plans) are already there: skip the copy. */
    uint64_t *tag = &tab->tag;
    if (*tag == pl->id)
        return TSR_OK;
    *tag = 0;
    /* The plan's one host block has the same layout (each used table 16-byte aligned, in
     * order): then one copy of the used span instead of one per table (each pageable copy costs
     * microseconds of host time inside the call). */
    int same = pl->block != NULL;
    size_t span = 0;
    for (int i = 0; i < TSR__RT_COUNT && same; i++) {
        if (!pl->table_bytes[i])
            continue;
        same = (const uchar *)pl->table[i] == (const uchar *)pl->block + p->off[i];
        span = (size_t)p->off[i] + pl->table_bytes[i];
    }
    if (same && span) {
        TSR_CUDA_TRY(ctx, cudaMemcpyAsync(t, pl->block, span, cudaMemcpyHostToDevice, stream));
    } else {
        for (int i = 0; i < TSR__RT_COUNT; i++) {
            size_t n = 0;
            const void *hp = tsr__resize_plan_table(pl, (tsr__resize_table)i, &n);
            if (n)
                TSR_CUDA_TRY(ctx, cudaMemcpyAsync((uchar *)t + p->off[i], hp, n,
                                                  cudaMemcpyHostToDevice, stream));
        }
    }
    *tag = pl->id;
    return TSR_OK;
}

static int row_bytes(const tsr__resize_plan *pl, int dst, size_t *out)
{
    size_t w = (size_t)(dst ? pl->dst_w : pl->src_w), h = (size_t)(dst ? pl->dst_h : pl->src_h);
    size_t r = w * (size_t)pl->cn * (size_t)pl->depth;
    if (r / w / (size_t)pl->depth != (size_t)pl->cn || (h && r * h / h != r))
        return 0;
    *out = r;
    return 1;
}

/* One image on `stream` with the buffers of lane l. When the destination is a host image, its
 * rows are on their way to l->pin_dst and *pending is set: the caller completes them with
 * tsr__cuda_stage_finish(ctx, &l->down). */
static tsr_status run_one(tsr_ctx *ctx, const tsr__resize_plan *pl, const tsr_image *src,
                          tsr_image *dst, cudaStream_t stream, struct lane *l, int *pending)
{
    size_t srow, drow;
    *pending = 0;
    if (!row_bytes(pl, 0, &srow) || !row_bytes(pl, 1, &drow))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "image size overflows");
    const uchar *s;
    uchar *d;
    size_t sstride, dstride;
    tsr_status st;
    if (src->memory == TSR_MEMORY_CUDA) {
        s = (const uchar *)src->data, sstride = src->stride;
    } else {
        void *pin, *dev;
        size_t bytes = srow * (size_t)pl->src_h;
        if ((st = tsr__cuda_host_buffer_reserve(ctx, &l->pin_src, bytes)) != TSR_OK ||
            (st = tsr__cuda_buffer_reserve(ctx, &l->src, bytes)) != TSR_OK)
            return st;
        pin = l->pin_src.ptr;
        dev = l->src.ptr;
        if ((st = tsr__cuda_stage_upload(ctx, dev, pin, src->data, src->stride, srow,
                                         (size_t)pl->src_h, stream)) != TSR_OK)
            return st;
        s = (const uchar *)dev, sstride = srow;
    }
    if (dst->memory == TSR_MEMORY_CUDA) {
        d = (uchar *)dst->data, dstride = dst->stride;
    } else {
        if ((st = tsr__cuda_buffer_reserve(ctx, &l->dst, drow * (size_t)pl->dst_h)) != TSR_OK)
            return st;
        d = (uchar *)l->dst.ptr, dstride = drow;
    }
    rk_params p;
    uchar *t;
    if ((st = upload_tables(ctx, pl, &l->tab, sstride, dstride, stream, &p, &t)) != TSR_OK)
        return st;
    if ((st = launch(ctx, pl, s, d, t, p, stream, library_tuning)) != TSR_OK)
        return st;
    if (dst->memory != TSR_MEMORY_CUDA) {
        size_t bytes = drow * (size_t)pl->dst_h;
        if ((st = tsr__cuda_host_buffer_reserve(ctx, &l->pin_dst, bytes)) != TSR_OK ||
            (st = tsr__cuda_stage_download(ctx, &l->down, dst->data, dst->stride, l->pin_dst.ptr, d,
                                           drow, (size_t)pl->dst_h, stream)) != TSR_OK)
            return st;
        *pending = 1;
    }
    return TSR_OK;
}

extern "C" tsr_status tsr__resize_cuda(tsr_ctx *ctx, const tsr__resize_plan *plan,
                                       const tsr_image *src, tsr_image *dst)
{
    struct tsr__cuda *c = ctx->cuda;
    if (!c)
        return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "CUDA backend not open on this context");
    TSR_CUDA_TRY(ctx, cudaSetDevice(c->device));
    if (c->own_stream && (src->memory == TSR_MEMORY_CUDA || dst->memory == TSR_MEMORY_CUDA)) {
        /* The context's own stream does not synchronise with the legacy default stream, where a
         * caller without streams filled the device image (a pageable cudaMemcpy can return
         * before its DMA lands): order this call after the default stream's work. */
        cudaEvent_t ev;
        TSR_CUDA_TRY(ctx, cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
        cudaError_t e1 = cudaEventRecord(ev, cudaStreamLegacy);
        cudaError_t e2 = e1 == cudaSuccess ? cudaStreamWaitEvent(c->stream, ev, 0) : e1;
        cudaEventDestroy(ev);
        TSR_CUDA_TRY(ctx, e2);
    }
    int pending = 0;
    struct lane *lanes;
    tsr_status st = lanes_of(ctx, &lanes);
    if (st == TSR_OK)
        st = run_one(ctx, plan, src, dst, c->stream, &lanes[0], &pending);
    if (st != TSR_OK)
        return st;
    if (pending && (st = tsr__cuda_stage_finish(ctx, &lanes[0].down)) != TSR_OK)
        return st;
    int host = src->memory != TSR_MEMORY_CUDA || dst->memory != TSR_MEMORY_CUDA;
    if (host || c->own_stream)
        TSR_CUDA_TRY(ctx, cudaStreamSynchronize(c->stream));
    return TSR_OK;
}

/* Batch: images alternate between two streams with their own lanes of buffers, so the
 * host copy into pinned memory and the upload of image i overlap the kernel and download of
 * image i-1 on the other stream (and, within an image, its chunks one another). Device images run
 * on the context's stream one after another. */
extern "C" tsr_status tsr__resize_cuda_batch(tsr_ctx *ctx, const tsr__resize_plan *plans,
                                             const tsr_image *src, tsr_image *dst, size_t count,
                                             size_t *done)
{
    struct tsr__cuda *c = ctx->cuda;
    *done = 0;
    if (!c)
        return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "CUDA backend not open on this context");
    TSR_CUDA_TRY(ctx, cudaSetDevice(c->device));
    cudaStream_t s2[2] = {NULL, NULL};
    cudaEvent_t start = NULL;
    tsr_status st = TSR_OK;
    size_t prev[2] = {(size_t)-1, (size_t)-1}; /* image whose host output waits on stream k */
    struct lane *lanes;
    if ((st = lanes_of(ctx, &lanes)) != TSR_OK)
        return st;
    cudaError_t e;
    if ((e = cudaEventCreateWithFlags(&start, cudaEventDisableTiming)) != cudaSuccess)
        return tsr__cuda_error(ctx, e, "cudaEventCreate", __FILE__, __LINE__);
    for (int k = 0; k < 2 && st == TSR_OK; k++) {
        if ((e = cudaStreamCreateWithFlags(&s2[k], cudaStreamNonBlocking)) != cudaSuccess)
            st = tsr__cuda_error(ctx, e, "cudaStreamCreate", __FILE__, __LINE__);
    }
    /* Ordered after whatever the caller queued on the context's stream. */
    if (st == TSR_OK && (e = cudaEventRecord(start, c->stream)) != cudaSuccess)
        st = tsr__cuda_error(ctx, e, "cudaEventRecord", __FILE__, __LINE__);
    for (int k = 0; k < 2 && st == TSR_OK; k++)
        if ((e = cudaStreamWaitEvent(s2[k], start, 0)) != cudaSuccess)
            st = tsr__cuda_error(ctx, e, "cudaStreamWaitEvent", __FILE__, __LINE__);
    size_t completed = 0;
    for (size_t i = 0; i < count && st == TSR_OK; i++) {
        int k = (int)(i & 1);
        /* stream k's previous image must be done before its pinned buffers are reused */
        if ((e = cudaStreamSynchronize(s2[k])) != cudaSuccess) {
            st = tsr__cuda_error(ctx, e, "cudaStreamSynchronize", __FILE__, __LINE__);
            break;
        }
        if (prev[k] != (size_t)-1) {
            prev[k] = (size_t)-1;
            if ((st = tsr__cuda_stage_finish(ctx, &lanes[k].down)) != TSR_OK)
                break;
        }
        int pending = 0;
        st = run_one(ctx, &plans[i], &src[i], &dst[i], s2[k], &lanes[k], &pending);
        if (st == TSR_OK && pending)
            prev[k] = i;
    }
    /* Drain both streams in order; count completed images as the prefix that finished. */
    for (int k = 0; k < 2; k++) {
        if (s2[k] && (e = cudaStreamSynchronize(s2[k])) != cudaSuccess && st == TSR_OK)
            st = tsr__cuda_error(ctx, e, "cudaStreamSynchronize", __FILE__, __LINE__);
    }
    for (int k = 0; k < 2; k++)
        if (prev[k] != (size_t)-1 && st == TSR_OK)
            st = tsr__cuda_stage_finish(ctx, &lanes[k].down);
    if (st == TSR_OK)
        completed = count;
    /* On failure the images before the failing one on the same pipeline are done; report only
     * what is certain: none after the first failure. */
    *done = completed;
    for (int k = 0; k < 2; k++)
        if (s2[k])
            cudaStreamDestroy(s2[k]);
    cudaEventDestroy(start);
    return st;
}
