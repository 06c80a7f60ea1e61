/* Batch mode's segment rule, computed alike by the CPU batch pass (batch.c) and the CUDA batch
 * kernels (pass_kernel_hd.h's views): each half of a batch pass restarts its energy and DP in
 * segments of about TSR__CARVE_SEG_ROWS rows counted from the cut. */
#ifndef TSR_CARVE_BATCH_HD_H
#define TSR_CARVE_BATCH_HD_H

#include "core/hd.h"

#include <stdint.h>

/* A half's DP restarts about every this many rows (one segment a half up to 2048-row images). */
enum { TSR__CARVE_SEG_ROWS = 1024 };

/* The segments of a half of hh rows: G = ceil(hh / SEG_ROWS) of S = ceil(hh / G) rows, counted
 * from the cut (the half's last row), so segment j (0: at the image's edge) starts at half row
 * *start and has *rows rows: segment 0 the rest, hh - (G - 1) S <= S. */
TSR_HD int32_t tsr__carve_batch_segs(int32_t hh)
{
    return hh <= TSR__CARVE_SEG_ROWS ? 1 : (hh + TSR__CARVE_SEG_ROWS - 1) / TSR__CARVE_SEG_ROWS;
}
TSR_HD void tsr__carve_batch_seg(int32_t hh, int32_t j, int32_t *start, int32_t *rows)
{
    const int32_t g = tsr__carve_batch_segs(hh), S = (hh + g - 1) / g, first = hh - (g - 1) * S;
    *start = j == 0 ? 0 : first + (j - 1) * S;
    *rows = j == 0 ? first : S;
}

#endif
