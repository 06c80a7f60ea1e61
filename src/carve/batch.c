/* Batch mode: K seams from one pass, disjoint, connected and non-crossing.
 *
 * The image is cut at row m = floor(h / 2) into a top half (rows 0 .. m-1) and a bottom half
 * (rows m .. h-1), and each half is carved towards the cut as an image of its own: the top half
 * as it is, the bottom half upside down (its energy, forward costs and DP are those of the
 * flipped half; a half's edge rows use the one-sided vertical difference, as any image's).
 * The two DPs are independent, and so are the two traces below, which is what lets a device
 * run them side by side: each is a chain of h / 2 dependent rows instead of h. A half's DP
 * also restarts in segments of about 1024 rows counted from the cut (batch_hd.h's
 * tsr__carve_batch_seg: each segment's energy and DP are again those of an image of its own), so a
 * device runs every segment's DP at once; the trace below does not restart: stepping from a
 * segment's first row into the previous segment it compares that segment's last row of M, as
 * it does within one.
 *
 * The seams cross the cut straight (the same column in rows m-1 and m) at the K smallest
 * meeting keys M_top(m-1, x) + M_bottom(m, x) (leftmost first among equal keys; for h = 1 the
 * bottom half alone), numbered left to right, and each half is traced away from the cut, one
 * row at a time in the half's own coordinates; every seam's step depends on that row alone, so
 * the K steps of a row are independent (one GPU thread each). Seam j at column x of half row y
 * continues in half row y-1 at the column c the half's DP would compare best (least M(y-1,c),
 * plus the transition cost from c for forward energy; leftmost among equals) within
 *     [x - 1 if seam j-1 is at least 3 columns left of x in row y (or j = 0), else x,
 *      x + 1 if seam j+1 is at least 3 columns right of x in row y (or j = K-1), else x]
 * clamped to the row. Two neighbours at most 2 apart may not step towards each other, and
 * neighbours 3 or more apart cannot meet in one step, so every row loses exactly K distinct
 * pixels, the seams keep their order, and each moves at most one column per row. A seam with
 * room on both sides follows its half's back-pointers; only next to a neighbour does it deviate
 * (so seams never merge). The energy reported is the image's: every
 * removed pixel's backward energy, or forward cost from the seam's pixel in the row above.
 *
 * Adaptive K: max(1, floor(w / 64)) seams per pass, never more than are left: at most 1.6% of
 * the columns move per pass, which keeps the seams of one pass far apart on most images while
 * cutting the DP passes of a 8K image by ~120x. */
#include "carve/plan.h"

#include "carve/batch_hd.h"
#include "carve/energy_hd.h"

#include <stdlib.h>
#include <string.h>

int32_t tsr__carve_batch_k(int32_t w, int32_t left, int32_t fixed)
{
    int32_t k = fixed > 0 ? fixed : w / 64;
    if (k < 1)
        k = 1;
    if (k > left)
        k = left;
    if (k > w - 1)
        k = w - 1;
    return k;
}

static inline int worse(const tsr__carve_cost *m, int32_t a, int32_t b)
{
    return m[a] > m[b] || (m[a] == m[b] && a > b);
}

/* Max-heap (by key, then column) of the k best columns seen so far. */
static void sift_down(int32_t *heap, int32_t n, int32_t i, const tsr__carve_cost *m)
{
    for (;;) {
        int32_t l = 2 * i + 1, r = l + 1, t = i;
        if (l < n && worse(m, heap[l], heap[t]))
            t = l;
        if (r < n && worse(m, heap[r], heap[t]))
            t = r;
        if (t == i)
            return;
        int32_t s = heap[i];
        heap[i] = heap[t];
        heap[t] = s;
        i = t;
    }
}

static int cmp_int32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Energy part of the cost of pixel (y, x) of grid g entered from column from of row y-1
 * (y > 0): backward, e(x, y) from the luma (clamped differences); forward, CU plus, when the
 * seam moved, the left or right term. */
static uint64_t pixel_energy(const tsr__carve_grid *g, tsr_carve_energy kind, int32_t y, int32_t x,
                             int32_t from)
{
    const size_t gp = (size_t)g->pitch;
    const int32_t w = g->w;
    if (kind == TSR_CARVE_BACKWARD)
        return tsr__carve_energy_cell(g->luma, (int64_t)gp, w, g->h, x, y);
    const uint8_t *row = g->luma + (size_t)y * gp;
    const int l = row[x > 0 ? x - 1 : 0], r = row[x < w - 1 ? x + 1 : w - 1];
    uint64_t e = (uint64_t)tsr__carve_absdiff(l, r);
    if (y > 0 && from != x)
        e += (uint64_t)tsr__carve_absdiff(g->luma[(size_t)(y - 1) * gp + (size_t)x],
                                          from < x ? l : r);
    return e;
}

/* The bottom half (rows m .. h-1) of g upside down into f: f's row r is g's row h-1-r (luma
 * and mask, the planes a DP reads). */
static void flip_bottom(const tsr__carve_grid *g, int32_t m, tsr__carve_grid *f)
{
    f->w = g->w;
    f->h = g->h - m;
    f->has_keep = g->has_keep;
    f->has_drop = g->has_drop;
    for (int32_t r = 0; r < f->h; r++) {
        const size_t src = (size_t)(g->h - 1 - r) * (size_t)g->pitch,
                     dst = (size_t)r * (size_t)f->pitch;
        memcpy(f->luma + dst, g->luma + src, (size_t)g->w);
        if (g->mask)
            memcpy(f->mask + dst, g->mask + src, (size_t)g->w);
    }
}

/* d's rows [r0, r0 + rows) as the DP arrays of a grid of that many rows. */
static tsr__carve_dp dp_rows(const tsr__carve_dp *d, int32_t r0, int32_t rows)
{
    tsr__carve_dp v = *d;
    const size_t o = (size_t)r0 * (size_t)d->pitch;
    v.rows = rows;
    v.energy = d->energy ? d->energy + o : NULL;
    v.cost = d->cost + o;
    v.back = d->back + o;
    return v;
}

/* The DP of half grid hg into hd (its rows), segment by segment (tsr__carve_batch_seg), each
 * segment's energy and DP those of an image of its own. */
static void dp_half(const tsr__carve_grid *hg, const tsr__carve_dp *hd, int threads)
{
    for (int32_t j = 0; j < tsr__carve_batch_segs(hg->h); j++) {
        int32_t start, rows;
        tsr__carve_batch_seg(hg->h, j, &start, &rows);
        const size_t o = (size_t)start * (size_t)hg->pitch;
        tsr__carve_grid sg = *hg;
        sg.h = rows;
        sg.luma += o;
        sg.mask = hg->mask ? hg->mask + o : NULL;
        tsr__carve_dp sd = dp_rows(hd, start, rows);
        tsr__carve_energy_all(&sg, &sd, threads);
        tsr__carve_dp_all(&sg, &sd, threads);
    }
}

/* Traces k seams through half grid hg (its DP hd) from its last row up to its row 0: half row
 * y's columns are at last - (hg->h - 1 - y) * step (step: +k or -k elements of cols), the last
 * row's already there. */
static void trace_half(const tsr__carve_grid *hg, const tsr__carve_dp *hd, int32_t k, int32_t *last,
                       ptrdiff_t step)
{
    const int32_t w = hg->w;
    const int fwd = hd->kind == TSR_CARVE_FORWARD;
    const int32_t *cur = last;
    for (int32_t y = hg->h - 1; y > 0; y--, cur -= step) {
        int32_t *up = (int32_t *)cur - step;
        const tsr__carve_cost *m = hd->cost + (size_t)(y - 1) * (size_t)hd->pitch;
        for (int32_t j = 0; j < k; j++) {
            const int32_t x = cur[j];
            int32_t lo = j == 0 || x - cur[j - 1] >= 3 ? x - 1 : x;
            int32_t hi = j == k - 1 || cur[j + 1] - x >= 3 ? x + 1 : x;
            if (lo < 0)
                lo = 0;
            if (hi > w - 1)
                hi = w - 1;
            /* What the DP compared: M alone (backward), M plus the transition (forward). */
            int32_t best = lo;
            tsr__carve_cost bv = m[lo] + (fwd ? pixel_energy(hg, hd->kind, y, x, lo) : 0);
            for (int32_t c = lo + 1; c <= hi; c++) {
                tsr__carve_cost v = m[c] + (fwd ? pixel_energy(hg, hd->kind, y, x, c) : 0);
                if (v < bv) {
                    bv = v;
                    best = c;
                }
            }
            up[j] = best;
        }
    }
}

uint64_t tsr__carve_batch_select(const tsr__carve_grid *g, tsr__carve_dp *d, tsr__carve_grid *flip,
                                 int32_t k, int32_t *cols, int32_t *heap, int threads)
{
    const int32_t w = g->w, h = g->h, m = h / 2, hb = h - m;
    const size_t dp = (size_t)d->pitch;
    tsr__carve_grid top = *g;
    top.h = m;
    flip_bottom(g, m, flip);
    tsr__carve_dp dt = dp_rows(d, 0, m), db = dp_rows(d, m, hb);
    if (m > 0)
        dp_half(&top, &dt, threads);
    dp_half(flip, &db, threads);
    /* The meeting keys, in place of the bottom half's last row (no trace reads a half's last
       row of keys: a step from row y compares row y-1). */
    tsr__carve_cost *meet = db.cost + (size_t)(hb - 1) * dp;
    if (m > 0)
        for (int32_t x = 0; x < w; x++)
            meet[x] += dt.cost[(size_t)(m - 1) * dp + (size_t)x];
    int32_t n = 0;
    for (int32_t x = 0; x < w; x++) {
        if (n < k) {
            heap[n++] = x;
            for (int32_t i = n / 2 - 1; n == k && i >= 0; i--)
                sift_down(heap, n, i, meet);
        } else if (worse(meet, heap[0], x)) {
            heap[0] = x;
            sift_down(heap, n, 0, meet);
        }
    }
    qsort(heap, (size_t)k, sizeof *heap, cmp_int32);
    int32_t *at_m = cols + (size_t)m * (size_t)k;
    for (int32_t j = 0; j < k; j++)
        at_m[j] = heap[j];
    trace_half(flip, &db, k, at_m, -(ptrdiff_t)k);
    if (m > 0) {
        memcpy(at_m - k, at_m, (size_t)k * sizeof *cols);
        trace_half(&top, &dt, k, at_m - k, k);
    }
    uint64_t sum = 0;
    for (int32_t y = 0; y < h; y++)
        for (int32_t j = 0; j < k; j++) {
            const int32_t x = cols[(size_t)y * (size_t)k + (size_t)j];
            const int32_t from = y > 0 ? cols[(size_t)(y - 1) * (size_t)k + (size_t)j] : x;
            sum += pixel_energy(g, d->kind, y, x, from);
        }
    return sum;
}
