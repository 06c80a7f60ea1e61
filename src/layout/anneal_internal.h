/* The annealer's state and its files (not installed), each calling only the ones below it:
 *   anneal_team.c   the optimizer's chains: N chains on N threads and the coordinator;
 *   anneal.c        one chain's search and the sequential walk (one proposal scored and decided
 *                   at a time on the CPU incremental evaluator);
 *   anneal_batch.c  the batch walk (P proposals scored in one call of a batch evaluator against
 *                   the unchanged base, then decided in order by the same steps);
 *   anneal_steps.c  the steps both walks share: drawing a proposal, its energy, the Metropolis
 *                   decision, the bookkeeping of a commit.
 * A chain reports to its coordinator through the group_end callback it was given. */
#ifndef TSR_LAYOUT_ANNEAL_INTERNAL_H
#define TSR_LAYOUT_ANNEAL_INTERNAL_H

#include "layout/layout_cuda.h"
#include "layout/layout_internal.h"

typedef struct tsr__batch_eval tsr__batch_eval;
typedef struct tsr__annealer tsr__annealer;

/* Called by a chain after every group of proposals with the share of its budget used (its
 * coordinator publishes the chain's state, serves requests, holds sync points there); returns
 * nonzero when the chain is to stop, a failure in *st. */
typedef int (*tsr__anneal_group_end_fn)(void *user, tsr__annealer *a, double frac, tsr_status *st);

/* One annealing chain: its own drawing, evaluator state, random stream and schedule. */
struct tsr__annealer {
    tsr_ctx *ctx;  /* the chain's own context (anneal_team.c): its errors stay its own */
    tsr_layout *l; /* the chain's drawing (annealed in place) */
    const tsr_layout_optimize_options *opt;
    const tsr__layout_cuda_device *device; /* the GPU of a CUDA batch evaluator */
    tsr__anneal_group_end_fn group_end;    /* NULL: none */
    const int32_t *start_counts;           /* the start drawing's per-edge counts; NULL: count */
    void *group_user;
    tsr__incr inc; /* the current drawing; the batch walk keeps it equal to the evaluator's */
    tsr__rng rng;
    /* best drawing: held in best_* unless cur_is_best (then the current drawing is it) */
    int32_t *best_x, *best_y, *best_count;
    tsr_layout_score best;
    int cur_is_best;
    double t0;           /* the run's start (shared by the chains), monotonic seconds */
    double anneal_start; /* seconds after t0 when the search began (after the start layout) */
    uint64_t moves, accepted, restarts, moves_at_best;
    int phase;
    double phase1; /* this chain's phase-1 share of the budget (anneal_team.c: by its index) */
    double temperature;
    /* the schedule (fixed at init) */
    int can_move; /* the drawing has a node to move, an edge, and a free point */
    double radius0, t_start, t_end, phase_start_frac;
    uint64_t stall_limit;
    int synced; /* sync points passed (opt->sync_every) */
    /* phase 2: the target is one below the best K; hot edges exceed it (refreshed per batch) */
    int64_t target;
    int32_t *hot, nhot;
    int32_t *crossers, ncrossers; /* the edges crossing one hot edge (refreshed with it) */
    int32_t hot_edge;             /* that hot edge, -1 when none */
    int across;                   /* pick_node chose a crosser's endpoint: move it across */
    tsr__batch_eval *batch;       /* NULL: every group of proposals takes the sequential walk */
};

/* The uphill proposals of a group of proposals, for the phase-2 temperature's adaptation. */
typedef struct tsr__uphill {
    int seen, taken;
} tsr__uphill;

/* ---- the steps both walks share (anneal_steps.c) ----
 * The next proposal: a node and its target point (draws from a->rng; reads the current drawing
 * and the hot lists). */
int32_t tsr__anneal_choose_move(tsr__annealer *a, double radius, int32_t *px, int32_t *py);
/* Energy change of moving to a drawing with score s in the current phase, given dx, the change
 * of the phase-2 excess sum over edges of max(0, c(e) - target)^2 (ignored in phase 1). */
double tsr__anneal_energy(const tsr__annealer *a, int64_t dx, const tsr_layout_score *s);
/* Energy change of a->inc's pending proposal (dx from its per-edge changes). */
double tsr__anneal_pending_energy(const tsr__annealer *a);
/* The Metropolis decision on energy change d at the current temperature: accepts d <= 0, else
 * draws one uniform from a->rng (only when d is finite and the temperature positive) and accepts
 * with probability exp(-d / T). Counts the uphill proposals in *up. */
int tsr__anneal_metropolis(tsr__annealer *a, double d, tsr__uphill *up);
/* Bookkeeping around the commit of an accepted proposal with score s: before returns whether it
 * beats the best drawing (and keeps a copy of the best when the walk leaves it), after records
 * the move (the commit itself is the caller's: a->inc must then hold the new drawing). */
int tsr__anneal_before_commit(tsr__annealer *a, const tsr_layout_score *s);
void tsr__anneal_after_commit(tsr__annealer *a, int better);
/* Makes best_* hold the best drawing (copying the current one when it is the best). */
void tsr__anneal_settle_best(tsr__annealer *a);
/* The chain's best drawing now: best_* or, while the walk sits on it, the current drawing. */
void tsr__anneal_best_coords(const tsr__annealer *a, const int32_t **x, const int32_t **y);
/* Its per-edge counts. */
const int32_t *tsr__anneal_best_counts(const tsr__annealer *a);

/* ---- batch evaluators (anneal_batch.c) ----
 * An evaluator holds its own copy of the current drawing and scores up to TSR__BATCH_MAX
 * proposals per call against it, exactly as tsr__incr_propose would (score and an invalid flag
 * for a new point on an edge not incident to the node; the node part of validity is the
 * caller's), and in phase 2 the change of the excess over the annealer's target. Kinds: the
 * CUDA dense evaluator (layout_cuda.h) and, for tests of the walk without a GPU, a CPU
 * incremental evaluator on a clone of the drawing. */
enum { TSR__BATCH_MAX = 64 };
typedef enum tsr__batch_kind {
    TSR__BATCH_NONE = 0, /* the sequential walk only */
    TSR__BATCH_CPU,
    TSR__BATCH_CUDA
} tsr__batch_kind;

/* Statistics of the batch walk (zero for the sequential one). */
typedef struct tsr__batch_stats {
    uint64_t calls;     /* evaluator calls */
    uint64_t scored;    /* proposals the evaluator scored (walked or discarded) */
    uint64_t decided;   /* walked proposals decided from the evaluator's results */
    uint64_t phase2;    /* of them, in phase 2 (from the score and the excess change) */
    uint64_t discarded; /* proposals drawn ahead after the walk's stop (an accepted or invalid
                         * one, or a test that drew no uniform) */
} tsr__batch_stats;

/* Creates an evaluator of kind (not NONE) on a copy of l (which must be valid; adj is its
 * adjacency); the CUDA kind on `device`. */
tsr_status tsr__batch_create(tsr_ctx *ctx, tsr__batch_kind kind,
                             const tsr__layout_cuda_device *device, const tsr_layout *l,
                             const tsr__layout_adj *adj, tsr__batch_eval **out);
/* b may be NULL. */
void tsr__batch_destroy(tsr_ctx *ctx, tsr__batch_eval *b);
/* Replaces the evaluator's drawing with l (a restart from the best drawing). */
tsr_status tsr__batch_reload(tsr_ctx *ctx, tsr__batch_eval *b, const tsr_layout *l,
                             const tsr__layout_adj *adj);
tsr__batch_stats tsr__batch_get_stats(const tsr__batch_eval *b);

/* Runs `count` proposals of the current group through the batch walk: proposals are drawn ahead
 * (each one's RNG state saved after its draws and after the one uniform the Metropolis test draws
 * for a rejected uphill proposal), scored in one call, and decided in order; the walk stops at
 * the first accepted proposal (committed on both sides) or wherever the sequential walk's draws
 * would differ from those made ahead (an invalid point, a test that drew no uniform), rewinds
 * a->rng to that proposal's saved state and draws the next batch from there. The result is the
 * sequential walk's: same proposals, decisions, drawings and RNG state. */
tsr_status tsr__anneal_batch_group(tsr__annealer *a, double radius, int count, tsr__uphill *up);

/* ---- one chain (anneal.c) ----
 * Sets up chain a on drawing l (valid; annealed in place): evaluator state, best copies, the
 * random stream seeded with `seed`, the schedule's start (which draws from that stream) and,
 * unless kind is NONE, a batch evaluator. a->ctx, team, index, opt and t0 are the caller's. */
tsr_status tsr__anneal_init(tsr__annealer *a, tsr_layout *l, uint64_t seed, tsr__batch_kind kind);
/* Runs the chain's schedule to its end (budget, time, K = 0, or group_end asking it to stop); on
 * return best_* hold its best drawing (also after a failure). */
tsr_status tsr__anneal_run(tsr__annealer *a);
/* Restarts the chain from the drawing (x, y) with per-edge counts `counts` and score s (a sync
 * point's best drawing), which becomes its best; its random stream, temperature and phase stay. */
tsr_status tsr__anneal_adopt(tsr__annealer *a, const int32_t *x, const int32_t *y,
                             const int32_t *counts, const tsr_layout_score *s);
void tsr__anneal_release(tsr__annealer *a);

/* ---- the optimizer's chains (anneal_team.c) ----
 * Runs tsr_layout_optimize on the backend layout_api.c chose (the reference backend: one chain
 * by default and one thread per full count) with the given batch evaluator kind; every kind gives
 * the same drawing at a fixed move budget. With the CUDA kind the first opt->gpu_chains chains (0:
 * all) hold a GPU evaluator each on the context's device; the others take the sequential walk
 * (the same trajectory: see anneal_team.c). opt must be valid (layout_api.c checks it). stats
 * (may be NULL): summed over the chains. */
tsr_status tsr__anneal_team_run(tsr_ctx *ctx, tsr_layout *l, const tsr_layout_optimize_options *opt,
                                tsr_backend backend, tsr__batch_kind kind,
                                tsr_layout_optimize_result *result, tsr__batch_stats *stats);

#endif
