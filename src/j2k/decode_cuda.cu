/* decode_cuda.h: the buffers of a JPEG 2000 decode on CUDA, owned by the context and reused.
 *
 * Per tile, one page-locked staging block [data | jobs | segments] goes up in one copy (the
 * code-blocks' bytes are most of it: about the compressed size of the tile), the blocks are
 * decoded into the device coefficients, and their status words (4 bytes a block) are queued
 * back behind them while the transforms are queued at once: nothing waits for the blocks until
 * the caller collects their status (when the slot comes round again, or at the decode's end).
 * Two slots of tile buffers alternate, so the host stages tile (or frame) k + 1 while the device
 * decodes k, and the staging goes up on a stream of its own, beside k's kernels. The image stays on
 * the device until the decode ends: one download through the ring of page-locked slots
 * (cuda_internal.cuh) for a single decode's host image; in a batch, into page-locked memory of the
 * image's size on a second stream (tsr__cuda_stage_download), behind an event of the frame's last
 * kernel, so that it overlaps the next frame's kernels. */
#include "cuda/cuda_internal.cuh"

extern "C" {
#include "j2k/decode_cuda.h"
}

#include <string.h>

/* One set of tile buffers. */
typedef struct j2k_cuda_slot {
    tsr__cuda_buffer stage;   /* host, page-locked: data | jobs | segs */
    tsr__cuda_buffer status;  /* host, page-locked: njobs words */
    tsr__cuda_buffer in;      /* device: the staging's copy */
    tsr__cuda_buffer dstatus; /* device: njobs words */
    cudaEvent_t uploaded;     /* the staging's upload (on the upload stream) is done */
    cudaEvent_t back;         /* the status words are in `status` (the blocks are decoded) */
    size_t jobs_off, segs_off;
    void *owner; /* the tile whose status words are not yet collected, NULL: none */
} j2k_cuda_slot;

/* A batch frame's host image on its way down. */
typedef struct j2k_cuda_frame {
    tsr__cuda_buffer image; /* device: the frame's image, rows packed */
    tsr__cuda_buffer pin;   /* host, page-locked: its download */
    cudaEvent_t written;    /* the frame's kernels have written `image` */
    tsr__cuda_staging down;
} j2k_cuda_frame;

typedef struct j2k_cuda_state {
    j2k_cuda_slot slot[TSR__J2K_CUDA_SLOTS];
    uint32_t next;         /* the slot the next tile takes */
    tsr__cuda_buffer coef; /* device: a tile's coefficients */
    j2k_cuda_frame frame[TSR__J2K_CUDA_SLOTS];
    cudaStream_t up;   /* the tiles' uploads, created on first use */
    cudaStream_t down; /* the batch's downloads, created on first use */
    tsr__cuda_ring ring;
    tsr__j2k_cuda_image img; /* the decode's device image */
} j2k_cuda_state;

static void state_destroy(tsr_ctx *ctx, void *p)
{
    j2k_cuda_state *s = (j2k_cuda_state *)p;
    if (ctx->cuda)
        cudaStreamSynchronize(ctx->cuda->stream);
    if (s->up) {
        cudaStreamSynchronize(s->up);
        cudaStreamDestroy(s->up);
    }
    if (s->down) {
        cudaStreamSynchronize(s->down);
        cudaStreamDestroy(s->down);
    }
    for (int i = 0; i < TSR__J2K_CUDA_SLOTS; i++) {
        j2k_cuda_slot *t = &s->slot[i];
        tsr__cuda_host_buffer_free(&t->stage);
        tsr__cuda_host_buffer_free(&t->status);
        tsr__cuda_buffer_free(&t->in);
        tsr__cuda_buffer_free(&t->dstatus);
        if (t->back)
            cudaEventDestroy(t->back);
        if (t->uploaded)
            cudaEventDestroy(t->uploaded);
        j2k_cuda_frame *f = &s->frame[i];
        tsr__cuda_buffer_free(&f->image);
        tsr__cuda_host_buffer_free(&f->pin);
        if (f->written)
            cudaEventDestroy(f->written);
        tsr__cuda_staging_free(&f->down);
    }
    tsr__cuda_buffer_free(&s->coef);
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

/* At least size bytes in b (host: page-locked), grown by a quarter more than asked, for the
 * code-blocks' bytes: they vary from frame to frame of a sequence, and each growth waits for
 * the stream and allocates again (pinning costs about 0.65 ms per MB on an H200 host). */
static tsr_status reserve_room(tsr_ctx *ctx, tsr__cuda_buffer *b, size_t size, int host)
{
    if (b->ptr && b->size >= size)
        return TSR_OK;
    size += size / 4;
    return host ? tsr__cuda_host_buffer_reserve(ctx, b, size)
                : tsr__cuda_buffer_reserve(ctx, b, size);
}

/* The packed row of a host image in bytes. */
static size_t row_bytes(const tsr_image *img)
{
    return (size_t)img->width * img->channels * (img->depth == TSR_U16 ? 2 : 1);
}

tsr_status tsr__j2k_cuda_begin(tsr_ctx *ctx, const tsr_image *img, uint32_t frame,
                               tsr__j2k_cuda_image *out)
{
    j2k_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st)
        return st;
    if (frame >= TSR__J2K_CUDA_SLOTS)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "j2k decode on CUDA: frame slot %u", frame);
    if (img->memory == TSR_MEMORY_CUDA) {
        s->img.data = img->data;
        s->img.stride = img->stride;
    } else {
        const size_t row = row_bytes(img), bytes = row * (size_t)img->height; /* image_check */
        if ((st = tsr__cuda_buffer_reserve(ctx, &s->frame[frame].image, bytes ? bytes : 1)))
            return st;
        s->img.data = s->frame[frame].image.ptr;
        s->img.stride = row;
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
    return tsr__cuda_ring_upload(ctx, &s->ring, s->img.data, s->img.stride, host->data,
                                 host->stride, row_bytes(host), (size_t)host->height,
                                 ctx->cuda->stream);
}

tsr_status tsr__j2k_cuda_slot_next(tsr_ctx *ctx, uint32_t *slot, void **owner)
{
    j2k_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st)
        return st;
    *slot = s->next;
    *owner = s->slot[s->next].owner;
    s->next = (s->next + 1) % TSR__J2K_CUDA_SLOTS;
    return TSR_OK;
}

uint32_t tsr__j2k_cuda_slot_peek(tsr_ctx *ctx, uint32_t after, void **owner)
{
    j2k_cuda_state *s;
    *owner = NULL;
    if (state_of(ctx, &s))
        return 0;
    const uint32_t k = (s->next + after) % TSR__J2K_CUDA_SLOTS;
    *owner = s->slot[k].owner;
    return k;
}

tsr_status tsr__j2k_cuda_slot_wait(tsr_ctx *ctx, uint32_t slot, const uint32_t **status,
                                   const tsr__t1_dev_job **jobs)
{
    j2k_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st)
        return st;
    j2k_cuda_slot *t = &s->slot[slot];
    t->owner = NULL;
    if (t->back)
        TSR_CUDA_TRY(ctx, cudaEventSynchronize(t->back));
    *status = (const uint32_t *)t->status.ptr;
    *jobs = (const tsr__t1_dev_job *)((uint8_t *)t->stage.ptr + t->jobs_off);
    return TSR_OK;
}

tsr_status tsr__j2k_cuda_tile_buffers(tsr_ctx *ctx, uint32_t slot, size_t coef_elems,
                                      size_t data_bytes, uint32_t njobs, uint32_t nsegs,
                                      tsr__j2k_cuda_tile *out)
{
    j2k_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st)
        return st;
    j2k_cuda_slot *t = &s->slot[slot];
    if (t->owner)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "j2k decode on CUDA: tile buffers still in use");
    /* the slot's last upload has passed: its status words, queued after it, were collected (or
     * it was never used; a growing buffer waits for the stream itself) */
    t->jobs_off = align16(data_bytes);
    t->segs_off = t->jobs_off + align16((size_t)njobs * sizeof(tsr__t1_dev_job));
    const size_t total = t->segs_off + (size_t)nsegs * sizeof(tsr__t1_dev_seg) + 16;
    if ((st = reserve_room(ctx, &t->stage, total, 1)) ||
        (st = tsr__cuda_host_buffer_reserve(ctx, &t->status, ((size_t)njobs + 1) * 4)) ||
        (st = reserve_room(ctx, &t->in, total, 0)) ||
        (st = tsr__cuda_buffer_reserve(ctx, &t->dstatus, ((size_t)njobs + 1) * 4)) ||
        (st = tsr__cuda_buffer_reserve(ctx, &s->coef, (coef_elems ? coef_elems : 1) * 4)))
        return st;
    if (!s->up) { /* on the context's device, whichever is current on this thread */
        TSR_CUDA_TRY(ctx, cudaSetDevice(ctx->cuda->device));
        TSR_CUDA_TRY(ctx, cudaStreamCreateWithFlags(&s->up, cudaStreamNonBlocking));
    }
    if (!t->back)
        TSR_CUDA_TRY(ctx, cudaEventCreateWithFlags(&t->back, cudaEventDisableTiming));
    if (!t->uploaded)
        TSR_CUDA_TRY(ctx, cudaEventCreateWithFlags(&t->uploaded, cudaEventDisableTiming));
    uint8_t *base = (uint8_t *)t->stage.ptr;
    out->data = base;
    out->jobs = (tsr__t1_dev_job *)(base + t->jobs_off);
    out->segs = (tsr__t1_dev_seg *)(base + t->segs_off);
    out->coef = (int32_t *)s->coef.ptr;
    return TSR_OK;
}

/* The slot's upload on the upload stream (it may run while the kernels of the tile before
 * decode from the other slot's copy: this slot's last reader, tile k - 2's block decoder, has
 * finished, since its status words were collected first), then the decode and the status
 * copy on stream, behind the upload. */
static tsr_status queue_blocks(tsr_ctx *ctx, j2k_cuda_state *s, j2k_cuda_slot *t, uint32_t njobs,
                               uint32_t nsegs, cudaStream_t stream)
{
    const size_t total = t->segs_off + (size_t)nsegs * sizeof(tsr__t1_dev_seg);
    uint8_t *in = (uint8_t *)t->in.ptr;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(in, t->stage.ptr, total, cudaMemcpyHostToDevice, s->up));
    TSR_CUDA_TRY(ctx, cudaEventRecord(t->uploaded, s->up));
    TSR_CUDA_TRY(ctx, cudaStreamWaitEvent(stream, t->uploaded, 0));
    tsr_status st;
    if (njobs && (st = tsr__t1_decode_cuda(ctx, (const tsr__t1_dev_job *)(in + t->jobs_off),
                                           (const tsr__t1_dev_seg *)(in + t->segs_off), njobs, in,
                                           (int32_t *)s->coef.ptr, (uint32_t *)t->dstatus.ptr, 0)))
        return st;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(t->status.ptr, t->dstatus.ptr, (size_t)njobs * 4,
                                      cudaMemcpyDeviceToHost, stream));
    TSR_CUDA_TRY(ctx, cudaEventRecord(t->back, stream));
    return TSR_OK;
}

tsr_status tsr__j2k_cuda_blocks(tsr_ctx *ctx, uint32_t slot, uint32_t njobs, uint32_t nsegs,
                                void *owner)
{
    j2k_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st)
        return st;
    j2k_cuda_slot *t = &s->slot[slot];
    if ((st = queue_blocks(ctx, s, t, njobs, nsegs, ctx->cuda->stream))) {
        /* what was queued may still read the staging: let it pass before the slot is reused */
        cudaStreamSynchronize(s->up);
        cudaStreamSynchronize(ctx->cuda->stream);
        return st;
    }
    t->owner = owner;
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
    return tsr__cuda_ring_download(ctx, &s->ring, img->data, img->stride, s->img.data,
                                   s->img.stride, row_bytes(img), (size_t)img->height,
                                   ctx->cuda->stream);
}

tsr_status tsr__j2k_cuda_download(tsr_ctx *ctx, const tsr_image *img, uint32_t frame)
{
    j2k_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st)
        return st;
    j2k_cuda_frame *f = &s->frame[frame];
    const size_t row = row_bytes(img), bytes = row * (size_t)img->height;
    if (!s->down) {
        TSR_CUDA_TRY(ctx, cudaSetDevice(ctx->cuda->device));
        TSR_CUDA_TRY(ctx, cudaStreamCreateWithFlags(&s->down, cudaStreamNonBlocking));
    }
    if (!f->written)
        TSR_CUDA_TRY(ctx, cudaEventCreateWithFlags(&f->written, cudaEventDisableTiming));
    /* the pinned buffer's last download (this frame slot's previous frame) has been finished */
    if ((st = tsr__cuda_host_buffer_reserve(ctx, &f->pin, bytes ? bytes : 1)))
        return st;
    TSR_CUDA_TRY(ctx, cudaEventRecord(f->written, ctx->cuda->stream));
    TSR_CUDA_TRY(ctx, cudaStreamWaitEvent(s->down, f->written, 0));
    return tsr__cuda_stage_download(ctx, &f->down, img->data, img->stride, f->pin.ptr, f->image.ptr,
                                    row, (size_t)img->height, s->down);
}

tsr_status tsr__j2k_cuda_download_finish(tsr_ctx *ctx, uint32_t frame, int keep)
{
    j2k_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st)
        return st;
    j2k_cuda_frame *f = &s->frame[frame];
    return keep ? tsr__cuda_stage_finish(ctx, &f->down) : tsr__cuda_stage_discard(ctx, &f->down);
}

tsr_status tsr__j2k_cuda_sync(tsr_ctx *ctx)
{
    j2k_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st)
        return st;
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(ctx->cuda->stream));
    if (s->up)
        TSR_CUDA_TRY(ctx, cudaStreamSynchronize(s->up));
    if (s->down)
        TSR_CUDA_TRY(ctx, cudaStreamSynchronize(s->down));
    return TSR_OK;
}

void tsr__j2k_cuda_quiesce(tsr_ctx *ctx)
{
    if (!ctx->cuda)
        return;
    cudaStreamSynchronize(ctx->cuda->stream);
    const j2k_cuda_state *s = (const j2k_cuda_state *)tsr__ctx_state(ctx, &j2k_cuda_kind);
    if (s && s->up)
        cudaStreamSynchronize(s->up);
    if (s && s->down)
        cudaStreamSynchronize(s->down);
}
