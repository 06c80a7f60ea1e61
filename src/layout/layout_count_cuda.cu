/* The full crossing count on the GPU (layout_cuda.h): one thread per edge against all edges,
 * each thread running layout_cuda_logic.h's tsr__lcd_count_edge, so c(e) is the reference's. */
#include "layout/layout_count_cuda.cuh"

extern "C" {
#include "layout/layout_cuda.h"
}
#include "layout/layout_cuda_logic.h"

namespace
{

/* c(e) for every edge. */
__global__ void count_kernel(const int *__restrict__ x, const int *__restrict__ y,
                             const int *__restrict__ eu, const int *__restrict__ ev, int m,
                             int *__restrict__ counts)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m)
        return;
    counts[e] = tsr__lcd_count_edge(e, x, y, eu, ev, m, -1, 0, 0);
}

} // namespace

extern "C" tsr_status tsr__layout_cuda_count_on(tsr_ctx *ctx, cudaStream_t s, const int32_t *x,
                                                const int32_t *y, const int32_t *eu,
                                                const int32_t *ev, int32_t m, int32_t *counts)
{
    if (m <= 0)
        return TSR_OK;
    count_kernel<<<(m + 255) / 256, 256, 0, s>>>(x, y, eu, ev, m, counts);
    TSR_CUDA_TRY(ctx, cudaGetLastError());
#ifdef TSR_DEBUG_SYNC
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(s));
#endif
    return TSR_OK;
}

/* The full count's device buffer, kept on the context between calls. */
static void count_buffer_destroy(tsr_ctx *ctx, void *state)
{
    tsr__cuda_buffer_free((tsr__cuda_buffer *)state);
    tsr__free(ctx, state);
}

static const tsr__ctx_state_kind count_buffer_kind = {"layout count buffer", count_buffer_destroy};

extern "C" tsr_status tsr__layout_cuda_count(tsr_ctx *ctx, const tsr_layout *l, int32_t *counts)
{
    if (!ctx->cuda)
        return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "layout: the context has no CUDA device");
    tsr_status st = TSR_OK;
    int n = l->num_nodes, m = l->num_edges;
    if (m == 0)
        return TSR_OK;
    cudaStream_t s = ctx->cuda->stream;
    size_t nb = (size_t)(n ? n : 1) * 4, mb = (size_t)m * 4;
    tsr__cuda_buffer *b;
    if ((st = tsr__ctx_state_get(ctx, &count_buffer_kind, sizeof *b, (void **)&b)) != TSR_OK ||
        (st = tsr__cuda_buffer_reserve(ctx, b, 2 * nb + 3 * mb)) != TSR_OK)
        return st;
    void *buf = b->ptr;
    int *x = (int *)buf, *y = x + (n ? n : 1), *eu = y + (n ? n : 1), *ev = eu + m, *c = ev + m;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(x, l->x, (size_t)n * 4, cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(y, l->y, (size_t)n * 4, cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(eu, l->edge_u, mb, cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(ev, l->edge_v, mb, cudaMemcpyHostToDevice, s));
    if ((st = tsr__layout_cuda_count_on(ctx, s, x, y, eu, ev, m, c)) != TSR_OK)
        return st;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(counts, c, mb, cudaMemcpyDeviceToHost, s));
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    return TSR_OK;
}
