/* The CUDA backend's entry points that the carve host code calls: carve_cuda.cu and
 * order_cuda.cu in a build with CUDA, carve_cuda_none.c (TSR_ERR_NO_BACKEND) without. carve.c
 * reaches them only when it chose TSR_BACKEND_CUDA, which tsr__backend_choose gives only with a
 * usable device. */
#ifndef TSR_CARVE_CUDA_H
#define TSR_CARVE_CUDA_H

#include "carve/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* tsr__carve_remove_seams on the device: both modes, through pass_device.c's loop with
 * carve_cuda.cu's launchers (count already checked; object removal: count = w - 1). */
tsr_status tsr__carve_remove_seams_cuda(tsr_ctx *ctx, tsr__carve_grid *g, int32_t count,
                                        tsr__carve_pass *p);

/* carve_cuda_resident.cu: dst = src without src->width - dst->width vertical seams (>= 1),
 * found as tsr__carve_remove_seams_cuda finds them on src's grid without masks (the same seams,
 * p's energy and mode), with the pixels on the device from one upload to one download. p's
 * marks and record must be NULL and until_drop_gone 0; on success p->removed, dp_passes,
 * energy_sum and device_ms are those of the pass. dst: src's height, channels and depth. */
tsr_status tsr__carve_remove_resident_cuda(tsr_ctx *ctx, const tsr_image *src, tsr_image *dst,
                                           tsr__carve_pass *p);

/* order_cuda.cu: whether the optimal order of r horizontal and c vertical removals from g runs
 * on the context's device (its longest side fits the DP's shared memory and its images and
 * seams 80% of the free device memory); else carve.c runs order.c's host loop. 0 without a
 * CUDA device. */
int tsr__carve_cuda_order_fits(tsr_ctx *ctx, const tsr__carve_grid *g, int32_t r, int32_t c);
/* The optimal order on the device, applied: the transport map of tsr__carve_optimal_order
 * (the same choices), then the r + c seams of its path, each as the map found it on its image,
 * removed in order. keep[y * (w - c) + x] receives the position y0 * w + x0 in g of the result's
 * pixel (x, y); *energy = T(r, c), the removed seams' energy; *ms: the device time from the
 * upload to the last removal. kind and pen: the DP's energy and key terms of g (as
 * tsr__carve_dp_penalties sets them). */
tsr_status tsr__carve_cuda_optimal(tsr_ctx *ctx, const tsr__carve_grid *g, int32_t r, int32_t c,
                                   tsr_carve_energy kind, const uint64_t pen[4], uint32_t *keep,
                                   uint64_t *energy, double *ms);

#ifdef __cplusplus
}
#endif
#endif
