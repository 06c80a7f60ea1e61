/* encode_cuda.h: the buffers of a JPEG 2000 encode on CUDA, owned by the context and reused,
 * and the block coders' kernels.
 *
 * A host image goes up once through the ring of page-locked slots (cuda_internal.cuh); per tile,
 * its components' planes (one device buffer, the tile's width apart) receive the samples and
 * the forward DWT and stay for the block coders:
 *   k_prep:   a thread block per code-block: the block quantised in place (irreversible; with
 *             rate control HT keeps the magnitudes in steps in a second plane and Part 1 sums
 *             the error they leave, in the CPU's order), its bit-planes K; K comes back (24
 *             bytes a block) and sizes each block's room (one cleanup segment's bound, K HT
 *             candidates' or the Part 1 bound of K planes),
 *   k_code:   HT without rate control: a warp per block, its cleanup pass (ht_encode_warp.cuh);
 *             Part 1: its passes (t1_encode_hd.h) in a tsr__t1_enc workspace of one of a fixed
 *             number of workers (each striding over the blocks); the fast-nonstandard coder:
 *             k_code_fns, a warp per block, a lane per stripe (fast_coder_hd.h),
 *             HT with rate control, two kernels: k_ht_planes, a warp per (block, base plane),
 *             a fixed number of warps with TSR__J2K_HT_RD_SCRATCH bytes of scratch each
 *             striding over them (the lowest planes, the longest, first): the plane's set
 *             (ht_rd_hd.h's tsr__j2k_ht_plane_hd) at its place in the block's room; then
 *             k_ht_sets, a warp per block: its candidates from its planes' results;
 *             the lengths (and the candidates' or passes' rates and distortions, 2.9 KB a
 *             block) come back,
 *   k_gather: a thread block per code-block: its bytes (with HT rate control its planes' sets
 *             one after another, as the CPU lays them) into one packed buffer at offsets summed
 *             on the host, which comes back in one copy (about the codestream's size; with HT
 *             rate control every candidate's bytes). */
extern "C" {
#include "j2k/t1_encode.h"
}

#include "j2k/fast_coder_hd.h"
#include "j2k/fxform_hd.h"
#include "j2k/ht_encode_hd.h"
#include "j2k/ht_encode_warp.cuh"
#include "j2k/ht_rd_hd.h"
#include "j2k/t1_encode_hd.h"

#include "cuda/cuda_internal.cuh"

extern "C" {
#include "core/checked.h"
#include "core/copy_rows.h"
#include "j2k/encode_cuda.h"
#include "j2k/fxform_cuda.h"
#include "j2k/ht_encode.h"
}

#include <string.h>

/* Passes of a Part 1 block at most: 3 K - 2 with K <= 31 (t1_encode.h), as many as HT's sets. */
enum { P1_MAX_PASSES = 3 * 31 - 2 };
static_assert(P1_MAX_PASSES <= TSR__J2K_HT_MAX_SETS, "one array holds either coder's points");

/* A code-block as the kernels read it. */
struct dev_job {
    int32_t *coef;   /* its first coefficient in its tile-component's plane */
    float *mag;      /* its first in the magnitudes' plane (HT rate control, 9/7), else NULL */
    uint32_t stride; /* the planes' row stride */
    uint32_t w, h;
    uint32_t orient; /* Part 1: its sub-band's (the contexts') */
    float inv;       /* irreversible: 1 / delta; 0: reversible */
    uint64_t out;    /* where its bytes go in the slots */
    uint64_t cap;    /* their room */
    uint64_t work;   /* HT cleanup: its scratch, TSR__J2K_HT_RD_SCRATCH bytes at scratch + work */
    uint32_t ccap, rcap; /* HT: ht_encode.h's bounds of its cleanup and refinement segments */
};

/* What k_code leaves per block (the small part; the points' arrays apart). */
struct dev_res {
    uint32_t K;
    int32_t len;   /* its bytes (all candidates' with HT rate control); -1: a coder failed */
    uint32_t np;   /* with rate control: HT candidates, or Part 1 passes */
    uint32_t skip; /* its bytes start this far into its room (Part 1: the MQ scratch byte) */
    double err0;   /* with rate control: HT's error with nothing coded, or Part 1's floor */
};

/* A block's truncation points (with rate control): HT's sets and their rates and distortions,
 * or Part 1's passes' (rate and dist only). */
struct dev_rd {
    tsr__j2k_ht_set sets[TSR__J2K_HT_MAX_SETS];
    uint32_t rate[TSR__J2K_HT_MAX_SETS];
    double dist[TSR__J2K_HT_MAX_SETS];
};

/* HT rate control: base plane p of block j, the i-th of its K planes (p = K - 1 - i). */
struct ht_task {
    uint32_t j;
    uint16_t p, i;
};

/* A Part 1 worker's workspace: the encoder's state and the block's coefficients, row-major. */
struct p1_work {
    tsr__t1_enc enc;
    int32_t coef[TSR__T1_MAX_AREA];
};

typedef struct j2k_enc_cuda_state {
    tsr__cuda_buffer image;  /* device: a host image's copy */
    tsr__cuda_buffer planes; /* device: a tile's components */
    tsr__cuda_buffer mag;    /* device: their magnitudes in steps (HT rate control, 9/7) */
    tsr__cuda_ring ring;
    const void *img; /* the encode's image on the device */
    size_t stride;   /* its bytes per row */
    uint32_t nc;     /* its channels */
    int wide;        /* 16-bit samples */
    uint32_t x0, y0; /* its top-left sample on the reference grid */
    uint32_t tile_w; /* the last tile transformed: its width, its planes' samples */
    size_t plane;
    /* the block coders' */
    tsr__cuda_buffer tables;           /* device: tsr__ht_cw_tables() */
    tsr__cuda_buffer hjobs, djobs;     /* page-locked and device: dev_job per block */
    tsr__cuda_buffer scratch;          /* device: HT, TSR__J2K_HT_RD_SCRATCH per block or worker */
    tsr__cuda_buffer htasks, dtasks;   /* page-locked and device: HT rate control's plane tasks */
    tsr__cuda_buffer dplanes;          /* device: their results, HT_PLANES per block */
    tsr__cuda_buffer work;             /* device: Part 1, a p1_work per worker (zeroed once) */
    tsr__cuda_buffer slots;            /* device: each block's bytes, cap apart */
    tsr__cuda_buffer hres, dres;       /* page-locked and device: dev_res per block */
    tsr__cuda_buffer hrd, drd;         /* page-locked and device: dev_rd per block (track) */
    tsr__cuda_buffer hoff, doff;       /* page-locked and device: offsets in the packed bytes */
    tsr__cuda_buffer hpacked, dpacked; /* page-locked and device: the packed segments */
} j2k_enc_cuda_state;

static void state_destroy(tsr_ctx *ctx, void *p)
{
    j2k_enc_cuda_state *s = (j2k_enc_cuda_state *)p;
    if (ctx->cuda)
        cudaStreamSynchronize(ctx->cuda->stream);
    tsr__cuda_buffer_free(&s->image);
    tsr__cuda_buffer_free(&s->planes);
    tsr__cuda_buffer_free(&s->mag);
    tsr__cuda_ring_free(&s->ring);
    tsr__cuda_buffer_free(&s->tables);
    tsr__cuda_host_buffer_free(&s->hjobs);
    tsr__cuda_buffer_free(&s->djobs);
    tsr__cuda_buffer_free(&s->scratch);
    tsr__cuda_host_buffer_free(&s->htasks);
    tsr__cuda_buffer_free(&s->dtasks);
    tsr__cuda_buffer_free(&s->dplanes);
    tsr__cuda_buffer_free(&s->work);
    tsr__cuda_buffer_free(&s->slots);
    tsr__cuda_host_buffer_free(&s->hrd);
    tsr__cuda_buffer_free(&s->drd);
    tsr__cuda_host_buffer_free(&s->hres);
    tsr__cuda_buffer_free(&s->dres);
    tsr__cuda_host_buffer_free(&s->hoff);
    tsr__cuda_buffer_free(&s->doff);
    tsr__cuda_host_buffer_free(&s->hpacked);
    tsr__cuda_buffer_free(&s->dpacked);
    tsr__free(ctx, s);
}

static const tsr__ctx_state_kind j2k_enc_cuda_kind = {"j2k encode CUDA buffers", state_destroy};

static tsr_status state_of(tsr_ctx *ctx, j2k_enc_cuda_state **out)
{
    if (!ctx->cuda)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "j2k encode on CUDA without a device");
    return tsr__ctx_state_get(ctx, &j2k_enc_cuda_kind, sizeof **out, (void **)out);
}

extern "C" tsr_status tsr__j2k_enc_cuda_begin(tsr_ctx *ctx, const tsr_image *img, uint32_t x0,
                                              uint32_t y0)
{
    j2k_enc_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st)
        return st;
    if (tsr__cuda_use(ctx->cuda) != TSR_OK)
        return tsr__fail(ctx, TSR_ERR_DEVICE, "j2k encode on CUDA: cannot select the device");
    s->nc = (uint32_t)img->channels;
    s->wide = img->depth == TSR_U16;
    s->x0 = x0;
    s->y0 = y0;
    if (img->memory == TSR_MEMORY_CUDA) {
        if (s->wide && (((uintptr_t)img->data | img->stride) & 1))
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "j2k encode on CUDA: a 16-bit device image needs an even address "
                             "and row stride (stride %zu)",
                             img->stride);
        s->img = img->data;
        s->stride = img->stride;
        return TSR_OK;
    }
    const size_t row = (size_t)img->width * img->channels * (s->wide ? 2 : 1);
    size_t bytes; /* tsr_image_check has bounded the image */
    if (!tsr__size_mul(row, (size_t)img->height, &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "j2k encode on CUDA: image size");
    if ((st = tsr__cuda_buffer_reserve(ctx, &s->image, bytes ? bytes : 1)))
        return st;
    s->img = s->image.ptr;
    s->stride = row;
    return tsr__cuda_ring_upload(ctx, &s->ring, s->image.ptr, row, img->data, img->stride, row,
                                 (size_t)img->height, ctx->cuda->stream);
}

extern "C" tsr_status tsr__j2k_enc_cuda_transform(tsr_ctx *ctx, tsr__j2k_tile *t, uint32_t prec,
                                                  int mct, int rev)
{
    j2k_enc_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st)
        return st;
    const uint32_t w = t->x1 - t->x0, h = t->y1 - t->y0;
    if (t->ncomps != s->nc || t->ncomps > 4)
        return tsr__fail(ctx, TSR_ERR_INTERNAL,
                         "j2k encode on CUDA: a tile of %u components for an image of %u channels",
                         t->ncomps, s->nc);
    size_t plane, bytes;
    if (!tsr__size_mul(w, h, &plane) || !tsr__size_mul(plane, 4 * (size_t)t->ncomps, &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "j2k encode on CUDA: tile size");
    if ((st = tsr__cuda_buffer_reserve(ctx, &s->planes, bytes ? bytes : 1)))
        return st;
    tsr__j2k_dev_fload o;
    memset(&o, 0, sizeof o);
    o.src = (const unsigned char *)s->img + (size_t)(t->y0 - s->y0) * s->stride +
            (size_t)(t->x0 - s->x0) * s->nc * (s->wide ? 2 : 1);
    o.src_stride = s->stride;
    o.channels = s->nc;
    o.wide = s->wide;
    o.prec = prec;
    o.w = w;
    o.h = h;
    o.mct = mct;
    o.rev = rev;
    for (uint32_t c = 0; c < t->ncomps; c++)
        o.dst[c] = (int32_t *)s->planes.ptr + c * plane;
    o.dst_stride = w;
    if ((st = tsr__j2k_fload_cuda(ctx, &o)))
        return st;
    for (uint32_t c = 0; c < t->ncomps; c++) {
        const tsr__j2k_tilecomp *tc = &t->comps[c];
        if ((st = tsr__j2k_fdwt_cuda(ctx, o.dst[c], w, tc->res, tc->numres, rev)))
            return st;
    }
    s->tile_w = w;
    s->plane = plane;
    return TSR_OK;
}

/* ---- block coding ------------------------------------------------------------------------ */

enum {
    CODE_THREADS = 64,           /* blocks (or HT planes) coded by one thread block */
    P1_WORKERS = 132 * 64,       /* Part 1 workspaces (81 KB each, 670 MB in all): 64 a H200 SM */
    HT_PLANE_WORKERS = 132 * 64, /* HT rate control's warps (24 KB of scratch each, 200 MB) */
    HT_PLANES = 30,              /* an HT block's most planes (ht_encode.h) */
    HT_WARPS = 4,                /* HT blocks coded by one thread block, a warp each */
    FNS_WARPS = 4,               /* fast-nonstandard blocks coded by one thread block */
    FNS_WORKERS = 132 * 16,      /* their warps in all, each striding over the blocks */
    PREP_THREADS = 128,          /* threads quantising one block */
    GATHER_THREADS = 128         /* threads copying one block's bytes */
};

/* Block blockIdx.x quantised in place (irreversible: tsr__j2k_quantise1) and its bit-planes
 * counted, as encode.c's code_block does before coding; with rate control, HT's magnitudes in
 * steps kept (p1 0) or Part 1's floor error summed (p1 1: what every pass leaves, the middle of
 * each magnitude's step against |c| / delta), the samples' squares in err (w h doubles of
 * dynamic shared memory: launched with 4096 of them when p1 and track) and summed in the CPU's
 * row-major order by thread 0. */
__global__ static void __launch_bounds__(PREP_THREADS)
    k_prep(const dev_job *__restrict__ jobs, int p1, int track, dev_res *res)
{
    extern __shared__ double err[];
    __shared__ uint32_t bits;
    const uint32_t j = blockIdx.x;
    const dev_job jb = jobs[j];
    const int sum = p1 && track && jb.inv > 0 && !jb.mag;
    if (threadIdx.x == 0)
        bits = 0;
    __syncthreads();
    uint32_t m = 0;
    for (uint32_t k = threadIdx.x; k < jb.w * jb.h; k += PREP_THREADS) {
        const size_t i = (size_t)(k / jb.w) * jb.stride + k % jb.w;
        if (jb.inv > 0) {
            float q;
            const int32_t v = tsr__j2k_quantise1(__int_as_float(jb.coef[i]), jb.inv, &q);
            const int32_t a = v < 0 ? -v : v;
            jb.coef[i] = v;
            if (jb.mag) {
                jb.mag[i] = q;
            } else if (sum) {
                const double e = a ? (double)q - a - 0.5 : (double)q;
                err[k] = e * e;
            }
        }
        const int32_t v = jb.coef[i];
        m |= (uint32_t)(v < 0 ? -(int64_t)v : v); /* tsr__t1_bitplanes */
    }
    m = __reduce_or_sync(0xFFFFFFFFu, m);
    if ((threadIdx.x & 31) == 0)
        atomicOr(&bits, m);
    __syncthreads();
    if (threadIdx.x == 0) {
        double floor_err = 0;
        for (uint32_t k = 0; sum && k < jb.w * jb.h; k++)
            floor_err += err[k];
        res[j].K = bits ? 32u - (uint32_t)__clz(bits) : 0;
        res[j].err0 = floor_err;
    }
}

/* HT without rate control: each block with bit-planes coded into its room by a warp
 * (ht_encode_warp.cuh), its cleanup pass down to plane 0. */
__global__ static void __launch_bounds__(HT_WARPS * 32)
    k_code_ht(const dev_job *__restrict__ jobs, uint32_t n, const uint16_t (*tables)[8 * 16][17],
              uint8_t *slots, uint8_t *scratch, dev_res *res)
{
    __shared__ tsr__ht_warp_smem sm[HT_WARPS];
    const uint32_t warp = threadIdx.x / 32, j = blockIdx.x * HT_WARPS + warp;
    if (j >= n)
        return;
    const dev_job jb = jobs[j];
    dev_res r = res[j];
    r.len = 0;
    r.np = 0;
    r.skip = 0;
    r.err0 = 0;
    if (r.K) {
        uint8_t *work = scratch + jb.work;
        const long len =
            tsr__ht_encode_cleanup_warp(jb.coef, jb.stride, jb.w, jb.h, 0, slots + jb.out, jb.cap,
                                        tables, work, work + 4096, &sm[warp]);
        r.len = len > 0 ? (int32_t)len : -1;
    }
    if (threadIdx.x % 32 == 0)
        res[j] = r;
}

/* HT rate control, the planes: worker (warp) t codes tasks t, t + workers, ...: base plane p of
 * block j at the i-th place of its room (ccap + rcap bytes a plane), its result in planes[j
 * HT_PLANES + i]; tsr__j2k_ht_plane_hd's steps: the cleanup by the warp, the refinement by lane
 * 0, the errors' partial sums by the lanes, added in order by lane 0. */
__global__ static void __launch_bounds__(HT_WARPS * 32)
    k_ht_planes(const dev_job *__restrict__ jobs, const ht_task *__restrict__ tasks,
                uint32_t ntasks, const uint16_t (*tables)[8 * 16][17], uint8_t *slots,
                uint8_t *scratch, tsr__j2k_ht_plane *planes)
{
    __shared__ tsr__ht_warp_smem sm[HT_WARPS];
    static_assert(TSR__J2K_HT_ERR_LANES == 32, "a lane per partial sum");
    const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32,
                   worker = blockIdx.x * HT_WARPS + warp, workers = gridDim.x * HT_WARPS;
    uint8_t *work = scratch + (size_t)worker * TSR__J2K_HT_RD_SCRATCH;
    for (uint32_t t = worker; t < ntasks; t += workers) {
        const ht_task k = tasks[t];
        const dev_job jb = jobs[k.j];
        uint8_t *buf = slots + jb.out + k.i * ((size_t)jb.ccap + jb.rcap);
        tsr__j2k_ht_plane r = {0, 0, 0, 0, 0, 0};
        const long lcup =
            tsr__ht_encode_cleanup_warp(jb.coef, jb.stride, jb.w, jb.h, k.p, buf, jb.ccap, tables,
                                        work, work + 4096, &sm[warp]);
        if (lcup > 0 && lane == 0)
            tsr__j2k_ht_plane_refine_hd(jb.coef, jb.stride, jb.w, jb.h, k.p, lcup, jb.rcap, work,
                                        buf, &r);
        __syncwarp(); /* lane 0's new significances visible to the warp */
        if (__shfl_sync(0xFFFFFFFFu, r.lcup, 0) > 0) {
            double e[3];
            tsr__j2k_ht_plane_errors_hd(jb.coef, jb.mag, jb.stride, jb.w, jb.h, k.p,
                                        work + 2 * 4096, lane, e);
            for (uint32_t l = 0; l < 32; l++) {
                r.ec += __shfl_sync(0xFFFFFFFFu, e[0], l);
                r.es += __shfl_sync(0xFFFFFFFFu, e[1], l);
                r.em += __shfl_sync(0xFFFFFFFFu, e[2], l);
            }
        }
        if (lane == 0)
            planes[(size_t)k.j * HT_PLANES + k.i] = r;
        __syncwarp(); /* the scratch free for the next task */
    }
}

/* HT rate control, the candidates: each block's (a warp's) from its planes' results (after
 * k_ht_planes), with its error with nothing coded (the lanes' partial sums added in order). */
__global__ static void __launch_bounds__(HT_WARPS * 32)
    k_ht_sets(const dev_job *__restrict__ jobs, uint32_t n,
              const tsr__j2k_ht_plane *__restrict__ planes, dev_res *res, dev_rd *rd)
{
    const uint32_t lane = threadIdx.x % 32, j = blockIdx.x * HT_WARPS + threadIdx.x / 32;
    if (j >= n)
        return;
    const dev_job jb = jobs[j];
    dev_res r = res[j];
    r.len = 0;
    r.np = 0;
    r.skip = 0;
    r.err0 = 0;
    if (r.K) {
        const double e = tsr__j2k_ht_err0_hd(jb.coef, jb.mag, jb.stride, jb.w, jb.h, lane);
        for (uint32_t l = 0; l < 32; l++)
            r.err0 += __shfl_sync(0xFFFFFFFFu, e, l);
    }
    if (r.K && lane == 0) {
        size_t used = 0;
        r.np = r.K <= HT_PLANES ? tsr__j2k_ht_sets_hd(planes + (size_t)j * HT_PLANES, r.K, r.err0,
                                                      rd[j].sets, rd[j].rate, rd[j].dist, &used)
                                : 0;
        r.len = r.np ? (int32_t)used : -1;
    }
    if (lane == 0)
        res[j] = r;
}

/* Part 1: worker t codes blocks t, t + nworkers, ... in its workspace (zeroed before its first
 * block, as tsr__t1_enc requires), as encode.c's code_block does (style 0: one segment). */
/* (CODE_THREADS, 1): ptxas may then give the encoder the registers it needs (no spills). */
__global__ static void __launch_bounds__(CODE_THREADS, 1)
    k_code_p1(const dev_job *__restrict__ jobs, uint32_t n, uint32_t nworkers, int track,
              uint8_t *slots, p1_work *work, dev_res *res, dev_rd *rd)
{
    const uint32_t t = blockIdx.x * CODE_THREADS + threadIdx.x;
    if (t >= nworkers)
        return;
    p1_work *wk = work + t;
    tsr__t1_enc *e = &wk->enc;
    for (uint32_t j = t; j < n; j += nworkers) {
        const dev_job jb = jobs[j];
        dev_res r = res[j];
        r.len = 0;
        r.np = 0;
        r.skip = 0;
        if (r.K) {
            for (uint32_t y = 0; y < jb.h; y++)
                for (uint32_t x = 0; x < jb.w; x++)
                    wk->coef[(size_t)y * jb.w + x] = jb.coef[(size_t)y * jb.stride + x];
            uint8_t *out = slots + jb.out;
            e->w = (int)jb.w;
            e->h = (int)jb.h;
            e->orient = (int)jb.orient;
            e->style = 0;
            e->K = (int)r.K;
            e->coef = wk->coef;
            e->buf = out;
            e->cap = jb.cap;
            e->track = track;
            e->exact = jb.inv == 0;
            const int np = t1_encode_block(e);
            if (e->overflow || e->nsegs != 1) {
                r.len = -1;
            } else {
                r.len = (int32_t)e->segs[0].len;
                r.np = (uint32_t)np;
                r.skip = (uint32_t)(e->segs[0].data - out);
                for (int p = 0; track && p < np; p++) {
                    rd[j].rate[p] = e->pass_rate[p];
                    rd[j].dist[p] = e->pass_dist[p];
                }
            }
        }
        res[j] = r;
    }
}

/* The fast-nonstandard coder (fast_coder.h): warp t codes blocks t, t + workers, ...; lane l
 * the block's stripes l, l + 32, ..., each into its own place in the block's room (a
 * fns_stripe_room apart, after room for the longest header: fns_block_room), then the stripe
 * lengths' header and the segments are laid out from the room's start as
 * tsr__fns_encode_block lays them: the same bytes. The segments move down in order, a warp's
 * 32 bytes a step (each destination at or before its source: no step overwrites bytes a later
 * one reads). */
__global__ static void __launch_bounds__(FNS_WARPS * 32)
    k_code_fns(const dev_job *__restrict__ jobs, uint32_t n, uint8_t *slots, dev_res *res)
{
    __shared__ uint32_t lens[FNS_WARPS][FNS_MAX_STRIPES];
    __shared__ uint8_t zc[FNS_WARPS][256];
    const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32,
                   workers = gridDim.x * FNS_WARPS;
    for (uint32_t j = blockIdx.x * FNS_WARPS + warp; j < n; j += workers) {
        const dev_job jb = jobs[j];
        dev_res r = res[j];
        r.len = 0;
        r.np = 0;
        r.skip = 0;
        if (r.K) {
            const uint32_t S = (jb.h + FNS_STRIPE_H - 1) / FNS_STRIPE_H, head = 3 * (S - 1);
            const size_t room = fns_stripe_room(jb.w, r.K);
            uint8_t *out = slots + jb.out;
            if (lane == 0)
                fns_zc_table(jb.orient, zc[warp]);
            __syncwarp();
            int over = 0;
            for (uint32_t s = lane; s < S; s += 32) {
                fns_enc e;
                fns_enc_init(&e, out + head + s * room, room);
                fns_encode_stripe(&e, jb.coef, jb.stride, jb.w, jb.h, r.K, s, zc[warp]);
                over |= e.over || e.len >= (1u << 21);
                lens[warp][s] = (uint32_t)e.len;
            }
            over = __any_sync(0xFFFFFFFFu, over);
            __syncwarp(); /* every stripe's length and bytes seen by the whole warp */
            if (over) {
                r.len = -1;
            } else {
                uint32_t at = 0; /* the header: LEB128 lengths of stripes 0 .. S - 2 */
                for (uint32_t s = 0; s + 1 < S; s++)
                    for (uint32_t v = lens[warp][s];; v >>= 7) {
                        if (lane == 0)
                            out[at] = (uint8_t)(v >= 0x80 ? (v & 0x7F) | 0x80 : v);
                        at++;
                        if (v < 0x80)
                            break;
                    }
                for (uint32_t s = 0; s < S; s++) {
                    const uint8_t *src = out + head + s * room;
                    const uint32_t len = lens[warp][s];
                    for (uint32_t i0 = 0; i0 < len; i0 += 32) {
                        const uint32_t i = i0 + lane;
                        const uint8_t v = i < len ? src[i] : 0;
                        __syncwarp();
                        if (i < len)
                            out[at + i] = v;
                        __syncwarp();
                    }
                    at += len;
                }
                r.len = (int32_t)at;
            }
        }
        if (lane == 0)
            res[j] = r;
        __syncwarp(); /* lens and zc free for the warp's next block */
    }
}

/* Bytes of a block's room for k_code_fns: the longest header, then a stripe room a stripe. */
static uint64_t fns_block_room(uint32_t w, uint32_t h, uint32_t K)
{
    const uint32_t S = (h + FNS_STRIPE_H - 1) / FNS_STRIPE_H;
    return 3 * (uint64_t)(S - 1) + (uint64_t)S * fns_stripe_room(w, K);
}

/* Block blockIdx.x's bytes to packed + off[j]: len from skip into its room, or (planes, HT rate
 * control) its K planes' sets one after another, each from its place in the room. */
__global__ static void __launch_bounds__(GATHER_THREADS)
    k_gather(const dev_job *__restrict__ jobs, const uint8_t *__restrict__ slots,
             const uint64_t *__restrict__ off, const dev_res *__restrict__ res,
             const tsr__j2k_ht_plane *__restrict__ planes, uint8_t *__restrict__ packed)
{
    const uint32_t j = blockIdx.x;
    const dev_job jb = jobs[j];
    const uint8_t *src = slots + jb.out + res[j].skip;
    uint8_t *dst = packed + off[j];
    if (!planes) {
        for (int32_t i = (int32_t)threadIdx.x; i < res[j].len; i += GATHER_THREADS)
            dst[i] = src[i];
        return;
    }
    const size_t room = (size_t)jb.ccap + jb.rcap;
    for (uint32_t k = 0; k < res[j].K; k++, src += room) {
        const tsr__j2k_ht_plane *pl = &planes[(size_t)j * HT_PLANES + k];
        const int32_t len = pl->lcup + pl->lmr;
        for (int32_t i = (int32_t)threadIdx.x; i < len; i += GATHER_THREADS)
            dst[i] = src[i];
        dst += len;
    }
}

/* HT rate control's planes (after the blocks' K came back into hr and their jobs went up):
 * the tasks, every block's planes with the lowest (the longest to code) first so the last
 * wave is of short ones, up to the device, and k_ht_planes launched over them. */
static tsr_status ht_plane_tasks(tsr_ctx *ctx, j2k_enc_cuda_state *s, const dev_res *hr, uint32_t n,
                                 cudaStream_t stream)
{
    uint32_t count[HT_PLANES + 1] = {0}; /* tasks of base plane p, then the first of each */
    for (uint32_t j = 0; j < n; j++)
        for (uint32_t p = 0; p < hr[j].K && p < HT_PLANES; p++)
            count[p + 1]++;
    for (uint32_t p = 0; p < HT_PLANES; p++)
        count[p + 1] += count[p];
    const uint32_t ntasks = count[HT_PLANES];
    if (ntasks == 0)
        return TSR_OK;
    const uint32_t want = ntasks < HT_PLANE_WORKERS ? ntasks : HT_PLANE_WORKERS,
                   blocks = (want + HT_WARPS - 1) / HT_WARPS;
    tsr_status st;
    if ((st = tsr__cuda_host_buffer_reserve(ctx, &s->htasks, (size_t)ntasks * sizeof(ht_task))) ||
        (st = tsr__cuda_buffer_reserve(ctx, &s->dtasks, (size_t)ntasks * sizeof(ht_task))) ||
        (st = tsr__cuda_buffer_reserve(ctx, &s->scratch,
                                       (size_t)blocks * HT_WARPS * TSR__J2K_HT_RD_SCRATCH)))
        return st;
    ht_task *tk = (ht_task *)s->htasks.ptr;
    for (uint32_t j = 0; j < n; j++) {
        const uint32_t K = hr[j].K < HT_PLANES ? hr[j].K : HT_PLANES;
        for (uint32_t p = 0; p < K; p++)
            tk[count[p]++] = ht_task{j, (uint16_t)p, (uint16_t)(K - 1 - p)};
    }
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(s->dtasks.ptr, tk, (size_t)ntasks * sizeof *tk,
                                      cudaMemcpyHostToDevice, stream));
    k_ht_planes<<<blocks, HT_WARPS * 32, 0, stream>>>(
        (const dev_job *)s->djobs.ptr, (const ht_task *)s->dtasks.ptr, ntasks,
        (const uint16_t(*)[8 * 16][17]) s->tables.ptr, (uint8_t *)s->slots.ptr,
        (uint8_t *)s->scratch.ptr, (tsr__j2k_ht_plane *)s->dplanes.ptr);
    TSR_CUDA_CHECK_LAUNCH(ctx, "k_ht_planes");
    return TSR_OK;
}

/* Checks each block's result (after the stream has passed k_code). */
static tsr_status check_results(tsr_ctx *ctx, const dev_res *res, uint32_t n)
{
    for (uint32_t j = 0; j < n; j++)
        if (res[j].len < 0 || res[j].K > 30)
            return tsr__fail(ctx, TSR_ERR_INTERNAL,
                             "j2k encode: a code-block's coded data overflowed (device block %u: "
                             "%u bit-planes, result %d)",
                             j, res[j].K, res[j].len);
    return TSR_OK;
}

extern "C" tsr_status tsr__j2k_enc_cuda_blocks(tsr_ctx *ctx, const tsr__j2k_tile *t,
                                               tsr__j2k_enc_cuda_block *blocks, uint32_t n, int ht,
                                               int fast, int track, tsr__j2k_bytes *out)
{
    j2k_enc_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st || n == 0)
        return st;
    cudaStream_t stream = ctx->cuda->stream;
    const uint32_t tw = t->x1 - t->x0, th = t->y1 - t->y0;
    if (tw != s->tile_w || (size_t)tw * th != s->plane)
        return tsr__fail(ctx, TSR_ERR_INTERNAL,
                         "j2k encode on CUDA: the tile's blocks are not the transformed tile's");
    int lossy = 0;
    for (uint32_t j = 0; j < n; j++) {
        const tsr__j2k_enc_cuda_block *b = &blocks[j];
        lossy |= b->delta > 0;
        if (b->comp >= t->ncomps || !b->w || !b->h || b->w > 1024 || (size_t)b->w * b->h > 4096 ||
            b->orient > 3 || b->at / tw + b->h > th || b->at % tw + b->w > tw)
            return tsr__fail(ctx, TSR_ERR_INTERNAL,
                             "j2k encode on CUDA: code-block %u (%ux%u at %zu) outside its "
                             "tile-component or the block coders' limits",
                             j, b->w, b->h, b->at);
    }
    const uint32_t workers = n < P1_WORKERS ? n : P1_WORKERS;
    size_t scratch_bytes, mag_bytes, work_bytes, planes_bytes;
    if (!tsr__size_mul(n, TSR__J2K_HT_RD_SCRATCH, &scratch_bytes) ||
        !tsr__size_mul(n, HT_PLANES * sizeof(tsr__j2k_ht_plane), &planes_bytes) ||
        !tsr__size_mul(s->plane, 4 * (size_t)t->ncomps, &mag_bytes) ||
        !tsr__size_mul(workers, sizeof(p1_work), &work_bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "j2k encode on CUDA: code-block scratch");
    const size_t tables_bytes = 2 * 8 * 16 * 17 * sizeof(uint16_t);
    if ((st = tsr__cuda_host_buffer_reserve(ctx, &s->hjobs, (size_t)n * sizeof(dev_job))) ||
        (st = tsr__cuda_buffer_reserve(ctx, &s->djobs, (size_t)n * sizeof(dev_job))) ||
        (st = tsr__cuda_host_buffer_reserve(ctx, &s->hres, (size_t)n * sizeof(dev_res))) ||
        (st = tsr__cuda_buffer_reserve(ctx, &s->dres, (size_t)n * sizeof(dev_res))) ||
        (st = tsr__cuda_host_buffer_reserve(ctx, &s->hoff, (size_t)n * 8)) ||
        (st = tsr__cuda_buffer_reserve(ctx, &s->doff, (size_t)n * 8)) ||
        (ht && !track && (st = tsr__cuda_buffer_reserve(ctx, &s->scratch, scratch_bytes))) ||
        (ht && track && (st = tsr__cuda_buffer_reserve(ctx, &s->dplanes, planes_bytes))) ||
        (ht && track && lossy && (st = tsr__cuda_buffer_reserve(ctx, &s->mag, mag_bytes))) ||
        (track && ((st = tsr__cuda_host_buffer_reserve(ctx, &s->hrd, (size_t)n * sizeof(dev_rd))) ||
                   (st = tsr__cuda_buffer_reserve(ctx, &s->drd, (size_t)n * sizeof(dev_rd))))))
        return st;
    if (ht && s->tables.size < tables_bytes) { /* once per context */
        if ((st = tsr__cuda_buffer_reserve(ctx, &s->tables, tables_bytes)))
            return st;
        TSR_CUDA_TRY(ctx, cudaMemcpy(s->tables.ptr, tsr__ht_cw_tables(), tables_bytes,
                                     cudaMemcpyHostToDevice));
    }
    if (!ht && !fast &&
        s->work.size < work_bytes) { /* zeroed when (re)allocated: tsr__t1_enc's start */
        if ((st = tsr__cuda_buffer_reserve(ctx, &s->work, work_bytes)))
            return st;
        TSR_CUDA_TRY(ctx, cudaMemsetAsync(s->work.ptr, 0, s->work.size, stream));
    }
    dev_job *hj = (dev_job *)s->hjobs.ptr;
    for (uint32_t j = 0; j < n; j++) {
        const tsr__j2k_enc_cuda_block *b = &blocks[j];
        const size_t at = b->comp * s->plane + b->at;
        memset(&hj[j], 0, sizeof hj[j]);
        hj[j].coef = (int32_t *)s->planes.ptr + at;
        hj[j].mag = ht && track && b->delta > 0 ? (float *)s->mag.ptr + at : NULL;
        hj[j].stride = tw;
        hj[j].w = b->w;
        hj[j].h = b->h;
        hj[j].orient = b->orient;
        hj[j].inv = b->delta > 0 ? 1.0f / b->delta : 0.0f; /* encode.c's code_block's */
        hj[j].work = (uint64_t)j * TSR__J2K_HT_RD_SCRATCH;
        hj[j].ccap = (uint32_t)tsr__ht_encode_bound(b->w, b->h);
        hj[j].rcap = (uint32_t)tsr__ht_refine_bound(b->w, b->h);
    }
    /* 1: quantisation and bit-planes; the rooms follow from K */
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(s->djobs.ptr, hj, (size_t)n * sizeof *hj,
                                      cudaMemcpyHostToDevice, stream));
    dev_job *dj = (dev_job *)s->djobs.ptr;
    dev_res *dr = (dev_res *)s->dres.ptr, *hr = (dev_res *)s->hres.ptr;
    k_prep<<<n, PREP_THREADS, !ht && track ? TSR__T1_MAX_AREA * sizeof(double) : 0, stream>>>(
        dj, !ht, track, dr);
    TSR_CUDA_CHECK_LAUNCH(ctx, "k_prep");
    TSR_CUDA_TRY(ctx,
                 cudaMemcpyAsync(hr, dr, (size_t)n * sizeof *hr, cudaMemcpyDeviceToHost, stream));
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(stream));
    uint64_t room = 0;
    for (uint32_t j = 0; j < n; j++) {
        const uint32_t K = hr[j].K;
        hj[j].out = room;
        hj[j].cap = !K      ? 0
                    : fast  ? fns_block_room(blocks[j].w, blocks[j].h, K)
                    : !ht   ? tsr__t1_encode_bound(blocks[j].w * blocks[j].h, (int)K)
                    : track ? (uint64_t)(K < 30 ? K : 30) * (hj[j].ccap + hj[j].rcap)
                            : hj[j].ccap;
        room += (hj[j].cap + 15) & ~(uint64_t)15;
    }
    /* 2: the blocks coded */
    if ((st = tsr__cuda_buffer_reserve(ctx, &s->slots, room ? room : 1)))
        return st;
    TSR_CUDA_TRY(ctx,
                 cudaMemcpyAsync(dj, hj, (size_t)n * sizeof *hj, cudaMemcpyHostToDevice, stream));
    const uint16_t(*tables)[8 * 16][17] = (const uint16_t(*)[8 * 16][17]) s->tables.ptr;
    if (ht && track) {
        if ((st = ht_plane_tasks(ctx, s, hr, n, stream)))
            return st;
        k_ht_sets<<<(n + HT_WARPS - 1) / HT_WARPS, HT_WARPS * 32, 0, stream>>>(
            dj, n, (const tsr__j2k_ht_plane *)s->dplanes.ptr, dr, (dev_rd *)s->drd.ptr);
    } else if (ht) {
        k_code_ht<<<(n + HT_WARPS - 1) / HT_WARPS, HT_WARPS * 32, 0, stream>>>(
            dj, n, tables, (uint8_t *)s->slots.ptr, (uint8_t *)s->scratch.ptr, dr);
    } else if (fast) {
        const uint32_t warps = n < FNS_WORKERS ? n : FNS_WORKERS;
        k_code_fns<<<(warps + FNS_WARPS - 1) / FNS_WARPS, FNS_WARPS * 32, 0, stream>>>(
            dj, n, (uint8_t *)s->slots.ptr, dr);
    } else
        k_code_p1<<<(workers + CODE_THREADS - 1) / CODE_THREADS, CODE_THREADS, 0, stream>>>(
            dj, n, workers, track, (uint8_t *)s->slots.ptr, (p1_work *)s->work.ptr, dr,
            (dev_rd *)s->drd.ptr);
    TSR_CUDA_CHECK_LAUNCH(ctx, "k_code");
    TSR_CUDA_TRY(ctx,
                 cudaMemcpyAsync(hr, dr, (size_t)n * sizeof *hr, cudaMemcpyDeviceToHost, stream));
    if (track)
        TSR_CUDA_TRY(ctx, cudaMemcpyAsync(s->hrd.ptr, s->drd.ptr, (size_t)n * sizeof(dev_rd),
                                          cudaMemcpyDeviceToHost, stream));
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(stream));
    if ((st = check_results(ctx, hr, n)))
        return st;
    /* 3: their bytes packed and brought back */
    uint64_t *off = (uint64_t *)s->hoff.ptr, total = 0;
    for (uint32_t j = 0; j < n; j++) {
        off[j] = total;
        total += (uint32_t)hr[j].len;
    }
    if ((st = tsr__cuda_host_buffer_reserve(ctx, &s->hpacked, total ? total : 1)) ||
        (st = tsr__cuda_buffer_reserve(ctx, &s->dpacked, total ? total : 1)))
        return st;
    TSR_CUDA_TRY(ctx,
                 cudaMemcpyAsync(s->doff.ptr, off, (size_t)n * 8, cudaMemcpyHostToDevice, stream));
    k_gather<<<n, GATHER_THREADS, 0, stream>>>(
        dj, (const uint8_t *)s->slots.ptr, (const uint64_t *)s->doff.ptr, dr,
        ht && track ? (const tsr__j2k_ht_plane *)s->dplanes.ptr : NULL, (uint8_t *)s->dpacked.ptr);
    TSR_CUDA_CHECK_LAUNCH(ctx, "k_gather");
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(s->hpacked.ptr, s->dpacked.ptr, total, cudaMemcpyDeviceToHost,
                                      stream));
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(stream));
    /* into out on the context's threads (in 64 KB rows, the rest after): most of out's pages
     * are fresh, and one thread faults them in at a fraction of the copy rate */
    const size_t base = out->len, row = (size_t)1 << 16, rows = total / row;
    if (tsr__j2k_bytes_reserve(out, total))
        return out->st;
    const uint8_t *packed = (const uint8_t *)s->hpacked.ptr;
    tsr__copy_rows(ctx, out->p + base, row, packed, row, row, rows);
    memcpy(out->p + base + rows * row, packed + rows * row, total - rows * row);
    out->len += total;
    const dev_rd *rd = (const dev_rd *)s->hrd.ptr;
    for (uint32_t j = 0; j < n; j++) {
        tsr__j2k_enc_cuda_block *b = &blocks[j];
        b->K = (uint8_t)hr[j].K;
        b->len = (uint32_t)hr[j].len;
        b->off = base + off[j];
        b->np = track ? hr[j].np : 0;
        b->err0 = hr[j].err0;
        b->sets = track && ht ? rd[j].sets : NULL;
        b->rate = track ? rd[j].rate : NULL;
        b->dist = track ? rd[j].dist : NULL;
    }
    return TSR_OK;
}
