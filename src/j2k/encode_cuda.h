/* The device side of a JPEG 2000 encode on CUDA (encode_cuda.cu; encode_cuda_none.c in a build
 * without CUDA), for encode.c: the image on the device (a device image as it is; a host image
 * uploaded into a device buffer the context keeps), each tile's samples, colour transform and
 * forward DWT there (fxform_cuda.h), and the tile-components' coefficients downloaded into
 * their tc->data, exactly what encode.c's transform_tile leaves there, for the CPU's block
 * coders. Everything runs on the context's CUDA stream (the caller has chosen the CUDA
 * backend); one encode at a time per context. */
#ifndef TSR_J2K_ENCODE_CUDA_H
#define TSR_J2K_ENCODE_CUDA_H

#include "j2k/codestream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Starts an encode of img (8- or 16-bit samples, 1..4 channels, host or device memory): a host
 * image is copied to the device. */
tsr_status tsr__j2k_enc_cuda_begin(tsr_ctx *ctx, const tsr_image *img);

/* Tile t of the image given to tsr__j2k_enc_cuda_begin into its tile-components' tc->data
 * (encode.c's alloc_tile: rows the tile's width apart) as encode.c's transform_tile does:
 * samples of prec bits, with mct the RCT (rev) or ICT, the 5/3 (rev) or 9/7 DWT; returns when
 * they are there. */
tsr_status tsr__j2k_enc_cuda_transform(tsr_ctx *ctx, tsr__j2k_tile *t, uint32_t prec, int mct,
                                       int rev);

#ifdef __cplusplus
}
#endif
#endif
