/* Uniform-grid spatial index over the edges (layout_internal.h): conservative segment raster,
 * fixed-capacity cells with a typed overflow reason, generation-stamped candidate lists. */
#include "layout/layout_internal.h"

#include "core/checked.h"

#include <math.h>
#include <string.h>

/* floor(a / b) for b > 0. */
static inline int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

static inline int64_t ceil_div(int64_t a, int64_t b)
{
    return -floor_div(-a, b);
}

typedef enum raster_op { OP_COUNT, OP_INSERT, OP_REMOVE, OP_QUERY } raster_op;

/* Visits every cell containing a point of segment (ax,ay)-(bx,by): for each column the segment
 * spans, the rows between floor and ceil of its y over that column's x range. Returns the reason
 * to stop (only queries stop early). */
static tsr__grid_reason raster(tsr__grid *g, raster_op op, int32_t e, int32_t ax, int32_t ay,
                               int32_t bx, int32_t by, int64_t *visited)
{
    if (ax > bx || (ax == bx && ay > by)) {
        int32_t t = ax;
        ax = bx;
        bx = t;
        t = ay;
        ay = by;
        by = t;
    }
    const int64_t s = g->cell;
    int64_t c0 = ax / s, c1 = bx / s;
    if (c1 >= g->gx)
        c1 = g->gx - 1;
    for (int64_t c = c0; c <= c1; c++) {
        int64_t ylo, yhi;
        if (ax == bx) {
            ylo = ay < by ? ay : by;
            yhi = ay < by ? by : ay;
        } else {
            int64_t xl = c * s > ax ? c * s : ax, xr = (c + 1) * s < bx ? (c + 1) * s : bx;
            int64_t dx = (int64_t)bx - ax, dy = (int64_t)by - ay;
            /* y(x) = ay + dy * (x - ax) / dx, exact rational; floor/ceil outward */
            int64_t nl = dy * (xl - ax), nr = dy * (xr - ax);
            int64_t fl = ay + floor_div(nl, dx), cl = ay + ceil_div(nl, dx);
            int64_t fr = ay + floor_div(nr, dx), cr = ay + ceil_div(nr, dx);
            ylo = fl < fr ? fl : fr;
            yhi = cl > cr ? cl : cr;
        }
        int64_t r0 = ylo / s, r1 = yhi / s;
        if (r0 < 0)
            r0 = 0;
        if (r1 >= g->gy)
            r1 = g->gy - 1;
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
            case OP_QUERY:
                if (++*visited > g->max_query_cells)
                    return TSR__GRID_QUERY_TOO_LARGE;
                for (int32_t k = 0; k < g->count[cell]; k++) {
                    int32_t f = items[k];
                    if (g->stamp[f] != g->gen) {
                        g->stamp[f] = g->gen;
                        if (g->ncand >= g->max_cand)
                            return TSR__GRID_QUERY_TOO_LARGE;
                        g->cand[g->ncand++] = f;
                    }
                }
                break;
            }
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
        (st = tsr__alloc(ctx, sbytes, (void **)&g->cand)) != TSR_OK) {
        tsr__grid_release(ctx, g);
        return st;
    }
    memset(g->count, 0, bytes);
    memset(g->stamp, 0, sbytes);
    g->gen = 1;
    g->nedges = m;
    g->max_cand = m;
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
    int64_t visited = 0;
    return raster(g, OP_QUERY, -1, ax, ay, bx, by, &visited);
}
