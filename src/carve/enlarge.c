/* Enlargement (tessera/carve.h): to insert k seams, find the k seams that removal would take, on a
 * copy (luma, masks and each pixel's column; no pixels), then give every seam pixel p(x) a new
 * pixel right of it, (p(x) + p(x+1) + 1) >> 1 per channel, p(x+1) clamped to the row (the last
 * column is duplicated as is). Every inserted pixel's neighbours are pixels of the round's input,
 * so the result does not depend on the order in which the seams are inserted. The new pixel copies
 * the seam pixel's mask bits and index. Rounds insert at most max(1, floor(w/2)) seams (a 1-column
 * image grows by one column per round). */
#include "carve/plan.h"

#include "core/checked.h"
#include "core/ctx.h"

#include <string.h>

/* The output row: each input pixel, followed by its inserted pixel when dup[x] is set. */
static void widen_row(const tsr__carve_grid *g, tsr__carve_grid *n, int32_t y, const uint8_t *dup)
{
    const size_t gp = (size_t)g->pitch, np = (size_t)n->pitch, px = g->px;
    const int32_t w = g->w, cn = g->channels;
    const uint8_t *sp = g->pix + (size_t)y * gp * px;
    uint8_t *dp = n->pix + (size_t)y * np * px;
    const uint8_t *sm = g->mask ? g->mask + (size_t)y * gp : NULL;
    uint8_t *dm = n->mask ? n->mask + (size_t)y * np : NULL;
    const uint32_t *si = g->index ? g->index + (size_t)y * gp : NULL;
    uint32_t *di = n->index ? n->index + (size_t)y * np : NULL;
    int32_t o = 0;
    for (int32_t x = 0; x < w; x++) {
        memcpy(dp + (size_t)o * px, sp + (size_t)x * px, px);
        if (dm)
            dm[o] = sm[x];
        if (di)
            di[o] = si[x];
        o++;
        if (!dup[x])
            continue;
        const int32_t r = x + 1 < w ? x + 1 : x;
        if (g->depth == TSR_U8) {
            const uint8_t *a = sp + (size_t)x * px, *b = sp + (size_t)r * px;
            uint8_t *t = dp + (size_t)o * px;
            for (int32_t c = 0; c < cn; c++)
                t[c] = (uint8_t)(((unsigned)a[c] + b[c] + 1u) >> 1);
        } else {
            const uint16_t *a = (const uint16_t *)(sp + (size_t)x * px),
                           *b = (const uint16_t *)(sp + (size_t)r * px);
            uint16_t *t = (uint16_t *)(dp + (size_t)o * px);
            for (int32_t c = 0; c < cn; c++)
                t[c] = (uint16_t)(((uint32_t)a[c] + b[c] + 1u) >> 1);
        }
        if (dm)
            dm[o] = sm[x];
        if (di)
            di[o] = si[x];
        o++;
    }
}

/* One round: inserts k seams into *g (replaced by the wider grid). */
static tsr_status insert_round(tsr_ctx *ctx, tsr__carve_grid *g, int32_t k, tsr__carve_pass *p,
                               uint8_t *marks)
{
    const int32_t w = g->w, h = g->h;
    tsr__carve_grid copy, wide;
    memset(&wide, 0, sizeof wide);
    uint32_t *rec = NULL;
    uint8_t *dup = NULL;
    size_t n;
    void *mem;
    tsr_status st =
        tsr__carve_grid_alloc(ctx, &copy, w, h, w, g->channels, g->depth, 0, g->mask != NULL, 1);
    if (st != TSR_OK)
        return st;
    copy.has_keep = g->has_keep;
    copy.has_drop = g->has_drop;
    for (int32_t y = 0; y < h; y++) {
        const size_t so = (size_t)y * (size_t)g->pitch, d = (size_t)y * (size_t)w;
        memcpy(copy.luma + d, g->luma + so, (size_t)w);
        if (g->mask)
            memcpy(copy.mask + d, g->mask + so, (size_t)w);
        for (int32_t x = 0; x < w; x++)
            copy.index[d + (size_t)x] = (uint32_t)x;
    }
    if (!tsr__size_mul3((size_t)k, (size_t)h, sizeof *rec, &n) ||
        (st = tsr__alloc(ctx, n, &mem)) != TSR_OK)
        goto done;
    rec = mem;
    tsr__carve_pass q = *p;
    q.record = rec;
    q.until_drop_gone = 0;
    q.marks = NULL;
    q.dp_passes = 0;
    q.energy_sum = 0;
    q.device_ms = 0;
    if (w == 1) { /* the only seam of a 1-column image is its column */
        memset(rec, 0, n);
    } else if ((st = tsr__carve_remove_seams(ctx, &copy, k, &q)) != TSR_OK) {
        goto done;
    }
    p->dp_passes += q.dp_passes;
    p->device_ms += q.device_ms;
    if (!tsr__size_mul((size_t)w, (size_t)h, &n) || (st = tsr__alloc(ctx, n, &mem)) != TSR_OK)
        goto done;
    dup = mem;
    memset(dup, 0, n);
    for (int32_t j = 0; j < k; j++)
        for (int32_t y = 0; y < h; y++)
            dup[(size_t)y * (size_t)w + rec[(size_t)j * (size_t)h + (size_t)y]] = 1;
    if ((st = tsr__carve_grid_alloc(ctx, &wide, w + k, h, w + k, g->channels, g->depth, 1,
                                    g->mask != NULL, g->index != NULL)) != TSR_OK)
        goto done;
    wide.has_keep = g->has_keep;
    wide.has_drop = g->has_drop;
    const int threads = p->backend == TSR_BACKEND_REFERENCE ? 1 : p->threads;
    (void)threads;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (int32_t y = 0; y < h; y++)
        widen_row(g, &wide, y, dup + (size_t)y * (size_t)w);
    if (marks && g->index)
        for (int32_t y = 0; y < h; y++)
            for (int32_t x = 0; x < w; x++)
                if (dup[(size_t)y * (size_t)w + (size_t)x])
                    marks[g->index[(size_t)y * (size_t)g->pitch + (size_t)x]] = 1;
    tsr__carve_luma_all(&wide, threads);
    tsr__carve_grid_free(ctx, g);
    *g = wide;
    memset(&wide, 0, sizeof wide);
done:
    tsr__carve_grid_free(ctx, &copy);
    tsr__carve_grid_free(ctx, &wide);
    tsr__free(ctx, rec);
    tsr__free(ctx, dup);
    return st;
}

tsr_status tsr__carve_insert_seams(tsr_ctx *ctx, tsr__carve_grid *g, int32_t count,
                                   tsr__carve_pass *p, uint8_t *marks)
{
    int32_t done = 0;
    while (done < count) {
        int32_t k = g->w / 2 < 1 ? 1 : g->w / 2;
        if (k > count - done)
            k = count - done;
        tsr_status st = insert_round(ctx, g, k, p, marks);
        if (st != TSR_OK)
            return st;
        done += k;
    }
    return TSR_OK;
}
