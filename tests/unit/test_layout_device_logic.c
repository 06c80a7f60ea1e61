/* The CUDA layout kernels' logic on the CPU, no GPU needed: a host emulation of
 * layout_cuda.cu's launchers (device buffers as host copies, the drawing changed only by commit,
 * grid upload cached by version, generation stamps starting just before their wrap-around) that
 * runs the kernels' own per-thread bodies (src/layout/layout_cuda_logic.h) phase by phase for
 * every thread of every block, put through the GPU test's sequence (layout_delta_check.h) and
 * compared with the CPU evaluators; plus the definition itself (a recount after the move) on small
 * random graphs with duplicate edges and nodes of degree 0, 1 and high, and the shared geometry
 * (geometry_hd.h) against 128-bit arithmetic. */
#include "testlib.h"

#include "layout/geometry_hd.h"
#include "layout/layout_cuda_logic.h"
#include "layout/layout_internal.h"

#include "layout_delta_check.h"

#include <stdlib.h>
#include <string.h>

/* ---- the emulated device ---- */
typedef struct emu {
    int32_t n, m, max_prop, maxdeg;
    int32_t target; /* the excess target (emu_set_target; INT32_MAX: none) */
    int64_t *dx;    /* max_prop: the last launch's excess changes */
    int32_t *x, *y, *ec, *eu, *ev, *adj_off, *adj_edges, *c, *hist, *rows;
    int32_t *star;        /* MAX_PARTS x STAR_ARRAYS x maxdeg: each cluster block's shared star */
    int32_t *df_part;     /* MAX_PARTS x DENSE_THREADS: each cluster block's changes of its edges */
    tsr__lcd_edge *first; /* per thread: the dense kernel's edge loaded before the star */
    tsr_layout_score score;
    unsigned *stamp;
    unsigned gen;
    int32_t *grid_count, *grid_items, *cells;
    int32_t grid_cells, grid_cap;
    uint64_t grid_version;
    int grid_uploaded;
    int32_t cells_cap, window;
    uint64_t paths[3];
    tsr__lcd_acc *acc; /* one per thread of a block */
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
                counts[e] = tsr__lcd_count_edge(e, l->x, l->y, l->edge_u, l->edge_v, m, -1, 0, 0);
        }
    return TSR_OK;
}

static void emu_destroy(tsr_ctx *ctx, void *h)
{
    (void)ctx;
    emu *g = h;
    if (!g)
        return;
    void *p[] = {g->x,     g->y,    g->ec,    g->eu,   g->ev,     g->adj_off,    g->adj_edges,
                 g->c,     g->hist, g->rows,  g->star, g->stamp,  g->grid_count, g->grid_items,
                 g->cells, g->acc,  g->first, g->dx,   g->df_part};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        free(p[i]);
    free(g);
}

static tsr_status emu_create(tsr_ctx *ctx, const tsr_layout *l, const tsr__layout_adj *adj,
                             int max_proposals, void **out)
{
    *out = NULL;
    for (int32_t e = 0; e < l->num_edges; e++)
        if (l->edge_u[e] == l->edge_v[e])
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "emu: self-loop");
    emu *g = calloc(1, sizeof *g);
    size_t n = (size_t)l->num_nodes, m = (size_t)l->num_edges, P = (size_t)max_proposals;
    g->n = (int32_t)n;
    g->m = (int32_t)m;
    g->max_prop = max_proposals;
    g->target = INT32_MAX;
    g->dx = dup_n(NULL, P * sizeof *g->dx);
    for (size_t v = 0; v < n; v++)
        if (adj->offset[v + 1] - adj->offset[v] > g->maxdeg)
            g->maxdeg = adj->offset[v + 1] - adj->offset[v];
    g->x = dup_n(l->x, n * 4);
    g->y = dup_n(l->y, n * 4);
    g->eu = dup_n(l->edge_u, m * 4);
    g->ev = dup_n(l->edge_v, m * 4);
    g->adj_off = dup_n(adj->offset, (n + 1) * 4);
    g->adj_edges = dup_n(adj->edges, m * 8);
    g->ec = dup_n(NULL, m * 16);
    tsr__lcd_edge_coords(g->m, g->x, g->y, g->eu, g->ev, g->ec);
    g->c = dup_n(NULL, m * 4);
    g->hist = dup_n(NULL, (m + 1) * 4);
    g->rows = dup_n(NULL, P * m * 4);
    g->star = dup_n(NULL, (size_t)(g->maxdeg ? g->maxdeg : 1) * TSR__LCD_STAR_ARRAYS * 4 *
                              TSR__LCD_MAX_PARTS);
    g->df_part = dup_n(NULL, (size_t)TSR__LCD_MAX_PARTS * TSR__LCD_DENSE_THREADS * 4);
    g->first = dup_n(NULL, TSR__LCD_COMMIT_THREADS * sizeof(tsr__lcd_edge));
    g->stamp = dup_n(NULL, P * m * 4);
    g->gen = 0xfffffff0u; /* wraps within the test's launches: the reset path runs */
    g->cells = dup_n(NULL, P * TSR__LCD_PER_PROP_CELLS * 4);
    g->cells_cap = TSR__LCD_PER_PROP_CELLS;
    g->window = TSR__LCD_WINDOW;
    g->acc = dup_n(NULL, TSR__LCD_COMMIT_THREADS * sizeof(tsr__lcd_acc));
    /* create: count_kernel on the uploaded drawing, score and histogram on the host */
    tsr_layout tmp = *l;
    tmp.x = g->x;
    tmp.y = g->y;
    emu_count(ctx, &tmp, g->c);
    tsr__score_from_counts(g->c, g->m, &g->score);
    for (size_t e = 0; e < m; e++)
        g->hist[g->c[e]]++;
    *out = g;
    return TSR_OK;
}

static tsr_layout_score emu_score(const void *h)
{
    return ((const emu *)h)->score;
}

static tsr_status emu_counts(tsr_ctx *ctx, void *h, int32_t *counts)
{
    (void)ctx;
    emu *g = h;
    memcpy(counts, g->c, (size_t)g->m * 4);
    return TSR_OK;
}

static tsr_status emu_limits(tsr_ctx *ctx, void *h, int cells_per_proposal, int window)
{
    emu *g = h;
    if (cells_per_proposal < 1 || cells_per_proposal > TSR__LCD_PER_PROP_CELLS || window < 1 ||
        window > TSR__LCD_WINDOW)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "emu: limits out of range");
    g->cells_cap = cells_per_proposal;
    g->window = window;
    return TSR_OK;
}

static void emu_paths(const void *h, uint64_t paths[3])
{
    memcpy(paths, ((const emu *)h)->paths, sizeof((const emu *)h)->paths);
}

static tsr_status emu_check(tsr_ctx *ctx, const emu *g, int nprop, const int32_t *node,
                            const int32_t *px, const int32_t *py)
{
    if (nprop < 1 || nprop > g->max_prop)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "emu: proposal count out of range");
    for (int p = 0; p < nprop; p++)
        if (node[p] < 0 || node[p] >= g->n || px[p] < 0 || py[p] < 0 ||
            px[p] > TSR_LAYOUT_MAX_CANVAS || py[p] > TSR_LAYOUT_MAX_CANVAS)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "emu: proposal out of range");
    return TSR_OK;
}

/* The threads' accumulators merged as block_reduce_write does (any order gives the same). */
static void emu_reduce(emu *g, int nt, int invalid, tsr_layout_score *score, uint8_t *inv,
                       int64_t *dx)
{
    tsr__lcd_acc a = g->acc[0];
    for (int t = 1; t < nt; t++)
        tsr__lcd_acc_merge(&a, &g->acc[t]);
    tsr__lcd_out o = {a.dphi, a.dsum, a.dx, a.k, a.nk, invalid, 0, 0};
    *dx = o.dx;
    tsr__lcd_out_score(&o, g->score.Phi, g->score.C, &score->K, &score->n_K, &score->Phi,
                       &score->C);
    *inv = (uint8_t)(invalid != 0);
}

/* The shared star of cluster block r (0 for a block of its own). */
static tsr__lcd_star emu_star(emu *g, int32_t v, int r)
{
    int32_t md = g->maxdeg ? g->maxdeg : 1, *m = g->star + (size_t)r * TSR__LCD_STAR_ARRAYS * md;
    tsr__lcd_star s = {m,
                       m + md,
                       m + 2 * md,
                       m + 3 * md,
                       m + 4 * md,
                       m + 5 * md,
                       g->adj_off[v + 1] - g->adj_off[v]};
    return s;
}

/* eval_dense_kernel's cluster of `parts` blocks for one proposal (dense_parts), the edges
 * loaded into g->first: every block its star and its arms' changes of every edge, then rank 0's
 * sums, its copies of the other ranks' arm changes, phase 3 and the reduction. */
static void emu_dense_parts(emu *g, int nt, int parts, int32_t v, int32_t px, int32_t py,
                            tsr_layout_score *score, uint8_t *inv, int64_t *dx)
{
    const int32_t ox = g->x[v], oy = g->y[v];
    tsr__lcd_star s[TSR__LCD_MAX_PARTS];
    int invalid[TSR__LCD_MAX_PARTS];
    memset(g->df_part, 0x5a, (size_t)TSR__LCD_MAX_PARTS * TSR__LCD_DENSE_THREADS * 4);
    for (int r = parts - 1; r >= 0; r--) {
        s[r] = emu_star(g, v, r);
        invalid[r] = 0x5a; /* shared memory starts undefined */
        for (int t = 0; t < nt; t++)
            tsr__lcd_star_thread(t, nt, v, g->ec, g->eu, g->ev, g->adj_off[v], g->adj_edges, g->c,
                                 &s[r], NULL, 0, 0, 0, NULL, &invalid[r]);
        int32_t i0, i1;
        tsr__lcd_part_arms(s[r].deg, parts, r, &i0, &i1);
        for (int t = 0; t < nt && t < g->m; t++)
            g->df_part[r * TSR__LCD_DENSE_THREADS + t] =
                tsr__lcd_part_thread(&g->first[t], v, ox, oy, px, py, &s[r], i0, i1, &invalid[r]);
    }
    for (int t = 0; t < nt; t++) {
        tsr__lcd_acc_init(&g->acc[t], g->target);
        if (t < g->m) {
            int32_t df = 0;
            for (int r = 0; r < parts; r++)
                df += g->df_part[r * TSR__LCD_DENSE_THREADS + t];
            tsr__lcd_part_sum_thread(&g->first[t], v, df, &g->acc[t]);
        }
    }
    for (int32_t i = 0; i < s[0].deg; i++)
        s[0].acc[i] = s[tsr__lcd_arm_part(s[0].deg, parts, i)].acc[i];
    for (int t = 0; t < nt; t++)
        tsr__lcd_incident_thread(t, nt, g->c, &s[0], &g->acc[t], NULL);
    emu_reduce(g, nt, invalid[0], score, inv, dx);
}

/* eval_dense_kernel, one proposal (v to px,py) on a block of nt threads, or on a cluster of
 * `parts` blocks (emu_dense_parts), phase by phase; commit (one block) with the histogram as the
 * commit launch does. */
static void emu_dense_block(emu *g, int nt, int parts, int32_t v, int32_t px, int32_t py,
                            int commit, tsr_layout_score *score, uint8_t *inv, int64_t *dx)
{
    const int32_t ox = g->x[v], oy = g->y[v];
    int32_t *hist = commit ? g->hist : NULL;
    tsr__lcd_star s = emu_star(g, v, 0);
    int invalid = 0x5a; /* shared memory starts undefined */
    for (int t = 0; t < nt && t < g->m; t++)
        tsr__lcd_edge_load(t, g->ec, g->eu, g->ev, g->c, &g->first[t]);
    if (parts > 1) {
        emu_dense_parts(g, nt, parts, v, px, py, score, inv, dx);
        return;
    }
    for (int t = 0; t < nt; t++)
        tsr__lcd_star_thread(t, nt, v, g->ec, g->eu, g->ev, g->adj_off[v], g->adj_edges, g->c, &s,
                             NULL, 0, 0, 0, NULL, &invalid);
    for (int t = 0; t < nt; t++) {
        tsr__lcd_acc_init(&g->acc[t], g->target);
        tsr__lcd_dense_thread(t, nt, g->m, v, ox, oy, px, py, g->ec, g->eu, g->ev, g->c, &s,
                              t < g->m ? &g->first[t] : NULL, &g->acc[t], &invalid, hist);
    }
    for (int t = 0; t < nt; t++)
        tsr__lcd_incident_thread(t, nt, g->c, &s, &g->acc[t], hist);
    emu_reduce(g, nt, invalid, score, inv, dx);
    if (commit)
        for (int t = nt - 1; t >= 0; t--)
            tsr__lcd_commit_point_thread(t, nt, v, px, py, g->eu, &s, g->ec, g->x, g->y);
}

/* eval_spatial_kernel, block p, phase by phase; returns the path taken. */
static int emu_spatial_block(emu *g, const tsr__grid *grid, int p, int32_t v, int32_t px,
                             int32_t py, tsr_layout_score *score, uint8_t *inv, int64_t *dx)
{
    const int nt = TSR__LCD_EVAL_THREADS;
    const int32_t ox = g->x[v], oy = g->y[v], kbase = (int32_t)g->score.K;
    unsigned *st = g->stamp + (size_t)p * g->m;
    int32_t *cells = g->cells + (size_t)p * g->cells_cap;
    tsr__lcd_spatial_shared sh;
    memset(&sh, 0x5a, sizeof sh); /* shared memory starts undefined */
    int invalid = 0x5a;
    for (int t = 0; t < nt; t++)
        tsr__lcd_spatial_begin_thread(t, nt, &sh);
    tsr__lcd_star s = emu_star(g, v, 0);
    for (int t = 0; t < nt; t++) {
        tsr__lcd_star_thread(t, nt, v, g->ec, g->eu, g->ev, g->adj_off[v], g->adj_edges, g->c, &s,
                             st, g->gen, kbase, g->window, &sh, &invalid);
        tsr__lcd_raster_thread(t, nt, grid->cell, grid->gx, grid->gy, g->x, g->y, g->eu, g->ev,
                               g->adj_off, g->adj_edges, v, px, py, cells, g->cells_cap, &sh);
    }
    const int overflow = sh.overflow;
    for (int t = 0; t < nt; t++) {
        tsr__lcd_acc_init(&g->acc[t], g->target);
        if (overflow)
            tsr__lcd_dense_thread(t, nt, g->m, v, ox, oy, px, py, g->ec, g->eu, g->ev, g->c, &s,
                                  NULL, &g->acc[t], &invalid, NULL);
        else
            tsr__lcd_spatial_thread(t, nt, v, ox, oy, px, py, g->ec, g->eu, g->ev, g->c, cells,
                                    sh.ncell, g->grid_count, g->grid_items, g->grid_cap, st, g->gen,
                                    kbase, g->window, &sh, &s, &g->acc[t], &invalid);
    }
    if (!overflow)
        tsr__lcd_window_top(g->hist, kbase, g->window, &sh, &g->acc[0]);
    for (int t = 0; t < nt; t++) {
        if (!overflow && sh.scan)
            tsr__lcd_unclaimed_thread(t, nt, g->m, g->c, st, g->gen, &g->acc[t]);
        tsr__lcd_incident_thread(t, nt, g->c, &s, &g->acc[t], NULL);
    }
    emu_reduce(g, nt, invalid, score, inv, dx);
    return overflow ? 1 : sh.scan ? 2 : 0;
}

static tsr_status emu_dense(tsr_ctx *ctx, void *h, int nprop, const int32_t *node,
                            const int32_t *px, const int32_t *py, tsr_layout_score *score,
                            uint8_t *invalid)
{
    emu *g = h;
    tsr_status st = emu_check(ctx, g, nprop, node, px, py);
    /* the H200's 132 SMs decide the parts per proposal, as they do there */
    const int parts = tsr__lcd_dense_parts(g->m, nprop, 132);
    for (int p = 0; p < nprop && st == TSR_OK; p++)
        emu_dense_block(g, TSR__LCD_DENSE_THREADS, parts, node[p], px[p], py[p], 0, &score[p],
                        &invalid[p], &g->dx[p]);
    return st;
}

static tsr_status emu_commit(tsr_ctx *ctx, void *h, int32_t v, int32_t x, int32_t y,
                             tsr_layout_score *score, int32_t *counts)
{
    emu *g = h;
    tsr_status st = emu_check(ctx, g, 1, &v, &x, &y);
    if (st != TSR_OK)
        return st;
    uint8_t inv;
    emu_dense_block(g, TSR__LCD_COMMIT_THREADS, 1, v, x, y, 1, score, &inv, &g->dx[0]);
    if (inv)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "emu: committed move lies on an edge");
    g->score = *score;
    return counts ? emu_counts(ctx, g, counts) : TSR_OK;
}

static tsr_status emu_full(tsr_ctx *ctx, void *h, int nprop, const int32_t *node, const int32_t *px,
                           const int32_t *py, tsr_layout_score *score, uint8_t *invalid)
{
    emu *g = h;
    tsr_status st = emu_check(ctx, g, nprop, node, px, py);
    if (st != TSR_OK)
        return st;
    /* full_rows_kernel: grid (ceil(m / 256), nprop) */
    for (int p = 0; p < nprop; p++)
        for (int32_t b = 0; b < (g->m + TSR__LCD_FULL_THREADS - 1) / TSR__LCD_FULL_THREADS; b++)
            for (int32_t t = 0; t < TSR__LCD_FULL_THREADS; t++) {
                int32_t e = b * TSR__LCD_FULL_THREADS + t;
                if (e < g->m)
                    g->rows[(size_t)p * g->m + e] = tsr__lcd_count_edge(
                        e, g->x, g->y, g->eu, g->ev, g->m, node[p], px[p], py[p]);
            }
    /* full_reduce_kernel: one block per proposal */
    for (int p = 0; p < nprop; p++) {
        int inv = 0;
        for (int t = 0; t < TSR__LCD_EVAL_THREADS; t++) {
            tsr__lcd_acc_init(&g->acc[t], g->target);
            tsr__lcd_full_reduce_thread(t, TSR__LCD_EVAL_THREADS, g->m, node[p], px[p], py[p], g->x,
                                        g->y, g->eu, g->ev, g->c, g->rows + (size_t)p * g->m,
                                        &g->acc[t], &inv);
        }
        emu_reduce(g, TSR__LCD_EVAL_THREADS, inv, &score[p], &invalid[p], &g->dx[p]);
    }
    return TSR_OK;
}

static tsr_status emu_spatial(tsr_ctx *ctx, void *h, const tsr__grid *grid, uint64_t grid_version,
                              int nprop, const int32_t *node, const int32_t *px, const int32_t *py,
                              tsr_layout_score *score, uint8_t *invalid)
{
    emu *g = h;
    tsr_status st = emu_check(ctx, g, nprop, node, px, py);
    if (st != TSR_OK)
        return st;
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
    if (++g->gen == 0) {
        memset(g->stamp, 0, (size_t)g->max_prop * g->m * 4);
        g->gen = 1;
    }
    for (int p = 0; p < nprop; p++)
        g->paths[emu_spatial_block(g, grid, p, node[p], px[p], py[p], &score[p], &invalid[p],
                                   &g->dx[p])]++;
    return TSR_OK;
}

static void emu_set_target(void *h, int64_t t)
{
    emu *g = h;
    g->target = t > INT32_MAX ? INT32_MAX : t < -1 ? -1 : (int32_t)t;
}

static int64_t emu_excess(const void *h, int p)
{
    return ((const emu *)h)->dx[p];
}

static const ldc_backend emu_backend = {
    emu_count,   emu_create, emu_destroy, emu_score,      emu_counts, emu_dense, emu_full,
    emu_spatial, emu_limits, emu_paths,   emu_set_target, emu_excess, emu_commit};

/* ---- the geometry the kernels share with the CPU (geometry_hd.h) against 128-bit arithmetic ----
 */
static int orient_wide(int32_t ax, int32_t ay, int32_t bx, int32_t by, int32_t cx, int32_t cy)
{
    __int128 l = (__int128)((int64_t)bx - ax) * ((int64_t)cy - ay);
    __int128 r = (__int128)((int64_t)by - ay) * ((int64_t)cx - ax);
    return (l > r) - (l < r);
}

static int cross_wide(const int32_t *c)
{
    int o1 = orient_wide(c[0], c[1], c[2], c[3], c[4], c[5]);
    int o2 = orient_wide(c[0], c[1], c[2], c[3], c[6], c[7]);
    int o3 = orient_wide(c[4], c[5], c[6], c[7], c[0], c[1]);
    int o4 = orient_wide(c[4], c[5], c[6], c[7], c[2], c[3]);
    return o1 * o2 < 0 && o3 * o4 < 0;
}

static int on_segment_wide(const int32_t *c)
{
    int32_t px = c[0], py = c[1], ax = c[2], ay = c[3], bx = c[4], by = c[5];
    return orient_wide(ax, ay, bx, by, px, py) == 0 && px >= (ax < bx ? ax : bx) &&
           px <= (ax < bx ? bx : ax) && py >= (ay < by ? ay : by) && py <= (ay < by ? by : ay);
}

static void check_geometry(tsr_rng *r)
{
    const int32_t big = 1 << 30;
    for (int i = 0; i < 200000; i++) {
        int32_t lim = (i & 3) == 0 ? big : (i & 3) == 1 ? 1000000 : (i & 3) == 2 ? 8 : 2;
        int32_t c[8];
        for (int k = 0; k < 8; k++)
            c[k] = tsr_rng_range(r, 0, lim);
        CHECK(tsr__orient(c[0], c[1], c[2], c[3], c[4], c[5]) ==
              orient_wide(c[0], c[1], c[2], c[3], c[4], c[5]));
        CHECK(tsr__segments_cross(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]) == cross_wide(c));
        CHECK(tsr__point_on_segment(c[0], c[1], c[2], c[3], c[4], c[5]) == on_segment_wide(c));
        const int64_t a = (int64_t)c[0] - c[1], b = c[2] ? c[2] : 1;
        CHECK(tsr__floor_div(a, b) * b <= a && a < (tsr__floor_div(a, b) + 1) * b);
    }
    /* extremes of the canvas: products near 2^60, never an overflow */
    CHECK(tsr__segments_cross(0, 0, big, big, 0, big, big, 0) == 1);
    CHECK(tsr__segments_cross(0, 0, big, big - 1, 0, 1, big, 0) == 1);
    CHECK(tsr__orient(0, 0, big, big, big, big - 1) == -1);
}

/* ---- the definition: every valid proposal's emulated dense and full scores equal the score of
 * a full recount after the move, and a commit leaves the recount's per-edge counts, on small
 * graphs with duplicate edges, isolated nodes, leaves and a hub, on canvases of 12 and 10^6. ----
 */
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
        int32_t node[P], px[P], py[P], *c1 = calloc((size_t)m, 4);
        tsr_layout_score dense[P], full[P];
        uint8_t inv_dense[P], inv_full[P];
        for (int p = 0; p < P; p++) {
            node[p] = p == 0 ? hub : p == 1 ? n - 1 : tsr_rng_range(r, 0, n - 1);
            px[p] = tsr_rng_range(r, 0, side);
            py[p] = tsr_rng_range(r, 0, side);
        }
        CHECK_OK(ctx, emu_dense(ctx, g, P, node, px, py, dense, inv_dense));
        CHECK_OK(ctx, emu_full(ctx, g, P, node, px, py, full, inv_full));
        int committed = 0;
        for (int p = 0; p < P; p++) {
            int v = node[p];
            if (!tsr__move_valid_nodes(l, &adj, &occ, v, px[p], py[p]))
                continue;
            int valid = tsr__move_valid(l, &adj, &occ, v, px[p], py[p]);
            CHECK(valid == !inv_dense[p]);
            CHECK(valid == !inv_full[p]);
            if (!valid)
                continue;
            tsr_layout_score want = ldc_recount_score(l, v, px[p], py[p], c1);
            CHECK(ldc_same_score(&dense[p], &want));
            CHECK(ldc_same_score(&full[p], &want));
            if (!committed) { /* the commit leaves exactly the recount's counts */
                tsr_layout_score got;
                CHECK_OK(ctx, emu_commit(ctx, g, v, px[p], py[p], &got, NULL));
                CHECK(ldc_same_score(&got, &want));
                CHECK(memcmp(((emu *)g)->c, c1, (size_t)m * 4) == 0);
                committed = 1;
            }
        }
        emu_destroy(ctx, g);
        tsr__adj_release(ctx, &adj);
        tsr__occ_release(ctx, &occ);
        free(c1);
        tsr_layout_free(ctx, l);
    }
}

/* ---- the device raster (every thread of a block, any order of slots) covers the CPU index's
 * query for the same segments, and reports an overflow instead of a truncated list ---- */
static void check_cells(tsr_ctx *ctx, tsr_rng *r)
{
    tsr_layout *l = ldc_random_drawing(ctx, r, 200, 500, 5000, 3000, 1);
    tsr__incr inc;
    CHECK_OK(ctx, tsr__incr_init(ctx, &inc, l, 1));
    CHECK(inc.grid.items != NULL && inc.grid.stale == TSR__GRID_OK);
    int32_t *cells = malloc((size_t)TSR__LCD_PER_PROP_CELLS * 4);
    uint8_t *seen = calloc((size_t)l->num_edges, 1);
    int overflows = 0;
    for (int t = 0; t < 300 && inc.grid.items; t++) {
        int32_t v = t % 10 == 0 ? 0 : tsr_rng_range(r, 0, l->num_nodes - 1),
                px = tsr_rng_range(r, 0, l->width), py = tsr_rng_range(r, 0, l->height);
        int cap = t % 3 == 0 ? 8 : TSR__LCD_PER_PROP_CELLS;
        tsr__lcd_spatial_shared sh;
        memset(&sh, 0x5a, sizeof sh); /* shared memory starts undefined */
        for (int k = 0; k < 64; k++)
            tsr__lcd_spatial_begin_thread(k, 64, &sh);
        for (int k = 63; k >= 0; k--) /* threads in reverse: the slots' order is free */
            tsr__lcd_raster_thread(k, 64, inc.grid.cell, inc.grid.gx, inc.grid.gy, l->x, l->y,
                                   l->edge_u, l->edge_v, inc.adj.offset, inc.adj.edges, v, px, py,
                                   cells, cap, &sh);
        if (sh.overflow) {
            CHECK(sh.ncell > cap);
            overflows++;
            continue;
        }
        CHECK(sh.ncell <= cap);
        memset(seen, 0, (size_t)l->num_edges);
        for (int i = 0; i < sh.ncell; i++)
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
    CHECK(overflows > 0);
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
    ldc_print_summary("test_layout_device_logic");
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("layout_device_logic");
}
