/* GraphML reader over expat (the Rome collection and other GraphML): <node id>, <edge source
 * target> anywhere under the <graphml> root, in the GraphML namespace or in none. Coordinates are
 * the node data of the keys whose attr.name is "x" and "y" (for="node" or "all" or absent, declared
 * before the nodes; a key's <default> applies to nodes without that data), integers as in the
 * contest format. Other keys, data, hyperedges and other namespaces are skipped. XML syntax,
 * entities, CDATA and encodings are expat's (external entities are never loaded); errors name
 * file:line:column. */
#include "layout/layout_internal.h"

#include <expat.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define GRAPHML_NS "http://graphml.graphdrawing.org/xmlns"
enum { NS_SEP = '\x01', MAX_VALUE = 64 };

/* The key that a <data> or <default> holds: none, x or y. */
enum { AXIS_NONE = -1, AXIS_X = 0, AXIS_Y = 1 };

typedef struct gml {
    tsr__layout_builder *b;
    XML_Parser p;
    tsr_status st;
    int depth;
    char *key_id[2];        /* ids of the x and y keys (NULL: none yet) */
    int64_t key_default[2]; /* INT64_MIN: no default */
    int in_key;             /* axis of the open <key>, or AXIS_NONE */
    int value_axis;         /* axis of the open <data> or <default>, or AXIS_NONE */
    char value[MAX_VALUE + 1];
    size_t value_len;
    /* the open <node> */
    char *node_id;
    int node_line, node_col;
    int64_t node_xy[2];
} gml;

static int line_of(const gml *g)
{
    return (int)XML_GetCurrentLineNumber(g->p);
}

static int col_of(const gml *g)
{
    return (int)XML_GetCurrentColumnNumber(g->p) + 1;
}

/* Records the first error and stops the parser. */
static void stop(gml *g, tsr_status st)
{
    if (g->st == TSR_OK && st != TSR_OK) {
        g->st = st;
        XML_StopParser(g->p, XML_FALSE);
    }
}

/* The local name of a GraphML element ("node"), or NULL for an element of another namespace. */
static const char *graphml_name(const char *name)
{
    const char *sep = strchr(name, NS_SEP);
    if (!sep)
        return name;
    size_t n = (size_t)(sep - name);
    return n == strlen(GRAPHML_NS) && memcmp(name, GRAPHML_NS, n) == 0 ? sep + 1 : NULL;
}

static const char *attr(const char **atts, const char *name)
{
    for (; atts[0]; atts += 2)
        if (strcmp(atts[0], name) == 0)
            return atts[1];
    return NULL;
}

static tsr_status need_attr(gml *g, const char *elem, const char **atts, const char *name,
                            const char **out)
{
    *out = attr(atts, name);
    if (*out)
        return TSR_OK;
    return tsr__fail(g->b->ctx, TSR_ERR_CORRUPT, "%s:%d:%d: <%s> without the %s attribute",
                     g->b->name, line_of(g), col_of(g), elem, name);
}

/* Parses the collected value as an integer (surrounding whitespace allowed, |v| <= 2^62). */
static tsr_status value_int(gml *g, int64_t *out)
{
    const char *s = g->value, *e = g->value + g->value_len;
    while (s < e && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n'))
        s++;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        e--;
    const char *d = s + (s < e && (*s == '-' || *s == '+'));
    int64_t v = 0;
    int ok = d < e && e - d <= 18 && g->value_len <= MAX_VALUE;
    for (const char *q = d; q < e && ok; q++) {
        ok = *q >= '0' && *q <= '9';
        v = v * 10 + (*q - '0');
    }
    if (!ok)
        return tsr__fail(g->b->ctx, TSR_ERR_CORRUPT,
                         "%s:%d:%d: %s%.64s%s\"%s\" must be an integer, not '%.*s'", g->b->name,
                         g->node_id ? g->node_line : line_of(g),
                         g->node_id ? g->node_col : col_of(g), g->node_id ? "node '" : "",
                         g->node_id ? g->node_id : "", g->node_id ? "': " : "",
                         g->value_axis == AXIS_X ? "x" : "y", (int)(e - s > 32 ? 32 : e - s), s);
    *out = *s == '-' ? -v : v;
    return TSR_OK;
}

/* Adds the open node with the coordinates found so far (both or none). */
static tsr_status add_node(gml *g)
{
    int has = g->node_xy[0] != INT64_MIN && g->node_xy[1] != INT64_MIN;
    return tsr__builder_node(g->b, g->node_id, strlen(g->node_id), 1,
                             has ? g->node_xy[0] : INT64_MIN, has ? g->node_xy[1] : INT64_MIN,
                             g->node_line, g->node_col);
}

static void start_key(gml *g, const char **atts)
{
    const char *name = attr(atts, "attr.name"), *id = attr(atts, "id"), *f = attr(atts, "for");
    g->in_key = AXIS_NONE;
    if (!name || !id || (f && strcmp(f, "node") != 0 && strcmp(f, "all") != 0))
        return;
    int axis = strcmp(name, "x") == 0 ? AXIS_X : strcmp(name, "y") == 0 ? AXIS_Y : AXIS_NONE;
    if (axis == AXIS_NONE)
        return;
    tsr__free(g->b->ctx, g->key_id[axis]);
    g->key_id[axis] = NULL;
    g->key_default[axis] = INT64_MIN;
    stop(g, tsr__layout_dup_text(g->b->ctx, id, strlen(id), &g->key_id[axis]));
    g->in_key = axis;
}

static void XMLCALL on_start(void *user, const char *name, const char **atts)
{
    gml *g = user;
    const char *local = graphml_name(name);
    if (g->depth++ == 0 && (!local || strcmp(local, "graphml") != 0)) {
        const char *sep = strchr(name, NS_SEP);
        stop(g, tsr__fail(g->b->ctx, TSR_ERR_CORRUPT,
                          "%s:%d:%d: the root element must be <graphml>, not '%.64s'", g->b->name,
                          line_of(g), col_of(g), sep ? sep + 1 : name));
        return;
    }
    if (!local)
        return;
    const char *id, *src, *dst;
    if (strcmp(local, "node") == 0) {
        tsr_status st = need_attr(g, "node", atts, "id", &id);
        if (st == TSR_OK && g->node_id) /* a nested graph's node: its parent ends here for us */
            st = add_node(g);
        tsr__free(g->b->ctx, g->node_id);
        g->node_id = NULL;
        if (st == TSR_OK)
            st = tsr__layout_dup_text(g->b->ctx, id, strlen(id), &g->node_id);
        g->node_line = line_of(g);
        g->node_col = col_of(g);
        g->node_xy[0] = g->key_default[0];
        g->node_xy[1] = g->key_default[1];
        stop(g, st);
    } else if (strcmp(local, "edge") == 0) {
        tsr_status st = need_attr(g, "edge", atts, "source", &src);
        if (st == TSR_OK)
            st = need_attr(g, "edge", atts, "target", &dst);
        if (st == TSR_OK)
            st = tsr__builder_edge(g->b, src, strlen(src), dst, strlen(dst), line_of(g), col_of(g));
        stop(g, st);
    } else if (strcmp(local, "key") == 0) {
        start_key(g, atts);
    } else if (strcmp(local, "default") == 0 && g->in_key != AXIS_NONE) {
        g->value_axis = g->in_key;
        g->value_len = 0;
    } else if (strcmp(local, "data") == 0 && g->node_id && (id = attr(atts, "key")) != NULL) {
        g->value_axis = g->key_id[AXIS_X] && strcmp(id, g->key_id[AXIS_X]) == 0   ? AXIS_X
                        : g->key_id[AXIS_Y] && strcmp(id, g->key_id[AXIS_Y]) == 0 ? AXIS_Y
                                                                                  : AXIS_NONE;
        g->value_len = 0;
    }
}

static void XMLCALL on_text(void *user, const char *s, int len)
{
    gml *g = user;
    if (g->value_axis == AXIS_NONE)
        return;
    size_t n = (size_t)len, room = MAX_VALUE + 1 - g->value_len; /* one more: "too long" */
    n = n < room ? n : room;
    memcpy(g->value + g->value_len, s, n);
    g->value_len += n;
}

static void XMLCALL on_end(void *user, const char *name)
{
    gml *g = user;
    const char *local = graphml_name(name);
    g->depth--;
    if (!local)
        return;
    if (g->value_axis != AXIS_NONE &&
        (strcmp(local, "data") == 0 || strcmp(local, "default") == 0)) {
        int64_t v = 0;
        tsr_status st = value_int(g, &v);
        if (st == TSR_OK && strcmp(local, "data") == 0)
            g->node_xy[g->value_axis] = v;
        else if (st == TSR_OK)
            g->key_default[g->value_axis] = v;
        g->value_axis = AXIS_NONE;
        stop(g, st);
    } else if (strcmp(local, "key") == 0) {
        g->in_key = AXIS_NONE;
    } else if (strcmp(local, "node") == 0 && g->node_id) {
        stop(g, add_node(g));
        tsr__free(g->b->ctx, g->node_id);
        g->node_id = NULL;
    }
}

tsr_status tsr__layout_parse_graphml(tsr_ctx *ctx, const char *data, size_t len, const char *name,
                                     tsr_layout **out)
{
    tsr__layout_builder b;
    tsr__builder_init(&b, ctx, name);
    gml g = {&b,
             XML_ParserCreateNS(NULL, NS_SEP),
             TSR_OK,
             0,
             {NULL, NULL},
             {INT64_MIN, INT64_MIN},
             AXIS_NONE,
             AXIS_NONE,
             "",
             0,
             NULL,
             0,
             0,
             {INT64_MIN, INT64_MIN}};
    if (!g.p) {
        tsr__builder_release(&b);
        return tsr__fail(ctx, TSR_ERR_OUT_OF_MEMORY, "%s: cannot create an XML parser", b.name);
    }
    XML_SetUserData(g.p, &g);
    XML_SetElementHandler(g.p, on_start, on_end);
    XML_SetCharacterDataHandler(g.p, on_text);
    /* expat takes an int length: feed the text in pieces */
    const size_t piece = (size_t)INT_MAX / 2;
    enum XML_Status xs = XML_STATUS_OK;
    size_t at = 0;
    do {
        size_t n = len - at < piece ? len - at : piece;
        xs = XML_Parse(g.p, data + at, (int)n, at + n == len);
        at += n;
    } while (xs == XML_STATUS_OK && at < len);
    tsr_status st = g.st;
    if (st == TSR_OK && xs != XML_STATUS_OK) {
        enum XML_Error code = XML_GetErrorCode(g.p);
        st = tsr__fail(ctx, code == XML_ERROR_NO_MEMORY ? TSR_ERR_OUT_OF_MEMORY : TSR_ERR_CORRUPT,
                       "%s:%d:%d: %s", b.name, line_of(&g), col_of(&g), XML_ErrorString(code));
    }
    if (st == TSR_OK)
        st = tsr__builder_finish(&b, out);
    XML_ParserFree(g.p);
    tsr__free(ctx, g.key_id[0]);
    tsr__free(ctx, g.key_id[1]);
    tsr__free(ctx, g.node_id);
    tsr__builder_release(&b);
    return st;
}
