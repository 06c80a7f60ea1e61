/* CUDA layout evaluators against the CPU reference, edge by edge: the full count, the dense delta
 * (P proposals per launch) and the spatial delta, on random drawings (canvas 10^6 and a crowded
 * small one) and the GD 2025 examples. Skips (77) without a CUDA device. */
#include "testlib.h"

#include "layout/layout_cuda.h"
#include "layout/layout_internal.h"

#include <stdlib.h>
#include <string.h>

/* Built only in CUDA builds (tests/CMakeLists.txt: *_cuda* names). */
static tsr_ctx *ctx;

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

static void check_full(const tsr_layout *l)
{
    int32_t m = l->num_edges;
    int32_t *a = calloc((size_t)m + 1, 4), *b = calloc((size_t)m + 1, 4);
    tsr__count_reference(l, a);
    CHECK_OK(ctx, tsr__layout_cuda_count(ctx, l, b));
    CHECK(memcmp(a, b, (size_t)m * 4) == 0);
    free(a);
    free(b);
}

/* P proposals at once against the CPU incremental evaluator's deltas. */
static void check_delta(tsr_rng *r, tsr_layout *l, int spatial)
{
    enum { P = 32 };
    int32_t m = l->num_edges;
    tsr__incr inc;
    CHECK_OK(ctx, tsr__incr_init(ctx, &inc, l, spatial));
    tsr__layout_cuda *g = NULL;
    CHECK_OK(ctx, tsr__layout_cuda_create(ctx, l, &inc.adj, P, &g));
    int32_t node[P], px[P], py[P];
    int32_t *delta = calloc((size_t)P * m, 4), *want = calloc((size_t)m, 4);
    uint8_t invalid[P];
    for (int round = 0; round < 20 && g; round++) {
        for (int p = 0; p < P; p++) {
            node[p] = tsr_rng_range(r, 0, l->num_nodes - 1);
            px[p] = tsr_rng_range(r, 0, l->width);
            py[p] = tsr_rng_range(r, 0, l->height);
        }
        tsr_status st = spatial ? tsr__layout_cuda_delta_spatial(ctx, g, l, &inc.adj, &inc.grid,
                                                                 (uint64_t)round, P, node, px, py,
                                                                 delta, invalid)
                                : tsr__layout_cuda_delta(ctx, g, P, node, px, py, delta, invalid);
        CHECK(st == TSR_OK || (spatial && st == TSR_ERR_LIMIT));
        if (st != TSR_OK)
            continue;
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
            CHECK(memcmp(want, delta + (size_t)p * m, (size_t)m * 4) == 0);
            if (p == 0) { /* commit one move per round so the base changes */
                CHECK_OK(ctx, tsr__incr_commit(ctx, &inc));
                CHECK_OK(ctx, tsr__layout_cuda_move(ctx, g, node[0], px[0], py[0]));
            } else {
                tsr__incr_reject(&inc);
            }
        }
    }
    tsr__layout_cuda_destroy(ctx, g);
    tsr__incr_release(ctx, &inc);
    free(delta);
    free(want);
}

int main(void)
{
    if (!tsr_backend_available(TSR_BACKEND_CUDA)) {
        fprintf(stderr, "test_layout_cuda_gpu: no CUDA device; skipping\n");
        return TSR_TEST_SKIP;
    }
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_CUDA;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK)
        return 1;
    tsr_rng r;
    tsr_rng_seed(&r, 77);
    tsr_layout *big = random_drawing(&r, 128, 512, 1000000, 1000000);
    tsr_layout *small = random_drawing(&r, 300, 900, 80, 80);
    check_full(big);
    check_full(small);
    check_delta(&r, big, 0);
    check_delta(&r, small, 0);
    check_delta(&r, small, 1);
    const char *path = tsr_test_data("graphs/gd2025-examples/sol-150-nodes-50-planar.json");
    if (path) {
        tsr_layout *l;
        CHECK_OK(ctx, tsr_layout_read(ctx, path, &l));
        check_full(l);
        check_delta(&r, l, 0);
        check_delta(&r, l, 1);
        tsr_layout_free(ctx, l);
    }
    tsr_layout_free(ctx, big);
    tsr_layout_free(ctx, small);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("layout_cuda_gpu");
}
