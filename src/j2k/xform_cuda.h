/* The JPEG 2000 decoder's last stages on the CUDA device (xform_cuda.cu; xform_cuda_none.c in a
 * build without CUDA, where both calls report TSR_ERR_UNSUPPORTED): the inverse DWT of a
 * tile-component, and the colour transform, DC level shift, rounding, clamping and packing into
 * interleaved pixels of a tile's region. Both write the CPU's bits (dwt.c; decode_tile.c's
 * output_row with store_row.h and pixels.c): the per-sample arithmetic is xform_hd.h's. Work is
 * queued on the context's CUDA stream (the CUDA backend open on ctx) and returns before it
 * runs; the caller orders its inputs on that stream and keeps the memory alive until it has
 * passed. */
#ifndef TSR_J2K_XFORM_CUDA_H
#define TSR_J2K_XFORM_CUDA_H

#include "j2k/codestream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Inverse DWT of one tile-component on the device, in place, asynchronously on the context's
 * CUDA stream: d_data (stride elements per row) holds the tile-component's coefficients laid
 * out exactly as tc->data before tsr__dwt53_inverse2 / tsr__dwt97_inverse2 (reversible: int32;
 * else float bits), res[0 .. nres) its resolutions' geometry (tc->res); on completion d_data
 * holds what those CPU functions leave in tc->data (bit-identical; samples past each row's
 * width untouched). nres = the decoded resolutions (dec_res). Device scratch of the top
 * resolution's size is kept on the context (a context state) and reused. */
tsr_status tsr__j2k_idwt_cuda(tsr_ctx *ctx, int32_t *d_data, size_t stride, const tsr__j2k_res *res,
                              uint32_t nres, int reversible);

/* One output channel of a tile for tsr__j2k_output_cuda: its samples (the tile-component's top
 * decoded resolution on the device after the inverse DWT: row y absolute at
 * src + (y - src_y0) * src_stride, column src_x0 first), the store rule (lo, hi, shift,
 * is_float as in tsr__j2k_store_plan) and the pixel rule (off, num, den as tsr__j2k_pixels has
 * them for this channel). */
typedef struct tsr__j2k_dev_chan {
    const int32_t *src;
    size_t src_stride;
    int64_t src_x0, src_y0;
    int64_t lo, hi, shift;
    int is_float;
    int32_t off;
    uint64_t num, den;
    uint32_t comp; /* codestream component (0..2 take part in the colour transform) */
} tsr__j2k_dev_chan;

typedef struct tsr__j2k_dev_output {
    uint32_t nchan; /* 1..4 image channels */
    tsr__j2k_dev_chan chan[4];
    /* colour transform of codestream components 0..2 first (0: none, 1: RCT, 2: ICT), with
     * their sources mct_src[0..2] (same geometry as chan's, src_stride of each given) */
    int mct;
    const int32_t *mct_src[3];
    size_t mct_stride[3];
    int64_t x0, y0, x1, y1; /* the region written, absolute (top-resolution) coordinates */
    void *dst;              /* device image memory: row y at dst + (y - dst_y0) * dst_stride */
    size_t dst_stride;      /* bytes */
    int64_t dst_x0, dst_y0; /* absolute coordinates of the image's pixel (0, 0) */
    int wide;               /* 16-bit output */
    int exact;              /* tsr__j2k_pixels.exact */
} tsr__j2k_dev_output;

/* Writes the region's pixels into the device image, the same bytes the CPU's output_row (MCT in
 * place on the three sources, then store, then pixels) writes, asynchronously on the context's
 * stream. The sources are only read (the colour transform of a pixel is computed where it is
 * used, never written back). With mct, a channel of component 0..2 takes its three inputs from
 * mct_src[0..2] at the channel's (src_x0, src_y0) geometry and its own src is not read; every
 * channel's store rule is applied once, also when two channels name the same component. An
 * empty region writes nothing. */
tsr_status tsr__j2k_output_cuda(tsr_ctx *ctx, const tsr__j2k_dev_output *o);

#ifdef __cplusplus
}
#endif
#endif
