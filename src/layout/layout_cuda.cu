/* CUDA crossing evaluators (layout_cuda.h): the full count (one thread per edge over all edges),
 * the dense delta (P proposals per launch, proposal index on the grid's y axis) and the spatial
 * delta (candidates from the uniform grid's cells). The kernels' per-thread bodies and the host
 * cell raster live in layout_cuda_logic.h (__host__ __device__), which the CPU test
 * test_layout_device_logic runs over every (proposal, edge) pair against the CPU evaluators.
 * Status: see bench/notes/layout.md. */
#include "cuda/cuda_internal.cuh"

extern "C" {
#include "layout/layout_cuda.h"
}
#include "layout/layout_cuda_logic.h"

#include <string.h>

namespace {

/* The per-thread bodies are layout_cuda_logic.h's, shared with the CPU emulation test. */

/* c(e) for every edge: the seed's Day-22 baseline. */
__global__ void count_kernel(const int *__restrict__ x, const int *__restrict__ y,
                             const int *__restrict__ eu, const int *__restrict__ ev, int m,
                             int *__restrict__ counts)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m)
        return;
    counts[e] = tsr__lcd_count_edge(e, x, y, eu, ev, m);
}

/* Dense delta: blockIdx.y = proposal, threads over all edges. */
__global__ void dense_delta_kernel(const int *__restrict__ x, const int *__restrict__ y,
                                   const int *__restrict__ eu, const int *__restrict__ ev, int m,
                                   const int *__restrict__ adj_off,
                                   const int *__restrict__ adj_edges,
                                   const int *__restrict__ pnode, const int *__restrict__ ppx,
                                   const int *__restrict__ ppy, int *__restrict__ delta,
                                   unsigned char *__restrict__ invalid)
{
    int p = blockIdx.y, f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= m)
        return;
    tsr__lcd_dense_thread(p, f, x, y, eu, ev, m, adj_off, adj_edges, pnode, ppx, ppy, delta,
                          invalid);
}

/* Spatial delta: one block per proposal; its cells (CSR over proposals) hold the candidates;
 * a candidate is claimed once per proposal through the stamp array (stamp == gen: seen). */
__global__ void spatial_delta_kernel(const int *__restrict__ x, const int *__restrict__ y,
                                     const int *__restrict__ eu, const int *__restrict__ ev, int m,
                                     const int *__restrict__ adj_off,
                                     const int *__restrict__ adj_edges,
                                     const int *__restrict__ pnode, const int *__restrict__ ppx,
                                     const int *__restrict__ ppy,
                                     const int *__restrict__ cell_off,
                                     const int *__restrict__ cells,
                                     const int *__restrict__ grid_count,
                                     const int *__restrict__ grid_items, int cap,
                                     unsigned *__restrict__ stamp, unsigned gen,
                                     int *__restrict__ delta, unsigned char *__restrict__ invalid)
{
    tsr__lcd_spatial_thread(blockIdx.x, threadIdx.x, blockDim.x, x, y, eu, ev, m, adj_off,
                            adj_edges, pnode, ppx, ppy, cell_off, cells, grid_count, grid_items,
                            cap, stamp, gen, delta, invalid);
}

} // namespace

struct tsr__layout_cuda {
    int n, m, max_prop;
    int *x, *y, *eu, *ev, *adj_off, *adj_edges;
    int *pnode, *ppx, *ppy, *delta;
    unsigned char *invalid;
    /* spatial */
    int *grid_count, *grid_items, *cell_off, *cells;
    size_t grid_cells, grid_cap, cells_cap;
    uint64_t grid_version;
    int grid_uploaded;
    unsigned *stamp;
    unsigned gen;
    int32_t *host_cells, *host_off;
};

static tsr_status need_cuda(tsr_ctx *ctx)
{
    if (!ctx->cuda)
        return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "layout: the context has no CUDA device");
    return TSR_OK;
}

extern "C" tsr_status tsr__layout_cuda_count(tsr_ctx *ctx, const tsr_layout *l, int32_t *counts)
{
    tsr_status st = need_cuda(ctx);
    if (st != TSR_OK)
        return st;
    int n = l->num_nodes, m = l->num_edges;
    if (m == 0)
        return TSR_OK;
    cudaStream_t s = ctx->cuda->stream;
    size_t nb = (size_t)(n ? n : 1) * 4, mb = (size_t)m * 4;
    void *buf;
    if ((st = tsr__cuda_scratch(ctx, 0, 2 * nb + 3 * mb, &buf)) != TSR_OK)
        return st;
    int *x = (int *)buf, *y = x + (n ? n : 1), *eu = y + (n ? n : 1), *ev = eu + m, *c = ev + m;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(x, l->x, (size_t)n * 4, cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(y, l->y, (size_t)n * 4, cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(eu, l->edge_u, mb, cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(ev, l->edge_v, mb, cudaMemcpyHostToDevice, s));
    count_kernel<<<(m + 255) / 256, 256, 0, s>>>(x, y, eu, ev, m, c);
    TSR_CUDA_CHECK_LAUNCH(ctx, "count_kernel");
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(counts, c, mb, cudaMemcpyDeviceToHost, s));
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    return TSR_OK;
}

extern "C" void tsr__layout_cuda_destroy(tsr_ctx *ctx, tsr__layout_cuda *g)
{
    if (!g)
        return;
    void *dev[] = {g->x,     g->y,          g->eu,    g->ev,      g->adj_off,    g->adj_edges,
                   g->pnode, g->ppx,        g->ppy,   g->delta,   g->invalid,    g->grid_count,
                   g->grid_items, g->cell_off, g->cells, g->stamp};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i])
            cudaFree(dev[i]);
    tsr__free(ctx, g->host_cells);
    tsr__free(ctx, g->host_off);
    tsr__free(ctx, g);
}

#define DEV_ALLOC(ptr, bytes)                                                                      \
    do {                                                                                           \
        cudaError_t e_ = cudaMalloc((void **)&(ptr), (bytes));                                     \
        if (e_ != cudaSuccess) {                                                                   \
            tsr__layout_cuda_destroy(ctx, g);                                                      \
            return tsr__cuda_error(ctx, e_, "cudaMalloc", __FILE__, __LINE__);                     \
        }                                                                                          \
    } while (0)

extern "C" tsr_status tsr__layout_cuda_create(tsr_ctx *ctx, const tsr_layout *l,
                                              const tsr__layout_adj *adj, int max_proposals,
                                              tsr__layout_cuda **out)
{
    *out = NULL;
    tsr_status st = need_cuda(ctx);
    if (st != TSR_OK)
        return st;
    if (max_proposals < 1 || max_proposals > 65535)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: 1 to 65535 proposals per launch");
    tsr__layout_cuda *g;
    if ((st = tsr__alloc(ctx, sizeof *g, (void **)&g)) != TSR_OK)
        return st;
    memset(g, 0, sizeof *g);
    int n = l->num_nodes, m = l->num_edges;
    g->n = n;
    g->m = m;
    g->max_prop = max_proposals;
    size_t nb = (size_t)(n ? n : 1) * 4, mb = (size_t)(m ? m : 1) * 4, pb = (size_t)max_proposals * 4;
    size_t db = (size_t)max_proposals * mb;
    DEV_ALLOC(g->x, nb);
    DEV_ALLOC(g->y, nb);
    DEV_ALLOC(g->eu, mb);
    DEV_ALLOC(g->ev, mb);
    DEV_ALLOC(g->adj_off, nb + 4);
    DEV_ALLOC(g->adj_edges, 2 * mb);
    DEV_ALLOC(g->pnode, pb);
    DEV_ALLOC(g->ppx, pb);
    DEV_ALLOC(g->ppy, pb);
    DEV_ALLOC(g->delta, db);
    DEV_ALLOC(g->invalid, (size_t)max_proposals);
    DEV_ALLOC(g->stamp, db);
    cudaStream_t s = ctx->cuda->stream;
    TSR_CUDA_TRY(ctx, cudaMemsetAsync(g->stamp, 0, db, s));
    g->gen = 0;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(g->x, l->x, (size_t)n * 4, cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(g->y, l->y, (size_t)n * 4, cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(g->eu, l->edge_u, (size_t)m * 4, cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(g->ev, l->edge_v, (size_t)m * 4, cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(g->adj_off, adj->offset, (size_t)(n + 1) * 4,
                                      cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(g->adj_edges, adj->edges, (size_t)m * 8,
                                      cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    *out = g;
    return TSR_OK;
}

extern "C" tsr_status tsr__layout_cuda_move(tsr_ctx *ctx, tsr__layout_cuda *g, int32_t v, int32_t x,
                                            int32_t y)
{
    cudaStream_t s = ctx->cuda->stream;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(g->x + v, &x, 4, cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(g->y + v, &y, 4, cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(s)); /* &x, &y are stack memory */
    return TSR_OK;
}

/* Uploads the proposals and clears the outputs. */
static tsr_status upload_proposals(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop,
                                   const int32_t *node, const int32_t *px, const int32_t *py)
{
    if (nprop < 1 || nprop > g->max_prop)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: proposal count out of range");
    cudaStream_t s = ctx->cuda->stream;
    size_t pb = (size_t)nprop * 4;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(g->pnode, node, pb, cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(g->ppx, px, pb, cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(g->ppy, py, pb, cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemsetAsync(g->delta, 0, (size_t)nprop * g->m * 4, s));
    TSR_CUDA_TRY(ctx, cudaMemsetAsync(g->invalid, 0, (size_t)nprop, s));
    return TSR_OK;
}

static tsr_status download(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop, int32_t *out_delta,
                           uint8_t *invalid)
{
    cudaStream_t s = ctx->cuda->stream;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(out_delta, g->delta, (size_t)nprop * g->m * 4,
                                      cudaMemcpyDeviceToHost, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(invalid, g->invalid, (size_t)nprop, cudaMemcpyDeviceToHost, s));
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    return TSR_OK;
}

extern "C" tsr_status tsr__layout_cuda_delta(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop,
                                             const int32_t *node, const int32_t *px,
                                             const int32_t *py, int32_t *out_delta,
                                             uint8_t *invalid)
{
    tsr_status st = upload_proposals(ctx, g, nprop, node, px, py);
    if (st != TSR_OK)
        return st;
    if (g->m > 0) {
        dim3 grid((unsigned)((g->m + 255) / 256), (unsigned)nprop);
        dense_delta_kernel<<<grid, 256, 0, ctx->cuda->stream>>>(
            g->x, g->y, g->eu, g->ev, g->m, g->adj_off, g->adj_edges, g->pnode, g->ppx, g->ppy,
            g->delta, g->invalid);
        TSR_CUDA_CHECK_LAUNCH(ctx, "dense_delta_kernel");
    }
    return download(ctx, g, nprop, out_delta, invalid);
}

extern "C" tsr_status tsr__layout_cuda_delta_spatial(tsr_ctx *ctx, tsr__layout_cuda *g,
                                                     const tsr_layout *l,
                                                     const tsr__layout_adj *adj,
                                                     const tsr__grid *grid, uint64_t grid_version,
                                                     int nprop, const int32_t *node,
                                                     const int32_t *px, const int32_t *py,
                                                     int32_t *out_delta, uint8_t *invalid)
{
    if (nprop < 1 || nprop > g->max_prop) /* before the host cell lists (max_prop rows) */
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: proposal count out of range");
    if (!grid->items || grid->stale != TSR__GRID_OK)
        return tsr__fail(ctx, TSR_ERR_LIMIT, "layout: spatial index stale (reason %d)",
                         (int)grid->stale);
    cudaStream_t s = ctx->cuda->stream;
    size_t ncell = (size_t)grid->gx * (size_t)grid->gy;
    tsr_status st;
    if (!g->grid_uploaded || g->grid_version != grid_version || g->grid_cells != ncell ||
        g->grid_cap != (size_t)grid->cap) {
        if (g->grid_cells != ncell || g->grid_cap != (size_t)grid->cap) {
            cudaFree(g->grid_count);
            cudaFree(g->grid_items);
            g->grid_count = g->grid_items = NULL;
            TSR_CUDA_TRY(ctx, cudaMalloc((void **)&g->grid_count, ncell * 4));
            TSR_CUDA_TRY(ctx, cudaMalloc((void **)&g->grid_items, ncell * (size_t)grid->cap * 4));
            g->grid_cells = ncell;
            g->grid_cap = (size_t)grid->cap;
        }
        TSR_CUDA_TRY(ctx, cudaMemcpyAsync(g->grid_count, grid->count, ncell * 4,
                                          cudaMemcpyHostToDevice, s));
        TSR_CUDA_TRY(ctx, cudaMemcpyAsync(g->grid_items, grid->items, ncell * grid->cap * 4,
                                          cudaMemcpyHostToDevice, s));
        g->grid_version = grid_version;
        g->grid_uploaded = 1;
    }
    /* cell lists per proposal (CSR), bounded so one launch stays small */
    const int per_prop = 4096;
    /* each buffer on its own, so a failed allocation is retried next call, never half used */
    if (!g->host_cells &&
        (st = tsr__alloc(ctx, (size_t)g->max_prop * per_prop * 4, (void **)&g->host_cells)) != TSR_OK)
        return st;
    if (!g->host_off &&
        (st = tsr__alloc(ctx, ((size_t)g->max_prop + 1) * 4, (void **)&g->host_off)) != TSR_OK)
        return st;
    if (!g->cells)
        TSR_CUDA_TRY(ctx, cudaMalloc((void **)&g->cells, (size_t)g->max_prop * per_prop * 4));
    if (!g->cell_off)
        TSR_CUDA_TRY(ctx, cudaMalloc((void **)&g->cell_off, ((size_t)g->max_prop + 1) * 4));
    int total = 0;
    g->host_off[0] = 0;
    for (int p = 0; p < nprop; p++) {
        int nc = 0;
        if (!tsr__lcd_proposal_cells(grid->cell, grid->gx, grid->gy, l->x, l->y, l->edge_u,
                                     l->edge_v, adj->offset, adj->edges, node[p], px[p], py[p],
                                     g->host_cells + total, &nc, per_prop))
            return tsr__fail(ctx, TSR_ERR_LIMIT, "layout: proposal %d spans over %d cells", p,
                             per_prop);
        total += nc;
        g->host_off[p + 1] = total;
    }
    if ((st = upload_proposals(ctx, g, nprop, node, px, py)) != TSR_OK)
        return st;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(g->cells, g->host_cells, (size_t)total * 4,
                                      cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(g->cell_off, g->host_off, ((size_t)nprop + 1) * 4,
                                      cudaMemcpyHostToDevice, s));
    if (++g->gen == 0) { /* wrapped: old stamps could equal the new generation */
        TSR_CUDA_TRY(ctx, cudaMemsetAsync(g->stamp, 0, (size_t)g->max_prop * g->m * 4, s));
        g->gen = 1;
    }
    spatial_delta_kernel<<<(unsigned)nprop, 128, 0, s>>>(
        g->x, g->y, g->eu, g->ev, g->m, g->adj_off, g->adj_edges, g->pnode, g->ppx, g->ppy,
        g->cell_off, g->cells, g->grid_count, g->grid_items, (int)g->grid_cap, g->stamp, g->gen,
        g->delta, g->invalid);
    TSR_CUDA_CHECK_LAUNCH(ctx, "spatial_delta_kernel");
    return download(ctx, g, nprop, out_delta, invalid);
}
