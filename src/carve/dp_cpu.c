/* The seam DP (tessera/carve.h's definition), one row span at a time:
 *   backward: M(0,x) = k(0,x); M(y,x) = k(y,x) + min(M(y-1,x-1), M(y-1,x), M(y-1,x+1))
 *   forward:  M(0,x) = CU(0,x) + p(0,x);
 *             M(y,x) = p(y,x) + min(M(y-1,x-1)+CL, M(y-1,x)+CU, M(y-1,x+1)+CR)
 * over the candidates that exist, compared left, centre, right with strict <, so the leftmost
 * minimum wins. k = e + p, p = the mask term of the cell (plan.h). */
#include "carve/plan.h"

#include "carve/dp_hd.h"
#include "core/checked.h"
#include "core/ctx.h"

#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

tsr_status tsr__carve_dp_alloc(tsr_ctx *ctx, tsr__carve_dp *d, tsr_carve_energy kind, int32_t pitch,
                               int32_t rows)
{
    memset(d, 0, sizeof *d);
    d->kind = kind;
    d->pitch = pitch;
    d->rows = rows;
    size_t n, nc, ne;
    if (!tsr__size_mul((size_t)pitch, (size_t)rows, &n) ||
        !tsr__size_mul(n, sizeof(tsr__carve_cost), &nc) || !tsr__size_mul(n, sizeof(uint16_t), &ne))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "carve: DP arrays of %dx%d overflow", (int)pitch,
                         (int)rows);
    tsr_status st;
    void *p;
    if (kind == TSR_CARVE_BACKWARD) {
        if ((st = tsr__alloc(ctx, ne, &p)) != TSR_OK)
            goto fail;
        d->energy = p;
    }
    if ((st = tsr__alloc(ctx, nc, &p)) != TSR_OK)
        goto fail;
    d->cost = p;
    if ((st = tsr__alloc(ctx, n, &p)) != TSR_OK)
        goto fail;
    d->back = p;
    return TSR_OK;
fail:
    tsr__carve_dp_free(ctx, d);
    return st;
}

void tsr__carve_dp_free(tsr_ctx *ctx, tsr__carve_dp *d)
{
    tsr__free(ctx, d->energy);
    tsr__free(ctx, d->cost);
    tsr__free(ctx, d->back);
    memset(d, 0, sizeof *d);
}

void tsr__carve_dp_penalties(tsr__carve_dp *d, const tsr__carve_grid *g)
{
    const tsr__carve_cost nodrop = g->has_drop ? TSR__CARVE_DROP_B : 0;
    const tsr__carve_cost keep = g->has_keep ? TSR__CARVE_KEEP_A : 0;
    d->pen[0] = nodrop;
    d->pen[TSR__CARVE_KEEP] = keep + nodrop;
    d->pen[TSR__CARVE_DROP] = 0;
    d->pen[TSR__CARVE_KEEP | TSR__CARVE_DROP] = keep;
}

void tsr__carve_dp_span(const tsr__carve_grid *g, tsr__carve_dp *d, int32_t y, int32_t x0,
                        int32_t x1, int32_t *lo, int32_t *hi)
{
    const size_t gp = (size_t)g->pitch, dp = (size_t)d->pitch;
    const int32_t w = g->w;
    const uint8_t *mask = g->mask ? g->mask + (size_t)y * gp : NULL;
    tsr__carve_cost *m = d->cost + (size_t)y * dp;
    const tsr__carve_cost *pm = y > 0 ? d->cost + (size_t)(y - 1) * dp : NULL;
    int8_t *bp = d->back + (size_t)y * dp;
    int32_t clo = x1, chi = x0 - 1;
    if (d->kind == TSR_CARVE_BACKWARD) {
        const uint16_t *e = d->energy + (size_t)y * dp;
        for (int32_t x = x0; x < x1; x++) {
            int8_t b = 0;
            const tsr__carve_cost v =
                e[x] + (mask ? d->pen[mask[x]] : 0) + (pm ? tsr__carve_dp_best(pm, x, w, &b) : 0);
            if (m[x] != v) {
                if (x < clo)
                    clo = x;
                chi = x;
                m[x] = v;
            }
            bp[x] = b;
        }
    } else {
        const uint8_t *row = g->luma + (size_t)y * gp;
        const uint8_t *up = y > 0 ? g->luma + (size_t)(y - 1) * gp : NULL;
        for (int32_t x = x0; x < x1; x++) {
            const int l = row[x > 0 ? x - 1 : 0], r = row[x < w - 1 ? x + 1 : w - 1];
            int8_t b = 0;
            const tsr__carve_cost v = (mask ? d->pen[mask[x]] : 0) +
                                      (pm ? tsr__carve_dp_best_forward(pm, x, w, l, r, up[x], &b)
                                          : (uint64_t)tsr__carve_absdiff(r, l));
            if (m[x] != v) {
                if (x < clo)
                    clo = x;
                chi = x;
                m[x] = v;
            }
            bp[x] = b;
        }
    }
    *lo = clo;
    *hi = chi;
}

void tsr__carve_dp_all(const tsr__carve_grid *g, tsr__carve_dp *d, int threads)
{
    int32_t lo, hi;
    /* A row must be wide enough for splitting it to beat the barrier between rows (on a loaded
     * machine a barrier can wait for a whole time slice: 2048-wide rows lost 10x). */
    if (threads <= 1 || g->w < 8192) {
        for (int32_t y = 0; y < g->h; y++)
            tsr__carve_dp_span(g, d, y, 0, g->w, &lo, &hi);
        return;
    }
#pragma omp parallel num_threads(threads)
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num(), n = omp_get_num_threads();
#else
        const int t = 0, n = 1;
#endif
        const int32_t a = (int32_t)((int64_t)g->w * t / n),
                      b = (int32_t)((int64_t)g->w * (t + 1) / n);
        int32_t l, h;
        for (int32_t y = 0; y < g->h; y++) {
            tsr__carve_dp_span(g, d, y, a, b, &l, &h);
#pragma omp barrier
        }
    }
}
