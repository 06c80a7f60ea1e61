/* One CUDA seam-removal pass as a handle (carve_cuda.cu; CUDA builds only): the grid's luma and
 * mask uploaded once, then any number of exact vertical seams (or batch passes of K seams)
 * removed on the device without a host round trip per seam, then the removed pixels'
 * start-of-pass columns fetched once for the host gather (tsr__carve_apply_seams). The library
 * drives it through pass_device.c's loop; test_carve_cuda_gpu and the carve workbench also call
 * it directly. Kernel bodies: pass_kernel_hd.h and the *_kernel_hd.h headers. */
#ifndef TSR_CARVE_CUDA_PASS_H
#define TSR_CARVE_CUDA_PASS_H

#include "carve/pass_state.h"
#include "carve/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsr__carve_cuda tsr__carve_cuda;
struct tsr__carve_dev_ops;

/* The pass's operations for pass_device.c's loop (tsr__carve_dev_run), and, after a run, the
 * device's rec[s * h + y] of tsr__carve_cuda_fetch in place (device memory, valid until close). */
const struct tsr__carve_dev_ops *tsr__carve_cuda_ops(void);
const uint16_t *tsr__carve_cuda_rec(const tsr__carve_cuda *c);

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

#ifdef __cplusplus
}
#endif
#endif
