/* The optimizer: simulated annealing on the incremental evaluator (incr_cpu.c).
 *
 * Plan: the start layout (init.c: the input, the stress layout, the stress layout with long
 * shortcut chains set aside, or the best of them, made valid), then two phases. Phase 1 minimises
 * Phi, the sum of squared crossing counts (Metropolis on dPhi, geometric temperature schedule), so
 * that it lowers the crossings and spreads them over the edges. Phase 2
 * minimises the excess over a target one below the best K found (see tsr__anneal_energy) with a
 * temperature adapted per batch of proposals to a falling share of accepted uphill moves; the best
 * drawing is kept by the lexicographic score (K, n_K, Phi, C). Nodes are chosen with a bias toward
 * the edges above the target, the edges crossing one of them, and the most crossed of random edges;
 * moves go to a random point, near the neighbours' barycentre, within a radius that shrinks over
 * the run (see start_radius), or (for a crosser) just across the hot edge's line. Every move keeps
 * the drawing valid (exact test). Without progress for a while the search restarts from the best
 * drawing. The schedule follows the share of the budget used: moves/max_moves when max_moves is set
 * (then a seed gives the same drawing on every machine), else the share of the time left after the
 * start layout. With a batch evaluator (the CUDA backend, anneal_batch.c) the proposals of a group
 * are scored in batches and decided by the same steps in the same order, so the drawing is the
 * same. This file runs one chain; anneal_team.c runs N of them and keeps the best. */
#include "layout/anneal_internal.h"
#include "layout/geometry_hd.h"

#include "core/checked.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Share of the search's budget used: of the moves, or of the time left after the start layout
 * was made (so both phases get their share however long that took). */
static double budget_fraction(const tsr__annealer *a, double elapsed)
{
    const tsr_layout_optimize_options *opt = a->opt;
    if (opt->max_moves)
        return (double)a->moves / (double)opt->max_moves;
    double span = opt->time_limit - a->anneal_start;
    return opt->time_limit <= 0 ? 0 : span > 0 ? (elapsed - a->anneal_start) / span : 1;
}

/* Lists the edges above the target (phase 2) in a->hot, and the edges crossing one of them,
 * chosen at random, in a->crossers. */
static void refresh_hot(tsr__annealer *a)
{
    const tsr_layout *l = a->l;
    a->nhot = a->ncrossers = 0;
    a->hot_edge = -1;
    if (a->phase != 2)
        return;
    for (int32_t e = 0; e < l->num_edges; e++)
        if (a->inc.count[e] > a->target)
            a->hot[a->nhot++] = e;
    if (a->nhot == 0)
        return;
    int32_t h = a->hot[tsr__rng_below(&a->rng, (uint64_t)a->nhot)];
    a->hot_edge = h;
    int32_t p = l->edge_u[h], q = l->edge_v[h];
    int32_t px = l->x[p], py = l->y[p], qx = l->x[q], qy = l->y[q];
    int32_t lox = px < qx ? px : qx, hix = px < qx ? qx : px;
    int32_t loy = py < qy ? py : qy, hiy = py < qy ? qy : py;
    for (int32_t f = 0; f < l->num_edges; f++) {
        int32_t u = l->edge_u[f], v = l->edge_v[f];
        int32_t ux = l->x[u], uy = l->y[u], vx = l->x[v], vy = l->y[v];
        if ((ux < lox && vx < lox) || (ux > hix && vx > hix) || (uy < loy && vy < loy) ||
            (uy > hiy && vy > hiy) || u == p || u == q || v == p || v == q)
            continue;
        if (tsr__segments_cross(px, py, qx, qy, ux, uy, vx, vy))
            a->crossers[a->ncrossers++] = f;
    }
}

static int compare_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The start radius of the moves: 0.3 x the canvas span, but at most RADIUS_EDGES x the median
 * edge length of the start drawing. Where the edges are short against the canvas (A8: 3 units on
 * a 342 canvas), a move across a third of the canvas tears a node's edges through the whole
 * drawing, and the phase-1 temperature sampled from such moves melts a good start. */
#define RADIUS_EDGES 10
static tsr_status start_radius(tsr_ctx *ctx, const tsr_layout *l, double *radius)
{
    int32_t m = l->num_edges;
    double span = (double)(l->width > l->height ? l->width : l->height);
    *radius = span * 0.3 + 1;
    if (m == 0)
        return TSR_OK;
    int64_t *len2 = NULL;
    tsr_status st = tsr__alloc(ctx, (size_t)m * sizeof *len2, (void **)&len2);
    if (st != TSR_OK)
        return st;
    for (int32_t e = 0; e < m; e++) {
        int64_t dx = (int64_t)l->x[l->edge_u[e]] - l->x[l->edge_v[e]];
        int64_t dy = (int64_t)l->y[l->edge_u[e]] - l->y[l->edge_v[e]];
        len2[e] = dx * dx + dy * dy;
    }
    qsort(len2, (size_t)m, sizeof *len2, compare_int64);
    double cap = RADIUS_EDGES * sqrt((double)len2[m / 2]);
    if (cap >= 1 && cap < *radius)
        *radius = cap;
    tsr__free(ctx, len2);
    return TSR_OK;
}

/* Phase 2 temperature: adapted after every batch so that the share of uphill proposals accepted
 * follows START * (END / START)^progress. */
#define UPHILL_RATE_START 0.5
#define UPHILL_RATE_END 0.05

/* One proposal of the sequential walk: drawn, scored on a->inc, decided, committed when taken. */
static tsr_status sequential_step(tsr__annealer *a, double radius, tsr__uphill *up)
{
    int32_t px, py, v = tsr__anneal_choose_move(a, radius, &px, &py);
    a->moves++;
    if (!tsr__incr_propose(&a->inc, v, px, py))
        return TSR_OK;
    if (!tsr__anneal_metropolis(a, tsr__anneal_pending_energy(a), up)) {
        tsr__incr_reject(&a->inc);
        return TSR_OK;
    }
    int better = tsr__anneal_before_commit(a, &a->inc.pscore);
    tsr_status st = tsr__incr_commit(a->ctx, &a->inc);
    if (st != TSR_OK)
        return st;
    tsr__anneal_after_commit(a, better);
    return TSR_OK;
}

/* Typical positive energy change of random moves in the current phase (for the start
 * temperature); the proposals are rejected, so the drawing does not change. */
static double sample_scale(tsr__annealer *a, double radius)
{
    double sum = 0;
    int count = 0;
    for (int i = 0; i < 200; i++) {
        int32_t px, py, v = tsr__anneal_choose_move(a, radius, &px, &py);
        if (!tsr__incr_propose(&a->inc, v, px, py))
            continue;
        double d = tsr__anneal_pending_energy(a);
        tsr__incr_reject(&a->inc);
        if (d > 0 && isfinite(d)) {
            sum += d;
            count++;
        }
    }
    return count ? sum / count : 1.0;
}

/* Proposals per group: the hot lists, the radius and the phase-2 temperature change between
 * groups only. */
enum { GROUP = 64 };

tsr_status tsr__anneal_init(tsr__annealer *a, tsr_layout *l, uint64_t seed, tsr__batch_kind kind)
{
    tsr_ctx *ctx = a->ctx;
    tsr_status st;
    a->l = l;
    size_t n = (size_t)l->num_nodes, m = (size_t)l->num_edges;
    if ((st = tsr__incr_init_with(ctx, &a->inc, l, a->opt->spatial, a->start_counts)) != TSR_OK)
        return st;
    if ((st = tsr__alloc(ctx, (n ? n : 1) * sizeof(int32_t), (void **)&a->best_x)) != TSR_OK ||
        (st = tsr__alloc(ctx, (n ? n : 1) * sizeof(int32_t), (void **)&a->best_y)) != TSR_OK ||
        (st = tsr__alloc(ctx, (m ? m : 1) * sizeof(int32_t), (void **)&a->best_count)) != TSR_OK ||
        (st = tsr__alloc(ctx, (m ? m : 1) * sizeof(int32_t), (void **)&a->hot)) != TSR_OK ||
        (st = tsr__alloc(ctx, (m ? m : 1) * sizeof(int32_t), (void **)&a->crossers)) != TSR_OK)
        return st;
    tsr__rng_seed(&a->rng, seed);
    a->best = a->inc.score;
    a->cur_is_best = 1;
    a->anneal_start = tsr__layout_now() - a->t0;
    a->phase = a->phase1 > 0 ? 1 : 2;
    a->target = a->best.K - 1;
    if ((st = start_radius(ctx, l, &a->radius0)) != TSR_OK)
        return st;
    a->stall_limit = 20000 + 40 * (uint64_t)n;
    a->can_move =
        n > 0 && m > 0 && (uint64_t)n < ((uint64_t)l->width + 1) * ((uint64_t)l->height + 1);
    if (a->can_move) {
        a->t_start = sample_scale(a, a->radius0);
        a->t_end = a->t_start * 1e-3;
        if (kind != TSR__BATCH_NONE &&
            (st = tsr__batch_create(ctx, kind, a->device, l, &a->inc.adj, &a->batch)) != TSR_OK)
            return st;
    }
    a->temperature = a->t_start;
    return TSR_OK;
}

tsr_status tsr__anneal_run(tsr__annealer *a)
{
    const tsr_layout_optimize_options *opt = a->opt;
    tsr_ctx *ctx = a->ctx;
    tsr_status st = TSR_OK;
    for (;;) {
        double elapsed = tsr__layout_now() - a->t0;
        double frac = budget_fraction(a, elapsed);
        if (!a->can_move || frac >= 1 || (opt->time_limit > 0 && elapsed >= opt->time_limit) ||
            a->best.K == 0)
            break;
        if (a->phase == 1 && frac >= a->phase1) {
            a->phase = 2;
            a->target = a->best.K - 1;
            refresh_hot(a);
            a->phase_start_frac = frac;
            a->temperature = 1.0; /* one unit of excess; adapted per batch below */
            a->moves_at_best = a->moves;
        }
        /* local progress in the phase, 0..1 */
        double pend = a->phase == 1 ? a->phase1 : 1.0;
        double pstart = a->phase == 1 ? 0 : a->phase_start_frac;
        double pf = fmin(fmax((frac - pstart) / fmax(1e-9, pend - pstart), 0), 1);
        if (a->phase == 1)
            a->temperature = a->t_start * pow(a->t_end / a->t_start, pf);
        double want_rate = UPHILL_RATE_START * pow(UPHILL_RATE_END / UPHILL_RATE_START, pf);
        tsr__uphill up = {0, 0};
        double radius =
            fmax(2.0, a->radius0 * pow(0.01, a->phase == 1 ? pf * 0.5 : 0.5 + 0.5 * pf));
        refresh_hot(a);
        /* a move budget ends exactly: the last group is cut to what is left of it */
        const int count = opt->max_moves && opt->max_moves - a->moves < GROUP
                              ? (int)(opt->max_moves - a->moves)
                              : GROUP;
        if (a->batch)
            st = tsr__anneal_batch_group(a, radius, count, &up);
        for (int i = 0; !a->batch && st == TSR_OK && i < count; i++)
            st = sequential_step(a, radius, &up);
        if (st != TSR_OK)
            break;
        if (a->phase == 2 && up.seen > 0) /* adaptive: steer the uphill acceptance to want_rate */
            a->temperature *= (double)up.taken / up.seen > want_rate ? 0.9 : 1.1;
        if (a->inc.grid.stale != TSR__GRID_OK && a->inc.use_grid && a->inc.grid.items &&
            (st = tsr__incr_rebuild_grid(ctx, &a->inc)) != TSR_OK)
            break;
        if (a->phase == 2 && a->moves - a->moves_at_best > a->stall_limit && !a->cur_is_best) {
            if ((st = tsr__incr_load(ctx, &a->inc, a->best_x, a->best_y, a->best_count)) !=
                    TSR_OK ||
                (a->batch && (st = tsr__batch_reload(ctx, a->batch, a->l, &a->inc.adj)) != TSR_OK))
                break;
            a->cur_is_best = 1;
            a->moves_at_best = a->moves;
            a->restarts++;
        }
        if ((a->group_end &&
             a->group_end(a->group_user, a, budget_fraction(a, tsr__layout_now() - a->t0), &st)) ||
            st != TSR_OK)
            break;
    }
    tsr__anneal_settle_best(a);
    return st;
}

void tsr__anneal_release(tsr__annealer *a)
{
    tsr__batch_destroy(a->ctx, a->batch);
    a->batch = NULL;
    tsr__incr_release(a->ctx, &a->inc);
    tsr__free(a->ctx, a->best_x);
    tsr__free(a->ctx, a->best_y);
    tsr__free(a->ctx, a->best_count);
    tsr__free(a->ctx, a->hot);
    tsr__free(a->ctx, a->crossers);
    a->best_x = a->best_y = a->best_count = a->hot = a->crossers = NULL;
}

tsr_status tsr__anneal_adopt(tsr__annealer *a, const int32_t *x, const int32_t *y,
                             const int32_t *counts, const tsr_layout_score *s)
{
    tsr_status st = tsr__incr_load(a->ctx, &a->inc, x, y, counts);
    if (st == TSR_OK && a->batch)
        st = tsr__batch_reload(a->ctx, a->batch, a->l, &a->inc.adj);
    if (st != TSR_OK)
        return st;
    if (tsr_layout_score_compare(&a->inc.score, s) != 0)
        return tsr__fail(a->ctx, TSR_ERR_INTERNAL, "layout: adopted drawing's score differs");
    a->best = *s;
    a->cur_is_best = 1;
    a->moves_at_best = a->moves;
    if (a->phase == 2 && a->best.K - 1 < a->target)
        a->target = a->best.K - 1;
    return TSR_OK;
}
