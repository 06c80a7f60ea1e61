/* The optimizer (tessera/layout.h, tsr_layout_optimize): the start drawing (init.c), then N
 * annealing chains (anneal.c), each on its own thread with its own copy of the drawing, evaluator
 * state, random stream and context, while the calling thread coordinates: progress, periodic saves
 * of the best drawing over the chains, stop requests. The chains share nothing but the start
 * drawing and never read each other's state, so a chain's trajectory depends only on its seed
 * (and, with a move budget, not on timing); the best drawing over the chains is kept, the lowest
 * chain index winning among equal scores, so the result is the same however the threads run.
 *
 * A chain publishes its state to the coordinator after every group of proposals (under the team's
 * lock) and copies its best drawing out when asked (to save it); it never waits otherwise, except
 * at the sync points of opt->sync_every ("go with the winners"): a barrier of the chains still
 * running, where the last to arrive (or to finish) copies the best drawing over the chains and
 * every waiting chain then restarts from it. The sync points are budget shares, so with a move
 * budget every chain reaches them after the same moves and the run stays deterministic.
 *
 * A chain has a context of its own, made from the caller's options (never a copy of the caller's
 * context: its device and kept states stay the caller's), so its failure message is its own (a
 * failure is reported with the lowest failing chain's message); it has a share of the CPU threads
 * (for its evaluator's full count) and the caller's allocator behind a lock, since that allocator
 * need not be thread-safe. The chains report to the coordinator through the annealer's group_end
 * callback (anneal.c knows nothing of the team).
 *
 * The CUDA batch walk: the first opt->gpu_chains chains (all by default) hold a CUDA evaluator
 * each, on the device facts read once from the caller's context (tsr__layout_cuda_device), with
 * its own buffers, mapped result words and stream, so their launches and waits run side by side
 * on the one device; the others take the sequential walk on the CPU. Since the
 * batch walk's trajectory is the sequential walk's, a run gives the same drawing either way. */
#include "layout/anneal_internal.h"

#include <math.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

typedef struct tsr__team tsr__team;

/* What a chain publishes (under the team's lock) for the coordinator. */
typedef struct tsr__chain_state {
    int ready; /* init done: the best drawing and scores are meaningful */
    int done;  /* the chain's thread has finished its work; st is its status */
    tsr_status st;
    tsr_layout_score initial, best, current;
    int phase;
    double temperature;
    uint64_t moves, accepted;
} tsr__chain_state;

typedef struct tsr__chain {
    tsr__annealer a; /* the chain's own (the coordinator reads it only once the chain is done) */
    tsr_ctx *ctx;    /* the chain's own context (see the top) */
    tsr__team *team;
    int index;     /* the chain's place in team->c */
    tsr_layout *l; /* its drawing */
    uint64_t seed;
    tsr__batch_kind kind;
    pthread_t thread;
    int started; /* the thread was created (and is to be joined) */
    tsr__chain_state pub;
} tsr__chain;

struct tsr__team {
    pthread_mutex_t lock;
    pthread_cond_t cond; /* a chain finished, or delivered a snapshot */
    int stop;            /* every chain stops after its current group */
    int snap_chain;      /* the chain asked for its best drawing, -1 when none */
    int snap_ready;
    int32_t *snap_x, *snap_y;
    pthread_mutex_t alloc_lock;
    tsr_allocator alloc; /* the caller's */
    tsr__chain *c;
    int n;
    /* sync points: budget shares, ascending; a barrier of `active` chains (those not done) */
    double *sync;
    int nsync, arrived, active, generation;
    int32_t *sync_x, *sync_y, *sync_count; /* the best drawing at the last barrier */
    tsr_layout_score sync_score;
};

static void *locked_alloc(void *user, size_t size, size_t align)
{
    tsr__team *t = user;
    pthread_mutex_lock(&t->alloc_lock);
    void *p = t->alloc.alloc(t->alloc.user, size, align);
    pthread_mutex_unlock(&t->alloc_lock);
    return p;
}

static void locked_free(void *user, void *ptr)
{
    tsr__team *t = user;
    pthread_mutex_lock(&t->alloc_lock);
    t->alloc.free(t->alloc.user, ptr);
    pthread_mutex_unlock(&t->alloc_lock);
}

/* Chain i's seed (tessera/layout.h): the seeding (rng.c) adds the splitmix64 gamma
 * 0x9E3779B97F4A7C15 once per state word, so 4 x gamma per chain gives each chain the
 * splitmix64 outputs after those of the chain before. */
_Static_assert(TSR_LAYOUT_CHAIN_SEED_STEP == 4 * 0x9E3779B97F4A7C15ull, "seed step is 4 gammas");
static uint64_t chain_seed(uint64_t seed, int i)
{
    return seed + (uint64_t)i * TSR_LAYOUT_CHAIN_SEED_STEP;
}

/* Under the lock. */
static void publish(tsr__chain *c)
{
    const tsr__annealer *a = &c->a;
    c->pub.best = a->best;
    c->pub.current = a->inc.score;
    c->pub.phase = a->phase;
    c->pub.temperature = a->temperature;
    c->pub.moves = a->moves;
    c->pub.accepted = a->accepted;
}

/* Under the lock: the chain's best drawing into the snapshot, and tells the coordinator. */
static void take_snapshot(tsr__team *t, const tsr__annealer *a)
{
    const int32_t *x, *y;
    tsr__anneal_best_coords(a, &x, &y);
    memcpy(t->snap_x, x, (size_t)a->l->num_nodes * sizeof *x);
    memcpy(t->snap_y, y, (size_t)a->l->num_nodes * sizeof *y);
    t->snap_ready = 1;
    pthread_cond_broadcast(&t->cond);
}

static int best_chain(const tsr__team *t);

/* Under the lock, when every active chain has arrived at the barrier (or finished): the best
 * drawing over the chains (all are at rest: waiting there, done, or the caller) into sync_*,
 * then releases the waiting chains. */
static void complete_barrier(tsr__team *t)
{
    const tsr__annealer *w = &t->c[best_chain(t)].a;
    const int32_t *x, *y;
    tsr__anneal_best_coords(w, &x, &y);
    memcpy(t->sync_x, x, (size_t)w->l->num_nodes * sizeof *x);
    memcpy(t->sync_y, y, (size_t)w->l->num_nodes * sizeof *y);
    memcpy(t->sync_count, tsr__anneal_best_counts(w), (size_t)w->l->num_edges * sizeof(int32_t));
    t->sync_score = w->best;
    t->arrived = 0;
    t->generation++;
    pthread_cond_broadcast(&t->cond);
}

/* Under the lock: stops every chain (waiting ones included). */
static void stop_all(tsr__team *t)
{
    t->stop = 1;
    pthread_cond_broadcast(&t->cond);
}

/* The chains' group-end callback (tsr__annealer.group_end, user = the tsr__chain): publishes
 * the chain's state to the coordinator, serves its requests and, at a sync point, waits for the
 * other chains and adopts the best drawing (a failure there in *st); nonzero: stop. */
static int group_end(void *user, tsr__annealer *a, double frac, tsr_status *st)
{
    tsr__chain *c = user;
    tsr__team *t = c->team;
    pthread_mutex_lock(&t->lock);
    publish(c);
    if (t->snap_chain == c->index && !t->snap_ready)
        take_snapshot(t, a);
    int stop = t->stop, adopt = 0;
    if (!stop && a->synced < t->nsync && frac >= t->sync[a->synced]) {
        const int gen = t->generation;
        a->synced++;
        if (++t->arrived == t->active)
            complete_barrier(t);
        while (t->generation == gen && !t->stop) {
            if (t->snap_chain == c->index && !t->snap_ready)
                take_snapshot(t, a);
            pthread_cond_wait(&t->cond, &t->lock);
        }
        stop = t->stop;
        adopt = !stop;
    }
    pthread_mutex_unlock(&t->lock);
    /* sync_* stay until every chain has arrived at the next barrier, this one included */
    if (adopt)
        *st = tsr__anneal_adopt(a, t->sync_x, t->sync_y, t->sync_count, &t->sync_score);
    return stop;
}

static void *chain_main(void *arg)
{
    tsr__chain *c = arg;
    tsr__team *t = c->team;
    tsr_status st = tsr__anneal_init(&c->a, c->l, c->seed, c->kind);
    pthread_mutex_lock(&t->lock);
    c->pub.ready = st == TSR_OK;
    c->pub.initial = c->a.inc.score;
    publish(c);
    pthread_cond_broadcast(&t->cond);
    const int stop = t->stop;
    pthread_mutex_unlock(&t->lock);
    if (st == TSR_OK && !stop)
        st = tsr__anneal_run(&c->a);
    pthread_mutex_lock(&t->lock);
    publish(c);
    c->pub.st = st;
    c->pub.done = 1;
    t->active--;
    if (st != TSR_OK) /* its drawing may be half updated: no sync point may hand it on */
        stop_all(t);
    else if (!t->stop && t->active > 0 && t->arrived == t->active)
        complete_barrier(t); /* the others were waiting for this chain only */
    /* (once stopped, no barrier completes: `arrived` still counts chains that left the last one
     * on the stop, and a chain may still be adopting from sync_*) */
    pthread_cond_broadcast(&t->cond);
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

/* Under the lock: the ready chain with the best published score (lowest index among equals), or
 * -1 when none is ready. */
static int best_chain(const tsr__team *t)
{
    int b = -1;
    for (int i = 0; i < t->n; i++)
        if (t->c[i].pub.ready &&
            (b < 0 || tsr_layout_score_compare(&t->c[i].pub.best, &t->c[b].pub.best) < 0))
            b = i;
    return b;
}

/* The coordinator's state. */
typedef struct tsr__coord {
    tsr_ctx *ctx;
    const tsr_layout_optimize_options *opt;
    tsr__team *t;
    tsr_layout *out; /* clone for writing snapshots (when a save path is set) */
    double t0, last_save, last_progress;
    uint64_t last_progress_moves;
    tsr__watch *watch; /* start-up's: asked while every chain is still setting up */
    int saved;         /* a snapshot was written */
    tsr_layout_score saved_score;
} tsr__coord;

/* Calls the progress callback (or the context's) with chain b's state and the totals; returns
 * nonzero when it asks to stop. Under no lock. */
static int report(tsr__coord *co, int b, const tsr__chain_state *bs, uint64_t moves,
                  uint64_t accepted, double elapsed, const char *note)
{
    const tsr_layout_optimize_options *opt = co->opt;
    double dt = elapsed - co->last_progress;
    tsr_layout_progress p;
    memset(&p, 0, sizeof p);
    p.elapsed = elapsed;
    p.time_limit = opt->time_limit;
    p.phase = bs->phase;
    p.current = bs->current;
    p.best = bs->best;
    p.temperature = bs->temperature;
    p.moves_per_second = dt > 0 ? (double)(moves - co->last_progress_moves) / dt : 0;
    p.moves = moves;
    p.accepted = accepted;
    p.note = note;
    p.chain = b;
    p.chains = co->t->n;
    if (!note) {
        co->last_progress = elapsed;
        co->last_progress_moves = moves;
    }
    if (opt->progress)
        return opt->progress(opt->progress_user, &p);
    return tsr__progress(co->ctx, "layout", elapsed, opt->time_limit) != TSR_OK;
}

/* Writes the drawing in co->out to the save and checkpoint paths. */
static tsr_status write_out(tsr__coord *co)
{
    const tsr_layout_optimize_options *opt = co->opt;
    tsr_status st = TSR_OK;
    if (opt->save_path)
        st = tsr_layout_write_json(co->ctx, co->out, opt->save_path);
    if (st == TSR_OK && opt->checkpoint_path)
        st = tsr_layout_write_json(co->ctx, co->out, opt->checkpoint_path);
    co->saved = 1;
    co->last_save = tsr__layout_now();
    return st;
}

/* Saves chain b's best drawing now: asks it for a snapshot (taken after its current group, or
 * at once when it has finished) and writes it. */
static tsr_status save_chain(tsr__coord *co, int b)
{
    tsr__team *t = co->t;
    size_t n = (size_t)co->out->num_nodes;
    pthread_mutex_lock(&t->lock);
    t->snap_chain = b;
    t->snap_ready = 0;
    pthread_cond_broadcast(&t->cond); /* a chain waiting at a sync point serves it there */
    while (!t->snap_ready) {
        if (t->c[b].pub.done)
            take_snapshot(t, &t->c[b].a);
        else
            pthread_cond_wait(&t->cond, &t->lock);
    }
    t->snap_chain = -1;
    co->saved_score = t->c[b].pub.best; /* published with the snapshot */
    memcpy(co->out->x, t->snap_x, n * sizeof *t->snap_x);
    memcpy(co->out->y, t->snap_y, n * sizeof *t->snap_y);
    pthread_mutex_unlock(&t->lock);
    return write_out(co);
}

/* Runs until every chain is done: progress every progress_interval, a save of the best drawing
 * every save_interval when it improved, and the stop request (callback, or a failed chain)
 * passed to the chains. Returns the status of a failed save (the chains are then stopped) and
 * sets *interrupted when the callback asked to stop. */
static tsr_status coordinate(tsr__coord *co, int *interrupted)
{
    const tsr_layout_optimize_options *opt = co->opt;
    tsr__team *t = co->t;
    tsr_status st = TSR_OK;
    int noted_phase2 = 0;
    const double tick = opt->progress_interval > 1e-3 ? opt->progress_interval : 1e-3;
    for (;;) {
        double wake = co->t0 + co->last_progress + tick;
        if ((opt->save_path || opt->checkpoint_path) && co->last_save + opt->save_interval < wake)
            wake = co->last_save + opt->save_interval;
        struct timespec ts;
        ts.tv_sec = (time_t)wake;
        ts.tv_nsec = (long)((wake - (double)ts.tv_sec) * 1e9);
        if (ts.tv_nsec >= 1000000000L)
            ts.tv_nsec = 999999999L;
        pthread_mutex_lock(&t->lock);
        int all_done, failed, b;
        for (;;) {
            all_done = 1;
            failed = 0;
            for (int i = 0; i < t->n; i++) {
                all_done &= t->c[i].pub.done;
                failed |= t->c[i].pub.done && t->c[i].pub.st != TSR_OK;
            }
            b = best_chain(t);
            if (all_done || failed || *interrupted || st != TSR_OK)
                break;
            if (tsr__layout_now() < wake)
                pthread_cond_timedwait(&t->cond, &t->lock, &ts);
            else
                break;
        }
        if (failed)
            stop_all(t);
        uint64_t moves = 0, accepted = 0;
        int phase2 = 0;
        for (int i = 0; i < t->n; i++) {
            moves += t->c[i].pub.moves;
            accepted += t->c[i].pub.accepted;
            phase2 |= t->c[i].pub.ready && t->c[i].pub.phase == 2;
        }
        tsr__chain_state bs;
        if (b >= 0)
            bs = t->c[b].pub;
        pthread_mutex_unlock(&t->lock);
        if (all_done || failed || st != TSR_OK || *interrupted)
            return st;
        const double now = tsr__layout_now(), elapsed = now - co->t0;
        int stop = 0;
        if (b < 0) { /* every chain still setting up: start-up's watch asks the callback */
            co->last_progress = elapsed;
            stop = tsr__watch_poll(co->watch) == TSR__STOP_REQUEST;
            if (stop) {
                *interrupted = 1;
                pthread_mutex_lock(&t->lock);
                stop_all(t);
                pthread_mutex_unlock(&t->lock);
            }
            continue;
        }
        if (phase2 && !noted_phase2) {
            noted_phase2 = 1;
            stop = report(co, b, &bs, moves, accepted, elapsed, "phase 2: minimising k");
        }
        if (!stop && elapsed - co->last_progress >= opt->progress_interval)
            stop = report(co, b, &bs, moves, accepted, elapsed, NULL);
        if (!stop && co->out && now - co->last_save >= opt->save_interval &&
            (!co->saved || tsr_layout_score_compare(&bs.best, &co->saved_score) < 0))
            st = save_chain(co, b);
        if (stop || st != TSR_OK) {
            *interrupted = stop;
            pthread_mutex_lock(&t->lock);
            stop_all(t);
            pthread_mutex_unlock(&t->lock);
        }
    }
}

/* Sets up chain i of team t on a clone of l (the thread is started by the caller): its own
 * context, made from the caller's options (not a copy of the caller's context, whose device and
 * kept states stay the caller's) with a share of the CPU threads (one per count on the reference
 * backend), the caller's allocator behind the team's lock, and no progress callback. */
static tsr_status chain_setup(tsr_ctx *ctx, tsr__team *t, int i, const tsr_layout *l,
                              const tsr_layout_optimize_options *opt, tsr_backend backend,
                              tsr__batch_kind kind, const tsr__layout_cuda_device *device,
                              double t0, const int32_t *start_counts)
{
    tsr__chain *c = &t->c[i];
    memset(c, 0, sizeof *c);
    tsr_ctx_options o = ctx->opt;
    o.backend = TSR_BACKEND_CPU;
    o.device = 0;
    o.cuda_stream = NULL;
    o.threads = backend == TSR_BACKEND_REFERENCE ? 1
                : ctx->threads / t->n > 1        ? ctx->threads / t->n
                                                 : 1;
    o.allocator.alloc = locked_alloc;
    o.allocator.free = locked_free;
    o.allocator.user = t;
    o.progress = NULL;
    o.progress_user = NULL;
    tsr_status st = tsr_ctx_create(&o, &c->ctx);
    if (st != TSR_OK) {
        tsr_ctx_destroy(c->ctx);
        c->ctx = NULL;
        return tsr__fail(ctx, st, "layout: cannot make chain %d's context", i);
    }
    c->team = t;
    c->index = i;
    c->seed = chain_seed(opt->seed, i);
    c->kind = kind == TSR__BATCH_CUDA && opt->gpu_chains > 0 && i >= opt->gpu_chains
                  ? TSR__BATCH_NONE
                  : kind;
    c->a.ctx = c->ctx;
    c->a.opt = opt;
    c->a.device = device;
    c->a.group_end = group_end;
    c->a.group_user = c;
    c->a.phase1 = i % 2 ? opt->phase1_fraction_odd : opt->phase1_fraction;
    c->a.t0 = t0;
    c->a.start_counts = start_counts;
    return tsr_layout_clone(ctx, l, &c->l);
}

/* The end of a run stopped in start-up (by the time budget or a request), before any chain: the
 * start drawing (valid) kept and saved, or a failure when none exists yet. */
static tsr_status startup_end(tsr_ctx *ctx, const tsr_layout *l,
                              const tsr_layout_optimize_options *opt, const tsr__watch *watch,
                              const tsr__start *start, const int32_t *counts,
                              tsr_layout_optimize_result *res)
{
    const int deadline = watch->stop == TSR__STOP_DEADLINE;
    res->startup_only = 1;
    res->valid = start->valid;
    res->seconds = tsr__layout_now() - watch->t0;
    if (start->counted)
        tsr__score_from_counts(counts, l->num_edges, &res->initial);
    else
        res->initial = (tsr_layout_score){-1, -1, -1, -1};
    res->best = res->initial;
    if (!start->valid) /* the budget waits for one (tsr__watch.need_valid): a request */
        return tsr__fail(ctx, TSR_ERR_INTERRUPTED,
                         "layout: stopped on request before a valid drawing existed; nothing kept");
    tsr_status st = TSR_OK;
    if (opt->save_path)
        st = tsr_layout_write_json(ctx, l, opt->save_path);
    if (st == TSR_OK && opt->checkpoint_path)
        st = tsr_layout_write_json(ctx, l, opt->checkpoint_path);
    if (st == TSR_OK && !deadline)
        st = tsr__fail(ctx, TSR_ERR_INTERRUPTED,
                       "layout: stopped on request in start-up; the start drawing kept");
    return st;
}

tsr_status tsr__anneal_team_run(tsr_ctx *ctx, tsr_layout *l, const tsr_layout_optimize_options *opt,
                                tsr_backend backend, tsr__batch_kind kind,
                                tsr_layout_optimize_result *result, tsr__batch_stats *stats)
{
    if (stats)
        memset(stats, 0, sizeof *stats);
    tsr__layout_cuda_device device;
    memset(&device, 0, sizeof device);
    tsr_status st = TSR_OK;
    if (kind == TSR__BATCH_CUDA && (st = tsr__layout_cuda_device_of(ctx, &device)) != TSR_OK)
        return st;
    tsr__coord co;
    memset(&co, 0, sizeof co);
    co.ctx = ctx;
    co.opt = opt;
    co.t0 = tsr__layout_now();
    co.last_save = co.t0;
    tsr_layout_optimize_result res;
    memset(&res, 0, sizeof res);
    if (result)
        *result = res;
    tsr__watch watch;
    tsr__watch_init(&watch, ctx, opt, co.t0);
    co.watch = &watch;
    const int threads = backend == TSR_BACKEND_REFERENCE ? 1 : ctx->threads;
    int32_t *start_counts = NULL;
    tsr__start start;
    if ((st = tsr__alloc(ctx, (size_t)(l->num_edges ? l->num_edges : 1) * sizeof *start_counts,
                         (void **)&start_counts)) != TSR_OK ||
        (st = tsr__start_layout(ctx, l, opt->init, opt->seed, threads, &watch, start_counts,
                                &start)) != TSR_OK) {
        tsr__free(ctx, start_counts);
        return st;
    }
    if (start.valid && !start.counted &&
        (st = tsr__count_watched(ctx, l, start_counts, threads, &watch)) == TSR_OK)
        start.counted = 1;
    if (st != TSR_OK && watch.stop == TSR__STOP_NONE) {
        tsr__free(ctx, start_counts);
        return st;
    }
    res.repaired = start.repaired;
    if (watch.stop != TSR__STOP_NONE) {
        st = startup_end(ctx, l, opt, &watch, &start, start_counts, &res);
        if (result)
            *result = res;
        tsr__free(ctx, start_counts);
        return st;
    }

    tsr__team t;
    memset(&t, 0, sizeof t);
    t.n = opt->chains ? opt->chains : backend == TSR_BACKEND_REFERENCE ? 1 : ctx->threads;
    t.snap_chain = -1;
    t.alloc = ctx->opt.allocator;
    t.active = t.n;
    const size_t m = l->num_edges ? (size_t)l->num_edges : 1;
    const double phase1_max = fmax(opt->phase1_fraction, opt->phase1_fraction_odd);
    while (opt->sync_every > 0 && 1 - (t.nsync + 1) * opt->sync_every > phase1_max)
        t.nsync++;
    co.t = &t;
    size_t n = (size_t)l->num_nodes;
    if ((st = tsr__alloc(ctx, (size_t)t.n * sizeof *t.c, (void **)&t.c)) != TSR_OK) {
        tsr__free(ctx, start_counts);
        return st;
    }
    memset(t.c, 0, (size_t)t.n * sizeof *t.c);
    pthread_condattr_t ca;
    pthread_mutex_init(&t.lock, NULL);
    pthread_mutex_init(&t.alloc_lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* tsr__layout_now's clock */
    pthread_cond_init(&t.cond, &ca);
    pthread_condattr_destroy(&ca);
    if ((opt->save_path || opt->checkpoint_path) &&
        ((st = tsr_layout_clone(ctx, l, &co.out)) != TSR_OK ||
         (st = tsr__alloc(ctx, (n ? n : 1) * sizeof(int32_t), (void **)&t.snap_x)) != TSR_OK ||
         (st = tsr__alloc(ctx, (n ? n : 1) * sizeof(int32_t), (void **)&t.snap_y)) != TSR_OK))
        goto done;
    if (t.nsync &&
        ((st = tsr__alloc(ctx, (size_t)t.nsync * sizeof *t.sync, (void **)&t.sync)) != TSR_OK ||
         (st = tsr__alloc(ctx, (n ? n : 1) * sizeof(int32_t), (void **)&t.sync_x)) != TSR_OK ||
         (st = tsr__alloc(ctx, (n ? n : 1) * sizeof(int32_t), (void **)&t.sync_y)) != TSR_OK ||
         (st = tsr__alloc(ctx, m * sizeof(int32_t), (void **)&t.sync_count)) != TSR_OK))
        goto done;
    for (int k = 0; k < t.nsync; k++) /* ascending: 1 - nsync * every, ..., 1 - every */
        t.sync[k] = 1 - (t.nsync - k) * opt->sync_every;
    for (int i = 0; i < t.n && st == TSR_OK; i++)
        st = chain_setup(ctx, &t, i, l, opt, backend, kind, &device, co.t0, start_counts);
    for (int i = 0; i < t.n && st == TSR_OK; i++) {
        if (pthread_create(&t.c[i].thread, NULL, chain_main, &t.c[i]) != 0) {
            st = tsr__fail(ctx, TSR_ERR_OUT_OF_MEMORY, "layout: cannot start chain %d's thread", i);
            pthread_mutex_lock(&t.lock);
            t.active -= t.n - i; /* never at a barrier */
            pthread_mutex_unlock(&t.lock);
            break;
        }
        t.c[i].started = 1;
    }
    int interrupted = 0;
    if (st == TSR_OK) {
        st = coordinate(&co, &interrupted);
    } else { /* stop the chains already started */
        pthread_mutex_lock(&t.lock);
        stop_all(&t);
        pthread_mutex_unlock(&t.lock);
    }
    for (int i = 0; i < t.n; i++)
        if (t.c[i].started)
            pthread_join(t.c[i].thread, NULL);
    /* the first failed chain's error, unless the run failed before */
    for (int i = 0; i < t.n && st == TSR_OK; i++)
        if (t.c[i].started && t.c[i].pub.st != TSR_OK) {
            if (t.c[i].ctx->failed)
                tsr__poison(ctx);
            st = tsr__fail(ctx, t.c[i].pub.st, "%s", t.c[i].ctx->message);
        }
    /* the winner's drawing (the best valid one whatever failed) into l */
    const int b = best_chain(&t);
    if (b >= 0) {
        const tsr__annealer *w = &t.c[b].a;
        memcpy(l->x, w->best_x, n * sizeof *l->x);
        memcpy(l->y, w->best_y, n * sizeof *l->y);
    }
    if (st == TSR_OK && co.out && b >= 0) {
        memcpy(co.out->x, l->x, n * sizeof *l->x);
        memcpy(co.out->y, l->y, n * sizeof *l->y);
        st = write_out(&co);
    }
    if (st == TSR_OK && b >= 0) {
        res.initial = t.c[b].pub.initial;
        res.best = t.c[b].pub.best;
        res.chains = t.n;
        res.best_chain = b;
        for (int i = 0; i < t.n; i++) {
            const tsr__annealer *a = &t.c[i].a;
            res.moves += a->moves;
            res.accepted += a->accepted;
            res.restarts += a->restarts;
            res.dense_fallbacks += a->inc.dense_fallbacks;
        }
        res.seconds = tsr__layout_now() - co.t0;
        res.valid = 1;
        if (result)
            *result = res;
        if (interrupted)
            st = tsr__fail(ctx, TSR_ERR_INTERRUPTED,
                           "layout: stopped on request; best drawing kept");
    }
done:
    for (int i = 0; i < t.n; i++) {
        tsr__chain *c = &t.c[i];
        if (c->a.batch && stats) {
            tsr__batch_stats s = tsr__batch_get_stats(c->a.batch);
            stats->calls += s.calls;
            stats->scored += s.scored;
            stats->decided += s.decided;
            stats->phase2 += s.phase2;
            stats->discarded += s.discarded;
        }
        if (c->a.ctx)
            tsr__anneal_release(&c->a);
        tsr_layout_free(ctx, c->l);
        tsr_ctx_destroy(c->ctx);
    }
    pthread_cond_destroy(&t.cond);
    pthread_mutex_destroy(&t.lock);
    pthread_mutex_destroy(&t.alloc_lock);
    tsr__free(ctx, t.c);
    tsr__free(ctx, t.snap_x);
    tsr__free(ctx, t.snap_y);
    tsr__free(ctx, t.sync);
    tsr__free(ctx, t.sync_x);
    tsr__free(ctx, t.sync_y);
    tsr__free(ctx, t.sync_count);
    tsr_layout_free(ctx, co.out);
    tsr__free(ctx, start_counts);
    return st;
}
