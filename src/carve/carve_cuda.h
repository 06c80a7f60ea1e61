/* The CUDA seam-removal pass's host interface (carve_cuda.cu, built only with CUDA: callers
 * guard their calls with TSR_HAVE_CUDA). One handle holds one pass: the grid's luma and mask
 * uploaded once, then any number of exact vertical seams (or batch passes of K seams) removed
 * on the device without a host round trip per seam, then the removed pixels' start-of-pass
 * columns fetched once for the host gather (tsr__carve_apply_seams). Kernel
 * bodies: carve_cuda_logic.h and carve_cuda_batch_logic.h (run on the CPU by
 * test_carve_device_logic). */
#ifndef TSR_CARVE_CUDA_H
#define TSR_CARVE_CUDA_H

#include "carve/plan.h"
#include "carve/carve_cuda_batch_logic.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsr__carve_cuda tsr__carve_cuda;

/* Uploads g's luma (and mask) for a pass of at most `count` seams; pen: the DP's key terms;
 * drops: drop pixels in g (object removal, until != 0). Computes the first energy and DP. */
tsr_status tsr__carve_cuda_open(tsr_ctx *ctx, const tsr__carve_grid *g, tsr_carve_energy kind,
                                const uint64_t pen[4], int32_t count, int until, int64_t drops,
                                tsr__carve_cuda **out);
/* The same for a pass of batch-mode passes of at most kmax seams each (the DP also stores the
 * pair bits; the batch planes are allocated). */
tsr_status tsr__carve_cuda_open_batch(tsr_ctx *ctx, const tsr__carve_grid *g, tsr_carve_energy kind,
                                      const uint64_t pen[4], int32_t count, int32_t kmax, int until,
                                      int64_t drops, tsr__carve_cuda **out);
/* Enqueues one batch pass of k seams at width w (removed: seams of the device pass before it;
 * more: the next pass follows, so the DP at w - k is launched too); asynchronous. The energy
 * sum and drop pixels left accumulate in the state; its `removed` is the host's to count. */
tsr_status tsr__carve_cuda_batch(tsr_ctx *ctx, tsr__carve_cuda *c, int32_t w, int32_t k,
                                 int32_t removed, int more);
/* Enqueues seams first, first + 1, ..., first + n - 1 of the pass (select, remove, energy
 * update, DP); asynchronous. */
tsr_status tsr__carve_cuda_seams(tsr_ctx *ctx, tsr__carve_cuda *c, int32_t first, int32_t n);
/* Waits for the enqueued work and copies the state back. */
tsr_status tsr__carve_cuda_state(tsr_ctx *ctx, tsr__carve_cuda *c, tsr__cc_state *st);
/* After `removed` seams: rec[s * h + y] (removed pixels' start-of-pass columns, s < removed). */
tsr_status tsr__carve_cuda_fetch(tsr_ctx *ctx, tsr__carve_cuda *c, int32_t removed, uint16_t *rec);
/* After fetch: the GPU time from the pass's first DP to its last enqueued seam (ms). */
tsr_status tsr__carve_cuda_device_ms(tsr_ctx *ctx, tsr__carve_cuda *c, double *ms);
void tsr__carve_cuda_close(tsr_ctx *ctx, tsr__carve_cuda *c);

/* order_cuda.cu: whether the optimal order of r horizontal and c vertical removals from g runs
 * on the context's device (its longest side fits the DP's shared memory and its images and
 * seams 80% of the free device memory); else carve.c runs order.c's host loop. */
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

/* order.c: tsr__carve_cuda_optimal, then g replaced by the (w - c) x (h - r) result, every
 * plane gathered once (rows in parallel on proto->threads); marks (when not NULL, and g has an
 * index) get 1 at the index of every removed pixel; *energy and *ms as there. */
tsr_status tsr__carve_optimal_device(tsr_ctx *ctx, tsr__carve_grid *g, int32_t r, int32_t c,
                                     const tsr__carve_pass *proto, uint8_t *marks, uint64_t *energy,
                                     double *ms);

/* pass_device.c: a device pass through a table of operations (the CUDA launchers above, or the
 * CPU emulation in test_carve_device_logic), the same contract as tsr__carve_remove_seams for
 * both modes (count already checked; object removal: count = w - 1). open's kmax: 0 for exact
 * mode, else the batch passes' largest K (tsr__carve_cuda_open_batch). */
typedef struct tsr__carve_dev_ops {
    tsr_status (*open)(tsr_ctx *ctx, const tsr__carve_grid *g, tsr_carve_energy kind,
                       const uint64_t pen[4], int32_t count, int32_t kmax, int until, int64_t drops,
                       void **out);
    tsr_status (*seams)(tsr_ctx *ctx, void *dev, int32_t first, int32_t n);
    tsr_status (*batch)(tsr_ctx *ctx, void *dev, int32_t w, int32_t k, int32_t removed, int more);
    tsr_status (*state)(tsr_ctx *ctx, void *dev, tsr__cc_state *st);
    tsr_status (*fetch)(tsr_ctx *ctx, void *dev, int32_t removed, uint16_t *rec);
    tsr_status (*device_ms)(tsr_ctx *ctx, void *dev, double *ms); /* after fetch; NULL: no timer */
    void (*close)(tsr_ctx *ctx, void *dev);                       /* NULL dev: no-op */
} tsr__carve_dev_ops;
tsr_status tsr__carve_remove_seams_dev(tsr_ctx *ctx, tsr__carve_grid *g, int32_t count,
                                       tsr__carve_pass *p, const tsr__carve_dev_ops *ops);
/* The host gather after a device pass of `removed` seams: record/marks from rec (the removed
 * pixels' start-of-pass columns, rec[seam * h + y]), then every row of every plane of g without
 * its removed columns (rows in parallel on p->threads; scratch: 8-byte aligned, p->threads x
 * tsr__carve_apply_slice(removed, g->w) int32). Returns -1 when a row's removed columns are not
 * `removed` distinct columns of the row (the device's seams overlapped): g keeps its width, its
 * rows are then undefined (the caller fails the pass). */
size_t tsr__carve_apply_slice(int32_t removed, int32_t w);
int tsr__carve_apply_seams(tsr__carve_grid *g, int32_t removed, const uint16_t *rec,
                           int32_t *scratch, tsr__carve_pass *p);
/* CUDA builds only: tsr__carve_remove_seams_dev with carve_cuda.cu's launchers. */
tsr_status tsr__carve_remove_seams_cuda(tsr_ctx *ctx, tsr__carve_grid *g, int32_t count,
                                        tsr__carve_pass *p);

#ifdef __cplusplus
}
#endif
#endif
