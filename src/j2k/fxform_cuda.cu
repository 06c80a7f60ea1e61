/* The JPEG 2000 encoder's first stages on the CUDA device (fxform_cuda.h), the same bits as the
 * CPU's encode.c (load_channel_rows, load_mct_rows, transform_tile), mct.c and fdwt.c: every
 * sample's arithmetic is fxform_hd.h's, which those files use too, and the library's CUDA objects
 * are built with
 * --fmad=false (no multiply-add contraction), as the C code is with -ffp-contract=off.
 *
 * Samples, one thread per pixel: its 1..4 channels read once, level shifted, through the colour
 * transform, written to the component planes (bytes per pixel: channels or 2 channels read,
 * 4 channels written).
 *
 * Forward DWT, one level at a time from the top resolution down (as fdwt.c's forward_levels:
 * columns, then rows), each level in two out-of-place passes through a scratch array (kept on
 * the context) of the top resolution's size (rows of the level's width rounded up to 32):
 *   columns: d_data -> scratch, one block per (32 columns, segment of SEG_Y = 120 rows): the
 *            segment's rows and HALO = 4 rows either side (mirrored past the ends, F.4.8.1) in
 *            shared memory, lifted there (F.4.8.2), scaled (9/7) and written deinterleaved:
 *            low-pass rows first; a warp reads and writes 32 consecutive samples of a row;
 *   rows:    scratch -> d_data, one block per (row, segment of SEG_X = 2040 samples), read in
 *            interleaved order, lifted, written deinterleaved (low-pass samples first).
 * Out of place because a pass writes a sample's deinterleaved place while other blocks still
 * read it at its interleaved place. Why a window of W samples is exact in [HALO, W - HALO):
 * dwt_window.cuh. Bytes per level of rw x rh samples: about 16.3 rw rh (each pass reads and
 * writes every sample once, plus the halos), for all levels of a tile-component about 4 / 3 of
 * that at the top resolution. */
#include "j2k/fxform_hd.h"

#include "cuda/cuda_internal.cuh"
#include "j2k/dwt_window.cuh"

extern "C" {
#include "core/checked.h"
#include "j2k/fxform_cuda.h"
}

#include <string.h>

enum {
    HALO = 4,                 /* the 9/7's four lifting steps reach 4 samples (5/3: 2) */
    ROW_THREADS = 256,        /* threads of a row block */
    ROW_W = 2048,             /* window of a row block: its segment and 2 HALO */
    SEG_X = ROW_W - 2 * HALO, /* output samples of a row block */
    COL_X = 32,               /* columns of a column block (one warp across) */
    COL_Y = 8,                /* warps of a column block */
    COL_W = 128,              /* window rows of a column block */
    SEG_Y = COL_W - 2 * HALO, /* output rows of a column block */
    MAX_GRID_Y = 65535,       /* gridDim.y; blocks loop over further rows or segments */
    PIX_X = 128,              /* threads of a samples block, along a row */
};

static unsigned grid_y(uint64_t n)
{
    return (unsigned)(n < MAX_GRID_Y ? n : MAX_GRID_Y);
}

static tsr_status open_stream(tsr_ctx *ctx, const char *what, cudaStream_t *stream)
{
    if (!ctx->cuda)
        return tsr__fail(ctx, TSR_ERR_NO_BACKEND,
                         "%s on the device: the CUDA backend is not open on this context", what);
    if (tsr__cuda_use(ctx->cuda) != TSR_OK)
        return tsr__fail(ctx, TSR_ERR_DEVICE, "%s on the device: cannot select the device", what);
    *stream = ctx->cuda->stream;
    return TSR_OK;
}

/* ---- samples ---------------------------------------------------------------------------- */

struct fload_params {
    const unsigned char *src;
    size_t src_stride;
    uint32_t nc, prec, w, h;
    int wide, mct, rev;
    int32_t *dst[4];
    size_t dst_stride;
};

__global__ static void __launch_bounds__(PIX_X) k_fload(const fload_params p)
{
    const uint32_t x = blockIdx.x * PIX_X + threadIdx.x;
    if (x >= p.w)
        return;
    for (uint32_t y = blockIdx.y; y < p.h; y += gridDim.y) {
        const unsigned char *row = p.src + (size_t)y * p.src_stride;
        /* the loops over channels unrolled to constant indices: v, f and p.dst stay in
         * registers (with a loop of p.nc trips they went to local memory, 8x the floor) */
        int32_t v[4] = {0, 0, 0, 0};
#pragma unroll
        for (uint32_t c = 0; c < 4; c++)
            if (c < p.nc) {
                const uint32_t s = p.wide ? ((const uint16_t *)row)[(size_t)x * p.nc + c]
                                          : row[(size_t)x * p.nc + c];
                v[c] = tsr__j2k_level_shift1(s, p.prec);
            }
        const size_t at = (size_t)y * p.dst_stride + x;
        if (p.rev) {
            if (p.mct)
                tsr__rct_forward1(v[0], v[1], v[2], v);
#pragma unroll
            for (uint32_t c = 0; c < 4; c++)
                if (c < p.nc)
                    p.dst[c][at] = v[c];
        } else {
            float f[4];
#pragma unroll
            for (uint32_t c = 0; c < 4; c++)
                f[c] = (float)v[c];
            if (p.mct)
                tsr__ict_forward1(f[0], f[1], f[2], f);
#pragma unroll
            for (uint32_t c = 0; c < 4; c++)
                if (c < p.nc)
                    p.dst[c][at] = __float_as_int(f[c]);
        }
    }
}

extern "C" tsr_status tsr__j2k_fload_cuda(tsr_ctx *ctx, const tsr__j2k_dev_fload *o)
{
    if (!o || o->channels < 1 || o->channels > 4 || (o->prec != 8 && o->prec != 16) ||
        (o->mct && o->channels < 3))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k samples on the device: %u channels of %u bits%s", o ? o->channels : 0,
                         o ? o->prec : 0, o && o->mct ? " with a colour transform" : "");
    if (o->wide && (((uintptr_t)o->src | (uintptr_t)o->src_stride) & 1))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k samples on the device: 16-bit samples need an even address and "
                         "row stride (stride %zu)",
                         (size_t)o->src_stride);
    if (o->w == 0 || o->h == 0)
        return TSR_OK;
    cudaStream_t stream;
    tsr_status st = open_stream(ctx, "j2k samples", &stream);
    if (st)
        return st;
    fload_params p;
    memset(&p, 0, sizeof p);
    p.src = (const unsigned char *)o->src;
    p.src_stride = o->src_stride;
    p.nc = o->channels;
    p.prec = o->prec;
    p.w = o->w;
    p.h = o->h;
    p.wide = o->wide;
    p.mct = o->mct;
    p.rev = o->rev;
    for (uint32_t c = 0; c < o->channels; c++)
        p.dst[c] = o->dst[c];
    p.dst_stride = o->dst_stride;
    const dim3 grid((o->w + PIX_X - 1) / PIX_X, grid_y(o->h));
    k_fload<<<grid, PIX_X, 0, stream>>>(p);
    TSR_CUDA_CHECK_LAUNCH(ctx, "k_fload");
    return TSR_OK;
}

/* ---- forward DWT -------------------------------------------------------------------------- */

/* The forward lifting steps of a loaded window of W samples, w[t * ld] holding interleaved
 * position g0 + t (q = (g0 - cas) & 1: t is low-pass where t + q is even), by nth threads (this
 * one tid), with a barrier after each step; afterwards [HALO, W - HALO) is exact but for the
 * 9/7's scaling (scaled()). fdwt.c's tsr__dwt53_forward_line / tsr__dwt97_forward_line. */
template <bool REV>
__device__ static void flift_window(int32_t *w, int ld, int W, uint32_t q, int tid, int nth)
{
    if (REV) {
        tsr__dwt_step<false>(W, 1, q, tid, nth, [&](int t) {
            w[t * ld] = tsr__fdwt53_predict(w[t * ld], w[(t - 1) * ld], w[(t + 1) * ld]);
        });
        tsr__dwt_step<true>(W, 2, q, tid, nth, [&](int t) {
            w[t * ld] = tsr__fdwt53_update(w[t * ld], w[(t - 1) * ld], w[(t + 1) * ld]);
        });
    } else {
        float *f = (float *)w;
        tsr__dwt_step<false>(W, 1, q, tid, nth, [&](int t) {
            f[t * ld] =
                tsr__fdwt97_lift(f[t * ld], TSR__DWT97_ALPHA, f[(t - 1) * ld], f[(t + 1) * ld]);
        });
        tsr__dwt_step<true>(W, 2, q, tid, nth, [&](int t) {
            f[t * ld] =
                tsr__fdwt97_lift(f[t * ld], TSR__DWT97_BETA, f[(t - 1) * ld], f[(t + 1) * ld]);
        });
        tsr__dwt_step<false>(W, 3, q, tid, nth, [&](int t) {
            f[t * ld] =
                tsr__fdwt97_lift(f[t * ld], TSR__DWT97_GAMMA, f[(t - 1) * ld], f[(t + 1) * ld]);
        });
        tsr__dwt_step<true>(W, 4, q, tid, nth, [&](int t) {
            f[t * ld] =
                tsr__fdwt97_lift(f[t * ld], TSR__DWT97_DELTA, f[(t - 1) * ld], f[(t + 1) * ld]);
        });
    }
}

/* A lifted sample as written: the 9/7's last step (1/K on low-pass, K on high-pass samples),
 * the 5/3's as it is. */
template <bool REV> __device__ static int32_t scaled(int32_t v, int low)
{
    if (REV)
        return v;
    return __float_as_int(__int_as_float(v) * (low ? TSR__DWT97_INVK : TSR__DWT97_KAPPA));
}

/* A line of one sample at position parity cas: doubled when odd (fdwt.c's n == 1 case). */
template <bool REV> __device__ static int32_t single(int32_t v, uint32_t cas)
{
    if (!cas)
        return v;
    return REV ? v * 2 : __float_as_int(__int_as_float(v) * 2.0f);
}

/* The column pass of a level: columns [0, rw) of src (sstride apart; rh rows, the first at
 * absolute row y0) lifted into dst (dstride apart), the sny low-pass rows first. */
template <bool REV>
__global__ static void __launch_bounds__(COL_X *COL_Y)
    k_fcols(const int32_t *__restrict__ src, size_t sstride, int32_t *__restrict__ dst,
            size_t dstride, uint32_t rw, uint32_t rh, uint32_t sny, uint32_t y0, uint32_t nseg)
{
    __shared__ int32_t w[COL_W * COL_X];
    const uint32_t cas = y0 & 1;
    const uint32_t x = blockIdx.x * COL_X + threadIdx.x;
    const bool in = x < rw;
    for (uint32_t seg = blockIdx.y; seg < nseg; seg += gridDim.y) {
        if (rh == 1) {
            if (in && threadIdx.y == 0)
                dst[x] = single<REV>(src[x], cas);
            continue;
        }
        const int64_t g0 = (int64_t)seg * SEG_Y - HALO;
        const int wn = (int)(g0 + COL_W - HALO > (int64_t)rh ? (int64_t)rh + HALO - g0 : COL_W);
        for (int t = threadIdx.y; t < wn; t += COL_Y) {
            const int64_t i = tsr__dwt_mirror(g0 + t, rh);
            w[t * COL_X + threadIdx.x] = in ? src[(size_t)i * sstride + x] : 0;
        }
        __syncthreads();
        flift_window<REV>(w + threadIdx.x, COL_X, wn, (uint32_t)(g0 - cas) & 1, threadIdx.y, COL_Y);
        for (int t = HALO + threadIdx.y; t < wn - HALO; t += COL_Y) {
            const int64_t i = g0 + t;
            const int low = ((uint32_t)i & 1) == cas;
            if (in && i < rh)
                dst[(size_t)tsr__dwt_deinterleaved(i, cas, sny) * dstride + x] =
                    scaled<REV>(w[t * COL_X + threadIdx.x], low);
        }
        __syncthreads(); /* w is reloaded for the next segment */
    }
}

/* The row pass of a level: rows [0, rh) of src (sstride apart; each rw samples, the first at
 * absolute column x0) lifted into dst (dstride apart), the snx low-pass samples first. */
template <bool REV>
__global__ static void __launch_bounds__(ROW_THREADS)
    k_frows(const int32_t *__restrict__ src, size_t sstride, int32_t *__restrict__ dst,
            size_t dstride, uint32_t rw, uint32_t rh, uint32_t snx, uint32_t x0)
{
    __shared__ int32_t w[ROW_W];
    const uint32_t cas = x0 & 1;
    const int64_t g0 = (int64_t)blockIdx.x * SEG_X - HALO; /* position of w[0] */
    const uint32_t q = (uint32_t)(g0 - cas) & 1;
    /* the window's part the segment depends on: up to HALO past the row's end */
    const int wn = (int)(g0 + ROW_W - HALO > (int64_t)rw ? (int64_t)rw + HALO - g0 : ROW_W);
    for (uint32_t y = blockIdx.y; y < rh; y += gridDim.y) {
        const int32_t *s = src + (size_t)y * sstride;
        int32_t *d = dst + (size_t)y * dstride;
        if (rw == 1) {
            if (threadIdx.x == 0)
                d[0] = single<REV>(s[0], cas);
            continue;
        }
        for (int t = threadIdx.x; t < wn; t += ROW_THREADS)
            w[t] = s[tsr__dwt_mirror(g0 + t, rw)];
        __syncthreads();
        flift_window<REV>(w, 1, wn, q, threadIdx.x, ROW_THREADS);
        for (int t = HALO + threadIdx.x; t < wn - HALO; t += ROW_THREADS) {
            const int64_t i = g0 + t;
            if (i < rw)
                d[tsr__dwt_deinterleaved(i, cas, snx)] =
                    scaled<REV>(w[t], ((uint32_t)i & 1) == cas);
        }
        __syncthreads(); /* w is reloaded for the next row */
    }
}

/* The low-pass samples of a line of n at absolute position parity cas (F.4.2's DEINTERLEAVE:
 * those at positions of parity cas). */
static uint32_t lows(uint32_t n, uint32_t cas)
{
    return cas ? n / 2 : (n + 1) / 2;
}

/* One level through the two passes (tmp: rh rows of tstride samples). */
template <bool REV>
static tsr_status level(tsr_ctx *ctx, cudaStream_t stream, int32_t *data, size_t stride,
                        int32_t *tmp, size_t tstride, uint32_t rw, uint32_t rh, uint32_t x0,
                        uint32_t y0)
{
    const uint32_t nseg = (rh + SEG_Y - 1) / SEG_Y;
    const dim3 cgrid((unsigned)(((uint64_t)rw + COL_X - 1) / COL_X), grid_y(nseg));
    k_fcols<REV><<<cgrid, dim3(COL_X, COL_Y), 0, stream>>>(data, stride, tmp, tstride, rw, rh,
                                                           lows(rh, y0 & 1), y0, nseg);
    TSR_CUDA_CHECK_LAUNCH(ctx, "k_fcols");
    const dim3 rgrid((unsigned)(((uint64_t)rw + SEG_X - 1) / SEG_X), grid_y(rh));
    k_frows<REV><<<rgrid, ROW_THREADS, 0, stream>>>(tmp, tstride, data, stride, rw, rh,
                                                    lows(rw, x0 & 1), x0);
    TSR_CUDA_CHECK_LAUNCH(ctx, "k_frows");
    return TSR_OK;
}

/* What the forward DWT keeps on a context between calls: its scratch array (grown, never
 * shrunk; reused in stream order by every call on the context's stream). */
struct fdwt_state {
    tsr__cuda_buffer scratch;
};

static void fdwt_state_destroy(tsr_ctx *ctx, void *state)
{
    fdwt_state *s = (fdwt_state *)state;
    if (ctx->cuda)
        cudaStreamSynchronize(ctx->cuda->stream);
    tsr__cuda_buffer_free(&s->scratch);
    tsr__free(ctx, s);
}

static const tsr__ctx_state_kind fdwt_kind = {"j2k forward DWT scratch", fdwt_state_destroy};

extern "C" tsr_status tsr__j2k_fdwt_cuda(tsr_ctx *ctx, int32_t *d_data, size_t stride,
                                         const tsr__j2k_res *res, uint32_t nres, int reversible)
{
    if (nres < 1 || nres > TSR__J2K_MAX_RES || !res || !d_data)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k forward DWT on the device: %u resolutions (1..%u) or no data", nres,
                         TSR__J2K_MAX_RES);
    size_t tstride = 0, trows = 0;
    for (uint32_t r = 0; r < nres; r++) {
        const tsr__j2k_res *a = &res[r];
        const uint32_t rw = a->x1 > a->x0 ? a->x1 - a->x0 : 0,
                       rh = a->y1 > a->y0 ? a->y1 - a->y0 : 0;
        if (a->x1 < a->x0 || a->y1 < a->y0 || rw > stride ||
            (r > 0 && (res[r - 1].x1 - res[r - 1].x0 > rw || res[r - 1].y1 - res[r - 1].y0 > rh)))
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "j2k forward DWT on the device: resolution %u (%ux%u) does not fit "
                             "its row stride %zu or the resolution above",
                             r, rw, rh, stride);
        tstride = ((size_t)rw + 31) / 32 * 32 > tstride ? ((size_t)rw + 31) / 32 * 32 : tstride;
        trows = rh > trows ? rh : trows;
    }
    if (nres == 1 || tstride == 0 || trows == 0)
        return TSR_OK;
    cudaStream_t stream;
    tsr_status st = open_stream(ctx, "j2k forward DWT", &stream);
    if (st)
        return st;
    size_t bytes;
    if (!tsr__size_mul(tstride, trows, &bytes) || !tsr__size_mul(bytes, sizeof(int32_t), &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "j2k forward DWT on the device: scratch size");
    fdwt_state *state;
    if ((st = tsr__ctx_state_get(ctx, &fdwt_kind, sizeof *state, (void **)&state)) ||
        (st = tsr__cuda_buffer_reserve(ctx, &state->scratch, bytes)))
        return st;
    int32_t *tmp = (int32_t *)state->scratch.ptr;
    for (uint32_t r = nres - 1; r >= 1 && !st; r--) {
        const tsr__j2k_res *a = &res[r];
        const uint32_t rw = a->x1 - a->x0, rh = a->y1 - a->y0;
        if (rw == 0 || rh == 0)
            continue;
        st = reversible
                 ? level<true>(ctx, stream, d_data, stride, tmp, tstride, rw, rh, a->x0, a->y0)
                 : level<false>(ctx, stream, d_data, stride, tmp, tstride, rw, rh, a->x0, a->y0);
    }
    return st;
}
