/* The CUDA layout evaluators' host interface (layout_cuda.cu, built only with CUDA: callers guard
 * their calls with TSR_HAVE_CUDA). */
#ifndef TSR_LAYOUT_CUDA_H
#define TSR_LAYOUT_CUDA_H

#include "layout/layout_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Full count, one thread per edge over all edges: counts[e] = c(e), as tsr__count_reference. */
tsr_status tsr__layout_cuda_count(tsr_ctx *ctx, const tsr_layout *l, int32_t *counts);

/* Dense delta evaluation of P proposals (node[p], px[p], py[p]) against one base drawing:
 * out_delta[p * m + f] = change of c(f) if proposal p alone were applied, for every edge f (0 when
 * unchanged; the moved node's incident edges get the sum of their changes), invalid[p] = 1 when
 * the proposal's point lies on an edge not incident to the node (end points included; the node
 * part of validity is the caller's: tsr__move_valid_nodes). The drawing and adjacency are
 * uploaded by tsr__layout_cuda_create and committed moves by tsr__layout_cuda_move (counts stay
 * on the host); the caller resolves accepted proposals one at a time on the host. Every row is
 * relative to the base drawing of its launch: once one proposal is committed, the other rows of
 * that launch are stale and must be dropped, never compared with or applied to the new base.
 * The kernels' per-thread bodies are layout_cuda_logic.h's (run on the CPU by
 * test_layout_device_logic). */
typedef struct tsr__layout_cuda tsr__layout_cuda;
tsr_status tsr__layout_cuda_create(tsr_ctx *ctx, const tsr_layout *l, const tsr__layout_adj *adj,
                                   int max_proposals, tsr__layout_cuda **out);
void tsr__layout_cuda_destroy(tsr_ctx *ctx, tsr__layout_cuda *g);
/* Uploads node v's new coordinates after a committed move (coordinates only: counts are kept on
 * the host, which owns the objective). */
tsr_status tsr__layout_cuda_move(tsr_ctx *ctx, tsr__layout_cuda *g, int32_t v, int32_t x,
                                 int32_t y);
tsr_status tsr__layout_cuda_delta(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop,
                                  const int32_t *node, const int32_t *px, const int32_t *py,
                                  int32_t *out_delta, uint8_t *invalid);

/* Spatial variant of tsr__layout_cuda_delta: the candidates of proposal p are the edges listed in
 * the grid cells of its old segments, its new segments and its new point (the host index `grid`,
 * uploaded when `grid_version` changes; l and adj give the segments' cells on the host);
 * deduplicated on the device with per-proposal generation
 * stamps. Same outputs as the dense call for every f a candidate can change; entries of other
 * edges are 0. Returns TSR_ERR_LIMIT when the index is stale or a proposal's cell list exceeds
 * the launch's capacity: the caller then uses the dense call (never a truncated answer). */
tsr_status tsr__layout_cuda_delta_spatial(tsr_ctx *ctx, tsr__layout_cuda *g,
                                          const tsr_layout *l, const tsr__layout_adj *adj,
                                          const tsr__grid *grid, uint64_t grid_version, int nprop,
                                          const int32_t *node, const int32_t *px,
                                          const int32_t *py, int32_t *out_delta,
                                          uint8_t *invalid);

#ifdef __cplusplus
}
#endif
#endif
