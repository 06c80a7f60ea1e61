/* The CUDA layout kernels' logic on the CPU, no GPU needed: a host emulation of
 * layout_cuda.cu's launchers (device buffers as host copies uploaded at create and by move,
 * outputs zeroed per launch, grid upload cached by version, generation stamps) that runs the
 * kernels' own per-thread bodies (src/layout/layout_cuda_logic.h) for every thread of every
 * launch, put through the GPU test's sequence (layout_delta_check.h) and compared with the CPU
 * evaluators; plus the definition itself (a recount after the move) on small random graphs with
 * duplicate edges and nodes of degree 0, 1 and high, and the shared geometry against geometry.h. */
#include "testlib.h"

#include "layout/geometry.h"
#include "layout/layout_cuda_logic.h"
#include "layout/layout_internal.h"

#include "layout_delta_check.h"

#include <stdlib.h>
#include <string.h>

/* ---- the emulated device ---- */
enum { DENSE_BLOCK = 256, SPATIAL_BLOCK = 128, PER_PROP_CELLS = 4096 };

typedef struct emu {
    int32_t n, m, max_prop;
    int32_t *x, *y, *eu, *ev, *adj_off, *adj_edges, *pnode, *ppx, *ppy, *delta;
    uint8_t *invalid;
    unsigned *stamp;
    unsigned gen;
    int32_t *grid_count, *grid_items, *cells, *cell_off;
    int32_t grid_cells, grid_cap;
    uint64_t grid_version;
    int grid_uploaded;
} emu;

static void *dup_n(const void *src, size_t bytes)
{
    void *p = calloc(bytes ? bytes : 1, 1);
    if (p && src && bytes)
        memcpy(p, src, bytes);
    return p;
}

static tsr_status emu_count(tsr_ctx *ctx, const tsr_layout *l, int32_t *counts)
{
    (void)ctx;
    int32_t m = l->num_edges;
    /* count_kernel: grid ceil(m / 256) x 256, threads e >= m return */
    for (int32_t b = 0; b < (m + 255) / 256; b++)
        for (int32_t t = 0; t < 256; t++) {
            int32_t e = b * 256 + t;
            if (e < m)
                counts[e] = tsr__lcd_count_edge(e, l->x, l->y, l->edge_u, l->edge_v, m);
        }
    return TSR_OK;
}

static void emu_destroy(tsr_ctx *ctx, void *h)
{
    (void)ctx;
    emu *g = h;
    if (!g)
        return;
    void *p[] = {g->x,     g->y,   g->eu,    g->ev,      g->adj_off,    g->adj_edges,
                 g->pnode, g->ppx, g->ppy,   g->delta,   g->invalid,    g->stamp,
                 g->cells, g->cell_off, g->grid_count, g->grid_items};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        free(p[i]);
    free(g);
}

static tsr_status emu_create(tsr_ctx *ctx, const tsr_layout *l, const tsr__layout_adj *adj,
                             int max_proposals, void **out)
{
    (void)ctx;
    emu *g = calloc(1, sizeof *g);
    size_t n = (size_t)l->num_nodes, m = (size_t)l->num_edges, P = (size_t)max_proposals;
    g->n = (int32_t)n;
    g->m = (int32_t)m;
    g->max_prop = max_proposals;
    g->x = dup_n(l->x, n * 4);
    g->y = dup_n(l->y, n * 4);
    g->eu = dup_n(l->edge_u, m * 4);
    g->ev = dup_n(l->edge_v, m * 4);
    g->adj_off = dup_n(adj->offset, (n + 1) * 4);
    g->adj_edges = dup_n(adj->edges, m * 8);
    g->pnode = dup_n(NULL, P * 4);
    g->ppx = dup_n(NULL, P * 4);
    g->ppy = dup_n(NULL, P * 4);
    g->delta = dup_n(NULL, P * (m ? m : 1) * 4);
    g->invalid = dup_n(NULL, P);
    g->stamp = dup_n(NULL, P * (m ? m : 1) * 4);
    g->cells = dup_n(NULL, P * PER_PROP_CELLS * 4);
    g->cell_off = dup_n(NULL, (P + 1) * 4);
    *out = g;
    return TSR_OK;
}

static tsr_status emu_move(tsr_ctx *ctx, void *h, int32_t v, int32_t x, int32_t y)
{
    (void)ctx;
    emu *g = h;
    g->x[v] = x;
    g->y[v] = y;
    return TSR_OK;
}

static void emu_upload(emu *g, int nprop, const int32_t *node, const int32_t *px,
                       const int32_t *py)
{
    memcpy(g->pnode, node, (size_t)nprop * 4);
    memcpy(g->ppx, px, (size_t)nprop * 4);
    memcpy(g->ppy, py, (size_t)nprop * 4);
    memset(g->delta, 0, (size_t)nprop * g->m * 4);
    memset(g->invalid, 0, (size_t)nprop);
}

static void emu_download(emu *g, int nprop, int32_t *out_delta, uint8_t *invalid)
{
    memcpy(out_delta, g->delta, (size_t)nprop * g->m * 4);
    memcpy(invalid, g->invalid, (size_t)nprop);
}

static tsr_status emu_delta(tsr_ctx *ctx, void *h, int nprop, const int32_t *node,
                            const int32_t *px, const int32_t *py, int32_t *out_delta,
                            uint8_t *invalid)
{
    emu *g = h;
    if (nprop < 1 || nprop > g->max_prop)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "emu: proposal count out of range");
    emu_upload(g, nprop, node, px, py);
    /* dense_delta_kernel: grid (ceil(m / 256), nprop), 256 threads; blockIdx.y = proposal */
    int32_t bx = (g->m + DENSE_BLOCK - 1) / DENSE_BLOCK;
    for (int32_t p = 0; p < nprop; p++)
        for (int32_t b = 0; b < bx; b++)
            for (int32_t t = 0; t < DENSE_BLOCK; t++) {
                int32_t f = b * DENSE_BLOCK + t;
                if (f >= g->m)
                    continue;
                tsr__lcd_dense_thread(p, f, g->x, g->y, g->eu, g->ev, g->m, g->adj_off,
                                      g->adj_edges, g->pnode, g->ppx, g->ppy, g->delta,
                                      g->invalid);
            }
    emu_download(g, nprop, out_delta, invalid);
    return TSR_OK;
}

static tsr_status emu_spatial(tsr_ctx *ctx, void *h, const tsr_layout *l,
                              const tsr__layout_adj *adj, const tsr__grid *grid,
                              uint64_t grid_version, int nprop, const int32_t *node,
                              const int32_t *px, const int32_t *py, int32_t *out_delta,
                              uint8_t *invalid)
{
    emu *g = h;
    if (nprop < 1 || nprop > g->max_prop)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "emu: proposal count out of range");
    if (!grid->items || grid->stale != TSR__GRID_OK)
        return tsr__fail(ctx, TSR_ERR_LIMIT, "emu: spatial index stale");
    int32_t ncell = grid->gx * grid->gy;
    if (!g->grid_uploaded || g->grid_version != grid_version || g->grid_cells != ncell ||
        g->grid_cap != grid->cap) {
        free(g->grid_count);
        free(g->grid_items);
        g->grid_count = dup_n(grid->count, (size_t)ncell * 4);
        g->grid_items = dup_n(grid->items, (size_t)ncell * grid->cap * 4);
        g->grid_cells = ncell;
        g->grid_cap = grid->cap;
        g->grid_version = grid_version;
        g->grid_uploaded = 1;
    }
    int total = 0;
    g->cell_off[0] = 0;
    for (int p = 0; p < nprop; p++) {
        int nc = 0;
        if (!tsr__lcd_proposal_cells(grid->cell, grid->gx, grid->gy, l->x, l->y, l->edge_u,
                                     l->edge_v, adj->offset, adj->edges, node[p], px[p], py[p],
                                     g->cells + total, &nc, PER_PROP_CELLS))
            return tsr__fail(ctx, TSR_ERR_LIMIT, "emu: proposal %d spans too many cells", p);
        total += nc;
        g->cell_off[p + 1] = total;
    }
    emu_upload(g, nprop, node, px, py);
    if (++g->gen == 0) {
        memset(g->stamp, 0, (size_t)g->max_prop * g->m * 4);
        g->gen = 1;
    }
    for (int32_t p = 0; p < nprop; p++)
        for (int32_t t = 0; t < SPATIAL_BLOCK; t++)
            tsr__lcd_spatial_thread(p, t, SPATIAL_BLOCK, g->x, g->y, g->eu, g->ev, g->m,
                                    g->adj_off, g->adj_edges, g->pnode, g->ppx, g->ppy,
                                    g->cell_off, g->cells, g->grid_count, g->grid_items,
                                    g->grid_cap, g->stamp, g->gen, g->delta, g->invalid);
    emu_download(g, nprop, out_delta, invalid);
    return TSR_OK;
}

static const ldc_backend emu_backend = {emu_count,  emu_create, emu_destroy,
                                        emu_move,   emu_delta,  emu_spatial};

/* ---- the geometry of the kernels against geometry.h ---- */
static void check_geometry(tsr_rng *r)
{
    const int32_t big = 1 << 30;
    for (int i = 0; i < 200000; i++) {
        int32_t lim = (i & 3) == 0 ? big : (i & 3) == 1 ? 1000000 : (i & 3) == 2 ? 8 : 2;
        int32_t c[8];
        for (int k = 0; k < 8; k++)
            c[k] = tsr_rng_range(r, 0, lim);
        CHECK(tsr__lcd_orient(c[0], c[1], c[2], c[3], c[4], c[5]) ==
              tsr__orient(c[0], c[1], c[2], c[3], c[4], c[5]));
        CHECK(tsr__lcd_cross(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]) ==
              tsr__segments_cross(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]));
        CHECK(tsr__lcd_on_segment(c[0], c[1], c[2], c[3], c[4], c[5]) ==
              tsr__point_on_segment(c[0], c[1], c[2], c[3], c[4], c[5]));
    }
    /* extremes of the canvas: products near 2^60, never an overflow */
    CHECK(tsr__lcd_cross(0, 0, big, big, 0, big, big, 0) == 1);
    CHECK(tsr__lcd_cross(0, 0, big, big - 1, 0, 1, big, 0) == 1);
    CHECK(tsr__lcd_orient(0, 0, big, big, big, big - 1) == -1);
}

/* ---- the definition: every valid proposal's emulated dense row equals the difference of two
 * full recounts (before and after the move), on small graphs with duplicate edges, isolated
 * nodes, leaves and a hub, several proposals per launch. ---- */
static void check_definition(tsr_ctx *ctx, tsr_rng *r)
{
    enum { P = 16 };
    for (int trial = 0; trial < 60; trial++) {
        int n = tsr_rng_range(r, 3, 40), m = tsr_rng_range(r, 1, 3 * n);
        int32_t side = (trial & 1) ? 12 : 1000000;
        tsr_layout *l;
        CHECK_OK(ctx, tsr_layout_alloc(ctx, n, m, &l));
        l->width = side;
        l->height = side;
        l->has_coordinates = 1;
        for (int i = 0; i < n; i++) {
            l->x[i] = tsr_rng_range(r, 0, side);
            l->y[i] = tsr_rng_range(r, 0, side);
        }
        int hub = 0; /* node n-1 is never an endpoint: degree 0 */
        for (int e = 0; e < m; e++) {
            int u = (e % 3 == 0) ? hub : tsr_rng_range(r, 0, n - 2), v;
            do
                v = tsr_rng_range(r, 0, n - 2);
            while (v == u);
            if (e > 0 && e % 7 == 0) { /* a duplicate edge */
                u = l->edge_u[e - 1];
                v = l->edge_v[e - 1];
            }
            l->edge_u[e] = u;
            l->edge_v[e] = v;
        }
        CHECK_OK(ctx, tsr_layout_repair(ctx, l, NULL));
        tsr__layout_adj adj;
        tsr__occupancy occ;
        CHECK_OK(ctx, tsr__adj_build(ctx, l, &adj));
        CHECK_OK(ctx, tsr__occ_build(ctx, l, &occ));
        void *g;
        CHECK_OK(ctx, emu_create(ctx, l, &adj, P, &g));
        int32_t node[P], px[P], py[P], *delta = calloc((size_t)P * m, 4);
        int32_t *c0 = calloc((size_t)m, 4), *c1 = calloc((size_t)m, 4);
        uint8_t invalid[P];
        tsr__count_reference(l, c0);
        for (int p = 0; p < P; p++) {
            node[p] = p == 0 ? hub : p == 1 ? n - 1 : tsr_rng_range(r, 0, n - 1);
            px[p] = tsr_rng_range(r, 0, side);
            py[p] = tsr_rng_range(r, 0, side);
        }
        CHECK_OK(ctx, emu_delta(ctx, g, P, node, px, py, delta, invalid));
        for (int p = 0; p < P; p++) {
            int v = node[p];
            if (!tsr__move_valid_nodes(l, &adj, &occ, v, px[p], py[p]))
                continue;
            int valid = tsr__move_valid(l, &adj, &occ, v, px[p], py[p]);
            CHECK(valid == !invalid[p]);
            if (!valid)
                continue;
            int32_t ox = l->x[v], oy = l->y[v];
            l->x[v] = px[p];
            l->y[v] = py[p];
            tsr__count_reference(l, c1);
            l->x[v] = ox;
            l->y[v] = oy;
            for (int f = 0; f < m; f++)
                CHECK(delta[(size_t)p * m + f] == c1[f] - c0[f]);
        }
        emu_destroy(ctx, g);
        tsr__adj_release(ctx, &adj);
        tsr__occ_release(ctx, &occ);
        free(delta);
        free(c0);
        free(c1);
        tsr_layout_free(ctx, l);
    }
}

/* ---- the spatial host raster covers the CPU index's query for the same segments ---- */
static void check_cells(tsr_ctx *ctx, tsr_rng *r)
{
    tsr_layout *l = ldc_random_drawing(ctx, r, 200, 500, 5000, 3000);
    tsr__incr inc;
    CHECK_OK(ctx, tsr__incr_init(ctx, &inc, l, 1));
    CHECK(inc.grid.items != NULL && inc.grid.stale == TSR__GRID_OK);
    int32_t *cells = malloc((size_t)PER_PROP_CELLS * 4);
    uint8_t *seen = calloc((size_t)l->num_edges, 1);
    for (int t = 0; t < 300 && inc.grid.items; t++) {
        int32_t v = tsr_rng_range(r, 0, l->num_nodes - 1), px = tsr_rng_range(r, 0, l->width),
                py = tsr_rng_range(r, 0, l->height);
        int nc = 0;
        if (!tsr__lcd_proposal_cells(inc.grid.cell, inc.grid.gx, inc.grid.gy, l->x, l->y,
                                     l->edge_u, l->edge_v, inc.adj.offset, inc.adj.edges, v, px,
                                     py, cells, &nc, PER_PROP_CELLS))
            continue;
        memset(seen, 0, (size_t)l->num_edges);
        for (int i = 0; i < nc; i++)
            for (int k = 0; k < inc.grid.count[cells[i]]; k++)
                seen[inc.grid.items[(size_t)cells[i] * inc.grid.cap + k]] = 1;
        CHECK(tsr__grid_query_begin(&inc.grid) == TSR__GRID_OK);
        CHECK(tsr__grid_query_segment(&inc.grid, px, py, px, py) == TSR__GRID_OK);
        for (int32_t k = inc.adj.offset[v]; k < inc.adj.offset[v + 1]; k++) {
            int32_t e = inc.adj.edges[k], w = l->edge_u[e] == v ? l->edge_v[e] : l->edge_u[e];
            CHECK(tsr__grid_query_segment(&inc.grid, l->x[v], l->y[v], l->x[w], l->y[w]) ==
                  TSR__GRID_OK);
            CHECK(tsr__grid_query_segment(&inc.grid, px, py, l->x[w], l->y[w]) == TSR__GRID_OK);
        }
        for (int32_t i = 0; i < inc.grid.ncand; i++)
            CHECK(seen[inc.grid.cand[i]]);
    }
    free(cells);
    free(seen);
    tsr__incr_release(ctx, &inc);
    tsr_layout_free(ctx, l);
}

int main(void)
{
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_REFERENCE;
    tsr_ctx *ctx;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK)
        return 1;
    tsr_rng r;
    tsr_rng_seed(&r, 5);
    check_geometry(&r);
    check_definition(ctx, &r);
    check_cells(ctx, &r);
    ldc_run_all(ctx, &emu_backend); /* the GPU test's sequence, seed 77 */
    fprintf(stderr, "test_layout_device_logic: %ld of %ld proposal rows differ from the CPU\n",
            ldc_bad_rows, ldc_rows);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("layout_device_logic");
}
