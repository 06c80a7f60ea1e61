/* The steps of the annealer that its two walks share (anneal_internal.h): drawing a proposal (a
 * node biased toward the crossed edges and a target point for it), the energy change of a
 * proposal in the current phase, the Metropolis decision, and the bookkeeping of a commit and of
 * the best drawing. The sequential walk (anneal.c) and the batch walk (anneal_batch.c) call them
 * in the same order, so both make the same draws from the chain's random stream. */
#include "layout/anneal_internal.h"

#include <math.h>
#include <string.h>

static void snapshot_current(tsr__annealer *a)
{
    size_t n = (size_t)a->l->num_nodes, m = (size_t)a->l->num_edges;
    memcpy(a->best_x, a->l->x, n * sizeof *a->best_x);
    memcpy(a->best_y, a->l->y, n * sizeof *a->best_y);
    memcpy(a->best_count, a->inc.count, m * sizeof *a->best_count);
}

void tsr__anneal_settle_best(tsr__annealer *a)
{
    if (a->cur_is_best) {
        snapshot_current(a);
        a->cur_is_best = 0;
    }
}

void tsr__anneal_best_coords(const tsr__annealer *a, const int32_t **x, const int32_t **y)
{
    *x = a->cur_is_best ? a->l->x : a->best_x;
    *y = a->cur_is_best ? a->l->y : a->best_y;
}

const int32_t *tsr__anneal_best_counts(const tsr__annealer *a)
{
    return a->cur_is_best ? a->inc.count : a->best_count;
}

/* Twice the area of the triangle (p, q, v), signed: v's side of the line pq times its distance
 * times |pq|. Exact in int64 for coordinates up to 2^30. */
static int64_t side_area(const tsr_layout *l, int32_t p, int32_t q, int32_t v)
{
    return ((int64_t)l->x[q] - l->x[p]) * ((int64_t)l->y[v] - l->y[p]) -
           ((int64_t)l->y[q] - l->y[p]) * ((int64_t)l->x[v] - l->x[p]);
}

/* Picks the node to move: in phase 2 an endpoint of a hot edge (1 in 3) or, 1 in 6, the endpoint
 * of an edge crossing the listed hot edge that lies nearer its line (then a->across is set);
 * else an endpoint of the most crossed of 6 random edges or, 1 in 6, any node. */
static int32_t pick_node(tsr__annealer *a)
{
    const tsr_layout *l = a->l;
    int32_t m = l->num_edges;
    uint64_t r = tsr__rng_below(&a->rng, 6);
    if (r < 2 && a->nhot > 0) {
        int32_t e = a->hot[tsr__rng_below(&a->rng, (uint64_t)a->nhot)];
        return tsr__rng_below(&a->rng, 2) ? l->edge_u[e] : l->edge_v[e];
    }
    if (r == 2 && a->ncrossers > 0) {
        int32_t f = a->crossers[tsr__rng_below(&a->rng, (uint64_t)a->ncrossers)];
        int32_t p = l->edge_u[a->hot_edge], q = l->edge_v[a->hot_edge];
        int64_t su = side_area(l, p, q, l->edge_u[f]), sv = side_area(l, p, q, l->edge_v[f]);
        a->across = 1;
        return (su < 0 ? -su : su) <= (sv < 0 ? -sv : sv) ? l->edge_u[f] : l->edge_v[f];
    }
    if (m > 0 && r != 5) {
        int32_t best = (int32_t)tsr__rng_below(&a->rng, (uint64_t)m);
        for (int t = 1; t < 6; t++) {
            int32_t e = (int32_t)tsr__rng_below(&a->rng, (uint64_t)m);
            if (a->inc.count[e] > a->inc.count[best])
                best = e;
        }
        return tsr__rng_below(&a->rng, 2) ? l->edge_u[best] : l->edge_v[best];
    }
    return (int32_t)tsr__rng_below(&a->rng, (uint64_t)l->num_nodes);
}

static int32_t clamp(int64_t v, int32_t hi)
{
    return v < 0 ? 0 : v > hi ? hi : (int32_t)v;
}

/* A target point for v: random, near the neighbours' barycentre, or within `radius`. */
static void pick_point(tsr__annealer *a, int32_t v, double radius, int32_t *px, int32_t *py)
{
    const tsr_layout *l = a->l;
    uint64_t kind = tsr__rng_below(&a->rng, 20);
    int64_t r = (int64_t)radius < 1 ? 1 : (int64_t)radius;
    int64_t cx = l->x[v], cy = l->y[v];
    if (kind < 2) {
        *px = (int32_t)tsr__rng_below(&a->rng, (uint64_t)l->width + 1);
        *py = (int32_t)tsr__rng_below(&a->rng, (uint64_t)l->height + 1);
        return;
    }
    if (kind < 6) {
        const tsr__layout_adj *adj = &a->inc.adj;
        int32_t deg = adj->offset[v + 1] - adj->offset[v];
        if (deg > 0) {
            int64_t sx = 0, sy = 0;
            for (int32_t k = adj->offset[v]; k < adj->offset[v + 1]; k++) {
                int32_t e = adj->edges[k], w = l->edge_u[e] == v ? l->edge_v[e] : l->edge_u[e];
                sx += l->x[w];
                sy += l->y[w];
            }
            cx = sx / deg;
            cy = sy / deg;
            r = r / 4 < 1 ? 1 : r / 4;
        }
    }
    *px = clamp(cx + (int64_t)tsr__rng_below(&a->rng, (uint64_t)(2 * r + 1)) - r, l->width);
    *py = clamp(cy + (int64_t)tsr__rng_below(&a->rng, (uint64_t)(2 * r + 1)) - r, l->height);
}

/* A point for v (an endpoint of an edge crossing the hot edge) just across the hot edge's line,
 * up to radius/4 further: its edge then no longer crosses the hot edge. */
static void across_point(tsr__annealer *a, int32_t v, double radius, int32_t *px, int32_t *py)
{
    const tsr_layout *l = a->l;
    int32_t p = l->edge_u[a->hot_edge], q = l->edge_v[a->hot_edge];
    double dx = (double)l->x[q] - l->x[p], dy = (double)l->y[q] - l->y[p];
    double len = sqrt(dx * dx + dy * dy), area = (double)side_area(l, p, q, v);
    double dist = fabs(area) / len, sign = area > 0 ? 1 : -1; /* toward the line: -sign*(-dy,dx) */
    int64_t extra = (int64_t)(radius / 4);
    double step = dist + 1 + (double)tsr__rng_below(&a->rng, (uint64_t)(extra > 0 ? extra : 0) + 1);
    *px = clamp((int64_t)llround(l->x[v] + sign * dy / len * step), l->width);
    *py = clamp((int64_t)llround(l->y[v] - sign * dx / len * step), l->height);
}

int32_t tsr__anneal_choose_move(tsr__annealer *a, double radius, int32_t *px, int32_t *py)
{
    a->across = 0;
    int32_t v = pick_node(a);
    if (a->across)
        across_point(a, v, radius, px, py);
    else
        pick_point(a, v, radius, px, py);
    return v;
}

/* Weight of Phi against the excess in phase 2 (see tsr__anneal_energy). */
#define PHI_WEIGHT 0.05

/* Phase 1: dPhi (a crossing moved from an edge with c crossings to one with c' costs about
 * 2(c' - c), so the heavily crossed edges shed crossings first; dC alone was blind to where they
 * lie). Phase 2: dx, the change of sum over edges of max(0, c(e) - target)^2, where the
 * target is one below the best K found, plus PHI_WEIGHT * dPhi / (2 * (target + 1)) (about
 * PHI_WEIGHT per crossing moved off an edge near the target) so that moves among edges below the
 * target still prefer fewer crossings. The excess is zero exactly when the drawing beats the best
 * K. */
double tsr__anneal_energy(const tsr__annealer *a, int64_t dx, const tsr_layout_score *s)
{
    const tsr_layout_score *cur = &a->inc.score;
    if (a->phase == 1)
        return (double)(s->Phi - cur->Phi);
    return (double)dx + PHI_WEIGHT * (double)(s->Phi - cur->Phi) / (2.0 * (double)(a->target + 1));
}

double tsr__anneal_pending_energy(const tsr__annealer *a)
{
    const int64_t dx = a->phase == 2 ? tsr__incr_pending_excess(&a->inc, a->target) : 0;
    return tsr__anneal_energy(a, dx, &a->inc.pscore);
}

int tsr__anneal_metropolis(tsr__annealer *a, double d, tsr__uphill *up)
{
    int accept = d <= 0 || (isfinite(d) && a->temperature > 0 &&
                            tsr__rng_unit(&a->rng) < exp(-d / a->temperature));
    up->seen += d > 0;
    up->taken += d > 0 && accept;
    return accept;
}

int tsr__anneal_before_commit(tsr__annealer *a, const tsr_layout_score *s)
{
    int better = tsr_layout_score_compare(s, &a->best) < 0;
    if (!better && a->cur_is_best)
        tsr__anneal_settle_best(a); /* leaving the best drawing: keep a copy first */
    return better;
}

void tsr__anneal_after_commit(tsr__annealer *a, int better)
{
    a->accepted++;
    if (better) {
        a->best = a->inc.score;
        a->cur_is_best = 1;
        a->moves_at_best = a->moves;
        if (a->best.K <= a->target)
            a->target = a->best.K - 1;
    }
}
