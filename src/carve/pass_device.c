/* The host side of a device seam-removal pass (pass_device.h): the loop that enqueues seams
 * (exact mode) or batch passes on a device, polls its state, fetches the removed columns once and
 * gathers the grid on the host, through a table of operations. */
#include "carve/pass_device.h"

#include "core/checked.h"
#include "core/thread_num.h"
#include "core/ctx.h"

#include <string.h>

/* Seams enqueued between two polls of the device state (progress, object removal's end). */
enum { POLL_SEAMS = 32 };

size_t tsr__carve_apply_slice(int32_t removed, int32_t w)
{
    return 2 * (size_t)((w + 63) / 64) + (size_t)((removed + 1) & ~1);
}

int tsr__carve_apply_seams(tsr__carve_grid *g, int32_t removed, const uint16_t *rec,
                           int32_t *scratch, tsr__carve_pass *p)
{
    const int32_t h = g->h, w = g->w, words = (w + 63) / 64;
    const size_t gp = (size_t)g->pitch;
    for (int32_t s = 0; s < removed; s++)
        for (int32_t y = 0; y < h; y++) {
            const size_t i = (size_t)s * (size_t)h + (size_t)y;
            const uint32_t v = g->index ? g->index[(size_t)y * gp + rec[i]] : 0;
            if (p->record)
                p->record[i] = v;
            if (p->marks)
                p->marks[v] = 1;
        }
    /* Rows are independent: in parallel from TSR__CARVE_PARALLEL_MIN pixels. A row's removed
       columns come sorted out of a bitmap of its columns, then the row is cut once (a memmove
       a run of survivors). */
    const int threads = p->threads > 1 ? p->threads : 1;
    int bad = 0;
#pragma omp parallel for schedule(static)                                                          \
    num_threads(threads) if (threads > 1 && (int64_t)h * w >= TSR__CARVE_PARALLEL_MIN)
    for (int32_t y = 0; y < h; y++) {
        const int t = tsr__thread_num();
        /* the thread's slice: the bitmap (64-bit words, first), then the columns; slices of
           an even number of int32 so that every bitmap is 8-byte aligned */
        uint64_t *bits =
            (uint64_t *)(scratch + (size_t)t * (size_t)tsr__carve_apply_slice(removed, w));
        int32_t *cols = (int32_t *)(bits + words);
        memset(bits, 0, (size_t)words * sizeof *bits);
        int32_t in_row = 1, k = 0;
        for (int32_t s = 0; s < removed && in_row; s++) {
            const uint16_t c = rec[(size_t)s * (size_t)h + (size_t)y];
            in_row = c < w;
            if (in_row)
                bits[c >> 6] |= (uint64_t)1 << (c & 63);
        }
        for (int32_t i = 0; i < words; i++)
            for (uint64_t m = bits[i]; m && k < removed; m &= m - 1)
                cols[k++] = i * 64 + __builtin_ctzll(m);
        if (!in_row || k != removed) {
#pragma omp atomic write
            bad = 1;
            continue;
        }
        tsr__carve_remove_from_row(g, NULL, y, cols, k, NULL);
    }
    if (bad)
        return -1;
    g->w = w - removed;
    return 0;
}

/* Batch mode: pass.c's batch loop (K per pass from tsr__carve_batch_k, object removal ends
 * when no drop pixel is left before a pass), each pass enqueued whole; the state is read before
 * a pass only for object removal. *removed, *passes: what was enqueued. */
static tsr_status batch_passes(tsr_ctx *ctx, int32_t w, int32_t count, tsr__carve_pass *p,
                               const tsr__carve_dev_ops *ops, void *dev, tsr__cc_state *s,
                               int32_t *removed, int64_t *passes)
{
    tsr_status st;
    while (*removed < count) {
        if (p->until_drop_gone) {
            if ((st = ops->state(ctx, dev, s)) != TSR_OK)
                return st;
            if (s->drops == 0)
                break;
        }
        if ((st = tsr__progress(ctx, "carve", (double)*removed, (double)count)) != TSR_OK)
            return st;
        const int32_t k = tsr__carve_batch_k(w, count - *removed, p->batch_seams);
        if ((st = ops->batch(ctx, dev, w, k, *removed, *removed + k < count)) != TSR_OK)
            return st;
        *removed += k;
        w -= k;
        ++*passes;
    }
    return TSR_OK;
}

tsr_status tsr__carve_dev_run(tsr_ctx *ctx, const tsr__carve_grid *g,
                              const tsr__carve_dev_pixels *pixels, int32_t count,
                              tsr__carve_pass *p, const tsr__carve_dev_ops *ops, void **dev,
                              tsr__cc_state *s, int64_t *passes)
{
    *dev = NULL;
    *passes = 0;
    memset(s, 0, sizeof *s);
    const int until = p->until_drop_gone;
    const int64_t drops = until ? tsr__carve_grid_drops(g) : 0;
    const int batch = p->mode == TSR_CARVE_BATCH;
    tsr__carve_dp pens;
    memset(&pens, 0, sizeof pens);
    tsr__carve_dp_penalties(&pens, g);
    uint64_t pen[4];
    for (int i = 0; i < 4; i++)
        pen[i] = pens.pen[i];
    const int32_t kmax = batch ? tsr__carve_batch_k(g->w, count, p->batch_seams) : 0;
    tsr_status st = ops->open(ctx, g, pixels, p->energy, pen, count, kmax, until, drops, dev);
    if (st != TSR_OK) {
        ops->close(ctx, *dev);
        *dev = NULL;
        return st;
    }
    if (batch) {
        int32_t removed = 0;
        if ((st = batch_passes(ctx, g->w, count, p, ops, *dev, s, &removed, passes)) != TSR_OK ||
            (st = ops->state(ctx, *dev, s)) != TSR_OK)
            goto fail;
        s->removed = removed;
    } else {
        for (int32_t first = 0; first < count;) {
            if ((st = tsr__progress(ctx, "carve", (double)s->removed, (double)count)) != TSR_OK)
                goto fail;
            const int32_t n = count - first < POLL_SEAMS ? count - first : POLL_SEAMS;
            if ((st = ops->seams(ctx, *dev, first, n)) != TSR_OK ||
                (st = ops->state(ctx, *dev, s)) != TSR_OK)
                goto fail;
            first += n;
            if (s->stop)
                break;
        }
        *passes = s->removed;
    }
    if (s->removed < 0 || s->removed > count) {
        st = tsr__fail(ctx, TSR_ERR_INTERNAL, "carve: the device removed %d of %d seams",
                       (int)s->removed, (int)count);
        goto fail;
    }
    return TSR_OK;
fail:
    ops->close(ctx, *dev);
    *dev = NULL;
    return st;
}

tsr_status tsr__carve_remove_seams_dev(tsr_ctx *ctx, tsr__carve_grid *g, int32_t count,
                                       tsr__carve_pass *p, const tsr__carve_dev_ops *ops)
{
    p->removed = 0;
    if (count <= 0 || (p->until_drop_gone && tsr__carve_grid_drops(g) == 0))
        return tsr__progress(ctx, "carve", 0.0, 0.0);
    void *dev;
    uint16_t *rec = NULL;
    int32_t *scratch = NULL;
    tsr__cc_state s;
    int64_t passes;
    tsr_status st = tsr__carve_dev_run(ctx, g, NULL, count, p, ops, &dev, &s, &passes);
    if (st != TSR_OK)
        return st;
    size_t n1, n2;
    void *mem;
    const int32_t threads = p->threads > 1 ? p->threads : 1;
    if (!tsr__size_mul3((size_t)threads, tsr__carve_apply_slice(s.removed, g->w), sizeof(int32_t),
                        &n1) ||
        !tsr__size_mul3((size_t)g->h, (size_t)(s.removed ? s.removed : 1), sizeof *rec, &n2)) {
        st = tsr__fail(ctx, TSR_ERR_OVERFLOW, "carve: seam records overflow");
        goto done;
    }
    if ((st = tsr__alloc(ctx, n1, &mem)) != TSR_OK)
        goto done;
    scratch = mem;
    if ((st = tsr__alloc(ctx, n2, &mem)) != TSR_OK)
        goto done;
    rec = mem;
    double ms = 0;
    if ((st = ops->fetch(ctx, dev, s.removed, rec)) != TSR_OK ||
        (ops->device_ms && (st = ops->device_ms(ctx, dev, &ms)) != TSR_OK))
        goto done;
    p->device_ms += ms;
    if (tsr__carve_apply_seams(g, s.removed, rec, scratch, p) != 0) {
        st = tsr__fail(ctx, TSR_ERR_INTERNAL, "carve: the device's seams overlap in a row");
        goto done;
    }
    p->removed = s.removed;
    p->dp_passes += passes;
    p->energy_sum += s.energy_sum;
    st = tsr__progress(ctx, "carve", (double)p->removed, (double)p->removed);
done:
    ops->close(ctx, dev);
    tsr__free(ctx, scratch);
    tsr__free(ctx, rec);
    return st;
}
