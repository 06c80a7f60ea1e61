/* The uniform-grid spatial index (grid_cpu.c) against a reference raster written here from its
 * definition: every cell containing a point of a segment, per column the rows between floor and
 * ceil of the segment's exact y over the column's x range, computed with one division per end
 * of every column. Checked on random drawings over canvases from 60 to 2^30 with cell sizes
 * that are and are not powers of two (1 to 2^30): each cell's list equals the reference's set
 * after the build and after random moves (remove, move, insert), and every query's candidate
 * list equals, in order, the first occurrences over the reference's cells and the cells' lists. */
#include "testlib.h"

#include "layout/layout_internal.h"

#include <stdlib.h>
#include <string.h>

static tsr_ctx *ctx;

static int64_t ref_floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* The cells of segment (ax,ay)-(bx,by) in visiting order (columns left to right, rows upward);
 * returns their number, written to out (column * gy + row). */
static int64_t ref_cells(const tsr__grid *g, int32_t ax, int32_t ay, int32_t bx, int32_t by,
                         int64_t *out)
{
    if (ax > bx || (ax == bx && ay > by)) {
        int32_t t = ax;
        ax = bx;
        bx = t;
        t = ay;
        ay = by;
        by = t;
    }
    const int64_t s = g->cell, dx = (int64_t)bx - ax, dy = (int64_t)by - ay;
    int64_t n = 0;
    for (int64_t c = ax / s; c <= bx / s && c < g->gx; c++) {
        int64_t xl = c * s > ax ? c * s : ax, xr = (c + 1) * s < bx ? (c + 1) * s : bx;
        int64_t ylo = ay < by ? ay : by, yhi = ay < by ? by : ay;
        if (dx > 0) {
            int64_t nl = dy * (xl - ax), nr = dy * (xr - ax);
            int64_t fl = ay + ref_floor_div(nl, dx), cl = ay - ref_floor_div(-nl, dx);
            int64_t fr = ay + ref_floor_div(nr, dx), cr = ay - ref_floor_div(-nr, dx);
            ylo = fl < fr ? fl : fr;
            yhi = cl > cr ? cl : cr;
        }
        for (int64_t r = ylo / s; r <= yhi / s && r < g->gy; r++)
            out[n++] = c * g->gy + r;
    }
    return n;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Every cell's list holds exactly the edges whose reference raster contains the cell. */
static void check_cells(const tsr_layout *l, const tsr__grid *g, int64_t *cells)
{
    size_t ncell = (size_t)g->gx * (size_t)g->gy;
    int32_t *want = calloc(ncell * (size_t)l->num_edges, sizeof *want);
    int32_t *nwant = calloc(ncell, sizeof *nwant);
    for (int32_t e = 0; e < l->num_edges; e++) {
        int32_t u = l->edge_u[e], v = l->edge_v[e];
        int64_t n = ref_cells(g, l->x[u], l->y[u], l->x[v], l->y[v], cells);
        for (int64_t i = 0; i < n; i++)
            want[(size_t)cells[i] * (size_t)l->num_edges + (size_t)nwant[cells[i]]++] = e;
    }
    int bad = 0;
    int32_t *have = malloc((size_t)g->cap * sizeof *have);
    for (size_t c = 0; c < ncell && !bad; c++) {
        if (g->count[c] != nwant[c]) {
            bad = 1;
            break;
        }
        memcpy(have, g->items + c * (size_t)g->cap, (size_t)g->count[c] * sizeof *have);
        qsort(have, (size_t)g->count[c], sizeof *have, cmp_i32);
        bad = memcmp(have, want + c * (size_t)l->num_edges, (size_t)g->count[c] * sizeof *have);
    }
    CHECK(!bad);
    free(have);
    free(nwant);
    free(want);
}

/* One query of `nseg` segments (a point first): its candidates against the reference order. */
static void check_query(tsr_rng *r, const tsr_layout *l, tsr__grid *g, int64_t *cells,
                        uint8_t *seen, int32_t *want)
{
    int32_t seg[4][4];
    int nseg = tsr_rng_range(r, 1, 4);
    for (int k = 0; k < nseg; k++)
        for (int j = 0; j < 4; j++) {
            /* ends at nodes (as the annealer asks) or anywhere on the canvas */
            int32_t node = tsr_rng_range(r, 0, l->num_nodes - 1), side = j & 1;
            int32_t lim = side ? l->height : l->width;
            seg[k][j] = tsr_rng_range(r, 0, 1) ? (side ? l->y[node] : l->x[node])
                                               : (int32_t)(tsr_rng_next(r) % ((uint64_t)lim + 1));
        }
    seg[0][2] = seg[0][0];
    seg[0][3] = seg[0][1];
    memset(seen, 0, (size_t)l->num_edges);
    int32_t nwant = 0;
    CHECK(tsr__grid_query_begin(g) == TSR__GRID_OK);
    for (int k = 0; k < nseg; k++) {
        CHECK(tsr__grid_query_segment(g, seg[k][0], seg[k][1], seg[k][2], seg[k][3]) ==
              TSR__GRID_OK);
        int64_t n = ref_cells(g, seg[k][0], seg[k][1], seg[k][2], seg[k][3], cells);
        for (int64_t i = 0; i < n; i++)
            for (int32_t j = 0; j < g->count[cells[i]]; j++) {
                int32_t f = g->items[(size_t)cells[i] * (size_t)g->cap + (size_t)j];
                if (!seen[f]) {
                    seen[f] = 1;
                    want[nwant++] = f;
                }
            }
    }
    CHECK(g->ncand == nwant && !memcmp(g->cand, want, (size_t)nwant * sizeof *want));
}

static void one_case(tsr_rng *r, int32_t n, int32_t m, int32_t w, int32_t h, int32_t cell)
{
    tsr_layout *l;
    CHECK_OK(ctx, tsr_layout_alloc(ctx, n, m, &l));
    l->width = w;
    l->height = h;
    l->has_coordinates = 1;
    for (int32_t i = 0; i < n; i++) { /* corners and edges of the canvas often */
        int32_t pick = tsr_rng_range(r, 0, 7);
        l->x[i] = pick == 0 ? 0 : pick == 1 ? w : (int32_t)(tsr_rng_next(r) % ((uint64_t)w + 1));
        l->y[i] = pick == 2 ? 0 : pick == 3 ? h : (int32_t)(tsr_rng_next(r) % ((uint64_t)h + 1));
    }
    for (int32_t e = 0; e < m; e++) {
        l->edge_u[e] = tsr_rng_range(r, 0, n - 1);
        do
            l->edge_v[e] = tsr_rng_range(r, 0, n - 1);
        while (l->edge_v[e] == l->edge_u[e]);
    }
    tsr__grid g;
    CHECK_OK(ctx, tsr__grid_build(ctx, l, cell, m, (size_t)1 << 28, &g));
    CHECK(g.stale == TSR__GRID_OK && g.cell == cell);
    int64_t *cells = malloc(((size_t)g.gx * (size_t)g.gy) * sizeof *cells);
    uint8_t *seen = malloc((size_t)m);
    int32_t *want = malloc((size_t)m * sizeof *want);
    check_cells(l, &g, cells);
    for (int round = 0; round < 4; round++) {
        for (int q = 0; q < 50; q++)
            check_query(r, l, &g, cells, seen, want);
        for (int mv = 0; mv < 20; mv++) { /* the annealer's move: remove, move, insert */
            int32_t v = tsr_rng_range(r, 0, n - 1);
            int32_t px = (int32_t)(tsr_rng_next(r) % ((uint64_t)w + 1));
            int32_t py = (int32_t)(tsr_rng_next(r) % ((uint64_t)h + 1));
            for (int32_t e = 0; e < m; e++)
                if (l->edge_u[e] == v || l->edge_v[e] == v) {
                    int32_t o = l->edge_u[e] == v ? l->edge_v[e] : l->edge_u[e];
                    tsr__grid_remove(&g, e, l->x[v], l->y[v], l->x[o], l->y[o]);
                }
            l->x[v] = px;
            l->y[v] = py;
            for (int32_t e = 0; e < m; e++)
                if (l->edge_u[e] == v || l->edge_v[e] == v) {
                    int32_t o = l->edge_u[e] == v ? l->edge_v[e] : l->edge_u[e];
                    tsr__grid_insert(&g, e, l->x[v], l->y[v], l->x[o], l->y[o]);
                }
        }
        CHECK(g.stale == TSR__GRID_OK);
        check_cells(l, &g, cells);
    }
    free(want);
    free(seen);
    free(cells);
    tsr__grid_release(ctx, &g);
    tsr_layout_free(ctx, l);
}

int main(void)
{
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_CPU;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK)
        return 1;
    tsr_rng r;
    tsr_rng_seed(&r, 4321);
    static const struct {
        int32_t n, m, w, h, cell;
    } cases[] = {
        {60, 150, 148, 148, 2}, /* A9's canvas and cell */
        {60, 150, 148, 148, 3},
        {40, 100, 60, 60, 1},
        {40, 100, 300, 297, 57},          /* A6-like: few large cells */
        {40, 100, 249378, 249839, 18210}, /* A5's canvas */
        {40, 100, 1000000, 1000000, 65536},
        {40, 100, 1000000, 999999, 7919},
        {30, 80, 1 << 30, 1 << 30, 3579139}, /* the largest canvas, odd cells */
        {30, 80, 1 << 30, 1 << 30, 1 << 23},
        {30, 80, 1 << 30, (1 << 30) - 1, (1 << 29) + 1},
        {30, 80, 1 << 30, 1 << 30, 1 << 30}, /* one cell per axis (and the canvas edge) */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        one_case(&r, cases[i].n, cases[i].m, cases[i].w, cases[i].h, cases[i].cell);
    for (int i = 0; i < 20; i++) { /* random canvases and cell sizes */
        int32_t w = tsr_rng_range(&r, 1, 200), h = tsr_rng_range(&r, 1, 200);
        one_case(&r, 30, 70, w, h, tsr_rng_range(&r, 1, (w > h ? w : h) + 5));
    }
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("layout_grid");
}
