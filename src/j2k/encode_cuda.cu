/* encode_cuda.h: the buffers of a JPEG 2000 encode on CUDA, owned by the context and reused,
 * and the HT block coder's kernels.
 *
 * A host image goes up once through the ring of page-locked slots (cuda_internal.cuh); per tile,
 * its components' planes (one device buffer, the tile's width apart) receive the samples and
 * the forward DWT, and either come back through the ring into the tiles' tc->data (4 bytes a
 * sample and component) or stay for the HT block coder:
 *   k_ht:     one thread per code-block: the block quantised in place (irreversible), its
 *             bit-planes, its cleanup segment by ht_encode_hd.h into the block's own slot of
 *             device memory (the segment's bound and 8 KB of MEL and VLC scratch);
 *   lengths and bit-planes back (8 bytes a block), the offsets summed on the host and sent up;
 *   k_gather: one thread block per code-block: its segment into one packed buffer, which comes
 *             back in one copy (about the codestream's size). */
#include "j2k/fxform_hd.h"
#include "j2k/ht_encode_hd.h"

#include "cuda/cuda_internal.cuh"

extern "C" {
#include "core/checked.h"
#include "j2k/encode_cuda.h"
#include "j2k/fxform_cuda.h"
#include "j2k/ht_encode.h"
}

#include <string.h>

/* A code-block as k_ht reads it. */
struct ht_dev_job {
    int32_t *coef;   /* its first coefficient in its tile-component's plane */
    uint32_t stride; /* the plane's row stride */
    uint32_t w, h;
    float inv; /* irreversible: 1 / delta; 0: reversible */
};

typedef struct j2k_enc_cuda_state {
    tsr__cuda_buffer image;  /* device: a host image's copy */
    tsr__cuda_buffer planes; /* device: a tile's components */
    tsr__cuda_ring ring;
    const void *img; /* the encode's image on the device */
    size_t stride;   /* its bytes per row */
    uint32_t nc;     /* its channels */
    int wide;        /* 16-bit samples */
    uint32_t tile_w; /* the last tile transformed: its width, its planes' samples */
    size_t plane;
    /* the HT block coder's */
    tsr__cuda_buffer tables;           /* device: tsr__ht_cw_tables() */
    tsr__cuda_buffer hjobs, djobs;     /* page-locked and device: ht_dev_job per block */
    tsr__cuda_buffer slots;            /* device: a slot per block */
    tsr__cuda_buffer hres, dres;       /* page-locked and device: length and K per block */
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
    tsr__cuda_ring_free(&s->ring);
    tsr__cuda_buffer_free(&s->tables);
    tsr__cuda_host_buffer_free(&s->hjobs);
    tsr__cuda_buffer_free(&s->djobs);
    tsr__cuda_buffer_free(&s->slots);
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

extern "C" tsr_status tsr__j2k_enc_cuda_begin(tsr_ctx *ctx, const tsr_image *img)
{
    j2k_enc_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st)
        return st;
    if (tsr__cuda_use(ctx->cuda) != TSR_OK)
        return tsr__fail(ctx, TSR_ERR_DEVICE, "j2k encode on CUDA: cannot select the device");
    s->nc = (uint32_t)img->channels;
    s->wide = img->depth == TSR_U16;
    if (img->memory == TSR_MEMORY_CUDA) {
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
                                                  int mct, int rev, int download)
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
    o.src = (const unsigned char *)s->img + (size_t)t->y0 * s->stride +
            (size_t)t->x0 * s->nc * (s->wide ? 2 : 1);
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
    if (!download)
        return TSR_OK;
    for (uint32_t c = 0; c < t->ncomps && !st; c++) {
        tsr__j2k_tilecomp *tc = &t->comps[c];
        st = tsr__cuda_ring_download(ctx, &s->ring, tc->data, tc->stride * 4, o.dst[c],
                                     (size_t)w * 4, (size_t)w * 4, h, ctx->cuda->stream);
    }
    return st;
}

/* ---- HT block coding ---------------------------------------------------------------------- */

enum {
    HT_THREADS = 64,     /* blocks coded by one thread block */
    GATHER_THREADS = 128 /* threads copying one block's segment */
};

/* The bound of a slot's segment: every block's (1024 quads at most within ht_encode.h's
 * limits), and the slot with its MEL and VLC scratch, 16-byte aligned. */
static size_t ht_bound(void)
{
    return tsr__ht_encode_bound(64, 64);
}
static size_t ht_slot(void)
{
    return (ht_bound() + 2 * 4096 + 15) & ~(size_t)15;
}

__global__ static void __launch_bounds__(HT_THREADS)
    k_ht(const ht_dev_job *__restrict__ jobs, uint32_t n, const uint16_t (*tables)[8 * 16][17],
         uint8_t *slots, size_t slot, size_t bound, uint32_t *res)
{
    const uint32_t j = blockIdx.x * HT_THREADS + threadIdx.x;
    if (j >= n)
        return;
    const ht_dev_job jb = jobs[j];
    uint32_t m = 0; /* encode.c's code_block: quantisation, then tsr__t1_bitplanes */
    for (uint32_t y = 0; y < jb.h; y++)
        for (uint32_t x = 0; x < jb.w; x++) {
            int32_t *p = jb.coef + (size_t)y * jb.stride + x;
            if (jb.inv > 0) {
                float q;
                *p = tsr__j2k_quantise1(__int_as_float(*p), jb.inv, &q);
            }
            const int32_t v = *p;
            m |= (uint32_t)(v < 0 ? -(int64_t)v : v);
        }
    const uint32_t K = m ? 32u - (uint32_t)__clz(m) : 0;
    long len = 0;
    if (K) {
        uint8_t *out = slots + (size_t)j * slot;
        len = tsr__ht_encode_cleanup(jb.coef, jb.stride, jb.w, jb.h, 0, out, bound, tables,
                                     out + bound, out + bound + 4096);
    }
    res[2 * j] = (uint32_t)(int32_t)len;
    res[2 * j + 1] = K;
}

__global__ static void __launch_bounds__(GATHER_THREADS)
    k_gather(const uint8_t *__restrict__ slots, size_t slot, const uint64_t *__restrict__ off,
             const uint32_t *__restrict__ res, uint8_t *__restrict__ packed)
{
    const uint32_t j = blockIdx.x;
    const uint32_t len = res[2 * j];
    const uint8_t *src = slots + (size_t)j * slot;
    uint8_t *dst = packed + off[j];
    for (uint32_t i = threadIdx.x; i < len; i += GATHER_THREADS)
        dst[i] = src[i];
}

extern "C" tsr_status tsr__j2k_enc_cuda_ht(tsr_ctx *ctx, const tsr__j2k_tile *t,
                                           tsr__j2k_enc_cuda_block *blocks, uint32_t n,
                                           tsr__j2k_bytes *out)
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
    for (uint32_t j = 0; j < n; j++) {
        const tsr__j2k_enc_cuda_block *b = &blocks[j];
        if (b->comp >= t->ncomps || !b->w || !b->h || b->w > 1024 || (size_t)b->w * b->h > 4096 ||
            b->at / tw + b->h > th || b->at % tw + b->w > tw)
            return tsr__fail(ctx, TSR_ERR_INTERNAL,
                             "j2k encode on CUDA: code-block %u (%ux%u at %zu) outside its "
                             "tile-component or the HT coder's limits",
                             j, b->w, b->h, b->at);
    }
    const size_t slot = ht_slot(), tables_bytes = 2 * 8 * 16 * 17 * sizeof(uint16_t);
    size_t slots_bytes;
    if (!tsr__size_mul(n, slot, &slots_bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "j2k encode on CUDA: code-block slots");
    if ((st = tsr__cuda_host_buffer_reserve(ctx, &s->hjobs, (size_t)n * sizeof(ht_dev_job))) ||
        (st = tsr__cuda_buffer_reserve(ctx, &s->djobs, (size_t)n * sizeof(ht_dev_job))) ||
        (st = tsr__cuda_buffer_reserve(ctx, &s->slots, slots_bytes)) ||
        (st = tsr__cuda_host_buffer_reserve(ctx, &s->hres, (size_t)n * 8)) ||
        (st = tsr__cuda_buffer_reserve(ctx, &s->dres, (size_t)n * 8)) ||
        (st = tsr__cuda_host_buffer_reserve(ctx, &s->hoff, (size_t)n * 8)) ||
        (st = tsr__cuda_buffer_reserve(ctx, &s->doff, (size_t)n * 8)))
        return st;
    if (s->tables.size < tables_bytes) { /* once per context */
        if ((st = tsr__cuda_buffer_reserve(ctx, &s->tables, tables_bytes)))
            return st;
        TSR_CUDA_TRY(ctx, cudaMemcpy(s->tables.ptr, tsr__ht_cw_tables(), tables_bytes,
                                     cudaMemcpyHostToDevice));
    }
    ht_dev_job *hj = (ht_dev_job *)s->hjobs.ptr;
    for (uint32_t j = 0; j < n; j++) {
        const tsr__j2k_enc_cuda_block *b = &blocks[j];
        hj[j].coef = (int32_t *)s->planes.ptr + b->comp * s->plane + b->at;
        hj[j].stride = tw;
        hj[j].w = b->w;
        hj[j].h = b->h;
        hj[j].inv = b->delta > 0 ? 1.0f / b->delta : 0.0f; /* encode.c's code_block's */
    }
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(s->djobs.ptr, hj, (size_t)n * sizeof *hj,
                                      cudaMemcpyHostToDevice, stream));
    k_ht<<<(n + HT_THREADS - 1) / HT_THREADS, HT_THREADS, 0, stream>>>(
        (const ht_dev_job *)s->djobs.ptr, n, (const uint16_t(*)[8 * 16][17]) s->tables.ptr,
        (uint8_t *)s->slots.ptr, slot, ht_bound(), (uint32_t *)s->dres.ptr);
    TSR_CUDA_CHECK_LAUNCH(ctx, "k_ht");
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(s->hres.ptr, s->dres.ptr, (size_t)n * 8,
                                      cudaMemcpyDeviceToHost, stream));
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(stream));
    const uint32_t *res = (const uint32_t *)s->hres.ptr;
    uint64_t *off = (uint64_t *)s->hoff.ptr, total = 0;
    for (uint32_t j = 0; j < n; j++) {
        const int32_t len = (int32_t)res[2 * j];
        if (len < 0 || (res[2 * j + 1] && len == 0) || res[2 * j + 1] > 31)
            return tsr__fail(ctx, TSR_ERR_INTERNAL,
                             "j2k encode: a code-block's coded data overflowed (device block %u: "
                             "length %d, %u bit-planes)",
                             j, len, res[2 * j + 1]);
        off[j] = total;
        total += (uint32_t)len;
    }
    if ((st = tsr__cuda_host_buffer_reserve(ctx, &s->hpacked, total ? total : 1)) ||
        (st = tsr__cuda_buffer_reserve(ctx, &s->dpacked, total ? total : 1)))
        return st;
    TSR_CUDA_TRY(ctx,
                 cudaMemcpyAsync(s->doff.ptr, off, (size_t)n * 8, cudaMemcpyHostToDevice, stream));
    k_gather<<<n, GATHER_THREADS, 0, stream>>>(
        (const uint8_t *)s->slots.ptr, slot, (const uint64_t *)s->doff.ptr,
        (const uint32_t *)s->dres.ptr, (uint8_t *)s->dpacked.ptr);
    TSR_CUDA_CHECK_LAUNCH(ctx, "k_gather");
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(s->hpacked.ptr, s->dpacked.ptr, total, cudaMemcpyDeviceToHost,
                                      stream));
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(stream));
    const size_t base = out->len;
    tsr__j2k_bytes_put(out, s->hpacked.ptr, total);
    if (out->st)
        return out->st;
    for (uint32_t j = 0; j < n; j++) {
        blocks[j].K = (uint8_t)res[2 * j + 1];
        blocks[j].len = res[2 * j];
        blocks[j].off = base + off[j];
    }
    return TSR_OK;
}
