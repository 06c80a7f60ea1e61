/* Seam carving internals shared by every stage and backend (not installed).
 *
 * The working state is a grid: h rows of up to `pitch` elements, of which the first w are live,
 * in several planes that move together when a seam is removed or inserted: the pixels (as they
 * are, u8/u16, all channels), their luma (u8), optional mask bits and an optional u32 index
 * (what a pixel stands for: its x at the start of an enlargement round, or its flat position in
 * the input for the seam overlay). A grid may have no pixel plane (px == 0): then luma is the
 * primary data, as in the copies on which enlargement looks for seams.
 *
 * Seams are always vertical (one x per row); horizontal seams are found on the transposed grid.
 *
 * The 64-bit key of a cell (what the DP adds up) is
 *     key = e + (drop mask present && !drop ? DROP_B : 0) + (keep ? KEEP_A : 0)
 * where e is the cell's energy (backward) or transition cost (forward, <= 510). For a seam of
 * H <= 65535 rows the energy part is < 510*65535 < 2^25 = DROP_B and the drop part is
 * < 2^16 * 2^25 + 2^25 <= 2^42 = KEEP_A, so the sum orders seams by (kept pixels, -drop pixels,
 * energy) lexicographically and stays below 2^16 * 2^42 + 2^42 < 2^59: no overflow. */
#ifndef TSR_CARVE_PLAN_H
#define TSR_CARVE_PLAN_H

#include "tessera/carve.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tsr_ctx;

typedef uint64_t tsr__carve_cost;

#define TSR__CARVE_DROP_B ((tsr__carve_cost)1 << 25)
#define TSR__CARVE_KEEP_A ((tsr__carve_cost)1 << 42)
/* The energy part of a seam's key. */
#define TSR__CARVE_ENERGY_OF(key) ((key) & (TSR__CARVE_DROP_B - 1))

enum { TSR__CARVE_KEEP = 1, TSR__CARVE_DROP = 2 };

/* Whole-image steps go parallel only from this many live pixels: below it a parallel region
 * costs more than it saves (and far more on a loaded machine). */
#define TSR__CARVE_PARALLEL_MIN ((int64_t)1 << 20)

typedef struct tsr__carve_grid {
    int32_t w, h;     /* live size */
    int32_t pitch;    /* elements per row allocated (>= w) */
    int32_t channels; /* of the pixel plane */
    tsr_depth depth;
    size_t px;              /* bytes per pixel; 0 = no pixel plane */
    uint8_t *pix;           /* h * pitch * px bytes, or NULL */
    uint8_t *luma;          /* h * pitch */
    uint8_t *mask;          /* h * pitch TSR__CARVE_KEEP|DROP bits, or NULL */
    uint32_t *index;        /* h * pitch, or NULL */
    int has_keep, has_drop; /* which mask bits are in use (they choose the key's terms) */
} tsr__carve_grid;

/* Allocates a grid of w x h with room for pitch columns; planes as asked (px 0: no pixels). */
tsr_status tsr__carve_grid_alloc(struct tsr_ctx *ctx, tsr__carve_grid *g, int32_t w, int32_t h,
                                 int32_t pitch, int32_t channels, tsr_depth depth, int with_pix,
                                 int with_mask, int with_index);
void tsr__carve_grid_free(struct tsr_ctx *ctx, tsr__carve_grid *g);
/* Drop pixels (TSR__CARVE_DROP in the mask) in the grid's current w x h; the mask must exist. */
int64_t tsr__carve_grid_drops(const tsr__carve_grid *g);
/* dst = src transposed (rows become columns), every plane; dst is allocated here. */
tsr_status tsr__carve_grid_transpose(struct tsr_ctx *ctx, const tsr__carve_grid *src,
                                     tsr__carve_grid *dst);
/* dst = a copy of src (same planes, pitch = src->w unless pitch is larger). */
tsr_status tsr__carve_grid_copy(struct tsr_ctx *ctx, const tsr__carve_grid *src,
                                tsr__carve_grid *dst, int32_t pitch);

/* luma.c: Y of pixels [x0, x1) of row y into g->luma (tessera/carve.h's luma; 16-bit: top 8 bits).
 */
void tsr__carve_luma_row(tsr__carve_grid *g, int32_t y, int32_t x0, int32_t x1);
/* Computes the whole luma plane (rows in parallel when threads > 1). */
void tsr__carve_luma_all(tsr__carve_grid *g, int threads);

/* The DP work arrays of one grid: energy (backward only), cumulative keys and back-pointers
 * (-1, 0, +1: the predecessor's column offset), all with the grid's pitch. */
typedef struct tsr__carve_dp {
    tsr_carve_energy kind;
    int32_t pitch, rows;    /* allocation */
    uint16_t *energy;       /* rows * pitch (backward energy; NULL for forward) */
    tsr__carve_cost *cost;  /* rows * pitch */
    int8_t *back;           /* rows * pitch */
    tsr__carve_cost pen[4]; /* key term per mask code (see the file comment) */
} tsr__carve_dp;

tsr_status tsr__carve_dp_alloc(struct tsr_ctx *ctx, tsr__carve_dp *d, tsr_carve_energy kind,
                               int32_t pitch, int32_t rows);
void tsr__carve_dp_free(struct tsr_ctx *ctx, tsr__carve_dp *d);
/* Sets d->pen from the grid's mask usage. */
void tsr__carve_dp_penalties(tsr__carve_dp *d, const tsr__carve_grid *g);

/* energy_cpu.c: backward energy of columns [x0, x1) of row y of the grid into d->energy. */
void tsr__carve_energy_row(const tsr__carve_grid *g, tsr__carve_dp *d, int32_t y, int32_t x0,
                           int32_t x1);
/* Every row (in parallel when threads > 1). No-op for forward energy. */
void tsr__carve_energy_all(const tsr__carve_grid *g, tsr__carve_dp *d, int threads);

/* dp_cpu.c: cumulative keys and back-pointers of columns [x0, x1) of row y from row y-1 (row 0
 * from its own costs). Returns the first and last column whose cumulative key differs from the
 * value stored there before the call in *lo, *hi (lo > hi when none did): the incremental
 * update propagates only those. */
void tsr__carve_dp_span(const tsr__carve_grid *g, tsr__carve_dp *d, int32_t y, int32_t x0,
                        int32_t x1, int32_t *lo, int32_t *hi);
/* The whole DP, rows in order (columns of a row in parallel when threads > 1 and it pays). */
void tsr__carve_dp_all(const tsr__carve_grid *g, tsr__carve_dp *d, int threads);

/* seam_cpu.c: the seam ending at the leftmost minimum of the last row, traced back through the
 * back-pointers into xs[0..h). Returns its key. */
tsr__carve_cost tsr__carve_backtrack(const tsr__carve_grid *g, const tsr__carve_dp *d, int32_t *xs);
/* Removes pixel xs[y] from every row of every grid plane and, when d is not NULL, of d's
 * planes too (rows in parallel when threads > 1). When rec is not NULL it receives the removed
 * index values (rec[y] = g->index[y][xs[y]]). g->w decreases by one. */
void tsr__carve_remove(tsr__carve_grid *g, tsr__carve_dp *d, const int32_t *xs, uint32_t *rec,
                       int threads);
/* Removes the k sorted columns c[0..k) from row y of every plane of g (still g->w wide: the
 * caller sets g->w after its last row) and, when d is not NULL, of d's planes; rec (when not
 * NULL) receives their index values at rec[j * h + y]. */
void tsr__carve_remove_from_row(tsr__carve_grid *g, tsr__carve_dp *d, int32_t y, const int32_t *c,
                                int32_t k, uint32_t *rec);
/* Removes k pixels from every row: cols[y*k + j], increasing in j (batch mode). */
void tsr__carve_remove_many(tsr__carve_grid *g, const int32_t *cols, int32_t k, uint32_t *rec,
                            int threads);

/* pass.c: after tsr__carve_remove(g, d, xs, ...), brings d's energy, keys and back-pointers to
 * what a full recomputation on the narrower grid gives, recomputing only what the removal can
 * change (CPU parallel backend). */
void tsr__carve_update_after_removal(tsr__carve_grid *g, tsr__carve_dp *d, const int32_t *xs,
                                     int threads);

/* A pass of seam removals on a grid: the loop every backend runs. */
typedef struct tsr__carve_pass {
    tsr_backend backend; /* chosen once per call by carve.c (TSR_BACKEND_REFERENCE, _CPU or
                            _CUDA); the stages dispatch on it and on nothing else */
    tsr_carve_energy energy;
    tsr_carve_mode mode;
    int32_t batch_seams; /* 0 = adaptive */
    int threads;
    int until_drop_gone; /* object removal: stop when no drop pixel is left (or a seam
                            crosses none), whatever `count` says */
    uint32_t *record;    /* optional: count * h removed index values, seam after seam */
    uint8_t *marks;      /* optional: marks[index] = 1 for every removed pixel's index */
    int32_t removed;     /* out: seams removed */
    int64_t dp_passes;   /* out: DP passes run */
    uint64_t energy_sum; /* out: sum of the removed seams' energy parts */
    double device_ms;    /* out: GPU time of the device passes (tsr_carve_report.device_ms) */
} tsr__carve_pass;

/* Removes up to `count` vertical seams from g (exact or batch, per p). */
tsr_status tsr__carve_remove_seams(struct tsr_ctx *ctx, tsr__carve_grid *g, int32_t count,
                                   tsr__carve_pass *p);

/* batch.c: one batch pass's DPs (the two halves of g, batch.c's comment) into d (g's rows;
 * energy plane for backward energy), then k disjoint, connected, non-crossing seams into
 * cols[y*k + j] (increasing in j). flip: a grid with luma (and a mask when g has one) of at
 * least h - h/2 rows of g->w columns, overwritten; heap: k ints. Returns the sum of the chosen
 * seams' energy parts. */
uint64_t tsr__carve_batch_select(const tsr__carve_grid *g, tsr__carve_dp *d, tsr__carve_grid *flip,
                                 int32_t k, int32_t *cols, int32_t *heap, int threads);
/* The adaptive K: max(1, floor(w / 64)), at most `left`. */
int32_t tsr__carve_batch_k(int32_t w, int32_t left, int32_t fixed);

/* enlarge.c: inserts `count` vertical seams into *g (replacing it), in rounds of at most
 * max(1, floor(w/2)); marks (when not NULL, the input's size) receives 1 at the index of every
 * duplicated pixel. */
tsr_status tsr__carve_insert_seams(struct tsr_ctx *ctx, tsr__carve_grid *g, int32_t count,
                                   tsr__carve_pass *p, uint8_t *marks);

/* order.c: the optimal order of r horizontal and c vertical removals (Avidan and Shamir's
 * transport map) as a string of r + c moves ('h' or 'v') into moves[0..r+c), on the host (the
 * CUDA backend's version, map and removals on the device: tsr__carve_optimal_device). */
tsr_status tsr__carve_optimal_order(struct tsr_ctx *ctx, const tsr__carve_grid *g, int32_t r,
                                    int32_t c, const tsr__carve_pass *proto, char *moves);
/* The moves from the map's choices ((r+1) x (c+1), row-major, 'h' or 'v' at every cell but
 * (0, 0)): the path from (r, c) back to (0, 0), first move first. */
void tsr__carve_order_walk(const char *choice, int32_t r, int32_t c, char *moves);
/* The optimal order on the device (carve_cuda.h's tsr__carve_cuda_optimal), then g replaced by
 * the (w - c) x (h - r) result, every plane gathered once (rows in parallel on proto->threads);
 * marks (when not NULL, and g has an index) get 1 at the index of every removed pixel; *energy =
 * T(r, c), the removed seams' energy; *ms: the device time. */
tsr_status tsr__carve_optimal_device(struct tsr_ctx *ctx, tsr__carve_grid *g, int32_t r, int32_t c,
                                     const tsr__carve_pass *proto, uint8_t *marks, uint64_t *energy,
                                     double *ms);

#ifdef __cplusplus
}
#endif
#endif
