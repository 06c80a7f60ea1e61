/* The insides of the CUDA evaluator (layout_cuda.h) for the CUDA files built on it: the
 * evaluator itself (layout_cuda.cu) and bench_layout_eval's launch probes (bench/). Holds the
 * evaluator's state, the parameter block of a launch, the block reduction that ends every
 * evaluation kernel, and the host steps of an evaluation: upload the proposals, launch, wait. */
#ifndef TSR_LAYOUT_CUDA_EVAL_CUH
#define TSR_LAYOUT_CUDA_EVAL_CUH

#include "cuda/cuda_internal.cuh"

extern "C" {
#include "layout/layout_cuda.h"
}
#include "layout/layout_cuda_logic.h"

namespace
{

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

} // namespace

struct tsr__layout_cuda {
    cudaStream_t stream; /* the evaluator's own: chains with one evaluator each run side by side */
    int32_t n, m, max_prop, maxdeg;
    int32_t max_parts; /* the largest cluster of dense parts the device runs (1: none) */
    int32_t arch, sms; /* the device's (tsr__layout_cuda_device) */
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

/* Puts one launch's proposals (1..max_prop, checked) in g->pp and the mapped proposal array. */
tsr_status tsr__layout_cuda_upload(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop,
                                   const int32_t *node, const int32_t *px, const int32_t *py);
/* Launches a dense (full = 0) or full evaluation of the uploaded proposals; no wait (the full
 * evaluation's rows are allocated on its first launch). */
tsr_status tsr__layout_cuda_launch(tsr_ctx *ctx, tsr__layout_cuda *g, int full, int nprop);
/* The next launch's sequence number (never 0): what its blocks write last (block_reduce_write). */
uint32_t tsr__layout_cuda_next_seq(tsr__layout_cuda *g);
/* Waits until every one of the nprop results of the last launch is in mapped memory (with sync,
 * a stream synchronisation instead). */
tsr_status tsr__layout_cuda_wait(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop, int sync);

#endif
