/* The annealer's batch walk with the CPU batch evaluator (an incremental evaluator on its own
 * copy of the drawing) against the sequential walk: the same drawings at a fixed move budget
 * (layout_anneal_check.h). Runs without a GPU; test_layout_anneal_cuda_gpu runs the same cases
 * with the CUDA evaluator. */
#include "testlib.h"

#include "layout_anneal_check.h"

int main(void)
{
    tsr_ctx *ctx = tsr_test_reference_ctx();
    static const int contest[] = {1, 3};
    lac_run_all(ctx, ctx, TSR__BATCH_CPU, contest, 2, 12000);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("layout_anneal_batch");
}
