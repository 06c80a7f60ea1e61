/* The drawing object (tessera/layout.h): allocation, copy, release, and the names of its enums. */
#include "layout/layout_internal.h"

#include "core/checked.h"

#include <string.h>

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

tsr_status tsr__layout_dup_text(tsr_ctx *ctx, const char *s, size_t len, char **out)
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
        if (src->node_id[i] &&
            (st = tsr__layout_dup_text(ctx, src->node_id[i], strlen(src->node_id[i]),
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
