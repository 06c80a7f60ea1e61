/* Full crossing counts on the CPU: the single-threaded reference (pairs e < f, the definition in
 * layout.h) and the OpenMP version (each edge against all others: every pair is tested twice,
 * no atomics, same numbers). tsr_layout_evaluate dispatches on the context's backend. */
#include "layout/geometry.h"
#include "layout/layout_internal.h"
#include "layout/layout_cuda.h"

#include "core/checked.h"

#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Whether edges e and f cross (exact; pairs sharing an endpoint never do). */
static inline int edges_cross(const tsr_layout *l, int32_t e, int32_t f)
{
    int32_t a = l->edge_u[e], b = l->edge_v[e], c = l->edge_u[f], d = l->edge_v[f];
    if (a == c || a == d || b == c || b == d)
        return 0;
    return tsr__segments_cross(l->x[a], l->y[a], l->x[b], l->y[b], l->x[c], l->y[c], l->x[d],
                               l->y[d]);
}

void tsr__count_reference(const tsr_layout *l, int32_t *counts)
{
    int32_t m = l->num_edges;
    memset(counts, 0, (size_t)m * sizeof *counts);
    for (int32_t e = 0; e < m; e++)
        for (int32_t f = e + 1; f < m; f++)
            if (edges_cross(l, e, f)) {
                counts[e]++;
                counts[f]++;
            }
}

void tsr__count_parallel(const tsr_layout *l, int32_t *counts, int threads)
{
    int32_t m = l->num_edges;
#ifdef _OPENMP
    if (threads <= 0)
        threads = omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
#else
    (void)threads;
#endif
    for (int32_t e = 0; e < m; e++) {
        int32_t c = 0;
        for (int32_t f = 0; f < m; f++)
            c += edges_cross(l, e, f);
        counts[e] = c;
    }
}

void tsr__score_from_counts(const int32_t *counts, int32_t m, tsr_layout_score *s)
{
    memset(s, 0, sizeof *s);
    int64_t sum = 0;
    for (int32_t e = 0; e < m; e++) {
        int64_t c = counts[e];
        if (c > s->K) {
            s->K = c;
            s->n_K = 0;
        }
        if (c == s->K)
            s->n_K++;
        s->Phi += c * c;
        sum += c;
    }
    s->C = sum / 2;
}

tsr_status tsr_layout_evaluate(tsr_ctx *ctx, const tsr_layout *l, tsr_layout_score *score,
                               int32_t *edge_crossings)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (!l || !score)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "layout: NULL argument to evaluate");
    int32_t *counts = edge_crossings;
    size_t bytes;
    if (!tsr__size_mul(l->num_edges ? (size_t)l->num_edges : 1, sizeof(int32_t), &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "layout: too many edges");
    if (!counts && (st = tsr__alloc(ctx, bytes, (void **)&counts)) != TSR_OK)
        return st;
    switch (tsr_ctx_backend(ctx)) {
    case TSR_BACKEND_REFERENCE:
        tsr__count_reference(l, counts);
        break;
#ifdef TSR_HAVE_CUDA
    case TSR_BACKEND_CUDA:
        st = tsr__layout_cuda_count(ctx, l, counts);
        break;
#endif
    default: /* cpu; OpenCL has no layout kernels: the CPU path gives the same numbers */
        tsr__count_parallel(l, counts, ctx->threads);
        break;
    }
    if (st == TSR_OK)
        tsr__score_from_counts(counts, l->num_edges, score);
    if (counts != edge_crossings)
        tsr__free(ctx, counts);
    return st;
}
