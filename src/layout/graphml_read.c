/* GraphML reader (the Rome collection and other plain GraphML): <node id>, <edge source target>;
 * everything else (keys, data, comments, processing instructions, DOCTYPE) is skipped. A minimal
 * XML tokenizer: checked nesting, quoted attributes, the five predefined entities and numeric
 * character references. Coordinates are not read: the graph gets an initial layout. */
#include "layout/layout_internal.h"

#include <stdio.h>
#include <string.h>

enum { MAX_DEPTH = 256, MAX_ATTR = 64 };

typedef struct xml {
    tsr__layout_builder *b;
    const char *p, *end;
    int line;
} xml;

typedef struct xattr {
    const char *name, *value;
    size_t name_len, value_len;
} xattr;

static tsr_status xfail(xml *x, int line, const char *what, const char *detail, size_t dlen)
{
    return tsr__fail(x->b->ctx, TSR_ERR_CORRUPT, "%s:%d: %s%s%.*s%s", x->b->name, line, what,
                     dlen ? " '" : "", (int)(dlen > 64 ? 64 : dlen), detail ? detail : "",
                     dlen ? "'" : "");
}

static void advance(xml *x, const char *to)
{
    for (; x->p < to; x->p++)
        if (*x->p == '\n')
            x->line++;
}

/* Moves past the first occurrence of `pat`; 0 when absent. */
static int skip_past(xml *x, const char *pat)
{
    size_t n = strlen(pat);
    for (const char *q = x->p; q + n <= x->end; q++)
        if (memcmp(q, pat, n) == 0) {
            advance(x, q + n);
            return 1;
        }
    return 0;
}

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.' || c == ':' || (unsigned char)c >= 0x80;
}

static void skip_space(xml *x)
{
    while (x->p < x->end && (*x->p == ' ' || *x->p == '\t' || *x->p == '\r' || *x->p == '\n'))
        advance(x, x->p + 1);
}

/* Decodes entities of an attribute value into out (cap bytes); returns 0 on a bad entity or
 * when it does not fit. */
static int decode_value(const char *s, size_t len, char *out, size_t cap, size_t *out_len)
{
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        char c = s[i];
        if (c != '&') {
            if (o + 1 >= cap)
                return 0;
            out[o++] = c;
            i++;
            continue;
        }
        const char *semi = memchr(s + i, ';', len - i);
        if (!semi)
            return 0;
        size_t n = (size_t)(semi - (s + i)) + 1;
        static const struct {
            const char *name;
            char c;
        } ents[] = {
            {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
        int found = 0;
        for (size_t k = 0; k < 5 && !found; k++)
            if (strlen(ents[k].name) == n && memcmp(ents[k].name, s + i, n) == 0) {
                if (o + 1 >= cap)
                    return 0;
                out[o++] = ents[k].c;
                found = 1;
            }
        if (!found) {
            if (n < 4 || s[i + 1] != '#')
                return 0;
            unsigned long cp = 0;
            int hex = s[i + 2] == 'x';
            for (size_t k = (size_t)(hex ? 3 : 2); k + 1 < n; k++) {
                char d = s[i + k];
                int v = d >= '0' && d <= '9'          ? d - '0'
                        : hex && d >= 'a' && d <= 'f' ? d - 'a' + 10
                        : hex && d >= 'A' && d <= 'F' ? d - 'A' + 10
                                                      : -1;
                if (v < 0 || cp > 0x10FFFF)
                    return 0;
                cp = cp * (hex ? 16 : 10) + (unsigned long)v;
            }
            if (cp == 0 || cp > 0x10FFFF || o + 4 >= cap)
                return 0;
            if (cp < 0x80) {
                out[o++] = (char)cp;
            } else if (cp < 0x800) {
                out[o++] = (char)(0xC0 | (cp >> 6));
                out[o++] = (char)(0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                out[o++] = (char)(0xE0 | (cp >> 12));
                out[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                out[o++] = (char)(0x80 | (cp & 0x3F));
            } else {
                out[o++] = (char)(0xF0 | (cp >> 18));
                out[o++] = (char)(0x80 | ((cp >> 12) & 0x3F));
                out[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                out[o++] = (char)(0x80 | (cp & 0x3F));
            }
        }
        i += n;
    }
    *out_len = o;
    return 1;
}

static const xattr *find_attr(const xattr *a, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (a[i].name_len == strlen(name) && memcmp(a[i].name, name, a[i].name_len) == 0)
            return &a[i];
    return NULL;
}

/* Decodes attribute `name` of element `elem` (line) into buf; error when missing or bad. */
static tsr_status get_attr(xml *x, int line, const char *elem, const xattr *a, int n,
                           const char *name, char *buf, size_t cap, size_t *len)
{
    const xattr *at = find_attr(a, n, name);
    char what[96];
    if (!at) {
        snprintf(what, sizeof what, "<%s> without the %s attribute", elem, name);
        return xfail(x, line, what, NULL, 0);
    }
    if (!decode_value(at->value, at->value_len, buf, cap, len)) {
        snprintf(what, sizeof what, "<%s> has a bad or too long %s attribute", elem, name);
        return xfail(x, line, what, at->value, at->value_len);
    }
    return TSR_OK;
}

tsr_status tsr__layout_parse_graphml(tsr_ctx *ctx, const char *data, size_t len, const char *name,
                                     tsr_layout **out)
{
    tsr__layout_builder b;
    tsr__builder_init(&b, ctx, name);
    xml x = {&b, data, data + len, 1};
    const char *stack[MAX_DEPTH];
    size_t stack_len[MAX_DEPTH];
    int depth = 0, saw_graphml = 0, root_closed = 0;
    tsr_status st = TSR_OK;
    char *a1 = NULL, *a2 = NULL; /* decoded attribute values, 4096 bytes each */
    if ((st = tsr__alloc(ctx, 2 * 4096, (void **)&a1)) != TSR_OK) {
        tsr__builder_release(&b);
        return st;
    }
    a2 = a1 + 4096;
    while (st == TSR_OK && x.p < x.end) {
        const char *lt = memchr(x.p, '<', (size_t)(x.end - x.p));
        if (!lt) {
            advance(&x, x.end);
            break;
        }
        for (const char *q = x.p; q < lt; q++)
            if (depth == 0 && !(*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n' ||
                                (q == data && len >= 3 && memcmp(q, "\xEF\xBB\xBF", 3) == 0))) {
                if (q > data + 2 || (unsigned char)*q < 0x80) {
                    advance(&x, q);
                    st = xfail(&x, x.line, "text outside the root element", NULL, 0);
                    break;
                }
            }
        if (st != TSR_OK)
            break;
        advance(&x, lt);
        int line = x.line;
        size_t rest = (size_t)(x.end - x.p);
        if (rest >= 4 && memcmp(x.p, "<!--", 4) == 0) {
            if (!skip_past(&x, "-->"))
                st = xfail(&x, line, "unterminated comment", NULL, 0);
            continue;
        }
        if (rest >= 9 && memcmp(x.p, "<![CDATA[", 9) == 0) {
            if (!skip_past(&x, "]]>"))
                st = xfail(&x, line, "unterminated CDATA section", NULL, 0);
            continue;
        }
        if (rest >= 2 && (x.p[1] == '?' || x.p[1] == '!')) {
            if (!skip_past(&x, ">"))
                st = xfail(&x, line, "unterminated declaration", NULL, 0);
            continue;
        }
        int closing = rest >= 2 && x.p[1] == '/';
        advance(&x, x.p + 1 + closing);
        const char *nm = x.p;
        while (x.p < x.end && is_name_char(*x.p))
            x.p++;
        size_t nlen = (size_t)(x.p - nm);
        if (nlen == 0) {
            st = xfail(&x, line, "malformed tag", NULL, 0);
            break;
        }
        if (closing) {
            skip_space(&x);
            if (x.p >= x.end || *x.p != '>') {
                st = xfail(&x, line, "malformed closing tag", nm, nlen);
                break;
            }
            x.p++;
            if (depth == 0 || stack_len[depth - 1] != nlen ||
                memcmp(stack[depth - 1], nm, nlen) != 0) {
                st = xfail(&x, line, "closing tag does not match the open element", nm, nlen);
                break;
            }
            if (--depth == 0)
                root_closed = 1;
            continue;
        }
        if (root_closed) {
            st = xfail(&x, line, "a second root element", nm, nlen);
            break;
        }
        xattr attrs[MAX_ATTR];
        int nattr = 0, self_closing = 0;
        for (;;) {
            skip_space(&x);
            if (x.p >= x.end) {
                st = xfail(&x, line, "unterminated tag", nm, nlen);
                break;
            }
            if (*x.p == '>') {
                x.p++;
                break;
            }
            if (*x.p == '/' && x.p + 1 < x.end && x.p[1] == '>') {
                x.p += 2;
                self_closing = 1;
                break;
            }
            const char *an = x.p;
            while (x.p < x.end && is_name_char(*x.p))
                x.p++;
            size_t alen = (size_t)(x.p - an);
            skip_space(&x);
            if (alen == 0 || x.p >= x.end || *x.p != '=') {
                st = xfail(&x, x.line, "malformed attribute in", nm, nlen);
                break;
            }
            x.p++;
            skip_space(&x);
            if (x.p >= x.end || (*x.p != '"' && *x.p != '\'')) {
                st = xfail(&x, x.line, "attribute value must be quoted in", nm, nlen);
                break;
            }
            char q = *x.p++;
            const char *val = x.p;
            const char *vend = memchr(val, q, (size_t)(x.end - val));
            if (!vend || memchr(val, '<', (size_t)(vend - val))) {
                st = xfail(&x, x.line, "unterminated attribute value in", nm, nlen);
                break;
            }
            advance(&x, vend + 1);
            if (nattr < MAX_ATTR)
                attrs[nattr++] = (xattr){an, val, alen, (size_t)(vend - val)};
        }
        if (st != TSR_OK)
            break;
        if (depth == 0 && !(nlen == 7 && memcmp(nm, "graphml", 7) == 0)) {
            st = xfail(&x, line, "the root element must be <graphml>, not", nm, nlen);
            break;
        }
        saw_graphml = 1;
        size_t l1, l2;
        if (nlen == 4 && memcmp(nm, "node", 4) == 0) {
            if ((st = get_attr(&x, line, "node", attrs, nattr, "id", a1, 4096, &l1)) == TSR_OK)
                st = tsr__builder_node(&b, a1, l1, 1, INT64_MIN, INT64_MIN, line, 0);
        } else if (nlen == 4 && memcmp(nm, "edge", 4) == 0) {
            if ((st = get_attr(&x, line, "edge", attrs, nattr, "source", a1, 4096, &l1)) ==
                    TSR_OK &&
                (st = get_attr(&x, line, "edge", attrs, nattr, "target", a2, 4096, &l2)) == TSR_OK)
                st = tsr__builder_edge(&b, a1, l1, a2, l2, line, 0);
        }
        if (st != TSR_OK)
            break;
        if (!self_closing) {
            if (depth == MAX_DEPTH) {
                st = xfail(&x, line, "elements nested deeper than 256 levels", NULL, 0);
                break;
            }
            stack[depth] = nm;
            stack_len[depth++] = nlen;
        } else if (depth == 0) {
            root_closed = 1;
        }
    }
    if (st == TSR_OK && !saw_graphml)
        st = tsr__fail(ctx, TSR_ERR_CORRUPT, "%s: no <graphml> element", b.name);
    if (st == TSR_OK && depth > 0)
        st = tsr__fail(ctx, TSR_ERR_CORRUPT, "%s:%d: unexpected end of file inside <%.*s>", b.name,
                       x.line, (int)(stack_len[depth - 1] > 64 ? 64 : stack_len[depth - 1]),
                       stack[depth - 1]);
    if (st == TSR_OK)
        st = tsr__builder_finish(&b, out);
    tsr__free(ctx, a1);
    tsr__builder_release(&b);
    return st;
}
