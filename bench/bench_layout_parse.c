/* Parse time of the layout readers: each graph FILE as given (its format recognised by content),
 * then the same graph as GraphML (tsr_layout_write_graphml) and as DOT (pos="x,y" per node),
 * all parsed from memory with tsr_layout_parse. 3 warm-up runs, 21 timed; median and min-max.
 *   build/bench/bench_layout_parse ../shared/data/graphs/gd2025-contest/Automatic-8.json ... */
#define _XOPEN_SOURCE 700
#include "harness.h"

#include "tessera/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct parse_job {
    tsr_ctx *ctx;
    const char *data, *name;
    size_t len;
    int32_t nodes, edges;
} parse_job;

static int parse_once(void *user, int iter, double *us)
{
    (void)iter;
    (void)us;
    parse_job *j = user;
    tsr_layout *l = NULL;
    if (tsr_layout_parse(j->ctx, j->data, j->len, j->name, &l) != TSR_OK) {
        fprintf(stderr, "%s\n", tsr_ctx_last_error(j->ctx));
        return 1;
    }
    j->nodes = l->num_nodes;
    j->edges = l->num_edges;
    tsr_layout_free(j->ctx, l);
    return 0;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *d = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len == cap) {
            char *n = realloc(d, cap = cap ? 2 * cap : 1 << 16);
            if (!n) {
                free(d);
                fclose(f);
                return NULL;
            }
            d = n;
        }
        size_t got = fread(d + *len, 1, cap - *len, f);
        *len += got;
        if (!got)
            break;
    }
    fclose(f);
    return d;
}

/* The drawing as DOT text with pos attributes (malloc'd). */
static char *as_dot(const tsr_layout *l, size_t *len)
{
    size_t cap = 64, n = 0;
    for (int32_t v = 0; v < l->num_nodes; v++)
        cap += strlen(l->node_id[v]) + 48;
    for (int32_t e = 0; e < l->num_edges; e++)
        cap += strlen(l->node_id[l->edge_u[e]]) + strlen(l->node_id[l->edge_v[e]]) + 16;
    char *d = malloc(cap);
    if (!d)
        return NULL;
    n += (size_t)snprintf(d + n, cap - n, "graph G {\n");
    for (int32_t v = 0; v < l->num_nodes; v++)
        n += (size_t)snprintf(d + n, cap - n, "  \"%s\" [pos=\"%d,%d\"];\n", l->node_id[v],
                              (int)l->x[v], (int)l->y[v]);
    for (int32_t e = 0; e < l->num_edges; e++)
        n += (size_t)snprintf(d + n, cap - n, "  \"%s\" -- \"%s\";\n", l->node_id[l->edge_u[e]],
                              l->node_id[l->edge_v[e]]);
    n += (size_t)snprintf(d + n, cap - n, "}\n");
    *len = n;
    return d;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s GRAPH...\n", argv[0]);
        return 2;
    }
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    tsr_ctx *ctx;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK)
        return 1;
    printf("# %s\n", tsr_bench_host_description());
    const char *headers[] = {"graph", "format",    "KB",     "nodes",
                             "edges", "median ms", "min ms", "max ms"};
    tsr_bench_table *t = tsr_bench_table_new("layout parse", 8, headers);
    int rc = 0;
    char tmp[] = "/tmp/tsr_bench_parse_XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0)
        return 1;
    close(fd);
    for (int i = 1; i < argc && !rc; i++) {
        const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        char *text[3] = {NULL, NULL, NULL};
        size_t len[3] = {0, 0, 0};
        tsr_layout *l = NULL;
        text[0] = slurp(argv[i], &len[0]);
        if (!text[0] || tsr_layout_parse(ctx, text[0], len[0], argv[i], &l) != TSR_OK ||
            tsr_layout_write_graphml(ctx, l, tmp) != TSR_OK || !(text[1] = slurp(tmp, &len[1])) ||
            !(text[2] = as_dot(l, &len[2]))) {
            fprintf(stderr, "%s: %s\n", argv[i], text[0] ? tsr_ctx_last_error(ctx) : "cannot read");
            rc = 1;
        }
        static const char *const formats[3] = {"as given", "GraphML", "DOT"};
        for (int k = 0; k < 3 && !rc; k++) {
            parse_job j = {ctx, text[k], base, len[k], 0, 0};
            tsr_bench_stats s;
            if ((rc = tsr_bench_measure(parse_once, &j, 3, 21, &s)) != 0)
                break;
            const char *row[] = {base,
                                 formats[k],
                                 tsr_bench_fmt("%zu", len[k] / 1024),
                                 tsr_bench_fmt("%d", (int)j.nodes),
                                 tsr_bench_fmt("%d", (int)j.edges),
                                 tsr_bench_fmt("%.2f", s.median_us / 1e3),
                                 tsr_bench_fmt("%.2f", s.min_us / 1e3),
                                 tsr_bench_fmt("%.2f", s.max_us / 1e3)};
            tsr_bench_table_row(t, row);
        }
        tsr_layout_free(ctx, l);
        for (int k = 0; k < 3; k++)
            free(text[k]);
    }
    unlink(tmp);
    tsr_bench_table_print(t, stdout);
    tsr_bench_table_free(t);
    tsr_ctx_destroy(ctx);
    return rc;
}
