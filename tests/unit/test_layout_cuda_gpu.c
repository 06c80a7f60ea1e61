/* CUDA layout evaluators against the CPU, proposal by proposal: the full count, then P proposals
 * per launch (dense, spatial, full) whose scores (K, n_K, Phi, C) and invalid flags must equal
 * the CPU incremental evaluator's (and a full recount's for some), and committed moves whose
 * device counts must equal the CPU full count, on random drawings (canvases of 10^6, 80 and 2^30,
 * with a hub and an isolated node) and the GD 2025 example; bad input gives a clear status.
 * Skips (77) without a CUDA device. The
 * sequence is layout_delta_check.h's, which test_layout_device_logic also runs on the kernels'
 * logic on the CPU (no GPU needed). */
#include "testlib.h"

#include "layout/layout_cuda.h"
#include "layout/layout_internal.h"

#include "layout_delta_check.h"

/* Built only in CUDA builds (tests/CMakeLists.txt: *_cuda* names). */

static tsr_status cu_create(tsr_ctx *ctx, const tsr_layout *l, const tsr__layout_adj *adj,
                            int max_proposals, void **out)
{
    tsr__layout_cuda *g = NULL;
    tsr__layout_cuda_device dev;
    tsr_status st = tsr__layout_cuda_device_of(ctx, &dev);
    if (st == TSR_OK)
        st = tsr__layout_cuda_create(ctx, &dev, l, adj, max_proposals, &g);
    *out = g;
    return st;
}

static void cu_destroy(tsr_ctx *ctx, void *g)
{
    tsr__layout_cuda_destroy(ctx, (tsr__layout_cuda *)g);
}

static tsr_layout_score cu_score(const void *g)
{
    return tsr__layout_cuda_score((const tsr__layout_cuda *)g);
}

static tsr_status cu_counts(tsr_ctx *ctx, void *g, int32_t *counts)
{
    return tsr__layout_cuda_counts(ctx, (tsr__layout_cuda *)g, counts);
}

static tsr_status cu_dense(tsr_ctx *ctx, void *g, int nprop, const int32_t *node, const int32_t *px,
                           const int32_t *py, tsr_layout_score *score, uint8_t *invalid)
{
    return tsr__layout_cuda_eval_dense(ctx, (tsr__layout_cuda *)g, nprop, node, px, py, score,
                                       invalid);
}

static tsr_status cu_full(tsr_ctx *ctx, void *g, int nprop, const int32_t *node, const int32_t *px,
                          const int32_t *py, tsr_layout_score *score, uint8_t *invalid)
{
    return tsr__layout_cuda_eval_full(ctx, (tsr__layout_cuda *)g, nprop, node, px, py, score,
                                      invalid);
}

static tsr_status cu_spatial(tsr_ctx *ctx, void *g, const tsr__grid *grid, uint64_t grid_version,
                             int nprop, const int32_t *node, const int32_t *px, const int32_t *py,
                             tsr_layout_score *score, uint8_t *invalid)
{
    return tsr__layout_cuda_eval_spatial(ctx, (tsr__layout_cuda *)g, grid, grid_version, nprop,
                                         node, px, py, score, invalid);
}

static tsr_status cu_limits(tsr_ctx *ctx, void *g, int cells_per_proposal, int window)
{
    return tsr__layout_cuda_set_limits(ctx, (tsr__layout_cuda *)g, cells_per_proposal, window);
}

static void cu_paths(const void *g, uint64_t paths[3])
{
    tsr__layout_cuda_paths((const tsr__layout_cuda *)g, paths);
}

static tsr_status cu_commit(tsr_ctx *ctx, void *g, int32_t v, int32_t x, int32_t y,
                            tsr_layout_score *score, int32_t *counts)
{
    return tsr__layout_cuda_commit(ctx, (tsr__layout_cuda *)g, v, x, y, score, counts);
}

static void cu_set_target(void *g, int64_t t)
{
    tsr__layout_cuda_set_target((tsr__layout_cuda *)g, t);
}

static int64_t cu_excess(const void *g, int p)
{
    return tsr__layout_cuda_excess_change((const tsr__layout_cuda *)g, p);
}

static const ldc_backend cuda_backend = {tsr__layout_cuda_count,
                                         cu_create,
                                         cu_destroy,
                                         cu_score,
                                         cu_counts,
                                         cu_dense,
                                         cu_full,
                                         cu_spatial,
                                         cu_limits,
                                         cu_paths,
                                         cu_set_target,
                                         cu_excess,
                                         cu_commit};

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
    /* bad input (a clear status, nothing evaluated), then evaluations of the same proposals by
     * the dense and full kernels agreeing */
    {
        tsr_rng r;
        tsr_rng_seed(&r, 3);
        tsr_layout *l = ldc_random_drawing(ctx, &r, 20, 40, 1000, 1000, 0);
        tsr__layout_adj adj;
        CHECK_OK(ctx, tsr__adj_build(ctx, l, &adj));
        tsr__layout_cuda *g = NULL;
        tsr__layout_cuda_device dev;
        CHECK_OK(ctx, tsr__layout_cuda_device_of(ctx, &dev));
        CHECK_STATUS(tsr__layout_cuda_create(ctx, &dev, l, &adj, 0, &g), TSR_ERR_INVALID_ARGUMENT);
        CHECK_OK(ctx, tsr__layout_cuda_create(ctx, &dev, l, &adj, 8, &g));
        int32_t node[9], px[9], py[9];
        for (int p = 0; p < 9; p++) {
            node[p] = tsr_rng_range(&r, 0, 19);
            px[p] = tsr_rng_range(&r, 0, 1000);
            py[p] = tsr_rng_range(&r, 0, 1000);
        }
        tsr_layout_score before[9], dense[9], full[9];
        uint8_t inv0[9], inv1[9], inv2[9];
        CHECK_STATUS(tsr__layout_cuda_eval_dense(ctx, g, 9, node, px, py, before, inv0),
                     TSR_ERR_INVALID_ARGUMENT); /* more than max_proposals */
        const int32_t keep_y = py[1], keep_node = node[0];
        py[1] = -1;
        CHECK_STATUS(tsr__layout_cuda_eval_dense(ctx, g, 2, node, px, py, before, inv0),
                     TSR_ERR_INVALID_ARGUMENT); /* a negative coordinate */
        py[1] = keep_y;
        node[0] = 20;
        CHECK_STATUS(tsr__layout_cuda_eval_full(ctx, g, 1, node, px, py, before, inv0),
                     TSR_ERR_INVALID_ARGUMENT); /* no such node */
        node[0] = keep_node;
        CHECK_OK(ctx, tsr__layout_cuda_eval_dense(ctx, g, 8, node, px, py, before, inv0));
        CHECK_OK(ctx, tsr__layout_cuda_eval_dense(ctx, g, 8, node, px, py, dense, inv1));
        CHECK_OK(ctx, tsr__layout_cuda_eval_full(ctx, g, 8, node, px, py, full, inv2));
        for (int p = 0; p < 8; p++) {
            int occupied = 0; /* by another node: the node part of validity, the caller's */
            for (int32_t u = 0; u < l->num_nodes; u++)
                occupied |= u != node[p] && l->x[u] == px[p] && l->y[u] == py[p];
            if (occupied)
                continue;
            CHECK(inv0[p] == inv1[p] && inv1[p] == inv2[p]);
            if (!inv0[p])
                CHECK(tsr_layout_score_compare(&before[p], &dense[p]) == 0 &&
                      tsr_layout_score_compare(&dense[p], &full[p]) == 0);
        }
        tsr__layout_cuda_destroy(ctx, g);
        tsr__adj_release(ctx, &adj);
        tsr_layout_free(ctx, l);
    }
    ldc_print_summary("test_layout_cuda_gpu");
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("layout_cuda_gpu");
}
