/* Rate control by post-compression rate-distortion optimisation (PCRD-opt; Taubman, "High
 * performance scalable image compression with EBCOT", IEEE TIP 9(7), 2000, section IV-B): each
 * code-block's truncation points (after every coding pass: the bytes a decoder needs and the
 * distortion that pass removes) reduced to their lower convex hull, then one slope threshold
 * per quality layer for the whole image: every block keeps the passes whose hull slopes are at
 * least it, and at least what it kept in the layer before (the layers are nested). A layer's
 * target is a size (its packets' bytes) or an estimated distortion (the sum over blocks of what
 * their kept passes leave). */
#include "core/thread_num.h"
#include "j2k/encode_stages.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* Bins of slopes, 16 a power of two, in the order of the slopes (frexp's exponent, then the
 * mantissa's first bits): every positive double has one. */
enum { SLOPE_BINS = 2200 * 16 };

static size_t slope_bin(double s)
{
    int e;
    const double m = frexp(s, &e); /* s = m 2^e, m in [0.5, 1) */
    return (size_t)(e + 1100) * 16 + (size_t)((m - 0.5) * 32);
}

/* The state of one layer's search: each block's hull points kept (cur) and the least it may
 * keep (floor: its count after the previous layer), the cuts being written (cuts + l, stride
 * L) and the tiles' bytes with layers 0..l (size, measure). */
typedef struct layer_search {
    tsr_ctx *ctx;
    tsr__j2k_enc_tiles *E;
    const tsr__j2k_rd_point *const *hulls;
    const uint32_t *nhull;
    const double *dist0;
    size_t n;
    const tsr__j2k_cblk_code *codes;
    tsr__j2k_cut *cuts;
    uint32_t l, L;
    uint32_t *cur, *floor;
    size_t size;
    uint64_t *bin_bytes; /* SLOPE_BINS each: body_bracket's */
    double *bin_least, *bin_most;
} layer_search;

/* Block j keeps its first k hull points in layer l (none: not included yet). */
static void set_cut(layer_search *s, size_t j, uint32_t k)
{
    s->cur[j] = k;
    s->cuts[j * s->L + s->l] =
        k ? (tsr__j2k_cut){s->hulls[j][k - 1].passes, s->hulls[j][k - 1].bytes}
          : (tsr__j2k_cut){0, 0};
}

/* Every block cut where its hull slope falls below lambda, or at its floor. */
static void cut_all(layer_search *s, double lambda)
{
    for (size_t j = 0; j < s->n; j++) {
        const uint32_t k = tsr__j2k_rd_pick(s->hulls[j], s->nhull[j], lambda);
        set_cut(s, j, k > s->floor[j] ? k : s->floor[j]);
    }
}

/* The estimated image-domain squared error that the current cuts leave. */
static double distortion(const layer_search *s)
{
    double d = 0;
    for (size_t j = 0; j < s->n; j++)
        d += s->dist0[j] - (s->cur[j] ? s->hulls[j][s->cur[j] - 1].dist : 0);
    return d;
}

/* The tiles' bytes with layers 0..l and the current cuts (into size). */
static tsr_status measure(layer_search *s)
{
    return tsr__j2k_tiles_encode(s->ctx, s->E, s->codes, s->cuts, s->l + 1, 1, &s->size);
}

/* The blocks' bytes alone, without the packets' headers (more): two thresholds from the hull
 * points past each block's floor, binned by slope (slope_bin), and the floors' bytes. *too_low:
 * a threshold whose cuts' bytes (*low_bytes) pass budget, so the packets do too (0: none);
 * *guess: the
 * largest threshold whose cuts' bytes are at most budget - head, so that the packets fit if
 * their headers take at most head (0: none). */
static void body_bracket(const layer_search *s, double budget, double head, double *too_low,
                         double *low_bytes, double *guess)
{
    uint64_t *bytes = s->bin_bytes;
    double *least = s->bin_least, *most = s->bin_most, sum = 0;
    memset(bytes, 0, SLOPE_BINS * sizeof *bytes);
    for (size_t b = 0; b < SLOPE_BINS; b++) {
        least[b] = HUGE_VAL;
        most[b] = 0;
    }
    for (size_t j = 0; j < s->n; j++) {
        const tsr__j2k_rd_point *h = s->hulls[j];
        const uint32_t f = s->floor[j];
        sum += f ? (double)h[f - 1].bytes : 0;
        for (uint32_t k = f; k < s->nhull[j]; k++) {
            const size_t b = slope_bin(h[k].slope);
            bytes[b] += h[k].bytes - (k ? h[k - 1].bytes : 0);
            least[b] = fmin(least[b], h[k].slope);
            most[b] = fmax(most[b], h[k].slope);
        }
    }
    *too_low = *guess = *low_bytes = 0;
    for (size_t b = SLOPE_BINS; b-- > 0 && !*too_low;) {
        if (!*guess && sum + (double)bytes[b] > budget - head)
            *guess = nextafter(most[b], HUGE_VAL); /* the bins above it */
        sum += (double)bytes[b];
        if (sum > budget) {
            *too_low = least[b]; /* every point of its bin and those above */
            *low_bytes = sum;
        }
    }
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

/* Layer l's cuts for packets of layers 0..l within budget bytes. cand, done: n moves each. */
static tsr_status search_layer(layer_search *s, double budget, double smin, double smax, move *cand,
                               move *done)
{
    /* everything on the hulls (or nothing coded): kept whole when it fits */
    cut_all(s, 0.0);
    tsr_status st = measure(s);
    if (st || smax <= 0 || (double)s->size <= budget)
        return st;
    /* the smallest threshold whose packets fit, by the Illinois variant of regula falsi on its
     * logarithm x against g(x) = log(packets' size / budget), which falls as x rises (first a
     * bisection while g at hi is unknown): lo too big, hi fits (or only the floors are left);
     * each trial inside the middle 15/16 of the bracket; done when the bracket is 1e-3 wide or
     * hi's packets are within 1e-3 of the budget (the moves below fill the rest, steepest
     * first, as a lower threshold would). The blocks' bytes alone narrow the bracket first
     * (body_bracket: lo where they pass the budget, the first trial where they leave room for
     * the headers that every hull point's packets had) */
    double lo = log(smin > 0 ? smin : smax * 1e-12) - 1, hi = log(smax) + 1;
    double glo = log((double)s->size / budget), ghi = 0, too_low, low_bytes, guess;
    double all_bodies = 0;
    for (size_t j = 0; j < s->n; j++)
        all_bodies += s->cur[j] ? (double)s->hulls[j][s->cur[j] - 1].bytes : 0;
    body_bracket(s, budget, (double)s->size - all_bodies, &too_low, &low_bytes, &guess);
    if (too_low > 0 && log(too_low) > lo) {
        lo = log(too_low);
        glo = log(low_bytes / budget); /* at most its packets' g: an estimate */
    }
    int have_hi = 0, side = 0; /* side: which end the last trial moved (-1 lo, 1 hi) */
    int at_hi = 0;             /* the cuts and size are hi's */
    for (int it = 0; it < 40 && hi - lo > 1e-3; it++) {
        const double w = hi - lo;
        double mid = have_hi ? hi - ghi * w / (ghi - glo) : 0.5 * (lo + hi);
        mid = fmin(fmax(mid, lo + w / 32), hi - w / 32);
        if (it == 0 && guess > 0 && log(guess) > lo && log(guess) < hi)
            mid = log(guess); /* the first trial: the bodies' estimate */
        cut_all(s, exp(mid));
        if ((st = measure(s)))
            return st;
        const double g = s->size ? log((double)s->size / budget) : -1;
        at_hi = (double)s->size <= budget;
        if (at_hi) {
            if (side == 1)
                glo *= 0.5;
            hi = mid;
            ghi = g;
            have_hi = 1;
            side = 1;
            if ((double)s->size >= budget * (1 - 1e-3))
                break;
        } else {
            if (side == -1)
                ghi *= 0.5;
            lo = mid;
            glo = g;
            side = -1;
        }
    }
    if (!at_hi) {
        cut_all(s, exp(hi));
        if ((st = measure(s)))
            return st;
    }
    /* The threshold moves a block's truncation in steps of whole hull segments, and blocks at
     * one slope (flat or repetitive content) move together: the bytes left go, a hull point
     * at a time, to the blocks whose next point removes the most distortion per byte, while
     * the estimate (its bytes and two of header for its length) fits; then the packets are
     * measured and the last moves are undone while they do not fit. At most n moves in all
     * (the size of the list that undoes them). */
    double size = (double)s->size;
    size_t ndone = 0;
    for (int changed = 1; changed;) {
        changed = 0;
        size_t ncand = 0;
        for (size_t j = 0; j < s->n; j++)
            if (s->cur[j] < s->nhull[j])
                cand[ncand++] = (move){s->hulls[j][s->cur[j]].slope, j, s->cur[j]};
        qsort(cand, ncand, sizeof *cand, by_slope);
        for (size_t i = 0; i < ncand && ndone < s->n; i++) {
            const size_t j = cand[i].job;
            const tsr__j2k_rd_point *hull = s->hulls[j];
            const uint32_t k = s->cur[j];
            const double add = (double)hull[k].bytes - (k ? (double)hull[k - 1].bytes : 0);
            if (size + add + 2 > budget)
                continue;
            size += add + 2;
            done[ndone++] = (move){0, j, k};
            set_cut(s, j, k + 1);
            changed = 1;
        }
    }
    for (;;) {
        if ((st = measure(s)) || (double)s->size <= budget || ndone == 0)
            return st;
        const move *m = &done[--ndone]; /* over: the last move undone */
        set_cut(s, m->job, m->from);
    }
}

/* Layer l's cuts for an estimated error of at most target: the largest threshold that meets it
 * (the error rises with the threshold), by bisection on its logarithm; then, from the cuts of
 * a threshold just above, which miss it, hull points a block at a time, steepest first, until
 * it is met. Every pass when even that does not meet it. cand: n moves. */
static void search_layer_dist(layer_search *s, double target, double smin, double smax, move *cand)
{
    cut_all(s, 0.0);
    if (smax <= 0 || distortion(s) > target)
        return;
    cut_all(s, smax * 2);
    if (distortion(s) <= target)
        return; /* the previous layers' cuts meet it */
    double lo = log(smin > 0 ? smin : smax * 1e-12) - 1, hi = log(smax) + 1;
    for (int it = 0; it < 40 && hi - lo > 1e-3; it++) {
        const double mid = 0.5 * (lo + hi);
        cut_all(s, exp(mid));
        if (distortion(s) <= target)
            lo = mid;
        else
            hi = mid;
    }
    cut_all(s, exp(hi));
    double d = distortion(s);
    while (d > target) {
        size_t ncand = 0;
        for (size_t j = 0; j < s->n; j++)
            if (s->cur[j] < s->nhull[j])
                cand[ncand++] = (move){s->hulls[j][s->cur[j]].slope, j, s->cur[j]};
        if (!ncand)
            break; /* every hull point: met but for rounding */
        qsort(cand, ncand, sizeof *cand, by_slope);
        for (size_t i = 0; i < ncand && d > target; i++) {
            const size_t j = cand[i].job;
            const uint32_t k = s->cur[j];
            d -= s->hulls[j][k].dist - (k ? s->hulls[j][k - 1].dist : 0);
            set_cut(s, j, k + 1);
        }
    }
}

tsr_status tsr__j2k_rate_control(tsr_ctx *ctx, tsr__j2k_enc_tiles *E,
                                 const tsr__j2k_rd_point *const *hulls, const uint32_t *nhull,
                                 const double *dist0, size_t n, const tsr__j2k_cblk_code *codes,
                                 const double *budget, const double *target, tsr__j2k_cut *cuts,
                                 double *dist, size_t *bytes)
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
    const size_t nalloc = n ? n : 1;
    layer_search s = {ctx,  E,    hulls, nhull, dist0, n,   codes, cuts, 0, E->tcp->numlayers,
                      NULL, NULL, 0,     NULL,  NULL,  NULL};
    move *cand = NULL, *done = NULL;
    tsr_status st;
    if ((st = tsr__alloc(ctx, nalloc * sizeof *s.cur, (void **)&s.cur)) ||
        (st = tsr__alloc(ctx, nalloc * sizeof *s.floor, (void **)&s.floor)) ||
        (st = tsr__alloc(ctx, nalloc * sizeof *cand, (void **)&cand)) ||
        (st = tsr__alloc(ctx, nalloc * sizeof *done, (void **)&done)) ||
        (st = tsr__alloc(ctx, SLOPE_BINS * sizeof *s.bin_bytes, (void **)&s.bin_bytes)) ||
        (st = tsr__alloc(ctx, SLOPE_BINS * sizeof *s.bin_least, (void **)&s.bin_least)) ||
        (st = tsr__alloc(ctx, SLOPE_BINS * sizeof *s.bin_most, (void **)&s.bin_most)))
        goto out;
    memset(s.cur, 0, nalloc * sizeof *s.cur);
    for (s.l = 0; s.l < s.L && !st; s.l++) {
        memcpy(s.floor, s.cur, nalloc * sizeof *s.cur);
        if (budget[s.l] == HUGE_VAL) { /* complete: every pass of every block (the estimate
                                          below: at the hulls' ends) */
            cut_all(&s, 0.0);
            for (size_t j = 0; j < n; j++)
                s.cuts[j * s.L + s.l] = (tsr__j2k_cut){codes[j].npasses, codes[j].len};
        } else if (budget[s.l] < 0) {
            search_layer_dist(&s, target[s.l], smin, smax, cand);
        } else {
            st = search_layer(&s, budget[s.l], smin, smax, cand, done);
        }
        if (!st && budget[s.l] >= 0 && budget[s.l] != HUGE_VAL)
            bytes[s.l] = s.size; /* measured by the search */
        else if (!st)
            st = measure(&s), bytes[s.l] = s.size;
        dist[s.l] = distortion(&s);
    }
    size_t all;
    if (!st)
        st = tsr__j2k_tiles_encode(ctx, E, codes, cuts, s.L, 0, &all);
out:
    tsr__free(ctx, s.cur);
    tsr__free(ctx, s.floor);
    tsr__free(ctx, cand);
    tsr__free(ctx, done);
    tsr__free(ctx, s.bin_bytes);
    tsr__free(ctx, s.bin_least);
    tsr__free(ctx, s.bin_most);
    return st;
}

/* ---- HT rate control's planes (tsr__j2k_ht_reveal_planes) ---- */

/* A threshold at or below the smallest one whose hull points take at most budget bytes
 * (0 when all of them fit): the hull points binned by slope, their bytes summed from the
 * steepest bin down until they pass the budget; that bin's least slope. */
static double floor_slope(const tsr__j2k_rd_point *hulls, const uint32_t *nhull, size_t n,
                          double budget, uint64_t *bytes, double *least)
{
    memset(bytes, 0, SLOPE_BINS * sizeof *bytes);
    for (size_t b = 0; b < SLOPE_BINS; b++)
        least[b] = HUGE_VAL;
    for (size_t j = 0; j < n; j++) {
        const tsr__j2k_rd_point *h = hulls + j * TSR__J2K_HT_MAX_SETS;
        for (uint32_t k = 0; k < nhull[j]; k++) {
            const size_t b = slope_bin(h[k].slope);
            bytes[b] += h[k].bytes - (k ? h[k - 1].bytes : 0);
            least[b] = fmin(least[b], h[k].slope);
        }
    }
    uint64_t sum = 0;
    for (size_t b = SLOPE_BINS; b-- > 0;)
        if ((double)(sum += bytes[b]) > budget)
            return least[b];
    return 0;
}

tsr_status tsr__j2k_ht_reveal_planes(tsr_ctx *ctx, size_t n, const uint8_t *K, const double *weight,
                                     double budget, int threads, tsr__j2k_ht_reveal reveal,
                                     void *user, uint32_t *nsets)
{
    tsr__j2k_rd_point *hulls = NULL;
    uint32_t *nhull = NULL;
    size_t *open = NULL;
    uint64_t *bytes = NULL;
    double *least = NULL;
    const size_t nalloc = n ? n : 1;
    tsr_status st;
    if ((st = tsr__alloc(ctx, nalloc * TSR__J2K_HT_MAX_SETS * sizeof *hulls, (void **)&hulls)) ||
        (st = tsr__alloc(ctx, nalloc * sizeof *nhull, (void **)&nhull)) ||
        (st = tsr__alloc(ctx, nalloc * sizeof *open, (void **)&open)) ||
        (st = tsr__alloc(ctx, SLOPE_BINS * sizeof *bytes, (void **)&bytes)) ||
        (st = tsr__alloc(ctx, SLOPE_BINS * sizeof *least, (void **)&least)))
        goto out;
    size_t nopen = 0;
    for (size_t j = 0; j < n; j++) {
        nhull[j] = 0;
        nsets[j] = 0;
        if (K[j])
            open[nopen++] = j;
    }
    int failed = 0;
    for (uint32_t round = 0; nopen && !failed; round++) {
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 4) if (threads > 1)
#endif
        for (size_t i = 0; i < nopen; i++) {
            const int tid = tsr__thread_num();
            const size_t j = open[i];
            const uint32_t *rate;
            const double *dist;
            if (__atomic_load_n(&failed, __ATOMIC_RELAXED))
                continue;
            const size_t next = i + 1 < nopen ? open[i + 1] : n; /* a hint */
            const uint32_t ns = reveal(user, j, next, tid, &rate, &dist);
            if (!ns) {
                __atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
                continue;
            }
            nsets[j] = ns;
            nhull[j] =
                tsr__j2k_rd_hull(rate, dist, ns, weight[j], hulls + j * TSR__J2K_HT_MAX_SETS);
        }
        const double lambda = floor_slope(hulls, nhull, n, budget, bytes, least);
        size_t still = 0;
        for (size_t i = 0; i < nopen; i++) {
            const size_t j = open[i];
            const tsr__j2k_rd_point *h = hulls + j * TSR__J2K_HT_MAX_SETS;
            if (round + 1 < K[j] && !(nhull[j] && h[nhull[j] - 1].slope < lambda * 0.25))
                open[still++] = j;
        }
        nopen = still;
    }
    if (failed)
        st = TSR_ERR_INTERNAL;
out:
    tsr__free(ctx, hulls);
    tsr__free(ctx, nhull);
    tsr__free(ctx, open);
    tsr__free(ctx, bytes);
    tsr__free(ctx, least);
    return st;
}
