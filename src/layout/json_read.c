/* Contest JSON reader: {"nodes":[{"id","x","y"}...], "edges":[{"source","target"}...],
 * "width", "height"} (RFC 8259 syntax, strict). Unknown keys at any level are skipped; ids are
 * integers or strings; x, y, width and height must be integer literals (no fraction, no exponent).
 * Errors name file:line:column. */
#include "layout/layout_internal.h"

#include <stdio.h>
#include <string.h>

enum { MAX_DEPTH = 256 };

typedef struct jparser {
    tsr__layout_builder *b;
    const char *p, *end, *line_start;
    int line;
    /* decoded string scratch */
    char *buf;
    size_t buf_len, buf_cap;
} jparser;

static int col_of(const jparser *j, const char *at)
{
    return (int)(at - j->line_start) + 1;
}

static tsr_status jfail(jparser *j, const char *at, const char *what)
{
    return tsr__fail(j->b->ctx, TSR_ERR_CORRUPT, "%s:%d:%d: %s", j->b->name, j->line, col_of(j, at),
                     what);
}

static void skip_ws(jparser *j)
{
    while (j->p < j->end) {
        char c = *j->p;
        if (c == '\n') {
            j->line++;
            j->line_start = ++j->p;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            j->p++;
        } else {
            break;
        }
    }
}

/* Expects character c (after whitespace). */
static tsr_status expect(jparser *j, char c, const char *what)
{
    skip_ws(j);
    if (j->p >= j->end || *j->p != c)
        return jfail(j, j->p, what);
    j->p++;
    return TSR_OK;
}

static tsr_status buf_put(jparser *j, const char *s, size_t n)
{
    tsr_status st =
        tsr__layout_grow(j->b->ctx, (void **)&j->buf, &j->buf_cap, j->buf_len + n + 1, 1);
    if (st != TSR_OK)
        return st;
    memcpy(j->buf + j->buf_len, s, n);
    j->buf_len += n;
    j->buf[j->buf_len] = '\0';
    return TSR_OK;
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return 0;
    }
    *out = v;
    return 1;
}

/* Parses a string at j->p (the opening quote) into j->buf (decoded UTF-8). */
static tsr_status parse_string(jparser *j)
{
    const char *start = j->p;
    j->p++;
    j->buf_len = 0;
    tsr_status st = buf_put(j, "", 0);
    if (st != TSR_OK)
        return st;
    while (j->p < j->end) {
        const char *run = j->p;
        while (j->p < j->end && *j->p != '"' && *j->p != '\\' && (unsigned char)*j->p >= 0x20)
            j->p++;
        if ((st = buf_put(j, run, (size_t)(j->p - run))) != TSR_OK)
            return st;
        if (j->p >= j->end)
            break;
        char c = *j->p;
        if (c == '"') {
            j->p++;
            return TSR_OK;
        }
        if ((unsigned char)c < 0x20)
            return jfail(j, j->p, "control character inside a string");
        /* backslash escape */
        if (j->end - j->p < 2)
            break;
        char e = j->p[1];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e && simple) {
            static const char map[] = "\"\\/\b\f\n\r\t";
            if ((st = buf_put(j, &map[simple - "\"\\/bfnrt"], 1)) != TSR_OK)
                return st;
            j->p += 2;
            continue;
        }
        if (e != 'u')
            return jfail(j, j->p, "invalid escape in a string");
        unsigned cp;
        if (j->end - j->p < 6 || !hex4(j->p + 2, &cp))
            return jfail(j, j->p, "invalid \\u escape in a string");
        j->p += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            unsigned lo;
            if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u' || !hex4(j->p + 2, &lo) ||
                lo < 0xDC00 || lo > 0xDFFF)
                return jfail(j, j->p, "unpaired surrogate in a string");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            j->p += 6;
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return jfail(j, j->p - 6, "unpaired surrogate in a string");
        }
        char u[4];
        size_t n;
        if (cp < 0x80) {
            u[0] = (char)cp;
            n = 1;
        } else if (cp < 0x800) {
            u[0] = (char)(0xC0 | (cp >> 6));
            u[1] = (char)(0x80 | (cp & 0x3F));
            n = 2;
        } else if (cp < 0x10000) {
            u[0] = (char)(0xE0 | (cp >> 12));
            u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
            u[2] = (char)(0x80 | (cp & 0x3F));
            n = 3;
        } else {
            u[0] = (char)(0xF0 | (cp >> 18));
            u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
            u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
            u[3] = (char)(0x80 | (cp & 0x3F));
            n = 4;
        }
        if ((st = buf_put(j, u, n)) != TSR_OK)
            return st;
    }
    return jfail(j, start, "unterminated string");
}

/* Scans a JSON number at j->p; *is_int tells whether it has neither fraction nor exponent. */
static tsr_status scan_number(jparser *j, const char **start, size_t *len, int *is_int)
{
    const char *s = j->p, *q = s;
    *is_int = 1;
    if (q < j->end && *q == '-')
        q++;
    if (q >= j->end || *q < '0' || *q > '9')
        return jfail(j, s, "invalid number");
    if (*q == '0')
        q++;
    else
        while (q < j->end && *q >= '0' && *q <= '9')
            q++;
    if (q < j->end && *q == '.') {
        *is_int = 0;
        q++;
        if (q >= j->end || *q < '0' || *q > '9')
            return jfail(j, s, "invalid number");
        while (q < j->end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < j->end && (*q == 'e' || *q == 'E')) {
        *is_int = 0;
        q++;
        if (q < j->end && (*q == '+' || *q == '-'))
            q++;
        if (q >= j->end || *q < '0' || *q > '9')
            return jfail(j, s, "invalid number");
        while (q < j->end && *q >= '0' && *q <= '9')
            q++;
    }
    *start = s;
    *len = (size_t)(q - s);
    j->p = q;
    return TSR_OK;
}

/* Parses an integer literal into *out (|value| <= 2^62). */
static tsr_status parse_int(jparser *j, const char *key, int64_t *out)
{
    skip_ws(j);
    const char *at = j->p, *s;
    size_t len;
    int is_int;
    char msg[96];
    if (j->p >= j->end || (*j->p != '-' && (*j->p < '0' || *j->p > '9'))) {
        snprintf(msg, sizeof msg, "\"%s\" must be an integer", key);
        return jfail(j, at, msg);
    }
    tsr_status st = scan_number(j, &s, &len, &is_int);
    if (st != TSR_OK)
        return st;
    if (!is_int) {
        snprintf(msg, sizeof msg, "\"%s\" must be an integer, not %.*s", key,
                 (int)(len > 32 ? 32 : len), s);
        return jfail(j, at, msg);
    }
    int neg = *s == '-';
    int64_t v = 0;
    for (size_t i = (size_t)neg; i < len; i++) {
        if (v > ((int64_t)1 << 62) / 10) {
            snprintf(msg, sizeof msg, "\"%s\" is too large", key);
            return jfail(j, at, msg);
        }
        v = v * 10 + (s[i] - '0');
    }
    *out = neg ? -v : v;
    return TSR_OK;
}

static tsr_status skip_value(jparser *j, int depth);

static tsr_status skip_literal(jparser *j, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
        return jfail(j, j->p, "invalid value");
    j->p += n;
    return TSR_OK;
}

/* Skips any value (unknown keys), checking its syntax. */
static tsr_status skip_value(jparser *j, int depth)
{
    skip_ws(j);
    if (j->p >= j->end)
        return jfail(j, j->p, "unexpected end of input, a value was expected");
    if (depth > MAX_DEPTH)
        return jfail(j, j->p, "nesting deeper than 256 levels");
    tsr_status st;
    char c = *j->p;
    if (c == '"')
        return parse_string(j);
    if (c == '-' || (c >= '0' && c <= '9')) {
        const char *s;
        size_t len;
        int is_int;
        return scan_number(j, &s, &len, &is_int);
    }
    if (c == 't')
        return skip_literal(j, "true");
    if (c == 'f')
        return skip_literal(j, "false");
    if (c == 'n')
        return skip_literal(j, "null");
    if (c != '{' && c != '[')
        return jfail(j, j->p, "invalid value");
    char close = c == '{' ? '}' : ']';
    j->p++;
    skip_ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        return TSR_OK;
    }
    for (;;) {
        if (c == '{') {
            skip_ws(j);
            if (j->p >= j->end || *j->p != '"')
                return jfail(j, j->p, "object key (a string) expected");
            if ((st = parse_string(j)) != TSR_OK || (st = expect(j, ':', "':' expected")) != TSR_OK)
                return st;
        }
        if ((st = skip_value(j, depth + 1)) != TSR_OK)
            return st;
        skip_ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        return expect(j, close, c == '{' ? "',' or '}' expected" : "',' or ']' expected");
    }
}

/* Iterates over an object's members: calls member(j, key, user) with j->p before the value. */
typedef tsr_status (*member_fn)(jparser *j, const char *key, void *user);

static tsr_status parse_object(jparser *j, member_fn member, void *user)
{
    tsr_status st = expect(j, '{', "'{' expected");
    if (st != TSR_OK)
        return st;
    skip_ws(j);
    if (j->p < j->end && *j->p == '}') {
        j->p++;
        return TSR_OK;
    }
    for (;;) {
        skip_ws(j);
        if (j->p >= j->end || *j->p != '"')
            return jfail(j, j->p, "object key (a string) expected");
        if ((st = parse_string(j)) != TSR_OK)
            return st;
        char key[16];
        snprintf(key, sizeof key, "%s", strlen(j->buf) < sizeof key ? j->buf : "");
        if ((st = expect(j, ':', "':' expected")) != TSR_OK ||
            (st = member(j, key, user)) != TSR_OK)
            return st;
        skip_ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        return expect(j, '}', "',' or '}' expected");
    }
}

/* Iterates over an array's elements: calls element(j, user) with j->p before each. */
typedef tsr_status (*element_fn)(jparser *j, void *user);

static tsr_status parse_array(jparser *j, const char *what, element_fn element, void *user)
{
    char msg[64];
    snprintf(msg, sizeof msg, "\"%s\" must be an array", what);
    tsr_status st = expect(j, '[', msg);
    if (st != TSR_OK)
        return st;
    skip_ws(j);
    if (j->p < j->end && *j->p == ']') {
        j->p++;
        return TSR_OK;
    }
    for (;;) {
        if ((st = element(j, user)) != TSR_OK)
            return st;
        skip_ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            continue;
        }
        return expect(j, ']', "',' or ']' expected");
    }
}

/* An id: an integer literal or a string; copied into out (id text, allocated by the caller's
 * buffer). */
typedef struct id_text {
    char *text;
    size_t len, cap;
    int is_string, present;
} id_text;

static tsr_status parse_id(jparser *j, const char *key, id_text *id)
{
    skip_ws(j);
    tsr_status st;
    char msg[96];
    if (id->present) {
        snprintf(msg, sizeof msg, "\"%s\" appears twice", key);
        return jfail(j, j->p, msg);
    }
    if (j->p < j->end && *j->p == '"') {
        if ((st = parse_string(j)) != TSR_OK)
            return st;
        id->is_string = 1;
    } else if (j->p < j->end && (*j->p == '-' || (*j->p >= '0' && *j->p <= '9'))) {
        const char *at = j->p, *s;
        size_t len;
        int is_int;
        if ((st = scan_number(j, &s, &len, &is_int)) != TSR_OK)
            return st;
        if (!is_int) {
            snprintf(msg, sizeof msg, "\"%s\" must be an integer or a string", key);
            return jfail(j, at, msg);
        }
        j->buf_len = 0;
        if ((st = buf_put(j, s, len)) != TSR_OK)
            return st;
        id->is_string = 0;
    } else {
        snprintf(msg, sizeof msg, "\"%s\" must be an integer or a string", key);
        return jfail(j, j->p, msg);
    }
    if ((st = tsr__layout_grow(j->b->ctx, (void **)&id->text, &id->cap, j->buf_len + 1, 1)) !=
        TSR_OK)
        return st;
    memcpy(id->text, j->buf, j->buf_len + 1);
    id->len = j->buf_len;
    id->present = 1;
    return TSR_OK;
}

typedef struct element_state {
    id_text a, b; /* node: id; edge: source, target */
    int64_t x, y;
    int has_x, has_y;
} element_state;

static tsr_status node_member(jparser *j, const char *key, void *user)
{
    element_state *s = user;
    if (strcmp(key, "id") == 0)
        return parse_id(j, "id", &s->a);
    int is_x = strcmp(key, "x") == 0;
    if (is_x || strcmp(key, "y") == 0) {
        int *has = is_x ? &s->has_x : &s->has_y;
        skip_ws(j);
        if (*has)
            return jfail(j, j->p, is_x ? "\"x\" appears twice" : "\"y\" appears twice");
        *has = 1;
        return parse_int(j, key, is_x ? &s->x : &s->y);
    }
    return skip_value(j, 1);
}

static tsr_status node_element(jparser *j, void *user)
{
    element_state *s = user;
    skip_ws(j);
    const char *at = j->p;
    int line = j->line, col = col_of(j, at);
    s->a.present = 0;
    s->has_x = s->has_y = 0;
    if (j->p >= j->end || *j->p != '{')
        return jfail(j, at, "each node must be an object");
    tsr_status st = parse_object(j, node_member, s);
    if (st != TSR_OK)
        return st;
    if (!s->a.present)
        return tsr__fail(j->b->ctx, TSR_ERR_CORRUPT, "%s:%d:%d: node without \"id\"", j->b->name,
                         line, col);
    if (s->has_x != s->has_y)
        return tsr__fail(j->b->ctx, TSR_ERR_CORRUPT, "%s:%d:%d: node '%.64s' has only one of x, y",
                         j->b->name, line, col, s->a.text);
    return tsr__builder_node(j->b, s->a.text, s->a.len, s->a.is_string, s->has_x ? s->x : INT64_MIN,
                             s->has_y ? s->y : INT64_MIN, line, col);
}

static tsr_status edge_member(jparser *j, const char *key, void *user)
{
    element_state *s = user;
    if (strcmp(key, "source") == 0)
        return parse_id(j, "source", &s->a);
    if (strcmp(key, "target") == 0)
        return parse_id(j, "target", &s->b);
    return skip_value(j, 1);
}

static tsr_status edge_element(jparser *j, void *user)
{
    element_state *s = user;
    skip_ws(j);
    const char *at = j->p;
    int line = j->line, col = col_of(j, at);
    s->a.present = s->b.present = 0;
    if (j->p >= j->end || *j->p != '{')
        return jfail(j, at, "each edge must be an object");
    tsr_status st = parse_object(j, edge_member, s);
    if (st != TSR_OK)
        return st;
    if (!s->a.present || !s->b.present)
        return tsr__fail(j->b->ctx, TSR_ERR_CORRUPT, "%s:%d:%d: edge without \"%s\"", j->b->name,
                         line, col, s->a.present ? "target" : "source");
    return tsr__builder_edge(j->b, s->a.text, s->a.len, s->b.text, s->b.len, line, col);
}

typedef struct top_state {
    element_state el;
    int has_nodes, has_edges, has_width, has_height;
} top_state;

static tsr_status top_member(jparser *j, const char *key, void *user)
{
    top_state *t = user;
    skip_ws(j);
    const char *at = j->p;
    if (strcmp(key, "nodes") == 0) {
        if (t->has_nodes++)
            return jfail(j, at, "\"nodes\" appears twice");
        return parse_array(j, "nodes", node_element, &t->el);
    }
    if (strcmp(key, "edges") == 0) {
        if (t->has_edges++)
            return jfail(j, at, "\"edges\" appears twice");
        return parse_array(j, "edges", edge_element, &t->el);
    }
    int is_w = strcmp(key, "width") == 0;
    if (is_w || strcmp(key, "height") == 0) {
        int *has = is_w ? &t->has_width : &t->has_height;
        if ((*has)++)
            return jfail(j, at, is_w ? "\"width\" appears twice" : "\"height\" appears twice");
        int64_t v;
        tsr_status st = parse_int(j, key, &v);
        if (st != TSR_OK)
            return st;
        if (v < 0)
            return jfail(
                j, at, is_w ? "\"width\" must not be negative" : "\"height\" must not be negative");
        if (is_w)
            j->b->width = v;
        else
            j->b->height = v;
        return TSR_OK;
    }
    return skip_value(j, 1);
}

tsr_status tsr__layout_parse_json(tsr_ctx *ctx, const char *data, size_t len, const char *name,
                                  tsr_layout **out)
{
    tsr__layout_builder b;
    tsr__builder_init(&b, ctx, name);
    jparser j = {&b, data, data + len, data, 1, NULL, 0, 0};
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        j.p = j.line_start = data + 3;
    top_state t;
    memset(&t, 0, sizeof t);
    skip_ws(&j);
    tsr_status st;
    if (j.p >= j.end || *j.p != '{')
        st = jfail(&j, j.p, "a JSON object was expected");
    else
        st = parse_object(&j, top_member, &t);
    if (st == TSR_OK) {
        skip_ws(&j);
        if (j.p < j.end)
            st = jfail(&j, j.p, "unexpected text after the JSON object");
        else if (!t.has_nodes)
            st = tsr__fail(ctx, TSR_ERR_CORRUPT, "%s: no \"nodes\" array", b.name);
        else if (!t.has_edges)
            st = tsr__fail(ctx, TSR_ERR_CORRUPT, "%s: no \"edges\" array", b.name);
    }
    if (st == TSR_OK)
        st = tsr__builder_finish(&b, out);
    tsr__free(ctx, t.el.a.text);
    tsr__free(ctx, t.el.b.text);
    tsr__free(ctx, j.buf);
    tsr__builder_release(&b);
    return st;
}
