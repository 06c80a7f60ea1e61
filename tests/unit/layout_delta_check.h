/* The comparison of a device-resident layout evaluator (the CUDA one, or its CPU emulation in
 * test_layout_device_logic.c) with the CPU evaluators, shared by test_layout_cuda_gpu.c and
 * test_layout_device_logic.c so that the emulation exercises exactly the GPU test's sequence:
 * the full count against tsr__count_reference; P proposals per launch (dense, spatial, full),
 * each proposal's score (K, n_K, Phi, C) and invalid flag against the CPU incremental evaluator
 * and, for some, a full recount of the moved drawing; then one accepted proposal per round
 * committed on both sides and the device's per-edge counts compared with the CPU full count.
 * Outputs are poisoned before every call. Header-only (static functions): include it once per
 * test. */
#ifndef TSR_TEST_LAYOUT_DELTA_CHECK_H
#define TSR_TEST_LAYOUT_DELTA_CHECK_H

#include "testlib.h"

#include "layout/layout_cuda_logic.h" /* the spatial limits' defaults */
#include "layout/layout_internal.h"

#include <stdlib.h>
#include <string.h>

/* An evaluator with the interface of layout_cuda.h (handle as void *). */
typedef struct ldc_backend {
    tsr_status (*count)(tsr_ctx *ctx, const tsr_layout *l, int32_t *counts);
    tsr_status (*create)(tsr_ctx *ctx, const tsr_layout *l, const tsr__layout_adj *adj,
                         int max_proposals, void **out);
    void (*destroy)(tsr_ctx *ctx, void *g);
    tsr_layout_score (*score)(const void *g);
    tsr_status (*counts)(tsr_ctx *ctx, void *g, int32_t *counts);
    tsr_status (*dense)(tsr_ctx *ctx, void *g, int nprop, const int32_t *node, const int32_t *px,
                        const int32_t *py, tsr_layout_score *score, uint8_t *invalid);
    tsr_status (*full)(tsr_ctx *ctx, void *g, int nprop, const int32_t *node, const int32_t *px,
                       const int32_t *py, tsr_layout_score *score, uint8_t *invalid);
    tsr_status (*spatial)(tsr_ctx *ctx, void *g, const tsr__grid *grid, uint64_t grid_version,
                          int nprop, const int32_t *node, const int32_t *px, const int32_t *py,
                          tsr_layout_score *score, uint8_t *invalid);
    tsr_status (*limits)(tsr_ctx *ctx, void *g, int cells_per_proposal, int window);
    void (*paths)(const void *g, uint64_t paths[3]);
    void (*set_target)(void *g, int64_t t);
    int64_t (*excess)(const void *g, int p);
    tsr_status (*commit)(tsr_ctx *ctx, void *g, int32_t v, int32_t x, int32_t y,
                         tsr_layout_score *score, int32_t *counts);
} ldc_backend;

/* Proposals compared, mismatching ones, spatial launches refused (TSR_ERR_LIMIT: stale index),
 * commits compared, spatial proposals per path (candidates, dense after a cell overflow,
 * candidates + scan) (for the tests' reports). */
static long ldc_rows, ldc_bad_rows, ldc_fallbacks, ldc_commits;
static uint64_t ldc_paths[3];

static int ldc_same_score(const tsr_layout_score *a, const tsr_layout_score *b)
{
    return a->K == b->K && a->n_K == b->n_K && a->Phi == b->Phi && a->C == b->C;
}

/* A valid random drawing: n nodes, m edges (no self-loops), on a w x h canvas; with hub, node 0
 * is an endpoint of every third edge (high degree) and node n-1 of none (degree 0). */
static tsr_layout *ldc_random_drawing(tsr_ctx *ctx, tsr_rng *r, int n, int m, int32_t w, int32_t h,
                                      int hub)
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
    const int top = hub ? n - 2 : n - 1;
    for (int e = 0; e < m; e++) {
        int u = hub && e % 3 == 0 ? 0 : tsr_rng_range(r, 0, top), v;
        do
            v = tsr_rng_range(r, 0, top);
        while (v == u);
        l->edge_u[e] = u;
        l->edge_v[e] = v;
    }
    CHECK_OK(ctx, tsr_layout_repair(ctx, l, NULL));
    return l;
}

static void ldc_check_full(tsr_ctx *ctx, const ldc_backend *be, const tsr_layout *l)
{
    int32_t m = l->num_edges;
    int32_t *a = calloc((size_t)m + 1, 4), *b = calloc((size_t)m + 1, 4);
    tsr__count_reference(l, a);
    memset(b, 0x5a, (size_t)m * 4);
    CHECK_OK(ctx, be->count(ctx, l, b));
    CHECK(memcmp(a, b, (size_t)m * 4) == 0);
    free(a);
    free(b);
}

/* The score of l with node v at (x, y) by a full reference recount. */
static tsr_layout_score ldc_recount_score(tsr_layout *l, int32_t v, int32_t x, int32_t y,
                                          int32_t *scratch)
{
    int32_t ox = l->x[v], oy = l->y[v];
    l->x[v] = x;
    l->y[v] = y;
    tsr__count_reference(l, scratch);
    l->x[v] = ox;
    l->y[v] = oy;
    tsr_layout_score s;
    tsr__score_from_counts(scratch, l->num_edges, &s);
    return s;
}

/* One launch's results against the CPU: every proposal whose node part is valid (the caller's
 * part of validity) has invalid[p] == !tsr__move_valid and, when valid, the incremental
 * evaluator's score and excess change over target t (be->excess of g); the first `recount`
 * valid ones also the score of a full recount. */
static void ldc_compare(const ldc_backend *be, const void *g, int64_t t, tsr__incr *inc, int nprop,
                        const int32_t *node, const int32_t *px, const int32_t *py,
                        const tsr_layout_score *score, const uint8_t *invalid, int recount,
                        int32_t *scratch)
{
    tsr_layout *l = inc->l;
    for (int p = 0; p < nprop; p++) {
        if (!tsr__move_valid_nodes(l, &inc->adj, &inc->occ, node[p], px[p], py[p]))
            continue;
        int valid = tsr__move_valid(l, &inc->adj, &inc->occ, node[p], px[p], py[p]);
        CHECK(invalid[p] == !valid);
        if (!valid)
            continue;
        CHECK(tsr__incr_propose(inc, node[p], px[p], py[p]));
        int same = ldc_same_score(&score[p], &inc->pscore) &&
                   be->excess(g, p) == tsr__incr_pending_excess(inc, t);
        tsr__incr_reject(inc);
        if (same && recount-- > 0) {
            tsr_layout_score want = ldc_recount_score(l, node[p], px[p], py[p], scratch);
            same = ldc_same_score(&score[p], &want);
        }
        ldc_rows++;
        if (!same) {
            ldc_bad_rows++;
            if (ldc_bad_rows <= 5)
                fprintf(stderr,
                        "  proposal %d (node %d to %d,%d): got K %lld n_K %lld Phi %lld C %lld, "
                        "want K %lld n_K %lld Phi %lld C %lld\n",
                        p, (int)node[p], (int)px[p], (int)py[p], (long long)score[p].K,
                        (long long)score[p].n_K, (long long)score[p].Phi, (long long)score[p].C,
                        (long long)inc->pscore.K, (long long)inc->pscore.n_K,
                        (long long)inc->pscore.Phi, (long long)inc->pscore.C);
        }
        CHECK(same);
    }
}

/* `rounds` launches of P proposals on l (dense, spatial, and spatial with its limits lowered to 2
 * cells per proposal and a window of 1 level so that the overflow and scan paths run, each round;
 * full in the first full_rounds), each followed by committing the first fully valid proposal on
 * both sides; the device counts are then compared with the CPU incremental and reference counts.
 * Proposals: a third anywhere on the canvas, a third near the node (the annealer's local moves), a
 * third beside another node (often on or next to its edges); nodes: random, with node 0 and node
 * n-1 (the hub and the isolated node of ldc_random_drawing) in every launch. */
static void ldc_check_eval(tsr_ctx *ctx, const ldc_backend *be, tsr_rng *r, tsr_layout *l,
                           int rounds, int full_rounds)
{
    enum { P = 32 };
    const int32_t m = l->num_edges, n = l->num_nodes;
    tsr__incr inc;
    CHECK_OK(ctx, tsr__incr_init(ctx, &inc, l, 1));
    void *g = NULL;
    CHECK_OK(ctx, be->create(ctx, l, &inc.adj, P, &g));
    if (!g) {
        tsr__incr_release(ctx, &inc);
        return;
    }
    tsr_layout_score base = be->score(g);
    CHECK(ldc_same_score(&base, &inc.score));
    int32_t node[P], px[P], py[P];
    tsr_layout_score score[P];
    uint8_t invalid[P];
    int32_t *scratch = calloc((size_t)m + 1, 4), *dev = calloc((size_t)m + 1, 4);
    uint64_t version = 0;
    const int32_t rad = l->width / 50 + 2;
    for (int round = 0; round < rounds; round++) {
        for (int p = 0; p < P; p++) {
            int32_t v = p == 0 ? 0 : p == 1 ? n - 1 : tsr_rng_range(r, 0, n - 1);
            int32_t x, y;
            if (p % 3 == 0) {
                x = tsr_rng_range(r, 0, l->width);
                y = tsr_rng_range(r, 0, l->height);
            } else {
                int32_t o = p % 3 == 1 ? v : tsr_rng_range(r, 0, n - 1);
                int32_t d = p % 3 == 1 ? rad : 1;
                x = l->x[o] + tsr_rng_range(r, -d, d);
                y = l->y[o] + tsr_rng_range(r, -d, d);
                x = x < 0 ? 0 : x > l->width ? l->width : x;
                y = y < 0 ? 0 : y > l->height ? l->height : y;
            }
            node[p] = v;
            px[p] = x;
            py[p] = y;
        }
        /* the excess target: none, or at, below and far below the base's K */
        const int64_t K = be->score(g).K, below = K - 1 - (round % 4 - 1) * (K / 4 + 1),
                      t = round % 4 == 0 ? INT64_MAX
                          : below < -1   ? -1
                                         : below;
        be->set_target(g, t);
        for (int kind = 0; kind < 4; kind++) {
            if (kind == 3 && round >= full_rounds)
                continue;
            memset(score, 0x5a, sizeof score);
            memset(invalid, 0xa5, sizeof invalid);
            if (kind == 2)
                CHECK_OK(ctx, be->limits(ctx, g, 2, 1));
            tsr_status st = kind == 0   ? be->dense(ctx, g, P, node, px, py, score, invalid)
                            : kind <= 2 ? be->spatial(ctx, g, &inc.grid, version, P, node, px, py,
                                                      score, invalid)
                                        : be->full(ctx, g, P, node, px, py, score, invalid);
            if (kind == 2)
                CHECK_OK(ctx, be->limits(ctx, g, TSR__LCD_PER_PROP_CELLS, TSR__LCD_WINDOW));
            if ((kind == 1 || kind == 2) && st == TSR_ERR_LIMIT) {
                ldc_fallbacks++;
                continue;
            }
            CHECK_OK(ctx, st);
            if (st == TSR_OK)
                ldc_compare(be, g, t, &inc, P, node, px, py, score, invalid, kind == 0 ? 2 : 0,
                            scratch);
        }
        /* commit the first fully valid proposal on both sides */
        for (int p = 0; p < P; p++) {
            if (!tsr__move_valid(l, &inc.adj, &inc.occ, node[p], px[p], py[p]))
                continue;
            CHECK(tsr__incr_propose(&inc, node[p], px[p], py[p]));
            tsr_layout_score got;
            memset(&got, 0x5a, sizeof got);
            memset(dev, 0x5a, (size_t)m * 4);
            /* every other commit also returns the new counts (one synchronisation) */
            CHECK_OK(ctx,
                     be->commit(ctx, g, node[p], px[p], py[p], &got, ldc_commits % 2 ? dev : NULL));
            CHECK(ldc_same_score(&got, &inc.pscore));
            CHECK_OK(ctx, tsr__incr_commit(ctx, &inc));
            version++;
            base = be->score(g);
            CHECK(ldc_same_score(&base, &inc.score));
            if (ldc_commits % 2)
                CHECK(memcmp(dev, inc.count, (size_t)m * 4) == 0);
            memset(dev, 0x5a, (size_t)m * 4);
            CHECK_OK(ctx, be->counts(ctx, g, dev));
            CHECK(memcmp(dev, inc.count, (size_t)m * 4) == 0);
            tsr__count_reference(l, scratch);
            CHECK(memcmp(dev, scratch, (size_t)m * 4) == 0);
            ldc_commits++;
            break;
        }
    }
    uint64_t paths[3];
    be->paths(g, paths);
    for (int k = 0; k < 3; k++)
        ldc_paths[k] += paths[k];
    be->destroy(ctx, g);
    tsr__incr_release(ctx, &inc);
    free(scratch);
    free(dev);
}

/* The GPU test's sequence (seed 77): full counts, then evaluation and commits on a 128/512
 * drawing on a 10^6 canvas and a 60/150 one on the largest canvas (2^30), each with a hub and an
 * isolated node, a crowded 300/900 one on 80 x 80 (many proposals on or beside edges),
 * and the GD 2025 150-node example when present. Self-loops must be refused. */
static void ldc_run_all(tsr_ctx *ctx, const ldc_backend *be)
{
    tsr_rng r;
    tsr_rng_seed(&r, 77);
    tsr_layout *big = ldc_random_drawing(ctx, &r, 128, 512, 1000000, 1000000, 1);
    tsr_layout *small = ldc_random_drawing(ctx, &r, 300, 900, 80, 80, 0);
    tsr_layout *huge = ldc_random_drawing(ctx, &r, 60, 150, 1 << 30, 1 << 30, 1);
    ldc_check_full(ctx, be, big);
    ldc_check_full(ctx, be, small);
    ldc_check_full(ctx, be, huge);
    ldc_check_eval(ctx, be, &r, big, 20, 2);
    ldc_check_eval(ctx, be, &r, small, 20, 1);
    ldc_check_eval(ctx, be, &r, huge, 20, 3);
    const char *path = tsr_test_data("graphs/gd2025-examples/sol-150-nodes-50-planar.json");
    if (path) {
        tsr_layout *l;
        CHECK_OK(ctx, tsr_layout_read(ctx, path, &l));
        ldc_check_full(ctx, be, l);
        ldc_check_eval(ctx, be, &r, l, 20, 1);
        tsr_layout_free(ctx, l);
    }
    /* every spatial path ran (the lowered limits force overflow and scan) */
    CHECK(ldc_paths[0] > 0 && ldc_paths[1] > 0 && ldc_paths[2] > 0);
    /* a self-loop is refused with a clear error, nothing created */
    huge->edge_v[0] = huge->edge_u[0];
    tsr__layout_adj adj;
    CHECK_OK(ctx, tsr__adj_build(ctx, huge, &adj));
    void *g = NULL;
    CHECK_STATUS(be->create(ctx, huge, &adj, 4, &g), TSR_ERR_INVALID_ARGUMENT);
    CHECK(g == NULL);
    tsr__adj_release(ctx, &adj);
    tsr_layout_free(ctx, big);
    tsr_layout_free(ctx, small);
    tsr_layout_free(ctx, huge);
}

/* One line on stderr: what ldc_run_all compared (`name` is the test's). */
static void ldc_print_summary(const char *name)
{
    fprintf(stderr,
            "%s: %ld of %ld proposal scores differ from the CPU; %ld commits compared; %ld "
            "spatial launches refused (stale index); spatial paths %llu candidates, %llu dense "
            "after overflow, %llu with scan\n",
            name, ldc_bad_rows, ldc_rows, ldc_commits, ldc_fallbacks,
            (unsigned long long)ldc_paths[0], (unsigned long long)ldc_paths[1],
            (unsigned long long)ldc_paths[2]);
}

#endif
