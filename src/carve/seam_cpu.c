/* Seams on the CPU: backtracking from the leftmost minimum of the last row, and removal of one
 * pixel per row (or k, in batch mode) from every plane of the grid and the DP arrays. */
#include "carve/plan.h"

#include <string.h>

tsr__carve_cost tsr__carve_backtrack(const tsr__carve_grid *g, const tsr__carve_dp *d, int32_t *xs)
{
    const size_t dp = (size_t)d->pitch;
    const int32_t h = g->h, w = g->w;
    const tsr__carve_cost *last = d->cost + (size_t)(h - 1) * dp;
    int32_t x = 0;
    for (int32_t i = 1; i < w; i++)
        if (last[i] < last[x])
            x = i;
    const tsr__carve_cost key = last[x];
    for (int32_t y = h - 1; y >= 0; y--) {
        xs[y] = x;
        x += d->back[(size_t)y * dp + (size_t)x];
    }
    return key;
}

/* Removes the k sorted columns cols[0..k) from a row of n elements of es bytes. */
static void cut_many(void *row, const int32_t *cols, int32_t k, int32_t n, size_t es)
{
    uint8_t *r = row;
    size_t to = (size_t)cols[0] * es;
    for (int32_t j = 0; j < k; j++) {
        const int32_t from = cols[j] + 1, end = j + 1 < k ? cols[j + 1] : n;
        const size_t len = (size_t)(end - from) * es;
        memmove(r + to, r + (size_t)from * es, len);
        to += len;
    }
}

void tsr__carve_remove_from_row(tsr__carve_grid *g, tsr__carve_dp *d, int32_t y, const int32_t *c,
                                int32_t k, uint32_t *rec)
{
    const int32_t w = g->w;
    const size_t o = (size_t)y * (size_t)g->pitch;
    if (rec)
        for (int32_t j = 0; j < k; j++)
            rec[(size_t)j * (size_t)g->h + (size_t)y] = g->index[o + (size_t)c[j]];
    if (g->pix)
        cut_many(g->pix + o * g->px, c, k, w, g->px);
    cut_many(g->luma + o, c, k, w, 1);
    if (g->mask)
        cut_many(g->mask + o, c, k, w, 1);
    if (g->index)
        cut_many(g->index + o, c, k, w, sizeof(uint32_t));
    if (d) {
        const size_t od = (size_t)y * (size_t)d->pitch;
        if (d->energy)
            cut_many(d->energy + od, c, k, w, sizeof(uint16_t));
        cut_many(d->cost + od, c, k, w, sizeof(tsr__carve_cost));
        cut_many(d->back + od, c, k, w, 1);
    }
}

void tsr__carve_remove(tsr__carve_grid *g, tsr__carve_dp *d, const int32_t *xs, uint32_t *rec,
                       int threads)
{
    (void)threads;
#pragma omp parallel for schedule(static)                                                          \
    num_threads(threads) if (threads > 1 && (int64_t)g->w * g->h >= TSR__CARVE_PARALLEL_MIN)
    for (int32_t y = 0; y < g->h; y++)
        tsr__carve_remove_from_row(g, d, y, xs + y, 1, rec);
    g->w--;
}

void tsr__carve_remove_many(tsr__carve_grid *g, const int32_t *cols, int32_t k, uint32_t *rec,
                            int threads)
{
    (void)threads;
#pragma omp parallel for schedule(static)                                                          \
    num_threads(threads) if (threads > 1 && (int64_t)g->w * g->h >= TSR__CARVE_PARALLEL_MIN)
    for (int32_t y = 0; y < g->h; y++)
        tsr__carve_remove_from_row(g, NULL, y, cols + (size_t)y * (size_t)k, k, rec);
    g->w -= k;
}
