/* The device side of a JPEG 2000 decode on CUDA (decode_cuda.cu; decode_cuda_none.c in a build
 * without CUDA), for decode_tile_cuda.c: the context's device and page-locked buffers, kept and
 * reused between tiles and decodes, the uploads and downloads around the block decoder
 * (t1_cuda.h) and the transforms (xform_cuda.h). The kernels run on the context's CUDA stream
 * (the caller has chosen the CUDA backend); the tiles' uploads and a batch's downloads on two
 * more streams of the context's device. One decode, or one batch, at a time per context.
 *
 * A decode: tsr__j2k_cuda_begin (the image the tiles write), per tile tsr__j2k_cuda_slot_next (a
 * set of tile buffers whose earlier tile's status words the caller first collects with
 * tsr__j2k_cuda_slot_wait), tsr__j2k_cuda_tile_buffers, the caller fills the staging,
 * tsr__j2k_cuda_blocks (upload, decode, the status words' copy back queued, no wait), the
 * transforms into the image; then tsr__j2k_cuda_end, or in a batch tsr__j2k_cuda_download and
 * later tsr__j2k_cuda_download_finish (the image of frame i comes down while frame i + 1's
 * kernels run). */
#ifndef TSR_J2K_DECODE_CUDA_H
#define TSR_J2K_DECODE_CUDA_H

#include "j2k/t1_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tile buffers (staging, device copy, status words) in use at once: tile k + 1's staging is
 * filled while tile k decodes; tile k + 2 takes tile k's once its status words are collected.
 * Also the device images of a batch's host images (frame i + 1 written while frame i comes
 * down). */
enum { TSR__J2K_CUDA_SLOTS = 2 };

/* The image of a decode on the device: the caller's (img in CUDA memory), or for a host image a
 * device buffer of its rows packed (stride = the row's bytes) that tsr__j2k_cuda_end or
 * tsr__j2k_cuda_download brings down. */
typedef struct tsr__j2k_cuda_image {
    void *data;
    size_t stride; /* bytes */
} tsr__j2k_cuda_image;

/* frame: a batch's frame number modulo TSR__J2K_CUDA_SLOTS (which device image a host image
 * gets), or 0 for a single decode. */
tsr_status tsr__j2k_cuda_begin(tsr_ctx *ctx, const tsr_image *img, uint32_t frame,
                               tsr__j2k_cuda_image *out);
/* Copies a host image of the decode's geometry into the device image (the zero pixels of tiles
 * without data, made on the host). */
tsr_status tsr__j2k_cuda_upload_image(tsr_ctx *ctx, const tsr_image *host);

/* The next tile's buffers, *slot, and *owner: what the caller gave tsr__j2k_cuda_blocks for the
 * tile that used them before, whose status words are still to be collected (NULL: none). */
tsr_status tsr__j2k_cuda_slot_next(tsr_ctx *ctx, uint32_t *slot, void **owner);
/* The slot that slot_next gives after `after` ones: 0 the next, 1 the one after it. The slots
 * holding status words, in this order from 0, are in the order their tiles were queued. */
uint32_t tsr__j2k_cuda_slot_peek(tsr_ctx *ctx, uint32_t after, void **owner);
/* Waits for the status words of the tile last queued in `slot` and returns them (njobs words,
 * t1_cuda.h) with that tile's staged jobs (their `zero` flags); both valid until the slot is
 * used again. The slot is free afterwards (its owner NULL). */
tsr_status tsr__j2k_cuda_slot_wait(tsr_ctx *ctx, uint32_t slot, const uint32_t **status,
                                   const tsr__t1_dev_job **jobs);

/* One tile's buffers in `slot` (free: its status words collected): host staging (page-locked)
 * for the code-blocks' bytes, jobs and segment table, which the caller fills, and the device
 * memory of the tile's coefficients (one buffer for every tile, used in stream order). */
typedef struct tsr__j2k_cuda_tile {
    uint8_t *data;         /* data_bytes */
    tsr__t1_dev_job *jobs; /* njobs */
    tsr__t1_dev_seg *segs; /* nsegs */
    int32_t *coef;         /* device: coef_elems int32 */
} tsr__j2k_cuda_tile;

tsr_status tsr__j2k_cuda_tile_buffers(tsr_ctx *ctx, uint32_t slot, size_t coef_elems,
                                      size_t data_bytes, uint32_t njobs, uint32_t nsegs,
                                      tsr__j2k_cuda_tile *out);
/* Queues the upload of the slot's staged bytes, jobs and segments, the blocks' decoding into the
 * tile's coefficients and the copy of their status words back; returns without waiting. The
 * slot's owner becomes `owner` (not NULL) until tsr__j2k_cuda_slot_wait. */
tsr_status tsr__j2k_cuda_blocks(tsr_ctx *ctx, uint32_t slot, uint32_t njobs, uint32_t nsegs,
                                void *owner);

/* After the last tile of a single decode: a host image receives the device image (rows in
 * order, through a small page-locked ring); for a device image, waits until the stream has
 * written it. */
tsr_status tsr__j2k_cuda_end(tsr_ctx *ctx, tsr_image *img);
/* After the last tile of a batch's frame with a host image (tsr__j2k_cuda_begin's frame):
 * queues the device image's download into page-locked memory of the image's size on the second
 * stream, behind the work queued so far; returns without waiting. */
tsr_status tsr__j2k_cuda_download(tsr_ctx *ctx, const tsr_image *img, uint32_t frame);
/* Waits for that download and, when keep, copies it into the image's rows (else only waits: a
 * failed frame's pixels never reach its image). A no-op without a download queued for frame. */
tsr_status tsr__j2k_cuda_download_finish(tsr_ctx *ctx, uint32_t frame, int keep);
/* Waits for everything queued on both streams (the end of a batch). */
tsr_status tsr__j2k_cuda_sync(tsr_ctx *ctx);
/* The same after a decode has failed, its errors dropped (the decode's own stand): no kernel of
 * it may write the caller's device image after it returns. */
void tsr__j2k_cuda_quiesce(tsr_ctx *ctx);

#ifdef __cplusplus
}
#endif
#endif
