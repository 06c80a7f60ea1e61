/* Rate control by post-compression rate-distortion optimisation (PCRD-opt; Taubman, "High
 * performance scalable image compression with EBCOT", IEEE TIP 9(7), 2000, section IV-B): each
 * code-block's truncation points (after every coding pass: the bytes a decoder needs and the
 * distortion that pass removes) reduced to their lower convex hull, then one slope threshold
 * for the whole image: every block keeps the passes whose hull slopes are at least it. */
#include "j2k/encode_stages.h"

#include <math.h>
#include <stdlib.h>

uint32_t tsr__j2k_rd_hull(const uint32_t *rate, const double *dist, uint32_t np, double weight,
                          tsr__j2k_rd_point *hull)
{
    /* candidate points j = 1..np: rate[j - 1] bytes, cumulative distortion removed D_j; the
     * hull starts at (0, 0) */
    uint32_t n = 0;
    double D = 0, Dtop = 0;
    for (uint32_t j = 1; j <= np; j++) {
        D += dist[j - 1] * weight;
        const uint32_t R = rate[j - 1];
        if (D <= Dtop)
            continue; /* removes nothing more */
        for (;;) {
            const uint32_t Rp = n ? hull[n - 1].bytes : 0;
            const double Dp = n ? hull[n - 1].dist : 0;
            if (n && R <= Rp) { /* as many bytes for more: the earlier point goes */
                n--;
                continue;
            }
            const double s = (D - Dp) / (double)(R - Rp);
            if (n && s >= hull[n - 1].slope) { /* not convex: the earlier point goes */
                n--;
                continue;
            }
            hull[n].passes = (uint16_t)j;
            hull[n].bytes = R;
            hull[n].dist = D;
            hull[n].slope = s;
            n++;
            break;
        }
        Dtop = hull[n - 1].dist;
    }
    return n;
}

uint32_t tsr__j2k_rd_pick(const tsr__j2k_rd_point *hull, uint32_t n, double lambda)
{
    /* slopes decrease along the hull: the points with slope >= lambda form a prefix */
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (hull[mid].slope >= lambda)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo; /* points kept: hull[lo - 1] is the truncation, none when 0 */
}

/* A block cut after its first k hull points (none: not included). */
static void set_truncation(tsr__j2k_cblk_code *code, const tsr__j2k_rd_point *hull, uint32_t k)
{
    code->npasses = k ? hull[k - 1].passes : 0;
    code->len = code->seg_len[0] = k ? hull[k - 1].bytes : 0;
    code->seg_passes[0] = code->npasses;
}

/* Every block truncated where its hull slope falls below lambda. */
static void truncate_all(const tsr__j2k_rd_point *const *hulls, const uint32_t *nhull, size_t n,
                         double lambda, tsr__j2k_cblk_code *codes)
{
    for (size_t j = 0; j < n; j++)
        set_truncation(&codes[j], hulls[j], tsr__j2k_rd_pick(hulls[j], nhull[j], lambda));
}

typedef struct move {
    double slope;
    size_t job;
    uint32_t from; /* hull points kept before the move */
} move;

/* Steepest first; ties in block order, so that the result does not depend on qsort. */
static int by_slope(const void *pa, const void *pb)
{
    const move *a = pa, *b = pb;
    if (a->slope != b->slope)
        return a->slope > b->slope ? -1 : 1;
    return a->job < b->job ? -1 : a->job > b->job;
}

static tsr_status packets(tsr_ctx *ctx, const tsr__j2k_cs *cs, const tsr__j2k_tcp *tcp,
                          tsr__j2k_tile *t, const tsr__j2k_cblk_code *codes, tsr__j2k_bytes *body)
{
    body->len = 0;
    return tsr__t2_encode(ctx, cs, tcp, t, codes, body);
}

tsr_status tsr__j2k_rate_control(tsr_ctx *ctx, const tsr__j2k_cs *cs, const tsr__j2k_tcp *tcp,
                                 tsr__j2k_tile *t, const tsr__j2k_rd_point *const *hulls,
                                 const uint32_t *nhull, size_t n, tsr__j2k_cblk_code *codes,
                                 double budget, tsr__j2k_bytes *body)
{
    double smax = 0, smin = 1e300;
    for (size_t j = 0; j < n; j++) {
        if (!nhull[j])
            continue;
        if (hulls[j][0].slope > smax)
            smax = hulls[j][0].slope;
        if (hulls[j][nhull[j] - 1].slope < smin)
            smin = hulls[j][nhull[j] - 1].slope;
    }
    /* everything (or nothing coded): kept whole when it fits */
    truncate_all(hulls, nhull, n, 0.0, codes);
    tsr_status st = packets(ctx, cs, tcp, t, codes, body);
    if (st || smax <= 0 || (double)body->len <= budget)
        return st;
    /* the smallest threshold whose packets fit, by bisection on its logarithm (the packets'
     * size falls as the threshold rises); lo: too big, hi: fits */
    double lo = log(smin > 0 ? smin : smax * 1e-12) - 1, hi = log(smax) + 1;
    for (int it = 0; it < 40 && hi - lo > 1e-3; it++) {
        const double mid = 0.5 * (lo + hi);
        truncate_all(hulls, nhull, n, exp(mid), codes);
        if ((st = packets(ctx, cs, tcp, t, codes, body)))
            return st;
        if ((double)body->len <= budget)
            hi = mid;
        else
            lo = mid;
    }
    truncate_all(hulls, nhull, n, exp(hi), codes);
    if ((st = packets(ctx, cs, tcp, t, codes, body)))
        return st;
    /* The threshold moves a block's truncation in steps of whole hull segments, and blocks at
     * one slope (flat or repetitive content) move together: the bytes left go, a hull point
     * at a time, to the blocks whose next point removes the most distortion per byte, while
     * the estimate (its bytes and two of header for its length) fits; then the packets are
     * measured and the last moves are undone while they do not fit. At most one move per
     * block. */
    uint32_t *cur = NULL;
    move *cand = NULL, *done = NULL;
    size_t ncand = 0, ndone = 0;
    const size_t nalloc = n ? n : 1;
    if ((st = tsr__alloc(ctx, nalloc * sizeof *cur, (void **)&cur)) ||
        (st = tsr__alloc(ctx, nalloc * sizeof *cand, (void **)&cand)) ||
        (st = tsr__alloc(ctx, nalloc * sizeof *done, (void **)&done))) {
        tsr__free(ctx, cur);
        tsr__free(ctx, cand);
        return st;
    }
    double size = (double)body->len;
    for (size_t j = 0; j < n; j++)
        cur[j] = tsr__j2k_rd_pick(hulls[j], nhull[j], exp(hi));
    for (int changed = 1; changed;) {
        changed = 0;
        ncand = 0;
        for (size_t j = 0; j < n; j++)
            if (cur[j] < nhull[j])
                cand[ncand++] = (move){hulls[j][cur[j]].slope, j, cur[j]};
        qsort(cand, ncand, sizeof *cand, by_slope);
        for (size_t i = 0; i < ncand && ndone < nalloc; i++) {
            const size_t j = cand[i].job;
            const tsr__j2k_rd_point *hull = hulls[j];
            const double add =
                (double)hull[cur[j]].bytes - (cur[j] ? (double)hull[cur[j] - 1].bytes : 0);
            if (size + add + 2 > budget)
                continue;
            size += add + 2;
            done[ndone++] = (move){0, j, cur[j]};
            cur[j]++;
            set_truncation(&codes[j], hull, cur[j]);
            changed = 1;
        }
    }
    for (;;) {
        if ((st = packets(ctx, cs, tcp, t, codes, body)) || (double)body->len <= budget ||
            ndone == 0)
            break;
        const move *m = &done[--ndone]; /* over: the last move undone */
        cur[m->job] = m->from;
        set_truncation(&codes[m->job], hulls[m->job], m->from);
    }
    tsr__free(ctx, cur);
    tsr__free(ctx, cand);
    tsr__free(ctx, done);
    return st;
}
