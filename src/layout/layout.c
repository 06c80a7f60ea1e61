/* The drawing object (allocation, copy, names) and the builder the format readers share. */
#include "layout/layout_internal.h"

#include "core/checked.h"

#include <string.h>

tsr_status tsr__layout_grow(tsr_ctx *ctx, void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return TSR_OK;
    size_t ncap = *cap ? *cap : 16, bytes;
    while (ncap < need)
        if (!tsr__size_mul(ncap, 2, &ncap))
            return tsr__fail(ctx, TSR_ERR_OVERFLOW, "layout: array size overflows");
    if (!tsr__size_mul(ncap, elem, &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "layout: array size overflows");
    void *q;
    tsr_status st = tsr__alloc(ctx, bytes, &q);
    if (st != TSR_OK)
        return st;
    if (*p)
        memcpy(q, *p, *cap * elem);
    tsr__free(ctx, *p);
    *p = q;
    *cap = ncap;
    return TSR_OK;
}

/* Allocates count*elem zeroed bytes. */
static tsr_status alloc_zero(tsr_ctx *ctx, size_t count, size_t elem, void **out)
{
    size_t bytes;
    if (!tsr__size_mul(count ? count : 1, elem, &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "layout: size overflows");
    tsr_status st = tsr__alloc(ctx, bytes, out);
    if (st == TSR_OK)
        memset(*out, 0, bytes);
    return st;
}

tsr_status tsr_layout_alloc(tsr_ctx *ctx, int32_t num_nodes, int32_t num_edges, tsr_layout **out)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (!out || num_nodes < 0 || num_edges < 0)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: bad tsr_layout_alloc arguments");
    *out = NULL;
    tsr_layout *l;
    if ((st = alloc_zero(ctx, 1, sizeof *l, (void **)&l)) != TSR_OK)
        return st;
    l->num_nodes = num_nodes;
    l->num_edges = num_edges;
    l->width = l->height = TSR_LAYOUT_DEFAULT_CANVAS;
    size_t n = (size_t)num_nodes, m = (size_t)num_edges;
    if ((st = alloc_zero(ctx, n, sizeof(int32_t), (void **)&l->x)) != TSR_OK ||
        (st = alloc_zero(ctx, n, sizeof(int32_t), (void **)&l->y)) != TSR_OK ||
        (st = alloc_zero(ctx, m, sizeof(int32_t), (void **)&l->edge_u)) != TSR_OK ||
        (st = alloc_zero(ctx, m, sizeof(int32_t), (void **)&l->edge_v)) != TSR_OK ||
        (st = alloc_zero(ctx, n, sizeof(char *), (void **)&l->node_id)) != TSR_OK ||
        (st = alloc_zero(ctx, n, 1, (void **)&l->node_id_is_string)) != TSR_OK) {
        tsr_layout_free(ctx, l);
        return st;
    }
    *out = l;
    return TSR_OK;
}

void tsr_layout_free(tsr_ctx *ctx, tsr_layout *l)
{
    if (!l)
        return;
    if (l->node_id)
        for (int32_t i = 0; i < l->num_nodes; i++)
            tsr__free(ctx, l->node_id[i]);
    tsr__free(ctx, l->node_id);
    tsr__free(ctx, l->node_id_is_string);
    tsr__free(ctx, l->x);
    tsr__free(ctx, l->y);
    tsr__free(ctx, l->edge_u);
    tsr__free(ctx, l->edge_v);
    tsr__free(ctx, l);
}

/* Copies len bytes of s into a new NUL-terminated string. */
static tsr_status dup_text(tsr_ctx *ctx, const char *s, size_t len, char **out)
{
    size_t bytes;
    if (!tsr__size_add(len, 1, &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "layout: id too long");
    tsr_status st = tsr__alloc(ctx, bytes, (void **)out);
    if (st == TSR_OK) {
        memcpy(*out, s, len);
        (*out)[len] = '\0';
    }
    return st;
}

tsr_status tsr_layout_clone(tsr_ctx *ctx, const tsr_layout *src, tsr_layout **out)
{
    if (!src || !out)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: NULL argument to clone");
    tsr_layout *l;
    tsr_status st = tsr_layout_alloc(ctx, src->num_nodes, src->num_edges, &l);
    if (st != TSR_OK)
        return st;
    size_t n = (size_t)src->num_nodes, m = (size_t)src->num_edges;
    l->width = src->width;
    l->height = src->height;
    l->has_coordinates = src->has_coordinates;
    memcpy(l->x, src->x, n * sizeof *l->x);
    memcpy(l->y, src->y, n * sizeof *l->y);
    memcpy(l->edge_u, src->edge_u, m * sizeof *l->edge_u);
    memcpy(l->edge_v, src->edge_v, m * sizeof *l->edge_v);
    memcpy(l->node_id_is_string, src->node_id_is_string, n);
    for (size_t i = 0; i < n; i++)
        if (src->node_id[i] && (st = dup_text(ctx, src->node_id[i], strlen(src->node_id[i]),
                                              &l->node_id[i])) != TSR_OK) {
            tsr_layout_free(ctx, l);
            return st;
        }
    *out = l;
    return TSR_OK;
}

int tsr_layout_score_compare(const tsr_layout_score *a, const tsr_layout_score *b)
{
    const int64_t av[4] = {a->K, a->n_K, a->Phi, a->C}, bv[4] = {b->K, b->n_K, b->Phi, b->C};
    for (int i = 0; i < 4; i++)
        if (av[i] != bv[i])
            return av[i] < bv[i] ? -1 : 1;
    return 0;
}

const char *tsr_layout_violation_name(tsr_layout_violation_kind kind)
{
    switch (kind) {
    case TSR_LAYOUT_OUTSIDE_CANVAS: return "outside-canvas";
    case TSR_LAYOUT_COINCIDENT_NODES: return "coincident-nodes";
    case TSR_LAYOUT_NODE_ON_EDGE: return "node-on-edge";
    case TSR_LAYOUT_SELF_LOOP: return "self-loop";
    case TSR_LAYOUT_DUPLICATE_EDGE: return "duplicate-edge";
    }
    return "unknown";
}

static const char *const init_names[] = {"auto", "keep", "stress", "random"};

const char *tsr_layout_init_name(tsr_layout_init init)
{
    return (unsigned)init < 4 ? init_names[init] : "unknown";
}

tsr_status tsr_layout_init_parse(const char *name, tsr_layout_init *out)
{
    for (int i = 0; name && i < 4; i++)
        if (strcmp(name, init_names[i]) == 0) {
            *out = (tsr_layout_init)i;
            return TSR_OK;
        }
    return TSR_ERR_INVALID_ARGUMENT;
}

/* ---------------------------------------------------------------- builder */

void tsr__builder_init(tsr__layout_builder *b, tsr_ctx *ctx, const char *name)
{
    memset(b, 0, sizeof *b);
    b->ctx = ctx;
    b->name = name ? name : "<input>";
    b->width = b->height = -1;
    b->all_coordinates = 1;
}

void tsr__builder_release(tsr__layout_builder *b)
{
    tsr_ctx *ctx = b->ctx;
    for (size_t i = 0; i < b->nnodes; i++)
        tsr__free(ctx, b->ids[i]);
    for (size_t i = 0; i < b->nedges; i++) {
        tsr__free(ctx, b->edge_src[i]);
        tsr__free(ctx, b->edge_dst[i]);
    }
    void *arrays[] = {b->ids,      b->id_is_string, b->x,        b->y,    b->edge_src,
                      b->edge_dst, b->edge_line,    b->edge_col, b->table};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        tsr__free(ctx, arrays[i]);
    memset(b, 0, sizeof *b);
}

static uint64_t hash_text(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* Slot of id in the table: the node index + 1 stored there, or 0 with *slot the free place. */
static int32_t table_find(const tsr__layout_builder *b, const char *id, size_t len, size_t *slot)
{
    size_t mask = b->table_cap - 1, i = (size_t)hash_text(id, len) & mask;
    for (;; i = (i + 1) & mask) {
        int32_t v = b->table[i];
        if (v == 0 || (strlen(b->ids[v - 1]) == len && memcmp(b->ids[v - 1], id, len) == 0)) {
            *slot = i;
            return v;
        }
    }
}

int32_t tsr__builder_lookup(const tsr__layout_builder *b, const char *id, size_t len)
{
    size_t slot;
    return b->table_cap ? table_find(b, id, len, &slot) - 1 : -1;
}

static tsr_status table_rehash(tsr__layout_builder *b, size_t cap)
{
    int32_t *old = b->table;
    size_t ocap = b->table_cap, bytes;
    if (!tsr__size_mul(cap, sizeof(int32_t), &bytes))
        return tsr__fail(b->ctx, TSR_ERR_OVERFLOW, "layout: too many nodes");
    tsr_status st = tsr__alloc(b->ctx, bytes, (void **)&b->table);
    if (st != TSR_OK) {
        b->table = old;
        return st;
    }
    memset(b->table, 0, bytes);
    b->table_cap = cap;
    for (size_t i = 0; i < ocap; i++)
        if (old[i]) {
            size_t slot;
            const char *id = b->ids[old[i] - 1];
            table_find(b, id, strlen(id), &slot);
            b->table[slot] = old[i];
        }
    tsr__free(b->ctx, old);
    return TSR_OK;
}

tsr_status tsr__builder_node(tsr__layout_builder *b, const char *id, size_t id_len, int is_string,
                             int64_t x, int64_t y, int line, int col)
{
    tsr_status st;
    if (b->nnodes >= INT32_MAX - 1)
        return tsr__fail(b->ctx, TSR_ERR_LIMIT, "%s: more than 2^31 nodes", b->name);
    if ((b->nnodes + 1) * 2 > b->table_cap &&
        (st = table_rehash(b, b->table_cap ? b->table_cap * 2 : 64)) != TSR_OK)
        return st;
    size_t slot;
    int32_t seen = table_find(b, id, id_len, &slot);
    if (seen && col > 0)
        return tsr__fail(b->ctx, TSR_ERR_CORRUPT, "%s:%d:%d: node id '%.*s' appears twice", b->name,
                         line, col, (int)(id_len > 64 ? 64 : id_len), id);
    if (seen)
        return tsr__fail(b->ctx, TSR_ERR_CORRUPT, "%s:%d: node id '%.*s' appears twice", b->name,
                         line, (int)(id_len > 64 ? 64 : id_len), id);
    size_t need = b->nnodes + 1, c0 = b->node_cap, c;
    c = c0;
    if ((st = tsr__layout_grow(b->ctx, (void **)&b->ids, &c, need, sizeof(char *))) != TSR_OK)
        return st;
    c = c0;
    if ((st = tsr__layout_grow(b->ctx, (void **)&b->id_is_string, &c, need, 1)) != TSR_OK)
        return st;
    c = c0;
    if ((st = tsr__layout_grow(b->ctx, (void **)&b->x, &c, need, sizeof(int64_t))) != TSR_OK)
        return st;
    c = c0;
    if ((st = tsr__layout_grow(b->ctx, (void **)&b->y, &c, need, sizeof(int64_t))) != TSR_OK)
        return st;
    b->node_cap = c;
    if ((st = dup_text(b->ctx, id, id_len, &b->ids[b->nnodes])) != TSR_OK)
        return st;
    b->id_is_string[b->nnodes] = (uint8_t)(is_string != 0);
    b->x[b->nnodes] = x;
    b->y[b->nnodes] = y;
    if (x == INT64_MIN || y == INT64_MIN)
        b->all_coordinates = 0;
    else
        b->any_coordinates = 1;
    b->nnodes++;
    b->table[slot] = (int32_t)b->nnodes;
    return TSR_OK;
}

tsr_status tsr__builder_edge(tsr__layout_builder *b, const char *src, size_t src_len,
                             const char *dst, size_t dst_len, int line, int col)
{
    tsr_status st;
    if (b->nedges >= INT32_MAX - 1)
        return tsr__fail(b->ctx, TSR_ERR_LIMIT, "%s: more than 2^31 edges", b->name);
    size_t need = b->nedges + 1, c0 = b->edge_cap, c;
    void **arrays[] = {(void **)&b->edge_src, (void **)&b->edge_dst, (void **)&b->edge_line,
                       (void **)&b->edge_col};
    size_t sizes[] = {sizeof(char *), sizeof(char *), sizeof(int32_t), sizeof(int32_t)};
    for (int i = 0; i < 4; i++) {
        c = c0;
        if ((st = tsr__layout_grow(b->ctx, arrays[i], &c, need, sizes[i])) != TSR_OK)
            return st;
    }
    b->edge_cap = c;
    b->edge_src[b->nedges] = b->edge_dst[b->nedges] = NULL;
    b->edge_line[b->nedges] = line;
    b->edge_col[b->nedges] = col;
    b->nedges++;
    if ((st = dup_text(b->ctx, src, src_len, &b->edge_src[b->nedges - 1])) != TSR_OK ||
        (st = dup_text(b->ctx, dst, dst_len, &b->edge_dst[b->nedges - 1])) != TSR_OK)
        return st;
    return TSR_OK;
}

tsr_status tsr__builder_finish(tsr__layout_builder *b, tsr_layout **out)
{
    tsr_ctx *ctx = b->ctx;
    *out = NULL;
    if (b->any_coordinates && !b->all_coordinates)
        return tsr__fail(ctx, TSR_ERR_CORRUPT,
                         "%s: some nodes have coordinates and others not (give x and y for all "
                         "nodes or for none)",
                         b->name);
    int64_t w = b->width < 0 ? TSR_LAYOUT_DEFAULT_CANVAS : b->width;
    int64_t h = b->height < 0 ? TSR_LAYOUT_DEFAULT_CANVAS : b->height;
    if (w > TSR_LAYOUT_MAX_CANVAS || h > TSR_LAYOUT_MAX_CANVAS)
        return tsr__fail(ctx, TSR_ERR_LIMIT, "%s: canvas %lldx%lld exceeds the limit of 2^30",
                         b->name, (long long)w, (long long)h);
    if ((uint64_t)(w + 1) * (uint64_t)(h + 1) < (uint64_t)b->nnodes)
        return tsr__fail(
            ctx, TSR_ERR_LIMIT,
            "%s: the canvas [0,%lld]x[0,%lld] has fewer grid points than the %zu nodes", b->name,
            (long long)w, (long long)h, b->nnodes);
    for (size_t i = 0; i < b->nnodes && b->all_coordinates; i++)
        if (b->x[i] < 0 || b->y[i] < 0 || b->x[i] > TSR_LAYOUT_MAX_CANVAS ||
            b->y[i] > TSR_LAYOUT_MAX_CANVAS)
            return tsr__fail(ctx, TSR_ERR_LIMIT,
                             "%s: node '%s' at (%lld, %lld) is outside [0, 2^30]^2, which no "
                             "canvas can hold",
                             b->name, b->ids[i], (long long)b->x[i], (long long)b->y[i]);
    int32_t *ends;
    size_t bytes;
    if (!tsr__size_mul3(b->nedges ? b->nedges : 1, 2, sizeof(int32_t), &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "%s: too many edges", b->name);
    tsr_status st = tsr__alloc(ctx, bytes, (void **)&ends);
    if (st != TSR_OK)
        return st;
    for (size_t e = 0; e < b->nedges; e++)
        for (int k = 0; k < 2; k++) {
            const char *id = k ? b->edge_dst[e] : b->edge_src[e];
            size_t slot;
            int32_t v = b->table_cap ? table_find(b, id, strlen(id), &slot) : 0;
            if (!v) {
                tsr__free(ctx, ends);
                if (b->edge_line[e] > 0 && b->edge_col[e] > 0)
                    return tsr__fail(ctx, TSR_ERR_CORRUPT,
                                     "%s:%d:%d: edge %zu names unknown node id '%.64s' as its %s",
                                     b->name, b->edge_line[e], b->edge_col[e], e, id,
                                     k ? "target" : "source");
                if (b->edge_line[e] > 0)
                    return tsr__fail(ctx, TSR_ERR_CORRUPT,
                                     "%s:%d: edge %zu names unknown node id '%.64s' as its %s",
                                     b->name, b->edge_line[e], e, id, k ? "target" : "source");
                return tsr__fail(ctx, TSR_ERR_CORRUPT,
                                 "%s: edge %zu names unknown node id '%.64s' as its %s", b->name, e,
                                 id, k ? "target" : "source");
            }
            ends[2 * e + k] = v - 1;
        }
    tsr_layout *l;
    if ((st = tsr_layout_alloc(ctx, (int32_t)b->nnodes, (int32_t)b->nedges, &l)) != TSR_OK) {
        tsr__free(ctx, ends);
        return st;
    }
    l->width = (int32_t)w;
    l->height = (int32_t)h;
    l->has_coordinates = b->all_coordinates && b->nnodes > 0;
    for (size_t i = 0; i < b->nnodes; i++) {
        l->x[i] = l->has_coordinates ? (int32_t)b->x[i] : 0;
        l->y[i] = l->has_coordinates ? (int32_t)b->y[i] : 0;
        l->node_id[i] = b->ids[i]; /* ownership moves to the layout */
        b->ids[i] = NULL;
        l->node_id_is_string[i] = b->id_is_string[i];
    }
    for (size_t e = 0; e < b->nedges; e++) {
        l->edge_u[e] = ends[2 * e];
        l->edge_v[e] = ends[2 * e + 1];
    }
    tsr__free(ctx, ends);
    *out = l;
    return TSR_OK;
}
