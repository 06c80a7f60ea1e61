/* Uniform-grid spatial index over the edges (layout_internal.h): conservative segment raster,
 * fixed-capacity cells with a typed overflow reason, generation-stamped candidate lists. */
#include "layout/geometry_hd.h"
#include "layout/layout_internal.h"

#include "core/checked.h"

#include <math.h>
#include <string.h>

/* The column or row of canvas coordinate v in [0, 2^31): v / cell by the reciprocal set up in
 * tsr__grid_build. With l = ceil(log2 cell) and mul = ceil(2^(32+l) / cell) = (2^(32+l) + e) /
 * cell, 0 <= e < cell <= 2^l: v * mul / 2^(32+l) = v / cell + v * e / (cell * 2^(32+l)), and
 * v * e < 2^(31+l) keeps the excess below 1 / cell, so the floor is exact; v * mul < 2^64. */
static inline int64_t cell_of(const tsr__grid *g, int32_t v)
{
    return (int64_t)(((uint64_t)(uint32_t)v * g->div_mul) >> g->div_shift);
}

typedef enum raster_op { OP_COUNT, OP_INSERT, OP_REMOVE, OP_QUERY } raster_op;

/* The query's state, held in locals while it runs (stores to stamp/cand would otherwise make
 * every field of g be reloaded per item). */
typedef struct query_state {
    uint32_t *stamp, gen;
    int32_t *cand, ncand;
    int64_t visited, max_cells;
} query_state;

/* Appends to q->cand the edges listed in the n consecutive cells from `first` that are not yet
 * stamped with this query's generation, stamping them. Branch-free: every item is written at
 * cand[ncand] and kept only when fresh, so cand needs room for one more than the distinct edges
 * (nedges + 1). Not inlined, so that its loops keep every value in a register. */
static __attribute__((noinline)) void take(const tsr__grid *g, size_t first, int64_t n,
                                           query_state *q)
{
    const int32_t *restrict count = g->count + first;
    const int32_t *restrict items = g->items + first * (size_t)g->cap;
    const size_t cap = (size_t)g->cap;
    uint32_t *restrict stamp = q->stamp;
    int32_t *restrict cand = q->cand;
    const uint32_t gen = q->gen;
    int32_t nc = q->ncand;
    for (int64_t i = 0; i < n; i++, items += cap)
        for (int32_t k = 0, listed = count[i]; k < listed; k++) {
            const int32_t f = items[k];
            const int32_t fresh = stamp[f] != gen;
            stamp[f] = gen;
            cand[nc] = f;
            nc += fresh;
        }
    q->ncand = nc;
}

/* Counts, inserts or removes edge e in the cells of rows r0..r1 of column c. */
static inline void cells(tsr__grid *g, raster_op op, int32_t e, int64_t c, int64_t r0, int64_t r1)
{
    for (int64_t r = r0; r <= r1; r++) {
        size_t cell = (size_t)(c * g->gy + r);
        int32_t *items = g->items ? g->items + cell * (size_t)g->cap : NULL;
        switch (op) {
        case OP_COUNT: g->count[cell]++; break;
        case OP_INSERT:
            if (g->count[cell] >= g->cap) {
                g->stale = TSR__GRID_CELL_FULL;
                break;
            }
            items[g->count[cell]++] = e;
            break;
        case OP_REMOVE:
            for (int32_t k = 0; k < g->count[cell]; k++)
                if (items[k] == e) {
                    items[k] = items[--g->count[cell]];
                    break;
                }
            break;
        case OP_QUERY: break; /* whole columns at once, by take */
        }
    }
}

/* Visits every cell containing a point of segment (ax,ay)-(bx,by) (coordinates in [0, 2^30]),
 * geometry_hd.h's column walk. Returns the reason to stop (only queries stop early). */
static tsr__grid_reason raster(tsr__grid *g, raster_op op, int32_t e, int32_t ax, int32_t ay,
                               int32_t bx, int32_t by, query_state *q)
{
    tsr__column_walk w;
    tsr__column_walk_begin(&w, g->cell, ax, ay, bx, by);
    tsr__column_walk_columns(&w, cell_of(g, w.ax), cell_of(g, w.bx), g->gx - 1);
    int64_t c, ylo, yhi;
    while (tsr__column_walk_next(&w, &c, &ylo, &yhi)) {
        int64_t r0 = cell_of(g, (int32_t)ylo), r1 = cell_of(g, (int32_t)yhi);
        if (r1 >= g->gy)
            r1 = g->gy - 1;
        if (op == OP_QUERY) {
            /* the whole column is counted before it is listed: on a query too large the
             * candidates are dropped anyway, so only the reason matters */
            if ((q->visited += r1 - r0 + 1) > q->max_cells)
                return TSR__GRID_QUERY_TOO_LARGE;
            take(g, (size_t)(c * g->gy + r0), r1 - r0 + 1, q);
        } else {
            cells(g, op, e, c, r0, r1);
        }
    }
    return TSR__GRID_OK;
}

void tsr__grid_release(tsr_ctx *ctx, tsr__grid *g)
{
    tsr__free(ctx, g->count);
    tsr__free(ctx, g->items);
    tsr__free(ctx, g->stamp);
    tsr__free(ctx, g->cand);
    memset(g, 0, sizeof *g);
}

tsr_status tsr__grid_build(tsr_ctx *ctx, const tsr_layout *l, int32_t cell_size, int32_t cap,
                           size_t memory_limit, tsr__grid *g)
{
    memset(g, 0, sizeof *g);
    int32_t m = l->num_edges;
    if (cell_size <= 0) {
        double sum = 0;
        for (int32_t e = 0; e < m; e++) {
            double dx = l->x[l->edge_u[e]] - l->x[l->edge_v[e]];
            double dy = l->y[l->edge_u[e]] - l->y[l->edge_v[e]];
            sum += sqrt(dx * dx + dy * dy);
        }
        double want = m ? sum / m / 2 : 1;
        double area = ((double)l->width + 1) * ((double)l->height + 1);
        double cells = 4.0 * m > 1024 ? 4.0 * m : 1024;
        double floor_size = ceil(sqrt(area / cells));
        if (want < floor_size)
            want = floor_size;
        cell_size = want < 1                       ? 1
                    : want > TSR_LAYOUT_MAX_CANVAS ? TSR_LAYOUT_MAX_CANVAS
                                                   : (int32_t)want;
    }
    g->cell = cell_size;
    g->div_shift = 32;
    while ((INT64_C(1) << (g->div_shift - 32)) < cell_size)
        g->div_shift++;
    g->div_mul = ((UINT64_C(1) << g->div_shift) + (uint64_t)cell_size - 1) / (uint64_t)cell_size;
    g->gx = l->width / cell_size + 1;
    g->gy = l->height / cell_size + 1;
    size_t ncell, bytes;
    if (!tsr__size_mul((size_t)g->gx, (size_t)g->gy, &ncell) ||
        !tsr__size_mul(ncell, sizeof(int32_t), &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "layout: grid size overflows");
    tsr_status st;
    if ((st = tsr__alloc(ctx, bytes, (void **)&g->count)) != TSR_OK)
        return st;
    memset(g->count, 0, bytes);
    for (int32_t e = 0; e < m; e++) {
        int32_t u = l->edge_u[e], v = l->edge_v[e];
        raster(g, OP_COUNT, e, l->x[u], l->y[u], l->x[v], l->y[v], NULL);
    }
    int32_t fullest = 0;
    for (size_t c = 0; c < ncell; c++)
        if (g->count[c] > fullest)
            fullest = g->count[c];
    if (cap <= 0)
        cap = fullest * 2 < 16 ? 16 : fullest * 2;
    if (cap > m && m > 0)
        cap = m;
    g->cap = cap < 1 ? 1 : cap;
    size_t ibytes;
    if (!tsr__size_mul(ncell, (size_t)g->cap, &ibytes) ||
        !tsr__size_mul(ibytes, sizeof(int32_t), &ibytes) || ibytes > memory_limit) {
        tsr__grid_release(ctx, g);
        g->stale = TSR__GRID_TOO_BIG;
        return TSR_OK;
    }
    size_t sbytes = (size_t)(m ? m : 1) * sizeof(uint32_t);
    if ((st = tsr__alloc(ctx, ibytes, (void **)&g->items)) != TSR_OK ||
        (st = tsr__alloc(ctx, sbytes, (void **)&g->stamp)) != TSR_OK ||
        (st = tsr__alloc(ctx, sbytes + sizeof(int32_t), (void **)&g->cand)) != TSR_OK) {
        tsr__grid_release(ctx, g);
        return st;
    }
    memset(g->count, 0, bytes);
    memset(g->stamp, 0, sbytes);
    g->gen = 1;
    g->nedges = m;
    g->max_query_cells = (int64_t)ncell;
    for (int32_t e = 0; e < m; e++) {
        int32_t u = l->edge_u[e], v = l->edge_v[e];
        raster(g, OP_INSERT, e, l->x[u], l->y[u], l->x[v], l->y[v], NULL);
    }
    return TSR_OK;
}

void tsr__grid_insert(tsr__grid *g, int32_t e, int32_t ax, int32_t ay, int32_t bx, int32_t by)
{
    if (g->items && g->stale == TSR__GRID_OK)
        raster(g, OP_INSERT, e, ax, ay, bx, by, NULL);
}

void tsr__grid_remove(tsr__grid *g, int32_t e, int32_t ax, int32_t ay, int32_t bx, int32_t by)
{
    if (g->items && g->stale == TSR__GRID_OK)
        raster(g, OP_REMOVE, e, ax, ay, bx, by, NULL);
}

tsr__grid_reason tsr__grid_query_begin(tsr__grid *g)
{
    if (!g->items)
        return TSR__GRID_TOO_BIG;
    if (g->stale != TSR__GRID_OK)
        return g->stale;
    g->ncand = 0;
    if (++g->gen == 0) { /* wrapped: stamps from 2^32 queries ago could collide */
        memset(g->stamp, 0, (size_t)(g->nedges ? g->nedges : 1) * sizeof *g->stamp);
        g->gen = 1;
    }
    return TSR__GRID_OK;
}

tsr__grid_reason tsr__grid_query_segment(tsr__grid *g, int32_t ax, int32_t ay, int32_t bx,
                                         int32_t by)
{
    query_state q = {.stamp = g->stamp,
                     .gen = g->gen,
                     .cand = g->cand,
                     .ncand = g->ncand,
                     .max_cells = g->max_query_cells};
    tsr__grid_reason why = raster(g, OP_QUERY, -1, ax, ay, bx, by, &q);
    g->ncand = q.ncand;
    return why;
}
