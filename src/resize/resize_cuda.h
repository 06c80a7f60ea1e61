/* The CUDA backend's launcher with explicit launch shapes, for dev/cuda/resize_workbench.cu (not
 * public): the library always launches with its own shapes (resize_cuda.cu's library_tuning);
 * the workbench times other shapes and the kernels' fallbacks side by side through this call. */
#ifndef TSR_RESIZE_CUDA_H
#define TSR_RESIZE_CUDA_H

#include "resize/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsr__resize_cuda_tuning {
    int lin2_ept;     /* k_lin2_u8 elements per thread: 8 or 4 */
    int lin2_blocks;  /* blocks k_lin2_u8's tile height aims for */
    int area_threads; /* threads k_areaw_u8's row walks aim for */
    int no_up2;       /* exact 2x upscales to the generic kernels instead of k_up2_u8 */
    int no_dn32;      /* exact 2:3 downscales to k_lin2_u8 / k_areaw_u8 instead of k_dn32_u8 */
    int no_lin2;      /* k_lin2_u8's plans to k_stile_u8 */
    int no_walk;      /* k_walk_u8's plans: u8 cubic to k_stile_u8, lanczos4 to k_generic */
} tsr__resize_cuda_tuning;

/* The kernels alone on device images in the shapes of `tuning` (NULL: the library's), with the
 * plan's tables already in device memory `tab` in the layout of tsr__resize_gpu_params. */
tsr_status tsr__resize_cuda_launch(tsr_ctx *ctx, const tsr__resize_plan *pl, const void *s,
                                   size_t sstride, void *d, size_t dstride, const void *tab,
                                   void *stream, const tsr__resize_cuda_tuning *tuning);

#ifdef __cplusplus
}
#endif
#endif
