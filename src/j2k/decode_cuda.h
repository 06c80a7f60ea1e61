/* The device side of a JPEG 2000 decode on CUDA (decode_cuda.cu; decode_cuda_none.c in a build
 * without CUDA), for decode_tile_cuda.c: the context's device and page-locked buffers, kept and
 * reused between tiles and decodes, the uploads and downloads around the block decoder
 * (t1_cuda.h) and the transforms (xform_cuda.h). Everything runs on the context's CUDA stream
 * (the caller has chosen the CUDA backend); one decode at a time per context.
 *
 * A decode: tsr__j2k_cuda_begin (the image the tiles write), per tile tsr__j2k_cuda_tile_buffers
 * (the buffers of its code-blocks), the caller fills the staging, tsr__j2k_cuda_blocks (upload,
 * decode, the blocks' status back), the transforms into the image; then tsr__j2k_cuda_end. */
#ifndef TSR_J2K_DECODE_CUDA_H
#define TSR_J2K_DECODE_CUDA_H

#include "j2k/t1_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The image of a decode on the device: the caller's (img in CUDA memory), or for a host image a
 * device buffer of its stride and height that tsr__j2k_cuda_end downloads. */
typedef struct tsr__j2k_cuda_image {
    void *data;
    size_t stride; /* bytes */
} tsr__j2k_cuda_image;

tsr_status tsr__j2k_cuda_begin(tsr_ctx *ctx, const tsr_image *img, tsr__j2k_cuda_image *out);
/* Copies a host image of the decode's geometry into the device image (the zero pixels of tiles
 * without data, made on the host). */
tsr_status tsr__j2k_cuda_upload_image(tsr_ctx *ctx, const tsr_image *host);

/* One tile's buffers: host staging (page-locked) for the code-blocks' bytes, jobs and segment
 * table, which the caller fills, and the device memory of the tile's coefficients. The staging
 * may be reused by the next tile once tsr__j2k_cuda_blocks has returned. */
typedef struct tsr__j2k_cuda_tile {
    uint8_t *data;         /* data_bytes */
    tsr__t1_dev_job *jobs; /* njobs */
    tsr__t1_dev_seg *segs; /* nsegs */
    int32_t *coef;         /* device: coef_elems int32 */
} tsr__j2k_cuda_tile;

tsr_status tsr__j2k_cuda_tile_buffers(tsr_ctx *ctx, size_t coef_elems, size_t data_bytes,
                                      uint32_t njobs, uint32_t nsegs, tsr__j2k_cuda_tile *out);
/* Uploads the staged bytes, jobs and segments, decodes the blocks into the tile's
 * coefficients and waits for their status words (t1_cuda.h), returned in *status (njobs,
 * valid until the next call). */
tsr_status tsr__j2k_cuda_blocks(tsr_ctx *ctx, uint32_t njobs, uint32_t nsegs,
                                const uint32_t **status);

/* After the last tile: a host image receives the device image (rows in order); for a device
 * image, waits until the stream has written it. */
tsr_status tsr__j2k_cuda_end(tsr_ctx *ctx, tsr_image *img);

#ifdef __cplusplus
}
#endif
#endif
