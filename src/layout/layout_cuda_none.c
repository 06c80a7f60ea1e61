/* The CUDA entry points of layout_cuda.h in builds without CUDA: no device, so the count and the
 * evaluator's creation fail with TSR_ERR_NO_BACKEND, and nothing else is ever reached (there is
 * no evaluator to pass). */
#include "layout/layout_cuda.h"

#include <string.h>

static tsr_status no_cuda(tsr_ctx *ctx)
{
    return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "layout: this build has no CUDA backend");
}

tsr_status tsr__layout_cuda_count(tsr_ctx *ctx, const tsr_layout *l, int32_t *counts)
{
    (void)l, (void)counts;
    return no_cuda(ctx);
}

tsr_status tsr__layout_cuda_device_of(tsr_ctx *ctx, tsr__layout_cuda_device *out)
{
    memset(out, 0, sizeof *out);
    return no_cuda(ctx);
}

tsr_status tsr__layout_cuda_create(tsr_ctx *ctx, const tsr__layout_cuda_device *device,
                                   const tsr_layout *l, const tsr__layout_adj *adj,
                                   int max_proposals, tsr__layout_cuda **out)
{
    (void)device, (void)l, (void)adj, (void)max_proposals;
    *out = NULL;
    return no_cuda(ctx);
}

void tsr__layout_cuda_destroy(tsr_ctx *ctx, tsr__layout_cuda *g)
{
    (void)ctx, (void)g;
}

tsr_status tsr__layout_cuda_eval_dense(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop,
                                       const int32_t *node, const int32_t *px, const int32_t *py,
                                       tsr_layout_score *score, uint8_t *invalid)
{
    (void)g, (void)nprop, (void)node, (void)px, (void)py, (void)score, (void)invalid;
    return no_cuda(ctx);
}

void tsr__layout_cuda_set_target(tsr__layout_cuda *g, int64_t target)
{
    (void)g, (void)target;
}

int64_t tsr__layout_cuda_excess_change(const tsr__layout_cuda *g, int p)
{
    (void)g, (void)p;
    return 0;
}

tsr_status tsr__layout_cuda_commit(tsr_ctx *ctx, tsr__layout_cuda *g, int32_t v, int32_t x,
                                   int32_t y, tsr_layout_score *score, int32_t *counts)
{
    (void)g, (void)v, (void)x, (void)y, (void)score, (void)counts;
    return no_cuda(ctx);
}
