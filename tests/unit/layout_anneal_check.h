/* The annealer's batch walk against its sequential walk, shared by test_layout_anneal_batch.c
 * (the CPU batch evaluator, no GPU) and test_layout_anneal_cuda_gpu.c (the CUDA one): the same
 * drawing optimized with the same options and move budget by both walks must come out byte for
 * byte the same, with the same score, moves, acceptances and restarts (the batch walk is the
 * sequential walk with its rejections scored ahead); every path of the walk must have run. Cases:
 * random drawings of two kinds (short edges on a large canvas, for the spatial index and low k;
 * many long edges, for the dense paths and high degrees), a crowded small canvas (many proposals
 * land on an edge or an occupied point), a small graph with a long budget (restarts from the best
 * drawing), and contest instances when the data is there. Header-only (static functions): include
 * it once per test. */
#ifndef TSR_TEST_LAYOUT_ANNEAL_CHECK_H
#define TSR_TEST_LAYOUT_ANNEAL_CHECK_H

#include "testlib.h"

#include "layout/anneal_internal.h"

#include <stdio.h>
#include <string.h>

/* Sums over the cases, for the checks that every path of the walk ran. */
static tsr__batch_stats lac_total;
static uint64_t lac_restarts, lac_cases;

/* Optimizes clones of l with the sequential walk (ctx_seq) and the batch walk of `kind`
 * (ctx_batch); both drawings must be equal and valid. Prints one line per case. */
static void lac_compare(tsr_ctx *ctx_seq, tsr_ctx *ctx_batch, tsr__batch_kind kind,
                        const char *name, const tsr_layout *l,
                        const tsr_layout_optimize_options *opt)
{
    tsr_layout *a, *b;
    CHECK_OK(ctx_seq, tsr_layout_clone(ctx_seq, l, &a));
    CHECK_OK(ctx_batch, tsr_layout_clone(ctx_batch, l, &b));
    size_t n = (size_t)l->num_nodes;
    tsr_layout_optimize_result ra, rb;
    tsr__batch_stats st;
    memset(&rb, 0xA5, sizeof rb); /* poisoned outputs */
    memset(&st, 0xA5, sizeof st);
    CHECK_OK(ctx_seq, tsr__anneal_team_run(ctx_seq, a, opt, tsr_ctx_backend(ctx_seq),
                                           TSR__BATCH_NONE, &ra, NULL));
    CHECK_OK(ctx_batch,
             tsr__anneal_team_run(ctx_batch, b, opt, tsr_ctx_backend(ctx_batch), kind, &rb, &st));
    CHECK(memcmp(a->x, b->x, n * sizeof *a->x) == 0 && memcmp(a->y, b->y, n * sizeof *a->y) == 0);
    CHECK(tsr_layout_score_compare(&ra.best, &rb.best) == 0);
    CHECK(ra.moves == rb.moves && ra.accepted == rb.accepted && ra.restarts == rb.restarts);
    tsr_layout_score s;
    CHECK_OK(ctx_seq, tsr_layout_evaluate(ctx_seq, b, &s, NULL));
    CHECK(tsr_layout_score_compare(&s, &rb.best) == 0);
    size_t bad = 1;
    CHECK_OK(ctx_seq, tsr_layout_check(ctx_seq, b, NULL, 0, &bad));
    CHECK(bad == 0);
    CHECK(st.decided <= rb.moves && st.calls > 0);
    printf("%-22s K %lld -> %lld, %llu moves, %llu accepted, %llu restarts; %.1f s vs %.1f s; "
           "batch: %llu calls, %llu scored, %llu decided (%llu in phase 2), %llu discarded\n",
           name, (long long)ra.initial.K, (long long)ra.best.K, (unsigned long long)ra.moves,
           (unsigned long long)ra.accepted, (unsigned long long)ra.restarts, ra.seconds, rb.seconds,
           (unsigned long long)st.calls, (unsigned long long)st.scored,
           (unsigned long long)st.decided, (unsigned long long)st.phase2,
           (unsigned long long)st.discarded);
    lac_total.calls += st.calls;
    lac_total.scored += st.scored;
    lac_total.decided += st.decided;
    lac_total.phase2 += st.phase2;
    lac_total.discarded += st.discarded;
    lac_restarts += rb.restarts;
    lac_cases++;
    tsr_layout_free(ctx_seq, a);
    tsr_layout_free(ctx_batch, b);
}

/* n nodes at random points of a w x w canvas; `near` edges per node to the nearest of 6 random
 * nodes (short edges) and `far` edges per node to any random node, without self-loops and
 * duplicate edges (a repeated pair is left out); made valid. */
static tsr_layout *lac_random(tsr_ctx *ctx, tsr_rng *r, int n, int near, int far, int32_t w)
{
    tsr_layout *l;
    CHECK_OK(ctx, tsr_layout_alloc(ctx, n, n * (near + far), &l));
    l->width = l->height = w;
    l->has_coordinates = 1;
    for (int i = 0; i < n; i++) {
        l->x[i] = tsr_rng_range(r, 0, w);
        l->y[i] = tsr_rng_range(r, 0, w);
    }
    int e = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < near + far; k++) {
            int best = -1;
            int64_t best_d = 0;
            for (int t = 0; t < (k < near ? 6 : 1); t++) {
                int j = tsr_rng_range(r, 0, n - 2);
                j += j >= i; /* never i */
                int64_t dx = (int64_t)l->x[i] - l->x[j], dy = (int64_t)l->y[i] - l->y[j];
                if (best < 0 || dx * dx + dy * dy < best_d) {
                    best = j;
                    best_d = dx * dx + dy * dy;
                }
            }
            int seen = 0;
            for (int f = 0; f < e && !seen; f++)
                seen = (l->edge_u[f] == i && l->edge_v[f] == best) ||
                       (l->edge_u[f] == best && l->edge_v[f] == i);
            if (!seen) {
                l->edge_u[e] = i;
                l->edge_v[e++] = best;
            }
        }
    l->num_edges = e;
    CHECK_OK(ctx, tsr_layout_repair(ctx, l, NULL));
    return l;
}

/* The cases; contest instances `contest` (e.g. {1, 3}) at `contest_moves` proposals each. */
static void lac_run_all(tsr_ctx *ctx_seq, tsr_ctx *ctx_batch, tsr__batch_kind kind,
                        const int *contest, int ncontest, uint64_t contest_moves)
{
    tsr_rng r;
    tsr_rng_seed(&r, 29);
    tsr_layout_optimize_options opt;
    tsr_layout_optimize_options_init(&opt);
    opt.time_limit = 0;
    opt.init = TSR_LAYOUT_INIT_KEEP;
    static const struct {
        const char *name;
        int n, near, far;
        int32_t w;
        uint64_t moves;
        int spatial, seed;
    } cases[] = {
        {"short edges 300", 300, 2, 0, 1000000, 12000, 1, 3},
        {"short edges 300 dense", 300, 2, 0, 1000000, 12000, 0, 4},
        {"long edges 60x10", 60, 0, 10, 1000000, 6000, 1, 5},
        {"mixed 150, canvas 2^30", 150, 2, 2, 1 << 30, 6000, 1, 6},
        {"crowded 14x14 canvas", 70, 1, 1, 14, 12000, 1, 7},
        {"small graph, restarts", 16, 1, 2, 60, 150000, 1, 8},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tsr_layout *l =
            lac_random(ctx_seq, &r, cases[i].n, cases[i].near, cases[i].far, cases[i].w);
        opt.max_moves = cases[i].moves;
        opt.spatial = cases[i].spatial;
        opt.seed = (uint64_t)cases[i].seed;
        lac_compare(ctx_seq, ctx_batch, kind, cases[i].name, l, &opt);
        tsr_layout_free(ctx_seq, l);
    }
    opt.spatial = 1;
    opt.init = TSR_LAYOUT_INIT_AUTO;
    opt.max_moves = contest_moves;
    for (int i = 0; i < ncontest; i++) {
        char rel[96], name[32];
        snprintf(rel, sizeof rel, "graphs/gd2025-contest/Automatic-%d.json", contest[i]);
        snprintf(name, sizeof name, "contest A%d", contest[i]);
        const char *path = tsr_test_data(rel);
        if (!path)
            continue;
        tsr_layout *l;
        CHECK_OK(ctx_seq, tsr_layout_read(ctx_seq, path, &l));
        opt.seed = 2;
        lac_compare(ctx_seq, ctx_batch, kind, name, l, &opt);
        tsr_layout_free(ctx_seq, l);
    }
    /* every path of the walk ran: proposals decided from the evaluator's results in both phases,
     * proposals discarded after a stop, restarts (the evaluator reloaded) */
    CHECK(lac_cases >= 6 && lac_total.decided > 0 && lac_total.phase2 > 0 &&
          lac_total.discarded > 0 && lac_restarts > 0);
    printf("all cases: %llu calls, %llu scored, %llu decided, %llu discarded, %llu restarts\n",
           (unsigned long long)lac_total.calls, (unsigned long long)lac_total.scored,
           (unsigned long long)lac_total.decided, (unsigned long long)lac_total.discarded,
           (unsigned long long)lac_restarts);
}

#endif
