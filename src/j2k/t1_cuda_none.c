/* The device Tier-1 decoder (t1_cuda.h) in a build without CUDA. */
#include "j2k/t1_cuda.h"

#include "core/ctx.h"

tsr_status tsr__t1_decode_cuda(tsr_ctx *ctx, const tsr__t1_dev_job *jobs,
                               const tsr__t1_dev_seg *segs, uint32_t njobs, const uint8_t *data,
                               int32_t *coef, uint32_t *status, uint32_t max_threads)
{
    (void)jobs, (void)segs, (void)njobs, (void)data, (void)coef, (void)status, (void)max_threads;
    return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "j2k: tier-1 on the device: not built with CUDA");
}
