/* Tier-1 on a CUDA device: tsr__t1_decode (t1.h) of many code-blocks per call, one thread per
 * block, from the same source as the CPU decoder (t1_decode_hd.h, ht_decode_hd.h; the HT cleanup
 * is the scalar one), so every coefficient and status equals the CPU's bit for bit. t1_cuda.cu in
 * a build with CUDA, t1_cuda_none.c (TSR_ERR_UNSUPPORTED) without. */
#ifndef TSR_J2K_T1_CUDA_H
#define TSR_J2K_T1_CUDA_H

#include "tessera/core.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One code-block for the device decoder: tsr__t1_block's fields, its segments as entries of a
 * segment table whose data are offsets into one uploaded byte buffer, and where its w x h
 * coefficients go. */
typedef struct tsr__t1_dev_job {
    uint64_t out;    /* element index of the block's coefficient (0, 0) in coef */
    uint32_t stride; /* elements between its rows */
    uint32_t seg0;   /* its first segment in the segment table; nsegs follow */
    uint16_t w, h;
    uint16_t nsegs, npasses;
    uint8_t orient, style, zero_bp, mb, roi_shift, reversible;
    uint8_t zero; /* 1: write w x h zeros and nothing else (no contribution) */
    uint8_t pad_;
    float scale; /* !reversible: each value v becomes the float (float)v * scale, its bits stored */
} tsr__t1_dev_job;

typedef struct tsr__t1_dev_seg {
    uint64_t off; /* byte offset of the segment in data */
    uint32_t len, npasses;
} tsr__t1_dev_seg;

/* Decodes jobs[0 .. njobs) (device arrays) on the context's CUDA stream, asynchronously, as
 * tsr__t1_decode would on the CPU, each followed by the irreversible scaling of cblk_jobs.c:
 * every block's w x h coefficients written into coef. status[j] = (warning bits << 8) |
 * (uint8_t)rc with rc tsr__t1_decode's return code (so 0 OK, 1 WARN, 0xff CORRUPT, ...); a zero
 * job's status is 0. A job that tsr__t1_decode rejects with TSR__T1_EINVAL (0xfd: sizes beyond
 * t1.h's limits, npasses != the sum of its segments' passes, stride < w) writes no coefficient,
 * as on the CPU, and is not scaled. data: the segments' bytes; the decoder never reads outside
 * [data + off, data + off + len) of a segment (the CPU decoder's rule), the caller adds no
 * padding. Workspaces (one tsr__t1_ws and a segment table per thread, about 124 KB): kept by the
 * context between calls (grown when needed, freed with the context), at most `max_threads`
 * blocks in flight (0: 132 * 128; capped by njobs). The arrays must stay untouched until the
 * stream has passed the call. Returns launch/allocation errors only (TSR_ERR_NO_BACKEND when
 * the context has no CUDA device). */
tsr_status tsr__t1_decode_cuda(tsr_ctx *ctx, const tsr__t1_dev_job *jobs,
                               const tsr__t1_dev_seg *segs, uint32_t njobs, const uint8_t *data,
                               int32_t *coef, uint32_t *status, uint32_t max_threads);

#ifdef __cplusplus
}
#endif

#endif
