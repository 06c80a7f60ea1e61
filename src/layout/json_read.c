/* Contest JSON reader over jansson: {"nodes":[{"id","x","y"}...], "edges":[{"source","target"}...],
 * "width", "height"} (RFC 8259, strict; a key twice in one object is an error). Unknown keys at
 * any level are ignored; ids are integers or strings; x, y, width and height must be integers (no
 * fraction, no exponent). Syntax errors name file:line:column as jansson reports them; jansson's
 * values carry no position, so json_places (below) finds where each node, edge and top-level
 * member starts for the messages about them. */
#include "layout/layout_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

enum { MAX_DEPTH = 256 };

/* Where things start in the text, 1-based. */
typedef struct place {
    int32_t line, col;
} place;

typedef struct json_places {
    place *node, *edge; /* each element of the top-level "nodes" and "edges" arrays */
    size_t nnode, node_cap, nedge, edge_cap;
    place top[4]; /* the values of "nodes", "edges", "width", "height" */
} json_places;

static const char *const top_keys[4] = {"nodes", "edges", "width", "height"};

/* Index in top_keys of the key whose string literal (quotes included) is s[0..n), or -1. */
static int top_key_index(const char *s, size_t n)
{
    char key[8];
    if (memchr(s, '\\', n)) { /* an escaped key: let jansson decode it */
        json_t *v = json_loadb(s, n, JSON_DECODE_ANY, NULL);
        const char *t = json_string_value(v);
        size_t tl = t ? json_string_length(v) : sizeof key;
        if (tl < sizeof key)
            memcpy(key, t, tl + 1);
        json_decref(v);
        if (tl >= sizeof key)
            return -1;
    } else {
        if (n - 2 >= sizeof key)
            return -1;
        memcpy(key, s + 1, n - 2);
        key[n - 2] = '\0';
    }
    for (int k = 0; k < 4; k++)
        if (strcmp(key, top_keys[k]) == 0)
            return k;
    return -1;
}

static tsr_status places_add(tsr_ctx *ctx, place **a, size_t *n, size_t *cap, place p)
{
    tsr_status st = tsr__layout_grow(ctx, (void **)a, cap, *n + 1, sizeof(place));
    if (st == TSR_OK)
        (*a)[(*n)++] = p;
    return st;
}

/* One pass over the text before jansson parses it: records the places above and refuses nesting
 * deeper than MAX_DEPTH. Text that is not JSON is left to jansson's messages: where the text
 * parses, the places are complete (one per element, in order). */
static tsr_status json_places_scan(tsr_ctx *ctx, const char *name, const char *s, size_t len,
                                   json_places *w)
{
    int32_t line = 1;
    const char *line_start = s, *end = s + len;
    /* expect_key: the next string at depth 1 is a key; value_next: the next token starts a value
     * (after ':' at depth 1, after '[' or ',' in a top-level "nodes" or "edges" array) */
    int depth = 0, expect_key = 0, value_next = 0, top_member = -1, in_array = -1;
    for (const char *p = s; p < end; p++) {
        const char c = *p;
        if (c == '\n') {
            line++;
            line_start = p + 1;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r')
            continue;
        const place at = {line, (int32_t)(p - line_start) + 1};
        if (value_next && c != ']' && depth == 1 && top_member >= 0)
            w->top[top_member] = at;
        if (value_next && c != ']' && depth == 2) {
            tsr_status st = in_array == 0 ? places_add(ctx, &w->node, &w->nnode, &w->node_cap, at)
                                          : places_add(ctx, &w->edge, &w->nedge, &w->edge_cap, at);
            if (st != TSR_OK)
                return st;
        }
        value_next = 0;
        if (c == '"') {
            const char *q = p + 1;
            while (q < end && *q != '"')
                q += *q == '\\' ? 2 : 1;
            if (q >= end) /* unterminated: jansson says where */
                return TSR_OK;
            if (depth == 1 && expect_key)
                top_member = top_key_index(p, (size_t)(q - p + 1));
            expect_key = 0;
            p = q;
        } else if (c == '{' || c == '[') {
            if (++depth > MAX_DEPTH)
                return tsr__fail(ctx, TSR_ERR_CORRUPT, "%s:%d:%d: nesting deeper than %d levels",
                                 name, (int)at.line, (int)at.col, MAX_DEPTH);
            expect_key = depth == 1;
            if (depth == 2 && c == '[' && (top_member == 0 || top_member == 1)) {
                in_array = top_member;
                value_next = 1;
            }
        } else if (c == '}' || c == ']') {
            if (--depth == 1)
                in_array = -1;
        } else if (c == ':') {
            value_next = depth == 1;
        } else if (c == ',') {
            expect_key = depth == 1;
            value_next = depth == 2 && in_array >= 0;
        }
    }
    return TSR_OK;
}

static tsr_status fail_at(tsr__layout_builder *b, place at, const char *what, const char *id)
{
    if (id)
        return tsr__fail(b->ctx, TSR_ERR_CORRUPT, "%s:%d:%d: node '%.64s': %s", b->name,
                         (int)at.line, (int)at.col, id, what);
    return tsr__fail(b->ctx, TSR_ERR_CORRUPT, "%s:%d:%d: %s", b->name, (int)at.line, (int)at.col,
                     what);
}

/* The id `key` of a node or edge (`elem`), an integer or a string: *text points at it (integers
 * are spelt into buf). */
static tsr_status get_id(tsr__layout_builder *b, place at, const json_t *v, const char *elem,
                         const char *key, char *buf, size_t cap, const char **text, size_t *len,
                         int *is_string)
{
    char what[64];
    if (json_is_string(v)) {
        *text = json_string_value(v);
        *len = json_string_length(v);
        *is_string = 1;
        return TSR_OK;
    }
    if (json_is_integer(v)) {
        *len = (size_t)snprintf(buf, cap, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        *text = buf;
        *is_string = 0;
        return TSR_OK;
    }
    if (v)
        snprintf(what, sizeof what, "\"%s\" must be an integer or a string", key);
    else
        snprintf(what, sizeof what, "%s without \"%s\"", elem, key);
    return fail_at(b, at, what, NULL);
}

/* An integer member into *out; `id` names the node for the message (NULL at the top). */
static tsr_status get_int(tsr__layout_builder *b, place at, const json_t *v, const char *key,
                          const char *id, int64_t *out)
{
    char what[96];
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
        return TSR_OK;
    }
    if (json_is_real(v)) { /* a number with a fraction or an exponent, shown as one */
        char num[32];
        snprintf(num, sizeof num, "%.15g", json_real_value(v));
        if (!strpbrk(num, ".eEn"))
            strcat(num, ".0");
        snprintf(what, sizeof what, "\"%s\" must be an integer, not %s", key, num);
    } else
        snprintf(what, sizeof what, "\"%s\" must be an integer", key);
    return fail_at(b, at, what, id);
}

static tsr_status read_node(tsr__layout_builder *b, place at, const json_t *o)
{
    if (!json_is_object(o))
        return fail_at(b, at, "each node must be an object", NULL);
    char num[32];
    const char *id;
    size_t len;
    int is_string;
    tsr_status st = get_id(b, at, json_object_get(o, "id"), "node", "id", num, sizeof num, &id,
                           &len, &is_string);
    if (st != TSR_OK)
        return st;
    const json_t *jx = json_object_get(o, "x"), *jy = json_object_get(o, "y");
    int64_t x = INT64_MIN, y = INT64_MIN;
    if (!jx != !jy)
        return tsr__fail(b->ctx, TSR_ERR_CORRUPT, "%s:%d:%d: node '%.64s' has only one of x, y",
                         b->name, (int)at.line, (int)at.col, id);
    if (jx && ((st = get_int(b, at, jx, "x", id, &x)) != TSR_OK ||
               (st = get_int(b, at, jy, "y", id, &y)) != TSR_OK))
        return st;
    return tsr__builder_node(b, id, len, is_string, x, y, (int)at.line, (int)at.col);
}

static tsr_status read_edge(tsr__layout_builder *b, place at, const json_t *o)
{
    if (!json_is_object(o))
        return fail_at(b, at, "each edge must be an object", NULL);
    char n1[32], n2[32];
    const char *s, *t;
    size_t sl, tl;
    int is_string;
    tsr_status st = get_id(b, at, json_object_get(o, "source"), "edge", "source", n1, sizeof n1, &s,
                           &sl, &is_string);
    if (st == TSR_OK)
        st = get_id(b, at, json_object_get(o, "target"), "edge", "target", n2, sizeof n2, &t, &tl,
                    &is_string);
    if (st == TSR_OK)
        st = tsr__builder_edge(b, s, sl, t, tl, (int)at.line, (int)at.col);
    return st;
}

/* The members of the top-level object, in the builder. */
static tsr_status read_top(tsr__layout_builder *b, const json_places *w, const json_t *top)
{
    const json_t *nodes = json_object_get(top, "nodes"), *edges = json_object_get(top, "edges");
    if (!nodes)
        return tsr__fail(b->ctx, TSR_ERR_CORRUPT, "%s: no \"nodes\" array", b->name);
    if (!edges)
        return tsr__fail(b->ctx, TSR_ERR_CORRUPT, "%s: no \"edges\" array", b->name);
    if (!json_is_array(nodes))
        return fail_at(b, w->top[0], "\"nodes\" must be an array", NULL);
    if (!json_is_array(edges))
        return fail_at(b, w->top[1], "\"edges\" must be an array", NULL);
    if (w->nnode != json_array_size(nodes) || w->nedge != json_array_size(edges))
        return tsr__fail(b->ctx, TSR_ERR_INTERNAL, "%s: the element places do not match", b->name);
    tsr_status st = TSR_OK;
    for (int k = 2; k < 4 && st == TSR_OK; k++) {
        const json_t *v = json_object_get(top, top_keys[k]);
        int64_t *dim = k == 2 ? &b->width : &b->height;
        if (v && (st = get_int(b, w->top[k], v, top_keys[k], NULL, dim)) == TSR_OK && *dim < 0)
            st = fail_at(b, w->top[k],
                         k == 2 ? "\"width\" must not be negative"
                                : "\"height\" must not be negative",
                         NULL);
    }
    for (size_t i = 0; i < json_array_size(nodes) && st == TSR_OK; i++)
        st = read_node(b, w->node[i], json_array_get(nodes, i));
    for (size_t i = 0; i < json_array_size(edges) && st == TSR_OK; i++)
        st = read_edge(b, w->edge[i], json_array_get(edges, i));
    return st;
}

/* Line and column (1-based) of the end of the text, where an unexpected end is reported. */
static place end_place(const char *s, size_t len)
{
    place at = {1, 1};
    for (size_t i = 0; i < len; i++, at.col++)
        if (s[i] == '\n') {
            at.line++;
            at.col = 0;
        }
    return at;
}

tsr_status tsr__layout_parse_json(tsr_ctx *ctx, const char *data, size_t len, const char *name,
                                  tsr_layout **out)
{
    tsr__layout_builder b;
    tsr__builder_init(&b, ctx, name);
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) { /* a byte-order mark */
        data += 3;
        len -= 3;
    }
    json_places w;
    memset(&w, 0, sizeof w);
    json_error_t err;
    json_t *top = NULL;
    tsr_status st = json_places_scan(ctx, b.name, data, len, &w);
    if (st == TSR_OK && !(top = json_loadb(data, len, JSON_REJECT_DUPLICATES, &err))) {
        enum json_error_code code = json_error_code(&err);
        place at = {err.line, err.column};
        if (code == json_error_premature_end_of_input)
            at = end_place(data, len);
        st = tsr__fail(
            ctx, code == json_error_out_of_memory ? TSR_ERR_OUT_OF_MEMORY : TSR_ERR_CORRUPT,
            "%s:%d:%d: %s", b.name, (int)at.line, (int)at.col,
            code == json_error_end_of_input_expected ? "unexpected text after the JSON object"
                                                     : err.text);
    } else if (st == TSR_OK && !json_is_object(top)) {
        st = tsr__fail(ctx, TSR_ERR_CORRUPT, "%s:1:1: a JSON object was expected", b.name);
    } else if (st == TSR_OK && (st = read_top(&b, &w, top)) == TSR_OK) {
        st = tsr__builder_finish(&b, out);
    }
    json_decref(top);
    tsr__free(ctx, w.node);
    tsr__free(ctx, w.edge);
    tsr__builder_release(&b);
    return st;
}
