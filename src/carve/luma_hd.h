/* Luma of one pixel for seam carving (tessera/carve.h), written once for the CPU grid
 * (luma.c) and the device-resident CUDA path (carve_cuda_resident.cu): Y = (77*R + 150*G +
 * 29*B + 128) >> 8 for RGB(A), the sample itself for gray(+alpha); 16-bit images use the top 8
 * bits of each sample; alpha is ignored. s points at the pixel's first sample, cn samples. */
#ifndef TSR_CARVE_LUMA_HD_H
#define TSR_CARVE_LUMA_HD_H

#include "core/hd.h"

#include <stdint.h>

TSR_HD uint8_t tsr__carve_luma_u8(const uint8_t *s, int cn)
{
    return cn >= 3 ? (uint8_t)((77u * s[0] + 150u * s[1] + 29u * s[2] + 128u) >> 8) : s[0];
}

TSR_HD uint8_t tsr__carve_luma_u16(const uint16_t *s, int cn)
{
    return cn >= 3
               ? (uint8_t)((77u * (s[0] >> 8) + 150u * (s[1] >> 8) + 29u * (s[2] >> 8) + 128u) >> 8)
               : (uint8_t)(s[0] >> 8);
}

#endif
