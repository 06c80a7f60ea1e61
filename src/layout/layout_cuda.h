/* The CUDA layout evaluators' host interface: layout_count_cuda.cu (the full count) and
 * layout_cuda.cu (the device-resident evaluator); in builds without CUDA, layout_cuda_none.c's
 * stubs fail with TSR_ERR_NO_BACKEND (tsr__layout_cuda_count, tsr__layout_cuda_device_of and
 * tsr__layout_cuda_create; the others are never reached without an evaluator). */
#ifndef TSR_LAYOUT_CUDA_H
#define TSR_LAYOUT_CUDA_H

#include "layout/layout_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Full count, one thread per edge over all edges: counts[e] = c(e), as tsr__count_reference. */
tsr_status tsr__layout_cuda_count(tsr_ctx *ctx, const tsr_layout *l, int32_t *counts);

/* The facts about the context's GPU that an evaluator needs, read once on the thread that owns
 * the context (tsr__layout_cuda_device_of), so that evaluators made on other threads (the
 * annealer's chains, each with a context of its own and no device) never touch that context. */
typedef struct tsr__layout_cuda_device {
    int device;            /* CUDA device ordinal */
    int arch;              /* compute capability the kernels may assume (tsr__cuda.arch) */
    int sms;               /* multiprocessors */
    size_t smem_per_block; /* shared memory a block may opt in to, bytes */
} tsr__layout_cuda_device;

/* The device of ctx (TSR_ERR_NO_BACKEND when ctx has none open). */
tsr_status tsr__layout_cuda_device_of(tsr_ctx *ctx, tsr__layout_cuda_device *out);

/* A drawing resident on the device with its per-edge counts, evaluating P proposals
 * (node[p] to (px[p], py[p])) per launch against that one base drawing (two-phase
 * evaluate/commit):
 * - evaluate: score[p] = the objective (K, n_K, Phi, C) of the drawing with proposal p alone
 *   applied, exactly as tsr__incr_propose's pscore (K, n_K over all edges of the new counts, Phi
 *   and C from the base's plus the exact integer changes); invalid[p] = 1 when the new point lies
 *   on an edge not incident to the node (end points included), and then score[p] is meaningless.
 *   The node part of validity (canvas, free point, v's new edges free of nodes) is the caller's:
 *   tsr__move_valid_nodes. Only P scores and flags cross to the host, never P x m counts. The
 *   base is unchanged: after a commit, results of earlier launches are stale.
 * - commit: applies one proposal (which must be valid on the current base) to the device
 *   counts and coordinates and returns its score, which becomes the base score.
 * The kernels' per-thread bodies are layout_cuda_logic.h's (run on the CPU, phase by phase, by
 * test_layout_device_logic). Each evaluator launches, copies and waits on its own stream, so
 * evaluators driven from different host threads (the annealer's chains) run side by side; one
 * evaluator is used by one thread at a time, and owns its stream and memory: ctx only receives its
 * errors (any context, with or without a device). */
typedef struct tsr__layout_cuda tsr__layout_cuda;
/* Uploads l and adj to `device` (made current on the calling thread), counts on the device.
 * TSR_ERR_INVALID_ARGUMENT for a self-loop or a
 * proposal count outside 1..65535, TSR_ERR_LIMIT when a node's star does not fit in a block's
 * shared memory (24 bytes per arm: degree above about 9,600 on an H200). */
tsr_status tsr__layout_cuda_create(tsr_ctx *ctx, const tsr__layout_cuda_device *device,
                                   const tsr_layout *l, const tsr__layout_adj *adj,
                                   int max_proposals, tsr__layout_cuda **out);
void tsr__layout_cuda_destroy(tsr_ctx *ctx, tsr__layout_cuda *g);
/* The base drawing's score (host copy, no device call). */
tsr_layout_score tsr__layout_cuda_score(const tsr__layout_cuda *g);
/* Downloads the device's per-edge counts of the base drawing (m entries). */
tsr_status tsr__layout_cuda_counts(tsr_ctx *ctx, tsr__layout_cuda *g, int32_t *counts);

/* Dense evaluation: one block per proposal over all m edges, deg(v) crossing tests per edge. */
tsr_status tsr__layout_cuda_eval_dense(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop,
                                       const int32_t *node, const int32_t *px, const int32_t *py,
                                       tsr_layout_score *score, uint8_t *invalid);
/* The baseline with the same outputs (tests and bench_layout_eval compare the others with it):
 * every edge of every proposal's drawing recounted against all m edges (one thread per
 * (proposal, edge)), then reduced like the dense rows. */
tsr_status tsr__layout_cuda_eval_full(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop,
                                      const int32_t *node, const int32_t *px, const int32_t *py,
                                      tsr_layout_score *score, uint8_t *invalid);
/* Spatial evaluation: the candidates of proposal p are the edges listed in the grid cells of its
 * old segments, its new segments and its new point (the host index `grid`, which must index the
 * device's base drawing; uploaded when grid_version changes), rastered on the device (at most
 * 4096 cells per proposal) and deduplicated with per-proposal generation stamps (reset when the
 * generation wraps); the other edges keep their counts, whose maximum comes from the base
 * histogram's top 32 levels (or, when every edge there is a candidate, a scan of all edges). A
 * proposal whose cells do not fit takes the dense path inside its block (never a truncated
 * list); tsr__layout_cuda_paths counts the paths taken. Same outputs as the dense call. Returns
 * TSR_ERR_LIMIT, with nothing evaluated, when the index is stale: the caller then uses the dense
 * call. */
tsr_status tsr__layout_cuda_eval_spatial(tsr_ctx *ctx, tsr__layout_cuda *g, const tsr__grid *grid,
                                         uint64_t grid_version, int nprop, const int32_t *node,
                                         const int32_t *px, const int32_t *py,
                                         tsr_layout_score *score, uint8_t *invalid);
/* The excess target t of later launches (default: none, INT32_MAX; clamped to [-1, INT32_MAX]):
 * each launch then also gives, per proposal, the change of sum over edges of max(0, c(e) - t)^2
 * (the annealer's phase-2 energy), read with tsr__layout_cuda_excess_change(g, p) until the next
 * launch (the commit is a launch). */
void tsr__layout_cuda_set_target(tsr__layout_cuda *g, int64_t target);
int64_t tsr__layout_cuda_excess_change(const tsr__layout_cuda *g, int p);
/* Spatial proposals evaluated since create per path: [0] candidates and the histogram window,
 * [1] dense after a cell overflow, [2] candidates and a scan of the unclaimed edges. */
void tsr__layout_cuda_paths(const tsr__layout_cuda *g, uint64_t paths[3]);
/* Test hook: lowers the spatial limits (cells per proposal 1..4096, window levels 1..32) so that
 * tests force the overflow and scan paths. */
tsr_status tsr__layout_cuda_set_limits(tsr_ctx *ctx, tsr__layout_cuda *g, int cells_per_proposal,
                                       int window);
/* Commits moving v to (x, y): counts and coordinates on the device, base score = *score (the
 * move's score, also returned); with counts (may be NULL), also the new per-edge counts (m
 * entries), downloaded behind the commit so that one synchronisation waits for both.
 * TSR_ERR_INVALID_ARGUMENT when the point lies on an edge not incident to v: the device state is
 * then undefined and the evaluator must be recreated. */
tsr_status tsr__layout_cuda_commit(tsr_ctx *ctx, tsr__layout_cuda *g, int32_t v, int32_t x,
                                   int32_t y, tsr_layout_score *score, int32_t *counts);

#ifdef __cplusplus
}
#endif
#endif
