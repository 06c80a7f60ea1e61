/* The nvJPEG entry points in a build without CUDA (never reached: a context cannot open a CUDA
 * device there). */
#include "cuda/nvjpeg.h"

#include "core/ctx.h"

tsr_status tsr__nvjpeg_decode(tsr_ctx *ctx, const void *const *data, const size_t *len,
                              tsr_image *out, size_t count, size_t *done, size_t *on_hardware)
{
    (void)data, (void)len, (void)out, (void)count;
    *done = 0;
    if (on_hardware)
        *on_hardware = 0;
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "nvJPEG: this build has no CUDA backend");
}

int tsr__nvjpeg_available(void)
{
    return 0;
}
