/* What an optimizer needs to keep a drawing valid move by move: node-to-edge adjacency (CSR), an
 * occupancy table (point -> node) and the exact validity test of one move. */
#include "layout/geometry_hd.h"
#include "layout/layout_internal.h"

#include "core/checked.h"

#include <stdlib.h>
#include <string.h>

tsr_status tsr__adj_build(tsr_ctx *ctx, const tsr_layout *l, tsr__layout_adj *adj)
{
    memset(adj, 0, sizeof *adj);
    size_t n = (size_t)l->num_nodes, m = (size_t)l->num_edges, b1, b2;
    if (!tsr__size_mul(n + 1, sizeof(int32_t), &b1) || !tsr__size_mul3(m ? m : 1, 2, 4, &b2))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "layout: adjacency size overflows");
    tsr_status st;
    if ((st = tsr__alloc(ctx, b1, (void **)&adj->offset)) != TSR_OK ||
        (st = tsr__alloc(ctx, b2, (void **)&adj->edges)) != TSR_OK) {
        tsr__adj_release(ctx, adj);
        return st;
    }
    memset(adj->offset, 0, b1);
    for (size_t e = 0; e < m; e++) {
        adj->offset[l->edge_u[e] + 1]++;
        adj->offset[l->edge_v[e] + 1]++;
    }
    for (size_t i = 0; i < n; i++)
        adj->offset[i + 1] += adj->offset[i];
    for (size_t e = 0; e < m; e++) {
        int32_t u = l->edge_u[e], v = l->edge_v[e];
        adj->edges[adj->offset[u]++] = (int32_t)e;
        adj->edges[adj->offset[v]++] = (int32_t)e;
    }
    for (size_t i = n; i > 0; i--)
        adj->offset[i] = adj->offset[i - 1];
    adj->offset[0] = 0;
    return TSR_OK;
}

void tsr__adj_release(tsr_ctx *ctx, tsr__layout_adj *adj)
{
    tsr__free(ctx, adj->offset);
    tsr__free(ctx, adj->edges);
    adj->offset = adj->edges = NULL;
}

/* ---------------------------------------------------------------- occupancy */

static const uint64_t OCC_DELETED = UINT64_MAX;

static inline uint64_t occ_key(int32_t x, int32_t y)
{
    return (((uint64_t)(uint32_t)x << 32) | (uint32_t)y) + 1;
}

static inline size_t occ_hash(uint64_t k, size_t mask)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k & mask;
}

tsr_status tsr__occ_build(tsr_ctx *ctx, const tsr_layout *l, tsr__occupancy *o)
{
    memset(o, 0, sizeof *o);
    size_t cap = 64;
    while (cap < (size_t)l->num_nodes * 4)
        cap *= 2;
    size_t bk, bn;
    if (!tsr__size_mul(cap, sizeof(uint64_t), &bk) || !tsr__size_mul(cap, sizeof(int32_t), &bn))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "layout: occupancy size overflows");
    tsr_status st;
    if ((st = tsr__alloc(ctx, bk, (void **)&o->keys)) != TSR_OK ||
        (st = tsr__alloc(ctx, bn, (void **)&o->node)) != TSR_OK) {
        tsr__occ_release(ctx, o);
        return st;
    }
    memset(o->keys, 0, bk);
    o->cap = cap;
    for (int32_t v = 0; v < l->num_nodes; v++) {
        uint64_t k = occ_key(l->x[v], l->y[v]);
        size_t i = occ_hash(k, cap - 1);
        while (o->keys[i] && o->keys[i] != k)
            i = (i + 1) & (cap - 1);
        if (!o->keys[i]) { /* coincident nodes: the first one owns the point */
            o->keys[i] = k;
            o->node[i] = v;
            o->used++;
        }
    }
    return TSR_OK;
}

void tsr__occ_release(tsr_ctx *ctx, tsr__occupancy *o)
{
    tsr__free(ctx, o->keys);
    tsr__free(ctx, o->node);
    memset(o, 0, sizeof *o);
}

int32_t tsr__occ_get(const tsr__occupancy *o, int32_t x, int32_t y)
{
    uint64_t k = occ_key(x, y);
    size_t mask = o->cap - 1;
    for (size_t i = occ_hash(k, mask);; i = (i + 1) & mask) {
        if (o->keys[i] == k)
            return o->node[i];
        if (o->keys[i] == 0)
            return -1;
    }
}

/* Rehashes into fresh arrays of the same capacity, dropping deleted slots. */
static tsr_status occ_compact(tsr_ctx *ctx, tsr__occupancy *o)
{
    tsr__occupancy n;
    memset(&n, 0, sizeof n);
    tsr_status st;
    if ((st = tsr__alloc(ctx, o->cap * sizeof(uint64_t), (void **)&n.keys)) != TSR_OK ||
        (st = tsr__alloc(ctx, o->cap * sizeof(int32_t), (void **)&n.node)) != TSR_OK) {
        tsr__occ_release(ctx, &n);
        return st;
    }
    memset(n.keys, 0, o->cap * sizeof(uint64_t));
    n.cap = o->cap;
    size_t mask = n.cap - 1;
    for (size_t j = 0; j < o->cap; j++)
        if (o->keys[j] && o->keys[j] != OCC_DELETED) {
            size_t i = occ_hash(o->keys[j], mask);
            while (n.keys[i])
                i = (i + 1) & mask;
            n.keys[i] = o->keys[j];
            n.node[i] = o->node[j];
            n.used++;
        }
    tsr__occ_release(ctx, o);
    *o = n;
    return TSR_OK;
}

tsr_status tsr__occ_move(tsr_ctx *ctx, tsr__occupancy *o, int32_t v, int32_t x0, int32_t y0,
                         int32_t x1, int32_t y1)
{
    size_t mask = o->cap - 1;
    uint64_t k0 = occ_key(x0, y0), k1 = occ_key(x1, y1);
    for (size_t i = occ_hash(k0, mask); o->keys[i]; i = (i + 1) & mask)
        if (o->keys[i] == k0) {
            if (o->node[i] == v)
                o->keys[i] = OCC_DELETED;
            break;
        }
    size_t i = occ_hash(k1, mask);
    while (o->keys[i] && o->keys[i] != OCC_DELETED && o->keys[i] != k1)
        i = (i + 1) & mask;
    if (o->keys[i] == k1)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "layout: move onto an occupied point");
    if (o->keys[i] == 0)
        o->used++;
    o->keys[i] = k1;
    o->node[i] = v;
    if (o->used * 4 > o->cap * 3)
        return occ_compact(ctx, o);
    return TSR_OK;
}

/* ---------------------------------------------------------------- move validity */

static int32_t gcd32(int32_t a, int32_t b)
{
    a = a < 0 ? -a : a;
    b = b < 0 ? -b : b;
    while (b) {
        int32_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int tsr__move_valid_nodes(const tsr_layout *l, const tsr__layout_adj *adj, const tsr__occupancy *o,
                          int32_t v, int32_t px, int32_t py)
{
    if (px < 0 || py < 0 || px > l->width || py > l->height)
        return 0;
    if (tsr__occ_get(o, px, py) >= 0)
        return 0; /* occupied (by another node, or v itself: not a move) */
    for (int32_t k = adj->offset[v]; k < adj->offset[v + 1]; k++) {
        int32_t e = adj->edges[k], w = l->edge_u[e] == v ? l->edge_v[e] : l->edge_u[e];
        if (w == v)
            return 0; /* self-loop: never valid */
        int32_t wx = l->x[w], wy = l->y[w], dx = wx - px, dy = wy - py;
        int32_t g = gcd32(dx, dy);
        if (g <= 1)
            continue; /* no lattice point strictly inside the segment */
        if (g - 1 <= l->num_nodes) {
            int32_t sx = dx / g, sy = dy / g;
            for (int32_t t = 1; t < g; t++) {
                int32_t u = tsr__occ_get(o, px + t * sx, py + t * sy);
                if (u >= 0 && u != v)
                    return 0;
            }
        } else {
            for (int32_t u = 0; u < l->num_nodes; u++)
                if (u != v && u != w && tsr__point_on_segment(l->x[u], l->y[u], px, py, wx, wy))
                    return 0;
        }
    }
    return 1;
}

int tsr__move_valid(const tsr_layout *l, const tsr__layout_adj *adj, const tsr__occupancy *o,
                    int32_t v, int32_t px, int32_t py)
{
    if (!tsr__move_valid_nodes(l, adj, o, v, px, py))
        return 0;
    for (int32_t e = 0; e < l->num_edges; e++) {
        int32_t a = l->edge_u[e], b = l->edge_v[e];
        if (a != v && b != v && tsr__point_on_segment(px, py, l->x[a], l->y[a], l->x[b], l->y[b]))
            return 0;
    }
    return 1;
}
