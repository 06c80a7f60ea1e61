/* The luma plane of a carve grid, pixel by pixel through luma_hd.h. */
#include "carve/luma_hd.h"
#include "carve/plan.h"

void tsr__carve_luma_row(tsr__carve_grid *g, int32_t y, int32_t x0, int32_t x1)
{
    uint8_t *out = g->luma + (size_t)y * (size_t)g->pitch;
    const int cn = g->channels;
    if (g->depth == TSR_U8) {
        const uint8_t *p = g->pix + (size_t)y * (size_t)g->pitch * g->px;
        for (int32_t x = x0; x < x1; x++)
            out[x] = tsr__carve_luma_u8(p + (size_t)x * (size_t)cn, cn);
    } else {
        const uint16_t *p = (const uint16_t *)(g->pix + (size_t)y * (size_t)g->pitch * g->px);
        for (int32_t x = x0; x < x1; x++)
            out[x] = tsr__carve_luma_u16(p + (size_t)x * (size_t)cn, cn);
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
