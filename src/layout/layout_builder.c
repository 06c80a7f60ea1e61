/* The builder the format readers share (layout_internal.h): nodes and edges added by id text,
 * ids resolved through an open-addressing hash table, then finished into a tsr_layout. */
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

/* Length of the longest prefix of s that is UTF-8 (RFC 3629: shortest forms, no surrogates, at
 * most U+10FFFF) without C0 control characters; len when all of s is. Ids are written into JSON,
 * GraphML and one-line error messages, which need such text. */
static size_t text_prefix(const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        size_t n = c < 0x80                 ? 1
                   : c >= 0xC2 && c <= 0xDF ? 2
                   : c >= 0xE0 && c <= 0xEF ? 3
                   : c >= 0xF0 && c <= 0xF4 ? 4
                                            : 0;
        if (n == 0 || c < 0x20 || n > len - i)
            return i;
        /* the second byte's range excludes overlong forms, surrogates and code points past
         * U+10FFFF (RFC 3629 section 4) */
        unsigned lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
        unsigned hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
        if (n > 1 && (s[i + 1] < lo || s[i + 1] > hi))
            return i;
        for (size_t k = 2; k < n; k++)
            if (s[i + k] < 0x80 || s[i + k] > 0xBF)
                return i;
        i += n;
    }
    return len;
}

tsr_status tsr__builder_node(tsr__layout_builder *b, const char *id, size_t id_len, int is_string,
                             int64_t x, int64_t y, int line, int col)
{
    tsr_status st;
    size_t good = text_prefix(id, id_len);
    if (good < id_len && col > 0)
        return tsr__fail(b->ctx, TSR_ERR_CORRUPT,
                         "%s:%d:%d: node id is not UTF-8 text without control characters (byte "
                         "%zu of it)",
                         b->name, line, col, good);
    if (good < id_len)
        return tsr__fail(b->ctx, TSR_ERR_CORRUPT,
                         "%s:%d: node id is not UTF-8 text without control characters (byte %zu "
                         "of it)",
                         b->name, line, good);
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
    if ((st = tsr__layout_dup_text(b->ctx, id, id_len, &b->ids[b->nnodes])) != TSR_OK)
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

tsr_status tsr__builder_ensure_node(tsr__layout_builder *b, const char *id, size_t id_len, int line,
                                    int col)
{
    if (tsr__builder_lookup(b, id, id_len) >= 0)
        return TSR_OK;
    return tsr__builder_node(b, id, id_len, 0, INT64_MIN, INT64_MIN, line, col);
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
    if ((st = tsr__layout_dup_text(b->ctx, src, src_len, &b->edge_src[b->nedges - 1])) != TSR_OK ||
        (st = tsr__layout_dup_text(b->ctx, dst, dst_len, &b->edge_dst[b->nedges - 1])) != TSR_OK)
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
