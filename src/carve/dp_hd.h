/* The seam DP's choice of predecessor (tessera/carve.h's definition), written once for the CPU's DP
 * (dp_cpu.c) and the optimal order's device map (order_cuda.cu): the candidates of cell x of a
 * row are the previous row's x-1, x, x+1 that exist in its w columns, compared left, centre,
 * right with strict <, so the leftmost minimum wins. Each returns the least candidate (with its
 * transition cost, forward energy) and sets *b to its offset (-1, 0, +1). */
#ifndef TSR_CARVE_DP_HD_H
#define TSR_CARVE_DP_HD_H

#include "carve/energy_hd.h"
#include "core/hd.h"

#include <stdint.h>

/* Backward energy: the least of pm[x-1], pm[x], pm[x+1]. */
TSR_HD uint64_t tsr__carve_dp_best(const uint64_t *pm, int32_t x, int32_t w, int8_t *b)
{
    uint64_t best = pm[x];
    *b = 0;
    if (x > 0) {
        best = pm[x - 1];
        *b = -1;
        if (pm[x] < best) {
            best = pm[x];
            *b = 0;
        }
    }
    if (x < w - 1 && pm[x + 1] < best) {
        best = pm[x + 1];
        *b = 1;
    }
    return best;
}

/* Forward energy: the least of pm[x-1] + CL, pm[x] + CU, pm[x+1] + CR, where CU = |r - l|,
 * CL = CU + |u - l|, CR = CU + |u - r| (l, r: the cell's left and right neighbours in its row,
 * clamped; u: the pixel above it). */
TSR_HD uint64_t tsr__carve_dp_best_forward(const uint64_t *pm, int32_t x, int32_t w, int l, int r,
                                           int u, int8_t *b)
{
    const uint64_t cu = tsr__carve_absdiff(r, l);
    uint64_t best = pm[x] + cu;
    *b = 0;
    if (x > 0) {
        best = pm[x - 1] + cu + tsr__carve_absdiff(u, l);
        *b = -1;
        if (pm[x] + cu < best) {
            best = pm[x] + cu;
            *b = 0;
        }
    }
    if (x < w - 1) {
        const uint64_t cr = pm[x + 1] + cu + tsr__carve_absdiff(u, r);
        if (cr < best) {
            best = cr;
            *b = 1;
        }
    }
    return best;
}

#endif
