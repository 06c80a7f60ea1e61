/* The optimal order of horizontal and vertical removals (Avidan and Shamir 2007, section 3.2):
 *     T(0,0) = 0,  T(i,j) = min(T(i-1,j) + E(horizontal seam of image(i-1,j)),
 *                                T(i,j-1) + E(vertical seam of image(i,j-1)))
 * where image(i,j) is the input after i horizontal and j vertical removals along the best path
 * to (i,j), and E is a seam's energy (the energy part of its key, so masks steer which seams are
 * taken but do not enter T). Ties take the vertical removal. Row by row, one image per column
 * of T is kept (image(i-1,j) is replaced by image(i,j)), so memory is c+1 images; time is
 * 2*r*c + r + c single-seam removals. On the GPU (order_cuda.cu) the same map is filled by
 * anti-diagonals, their cells at once. */
#include "carve/plan.h"

#include "core/checked.h"
#include "core/ctx.h"
#ifdef TSR_HAVE_CUDA
#include "carve/carve_cuda.h"
#endif

#include <string.h>

/* *out = src without one seam (horizontal when horiz); *energy = that seam's energy. */
static tsr_status remove_one(tsr_ctx *ctx, const tsr__carve_grid *src, int horiz,
                             const tsr__carve_pass *proto, tsr__carve_grid *out, uint64_t *energy)
{
    tsr__carve_grid t;
    tsr_status st = horiz ? tsr__carve_grid_transpose(ctx, src, &t)
                          : tsr__carve_grid_copy(ctx, src, &t, src->w);
    if (st != TSR_OK)
        return st;
    tsr__carve_pass q = *proto;
    q.record = NULL;
    q.until_drop_gone = 0;
    q.marks = NULL;
    q.mode = TSR_CARVE_EXACT;
    q.energy_sum = 0;
    if ((st = tsr__carve_remove_seams(ctx, &t, 1, &q)) != TSR_OK) {
        tsr__carve_grid_free(ctx, &t);
        return st;
    }
    *energy = q.energy_sum;
    if (!horiz) {
        *out = t;
        return TSR_OK;
    }
    st = tsr__carve_grid_transpose(ctx, &t, out);
    tsr__carve_grid_free(ctx, &t);
    return st;
}

void tsr__carve_order_walk(const char *choice, int32_t r, int32_t c, char *moves)
{
    /* from (r, c) back to (0, 0): the moves come out last first */
    const size_t cols = (size_t)c + 1;
    for (size_t i = (size_t)r, j = (size_t)c, k = (size_t)r + (size_t)c; k > 0; k--) {
        char m = choice[i * cols + j];
        moves[k - 1] = m;
        if (m == 'h')
            i--;
        else
            j--;
    }
}

tsr_status tsr__carve_optimal_order(tsr_ctx *ctx, const tsr__carve_grid *g, int32_t r, int32_t c,
                                    const tsr__carve_pass *proto, char *moves)
{
#ifdef TSR_HAVE_CUDA
    if (proto->backend == TSR_BACKEND_CUDA && tsr__carve_cuda_order_fits(ctx, g, r, c)) {
        tsr__carve_dp pens;
        memset(&pens, 0, sizeof pens);
        tsr__carve_dp_penalties(&pens, g);
        return tsr__carve_cuda_optimal_order(ctx, g, r, c, proto->energy, pens.pen, moves);
    }
#endif
    const size_t cols = (size_t)c + 1;
    size_t n, nt;
    tsr__carve_grid *img = NULL;
    uint64_t *t = NULL;
    char *choice = NULL;
    void *mem;
    tsr_status st;
    if (!tsr__size_mul((size_t)r + 1, cols, &n) || !tsr__size_mul(cols, sizeof *img, &nt))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "carve: transport map overflows");
    if ((st = tsr__alloc(ctx, nt, &mem)) != TSR_OK)
        return st;
    img = mem;
    memset(img, 0, nt);
    if ((st = tsr__alloc(ctx, cols * sizeof *t, &mem)) != TSR_OK)
        goto done;
    t = mem;
    if ((st = tsr__alloc(ctx, n, &mem)) != TSR_OK)
        goto done;
    choice = mem;

    if ((st = tsr__carve_grid_copy(ctx, g, &img[0], g->w)) != TSR_OK)
        goto done;
    t[0] = 0;
    for (size_t j = 1; j < cols; j++) {
        uint64_t e;
        if ((st = remove_one(ctx, &img[j - 1], 0, proto, &img[j], &e)) != TSR_OK)
            goto done;
        t[j] = t[j - 1] + e;
        choice[j] = 'v';
    }
    for (int32_t i = 1; i <= r; i++) {
        if ((st = tsr__progress(ctx, "carve: transport map", i, r)) != TSR_OK)
            goto done;
        for (size_t j = 0; j < cols; j++) {
            tsr__carve_grid a, b;
            uint64_t ea, eb = 0;
            if ((st = remove_one(ctx, &img[j], 1, proto, &a, &ea)) != TSR_OK)
                goto done;
            uint64_t ta = t[j] + ea, tb = UINT64_MAX;
            if (j > 0) {
                if ((st = remove_one(ctx, &img[j - 1], 0, proto, &b, &eb)) != TSR_OK) {
                    tsr__carve_grid_free(ctx, &a);
                    goto done;
                }
                tb = t[j - 1] + eb;
            }
            tsr__carve_grid_free(ctx, &img[j]);
            if (ta < tb) {
                img[j] = a;
                t[j] = ta;
                choice[(size_t)i * cols + j] = 'h';
                if (j > 0)
                    tsr__carve_grid_free(ctx, &b);
            } else {
                img[j] = b;
                t[j] = tb;
                choice[(size_t)i * cols + j] = 'v';
                tsr__carve_grid_free(ctx, &a);
            }
        }
    }
    tsr__carve_order_walk(choice, r, c, moves);
done:
    if (img)
        for (size_t j = 0; j < cols; j++)
            tsr__carve_grid_free(ctx, &img[j]);
    tsr__free(ctx, img);
    tsr__free(ctx, t);
    tsr__free(ctx, choice);
    return st;
}
