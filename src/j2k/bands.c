/* The top resolution of a tile-component reconstructed in bands of rows (j2k_int.h describes
 * the slots and the window; decode.c runs the groups).
 *
 * Geometry: the top resolution's rows are positions P in [y0, y0 + rh) (absolute). Even P is
 * low-pass row P / 2 (the resolution below, from tc->data, then the HL band), odd P high-pass
 * row (P - 1) / 2 (the LH and HH bands); in both cases the band row is floor(P / 2), so group g
 * (band rows [g G, g G + G)) holds the positions [2 g G, 2 g G + 2 G).
 *
 * Exactness: the last level's vertical lifting (F.3.8) moves information one row per step: 2
 * steps for 5/3, 4 for 9/7 (the K scaling is per sample). A window [w0, w1) lifted on its own,
 * with the symmetric extension at its ends, therefore computes the same operations on the same
 * operands as the whole column for every row at least M = steps rows from an end of the window
 * that is not an end of the column; those are the only rows taken from it. */
#include "j2k/j2k_int.h"

#include <string.h>

static uint32_t top_rw(const tsr__j2k_tilecomp *tc)
{
    const tsr__j2k_res *r = &tc->res[tc->dec_res - 1];
    return r->x1 - r->x0;
}

size_t tsr__j2k_bands_size(const tsr__j2k_tilecomp *tc, uint32_t G, uint32_t M)
{
    const tsr__j2k_res *r = &tc->res[tc->dec_res - 1];
    size_t n = 0;
    for (uint32_t b = 0; b < 3; b++)
        n += (size_t)2 * G * (r->bands[b].x1 - r->bands[b].x0);
    return n + (size_t)(2 * G + 2 * M) * top_rw(tc);
}

void tsr__j2k_bands_init(tsr__j2k_bands *bb, const tsr__j2k_tilecomp *tc, uint32_t G, uint32_t M,
                         int32_t *mem)
{
    const tsr__j2k_res *r = &tc->res[tc->dec_res - 1];
    bb->G = G;
    bb->M = M;
    bb->g_first = (r->y0 / 2) / G;
    bb->g_last = ((r->y1 - 1) / 2) / G;
    for (uint32_t b = 0; b < 3; b++) {
        bb->bw[b] = r->bands[b].x1 - r->bands[b].x0;
        bb->slot[b] = mem;
        mem += (size_t)2 * G * bb->bw[b];
    }
    bb->win = mem;
    bb->win_cap = 2 * G + 2 * M;
}

void tsr__j2k_bands_span(const tsr__j2k_bands *bb, uint32_t y0, uint32_t rh, uint32_t g, uint32_t a,
                         uint32_t *b, uint32_t *w0, uint32_t *w1)
{
    /* positions before 2 (g + 1) G are decoded */
    const uint64_t end = (uint64_t)2 * (g + 1) * bb->G;
    const uint32_t t = g >= bb->g_last || end >= (uint64_t)y0 + rh ? rh : (uint32_t)(end - y0);
    *b = t == rh ? rh : t > a + bb->M ? t - bb->M : a;
    *w0 = a > bb->M ? a - bb->M : 0;
    *w1 = t;
}

void tsr__j2k_bands_synth(const tsr__j2k_bands *bb, const tsr__j2k_tilecomp *tc, uint32_t w0,
                          uint32_t w1, int rev, int32_t *scratch, size_t per_thread, int threads)
{
    const tsr__j2k_res *r = &tc->res[tc->dec_res - 1], *low = &tc->res[tc->dec_res - 2];
    const uint32_t rw = r->x1 - r->x0, snx = low->x1 - low->x0, y0 = r->y0;
    /* low rows (even positions) first, then high rows, in position order */
    const uint32_t p0 = y0 + w0, p1 = y0 + w1;
    const uint32_t nlow = (p1 + 1) / 2 - (p0 + 1) / 2;
    (void)threads;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && w1 - w0 > 16)
    for (uint32_t p = p0; p < p1; p++) {
        const uint32_t m = p / 2;
        int32_t *row;
        const int32_t *lo, *hi;
        if ((p & 1) == 0) {
            row = bb->win + (size_t)(m - (p0 + 1) / 2) * rw;
            lo = tc->data + (size_t)(m - low->y0) * tc->stride;
            hi = tsr__j2k_bands_row(bb, 0, m);
        } else {
            row = bb->win + (size_t)(nlow + m - p0 / 2) * rw;
            lo = tsr__j2k_bands_row(bb, 1, m);
            hi = tsr__j2k_bands_row(bb, 2, m);
        }
        memcpy(row, lo, (size_t)snx * sizeof *row);
        memcpy(row + snx, hi, (size_t)(rw - snx) * sizeof *row);
    }
    tsr__dwt_level(bb->win, rw, rw, w1 - w0, snx, nlow, r->x0, p0, rev, scratch, per_thread,
                   threads);
}
