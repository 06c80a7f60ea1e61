/* The CPU parallel resize: the plan (plan.h) executed over stripes of output rows by the
 * threads of resize_cpu_pool.c (at most ctx->threads at a time), bit-identical to resize_ref.c.
 * This file runs the stripes (tsr__rcpu_run_rows), has the copy and nearest paths, and sends the
 * others to their files: resize_cpu_separable.c, resize_cpu_area.c, resize_cpu_exact.c
 * (resize_cpu_job.h is what they share). */
#include "resize/resize_cpu_job.h"

tsr_status tsr__rcpu_run_rows(tsr_ctx *ctx, cpu_job *j, size_t per, tsr__rcpu_fn fn)
{
    const int threads = ctx->threads > 0 ? ctx->threads : 1, h = j->p->dst_h;
    int n = h / 16;
    n = n < threads ? threads : n > 8 * threads ? 8 * threads : n;
    j->stripes = n < h ? n : h;
    const int slots = threads < j->stripes ? threads : j->stripes;
    j->per = per;
    j->scratch = NULL;
    size_t bytes;
    if (!tsr__size_mul(per, (size_t)slots, &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "resize: row buffers overflow");
    if (bytes) {
        tsr_status st = tsr__alloc(ctx, bytes, (void **)&j->scratch);
        if (st != TSR_OK)
            return st;
    }
    tsr__rcpu_parallel(slots, j->stripes, fn, j);
    if (j->scratch)
        tsr__free(ctx, j->scratch);
    return TSR_OK;
}

/* ---- copy and nearest ------------------------------------------------------------------------ */

static void copy_stripe(void *arg, int s, int slot)
{
    const cpu_job *j = arg;
    const tsr__resize_plan *p = j->p;
    const size_t row = (size_t)p->dst_w * (size_t)p->cn * tsr_depth_size(p->depth);
    int y0, y1;
    (void)slot;
    job_rows(j, s, &y0, &y1);
    for (int y = y0; y < y1; y++)
        memcpy(ROW(j->dst, y), CROW(j->src, y), row);
}

/* One nearest row: pixel x of d is pixel xo[x] of s, PS bytes each, moved UNIT bytes at a time
 * (UNIT > PS: the extra bytes are rewritten by the next pixel) for x < fast, exactly after. */
#define NN_ROW(PS, UNIT)                                                                           \
    {                                                                                              \
        int x = 0;                                                                                 \
        for (; x < fast; x++)                                                                      \
            memcpy(d + (size_t)x * (PS), s + (size_t)xo[x] * (PS), (UNIT));                        \
        for (; x < w; x++)                                                                         \
            memcpy(d + (size_t)x * (PS), s + (size_t)xo[x] * (PS), (PS));                          \
    }

TSR__HOT static void nn_row(const int32_t *xo, int w, int fast, size_t ps, const char *s, char *d)
{
    switch (ps) {
    case 1: NN_ROW(1, 1) break;
    case 2: NN_ROW(2, 2) break;
    case 3: NN_ROW(3, 4) break;
    case 4: NN_ROW(4, 4) break;
    case 6: NN_ROW(6, 8) break;
    case 8: NN_ROW(8, 8) break;
    case 12: NN_ROW(12, 16) break;
    default: NN_ROW(16, 16) break;
    }
}

/* Nearest, one stripe: an output row that repeats the previous one's source row is copied. */
static void nearest_stripe(void *arg, int s, int slot)
{
    const cpu_job *j = arg;
    const tsr__resize_plan *p = j->p;
    const int32_t *xo = p->table[TSR__RT_XOFS], *yo = p->table[TSR__RT_YOFS];
    const int w = p->dst_w;
    const size_t ps = (size_t)p->cn * tsr_depth_size(p->depth), row = ps * (size_t)w;
    const size_t unit = ps == 3 || ps == 6 || ps == 12 ? ps / 3 * 4 : ps;
    /* the wide moves stay inside the source row (xo grows) and the output row (x < w - 1) */
    int fast = w - 1, y0, y1;
    while (fast > 0 && (size_t)xo[fast - 1] * ps + unit > (size_t)p->src_w * ps)
        fast--;
    (void)slot;
    job_rows(j, s, &y0, &y1);
    for (int y = y0; y < y1; y++) {
        if (y > y0 && yo[y] == yo[y - 1])
            memcpy(ROW(j->dst, y), ROW(j->dst, y - 1), row);
        else
            nn_row(xo, w, fast, ps, CROW(j->src, yo[y]), ROW(j->dst, y));
    }
}

tsr_status tsr__resize_cpu(tsr_ctx *ctx, const tsr__resize_plan *plan, const tsr_image *src,
                           tsr_image *dst)
{
    cpu_job job = {plan, src, dst, tsr__rcpu_avx2(), NULL, 0, 0, NULL};
    switch (plan->path) {
    case TSR__RESIZE_COPY: return tsr__rcpu_run_rows(ctx, &job, 0, copy_stripe);
    case TSR__RESIZE_NEAREST: return tsr__rcpu_run_rows(ctx, &job, 0, nearest_stripe);
    case TSR__RESIZE_SEPARABLE: return tsr__rcpu_separable(ctx, plan, src, dst);
    case TSR__RESIZE_AREA_FAST: return tsr__rcpu_area_fast(ctx, plan, src, dst);
    case TSR__RESIZE_AREA: return tsr__rcpu_area(ctx, plan, src, dst);
    case TSR__RESIZE_LINEAR_EXACT: return tsr__rcpu_linear_exact(ctx, plan, src, dst);
    }
    return tsr__fail(ctx, TSR_ERR_INTERNAL, "resize: unknown plan path");
}
