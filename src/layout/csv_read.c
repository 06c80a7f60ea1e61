/* CSV edge list (RFC 4180 fields): one edge "u,v" per record, further fields (weights, types)
 * ignored, a record of one field declares an isolated node. Fields may be quoted ("a,b", ""
 * for a quote); spaces around an unquoted field are dropped. A first record whose first two
 * fields are source,target or from,to (any case) is a header and skipped; empty lines and lines
 * starting with '#' are skipped. Records end at LF or CRLF (a quoted field may not span lines).
 * Nodes are numbered in order of first appearance; the graph gets an initial layout. Errors
 * name file:line:column. */
#include "layout/layout_internal.h"

#include <string.h>
#include <strings.h>

/* A field: its text (quotes removed, "" still doubled) and whether it was quoted. */
typedef struct csv_field {
    const char *s;
    size_t len;
    int quoted;
} csv_field;

/* Reads the field at *p (line [line_start, le)); leaves *p at the ',' or le after it. An empty
 * unquoted field is an error unless allow_empty. */
static tsr_status read_field(tsr__layout_builder *b, int line, const char *line_start,
                             const char *le, const char **p, csv_field *f, int allow_empty)
{
    const char *q = *p;
    while (q < le && (*q == ' ' || *q == '\t'))
        q++;
    f->quoted = q < le && *q == '"';
    if (f->quoted) {
        const char *open = q++;
        f->s = q;
        for (;; q++) {
            if (q >= le)
                return tsr__fail(b->ctx, TSR_ERR_CORRUPT, "%s:%d:%d: unterminated quoted field",
                                 b->name, line, (int)(open - line_start) + 1);
            if (*q == '"' && q + 1 < le && q[1] == '"')
                q++;
            else if (*q == '"')
                break;
        }
        f->len = (size_t)(q - f->s);
        q++;
        while (q < le && (*q == ' ' || *q == '\t'))
            q++;
        if (q < le && *q != ',')
            return tsr__fail(b->ctx, TSR_ERR_CORRUPT, "%s:%d:%d: text after a quoted field",
                             b->name, line, (int)(q - line_start) + 1);
    } else {
        f->s = q;
        while (q < le && *q != ',')
            q++;
        const char *e = q;
        while (e > f->s && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        f->len = (size_t)(e - f->s);
    }
    if (f->len == 0 && !f->quoted && !allow_empty)
        return tsr__fail(b->ctx, TSR_ERR_CORRUPT, "%s:%d:%d: empty field", b->name, line,
                         (int)(f->s - line_start) + 1);
    *p = q;
    return TSR_OK;
}

/* The field's id text: its own bytes, or (quoted with "" inside) undoubled into buf. */
static tsr_status field_text(tsr_ctx *ctx, const csv_field *f, char **buf, size_t *cap,
                             const char **s, size_t *len)
{
    if (!f->quoted || !memchr(f->s, '"', f->len)) {
        *s = f->s;
        *len = f->len;
        return TSR_OK;
    }
    tsr_status st = tsr__layout_grow(ctx, (void **)buf, cap, f->len, 1);
    if (st != TSR_OK)
        return st;
    size_t n = 0;
    for (size_t i = 0; i < f->len; i++) {
        (*buf)[n++] = f->s[i];
        i += f->s[i] == '"'; /* the second quote of "" */
    }
    *s = *buf;
    *len = n;
    return TSR_OK;
}

static int is_header(const csv_field *f)
{
    static const char *const names[][2] = {{"source", "target"}, {"from", "to"}};
    for (size_t k = 0; k < 2; k++)
        if (f[0].len == strlen(names[k][0]) && strncasecmp(f[0].s, names[k][0], f[0].len) == 0 &&
            f[1].len == strlen(names[k][1]) && strncasecmp(f[1].s, names[k][1], f[1].len) == 0)
            return 1;
    return 0;
}

tsr_status tsr__layout_parse_csv(tsr_ctx *ctx, const char *data, size_t len, const char *name,
                                 tsr_layout **out)
{
    tsr__layout_builder b;
    tsr__builder_init(&b, ctx, name);
    tsr_status st = TSR_OK;
    char *buf[2] = {NULL, NULL};
    size_t cap[2] = {0, 0};
    const char *p = data, *end = data + len;
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        p += 3;
    int first = 1;
    for (int line = 1; p < end && st == TSR_OK; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end, *line_start = p;
        if (le > p && le[-1] == '\r')
            le--;
        p = nl ? nl + 1 : end;
        const char *q = line_start;
        while (q < le && (*q == ' ' || *q == '\t'))
            q++;
        if (q == le || *q == '#')
            continue;
        if (memchr(line_start, '\0', (size_t)(le - line_start))) {
            st = tsr__fail(ctx, TSR_ERR_CORRUPT, "%s:%d: NUL byte in a CSV file", b.name, line);
            break;
        }
        csv_field f[2];
        int nf = 0;
        q = line_start;
        for (int k = 0; st == TSR_OK; k++) { /* every field checked, the first two kept */
            csv_field fld;
            st = read_field(&b, line, line_start, le, &q, &fld, k >= 2);
            if (st == TSR_OK && k < 2)
                f[nf++] = fld;
            if (q >= le)
                break;
            q++; /* the ',' */
        }
        if (st != TSR_OK)
            break;
        if (first && nf == 2 && is_header(f)) {
            first = 0;
            continue;
        }
        first = 0;
        const char *s[2];
        size_t sl[2];
        for (int k = 0; k < nf && st == TSR_OK; k++)
            if ((st = field_text(ctx, &f[k], &buf[k], &cap[k], &s[k], &sl[k])) == TSR_OK)
                st =
                    tsr__builder_ensure_node(&b, s[k], sl[k], line, (int)(f[k].s - line_start) + 1);
        if (st == TSR_OK && nf == 2)
            st = tsr__builder_edge(&b, s[0], sl[0], s[1], sl[1], line,
                                   (int)(f[0].s - line_start) + 1);
    }
    if (st == TSR_OK && b.nnodes == 0)
        st = tsr__fail(ctx, TSR_ERR_CORRUPT, "%s: no edges or nodes in the CSV file", b.name);
    if (st == TSR_OK)
        st = tsr__builder_finish(&b, out);
    tsr__free(ctx, buf[0]);
    tsr__free(ctx, buf[1]);
    tsr__builder_release(&b);
    return st;
}
