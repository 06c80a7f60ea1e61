/* The optimizer's chains (anneal_team.c) on the CPU backend: N chains are N one-chain runs
 * (chain i = seed + i * TSR_LAYOUT_CHAIN_SEED_STEP from the same start, with the phase-1 share
 * of its parity) whose best drawing is
 * kept, lowest chain first among equal scores; deterministic, with sync points too; the batch
 * walk under chains (and syncs) gives the sequential walk's drawing; periodic saves are whole,
 * valid drawings no better than the best reported; a stop request keeps the best drawing, also
 * with chains waiting at sync points; every allocation failing in turn is reported (never a
 * crash, a hang or a leak under ASan); bad chain counts, sync shares and phase-1 shares are
 * refused; the backend is chosen by layout_api.c's rule. */
#include "testlib.h"

#include "layout_anneal_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static tsr_ctx *cpu_ctx(const tsr_allocator *alloc)
{
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_CPU;
    if (alloc)
        o.allocator = *alloc;
    tsr_ctx *ctx = NULL;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK) {
        fprintf(stderr, "test_layout_chains: no CPU context\n");
        exit(1);
    }
    return ctx;
}

static int same_drawing(const tsr_layout *a, const tsr_layout *b)
{
    size_t n = (size_t)a->num_nodes;
    return memcmp(a->x, b->x, n * sizeof *a->x) == 0 && memcmp(a->y, b->y, n * sizeof *a->y) == 0;
}

/* The drawing is valid and scores s. */
static void check_drawing(tsr_ctx *ctx, const tsr_layout *l, const tsr_layout_score *s)
{
    tsr_layout_score e;
    size_t bad = 1;
    CHECK_OK(ctx, tsr_layout_evaluate(ctx, l, &e, NULL));
    CHECK(tsr_layout_score_compare(&e, s) == 0);
    CHECK_OK(ctx, tsr_layout_check(ctx, l, NULL, 0, &bad));
    CHECK(bad == 0);
}

/* N chains against N one-chain runs with the chains' seeds, from the same (kept) start. */
static void test_chains_are_runs(tsr_ctx *ctx, tsr_rng *r)
{
    enum { N = 4 };
    tsr_layout *l = lac_random(ctx, r, 50, 1, 2, 300);
    tsr_layout_optimize_options opt;
    tsr_layout_optimize_options_init(&opt);
    opt.time_limit = 0;
    opt.max_moves = 15000;
    opt.init = TSR_LAYOUT_INIT_KEEP;
    tsr_layout *one[N], *all, *again;
    tsr_layout_optimize_result r1[N], rn, rn2;
    uint64_t moves = 0;
    int want = 0;
    const double even = opt.phase1_fraction, odd = opt.phase1_fraction_odd;
    for (int i = 0; i < N; i++) {
        CHECK_OK(ctx, tsr_layout_clone(ctx, l, &one[i]));
        opt.seed = 11 + (uint64_t)i * TSR_LAYOUT_CHAIN_SEED_STEP;
        opt.phase1_fraction = i % 2 ? odd : even; /* a one-chain run is chain 0: even */
        opt.chains = 1;
        CHECK_OK(ctx, tsr_layout_optimize(ctx, one[i], &opt, &r1[i]));
        CHECK(r1[i].chains == 1 && r1[i].best_chain == 0);
        moves += r1[i].moves;
        if (tsr_layout_score_compare(&r1[i].best, &r1[want].best) < 0)
            want = i;
    }
    opt.seed = 11;
    opt.chains = N;
    opt.phase1_fraction = even;
    CHECK_OK(ctx, tsr_layout_clone(ctx, l, &all));
    CHECK_OK(ctx, tsr_layout_clone(ctx, l, &again));
    memset(&rn, 0xA5, sizeof rn);
    CHECK_OK(ctx, tsr_layout_optimize(ctx, all, &opt, &rn));
    CHECK_OK(ctx, tsr_layout_optimize(ctx, again, &opt, &rn2));
    CHECK(rn.chains == N && rn.best_chain == want && rn.moves == moves);
    CHECK(tsr_layout_score_compare(&rn.best, &r1[want].best) == 0);
    CHECK(tsr_layout_score_compare(&rn.initial, &r1[0].initial) == 0);
    CHECK(same_drawing(all, one[want]));
    CHECK(same_drawing(all, again) && rn2.best_chain == rn.best_chain);
    check_drawing(ctx, all, &rn.best);
    printf("4 chains: K %lld %lld %lld %lld -> kept chain %d (K %lld)\n", (long long)r1[0].best.K,
           (long long)r1[1].best.K, (long long)r1[2].best.K, (long long)r1[3].best.K, rn.best_chain,
           (long long)rn.best.K);
    /* equal scores: the lowest chain wins (a 4-cycle drawn without crossings, kept as is) */
    tsr_layout *c;
    CHECK_OK(ctx, tsr_layout_alloc(ctx, 4, 4, &c));
    c->width = c->height = 10;
    c->has_coordinates = 1;
    static const int32_t cx[4] = {0, 10, 10, 0}, cy[4] = {0, 0, 10, 10};
    for (int i = 0; i < 4; i++) {
        c->x[i] = cx[i];
        c->y[i] = cy[i];
        c->edge_u[i] = i;
        c->edge_v[i] = (i + 1) % 4;
    }
    opt.chains = 3;
    CHECK_OK(ctx, tsr_layout_optimize(ctx, c, &opt, &rn));
    CHECK(rn.best_chain == 0 && rn.best.K == 0 && memcmp(c->x, cx, sizeof cx) == 0);
    tsr_layout_free(ctx, c);
    /* sync points: deterministic, valid, and a different walk from the independent chains' */
    opt.chains = N;
    opt.sync_every = 0.15;
    tsr_layout *s1, *s2;
    CHECK_OK(ctx, tsr_layout_clone(ctx, l, &s1));
    CHECK_OK(ctx, tsr_layout_clone(ctx, l, &s2));
    CHECK_OK(ctx, tsr_layout_optimize(ctx, s1, &opt, &rn));
    CHECK_OK(ctx, tsr_layout_optimize(ctx, s2, &opt, &rn2));
    CHECK(same_drawing(s1, s2) && rn.best_chain == rn2.best_chain && rn.moves == moves);
    CHECK(!same_drawing(s1, all));
    check_drawing(ctx, s1, &rn.best);
    printf("4 chains with syncs at 40/55/70/85%%: K %lld (chain %d)\n", (long long)rn.best.K,
           rn.best_chain);
    opt.chains = 1; /* one chain: restarts from its own best at the sync points */
    CHECK_OK(ctx, tsr_layout_optimize(ctx, s2, &opt, &rn2));
    check_drawing(ctx, s2, &rn2.best);
    tsr_layout_free(ctx, s1);
    tsr_layout_free(ctx, s2);
    for (int i = 0; i < N; i++)
        tsr_layout_free(ctx, one[i]);
    tsr_layout_free(ctx, all);
    tsr_layout_free(ctx, again);
    tsr_layout_free(ctx, l);
}

/* The progress callback's view: the saved file is a whole valid drawing of the graph, no better
 * than the best reported so far. */
typedef struct watch {
    tsr_ctx *ctx;
    const char *path;
    int calls, files, stop_after;
    int last_chain, chains;
    int startup_calls, stop_in_startup; /* phase-0 calls; nonzero: stop at the first */
} watch;

static int on_progress(void *user, const tsr_layout_progress *p)
{
    watch *w = user;
    if (p->phase == 0) { /* start-up: no chain, no drawing saved yet */
        CHECK(p->chain == -1 && p->chains == 0 && p->moves == 0);
        w->startup_calls++;
        return w->stop_in_startup;
    }
    w->calls++;
    w->last_chain = p->chain;
    w->chains = p->chains;
    CHECK(p->chain >= 0 && p->chain < p->chains);
    tsr_layout *f = NULL;
    if (access(w->path, F_OK) == 0) {
        CHECK_OK(w->ctx, tsr_layout_read(w->ctx, w->path, &f));
        if (f) {
            tsr_layout_score s;
            size_t bad = 1;
            CHECK_OK(w->ctx, tsr_layout_evaluate(w->ctx, f, &s, NULL));
            CHECK_OK(w->ctx, tsr_layout_check(w->ctx, f, NULL, 0, &bad));
            CHECK(bad == 0 && tsr_layout_score_compare(&p->best, &s) <= 0);
            w->files++;
            tsr_layout_free(w->ctx, f);
        }
    }
    return w->stop_after && w->calls >= w->stop_after;
}

static void test_saves_and_stop(tsr_ctx *ctx, tsr_rng *r)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/tsr_chains_%d.json", (int)getpid());
    remove(path);
    tsr_layout *l = lac_random(ctx, r, 150, 2, 1, 100000), *back;
    tsr_layout *l2;
    CHECK_OK(ctx, tsr_layout_clone(ctx, l, &l2));
    tsr_layout_optimize_options opt;
    tsr_layout_optimize_options_init(&opt);
    opt.time_limit = 0;
    opt.max_moves = 30000;
    opt.chains = 3;
    opt.save_path = path;
    opt.save_interval = 0.002;
    opt.progress_interval = 0.002;
    watch w = {ctx, path, 0, 0, 0, -1, 0, 0, 0};
    opt.progress = on_progress;
    opt.progress_user = &w;
    tsr_layout_optimize_result res;
    CHECK_OK(ctx, tsr_layout_optimize(ctx, l, &opt, &res));
    CHECK(w.calls > 0 && w.chains == 3);
    check_drawing(ctx, l, &res.best);
    CHECK_OK(ctx, tsr_layout_read(ctx, path, &back));
    CHECK(same_drawing(l, back)); /* the last save is the result */
    tsr_layout_free(ctx, back);
    printf("saves: %d progress calls, %d saved files read back, kept chain %d (K %lld)\n", w.calls,
           w.files, res.best_chain, (long long)res.best.K);
    /* a stop request: TSR_ERR_INTERRUPTED, the best valid drawing kept and saved (sync points
     * every 1% of 60 s: chains wait there for each other and must still stop) */
    remove(path);
    opt.sync_every = 0.01;
    watch s = {ctx, path, 0, 0, 2, -1, 0, 0, 0};
    opt.progress_user = &s;
    opt.max_moves = 0;
    opt.time_limit = 60;
    memset(&res, 0, sizeof res);
    CHECK_STATUS(tsr_layout_optimize(ctx, l2, &opt, &res), TSR_ERR_INTERRUPTED);
    CHECK(res.seconds < 30 && res.chains == 3);
    check_drawing(ctx, l2, &res.best);
    CHECK_OK(ctx, tsr_layout_read(ctx, path, &back));
    CHECK(same_drawing(l2, back));
    tsr_layout_free(ctx, back);
    remove(path);
    /* a stop request in start-up (asked with phase 0 before any chain exists): the start drawing
     * (valid) kept and saved, no move made */
    watch u = {ctx, path, 0, 0, 0, -1, 0, 0, 1};
    opt.progress_user = &u;
    opt.progress_interval = 0; /* asked at the first poll */
    memset(&res, 0, sizeof res);
    CHECK_STATUS(tsr_layout_optimize(ctx, l2, &opt, &res), TSR_ERR_INTERRUPTED);
    CHECK(u.startup_calls == 1 && u.calls == 0 && res.startup_only && res.valid && res.moves == 0 &&
          res.chains == 0);
    size_t bad = 1;
    CHECK_OK(ctx, tsr_layout_check(ctx, l2, NULL, 0, &bad));
    CHECK(bad == 0);
    CHECK_OK(ctx, tsr_layout_read(ctx, path, &back));
    CHECK(same_drawing(l2, back));
    tsr_layout_free(ctx, back);
    remove(path);
    tsr_layout_free(ctx, l2);
    tsr_layout_free(ctx, l);
}

/* An allocator that fails the fail_at-th allocation (counting from 1; 0 never). The team's lock
 * serialises the chains' calls; the count is atomic all the same. */
typedef struct faulty {
    int count, fail_at, failed;
} faulty;

static void *faulty_alloc(void *user, size_t size, size_t align)
{
    faulty *f = user;
    int k = __atomic_add_fetch(&f->count, 1, __ATOMIC_SEQ_CST);
    if (k == f->fail_at) {
        f->failed = 1;
        return NULL;
    }
    return aligned_alloc(align, (size + align) / align * align);
}

static void faulty_free(void *user, void *p)
{
    (void)user;
    free(p);
}

static void test_allocation_failures(tsr_rng *r)
{
    tsr_ctx *plain = cpu_ctx(NULL);
    tsr_layout *l = lac_random(plain, r, 30, 1, 1, 200);
    faulty f = {0, 0, 0};
    tsr_allocator a = {faulty_alloc, faulty_free, &f};
    tsr_layout_optimize_options opt;
    tsr_layout_optimize_options_init(&opt);
    opt.time_limit = 0;
    opt.max_moves = 3000;
    opt.chains = 3;
    opt.sync_every = 0.3;
    opt.init = TSR_LAYOUT_INIT_STRESS;
    int failures = 0, k;
    for (k = 1; k < 10000; k++) {
        f.fail_at = 0;
        tsr_ctx *ctx = cpu_ctx(&a);
        f.count = 0; /* count the optimizer's allocations only */
        f.fail_at = k;
        f.failed = 0;
        tsr_layout *c;
        CHECK_OK(plain, tsr_layout_clone(plain, l, &c));
        tsr_layout_optimize_result res;
        tsr_status st = tsr_layout_optimize(ctx, c, &opt, &res);
        if (!f.failed) { /* every allocation tried: the run went through */
            CHECK_OK(ctx, st);
            tsr_layout_free(plain, c);
            tsr_ctx_destroy(ctx);
            break;
        }
        CHECK(st == TSR_ERR_OUT_OF_MEMORY && tsr_ctx_last_error(ctx)[0] != '\0');
        if (st != TSR_ERR_OUT_OF_MEMORY)
            fprintf(stderr, "allocation %d failed: %s: %s\n", k, tsr_status_name(st),
                    tsr_ctx_last_error(ctx));
        failures++;
        tsr_layout_free(plain, c);
        tsr_ctx_destroy(ctx);
    }
    CHECK(failures > 10 && k < 10000);
    printf("allocation failures: %d runs failed cleanly\n", failures);
    tsr_layout_free(plain, l);
    tsr_ctx_destroy(plain);
}

/* The backend choice (layout_api.c): one count under auto on the CPU; the optimizer under auto on
 * the CPU for a sparse graph and, for a dense one (mean degree >= 8, degree x edges >= 20,000), on
 * CUDA where a GPU can be used, else on the CPU, saying why; an explicit backend as asked. */
static void test_backend_choice(tsr_rng *r)
{
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.threads = 2;
    tsr_ctx *ctx = NULL, *ref = NULL;
    CHECK(tsr_ctx_create(&o, &ctx) == TSR_OK);
    o.backend = TSR_BACKEND_REFERENCE;
    CHECK(tsr_ctx_create(&o, &ref) == TSR_OK);
    tsr_layout *sparse = lac_random(ctx, r, 40, 1, 0, 1000);
    tsr_layout *dense = lac_random(ctx, r, 100, 0, 12, 1000000);
    const double degree = 2.0 * dense->num_edges / dense->num_nodes;
    CHECK(degree >= 8 && degree * dense->num_edges >= 20000); /* the premise */
    tsr_layout_optimize_options opt;
    tsr_layout_optimize_options_init(&opt);
    opt.time_limit = 0;
    opt.max_moves = 200;
    opt.init = TSR_LAYOUT_INIT_KEEP;
    opt.chains = 1;
    tsr_layout_score s;
    CHECK_OK(ctx, tsr_layout_evaluate(ctx, dense, &s, NULL));
    CHECK(tsr_ctx_backend(ctx) == TSR_BACKEND_CPU);
    CHECK_OK(ctx, tsr_layout_optimize(ctx, sparse, &opt, NULL));
    CHECK(tsr_ctx_backend(ctx) == TSR_BACKEND_CPU &&
          strstr(tsr_ctx_backend_reason(ctx), "sparse") != NULL);
    CHECK_OK(ctx, tsr_layout_optimize(ctx, dense, &opt, NULL));
    if (tsr_backend_available(TSR_BACKEND_CUDA))
        CHECK(tsr_ctx_backend(ctx) == TSR_BACKEND_CUDA);
    else
        CHECK(tsr_ctx_backend(ctx) == TSR_BACKEND_CPU &&
              strstr(tsr_ctx_backend_reason(ctx), "no usable CUDA device") != NULL);
    CHECK_OK(ref, tsr_layout_optimize(ref, dense, &opt, NULL));
    CHECK(tsr_ctx_backend(ref) == TSR_BACKEND_REFERENCE &&
          strcmp(tsr_ctx_backend_reason(ref), "asked for") == 0);
    tsr_layout_free(ctx, sparse);
    tsr_layout_free(ctx, dense);
    tsr_ctx_destroy(ref);
    tsr_ctx_destroy(ctx);
}

int main(void)
{
    (void)lac_run_all; /* the header's case list: test_layout_anneal_batch runs it */
    tsr_ctx *ctx = cpu_ctx(NULL);
    tsr_rng r;
    tsr_rng_seed(&r, 41);
    test_chains_are_runs(ctx, &r);
    test_saves_and_stop(ctx, &r);
    /* the batch walk in every chain: the sequential walk's drawings */
    tsr_layout *l = lac_random(ctx, &r, 120, 2, 1, 1000000);
    tsr_layout_optimize_options opt;
    tsr_layout_optimize_options_init(&opt);
    opt.time_limit = 0;
    opt.max_moves = 8000;
    opt.init = TSR_LAYOUT_INIT_KEEP;
    opt.chains = 3;
    lac_compare(ctx, ctx, TSR__BATCH_CPU, "3 chains, batch walk", l, &opt);
    opt.sync_every = 0.2;
    lac_compare(ctx, ctx, TSR__BATCH_CPU, "3 chains, syncs, batch", l, &opt);
    opt.sync_every = 0;
    tsr_layout_free(ctx, l);
    /* chain counts out of range */
    tsr_layout *k = lac_random(ctx, &r, 10, 1, 0, 100);
    tsr_layout_optimize_result res;
    opt.chains = -1;
    CHECK_STATUS(tsr_layout_optimize(ctx, k, &opt, &res), TSR_ERR_INVALID_ARGUMENT);
    opt.chains = TSR_LAYOUT_MAX_CHAINS + 1;
    CHECK_STATUS(tsr_layout_optimize(ctx, k, &opt, &res), TSR_ERR_INVALID_ARGUMENT);
    opt.chains = 2;
    opt.gpu_chains = -1;
    CHECK_STATUS(tsr_layout_optimize(ctx, k, &opt, &res), TSR_ERR_INVALID_ARGUMENT);
    opt.gpu_chains = TSR_LAYOUT_MAX_CHAINS + 1;
    CHECK_STATUS(tsr_layout_optimize(ctx, k, &opt, &res), TSR_ERR_INVALID_ARGUMENT);
    opt.gpu_chains = 0;
    static const double bad_sync[] = {-0.1, 0.005, 1, 2};
    for (int i = 0; i < 4; i++) {
        opt.sync_every = bad_sync[i];
        CHECK_STATUS(tsr_layout_optimize(ctx, k, &opt, &res), TSR_ERR_INVALID_ARGUMENT);
    }
    opt.sync_every = 0;
    static const double bad_share[] = {-0.01, 1.01};
    for (int i = 0; i < 2; i++) {
        opt.phase1_fraction_odd = bad_share[i];
        CHECK_STATUS(tsr_layout_optimize(ctx, k, &opt, &res), TSR_ERR_INVALID_ARGUMENT);
    }
    tsr_layout_free(ctx, k);
    test_allocation_failures(&r);
    test_backend_choice(&r);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("layout_chains");
}
