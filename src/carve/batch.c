/* Batch mode: K seams from one DP pass, disjoint, connected and non-crossing.
 *
 * The seams end at the K smallest cumulative keys of the last row (leftmost first among equal
 * keys), numbered left to right. They are traced up one row at a time; every seam's step
 * depends on row y alone, so the K steps of a row are independent (one GPU thread each). Seam j
 * at column x of row y continues in row y-1 at the column c the DP would compare best (least
 * M(y-1,c), plus the transition cost from c for forward energy; leftmost among equals) within
 *     [x - 1 if seam j-1 is at least 3 columns left of x in row y (or j = 0), else x,
 *      x + 1 if seam j+1 is at least 3 columns right of x in row y (or j = K-1), else x]
 * clamped to the row. Two neighbours at most 2 apart may not step towards each other, and
 * neighbours 3 or more apart cannot meet in one step, so every row loses exactly K distinct
 * pixels, the seams keep their order, and each moves at most one column per row. A seam with
 * room on both sides follows the exact DP's back-pointers; only next to a neighbour does it
 * deviate (the seed's batch mode let seams merge there). K = 1 is the exact seam.
 *
 * Adaptive K: max(1, floor(w / 64)) seams per pass, never more than are left: at most 1.6% of
 * the columns move per pass, which keeps the seams of one pass far apart on most images while
 * cutting the DP passes of a 8K image by ~120x. */
#include "carve/plan.h"

#include <stdlib.h>

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

/* Energy part of the cost of pixel (y, x) entered from column from of row y-1 (y > 0). */
static uint64_t pixel_energy(const tsr__carve_grid *g, const tsr__carve_dp *d, int32_t y, int32_t x,
                             int32_t from)
{
    if (d->kind == TSR_CARVE_BACKWARD)
        return d->energy[(size_t)y * (size_t)d->pitch + (size_t)x];
    const uint8_t *row = g->luma + (size_t)y * (size_t)g->pitch;
    const int32_t w = g->w;
    const int l = row[x > 0 ? x - 1 : 0], r = row[x < w - 1 ? x + 1 : w - 1];
    uint64_t e = (uint64_t)(l > r ? l - r : r - l);
    if (y > 0 && from != x) {
        const int u = g->luma[(size_t)(y - 1) * (size_t)g->pitch + (size_t)x];
        const int n = from < x ? l : r;
        e += (uint64_t)(u > n ? u - n : n - u);
    }
    return e;
}

uint64_t tsr__carve_batch_select(const tsr__carve_grid *g, const tsr__carve_dp *d, int32_t k,
                                 int32_t *cols, int32_t *heap)
{
    const int32_t w = g->w, h = g->h;
    const size_t dp = (size_t)d->pitch;
    const tsr__carve_cost *last = d->cost + (size_t)(h - 1) * dp;
    int32_t n = 0;
    for (int32_t x = 0; x < w; x++) {
        if (n < k) {
            heap[n++] = x;
            for (int32_t i = n / 2 - 1; n == k && i >= 0; i--)
                sift_down(heap, n, i, last);
        } else if (worse(last, heap[0], x)) {
            heap[0] = x;
            sift_down(heap, n, 0, last);
        }
    }
    qsort(heap, (size_t)k, sizeof *heap, cmp_int32);
    int32_t *bottom = cols + (size_t)(h - 1) * (size_t)k;
    for (int32_t j = 0; j < k; j++)
        bottom[j] = heap[j];
    uint64_t sum = 0;
    const int fwd = d->kind == TSR_CARVE_FORWARD;
    for (int32_t y = h - 1; y > 0; y--) {
        const int32_t *cur = cols + (size_t)y * (size_t)k;
        int32_t *up = cols + (size_t)(y - 1) * (size_t)k;
        const tsr__carve_cost *m = d->cost + (size_t)(y - 1) * dp;
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
            tsr__carve_cost bv = m[lo] + (fwd ? pixel_energy(g, d, y, x, lo) : 0);
            for (int32_t c = lo + 1; c <= hi; c++) {
                tsr__carve_cost v = m[c] + (fwd ? pixel_energy(g, d, y, x, c) : 0);
                if (v < bv) {
                    bv = v;
                    best = c;
                }
            }
            up[j] = best;
            sum += pixel_energy(g, d, y, x, best);
        }
    }
    for (int32_t j = 0; j < k; j++)
        sum += pixel_energy(g, d, 0, cols[j], cols[j]);
    return sum;
}
