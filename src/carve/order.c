/* The optimal order of horizontal and vertical removals (Avidan and Shamir 2007, section 3.2):
 *     T(0,0) = 0,  T(i,j) = min(T(i-1,j) + E(horizontal seam of image(i-1,j)),
 *                                T(i,j-1) + E(vertical seam of image(i,j-1)))
 * where image(i,j) is the input after i horizontal and j vertical removals along the best path
 * to (i,j), and E is a seam's energy (the energy part of its key, so masks steer which seams are
 * taken but do not enter T). Ties take the vertical removal. Row by row, one image per column
 * of T is kept (image(i-1,j) is replaced by image(i,j)), so memory is c+1 images; time is
 * 2*r*c + r + c single-seam removals. On the GPU (order_cuda.cu) the same map is filled by
 * anti-diagonals, their cells at once, and its path applied there too. */
#include "carve/plan.h"

#include "carve/carve_cuda.h"
#include "core/checked.h"
#include "core/ctx.h"

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

tsr_status tsr__carve_optimal_device(tsr_ctx *ctx, tsr__carve_grid *g, int32_t r, int32_t c,
                                     const tsr__carve_pass *proto, uint8_t *marks, uint64_t *energy,
                                     double *ms)
{
    const int32_t w = g->w, wn = g->w - c, hn = g->h - r;
    const size_t gp = (size_t)g->pitch;
    uint32_t *keep = NULL;
    uint8_t *gone = NULL;
    tsr__carve_grid out;
    memset(&out, 0, sizeof out);
    size_t n;
    void *mem;
    tsr_status st;
    if (!tsr__size_mul3((size_t)wn, (size_t)hn, sizeof *keep, &n))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "carve: the result's positions overflow");
    if ((st = tsr__alloc(ctx, n, &mem)) != TSR_OK)
        return st;
    keep = mem;
    tsr__carve_dp pens;
    memset(&pens, 0, sizeof pens);
    tsr__carve_dp_penalties(&pens, g);
    if ((st = tsr__carve_cuda_optimal(ctx, g, r, c, proto->energy, pens.pen, keep, energy, ms)) !=
            TSR_OK ||
        (st = tsr__carve_grid_alloc(ctx, &out, wn, hn, wn, g->channels, g->depth, g->px != 0,
                                    g->mask != NULL, g->index != NULL)) != TSR_OK)
        goto done;
    out.has_keep = g->has_keep;
    out.has_drop = g->has_drop;
    /* the survivors, gathered once (rows in parallel from TSR__CARVE_PARALLEL_MIN pixels) */
    const int threads = proto->threads > 1 ? proto->threads : 1;
    (void)threads;
#pragma omp parallel for schedule(static)                                                          \
    num_threads(threads) if (threads > 1 && (int64_t)wn * hn >= TSR__CARVE_PARALLEL_MIN)
    for (int32_t y = 0; y < hn; y++)
        for (int32_t x = 0; x < wn; x++) {
            const uint32_t p = keep[(size_t)y * (size_t)wn + (size_t)x];
            const size_t from = (size_t)(p / (uint32_t)w) * gp + (size_t)(p % (uint32_t)w);
            const size_t to = (size_t)y * (size_t)wn + (size_t)x;
            if (out.pix)
                memcpy(out.pix + to * out.px, g->pix + from * g->px, g->px);
            out.luma[to] = g->luma[from];
            if (out.mask)
                out.mask[to] = g->mask[from];
            if (out.index)
                out.index[to] = g->index[from];
        }
    /* the overlay: every pixel of g that did not survive */
    if (marks && g->index) {
        if ((st = tsr__alloc(ctx, (size_t)w * (size_t)g->h, &mem)) != TSR_OK)
            goto done;
        gone = mem;
        memset(gone, 1, (size_t)w * (size_t)g->h);
        for (size_t i = 0; i < (size_t)wn * (size_t)hn; i++)
            gone[keep[i]] = 0;
        for (int32_t y = 0; y < g->h; y++)
            for (int32_t x = 0; x < w; x++)
                if (gone[(size_t)y * (size_t)w + (size_t)x])
                    marks[g->index[(size_t)y * gp + (size_t)x]] = 1;
    }
    tsr__carve_grid_free(ctx, g);
    *g = out;
    memset(&out, 0, sizeof out);
done:
    tsr__carve_grid_free(ctx, &out);
    tsr__free(ctx, keep);
    tsr__free(ctx, gone);
    return st;
}
