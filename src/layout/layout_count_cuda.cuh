/* The full count's launch on device arrays (layout_count_cuda.cu), for the CUDA files of the
 * layout domain: the evaluator counts its base drawing with it. */
#ifndef TSR_LAYOUT_COUNT_CUDA_CUH
#define TSR_LAYOUT_COUNT_CUDA_CUH

#include "cuda/cuda_internal.cuh"

/* Launches counts[e] = c(e) for the m edges (eu, ev) of the drawing (x, y), all in device memory,
 * on stream s (no wait; in debug builds, TSR_DEBUG_SYNC, it waits). Errors go to ctx. */
extern "C" tsr_status tsr__layout_cuda_count_on(tsr_ctx *ctx, cudaStream_t s, const int32_t *x,
                                                const int32_t *y, const int32_t *eu,
                                                const int32_t *ev, int32_t m, int32_t *counts);

#endif
