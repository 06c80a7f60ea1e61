/* decode_cuda.h: the buffers of a JPEG 2000 decode on CUDA, owned by the context and reused.
 *
 * Per tile, one page-locked staging block [data | jobs | segments] goes up in one copy (the
 * code-blocks' bytes are most of it: about the compressed size of the tile), the blocks are
 * decoded into the device coefficients, and only their status words (4 bytes a block) come
 * back before the transforms are queued. The image stays on the device until the decode ends:
 * one download through the ring of page-locked slots (cuda_internal.cuh) for a host image. */
#include "cuda/cuda_internal.cuh"

extern "C" {
#include "j2k/decode_cuda.h"
}

#include <string.h>

typedef struct j2k_cuda_state {
    tsr__cuda_buffer stage;   /* host, page-locked: data | jobs | segs */
    tsr__cuda_buffer status;  /* host, page-locked: njobs words */
    tsr__cuda_buffer in;      /* device: the staging's copy */
    tsr__cuda_buffer dstatus; /* device: njobs words */
    tsr__cuda_buffer coef;    /* device: a tile's coefficients */
    tsr__cuda_buffer image;   /* device: a host image's copy */
    tsr__cuda_ring ring;
    tsr__j2k_cuda_image img; /* the decode's device image */
    size_t jobs_off, segs_off;
} j2k_cuda_state;

static void state_destroy(tsr_ctx *ctx, void *p)
{
    j2k_cuda_state *s = (j2k_cuda_state *)p;
    if (ctx->cuda)
        cudaStreamSynchronize(ctx->cuda->stream);
    tsr__cuda_host_buffer_free(&s->stage);
    tsr__cuda_host_buffer_free(&s->status);
    tsr__cuda_buffer_free(&s->in);
    tsr__cuda_buffer_free(&s->dstatus);
    tsr__cuda_buffer_free(&s->coef);
    tsr__cuda_buffer_free(&s->image);
    tsr__cuda_ring_free(&s->ring);
    tsr__free(ctx, s);
}

static const tsr__ctx_state_kind j2k_cuda_kind = {"j2k decode CUDA buffers", state_destroy};

static tsr_status state_of(tsr_ctx *ctx, j2k_cuda_state **out)
{
    if (!ctx->cuda)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "j2k decode on CUDA without a device");
    return tsr__ctx_state_get(ctx, &j2k_cuda_kind, sizeof **out, (void **)out);
}

/* n rounded up to a multiple of 16 bytes (the staging's parts start aligned). */
static size_t align16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

tsr_status tsr__j2k_cuda_begin(tsr_ctx *ctx, const tsr_image *img, tsr__j2k_cuda_image *out)
{
    j2k_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st)
        return st;
    if (img->memory == TSR_MEMORY_CUDA) {
        s->img.data = img->data;
        s->img.stride = img->stride;
    } else {
        const size_t bytes = img->stride * (size_t)img->height; /* tsr_image_check bounds it */
        if ((st = tsr__cuda_buffer_reserve(ctx, &s->image, bytes ? bytes : 1)))
            return st;
        s->img.data = s->image.ptr;
        s->img.stride = img->stride;
    }
    *out = s->img;
    return TSR_OK;
}

tsr_status tsr__j2k_cuda_upload_image(tsr_ctx *ctx, const tsr_image *host)
{
    j2k_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st)
        return st;
    const size_t row = (size_t)host->width * host->channels * (host->depth == TSR_U16 ? 2 : 1);
    return tsr__cuda_ring_upload(ctx, &s->ring, s->img.data, s->img.stride, host->data,
                                 host->stride, row, (size_t)host->height, ctx->cuda->stream);
}

tsr_status tsr__j2k_cuda_tile_buffers(tsr_ctx *ctx, size_t coef_elems, size_t data_bytes,
                                      uint32_t njobs, uint32_t nsegs, tsr__j2k_cuda_tile *out)
{
    j2k_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st)
        return st;
    s->jobs_off = align16(data_bytes);
    s->segs_off = s->jobs_off + align16((size_t)njobs * sizeof(tsr__t1_dev_job));
    const size_t total = s->segs_off + (size_t)nsegs * sizeof(tsr__t1_dev_seg) + 16;
    if ((st = tsr__cuda_host_buffer_reserve(ctx, &s->stage, total)) ||
        (st = tsr__cuda_host_buffer_reserve(ctx, &s->status, ((size_t)njobs + 1) * 4)) ||
        (st = tsr__cuda_buffer_reserve(ctx, &s->in, total)) ||
        (st = tsr__cuda_buffer_reserve(ctx, &s->dstatus, ((size_t)njobs + 1) * 4)) ||
        (st = tsr__cuda_buffer_reserve(ctx, &s->coef, (coef_elems ? coef_elems : 1) * 4)))
        return st;
    uint8_t *base = (uint8_t *)s->stage.ptr;
    out->data = base;
    out->jobs = (tsr__t1_dev_job *)(base + s->jobs_off);
    out->segs = (tsr__t1_dev_seg *)(base + s->segs_off);
    out->coef = (int32_t *)s->coef.ptr;
    return TSR_OK;
}

tsr_status tsr__j2k_cuda_blocks(tsr_ctx *ctx, uint32_t njobs, uint32_t nsegs,
                                const uint32_t **status)
{
    j2k_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st)
        return st;
    cudaStream_t stream = ctx->cuda->stream;
    const size_t total = s->segs_off + (size_t)nsegs * sizeof(tsr__t1_dev_seg);
    uint8_t *in = (uint8_t *)s->in.ptr;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(in, s->stage.ptr, total, cudaMemcpyHostToDevice, stream));
    if (njobs && (st = tsr__t1_decode_cuda(ctx, (const tsr__t1_dev_job *)(in + s->jobs_off),
                                           (const tsr__t1_dev_seg *)(in + s->segs_off), njobs, in,
                                           (int32_t *)s->coef.ptr, (uint32_t *)s->dstatus.ptr, 0)))
        return st;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(s->status.ptr, s->dstatus.ptr, (size_t)njobs * 4,
                                      cudaMemcpyDeviceToHost, stream));
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(stream));
    *status = (const uint32_t *)s->status.ptr;
    return TSR_OK;
}

tsr_status tsr__j2k_cuda_end(tsr_ctx *ctx, tsr_image *img)
{
    j2k_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st)
        return st;
    if (img->memory == TSR_MEMORY_CUDA) {
        TSR_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->cuda->stream));
        return TSR_OK;
    }
    const size_t row = (size_t)img->width * img->channels * (img->depth == TSR_U16 ? 2 : 1);
    return tsr__cuda_ring_download(ctx, &s->ring, img->data, img->stride, s->img.data,
                                   s->img.stride, row, (size_t)img->height, ctx->cuda->stream);
}
