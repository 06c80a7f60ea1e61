/* The annealer's batch walk (anneal_internal.h): P proposals scored in one evaluator call against
 * the unchanged base, then decided in order by the sequential walk's own steps; the first
 * accepted one is committed on the evaluator and mirrored into the annealer's incremental state,
 * the rest are discarded. Every proposal of a batch sees the drawing the sequential walk would
 * show it (the base changes only at the accepted one, where the batch ends), and the RNG is
 * rewound to where the sequential walk would be, so both walks make the same drawing.
 *
 * RNG: the sequential walk draws a proposal, then (only for a valid proposal with an uphill,
 * finite energy change at a positive temperature) one uniform for the Metropolis test. Proposals
 * are drawn ahead assuming that every node-valid proposal draws that uniform (true for every one
 * rejected in the usual way; an accepted one ends the batch anyway). The walk restores the state
 * saved after each proposal's own draws before its test, so the test draws the same uniform; it
 * stops where the state after the test differs from the one the next proposal was drawn from
 * (a point on an edge, an infinite energy), and the next batch is drawn from there. */
#include "layout/anneal_internal.h"

#include "core/checked.h"

#include <string.h>

struct tsr__batch_eval {
    tsr__batch_kind kind;
    tsr_layout *copy;    /* CPU kind: the evaluator's own drawing */
    tsr__incr inc;       /* CPU kind: its incremental state */
    tsr__layout_cuda *g; /* CUDA kind */
    const tsr__layout_cuda_device *device;
    int32_t *counts; /* the evaluator's counts after a commit (m entries) */
    tsr__batch_stats stats;
    /* proposals per call: about two per expected acceptance, from the last window's rate */
    int want;
    uint64_t window_walked, window_accepted;
    /* the current batch */
    int32_t node[TSR__BATCH_MAX], px[TSR__BATCH_MAX], py[TSR__BATCH_MAX];
    int32_t slot[TSR__BATCH_MAX]; /* index among the scored proposals, -1: node-invalid */
    tsr__rng after_draw[TSR__BATCH_MAX], after_test[TSR__BATCH_MAX];
    int32_t snode[TSR__BATCH_MAX], spx[TSR__BATCH_MAX], spy[TSR__BATCH_MAX];
    tsr_layout_score score[TSR__BATCH_MAX];
    int64_t dx[TSR__BATCH_MAX]; /* phase 2: each proposal's change of the excess over the target */
    uint8_t invalid[TSR__BATCH_MAX];
};

enum { WANT_MIN = 8, WINDOW = 1024 };

static void release_evaluator(tsr_ctx *ctx, tsr__batch_eval *b)
{
    tsr__incr_release(ctx, &b->inc);
    tsr_layout_free(ctx, b->copy);
    b->copy = NULL;
    tsr__layout_cuda_destroy(ctx, b->g);
    b->g = NULL;
}

static tsr_status load_evaluator(tsr_ctx *ctx, tsr__batch_eval *b, const tsr_layout *l,
                                 const tsr__layout_adj *adj)
{
    release_evaluator(ctx, b);
    if (b->kind == TSR__BATCH_CPU) {
        tsr_status st = tsr_layout_clone(ctx, l, &b->copy);
        return st != TSR_OK ? st : tsr__incr_init(ctx, &b->inc, b->copy, 1);
    }
    return tsr__layout_cuda_create(ctx, b->device, l, adj, TSR__BATCH_MAX, &b->g);
}

tsr_status tsr__batch_create(tsr_ctx *ctx, tsr__batch_kind kind,
                             const tsr__layout_cuda_device *device, const tsr_layout *l,
                             const tsr__layout_adj *adj, tsr__batch_eval **out)
{
    tsr__batch_eval *b = NULL;
    *out = NULL;
    tsr_status st = tsr__alloc(ctx, sizeof *b, (void **)&b);
    if (st != TSR_OK)
        return st;
    memset(b, 0, sizeof *b);
    b->kind = kind;
    b->device = device;
    b->want = 16;
    size_t bytes = 0;
    if (!tsr__size_mul(l->num_edges ? (size_t)l->num_edges : 1, sizeof(int32_t), &bytes))
        st = tsr__fail(ctx, TSR_ERR_OVERFLOW, "layout: size overflows");
    if (st == TSR_OK)
        st = tsr__alloc(ctx, bytes, (void **)&b->counts);
    if (st == TSR_OK)
        st = load_evaluator(ctx, b, l, adj);
    if (st != TSR_OK) {
        tsr__batch_destroy(ctx, b);
        return st;
    }
    *out = b;
    return TSR_OK;
}

void tsr__batch_destroy(tsr_ctx *ctx, tsr__batch_eval *b)
{
    if (!b)
        return;
    release_evaluator(ctx, b);
    tsr__free(ctx, b->counts);
    tsr__free(ctx, b);
}

tsr_status tsr__batch_reload(tsr_ctx *ctx, tsr__batch_eval *b, const tsr_layout *l,
                             const tsr__layout_adj *adj)
{
    return load_evaluator(ctx, b, l, adj);
}

tsr__batch_stats tsr__batch_get_stats(const tsr__batch_eval *b)
{
    return b->stats;
}

/* Scores the n node-valid proposals s{node,px,py}[0..n) into score/invalid, and into dx their
 * change of the excess over `target` (INT64_MAX in phase 1: none). */
static tsr_status evaluate(tsr_ctx *ctx, tsr__batch_eval *b, int n, int64_t target)
{
    b->stats.calls++;
    b->stats.scored += (uint64_t)n;
    if (b->kind == TSR__BATCH_CUDA) {
        tsr__layout_cuda_set_target(b->g, target);
        tsr_status st = tsr__layout_cuda_eval_dense(ctx, b->g, n, b->snode, b->spx, b->spy,
                                                    b->score, b->invalid);
        for (int i = 0; i < n && st == TSR_OK; i++)
            b->dx[i] = tsr__layout_cuda_excess_change(b->g, i);
        return st;
    }
    for (int i = 0; i < n; i++) {
        b->invalid[i] = !tsr__incr_propose(&b->inc, b->snode[i], b->spx[i], b->spy[i]);
        if (!b->invalid[i]) {
            b->score[i] = b->inc.pscore;
            b->dx[i] = tsr__incr_pending_excess(&b->inc, target);
            tsr__incr_reject(&b->inc);
        }
    }
    return TSR_OK;
}

/* Commits moving v to (x, y) on the evaluator, leaves its new counts in b->counts and requires
 * its score to equal *want (the score the evaluator gave the proposal). */
static tsr_status commit_evaluator(tsr_ctx *ctx, tsr__batch_eval *b, int32_t v, int32_t x,
                                   int32_t y, const tsr_layout_score *want)
{
    tsr_layout_score s = {0, 0, 0, 0};
    tsr_status st = TSR_OK;
    if (b->kind == TSR__BATCH_CUDA)
        st = tsr__layout_cuda_commit(ctx, b->g, v, x, y, &s, b->counts);
    else {
        if (!tsr__incr_propose(&b->inc, v, x, y))
            return tsr__fail(ctx, TSR_ERR_INTERNAL, "layout: batch commit of an invalid move");
        s = b->inc.pscore;
        if ((st = tsr__incr_commit(ctx, &b->inc)) == TSR_OK)
            memcpy(b->counts, b->inc.count, (size_t)b->inc.l->num_edges * sizeof *b->counts);
    }
    if (st == TSR_OK && tsr_layout_score_compare(&s, want) != 0)
        st = tsr__fail(ctx, TSR_ERR_INTERNAL, "layout: batch evaluator's commit score differs");
    return st;
}

/* Draws up to n proposals from a->rng (saving the states described at the top) and scores the
 * node-valid ones. */
static tsr_status draw_and_score(tsr__annealer *a, double radius, int n)
{
    tsr__batch_eval *b = a->batch;
    int nv = 0;
    for (int i = 0; i < n; i++) {
        int32_t v = tsr__anneal_choose_move(a, radius, &b->px[i], &b->py[i]);
        b->node[i] = v;
        b->after_draw[i] = a->rng;
        b->slot[i] = -1;
        if (tsr__move_valid_nodes(a->l, &a->inc.adj, &a->inc.occ, v, b->px[i], b->py[i])) {
            b->slot[i] = nv;
            b->snode[nv] = v;
            b->spx[nv] = b->px[i];
            b->spy[nv] = b->py[i];
            nv++;
            (void)tsr__rng_unit(&a->rng); /* the Metropolis test's uniform */
        }
        b->after_test[i] = a->rng;
    }
    return nv ? evaluate(a->ctx, b, nv, a->phase == 2 ? a->target : INT64_MAX) : TSR_OK;
}

/* Decides proposal i of the batch (node-valid, scored valid) from its score and excess change;
 * *taken when it was accepted and committed (on the evaluator, then mirrored into a->inc from
 * the evaluator's counts). */
static tsr_status decide(tsr__annealer *a, int i, tsr__uphill *up, int *taken)
{
    tsr__batch_eval *b = a->batch;
    const int k = b->slot[i];
    const tsr_layout_score *s = &b->score[k];
    int32_t v = b->node[i], x = b->px[i], y = b->py[i];
    *taken = 0;
    b->stats.decided++;
    b->stats.phase2 += a->phase == 2;
    if (!tsr__anneal_metropolis(a, tsr__anneal_energy(a, b->dx[k], s), up))
        return TSR_OK;
    int better = tsr__anneal_before_commit(a, s);
    tsr_status st = commit_evaluator(a->ctx, b, v, x, y, s);
    if (st == TSR_OK)
        st = tsr__incr_apply(a->ctx, &a->inc, v, x, y, b->counts);
    if (st == TSR_OK && tsr_layout_score_compare(&a->inc.score, s) != 0)
        st = tsr__fail(a->ctx, TSR_ERR_INTERNAL, "layout: batch commit and host mirror differ");
    if (st != TSR_OK)
        return st;
    tsr__anneal_after_commit(a, better);
    *taken = 1;
    return TSR_OK;
}

tsr_status tsr__anneal_batch_group(tsr__annealer *a, double radius, int count, tsr__uphill *up)
{
    tsr__batch_eval *b = a->batch;
    tsr_status st = TSR_OK;
    int done = 0;
    while (st == TSR_OK && done < count) {
        int n = count - done < b->want ? count - done : b->want;
        if ((st = draw_and_score(a, radius, n)) != TSR_OK)
            break;
        int walked = 0, taken = 0;
        while (walked < n && !taken) {
            int i = walked++;
            a->moves++;
            a->rng = b->after_draw[i];
            if (b->slot[i] < 0)
                continue; /* node-invalid: no test, no uniform */
            if (b->invalid[b->slot[i]])
                break; /* a point on an edge: no uniform either, the rest was drawn after one */
            if ((st = decide(a, i, up, &taken)) != TSR_OK)
                break;
            if (!taken && memcmp(&a->rng, &b->after_test[i], sizeof a->rng) != 0)
                break;
        }
        done += walked;
        b->stats.discarded += (uint64_t)(n - walked);
        b->window_walked += (uint64_t)walked;
        b->window_accepted += (uint64_t)taken;
        if (b->window_walked >= WINDOW) {
            uint64_t want =
                b->window_accepted ? 2 * b->window_walked / b->window_accepted : TSR__BATCH_MAX;
            b->want = want < WANT_MIN         ? WANT_MIN
                      : want > TSR__BATCH_MAX ? TSR__BATCH_MAX
                                              : (int)want;
            b->window_walked = b->window_accepted = 0;
        }
    }
    return st;
}
