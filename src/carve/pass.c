/* A pass of vertical seam removals: the loop shared by the CPU backends.
 *
 * Reference (TSR_BACKEND_REFERENCE, the oracle): for every seam, the energy and the DP of the
 * whole current image from scratch, one thread.
 * CPU parallel (TSR_BACKEND_CPU): the energy and DP of the first seam in full (rows of the
 * energy and the columns of each DP row in parallel), then, after each removal, only what the
 * removal can change: the energy of a band of columns around the seam in each row, and the DP
 * of the cells whose inputs changed, row by row: that band plus the columns under cells of the
 * previous row whose cumulative key changed, widened by one. The stored arrays are shifted with
 * the seam, so a recomputed cell is compared with its old value in place; propagation stops where
 * nothing changes. The result is the same arrays a full recomputation gives, hence the same seams.
 * Batch mode runs a full energy and DP per pass in both backends (batch.c: two halves). */
#include "carve/plan.h"

#include "carve/carve_cuda.h"
#include "core/checked.h"
#include "core/ctx.h"
#include "core/minmax.h"

#include <string.h>

/* The columns [*a, *b) of row y (new coordinates, width w) whose energy, forward costs or
 * predecessor set a removal along xs (old coordinates) can change: the seam's columns in rows
 * y-1, y, y+1, widened by two to the left and one to the right (a margin over the exact need of
 * one and zero). */
static inline void dirty_band(const int32_t *xs, int32_t h, int32_t w, int32_t y, int32_t *a,
                              int32_t *b)
{
    const int32_t u = xs[y > 0 ? y - 1 : y], c = xs[y], d = xs[y < h - 1 ? y + 1 : y];
    int32_t lo = tsr__min3(u, c, d) - 2, hi = tsr__max3(u, c, d) + 2;
    *a = lo < 0 ? 0 : lo;
    *b = hi > w ? w : hi;
}

/* Counts the drop pixels on a seam. */
static int32_t seam_drops(const tsr__carve_grid *g, const int32_t *xs)
{
    int32_t n = 0;
    for (int32_t y = 0; y < g->h; y++)
        n += (g->mask[(size_t)y * (size_t)g->pitch + (size_t)xs[y]] & TSR__CARVE_DROP) != 0;
    return n;
}

void tsr__carve_update_after_removal(tsr__carve_grid *g, tsr__carve_dp *d, const int32_t *xs,
                                     int threads)
{
    (void)threads;
    const int32_t h = g->h, w = g->w;
    if (d->kind == TSR_CARVE_BACKWARD) {
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && h >= 4096)
        for (int32_t y = 0; y < h; y++) {
            int32_t a, b;
            dirty_band(xs, h, w, y, &a, &b);
            tsr__carve_energy_row(g, d, y, a, b);
        }
    }
    int32_t plo = 1, phi = 0; /* columns of the previous row whose key changed (none) */
    for (int32_t y = 0; y < h; y++) {
        int32_t a, b;
        dirty_band(xs, h, w, y, &a, &b);
        if (plo <= phi) {
            if (plo - 1 < a)
                a = plo - 1 < 0 ? 0 : plo - 1;
            if (phi + 2 > b)
                b = phi + 2 > w ? w : phi + 2;
        }
        tsr__carve_dp_span(g, d, y, a, b, &plo, &phi);
    }
}

tsr_status tsr__carve_remove_seams(tsr_ctx *ctx, tsr__carve_grid *g, int32_t count,
                                   tsr__carve_pass *p)
{
    p->removed = 0;
    if (count <= 0 && !p->until_drop_gone)
        return TSR_OK;
    if (p->until_drop_gone)
        count = g->w - 1;
    if (count > g->w - 1)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "carve: cannot remove %d seams from an image %d pixels wide", (int)count,
                         (int)g->w);
    /* Both modes on the device (pass_device.c, carve_cuda.cu). */
    if (p->backend == TSR_BACKEND_CUDA)
        return tsr__carve_remove_seams_cuda(ctx, g, count, p);
    const int threads = p->backend == TSR_BACKEND_REFERENCE ? 1 : p->threads;
    const int batch = p->mode == TSR_CARVE_BATCH;
    tsr__carve_dp d;
    tsr_status st = tsr__carve_dp_alloc(ctx, &d, p->energy, g->pitch, g->h);
    if (st != TSR_OK)
        return st;
    tsr__carve_dp_penalties(&d, g);
    int32_t *xs = NULL, *cols = NULL, *scratch = NULL;
    tsr__carve_grid flip; /* batch mode: the bottom half upside down (batch.c) */
    memset(&flip, 0, sizeof flip);
    size_t n;
    void *mem;
    if (!tsr__size_mul((size_t)g->h, sizeof *xs, &n) || (st = tsr__alloc(ctx, n, &mem)) != TSR_OK)
        goto done;
    xs = mem;
    if (batch) {
        /* At most the adaptive or fixed K of the first pass seams per pass. */
        int32_t kmax = tsr__carve_batch_k(g->w, count, p->batch_seams);
        if (!tsr__size_mul3((size_t)g->h, (size_t)kmax, sizeof *cols, &n) ||
            (st = tsr__alloc(ctx, n, &mem)) != TSR_OK)
            goto done;
        cols = mem;
        if (!tsr__size_mul((size_t)kmax, sizeof *scratch, &n) ||
            (st = tsr__alloc(ctx, n, &mem)) != TSR_OK)
            goto done;
        scratch = mem;
        if ((st = tsr__carve_grid_alloc(ctx, &flip, g->w, g->h - g->h / 2, g->pitch, g->channels,
                                        g->depth, 0, g->mask != NULL, 0)) != TSR_OK)
            goto done;
    }
    int64_t drops = p->until_drop_gone ? tsr__carve_grid_drops(g) : 0;
    int fresh = 1; /* the DP arrays must be computed in full */
    while (p->removed < count) {
        if (p->until_drop_gone && drops == 0)
            break;
        if ((p->removed & 15) == 0 &&
            (st = tsr__progress(ctx, "carve", (double)p->removed, (double)count)) != TSR_OK)
            goto done;
        if (batch) {
            int32_t k = tsr__carve_batch_k(g->w, count - p->removed, p->batch_seams);
            p->energy_sum += tsr__carve_batch_select(g, &d, &flip, k, cols, scratch, threads);
            if (p->marks)
                for (size_t i = 0; i < (size_t)g->h * (size_t)k; i++)
                    p->marks[g->index[(i / (size_t)k) * (size_t)g->pitch + (size_t)cols[i]]] = 1;
            if (p->until_drop_gone) {
                for (int32_t y = 0; y < g->h; y++)
                    for (int32_t j = 0; j < k; j++)
                        drops -= (g->mask[(size_t)y * (size_t)g->pitch +
                                          (size_t)cols[(size_t)y * (size_t)k + (size_t)j]] &
                                  TSR__CARVE_DROP) != 0;
            }
            tsr__carve_remove_many(g, cols, k,
                                   p->record ? p->record + (size_t)p->removed * (size_t)g->h : NULL,
                                   threads);
            p->removed += k;
            p->dp_passes++;
            continue;
        }
        if (fresh || p->backend == TSR_BACKEND_REFERENCE) {
            tsr__carve_energy_all(g, &d, threads);
            tsr__carve_dp_all(g, &d, threads);
            fresh = 0;
        }
        tsr__carve_cost key = tsr__carve_backtrack(g, &d, xs);
        if (p->until_drop_gone) {
            int32_t sd = seam_drops(g, xs);
            if (sd == 0)
                break; /* every seam left crosses no drop pixel: the rest is unreachable */
            drops -= sd;
        }
        p->energy_sum += TSR__CARVE_ENERGY_OF(key);
        p->dp_passes++;
        if (p->marks)
            for (int32_t y = 0; y < g->h; y++)
                p->marks[g->index[(size_t)y * (size_t)g->pitch + (size_t)xs[y]]] = 1;
        uint32_t *rec = p->record ? p->record + (size_t)p->removed * (size_t)g->h : NULL;
        if (p->backend == TSR_BACKEND_REFERENCE) {
            tsr__carve_remove(g, NULL, xs, rec, 1);
        } else {
            tsr__carve_remove(g, &d, xs, rec, threads);
            tsr__carve_update_after_removal(g, &d, xs, threads);
        }
        p->removed++;
    }
    st = tsr__progress(ctx, "carve", (double)p->removed, (double)p->removed);
done:
    tsr__free(ctx, xs);
    tsr__free(ctx, cols);
    tsr__free(ctx, scratch);
    tsr__carve_grid_free(ctx, &flip);
    tsr__carve_dp_free(ctx, &d);
    return st;
}
