/* GPU JPEG decoding through NVIDIA nvJPEG, as seen from C. nvjpeg_cuda.cu binds libnvjpeg at run
 * time (dlopen of libnvjpeg.so.13, then libnvjpeg.so), so that the library builds and loads
 * where nvJPEG is absent; nvjpeg_cuda_none.c stands in for it in a build without CUDA.
 *
 * The pixels are nvJPEG's, not libjpeg-turbo's: its IDCT and its chroma upsampling differ from
 * libjpeg's islow IDCT and fancy (triangular) upsampling, so samples differ by small amounts
 * (tests/unit/test_nvjpeg_cuda_gpu.c measures how much). */
#ifndef TSR_CUDA_NVJPEG_H
#define TSR_CUDA_NVJPEG_H

#include "tessera/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Decodes count JPEG files (data[i], len[i] bytes in host memory) into the device images out[i]
 * (TSR_MEMORY_CUDA, u8, on the context's open CUDA device), whose width, height and channels
 * must be the file's (1 for gray, 3 for YCbCr or RGB, as tsr_jpeg_info says); only the
 * width * channels first bytes of each row are written. Baseline files go to the GPU's hardware
 * JPEG decoders in batches where the device has them (nvJPEG's hardware backend, after
 * nvjpegDecodeBatchedSupported), the others one by one to nvJPEG's default (GPU-hybrid)
 * backend. Runs on the context's stream and returns when the images are complete. Stops at the
 * first file that fails (TSR_ERR_CORRUPT for data nvJPEG rejects, TSR_ERR_UNSUPPORTED for a
 * layout it does not decode, with a message naming the index); *done receives how many images
 * from the first are complete, and *on_hardware (may be NULL) how many the hardware decoders
 * decoded (0 on a GPU without them). Without libnvjpeg: TSR_ERR_NO_BACKEND, "nvJPEG not found
 * (libnvjpeg.so.13): ...". */
tsr_status tsr__nvjpeg_decode(tsr_ctx *ctx, const void *const *data, const size_t *len,
                              tsr_image *out, size_t count, size_t *done, size_t *on_hardware);

/* 1 when libnvjpeg can be loaded here (a test's skip check); loads nothing into a context. */
int tsr__nvjpeg_available(void);

#ifdef __cplusplus
}
#endif
#endif
