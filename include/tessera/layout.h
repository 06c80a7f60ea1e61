/* tessera layout: straight-line grid drawings of graphs that minimise the largest number of
 * crossings on any one edge (k-planarity), after the GD 2025 contest live challenge.
 *
 * Definitions (followed exactly by every evaluator and backend):
 * - A drawing places node i at the integer point (x[i], y[i]) of the canvas [0,width]x[0,height]
 *   (both ends inclusive); edges are straight segments.
 * - Two edges cross when they share no endpoint and the endpoints of each lie strictly on opposite
 *   sides of the other's line (exact 64-bit orientation signs; touching or collinear contact does
 *   not count). c(e) is the number of edges crossing e.
 * - Score, compared lexicographically: K = max c(e), n_K = #{e : c(e) = K}, Phi = sum c(e)^2,
 *   C = number of crossing pairs.
 * - Valid: every node inside the canvas, no two nodes on one point, no node on an edge it is not
 *   an endpoint of (interior or end points). Self-loops and duplicate edges are reported.
 *
 * Readers allocate the drawing they return (tsr_layout_free releases it); everything else writes
 * into caller memory. */
#ifndef TESSERA_LAYOUT_H
#define TESSERA_LAYOUT_H

#include "tessera/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest width/height accepted: keeps every orientation product below 2^62. */
#define TSR_LAYOUT_MAX_CANVAS (1 << 30)
/* Width and height when the input gives none. */
#define TSR_LAYOUT_DEFAULT_CANVAS 1000000

/* A graph with a drawing. Node ids are the input's (any integer or string), mapped to 0..n-1 in
 * input order; edges refer to node indices. */
typedef struct tsr_layout {
    int32_t num_nodes, num_edges;
    int32_t width, height;      /* canvas [0,width]x[0,height] */
    int32_t *x, *y;             /* num_nodes coordinates */
    int32_t *edge_u, *edge_v;   /* num_edges endpoint indices */
    char **node_id;             /* num_nodes id texts as in the input (without quotes) */
    uint8_t *node_id_is_string; /* 1: the id was a JSON string; 0: a number (written unquoted) */
    int has_coordinates;        /* 0 when the input gave none (edge lists, GraphML without x/y data,
                                   DOT without pos): needs an initial layout */
} tsr_layout;

/* Allocates a drawing with n nodes and m edges (all fields zeroed, ids NULL, canvas default). */
tsr_status tsr_layout_alloc(tsr_ctx *ctx, int32_t num_nodes, int32_t num_edges, tsr_layout **out);
/* Frees a drawing from a reader or tsr_layout_alloc; NULL is a no-op. */
void tsr_layout_free(tsr_ctx *ctx, tsr_layout *layout);
/* A deep copy. */
tsr_status tsr_layout_clone(tsr_ctx *ctx, const tsr_layout *src, tsr_layout **out);

/* Reads contest JSON (jansson), GraphML (expat; x/y node data keys are coordinates), DOT
 * (Graphviz cgraph; pos="x,y" is a coordinate), a CSV edge list ("u,v" per record, a first record
 * source,target or from,to is a header) or a plain edge list ("u v" per line, '#' comments). A
 * name ending in .dot/.gv or .csv chooses DOT or CSV; otherwise the content does ('{' JSON, '<'
 * GraphML, "[strict] graph|digraph [ID] {" DOT, a comma in the first line CSV). Errors are
 * TSR_ERR_CORRUPT (syntax, unknown node id, non-integer coordinate, ...), TSR_ERR_LIMIT (canvas too
 * small for the nodes, sizes beyond int32) or TSR_ERR_IO, with a message naming the file and the
 * line:column or element. `name` (may be NULL) labels messages. */
tsr_status tsr_layout_read(tsr_ctx *ctx, const char *path, tsr_layout **out);
tsr_status tsr_layout_parse(tsr_ctx *ctx, const char *data, size_t len, const char *name,
                            tsr_layout **out);
/* Writes contest JSON (ids as read) atomically: temporary file, then rename. */
tsr_status tsr_layout_write_json(tsr_ctx *ctx, const tsr_layout *layout, const char *path);
/* Writes GraphML atomically: <node id> with "x"/"y" data (keys d_x, d_y), <edge source target>. */
tsr_status tsr_layout_write_graphml(tsr_ctx *ctx, const tsr_layout *layout, const char *path);
/* Writes an SVG picture atomically; the edges with the most crossings are drawn thick and red,
 * the rest shaded from grey by their count. */
tsr_status tsr_layout_write_svg(tsr_ctx *ctx, const tsr_layout *layout, const char *path);

/* Largest side of a rendered picture, in pixels. */
#define TSR_LAYOUT_MAX_PICTURE 16384
/* The size of the picture tsr_layout_render draws whose longer side is `longest` pixels
 * (1..TSR_LAYOUT_MAX_PICTURE): the canvas and its margin in their proportions. */
tsr_status tsr_layout_render_size(tsr_ctx *ctx, const tsr_layout *layout, int32_t longest,
                                  int32_t *width, int32_t *height);
/* Draws the SVG writer's picture into out, an 8-bit RGB host image the caller allocated, of any
 * size: the canvas and its margin scaled to fit, from the top-left corner, on white (every pixel
 * is written), anti-aliased. Saving it is tsr_image_save's (tessera/io.h). */
tsr_status tsr_layout_render(tsr_ctx *ctx, const tsr_layout *layout, tsr_image *out);

typedef struct tsr_layout_score {
    int64_t K, n_K, Phi, C;
} tsr_layout_score;

/* -1, 0, 1 as a is lexicographically better than, equal to, worse than b. */
int tsr_layout_score_compare(const tsr_layout_score *a, const tsr_layout_score *b);

/* Counts crossings on the backend asked for (reference: one thread over pairs; cpu: OpenMP;
 * cuda: one thread per edge; others: TSR_ERR_NO_BACKEND); auto takes the CPU, which finishes one
 * count of a host drawing before a CUDA start-up would. edge_crossings (may be NULL) receives
 * c(e) for every edge. Every backend gives the same numbers. Self-loops cross nothing. */
tsr_status tsr_layout_evaluate(tsr_ctx *ctx, const tsr_layout *layout, tsr_layout_score *score,
                               int32_t *edge_crossings);

typedef enum tsr_layout_violation_kind {
    TSR_LAYOUT_OUTSIDE_CANVAS = 1, /* node a */
    TSR_LAYOUT_COINCIDENT_NODES,   /* nodes a < b on one point */
    TSR_LAYOUT_NODE_ON_EDGE,       /* node a lies on edge e (not one of its endpoints) */
    TSR_LAYOUT_SELF_LOOP,          /* edge e joins node a to itself */
    TSR_LAYOUT_DUPLICATE_EDGE      /* edges e < f join the same two nodes */
} tsr_layout_violation_kind;

typedef struct tsr_layout_violation {
    tsr_layout_violation_kind kind;
    int32_t node_a, node_b; /* -1 when not used */
    int32_t edge_e, edge_f; /* -1 when not used */
} tsr_layout_violation;

/* "outside-canvas", "coincident-nodes", "node-on-edge", "self-loop", "duplicate-edge". */
const char *tsr_layout_violation_name(tsr_layout_violation_kind kind);

/* Lists every violation (ordered by kind, then nodes/edges): *count receives the total, and the
 * first min(total, capacity) are stored in items (items may be NULL with capacity 0 to ask for
 * the count). A drawing is valid when the total is 0. Self-loops and duplicate edges make a drawing
 * invalid too. */
tsr_status tsr_layout_check(tsr_ctx *ctx, const tsr_layout *layout, tsr_layout_violation *items,
                            size_t capacity, size_t *count);

typedef enum tsr_layout_init {
    TSR_LAYOUT_INIT_AUTO = 0, /* no coordinates: stress; else the input's coordinates or the stress
                               * layout, whichever scores lower (the input scored as read) */
    TSR_LAYOUT_INIT_KEEP,
    TSR_LAYOUT_INIT_STRESS, /* stress layout (SGD on graph distances), snapped, repaired */
    TSR_LAYOUT_INIT_RANDOM  /* uniform distinct random points */
} tsr_layout_init;

/* "auto", "keep", "stress", "random"; parse returns TSR_ERR_INVALID_ARGUMENT for others. */
const char *tsr_layout_init_name(tsr_layout_init init);
tsr_status tsr_layout_init_parse(const char *name, tsr_layout_init *out);

typedef struct tsr_layout_progress {
    double elapsed;    /* seconds since the start */
    double time_limit; /* seconds, 0 = none */
    int phase;         /* 0: start-up (start layout, repair, first count, chains' set-up;
                        * the scores, temperature and moves are then 0), 1: sum of squared
                        * crossing counts, 2: k */
    tsr_layout_score current, best;
    double temperature;
    double moves_per_second;
    uint64_t moves, accepted; /* summed over the chains (moves_per_second too) */
    const char *note;  /* non-NULL for one-off events ("restart from best", "spatial overflow") */
    int chain, chains; /* the chain holding the best drawing (phase, current, temperature are
                        * its own), of how many; -1 and 0 in start-up (phase 0) */
} tsr_layout_progress;

/* Called about every progress_interval seconds and at events, always from the thread that called
 * tsr_layout_optimize; return nonzero to stop (the optimizer then returns TSR_ERR_INTERRUPTED
 * with the best valid drawing in the layout). */
typedef int (*tsr_layout_progress_fn)(void *user, const tsr_layout_progress *p);

typedef struct tsr_layout_optimize_options {
    double time_limit;     /* seconds from the call's start; default 60; 0 = no limit (max_moves
                            * must be set). It covers start-up too: where it runs out there,
                            * the call returns TSR_OK with the best valid start drawing made so
                            * far (result.startup_only), soon after the limit (start-up polls it
                            * about every millisecond of its work). A graph without coordinates
                            * has one at once (where the canvas allows: see startup_only); with
                            * coordinates, the budget waits for the first valid drawing (the
                            * stress layout, cut short: fewer pivots and iterations, then
                            * repaired; or the repaired input under init keep) */
    uint64_t max_moves;    /* proposals; 0 = none. When set, the schedule follows moves instead
                            * of time, so a seed gives the same drawing whatever the speed */
    uint64_t seed;         /* default 1 */
    tsr_layout_init init;  /* default AUTO */
    const char *save_path; /* when set, the best valid drawing is written here (JSON, atomic) every
                            * save_interval seconds when it improved, and before returning */
    const char *checkpoint_path; /* like save_path; a later run may start from it (init keep) */
    double save_interval;        /* seconds; default 10 */
    tsr_layout_progress_fn progress;
    void *progress_user;
    double progress_interval; /* seconds; default 0.5 */
    double phase1_fraction;   /* share of the budget for the squared-counts phase of the chains
                               * 0, 2, 4, ... (the odd ones: phase1_fraction_odd, below);
                               * default 0.3 */
    int spatial;              /* 1 (default): use the uniform-grid index when it pays; 0: dense */
    /* Independent annealing chains, one thread each, 1..TSR_LAYOUT_MAX_CHAINS; 0 (default): the
     * context's CPU thread count (1 on the reference backend). All start from the same start
     * drawing (made with `seed`); from there chain i walks as a one-chain run with seed + i *
     * TSR_LAYOUT_CHAIN_SEED_STEP (mod 2^64) would (an odd chain with phase1_fraction_odd, below, as
     * its phase1_fraction), so chain 0 is the one-chain run, and max_moves is each chain's budget.
     * The best drawing over the chains is kept (the lowest chain index among equal scores), so a
     * seed, a move budget and a chain count give the same drawing however the threads run. */
    int chains;
    /* "Go with the winners": 0 (default) none; else, in [0.01, 1), at the budget shares
     * 1 - k * sync_every above both phase-1 shares (k = 1, 2, ...) every chain waits for the
     * others, then restarts from the best drawing over the chains, keeping its own random stream,
     * temperature and phase. Still deterministic at a fixed move budget (chain i is then no longer
     * a one-chain run). */
    double sync_every;

    /* ---- Advanced: search tuning. These may change or go between versions; the defaults are
     * what the library is tuned for. ---- */
    double phase1_fraction_odd; /* phase1_fraction for the chains 1, 3, 5, ...; default 0.02. The
                                 * two make a portfolio: a long phase 1 suits random dense graphs
                                 * (GD 2025's A6), a short one graphs whose k sits on a few long
                                 * paths through a structure the start layout drew well (A9) */
    int gpu_chains; /* when the search runs its chains' evaluations on a GPU (backend cuda, or
                     * auto on a dense graph with a GPU present): how many chains, the first ones,
                     * do so; the others walk on the CPU. 0 (default): every chain. The drawing
                     * does not depend on it (the GPU walk is the CPU walk, faster) */
} tsr_layout_optimize_options;

#define TSR_LAYOUT_MAX_CHAINS 1024
/* Four steps of the splitmix64 gamma that seeds the annealer's generator: chain i's four state
 * words are the splitmix64 outputs right after chain i - 1's. */
#define TSR_LAYOUT_CHAIN_SEED_STEP 0x78DDE6E5FD29F054ull

void tsr_layout_optimize_options_init(tsr_layout_optimize_options *opt);

typedef struct tsr_layout_optimize_result {
    tsr_layout_score initial; /* of the valid starting drawing (after repair/init) */
    tsr_layout_score best;
    int repaired;                       /* nodes moved to make the input valid */
    uint64_t moves, accepted, restarts; /* summed over the chains */
    uint64_t dense_fallbacks; /* spatial queries answered by the dense path (overflow, size) */
    double seconds;
    int chains, best_chain; /* chains run; the one whose drawing was kept */
    /* 1: the time limit or a stop request ended the call in start-up, before any move: layout
     * holds the best valid start drawing made by then (a generated layout over the
     * general-position drawing a graph without coordinates gets first), initial and best are its
     * score, or all -1 when it could not be counted in time */
    int startup_only;
    int valid; /* layout holds a valid drawing: always on TSR_OK; 0 after a stop request that came
                * before one existed (TSR_ERR_INTERRUPTED: then nothing is kept or saved) */
} tsr_layout_optimize_result;

/* Makes the drawing valid (moving the fewest nodes it can, to the nearest valid points), gives it
 * an initial layout as asked, then anneals it; on return `layout` holds the best valid drawing
 * found. Fails with TSR_ERR_LIMIT when the canvas has fewer points than nodes, TSR_ERR_CORRUPT for
 * self-loops (no valid drawing exists; found before any other work), TSR_ERR_INTERRUPTED when
 * the progress callback asked to stop (layout still holds the best drawing, unless result.valid
 * is 0). The progress callback is also asked in start-up (phase 0), so a stop request ends it
 * too. result may be NULL; it is filled on TSR_ERR_INTERRUPTED too. Backends: reference, cpu,
 * cuda (every chain's proposals scored in batches on a CUDA evaluator of its own, see gpu_chains);
 * auto takes cuda for a dense graph (mean degree >= 8 and degree x edges >= 20,000) where a GPU
 * can be used, else the CPU; every backend gives the same drawing at a fixed move budget. */
tsr_status tsr_layout_optimize(tsr_ctx *ctx, tsr_layout *layout,
                               const tsr_layout_optimize_options *opt,
                               tsr_layout_optimize_result *result);

/* Only the repair step of tsr_layout_optimize: on success the drawing is valid; *moved (may be
 * NULL) receives the number of nodes moved. */
tsr_status tsr_layout_repair(tsr_ctx *ctx, tsr_layout *layout, int *moved);

#ifdef __cplusplus
}
#endif
#endif
