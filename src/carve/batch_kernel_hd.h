/* The per-thread bodies of the CUDA batch-mode kernels (carve_cuda_batch_kernels.cuh, launched
 * by carve_cuda.cu), written once as TSR_HD functions (C11 and CUDA C++) so that
 * test_carve_device_logic runs them on the CPU for every thread against batch.c. The planes are
 * pass_kernel_hd.h's, with the batch ones (pair, cols, luma2/mask2/orig2).
 *
 * One batch pass of k seams at width w (batch.c's definition: two halves in segments,
 * pass_kernel_hd.h's views), after a DP of every segment that also stored the pair bits:
 *   topk     one block of TOPK_THREADS: the k smallest (meeting key, column). Radix
 *            select over the masked keys, digits of 8 bits from the highest one any key has
 *            (the keys' OR first): a shared histogram of the digit among the columns that match
 *            the prefix so far (one atomic per distinct digit of a warp), then one warp picks the
 *            digit holding the need-th smallest (lane l: bins 8l..8l+7); after 8 digits the
 *            prefix is the threshold key v and need the number of columns with key v to take
 *            (the leftmost ones). Then each thread's contiguous columns: a block scan of its
 *            count of keys == v, a block scan of its selected count, the columns written in
 *            order into rows m-1 and m of cols.
 *   join     one thread per 4 columns of every segment's first row but the image edges':
 *            the nibbles the DP would have stored there without its restart (tsr__cc_join).
 *   trace    one block per half (its view), from the half's last row to its row 0, the two
 *            side by side. k <= 256 (rows up to ~25K columns): 1 to 8 warps, every seam's column in
 *            registers (tsr__cc_trace_warp_form, tsr__cc_trace_lane), each row's columns
 *            stored to cols. Else one block, one thread per seam (strided when k > threads),
 *            the half's rows h-1 .. 1, one barrier per row: cols[y-1][j] = step(cols[y][j-1..j+1],
 * the nibble (code, pair bits) of (y, cols[y][j])). The rows go in groups of TRACE_G; when k <=
 * TRACE_KS a group's positions stay in shared memory and each thread writes its own seams' rows to
 * cols once at the group's end (else every row is written to cols and read back), and the pair rows
 * of the next group are staged by cp.async when they fit (else read from global memory). sum one
 * thread per removed pixel: its energy part (batch.c's pixel_energy), its drop bit (object
 * removal), its start-of-pass column into rec; warp sums, atomics. gather   (not after the last
 * pass) one block per row, GATHER_E adjacent output columns per thread: output column x' < w - k
 * takes column x' + #{j : cols[j] - j <= x'} of luma/mask/orig into luma2/mask2/orig2 (the host
 * swaps the planes). the next DP at w - k. */
#ifndef TSR_CARVE_BATCH_KERNEL_HD_H
#define TSR_CARVE_BATCH_KERNEL_HD_H

#include "carve/seam_kernel_hd.h"

enum {
    TSR__CC_TOPK_THREADS = 1024,
    TSR__CC_TOPK_PER = 64,   /* columns a topk thread holds at most (65535 / 1024, rounded up) */
    TSR__CC_TRACE_G = 8,     /* rows of codes per staged group */
    TSR__CC_TRACE_KS = 4096, /* seams whose positions the trace keeps in shared memory */
    TSR__CC_GATHER_THREADS = 256,
    TSR__CC_GATHER_KS = 8192,       /* removed columns per row the gather stages in shared memory */
    TSR__CC_GATHER_E = 4,           /* output columns per gather thread (one 4-byte luma store) */
    TSR__CC_TRACE_SMEM = 200 * 1024 /* the trace's shared-memory budget (bytes) */
};

/* ---- topk ---- */

/* The hand row of the last band of a half's last segment (the one at the cut): view v of hh
 * rows. */
TSR_HD int32_t tsr__cc_cut_band(int32_t hh, int32_t v, int32_t nbv)
{
    int32_t start, rows;
    tsr__carve_batch_seg(hh, tsr__carve_batch_segs(hh) - 1, &start, &rows);
    return v * nbv + tsr__cc_bands(rows) - 1;
}

/* The meeting key of column x (the whole planes): the masked keys of the halves' last rows
 * (rows m-1 and m of the grid) added; the bottom half's alone when the top half is empty. */
TSR_HD uint64_t tsr__cc_meet_key(const tsr__cc_planes *P, int32_t x)
{
    const int32_t m = P->h / 2, gt = tsr__carve_batch_segs(m), nbv = tsr__cc_view_bands(P->h);
    const int32_t last = tsr__cc_views(P->h) - 1;
    return (m > 0 ? tsr__cc_hand_key(P, tsr__cc_cut_band(m, gt - 1, nbv), x) : 0) +
           tsr__cc_hand_key(P, tsr__cc_cut_band(P->h - m, last, nbv), x);
}

typedef char tsr__cc_topk_fits[TSR__CC_TOPK_THREADS * TSR__CC_TOPK_PER >= 65535 ? 1 : -1];

/* topk thread t of T: its contiguous columns [*a, *b). */
TSR_HD void tsr__cc_topk_range(int32_t w, int32_t t, int32_t T, int32_t *a, int32_t *b)
{
    const int32_t per = (w + T - 1) / T;
    const int32_t lo = t * per;
    *a = lo < w ? lo : w;
    *b = lo + per < w ? lo + per : w;
}

/* The first digit's shift: the digits above the highest set bit of `any` (the OR of every key)
 * are 0 in every key, so the select starts at the highest digit with a set bit (0 when none). */
TSR_HD int32_t tsr__cc_topk_first_shift(uint64_t any)
{
    int32_t s = 56;
    while (s > 0 && (any >> s) == 0)
        s -= 8;
    return s;
}

/* Digit s (bits s..s+7) of key when its bits above s + 7 equal the prefix's, else -1. */
TSR_HD int32_t tsr__cc_topk_digit(uint64_t key, uint64_t prefix, int32_t s)
{
    return ((key ^ prefix) >> s >> 8) == 0 ? (int32_t)((key >> s) & 255) : -1;
}

/* topk pick, lane `lane` of the picking warp: bins 8 lane .. 8 lane + 7 of the histogram, before
 * = the sum of the bins below them. When the need-th smallest (need >= 1) falls in them: its
 * digit into *digit, the rank left inside that bin into *left, returns 1. */
TSR_HD int tsr__cc_topk_pick(const uint32_t *hist, int32_t lane, uint32_t before, uint32_t need,
                             int32_t *digit, uint32_t *left)
{
    uint32_t c = before;
    for (int32_t i = 0; i < 8; i++) {
        const int32_t b = lane * 8 + i;
        if (c < need && need <= c + hist[b]) {
            *digit = b;
            *left = need - c;
            return 1;
        }
        c += hist[b];
    }
    return 0;
}

/* topk, columns [a, b) (their meeting keys: keys[0 .. b-a)) after the threshold v and need are
 * known. A column is selected when its
 * key < v, or == v and fewer than need keys == v are left of it (eq_before of them left of a).
 * mode < 0: returns the number of keys == v; mode 0: the number of selected columns; mode > 0:
 * also writes them to rows m-1 (when m > 0) and m of cols (k per row; m = h / 2: the halves'
 * last rows) from index out_before. */
TSR_HD int32_t tsr__cc_topk_emit(const tsr__cc_planes *P, int32_t k, const uint64_t *keys,
                                 int32_t a, int32_t b, uint64_t v, uint32_t need,
                                 uint32_t eq_before, int32_t out_before, int mode)
{
    int32_t n = 0;
    uint32_t eq = eq_before;
    const int32_t m = P->h / 2;
    int32_t *row = P->cols + (int64_t)m * k, *up = m > 0 ? row - k : row;
    for (int32_t x = a; x < b; x++) {
        const uint64_t key = keys[x - a];
        if (mode < 0) {
            n += key == v;
            continue;
        }
        const int sel = key < v || (key == v && eq < need);
        eq += key == v;
        if (sel && mode > 0)
            row[out_before + n] = up[out_before + n] = x;
        n += sel;
    }
    return n;
}

/* ---- join ---- */

/* The segment starts a batch pass's join rewrites: every segment's first row but the image
 * edge's, in both halves. */
TSR_HD int32_t tsr__cc_joins(int32_t h)
{
    return tsr__cc_views(h) - 2;
}

/* join, thread i of tsr__cc_joins(h) * ceil(w / 4) at width w (the whole planes): the nibbles
 * of 4 columns of segment j's first row (half row y, j >= 1), where the DP restarted, become
 * those a DP running on would have stored: the code and pair bits of the previous segment's
 * last row of keys (its hand keys) plus, for forward energy, the transition costs from the half's
 * row y - 1 (batch.c's trace compares exactly these). So the trace steps across segments as
 * within them. */
TSR_HD void tsr__cc_join(const tsr__cc_planes *P, int32_t w, int32_t i)
{
    const int32_t words = (w + 3) / 4, n = i / words, x0 = (i % words) * 4;
    const int32_t gt = tsr__carve_batch_segs(P->h / 2), nbv = tsr__cc_view_bands(P->h);
    const int32_t top_joins = gt - 1, bottom = n >= top_joins;
    const int32_t j = bottom ? n - top_joins + 1 : n + 1, v = (bottom ? gt : 0) + j;
    tsr__cc_planes H = *P;
    tsr__cc_half(&H, bottom, 0);
    int32_t y, rows, ps, prows;
    tsr__carve_batch_seg(H.h, j, &y, &rows);
    tsr__carve_batch_seg(H.h, j - 1, &ps, &prows);
    const int32_t hb = (v - 1) * nbv + tsr__cc_bands(prows) - 1; /* previous segment, last band */
    const int64_t lrow = tsr__cc_lrow(&H);
    const uint8_t *row = H.luma + y * lrow, *up = row - lrow;
    uint32_t word = 0;
    for (int32_t c = 0; c < 4 && x0 + c < w; c++) {
        const int32_t x = x0 + c, has_l = x > 0, has_r = x < w - 1;
        uint64_t tl = 0, tc = 0, tr = 0;
        if (P->forward) {
            const int32_t l = row[has_l ? x - 1 : x], r = row[has_r ? x + 1 : x];
            tc = (uint64_t)tsr__carve_absdiff(l, r);
            tl = tc + (uint64_t)tsr__carve_absdiff(up[x], l);
            tr = tc + (uint64_t)tsr__carve_absdiff(up[x], r);
        }
        const uint64_t vc = tsr__cc_hand_key(P, hb, x) + tc;
        const uint64_t vl = has_l ? tsr__cc_hand_key(P, hb, x - 1) + tl : 0;
        const uint64_t vr = has_r ? tsr__cc_hand_key(P, hb, x + 1) + tr : 0;
        /* leftmost least (strict <), and the pair bits as the DP's row step defines them */
        uint32_t code = has_l ? 0u : 1u;
        uint64_t best = has_l ? vl : vc;
        if (has_l && vc < vl) {
            code = 1;
            best = vc;
        }
        if (has_r && vr < best)
            code = 2;
        const uint32_t a = has_r && vr < vc, b = !has_l || vc < vl;
        word |= (code | a << 2 | b << 3) << (4 * c);
    }
    H.pair[(int64_t)y * (H.pitch / 4) + x0 / 4] = (uint16_t)word;
}

/* ---- trace ---- */

/* The trace's shared memory: first, when staged, the pair rows (two buffers of TRACE_G
 * rows); then, when k <= TRACE_KS, TRACE_G + 1 rows of the seams' positions (slot 0: the
 * group's top row, slot s: s rows below it; written to cols once per group). Positions take
 * precedence: the rows are staged only when both fit the budget. */
TSR_HD int tsr__cc_trace_pos_shared(int32_t k)
{
    return k <= TSR__CC_TRACE_KS;
}
TSR_HD int32_t tsr__cc_trace_pos_bytes(int32_t k)
{
    return tsr__cc_trace_pos_shared(k) ? (TSR__CC_TRACE_G + 1) * k * (int32_t)sizeof(int32_t) : 0;
}
TSR_HD int32_t tsr__cc_trace_stage_bytes(int32_t pitch)
{
    return 2 /* buffers */ * TSR__CC_TRACE_G * (pitch / 2) /* a pair row's bytes */;
}
TSR_HD int tsr__cc_trace_staged(int32_t pitch, int32_t k)
{
    return tsr__cc_trace_stage_bytes(pitch) + tsr__cc_trace_pos_bytes(k) <= TSR__CC_TRACE_SMEM;
}
TSR_HD int32_t tsr__cc_trace_smem(int32_t pitch, int32_t k)
{
    return (tsr__cc_trace_staged(pitch, k) ? tsr__cc_trace_stage_bytes(pitch) : 0) +
           tsr__cc_trace_pos_bytes(k);
}

/* trace, one seam's step from row y to y-1: x its column in row y, xl / xr its neighbours'
 * (has_l / has_r: whether it has them), nib the nibble of (y, x) in the DP's pair plane: its
 * back-pointer code (bits 0-1) and pair bits (A bit 2, B bit 3). batch.c's rule: the DP's choice
 * within [x - 1 unless the left neighbour is less than 3 columns away, x + 1 unless the right
 * one is], clamped to the row: the full range is the code, [x, x + 1] is bit A, [x - 1, x] is
 * bit B. */
TSR_HD int32_t tsr__cc_batch_step(int32_t w, int32_t x, int has_l, int32_t xl, int has_r,
                                  int32_t xr, uint32_t nib)
{
    int32_t lo = !has_l || x - xl >= 3 ? x - 1 : x;
    int32_t hi = !has_r || xr - x >= 3 ? x + 1 : x;
    lo = lo < 0 ? 0 : lo;
    hi = hi > w - 1 ? w - 1 : hi;
    /* the four outcomes, then one choice (selects, no branches) */
    const int32_t full = x + (int32_t)(nib & 3) - 1, right = x + (int32_t)(nib >> 2 & 1);
    const int32_t left = x - 1 + (int32_t)(nib >> 3 & 1);
    const int l = lo<x, r = hi> x;
    return l && r ? full : r ? right : l ? left : x;
}

/* The nibble of column x in a row of the pair plane. */
TSR_HD uint32_t tsr__cc_batch_nib(const uint16_t *row, int32_t x)
{
    return (uint32_t)row[x >> 2] >> (x & 3) * 4 & 15u;
}

/* The warp trace (trace_warp_kernel): W warps hold every seam's column in registers, lane g
 * (of the block: 32 W lanes) seams g * s .. g * s + s - 1, the neighbours across lanes by
 * shuffles and, between warps, through shared memory with one barrier per row; the code and
 * pair rows of TRACE_G rows come into shared memory by two bulk copies (TMA) per group, one
 * group ahead. The forms, by k: <= 32: s = 1, one warp; <= 64: s = 2, one warp; <= 128 and <=
 * 256: s = 1 on four and eight warps (one warp's issue limits s = 4: 0.19 against 0.10 us a
 * row at s = 2; two warps at s = 2: 0.13). Returns 0 when the warp trace does not apply
 * (k > 256, or the two buffers of the group's rows exceed TRACE_SMEM: then trace), else 1 with
 * *s and *warps. */
TSR_HD int tsr__cc_trace_warp_form(int32_t pitch, int32_t k, int32_t *s, int32_t *warps)
{
    if (k > 256 || tsr__cc_trace_stage_bytes(pitch) > TSR__CC_TRACE_SMEM)
        return 0;
    *s = k > 32 && k <= 64 ? 2 : 1;
    *warps = k <= 64 ? 1 : k <= 128 ? 4 : 8;
    return 1;
}

/* The warp trace, lane `lane` of the block, one row y: x[0 .. s-1] its seams' columns in row y,
 * xl the column of seam lane * s - 1 (the previous lane's last), xr of seam lane * s + s (the
 * next lane's first), row: row y of the pair plane; writes their columns in row y - 1 to nx.
 * A seam j >= k (a lane's padding) is stepped too, without a branch: it stays inside the row (the
 * codes and pair bits never leave it), and seam k - 1 has no right neighbour, so it is never
 * read; the caller stores seams j < k only. */
TSR_HD void tsr__cc_trace_lane(int32_t w, int32_t k, int32_t lane, int32_t s, const int32_t *x,
                               int32_t xl, int32_t xr, const uint16_t *row, int32_t *nx)
{
    TSR_HD_UNROLL
    for (int32_t i = 0; i < s; i++) {
        const int32_t j = lane * s + i, l = i > 0 ? x[i - 1] : xl, r = i < s - 1 ? x[i + 1] : xr;
        nx[i] = tsr__cc_batch_step(w, x[i], j > 0, l, j < k - 1, r, tsr__cc_batch_nib(row, x[i]));
    }
}

/* ---- sum ---- */

/* sum, removed pixel j of row y of a pass of k seams at width w (before the gather; removed:
 * seams of the device pass before this one): records its start-of-pass column, sets *drop to its
 * drop bit (object removal only) and returns its energy part (batch.c's pixel_energy: backward,
 * the energy; forward, CU plus, when the seam moved, the left or right term). */
TSR_HD uint32_t tsr__cc_batch_pixel(const tsr__cc_planes *P, int32_t w, int32_t k, int32_t removed,
                                    int32_t y, int32_t j, int32_t *drop)
{
    const int32_t x = P->cols[(int64_t)y * k + j];
    const int32_t from = y > 0 ? P->cols[(int64_t)(y - 1) * k + j] : x;
    const int64_t o = (int64_t)y * P->pitch;
    P->rec[(int64_t)(removed + j) * P->h + y] = P->orig[o + x];
    *drop = P->until && (P->mask[o + x] & TSR__CC_DROP_BIT) != 0;
    if (!P->forward)
        return tsr__carve_energy_cell(P->luma, P->pitch, w, P->h, x, y);
    const uint8_t *row = P->luma + o;
    const int32_t l = row[x > 0 ? x - 1 : 0], r = row[x < w - 1 ? x + 1 : w - 1];
    uint32_t e = (uint32_t)tsr__carve_absdiff(l, r);
    if (from != x)
        e += (uint32_t)tsr__carve_absdiff(P->luma[o - P->pitch + x], from < x ? l : r);
    return e;
}

/* ---- gather ---- */

/* gather, output columns xo0 .. xo0 + n - 1 (n <= TSR__CC_GATHER_E) of a row whose removed
 * columns are c[0 .. k-1] (increasing): output column xo takes column xo + #{j : c[j] - j <=
 * xo} (c[j] - j does not decrease: the count found once by a binary search, then stepped).
 * Their source columns into xs. */
TSR_HD void tsr__cc_gather_srcs(const int32_t *c, int32_t k, int32_t xo0, int32_t n, int32_t *xs)
{
    int32_t lo = 0, hi = k;
    while (lo < hi) {
        const int32_t mid = (lo + hi) / 2;
        if (c[mid] - mid <= xo0)
            lo = mid + 1;
        else
            hi = mid;
    }
    TSR_HD_UNROLL
    for (int32_t i = 0; i < TSR__CC_GATHER_E; i++) {
        if (i >= n)
            break;
        while (lo < k && c[lo] - lo <= xo0 + i)
            lo++;
        xs[i] = xo0 + i + lo;
    }
}

/* gather, output column xo of row y taken from column xs. */
TSR_HD void tsr__cc_gather_cell(const tsr__cc_planes *P, int32_t y, int32_t xo, int32_t xs)
{
    const int64_t o = (int64_t)y * P->pitch;
    P->luma2[o + xo] = P->luma[o + xs];
    P->orig2[o + xo] = P->orig[o + xs];
    if (P->mask)
        P->mask2[o + xo] = P->mask[o + xs];
}

#endif
