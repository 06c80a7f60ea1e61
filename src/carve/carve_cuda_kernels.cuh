/* The CUDA seam-carving kernels (the launch order and the per-thread bodies are in
 * pass_kernel_hd.h), shared by carve_cuda.cu (the library's launchers) and the carve
 * workbench under dev/cuda (which times them one by one). Every kernel first copies its planes
 * argument into a local variable: kept in registers, where reading the __grid_constant__
 * argument through a pointer after a byte store (which may alias anything) reloads it from the
 * parameter bank every time. */
#ifndef TSR_CARVE_CUDA_KERNELS_CUH
#define TSR_CARVE_CUDA_KERNELS_CUH

#include "carve/carve_cuda_pass.h"
#include "carve/seam_kernel_hd.h"
#include "cuda/cuda_internal.cuh"

#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

/* One pass on the device (carve_cuda_pass.h's handle). */
struct tsr__carve_cuda {
    tsr__cc_planes P;
    int32_t w0, count;
    uint32_t gen;          /* the generation of the last DP launched */
    int32_t kmax;          /* batch mode: the passes' largest K (0: exact mode) */
    tsr__cuda_timer timer; /* start: before the first DP; stop: after the last kernel */
    int ended;             /* timer.stop recorded */
};

namespace
{

__global__ void orig_init_kernel(__grid_constant__ const tsr__cc_planes Pg, int32_t w)
{
    const tsr__cc_planes P = Pg; /* registers: see the file comment */
    const int64_t cell = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (cell < (int64_t)w * P.h)
        P.orig[(cell / w) * P.pitch + cell % w] = (uint16_t)(cell % w);
}

constexpr unsigned FULL = 0xffffffffu;

__device__ __forceinline__ uint64_t global_ns()
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* dp: the item's rows after its first (band 0) or from the previous band's last row, the lane
 * edges by shuffles; Border: the row step's border test (0 for interior items). */
template <int Border, typename Lane>
__device__ __forceinline__ void dp_rows(const tsr__cc_planes *P, int32_t w, const tsr__cc_item *it,
                                        tsr__cc_stage *sb, int32_t lane, Lane *L)
{
    typedef typename std::remove_reference<decltype(L->m[0])>::type Key;
    for (int32_t k = it->b > 0 ? 0 : 1; k < it->rows; k++) {
        const Key lm = __shfl_up_sync(FULL, L->m[TSR__CC_C - 1], 1);
        const Key rm = __shfl_down_sync(FULL, L->m[0], 1);
        tsr__cc_lane_row(P, w, it, sb, k, lane, L, lm, rm, Border);
    }
}

/* One warp per item; `gen` is this launch's generation (the tag of the keys it stores).
 * Instantiated for Forward = P.forward, Masked = (P.mask != NULL: 64-bit keys, else 32-bit) and
 * Batch = (P.pair != NULL: the pair bits stored too, the items over both halves of the grid,
 * tsr__cc_item_of): dp_launch below.
 * trace (the workbench; NULL in the library): per ticket, the global timer at the item's start,
 * after staging, after the wait, after its rows and after its key stores (5 values); the
 * origins (entry) follow, off the bands' critical path. */
template <int Forward, int Masked, int Batch>
__global__ void __launch_bounds__(TSR__CC_LANES)
    dp_kernel(__grid_constant__ const tsr__cc_planes Pg, int32_t w, uint32_t gen, uint64_t *trace)
{
    tsr__cc_planes P = Pg; /* registers: see the file comment */
    /* compile-time energy kind and mask presence: the row step without uniform branches */
    P.forward = Forward;
    if (!Masked)
        P.mask = NULL;
    if (!Batch)
        P.pair = NULL;
    else /* the row step's pair stores without a branch per row */
        __builtin_assume(P.pair != NULL);
    __shared__ tsr__cc_stage sb;
    if (P.state->stop)
        return;
    const int32_t lane = (int32_t)threadIdx.x;
    uint32_t t = 0;
    if (lane == 0)
        t = atomicAdd(&P.tickets[gen - 1], 1u);
    t = __shfl_sync(FULL, t, 0);
    uint64_t *tr = trace && lane == 0 ? trace + (size_t)t * 5 : NULL;
    if (tr)
        tr[0] = global_ns();
    tsr__cc_item it;
    if (!tsr__cc_item_of(&P, w, t, &it))
        return; /* batch mode: a band past its view's */
    if (Batch)  /* again for the view's pair pointer (without it the row step's code stores
                   branch on it, which makes the rows 3x slower) */
        __builtin_assume(P.pair != NULL);
    tsr__cc_stage_lane(&P, w, &it, lane, &sb);
    if (tr)
        tr[1] = global_ns();
    typename std::conditional<Masked != 0, tsr__cc_lane64, tsr__cc_lane32>::type L;
    if (it.b > 0) {
        while (!__all_sync(FULL, tsr__cc_lane_load(&P, w, &it, lane, gen, &L)))
            __nanosleep(20);
    } else {
        tsr__cc_lane_first(&P, w, &it, &sb, lane, &L);
    }
    __syncwarp();
    if (tr)
        tr[2] = global_ns();
    if (tsr__cc_item_interior(&it, w))
        dp_rows<0>(&P, w, &it, &sb, lane, &L);
    else
        dp_rows<1>(&P, w, &it, &sb, lane, &L);
    if (tr)
        tr[3] = global_ns();
    tsr__cc_lane_store(&P, w, &it, lane, gen, &L);
    if (tr)
        tr[4] = global_ns();
    __syncwarp();
    if (!Batch) /* the origins are select's (exact mode); the batch trace reads codes and pairs */
        tsr__cc_lane_entry(&P, w, &it, &sb, lane);
}

typedef void (*dp_fn)(tsr__cc_planes, int32_t, uint32_t, uint64_t *);

/* The DP instance for P's energy kind, mask and mode. */
inline dp_fn dp_kernel_for(const tsr__cc_planes &P)
{
    if (P.pair)
        return P.forward ? (P.mask ? dp_kernel<1, 1, 1> : dp_kernel<1, 0, 1>)
                         : (P.mask ? dp_kernel<0, 1, 1> : dp_kernel<0, 0, 1>);
    return P.forward ? (P.mask ? dp_kernel<1, 1, 0> : dp_kernel<1, 0, 0>)
                     : (P.mask ? dp_kernel<0, 1, 0> : dp_kernel<0, 0, 0>);
}

/* The DP launch of generation gen at width w. */
inline void dp_launch(const tsr__cc_planes &P, int32_t w, uint32_t gen, uint64_t *trace,
                      cudaStream_t s)
{
    dp_kernel_for(P)<<<tsr__cc_dp_items(&P, w), TSR__CC_LANES, 0, s>>>(P, w, gen, trace);
}

/* Loads kernel f now (CUDA loads a kernel at its first launch by default: in a fresh process
 * that host time, between a pass's events, would count as idle GPU time in device_ms). */
inline cudaError_t kernel_load(const void *f)
{
    cudaFuncAttributes a;
    return cudaFuncGetAttributes(&a, f);
}

/* select's warp step of the argmin: every lane ends with its warp's leftmost minimum (shuffles
 * down; a lane past the warp's end reads its own value, which the combine leaves as it is). */
__device__ __forceinline__ void argmin_warp(uint64_t *v, int32_t *x)
{
    for (int32_t off = TSR__CC_LANES / 2; off > 0; off >>= 1) {
        const uint64_t v2 = __shfl_down_sync(FULL, *v, off);
        const int32_t x2 = __shfl_down_sync(FULL, *x, off);
        tsr__cc_argmin_combine(v, x, v2, x2);
    }
}

__global__ void __launch_bounds__(TSR__CC_SEL_THREADS)
    select_kernel(__grid_constant__ const tsr__cc_planes Pg, int32_t w)
{
    const tsr__cc_planes P = Pg; /* registers: see the file comment */
    enum { WARPS = TSR__CC_SEL_THREADS / TSR__CC_LANES };
    static_assert(WARPS == TSR__CC_LANES, "warp 0 combines one value per warp");
    __shared__ uint64_t sv[WARPS];
    __shared__ int32_t sx[WARPS];
    __shared__ int32_t exits[TSR__CC_MAX_BANDS];
    /* the hops' windows, then (after the hops' last barrier) each warp's band words and path */
    __shared__ union {
        uint16_t win[TSR__CC_HOP_G][TSR__CC_HOP_W];
        struct {
            uint32_t words[WARPS][TSR__CC_BAND][TSR__CC_EXP_WORDS];
            int32_t xr[WARPS][TSR__CC_BAND];
        } exp;
    } sm;
    __shared__ int32_t go, hx;
    if (P.state->stop)
        return;
    const int32_t t = threadIdx.x, lane = t % TSR__CC_LANES, warp = t / TSR__CC_LANES;
    uint64_t v;
    int32_t x;
    tsr__cc_argmin_partial(&P, w, t, TSR__CC_SEL_THREADS, &v, &x);
    argmin_warp(&v, &x);
    if (lane == 0) {
        sv[warp] = v;
        sx[warp] = x;
    }
    __syncthreads();
    if (warp == 0) {
        v = sv[lane];
        x = sx[lane];
        argmin_warp(&v, &x);
        if (lane == 0) {
            go = tsr__cc_select_begin(&P);
            hx = x;
        }
    }
    __syncthreads();
    if (!go)
        return;
    const int32_t xe = hx, nb = tsr__cc_bands(P.h);
    for (int32_t b0 = nb - 1, x0 = xe; b0 >= 1; b0 -= TSR__CC_HOP_G) {
        uint16_t hv[TSR__CC_HOP_G];
        tsr__cc_hop_load(&P, w, b0, x0, t, hv);
        tsr__cc_hop_store(w, b0, x0, t, hv, sm.win);
        __syncthreads();
        if (t == 0)
            hx = tsr__cc_hop_walk(sm.win, b0, x0, exits);
        __syncthreads();
        x0 = hx;
    }
    int32_t sd = 0;
    for (int32_t b = warp; b < nb; b += WARPS) {
        const int32_t y0 = b * TSR__CC_BAND, last = min(TSR__CC_BAND, P.h - y0) - 1;
        const int32_t x = b == nb - 1 ? xe : exits[b]; /* the hops wrote exits[0 .. nb - 2] */
        const int32_t word0 = tsr__cc_expand_word0(x);
        tsr__cc_expand_load(&P, b, word0, lane, sm.exp.words[warp][lane]);
        __syncwarp();
        if (lane == 0)
            tsr__cc_expand_walk(sm.exp.words[warp], word0, last, x, sm.exp.xr[warp]);
        __syncwarp();
        sd += tsr__cc_expand_store(&P, b, lane, sm.exp.xr[warp][lane]);
        __syncwarp(); /* the next band's loads overwrite the words and the path */
    }
    sd = __reduce_add_sync(FULL, sd);
    if (lane == 0)
        sx[warp] = sd; /* sx is free again: warp 0 read it before the barrier above */
    __syncthreads();
    if (warp == 0) {
        sd = __reduce_add_sync(FULL, sx[lane]);
        if (lane == 0)
            tsr__cc_select_finish(&P, xe, sd);
    }
}

__global__ void __launch_bounds__(TSR__CC_THREADS)
    remove_kernel(__grid_constant__ const tsr__cc_planes Pg, int32_t w)
{
    const tsr__cc_planes P = Pg; /* registers: see the file comment */
    if (P.state->stop)
        return;
    const int32_t y = blockIdx.x, t = threadIdx.x;
    const int32_t xs = P.xs[y];
    if (t == 0)
        tsr__cc_remove_record(&P, y);
    for (int32_t c = xs; c < w - 1; c += TSR__CC_THREADS * TSR__CC_RM_E) {
        tsr__cc_cell r;
        tsr__cc_remove_read(&P, w, y, c, t, &r);
        __syncthreads();
        tsr__cc_remove_write(&P, y, c, t, &r);
        __syncthreads();
    }
}

} // namespace

#endif
