/* Validity of a drawing (layout.h): nodes outside the canvas, coincident nodes, nodes on edges
 * they are not endpoints of, self-loops and duplicate edges. Every violation is counted; the
 * first `capacity` are listed. The work is O((n + m) log n) plus, for edges that are neither
 * vertical nor degenerate, the nodes in their x range: a drawing without coordinates, whose
 * edges are all degenerate, costs no more than its sort however many pairs it counts. */
#include "layout/geometry_hd.h"
#include "layout/layout_internal.h"

#include "core/checked.h"

#include <stdlib.h>
#include <string.h>

typedef struct sink {
    tsr_layout_violation *items;
    size_t capacity, count;
} sink;

static void add(sink *s, tsr_layout_violation_kind kind, int32_t a, int32_t b, int32_t e, int32_t f)
{
    if (s->count < s->capacity)
        s->items[s->count] = (tsr_layout_violation){kind, a, b, e, f};
    s->count++;
}

/* A sort record: 64-bit key, then the index (so equal keys keep index order). */
typedef struct keyed {
    uint64_t key;
    int32_t index;
} keyed;

static int cmp_keyed(const void *p, const void *q)
{
    const keyed *a = p, *b = q;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

static tsr_status alloc_keyed(tsr_ctx *ctx, size_t n, keyed **out)
{
    size_t bytes;
    if (!tsr__size_mul(n ? n : 1, sizeof(keyed), &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "layout: size overflows");
    return tsr__alloc(ctx, bytes, (void **)out);
}

static tsr_status alloc_i32(tsr_ctx *ctx, size_t n, int32_t **out)
{
    size_t bytes;
    if (!tsr__size_mul(n ? n : 1, sizeof(int32_t), &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "layout: size overflows");
    return tsr__alloc(ctx, bytes, (void **)out);
}

/* The first position in order (nodes sorted by (x, y)) whose node is not before (x, y), or with
 * `after`, whose node is after it. */
static int32_t bound(const tsr_layout *l, const int32_t *order, int32_t n, int32_t x, int32_t y,
                     int after)
{
    int32_t first = 0, last = n;
    while (first < last) {
        int32_t mid = first + (last - first) / 2, w = order[mid];
        if (l->x[w] < x || (l->x[w] == x && (l->y[w] < y || (after && l->y[w] == y))))
            first = mid + 1;
        else
            last = mid;
    }
    return first;
}

tsr_status tsr_layout_check(tsr_ctx *ctx, const tsr_layout *l, tsr_layout_violation *items,
                            size_t capacity, size_t *count)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (!l || !count || (!items && capacity))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: bad tsr_layout_check arguments");
    sink s = {items, capacity, 0};
    int32_t n = l->num_nodes, m = l->num_edges;
    int32_t *order = NULL;
    keyed *rec = NULL;
    if ((st = alloc_i32(ctx, (size_t)n, &order)) != TSR_OK ||
        (st = alloc_keyed(ctx, (size_t)(n > m ? n : m), &rec)) != TSR_OK)
        goto done;

    for (int32_t i = 0; i < n; i++)
        if (l->x[i] < 0 || l->y[i] < 0 || l->x[i] > l->width || l->y[i] > l->height)
            add(&s, TSR_LAYOUT_OUTSIDE_CANVAS, i, -1, -1, -1);

    /* Coincident nodes: sort by (x, y); each node of a group pairs with the group's first. */
    /* Coordinates are biased by 2^31 so that negative (outside) values order correctly. */
    for (int32_t i = 0; i < n; i++)
        rec[i] = (keyed){((uint64_t)((int64_t)l->x[i] + 2147483648) << 32) |
                             (uint64_t)((int64_t)l->y[i] + 2147483648),
                         i};
    qsort(rec, (size_t)n, sizeof *rec, cmp_keyed);
    for (int32_t i = 0; i < n; i++)
        order[i] = rec[i].index;
    for (int32_t i = 1, first = 0; i < n; i++) {
        int32_t a = order[first], b = order[i];
        if (l->x[a] == l->x[b] && l->y[a] == l->y[b])
            add(&s, TSR_LAYOUT_COINCIDENT_NODES, a, b, -1, -1);
        else
            first = i;
    }

    /* Nodes on edges, with the nodes sorted by (x, y) (order). A vertical or degenerate edge
     * (both ends at one point, as in a graph without coordinates) holds exactly the nodes whose
     * key lies in [(x, lo y), (x, hi y)]: one range found by binary search, counted without
     * visiting it past the listing's capacity. Other edges visit the nodes of their x range. */
    for (int32_t e = 0; e < m; e++) {
        int32_t u = l->edge_u[e], v = l->edge_v[e];
        if (u == v)
            continue;
        int32_t ax = l->x[u], ay = l->y[u], bx = l->x[v], by = l->y[v];
        if (ax == bx) {
            int32_t first = bound(l, order, n, ax, ay < by ? ay : by, 0);
            int32_t last = bound(l, order, n, ax, ay < by ? by : ay, 1);
            /* u and v both lie in the range; every other node in it is on the edge. */
            size_t total = s.count + (size_t)(last - first) - 2;
            for (int32_t i = first; i < last && s.count < s.capacity; i++)
                if (order[i] != u && order[i] != v)
                    add(&s, TSR_LAYOUT_NODE_ON_EDGE, order[i], -1, e, -1);
            s.count = total;
            continue;
        }
        int32_t lox = ax < bx ? ax : bx, hix = ax < bx ? bx : ax;
        for (int32_t i = bound(l, order, n, lox, INT32_MIN, 0); i < n && l->x[order[i]] <= hix;
             i++) {
            int32_t w = order[i];
            if (w != u && w != v && tsr__point_on_segment(l->x[w], l->y[w], ax, ay, bx, by))
                add(&s, TSR_LAYOUT_NODE_ON_EDGE, w, -1, e, -1);
        }
    }

    for (int32_t e = 0; e < m; e++)
        if (l->edge_u[e] == l->edge_v[e])
            add(&s, TSR_LAYOUT_SELF_LOOP, l->edge_u[e], -1, e, -1);

    /* Duplicate edges (undirected): sort by (min end, max end). */
    for (int32_t e = 0; e < m; e++) {
        uint32_t u = (uint32_t)l->edge_u[e], v = (uint32_t)l->edge_v[e];
        rec[e] = (keyed){u < v ? (uint64_t)u << 32 | v : (uint64_t)v << 32 | u, e};
    }
    qsort(rec, (size_t)m, sizeof *rec, cmp_keyed);
    for (int32_t i = 1, first = 0; i < m; i++) {
        if (rec[first].key == rec[i].key)
            add(&s, TSR_LAYOUT_DUPLICATE_EDGE, (int32_t)(rec[i].key >> 32),
                (int32_t)(uint32_t)rec[i].key, rec[first].index, rec[i].index);
        else
            first = i;
    }
    *count = s.count;
done:
    tsr__free(ctx, order);
    tsr__free(ctx, rec);
    return st;
}
