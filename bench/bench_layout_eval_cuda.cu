/* bench_layout_eval's probes of the CUDA evaluator (bench_layout_eval_cuda.h), on the
 * evaluator's insides (src/layout/layout_cuda_eval.cuh): they time the library's launches and
 * add none of their own to it. */
#include "layout/layout_cuda_eval.cuh" /* first: the library's C headers as extern "C" */

#include "bench_layout_eval_cuda.h"

namespace
{

/* A launch with nothing to evaluate: each block only completes (block_reduce_write), so that the
 * benchmark can time the launch and completion path alone (bench_layout_probe). It takes the
 * dense launch's parameter block and shared memory, so that its launch costs what that one's
 * does. */
__global__ void probe_kernel(const __grid_constant__ prop_params pp, uint32_t seq,
                             tsr__lcd_out *out)
{
    __shared__ int invalid;
    if (threadIdx.x == 0)
        invalid = 0;
    __syncthreads();
    tsr__lcd_acc a;
    tsr__lcd_acc_init(&a, pp.target);
    block_reduce_write(a, &invalid, 0, seq, out + blockIdx.x);
}

} // namespace

extern "C" tsr_status bench_layout_probe(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop)
{
    if (nprop < 1 || nprop > g->max_prop)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: proposal count out of range");
    if (g->star_bytes > 48 * 1024)
        TSR_CUDA_TRY(ctx,
                     cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          (int)g->star_bytes));
    probe_kernel<<<(unsigned)nprop, TSR__LCD_DENSE_THREADS, g->star_bytes, g->stream>>>(
        g->pp, tsr__layout_cuda_next_seq(g), g->dout);
    TSR_CUDA_TRY(ctx, cudaGetLastError());
    return tsr__layout_cuda_wait(ctx, g, nprop, 0);
}

/* The capture needs the full evaluation's rows allocated before it (no allocation while
 * capturing): one eager launch first. */
extern "C" tsr_status bench_layout_replay_us(tsr_ctx *ctx, tsr__layout_cuda *g, int full, int nprop,
                                             const int32_t *node, const int32_t *px,
                                             const int32_t *py, int launches, double *us)
{
    if (launches < 1)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: at least one launch to replay");
    tsr_status st = tsr__layout_cuda_upload(ctx, g, nprop, node, px, py);
    if (st == TSR_OK && full && !g->rows)
        st = tsr__layout_cuda_launch(ctx, g, 1, nprop);
    if (st != TSR_OK)
        return st;
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(g->stream));
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    cudaEvent_t ev[2] = {NULL, NULL};
    cudaError_t e = cudaStreamBeginCapture(g->stream, cudaStreamCaptureModeRelaxed);
    for (int i = 0; e == cudaSuccess && st == TSR_OK && i < launches; i++)
        st = tsr__layout_cuda_launch(ctx, g, full, nprop);
    const cudaError_t end = cudaStreamEndCapture(g->stream, &graph);
    if (e == cudaSuccess)
        e = end;
    if (e == cudaSuccess && st == TSR_OK)
        e = cudaGraphInstantiate(&exec, graph, 0);
    for (int i = 0; i < 2 && e == cudaSuccess && st == TSR_OK; i++)
        e = cudaEventCreate(&ev[i]);
    float ms = 0;
    if (e == cudaSuccess && st == TSR_OK) {
        /* one warm-up replay, then the timed one */
        e = cudaGraphLaunch(exec, g->stream);
        if (e == cudaSuccess)
            e = cudaEventRecord(ev[0], g->stream);
        if (e == cudaSuccess)
            e = cudaGraphLaunch(exec, g->stream);
        if (e == cudaSuccess)
            e = cudaEventRecord(ev[1], g->stream);
        if (e == cudaSuccess)
            e = cudaEventSynchronize(ev[1]);
        if (e == cudaSuccess)
            e = cudaEventElapsedTime(&ms, ev[0], ev[1]);
    }
    for (int i = 0; i < 2; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    if (exec)
        cudaGraphExecDestroy(exec);
    if (graph)
        cudaGraphDestroy(graph);
    if (st != TSR_OK)
        return st;
    if (e != cudaSuccess)
        return tsr__cuda_error(ctx, e, "layout: graph replay", __FILE__, __LINE__);
    *us = 1e3 * ms / launches;
    return TSR_OK;
}
