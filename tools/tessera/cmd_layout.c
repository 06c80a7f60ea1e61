/* tessera layout: k-planar grid drawings (check, optimize, render). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const cli_option layout_options[] = {
    {"json", CLI_FLAG, NULL,
     "Print JSON on stdout: check, the report; optimize, the scores before and after and the "
     "run's counts; render, what was drawn."},
    {"max-violations", CLI_VALUE, "N",
     "check: list at most N violations (default 20; 0: none, \"all\": every one); the count "
     "of all of them is always given (\"and 1,234 more\", JSON \"violation_count\" and "
     "\"violations_listed\")."},
    {"time", CLI_VALUE, "SECONDS",
     "optimize: time budget from the command's start (reading IN, the start drawing, the first "
     "crossing count included; default 60). Where it runs out in start-up, the best start "
     "drawing made so far is written unoptimized and the exit is 0: a graph without coordinates "
     "has one at once (nodes on a parabola mod a prime, no three in a line); with coordinates, "
     "the first valid one is waited for (a shortened stress layout, repaired). Writing OUT and "
     "--svg comes after it. Example: --time 3."},
    {"moves", CLI_VALUE, "N",
     "optimize: budget in proposed moves; the schedule then follows moves, not time, so a seed "
     "gives the same drawing on any machine (--time still stops the run)."},
    {"seed", CLI_VALUE, "N", "optimize: random seed (default 1)."},
    {"init", CLI_VALUE, "MODE",
     "optimize: auto (default: the lowest-scoring of the stress layout, the stress layout with "
     "long shortcut paths set aside and drawn straight, and the input's coordinates when it has "
     "any), keep (the input's coordinates), stress (stress layout snapped to the grid) or "
     "random."},
    {"svg", CLI_VALUE, "FILE", "optimize: also draw the best drawing as SVG."},
    {"size", CLI_VALUE, "PIXELS",
     "render into an image (.png, .jpg, .webp, .tif, .bmp, .ppm, ...): the picture's longer "
     "side in pixels, 1 to 16384 (default 900, the SVG's size). Example: --size 2000."},
    {"checkpoint", CLI_VALUE, "FILE",
     "optimize: start from FILE when it exists (a drawing of the same graph, as written here), "
     "and keep the best drawing in it, so a long search can be chained across runs."},
    {"save-interval", CLI_VALUE, "SECONDS",
     "optimize: how often an improved best drawing is written to OUT (default 10)."},
    {"phase1", CLI_VALUE, "F[,G]",
     "optimize: share of the budget spent minimising the sum of squared crossing counts "
     "before minimising k: F for the chains 0, 2, 4, ... and G for the chains 1, 3, 5, ... "
     "(one value: every chain). Default 0.3,0.02: a portfolio, since a long first phase suits "
     "random dense graphs and a short one graphs whose k sits on a few long paths across a "
     "structure the start drew well (contest A6 and A9). Example: --phase1 0.3 for the one "
     "share on every chain."},
    {"dense", CLI_FLAG, NULL, "optimize: never use the spatial index (for comparisons)."},
    {"chains", CLI_VALUE, "N",
     "optimize: independent annealing chains run at once, one thread each, all from the same "
     "start drawing; the best drawing over them is kept (saved, checkpointed, drawn as SVG; "
     "among equal scores the lowest chain). Chain i's random stream comes from the seed and i "
     "(chain 0's is the one-chain run's), --moves is each chain's budget, and a seed, --moves "
     "and N give the same drawing however the threads run. Default: --threads (all cores; 1 on "
     "the reference backend)."},
    {"gpu-chains", CLI_VALUE, "N",
     "optimize: when the moves are scored on the GPU (see --backend), only the first N chains "
     "do so and the others walk on the CPU; each GPU chain has its own stream. The walk is the "
     "same either way, so is the drawing. Default 0: every chain. Example: --gpu-chains 1."},
    {"sync-every", CLI_VALUE, "F",
     "optimize: \"go with the winners\": in the k phase, at the budget shares 1 - F, 1 - 2F, "
     "... every chain waits for the others and restarts from the best drawing over them (its "
     "own random stream and temperature kept); still deterministic at a fixed --moves. 0 "
     "(default): never; else 0.01 to 1 (screened: 0.15, i.e. at 40/55/70/85%)."},
    {"backend", CLI_VALUE, "NAME",
     "auto (default), cpu, reference or cuda: the full crossing counts (check, render, the "
     "optimizer's start) and, with cuda (auto: on a GPU, for graphs of mean degree >= 8 and "
     "mean degree x edges >= 20,000), the optimizer's moves scored in batches on the GPU (same "
     "drawing as cpu at a fixed --moves). The environment variable TSR_BACKEND sets the "
     "default."},
    {"threads", CLI_VALUE, "N",
     "CPU threads for full counts and optimize's default --chains (default 0: all cores)."},
    {"overwrite", CLI_FLAG, NULL,
     "optimize, render: allow OUT (or --checkpoint) to be the input file, which is then "
     "replaced."},
    CLI_OPTION_QUIET,
    {0}};

static void print_score(FILE *f, const tsr_layout_score *s)
{
    fprintf(f, "K=%lld n_K=%lld Phi=%lld C=%lld", (long long)s->K, (long long)s->n_K,
            (long long)s->Phi, (long long)s->C);
}

static void json_score(const tsr_layout_score *s)
{
    printf("{\"K\": %lld, \"n_K\": %lld, \"Phi\": %lld, \"C\": %lld}", (long long)s->K,
           (long long)s->n_K, (long long)s->Phi, (long long)s->C);
}

/* The start of a sub-command's JSON summary: {"command": "layout SUB", "input": IN,
 * "output": OUT (the caller goes on with ", ..." and closes it). */
static void json_begin(const char *sub, const char *in, const char *out)
{
    printf("{\"command\": \"layout %s\", \"input\": ", sub);
    cli_json_string(stdout, in);
    printf(", \"output\": ");
    cli_json_string(stdout, out);
}

static const char *node_name(const tsr_layout *l, int32_t v)
{
    return l->node_id[v] ? l->node_id[v] : "?";
}

static void json_violation(const tsr_layout *l, const tsr_layout_violation *v)
{
    printf("{\"kind\": \"%s\"", tsr_layout_violation_name(v->kind));
    if (v->node_a >= 0) {
        printf(", \"nodes\": [");
        cli_json_string(stdout, node_name(l, v->node_a));
        if (v->node_b >= 0) {
            printf(", ");
            cli_json_string(stdout, node_name(l, v->node_b));
        }
        printf("]");
    }
    if (v->edge_e >= 0) {
        printf(", \"edges\": [%d", (int)v->edge_e);
        if (v->edge_f >= 0)
            printf(", %d", (int)v->edge_f);
        printf("]");
    }
    printf("}");
}

static void text_violation(const tsr_layout *l, const tsr_layout_violation *v)
{
    int32_t a = v->node_a, b = v->node_b, e = v->edge_e;
    switch (v->kind) {
    case TSR_LAYOUT_OUTSIDE_CANVAS:
        printf("  outside-canvas: node %s at (%d, %d)\n", node_name(l, a), (int)l->x[a],
               (int)l->y[a]);
        break;
    case TSR_LAYOUT_COINCIDENT_NODES:
        printf("  coincident-nodes: nodes %s and %s at (%d, %d)\n", node_name(l, a),
               node_name(l, b), (int)l->x[a], (int)l->y[a]);
        break;
    case TSR_LAYOUT_NODE_ON_EDGE:
        printf("  node-on-edge: node %s at (%d, %d) lies on edge %d (%s - %s)\n", node_name(l, a),
               (int)l->x[a], (int)l->y[a], (int)e, node_name(l, l->edge_u[e]),
               node_name(l, l->edge_v[e]));
        break;
    case TSR_LAYOUT_SELF_LOOP:
        printf("  self-loop: edge %d joins node %s to itself\n", (int)e, node_name(l, a));
        break;
    case TSR_LAYOUT_DUPLICATE_EDGE:
        printf("  duplicate-edge: edges %d and %d both join %s and %s\n", (int)e, (int)v->edge_f,
               node_name(l, a), node_name(l, b));
        break;
    }
}

/* n with thousands separators ("49,991,003"); buf holds at least 32 bytes. */
static const char *grouped(size_t n, char *buf)
{
    char digits[24];
    int len = snprintf(digits, sizeof digits, "%zu", n), o = 0;
    for (int i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

/* layout check IN [--json] [--max-violations N]: exit 0 when valid, 1 when not (or on failure).
 * At most N violations are listed (the library counts them all without storing them), so a
 * drawing with billions of them (every node of a coordinate-free graph on one point) prints a
 * few lines. */
static int run_check(const cli_command *cmd, const cli_args *args, tsr_ctx *ctx, const char *in)
{
    size_t limit = 20;
    const char *v = cli_get(cmd, args, "max-violations");
    if (v && strcmp(v, "all") == 0) {
        limit = SIZE_MAX;
    } else if (v) {
        long long n;
        if (!cli_parse_int(v, 0, INT32_MAX, &n)) {
            cli_error(cmd, "--max-violations wants a count from 0 or 'all', not '%s'", v);
            return TSR_EXIT_USAGE;
        }
        limit = (size_t)n;
    }
    tsr_layout *l = NULL;
    tsr_layout_violation *items = NULL;
    tsr_status st = tsr_layout_read(ctx, in, &l);
    if (st != TSR_OK)
        return cli_fail(cmd, ctx, st, NULL);
    int rc = TSR_EXIT_FAILURE;
    size_t total = 0, listed = 0;
    tsr_layout_score s;
    if ((st = tsr_layout_check(ctx, l, NULL, 0, &total)) != TSR_OK)
        goto failed;
    listed = total < limit ? total : limit;
    if (listed && !(items = malloc(listed * sizeof *items))) {
        st = TSR_ERR_OUT_OF_MEMORY;
        goto failed;
    }
    if (listed && (st = tsr_layout_check(ctx, l, items, listed, &total)) != TSR_OK)
        goto failed;
    if (!l->has_coordinates) {
        /* Every node on one point: no two edges cross (a crossing needs endpoints strictly on
         * both sides of a line), so every count is 0; not counted, since the sweep over edge
         * boxes would visit every pair of these boxes, which all meet at the point. */
        memset(&s, 0, sizeof s);
        s.n_K = l->num_edges;
    } else if ((st = tsr_layout_evaluate(ctx, l, &s, NULL)) != TSR_OK) {
        goto failed;
    }
    char buf[32];
    if (cli_get(cmd, args, "json")) {
        printf("{\"file\": ");
        cli_json_string(stdout, in);
        printf(", \"nodes\": %d, \"edges\": %d, \"width\": %d, \"height\": %d, "
               "\"has_coordinates\": %s, \"valid\": %s, \"K\": %lld, \"n_K\": %lld, \"Phi\": %lld, "
               "\"C\": %lld, \"violation_count\": %zu, \"violations_listed\": %zu, "
               "\"violations\": [",
               (int)l->num_nodes, (int)l->num_edges, (int)l->width, (int)l->height,
               l->has_coordinates ? "true" : "false", total ? "false" : "true", (long long)s.K,
               (long long)s.n_K, (long long)s.Phi, (long long)s.C, total, listed);
        for (size_t i = 0; i < listed; i++) {
            printf("%s\n    ", i ? "," : "");
            json_violation(l, &items[i]);
        }
        printf("%s]}\n", listed ? "\n  " : "");
    } else {
        printf("%s: %d nodes, %d edges, canvas %dx%d\n", in, (int)l->num_nodes, (int)l->num_edges,
               (int)l->width, (int)l->height);
        if (!l->has_coordinates)
            printf("no coordinates in the input (every node at (0, 0))\n");
        printf("%s", "score: ");
        print_score(stdout, &s);
        printf("\n");
        if (total) {
            printf("INVALID: %s violation%s\n", grouped(total, buf), total == 1 ? "" : "s");
            for (size_t i = 0; i < listed; i++)
                text_violation(l, &items[i]);
            if (total > listed)
                printf("  and %s more (--max-violations N lists more)\n",
                       grouped(total - listed, buf));
        } else {
            printf("valid\n");
        }
    }
    rc = total ? TSR_EXIT_FAILURE : TSR_EXIT_OK;
    goto done;
failed:
    rc = cli_fail(cmd, ctx, st, in);
done:
    free(items);
    tsr_layout_free(ctx, l);
    return rc;
}

/* The picture of l as an image file at out (its longer side `size` pixels, *w x *h). */
static tsr_status render_image(tsr_ctx *ctx, const tsr_layout *l, int32_t size, const char *out,
                               int32_t *w, int32_t *h)
{
    tsr_status st = tsr_layout_render_size(ctx, l, size, w, h);
    if (st != TSR_OK)
        return st;
    tsr_image img;
    if ((st = tsr_image_alloc(ctx, &img, *w, *h, 3, TSR_U8)) != TSR_OK)
        return st;
    if ((st = tsr_layout_render(ctx, l, &img)) == TSR_OK)
        st = tsr_image_save(ctx, out, &img, NULL);
    tsr_image_free(ctx, &img);
    return st;
}

static int run_render(const cli_command *cmd, const cli_args *args, tsr_ctx *ctx, const char *in,
                      const char *out)
{
    cli_output o = {out, "OUT", TSR_FILE_BIT(TSR_FILE_SVG) | TSR_WRITES_IMAGE, TSR_FILE_SVG, 0, 0};
    int rc = cli_check_outputs(cmd, ctx, &in, 1, &o, 1, cli_get(cmd, args, "overwrite") != NULL);
    if (rc)
        return rc;
    long long size = 900;
    const char *v = cli_get(cmd, args, "size");
    if (v && !cli_parse_int(v, 1, TSR_LAYOUT_MAX_PICTURE, &size)) {
        cli_error(cmd, "--size wants a number of pixels from 1 to %d, not '%s'",
                  TSR_LAYOUT_MAX_PICTURE, v);
        return TSR_EXIT_USAGE;
    }
    if (v && o.format == TSR_FILE_SVG) {
        cli_error(cmd, "--size applies to image outputs (an SVG scales by itself)");
        return TSR_EXIT_USAGE;
    }
    tsr_layout *l = NULL;
    tsr_status st = tsr_layout_read(ctx, in, &l);
    if (st != TSR_OK)
        return cli_fail(cmd, ctx, st, NULL);
    if (!l->has_coordinates) { /* give the graph its initial layout first */
        tsr_layout_optimize_options opt;
        tsr_layout_optimize_options_init(&opt);
        opt.max_moves = 1;
        opt.time_limit = 0;
        /* one stress layout: auto would also build and score its variant with long paths set
         * aside, for a picture that does not need the lower of the two scores (10k edges:
         * 15 s instead of 40 s) */
        opt.init = TSR_LAYOUT_INIT_STRESS;
        tsr_layout_optimize_result res;
        st = tsr_layout_optimize(ctx, l, &opt, &res);
    }
    int32_t w = 0, h = 0; /* the image's pixels (not for SVG) */
    if (st == TSR_OK)
        st = o.format == TSR_FILE_SVG ? tsr_layout_write_svg(ctx, l, out)
                                      : render_image(ctx, l, (int32_t)size, out, &w, &h);
    rc = st == TSR_OK ? TSR_EXIT_OK : cli_fail(cmd, ctx, st, out);
    if (rc == TSR_EXIT_OK && cli_get(cmd, args, "json")) {
        json_begin("render", in, out);
        printf(", \"format\": \"%s\", \"nodes\": %d, \"edges\": %d, \"width\": %d, "
               "\"height\": %d",
               o.format == TSR_FILE_SVG ? "svg" : tsr_format_name(tsr_file_type_image(o.format)),
               (int)l->num_nodes, (int)l->num_edges, (int)l->width, (int)l->height);
        if (o.format != TSR_FILE_SVG)
            printf(", \"pixels\": [%d, %d]", (int)w, (int)h);
        printf("}\n");
    }
    tsr_layout_free(ctx, l);
    return rc;
}

typedef struct progress_state {
    int quiet;
    int terminal; /* stderr is a terminal: a progress line every second */
    double last;
} progress_state;

/* Progress on stderr: one-off events (notes) in a line of their own unless --quiet; the state
 * once a second only when stderr is a terminal (a log gets the notes and the final line). The
 * best drawing is the best over every chain (p->chain holds it). */
static int on_progress(void *user, const tsr_layout_progress *p)
{
    progress_state *ps = user;
    if (ps->quiet)
        return cli_stop_requested();
    if (p->note) {
        fprintf(stderr, "layout: %6.1fs: %s\n", p->elapsed, p->note);
    } else if (ps->terminal && p->elapsed - ps->last >= 1.0) {
        ps->last = p->elapsed;
        char left[32] = "";
        if (p->time_limit > 0)
            snprintf(left, sizeof left, "  %.0fs left",
                     p->time_limit > p->elapsed ? p->time_limit - p->elapsed : 0.0);
        if (p->phase == 0)
            fprintf(stderr, "layout: %6.1fs start-up (start drawing, crossing count)%s\n",
                    p->elapsed, left);
        else
            fprintf(stderr,
                    "layout: %6.1fs phase %d  best K=%lld n_K=%lld C=%lld (chain %d of %d: K=%lld "
                    "n_K=%lld C=%lld, T=%.3g)  %.0f moves/s%s\n",
                    p->elapsed, p->phase, (long long)p->best.K, (long long)p->best.n_K,
                    (long long)p->best.C, p->chain, p->chains, (long long)p->current.K,
                    (long long)p->current.n_K, (long long)p->current.C, p->temperature,
                    p->moves_per_second, left);
    }
    return cli_stop_requested();
}

/* Whether a and b draw the same graph (ids and edges in the same order). */
static int same_graph(const tsr_layout *a, const tsr_layout *b)
{
    if (a->num_nodes != b->num_nodes || a->num_edges != b->num_edges)
        return 0;
    for (int32_t i = 0; i < a->num_nodes; i++)
        if (strcmp(node_name(a, i), node_name(b, i)) != 0)
            return 0;
    for (int32_t e = 0; e < a->num_edges; e++)
        if (a->edge_u[e] != b->edge_u[e] || a->edge_v[e] != b->edge_v[e])
            return 0;
    return 1;
}

static int run_optimize(const cli_command *cmd, const cli_args *args, tsr_ctx *ctx, const char *in,
                        const char *out)
{
    const double started = cli_now(); /* --time counts from here: reading IN is in the budget */
    tsr_layout_optimize_options opt;
    tsr_layout_optimize_options_init(&opt);
    const char *v;
    int quiet = cli_get(cmd, args, "quiet") != NULL;
    if ((v = cli_get(cmd, args, "time")) && !cli_parse_double(v, 0.001, 1e9, &opt.time_limit)) {
        cli_error(cmd, "--time wants a positive number of seconds, not '%s'", v);
        return TSR_EXIT_USAGE;
    }
    if ((v = cli_get(cmd, args, "moves")) &&
        (!cli_parse_u64(v, &opt.max_moves) || !opt.max_moves)) {
        cli_error(cmd, "--moves wants a positive integer, not '%s'", v);
        return TSR_EXIT_USAGE;
    }
    if (opt.max_moves && !cli_get(cmd, args, "time"))
        opt.time_limit = 0;
    if ((v = cli_get(cmd, args, "seed")) && !cli_parse_u64(v, &opt.seed)) {
        cli_error(cmd, "--seed wants a non-negative integer, not '%s'", v);
        return TSR_EXIT_USAGE;
    }
    if ((v = cli_get(cmd, args, "init")) && tsr_layout_init_parse(v, &opt.init) != TSR_OK) {
        cli_error(cmd, "--init wants auto, keep, stress or random, not '%s'", v);
        return TSR_EXIT_USAGE;
    }
    if ((v = cli_get(cmd, args, "save-interval")) &&
        !cli_parse_double(v, 0.01, 1e9, &opt.save_interval)) {
        cli_error(cmd, "--save-interval wants a positive number of seconds, not '%s'", v);
        return TSR_EXIT_USAGE;
    }
    if ((v = cli_get(cmd, args, "phase1")) &&
        !cli_parse_double_pair(v, 0, 1, &opt.phase1_fraction, &opt.phase1_fraction_odd)) {
        cli_error(cmd, "--phase1 wants one or two shares from 0 to 1 (F or F,G), not '%s'", v);
        return TSR_EXIT_USAGE;
    }
    opt.spatial = cli_get(cmd, args, "dense") == NULL;
    long long chains = 0;
    if ((v = cli_get(cmd, args, "chains")) &&
        !cli_parse_int(v, 1, TSR_LAYOUT_MAX_CHAINS, &chains)) {
        cli_error(cmd, "--chains wants an integer from 1 to %d, not '%s'", TSR_LAYOUT_MAX_CHAINS,
                  v);
        return TSR_EXIT_USAGE;
    }
    opt.chains = (int)chains;
    long long gpu_chains = 0;
    if ((v = cli_get(cmd, args, "gpu-chains")) &&
        !cli_parse_int(v, 0, TSR_LAYOUT_MAX_CHAINS, &gpu_chains)) {
        cli_error(cmd, "--gpu-chains wants an integer from 0 to %d, not '%s'",
                  TSR_LAYOUT_MAX_CHAINS, v);
        return TSR_EXIT_USAGE;
    }
    opt.gpu_chains = (int)gpu_chains;
    if ((v = cli_get(cmd, args, "sync-every")) &&
        (!cli_parse_double(v, 0, 0.999, &opt.sync_every) ||
         (opt.sync_every > 0 && opt.sync_every < 0.01))) {
        cli_error(cmd, "--sync-every wants 0 or a share from 0.01 to 0.999, not '%s'", v);
        return TSR_EXIT_USAGE;
    }
    const char *svg = cli_get(cmd, args, "svg");
    const char *checkpoint = cli_get(cmd, args, "checkpoint");

    /* OUT: JSON (saved as the search goes) or GraphML (written at the end); "-" or a name
     * without an extension: JSON. The checkpoint is JSON and must be a file to resume from. */
    cli_output outs[3] = {
        {out, "OUT", TSR_FILE_BIT(TSR_FILE_JSON) | TSR_FILE_BIT(TSR_FILE_GRAPHML), TSR_FILE_JSON, 0,
         0},
        {svg, "--svg", TSR_FILE_BIT(TSR_FILE_SVG), TSR_FILE_SVG, 0, 0},
        {checkpoint, "--checkpoint", TSR_FILE_BIT(TSR_FILE_JSON), TSR_FILE_JSON, 0, 0}};
    int rc = cli_check_outputs(cmd, ctx, &in, 1, outs, 3, cli_get(cmd, args, "overwrite") != NULL);
    if (rc)
        return rc;
    if (checkpoint && outs[2].stream) {
        cli_error(cmd, "--checkpoint '%s' must be a file (it is read back to resume)", checkpoint);
        return TSR_EXIT_USAGE;
    }
    const int out_graphml = outs[0].format == TSR_FILE_GRAPHML;
    tsr_layout *l = NULL, *resume = NULL;
    tsr_status st = tsr_layout_read(ctx, in, &l);
    if (st != TSR_OK)
        return cli_fail(cmd, ctx, st, NULL);
    struct stat sb;
    if (checkpoint && stat(checkpoint, &sb) == 0) {
        if ((st = tsr_layout_read(ctx, checkpoint, &resume)) != TSR_OK) {
            rc = cli_fail(cmd, ctx, st, NULL);
            goto done;
        }
        if (!same_graph(l, resume) || !resume->has_coordinates) {
            cli_error(cmd, "checkpoint '%s' is not a drawing of the graph in '%s'", checkpoint, in);
            rc = TSR_EXIT_FAILURE;
            goto done;
        }
        memcpy(l->x, resume->x, (size_t)l->num_nodes * sizeof *l->x);
        memcpy(l->y, resume->y, (size_t)l->num_nodes * sizeof *l->y);
        l->has_coordinates = 1;
        opt.init = TSR_LAYOUT_INIT_KEEP;
        if (!quiet)
            fprintf(stderr, "tessera layout: resuming from checkpoint '%s'\n", checkpoint);
    }
    /* The optimizer saves JSON as it goes: into OUT when OUT is a JSON file (not a stream,
     * which would receive one drawing per save). */
    opt.save_path = out_graphml || outs[0].stream ? NULL : out;
    opt.checkpoint_path = checkpoint;
    progress_state ps = {quiet, isatty(STDERR_FILENO), -1e9};
    opt.progress = on_progress;
    opt.progress_user = &ps;
    if (opt.time_limit > 0) { /* the library's budget counts from its call: what is left */
        const double left = opt.time_limit - (cli_now() - started);
        opt.time_limit = left > 1e-3 ? left : 1e-3;
    }
    cli_stop_catch();
    tsr_layout_optimize_result res;
    st = tsr_layout_optimize(ctx, l, &opt, &res);
    cli_stop_release();
    if ((st != TSR_OK && st != TSR_ERR_INTERRUPTED) || (st == TSR_ERR_INTERRUPTED && !res.valid)) {
        rc = cli_fail(cmd, ctx, st, in); /* nothing written */
        goto done;
    }
    /* The optimizer saved the best drawing into OUT before it returned when OUT was its save
     * path; else OUT is written here. Then the SVG. */
    tsr_status wst = opt.save_path ? TSR_OK
                     : out_graphml ? tsr_layout_write_graphml(ctx, l, out)
                                   : tsr_layout_write_json(ctx, l, out);
    if (wst == TSR_OK && svg)
        wst = tsr_layout_write_svg(ctx, l, svg);
    if (wst != TSR_OK) {
        rc = cli_fail(cmd, ctx, wst, NULL);
        goto done;
    }
    if (!quiet && res.startup_only) {
        fprintf(stderr,
                "tessera layout: %s -> %s: %s in start-up after %.1fs; the start drawing "
                "is written, not optimized (",
                in, out, st == TSR_ERR_INTERRUPTED ? "stopped" : "time budget ran out",
                cli_now() - started);
        if (res.initial.K < 0)
            fprintf(stderr, "not counted in time");
        else
            print_score(stderr, &res.initial);
        fprintf(stderr, ", %d nodes repaired)\n", res.repaired);
    } else if (!quiet) {
        fprintf(stderr, "tessera layout: %s -> %s: ", in, out);
        print_score(stderr, &res.initial);
        fprintf(stderr, " -> ");
        print_score(stderr, &res.best);
        fprintf(stderr,
                " (%.1fs, %llu moves, %llu accepted, %llu restarts, %d nodes repaired; best of "
                "%d chain%s: %d)\n",
                res.seconds, (unsigned long long)res.moves, (unsigned long long)res.accepted,
                (unsigned long long)res.restarts, res.repaired, res.chains,
                res.chains == 1 ? "" : "s", res.best_chain);
    }
    if (cli_get(cmd, args, "json")) {
        json_begin("optimize", in, out);
        printf(", \"initial\": ");
        json_score(&res.initial);
        printf(", \"best\": ");
        json_score(&res.best);
        printf(", \"seconds\": %.3f, \"moves\": %llu, \"accepted\": %llu, \"restarts\": %llu, "
               "\"repaired\": %d, \"chains\": %d, \"best_chain\": %d, \"interrupted\": %s}\n",
               res.seconds, (unsigned long long)res.moves, (unsigned long long)res.accepted,
               (unsigned long long)res.restarts, res.repaired, res.chains, res.best_chain,
               st == TSR_ERR_INTERRUPTED ? "true" : "false");
    }
    rc = st == TSR_ERR_INTERRUPTED ? TSR_EXIT_INTERRUPTED : TSR_EXIT_OK;
done:
    tsr_layout_free(ctx, resume);
    tsr_layout_free(ctx, l);
    return rc;
}

static int run_layout(const cli_command *cmd, int argc, char **argv)
{
    if (argc < 1 || argv[0][0] == '-') {
        if (argc >= 1 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) {
            cli_print_help(cmd, stdout);
            return TSR_EXIT_OK;
        }
        cli_error(cmd, "needs a sub-command: check, optimize or render (see 'tessera layout "
                       "--help')");
        return TSR_EXIT_USAGE;
    }
    const char *sub = argv[0];
    cli_args args;
    int rc = cli_parse(cmd, argc - 1, argv + 1, &args);
    if (rc)
        return rc < 0 ? TSR_EXIT_OK : rc;
    int want = strcmp(sub, "check") == 0      ? 1
               : strcmp(sub, "optimize") == 0 ? 2
               : strcmp(sub, "render") == 0   ? 2
                                              : -1;
    if (want < 0) {
        cli_error(cmd, "unknown sub-command '%s' (check, optimize, render)", sub);
        return TSR_EXIT_USAGE;
    }
    if (args.npositional != want) {
        cli_error(cmd, "%s needs %s (see 'tessera layout --help')", sub,
                  want == 1 ? "one input" : "an input and an output");
        return TSR_EXIT_USAGE;
    }
    static const char *const optimize_only[] = {
        "time",   "moves",         "seed",   "init",  "svg",        "checkpoint",
        "chains", "save-interval", "phase1", "dense", "sync-every", "gpu-chains"};
    if (strcmp(sub, "optimize") != 0)
        for (size_t i = 0; i < sizeof optimize_only / sizeof *optimize_only; i++)
            if (cli_get(cmd, &args, optimize_only[i])) {
                cli_error(cmd, "--%s applies to optimize only", optimize_only[i]);
                return TSR_EXIT_USAGE;
            }
    if (strcmp(sub, "check") == 0 && cli_get(cmd, &args, "overwrite")) {
        cli_error(cmd, "--overwrite applies to optimize and render only");
        return TSR_EXIT_USAGE;
    }
    if (want == 2 && cli_get(cmd, &args, "json") && strcmp(args.positional[1], "-") == 0) {
        cli_error(cmd, "--json and OUT '-' would both write to standard output");
        return TSR_EXIT_USAGE;
    }
    if (strcmp(sub, "check") != 0 && cli_get(cmd, &args, "max-violations")) {
        cli_error(cmd, "--max-violations applies to check only");
        return TSR_EXIT_USAGE;
    }
    tsr_ctx *ctx = NULL;
    int quiet = cli_get(cmd, &args, "quiet") != NULL || strcmp(sub, "optimize") != 0;
    if ((rc = cli_open_context(cmd, &args, quiet, &ctx)) != 0)
        return rc;
    if (strcmp(sub, "check") == 0)
        rc = run_check(cmd, &args, ctx, args.positional[0]);
    else if (strcmp(sub, "render") == 0)
        rc = run_render(cmd, &args, ctx, args.positional[0], args.positional[1]);
    else
        rc = run_optimize(cmd, &args, ctx, args.positional[0], args.positional[1]);
    tsr_ctx_destroy(ctx);
    return rc;
}

const cli_command cli_cmd_layout = {
    "layout",
    "k-planar grid drawings: check, optimize (simulated annealing), render as SVG or an image",
    "check IN [--json] [--max-violations N]\n"
    "       tessera layout optimize IN OUT [--time S] [--seed N] [--init auto|keep|stress|random] "
    "[--svg FILE] [--checkpoint FILE] [options]\n"
    "       tessera layout render IN OUT.svg|OUT.png [--size PIXELS] [--json]",
    "Straight-line drawings of graphs on an integer grid that minimise k, the largest number of "
    "crossings on any one edge (the GD 2025 contest live challenge). Inputs are contest JSON "
    "({\"nodes\":[{\"id\",\"x\",\"y\"}],\"edges\":[{\"source\",\"target\"}],\"width\",\"height\"}; "
    "the canvas defaults to 1000000x1000000), GraphML (x and y node data are coordinates), DOT "
    "(Graphviz; pos=\"x,y\" is a coordinate), a CSV edge list (u,v per line; a first line "
    "source,target or from,to is a header) or a plain edge list (u v per line, # comments): "
    ".dot, .gv and .csv names choose DOT and CSV, otherwise the content tells. Coordinates are "
    "integers, for every node or for none (then an initial layout is made). "
    "Two edges cross when they share no endpoint and each one's endpoints lie strictly on "
    "opposite sides of the other's line; the score is K = max crossings on an edge, n_K = edges "
    "with K, Phi = sum of squared counts, C = crossings, compared in that order. "
    "check prints the score and the violations of validity (node outside the canvas, two nodes "
    "on one point, a node on an edge it is not an endpoint of, self-loops, duplicate edges; the "
    "first 20, or --max-violations N, are listed, with the count of the rest) and "
    "exits 0 when the drawing is valid, 1 when not. "
    "optimize repairs an invalid input, then anneals; the best valid drawing is written to OUT "
    "atomically every few seconds and on SIGINT/SIGTERM (exit 130; in start-up too: the start "
    "drawing made so far, or nothing when no valid drawing exists yet), so no work is lost. "
    "render draws IN as SVG, or as an image in any format tessera writes (anti-aliased, "
    "--size pixels on the longer side), with the most crossed edges in red. "
    "OUT's extension chooses its format: optimize writes .json (contest JSON, also for \"-\", "
    "standard output, and names without an extension) or .graphml (written at the end; use "
    "--checkpoint to keep the best drawing during the run), --svg writes .svg, render .svg or an "
    "image (.png, .jpg, ...); "
    "another extension is an error. IN may be \"-\" (standard input).",
    layout_options,
    "  tessera layout check drawing.json\n"
    "  tessera layout check drawing.json --json --max-violations all\n"
    "  tessera layout optimize Automatic-1.json best.json --time 20 --svg best.svg\n"
    "  tessera layout optimize big.json best.json --time 600 --checkpoint big.ckpt.json\n"
    "  tessera layout optimize grafo1000.14.graphml out.json --moves 200000 --seed 7\n"
    "  tessera layout optimize graph.dot out.json --time 30\n"
    "  tessera layout check edges.csv\n"
    "  tessera layout optimize Automatic-3.json best.json --moves 750000 --chains 4\n"
    "  tessera layout render best.json best.svg --json\n"
    "  tessera layout render best.json best.png --size 2000",
    run_layout};
