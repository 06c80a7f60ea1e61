/* CUDA crossing evaluators (layout_cuda.h): the full count of a drawing (one thread per edge over
 * all edges), and a device-resident drawing with its per-edge counts that evaluates P proposals
 * per launch (dense: one block per proposal over all edges, or, for a graph of at most 512 edges
 * on sm_90, a thread-block cluster of up to 8 blocks sharing the proposal's star; spatial: one
 * block per proposal over the grid cells' candidates; full: the seed's baseline, every edge
 * recounted) and returns one score per proposal, then commits an accepted one on the device. The
 * kernels' per-thread bodies and the host cell raster live in layout_cuda_logic.h (__host__
 * __device__), which the CPU test test_layout_device_logic runs phase by phase against the CPU
 * evaluators.
 * Status and measurements: bench/notes/layout.md, bench/results/layout-eval-h200-2026-11-29.md. */
#include "cuda/cuda_internal.cuh"

extern "C" {
#include "layout/layout_cuda.h"
}
#include "layout/layout_cuda_logic.h"

#include <cooperative_groups.h>
#include <string.h>

namespace
{

enum {
    DENSE_THREADS = TSR__LCD_DENSE_THREADS,
    EVAL_THREADS = TSR__LCD_EVAL_THREADS,
    COMMIT_THREADS = TSR__LCD_COMMIT_THREADS,
    FULL_THREADS = TSR__LCD_FULL_THREADS,
    PER_PROP_CELLS = TSR__LCD_PER_PROP_CELLS
};

/* The base drawing on the device. */
struct dev_drawing {
    int32_t *x, *y;
    int32_t *ec; /* edge coordinates: ax, ay, bx, by per edge (layout_cuda_logic.h) */
    const int32_t *eu, *ev, *adj_off, *adj_edges;
    int32_t *c; /* per-edge counts of the base */
    int32_t m;
};

/* The first PARAM_PROPS proposals of a launch travel in its parameters (the constant bank: no
 * read of host memory on the kernel's critical path), with the node's run in the adjacency (so
 * the star's first load is its edges, not the offsets); the rest are read from the mapped
 * proposal array (node[nprop], px[nprop], py[nprop]) and their runs from the device offsets. */
enum { PARAM_PROPS = 64 };
struct prop_params {
    int32_t node[PARAM_PROPS], px[PARAM_PROPS], py[PARAM_PROPS];
    int32_t off[PARAM_PROPS], deg[PARAM_PROPS]; /* adj_edges[off .. off + deg) of node */
    int32_t target; /* the excess target of every accumulator (tsr__layout_cuda_set_target) */
};

/* A proposal as a block reads it: node v to (px, py); v's incident edges are
 * adj_edges[off .. off + deg). */
struct block_prop {
    int32_t v, px, py, off, deg;
};

/* Block p's proposal: from the parameters, or read once from the mapped array and the offsets
 * into shared memory (a barrier; block-uniform branch). */
__device__ block_prop block_proposal(const prop_params &pp, const int32_t *prop, int nprop, int p,
                                     const int32_t *adj_off)
{
    if (p < PARAM_PROPS)
        return block_prop{pp.node[p], pp.px[p], pp.py[p], pp.off[p], pp.deg[p]};
    __shared__ block_prop q;
    if (threadIdx.x == 0) {
        q.v = prop[p];
        q.px = prop[nprop + p];
        q.py = prop[2 * nprop + p];
        q.off = adj_off[q.v];
        q.deg = adj_off[q.v + 1] - q.off;
    }
    __syncthreads();
    return q;
}

/* c(e) for every edge: the seed's Day-22 baseline. */
__global__ void count_kernel(const int *__restrict__ x, const int *__restrict__ y,
                             const int *__restrict__ eu, const int *__restrict__ ev, int m,
                             int *__restrict__ counts)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= m)
        return;
    counts[e] = tsr__lcd_count_edge(e, x, y, eu, ev, m, -1, 0, 0);
}

/* *a merged over the 32 lanes of the warp (every lane calls it; lane 0 ends with the sum). */
__device__ void warp_merge(tsr__lcd_acc *a)
{
    for (int o = 16; o > 0; o >>= 1) {
        tsr__lcd_acc b;
        b.dphi = __shfl_down_sync(0xffffffffu, a->dphi, o);
        b.dsum = __shfl_down_sync(0xffffffffu, a->dsum, o);
        b.dx = __shfl_down_sync(0xffffffffu, a->dx, o);
        b.k = __shfl_down_sync(0xffffffffu, a->k, o);
        b.nk = __shfl_down_sync(0xffffffffu, a->nk, o);
        b.t = a->t;
        tsr__lcd_acc_merge(a, &b);
    }
}

/* Phase 4: block reduction of the threads' accumulators (each warp's by shuffles, then the warps'
 * sums by warp 0's shuffles); thread 0 writes *out, then, after a system-scope fence, out->seq =
 * seq (the host polls it: wait_results). Every thread of the block calls it (blockDim a multiple
 * of 32, at most 1024). */
__device__ void block_reduce_write(tsr__lcd_acc a, const int *invalid, int path, uint32_t seq,
                                   tsr__lcd_out *out)
{
    __shared__ tsr__lcd_acc warp_acc[32];
    warp_merge(&a);
    if ((threadIdx.x & 31) == 0)
        warp_acc[threadIdx.x >> 5] = a;
    __syncthreads();
    if (threadIdx.x >= 32)
        return;
    if (threadIdx.x < (blockDim.x >> 5))
        a = warp_acc[threadIdx.x];
    else
        tsr__lcd_acc_init(&a, a.t); /* the merge's identity */
    warp_merge(&a);
    if (threadIdx.x == 0) {
        tsr__lcd_out r;
        r.dphi = a.dphi;
        r.dsum = a.dsum;
        r.dx = a.dx;
        r.k = a.k;
        r.nk = a.nk;
        r.invalid = *invalid;
        r.path = path;
        r.seq = 0; /* never a launch's number */
        *out = r;  /* mapped host memory */
        __threadfence_system();
        *(volatile uint32_t *)&out->seq = seq;
    }
}

/* A launch with nothing to evaluate: each block only completes (block_reduce_write), so that the
 * benchmark can time the launch and completion path alone (tsr__layout_cuda_probe). It takes the
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

/* The block's star in dynamic shared memory (TSR__LCD_STAR_ARRAYS arrays of the graph's maximum
 * degree). */
__device__ tsr__lcd_star block_star(int32_t maxdeg, int32_t deg)
{
    extern __shared__ int32_t star_mem[];
    tsr__lcd_star s;
    s.e = star_mem;
    s.w = s.e + maxdeg;
    s.wx = s.w + maxdeg;
    s.wy = s.wx + maxdeg;
    s.c0 = s.wy + maxdeg;
    s.acc = s.c0 + maxdeg;
    s.deg = deg;
    return s;
}

/* Phase 2 of a dense block whose proposal is split over a cluster of `parts` blocks
 * (layout_cuda_logic.h, tsr__lcd_dense_parts; one edge per thread, `first`): the block visits its
 * arms; then rank 0 sums the ranks' changes of its edge into *a and copies the other ranks' arm
 * changes into its star (distributed shared memory). Returns 1 on rank 0, which goes on to phase
 * 3; the other ranks are done (they wait until rank 0 has read their shared memory). */
__device__ int dense_parts(const tsr__lcd_edge &first, int t, int nt, int32_t m, int32_t v,
                           int32_t ox, int32_t oy, int32_t px, int32_t py, tsr__lcd_star &s,
                           int32_t parts, tsr__lcd_acc *a, int *invalid)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    /* no clusters: never launched with parts > 1 (tsr__layout_cuda.max_parts) */
    (void)first, (void)t, (void)nt, (void)m, (void)v, (void)ox, (void)oy, (void)px, (void)py;
    (void)s, (void)parts, (void)a, (void)invalid;
    __trap();
    return 0;
#else
    namespace cg = cooperative_groups;
    __shared__ int32_t df_part[DENSE_THREADS];
    cg::cluster_group cl = cg::this_cluster();
    const int32_t r = (int32_t)cl.block_rank();
    int32_t i0, i1;
    tsr__lcd_part_arms(s.deg, parts, r, &i0, &i1);
    if (t < m)
        df_part[t] = tsr__lcd_part_thread(&first, v, ox, oy, px, py, &s, i0, i1, invalid);
    cl.sync();
    if (r == 0) {
        if (t < m) {
            int32_t df = df_part[t];
            for (int32_t k = 1; k < parts; k++)
                df += *cl.map_shared_rank(&df_part[t], k);
            tsr__lcd_part_sum_thread(&first, v, df, a);
        }
        for (int32_t i = t; i < s.deg; i += nt) {
            const int32_t k = tsr__lcd_arm_part(s.deg, parts, i);
            if (k)
                s.acc[i] = *cl.map_shared_rank(&s.acc[i], k);
        }
    }
    cl.sync();
    return r == 0;
#endif
}

/* Dense evaluation of proposal blockIdx.x / parts (parts > 1: a cluster of that many blocks,
 * dense_parts). COMMIT (one block, one proposal, parts 1, hist_ not NULL): the new counts go to
 * d.c and hist_, and the node's point to d.x, d.y; the evaluating instance has no commit code (a
 * smaller kernel). A thread's first edge is loaded before the star, so its loads overlap the
 * star's dependent chain. */
template <bool COMMIT>
__global__ void __launch_bounds__(COMMIT_THREADS)
    eval_dense_kernel(dev_drawing d, int32_t maxdeg, const __grid_constant__ prop_params pp,
                      const int32_t *__restrict__ prop, int nprop, int32_t parts, int32_t *hist_,
                      uint32_t seq, tsr__lcd_out *out)
{
    int32_t *const hist = COMMIT ? hist_ : NULL;
    __shared__ int invalid;
    const int p = (int)blockIdx.x / parts, t = threadIdx.x, nt = blockDim.x;
    tsr__lcd_edge first;
    if (t < d.m)
        tsr__lcd_edge_load(t, d.ec, d.eu, d.ev, d.c, &first);
    const block_prop q = block_proposal(pp, prop, nprop, p, d.adj_off);
    const int32_t v = q.v, px = q.px, py = q.py, ox = d.x[v], oy = d.y[v];
    tsr__lcd_star s = block_star(maxdeg, q.deg);
    tsr__lcd_star_thread(t, nt, v, d.ec, d.eu, d.ev, q.off, d.adj_edges, d.c, &s, NULL, 0, 0, 0,
                         NULL, &invalid);
    __syncthreads();
    tsr__lcd_acc a;
    tsr__lcd_acc_init(&a, pp.target);
    if (!COMMIT && parts > 1) {
        if (!dense_parts(first, t, nt, d.m, v, ox, oy, px, py, s, parts, &a, &invalid))
            return; /* a rank other than 0: its part is in rank 0's sums */
    } else {
        tsr__lcd_dense_thread(t, nt, d.m, v, ox, oy, px, py, d.ec, d.eu, d.ev, d.c, &s,
                              t < d.m ? &first : NULL, &a, &invalid, hist);
        __syncthreads();
    }
    tsr__lcd_incident_thread(t, nt, d.c, &s, &a, hist);
    block_reduce_write(a, &invalid, 0, seq, out + p);
    if (hist) /* after the reduction's barrier: no thread reads coordinates now */
        tsr__lcd_commit_point_thread(t, nt, v, px, py, d.eu, &s, d.ec, d.x, d.y);
}

/* The device copy of the host's uniform grid and the spatial launch's parameters. */
struct dev_grid {
    const int32_t *count, *items;
    int32_t cell, gx, gy, cap;
    int32_t *cells;    /* cells_cap per proposal */
    int32_t cells_cap; /* cells one proposal may list before it takes the dense path */
    unsigned *stamp;   /* m per proposal */
    unsigned gen;
    const int32_t *hist; /* histogram of the base counts (m + 1) */
    int32_t kbase, window;
};

/* Spatial evaluation, block p = proposal p: cells rastered on the device, candidates claimed in
 * the proposal's stamp row, unclaimed edges from the histogram window (or a scan). */
__global__ void eval_spatial_kernel(dev_drawing d, int32_t maxdeg,
                                    const __grid_constant__ prop_params pp,
                                    const int32_t *__restrict__ prop, int nprop, dev_grid g,
                                    uint32_t seq, tsr__lcd_out *out)
{
    __shared__ int invalid;
    __shared__ tsr__lcd_spatial_shared sh;
    const int p = blockIdx.x, t = threadIdx.x, nt = blockDim.x;
    const block_prop q = block_proposal(pp, prop, nprop, p, d.adj_off);
    const int32_t v = q.v, px = q.px, py = q.py, ox = d.x[v], oy = d.y[v];
    unsigned *st = g.stamp + (size_t)p * (size_t)d.m;
    int32_t *cells = g.cells + (size_t)p * (size_t)g.cells_cap;
    tsr__lcd_spatial_begin_thread(t, nt, &sh);
    __syncthreads();
    tsr__lcd_star s = block_star(maxdeg, q.deg);
    tsr__lcd_star_thread(t, nt, v, d.ec, d.eu, d.ev, q.off, d.adj_edges, d.c, &s, st, g.gen,
                         g.kbase, g.window, &sh, &invalid);
    tsr__lcd_raster_thread(t, nt, g.cell, g.gx, g.gy, d.x, d.y, d.eu, d.ev, d.adj_off, d.adj_edges,
                           v, px, py, cells, g.cells_cap, &sh);
    __syncthreads();
    tsr__lcd_acc a;
    tsr__lcd_acc_init(&a, pp.target);
    const int overflow = sh.overflow;
    if (overflow)
        tsr__lcd_dense_thread(t, nt, d.m, v, ox, oy, px, py, d.ec, d.eu, d.ev, d.c, &s, NULL, &a,
                              &invalid, NULL);
    else
        tsr__lcd_spatial_thread(t, nt, v, ox, oy, px, py, d.ec, d.eu, d.ev, d.c, cells, sh.ncell,
                                g.count, g.items, g.cap, st, g.gen, g.kbase, g.window, &sh, &s, &a,
                                &invalid);
    __syncthreads();
    if (!overflow && t == 0)
        tsr__lcd_window_top(g.hist, g.kbase, g.window, &sh, &a);
    __syncthreads();
    if (!overflow && sh.scan)
        tsr__lcd_unclaimed_thread(t, nt, d.m, d.c, st, g.gen, &a);
    tsr__lcd_incident_thread(t, nt, d.c, &s, &a, NULL);
    block_reduce_write(a, &invalid, overflow ? 1 : sh.scan ? 2 : 0, seq, out + p);
}

/* Full evaluation, step 1: rows[p * m + e] = c(e) in proposal p's drawing (grid: edges x
 * proposals). */
__global__ void full_rows_kernel(dev_drawing d, const __grid_constant__ prop_params pp,
                                 const int32_t *__restrict__ prop, int nprop,
                                 int32_t *__restrict__ rows)
{
    const int p = blockIdx.y, e = blockIdx.x * blockDim.x + threadIdx.x;
    const block_prop q = block_proposal(pp, prop, nprop, p, d.adj_off);
    const int32_t v = q.v, px = q.px, py = q.py;
    if (e >= d.m)
        return;
    rows[(size_t)p * d.m + e] = tsr__lcd_count_edge(e, d.x, d.y, d.eu, d.ev, d.m, v, px, py);
}

/* Full evaluation, step 2: block p reduces row p against the base counts. */
__global__ void full_reduce_kernel(dev_drawing d, const __grid_constant__ prop_params pp,
                                   const int32_t *__restrict__ prop, int nprop,
                                   const int32_t *__restrict__ rows, uint32_t seq,
                                   tsr__lcd_out *out)
{
    __shared__ int invalid;
    const int p = blockIdx.x, t = threadIdx.x;
    if (t == 0)
        invalid = 0;
    const block_prop q = block_proposal(pp, prop, nprop, p, d.adj_off);
    const int32_t v = q.v, px = q.px, py = q.py;
    __syncthreads(); /* publishes invalid = 0 */
    tsr__lcd_acc a;
    tsr__lcd_acc_init(&a, pp.target);
    tsr__lcd_full_reduce_thread(t, blockDim.x, d.m, v, px, py, d.x, d.y, d.eu, d.ev, d.c,
                                rows + (size_t)p * d.m, &a, &invalid);
    __syncthreads();
    block_reduce_write(a, &invalid, 0, seq, out + p);
}

} // namespace

struct tsr__layout_cuda {
    cudaStream_t stream; /* the evaluator's own: chains with one evaluator each run side by side */
    int32_t n, m, max_prop, maxdeg;
    int32_t max_parts; /* the largest cluster of dense parts the device runs (1: none) */
    size_t star_bytes;
    int32_t *x, *y, *ec, *eu, *ev, *adj_off, *adj_edges, *c;
    int32_t *hist;         /* histogram of the base counts, m + 1 */
    prop_params pp;        /* the first PARAM_PROPS proposals of one launch, passed as parameters */
    int32_t *adj_off_host; /* the adjacency's offsets (n + 1): pp's runs */
    int32_t *hprop;        /* mapped host memory: node, px, py of one launch (3 x nprop) */
    int32_t *dprop;        /* its device address */
    tsr__lcd_out *hout;    /* mapped host memory: one result per proposal, written by the kernels */
    tsr__lcd_out *dout;    /* its device address */
    int32_t *hcounts;      /* pinned host memory (m): the counts a commit downloads */
    uint32_t seq;          /* the last launch's sequence number (never 0): tsr__lcd_out.seq */
    tsr_layout_score score; /* the base's */
    int32_t *rows;          /* full evaluation: max_prop x m (allocated on first use) */
    /* spatial (allocated on first use) */
    int32_t *grid_count, *grid_items, *cells;
    size_t grid_cells, grid_cap;
    uint64_t grid_version;
    int grid_uploaded;
    unsigned *stamp; /* max_prop x m */
    unsigned gen;
    int32_t cells_cap, window; /* tsr__layout_cuda_set_limits */
    uint64_t paths[3];         /* spatial proposals per path, since create */
};

static tsr_status need_cuda(tsr_ctx *ctx)
{
    if (!ctx->cuda)
        return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "layout: the context has no CUDA device");
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
    tsr_status st = need_cuda(ctx);
    if (st != TSR_OK)
        return st;
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
    void *dev[] = {g->x, g->y,    g->ec,   g->eu,         g->ev,         g->adj_off, g->adj_edges,
                   g->c, g->hist, g->rows, g->grid_count, g->grid_items, g->cells,   g->stamp};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i])
            cudaFree(dev[i]);
    if (g->hprop)
        cudaFreeHost(g->hprop);
    if (g->hout)
        cudaFreeHost(g->hout);
    if (g->hcounts)
        cudaFreeHost(g->hcounts);
    if (g->stream)
        cudaStreamDestroy(g->stream);
    tsr__free(ctx, g->adj_off_host);
    tsr__free(ctx, g);
}

/* The launch of a dense evaluation of nprop proposals split into `parts` (a cluster of that many
 * blocks per proposal when parts > 1). */
static cudaLaunchConfig_t dense_config(tsr_ctx *ctx, const tsr__layout_cuda *g, int nprop,
                                       int32_t parts, cudaLaunchAttribute *cluster)
{
    cudaLaunchConfig_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDim = dim3((unsigned)(nprop * parts));
    cfg.blockDim = dim3(DENSE_THREADS);
    cfg.dynamicSmemBytes = g->star_bytes;
    cfg.stream = g->stream;
    if (parts > 1) {
        cluster->id = cudaLaunchAttributeClusterDimension;
        cluster->val.clusterDim.x = (unsigned)parts;
        cluster->val.clusterDim.y = 1;
        cluster->val.clusterDim.z = 1;
        cfg.attrs = cluster;
        cfg.numAttrs = 1;
    }
    return cfg;
}

/* The largest power of two <= MAX_PARTS of dense parts the device can run as one cluster (1:
 * clusters unavailable, before sm_90, or a graph too large for one edge per thread). */
static int32_t dense_max_parts(tsr_ctx *ctx, const tsr__layout_cuda *g)
{
    if (ctx->cuda->arch < 90 || g->m > DENSE_THREADS)
        return 1;
    for (int32_t q = TSR__LCD_MAX_PARTS; q > 1; q /= 2) {
        cudaLaunchAttribute cluster;
        cudaLaunchConfig_t cfg = dense_config(ctx, g, 1, q, &cluster);
        int clusters = 0;
        if (cudaOccupancyMaxActiveClusters(&clusters, eval_dense_kernel<false>, &cfg) ==
                cudaSuccess &&
            clusters > 0)
            return q;
        (void)cudaGetLastError(); /* not sticky: clear it */
    }
    return 1;
}

static dev_drawing drawing_of(const tsr__layout_cuda *g)
{
    dev_drawing d = {g->x, g->y, g->ec, g->eu, g->ev, g->adj_off, g->adj_edges, g->c, g->m};
    return d;
}

/* Allocation inside create: on failure the half-built evaluator is released. */
#define CREATE_TRY(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            tsr__free(ctx, counts);                                                                \
            tsr__layout_cuda_destroy(ctx, g);                                                      \
            return tsr__cuda_error(ctx, e_, #call, __FILE__, __LINE__);                            \
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
    const int32_t n = l->num_nodes, m = l->num_edges;
    int32_t maxdeg = 0;
    for (int32_t v = 0; v < n; v++)
        if (adj->offset[v + 1] - adj->offset[v] > maxdeg)
            maxdeg = adj->offset[v + 1] - adj->offset[v];
    for (int32_t e = 0; e < m; e++)
        if (l->edge_u[e] == l->edge_v[e])
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "layout: edge %d is a self-loop (the CUDA evaluators need none)",
                             (int)e);
    const size_t star_bytes =
        (size_t)(maxdeg ? maxdeg : 1) * TSR__LCD_STAR_ARRAYS * sizeof(int32_t);
    const size_t shared_static = 256 + sizeof(tsr__lcd_spatial_shared) + 32 * sizeof(tsr__lcd_acc);
    if (star_bytes + shared_static > ctx->cuda->prop.sharedMemPerBlockOptin)
        return tsr__fail(ctx, TSR_ERR_LIMIT,
                         "layout: a node of degree %d exceeds the CUDA evaluators' shared memory "
                         "(%zu bytes per block)",
                         (int)maxdeg, (size_t)ctx->cuda->prop.sharedMemPerBlockOptin);
    tsr__layout_cuda *g;
    int32_t *counts = NULL; /* host: the device's first counts, then the histogram */
    if ((st = tsr__alloc(ctx, sizeof *g, (void **)&g)) != TSR_OK)
        return st;
    memset(g, 0, sizeof *g);
    g->n = n;
    g->m = m;
    g->max_prop = max_proposals;
    g->maxdeg = maxdeg;
    g->star_bytes = star_bytes;
    g->cells_cap = PER_PROP_CELLS;
    g->pp.target = INT32_MAX;
    g->window = TSR__LCD_WINDOW;
    const size_t nb = (size_t)(n ? n : 1) * 4, mb = (size_t)(m ? m : 1) * 4;
    const size_t pb = (size_t)max_proposals * 3 * 4,
                 ob = (size_t)max_proposals * sizeof(tsr__lcd_out);
    if ((st = tsr__alloc(ctx, 4 * mb + 4, (void **)&counts)) != TSR_OK || /* also ec's staging */
        (st = tsr__alloc(ctx, nb + 4, (void **)&g->adj_off_host)) != TSR_OK) {
        tsr__free(ctx, counts);
        tsr__layout_cuda_destroy(ctx, g);
        return st;
    }
    memcpy(g->adj_off_host, adj->offset, (size_t)(n + 1) * 4);
    CREATE_TRY(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    CREATE_TRY(cudaMalloc((void **)&g->x, nb));
    CREATE_TRY(cudaMalloc((void **)&g->y, nb));
    CREATE_TRY(cudaMalloc((void **)&g->eu, mb));
    CREATE_TRY(cudaMalloc((void **)&g->ev, mb));
    CREATE_TRY(cudaMalloc((void **)&g->adj_off, nb + 4));
    CREATE_TRY(cudaMalloc((void **)&g->adj_edges, 2 * mb));
    CREATE_TRY(cudaMalloc((void **)&g->c, mb));
    CREATE_TRY(cudaMalloc((void **)&g->hist, mb + 4));
    CREATE_TRY(cudaMalloc((void **)&g->ec, 4 * mb));
    CREATE_TRY(cudaHostAlloc((void **)&g->hprop, pb, cudaHostAllocMapped));
    CREATE_TRY(cudaHostGetDevicePointer((void **)&g->dprop, g->hprop, 0));
    CREATE_TRY(cudaHostAlloc((void **)&g->hout, ob, cudaHostAllocMapped));
    memset(g->hout, 0, ob); /* seq 0: no launch's result */
    CREATE_TRY(cudaHostGetDevicePointer((void **)&g->dout, g->hout, 0));
    if (star_bytes > 48 * 1024) {
        CREATE_TRY(cudaFuncSetAttribute(eval_dense_kernel<false>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)star_bytes));
        CREATE_TRY(cudaFuncSetAttribute(
            eval_dense_kernel<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)star_bytes));
        CREATE_TRY(cudaFuncSetAttribute(
            eval_spatial_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)star_bytes));
        CREATE_TRY(cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)star_bytes));
    }
    g->max_parts = dense_max_parts(ctx, g);
    cudaStream_t s = g->stream;
    CREATE_TRY(cudaMemcpyAsync(g->x, l->x, (size_t)n * 4, cudaMemcpyHostToDevice, s));
    CREATE_TRY(cudaMemcpyAsync(g->y, l->y, (size_t)n * 4, cudaMemcpyHostToDevice, s));
    CREATE_TRY(cudaMemcpyAsync(g->eu, l->edge_u, (size_t)m * 4, cudaMemcpyHostToDevice, s));
    CREATE_TRY(cudaMemcpyAsync(g->ev, l->edge_v, (size_t)m * 4, cudaMemcpyHostToDevice, s));
    CREATE_TRY(
        cudaMemcpyAsync(g->adj_off, adj->offset, (size_t)(n + 1) * 4, cudaMemcpyHostToDevice, s));
    CREATE_TRY(cudaMemcpyAsync(g->adj_edges, adj->edges, (size_t)m * 8, cudaMemcpyHostToDevice, s));
    tsr__lcd_edge_coords(m, l->x, l->y, l->edge_u, l->edge_v, counts);
    CREATE_TRY(cudaMemcpyAsync(g->ec, counts, (size_t)m * 16, cudaMemcpyHostToDevice, s));
    CREATE_TRY(cudaStreamSynchronize(s)); /* before counts is reused */
    if (m > 0) {
        count_kernel<<<(m + 255) / 256, 256, 0, s>>>(g->x, g->y, g->eu, g->ev, m, g->c);
        CREATE_TRY(cudaGetLastError());
        CREATE_TRY(cudaMemcpyAsync(counts, g->c, (size_t)m * 4, cudaMemcpyDeviceToHost, s));
        CREATE_TRY(cudaStreamSynchronize(s));
    }
    tsr__score_from_counts(counts, m, &g->score);
    /* the histogram of the counts (each in [0, m - 1]), built in place of them */
    int32_t *hist = counts;
    {
        int32_t *tmp = NULL;
        if ((st = tsr__alloc(ctx, mb + 4, (void **)&tmp)) != TSR_OK) {
            tsr__free(ctx, counts);
            tsr__layout_cuda_destroy(ctx, g);
            return st;
        }
        memset(tmp, 0, mb + 4);
        for (int32_t e = 0; e < m; e++)
            tmp[counts[e]]++;
        tsr__free(ctx, counts);
        counts = hist = tmp;
    }
    CREATE_TRY(cudaMemcpyAsync(g->hist, hist, (size_t)(m + 1) * 4, cudaMemcpyHostToDevice, s));
    CREATE_TRY(cudaStreamSynchronize(s));
    tsr__free(ctx, counts);
    *out = g;
    return TSR_OK;
}

extern "C" tsr_layout_score tsr__layout_cuda_score(const tsr__layout_cuda *g)
{
    return g->score;
}

extern "C" tsr_status tsr__layout_cuda_counts(tsr_ctx *ctx, tsr__layout_cuda *g, int32_t *counts)
{
    cudaStream_t s = g->stream;
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(counts, g->c, (size_t)g->m * 4, cudaMemcpyDeviceToHost, s));
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(s));
    return TSR_OK;
}

extern "C" tsr_status tsr__layout_cuda_set_limits(tsr_ctx *ctx, tsr__layout_cuda *g,
                                                  int cells_per_proposal, int window)
{
    if (cells_per_proposal < 1 || cells_per_proposal > PER_PROP_CELLS || window < 1 ||
        window > TSR__LCD_WINDOW)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: spatial limits out of range");
    g->cells_cap = cells_per_proposal;
    g->window = window;
    return TSR_OK;
}

extern "C" void tsr__layout_cuda_set_target(tsr__layout_cuda *g, int64_t target)
{
    g->pp.target = target > INT32_MAX ? INT32_MAX : target < -1 ? -1 : (int32_t)target;
}

extern "C" int64_t tsr__layout_cuda_excess_change(const tsr__layout_cuda *g, int p)
{
    return g->hout[p].dx;
}

extern "C" void tsr__layout_cuda_paths(const tsr__layout_cuda *g, uint64_t paths[3])
{
    memcpy(paths, g->paths, sizeof g->paths);
}

/* A launch's proposals: 1..max_prop of them, existing nodes, points in [0, 2^30]^2 (the kernels'
 * orientation and the cell raster rely on it; the canvas check is the caller's). */
static tsr_status check_proposals(tsr_ctx *ctx, const tsr__layout_cuda *g, int nprop,
                                  const int32_t *node, const int32_t *px, const int32_t *py)
{
    if (nprop < 1 || nprop > g->max_prop)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: proposal count out of range");
    for (int p = 0; p < nprop; p++)
        if (node[p] < 0 || node[p] >= g->n || px[p] < 0 || py[p] < 0 ||
            px[p] > TSR_LAYOUT_MAX_CANVAS || py[p] > TSR_LAYOUT_MAX_CANVAS)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "layout: proposal %d (node %d to %d, %d) is out of range", p,
                             (int)node[p], (int)px[p], (int)py[p]);
    return TSR_OK;
}

/* Puts one launch's proposals in g->pp (the first PARAM_PROPS) and in the mapped array the
 * kernels read for the rest (node, px, py packed, nprop each; no copy call: the previous launch
 * has finished, every call waits for its results). */
static tsr_status upload_proposals(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop,
                                   const int32_t *node, const int32_t *px, const int32_t *py)
{
    tsr_status st = check_proposals(ctx, g, nprop, node, px, py);
    if (st != TSR_OK)
        return st;
    const int np = nprop < PARAM_PROPS ? nprop : PARAM_PROPS;
    memcpy(g->pp.node, node, (size_t)np * 4);
    memcpy(g->pp.px, px, (size_t)np * 4);
    memcpy(g->pp.py, py, (size_t)np * 4);
    for (int p = 0; p < np; p++) {
        g->pp.off[p] = g->adj_off_host[node[p]];
        g->pp.deg[p] = g->adj_off_host[node[p] + 1] - g->pp.off[p];
    }
    memcpy(g->hprop, node, (size_t)nprop * 4);
    memcpy(g->hprop + nprop, px, (size_t)nprop * 4);
    memcpy(g->hprop + 2 * nprop, py, (size_t)nprop * 4);
    return TSR_OK;
}

/* The next launch's sequence number (never 0, which block_reduce_write writes first). */
static uint32_t next_seq(tsr__layout_cuda *g)
{
    if (++g->seq == 0)
        g->seq = 1;
    return g->seq;
}

/* Waits until every result of the launch numbered g->seq is in mapped memory: each block's last
 * write is its result's seq, after a system-scope fence, so polling it replaces a stream
 * synchronisation (the driver's completion path is most of an evaluation's fixed cost:
 * bench_layout_eval's P = 1 row). The stream is queried every 1024 polls, so a failed launch is
 * reported instead of waited for. With `sync` (a commit, whose kernel writes device state after
 * its result) the stream is synchronised instead. */
static tsr_status wait_results(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop, int sync)
{
    if (sync) {
        TSR_CUDA_TRY(ctx, cudaStreamSynchronize(g->stream));
        return TSR_OK;
    }
    unsigned polls = 0;
    for (int p = 0; p < nprop;) {
        if (__atomic_load_n(&g->hout[p].seq, __ATOMIC_ACQUIRE) == g->seq) {
            p++;
            continue;
        }
        if (++polls % 1024 == 0) {
            const cudaError_t e = cudaStreamQuery(g->stream);
            if (e != cudaErrorNotReady && e != cudaSuccess)
                return tsr__cuda_error(ctx, e, "layout evaluation", __FILE__, __LINE__);
            if (e == cudaSuccess && __atomic_load_n(&g->hout[p].seq, __ATOMIC_ACQUIRE) != g->seq)
                return tsr__fail(ctx, TSR_ERR_INTERNAL,
                                 "layout: the evaluation finished without result %d", p);
        }
    }
    return TSR_OK;
}

/* Waits for the launch (wait_results) and turns its results into scores against the base. */
static tsr_status collect_scores(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop, int sync,
                                 tsr_layout_score *score, uint8_t *invalid)
{
    tsr_status st = wait_results(ctx, g, nprop, sync);
    if (st != TSR_OK)
        return st;
    for (int p = 0; p < nprop; p++) {
        const tsr__lcd_out o = g->hout[p];
        tsr__lcd_out_score(&o, g->score.Phi, g->score.C, &score[p].K, &score[p].n_K, &score[p].Phi,
                           &score[p].C);
        invalid[p] = (uint8_t)(o.invalid != 0);
    }
    return TSR_OK;
}

/* Launches eval_dense_kernel on the uploaded proposals (with hist, the commit: one block of
 * COMMIT_THREADS that also writes the device state); no wait. */
static tsr_status launch_dense(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop, int32_t *hist)
{
    if (hist) {
        eval_dense_kernel<true><<<(unsigned)nprop, COMMIT_THREADS, g->star_bytes, g->stream>>>(
            drawing_of(g), g->maxdeg, g->pp, g->dprop, nprop, 1, hist, next_seq(g), g->dout);
        TSR_CUDA_CHECK_LAUNCH(ctx, "eval_dense_kernel (commit)");
    } else {
        int32_t parts = tsr__lcd_dense_parts(g->m, nprop, ctx->cuda->prop.multiProcessorCount);
        while (parts > g->max_parts)
            parts /= 2;
        cudaLaunchAttribute cluster;
        const cudaLaunchConfig_t cfg = dense_config(ctx, g, nprop, parts, &cluster);
        TSR_CUDA_TRY(ctx, cudaLaunchKernelEx(&cfg, eval_dense_kernel<false>, drawing_of(g),
                                             g->maxdeg, g->pp, (const int32_t *)g->dprop, nprop,
                                             parts, (int32_t *)NULL, next_seq(g), g->dout));
    }
    return TSR_OK;
}

extern "C" tsr_status tsr__layout_cuda_probe(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop)
{
    if (nprop < 1 || nprop > g->max_prop)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: proposal count out of range");
    probe_kernel<<<(unsigned)nprop, DENSE_THREADS, g->star_bytes, g->stream>>>(g->pp, next_seq(g),
                                                                               g->dout);
    TSR_CUDA_CHECK_LAUNCH(ctx, "probe_kernel");
    return wait_results(ctx, g, nprop, 0);
}

/* The commit kernel, then (with counts) the copy of the new counts queued behind it, so that
 * the one stream synchronisation of the commit covers both. */
extern "C" tsr_status tsr__layout_cuda_commit(tsr_ctx *ctx, tsr__layout_cuda *g, int32_t v,
                                              int32_t x, int32_t y, tsr_layout_score *score,
                                              int32_t *counts)
{
    uint8_t invalid;
    tsr_status st = upload_proposals(ctx, g, 1, &v, &x, &y);
    if (st == TSR_OK)
        st = launch_dense(ctx, g, 1, g->hist);
    if (st != TSR_OK)
        return st;
    if (counts && g->m > 0) {
        if (!g->hcounts)
            TSR_CUDA_TRY(ctx, cudaHostAlloc((void **)&g->hcounts, (size_t)g->m * 4, 0));
        TSR_CUDA_TRY(ctx, cudaMemcpyAsync(g->hcounts, g->c, (size_t)g->m * 4,
                                          cudaMemcpyDeviceToHost, g->stream));
    }
    if ((st = collect_scores(ctx, g, 1, 1, score, &invalid)) != TSR_OK)
        return st;
    if (invalid)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "layout: committed move of node %d to (%d, %d) lies on an edge", (int)v,
                         (int)x, (int)y);
    if (counts && g->m > 0)
        memcpy(counts, g->hcounts, (size_t)g->m * 4);
    g->score = *score;
    return TSR_OK;
}

/* Launches the full evaluation of the uploaded proposals (rows, then their reduction); no wait. */
static tsr_status launch_full(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop)
{
    if (!g->rows)
        TSR_CUDA_TRY(ctx, cudaMalloc((void **)&g->rows,
                                     (size_t)g->max_prop * (size_t)(g->m ? g->m : 1) * 4));
    cudaStream_t s = g->stream;
    if (g->m > 0) {
        dim3 grid((unsigned)((g->m + FULL_THREADS - 1) / FULL_THREADS), (unsigned)nprop);
        full_rows_kernel<<<grid, FULL_THREADS, 0, s>>>(drawing_of(g), g->pp, g->dprop, nprop,
                                                       g->rows);
        TSR_CUDA_CHECK_LAUNCH(ctx, "full_rows_kernel");
    }
    full_reduce_kernel<<<(unsigned)nprop, EVAL_THREADS, 0, s>>>(
        drawing_of(g), g->pp, g->dprop, nprop, g->rows, next_seq(g), g->dout);
    TSR_CUDA_CHECK_LAUNCH(ctx, "full_reduce_kernel");
    return TSR_OK;
}

/* Launches a dense (full = 0) or full evaluation of the uploaded proposals; no wait. */
static tsr_status launch_eval(tsr_ctx *ctx, tsr__layout_cuda *g, int full, int nprop)
{
    return full ? launch_full(ctx, g, nprop) : launch_dense(ctx, g, nprop, NULL);
}

/* One dense or full evaluation: uploads the proposals, launches and collects the scores. */
static tsr_status evaluate(tsr_ctx *ctx, tsr__layout_cuda *g, int full, int nprop,
                           const int32_t *node, const int32_t *px, const int32_t *py,
                           tsr_layout_score *score, uint8_t *invalid)
{
    tsr_status st = upload_proposals(ctx, g, nprop, node, px, py);
    if (st == TSR_OK)
        st = launch_eval(ctx, g, full, nprop);
    return st != TSR_OK ? st : collect_scores(ctx, g, nprop, 0, score, invalid);
}

extern "C" tsr_status tsr__layout_cuda_eval_dense(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop,
                                                  const int32_t *node, const int32_t *px,
                                                  const int32_t *py, tsr_layout_score *score,
                                                  uint8_t *invalid)
{
    return evaluate(ctx, g, 0, nprop, node, px, py, score, invalid);
}

extern "C" tsr_status tsr__layout_cuda_eval_full(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop,
                                                 const int32_t *node, const int32_t *px,
                                                 const int32_t *py, tsr_layout_score *score,
                                                 uint8_t *invalid)
{
    return evaluate(ctx, g, 1, nprop, node, px, py, score, invalid);
}

/* Bench hook (layout_cuda.h). The capture needs the rows allocated before it (no allocation
 * while capturing): one eager launch first. */
extern "C" tsr_status tsr__layout_cuda_replay_us(tsr_ctx *ctx, tsr__layout_cuda *g, int full,
                                                 int nprop, const int32_t *node, const int32_t *px,
                                                 const int32_t *py, int launches, double *us)
{
    if (launches < 1)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: at least one launch to replay");
    tsr_status st = upload_proposals(ctx, g, nprop, node, px, py);
    if (st == TSR_OK && full && !g->rows)
        st = launch_full(ctx, g, nprop);
    if (st != TSR_OK)
        return st;
    TSR_CUDA_TRY(ctx, cudaStreamSynchronize(g->stream));
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    cudaEvent_t ev[2] = {NULL, NULL};
    cudaError_t e = cudaStreamBeginCapture(g->stream, cudaStreamCaptureModeRelaxed);
    for (int i = 0; e == cudaSuccess && st == TSR_OK && i < launches; i++)
        st = launch_eval(ctx, g, full, nprop);
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

/* Device copy of the host index, refreshed when its version or shape changes. */
static tsr_status upload_grid(tsr_ctx *ctx, tsr__layout_cuda *g, const tsr__grid *grid,
                              uint64_t grid_version)
{
    const size_t ncell = (size_t)grid->gx * (size_t)grid->gy;
    if (g->grid_uploaded && g->grid_version == grid_version && g->grid_cells == ncell &&
        g->grid_cap == (size_t)grid->cap)
        return TSR_OK;
    cudaStream_t s = g->stream;
    if (g->grid_cells != ncell || g->grid_cap != (size_t)grid->cap) {
        cudaFree(g->grid_count);
        cudaFree(g->grid_items);
        g->grid_count = g->grid_items = NULL;
        g->grid_uploaded = 0;
        g->grid_cells = g->grid_cap = 0;
        TSR_CUDA_TRY(ctx, cudaMalloc((void **)&g->grid_count, ncell * 4));
        TSR_CUDA_TRY(ctx, cudaMalloc((void **)&g->grid_items, ncell * (size_t)grid->cap * 4));
        g->grid_cells = ncell;
        g->grid_cap = (size_t)grid->cap;
    }
    TSR_CUDA_TRY(ctx,
                 cudaMemcpyAsync(g->grid_count, grid->count, ncell * 4, cudaMemcpyHostToDevice, s));
    TSR_CUDA_TRY(ctx, cudaMemcpyAsync(g->grid_items, grid->items, ncell * (size_t)grid->cap * 4,
                                      cudaMemcpyHostToDevice, s));
    g->grid_version = grid_version;
    g->grid_uploaded = 1;
    return TSR_OK;
}

extern "C" tsr_status tsr__layout_cuda_eval_spatial(tsr_ctx *ctx, tsr__layout_cuda *g,
                                                    const tsr__grid *grid, uint64_t grid_version,
                                                    int nprop, const int32_t *node,
                                                    const int32_t *px, const int32_t *py,
                                                    tsr_layout_score *score, uint8_t *invalid)
{
    tsr_status st = check_proposals(ctx, g, nprop, node, px, py);
    if (st != TSR_OK)
        return st;
    if (!grid->items || grid->stale != TSR__GRID_OK)
        return tsr__fail(ctx, TSR_ERR_LIMIT, "layout: spatial index stale (reason %d)",
                         (int)grid->stale);
    cudaStream_t s = g->stream;
    const size_t rows = (size_t)g->max_prop * (size_t)(g->m ? g->m : 1);
    if (!g->cells)
        TSR_CUDA_TRY(ctx, cudaMalloc((void **)&g->cells, (size_t)g->max_prop * PER_PROP_CELLS * 4));
    if (!g->stamp) {
        TSR_CUDA_TRY(ctx, cudaMalloc((void **)&g->stamp, rows * 4));
        TSR_CUDA_TRY(ctx, cudaMemsetAsync(g->stamp, 0, rows * 4, s));
        g->gen = 0;
    }
    if ((st = upload_proposals(ctx, g, nprop, node, px, py)) != TSR_OK ||
        (st = upload_grid(ctx, g, grid, grid_version)) != TSR_OK)
        return st;
    if (++g->gen == 0) { /* wrapped: old stamps could equal the new generation */
        TSR_CUDA_TRY(ctx, cudaMemsetAsync(g->stamp, 0, rows * 4, s));
        g->gen = 1;
    }
    dev_grid dg = {
        g->grid_count, g->grid_items, grid->cell, grid->gx, grid->gy, (int32_t)g->grid_cap,
        g->cells,      g->cells_cap,  g->stamp,   g->gen,   g->hist,  (int32_t)g->score.K,
        g->window};
    eval_spatial_kernel<<<(unsigned)nprop, EVAL_THREADS, g->star_bytes, s>>>(
        drawing_of(g), g->maxdeg, g->pp, g->dprop, nprop, dg, next_seq(g), g->dout);
    TSR_CUDA_CHECK_LAUNCH(ctx, "eval_spatial_kernel");
    if ((st = collect_scores(ctx, g, nprop, 0, score, invalid)) != TSR_OK)
        return st;
    for (int p = 0; p < nprop; p++)
        g->paths[g->hout[p].path]++;
    return TSR_OK;
}
