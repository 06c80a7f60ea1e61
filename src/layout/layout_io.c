/* Reading by name and content (contest JSON, GraphML, DOT, CSV, edge list) and writing contest
 * JSON, GraphML and SVG (of picture.h's description), atomically. */
#include "layout/layout_internal.h"
#include "layout/picture.h"

#include "core/checked.h"
#include "io/atomic_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* Whether name ends in suffix (ASCII case ignored). */
static int has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    return n > k && strncasecmp(name + n - k, suffix, k) == 0;
}

static int is_dot_id_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-' || (unsigned char)c >= 0x80;
}

/* Past whitespace and DOT comments (C and C++ comments, '#' lines) from p. */
static const char *skip_dot_space(const char *p, const char *end)
{
    for (;;) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
            p++;
        if (p < end && *p == '#') {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            p = nl ? nl : end;
        } else if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            p = nl ? nl : end;
        } else if (end - p >= 2 && p[0] == '/' && p[1] == '*') {
            const char *q = p + 2;
            while (end - q >= 2 && !(q[0] == '*' && q[1] == '/'))
                q++;
            p = end - q >= 2 ? q + 2 : end;
        } else {
            return p;
        }
    }
}

/* Past the keyword (any case, then not an id character) at p, or NULL. */
static const char *dot_keyword(const char *p, const char *end, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(end - p) < n || strncasecmp(p, word, n) != 0 ||
        (end - p > (ptrdiff_t)n && is_dot_id_char(p[n])))
        return NULL;
    return p + n;
}

/* Whether the text begins (after comments) as a DOT graph does: [strict] (graph|digraph) [ID] '{'
 * (Graphviz's grammar), so that an edge list whose first node is named "graph" stays one. */
static int looks_like_dot(const char *p, const char *end)
{
    p = skip_dot_space(p, end);
    const char *q = dot_keyword(p, end, "strict");
    if (q)
        p = skip_dot_space(q, end);
    if (!(q = dot_keyword(p, end, "graph")) && !(q = dot_keyword(p, end, "digraph")))
        return 0;
    p = skip_dot_space(q, end);
    if (p < end && *p == '"') { /* a quoted ID */
        const char *close = memchr(p + 1, '"', (size_t)(end - p - 1));
        p = close ? skip_dot_space(close + 1, end) : end;
    } else {
        while (p < end && is_dot_id_char(*p))
            p++;
        p = skip_dot_space(p, end);
    }
    return p < end && *p == '{';
}

/* Whether the first line of an edge list that is not blank or a comment has a comma (a CSV
 * edge list; a plain edge list's ids hold no separator but whitespace). */
static int looks_like_csv(const char *p, const char *end)
{
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
        while (p < le && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p < le && *p != '#' && *p != '%')
            return memchr(p, ',', (size_t)(le - p)) != NULL;
        p = nl ? nl + 1 : end;
    }
    return 0;
}

tsr_status tsr_layout_parse(tsr_ctx *ctx, const char *data, size_t len, const char *name,
                            tsr_layout **out)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (!out || (!data && len))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: NULL argument to parse");
    *out = NULL;
    if (!name)
        name = "<input>";
    size_t i = 0;
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
        i++;
    if (i == len)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "%s: empty input", name);
    /* The extensions that content cannot tell, then the content. */
    if (has_suffix(name, ".dot") || has_suffix(name, ".gv"))
        return tsr__layout_parse_dot(ctx, data, len, name, out);
    if (has_suffix(name, ".csv"))
        return tsr__layout_parse_csv(ctx, data, len, name, out);
    if (data[i] == '{')
        return tsr__layout_parse_json(ctx, data, len, name, out);
    /* XML in UTF-16 (a byte-order mark, or '<' beside a zero byte) is the only format that may
     * not be UTF-8 */
    const int utf16 =
        len >= 2 && (memcmp(data, "\xFF\xFE", 2) == 0 || memcmp(data, "\xFE\xFF", 2) == 0 ||
                     memcmp(data, "<\0", 2) == 0 || memcmp(data, "\0<", 2) == 0);
    if (data[i] == '<' || utf16)
        return tsr__layout_parse_graphml(ctx, data, len, name, out);
    if (data[i] == '[')
        return tsr__fail(ctx, TSR_ERR_CORRUPT,
                         "%s: a JSON array is not a graph (an object with "
                         "\"nodes\" and \"edges\" is)",
                         name);
    if (looks_like_dot(data + i, data + len))
        return tsr__layout_parse_dot(ctx, data, len, name, out);
    if (looks_like_csv(data + i, data + len))
        return tsr__layout_parse_csv(ctx, data, len, name, out);
    return tsr__layout_parse_edgelist(ctx, data, len, name, out);
}

tsr_status tsr_layout_read(tsr_ctx *ctx, const char *path, tsr_layout **out)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (!path || !out)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: NULL argument to read");
    *out = NULL;
    const int from_stdin = strcmp(path, "-") == 0; /* "-": standard input */
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return tsr__fail(ctx, TSR_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(f);
        return tsr__fail(ctx, TSR_ERR_IO, "%s: is a folder, not a graph file", path);
    }
    char *data = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if ((st = tsr__layout_grow(ctx, (void **)&data, &cap, len + 65536, 1)) != TSR_OK)
            break;
        size_t got = fread(data + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f))
                st = tsr__fail(ctx, TSR_ERR_IO, "%s: read error", path);
            break;
        }
    }
    if (!from_stdin)
        fclose(f);
    if (st == TSR_OK)
        st = tsr_layout_parse(ctx, data, len, from_stdin ? "<stdin>" : path, out);
    tsr__free(ctx, data);
    return st;
}

/* Buffered output into an atomic file. */
typedef struct outbuf {
    tsr_ctx *ctx;
    tsr__atomic_file af;
    char buf[65536];
    size_t len;
    tsr_status st;
} outbuf;

static void ob_flush(outbuf *o)
{
    if (o->st == TSR_OK && o->len)
        o->st = tsr__atomic_write(o->ctx, &o->af, o->buf, o->len);
    o->len = 0;
}

static void ob_printf(outbuf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ob_printf(outbuf *o, const char *fmt, ...)
{
    if (sizeof o->buf - o->len < 1024)
        ob_flush(o);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->len, sizeof o->buf - o->len, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n < sizeof o->buf - o->len)
        o->len += (size_t)n;
    else if (o->st == TSR_OK)
        o->st = tsr__fail(o->ctx, TSR_ERR_INTERNAL, "layout: output line too long");
}

/* A JSON string literal (quotes, escapes). */
static void ob_json_string(outbuf *o, const char *s)
{
    ob_printf(o, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            ob_printf(o, "\\%c", c);
        else if (c < 0x20)
            ob_printf(o, "\\u%04x", c);
        else
            ob_printf(o, "%c", c);
    }
    ob_printf(o, "\"");
}

/* Whether s is a JSON integer as a writer would spell it (RFC 8259 section 6, without "-0"):
 * "-"? and "0" or digits not starting with 0. Edge-list names such as "a", "01", "+2" or "0x10"
 * are not, and are written as strings. */
static int is_canonical_integer(const char *s)
{
    int negative = *s == '-';
    s += negative;
    if (*s < '0' || *s > '9' || (s[0] == '0' && (s[1] || negative)))
        return 0;
    while (*s >= '0' && *s <= '9')
        s++;
    return *s == '\0';
}

/* A node id: a JSON number where the input had one and it is a canonical integer, else a string
 * (the readers take either and compare ids by their text, so a drawing written here reads back
 * as the same graph). */
static void ob_id(outbuf *o, const tsr_layout *l, int32_t v)
{
    if (l->node_id && l->node_id[v]) {
        if (l->node_id_is_string[v] || !is_canonical_integer(l->node_id[v]))
            ob_json_string(o, l->node_id[v]);
        else
            ob_printf(o, "%s", l->node_id[v]);
    } else {
        ob_printf(o, "%d", (int)v);
    }
}

static tsr_status ob_open(tsr_ctx *ctx, outbuf *o, const char *path)
{
    o->ctx = ctx;
    o->len = 0;
    o->st = TSR_OK;
    tsr_status st = tsr__atomic_open(ctx, path, &o->af);
    o->af.sync = 1; /* a drawing is the result of a search that may have run for hours */
    return st;
}

static tsr_status ob_close(outbuf *o)
{
    ob_flush(o);
    if (o->st != TSR_OK) {
        tsr__atomic_abort(o->ctx, &o->af);
        return o->st;
    }
    return tsr__atomic_commit(o->ctx, &o->af);
}

/* The start of every writer: the call's checks, then an output buffer open on path. */
static tsr_status ob_start(tsr_ctx *ctx, const tsr_layout *l, const char *path, outbuf **out)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (!l || !path)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: NULL argument to write");
    outbuf *o;
    if ((st = tsr__alloc(ctx, sizeof *o, (void **)&o)) != TSR_OK)
        return st;
    if ((st = ob_open(ctx, o, path)) != TSR_OK) {
        tsr__free(ctx, o);
        return st;
    }
    *out = o;
    return TSR_OK;
}

tsr_status tsr_layout_write_json(tsr_ctx *ctx, const tsr_layout *l, const char *path)
{
    outbuf *o;
    tsr_status st = ob_start(ctx, l, path, &o);
    if (st != TSR_OK)
        return st;
    ob_printf(o, "{\n  \"nodes\": [");
    for (int32_t i = 0; i < l->num_nodes; i++) {
        ob_printf(o, "%s\n    {\"id\": ", i ? "," : "");
        ob_id(o, l, i);
        ob_printf(o, ", \"x\": %d, \"y\": %d}", (int)l->x[i], (int)l->y[i]);
    }
    ob_printf(o, "\n  ],\n  \"edges\": [");
    for (int32_t e = 0; e < l->num_edges; e++) {
        ob_printf(o, "%s\n    {\"source\": ", e ? "," : "");
        ob_id(o, l, l->edge_u[e]);
        ob_printf(o, ", \"target\": ");
        ob_id(o, l, l->edge_v[e]);
        ob_printf(o, "}");
    }
    ob_printf(o, "\n  ],\n  \"width\": %d,\n  \"height\": %d\n}\n", (int)l->width, (int)l->height);
    st = ob_close(o);
    tsr__free(ctx, o);
    return st;
}

/* Text as XML attribute content (XML 1.0 section 2.4 and 3.3.3: &, <, > and quotes escaped,
 * control characters as character references). */
static void ob_xml_text(outbuf *o, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': ob_printf(o, "&amp;"); break;
        case '<': ob_printf(o, "&lt;"); break;
        case '>': ob_printf(o, "&gt;"); break;
        case '"': ob_printf(o, "&quot;"); break;
        default:
            if (c < 0x20)
                ob_printf(o, "&#%d;", c);
            else
                ob_printf(o, "%c", c);
        }
    }
}

static void ob_xml_id(outbuf *o, const tsr_layout *l, int32_t v)
{
    if (l->node_id && l->node_id[v])
        ob_xml_text(o, l->node_id[v]);
    else
        ob_printf(o, "%d", (int)v);
}

tsr_status tsr_layout_write_graphml(tsr_ctx *ctx, const tsr_layout *l, const char *path)
{
    outbuf *o;
    tsr_status st = ob_start(ctx, l, path, &o);
    if (st != TSR_OK)
        return st;
    ob_printf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
                 "  <key id=\"d_x\" for=\"node\" attr.name=\"x\" attr.type=\"int\"/>\n"
                 "  <key id=\"d_y\" for=\"node\" attr.name=\"y\" attr.type=\"int\"/>\n"
                 "  <graph id=\"G\" edgedefault=\"undirected\">\n");
    for (int32_t i = 0; i < l->num_nodes; i++) {
        ob_printf(o, "    <node id=\"");
        ob_xml_id(o, l, i);
        ob_printf(o, "\"><data key=\"d_x\">%d</data><data key=\"d_y\">%d</data></node>\n",
                  (int)l->x[i], (int)l->y[i]);
    }
    for (int32_t e = 0; e < l->num_edges; e++) {
        ob_printf(o, "    <edge source=\"");
        ob_xml_id(o, l, l->edge_u[e]);
        ob_printf(o, "\" target=\"");
        ob_xml_id(o, l, l->edge_v[e]);
        ob_printf(o, "\"/>\n");
    }
    ob_printf(o, "  </graph>\n</graphml>\n");
    st = ob_close(o);
    tsr__free(ctx, o);
    return st;
}

tsr_status tsr_layout_write_svg(tsr_ctx *ctx, const tsr_layout *l, const char *path)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (!l || !path)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: NULL argument to write");
    tsr__picture pic;
    outbuf *o = NULL;
    if ((st = tsr__picture_make(ctx, l, &pic)) != TSR_OK)
        return st;
    if ((st = tsr__alloc(ctx, sizeof *o, (void **)&o)) != TSR_OK ||
        (st = ob_open(ctx, o, path)) != TSR_OK)
        goto done;
    const double W = pic.width, H = pic.height, unit = pic.unit, margin = pic.margin;
    const tsr_layout_score s = pic.score;
    ob_printf(o,
              "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
              "viewBox=\"%g %g %g %g\">\n"
              "<title>K=%lld n_K=%lld Phi=%lld C=%lld (%d nodes, %d edges)</title>\n"
              "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"white\"/>\n"
              "<rect x=\"0\" y=\"0\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"#ddd\" "
              "stroke-width=\"%g\"/>\n",
              W >= H ? 900 : (int)(900 * W / H), H >= W ? 900 : (int)(900 * H / W), -margin,
              -margin, W + 2 * margin, H + 2 * margin, (long long)s.K, (long long)s.n_K,
              (long long)s.Phi, (long long)s.C, (int)l->num_nodes, (int)l->num_edges, -margin,
              -margin, W + 2 * margin, H + 2 * margin, W, H, unit);
    for (int32_t i = 0; i < l->num_edges; i++) {
        int32_t e = pic.order[i], u = l->edge_u[e], v = l->edge_v[e];
        tsr__edge_look look = tsr__picture_edge(&pic, e);
        ob_printf(o,
                  "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#%02x%02x%02x\" "
                  "stroke-width=\"%g\"",
                  (int)l->x[u], (int)l->y[u], (int)l->x[v], (int)l->y[v], look.r, look.g, look.b,
                  look.width * unit);
        if (look.most)
            ob_printf(o, "><title>edge %d: %d crossings</title></line>\n", (int)e,
                      (int)pic.counts[e]);
        else
            ob_printf(o, "/>\n");
    }
    for (int32_t i = 0; i < l->num_nodes; i++)
        ob_printf(o, "<circle cx=\"%d\" cy=\"%d\" r=\"%g\" fill=\"#%02x%02x%02x\"/>\n",
                  (int)l->x[i], (int)l->y[i], TSR__PICTURE_NODE_RADIUS * unit,
                  TSR__PICTURE_NODE_RGB);
    ob_printf(o, "</svg>\n");
    st = ob_close(o);
done:
    tsr__picture_free(ctx, &pic);
    tsr__free(ctx, o);
    return st;
}
