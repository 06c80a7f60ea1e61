/* Incremental crossing counts on the CPU (layout_internal.h). A move of node v changes only pairs
 * involving v's incident edges I(v): for every other edge f, new_cross - old_cross against each
 * e in I(v) is added to both c(f) and c(e). Candidates f are all edges (dense) or those listed in
 * the spatial index's cells along the old segments, the new segments and the new point (the old
 * region reveals crossings that disappear). The visit of the candidates has an AVX2 build
 * (incr_avx2.c, chosen by tsr__incr_simd()) with the same results in the same order. */
#include "layout/geometry_hd.h"
#include "layout/layout_internal.h"

#include "core/checked.h"
#include "core/minmax.h"
#include "core/simd_switch.h"

#include <string.h>

/* Memory the spatial index may take (bytes); proposals per window of the index's cost check, and
 * proposals then taken by the dense path when it did not pay; the share of the edges (1/n) a
 * window's queries may list on average before it does not pay, with the scalar and the AVX2
 * visit (whose dense path skips most edges far from the star for a few instructions each:
 * measured on A4/A7/A9, bench/notes/layout.md "Vectorised incremental visit"). */
enum {
    GRID_MEMORY_LIMIT = 256 << 20,
    GRID_WINDOW = 64,
    DENSE_RUN = 4096,
    GRID_SHARE_SCALAR = 2,
    GRID_SHARE_AVX2 = 16
};

static tsr_status alloc_n(tsr_ctx *ctx, size_t n, size_t elem, void **out)
{
    size_t bytes;
    if (!tsr__size_mul(n ? n : 1, elem, &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "layout: size overflows");
    tsr_status st = tsr__alloc(ctx, bytes, out);
    if (st == TSR_OK)
        memset(*out, 0, bytes);
    return st;
}

/* Histogram and score from inc->count. */
static void rescore(tsr__incr *inc)
{
    int32_t m = inc->l->num_edges;
    memset(inc->hist, 0, ((size_t)m + 1) * sizeof *inc->hist);
    for (int32_t e = 0; e < m; e++)
        inc->hist[inc->count[e]]++;
    tsr__score_from_counts(inc->count, m, &inc->score);
}

static size_t max_degree(const tsr__layout_adj *adj, int32_t n)
{
    int32_t d = 0;
    for (int32_t v = 0; v < n; v++)
        if (adj->offset[v + 1] - adj->offset[v] > d)
            d = adj->offset[v + 1] - adj->offset[v];
    return (size_t)d;
}

static tsr__simd_switch g_simd = TSR__SIMD_SWITCH(tsr__incr_cpu_avx2, 1);

int tsr__incr_simd(void)
{
    return tsr__simd_on(&g_simd);
}

void tsr__incr_set_simd(int on)
{
    tsr__simd_set(&g_simd, on);
}

/* The AVX2 visit's copy of every edge's end points from l. */
static void copy_ends(tsr__incr *inc, int32_t e)
{
    const tsr_layout *l = inc->l;
    inc->eax[e] = l->x[l->edge_u[e]];
    inc->eay[e] = l->y[l->edge_u[e]];
    inc->ebx[e] = l->x[l->edge_v[e]];
    inc->eby[e] = l->y[l->edge_v[e]];
}

static void copy_all_ends(tsr__incr *inc)
{
    for (int32_t e = 0; e < inc->l->num_edges; e++)
        copy_ends(inc, e);
}

tsr_status tsr__incr_rebuild_grid(tsr_ctx *ctx, tsr__incr *inc)
{
    tsr__grid_release(ctx, &inc->grid);
    if (!inc->use_grid)
        return TSR_OK;
    return tsr__grid_build(ctx, inc->l, 0, 0, GRID_MEMORY_LIMIT, &inc->grid);
}

tsr_status tsr__incr_init_with(tsr_ctx *ctx, tsr__incr *inc, tsr_layout *l, int use_grid,
                               const int32_t *counts)
{
    memset(inc, 0, sizeof *inc);
    inc->l = l;
    inc->use_grid = use_grid;
    inc->simd = tsr__incr_simd();
    inc->small = l->width <= TSR__SMALL_CANVAS && l->height <= TSR__SMALL_CANVAS;
    size_t m = (size_t)l->num_edges, maxdeg;
    tsr_status st;
    if ((st = tsr__adj_build(ctx, l, &inc->adj)) != TSR_OK ||
        (st = tsr__occ_build(ctx, l, &inc->occ)) != TSR_OK ||
        (st = alloc_n(ctx, m, sizeof(int32_t), (void **)&inc->count)) != TSR_OK ||
        (st = alloc_n(ctx, m + 1, sizeof(int64_t), (void **)&inc->hist)) != TSR_OK ||
        (st = alloc_n(ctx, m, sizeof(int32_t), (void **)&inc->delta)) != TSR_OK ||
        (st = alloc_n(ctx, m, sizeof(int32_t), (void **)&inc->touched)) != TSR_OK ||
        (st = alloc_n(ctx, m, 1, (void **)&inc->mark)) != TSR_OK ||
        (maxdeg = max_degree(&inc->adj, l->num_nodes),
         (st = alloc_n(ctx, maxdeg, sizeof(tsr__star_arm), (void **)&inc->star)) != TSR_OK) ||
        (st = alloc_n(ctx, m, sizeof(int32_t), (void **)&inc->eax)) != TSR_OK ||
        (st = alloc_n(ctx, m, sizeof(int32_t), (void **)&inc->eay)) != TSR_OK ||
        (st = alloc_n(ctx, m, sizeof(int32_t), (void **)&inc->ebx)) != TSR_OK ||
        (st = alloc_n(ctx, m, sizeof(int32_t), (void **)&inc->eby)) != TSR_OK ||
        (st = alloc_n(ctx, maxdeg, TSR__ARM_VALUES * sizeof(int32_t),
                      (void **)&inc->star_values)) != TSR_OK ||
        (st = alloc_n(ctx, maxdeg, 1, (void **)&inc->arm_now)) != TSR_OK ||
        (st = alloc_n(ctx, maxdeg, 1, (void **)&inc->arm_was)) != TSR_OK ||
        (st = tsr__incr_rebuild_grid(ctx, inc)) != TSR_OK ||
        (!counts && (st = tsr__count_parallel(ctx, l, inc->count, ctx->threads)) != TSR_OK)) {
        tsr__incr_release(ctx, inc);
        return st;
    }
    if (counts)
        memcpy(inc->count, counts, m * sizeof *inc->count);
    copy_all_ends(inc);
    rescore(inc);
    return TSR_OK;
}

tsr_status tsr__incr_init(tsr_ctx *ctx, tsr__incr *inc, tsr_layout *l, int use_grid)
{
    return tsr__incr_init_with(ctx, inc, l, use_grid, NULL);
}

void tsr__incr_release(tsr_ctx *ctx, tsr__incr *inc)
{
    tsr__adj_release(ctx, &inc->adj);
    tsr__occ_release(ctx, &inc->occ);
    tsr__grid_release(ctx, &inc->grid);
    tsr__free(ctx, inc->count);
    tsr__free(ctx, inc->hist);
    tsr__free(ctx, inc->delta);
    tsr__free(ctx, inc->touched);
    tsr__free(ctx, inc->mark);
    tsr__free(ctx, inc->star);
    tsr__free(ctx, inc->eax);
    tsr__free(ctx, inc->eay);
    tsr__free(ctx, inc->ebx);
    tsr__free(ctx, inc->eby);
    tsr__free(ctx, inc->star_values);
    tsr__free(ctx, inc->arm_now);
    tsr__free(ctx, inc->arm_was);
    memset(inc, 0, sizeof *inc);
}

static void clear_scratch(tsr__incr *inc)
{
    for (int32_t i = 0; i < inc->ntouched; i++) {
        int32_t e = inc->touched[i];
        inc->mark[e] = 0;
        inc->delta[e] = 0;
    }
    inc->ntouched = 0;
}

/* The spatial candidates of moving v to (px,py), or a reason to use the dense path. */
static tsr__grid_reason gather(tsr__incr *inc, int32_t v, int32_t px, int32_t py)
{
    const tsr_layout *l = inc->l;
    tsr__grid *g = &inc->grid;
    tsr__grid_reason r = tsr__grid_query_begin(g);
    if (r != TSR__GRID_OK)
        return r;
    if ((r = tsr__grid_query_segment(g, px, py, px, py)) != TSR__GRID_OK)
        return r;
    for (int32_t k = inc->adj.offset[v]; k < inc->adj.offset[v + 1]; k++) {
        int32_t e = inc->adj.edges[k], w = l->edge_u[e] == v ? l->edge_v[e] : l->edge_u[e];
        if ((r = tsr__grid_query_segment(g, l->x[v], l->y[v], l->x[w], l->y[w])) != TSR__GRID_OK ||
            (r = tsr__grid_query_segment(g, px, py, l->x[w], l->y[w])) != TSR__GRID_OK)
            return r;
    }
    return TSR__GRID_OK;
}

/* Gathers v's neighbours (other endpoint and coordinates of every incident edge) into the
 * proposal scratch, so the candidate loop reads them from one small array, with the bounds of
 * each arm before and after the move to (px,py). */
static void gather_star(tsr__incr *inc, int32_t v, int32_t px, int32_t py)
{
    const tsr_layout *l = inc->l;
    int32_t d = 0, ox = l->x[v], oy = l->y[v];
    for (int32_t k = inc->adj.offset[v]; k < inc->adj.offset[v + 1]; k++, d++) {
        int32_t e = inc->adj.edges[k], w = l->edge_u[e] == v ? l->edge_v[e] : l->edge_u[e];
        int32_t wx = l->x[w], wy = l->y[w];
        tsr__star_arm *s = &inc->star[d];
        *s = (tsr__star_arm){.e = e, .w = w, .x = wx, .y = wy};
        s->x0 = tsr__min3(ox, px, wx);
        s->y0 = tsr__min3(oy, py, wy);
        s->x1 = tsr__max3(ox, px, wx);
        s->y1 = tsr__max3(oy, py, wy);
    }
    inc->nstar = d;
}

/* Whether a and b lie strictly on opposite sides of the line through p and w. */
static inline int splits(int32_t px, int32_t py, int32_t wx, int32_t wy, int32_t ax, int32_t ay,
                         int32_t bx, int32_t by)
{
    int o1 = tsr__orient(px, py, wx, wy, ax, ay);
    int o2 = tsr__orient(px, py, wx, wy, bx, by);
    return o1 != 0 && o2 != 0 && o1 != o2;
}

/* Adds the changes caused by moving v from (ox,oy) to (px,py) against candidate f (v's star in
 * inc->star); returns 0 when (px,py) lies on f. The crossing test of tsr__segments_cross is
 * split so that the sides of f's line are computed once per point: (q,w) crosses f = ab exactly
 * when q and w lie strictly on opposite sides of ab and a, b strictly on opposite sides of qw. */
static inline int visit(tsr__incr *inc, int32_t f, int32_t v, int32_t ox, int32_t oy, int32_t px,
                        int32_t py)
{
    const tsr_layout *l = inc->l;
    int32_t a = l->edge_u[f], b = l->edge_v[f];
    if (a == v || b == v)
        return 1;
    int32_t ax = l->x[a], ay = l->y[a], bx = l->x[b], by = l->y[b];
    int sp = tsr__orient(ax, ay, bx, by, px, py);
    if (sp == 0 && tsr__point_on_segment(px, py, ax, ay, bx, by))
        return 0;
    int so = tsr__orient(ax, ay, bx, by, ox, oy);
    int32_t fx0 = ax < bx ? ax : bx, fx1 = ax < bx ? bx : ax;
    int32_t fy0 = ay < by ? ay : by, fy1 = ay < by ? by : ay;
    for (int32_t k = 0; k < inc->nstar; k++) {
        const tsr__star_arm *s = &inc->star[k];
        /* a proper crossing lies in both segments' boxes: none when f's box misses the arm's */
        if (s->w == a || s->w == b || fx1 < s->x0 || fx0 > s->x1 || fy1 < s->y0 || fy0 > s->y1)
            continue;
        int sw = tsr__orient(ax, ay, bx, by, s->x, s->y);
        if (sw == 0)
            continue;
        int now = sp == -sw && splits(px, py, s->x, s->y, ax, ay, bx, by);
        int was = so == -sw && splits(ox, oy, s->x, s->y, ax, ay, bx, by);
        if (now != was) {
            tsr__incr_touch(inc, f, now - was);
            tsr__incr_touch(inc, s->e, now - was);
        }
    }
    return 1;
}

/* Visits the candidates cand[0..n) (NULL: every edge) with the AVX2 or the scalar visit; 0 when
 * (px,py) lies on one of them (scratch cleared). */
static int visit_all(tsr__incr *inc, const int32_t *cand, int32_t n, int32_t v, int32_t px,
                     int32_t py)
{
    const int32_t ox = inc->l->x[v], oy = inc->l->y[v];
    int ok = 1;
    if (inc->simd)
        ok = tsr__incr_visit_avx2(inc, cand, n, v, ox, oy, px, py);
    else if (cand)
        for (int32_t i = 0; i < n && ok; i++)
            ok = visit(inc, cand[i], v, ox, oy, px, py);
    else
        for (int32_t f = 0; f < n && ok; f++)
            ok = visit(inc, f, v, ox, oy, px, py);
    if (!ok)
        clear_scratch(inc);
    return ok;
}

int tsr__incr_propose(tsr__incr *inc, int32_t v, int32_t px, int32_t py)
{
    const tsr_layout *l = inc->l;
    inc->pending = 0;
    if (!tsr__move_valid_nodes(l, &inc->adj, &inc->occ, v, px, py))
        return 0;
    gather_star(inc, v, px, py);
    int dense = 1;
    if (inc->use_grid && inc->dense_run > 0) {
        inc->dense_run--;
    } else if (inc->use_grid) {
        inc->grid_queries++;
        tsr__grid_reason r = gather(inc, v, px, py);
        /* When the queries of a window list more than 1/GRID_SHARE_* of the edges on average,
         * the index costs more than it saves: the next DENSE_RUN proposals take the dense path
         * (either path gives the same results). */
        inc->window_cand += r == TSR__GRID_OK ? (uint64_t)inc->grid.ncand : (uint64_t)l->num_edges;
        if (++inc->window == GRID_WINDOW) {
            if (inc->window_cand * (uint64_t)(inc->simd ? GRID_SHARE_AVX2 : GRID_SHARE_SCALAR) >
                (uint64_t)GRID_WINDOW * (uint64_t)l->num_edges)
                inc->dense_run = DENSE_RUN;
            inc->window = 0;
            inc->window_cand = 0;
        }
        if (r == TSR__GRID_OK) {
            dense = 0;
            if (!visit_all(inc, inc->grid.cand, inc->grid.ncand, v, px, py))
                return 0;
        } else {
            inc->dense_fallbacks++;
            inc->last_fallback = r;
        }
    }
    if (dense && !visit_all(inc, NULL, l->num_edges, v, px, py))
        return 0;
    /* Score after the move: histogram updated and restored around the K scan. */
    tsr_layout_score s = inc->score;
    int64_t dsum = 0, kmax = s.K;
    for (int32_t i = 0; i < inc->ntouched; i++) {
        int32_t e = inc->touched[i];
        int64_t c = inc->count[e], nc = c + inc->delta[e];
        s.Phi += nc * nc - c * c;
        dsum += inc->delta[e];
        inc->hist[c]--;
        inc->hist[nc]++;
        if (nc > kmax)
            kmax = nc;
    }
    while (kmax > 0 && inc->hist[kmax] == 0)
        kmax--;
    s.K = kmax;
    s.n_K = inc->hist[kmax];
    s.C += dsum / 2;
    for (int32_t i = 0; i < inc->ntouched; i++) {
        int32_t e = inc->touched[i];
        int64_t c = inc->count[e], nc = c + inc->delta[e];
        inc->hist[nc]--;
        inc->hist[c]++;
    }
    inc->pscore = s;
    inc->pv = v;
    inc->px = px;
    inc->py = py;
    inc->pending = 1;
    return 1;
}

int64_t tsr__incr_pending_excess(const tsr__incr *inc, int64_t t)
{
    int64_t dx = 0;
    for (int32_t i = 0; i < inc->ntouched; i++) {
        const int32_t e = inc->touched[i];
        const int64_t c = inc->count[e], nc = c + inc->delta[e];
        const int64_t o = c > t ? c - t : 0, n = nc > t ? nc - t : 0;
        dx += n * n - o * o;
    }
    return dx;
}

void tsr__incr_reject(tsr__incr *inc)
{
    clear_scratch(inc);
    inc->pending = 0;
}

/* Moves v to (px, py) in the coordinates, the occupancy and the index (counts are the
 * caller's). */
static tsr_status move_node(tsr_ctx *ctx, tsr__incr *inc, int32_t v, int32_t px, int32_t py)
{
    tsr_layout *l = inc->l;
    int32_t ox = l->x[v], oy = l->y[v];
    tsr_status st = tsr__occ_move(ctx, &inc->occ, v, ox, oy, px, py);
    for (int32_t k = inc->adj.offset[v]; k < inc->adj.offset[v + 1]; k++) {
        int32_t e = inc->adj.edges[k], w = l->edge_u[e] == v ? l->edge_v[e] : l->edge_u[e];
        tsr__grid_remove(&inc->grid, e, ox, oy, l->x[w], l->y[w]);
    }
    l->x[v] = px;
    l->y[v] = py;
    for (int32_t k = inc->adj.offset[v]; k < inc->adj.offset[v + 1]; k++) {
        int32_t e = inc->adj.edges[k], w = l->edge_u[e] == v ? l->edge_v[e] : l->edge_u[e];
        tsr__grid_insert(&inc->grid, e, px, py, l->x[w], l->y[w]);
        copy_ends(inc, e);
    }
    return st;
}

tsr_status tsr__incr_commit(tsr_ctx *ctx, tsr__incr *inc)
{
    if (!inc->pending)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "layout: commit without a valid proposal");
    for (int32_t i = 0; i < inc->ntouched; i++) {
        int32_t e = inc->touched[i];
        inc->hist[inc->count[e]]--;
        inc->count[e] += inc->delta[e];
        inc->hist[inc->count[e]]++;
    }
    inc->score = inc->pscore;
    clear_scratch(inc);
    inc->pending = 0;
    return move_node(ctx, inc, inc->pv, inc->px, inc->py);
}

tsr_status tsr__incr_apply(tsr_ctx *ctx, tsr__incr *inc, int32_t v, int32_t px, int32_t py,
                           const int32_t *counts)
{
    clear_scratch(inc);
    inc->pending = 0;
    for (int32_t e = 0; e < inc->l->num_edges; e++)
        if (counts[e] != inc->count[e]) {
            if (counts[e] < 0 || counts[e] > inc->l->num_edges)
                return tsr__fail(ctx, TSR_ERR_INTERNAL, "layout: edge count out of range");
            inc->hist[inc->count[e]]--;
            inc->count[e] = counts[e];
            inc->hist[inc->count[e]]++;
        }
    tsr__score_from_counts(inc->count, inc->l->num_edges, &inc->score);
    return move_node(ctx, inc, v, px, py);
}

tsr_status tsr__incr_load(tsr_ctx *ctx, tsr__incr *inc, const int32_t *x, const int32_t *y,
                          const int32_t *counts)
{
    tsr_layout *l = inc->l;
    clear_scratch(inc);
    inc->pending = 0;
    memcpy(l->x, x, (size_t)l->num_nodes * sizeof *x);
    memcpy(l->y, y, (size_t)l->num_nodes * sizeof *y);
    copy_all_ends(inc);
    tsr_status st = TSR_OK;
    if (counts)
        memcpy(inc->count, counts, (size_t)l->num_edges * sizeof *counts);
    else
        st = tsr__count_parallel(ctx, l, inc->count, ctx->threads);
    if (st != TSR_OK)
        return st;
    rescore(inc);
    tsr__occ_release(ctx, &inc->occ);
    st = tsr__occ_build(ctx, l, &inc->occ);
    if (st == TSR_OK)
        st = tsr__incr_rebuild_grid(ctx, inc);
    return st;
}
