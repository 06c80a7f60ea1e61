/* The carve CUDA entry points (carve_cuda.h) in a build without CUDA (never reached: a context
 * cannot choose CUDA there). */
#include "carve/carve_cuda.h"

#include "core/ctx.h"

tsr_status tsr__carve_remove_seams_cuda(tsr_ctx *ctx, tsr__carve_grid *g, int32_t count,
                                        tsr__carve_pass *p)
{
    (void)g, (void)count, (void)p;
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "carve: this build has no CUDA backend");
}

tsr_status tsr__carve_remove_resident_cuda(tsr_ctx *ctx, const tsr_image *src, tsr_image *dst,
                                           tsr__carve_pass *p)
{
    (void)src, (void)dst, (void)p;
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "carve: this build has no CUDA backend");
}

int tsr__carve_cuda_order_fits(tsr_ctx *ctx, const tsr__carve_grid *g, int32_t r, int32_t c)
{
    (void)ctx, (void)g, (void)r, (void)c;
    return 0;
}

tsr_status tsr__carve_cuda_optimal(tsr_ctx *ctx, const tsr__carve_grid *g, int32_t r, int32_t c,
                                   tsr_carve_energy kind, const uint64_t pen[4], uint32_t *keep,
                                   uint64_t *energy, double *ms)
{
    (void)g, (void)r, (void)c, (void)kind, (void)pen, (void)keep, (void)energy, (void)ms;
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "carve: this build has no CUDA backend");
}
