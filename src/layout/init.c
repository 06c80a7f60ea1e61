/* Initial layouts and repair: the start layout of the optimizer, a stress layout by stochastic
 * gradient descent (Zheng, Pawar and Goodman, "Graph Drawing by Stochastic Gradient Descent", IEEE
 * TVCG 2019: pairs visited in random order, step min(1, w_ij * eta) with w_ij = d_ij^-2 and eta
 * annealed exponentially), uniform random points, and the repair that moves offending nodes to the
 * nearest valid grid points. */
#include "layout/geometry_hd.h"
#include "layout/layout_internal.h"

#include "core/checked.h"

#include <math.h>
#include <string.h>

/* Beyond ALL_PAIRS_MAX_NODES nodes, pivots (BFS sources) are drawn so that about PIVOT_PAIRS
 * node-pivot pairs are kept, but never fewer than MIN_PIVOTS. */
enum { ALL_PAIRS_MAX_NODES = 3000, PIVOT_PAIRS = 1 << 21, MIN_PIVOTS = 64, SGD_ITERATIONS = 30 };
/* Pairs updated between polls of the start-up watch (about a millisecond). */
enum { POLL_PAIRS = 1 << 16 };

typedef struct pair {
    int32_t i, j;
    float d;
} pair;

/* Distances from s (unreachable: -1) with every edge of length 1, except TSR__SHORTCUT_EDGE_LENGTH
 * at a node marked in stretch. Two FIFO queues, one for each length, each with its distances
 * (d1, d2): each receives non-decreasing distances, so taking the smaller head settles the nodes
 * in order of distance (Dijkstra for two lengths); a node enters each queue at most once, and an
 * entry whose distance was since improved is skipped. Without marked nodes: breadth first. */
static void distances(const tsr_layout *l, const tsr__layout_adj *adj, const uint8_t *stretch,
                      int32_t s, int32_t *dist, int32_t *q1, int32_t *d1, int32_t *q2, int32_t *d2)
{
    for (int32_t i = 0; i < l->num_nodes; i++)
        dist[i] = -1;
    int32_t h1 = 0, t1 = 0, h2 = 0, t2 = 0;
    dist[s] = 0;
    q1[t1] = s;
    d1[t1++] = 0;
    while (h1 < t1 || h2 < t2) {
        int one = h2 == t2 || (h1 < t1 && d1[h1] <= d2[h2]);
        int32_t u = one ? q1[h1] : q2[h2], du = one ? d1[h1++] : d2[h2++];
        if (du != dist[u])
            continue;
        for (int32_t k = adj->offset[u]; k < adj->offset[u + 1]; k++) {
            int32_t e = adj->edges[k], w = l->edge_u[e] == u ? l->edge_v[e] : l->edge_u[e];
            int longer = stretch[u] || stretch[w];
            int32_t dw = du + (longer ? TSR__SHORTCUT_EDGE_LENGTH : 1);
            if (dist[w] >= 0 && dist[w] <= dw)
                continue;
            dist[w] = dw;
            if (longer) {
                q2[t2] = w;
                d2[t2++] = dw;
            } else {
                q1[t1] = w;
                d1[t1++] = dw;
            }
        }
    }
}

tsr_status tsr__init_stress(tsr_ctx *ctx, tsr_layout *l, uint64_t seed, tsr__watch *watch)
{
    int32_t n = l->num_nodes;
    if (n == 0)
        return TSR_OK;
    tsr__layout_adj adj;
    tsr_status st = tsr__adj_build(ctx, l, &adj);
    if (st != TSR_OK)
        return st;
    int all = n <= ALL_PAIRS_MAX_NODES;
    int32_t npiv = all ? n : PIVOT_PAIRS / n > MIN_PIVOTS ? PIVOT_PAIRS / n : MIN_PIVOTS;
    npiv = npiv < n ? npiv : n;
    size_t npairs, bytes;
    if (all)
        npairs = (size_t)n * (size_t)(n - 1) / 2;
    else if (!tsr__size_mul((size_t)n, (size_t)npiv, &npairs) ||
             !tsr__size_add(npairs, (size_t)l->num_edges, &npairs))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "layout: stress pairs overflow");
    int32_t *dist = NULL, *scratch = NULL;
    uint8_t *stretch = NULL;
    double *pos = NULL;
    pair *pairs = NULL;
    if (!tsr__size_mul(npairs ? npairs : 1, sizeof(pair), &bytes)) {
        st = tsr__fail(ctx, TSR_ERR_OVERFLOW, "layout: stress pairs overflow");
        goto done;
    }
    if ((st = tsr__alloc(ctx, bytes, (void **)&pairs)) != TSR_OK ||
        (st = tsr__alloc(ctx, (size_t)n * sizeof(int32_t), (void **)&dist)) != TSR_OK ||
        (st = tsr__alloc(ctx, (size_t)n * 4 * sizeof(int32_t), (void **)&scratch)) != TSR_OK ||
        (st = tsr__alloc(ctx, (size_t)n, (void **)&stretch)) != TSR_OK ||
        (st = tsr__alloc(ctx, (size_t)n * 2 * sizeof(double), (void **)&pos)) != TSR_OK ||
        (st = tsr__mark_short_shortcuts(ctx, l, &adj, stretch, watch)) != TSR_OK)
        goto done;
    tsr__rng rng;
    tsr__rng_seed(&rng, seed ^ 0x5354524553530000ull);
    size_t np = 0;
    int32_t dmax = 1;
    for (int32_t p = 0; p < npiv; p++) {
        if (tsr__watch_poll(watch) != TSR__STOP_NONE) {
            st = TSR_ERR_INTERRUPTED;
            goto done;
        }
        if (watch && watch->late && p > 0)
            break; /* hurry: the pairs of the pivots so far */
        int32_t s = all ? p : (int32_t)tsr__rng_below(&rng, (uint64_t)n);
        distances(l, &adj, stretch, s, dist, scratch, scratch + n, scratch + 2 * n,
                  scratch + 3 * n);
        for (int32_t i = 0; i < n; i++)
            if (dist[i] > dmax)
                dmax = dist[i];
        for (int32_t i = all ? p + 1 : 0; i < n; i++)
            if (i != s)
                pairs[np++] = (pair){s, i, (float)dist[i]};
    }
    if (!all)
        for (int32_t e = 0; e < l->num_edges; e++)
            if (l->edge_u[e] != l->edge_v[e])
                pairs[np++] = (pair){l->edge_u[e], l->edge_v[e],
                                     stretch[l->edge_u[e]] || stretch[l->edge_v[e]]
                                         ? (float)TSR__SHORTCUT_EDGE_LENGTH
                                         : 1.0f};
    for (size_t k = 0; k < np; k++)
        if (pairs[k].d < 0) /* other component: keep it near, not on top */
            pairs[k].d = (float)(dmax + 1);
    for (int32_t i = 0; i < n; i++) {
        pos[2 * i] = tsr__rng_unit(&rng) * dmax;
        pos[2 * i + 1] = tsr__rng_unit(&rng) * dmax;
    }
    double wmax = 1.0, wmin = 1.0 / ((double)(dmax + 1) * (dmax + 1));
    double eta_max = 1.0 / wmin, eta_min = 0.1 / wmax;
    double lambda = log(eta_max / eta_min) / (SGD_ITERATIONS - 1);
    for (int it = 0; it < SGD_ITERATIONS && !(watch && watch->late); it++) {
        double eta = eta_max * exp(-lambda * it);
        for (size_t k = np; k > 1; k--) { /* shuffle */
            size_t r = (size_t)tsr__rng_below(&rng, k);
            pair t = pairs[k - 1];
            pairs[k - 1] = pairs[r];
            pairs[r] = t;
        }
        for (size_t k = 0; k < np; k++) {
            if (k % POLL_PAIRS == 0 && tsr__watch_poll(watch) != TSR__STOP_NONE) {
                st = TSR_ERR_INTERRUPTED;
                goto done;
            }
            if (watch && watch->late)
                break; /* hurry: the positions as they are */
            int32_t i = pairs[k].i, j = pairs[k].j;
            double d = pairs[k].d, w = 1.0 / (d * d), mu = w * eta < 1 ? w * eta : 1;
            double dx = pos[2 * i] - pos[2 * j], dy = pos[2 * i + 1] - pos[2 * j + 1];
            double len = sqrt(dx * dx + dy * dy);
            if (len < 1e-9) {
                dx = tsr__rng_unit(&rng) - 0.5;
                dy = tsr__rng_unit(&rng) - 0.5;
                len = sqrt(dx * dx + dy * dy) + 1e-12;
            }
            double r = mu * (len - d) / (2 * len);
            pos[2 * i] -= r * dx;
            pos[2 * i + 1] -= r * dy;
            pos[2 * j] += r * dx;
            pos[2 * j + 1] += r * dy;
        }
    }
    /* Fit to the canvas (uniform scale, centred) and round. */
    double x0 = pos[0], x1 = pos[0], y0 = pos[1], y1 = pos[1];
    for (int32_t i = 1; i < n; i++) {
        x0 = fmin(x0, pos[2 * i]);
        x1 = fmax(x1, pos[2 * i]);
        y0 = fmin(y0, pos[2 * i + 1]);
        y1 = fmax(y1, pos[2 * i + 1]);
    }
    double sx = x1 > x0 ? l->width / (x1 - x0) : 0, sy = y1 > y0 ? l->height / (y1 - y0) : 0;
    double s = sx > 0 && sy > 0 ? fmin(sx, sy) : fmax(sx, sy);
    double offx = (l->width - s * (x1 - x0)) / 2, offy = (l->height - s * (y1 - y0)) / 2;
    for (int32_t i = 0; i < n; i++) {
        double fx = offx + s * (pos[2 * i] - x0), fy = offy + s * (pos[2 * i + 1] - y0);
        l->x[i] = (int32_t)fmin(fmax(floor(fx + 0.5), 0), l->width);
        l->y[i] = (int32_t)fmin(fmax(floor(fy + 0.5), 0), l->height);
    }
    l->has_coordinates = 1;
done:
    tsr__adj_release(ctx, &adj);
    tsr__free(ctx, pairs);
    tsr__free(ctx, dist);
    tsr__free(ctx, scratch);
    tsr__free(ctx, stretch);
    tsr__free(ctx, pos);
    return st;
}

tsr_status tsr__init_random(tsr_ctx *ctx, tsr_layout *l, uint64_t seed)
{
    tsr__rng rng;
    tsr__rng_seed(&rng, seed ^ 0x52414E444F4D0000ull);
    for (int32_t i = 0; i < l->num_nodes; i++) {
        l->x[i] = (int32_t)tsr__rng_below(&rng, (uint64_t)l->width + 1);
        l->y[i] = (int32_t)tsr__rng_below(&rng, (uint64_t)l->height + 1);
    }
    l->has_coordinates = 1;
    (void)ctx;
    return TSR_OK; /* coincidences and nodes on edges are left to repair */
}

/* Nearest valid point for v by rings of growing Chebyshev radius (deterministic order). The rings
 * are searched in windows of doubling radius R; the edges that can contain a point of the window
 * (bounding box meets it) are gathered once per window, so a candidate point costs only those. */
static int find_spot(const tsr_layout *l, const tsr__layout_adj *adj, const tsr__occupancy *occ,
                     int32_t v, int32_t *near, int32_t *outx, int32_t *outy)
{
    int64_t cx = l->x[v], cy = l->y[v];
    int64_t rmax = l->width > l->height ? l->width : l->height;
    for (int64_t r = 1, R = 4;; R *= 2) {
        if (R > rmax)
            R = rmax;
        int32_t nnear = 0;
        for (int32_t e = 0; e < l->num_edges; e++) {
            int32_t a = l->edge_u[e], b = l->edge_v[e];
            if (a == v || b == v)
                continue;
            int64_t lox = l->x[a] < l->x[b] ? l->x[a] : l->x[b], hix = l->x[a] ^ l->x[b] ^ lox;
            int64_t loy = l->y[a] < l->y[b] ? l->y[a] : l->y[b], hiy = l->y[a] ^ l->y[b] ^ loy;
            if (hix < cx - R || lox > cx + R || hiy < cy - R || loy > cy + R)
                continue;
            /* the segment's line must separate no corner set entirely: corners all strictly on
             * one side means the segment misses the window */
            int32_t wx0 = (int32_t)(cx - R < 0 ? 0 : cx - R),
                    wy0 = (int32_t)(cy - R < 0 ? 0 : cy - R);
            int32_t wx1 = (int32_t)(cx + R > l->width ? l->width : cx + R);
            int32_t wy1 = (int32_t)(cy + R > l->height ? l->height : cy + R);
            int s0 = tsr__orient(l->x[a], l->y[a], l->x[b], l->y[b], wx0, wy0);
            int s1 = tsr__orient(l->x[a], l->y[a], l->x[b], l->y[b], wx1, wy0);
            int s2 = tsr__orient(l->x[a], l->y[a], l->x[b], l->y[b], wx0, wy1);
            int s3 = tsr__orient(l->x[a], l->y[a], l->x[b], l->y[b], wx1, wy1);
            if (s0 != 0 && s0 == s1 && s0 == s2 && s0 == s3)
                continue;
            near[nnear++] = e;
        }
        for (; r <= R; r++) {
            for (int64_t k = -r; k <= r; k++) {
                int64_t pts[4][2] = {
                    {cx + k, cy - r}, {cx + k, cy + r}, {cx - r, cy + k}, {cx + r, cy + k}};
                for (int q = 0; q < 4; q++) {
                    int64_t px = pts[q][0], py = pts[q][1];
                    if ((q >= 2 && (k == -r || k == r)) || px < 0 || py < 0 || px > l->width ||
                        py > l->height)
                        continue;
                    if (!tsr__move_valid_nodes(l, adj, occ, v, (int32_t)px, (int32_t)py))
                        continue;
                    int on_edge = 0;
                    for (int32_t i = 0; i < nnear && !on_edge; i++) {
                        int32_t a = l->edge_u[near[i]], b = l->edge_v[near[i]];
                        on_edge = tsr__point_on_segment((int32_t)px, (int32_t)py, l->x[a], l->y[a],
                                                        l->x[b], l->y[b]);
                    }
                    if (!on_edge) {
                        *outx = (int32_t)px;
                        *outy = (int32_t)py;
                        return 1;
                    }
                }
            }
        }
        if (R >= rmax)
            return 0;
    }
}

tsr_status tsr__repairable(tsr_ctx *ctx, const tsr_layout *l)
{
    for (int32_t e = 0; e < l->num_edges; e++)
        if (l->edge_u[e] == l->edge_v[e])
            return tsr__fail(
                ctx, TSR_ERR_CORRUPT,
                "layout: edge %d is a self-loop at node '%s'; no valid drawing has one", (int)e,
                l->node_id[l->edge_u[e]] ? l->node_id[l->edge_u[e]] : "?");
    if ((uint64_t)l->width + 1 > 0 &&
        ((uint64_t)l->width + 1) * ((uint64_t)l->height + 1) < (uint64_t)l->num_nodes)
        return tsr__fail(ctx, TSR_ERR_LIMIT, "layout: the canvas has fewer points than nodes");
    return TSR_OK;
}

tsr_status tsr__repair(tsr_ctx *ctx, tsr_layout *l, int *moved, tsr__watch *watch)
{
    if (moved)
        *moved = 0;
    tsr_status st = tsr__repairable(ctx, l);
    if (st != TSR_OK)
        return st;
    for (int32_t i = 0; i < l->num_nodes; i++) {
        l->x[i] = l->x[i] < 0 ? 0 : l->x[i] > l->width ? l->width : l->x[i];
        l->y[i] = l->y[i] < 0 ? 0 : l->y[i] > l->height ? l->height : l->y[i];
    }
    uint8_t *bad = NULL;
    int32_t *near = NULL;
    tsr_layout_violation *items = NULL;
    tsr__layout_adj adj = {0};
    tsr__occupancy occ = {0};
    int count_moved = 0;
    for (int round = 0; round < 4; round++) {
        size_t total;
        if (tsr__watch_poll(watch) != TSR__STOP_NONE) {
            st = TSR_ERR_INTERRUPTED;
            break;
        }
        if ((st = tsr_layout_check(ctx, l, NULL, 0, &total)) != TSR_OK)
            break;
        size_t relevant = 0;
        if (total && (st = tsr__alloc(ctx, total * sizeof *items, (void **)&items)) == TSR_OK)
            st = tsr_layout_check(ctx, l, items, total, &total);
        if (st != TSR_OK)
            break;
        if (!bad && (st = tsr__alloc(ctx, (size_t)(l->num_nodes ? l->num_nodes : 1),
                                     (void **)&bad)) != TSR_OK)
            break;
        memset(bad, 0, (size_t)l->num_nodes);
        for (size_t k = 0; k < total; k++) {
            if (items[k].kind == TSR_LAYOUT_NODE_ON_EDGE ||
                items[k].kind == TSR_LAYOUT_OUTSIDE_CANVAS)
                bad[items[k].node_a] = 1, relevant++;
            else if (items[k].kind == TSR_LAYOUT_COINCIDENT_NODES)
                bad[items[k].node_b] = 1, relevant++;
        }
        tsr__free(ctx, items);
        items = NULL;
        if (!relevant)
            break; /* valid (duplicate edges are kept as they are) */
        if ((!near && (st = tsr__alloc(ctx, (size_t)(l->num_edges ? l->num_edges : 1) * 4,
                                       (void **)&near)) != TSR_OK) ||
            (st = tsr__adj_build(ctx, l, &adj)) != TSR_OK ||
            (st = tsr__occ_build(ctx, l, &occ)) != TSR_OK)
            break;
        for (int32_t v = 0; v < l->num_nodes && st == TSR_OK; v++) {
            if (!bad[v])
                continue;
            if (tsr__watch_poll(watch) != TSR__STOP_NONE) {
                st = TSR_ERR_INTERRUPTED;
                break;
            }
            int32_t px, py;
            if (!find_spot(l, &adj, &occ, v, near, &px, &py)) {
                st = tsr__fail(ctx, TSR_ERR_LIMIT,
                               "layout: no valid grid point left for node '%s' (canvas too full)",
                               l->node_id[v] ? l->node_id[v] : "?");
                break;
            }
            /* A coincident node does not own its point in the table: moving it leaves the owner. */
            if ((st = tsr__occ_move(ctx, &occ, v, l->x[v], l->y[v], px, py)) != TSR_OK)
                break;
            l->x[v] = px;
            l->y[v] = py;
            count_moved++;
        }
        tsr__adj_release(ctx, &adj);
        tsr__occ_release(ctx, &occ);
        if (st != TSR_OK)
            break;
        if (round == 3)
            st = tsr__fail(ctx, TSR_ERR_INTERNAL, "layout: repair did not converge");
    }
    tsr__adj_release(ctx, &adj);
    tsr__occ_release(ctx, &occ);
    tsr__free(ctx, items);
    tsr__free(ctx, bad);
    tsr__free(ctx, near);
    if (moved)
        *moved = count_moved;
    return st;
}

tsr_status tsr_layout_repair(tsr_ctx *ctx, tsr_layout *l, int *moved)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (!l)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: NULL drawing to repair");
    return tsr__repair(ctx, l, moved, NULL);
}

/* Score of the drawing as it stands (valid or not: crossings are defined either way). */
static tsr_status score_of(tsr_ctx *ctx, int threads, const tsr_layout *l, int32_t *counts,
                           tsr_layout_score *s, tsr__watch *watch)
{
    tsr_status st = tsr__count_watched(ctx, l, counts, threads, watch);
    tsr__score_from_counts(counts, l->num_edges, s);
    return st;
}

/* Whether st is the watch's stop (then start-up ends with what it has). */
static int stopped(tsr_status st, const tsr__watch *watch)
{
    return st == TSR_ERR_INTERRUPTED && watch && watch->stop != TSR__STOP_NONE;
}

/* The least prime >= n (n < 2^31: Bertrand's postulate keeps it below 2^32). */
static uint64_t prime_at_least(uint64_t n)
{
    for (uint64_t p = n < 2 ? 2 : n;; p++) {
        int prime = 1;
        for (uint64_t d = 2; d * d <= p && prime; d++)
            prime = p % d != 0;
        if (prime)
            return p;
    }
}

int tsr__init_general_position(tsr_layout *l)
{
    const uint64_t p = prime_at_least((uint64_t)l->num_nodes);
    if (p - 1 > (uint64_t)l->width || p - 1 > (uint64_t)l->height)
        return 0;
    const uint64_t sx = p > 1 ? (uint64_t)l->width / (p - 1) : 1;
    const uint64_t sy = p > 1 ? (uint64_t)l->height / (p - 1) : 1;
    for (int32_t i = 0; i < l->num_nodes; i++) {
        l->x[i] = (int32_t)((uint64_t)i * sx);
        l->y[i] = (int32_t)((uint64_t)i * (uint64_t)i % p * sy);
    }
    l->has_coordinates = 1;
    return 1;
}

/* Whether one of a few edges of l (spread over the edge list) has more than `bound` crossings:
 * then l's K exceeds bound and its full count is not needed to know that it loses. */
enum { PROBE_EDGES = 64 };
static int some_edge_above(const tsr_layout *l, int64_t bound)
{
    int32_t m = l->num_edges, step = m / PROBE_EDGES > 1 ? m / PROBE_EDGES : 1;
    for (int32_t e = 0; e < m; e += step) {
        int32_t a = l->edge_u[e], b = l->edge_v[e];
        int64_t c = 0;
        for (int32_t f = 0; f < m && c <= bound; f++) {
            int32_t p = l->edge_u[f], q = l->edge_v[f];
            if (p != a && p != b && q != a && q != b)
                c += tsr__segments_cross(l->x[a], l->y[a], l->x[b], l->y[b], l->x[p], l->y[p],
                                         l->x[q], l->y[q]);
        }
        if (c > bound)
            return 1;
    }
    return 0;
}

/* The generated start: the stress layout, or the stress layout with the long chains set aside
 * (init_chains.c) when the graph has such chains and it scores lower; made valid and scored.
 * Where the watch stops the work, *out is the stress layout once it is valid (else NULL) and
 * *scored tells whether *score and counts are its. alt: scratch of num_edges counts. */
static tsr_status generated_start(tsr_ctx *ctx, int threads, const tsr_layout *l, uint64_t seed,
                                  tsr__watch *watch, int32_t *counts, int32_t *alt,
                                  tsr_layout **out, tsr_layout_score *score, int *scored)
{
    tsr_layout *s = NULL, *c = NULL;
    tsr_layout_score chains;
    int found = 0;
    *out = NULL;
    *scored = 0;
    tsr_status st;
    if ((st = tsr_layout_clone(ctx, l, &s)) != TSR_OK ||
        (st = tsr__init_stress(ctx, s, seed, watch)) != TSR_OK ||
        (st = tsr__repair(ctx, s, NULL, watch)) != TSR_OK) {
        tsr_layout_free(ctx, s);
        return stopped(st, watch) ? TSR_OK : st;
    }
    *out = s;
    if (watch)
        watch->need_valid = 0;
    if ((st = score_of(ctx, threads, s, counts, score, watch)) != TSR_OK)
        return stopped(st, watch) ? TSR_OK : st;
    *scored = 1;
    if ((st = tsr_layout_clone(ctx, l, &c)) == TSR_OK &&
        (st = tsr__init_stress_chains(ctx, c, seed, watch, &found)) == TSR_OK && found &&
        (st = tsr__repair(ctx, c, NULL, watch)) == TSR_OK &&
        (st = score_of(ctx, threads, c, alt, &chains, watch)) == TSR_OK &&
        tsr_layout_score_compare(&chains, score) < 0) {
        *out = c;
        c = s;
        *score = chains;
        memcpy(counts, alt, (size_t)l->num_edges * sizeof *counts);
    }
    tsr_layout_free(ctx, c);
    return stopped(st, watch) ? TSR_OK : st;
}

/* Takes drawing s's coordinates into l. */
static void take_drawing(tsr_layout *l, const tsr_layout *s)
{
    memcpy(l->x, s->x, (size_t)l->num_nodes * sizeof *l->x);
    memcpy(l->y, s->y, (size_t)l->num_nodes * sizeof *l->y);
    l->has_coordinates = 1;
}

/* AUTO: the generated start; for an input with coordinates, the input's coordinates instead when
 * they score lower. Repair only adds crossings in practice, so the input is first scored as read
 * (not at all when a probed edge already has more crossings than the generated start's K) and
 * repaired (which can take long on a crowded input) only when it still wins; then it must win
 * again after repair. given: l's coordinates are the input's. Where the watch stops the work before
 * the generated start is valid, l stays as it was (valid only when the caller made it so); after
 * that, the generated start is taken unless the input's comparison was complete. */
static tsr_status start_auto(tsr_ctx *ctx, tsr_layout *l, int given, uint64_t seed, int threads,
                             tsr__watch *watch, int32_t *counts, int32_t *alt, tsr__start *out)
{
    tsr_layout *s = NULL;
    tsr_layout_score keep, gen;
    int scored = 0;
    tsr_status st = generated_start(ctx, threads, l, seed, watch, counts, alt, &s, &gen, &scored);
    if (st != TSR_OK || !s)
        return st;
    int take = !given || !scored || some_edge_above(l, gen.K);
    if (!take) {
        int repaired = 0;
        if ((st = score_of(ctx, threads, l, alt, &keep, watch)) == TSR_OK &&
            tsr_layout_score_compare(&keep, &gen) < 0 &&
            (st = tsr__repair(ctx, l, &repaired, watch)) == TSR_OK)
            st = score_of(ctx, threads, l, alt, &keep, watch);
        take = st != TSR_OK || tsr_layout_score_compare(&gen, &keep) < 0;
        if (!take) {
            memcpy(counts, alt, (size_t)l->num_edges * sizeof *counts);
            *out = (tsr__start){1, 1, repaired};
        }
        if (stopped(st, watch))
            st = TSR_OK;
    }
    if (st == TSR_OK && take) {
        take_drawing(l, s);
        *out = (tsr__start){1, scored, 0};
    }
    tsr_layout_free(ctx, s);
    return st;
}

tsr_status tsr__start_layout(tsr_ctx *ctx, tsr_layout *l, tsr_layout_init init, uint64_t seed,
                             int threads, tsr__watch *watch, int32_t *counts, tsr__start *out)
{
    memset(out, 0, sizeof *out);
    tsr_status st = tsr__repairable(ctx, l);
    if (st != TSR_OK)
        return st;
    const int given = l->has_coordinates;
    if (!given && init == TSR_LAYOUT_INIT_KEEP)
        init = TSR_LAYOUT_INIT_AUTO;
    /* a graph without coordinates has a valid drawing at once where the canvas allows, until a
     * better one is ready */
    if (!given) {
        out->valid = tsr__init_general_position(l);
    } else { /* an input without violations is the drawing to fall back on */
        size_t violations;
        if ((st = tsr_layout_check(ctx, l, NULL, 0, &violations)) != TSR_OK)
            return st;
        out->valid = violations == 0;
    }
    if (watch)
        watch->need_valid = !out->valid;
    if (init == TSR_LAYOUT_INIT_AUTO) {
        int32_t *alt = NULL;
        if ((st = tsr__alloc(ctx, (size_t)(l->num_edges ? l->num_edges : 1) * sizeof *alt,
                             (void **)&alt)) == TSR_OK)
            st = start_auto(ctx, l, given, seed, threads, watch, counts, alt, out);
        tsr__free(ctx, alt);
    } else if (init == TSR_LAYOUT_INIT_KEEP) { /* repaired in place: invalid if stopped in it */
        int repaired = 0;
        st = tsr__repair(ctx, l, &repaired, watch);
        *out = (tsr__start){st == TSR_OK, 0, repaired};
    } else {
        tsr_layout *s = NULL; /* made aside, so that a stop leaves l as it was */
        if ((st = tsr_layout_clone(ctx, l, &s)) == TSR_OK)
            st = init == TSR_LAYOUT_INIT_STRESS ? tsr__init_stress(ctx, s, seed, watch)
                                                : tsr__init_random(ctx, s, seed);
        if (st == TSR_OK && (st = tsr__repair(ctx, s, &out->repaired, watch)) == TSR_OK) {
            take_drawing(l, s);
            out->valid = 1;
        }
        tsr_layout_free(ctx, s);
    }
    if (watch)
        watch->need_valid = 0;
    return stopped(st, watch) ? TSR_OK : st;
}
