/* bench_layout_eval: the k-planar layout's crossing evaluators side by side on the same drawings
 * and the same proposals (move node v to (x, y)), in proposals evaluated per second:
 *   cpu full      tsr__count_reference on the moved drawing, one proposal at a time
 *   cpu incr      tsr__incr_propose + reject (dense: every edge against the moved star)
 *   cpu spatial   the same with the uniform-grid index
 *   cuda full     tsr__layout_cuda_count on the moved drawing (upload + one thread per edge):
 *                 the seed's day-22 baseline
 *   cuda dense    tsr__layout_cuda_delta, P proposals per launch (all P rows: m deltas each)
 *   cuda spatial  tsr__layout_cuda_delta_spatial, P proposals per launch
 * Cases: the seed's 128 nodes / 512 edges (random drawing on a 10^6 canvas, P = 32), and
 * 10,000 nodes / 20,000 edges twice: random ("tangled", ~10^7 crossings) and a perturbed lattice
 * with edges between near neighbours ("untangled", few crossings), where the spatial index pays.
 * Proposals move a random node to a random point within 2% of the canvas of where it is (the
 * annealer's local moves); invalid proposals count as evaluated (the evaluator decided them).
 * Host clock around each batch (CUDA calls return when their results are on the host). Every
 * evaluator is compared once with cpu incr on the case's first batch (a benchmark of wrong answers
 * would be worthless); a mismatch stops the program.
 * Usage: bench_layout_eval [--repeats N] [--proposals P] [--json FILE] */
#include "harness.h"

#include "layout/layout_internal.h"
#ifdef TSR_HAVE_CUDA
#include "layout/layout_cuda.h"
#endif
#include "tessera/tessera.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bcase {
    const char *name;
    int n, m, lattice, P;
} bcase;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static int32_t rnd(int32_t lo, int32_t hi)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (int32_t)((rng_state >> 33) % (uint64_t)(hi - lo + 1));
}

static void die(tsr_ctx *ctx, const char *what)
{
    fprintf(stderr, "bench_layout_eval: %s: %s\n", what, ctx ? tsr_ctx_last_error(ctx) : "");
    exit(1);
}

/* A valid drawing: random points, or a jittered sqrt(n) lattice whose edges join lattice
 * neighbours (a few crossings); then repaired (nodes on edges moved). */
static tsr_layout *drawing(tsr_ctx *ctx, const bcase *c)
{
    tsr_layout *l;
    if (tsr_layout_alloc(ctx, c->n, c->m, &l) != TSR_OK)
        die(ctx, "alloc");
    l->width = l->height = 1000000;
    l->has_coordinates = 1;
    int side = 1;
    while (side * side < c->n)
        side++;
    const int32_t cell = l->width / side;
    for (int i = 0; i < c->n; i++) {
        if (c->lattice) {
            l->x[i] = (i % side) * cell + rnd(0, cell / 4);
            l->y[i] = (i / side) * cell + rnd(0, cell / 4);
        } else {
            l->x[i] = rnd(0, l->width);
            l->y[i] = rnd(0, l->height);
        }
    }
    for (int e = 0; e < c->m; e++) {
        int u = rnd(0, c->n - 1), v;
        if (c->lattice) { /* a neighbour within 2 lattice steps */
            int ux = u % side, uy = u / side;
            do {
                int vx = ux + rnd(-2, 2), vy = uy + rnd(-2, 2);
                v = vx < 0 || vy < 0 || vx >= side || vy * side + vx >= c->n ? u : vy * side + vx;
            } while (v == u);
        } else {
            do
                v = rnd(0, c->n - 1);
            while (v == u);
        }
        l->edge_u[e] = u;
        l->edge_v[e] = v;
    }
    if (tsr_layout_repair(ctx, l, NULL) != TSR_OK)
        die(ctx, "repair");
    return l;
}

typedef struct batch {
    int P;
    int32_t *node, *px, *py;
} batch;

static void make_batch(const tsr_layout *l, batch *b)
{
    const int32_t r = l->width / 50;
    for (int p = 0; p < b->P; p++) {
        const int32_t v = rnd(0, l->num_nodes - 1);
        b->node[p] = v;
        b->px[p] = l->x[v] + rnd(-r, r);
        b->py[p] = l->y[v] + rnd(-r, r);
        b->px[p] = b->px[p] < 0 ? 0 : b->px[p] > l->width ? l->width : b->px[p];
        b->py[p] = b->py[p] < 0 ? 0 : b->py[p] > l->height ? l->height : b->py[p];
    }
}

/* The CPU incremental deltas of a batch: rows of m (0 where unchanged), valid[p]. */
static void incr_rows(tsr__incr *inc, const batch *b, int32_t m, int32_t *rows, uint8_t *valid)
{
    memset(rows, 0, (size_t)b->P * m * sizeof *rows);
    for (int p = 0; p < b->P; p++) {
        valid[p] = (uint8_t)tsr__incr_propose(inc, b->node[p], b->px[p], b->py[p]);
        if (!valid[p])
            continue;
        for (int i = 0; i < inc->ntouched; i++)
            rows[(size_t)p * m + inc->touched[i]] = inc->delta[inc->touched[i]];
        tsr__incr_reject(inc);
    }
}

int main(int argc, char **argv)
{
    int repeats = 5, P = 0;
    const char *json = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeats") && i + 1 < argc)
            repeats = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--proposals") && i + 1 < argc)
            P = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else {
            fprintf(stderr, "usage: bench_layout_eval [--repeats N] [--proposals P] [--json FILE]\n");
            return 2;
        }
    }
    const bcase cases[] = {{"seed 128/512", 128, 512, 0, 32},
                           {"10k/20k tangled", 10000, 20000, 0, 256},
                           {"10k/20k untangled", 10000, 20000, 1, 256}};
    tsr_ctx *ctx;
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_CPU;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK)
        die(NULL, "context");
    int have_cuda = 0;
    tsr_ctx *gctx = NULL;
#ifdef TSR_HAVE_CUDA
    if (tsr_backend_available(TSR_BACKEND_CUDA)) {
        o.backend = TSR_BACKEND_CUDA;
        have_cuda = tsr_ctx_create(&o, &gctx) == TSR_OK;
    }
#endif
    printf("bench_layout_eval: %s; CUDA %s\n", tsr_bench_host_description(),
           have_cuda ? "present" : "absent (CUDA columns -)");
    const char *hdr[] = {"case", "crossings (K)", "P", "cpu full /s", "cpu incr /s", "cpu spatial /s",
                         "cuda full /s", "cuda dense /s", "cuda spatial /s", "dense/full (cuda)"};
    tsr_bench_table *t = tsr_bench_table_new("proposals evaluated per second (median)", 10, hdr);
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const bcase *c = &cases[ci];
        const int np = P > 0 ? P : c->P;
        tsr_layout *l = drawing(ctx, c);
        const int32_t m = l->num_edges;
        tsr__incr dense, spat;
        if (tsr__incr_init(ctx, &dense, l, 0) != TSR_OK || tsr__incr_init(ctx, &spat, l, 1) != TSR_OK)
            die(ctx, "incremental evaluator");
        batch b = {np, malloc(np * 4), malloc(np * 4), malloc(np * 4)};
        int32_t *want = malloc((size_t)np * m * 4), *got = malloc((size_t)np * m * 4);
        int32_t *counts = malloc((size_t)m * 4 + 4);
        uint8_t *valid = malloc(np), *invalid = malloc(np);
        tsr_layout *moved;
        if (!want || !got || !counts || tsr_layout_alloc(ctx, l->num_nodes, m, &moved) != TSR_OK)
            die(ctx, "buffers");
        memcpy(moved->edge_u, l->edge_u, (size_t)m * 4);
        memcpy(moved->edge_v, l->edge_v, (size_t)m * 4);
        moved->width = l->width, moved->height = l->height, moved->has_coordinates = 1;
        double rate[6] = {0};
        /* 0 cpu full, 1 cpu incr, 2 cpu spatial, 3 cuda full, 4 cuda dense, 5 cuda spatial */
#ifdef TSR_HAVE_CUDA
        tsr__layout_cuda *g = NULL;
        if (have_cuda && tsr__layout_cuda_create(gctx, l, &dense.adj, np, &g) != TSR_OK)
            die(gctx, "cuda evaluator");
#endif
        for (int k = 0; k < 6; k++) {
            if (k >= 3 && !have_cuda)
                continue;
            const int full_k = k == 0 || k == 3;
            const int nb = full_k ? (c->m > 1000 ? 1 : np) : np; /* full recounts: fewer */
            double *us = malloc(sizeof(double) * (size_t)repeats);
            for (int r = -1; r < repeats; r++) {
                make_batch(l, &b);
                if (r < 0) /* the reference rows of this batch, for the check below */
                    incr_rows(&dense, &b, m, want, valid);
                const double t0 = tsr_bench_now_us();
                int checked = 0;
                for (int p = 0; p < (k == 1 || k == 2 || k == 4 || k == 5 ? 1 : nb); p++) {
                    if ((k == 1 || k == 2) && r < 0) {
                        incr_rows(k == 1 ? &dense : &spat, &b, m, got, invalid);
                        checked = 1;
                    } else if (k == 1 || k == 2) { /* timed: propose + reject only */
                        tsr__incr *inc = k == 1 ? &dense : &spat;
                        for (int q = 0; q < np; q++)
                            if (tsr__incr_propose(inc, b.node[q], b.px[q], b.py[q]))
                                tsr__incr_reject(inc);
                    } else if (full_k) {
                        memcpy(moved->x, l->x, (size_t)l->num_nodes * 4);
                        memcpy(moved->y, l->y, (size_t)l->num_nodes * 4);
                        moved->x[b.node[p]] = b.px[p], moved->y[b.node[p]] = b.py[p];
                        if (k == 0)
                            tsr__count_reference(moved, counts);
#ifdef TSR_HAVE_CUDA
                        else if (tsr__layout_cuda_count(gctx, moved, counts) != TSR_OK)
                            die(gctx, "cuda count");
#endif
                    }
#ifdef TSR_HAVE_CUDA
                    else {
                        tsr_status st =
                            k == 4 ? tsr__layout_cuda_delta(gctx, g, np, b.node, b.px, b.py, got,
                                                            invalid)
                                   : tsr__layout_cuda_delta_spatial(gctx, g, l, &spat.adj,
                                                                    &spat.grid, 1, np, b.node,
                                                                    b.px, b.py, got, invalid);
                        if (st == TSR_ERR_LIMIT) /* the spatial call's documented fallback */
                            st = tsr__layout_cuda_delta(gctx, g, np, b.node, b.px, b.py, got,
                                                        invalid);
                        if (st != TSR_OK)
                            die(gctx, "cuda delta");
                        checked = 2;
                    }
#endif
                }
                const double dt = tsr_bench_now_us() - t0;
                if (r < 0 && checked) { /* rows of valid proposals must equal cpu incr's */
                    for (int p = 0; p < np; p++) {
                        const int ok = checked == 1 ? invalid[p] : !invalid[p];
                        if (valid[p] && ok && memcmp(want + (size_t)p * m, got + (size_t)p * m,
                                                     (size_t)m * 4) != 0)
                            die(ctx, "an evaluator disagrees with cpu incr");
                    }
                }
                if (r >= 0)
                    us[r] = dt / (k == 1 || k == 2 || k == 4 || k == 5 ? np : nb);
            }
            tsr_bench_stats s;
            tsr_bench_stats_of(us, repeats, &s);
            rate[k] = 1e6 / s.median_us;
            free(us);
        }
#ifdef TSR_HAVE_CUDA
        if (g)
            tsr__layout_cuda_destroy(gctx, g);
#endif
        const char *cells[10];
        cells[0] = c->name;
        cells[1] = tsr_bench_fmt("%lld (K %lld)", (long long)dense.score.C, (long long)dense.score.K);
        cells[2] = tsr_bench_fmt("%d", np);
        for (int k = 0; k < 6; k++)
            cells[3 + k] = rate[k] > 0 ? tsr_bench_fmt("%.3g", rate[k]) : "-";
        cells[9] = rate[3] > 0 ? tsr_bench_fmt("%.1f", rate[4] / rate[3]) : "-";
        tsr_bench_table_row(t, cells);
        fprintf(stderr, "done %s\n", c->name);
        tsr__incr_release(ctx, &dense);
        tsr__incr_release(ctx, &spat);
        tsr_layout_free(ctx, l);
        tsr_layout_free(ctx, moved);
        free(b.node), free(b.px), free(b.py), free(want), free(got), free(counts), free(valid),
            free(invalid);
    }
    tsr_bench_table_print(t, stdout);
    printf("full: one recount of the moved drawing per proposal; incr/spatial: propose + reject; "
           "cuda dense/spatial: P proposals per launch, all rows to the host\n");
    if (json) {
        const char *meta[] = {"host", tsr_bench_host_description(), NULL};
        tsr_bench_json_write(json, "bench_layout_eval", meta, &t, 1);
    }
    tsr_bench_table_free(t);
    tsr_ctx_destroy(gctx);
    tsr_ctx_destroy(ctx);
    return 0;
}
