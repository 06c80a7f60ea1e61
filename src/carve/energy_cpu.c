/* The backward energy plane (carve/energy_hd.h's formula) of the CPU DP. Forward energy has no
 * per-pixel plane: its transition costs are computed in the DP (dp_cpu.c) from the luma
 * directly. */
#include "carve/energy_hd.h"
#include "carve/plan.h"

void tsr__carve_energy_row(const tsr__carve_grid *g, tsr__carve_dp *d, int32_t y, int32_t x0,
                           int32_t x1)
{
    const size_t pitch = (size_t)g->pitch;
    const int32_t w = g->w, h = g->h;
    const uint8_t *row = g->luma + (size_t)y * pitch;
    const uint8_t *up = g->luma + (size_t)(y > 0 ? y - 1 : y) * pitch;
    const uint8_t *dn = g->luma + (size_t)(y < h - 1 ? y + 1 : y) * pitch;
    uint16_t *e = d->energy + (size_t)y * (size_t)d->pitch;
    int32_t a = x0, b = x1;
    /* The clamped ends first, then the interior without branches. */
    if (a < 1 && a < b) {
        e[0] = tsr__carve_energy_cell(g->luma, (int64_t)pitch, w, h, 0, y);
        a = 1;
    }
    if (b > w - 1 && b > a) {
        e[w - 1] = tsr__carve_energy_cell(g->luma, (int64_t)pitch, w, h, w - 1, y);
        b = w - 1;
    }
    for (int32_t x = a; x < b; x++)
        e[x] = tsr__carve_energy_of(row[x - 1], row[x + 1], up[x], dn[x]);
}

void tsr__carve_energy_all(const tsr__carve_grid *g, tsr__carve_dp *d, int threads)
{
    (void)threads;
    if (d->kind != TSR_CARVE_BACKWARD)
        return;
#pragma omp parallel for schedule(static)                                                          \
    num_threads(threads) if (threads > 1 && (int64_t)g->w * g->h >= TSR__CARVE_PARALLEL_MIN)
    for (int32_t y = 0; y < g->h; y++)
        tsr__carve_energy_row(g, d, y, 0, g->w);
}
