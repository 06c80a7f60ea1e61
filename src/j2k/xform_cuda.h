/* PLACEHOLDER until the xformdev branch lands: the interface agreed in its brief. */
#ifndef TSR_J2K_XFORM_CUDA_H
#define TSR_J2K_XFORM_CUDA_H
#include "j2k/codestream.h"
#ifdef __cplusplus
extern "C" {
#endif
tsr_status tsr__j2k_idwt_cuda(tsr_ctx *ctx, int32_t *d_data, size_t stride,
                              const tsr__j2k_res *res, uint32_t nres, int reversible);
typedef struct tsr__j2k_dev_chan {
    const int32_t *src;
    size_t src_stride;
    int64_t src_x0, src_y0;
    int64_t lo, hi, shift;
    int is_float;
    int32_t off;
    uint64_t num, den;
    uint32_t comp;
} tsr__j2k_dev_chan;
typedef struct tsr__j2k_dev_output {
    uint32_t nchan;
    tsr__j2k_dev_chan chan[4];
    int mct;
    const int32_t *mct_src[3];
    size_t mct_stride[3];
    int64_t x0, y0, x1, y1;
    void *dst;
    size_t dst_stride;
    int64_t dst_x0, dst_y0;
    int wide;
    int exact;
} tsr__j2k_dev_output;
tsr_status tsr__j2k_output_cuda(tsr_ctx *ctx, const tsr__j2k_dev_output *o);
#ifdef __cplusplus
}
#endif
#endif
