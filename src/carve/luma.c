/* Luma for seam carving (tessera/carve.h): Y = (77*R + 150*G + 29*B + 128) >> 8 for RGB(A); the
 * sample itself for gray(+alpha). 16-bit images use the top 8 bits of each sample. Alpha is
 * ignored. */
#include "carve/plan.h"

void tsr__carve_luma_row(tsr__carve_grid *g, int32_t y, int32_t x0, int32_t x1)
{
    uint8_t *out = g->luma + (size_t)y * (size_t)g->pitch;
    const int cn = g->channels;
    if (g->depth == TSR_U8) {
        const uint8_t *p = g->pix + (size_t)y * (size_t)g->pitch * g->px;
        for (int32_t x = x0; x < x1; x++) {
            const uint8_t *s = p + (size_t)x * (size_t)cn;
            out[x] =
                cn >= 3 ? (uint8_t)((77u * s[0] + 150u * s[1] + 29u * s[2] + 128u) >> 8) : s[0];
        }
    } else {
        const uint16_t *p = (const uint16_t *)(g->pix + (size_t)y * (size_t)g->pitch * g->px);
        for (int32_t x = x0; x < x1; x++) {
            const uint16_t *s = p + (size_t)x * (size_t)cn;
            out[x] = cn >= 3 ? (uint8_t)((77u * (s[0] >> 8) + 150u * (s[1] >> 8) +
                                          29u * (s[2] >> 8) + 128u) >>
                                         8)
                             : (uint8_t)(s[0] >> 8);
        }
    }
}

void tsr__carve_luma_all(tsr__carve_grid *g, int threads)
{
    (void)threads;
#pragma omp parallel for schedule(static)                                                          \
    num_threads(threads) if (threads > 1 && (int64_t)g->w * g->h >= TSR__CARVE_PARALLEL_MIN)
    for (int32_t y = 0; y < g->h; y++)
        tsr__carve_luma_row(g, y, 0, g->w);
}
