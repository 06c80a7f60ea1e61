/* bench_layout_eval's probes of the CUDA evaluator (bench_layout_eval_cuda.cu, built with CUDA):
 * the cost of a launch alone, and the device time of an evaluation without the host's calls. */
#ifndef BENCH_LAYOUT_EVAL_CUDA_H
#define BENCH_LAYOUT_EVAL_CUDA_H

#include "layout/layout_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A launch of nprop blocks (1..max_proposals) that evaluate nothing and complete as an evaluation
 * does, waited for as one: the fixed cost of the launch and completion path. */
tsr_status bench_layout_probe(tsr_ctx *ctx, tsr__layout_cuda *g, int nprop);
/* The device time of one evaluation (dense, or with `full` the full one) of these proposals, as
 * `launches` back-to-back launches captured in a CUDA graph and replayed once after one warm-up
 * replay, timed by events around the replay (us = its time / launches): the kernels as the GPU
 * runs them, without the host's launch calls and waits (METHOD.md's way to time small launches).
 * The scores are not collected; later calls are unaffected. */
tsr_status bench_layout_replay_us(tsr_ctx *ctx, tsr__layout_cuda *g, int full, int nprop,
                                  const int32_t *node, const int32_t *px, const int32_t *py,
                                  int launches, double *us);

#ifdef __cplusplus
}
#endif
#endif
