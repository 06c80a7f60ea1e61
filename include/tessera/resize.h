/* tessera resize: image resize bit-identical to OpenCV's cv::resize (C++ reference path, IPP off).
 *
 * u8, u16 and f32 outputs are bit-identical to OpenCV 4.6 (x86-64 build) for every
 * interpolation, including where OpenCV's vectorised and scalar loops round differently
 * (src/resize/plan.h says how); tests/oracle/test_resize_opencv.py checks it. Every backend gives
 * the same bytes as the single-threaded reference. */
#ifndef TESSERA_RESIZE_H
#define TESSERA_RESIZE_H

#include "tessera/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tsr_interp {
    TSR_INTERP_NEAREST = 0, /* cv::INTER_NEAREST */
    TSR_INTERP_LINEAR,      /* cv::INTER_LINEAR */
    TSR_INTERP_CUBIC,       /* cv::INTER_CUBIC */
    TSR_INTERP_AREA,        /* cv::INTER_AREA */
    TSR_INTERP_LANCZOS4,    /* cv::INTER_LANCZOS4 */
    TSR_INTERP_LINEAR_EXACT /* cv::INTER_LINEAR_EXACT */
} tsr_interp;

/* "nearest", "linear", "cubic", "area", "lanczos4", "linear-exact". */
const char *tsr_interp_name(tsr_interp interp);
tsr_status tsr_interp_parse(const char *name, tsr_interp *out);

typedef struct tsr_resize_options {
    tsr_interp interp; /* default TSR_INTERP_LINEAR */
    /* OpenCV's fx, fy. 0 (the default) means "derive from the sizes", as cv::resize does when
     * dsize is given. When nonzero they must be the factors the output size came from
     * (tsr_resize_size), because OpenCV computes its coefficients from them, not from sizes. */
    double scale_x, scale_y;
} tsr_resize_options;

void tsr_resize_options_init(tsr_resize_options *opt);

/* The output size cv::resize gives for factors fx, fy (> 0): round(src*f), half to even, as
 * saturate_cast<int>(double). TSR_ERR_INVALID_ARGUMENT when a side would be 0 or does not fit. */
tsr_status tsr_resize_size(int32_t src_width, int32_t src_height, double fx, double fy,
                           int32_t *dst_width, int32_t *dst_height);

/* Resizes src into dst (caller-allocated; its width/height give the output size). Both images
 * have the same channels and depth and must not overlap. Host images work with every backend;
 * CUDA device images (TSR_MEMORY_CUDA) need the CUDA backend. */
tsr_status tsr_resize(tsr_ctx *ctx, const tsr_image *src, tsr_image *dst,
                      const tsr_resize_options *opt);

/* Resizes count independent images with the same options; on the GPU the transfers of one image
 * overlap the kernels of another and device buffers are reused across the batch. Stops at the
 * first failure; *done (may be NULL) receives how many images completed. */
tsr_status tsr_resize_batch(tsr_ctx *ctx, const tsr_image *src, tsr_image *dst, size_t count,
                            const tsr_resize_options *opt, size_t *done);

/* Resizes count JPEG files held in host memory (jpeg[i], len[i] bytes) into dst[i], decoding
 * them on the GPU with NVIDIA nvJPEG (loaded at run time: without libnvjpeg.so.13 this is
 * TSR_ERR_NO_BACKEND, "nvJPEG not found (libnvjpeg.so.13): ..."). Needs the CUDA backend (auto
 * picks it: the decoded images are on the device); another explicit backend is
 * TSR_ERR_NO_BACKEND. dst[i] are u8 images, on the host or the device, with the channels
 * tsr_jpeg_info gives for jpeg[i] (1 gray, 3 RGB) and the output size; the decoded images stay
 * on the device, in buffers the context keeps, and are resized there as by tsr_resize_batch.
 * Baseline files go to the GPU's hardware JPEG decoders where it has them, others (progressive)
 * to nvJPEG's GPU-hybrid decoder.
 * nvJPEG's pixels are not libjpeg-turbo's: its IDCT and its chroma upsampling differ from
 * libjpeg's islow IDCT and fancy upsampling, so the decoded samples (and hence the outputs)
 * differ from tsr_image_decode's by small amounts and are not OpenCV-exact (the resize itself
 * is). Stops at the first failure; *done (may be NULL) receives how many images completed. */
tsr_status tsr_resize_jpeg_batch(tsr_ctx *ctx, const void *const *jpeg, const size_t *len,
                                 tsr_image *dst, size_t count, const tsr_resize_options *opt,
                                 size_t *done);

#ifdef __cplusplus
}
#endif
#endif
