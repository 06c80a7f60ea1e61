/* The resize OpenCL entry point in a build without OpenCL (never reached: a context cannot
 * choose OpenCL there). */
#include "resize/resize_backends.h"

tsr_status tsr__resize_opencl(tsr_ctx *ctx, const tsr__resize_plan *plan, const tsr_image *src,
                              tsr_image *dst)
{
    (void)plan, (void)src, (void)dst;
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "resize: this build has no OpenCL backend");
}
