/* Plain edge list: one edge "u v" per line (ids are whitespace-free tokens; further tokens such as
 * weights are ignored), a line with one token declares an isolated node, '#' and '%' start
 * comments. Nodes are numbered in order of first appearance; the graph gets an initial layout.
 * (Comma-separated lists are CSV, csv_read.c.) */
#include "layout/layout_internal.h"

#include <string.h>

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

tsr_status tsr__layout_parse_edgelist(tsr_ctx *ctx, const char *data, size_t len, const char *name,
                                      tsr_layout **out)
{
    tsr__layout_builder b;
    tsr__builder_init(&b, ctx, name);
    tsr_status st = TSR_OK;
    const char *p = data, *end = data + len;
    for (int line = 1; p < end && st == TSR_OK; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *tok[2];
        size_t tlen[2];
        int ntok = 0;
        for (const char *q = p; q < le && ntok < 2;) {
            while (q < le && is_space(*q))
                q++;
            if (q >= le || *q == '#' || *q == '%')
                break;
            const char *s = q;
            while (q < le && !is_space(*q) && *q != '#' && *q != '%')
                q++;
            if (memchr(s, '\0', (size_t)(q - s))) {
                st = tsr__fail(ctx, TSR_ERR_CORRUPT, "%s:%d: NUL byte in an edge list", b.name,
                               line);
                break;
            }
            tok[ntok] = s;
            tlen[ntok++] = (size_t)(q - s);
        }
        if (st == TSR_OK && ntok >= 1)
            st = tsr__builder_ensure_node(&b, tok[0], tlen[0], line, 0);
        if (st == TSR_OK && ntok == 2 &&
            (st = tsr__builder_ensure_node(&b, tok[1], tlen[1], line, 0)) == TSR_OK)
            st = tsr__builder_edge(&b, tok[0], tlen[0], tok[1], tlen[1], line, 0);
        p = nl ? nl + 1 : end;
    }
    if (st == TSR_OK && b.nnodes == 0)
        st = tsr__fail(ctx, TSR_ERR_CORRUPT, "%s: no edges or nodes in the edge list", b.name);
    if (st == TSR_OK)
        st = tsr__builder_finish(&b, out);
    tsr__builder_release(&b);
    return st;
}
