/* A random HT code-block for the decoder tests (test_j2k_t1.c, test_j2k_ht_simd.c): 0-2
 * placeholder segments of 3 passes, the cleanup segment cup[0..lcup), 0-2 refinement passes over
 * ref[0..lref), random orientation, causal style bit, zero bit-planes in [0, zero_bp_max], Mb in
 * [1, 30], reversibility, and one time in roi_one_in a ROI shift. segs (3 entries) receives the
 * segments the block points to. The draws from rng are in a fixed order, so a seed gives the
 * same blocks. Header-only. */
#ifndef TSR_TESTS_HT_RANDOM_BLOCK_H
#define TSR_TESTS_HT_RANDOM_BLOCK_H

#include "j2k/t1.h"
#include "testlib.h"

#include <stdint.h>

static tsr__t1_block ht_random_block(tsr_rng *rng, uint32_t w, uint32_t h, const uint8_t *cup,
                                     uint32_t lcup, const uint8_t *ref, uint32_t lref,
                                     tsr__t1_seg segs[3], int zero_bp_max, int roi_one_in)
{
    uint32_t ns = 0, np = 0;
    const uint32_t ph = 3u * (uint32_t)tsr_rng_range(rng, 0, 2);
    if (ph)
        segs[ns++] = (tsr__t1_seg){cup, 0, ph};
    segs[ns++] = (tsr__t1_seg){cup, lcup, 1};
    const uint32_t nref = (uint32_t)tsr_rng_range(rng, 0, 2);
    if (nref)
        segs[ns++] = (tsr__t1_seg){ref, lref, nref};
    for (uint32_t k = 0; k < ns; k++)
        np += segs[k].npasses;
    tsr__t1_block blk = {.w = w,
                         .h = h,
                         .orient = (uint8_t)tsr_rng_range(rng, 0, 3),
                         .style = (uint8_t)(0x40 | (tsr_rng_range(rng, 0, 1) ? 0x08 : 0)),
                         .zero_bp = (uint8_t)tsr_rng_range(rng, 0, zero_bp_max),
                         .mb = (uint8_t)tsr_rng_range(rng, 1, 30),
                         .reversible = (uint8_t)tsr_rng_range(rng, 0, 1),
                         .npasses = np,
                         .nsegs = ns,
                         .segs = segs};
    if (blk.mb < 30 && tsr_rng_range(rng, 0, roi_one_in - 1) == 0)
        blk.roi_shift = (uint8_t)tsr_rng_range(rng, 1, 31 - blk.mb);
    return blk;
}

#endif
