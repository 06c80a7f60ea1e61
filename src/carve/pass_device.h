/* The host loop of a device seam-removal pass (pass_device.c): the device is reached through a
 * table of operations, carve_cuda.cu's launchers (tsr__carve_remove_seams_cuda) or the CPU
 * emulation of the same kernels in test_carve_device_logic, so the test runs this very loop. */
#ifndef TSR_CARVE_PASS_DEVICE_H
#define TSR_CARVE_PASS_DEVICE_H

#include "carve/pass_state.h"
#include "carve/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Pixels already in device memory (the device-resident carve, carve_cuda_resident.cu): the
 * grid's h rows, `pitch` bytes apart, of w pixels of `channels` samples of `depth`. A pass
 * opened on them computes its luma from them on the device instead of uploading the grid's. */
typedef struct tsr__carve_dev_pixels {
    const void *pix;
    size_t pitch;
    int32_t channels;
    tsr_depth depth;
} tsr__carve_dev_pixels;

/* A device pass's operations. open's pixels: NULL to upload g's luma (and mask), else where the
 * pixels are on the device (g then gives the size and mask only); kmax: 0 for exact mode, else
 * the batch passes' largest K (tsr__carve_cuda_open_batch). */
typedef struct tsr__carve_dev_ops {
    tsr_status (*open)(tsr_ctx *ctx, const tsr__carve_grid *g, const tsr__carve_dev_pixels *pixels,
                       tsr_carve_energy kind, const uint64_t pen[4], int32_t count, int32_t kmax,
                       int until, int64_t drops, void **out);
    tsr_status (*seams)(tsr_ctx *ctx, void *dev, int32_t first, int32_t n);
    tsr_status (*batch)(tsr_ctx *ctx, void *dev, int32_t w, int32_t k, int32_t removed, int more);
    tsr_status (*state)(tsr_ctx *ctx, void *dev, tsr__cc_state *st);
    tsr_status (*fetch)(tsr_ctx *ctx, void *dev, int32_t removed, uint16_t *rec);
    tsr_status (*device_ms)(tsr_ctx *ctx, void *dev, double *ms); /* after fetch; NULL: no timer */
    void (*close)(tsr_ctx *ctx, void *dev);                       /* NULL dev: no-op */
} tsr__carve_dev_ops;

/* The passes of a device removal through ops, without taking their seams back (count >= 1,
 * already checked; object removal: count = w - 1): opens *dev on g (on pixels when not NULL),
 * enqueues the seams or batch passes with progress, and leaves the device state in *s
 * (s->removed: the seams removed) and the DP passes run in *passes. On failure *dev is closed
 * and NULL; on success the caller takes the seams back and closes it with ops->close. */
tsr_status tsr__carve_dev_run(tsr_ctx *ctx, const tsr__carve_grid *g,
                              const tsr__carve_dev_pixels *pixels, int32_t count,
                              tsr__carve_pass *p, const tsr__carve_dev_ops *ops, void **dev,
                              tsr__cc_state *s, int64_t *passes);
/* A device pass through ops, the same contract as tsr__carve_remove_seams for both modes (count
 * already checked; object removal: count = w - 1): tsr__carve_dev_run, then the seams fetched
 * and removed from g on the host (tsr__carve_apply_seams). */
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

#ifdef __cplusplus
}
#endif
#endif
