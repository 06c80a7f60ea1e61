/* The JPEG 2000 encoder's first stages on the CUDA device (fxform_cuda.cu; fxform_cuda_none.c in
 * a build without CUDA, where every call reports TSR_ERR_NO_BACKEND): a tile's samples into its
 * components (DC level shift, forward RCT or ICT) and the forward DWT of a tile-component. They
 * write the CPU encoder's bits (encode.c's load_channel_rows, load_mct_rows and transform_tile,
 * mct.c, fdwt.c): the per-sample arithmetic is fxform_hd.h's (whose quantisation encode_cuda.cu's
 * block coders apply per code-block). Work is queued on the context's CUDA stream (the CUDA backend
 * open on ctx) and returns before it runs; the caller orders its inputs on that stream and keeps
 * the memory alive until it has passed. */
#ifndef TSR_J2K_FXFORM_CUDA_H
#define TSR_J2K_FXFORM_CUDA_H

#include "j2k/codestream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A tile's samples into its components on the device: pixel (x, y) of the region of w x h
 * pixels at src (row y at src + y * src_stride bytes, both even for 16-bit samples; channels
 * interleaved 8- or 16-bit samples of prec bits) becomes sample x of row y of dst[c] (rows
 * dst_stride samples apart) for each channel c: DC level shifted (G.1), as floats when !rev, and
 * with mct the first three through the forward RCT (rev) or ICT (G.2, G.3). The bits of encode.c's
 * transform_tile before its DWT. */
typedef struct tsr__j2k_dev_fload {
    const void *src;
    size_t src_stride; /* bytes */
    uint32_t channels; /* 1..4 */
    int wide;          /* 16-bit samples */
    uint32_t prec;     /* 8 or 16 */
    uint32_t w, h;
    int mct; /* channels >= 3 */
    int rev; /* reversible: int32 samples (RCT); else float bits (ICT) */
    int32_t *dst[4];
    size_t dst_stride; /* samples */
} tsr__j2k_dev_fload;

tsr_status tsr__j2k_fload_cuda(tsr_ctx *ctx, const tsr__j2k_dev_fload *o);

/* Forward DWT of one tile-component on the device, in place: d_data (stride elements per row)
 * holds the tile-component's samples as tc->data before tsr__fdwt53 (reversible: int32) or
 * tsr__fdwt97 (float bits), res[0 .. nres) its resolutions (tc->res, nres = tc->numres); on
 * completion d_data holds what those CPU functions leave in tc->data (bit-identical; samples
 * past each row's width untouched). Device scratch of the top resolution's size is kept on the
 * context (a context state) and reused. */
tsr_status tsr__j2k_fdwt_cuda(tsr_ctx *ctx, int32_t *d_data, size_t stride, const tsr__j2k_res *res,
                              uint32_t nres, int reversible);

#ifdef __cplusplus
}
#endif
#endif
