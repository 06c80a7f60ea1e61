/* The CUDA batch-mode kernels (carve_cuda_batch_logic.h has the pass's launch order and the
 * per-thread bodies), included by carve_cuda.cu after carve_cuda_kernels.cuh. */
#ifndef TSR_CARVE_CUDA_BATCH_KERNELS_CUH
#define TSR_CARVE_CUDA_BATCH_KERNELS_CUH

#include "carve/carve_cuda_batch_logic.h"

#include <cuda_pipeline.h>

namespace
{

/* Exclusive prefix sum of v over the block (blockDim.x a multiple of 32); sums: 32 shared
 * words. Every thread of the block calls it. */
__device__ uint32_t block_exclusive_scan(uint32_t v, uint32_t *sums)
{
    const int32_t lane = (int32_t)threadIdx.x & 31, wid = (int32_t)threadIdx.x >> 5;
    const int32_t nw = (int32_t)blockDim.x >> 5;
    uint32_t x = v;
    for (int32_t o = 1; o < 32; o <<= 1) {
        const uint32_t y = __shfl_up_sync(FULL, x, o);
        x += lane >= o ? y : 0;
    }
    if (lane == 31)
        sums[wid] = x;
    __syncthreads();
    if (wid == 0) {
        uint32_t s = lane < nw ? sums[lane] : 0;
        for (int32_t o = 1; o < 32; o <<= 1) {
            const uint32_t y = __shfl_up_sync(FULL, s, o);
            s += lane >= o ? y : 0;
        }
        sums[lane] = s;
    }
    __syncthreads();
    const uint32_t r = x - v + (wid > 0 ? sums[wid - 1] : 0);
    __syncthreads(); /* sums is free again */
    return r;
}

__global__ void __launch_bounds__(TSR__CC_TOPK_THREADS)
    topk_kernel(__grid_constant__ const tsr__cc_planes Pg, int32_t w, int32_t k)
{
    const tsr__cc_planes P = Pg; /* registers: see carve_cuda_kernels.cuh */
    __shared__ uint32_t hist[256];
    __shared__ uint32_t sums[32];
    __shared__ uint64_t s_prefix;
    __shared__ unsigned long long s_any;
    __shared__ uint32_t s_need;
    const int32_t t = (int32_t)threadIdx.x, lane = t & 31;
    int32_t a, b;
    tsr__cc_topk_range(w, t, TSR__CC_TOPK_THREADS, &a, &b);
    /* every thread's range has at most `per` columns: loops of that many steps keep the warp
       converged for the match below; its keys are read once (all loads in flight) */
    const int32_t per = (w + TSR__CC_TOPK_THREADS - 1) / TSR__CC_TOPK_THREADS;
    uint64_t keys[TSR__CC_TOPK_PER];
    if (t == 0)
        s_any = 0;
    __syncthreads();
    uint64_t any = 0;
    for (int32_t x = a; x < b; x++)
        any |= keys[x - a] = tsr__cc_meet_key(&P, x);
    const uint32_t lo = __reduce_or_sync(FULL, (uint32_t)any);
    const uint32_t hi = __reduce_or_sync(FULL, (uint32_t)(any >> 32));
    if (lane == 0 && (lo | hi))
        atomicOr(&s_any, (unsigned long long)hi << 32 | lo);
    __syncthreads();
    uint64_t prefix = 0;
    uint32_t need = (uint32_t)k;
    for (int32_t s = tsr__cc_topk_first_shift(s_any); s >= 0; s -= 8) {
        if (t < 256)
            hist[t] = 0;
        __syncthreads();
        for (int32_t i = 0; i < per; i++) {
            const int32_t x = a + i;
            const int32_t d = x < b ? tsr__cc_topk_digit(keys[i], prefix, s) : -1;
            /* lanes with the same digit add once (the top digits are shared by most keys) */
            const uint32_t peers = __match_any_sync(FULL, d);
            if (d >= 0 && lane == __ffs(peers) - 1)
                atomicAdd(&hist[d], (uint32_t)__popc(peers));
        }
        __syncthreads();
        if (t < 32) {
            uint32_t mine = 0;
            for (int32_t i = 0; i < 8; i++)
                mine += hist[t * 8 + i];
            uint32_t incl = mine;
            for (int32_t o = 1; o < 32; o <<= 1) {
                const uint32_t y = __shfl_up_sync(FULL, incl, o);
                incl += t >= o ? y : 0;
            }
            int32_t digit;
            uint32_t left;
            if (tsr__cc_topk_pick(hist, t, incl - mine, need, &digit, &left)) {
                s_prefix = prefix | (uint64_t)digit << s;
                s_need = left;
            }
        }
        __syncthreads();
        prefix = s_prefix;
        need = s_need;
    }
    const uint32_t eq = (uint32_t)tsr__cc_topk_emit(&P, k, keys, a, b, prefix, need, 0, 0, -1);
    const uint32_t eqb = block_exclusive_scan(eq, sums);
    const uint32_t n = (uint32_t)tsr__cc_topk_emit(&P, k, keys, a, b, prefix, need, eqb, 0, 0);
    const uint32_t nb = block_exclusive_scan(n, sums);
    tsr__cc_topk_emit(&P, k, keys, a, b, prefix, need, eqb, (int32_t)nb, 1);
}

__global__ void join_kernel(__grid_constant__ const tsr__cc_planes Pg, int32_t w, int32_t n)
{
    const tsr__cc_planes P = Pg; /* registers: see carve_cuda_kernels.cuh */
    const int32_t i = (int32_t)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n)
        tsr__cc_join(&P, w, i);
}

/* trace: copies group q's pair rows (rows top, top - 1, ... down to row 1, at most G) into
 * buffer q & 1 of the stage, 16 bytes per cp.async, a row's chunks strided over the threads (no
 * divisions). */
__device__ void trace_issue(const tsr__cc_planes &P, uint8_t *stage, int32_t q)
{
    const int32_t top = P.h - 1 - q * TSR__CC_TRACE_G, rb = P.pitch / 2; /* bytes a row */
    if (top < 1)
        return;
    const int32_t n = top < TSR__CC_TRACE_G ? top : TSR__CC_TRACE_G, chunks = rb / 16;
    const uint8_t *src = (const uint8_t *)P.pair + (int64_t)top * rb;
    uint8_t *dst = stage + (q & 1) * TSR__CC_TRACE_G * rb;
    for (int32_t r = 0; r < n; r++, src -= rb, dst += rb)
        for (int32_t c = (int32_t)threadIdx.x; c < chunks; c += (int32_t)blockDim.x)
            __pipeline_memcpy_async(dst + c * 16, src + c * 16, 16);
}

/* The trace of one half per block (block 0 the top, 1 the bottom: tsr__cc_half's views). One
 * instance per placement of the positions (ShPos: shared memory, written to cols once per
 * group; else cols itself, row by row) and of the pair rows (Staged: shared memory, one group
 * ahead; else global memory), so that every access has a known address space. */
template <int ShPos, int Staged>
__global__ void __launch_bounds__(1024)
    trace_kernel(__grid_constant__ const tsr__cc_planes Pg, int32_t w, int32_t k)
{
    tsr__cc_planes P = Pg; /* registers: see carve_cuda_kernels.cuh */
    tsr__cc_half(&P, (int)blockIdx.x, k);
    if (P.h < 1) /* the top half of a one-row grid */
        return;
    extern __shared__ __align__(16) uint8_t smem[];
    const int32_t T = (int32_t)blockDim.x, t = (int32_t)threadIdx.x, h = P.h, rw = P.pitch / 4;
    uint8_t *stage = smem;
    int32_t *pos = (int32_t *)(smem + (Staged ? tsr__cc_trace_stage_bytes(P.pitch) : 0));
    if (ShPos)
        for (int32_t j = t; j < k; j += T)
            pos[j] = tsr__cc_cols_row(&P, k, h - 1)[j];
    if (Staged) {
        trace_issue(P, stage, 0);
        __pipeline_commit();
    }
    for (int32_t q = 0; h - 1 - q * TSR__CC_TRACE_G >= 1; q++) {
        const int32_t top = h - 1 - q * TSR__CC_TRACE_G;
        const int32_t bot = top - TSR__CC_TRACE_G + 1 > 1 ? top - TSR__CC_TRACE_G + 1 : 1;
        if (Staged) {
            trace_issue(P, stage, q + 1);
            __pipeline_commit();
            __pipeline_wait_prior(1);
        }
        __syncthreads();
        for (int32_t y = top; y >= bot; y--) {
            const int32_t *cur = ShPos ? pos + (top - y) * k : tsr__cc_cols_row(&P, k, y);
            int32_t *nxt = ShPos ? pos + (top - y + 1) * k : tsr__cc_cols_row(&P, k, y - 1);
            const uint16_t *row =
                Staged ? (const uint16_t *)stage + ((q & 1) * TSR__CC_TRACE_G + top - y) * rw
                       : P.pair + (int64_t)y * rw;
            for (int32_t j = t; j < k; j += T) {
                const int32_t x = cur[j];
                const int32_t xl = j > 0 ? cur[j - 1] : 0, xr = j < k - 1 ? cur[j + 1] : 0;
                nxt[j] =
                    tsr__cc_batch_step(w, x, j > 0, xl, j < k - 1, xr, tsr__cc_batch_nib(row, x));
            }
            __syncthreads();
        }
        if (ShPos) /* each thread its own seams: rows top - 1 .. bot - 1 out, the last one to
                      slot 0 (read by others only after the next group's barrier) */
            for (int32_t j = t; j < k; j += T) {
                for (int32_t s = 1; s <= top - bot + 1; s++)
                    tsr__cc_cols_row(&P, k, top - s)[j] = pos[s * k + j];
                pos[j] = pos[(top - bot + 1) * k + j];
            }
    }
}

/* Group q's pair rows (top = h - 1 - q G down to max(top - G + 1, 1), ascending: contiguous in
 * the plane) go into buffer q & 1 (G rows) of the warp trace's stage. Two ways: on sm_90, one
 * bulk copy by one thread completing on the mbarrier bar[q & 1] (Bulk); on every GPU, 16-byte
 * cp.async copies strided over the block's threads, one commit group per buffer fill (portable).
 * The buffer's earlier reads by the block must be ordered before (the caller's barrier). */
__device__ __forceinline__ void trace_group_span(const tsr__cc_planes &P, int32_t q, int32_t *bot,
                                                 uint32_t *bytes)
{
    const int32_t G = TSR__CC_TRACE_G, rb = P.pitch / 2, top = P.h - 1 - q * G; /* rb: bytes */
    *bot = top - G + 1 > 1 ? top - G + 1 : 1;
    *bytes = (uint32_t)((top - *bot + 1) * rb); /* rb: a multiple of 16 */
}

__device__ __forceinline__ void trace_warp_issue_portable(const tsr__cc_planes &P, uint8_t *stage,
                                                          int32_t q)
{
    int32_t bot;
    uint32_t bytes;
    trace_group_span(P, q, &bot, &bytes);
    const uint8_t *src = (const uint8_t *)P.pair + (int64_t)bot * (P.pitch / 2);
    uint8_t *dst = stage + (size_t)(q & 1) * TSR__CC_TRACE_G * (P.pitch / 2);
    for (uint32_t c = threadIdx.x * 16u; c < bytes; c += blockDim.x * 16u)
        __pipeline_memcpy_async(dst + c, src + c, 16);
}

__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* The bulk-copy helpers exist on sm_90 only: the Bulk instances are launched only where
 * tsr__cuda's arch is >= 90, and trap if ever reached elsewhere. */
__device__ __forceinline__ void mbar_init(uint64_t *bar)
{
#if __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#else
    (void)bar;
    __trap();
#endif
}

__device__ __forceinline__ void trace_warp_issue_bulk(const tsr__cc_planes &P, uint8_t *stage,
                                                      uint64_t *bar, int32_t q)
{
#if __CUDA_ARCH__ >= 900
    int32_t bot;
    uint32_t bytes;
    trace_group_span(P, q, &bot, &bytes);
    const int32_t rb = P.pitch / 2;
    const uint32_t b = smem_addr(bar + (q & 1));
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(bytes)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
                 "%2, [%3];" ::"r"(smem_addr(stage + (size_t)(q & 1) * TSR__CC_TRACE_G * rb)),
                 "l"((const uint8_t *)P.pair + (int64_t)bot * rb), "r"(bytes), "r"(b)
                 : "memory");
#else
    (void)P, (void)stage, (void)bar, (void)q;
    __trap();
#endif
}

__device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t parity)
{
#if __CUDA_ARCH__ >= 900
    uint32_t ok = 0;
    while (!ok)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; "
                     "selp.u32 %0, 1, 0, p; }"
                     : "=r"(ok)
                     : "r"(smem_addr(bar)), "r"(parity)
                     : "memory");
#else
    (void)bar, (void)parity;
    __trap();
#endif
}

/* The warp trace of one half per block (as trace_kernel; tsr__cc_trace_warp_form(P.pitch, k)
 * gives S and W): W warps, S seams per
 * lane in registers, each row's columns stored to cols; group q of TRACE_G rows read from
 * buffer q & 1, the next group's copies issued before it: Bulk, by thread 0 (the n-th use of a
 * buffer completes its mbarrier's phase n); else by every thread (cp.async commit groups).
 * With W > 1 the warps' edge columns go through `edge` (by row parity: a warp can be one row
 * ahead of another, never two) and one barrier per row. */
template <int S, int W, int Bulk>
__global__ void __launch_bounds__(TSR__CC_LANES *W)
    trace_warp_kernel(__grid_constant__ const tsr__cc_planes Pg, int32_t w, int32_t k)
{
    tsr__cc_planes P = Pg; /* registers: see carve_cuda_kernels.cuh */
    tsr__cc_half(&P, (int)blockIdx.x, k);
    if (P.h < 1) /* the top half of a one-row grid */
        return;
    extern __shared__ __align__(16) uint8_t smem[];
    __shared__ uint64_t bar[2];
    __shared__ int32_t edge[2][2][W]; /* [row parity][warp's first seam, last seam][warp] */
    const int32_t G = TSR__CC_TRACE_G, g = (int32_t)threadIdx.x, h = P.h, rw = P.pitch / 4;
    const int32_t lane = g % TSR__CC_LANES, v = g / TSR__CC_LANES;
    const int32_t groups = (h - 1 + G - 1) / G; /* rows h - 1 .. 1 */
    int32_t x[S];
    TSR__CC_UNROLL
    for (int32_t i = 0; i < S; i++) {
        const int32_t j = g * S + i;
        x[i] = j < k ? tsr__cc_cols_row(&P, k, h - 1)[j] : 0;
    }
    if (Bulk && g == 0) {
        mbar_init(&bar[0]);
        mbar_init(&bar[1]);
        if (groups > 0)
            trace_warp_issue_bulk(P, smem, bar, 0);
    }
    if (!Bulk) {
        if (groups > 0)
            trace_warp_issue_portable(P, smem, 0);
        __pipeline_commit();
    }
    __syncthreads();
    int32_t par = 0;
    const int64_t cs = P.flip ? -(int64_t)k : (int64_t)k; /* cols: one row to the next */
    for (int32_t q = 0; q < groups; q++) {
        if (Bulk) {
            if (g == 0 && q + 1 < groups)
                trace_warp_issue_bulk(P, smem, bar, q + 1);
            mbar_wait(&bar[q & 1], (uint32_t)(q >> 1) & 1u);
        } else {
            if (q + 1 < groups)
                trace_warp_issue_portable(P, smem, q + 1);
            __pipeline_commit();
            __pipeline_wait_prior(1); /* this thread's copies of group q */
            __syncthreads();          /* and every other thread's */
        }
        const int32_t top = h - 1 - q * G, bot = top - G + 1 > 1 ? top - G + 1 : 1;
        const uint16_t *row = (const uint16_t *)smem + (size_t)(q & 1) * G * rw + (top - bot) * rw;
        int32_t *out = tsr__cc_cols_row(&P, k, top - 1) + g * S; /* row y - 1, this lane */
        for (int32_t y = top; y >= bot; y--, row -= rw, out -= cs, par ^= 1) {
            int32_t xl = __shfl_up_sync(FULL, x[S - 1], 1);
            int32_t xr = __shfl_down_sync(FULL, x[0], 1);
            if (W > 1) {
                if (lane == 0)
                    edge[par][0][v] = x[0];
                if (lane == TSR__CC_LANES - 1)
                    edge[par][1][v] = x[S - 1];
                __syncthreads();
                if (lane == 0 && v > 0)
                    xl = edge[par][1][v - 1];
                if (lane == TSR__CC_LANES - 1 && v < W - 1)
                    xr = edge[par][0][v + 1];
            }
            int32_t nx[S];
            tsr__cc_trace_lane(w, k, g, S, x, xl, xr, row, nx);
            TSR__CC_UNROLL
            for (int32_t i = 0; i < S; i++) {
                if (g * S + i < k)
                    out[i] = nx[i];
                x[i] = nx[i];
            }
        }
        __syncthreads(); /* every thread's reads of buffer q & 1 before thread 0 refills it */
    }
}

/* The traces' instances need more than the default 48 KB of dynamic shared memory. */
inline cudaError_t trace_setup()
{
    void (*const f[12])(tsr__cc_planes, int32_t, int32_t) = {
        trace_kernel<0, 0>,         trace_kernel<0, 1>,         trace_kernel<1, 0>,
        trace_kernel<1, 1>,         trace_warp_kernel<1, 1, 0>, trace_warp_kernel<2, 1, 0>,
        trace_warp_kernel<1, 4, 0>, trace_warp_kernel<1, 8, 0>, trace_warp_kernel<1, 1, 1>,
        trace_warp_kernel<2, 1, 1>, trace_warp_kernel<1, 4, 1>, trace_warp_kernel<1, 8, 1>};
    for (int i = 0; i < 12; i++) {
        const cudaError_t e = cudaFuncSetAttribute(
            (const void *)f[i], cudaFuncAttributeMaxDynamicSharedMemorySize, TSR__CC_TRACE_SMEM);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

__global__ void batch_sum_kernel(__grid_constant__ const tsr__cc_planes Pg, int32_t w, int32_t k,
                                 int32_t removed)
{
    const tsr__cc_planes P = Pg; /* registers: see carve_cuda_kernels.cuh */
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long e = 0, d = 0;
    if (i < (int64_t)P.h * k) {
        int32_t drop;
        e = tsr__cc_batch_pixel(&P, w, k, removed, (int32_t)(i / k), (int32_t)(i % k), &drop);
        d = (unsigned long long)drop;
    }
    for (int32_t o = 16; o > 0; o >>= 1) {
        e += __shfl_down_sync(FULL, e, o);
        d += __shfl_down_sync(FULL, d, o);
    }
    if ((threadIdx.x & 31) == 0) {
        if (e)
            atomicAdd((unsigned long long *)&P.state->energy_sum, e);
        if (d) /* drops -= d, in two's complement */
            atomicAdd((unsigned long long *)&P.state->drops, 0ull - d);
    }
}

__global__ void __launch_bounds__(TSR__CC_GATHER_THREADS)
    gather_kernel(__grid_constant__ const tsr__cc_planes Pg, int32_t w, int32_t k)
{
    const tsr__cc_planes P = Pg; /* registers: see carve_cuda_kernels.cuh */
    extern __shared__ int32_t sc[];
    const int32_t y = (int32_t)blockIdx.x, t = (int32_t)threadIdx.x;
    const int32_t *c = P.cols + (int64_t)y * k;
    if (k <= TSR__CC_GATHER_KS) {
        for (int32_t j = t; j < k; j += TSR__CC_GATHER_THREADS)
            sc[j] = c[j];
        __syncthreads();
        c = sc;
    }
    enum { E = TSR__CC_GATHER_E };
    static_assert(E == 4, "one 4-byte luma store and two 4-byte orig stores per thread");
    const int64_t o = (int64_t)y * P.pitch; /* pitch: a multiple of 64 */
    for (int32_t x0 = t * E; x0 < w - k; x0 += TSR__CC_GATHER_THREADS * E) {
        const int32_t n = w - k - x0 < E ? w - k - x0 : E;
        int32_t xs[E];
        tsr__cc_gather_srcs(c, k, x0, n, xs);
        if (n < E) {
            for (int32_t i = 0; i < n; i++)
                tsr__cc_gather_cell(&P, y, x0 + i, xs[i]);
            continue;
        }
        uint32_t l = 0, m = 0, g[2] = {0, 0};
        TSR__CC_UNROLL
        for (int32_t i = 0; i < E; i++) {
            l |= (uint32_t)P.luma[o + xs[i]] << 8 * i;
            g[i / 2] |= (uint32_t)P.orig[o + xs[i]] << 16 * (i % 2);
            if (P.mask)
                m |= (uint32_t)P.mask[o + xs[i]] << 8 * i;
        }
        *(uint32_t *)(P.luma2 + o + x0) = l;
        *(uint2 *)(P.orig2 + o + x0) = make_uint2(g[0], g[1]);
        if (P.mask)
            *(uint32_t *)(P.mask2 + o + x0) = m;
    }
}

/* Loads the batch pass's other kernels (the traces: trace_setup) now; see kernel_load. */
inline cudaError_t batch_load()
{
    cudaError_t e = trace_setup();
    if (e == cudaSuccess)
        e = kernel_load((const void *)topk_kernel);
    if (e == cudaSuccess)
        e = kernel_load((const void *)join_kernel);
    if (e == cudaSuccess)
        e = kernel_load((const void *)batch_sum_kernel);
    return e == cudaSuccess ? kernel_load((const void *)gather_kernel) : e;
}

/* The warp trace's instance for (S, W) with bulk copies (sm_90) or portable ones. */
template <int S, int W>
inline void trace_warp_launch(const tsr__cc_planes &P, int32_t w, int32_t k, int bulk, unsigned wt,
                              size_t wsmem, cudaStream_t s)
{
    if (bulk)
        trace_warp_kernel<S, W, 1><<<2, wt, wsmem, s>>>(P, w, k);
    else
        trace_warp_kernel<S, W, 0><<<2, wt, wsmem, s>>>(P, w, k);
}

/* One batch pass's kernels after its DP: topk, join, trace, sum and, when gather (not after
 * the last pass), gather (carve_cuda_batch_logic.h's order; the next DP is the caller's). bulk:
 * the device has sm_90's bulk copies (tsr__cuda's arch >= 90). ev: NULL, or 5 events recorded
 * before each kernel and after the last (the workbench's timing). */
inline void batch_launch(const tsr__cc_planes &P, int32_t w, int32_t k, int32_t removed, int gather,
                         int bulk, cudaStream_t s, cudaEvent_t *ev)
{
    if (ev)
        cudaEventRecord(ev[0], s);
    topk_kernel<<<1, TSR__CC_TOPK_THREADS, 0, s>>>(P, w, k);
    const int32_t joins = tsr__cc_joins(P.h) * ((w + 3) / 4);
    if (joins > 0)
        join_kernel<<<(unsigned)(joins + 255) / 256, 256, 0, s>>>(P, w, joins);
    if (ev)
        cudaEventRecord(ev[1], s);
    const unsigned threads = k < 1024 ? (unsigned)(k + 31) / 32 * 32 : 1024;
    const size_t smem = (size_t)tsr__cc_trace_smem(P.pitch, k);
    const size_t wsmem = (size_t)tsr__cc_trace_stage_bytes(P.pitch);
    const int shpos = tsr__cc_trace_pos_shared(k), staged = tsr__cc_trace_staged(P.pitch, k);
    int32_t ws = 0, ww = 0;
    const int warp_form = tsr__cc_trace_warp_form(P.pitch, k, &ws, &ww);
    const unsigned wt = (unsigned)(TSR__CC_LANES * ww);
    if (warp_form && ws == 2)
        trace_warp_launch<2, 1>(P, w, k, bulk, wt, wsmem, s);
    else if (warp_form && ww == 1)
        trace_warp_launch<1, 1>(P, w, k, bulk, wt, wsmem, s);
    else if (warp_form && ww == 4)
        trace_warp_launch<1, 4>(P, w, k, bulk, wt, wsmem, s);
    else if (warp_form)
        trace_warp_launch<1, 8>(P, w, k, bulk, wt, wsmem, s);
    else if (shpos && staged)
        trace_kernel<1, 1><<<2, threads, smem, s>>>(P, w, k);
    else if (shpos)
        trace_kernel<1, 0><<<2, threads, smem, s>>>(P, w, k);
    else if (staged)
        trace_kernel<0, 1><<<2, threads, smem, s>>>(P, w, k);
    else
        trace_kernel<0, 0><<<2, threads, smem, s>>>(P, w, k);
    if (ev)
        cudaEventRecord(ev[2], s);
    const int64_t n = (int64_t)P.h * k;
    batch_sum_kernel<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(P, w, k, removed);
    if (ev)
        cudaEventRecord(ev[3], s);
    if (gather)
        gather_kernel<<<(unsigned)P.h, TSR__CC_GATHER_THREADS,
                        k <= TSR__CC_GATHER_KS ? (size_t)k * sizeof(int32_t) : 0, s>>>(P, w, k);
    if (ev)
        cudaEventRecord(ev[4], s);
}

} // namespace

#endif
