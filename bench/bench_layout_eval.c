/* bench_layout_eval: the k-planar layout's crossing evaluators on the same drawings and the same
 * proposals (move node v to (x, y)); every GPU evaluator returns, per proposal, the objective
 * (K, n_K, Phi, C) after the move and an invalid flag (layout_cuda.h), never P x m counts.
 *   table 1, the seed's case (128 nodes / 512 edges, random drawing on a 10^6 canvas, P = 32):
 *     time per launch of P proposals: the round trip (host clock around the call, results on the
 *     host: what the annealer waits for) and, for cuda full and dense, the device time (20
 *     back-to-back launches replayed from a CUDA graph, events around the replay, per launch):
 *     cpu full      tsr__count_reference of each moved drawing (P recounts)
 *     cpu incr      tsr__incr_propose + reject, P times (dense: every edge against the star)
 *     cuda full     tsr__layout_cuda_eval_full: every edge of every proposal's drawing recounted
 *                   (one thread per (proposal, edge), the seed's day-22 baseline), then reduced
 *     cuda dense    tsr__layout_cuda_eval_dense: one block per proposal, deg(v) tests per edge
 *     cuda spatial  tsr__layout_cuda_eval_spatial: one block per proposal over the grid cells'
 *                   candidates (cells rastered on the device)
 *     cuda dense P=1  one proposal per launch: the fixed cost of a launch (upload, kernel,
 *                   synchronise)
 *   table 2, 10,000 nodes / 20,000 edges, random ("tangled", ~10^7 crossings) and a jittered
 *     lattice with edges between near neighbours ("untangled"), P in {256, 1024, 4096}:
 *     proposals evaluated per second of cuda dense and cuda spatial, beside cpu incr / spatial.
 * Proposals move a random node to a random point within 2% of the canvas of where it is (the
 * annealer's local moves), a fresh batch per repeat; proposals the host would reject by the node
 * part of validity count as evaluated. Exactness, checked in the run (a mismatch stops the
 * program): on the first batch of every evaluator and P, each proposal whose node part is valid
 * (all of table 1's, the first 512 of table 2's) has invalid[p] == !tsr__move_valid and, when
 * valid, exactly cpu incr's score; at the end of each case one valid proposal is committed on
 * the device and on the CPU (timed) and the device's per-edge counts must equal the CPU's.
 * Usage: bench_layout_eval [--repeats N] [--json FILE] */
#include "harness.h"

#include "layout/layout_internal.h"
#ifdef TSR_HAVE_CUDA
#include "bench_layout_eval_cuda.h"
#endif
#include "tessera/tessera.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHECK_MAX = 512 }; /* proposals of a table-2 batch compared with cpu incr */

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
static tsr_layout *drawing(tsr_ctx *ctx, int n, int m, int lattice)
{
    tsr_layout *l;
    if (tsr_layout_alloc(ctx, n, m, &l) != TSR_OK)
        die(ctx, "alloc");
    l->width = l->height = 1000000;
    l->has_coordinates = 1;
    int side = 1;
    while (side * side < n)
        side++;
    const int32_t cell = l->width / side;
    for (int i = 0; i < n; i++) {
        if (lattice) {
            l->x[i] = (i % side) * cell + rnd(0, cell / 4);
            l->y[i] = (i / side) * cell + rnd(0, cell / 4);
        } else {
            l->x[i] = rnd(0, l->width);
            l->y[i] = rnd(0, l->height);
        }
    }
    for (int e = 0; e < m; e++) {
        int u = rnd(0, n - 1), v;
        if (lattice) { /* a neighbour within 2 lattice steps */
            int ux = u % side, uy = u / side;
            do {
                int vx = ux + rnd(-2, 2), vy = uy + rnd(-2, 2);
                v = vx < 0 || vy < 0 || vx >= side || vy * side + vx >= n ? u : vy * side + vx;
            } while (v == u);
        } else {
            do
                v = rnd(0, n - 1);
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
    tsr_layout_score *score;
    uint8_t *invalid;
} batch;

static void batch_alloc(batch *b, int P)
{
    b->P = P;
    b->node = malloc((size_t)P * 4);
    b->px = malloc((size_t)P * 4);
    b->py = malloc((size_t)P * 4);
    b->score = malloc((size_t)P * sizeof *b->score);
    b->invalid = malloc((size_t)P);
    if (!b->node || !b->px || !b->py || !b->score || !b->invalid)
        die(NULL, "out of memory");
}

static void batch_free(batch *b)
{
    free(b->node), free(b->px), free(b->py), free(b->score), free(b->invalid);
}

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

/* The first ncheck results of b against cpu incr (see the file comment); returns how many
 * proposals were compared (node part valid). Exits on a mismatch. */
static int check_batch(tsr_ctx *ctx, tsr__incr *inc, const batch *b, int ncheck, const char *who)
{
    tsr_layout *l = inc->l;
    int compared = 0;
    for (int p = 0; p < ncheck && p < b->P; p++) {
        if (!tsr__move_valid_nodes(l, &inc->adj, &inc->occ, b->node[p], b->px[p], b->py[p]))
            continue;
        const int valid = tsr__move_valid(l, &inc->adj, &inc->occ, b->node[p], b->px[p], b->py[p]);
        int same = b->invalid[p] == !valid;
        if (same && valid) {
            if (!tsr__incr_propose(inc, b->node[p], b->px[p], b->py[p]))
                die(ctx, "cpu incr rejected a valid move");
            const tsr_layout_score *s = &b->score[p], *w = &inc->pscore;
            same = s->K == w->K && s->n_K == w->n_K && s->Phi == w->Phi && s->C == w->C;
            tsr__incr_reject(inc);
        }
        if (!same) {
            fprintf(stderr, "bench_layout_eval: %s: proposal %d differs from cpu incr\n", who, p);
            exit(1);
        }
        compared++;
    }
    return compared;
}

typedef enum ev { CPU_FULL, CPU_INCR, CPU_SPATIAL, CUDA_FULL, CUDA_DENSE, CUDA_SPATIAL } ev;
static const char *ev_name[] = {"cpu full",  "cpu incr",   "cpu spatial",
                                "cuda full", "cuda dense", "cuda spatial"};

typedef struct bstate {
    tsr_ctx *ctx, *gctx;
    tsr_layout *l, *moved;
    tsr__incr dense, spat;
    int32_t *counts;
#ifdef TSR_HAVE_CUDA
    tsr__layout_cuda *g;
#endif
    int spatial_fallbacks;
} bstate;

/* One launch of evaluator k on batch b (scores filled for the GPU ones). */
static void run_once(bstate *s, ev k, batch *b)
{
    switch (k) {
    case CPU_FULL:
        for (int p = 0; p < b->P; p++) {
            memcpy(s->moved->x, s->l->x, (size_t)s->l->num_nodes * 4);
            memcpy(s->moved->y, s->l->y, (size_t)s->l->num_nodes * 4);
            s->moved->x[b->node[p]] = b->px[p], s->moved->y[b->node[p]] = b->py[p];
            tsr__count_reference(s->moved, s->counts);
        }
        break;
    case CPU_INCR:
    case CPU_SPATIAL:
        for (int p = 0; p < b->P; p++) {
            tsr__incr *inc = k == CPU_INCR ? &s->dense : &s->spat;
            if (tsr__incr_propose(inc, b->node[p], b->px[p], b->py[p]))
                tsr__incr_reject(inc);
        }
        break;
#ifdef TSR_HAVE_CUDA
    default: {
        tsr_status st =
            k == CUDA_FULL ? tsr__layout_cuda_eval_full(s->gctx, s->g, b->P, b->node, b->px, b->py,
                                                        b->score, b->invalid)
            : k == CUDA_DENSE
                ? tsr__layout_cuda_eval_dense(s->gctx, s->g, b->P, b->node, b->px, b->py, b->score,
                                              b->invalid)
                : tsr__layout_cuda_eval_spatial(s->gctx, s->g, &s->spat.grid, 1, b->P, b->node,
                                                b->px, b->py, b->score, b->invalid);
        if (k == CUDA_SPATIAL && st == TSR_ERR_LIMIT) { /* the documented fallback */
            s->spatial_fallbacks++;
            st = tsr__layout_cuda_eval_dense(s->gctx, s->g, b->P, b->node, b->px, b->py, b->score,
                                             b->invalid);
        }
        if (st != TSR_OK)
            die(s->gctx, ev_name[k]);
        break;
    }
#else
    default: break;
#endif
    }
}

/* "candidates N, dense after overflow N, with scan N" of the state's CUDA evaluator (a static
 * buffer: print it before the next call). */
static const char *paths_text(const bstate *s)
{
#ifdef TSR_HAVE_CUDA
    static char text[160];
    uint64_t p[3] = {0, 0, 0};
    if (s->g)
        tsr__layout_cuda_paths(s->g, p);
    snprintf(text, sizeof text, "candidates %llu, dense after cell overflow %llu, with scan %llu",
             (unsigned long long)p[0], (unsigned long long)p[1], (unsigned long long)p[2]);
    return text;
#else
    (void)s;
    return "-";
#endif
}

/* The device time per launch of CUDA_DENSE or CUDA_FULL (k) over `repeats` fresh batches
 * (median): REPLAY_LAUNCHES back-to-back launches replayed from a CUDA graph
 * (bench_layout_replay_us). */
enum { REPLAY_LAUNCHES = 20 };
static tsr_bench_stats device_time(bstate *s, ev k, batch *b, int repeats)
{
    tsr_bench_stats st = {0};
#ifdef TSR_HAVE_CUDA
    double *us = malloc(sizeof(double) * (size_t)repeats);
    for (int r = 0; r < repeats; r++) {
        make_batch(s->l, b);
        if (bench_layout_replay_us(s->gctx, s->g, k == CUDA_FULL, b->P, b->node, b->px, b->py,
                                   REPLAY_LAUNCHES, &us[r]) != TSR_OK)
            die(s->gctx, "graph replay");
    }
    tsr_bench_stats_of(us, repeats, &st);
    free(us);
#else
    (void)s, (void)k, (void)b, (void)repeats;
#endif
    return st;
}

/* Median/min/max microseconds per launch of P proposals over `repeats` fresh batches after one
 * warm-up (host clock); the warm-up batch of a GPU evaluator is checked against cpu incr. */
static tsr_bench_stats time_ev(bstate *s, ev k, batch *b, int repeats, int ncheck, int *checked)
{
    double *us = malloc(sizeof(double) * (size_t)repeats);
    for (int r = -1; r < repeats; r++) {
        make_batch(s->l, b);
        const double t0 = tsr_bench_now_us();
        run_once(s, k, b);
        const double dt = tsr_bench_now_us() - t0;
        if (r < 0 && k >= CUDA_FULL)
            *checked += check_batch(s->ctx, &s->dense, b, ncheck, ev_name[k]);
        if (r >= 0)
            us[r] = dt;
    }
    tsr_bench_stats st;
    tsr_bench_stats_of(us, repeats, &st);
    free(us);
    return st;
}

static void state_init(bstate *s, tsr_ctx *ctx, tsr_ctx *gctx, tsr_layout *l, int maxP)
{
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    s->gctx = gctx;
    s->l = l;
    if (tsr__incr_init(ctx, &s->dense, l, 0) != TSR_OK ||
        tsr__incr_init(ctx, &s->spat, l, 1) != TSR_OK)
        die(ctx, "incremental evaluator");
    s->counts = malloc((size_t)l->num_edges * 4 + 4);
    if (!s->counts || tsr_layout_alloc(ctx, l->num_nodes, l->num_edges, &s->moved) != TSR_OK)
        die(ctx, "buffers");
    memcpy(s->moved->edge_u, l->edge_u, (size_t)l->num_edges * 4);
    memcpy(s->moved->edge_v, l->edge_v, (size_t)l->num_edges * 4);
    s->moved->width = l->width, s->moved->height = l->height, s->moved->has_coordinates = 1;
#ifdef TSR_HAVE_CUDA
    tsr__layout_cuda_device dev;
    if (gctx && (tsr__layout_cuda_device_of(gctx, &dev) != TSR_OK ||
                 tsr__layout_cuda_create(gctx, &dev, l, &s->dense.adj, maxP, &s->g) != TSR_OK))
        die(gctx, "cuda evaluator");
#else
    (void)maxP;
#endif
}

/* Commits the first valid proposal of a fresh batch on the device and the CPU; the device's
 * counts must equal the CPU's. Returns the commit's microseconds (0 without CUDA). Leaves the
 * state's spatial CPU evaluator stale: call last. */
static double commit_check(bstate *s, batch *b)
{
#ifdef TSR_HAVE_CUDA
    if (!s->g)
        return 0;
    for (int tries = 0; tries < 100; tries++) {
        make_batch(s->l, b);
        for (int p = 0; p < b->P; p++) {
            if (!tsr__move_valid(s->l, &s->dense.adj, &s->dense.occ, b->node[p], b->px[p],
                                 b->py[p]))
                continue;
            tsr_layout_score got;
            const double t0 = tsr_bench_now_us();
            if (tsr__layout_cuda_commit(s->gctx, s->g, b->node[p], b->px[p], b->py[p], &got,
                                        NULL) != TSR_OK)
                die(s->gctx, "commit");
            const double dt = tsr_bench_now_us() - t0;
            if (!tsr__incr_propose(&s->dense, b->node[p], b->px[p], b->py[p]) ||
                tsr__incr_commit(s->ctx, &s->dense) != TSR_OK)
                die(s->ctx, "cpu commit");
            if (tsr__layout_cuda_counts(s->gctx, s->g, s->counts) != TSR_OK)
                die(s->gctx, "counts");
            const tsr_layout_score *w = &s->dense.score;
            if (memcmp(s->counts, s->dense.count, (size_t)s->l->num_edges * 4) != 0 ||
                got.K != w->K || got.n_K != w->n_K || got.Phi != w->Phi || got.C != w->C) {
                fprintf(stderr, "bench_layout_eval: the device commit differs from the CPU's\n");
                exit(1);
            }
            return dt;
        }
    }
#else
    (void)s, (void)b;
#endif
    return 0;
}

static void state_release(bstate *s)
{
#ifdef TSR_HAVE_CUDA
    tsr__layout_cuda_destroy(s->gctx, s->g);
#endif
    tsr__incr_release(s->ctx, &s->dense);
    tsr__incr_release(s->ctx, &s->spat);
    tsr_layout_free(s->ctx, s->moved);
    tsr_layout_free(s->ctx, s->l);
    free(s->counts);
}

int main(int argc, char **argv)
{
    int repeats = 7;
    const char *json = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--repeats") && i + 1 < argc && atoi(argv[i + 1]) > 0)
            repeats = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else {
            fprintf(stderr, "usage: bench_layout_eval [--repeats N] [--json FILE]\n");
            return 2;
        }
    }
    tsr_ctx *ctx, *gctx = NULL;
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_CPU;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK)
        die(NULL, "context");
#ifdef TSR_HAVE_CUDA
    if (tsr_backend_available(TSR_BACKEND_CUDA)) {
        o.backend = TSR_BACKEND_CUDA;
        if (tsr_ctx_create(&o, &gctx) != TSR_OK)
            gctx = NULL;
    }
#endif
    printf("bench_layout_eval: %s; GPU: %s; %d repeats (fresh batches) after one checked warm-up\n",
           tsr_bench_host_description(), gctx ? tsr_ctx_device_name(gctx) : "none (CUDA rows -)",
           repeats);

    /* ---- table 1: the seed's case, per launch of P = 32 ---- */
    const char *h1[] = {"evaluator",     "us per launch",        "spread",
                        "proposals/s",   "full / this",          "device us",
                        "device spread", "full / this (device)", "checked"};
    tsr_bench_table *t1 =
        tsr_bench_table_new("seed case 128 nodes / 512 edges, P = 32 per launch", 9, h1);
    {
        const int P = 32;
        bstate s;
        state_init(&s, ctx, gctx, drawing(ctx, 128, 512, 0), P);
        batch b;
        batch_alloc(&b, P);
        tsr_bench_stats st[6], dev[6];
        memset(dev, 0, sizeof dev);
        int checked[6] = {0}, have[6] = {0};
        for (int k = CPU_FULL; k <= CUDA_SPATIAL; k++) {
            if (k == CPU_SPATIAL || (k >= CUDA_FULL && !gctx))
                continue;
            st[k] = time_ev(&s, (ev)k, &b, repeats, P, &checked[k]);
            if (k == CUDA_FULL || k == CUDA_DENSE)
                dev[k] = device_time(&s, (ev)k, &b, repeats);
            have[k] = 1;
        }
        for (int k = CPU_FULL; k <= CUDA_SPATIAL; k++) {
            if (!have[k])
                continue;
            const int cuda = k == CUDA_FULL || k == CUDA_DENSE;
            const char *cells[9] = {
                ev_name[k],
                tsr_bench_fmt("%.1f", st[k].median_us),
                tsr_bench_fmt("%.1f-%.1f", st[k].min_us, st[k].max_us),
                tsr_bench_fmt("%.3g", P * 1e6 / st[k].median_us),
                have[CUDA_FULL] ? tsr_bench_fmt("%.2f", st[CUDA_FULL].median_us / st[k].median_us)
                                : "-",
                cuda ? tsr_bench_fmt("%.1f", dev[k].median_us) : "-",
                cuda ? tsr_bench_fmt("%.1f-%.1f", dev[k].min_us, dev[k].max_us) : "-",
                cuda ? tsr_bench_fmt("%.2f", dev[CUDA_FULL].median_us / dev[k].median_us) : "-",
                k >= CUDA_FULL ? tsr_bench_fmt("%d", checked[k]) : "-"};
            tsr_bench_table_row(t1, cells);
        }
        /* the fixed cost (one proposal per launch) and its growth with P */
        for (int P1 = 1; gctx && P1 < P; P1 *= 8) {
            batch b1;
            batch_alloc(&b1, P1);
            int checked1 = 0;
            tsr_bench_stats s1 = time_ev(&s, CUDA_DENSE, &b1, repeats, P1, &checked1);
            tsr_bench_stats d1 = device_time(&s, CUDA_DENSE, &b1, repeats);
            const char *cells[9] = {tsr_bench_fmt("cuda dense, P = %d", P1),
                                    tsr_bench_fmt("%.1f", s1.median_us),
                                    tsr_bench_fmt("%.1f-%.1f", s1.min_us, s1.max_us),
                                    tsr_bench_fmt("%.3g", P1 * 1e6 / s1.median_us),
                                    "-",
                                    tsr_bench_fmt("%.1f", d1.median_us),
                                    tsr_bench_fmt("%.1f-%.1f", d1.min_us, d1.max_us),
                                    "-",
                                    tsr_bench_fmt("%d", checked1)};
            tsr_bench_table_row(t1, cells);
            batch_free(&b1);
        }
#ifdef TSR_HAVE_CUDA
        /* the floor of that fixed cost: launches that evaluate nothing and complete the same way */
        for (int P1 = 1; gctx && P1 <= P; P1 *= 32) {
            double us[64];
            const int nr = repeats < 64 ? repeats : 64;
            for (int r = -1; r < nr; r++) {
                const double t0 = tsr_bench_now_us();
                if (bench_layout_probe(s.gctx, s.g, P1) != TSR_OK)
                    die(s.gctx, "probe launch");
                if (r >= 0)
                    us[r] = tsr_bench_now_us() - t0;
            }
            tsr_bench_stats sp;
            tsr_bench_stats_of(us, nr, &sp);
            const char *cells[9] = {tsr_bench_fmt("launch + completion only, P = %d", P1),
                                    tsr_bench_fmt("%.1f", sp.median_us),
                                    tsr_bench_fmt("%.1f-%.1f", sp.min_us, sp.max_us),
                                    "-",
                                    "-",
                                    "-",
                                    "-",
                                    "-",
                                    "-"};
            tsr_bench_table_row(t1, cells);
        }
#endif
        const char *paths = paths_text(&s);
        const double commit_us = commit_check(&s, &b);
        if (gctx)
            printf("seed case: C %lld, K %lld; one device commit %.1f us (counts equal the CPU's); "
                   "spatial proposals by path: %s\n",
                   (long long)s.dense.score.C, (long long)s.dense.score.K, commit_us, paths);
        batch_free(&b);
        state_release(&s);
        fprintf(stderr, "done seed case\n");
    }
    tsr_bench_table_print(t1, stdout);

    /* ---- table 2: 10k / 20k, proposals per second ---- */
    const char *h2[] = {"case",
                        "crossings (K)",
                        "P",
                        "cpu incr /s",
                        "cpu spatial /s",
                        "cuda dense /s",
                        "cuda spatial /s",
                        "spatial / dense",
                        "dense us/launch",
                        "spatial us/launch",
                        "checked"};
    tsr_bench_table *t2 =
        tsr_bench_table_new("10,000 nodes / 20,000 edges, proposals per second (median)", 11, h2);
    const int Ps[] = {256, 1024, 4096};
    for (int lattice = 0; lattice <= 1; lattice++) {
        bstate s;
        state_init(&s, ctx, gctx, drawing(ctx, 10000, 20000, lattice), 4096);
        const char *name = lattice ? "10k/20k untangled" : "10k/20k tangled";
        /* the CPU rates once per case, on 256 proposals per repeat */
        batch cb;
        batch_alloc(&cb, 256);
        int dummy = 0;
        const double cpu_incr = 256 * 1e6 / time_ev(&s, CPU_INCR, &cb, 3, 0, &dummy).median_us;
        const double cpu_spat = 256 * 1e6 / time_ev(&s, CPU_SPATIAL, &cb, 3, 0, &dummy).median_us;
        for (int pi = 0; pi < 3; pi++) {
            const int P = Ps[pi];
            batch b;
            batch_alloc(&b, P);
            tsr_bench_stats sd = {0}, ss = {0};
            int checked = 0;
            if (gctx) {
                sd = time_ev(&s, CUDA_DENSE, &b, repeats, CHECK_MAX, &checked);
                ss = time_ev(&s, CUDA_SPATIAL, &b, repeats, CHECK_MAX, &checked);
            }
            const char *cells[11] = {
                name,
                tsr_bench_fmt("%lld (K %lld)", (long long)s.dense.score.C,
                              (long long)s.dense.score.K),
                tsr_bench_fmt("%d", P),
                tsr_bench_fmt("%.3g", cpu_incr),
                tsr_bench_fmt("%.3g", cpu_spat),
                gctx ? tsr_bench_fmt("%.3g", P * 1e6 / sd.median_us) : "-",
                gctx ? tsr_bench_fmt("%.3g", P * 1e6 / ss.median_us) : "-",
                gctx ? tsr_bench_fmt("%.2f", sd.median_us / ss.median_us) : "-",
                gctx ? tsr_bench_fmt("%.0f (%.0f-%.0f)", sd.median_us, sd.min_us, sd.max_us) : "-",
                gctx ? tsr_bench_fmt("%.0f (%.0f-%.0f)", ss.median_us, ss.min_us, ss.max_us) : "-",
                gctx ? tsr_bench_fmt("%d", checked) : "-"};
            tsr_bench_table_row(t2, cells);
            batch_free(&b);
        }
        const double commit_us = commit_check(&s, &cb);
        if (gctx)
            printf("%s: one device commit %.1f us (counts equal the CPU's); spatial launches "
                   "refused (stale index): %d; spatial proposals by path: %s\n",
                   name, commit_us, s.spatial_fallbacks, paths_text(&s));
        batch_free(&cb);
        state_release(&s);
        fprintf(stderr, "done %s\n", name);
    }
    tsr_bench_table_print(t2, stdout);
    printf("us per launch: host clock around one call (proposals up, one score per proposal "
           "down); device us: per launch of 20 back-to-back launches replayed from a CUDA "
           "graph (events around the replay); checked: proposals of the warm-up batches compared "
           "with cpu incr (all equal)\n");
    if (json) {
        const char *meta[] = {"host", tsr_bench_host_description(), "gpu",
                              gctx ? tsr_ctx_device_name(gctx) : "none", NULL};
        tsr_bench_table *ts[] = {t1, t2};
        tsr_bench_json_write(json, "bench_layout_eval", meta, ts, 2);
    }
    tsr_bench_table_free(t1);
    tsr_bench_table_free(t2);
    tsr_ctx_destroy(gctx);
    tsr_ctx_destroy(ctx);
    return 0;
}
