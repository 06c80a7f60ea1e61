/* PLACEHOLDER until the t1dev branch lands: the interface agreed in its brief. */
#ifndef TSR_J2K_T1_CUDA_H
#define TSR_J2K_T1_CUDA_H
#include "tessera/core.h"
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
typedef struct tsr__t1_dev_job {
    uint64_t out;
    uint32_t stride;
    uint32_t seg0;
    uint16_t w, h;
    uint16_t nsegs, npasses;
    uint8_t orient, style, zero_bp, mb, roi_shift, reversible;
    uint8_t zero;
    uint8_t pad_;
    float scale;
} tsr__t1_dev_job;
typedef struct tsr__t1_dev_seg {
    uint64_t off;
    uint32_t len, npasses;
} tsr__t1_dev_seg;
tsr_status tsr__t1_decode_cuda(tsr_ctx *ctx, const tsr__t1_dev_job *jobs, const tsr__t1_dev_seg *segs,
                               uint32_t njobs, const uint8_t *data, int32_t *coef, uint32_t *status,
                               uint32_t max_threads);
#ifdef __cplusplus
}
#endif
#endif
