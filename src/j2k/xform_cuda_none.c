/* The decoder's device stages (xform_cuda.h) in a build without CUDA. */
#include "j2k/xform_cuda.h"

tsr_status tsr__j2k_idwt_cuda(tsr_ctx *ctx, int32_t *d_data, size_t stride, const tsr__j2k_res *res,
                              uint32_t nres, int reversible)
{
    (void)d_data, (void)stride, (void)res, (void)nres, (void)reversible;
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "j2k inverse DWT on the device: not built with CUDA");
}

tsr_status tsr__j2k_output_cuda(tsr_ctx *ctx, const tsr__j2k_dev_output *o)
{
    (void)o;
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "j2k output on the device: not built with CUDA");
}
