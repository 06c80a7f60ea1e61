/* Stress layout with the long chains set aside. A chain is a maximal path whose interior nodes
 * all have degree 2, with at least two interior nodes and two distinct ends of another degree.
 * A chain much shorter than the distance between its ends in the rest of the graph (here: at
 * most half of it) pulls them together in a stress layout and folds the rest (a grid with a few
 * long paths between random grid nodes is drawn crumpled instead of flat). Such chains are set
 * aside: the rest of the graph gets the stress layout alone, and each chain's interior nodes are
 * spread evenly along the segment between its two ends, so its crossings are shared by its many
 * edges. Chains that are not such shortcuts stay in the stress layout. A shortcut with one interior
 * node is not set aside (its two edges would carry its crossings all the same) but marked for the
 * stress layout to lengthen (tsr__mark_short_shortcuts). */
#include "layout/layout_internal.h"

#include <math.h>

/* Interior nodes have degree 2 and no self-loop. */
static int interior(const tsr_layout *l, const tsr__layout_adj *adj, int32_t v)
{
    if (adj->offset[v + 1] - adj->offset[v] != 2)
        return 0;
    int32_t e0 = adj->edges[adj->offset[v]], e1 = adj->edges[adj->offset[v] + 1];
    return e0 != e1 && l->edge_u[e0] != l->edge_v[e0] && l->edge_u[e1] != l->edge_v[e1];
}

/* The neighbour of v across edge e. */
static int32_t across(const tsr_layout *l, int32_t e, int32_t v)
{
    return l->edge_u[e] == v ? l->edge_v[e] : l->edge_u[e];
}

/* Whether b is within `limit` steps of a through nodes outside every chain (chain[w] == 0).
 * dist: all -1 on entry and on return; queue: scratch of n entries. */
static int near_in_core(const tsr_layout *l, const tsr__layout_adj *adj, const int32_t *chain,
                        int32_t a, int32_t b, int32_t limit, int32_t *dist, int32_t *queue)
{
    int32_t head = 0, tail = 0;
    dist[a] = 0;
    queue[tail++] = a;
    while (head < tail && dist[b] < 0) {
        int32_t u = queue[head++];
        if (dist[u] >= limit)
            break; /* breadth first: every later node is at least this far */
        for (int32_t k = adj->offset[u]; k < adj->offset[u + 1]; k++) {
            int32_t w = across(l, adj->edges[k], u);
            if (!chain[w] && dist[w] < 0) {
                dist[w] = dist[u] + 1;
                queue[tail++] = w;
            }
        }
    }
    int found = dist[b] >= 0;
    for (int32_t i = 0; i < tail; i++)
        dist[queue[i]] = -1;
    return found;
}

tsr_status tsr__mark_short_shortcuts(tsr_ctx *ctx, const tsr_layout *l, const tsr__layout_adj *adj,
                                     uint8_t *stretch, tsr__watch *watch)
{
    int32_t n = l->num_nodes;
    size_t nn = (size_t)(n ? n : 1);
    int32_t *alone = NULL, *dist = NULL, *queue = NULL;
    tsr_status st;
    if ((st = tsr__alloc(ctx, nn * sizeof *alone, (void **)&alone)) != TSR_OK ||
        (st = tsr__alloc(ctx, nn * sizeof *dist, (void **)&dist)) != TSR_OK ||
        (st = tsr__alloc(ctx, nn * sizeof *queue, (void **)&queue)) != TSR_OK)
        goto done;
    for (int32_t v = 0; v < n; v++) {
        alone[v] = stretch[v] = 0;
        dist[v] = -1;
    }
    for (int32_t v = 0; v < n; v++) {
        if (!interior(l, adj, v))
            continue;
        if (tsr__watch_poll(watch) != TSR__STOP_NONE) { /* a search may visit the whole graph */
            st = TSR_ERR_INTERRUPTED;
            break;
        }
        int32_t a = across(l, adj->edges[adj->offset[v]], v);
        int32_t b = across(l, adj->edges[adj->offset[v] + 1], v);
        if (a == b || interior(l, adj, a) || interior(l, adj, b))
            continue;
        alone[v] = 1; /* the rest of the graph: without v */
        stretch[v] = !near_in_core(l, adj, alone, a, b, 2 * TSR__SHORTCUT_EDGE_LENGTH, dist, queue);
        alone[v] = 0;
    }
done:
    tsr__free(ctx, alone);
    tsr__free(ctx, dist);
    tsr__free(ctx, queue);
    return st;
}

/* From interior node v, leaves by edge e and walks through interior nodes, appending them to
 * path[*len...] and marking them; returns the end reached (a non-interior node), or -1 when the
 * walk comes back to a marked node (a cycle of degree-2 nodes). */
static int32_t walk(const tsr_layout *l, const tsr__layout_adj *adj, int32_t v, int32_t e,
                    uint8_t *mark, int32_t *path, int32_t *len)
{
    for (;;) {
        int32_t w = across(l, e, v);
        if (!interior(l, adj, w))
            return w;
        if (mark[w])
            return -1;
        mark[w] = 1;
        path[(*len)++] = w;
        int32_t e0 = adj->edges[adj->offset[w]], e1 = adj->edges[adj->offset[w] + 1];
        e = e0 == e ? e1 : e0;
        v = w;
    }
}

tsr_status tsr__init_stress_chains(tsr_ctx *ctx, tsr_layout *l, uint64_t seed, tsr__watch *watch,
                                   int *found)
{
    int32_t n = l->num_nodes, m = l->num_edges;
    *found = 0;
    tsr__layout_adj adj;
    tsr_status st = tsr__adj_build(ctx, l, &adj);
    if (st != TSR_OK)
        return st;
    /* chain[v]: 1 + chain number for the interior nodes of a chain set aside, else 0; the
     * chains' nodes in order in `order`, chain c spanning order[start[c] .. start[c + 1]),
     * between the ends end[2c] and end[2c + 1] */
    int32_t *chain = NULL, *order = NULL, *start = NULL, *end = NULL, *index = NULL;
    int32_t *dist = NULL, *queue = NULL;
    uint8_t *mark = NULL;
    tsr_layout *core = NULL;
    size_t nn = (size_t)(n ? n : 1);
    if ((st = tsr__alloc(ctx, nn * sizeof *chain, (void **)&chain)) != TSR_OK ||
        (st = tsr__alloc(ctx, nn * sizeof *order, (void **)&order)) != TSR_OK ||
        (st = tsr__alloc(ctx, (nn + 1) * sizeof *start, (void **)&start)) != TSR_OK ||
        (st = tsr__alloc(ctx, 2 * nn * sizeof *end, (void **)&end)) != TSR_OK ||
        (st = tsr__alloc(ctx, nn * sizeof *index, (void **)&index)) != TSR_OK ||
        (st = tsr__alloc(ctx, nn * sizeof *dist, (void **)&dist)) != TSR_OK ||
        (st = tsr__alloc(ctx, nn * sizeof *queue, (void **)&queue)) != TSR_OK ||
        (st = tsr__alloc(ctx, nn, (void **)&mark)) != TSR_OK)
        goto done;
    for (int32_t v = 0; v < n; v++) {
        chain[v] = mark[v] = 0;
        dist[v] = -1;
    }
    int32_t nchains = 0, used = 0;
    start[0] = 0;
    for (int32_t v = 0; v < n; v++) {
        if (mark[v] || !interior(l, &adj, v))
            continue;
        /* walk one way into a scratch run at the end of `order`, reverse it, add v, walk on */
        int32_t len = 0, *path = order + used;
        mark[v] = 1;
        int32_t a = walk(l, &adj, v, adj.edges[adj.offset[v]], mark, path, &len);
        for (int32_t i = 0, j = len - 1; i < j; i++, j--) {
            int32_t t = path[i];
            path[i] = path[j];
            path[j] = t;
        }
        path[len++] = v;
        int32_t b = a < 0 ? -1 : walk(l, &adj, v, adj.edges[adj.offset[v] + 1], mark, path, &len);
        if (a < 0 || b < 0 || a == b || len < 2)
            continue; /* a cycle, a loop back to one node, or too short: stays in the core */
        for (int32_t i = 0; i < len; i++)
            chain[path[i]] = nchains + 1;
        end[2 * nchains] = a;
        end[2 * nchains + 1] = b;
        used += len;
        start[++nchains] = used;
    }
    /* keep only the shortcuts (distances without any candidate chain): flags in mark[c], then
     * the kept chains moved to the front in order (writes never pass the chain being read) */
    for (int32_t c = 0; c < nchains; c++) {
        if (tsr__watch_poll(watch) != TSR__STOP_NONE) { /* a search may visit the whole graph */
            st = TSR_ERR_INTERRUPTED;
            goto done;
        }
        int32_t len = start[c + 1] - start[c];
        mark[c] = !near_in_core(l, &adj, chain, end[2 * c], end[2 * c + 1], 2 * (len + 1) - 1, dist,
                                queue);
    }
    int32_t kept = 0, from = 0;
    used = 0;
    for (int32_t c = 0; c < nchains; c++) {
        int32_t next = start[c + 1], len = next - from;
        if (mark[c]) {
            for (int32_t i = 0; i < len; i++)
                order[used + i] = order[from + i];
            end[2 * kept] = end[2 * c];
            end[2 * kept + 1] = end[2 * c + 1];
            used += len;
            start[++kept] = used;
        }
        from = next;
    }
    for (int32_t v = 0; v < n; v++)
        chain[v] = 0;
    for (int32_t c = 0; c < kept; c++)
        for (int32_t i = start[c]; i < start[c + 1]; i++)
            chain[order[i]] = c + 1;
    nchains = kept;
    if (nchains == 0)
        goto done;
    /* the core: every node outside the chains, every edge with no chain node */
    int32_t ncore = 0, mcore = 0;
    for (int32_t v = 0; v < n; v++)
        index[v] = chain[v] ? -1 : ncore++;
    for (int32_t e = 0; e < m; e++)
        mcore += !chain[l->edge_u[e]] && !chain[l->edge_v[e]];
    if ((st = tsr_layout_alloc(ctx, ncore, mcore, &core)) != TSR_OK)
        goto done;
    core->width = l->width;
    core->height = l->height;
    mcore = 0;
    for (int32_t e = 0; e < m; e++)
        if (!chain[l->edge_u[e]] && !chain[l->edge_v[e]]) {
            core->edge_u[mcore] = index[l->edge_u[e]];
            core->edge_v[mcore++] = index[l->edge_v[e]];
        }
    if ((st = tsr__init_stress(ctx, core, seed, watch)) != TSR_OK)
        goto done;
    for (int32_t v = 0; v < n; v++)
        if (index[v] >= 0) {
            l->x[v] = core->x[index[v]];
            l->y[v] = core->y[index[v]];
        }
    for (int32_t c = 0; c < nchains; c++) {
        int32_t a = end[2 * c], b = end[2 * c + 1], len = start[c + 1] - start[c];
        for (int32_t i = 0; i < len; i++) {
            double t = (double)(i + 1) / (double)(len + 1);
            int32_t v = order[start[c] + i];
            l->x[v] = (int32_t)floor(l->x[a] + t * ((double)l->x[b] - l->x[a]) + 0.5);
            l->y[v] = (int32_t)floor(l->y[a] + t * ((double)l->y[b] - l->y[a]) + 0.5);
        }
    }
    l->has_coordinates = 1;
    *found = nchains;
done:
    tsr_layout_free(ctx, core);
    tsr__adj_release(ctx, &adj);
    tsr__free(ctx, chain);
    tsr__free(ctx, order);
    tsr__free(ctx, start);
    tsr__free(ctx, end);
    tsr__free(ctx, index);
    tsr__free(ctx, dist);
    tsr__free(ctx, queue);
    tsr__free(ctx, mark);
    return st;
}
