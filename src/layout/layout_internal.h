/* The layout domain's internal interfaces: the graph builder the readers share, the incremental
 * evaluator state, the spatial index, the initial layouts and repair (not installed). */
#ifndef TSR_LAYOUT_INTERNAL_H
#define TSR_LAYOUT_INTERNAL_H

#include "core/ctx.h"
#include "tessera/layout.h"

#include <stddef.h>
#include <stdint.h>

/* Grows *p (elements of `elem` bytes, capacity *cap) to hold at least `need`; contents kept. */
tsr_status tsr__layout_grow(tsr_ctx *ctx, void **p, size_t *cap, size_t need, size_t elem);
/* Copies len bytes of s into a new NUL-terminated string (layout.c). */
tsr_status tsr__layout_dup_text(tsr_ctx *ctx, const char *s, size_t len, char **out);

/* ---- builder: readers add nodes and edges by id text, then finish into a tsr_layout ---- */
typedef struct tsr__layout_builder {
    tsr_ctx *ctx;
    const char *name; /* file name for messages */
    size_t nnodes, node_cap;
    char **ids;
    uint8_t *id_is_string;
    int64_t *x, *y; /* INT64_MIN when absent */
    size_t nedges, edge_cap;
    char **edge_src, **edge_dst;   /* id texts */
    int32_t *edge_line, *edge_col; /* where the edge was read, for messages (0 = unknown) */
    /* open-addressed id -> node index + 1 (0 = empty) */
    int32_t *table;
    size_t table_cap;
    int64_t width, height; /* -1 when absent */
    int any_coordinates, all_coordinates;
} tsr__layout_builder;

void tsr__builder_init(tsr__layout_builder *b, tsr_ctx *ctx, const char *name);
void tsr__builder_release(tsr__layout_builder *b);
/* Adds a node; TSR_ERR_CORRUPT (naming line:col) when the id was seen before. x/y INT64_MIN when
 * the input has no coordinates for it. */
tsr_status tsr__builder_node(tsr__layout_builder *b, const char *id, size_t id_len, int is_string,
                             int64_t x, int64_t y, int line, int col);
/* Adds a node without coordinates unless one with this id exists (readers whose edges name
 * their nodes: edge list, CSV). */
tsr_status tsr__builder_ensure_node(tsr__layout_builder *b, const char *id, size_t id_len, int line,
                                    int col);
/* Index of the node with this id, or -1. */
int32_t tsr__builder_lookup(const tsr__layout_builder *b, const char *id, size_t len);
tsr_status tsr__builder_edge(tsr__layout_builder *b, const char *src, size_t src_len,
                             const char *dst, size_t dst_len, int line, int col);
/* Resolves edge ids (unknown id: TSR_ERR_CORRUPT naming the edge's place), applies the canvas
 * default, checks sizes and that the canvas holds the nodes, and hands over a new layout. */
tsr_status tsr__builder_finish(tsr__layout_builder *b, tsr_layout **out);

/* Format readers: data need not be NUL-terminated. */
tsr_status tsr__layout_parse_json(tsr_ctx *ctx, const char *data, size_t len, const char *name,
                                  tsr_layout **out);
tsr_status tsr__layout_parse_graphml(tsr_ctx *ctx, const char *data, size_t len, const char *name,
                                     tsr_layout **out);
tsr_status tsr__layout_parse_edgelist(tsr_ctx *ctx, const char *data, size_t len, const char *name,
                                      tsr_layout **out);
tsr_status tsr__layout_parse_csv(tsr_ctx *ctx, const char *data, size_t len, const char *name,
                                 tsr_layout **out);
tsr_status tsr__layout_parse_dot(tsr_ctx *ctx, const char *data, size_t len, const char *name,
                                 tsr_layout **out);

/* ---- adjacency (CSR): node -> incident edge ids ---- */
typedef struct tsr__layout_adj {
    int32_t *offset; /* n + 1 */
    int32_t *edges;  /* 2m (a self-loop is listed twice) */
} tsr__layout_adj;
tsr_status tsr__adj_build(tsr_ctx *ctx, const tsr_layout *l, tsr__layout_adj *adj);
void tsr__adj_release(tsr_ctx *ctx, tsr__layout_adj *adj);

/* ---- the optimizer's clock and start-up watch (watch.c) ----
 * The time budget of tsr_layout_optimize counts from t0, the start of the call. Its start-up (the
 * start layout, repair, the first full count, the chains' set-up) polls the watch between small
 * steps of its work, from the calling thread only: the watch stops once the budget is spent
 * (TSR__STOP_DEADLINE) or when the progress callback (the options', else the context's), asked
 * about every progress_interval seconds with phase 0, returns nonzero (TSR__STOP_REQUEST). Once
 * stopped it stays stopped. Work stopped by a watch returns TSR_ERR_INTERRUPTED without a context
 * message; the caller reads the reason from the watch. A NULL watch never stops. While need_valid
 * is set (start-up has no valid drawing yet) the budget does not stop the work but sets `late`,
 * on which the stress layout cuts its work short (fewer pivots, fewer iterations) so that a valid
 * drawing exists soon after the budget. */
typedef enum tsr__stop { TSR__STOP_NONE = 0, TSR__STOP_DEADLINE, TSR__STOP_REQUEST } tsr__stop;
typedef struct tsr__watch {
    tsr_ctx *ctx;
    const tsr_layout_optimize_options *opt;
    double t0, last_report; /* monotonic seconds; the last callback, seconds after t0 */
    tsr__stop stop;
    int need_valid, late;
} tsr__watch;
/* Monotonic seconds. */
double tsr__layout_now(void);
void tsr__watch_init(tsr__watch *w, tsr_ctx *ctx, const tsr_layout_optimize_options *opt,
                     double t0);
tsr__stop tsr__watch_poll(tsr__watch *w);

/* ---- full counts ---- */
/* Single-threaded reference over pairs e < f. counts: num_edges entries. */
void tsr__count_reference(const tsr_layout *l, int32_t *counts);
/* OpenMP: one edge per iteration against the others whose bounding boxes meet its own (same
 * numbers). threads <= 0: all. Fails only when its scratch cannot be allocated. */
tsr_status tsr__count_parallel(tsr_ctx *ctx, const tsr_layout *l, int32_t *counts, int threads);
/* tsr__count_parallel polling `watch` (may be NULL) after every few edges: TSR_ERR_INTERRUPTED
 * when it stopped (counts then incomplete). */
tsr_status tsr__count_watched(tsr_ctx *ctx, const tsr_layout *l, int32_t *counts, int threads,
                              tsr__watch *watch);
/* Score from per-edge counts. */
void tsr__score_from_counts(const int32_t *counts, int32_t m, tsr_layout_score *s);

/* ---- occupancy: point -> node, open addressing (for the validity of a move) ---- */
typedef struct tsr__occupancy {
    uint64_t *keys; /* (x << 32 | y) + 1, 0 = empty; deleted = UINT64_MAX */
    int32_t *node;
    size_t cap;  /* power of two */
    size_t used; /* live + deleted */
} tsr__occupancy;
tsr_status tsr__occ_build(tsr_ctx *ctx, const tsr_layout *l, tsr__occupancy *o);
void tsr__occ_release(tsr_ctx *ctx, tsr__occupancy *o);
/* Node at (x, y) or -1. */
int32_t tsr__occ_get(const tsr__occupancy *o, int32_t x, int32_t y);
/* Moves node v's entry from (x0,y0) to (x1,y1); the new point must be free. */
tsr_status tsr__occ_move(tsr_ctx *ctx, tsr__occupancy *o, int32_t v, int32_t x0, int32_t y0,
                         int32_t x1, int32_t y1);

/* Whether moving node v to (px, py) keeps a drawing valid in which v's own edges were fine:
 * inside the canvas, point free, the point on no edge not incident to v, and no node other than
 * the endpoints on any of v's new edges. Returns 1 when valid. */
/* The node part of tsr__move_valid (canvas, free point, v's new edges free of nodes); the caller
 * tests the point against the edges (all of them, or the spatial index's candidates). */
int tsr__move_valid_nodes(const tsr_layout *l, const tsr__layout_adj *adj, const tsr__occupancy *o,
                          int32_t v, int32_t px, int32_t py);
int tsr__move_valid(const tsr_layout *l, const tsr__layout_adj *adj, const tsr__occupancy *o,
                    int32_t v, int32_t px, int32_t py);

/* ---- uniform-grid spatial index (grid_cpu.c) ----
 * Square cells of `cell` canvas units list the edges whose segment passes through them
 * (conservative: every cell containing a point of the segment). Each cell holds at most `cap`
 * edges; an insertion beyond that marks the index stale with a reason instead of dropping the
 * edge, and a stale index answers no query until rebuilt (the caller falls back to the dense
 * path). Candidate lists are deduplicated with per-edge generation stamps, cleared only when the
 * 32-bit generation wraps. */
typedef enum tsr__grid_reason {
    TSR__GRID_OK = 0,
    TSR__GRID_CELL_FULL,       /* a cell reached its capacity: index stale until rebuilt */
    TSR__GRID_QUERY_TOO_LARGE, /* a query spans more cells or edges than it can pay off */
    TSR__GRID_TOO_BIG          /* the index would need more memory than allowed: not built */
} tsr__grid_reason;

typedef struct tsr__grid {
    int32_t cell, gx, gy, cap;
    uint64_t div_mul; /* v / cell == v * div_mul >> div_shift for v in [0, 2^31) */
    int32_t div_shift;
    int32_t *count;         /* gx*gy */
    int32_t *items;         /* gx*gy*cap */
    tsr__grid_reason stale; /* TSR__GRID_OK while the index is exact */
    uint32_t *stamp;        /* per edge (nedges) */
    int32_t nedges;
    uint32_t gen;
    int32_t *cand;           /* candidate edges of the current query (room for nedges + 1) */
    int32_t ncand;           /* at most nedges: each edge is listed once */
    int64_t max_query_cells; /* cells one segment may visit in a query (default all) */
} tsr__grid;

/* Builds the index of every edge of l. cell_size 0 picks one from the edge lengths; cap 0 picks
 * twice the fullest cell (at least 16). Returns TSR_OK with g->stale = TSR__GRID_TOO_BIG when the
 * index would exceed memory_limit bytes (then it is empty). */
tsr_status tsr__grid_build(tsr_ctx *ctx, const tsr_layout *l, int32_t cell_size, int32_t cap,
                           size_t memory_limit, tsr__grid *g);
void tsr__grid_release(tsr_ctx *ctx, tsr__grid *g);
/* Adds / removes edge e drawn from (ax,ay) to (bx,by). Insert marks the index stale on overflow. */
void tsr__grid_insert(tsr__grid *g, int32_t e, int32_t ax, int32_t ay, int32_t bx, int32_t by);
void tsr__grid_remove(tsr__grid *g, int32_t e, int32_t ax, int32_t ay, int32_t bx, int32_t by);
/* Query: begin, then add segments and points; the union of the edges listed in their cells is in
 * g->cand[0..ncand). Each returns TSR__GRID_OK or the reason to fall back to the dense path. */
tsr__grid_reason tsr__grid_query_begin(tsr__grid *g);
tsr__grid_reason tsr__grid_query_segment(tsr__grid *g, int32_t ax, int32_t ay, int32_t bx,
                                         int32_t by);

/* One incident edge e of the moving node and its other endpoint w at (x, y); [x0,x1] x [y0,y1]
 * bounds the arm before and after the move (w, the old point and the new one). */
typedef struct tsr__star_arm {
    int32_t e, w, x, y;
    int32_t x0, y0, x1, y1;
} tsr__star_arm;

/* ---- incremental evaluator (incr_cpu.c): per-edge counts kept exact move by move ----
 * A proposal (v to px,py) is scored into scratch (delta, touched) without changing anything;
 * commit applies coordinates, counts, histogram, score, occupancy and index together. */
typedef struct tsr__incr {
    tsr_layout *l; /* coordinates are updated on commit */
    tsr__layout_adj adj;
    tsr__occupancy occ;
    int32_t *count; /* c(e) */
    int64_t *hist;  /* hist[c] = #{e : c(e) = c}, c in [0, m] */
    tsr_layout_score score;
    /* proposal scratch */
    int32_t *delta, *touched;
    uint8_t *mark;
    int32_t ntouched;
    tsr__star_arm *star; /* the moving node's incident edges (max degree entries) */
    int32_t nstar;
    /* the AVX2 visit (incr_avx2.c): every edge's end points (edge_u's, then edge_v's), a copy of
     * l's coordinates kept current on commit, apply and load, so candidates load as vectors;
     * per-proposal scratch of max degree entries: the star's broadcast values (TSR__ARM_VALUES
     * each) and each arm's lanes that cross the candidates now and before the move */
    int32_t *eax, *eay, *ebx, *eby;
    int32_t *star_values;
    uint8_t *arm_now, *arm_was;
    int simd;  /* 1: the AVX2 visit (set by init from tsr__incr_simd(); tests may flip it) */
    int small; /* canvas sides <= TSR__SMALL_CANVAS: every orientation's two products and their
                * comparison fit in int32, so the AVX2 visit takes 8 candidates in 32-bit lanes
                * instead of 4 in 64-bit ones (set by init from the canvas) */
    int32_t pv, px, py;
    int pending; /* a valid proposal awaits commit or reject */
    tsr_layout_score pscore;
    /* spatial index */
    int use_grid;
    tsr__grid grid;
    uint64_t grid_queries, dense_fallbacks;
    /* the index's cost check: candidates listed in the current window of queries, and
     * proposals left to take the dense path because the last window did not pay */
    uint64_t window_cand;
    int32_t window, dense_run;
    tsr__grid_reason last_fallback;
} tsr__incr;

/* Adds d to edge e's pending change, listing e in touched the first time. */
static inline void tsr__incr_touch(tsr__incr *inc, int32_t e, int32_t d)
{
    if (!inc->mark[e]) {
        inc->mark[e] = 1;
        inc->touched[inc->ntouched++] = e;
    }
    inc->delta[e] += d;
}

/* Which candidate visit tsr__incr_init selects: 1 = the AVX2 one (incr_avx2.c), wherever the CPU
 * has AVX2; 0 = the scalar one of incr_cpu.c. tsr__incr_set_simd() is the tests' hook to run
 * both paths (capped at what the CPU runs). Both give the same touched list, deltas and scores. */
int tsr__incr_simd(void);
void tsr__incr_set_simd(int on);
/* incr_avx2.c: whether the CPU runs the AVX2 visit (0 off x86-64), and that visit: the
 * candidates cand[0..n) (cand NULL: every edge, n = num_edges) of moving v from (ox,oy) to
 * (px,py), against the star gathered in inc->star, their changes added to the scratch in the
 * scalar visit's order. Returns 0 when (px,py) lies on a candidate (the caller clears the
 * scratch), else 1. */
enum { TSR__ARM_VALUES = 6, TSR__SMALL_CANVAS = 32767 };
int tsr__incr_cpu_avx2(void);
int tsr__incr_visit_avx2(tsr__incr *inc, const int32_t *cand, int32_t n, int32_t v, int32_t ox,
                         int32_t oy, int32_t px, int32_t py);

/* Sets up counts (full recount on the context's CPU threads), adjacency, occupancy and, when
 * use_grid, the spatial index. The drawing must be valid. */
tsr_status tsr__incr_init(tsr_ctx *ctx, tsr__incr *inc, tsr_layout *l, int use_grid);
/* tsr__incr_init with the drawing's per-edge counts given (NULL: counted), so that chains
 * started from one drawing share its one count. */
tsr_status tsr__incr_init_with(tsr_ctx *ctx, tsr__incr *inc, tsr_layout *l, int use_grid,
                               const int32_t *counts);
void tsr__incr_release(tsr_ctx *ctx, tsr__incr *inc);
/* Scores moving v to (px,py). Returns 1 (pscore filled; commit or reject next) or 0 when the
 * move would make the drawing invalid (nothing to undo). */
int tsr__incr_propose(tsr__incr *inc, int32_t v, int32_t px, int32_t py);
void tsr__incr_reject(tsr__incr *inc);
/* The pending proposal's change of sum over edges of max(0, c(e) - t)^2 (the annealer's phase-2
 * excess over target t). */
int64_t tsr__incr_pending_excess(const tsr__incr *inc, int64_t t);
tsr_status tsr__incr_commit(tsr_ctx *ctx, tsr__incr *inc);
/* Commits moving v to (px, py) with the new per-edge counts given (an evaluator elsewhere
 * scored the move: the batch walk's mirror of a device commit); drops any pending proposal. The
 * move must keep the drawing valid. */
tsr_status tsr__incr_apply(tsr_ctx *ctx, tsr__incr *inc, int32_t v, int32_t px, int32_t py,
                           const int32_t *counts);
/* Replaces all coordinates (and counts when given, else recounts) and rebuilds occupancy and
 * index: a restart from a saved drawing. */
tsr_status tsr__incr_load(tsr_ctx *ctx, tsr__incr *inc, const int32_t *x, const int32_t *y,
                          const int32_t *counts);
/* Rebuilds the spatial index for the current drawing (after it went stale or the drawing
 * changed scale). */
tsr_status tsr__incr_rebuild_grid(tsr_ctx *ctx, tsr__incr *inc);

/* ---- initial layouts (init.c) ---- */
/* Stress layout by stochastic gradient descent on graph distances (edges of length 1, or
 * TSR__SHORTCUT_EDGE_LENGTH at a node tsr__mark_short_shortcuts marks; all pairs up to 3000 nodes,
 * beyond that about 2^21 node-pivot pairs, at least 64 pivots), scaled to the canvas and
 * snapped; collisions are left to repair. Stopped by the watch: l unchanged. */
tsr_status tsr__init_stress(tsr_ctx *ctx, tsr_layout *l, uint64_t seed, tsr__watch *watch);
/* init_chains.c: the stress layout of the graph without its long chains (maximal paths of at
 * least two degree-2 interior nodes between two distinct ends), each chain's interior spread
 * evenly between its ends' points; collisions are left to repair. *found: the number of chains
 * (0: l unchanged, no layout made). */
tsr_status tsr__init_stress_chains(tsr_ctx *ctx, tsr_layout *l, uint64_t seed, tsr__watch *watch,
                                   int *found);
/* init_chains.c: marks in stretch (n entries) the interior nodes of the chains with one interior
 * node that are shortcuts: its two ends (not interior, distinct) are more than
 * 2 * TSR__SHORTCUT_EDGE_LENGTH steps apart (or not joined) in the graph without it. The stress
 * layout gives the two edges of such a node length TSR__SHORTCUT_EDGE_LENGTH instead of 1, so the
 * path asks for twice that between its ends and folds the rest of the graph less (a grid with
 * two-edge paths between random grid nodes). Stopped by the watch: TSR_ERR_INTERRUPTED. */
enum { TSR__SHORTCUT_EDGE_LENGTH = 3 };
tsr_status tsr__mark_short_shortcuts(tsr_ctx *ctx, const tsr_layout *l, const tsr__layout_adj *adj,
                                     uint8_t *stretch, tsr__watch *watch);
/* Distinct uniform random points. */
tsr_status tsr__init_random(tsr_ctx *ctx, tsr_layout *l, uint64_t seed);
/* In O(n), where the canvas allows, a valid drawing of any graph without self-loops: node i at
 * (i * sx, (i^2 mod p) * sy) for the least prime p >= n and sx, sy the canvas sides over p - 1.
 * No three of these points are collinear (the determinant of three of them is, mod p, a
 * Vandermonde determinant of distinct values, hence not 0), so no node lies on an edge it is not
 * an end of. Returns 0 (l unchanged) when the canvas is smaller than p - 1 on a side. */
int tsr__init_general_position(tsr_layout *l);
/* The conditions of a valid drawing that no repair can meet: TSR_ERR_CORRUPT for a self-loop,
 * TSR_ERR_LIMIT when the canvas has fewer points than nodes. */
tsr_status tsr__repairable(tsr_ctx *ctx, const tsr_layout *l);
/* tsr_layout_repair polling the watch; stopped: TSR_ERR_INTERRUPTED, l partly repaired. */
tsr_status tsr__repair(tsr_ctx *ctx, tsr_layout *l, int *moved, tsr__watch *watch);

/* What the optimizer's start-up left in l. */
typedef struct tsr__start {
    int valid;    /* l holds a valid drawing (always when start-up was not stopped) */
    int counted;  /* the caller's counts hold its per-edge crossing counts */
    int repaired; /* input nodes moved by repair (0 when a generated layout was taken) */
} tsr__start;
/* The optimizer's start: the layout `init` asks for, made valid. AUTO (also KEEP without
 * coordinates): the stress layout or the chain-aside stress layout, whichever scores lower, and
 * for an input with coordinates the input instead when it scores lower still (a tie keeps the
 * input). The full counts that compare them run on `threads` CPU threads; the winner's are left
 * in counts (num_edges entries) when it was counted. A graph without coordinates first gets
 * tsr__init_general_position's drawing; an input without any violation (tsr_layout_check) is
 * itself the first valid drawing. Where the watch stops the work, returns TSR_OK with the best
 * valid drawing made so far in l (a later stage's over an earlier one's: the general position
 * drawing or the valid input, the stress layout, then the winner of a finished comparison), or
 * out->valid = 0 when none was made. */
tsr_status tsr__start_layout(tsr_ctx *ctx, tsr_layout *l, tsr_layout_init init, uint64_t seed,
                             int threads, tsr__watch *watch, int32_t *counts, tsr__start *out);

/* splitmix64 / xoshiro-style generator used by init and annealing (deterministic). */
typedef struct tsr__rng {
    uint64_t s[4];
} tsr__rng;
void tsr__rng_seed(tsr__rng *r, uint64_t seed);
uint64_t tsr__rng_next(tsr__rng *r);
/* Uniform in [0, n). n >= 1. */
uint64_t tsr__rng_below(tsr__rng *r, uint64_t n);
/* Uniform in [0, 1). */
double tsr__rng_unit(tsr__rng *r);

#endif
