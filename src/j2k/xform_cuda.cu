/* The JPEG 2000 decoder's inverse DWT and output stages on the CUDA device (xform_cuda.h), the
 * same bits as the CPU's dwt.c and decode_tile.c's output_row: every sample's arithmetic is
 * xform_hd.h's, which dwt_level.h, mct.c, store_row.h and pixels.c use too, and the library's
 * CUDA objects are built with --fmad=false (no multiply-add contraction), as the C code is with
 * -ffp-contract=off.
 *
 * Inverse DWT, one level at a time (resolutions 1 .. nres-1, as dwt.c's inverse()), each level
 * in two out-of-place passes through a scratch array (kept on the context) of the top
 * resolution's size (rows of the level's width rounded up to 32 samples):
 *   rows:    d_data -> scratch, one block per (row, segment of SEG_X = 2040 output samples):
 *            the segment and HALO = 4 samples either side, read from the row's low and high
 *            halves in interleaved order (positions past the row's ends mirrored, F.3.7) into
 *            shared memory, all lifting steps there, the segment written interleaved;
 *   columns: scratch -> d_data, one block per (32 columns, segment of SEG_Y = 120 output rows),
 *            the segment's rows and HALO rows either side (low rows first in scratch, read in
 *            interleaved order, mirrored past the ends) in shared memory, lifted there,
 *            written in row order; a warp reads and writes 32 consecutive samples of a row.
 * Out of place because a pass reads a sample from its deinterleaved place after other samples'
 * interleaved places (which the pass writes) are due. A window of W samples lifted with
 * mirrored ends gives exact values in [HALO, W - HALO) (at most 4 lifting steps; why:
 * dwt_window.cuh, which holds the window's helpers, shared with the forward transform).
 * Bytes per level of rw x rh samples: rows read 4 rw rh (1 + 8 / 2040) and write 4 rw rh;
 * columns read 4 rw rh (1 + 8 / 120) and write 4 rw rh: about 16.3 rw rh bytes, for all levels
 * of a tile-component about 4 / 3 of that at the top resolution.
 *
 * Output, one thread per pixel of the region: its channels' samples (with the colour transform
 * of components 0..2 computed once per pixel from the three sources), each channel's store rule,
 * its pixel rule, and the pixel's 1..4 8- or 16-bit samples stored. Bytes per pixel: 4 per
 * source read (3 for the transform plus one per other channel) and nchan or 2 nchan written. */
#include "j2k/xform_hd.h"

#include "cuda/cuda_internal.cuh"
#include "j2k/dwt_window.cuh"

extern "C" {
#include "j2k/xform_cuda.h"
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
    OUT_THREADS = 256         /* threads of an output block, along a row */
};

/* One window sample as loaded: the 9/7's first step (K on low-pass, 1/K on high-pass samples)
 * applied, the 5/3's sample as it is. */
template <bool REV> __device__ static int32_t load_scaled(int32_t v, int low)
{
    if (REV)
        return v;
    const float f = __int_as_float(v) * (low ? TSR__DWT97_KAPPA : TSR__DWT97_INVK);
    return __float_as_int(f);
}

/* The lifting steps of a loaded window of W samples, w[t * ld] holding interleaved position
 * g0 + t (q = (g0 - cas) & 1: t is low-pass where t + q is even), by nth threads (this one
 * tid), with a barrier after each step; afterwards [HALO, W - HALO) is exact. */
template <bool REV>
__device__ static void lift_window(int32_t *w, int ld, int W, uint32_t q, int tid, int nth)
{
    if (REV) {
        tsr__dwt_step<true>(W, 1, q, tid, nth, [&](int t) {
            w[t * ld] = tsr__dwt53_lift_low(w[t * ld], w[(t - 1) * ld], w[(t + 1) * ld]);
        });
        tsr__dwt_step<false>(W, 2, q, tid, nth, [&](int t) {
            w[t * ld] = tsr__dwt53_lift_high(w[t * ld], w[(t - 1) * ld], w[(t + 1) * ld]);
        });
    } else {
        float *f = (float *)w;
        tsr__dwt_step<true>(W, 1, q, tid, nth, [&](int t) {
            f[t * ld] =
                tsr__dwt97_lift(f[t * ld], TSR__DWT97_DELTA, f[(t - 1) * ld], f[(t + 1) * ld]);
        });
        tsr__dwt_step<false>(W, 2, q, tid, nth, [&](int t) {
            f[t * ld] =
                tsr__dwt97_lift(f[t * ld], TSR__DWT97_GAMMA, f[(t - 1) * ld], f[(t + 1) * ld]);
        });
        tsr__dwt_step<true>(W, 3, q, tid, nth, [&](int t) {
            f[t * ld] =
                tsr__dwt97_lift(f[t * ld], TSR__DWT97_BETA, f[(t - 1) * ld], f[(t + 1) * ld]);
        });
        tsr__dwt_step<false>(W, 4, q, tid, nth, [&](int t) {
            f[t * ld] =
                tsr__dwt97_lift(f[t * ld], TSR__DWT97_ALPHA, f[(t - 1) * ld], f[(t + 1) * ld]);
        });
    }
}

/* A line of one sample at position parity cas: halved when odd (5/3: C's division, 9/7: times
 * 0.5), else unchanged (dwt.c's n == 1 case). */
template <bool REV> __device__ static int32_t single(int32_t v, uint32_t cas)
{
    if (!cas)
        return v;
    return REV ? v / 2 : __float_as_int(__int_as_float(v) * 0.5f);
}

/* The row pass of a level: rows [0, rh) of src (sstride apart; each rw samples, snx low-pass
 * first, the first at absolute column x0) lifted and interleaved into dst (dstride apart). */
template <bool REV>
__global__ static void __launch_bounds__(ROW_THREADS)
    k_rows(const int32_t *__restrict__ src, size_t sstride, int32_t *__restrict__ dst,
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
        for (int t = threadIdx.x; t < wn; t += ROW_THREADS) {
            const int64_t i = tsr__dwt_mirror(g0 + t, rw);
            w[t] =
                load_scaled<REV>(s[tsr__dwt_deinterleaved(i, cas, snx)], ((uint32_t)i & 1) == cas);
        }
        __syncthreads();
        lift_window<REV>(w, 1, wn, q, threadIdx.x, ROW_THREADS);
        for (int t = HALO + threadIdx.x; t < wn - HALO; t += ROW_THREADS) {
            const int64_t i = g0 + t;
            if (i < rw)
                d[i] = w[t];
        }
        __syncthreads(); /* w is reloaded for the next row */
    }
}

/* The column pass of a level: columns [0, rw) of src (sstride apart; rh rows, sny low-pass rows
 * first, the first at absolute row y0) lifted into dst (dstride apart) in row order. */
template <bool REV>
__global__ static void __launch_bounds__(COL_X *COL_Y)
    k_cols(const int32_t *__restrict__ src, size_t sstride, int32_t *__restrict__ dst,
           size_t dstride, uint32_t rw, uint32_t rh, uint32_t sny, uint32_t y0, uint32_t nseg)
{
    __shared__ int32_t w[COL_W * COL_X];
    const uint32_t cas = y0 & 1;
    const uint32_t x = blockIdx.x * COL_X + threadIdx.x;
    const bool in = x < rw;
    for (uint32_t seg = blockIdx.y; seg < nseg; seg += gridDim.y) {
        const int64_t g0 = (int64_t)seg * SEG_Y - HALO;
        if (rh == 1) {
            if (in && threadIdx.y == 0)
                dst[x] = single<REV>(src[x], cas);
            continue;
        }
        const int wn = (int)(g0 + COL_W - HALO > (int64_t)rh ? (int64_t)rh + HALO - g0 : COL_W);
        for (int t = threadIdx.y; t < wn; t += COL_Y) {
            const int64_t i = tsr__dwt_mirror(g0 + t, rh);
            const int32_t v =
                in ? src[(size_t)tsr__dwt_deinterleaved(i, cas, sny) * sstride + x] : 0;
            w[t * COL_X + threadIdx.x] = load_scaled<REV>(v, ((uint32_t)i & 1) == cas);
        }
        __syncthreads();
        lift_window<REV>(w + threadIdx.x, COL_X, wn, (uint32_t)(g0 - cas) & 1, threadIdx.y, COL_Y);
        for (int t = HALO + threadIdx.y; t < wn - HALO; t += COL_Y) {
            const int64_t i = g0 + t;
            if (in && i < rh)
                dst[(size_t)i * dstride + x] = w[t * COL_X + threadIdx.x];
        }
        __syncthreads();
    }
}

static unsigned grid_y(uint64_t n)
{
    return (unsigned)(n < MAX_GRID_Y ? n : MAX_GRID_Y);
}

/* One level through the two passes (tmp: rh rows of tstride samples). */
template <bool REV>
static tsr_status level(tsr_ctx *ctx, cudaStream_t stream, int32_t *data, size_t stride,
                        int32_t *tmp, size_t tstride, uint32_t rw, uint32_t rh, uint32_t snx,
                        uint32_t sny, uint32_t x0, uint32_t y0)
{
    const dim3 rgrid((unsigned)(((uint64_t)rw + SEG_X - 1) / SEG_X), grid_y(rh));
    k_rows<REV><<<rgrid, ROW_THREADS, 0, stream>>>(data, stride, tmp, tstride, rw, rh, snx, x0);
    TSR_CUDA_CHECK_LAUNCH(ctx, "k_rows");
    const uint32_t nseg = (rh + SEG_Y - 1) / SEG_Y;
    const dim3 cgrid((unsigned)(((uint64_t)rw + COL_X - 1) / COL_X), grid_y(nseg));
    k_cols<REV><<<cgrid, dim3(COL_X, COL_Y), 0, stream>>>(tmp, tstride, data, stride, rw, rh, sny,
                                                          y0, nseg);
    TSR_CUDA_CHECK_LAUNCH(ctx, "k_cols");
    return TSR_OK;
}

/* What the inverse DWT keeps on a context between calls: its scratch array (grown, never
 * shrunk; reused in stream order by every call on the context's stream). */
struct idwt_state {
    tsr__cuda_buffer scratch;
};

static void idwt_state_destroy(tsr_ctx *ctx, void *state)
{
    idwt_state *s = (idwt_state *)state;
    if (ctx->cuda)
        cudaStreamSynchronize(ctx->cuda->stream);
    tsr__cuda_buffer_free(&s->scratch);
    tsr__free(ctx, s);
}

static const tsr__ctx_state_kind idwt_kind = {"j2k inverse DWT scratch", idwt_state_destroy};

static tsr_status open_stream(tsr_ctx *ctx, cudaStream_t *stream)
{
    struct tsr__cuda *c = ctx->cuda;
    if (!c)
        return tsr__fail(ctx, TSR_ERR_NO_BACKEND,
                         "j2k: the CUDA backend is not open on this "
                         "context");
    TSR_CUDA_TRY(ctx, cudaSetDevice(c->device));
    *stream = c->stream;
    return TSR_OK;
}

extern "C" tsr_status tsr__j2k_idwt_cuda(tsr_ctx *ctx, int32_t *d_data, size_t stride,
                                         const tsr__j2k_res *res, uint32_t nres, int reversible)
{
    if (nres < 1 || nres > TSR__J2K_MAX_RES || !res || !d_data)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k inverse DWT on the device: %u resolutions (1..%u) or no data", nres,
                         TSR__J2K_MAX_RES);
    /* the scratch rows: the widest level's width rounded up to 32 samples, the highest's rows */
    size_t tstride = 0, trows = 0;
    for (uint32_t r = 0; r < nres; r++) {
        const tsr__j2k_res *a = &res[r];
        const uint32_t rw = a->x1 > a->x0 ? a->x1 - a->x0 : 0,
                       rh = a->y1 > a->y0 ? a->y1 - a->y0 : 0;
        if (a->x1 < a->x0 || a->y1 < a->y0 || rw > stride ||
            (r > 0 && (res[r - 1].x1 - res[r - 1].x0 > rw || res[r - 1].y1 - res[r - 1].y0 > rh)))
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "j2k inverse DWT on the device: resolution %u (%ux%u) does not fit "
                             "its row stride %zu or the resolution below",
                             r, rw, rh, stride);
        tstride = ((size_t)rw + 31) / 32 * 32 > tstride ? ((size_t)rw + 31) / 32 * 32 : tstride;
        trows = rh > trows ? rh : trows;
    }
    if (nres == 1 || tstride == 0 || trows == 0)
        return TSR_OK;
    cudaStream_t stream;
    tsr_status st = open_stream(ctx, &stream);
    if (st)
        return st;
    size_t bytes;
    if (!tsr__size_mul(tstride, trows, &bytes) || !tsr__size_mul(bytes, sizeof(int32_t), &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "j2k inverse DWT on the device: scratch size");
    idwt_state *state;
    if ((st = tsr__ctx_state_get(ctx, &idwt_kind, sizeof *state, (void **)&state)) ||
        (st = tsr__cuda_buffer_reserve(ctx, &state->scratch, bytes)))
        return st;
    int32_t *tmp = (int32_t *)state->scratch.ptr;
    for (uint32_t r = 1; r < nres && !st; r++) {
        const tsr__j2k_res *a = &res[r], *low = &res[r - 1];
        const uint32_t rw = a->x1 - a->x0, rh = a->y1 - a->y0;
        if (rw == 0 || rh == 0)
            continue;
        const uint32_t snx = low->x1 - low->x0, sny = low->y1 - low->y0;
        st = reversible ? level<true>(ctx, stream, d_data, stride, tmp, tstride, rw, rh, snx, sny,
                                      a->x0, a->y0)
                        : level<false>(ctx, stream, d_data, stride, tmp, tstride, rw, rh, snx, sny,
                                       a->x0, a->y0);
    }
    return st;
}

/* ---- output ----------------------------------------------------------------------------- */

/* A channel as the kernel uses it: its source row 0 at column 0 of the region's first row
 * and column, the store rule's bounds precomputed as store_row.h has them. */
struct out_chan {
    const int32_t *src; /* the sample of (x0, y0) of the region */
    size_t stride;
    int kind;  /* 0 integer, 1 float near (|bounds| < 2^22), 2 float far */
    int mcomp; /* 0..2: takes the colour transform's output of that component; -1 src */
    int32_t clo, chi, sh;
    float flo, fhi;
    int64_t lo, hi, shift;
    int32_t off;
    uint64_t num, den;
};

struct out_params {
    uint32_t nchan, w, h;
    int mct;
    const int32_t *mct_src[3]; /* the samples of the region's (x0, y0) */
    size_t mct_stride[3];
    out_chan ch[4];
    unsigned char *dst; /* the pixel of the region's (x0, y0) */
    size_t dst_stride;
    int wide, exact;
};

/* Channel c's stored sample (store_row.h's rule) of pixel x of region row y, rgb the colour
 * transform's output there. */
__device__ static int32_t stored(const out_chan &c, const int32_t rgb[3], uint32_t x, uint32_t y)
{
    const int32_t raw = c.mcomp >= 0 ? rgb[c.mcomp] : c.src[(size_t)y * c.stride + x];
    if (c.kind == 0)
        return tsr__store_int1(raw, c.clo, c.chi, c.sh);
    if (c.kind == 1)
        return tsr__store_float_near1(__int_as_float(raw), c.flo, c.fhi, c.sh);
    return tsr__store_float_far1(__int_as_float(raw), c.lo, c.hi, c.shift);
}

__global__ static void __launch_bounds__(OUT_THREADS) k_output(const out_params p)
{
    const uint32_t x = blockIdx.x * OUT_THREADS + threadIdx.x;
    if (x >= p.w)
        return;
    for (uint32_t y = blockIdx.y; y < p.h; y += gridDim.y) {
        int32_t rgb[3] = {0, 0, 0};
        if (p.mct) {
            const int32_t a = p.mct_src[0][(size_t)y * p.mct_stride[0] + x];
            const int32_t b = p.mct_src[1][(size_t)y * p.mct_stride[1] + x];
            const int32_t c = p.mct_src[2][(size_t)y * p.mct_stride[2] + x];
            if (p.mct == 1) {
                tsr__rct_inverse1(a, b, c, rgb);
            } else {
                float f[3];
                tsr__ict_inverse1(__int_as_float(a), __int_as_float(b), __int_as_float(c), f);
                for (int k = 0; k < 3; k++)
                    rgb[k] = __float_as_int(f[k]);
            }
        }
        unsigned char *d = p.dst + (size_t)y * p.dst_stride;
        const bool odd = ((uintptr_t)d & 1) != 0;
        for (uint32_t c = 0; c < p.nchan; c++) {
            const out_chan &ch = p.ch[c];
            const int32_t s = stored(ch, rgb, x, y);
            const size_t at = (size_t)x * p.nchan + c;
            const uint32_t v =
                p.exact ? (uint32_t)(s + ch.off) : tsr__pixel_scale1(s, ch.off, ch.num, ch.den);
            if (!p.wide)
                d[at] = (uint8_t)v;
            else if (!odd)
                ((uint16_t *)d)[at] = (uint16_t)v;
            else { /* a row at an odd address: the two bytes, in the host's (little-endian) order */
                d[2 * at] = (uint8_t)v;
                d[2 * at + 1] = (uint8_t)(v >> 8);
            }
        }
    }
}

extern "C" tsr_status tsr__j2k_output_cuda(tsr_ctx *ctx, const tsr__j2k_dev_output *o)
{
    if (o->nchan < 1 || o->nchan > 4 || o->mct < 0 || o->mct > 2 || !o->dst)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k output on the device: %u channels (1..4), colour transform %d "
                         "(0..2) or no image",
                         o->nchan, o->mct);
    if (o->x1 <= o->x0 || o->y1 <= o->y0)
        return TSR_OK;
    if (o->x0 < o->dst_x0 || o->y0 < o->dst_y0 || o->x1 - o->x0 > UINT32_MAX ||
        o->y1 - o->y0 > UINT32_MAX)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "j2k output on the device: region [%lld, %lld) x [%lld, %lld) outside "
                         "the image or too large",
                         (long long)o->x0, (long long)o->x1, (long long)o->y0, (long long)o->y1);
    out_params p;
    memset(&p, 0, sizeof p);
    p.nchan = o->nchan;
    p.w = (uint32_t)(o->x1 - o->x0);
    p.h = (uint32_t)(o->y1 - o->y0);
    p.mct = o->mct;
    p.wide = o->wide;
    p.exact = o->exact;
    const int64_t cx0 = o->chan[0].src_x0, cy0 = o->chan[0].src_y0;
    for (uint32_t c = 0; c < o->nchan; c++) {
        const tsr__j2k_dev_chan *s = &o->chan[c];
        out_chan *d = &p.ch[c];
        if (s->src_x0 > o->x0 || s->src_y0 > o->y0 || s->lo > s->hi || s->den == 0 ||
            (o->mct && (s->src_x0 != cx0 || s->src_y0 != cy0)) || s->lo - s->shift < INT32_MIN ||
            s->hi - s->shift > INT32_MAX)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "j2k output on the device: channel %u's source does not cover the "
                             "region or its rules are invalid",
                             c);
        d->mcomp = o->mct && s->comp < 3 ? (int)s->comp : -1;
        if (d->mcomp < 0 && !s->src)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "j2k output on the device: channel %u has no source", c);
        d->src = d->mcomp >= 0 ? NULL
                               : s->src + (size_t)(o->y0 - s->src_y0) * s->src_stride +
                                     (size_t)(o->x0 - s->src_x0);
        d->stride = s->src_stride;
        d->kind = !s->is_float ? 0 : tsr__store_float_is_near(s->lo, s->hi) ? 1 : 2;
        d->clo = (int32_t)(s->lo - s->shift);
        d->chi = (int32_t)(s->hi - s->shift);
        d->sh = (int32_t)s->shift;
        d->flo = (float)(s->lo - s->shift);
        d->fhi = (float)(s->hi - s->shift);
        d->lo = s->lo;
        d->hi = s->hi;
        d->shift = s->shift;
        d->off = s->off;
        d->num = s->num;
        d->den = s->den;
    }
    if (o->mct)
        for (int k = 0; k < 3; k++) {
            if (!o->mct_src[k])
                return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                                 "j2k output on the device: colour transform without source %d", k);
            p.mct_src[k] =
                o->mct_src[k] + (size_t)(o->y0 - cy0) * o->mct_stride[k] + (size_t)(o->x0 - cx0);
            p.mct_stride[k] = o->mct_stride[k];
        }
    const size_t pixel = (size_t)o->nchan * (o->wide ? 2 : 1);
    p.dst = (unsigned char *)o->dst + (size_t)(o->y0 - o->dst_y0) * o->dst_stride +
            (size_t)(o->x0 - o->dst_x0) * pixel;
    p.dst_stride = o->dst_stride;
    cudaStream_t stream;
    tsr_status st = open_stream(ctx, &stream);
    if (st)
        return st;
    const dim3 grid((p.w + OUT_THREADS - 1) / OUT_THREADS, grid_y(p.h));
    k_output<<<grid, OUT_THREADS, 0, stream>>>(p);
    TSR_CUDA_CHECK_LAUNCH(ctx, "k_output");
    return TSR_OK;
}
