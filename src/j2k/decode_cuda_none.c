/* decode_cuda.h in a build without CUDA: decode.c never picks CUDA there (the backend reports
 * that it is not built), so these only answer if called regardless. */
#include "core/ctx.h"
#include "j2k/decode_cuda.h"

static tsr_status none(tsr_ctx *ctx)
{
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "j2k decode: this build has no CUDA");
}

tsr_status tsr__j2k_cuda_begin(tsr_ctx *ctx, const tsr_image *img, tsr__j2k_cuda_image *out)
{
    (void)img;
    (void)out;
    return none(ctx);
}

tsr_status tsr__j2k_cuda_upload_image(tsr_ctx *ctx, const tsr_image *host)
{
    (void)host;
    return none(ctx);
}

tsr_status tsr__j2k_cuda_tile_buffers(tsr_ctx *ctx, size_t coef_elems, size_t data_bytes,
                                      uint32_t njobs, uint32_t nsegs, tsr__j2k_cuda_tile *out)
{
    (void)coef_elems;
    (void)data_bytes;
    (void)njobs;
    (void)nsegs;
    (void)out;
    return none(ctx);
}

tsr_status tsr__j2k_cuda_blocks(tsr_ctx *ctx, uint32_t njobs, uint32_t nsegs,
                                const uint32_t **status)
{
    (void)njobs;
    (void)nsegs;
    (void)status;
    return none(ctx);
}

tsr_status tsr__j2k_cuda_end(tsr_ctx *ctx, tsr_image *img)
{
    (void)img;
    return none(ctx);
}
