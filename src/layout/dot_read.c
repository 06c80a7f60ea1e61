/* DOT reader over Graphviz's cgraph: one graph, directed or not, strict or not; every node of
 * the graph and its subgraphs in the order cgraph created them (first mention), every edge as an
 * undirected edge in the order of the file. A node's pos="x,y" (Graphviz's point, an optional
 * '!' after it) is its coordinate when both are integers, given for all nodes or for none; the
 * numbers are taken as they are (Graphviz's y axis points up, the contest's down). Other
 * attributes are ignored. Errors: cgraph's syntax errors become "file:line: DOT ...".
 *
 * cgraph's parser keeps global state (its scanner, its line counter, its error handler), so
 * reading is serialised by a mutex and the scanner is reset after each graph. */
#include "layout/layout_internal.h"

#include <ctype.h>
#include <graphviz/cgraph.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cgraph's flex scanner (prefix "aag"): exported by libcgraph, not declared in cgraph.h. Freeing
 * it drops what is left of the last input, which the next agread would otherwise read first. */
extern int aaglex_destroy(void);

static pthread_mutex_t cgraph_lock = PTHREAD_MUTEX_INITIALIZER;

/* The input as a cgraph channel. */
typedef struct dot_input {
    const char *data;
    size_t len, at;
} dot_input;

static int dot_afread(void *chan, char *buf, int bufsize)
{
    dot_input *in = chan;
    size_t n = in->len - in->at < (size_t)bufsize ? in->len - in->at : (size_t)bufsize;
    memcpy(buf, in->data + in->at, n);
    in->at += n;
    return (int)n;
}

/* The first error message of the current read (cgraph reports "Error", ": ", text in turn;
 * warnings are dropped). Guarded by cgraph_lock. */
static char first_error[256];
static int error_state; /* 0: outside a message, 1: in an error, 2: in a warning */

static int dot_errf(char *msg)
{
    if (strcmp(msg, "Error") == 0 || strcmp(msg, "Warning") == 0)
        error_state = msg[0] == 'E' ? 1 : 2;
    else if (strcmp(msg, ": ") != 0) {
        if (error_state == 1 && !first_error[0])
            snprintf(first_error, sizeof first_error, "%s", msg);
        error_state = 0;
    }
    return 0;
}

/* "syntax error in line 3 near '}'" becomes "name:3: DOT syntax error near '}'" (first line). */
static tsr_status syntax_error(tsr_ctx *ctx, const char *name)
{
    char *msg = first_error[0] ? first_error : "syntax error";
    msg[strcspn(msg, "\n")] = '\0';
    char *in = strstr(msg, " in line ");
    int line = 0, used = 0;
    if (in && sscanf(in, " in line %d%n", &line, &used) == 1 && line > 0) {
        *in = '\0';
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "%s:%d: DOT %s%s", name, line, msg, in + used);
    }
    return tsr__fail(ctx, TSR_ERR_CORRUPT, "%s: DOT %s", name, msg);
}

/* Reads pos "x,y" or "x,y!" with integer parts; 0 when it is something else. */
static int read_pos(const char *s, int64_t *x, int64_t *y)
{
    long long a, b;
    int used = 0;
    if (sscanf(s, "%lld,%lld%n", &a, &b, &used) != 2)
        return 0;
    s += used;
    s += *s == '!';
    if (*s || a < -(1LL << 62) || a > 1LL << 62 || b < -(1LL << 62) || b > 1LL << 62)
        return 0;
    *x = a;
    *y = b;
    return 1;
}

static int by_sequence(const void *a, const void *b)
{
    uint64_t x = AGSEQ(*(Agedge_t *const *)a), y = AGSEQ(*(Agedge_t *const *)b);
    return x < y ? -1 : x > y;
}

/* The nodes and edges of g into the builder. */
static tsr_status read_graph(tsr__layout_builder *b, Agraph_t *g)
{
    tsr_status st = TSR_OK;
    for (Agnode_t *n = agfstnode(g); n && st == TSR_OK; n = agnxtnode(g, n)) {
        const char *id = agnameof(n), *pos = agget(n, "pos");
        int64_t x = INT64_MIN, y = INT64_MIN;
        if (pos && pos[0] && !read_pos(pos, &x, &y))
            return tsr__fail(b->ctx, TSR_ERR_CORRUPT,
                             "%s: node '%.64s': pos \"%.64s\" is not two integers", b->name, id,
                             pos);
        st = tsr__builder_node(b, id, strlen(id), 0, x, y, 0, 0);
    }
    size_t m = (size_t)agnedges(g), k = 0, cap = 0;
    Agedge_t **edges = NULL;
    if (st == TSR_OK && m)
        st = tsr__layout_grow(b->ctx, (void **)&edges, &cap, m, sizeof *edges);
    for (Agnode_t *n = agfstnode(g); n && st == TSR_OK; n = agnxtnode(g, n))
        for (Agedge_t *e = agfstout(g, n); e && k < m; e = agnxtout(g, e))
            edges[k++] = e;
    if (st == TSR_OK && k)
        qsort(edges, k, sizeof *edges, by_sequence);
    for (size_t i = 0; i < k && st == TSR_OK; i++) {
        const char *u = agnameof(agtail(edges[i])), *v = agnameof(aghead(edges[i]));
        st = tsr__builder_edge(b, u, strlen(u), v, strlen(v), 0, 0);
    }
    tsr__free(b->ctx, edges);
    return st;
}

/* cgraph's flex scanner reads its input 8 KB at a time and scans the token it is in again from
 * its start after each read, so a token of n bytes costs about n^2 / 16K steps (a 16 MB quoted
 * string: minutes). Longer tokens are refused before parsing; Graphviz's labels and spline
 * pos lists are far shorter. */
enum { DOT_TOKEN_MAX = 1 << 18 };

/* The line on which a token of more than DOT_TOKEN_MAX bytes starts, 0 when there is none. The
 * scan follows DOT's lexical states (quoted strings with backslash escapes, nested <...> HTML
 * strings, comments) and measures, in each, the longest run that one scanner rule can match:
 * an upper bound on the scanner's token lengths. */
static int long_token_line(const char *s, size_t len)
{
    enum { CODE, QUOTED, HTML, BLOCK, LINE } state = CODE;
    size_t run = 0;
    int depth = 0, line = 1, start = 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        int breaks = 1; /* c ends the current run */
        if (state == CODE) {
            if (c == '"')
                state = QUOTED;
            else if (c == '<')
                state = HTML, depth = 1;
            else if (c == '/' && i + 1 < len && (s[i + 1] == '*' || s[i + 1] == '/'))
                state = s[++i] == '*' ? BLOCK : LINE;
            else if (c == '#' && (i == 0 || s[i - 1] == '\n'))
                state = LINE;
            else
                breaks = !(isalnum(c) || c == '_' || c == '.' || c >= 0x80);
        } else if (state == QUOTED) {
            if (c == '\\' && i + 1 < len)
                line += s[++i] == '\n';
            else if (c == '"')
                state = CODE;
            else
                breaks = 0;
        } else if (state == HTML) {
            if (c == '<')
                depth++;
            else if (c == '>' && --depth == 0)
                state = CODE;
            else if (c != '>')
                breaks = 0;
        } else if (state == BLOCK) {
            if (c == '*' && i + 1 < len && s[i + 1] == '/')
                state = CODE, i++;
            else if (c != '*')
                breaks = 0;
        } else if (c == '\n') {
            state = CODE;
        } else {
            breaks = 0;
        }
        if (breaks)
            run = 0;
        else if (run++ == 0)
            start = line;
        if (run > DOT_TOKEN_MAX)
            return start;
        line += c == '\n';
    }
    return 0;
}

tsr_status tsr__layout_parse_dot(tsr_ctx *ctx, const char *data, size_t len, const char *name,
                                 tsr_layout **out)
{
    tsr__layout_builder b;
    tsr__builder_init(&b, ctx, name);
    if (memchr(data, '\0', len)) {
        tsr__builder_release(&b);
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "%s: NUL byte in a DOT file", b.name);
    }
    int long_line = long_token_line(data, len);
    if (long_line) {
        tsr_status limit = tsr__fail(ctx, TSR_ERR_LIMIT,
                                     "%s:%d: a DOT word, string or comment of more than %d bytes "
                                     "(the reader's limit)",
                                     b.name, long_line, DOT_TOKEN_MAX);
        tsr__builder_release(&b);
        return limit;
    }
    dot_input in = {data, len, 0};
    Agiodisc_t io = {dot_afread, AgIoDisc.putstr, AgIoDisc.flush};
    Agdisc_t disc = {&AgMemDisc, &AgIdDisc, &io};
    tsr_status st = TSR_OK;
    pthread_mutex_lock(&cgraph_lock);
    agusererrf old_errf = agseterrf(dot_errf);
    agerrlevel_t old_level = agseterr(AGWARN);
    first_error[0] = '\0';
    error_state = 0;
    agreseterrors();
    agreadline(1);
    Agraph_t *g = agread(&in, &disc);
    if (!g && agerrors())
        st = syntax_error(ctx, b.name);
    else if (!g)
        st = tsr__fail(ctx, TSR_ERR_CORRUPT, "%s: no graph in the DOT file", b.name);
    if (g) { /* a second graph, or anything but comments after the first, is an error */
        Agraph_t *more = agread(&in, &disc);
        if (more || agerrors())
            st = tsr__fail(ctx, TSR_ERR_CORRUPT,
                           "%s: more than one graph in the DOT file (or text after the graph)",
                           b.name);
        if (more)
            agclose(more);
    }
    if (st == TSR_OK)
        st = read_graph(&b, g);
    if (g)
        agclose(g);
    aaglex_destroy();
    agseterr(old_level);
    agseterrf(old_errf);
    pthread_mutex_unlock(&cgraph_lock);
    if (st == TSR_OK)
        st = tsr__builder_finish(&b, out);
    tsr__builder_release(&b);
    return st;
}
