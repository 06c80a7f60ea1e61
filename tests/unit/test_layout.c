/* Layout domain: the exact test vectors of the GD 2025 examples (EXPECTED.md), validity reports,
 * reference vs parallel counts, the incremental evaluator against full recounts (dense and spatial
 * paths, the cases the issue lists), repair, determinism, GraphML. Parser must-reject lists are in
 * test_layout_parse.c. */
#include "testlib.h"

#include "layout/geometry_hd.h"
#include "layout/layout_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static tsr_ctx *ctx;

/* EXPECTED.md, gd2025-examples */
static const struct {
    const char *file;
    int n, m;
    int64_t K, n_K, Phi, C;
    int node_on_edge;
} examples[] = {
    {"15-nodes.json", 15, 58, 25, 2, 9934, 313, 0},
    {"sol-15-nodes-5-planar.json", 15, 58, 5, 8, 446, 62, 0},
    {"70-nodes.json", 70, 374, 183, 1, 3223776, 14871, 0},
    {"sol-70-nodes-16-planar.json", 70, 374, 16, 3, 14360, 897, 0},
    {"100-nodes.json", 100, 411, 202, 1, 4733158, 19114, 11},
    {"sol-100-nodes-10-planar.json", 100, 411, 10, 5, 6256, 586, 0},
    {"150-nodes.json", 150, 1375, 681, 1, 169685122, 209618, 0},
    {"sol-150-nodes-50-planar.json", 150, 1375, 50, 3, 507268, 10915, 0},
    {"225-nodes.json", 225, 1057, 520, 1, 76988312, 123267, 45},
    {"sol-225-nodes-16-planar.json", 225, 1057, 16, 1, 28914, 2140, 0},
    {"625-nodes.json", 400, 604, 318, 1, 14820160, 41276, 18},
    {"sol-625-nodes-5-planar.json", 400, 604, 2, 5, 72, 31, 0},
};

/* Independent point-on-closed-segment test (bounding box + collinearity via __int128). */
static int on_segment_slow(int64_t px, int64_t py, int64_t ax, int64_t ay, int64_t bx, int64_t by)
{
    __int128 cr = (__int128)(bx - ax) * (py - ay) - (__int128)(by - ay) * (px - ax);
    return cr == 0 && px >= (ax < bx ? ax : bx) && px <= (ax < bx ? bx : ax) &&
           py >= (ay < by ? ay : by) && py <= (ay < by ? by : ay);
}

static tsr_layout *load(const char *rel)
{
    const char *path = tsr_test_data(rel);
    if (!path)
        return NULL;
    tsr_layout *l = NULL;
    CHECK_OK(ctx, tsr_layout_read(ctx, path, &l));
    return l;
}

static int count_violations(const tsr_layout *l, tsr_layout_violation_kind kind)
{
    size_t total = 0;
    CHECK_OK(ctx, tsr_layout_check(ctx, l, NULL, 0, &total));
    tsr_layout_violation *v = calloc(total + 1, sizeof *v);
    CHECK_OK(ctx, tsr_layout_check(ctx, l, v, total, &total));
    int k = 0;
    for (size_t i = 0; i < total; i++) {
        if (v[i].kind != kind)
            continue;
        k++;
        if (kind == TSR_LAYOUT_NODE_ON_EDGE) { /* the named node really lies on the named edge */
            int32_t a = v[i].node_a, e = v[i].edge_e, p = l->edge_u[e], q = l->edge_v[e];
            CHECK(a != p && a != q);
            CHECK(on_segment_slow(l->x[a], l->y[a], l->x[p], l->y[p], l->x[q], l->y[q]));
        }
    }
    free(v);
    return k;
}

static void test_examples(void)
{
    for (size_t i = 0; i < sizeof examples / sizeof examples[0]; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "graphs/gd2025-examples/%s", examples[i].file);
        tsr_layout *l = load(rel);
        if (!l)
            return;
        CHECK(l->num_nodes == examples[i].n && l->num_edges == examples[i].m);
        int32_t *c1 = calloc((size_t)l->num_edges, 4), *c2 = calloc((size_t)l->num_edges, 4);
        tsr__count_reference(l, c1);
        CHECK_OK(ctx, tsr__count_parallel(ctx, l, c2, 0));
        CHECK(memcmp(c1, c2, (size_t)l->num_edges * 4) == 0);
        tsr_layout_score s;
        CHECK_OK(ctx, tsr_layout_evaluate(ctx, l, &s, NULL));
        if (s.K != examples[i].K || s.n_K != examples[i].n_K || s.Phi != examples[i].Phi ||
            s.C != examples[i].C) {
            fprintf(stderr, "%s: got K=%lld n_K=%lld Phi=%lld C=%lld\n", examples[i].file,
                    (long long)s.K, (long long)s.n_K, (long long)s.Phi, (long long)s.C);
            CHECK(0);
        }
        int noe = count_violations(l, TSR_LAYOUT_NODE_ON_EDGE);
        CHECK(noe == examples[i].node_on_edge);
        size_t total;
        CHECK_OK(ctx, tsr_layout_check(ctx, l, NULL, 0, &total));
        CHECK(total == (size_t)examples[i].node_on_edge);
        if (examples[i].node_on_edge) { /* repair makes it valid, moving only offenders */
            int moved = 0;
            CHECK_OK(ctx, tsr_layout_repair(ctx, l, &moved));
            CHECK_OK(ctx, tsr_layout_check(ctx, l, NULL, 0, &total));
            CHECK(total == 0);
            CHECK(moved > 0 && moved <= examples[i].node_on_edge);
        }
        free(c1);
        free(c2);
        tsr_layout_free(ctx, l);
    }
}

/* Contest inputs: exact C and K of SOURCES.md and the interior node-on-edge counts. */
static void test_contest_inputs(void)
{
    static const struct {
        int i;
        int64_t C, K;
    } a[] = {{1, 3965, 95}, {2, 13248, 173}, {3, 19817, 216}, {4, 35782, 272}, {7, 298057, 869}};
    for (size_t k = 0; k < sizeof a / sizeof a[0]; k++) {
        char rel[128];
        snprintf(rel, sizeof rel, "graphs/gd2025-contest/Automatic-%d.json", a[k].i);
        tsr_layout *l = load(rel);
        if (!l)
            return;
        tsr_layout_score s;
        CHECK_OK(ctx, tsr_layout_evaluate(ctx, l, &s, NULL));
        CHECK(s.C == a[k].C && s.K == a[k].K);
        if (a[k].i == 7) /* 32 coincident pairs; 575 interior node-on-edge pairs */
            CHECK(count_violations(l, TSR_LAYOUT_COINCIDENT_NODES) == 32);
        tsr_layout_free(ctx, l);
    }
}

/* A random valid drawing: n distinct points, m distinct non-loop edges, repaired. */
static tsr_layout *random_drawing(tsr_rng *r, int n, int m, int32_t w, int32_t h)
{
    tsr_layout *l;
    CHECK_OK(ctx, tsr_layout_alloc(ctx, n, m, &l));
    l->width = w;
    l->height = h;
    l->has_coordinates = 1;
    for (int i = 0; i < n; i++) {
        l->x[i] = tsr_rng_range(r, 0, w);
        l->y[i] = tsr_rng_range(r, 0, h);
    }
    for (int e = 0; e < m; e++) {
        int u, v, dup;
        do {
            u = tsr_rng_range(r, 0, n - 1);
            v = tsr_rng_range(r, 0, n - 1);
            dup = u == v;
            for (int f = 0; f < e && !dup; f++)
                dup = (l->edge_u[f] == u && l->edge_v[f] == v) ||
                      (l->edge_u[f] == v && l->edge_v[f] == u);
        } while (dup);
        l->edge_u[e] = u;
        l->edge_v[e] = v;
    }
    CHECK_OK(ctx, tsr_layout_repair(ctx, l, NULL));
    return l;
}

/* The parallel full count (bounding boxes sorted by left x) against the reference pair loop on
 * random drawings: long edges (canvas 10^6), short edges among spread nodes (edges join nodes
 * close in index, placed along a random walk), and tiny crowded canvases full of collinear and
 * touching boxes. Outputs poisoned first. */
static void test_count_random(tsr_rng *r)
{
    for (int t = 0; t < 60; t++) {
        int n = tsr_rng_range(r, 2, 160), m = tsr_rng_range(r, 0, 400);
        int32_t w = t % 3 == 0 ? 1000000 : t % 3 == 1 ? 5000 : tsr_rng_range(r, 1, 14);
        tsr_layout *l;
        CHECK_OK(ctx, tsr_layout_alloc(ctx, n, m, &l));
        l->width = l->height = w;
        l->has_coordinates = 1;
        int32_t x = w / 2, y = w / 2;
        for (int i = 0; i < n; i++) {
            int32_t step = t % 3 == 1 ? 60 : w;
            x += tsr_rng_range(r, -step, step);
            y += tsr_rng_range(r, -step, step);
            x = x < 0 ? 0 : x > w ? w : x;
            y = y < 0 ? 0 : y > w ? w : y;
            l->x[i] = x;
            l->y[i] = y;
        }
        for (int e = 0; e < m; e++) { /* duplicates and shared endpoints allowed, no loops */
            int u = tsr_rng_range(r, 0, n - 1), v;
            do
                v = t % 3 == 1 ? u + tsr_rng_range(r, -4, 4) : tsr_rng_range(r, 0, n - 1);
            while (v == u || v < 0 || v >= n);
            l->edge_u[e] = u;
            l->edge_v[e] = v;
        }
        int32_t *c1 = calloc((size_t)m + 1, 4), *c2 = malloc(((size_t)m + 1) * 4);
        memset(c2, 0x5a, ((size_t)m + 1) * 4);
        tsr__count_reference(l, c1);
        CHECK_OK(ctx, tsr__count_parallel(ctx, l, c2, t % 2 ? 1 : 0));
        CHECK(memcmp(c1, c2, (size_t)m * 4) == 0);
        free(c1);
        free(c2);
        tsr_layout_free(ctx, l);
    }
}

/* Compares the incremental state with a full recount, edge by edge. */
static int matches_full(tsr__incr *inc)
{
    int32_t m = inc->l->num_edges;
    int32_t *c = calloc((size_t)m + 1, 4);
    tsr__count_reference(inc->l, c);
    int ok = memcmp(c, inc->count, (size_t)m * 4) == 0;
    tsr_layout_score s;
    tsr__score_from_counts(c, m, &s);
    ok = ok && tsr_layout_score_compare(&s, &inc->score) == 0;
    free(c);
    return ok;
}

/* Thousands of random accepted moves with a full recount check along the way. */
static void incremental_drift(tsr_rng *r, int n, int m, int32_t w, int32_t h, int use_grid, int cap,
                              int moves)
{
    tsr_layout *l = random_drawing(r, n, m, w, h);
    tsr__incr inc;
    CHECK_OK(ctx, tsr__incr_init(ctx, &inc, l, use_grid));
    if (use_grid && cap > 0) { /* force a tiny capacity: overflow must fall back, never truncate */
        tsr__grid_release(ctx, &inc.grid);
        CHECK_OK(ctx, tsr__grid_build(ctx, l, 0, cap, 1 << 28, &inc.grid));
        CHECK(inc.grid.stale == TSR__GRID_CELL_FULL);
    }
    int accepted = 0, mismatches = 0;
    for (int t = 0; accepted < moves && t < moves * 20; t++) {
        int32_t v = tsr_rng_range(r, 0, n - 1);
        int32_t rad = tsr_rng_range(r, 0, 3) == 0 ? (w > h ? w : h) : 1 + (w > h ? w : h) / 8;
        int32_t px = l->x[v] + tsr_rng_range(r, -rad, rad),
                py = l->y[v] + tsr_rng_range(r, -rad, rad);
        px = px < 0 ? 0 : px > w ? w : px;
        py = py < 0 ? 0 : py > h ? h : py;
        int valid_slow = tsr__move_valid(l, &inc.adj, &inc.occ, v, px, py);
        int ok = tsr__incr_propose(&inc, v, px, py);
        CHECK(ok == valid_slow);
        if (!ok)
            continue;
        if (tsr_rng_range(r, 0, 4) == 0) { /* rejected proposals leave nothing behind */
            tsr__incr_reject(&inc);
            continue;
        }
        CHECK_OK(ctx, tsr__incr_commit(ctx, &inc));
        accepted++;
        if (accepted % 97 == 0 && !matches_full(&inc))
            mismatches++;
    }
    CHECK(accepted == moves);
    CHECK(mismatches == 0);
    CHECK(matches_full(&inc));
    size_t total;
    CHECK_OK(ctx, tsr_layout_check(ctx, l, NULL, 0, &total));
    CHECK(total == 0);
    if (use_grid && cap == 0)
        CHECK(inc.grid_queries > 0);
    if (use_grid && cap > 0)
        CHECK(inc.dense_fallbacks == inc.grid_queries && inc.last_fallback == TSR__GRID_CELL_FULL);
    tsr__incr_release(ctx, &inc);
    tsr_layout_free(ctx, l);
}

/* A hand-built drawing for the cases the issue lists. */
static void test_cases(void)
{
    /* edges: e0 = 0-1 horizontal (0,5)-(10,5); e1 = 2-3 vertical (5,0)-(5,2) below it;
     * e2 = 4-5 far away; node 6 isolated (degree 0); node 7 hub (high degree) */
    tsr_layout *l;
    CHECK_OK(ctx, tsr_layout_alloc(ctx, 12, 7, &l));
    l->width = l->height = 100;
    l->has_coordinates = 1;
    int32_t xy[12][2] = {{0, 5},   {10, 5},  {5, 0},   {5, 2},   {80, 80}, {90, 90},
                         {50, 50}, {30, 60}, {20, 70}, {40, 70}, {30, 75}, {25, 50}};
    for (int i = 0; i < 12; i++) {
        l->x[i] = xy[i][0];
        l->y[i] = xy[i][1];
    }
    int32_t ed[7][2] = {{0, 1}, {2, 3}, {4, 5}, {7, 8}, {7, 9}, {7, 10}, {7, 11}};
    for (int e = 0; e < 7; e++) {
        l->edge_u[e] = ed[e][0];
        l->edge_v[e] = ed[e][1];
    }
    for (int grid = 0; grid < 2; grid++) {
        tsr__incr inc;
        CHECK_OK(ctx, tsr__incr_init(ctx, &inc, l, grid));
        CHECK(inc.score.C == 0);
        /* degree 1 node 3 moves up across e0: creates a crossing, both edges updated */
        CHECK(tsr__incr_propose(&inc, 3, 5, 9) == 1);
        CHECK(inc.pscore.C == 1 && inc.pscore.K == 1 && inc.pscore.n_K == 2);
        CHECK(inc.count[0] == 0); /* nothing changes before commit */
        CHECK_OK(ctx, tsr__incr_commit(ctx, &inc));
        CHECK(inc.count[0] == 1 && inc.count[1] == 1 && inc.count[2] == 0);
        CHECK(matches_full(&inc));
        /* old-region case: moving 3 far away removes the crossing, only visible in the old
         * segment's cells */
        CHECK(tsr__incr_propose(&inc, 3, 60, 5) == 1);
        CHECK(inc.pscore.C == 0);
        CHECK_OK(ctx, tsr__incr_commit(ctx, &inc));
        CHECK(inc.count[0] == 0 && inc.count[1] == 0);
        CHECK(matches_full(&inc));
        /* a point on an edge (interior and end point) or on a node is rejected */
        CHECK(tsr__incr_propose(&inc, 6, 5, 5) == 0);   /* interior of e0 */
        CHECK(tsr__incr_propose(&inc, 6, 10, 5) == 0);  /* node 1 */
        CHECK(tsr__incr_propose(&inc, 6, 50, 50) == 0); /* its own point: not a move */
        /* degree 0: moves without changing any count */
        CHECK(tsr__incr_propose(&inc, 6, 51, 50) == 1 && inc.pscore.C == 0);
        CHECK_OK(ctx, tsr__incr_commit(ctx, &inc));
        /* a new edge through a node is rejected: node 1 at (10,5) would lie on 3-2 */
        CHECK(tsr__incr_propose(&inc, 3, 15, 10) == 0);
        /* high-degree hub 7 moves across e1 and e0: several incident edges recounted */
        CHECK(tsr__incr_propose(&inc, 7, 8, 1) == 1);
        CHECK_OK(ctx, tsr__incr_commit(ctx, &inc));
        CHECK(matches_full(&inc));
        CHECK(inc.count[2] == 0); /* untouched far edge */
        CHECK(inc.score.C > 0);
        tsr__incr_release(ctx, &inc);
        l->x[3] = 5; /* restore for the second round */
        l->y[3] = 2;
        l->x[6] = l->y[6] = 50;
        l->x[7] = 30;
        l->y[7] = 60;
    }
    tsr_layout_free(ctx, l);
}

static void test_generation_wrap(void)
{
    tsr_rng r;
    tsr_rng_seed(&r, 11);
    tsr_layout *l = random_drawing(&r, 40, 80, 1000, 1000);
    tsr__incr inc;
    CHECK_OK(ctx, tsr__incr_init(ctx, &inc, l, 1));
    CHECK(inc.grid.items != NULL);
    inc.grid.gen = UINT32_MAX - 3; /* wraps within a few queries: stamps must be reset */
    for (int t = 0, acc = 0; t < 400 && acc < 50; t++) {
        int32_t v = tsr_rng_range(&r, 0, 39);
        if (tsr__incr_propose(&inc, v, tsr_rng_range(&r, 0, 1000), tsr_rng_range(&r, 0, 1000))) {
            CHECK_OK(ctx, tsr__incr_commit(ctx, &inc));
            acc++;
        }
    }
    CHECK(inc.grid.gen < 100);
    CHECK(matches_full(&inc));
    tsr__incr_release(ctx, &inc);
    tsr_layout_free(ctx, l);
}

static void test_big_canvas(void)
{
    /* Coordinates near 10^6 and 2^30: orientation products near 2^60 stay exact. */
    tsr_layout *l;
    CHECK_OK(ctx, tsr_layout_alloc(ctx, 4, 2, &l));
    l->width = l->height = TSR_LAYOUT_MAX_CANVAS;
    int32_t M = TSR_LAYOUT_MAX_CANVAS;
    int32_t xy[4][2] = {{0, 0}, {M, M - 1}, {0, M}, {M, 1}};
    for (int i = 0; i < 4; i++) {
        l->x[i] = xy[i][0];
        l->y[i] = xy[i][1];
    }
    l->edge_u[0] = 0, l->edge_v[0] = 1, l->edge_u[1] = 2, l->edge_v[1] = 3;
    tsr_layout_score s;
    CHECK_OK(ctx, tsr_layout_evaluate(ctx, l, &s, NULL));
    CHECK(s.C == 1);
    /* nearly collinear: (0,0)-(M,M-1) vs point (M-1, M-2): left or right, never 0 */
    CHECK(tsr__orient(0, 0, M, M - 1, M - 1, M - 2) != 0);
    CHECK(tsr__orient(0, 0, M, M - 1, M, M - 1) == 0);
    tsr_layout_free(ctx, l);
}

static void test_optimize(void)
{
    tsr_rng r;
    tsr_rng_seed(&r, 5);
    tsr_layout *a = random_drawing(&r, 60, 150, 1000000, 1000000), *b;
    CHECK_OK(ctx, tsr_layout_clone(ctx, a, &b));
    tsr_layout_optimize_options opt;
    tsr_layout_optimize_options_init(&opt);
    opt.time_limit = 0;
    opt.max_moves = 30000;
    opt.seed = 42;
    tsr_layout_optimize_result ra, rb;
    CHECK_OK(ctx, tsr_layout_optimize(ctx, a, &opt, &ra));
    CHECK_OK(ctx, tsr_layout_optimize(ctx, b, &opt, &rb));
    /* the budget ends exactly (each chain's: the default is one per CPU thread) */
    CHECK(ra.chains >= 1 && (ra.moves == opt.max_moves * (uint64_t)ra.chains || ra.best.K == 0));
    CHECK(memcmp(a->x, b->x, 60 * 4) == 0 && memcmp(a->y, b->y, 60 * 4) == 0);
    CHECK(tsr_layout_score_compare(&ra.best, &rb.best) == 0);
    CHECK(tsr_layout_score_compare(&ra.best, &ra.initial) < 0);
    tsr_layout_score s;
    CHECK_OK(ctx, tsr_layout_evaluate(ctx, a, &s, NULL));
    CHECK(tsr_layout_score_compare(&s, &ra.best) == 0);
    size_t total;
    CHECK_OK(ctx, tsr_layout_check(ctx, a, NULL, 0, &total));
    CHECK(total == 0);
    tsr_layout_free(ctx, b);
    tsr_layout_free(ctx, a);
    /* a graph without coordinates gets a stress layout */
    const char *path = tsr_test_data("graphs/rome/grafo1000.14.graphml");
    if (path) {
        tsr_layout *g;
        CHECK_OK(ctx, tsr_layout_read(ctx, path, &g));
        CHECK(g->num_nodes == 14 && g->num_edges == 20 && !g->has_coordinates);
        opt.max_moves = 20000;
        CHECK_OK(ctx, tsr_layout_optimize(ctx, g, &opt, &ra));
        CHECK(ra.best.K <= 1);
        CHECK_OK(ctx, tsr_layout_check(ctx, g, NULL, 0, &total));
        CHECK(total == 0);
        tsr_layout_free(ctx, g);
    }
}

/* AUTO starts from the better of the input (repaired) and the stress layout (these random graphs
 * have no long shortcut chain); on a tie it keeps the input's coordinates. */
static void test_auto_start(void)
{
    tsr_rng r;
    tsr_rng_seed(&r, 21);
    tsr_layout_optimize_options opt;
    tsr_layout_optimize_options_init(&opt);
    opt.time_limit = 0;
    opt.max_moves = 1;
    for (int t = 0; t < 4; t++) {
        tsr_layout *a = random_drawing(&r, 40 + 20 * t, 60 + 40 * t, 2000, 2000), *b;
        CHECK_OK(ctx, tsr_layout_clone(ctx, a, &b));
        tsr_layout_score keep;
        CHECK_OK(ctx, tsr_layout_evaluate(ctx, a, &keep, NULL));
        tsr_layout_optimize_result ra, rb;
        opt.init = TSR_LAYOUT_INIT_STRESS;
        CHECK_OK(ctx, tsr_layout_optimize(ctx, b, &opt, &rb));
        opt.init = TSR_LAYOUT_INIT_AUTO;
        CHECK_OK(ctx, tsr_layout_optimize(ctx, a, &opt, &ra));
        const tsr_layout_score *want =
            tsr_layout_score_compare(&rb.initial, &keep) < 0 ? &rb.initial : &keep;
        CHECK(tsr_layout_score_compare(&ra.initial, want) == 0);
        tsr_layout_free(ctx, a);
        tsr_layout_free(ctx, b);
    }
    /* a cycle on a convex polygon has no crossing: kept exactly */
    enum { N = 12 };
    static const int32_t px[N] = {50, 80, 95, 100, 95, 80, 50, 20, 5, 0, 5, 20};
    static const int32_t py[N] = {0, 5, 20, 50, 80, 95, 100, 95, 80, 50, 20, 5};
    tsr_layout *c;
    CHECK_OK(ctx, tsr_layout_alloc(ctx, N, N, &c));
    c->width = c->height = 100;
    c->has_coordinates = 1;
    for (int i = 0; i < N; i++) {
        c->x[i] = px[i];
        c->y[i] = py[i];
        c->edge_u[i] = i;
        c->edge_v[i] = (i + 1) % N;
    }
    tsr_layout_optimize_result rc;
    CHECK_OK(ctx, tsr_layout_optimize(ctx, c, &opt, &rc));
    CHECK(rc.best.K == 0 && memcmp(c->x, px, sizeof px) == 0 && memcmp(c->y, py, sizeof py) == 0);
    tsr_layout_free(ctx, c);
}

/* A G x G grid graph (node r*G + c), then `extra` more nodes and edges left for the caller. */
static tsr_layout *grid_graph(int G, int extra_nodes, int extra_edges)
{
    tsr_layout *l;
    int m = 2 * G * (G - 1);
    CHECK_OK(ctx, tsr_layout_alloc(ctx, G * G + extra_nodes, m + extra_edges, &l));
    l->width = l->height = 200;
    int e = 0;
    for (int r = 0; r < G; r++)
        for (int c = 0; c < G; c++) {
            if (c + 1 < G)
                l->edge_u[e] = r * G + c, l->edge_v[e++] = r * G + c + 1;
            if (r + 1 < G)
                l->edge_u[e] = r * G + c, l->edge_v[e++] = (r + 1) * G + c;
        }
    return l;
}

/* Adds a path of `len` new nodes (from node index `first`, edges from index `e`) between a and b.
 */
static void add_chain(tsr_layout *l, int32_t a, int32_t b, int32_t first, int32_t len, int32_t e)
{
    for (int32_t i = 0; i <= len; i++) {
        l->edge_u[e + i] = i == 0 ? a : first + i - 1;
        l->edge_v[e + i] = i == len ? b : first + i;
    }
}

/* The chain-aside stress layout: a grid with a long shortcut path between opposite corners (set
 * aside: its nodes evenly on the segment between the corners) and a path that is no shortcut
 * (kept in the stress layout); AUTO takes it when it scores lower than the plain stress layout;
 * a graph without shortcut chains is left alone. */
static void test_chain_start(void)
{
    enum { G = 12, L1 = 6, L2 = 3 };
    int m = 2 * G * (G - 1);
    tsr_layout *l = grid_graph(G, L1 + L2, L1 + 1 + L2 + 1), *s, *a;
    add_chain(l, 0, G * G - 1, G * G, L1, m);           /* 7 edges, grid distance 22 */
    add_chain(l, 0, G + 1, G * G + L1, L2, m + L1 + 1); /* 4 edges, grid distance 2 */
    CHECK_OK(ctx, tsr_layout_clone(ctx, l, &s));
    CHECK_OK(ctx, tsr_layout_clone(ctx, l, &a));
    int found = -1;
    CHECK_OK(ctx, tsr__init_stress_chains(ctx, l, 7, NULL, &found));
    CHECK(found == 1 && l->has_coordinates);
    int32_t ax = l->x[0], ay = l->y[0], bx = l->x[G * G - 1], by = l->y[G * G - 1];
    for (int i = 0; i < L1; i++) {
        double t = (double)(i + 1) / (L1 + 1);
        CHECK(l->x[G * G + i] == (int32_t)floor(ax + t * (bx - ax) + 0.5));
        CHECK(l->y[G * G + i] == (int32_t)floor(ay + t * (by - ay) + 0.5));
    }
    for (int32_t v = 0; v < l->num_nodes; v++)
        CHECK(l->x[v] >= 0 && l->x[v] <= l->width && l->y[v] >= 0 && l->y[v] <= l->height);
    /* AUTO (no coordinates) starts from the lower of the plain and the chain-aside stress layout */
    tsr_layout_optimize_options opt;
    tsr_layout_optimize_options_init(&opt);
    opt.time_limit = 0;
    opt.max_moves = 1;
    tsr_layout_optimize_result rs, ra;
    opt.init = TSR_LAYOUT_INIT_STRESS;
    CHECK_OK(ctx, tsr_layout_optimize(ctx, s, &opt, &rs));
    opt.init = TSR_LAYOUT_INIT_AUTO;
    CHECK_OK(ctx, tsr_layout_optimize(ctx, a, &opt, &ra));
    CHECK(tsr_layout_score_compare(&ra.initial, &rs.initial) <= 0);
    size_t total;
    CHECK_OK(ctx, tsr_layout_check(ctx, a, NULL, 0, &total));
    CHECK(total == 0);
    tsr_layout_free(ctx, a);
    tsr_layout_free(ctx, s);
    tsr_layout_free(ctx, l);
    /* no shortcut chain: a grid, a cycle of degree-2 nodes, a loop back to one node, duplicate
     * edges and a self-loop; nothing is laid out */
    l = grid_graph(G, 8, 5 + 3 + 2);
    add_chain(l, 5, 5 + G, G * G, 4, m);             /* 5 edges, distance 1: no shortcut */
    add_chain(l, 7, 7, G * G + 4, 2, m + 5);         /* back to node 7 */
    l->edge_u[m + 8] = l->edge_v[m + 8] = G * G + 6; /* self-loop + one edge: degree 3 */
    l->edge_u[m + 9] = G * G + 6, l->edge_v[m + 9] = G * G + 7;
    for (int32_t v = 0; v < l->num_nodes; v++)
        l->x[v] = l->y[v] = 3;
    CHECK_OK(ctx, tsr__init_stress_chains(ctx, l, 7, NULL, &found));
    CHECK(found == 0 && !l->has_coordinates && l->x[0] == 3 && l->y[l->num_nodes - 1] == 3);
    tsr_layout_free(ctx, l);
}

/* The shortcuts of one interior node whose edges the stress layout lengthens: a two-edge path
 * between far grid nodes is one; a two-edge path between near grid nodes, the interior nodes of a
 * longer chain, the grid's corners and a node with both edges to one node are not. */
static void test_short_shortcuts(void)
{
    enum { G = 12 };
    int m = 2 * G * (G - 1);
    tsr_layout *l = grid_graph(G, 5, 9);
    add_chain(l, 0, G * G - 1, G * G, 1, m);         /* grid distance 22: shortcut */
    add_chain(l, 5, 5 + G + 1, G * G + 1, 1, m + 2); /* grid distance 2 */
    add_chain(l, 2, G * G - 3, G * G + 2, 2, m + 4); /* two interior nodes */
    add_chain(l, 7, 7, G * G + 4, 1, m + 7);         /* both edges to node 7 */
    tsr__layout_adj adj;
    uint8_t stretch[G * G + 5];
    CHECK_OK(ctx, tsr__adj_build(ctx, l, &adj));
    memset(stretch, 0xAA, sizeof stretch);
    CHECK_OK(ctx, tsr__mark_short_shortcuts(ctx, l, &adj, stretch, NULL));
    for (int32_t v = 0; v < l->num_nodes; v++)
        CHECK(stretch[v] == (v == G * G));
    tsr__adj_release(ctx, &adj);
    /* the stress layout with it: on the canvas, the same for the same seed */
    tsr_layout *c;
    CHECK_OK(ctx, tsr_layout_clone(ctx, l, &c));
    CHECK_OK(ctx, tsr__init_stress(ctx, l, 5, NULL));
    CHECK_OK(ctx, tsr__init_stress(ctx, c, 5, NULL));
    for (int32_t v = 0; v < l->num_nodes; v++)
        CHECK(l->x[v] >= 0 && l->x[v] <= l->width && l->y[v] >= 0 && l->y[v] <= l->height &&
              l->x[v] == c->x[v] && l->y[v] == c->y[v]);
    tsr_layout_free(ctx, c);
    tsr_layout_free(ctx, l);
}

/* A drawing for the visit comparison: n nodes on a w x w canvas, uniform or (near) within 7 of
 * the canvas's corners (coordinates near 0 and w, many collinear triples); node 0 is an end of
 * every third edge (high degree), node n-1 of none (degree 0); duplicate edges allowed. */
static tsr_layout *visit_drawing(tsr_rng *r, int n, int m, int32_t w, int near)
{
    tsr_layout *l;
    CHECK_OK(ctx, tsr_layout_alloc(ctx, n, m, &l));
    l->width = l->height = w;
    l->has_coordinates = 1;
    for (int i = 0; i < n; i++) {
        int32_t x = tsr_rng_range(r, 0, w), y = tsr_rng_range(r, 0, w);
        if (near) {
            x = tsr_rng_range(r, 0, 1) ? tsr_rng_range(r, 0, 7) : w - tsr_rng_range(r, 0, 7);
            y = tsr_rng_range(r, 0, 1) ? tsr_rng_range(r, 0, 7) : w - tsr_rng_range(r, 0, 7);
        }
        l->x[i] = x;
        l->y[i] = y;
    }
    for (int e = 0; e < m; e++) {
        int u = e % 3 == 0 ? 0 : tsr_rng_range(r, 0, n - 2), v;
        do
            v = tsr_rng_range(r, 0, n - 2);
        while (v == u);
        l->edge_u[e] = u;
        l->edge_v[e] = v;
    }
    CHECK_OK(ctx, tsr_layout_repair(ctx, l, NULL));
    return l;
}

static int32_t clamp_to(int64_t x, int32_t w)
{
    return (int32_t)(x < 0 ? 0 : x > w ? w : x);
}

/* The AVX2 visit against the scalar one (inc->simd flipped between the two proposals of the same
 * move): validity, score, excess, the touched list in order and every delta; one move in three
 * committed, with a full recount now and then. Moves: the hub, the isolated node, random nodes;
 * to random points, near the node, beside another node, and onto an edge's line (on it, at its
 * end points, or on its extension). Returns the moves compared. */
static long visit_compare(tsr_rng *r, tsr_layout *l, int use_grid, int moves, long *on_edge,
                          long *changed)
{
    const int32_t n = l->num_nodes, m = l->num_edges, w = l->width;
    tsr__incr inc;
    CHECK_OK(ctx, tsr__incr_init(ctx, &inc, l, use_grid));
    int32_t *touched = calloc((size_t)m + 1, 4), *delta = calloc((size_t)m + 1, 4);
    long compared = 0;
    for (int t = 0; t < moves; t++) {
        int32_t v = t % 5 == 0 ? 0 : t % 5 == 1 ? n - 1 : tsr_rng_range(r, 0, n - 1), x, y;
        int kind = tsr_rng_range(r, 0, 3);
        if (kind == 0) {
            x = tsr_rng_range(r, 0, w);
            y = tsr_rng_range(r, 0, w);
        } else if (kind == 1 || kind == 2) {
            int32_t o = kind == 1 ? v : tsr_rng_range(r, 0, n - 1), d = kind == 1 ? w / 8 + 1 : 1;
            x = clamp_to((int64_t)l->x[o] + tsr_rng_range(r, -d, d), w);
            y = clamp_to((int64_t)l->y[o] + tsr_rng_range(r, -d, d), w);
        } else {
            int32_t e = tsr_rng_range(r, 0, m - 1), a = l->edge_u[e], b = l->edge_v[e];
            int64_t dx = (int64_t)l->x[b] - l->x[a], dy = (int64_t)l->y[b] - l->y[a];
            int s = tsr_rng_range(r, 0, 3); /* a + (b - a) * {1/2, 2, -1, 1} */
            int64_t num = s == 0 ? 1 : s == 1 ? 2 : s == 2 ? -1 : 1, den = s == 0 ? 2 : 1;
            x = clamp_to(l->x[a] + dx * num / den, w);
            y = clamp_to(l->y[a] + dy * num / den, w);
        }
        inc.simd = 0;
        int ok0 = tsr__incr_propose(&inc, v, x, y);
        tsr_layout_score s0 = inc.pscore;
        int32_t nt = inc.ntouched;
        int64_t ex0 = ok0 ? tsr__incr_pending_excess(&inc, s0.K / 2) : 0;
        for (int32_t i = 0; i < nt; i++) {
            touched[i] = inc.touched[i];
            delta[i] = inc.delta[inc.touched[i]];
        }
        if (ok0)
            tsr__incr_reject(&inc);
        inc.simd = 1;
        int ok1 = tsr__incr_propose(&inc, v, x, y);
        CHECK(ok0 == ok1);
        compared++;
        if (!ok1) {
            *on_edge += tsr__move_valid_nodes(l, &inc.adj, &inc.occ, v, x, y);
            continue;
        }
        CHECK(tsr_layout_score_compare(&s0, &inc.pscore) == 0 && s0.n_K == inc.pscore.n_K);
        CHECK(ex0 == tsr__incr_pending_excess(&inc, s0.K / 2));
        CHECK(nt == inc.ntouched);
        int same = nt == inc.ntouched;
        for (int32_t i = 0; same && i < nt; i++)
            same = touched[i] == inc.touched[i] && delta[i] == inc.delta[inc.touched[i]];
        CHECK(same);
        *changed += nt > 0;
        if (t % 3 == 0)
            CHECK_OK(ctx, tsr__incr_commit(ctx, &inc));
        else
            tsr__incr_reject(&inc);
        if (t % 101 == 0)
            CHECK(matches_full(&inc));
    }
    CHECK(matches_full(&inc));
    tsr__incr_release(ctx, &inc);
    free(touched);
    free(delta);
    return compared;
}

/* Both visits agree move by move (where the CPU has AVX2): dense and spatial, on canvases of
 * 10^6 and 2^30 (uniform and near the corners; the 64-bit lanes), 32767 (the largest canvas of
 * the 32-bit lanes: products up to 32767^2, near the corners) and 32768 (the smallest of the
 * 64-bit ones), and crowded 30 x 30 and 16 x 16 ones full of collinear points; on-edge
 * rejections and changed counts must occur. */
static void test_visit_simd(void)
{
    if (!tsr__incr_cpu_avx2()) {
        fprintf(stderr, "layout: no AVX2 here, the AVX2 visit is not compared\n");
        return;
    }
    tsr_rng r;
    tsr_rng_seed(&r, 4242);
    long compared = 0, on_edge = 0, changed = 0;
    const struct {
        int n, m;
        int32_t w;
        int near;
    } cases[] = {{60, 200, 1000000, 0},
                 {40, 120, TSR_LAYOUT_MAX_CANVAS, 1},
                 {50, 150, TSR_LAYOUT_MAX_CANVAS, 0},
                 {40, 120, TSR__SMALL_CANVAS, 1},
                 {50, 150, TSR__SMALL_CANVAS, 0},
                 {40, 120, TSR__SMALL_CANVAS + 1, 1},
                 {70, 220, 30, 0},
                 {12, 30, 16, 0},
                 {30, 90, 1000000, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int grid = 0; grid < 2; grid++) {
            tsr_layout *l = visit_drawing(&r, cases[c].n, cases[c].m, cases[c].w, cases[c].near);
            compared += visit_compare(&r, l, grid, 1500, &on_edge, &changed);
            tsr_layout_free(ctx, l);
        }
    fprintf(stderr,
            "layout: AVX2 visit = scalar visit on %ld moves (%ld on an edge, %ld changing "
            "counts)\n",
            compared, on_edge, changed);
    CHECK(on_edge > 100 && changed > 1000);
}

static void test_dense_equals_spatial(void)
{
    tsr_rng r;
    tsr_rng_seed(&r, 9);
    tsr_layout *a = random_drawing(&r, 80, 200, 300, 300), *b;
    CHECK_OK(ctx, tsr_layout_clone(ctx, a, &b));
    tsr_layout_optimize_options opt;
    tsr_layout_optimize_options_init(&opt);
    opt.time_limit = 0;
    opt.max_moves = 20000;
    opt.seed = 3;
    tsr_layout_optimize_result ra, rb;
    CHECK_OK(ctx, tsr_layout_optimize(ctx, a, &opt, &ra));
    opt.spatial = 0;
    CHECK_OK(ctx, tsr_layout_optimize(ctx, b, &opt, &rb));
    CHECK(memcmp(a->x, b->x, 80 * 4) == 0 && memcmp(a->y, b->y, 80 * 4) == 0);
    tsr_layout_free(ctx, a);
    tsr_layout_free(ctx, b);
}

int main(void)
{
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_CPU;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK)
        return 1;
    test_examples();
    test_contest_inputs();
    test_big_canvas();
    tsr_rng r;
    tsr_rng_seed(&r, 1234);
    test_count_random(&r);
    test_visit_simd();
    /* the incremental tests with the scalar visit, then with the AVX2 one (where the CPU has it) */
    for (int pass = 0; pass < 2; pass++) {
        tsr__incr_set_simd(pass);
        test_cases();
        test_generation_wrap();
        incremental_drift(&r, 50, 120, 1000000, 1000000, 0, 0, 3000); /* dense, canvas 10^6 */
        incremental_drift(&r, 50, 120, 1000000, 1000000, 1, 0, 3000); /* spatial */
        incremental_drift(&r, 120, 300, 60, 60, 1, 0, 3000);          /* small crowded canvas */
        incremental_drift(&r, 60, 150, 500, 500, 1, 2, 1500);         /* forced overflow */
        test_dense_equals_spatial();
    }
    test_optimize();
    test_auto_start();
    test_chain_start();
    test_short_shortcuts();
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("layout");
}
