/* CUDA layout evaluators against the CPU reference, edge by edge: the full count, the dense delta
 * (P proposals per launch) and the spatial delta, on random drawings (canvas 10^6 and a crowded
 * small one) and the GD 2025 examples. Skips (77) without a CUDA device. The comparison is
 * layout_delta_check.h's, which test_layout_device_logic also runs on the kernels' logic on the
 * CPU (no GPU needed). */
#include "testlib.h"

#include "layout/layout_cuda.h"
#include "layout/layout_internal.h"

#include "layout_delta_check.h"

/* Built only in CUDA builds (tests/CMakeLists.txt: *_cuda* names). */

static tsr_status cu_create(tsr_ctx *ctx, const tsr_layout *l, const tsr__layout_adj *adj,
                            int max_proposals, void **out)
{
    tsr__layout_cuda *g = NULL;
    tsr_status st = tsr__layout_cuda_create(ctx, l, adj, max_proposals, &g);
    *out = g;
    return st;
}

static void cu_destroy(tsr_ctx *ctx, void *g)
{
    tsr__layout_cuda_destroy(ctx, (tsr__layout_cuda *)g);
}

static tsr_status cu_move(tsr_ctx *ctx, void *g, int32_t v, int32_t x, int32_t y)
{
    return tsr__layout_cuda_move(ctx, (tsr__layout_cuda *)g, v, x, y);
}

static tsr_status cu_delta(tsr_ctx *ctx, void *g, int nprop, const int32_t *node,
                           const int32_t *px, const int32_t *py, int32_t *out_delta,
                           uint8_t *invalid)
{
    return tsr__layout_cuda_delta(ctx, (tsr__layout_cuda *)g, nprop, node, px, py, out_delta,
                                  invalid);
}

static tsr_status cu_spatial(tsr_ctx *ctx, void *g, const tsr_layout *l,
                             const tsr__layout_adj *adj, const tsr__grid *grid,
                             uint64_t grid_version, int nprop, const int32_t *node,
                             const int32_t *px, const int32_t *py, int32_t *out_delta,
                             uint8_t *invalid)
{
    return tsr__layout_cuda_delta_spatial(ctx, (tsr__layout_cuda *)g, l, adj, grid, grid_version,
                                          nprop, node, px, py, out_delta, invalid);
}

static const ldc_backend cuda_backend = {tsr__layout_cuda_count, cu_create, cu_destroy,
                                         cu_move,                cu_delta,  cu_spatial};

int main(void)
{
    if (!tsr_backend_available(TSR_BACKEND_CUDA)) {
        fprintf(stderr, "test_layout_cuda_gpu: no CUDA device; skipping\n");
        return TSR_TEST_SKIP;
    }
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_CUDA;
    tsr_ctx *ctx;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK)
        return 1;
    ldc_run_all(ctx, &cuda_backend);
    fprintf(stderr, "test_layout_cuda_gpu: %ld of %ld proposal rows differ from the CPU\n",
            ldc_bad_rows, ldc_rows);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("layout_cuda_gpu");
}
