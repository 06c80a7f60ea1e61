/* The resize CUDA entry points in a build without CUDA (never reached: a context cannot choose
 * CUDA there). */
#include "resize/resize_backends.h"

tsr_status tsr__resize_cuda(tsr_ctx *ctx, const tsr__resize_plan *plan, const tsr_image *src,
                            tsr_image *dst)
{
    (void)plan, (void)src, (void)dst;
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "resize: this build has no CUDA backend");
}

tsr_status tsr__resize_cuda_batch(tsr_ctx *ctx, const tsr__resize_plan *plans, const tsr_image *src,
                                  tsr_image *dst, size_t count, size_t *done)
{
    (void)plans, (void)src, (void)dst, (void)count;
    *done = 0;
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "resize: this build has no CUDA backend");
}

tsr_status tsr__resize_cuda_sources(tsr_ctx *ctx, tsr_image *src, size_t count)
{
    (void)src, (void)count;
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "resize: this build has no CUDA backend");
}
