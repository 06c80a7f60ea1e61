/* The resize backends: each executes a plan (plan.h) on one image pair. resize.c checks the
 * arguments and builds the plans; a backend may assume src and dst match the plan (sizes,
 * channels, depth), do not overlap, and live where the backend expects them. */
#ifndef TSR_RESIZE_BACKENDS_H
#define TSR_RESIZE_BACKENDS_H

#include "resize/plan.h"

/* Single-threaded reference (resize_ref.c): defines the answer. Host images. */
tsr_status tsr__resize_ref(tsr_ctx *ctx, const tsr__resize_plan *plan, const tsr_image *src,
                           tsr_image *dst);

/* CPU parallel (resize_cpu.c and its path files, ctx->threads): bit-identical to the reference. */
tsr_status tsr__resize_cpu(tsr_ctx *ctx, const tsr__resize_plan *plan, const tsr_image *src,
                           tsr_image *dst);

/* CUDA (resize_cuda.cu; resize_cuda_none.c in a build without CUDA): src/dst in host or CUDA
 * memory. */
tsr_status tsr__resize_cuda(tsr_ctx *ctx, const tsr__resize_plan *plan, const tsr_image *src,
                            tsr_image *dst);
/* count images, plans[i] for src[i] -> dst[i]; transfers overlap kernels; *done = images
 * completed (also on failure). */
tsr_status tsr__resize_cuda_batch(tsr_ctx *ctx, const tsr__resize_plan *plans, const tsr_image *src,
                                  tsr_image *dst, size_t count, size_t *done);

/* Device memory for count source images whose sizes and channels src[i] give (u8, CUDA
 * memory): sets each src[i].data and stride into one buffer the context keeps for this until
 * the next call (resize_cuda.cu). For decoders that write on the device (tsr_resize_jpeg_batch). */
tsr_status tsr__resize_cuda_sources(tsr_ctx *ctx, tsr_image *src, size_t count);

/* OpenCL (resize_opencl.c; resize_opencl_none.c in a build without OpenCL): host images. */
tsr_status tsr__resize_opencl(tsr_ctx *ctx, const tsr__resize_plan *plan, const tsr_image *src,
                              tsr_image *dst);

#endif
