/* Backward energy (tessera/carve.h): e(x,y) = |Y(x+1,y) - Y(x-1,y)| + |Y(x,y+1) - Y(x,y-1)|,
 * indices clamped into the current image, so a border pixel uses a one-sided difference. At most
 * 510. Forward energy has no per-pixel plane: its transition costs are computed in the DP
 * (dp_cpu.c) from the luma directly. */
#include "carve/plan.h"

static inline int absdiff(int a, int b)
{
    return a > b ? a - b : b - a;
}

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
        e[0] = (uint16_t)(absdiff(row[w > 1 ? 1 : 0], row[0]) + absdiff(dn[0], up[0]));
        a = 1;
    }
    if (b > w - 1 && b > a) {
        int32_t x = w - 1;
        e[x] = (uint16_t)(absdiff(row[x], row[x - 1]) + absdiff(dn[x], up[x]));
        b = w - 1;
    }
    for (int32_t x = a; x < b; x++)
        e[x] = (uint16_t)(absdiff(row[x + 1], row[x - 1]) + absdiff(dn[x], up[x]));
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
