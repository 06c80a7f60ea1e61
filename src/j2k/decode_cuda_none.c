/* decode_cuda.h in a build without CUDA: decode.c never picks CUDA there (the backend reports
 * that it is not built), so these only answer if called regardless. */
#include "core/ctx.h"
#include "j2k/decode_cuda.h"

static tsr_status none(tsr_ctx *ctx)
{
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "j2k decode: this build has no CUDA");
}

tsr_status tsr__j2k_cuda_begin(tsr_ctx *ctx, const tsr_image *img, uint32_t frame,
                               tsr__j2k_cuda_image *out)
{
    (void)img;
    (void)frame;
    (void)out;
    return none(ctx);
}

tsr_status tsr__j2k_cuda_upload_image(tsr_ctx *ctx, const tsr_image *host)
{
    (void)host;
    return none(ctx);
}

tsr_status tsr__j2k_cuda_slot_next(tsr_ctx *ctx, uint32_t *slot, void **owner)
{
    *slot = 0;
    *owner = NULL;
    return none(ctx);
}

uint32_t tsr__j2k_cuda_slot_peek(tsr_ctx *ctx, uint32_t after, void **owner)
{
    (void)ctx;
    (void)after;
    *owner = NULL;
    return 0;
}

tsr_status tsr__j2k_cuda_slot_wait(tsr_ctx *ctx, uint32_t slot, const uint32_t **status,
                                   const tsr__t1_dev_job **jobs)
{
    (void)slot;
    *status = NULL;
    *jobs = NULL;
    return none(ctx);
}

tsr_status tsr__j2k_cuda_tile_buffers(tsr_ctx *ctx, uint32_t slot, size_t coef_elems,
                                      size_t data_bytes, uint32_t njobs, uint32_t nsegs,
                                      tsr__j2k_cuda_tile *out)
{
    (void)slot;
    (void)coef_elems;
    (void)data_bytes;
    (void)njobs;
    (void)nsegs;
    (void)out;
    return none(ctx);
}

tsr_status tsr__j2k_cuda_blocks(tsr_ctx *ctx, uint32_t slot, uint32_t njobs, uint32_t nsegs,
                                void *owner)
{
    (void)slot;
    (void)njobs;
    (void)nsegs;
    (void)owner;
    return none(ctx);
}

tsr_status tsr__j2k_cuda_end(tsr_ctx *ctx, tsr_image *img)
{
    (void)img;
    return none(ctx);
}

tsr_status tsr__j2k_cuda_download(tsr_ctx *ctx, const tsr_image *img, uint32_t frame)
{
    (void)img;
    (void)frame;
    return none(ctx);
}

tsr_status tsr__j2k_cuda_download_finish(tsr_ctx *ctx, uint32_t frame, int keep)
{
    (void)frame;
    (void)keep;
    return none(ctx);
}

tsr_status tsr__j2k_cuda_sync(tsr_ctx *ctx)
{
    return none(ctx);
}

void tsr__j2k_cuda_quiesce(tsr_ctx *ctx)
{
    (void)ctx;
}
