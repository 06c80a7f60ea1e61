/* Backward energy (tessera/carve.h), the one formula every carve path computes, CPU and device:
 * e(x, y) = |Y(x+1, y) - Y(x-1, y)| + |Y(x, y+1) - Y(x, y-1)|, each neighbour clamped into the
 * current image (a border pixel takes a one-sided difference). At most 510. */
#ifndef TSR_CARVE_ENERGY_HD_H
#define TSR_CARVE_ENERGY_HD_H

#include "core/hd.h"

#include <stdint.h>

TSR_HD int32_t tsr__carve_absdiff(int32_t a, int32_t b)
{
    return a > b ? a - b : b - a;
}

/* From the luma of the pixel's left and right neighbours and of those above and below it
 * (already clamped). */
TSR_HD uint16_t tsr__carve_energy_of(int32_t l, int32_t r, int32_t up, int32_t dn)
{
    return (uint16_t)(tsr__carve_absdiff(r, l) + tsr__carve_absdiff(dn, up));
}

/* Of pixel (x, y) of a w x h luma plane with rows pitch bytes apart. */
TSR_HD uint16_t tsr__carve_energy_cell(const uint8_t *luma, int64_t pitch, int32_t w, int32_t h,
                                       int32_t x, int32_t y)
{
    const uint8_t *row = luma + (int64_t)y * pitch;
    const uint8_t *up = luma + (int64_t)(y > 0 ? y - 1 : y) * pitch;
    const uint8_t *dn = luma + (int64_t)(y < h - 1 ? y + 1 : y) * pitch;
    return tsr__carve_energy_of(row[x > 0 ? x - 1 : 0], row[x < w - 1 ? x + 1 : w - 1], up[x],
                                dn[x]);
}

#endif
