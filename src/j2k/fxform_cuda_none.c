/* The encoder's device stages (fxform_cuda.h) in a build without CUDA. */
#include "j2k/fxform_cuda.h"

tsr_status tsr__j2k_fload_cuda(tsr_ctx *ctx, const tsr__j2k_dev_fload *o)
{
    (void)o;
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "j2k samples on the device: not built with CUDA");
}

tsr_status tsr__j2k_fdwt_cuda(tsr_ctx *ctx, int32_t *d_data, size_t stride, const tsr__j2k_res *res,
                              uint32_t nres, int reversible)
{
    (void)d_data, (void)stride, (void)res, (void)nres, (void)reversible;
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "j2k forward DWT on the device: not built with CUDA");
}
