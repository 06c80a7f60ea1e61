/* The layout domain's operations on a backend (tessera/layout.h): tsr_layout_evaluate and
 * tsr_layout_optimize. The one place where layout chooses its backend (tsr__layout_choose, on
 * core/backend.h's rule); the choice is passed down, and no other layout file reads the context's
 * backend. Offered: reference (one thread), cpu (OpenMP counts, one annealing chain per thread)
 * and cuda (the full count, and the annealer's batch walk on a CUDA evaluator per chain). */
#include "layout/anneal_internal.h"
#include "layout/layout_cuda.h"

#include "core/backend.h"
#include "core/checked.h"

#include <string.h>

typedef enum tsr__layout_op { TSR__LAYOUT_EVALUATE, TSR__LAYOUT_OPTIMIZE } tsr__layout_op;

/* The auto rule of tsr_layout_optimize: the CUDA batch walk for dense graphs on a GPU only, where
 * mean degree x edges (arm tests per CPU proposal, ~3 ns each) is large against a launch round
 * trip (~15-20 us) and the degree is high enough that the CPU's spatial index leaves most edges
 * as candidates. Measured (H200, 20 s, bench/results/layout-anneal-h200-2026-11-29.md):
 * proposals/s against the CPU's A5 (degree 10, 2,556 edges) 2.9x, A6 (30, 3,000) 6.8x, A7 (7,
 * 1,740) 0.97x, A9 (3.9, 4,938) 0.29x. */
#define AUTO_CUDA_MIN_WORK 20000.0
#define AUTO_CUDA_MIN_DEGREE 8.0

/* The backend of a layout operation on drawing l: an explicit request as it is (reference, cpu
 * or cuda; any other fails with TSR_ERR_NO_BACKEND); under auto, for tsr_layout_optimize CUDA on
 * a dense graph (AUTO_CUDA_MIN_DEGREE, AUTO_CUDA_MIN_WORK) where a GPU can be used, else the CPU,
 * and for tsr_layout_evaluate the CPU (one count of a host drawing: the CPU's sweep over sorted
 * bounding boxes finishes before a CUDA start-up and the copies would). */
static tsr_status tsr__layout_choose(tsr_ctx *ctx, tsr__layout_op op, const tsr_layout *l,
                                     tsr_backend *out)
{
    const unsigned offered = TSR__BACKEND_BIT(TSR_BACKEND_REFERENCE) |
                             TSR__BACKEND_BIT(TSR_BACKEND_CPU) | TSR__BACKEND_BIT(TSR_BACKEND_CUDA);
    if (op == TSR__LAYOUT_EVALUATE)
        return tsr__backend_choose(ctx, "layout evaluate", offered, TSR_BACKEND_CPU,
                                   "one count of a host drawing: the CPU finishes before a CUDA "
                                   "start-up would",
                                   out);
    const double degree = l->num_nodes ? 2.0 * l->num_edges / l->num_nodes : 0;
    const int dense = degree >= AUTO_CUDA_MIN_DEGREE && degree * l->num_edges >= AUTO_CUDA_MIN_WORK;
    return tsr__backend_choose(
        ctx, "layout optimize", offered, dense ? TSR_BACKEND_CUDA : TSR_BACKEND_CPU,
        dense ? "a dense graph: the GPU scores a batch of proposals faster than the CPU"
              : "a sparse graph: the CPU's spatial index beats a launch per batch on the GPU",
        out);
}

tsr_status tsr_layout_evaluate(tsr_ctx *ctx, const tsr_layout *l, tsr_layout_score *score,
                               int32_t *edge_crossings)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (!l || !score)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: NULL argument to evaluate");
    tsr_backend b;
    if ((st = tsr__layout_choose(ctx, TSR__LAYOUT_EVALUATE, l, &b)) != TSR_OK)
        return st;
    int32_t *counts = edge_crossings;
    size_t bytes;
    if (!tsr__size_mul(l->num_edges ? (size_t)l->num_edges : 1, sizeof(int32_t), &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "layout: too many edges");
    if (!counts && (st = tsr__alloc(ctx, bytes, (void **)&counts)) != TSR_OK)
        return st;
    if (b == TSR_BACKEND_REFERENCE)
        tsr__count_reference(l, counts);
    else if (b == TSR_BACKEND_CUDA)
        st = tsr__layout_cuda_count(ctx, l, counts);
    else
        st = tsr__count_parallel(ctx, l, counts, ctx->threads);
    if (st == TSR_OK)
        tsr__score_from_counts(counts, l->num_edges, score);
    if (counts != edge_crossings)
        tsr__free(ctx, counts);
    return st;
}

void tsr_layout_optimize_options_init(tsr_layout_optimize_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->time_limit = 60;
    opt->seed = 1;
    opt->init = TSR_LAYOUT_INIT_AUTO;
    opt->save_interval = 10;
    opt->progress_interval = 0.5;
    opt->phase1_fraction = 0.3;
    opt->phase1_fraction_odd = 0.02;
    opt->spatial = 1;
}

/* The checks of tsr_layout_optimize's options (tessera/layout.h gives their ranges). */
static tsr_status check_options(tsr_ctx *ctx, const tsr_layout_optimize_options *opt)
{
    if (!(opt->time_limit >= 0) || (opt->time_limit == 0 && opt->max_moves == 0) ||
        !(opt->phase1_fraction >= 0 && opt->phase1_fraction <= 1) ||
        !(opt->phase1_fraction_odd >= 0 && opt->phase1_fraction_odd <= 1))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "layout: give a time limit or a move budget, and phase-1 shares in [0,1]");
    if ((unsigned)opt->init > TSR_LAYOUT_INIT_RANDOM)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: unknown init mode");
    if (opt->chains < 0 || opt->chains > TSR_LAYOUT_MAX_CHAINS || opt->gpu_chains < 0 ||
        opt->gpu_chains > TSR_LAYOUT_MAX_CHAINS)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "layout: chains and gpu_chains must be 0 to %d", TSR_LAYOUT_MAX_CHAINS);
    if (!(opt->sync_every == 0 || (opt->sync_every >= 0.01 && opt->sync_every < 1)))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "layout: sync_every must be 0 (none) or in [0.01, 1)");
    return TSR_OK;
}

tsr_status tsr_layout_optimize(tsr_ctx *ctx, tsr_layout *l, const tsr_layout_optimize_options *opt,
                               tsr_layout_optimize_result *result)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (!l)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: NULL drawing to optimize");
    tsr_layout_optimize_options defaults;
    if (!opt) {
        tsr_layout_optimize_options_init(&defaults);
        opt = &defaults;
    }
    tsr_backend b;
    if ((st = check_options(ctx, opt)) != TSR_OK ||
        (st = tsr__layout_choose(ctx, TSR__LAYOUT_OPTIMIZE, l, &b)) != TSR_OK)
        return st;
    return tsr__anneal_team_run(
        ctx, l, opt, b, b == TSR_BACKEND_CUDA ? TSR__BATCH_CUDA : TSR__BATCH_NONE, result, NULL);
}
