/* The comparison of a layout delta evaluator (the CUDA one, or its CPU emulation in
 * test_layout_device_logic.c) with the CPU evaluators, shared by test_layout_cuda_gpu.c and
 * test_layout_device_logic.c so that the emulation exercises exactly the GPU test's sequence:
 * the full count against tsr__count_reference, and P proposals per launch against the CPU
 * incremental evaluator's deltas, row p of the output holding proposal p's change of c(f) for
 * every edge f (0 where unchanged). Header-only (static functions): include it once per test. */
#ifndef TSR_TEST_LAYOUT_DELTA_CHECK_H
#define TSR_TEST_LAYOUT_DELTA_CHECK_H

#include "testlib.h"

#include "layout/layout_internal.h"

#include <stdlib.h>
#include <string.h>

/* An evaluator with the interface of layout_cuda.h (handle as void *). */
typedef struct ldc_backend {
    tsr_status (*count)(tsr_ctx *ctx, const tsr_layout *l, int32_t *counts);
    tsr_status (*create)(tsr_ctx *ctx, const tsr_layout *l, const tsr__layout_adj *adj,
                         int max_proposals, void **out);
    void (*destroy)(tsr_ctx *ctx, void *g);
    tsr_status (*move)(tsr_ctx *ctx, void *g, int32_t v, int32_t x, int32_t y);
    tsr_status (*delta)(tsr_ctx *ctx, void *g, int nprop, const int32_t *node, const int32_t *px,
                        const int32_t *py, int32_t *out_delta, uint8_t *invalid);
    tsr_status (*spatial)(tsr_ctx *ctx, void *g, const tsr_layout *l, const tsr__layout_adj *adj,
                          const tsr__grid *grid, uint64_t grid_version, int nprop,
                          const int32_t *node, const int32_t *px, const int32_t *py,
                          int32_t *out_delta, uint8_t *invalid);
} ldc_backend;

/* Mismatching proposal rows seen by ldc_check_delta (for the emulation test's report). */
static long ldc_bad_rows, ldc_rows;

static tsr_layout *ldc_random_drawing(tsr_ctx *ctx, tsr_rng *r, int n, int m, int32_t w,
                                      int32_t h)
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
        int u = tsr_rng_range(r, 0, n - 1), v;
        do
            v = tsr_rng_range(r, 0, n - 1);
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
    CHECK_OK(ctx, be->count(ctx, l, b));
    CHECK(memcmp(a, b, (size_t)m * 4) == 0);
    free(a);
    free(b);
}

/* P proposals at once against the CPU incremental evaluator's deltas, 20 rounds. Every row of a
 * launch was computed on the base drawing of that launch, so every proposal is compared (and
 * rejected) on the CPU against that same base first; only then is one move committed (proposal 0
 * when valid) on both sides, so the next launch starts from a changed base. */
static void ldc_check_delta(tsr_ctx *ctx, const ldc_backend *be, tsr_rng *r, tsr_layout *l,
                            int spatial)
{
    enum { P = 32 };
    int32_t m = l->num_edges;
    tsr__incr inc;
    CHECK_OK(ctx, tsr__incr_init(ctx, &inc, l, spatial));
    void *g = NULL;
    CHECK_OK(ctx, be->create(ctx, l, &inc.adj, P, &g));
    int32_t node[P], px[P], py[P];
    int32_t *delta = calloc((size_t)P * m + 1, 4), *want = calloc((size_t)m + 1, 4);
    uint8_t invalid[P];
    for (int round = 0; round < 20 && g; round++) {
        for (int p = 0; p < P; p++) {
            node[p] = tsr_rng_range(r, 0, l->num_nodes - 1);
            px[p] = tsr_rng_range(r, 0, l->width);
            py[p] = tsr_rng_range(r, 0, l->height);
        }
        tsr_status st = spatial ? be->spatial(ctx, g, l, &inc.adj, &inc.grid, (uint64_t)round, P,
                                              node, px, py, delta, invalid)
                                : be->delta(ctx, g, P, node, px, py, delta, invalid);
        CHECK(st == TSR_OK || (spatial && st == TSR_ERR_LIMIT));
        if (st != TSR_OK)
            continue;
        int commit0 = 0;
        for (int p = 0; p < P; p++) {
            int ok = tsr__incr_propose(&inc, node[p], px[p], py[p]);
            if (!tsr__move_valid_nodes(l, &inc.adj, &inc.occ, node[p], px[p], py[p]))
                continue; /* the node part of validity is the host's */
            CHECK(ok == !invalid[p]);
            if (!ok)
                continue;
            memset(want, 0, (size_t)m * 4);
            for (int i = 0; i < inc.ntouched; i++)
                want[inc.touched[i]] = inc.delta[inc.touched[i]];
            ldc_rows++;
            if (memcmp(want, delta + (size_t)p * m, (size_t)m * 4) != 0)
                ldc_bad_rows++;
            CHECK(memcmp(want, delta + (size_t)p * m, (size_t)m * 4) == 0);
            tsr__incr_reject(&inc);
            if (p == 0)
                commit0 = 1;
        }
        if (commit0) { /* after all P rows: commit one move per round so the base changes */
            CHECK(tsr__incr_propose(&inc, node[0], px[0], py[0]));
            CHECK_OK(ctx, tsr__incr_commit(ctx, &inc));
            CHECK_OK(ctx, be->move(ctx, g, node[0], px[0], py[0]));
        }
    }
    if (g)
        be->destroy(ctx, g);
    tsr__incr_release(ctx, &inc);
    free(delta);
    free(want);
}

/* The GPU test's sequence: seed 77, a 128/512 drawing on a 10^6 canvas, a crowded 300/900 one on
 * 80 x 80, full counts, dense and spatial deltas, and the GD 2025 150-node example when present. */
static void ldc_run_all(tsr_ctx *ctx, const ldc_backend *be)
{
    tsr_rng r;
    tsr_rng_seed(&r, 77);
    tsr_layout *big = ldc_random_drawing(ctx, &r, 128, 512, 1000000, 1000000);
    tsr_layout *small = ldc_random_drawing(ctx, &r, 300, 900, 80, 80);
    ldc_check_full(ctx, be, big);
    ldc_check_full(ctx, be, small);
    ldc_check_delta(ctx, be, &r, big, 0);
    ldc_check_delta(ctx, be, &r, small, 0);
    ldc_check_delta(ctx, be, &r, small, 1);
    const char *path = tsr_test_data("graphs/gd2025-examples/sol-150-nodes-50-planar.json");
    if (path) {
        tsr_layout *l;
        CHECK_OK(ctx, tsr_layout_read(ctx, path, &l));
        ldc_check_full(ctx, be, l);
        ldc_check_delta(ctx, be, &r, l, 0);
        ldc_check_delta(ctx, be, &r, l, 1);
        tsr_layout_free(ctx, l);
    }
    tsr_layout_free(ctx, big);
    tsr_layout_free(ctx, small);
}

#endif
