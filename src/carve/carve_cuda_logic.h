/* The per-thread bodies of the CUDA seam-carving kernels (carve_cuda.cu), written once as
 * __host__ __device__ functions so that a CPU test (tests/unit/test_carve_device_logic.c) runs
 * the kernels' own code for every thread of every block of every launch, in launch order, and
 * compares the seams with the CPU reference without a GPU. Compiled as C11 (host) and as CUDA
 * C++ (nvcc): no C++-only or C-only constructs.
 *
 * The device state of one pass (one grid, vertical seams; horizontal seams are found on the
 * host-transposed grid): luma (u8), optional mask bits (u8), the column each live pixel had at
 * the start of the pass (`orig`, u16: sides <= 65535), backward energy (u16), cumulative keys
 * (u64, the key of plan.h) and back-pointers (i8), all h x pitch; the current seam xs[h]; the
 * removed pixels' start-of-pass columns rec[seam * h + y]; a small state word (stop flag,
 * seams removed, drop pixels left, energy sum). Pixels never go to the device: the host gathers
 * them once at the end of the pass from `orig` (tsr__carve_apply_seams).
 *
 * Launch order (carve_cuda.cu; the emulation repeats it):
 *   energy_full (backward)                 one thread per cell
 *   dp_band(y0) for y0 = 0, R, 2R, ...     blocks of TSR__CC_THREADS over strips of S columns:
 *                                          load row y0-1 over [x0-R, x0+S+R), then R rows, each
 *                                          over a range one column narrower per side per row
 *                                          (trapezoid), the own S columns written to global
 *   per seam:
 *     select                               one block: leftmost minimum of the last row (strided
 *                                          partial minima + tree); thread 0 hops the bands'
 *                                          entry columns (exits[b]); barrier; the threads
 *                                          expand the bands' rows in parallel; the drop counts
 *                                          summed (tree); thread 0 updates the state
 *     remove                               one block per row: chunks of TSR__CC_THREADS columns
 *                                          right of the seam, all reads, barrier, all writes
 *     energy_band (backward)               one thread per row: the columns around the seam
 *     dp_band(...) as above (not after the last seam)
 * Every kernel returns at once when the state's stop flag is set (object removal ends on the
 * device; later launches of the batch are no-ops). */
#ifndef TSR_CARVE_CUDA_LOGIC_H
#define TSR_CARVE_CUDA_LOGIC_H

#include <stdint.h>

#ifdef __CUDACC__
#define TSR__CC_FN static __host__ __device__ __forceinline__
#else
#define TSR__CC_FN static inline
#endif

enum {
    TSR__CC_MAX_BANDS = 2048, /* ceil(65535 / R) */
    TSR__CC_THREADS = 256, /* threads per block of the band, select and remove kernels */
    TSR__CC_BAND = 32,     /* R: rows per DP band launch (and halo columns per side) */
    TSR__CC_STRIP = 256,   /* S: columns a band block writes */
    TSR__CC_EXT = TSR__CC_STRIP + 2 * TSR__CC_BAND /* shared row length of a band block */
};

#define TSR__CC_DROP_B ((uint64_t)1 << 25)
#define TSR__CC_KEEP_BIT 1
#define TSR__CC_DROP_BIT 2

typedef struct tsr__cc_state {
    int32_t stop;        /* 1: no further seam (object removal finished) */
    int32_t removed;     /* seams removed so far in this pass */
    int64_t drops;       /* drop pixels left (object removal) */
    uint64_t energy_sum; /* sum of the removed seams' energy parts */
} tsr__cc_state;

typedef struct tsr__cc_planes {
    uint8_t *luma, *mask; /* mask NULL when the grid has none */
    uint16_t *orig, *energy; /* energy NULL for forward energy */
    uint64_t *cost;
    int8_t *back;
    uint16_t *entry;     /* ceil(h / R) x pitch: per band, for each column of its last row, the
                            column where the chosen path enters the band (its first row) */
    int32_t *xs;
    uint16_t *rec;
    tsr__cc_state *state;
    int32_t pitch, h;
    int32_t forward;     /* 0 backward, 1 forward */
    int32_t until;       /* object removal: stop when no drop pixel is left or a seam has none */
    uint64_t pen[4];     /* key term per mask code (tsr__carve_dp_penalties) */
} tsr__cc_planes;

TSR__CC_FN int32_t tsr__cc_absdiff(int32_t a, int32_t b)
{
    return a > b ? a - b : b - a;
}

/* ---- energy ---- */

/* Backward energy of (x, y) in a grid of w x h (energy_cpu.c's clamped differences). */
TSR__CC_FN uint16_t tsr__cc_energy_cell(const uint8_t *luma, int32_t pitch, int32_t w, int32_t h,
                                        int32_t x, int32_t y)
{
    const uint8_t *row = luma + (int64_t)y * pitch;
    const uint8_t *up = luma + (int64_t)(y > 0 ? y - 1 : y) * pitch;
    const uint8_t *dn = luma + (int64_t)(y < h - 1 ? y + 1 : y) * pitch;
    const int32_t l = x > 0 ? x - 1 : 0, r = x < w - 1 ? x + 1 : w - 1;
    return (uint16_t)(tsr__cc_absdiff(row[r], row[l]) + tsr__cc_absdiff(dn[x], up[x]));
}

/* energy_full: thread `cell` (< w * h) of the launch. */
TSR__CC_FN void tsr__cc_energy_full(const tsr__cc_planes *P, int32_t w, int64_t cell)
{
    const int32_t y = (int32_t)(cell / w), x = (int32_t)(cell % w);
    P->energy[(int64_t)y * P->pitch + x] = tsr__cc_energy_cell(P->luma, P->pitch, w, P->h, x, y);
}

/* The columns [*a, *b) of row y whose energy a removal along xs (old columns) can change, in
 * the new width w: pass.c's dirty band. */
TSR__CC_FN void tsr__cc_dirty_band(const int32_t *xs, int32_t h, int32_t w, int32_t y, int32_t *a,
                                   int32_t *b)
{
    const int32_t u = xs[y > 0 ? y - 1 : y], c = xs[y], d = xs[y < h - 1 ? y + 1 : y];
    int32_t lo = u < c ? u : c, hi = u > c ? u : c;
    lo = lo < d ? lo : d;
    hi = hi > d ? hi : d;
    lo -= 2;
    hi += 2;
    *a = lo < 0 ? 0 : lo;
    *b = hi > w ? w : hi;
}

/* energy_band: thread y (< h) of the launch, after the removal (w = the new width). */
TSR__CC_FN void tsr__cc_energy_band(const tsr__cc_planes *P, int32_t w, int32_t y)
{
    int32_t a, b;
    tsr__cc_dirty_band(P->xs, P->h, w, y, &a, &b);
    for (int32_t x = a; x < b; x++)
        P->energy[(int64_t)y * P->pitch + x] =
            tsr__cc_energy_cell(P->luma, P->pitch, w, P->h, x, y);
}

/* ---- DP ---- */

/* The cumulative key and back-pointer of (x, y) (dp_cpu.c's tsr__carve_dp_span), the previous
 * row's keys at prev[x' - base] for x' in x-1..x+1 (those inside [0, w)). */
TSR__CC_FN void tsr__cc_dp_cell(const tsr__cc_planes *P, int32_t w, int32_t y, int32_t x,
                                const uint64_t *prev, int32_t base, uint64_t *out_m,
                                int8_t *out_b)
{
    const int64_t o = (int64_t)y * P->pitch;
    uint64_t v = P->mask ? P->pen[P->mask[o + x]] : 0;
    int8_t b = 0;
    if (!P->forward) {
        v += P->energy[o + x];
        if (y > 0) {
            uint64_t best;
            if (x > 0) {
                best = prev[x - 1 - base];
                b = -1;
                if (prev[x - base] < best) {
                    best = prev[x - base];
                    b = 0;
                }
            } else {
                best = prev[x - base];
            }
            if (x < w - 1 && prev[x + 1 - base] < best) {
                best = prev[x + 1 - base];
                b = 1;
            }
            v += best;
        }
    } else {
        const uint8_t *row = P->luma + o;
        const int32_t l = row[x > 0 ? x - 1 : 0], r = row[x < w - 1 ? x + 1 : w - 1];
        const uint64_t cu = (uint64_t)tsr__cc_absdiff(r, l);
        if (y > 0) {
            const int32_t u = P->luma[o - P->pitch + x];
            uint64_t best;
            if (x > 0) {
                best = prev[x - 1 - base] + cu + (uint64_t)tsr__cc_absdiff(u, l);
                b = -1;
                if (prev[x - base] + cu < best) {
                    best = prev[x - base] + cu;
                    b = 0;
                }
            } else {
                best = prev[x - base] + cu;
            }
            if (x < w - 1) {
                const uint64_t c = prev[x + 1 - base] + cu + (uint64_t)tsr__cc_absdiff(u, r);
                if (c < best) {
                    best = c;
                    b = 1;
                }
            }
            v += best;
        } else {
            v += cu;
        }
    }
    *out_m = v;
    *out_b = b;
}

/* dp_band, load phase: shared element i (< TSR__CC_EXT) of block `blk` gets the key of row
 * y0 - 1 at column x0 - R + i (when inside the row). Nothing for the band of row 0. */
TSR__CC_FN void tsr__cc_band_load(const tsr__cc_planes *P, int32_t w, int32_t y0, int32_t blk,
                                  int32_t i, uint64_t *sh)
{
    const int32_t x = blk * TSR__CC_STRIP - TSR__CC_BAND + i;
    if (y0 > 0 && x >= 0 && x < w)
        sh[i] = P->cost[(int64_t)(y0 - 1) * P->pitch + x];
}

/* dp_band, row k of the band (row y0 + k < h): shared element i of block `blk`. Valid columns
 * shrink by one per side per row, so the block's own S columns are exact at k = R - 1 without
 * any other block's row. Alongside the key, each cell carries the column where its path
 * entered the band (org_*); the band's last row stores it in P->entry for the backtrack. */
TSR__CC_FN void tsr__cc_band_cell(const tsr__cc_planes *P, int32_t w, int32_t y0, int32_t blk,
                                  int32_t k, int32_t i, const uint64_t *sh_prev, uint64_t *sh_cur,
                                  const uint16_t *org_prev, uint16_t *org_cur)
{
    const int32_t x0 = blk * TSR__CC_STRIP, base = x0 - TSR__CC_BAND, x = base + i;
    if (x < base + 1 + k || x >= x0 + TSR__CC_STRIP + TSR__CC_BAND - 1 - k || x < 0 || x >= w)
        return;
    const int32_t y = y0 + k;
    uint64_t m;
    int8_t b;
    tsr__cc_dp_cell(P, w, y, x, sh_prev, base, &m, &b);
    sh_cur[i] = m;
    const uint16_t org = k == 0 ? (uint16_t)x : org_prev[i + b];
    org_cur[i] = org;
    if (x >= x0 && x < x0 + TSR__CC_STRIP) {
        P->cost[(int64_t)y * P->pitch + x] = m;
        P->back[(int64_t)y * P->pitch + x] = b;
        if (k == TSR__CC_BAND - 1 || y == P->h - 1)
            P->entry[(int64_t)(y0 / TSR__CC_BAND) * P->pitch + x] = org;
    }
}

/* ---- seam selection ---- */

/* select, thread t of T: the leftmost minimum of its columns t, t + T, ... of the last row
 * (x = -1 when it has none). */
TSR__CC_FN void tsr__cc_argmin_partial(const tsr__cc_planes *P, int32_t w, int32_t t, int32_t T,
                                       uint64_t *v, int32_t *x)
{
    const uint64_t *last = P->cost + (int64_t)(P->h - 1) * P->pitch;
    int32_t bx = -1;
    uint64_t bv = 0;
    for (int32_t c = t; c < w; c += T)
        if (bx < 0 || last[c] < bv) {
            bv = last[c];
            bx = c;
        }
    *v = bv;
    *x = bx;
}

/* Tree step: (v, x) becomes the better of itself and (v2, x2): smaller key, then smaller column
 * (so the result is the leftmost minimum whatever the pairing). */
TSR__CC_FN void tsr__cc_argmin_combine(uint64_t *v, int32_t *x, uint64_t v2, int32_t x2)
{
    if (x2 < 0)
        return;
    if (*x < 0 || v2 < *v || (v2 == *v && x2 < *x)) {
        *v = v2;
        *x = x2;
    }
}

/* select, thread 0 after the reduction: 0 (and the stop flag) when object removal has no drop
 * pixel left (pass.c's loop test), else 1. */
TSR__CC_FN int tsr__cc_select_begin(const tsr__cc_planes *P)
{
    if (P->until && P->state->drops == 0) {
        P->state->stop = 1;
        return 0;
    }
    return 1;
}

/* select, thread 0: hops the bands from the seam's end column xe upwards: exits[b] = the seam's
 * column in band b's last row (two dependent loads per band instead of one per row). */
TSR__CC_FN void tsr__cc_trace_bands(const tsr__cc_planes *P, int32_t xe, int32_t *exits)
{
    const int32_t nb = (P->h + TSR__CC_BAND - 1) / TSR__CC_BAND;
    int32_t x = xe;
    for (int32_t b = nb - 1; b >= 0; b--) {
        exits[b] = x;
        if (b > 0) {
            const int32_t top = P->entry[(int64_t)b * P->pitch + x];
            x = top + P->back[(int64_t)b * TSR__CC_BAND * P->pitch + top];
        }
    }
}

/* select, band b (threads in parallel after a barrier): the seam's rows of band b from its exit
 * column into P->xs; returns the drop pixels it crosses (object removal). */
TSR__CC_FN int32_t tsr__cc_expand_band(const tsr__cc_planes *P, int32_t b, const int32_t *exits)
{
    const int32_t y0 = b * TSR__CC_BAND;
    int32_t y1 = y0 + TSR__CC_BAND - 1, x = exits[b], sd = 0;
    if (y1 > P->h - 1)
        y1 = P->h - 1;
    for (int32_t y = y1; y >= y0; y--) {
        P->xs[y] = x;
        if (P->until)
            sd += (P->mask[(int64_t)y * P->pitch + x] & TSR__CC_DROP_BIT) != 0;
        x += P->back[(int64_t)y * P->pitch + x];
    }
    return sd;
}

/* select, thread 0 after the drop counts are summed: updates the state (pass.c's loop: object
 * removal stops when the seam crosses no drop pixel). */
TSR__CC_FN void tsr__cc_select_finish(const tsr__cc_planes *P, int32_t xe, int32_t sd)
{
    tsr__cc_state *s = P->state;
    if (P->until) {
        if (sd == 0) {
            s->stop = 1;
            return;
        }
        s->drops -= sd;
    }
    s->energy_sum += P->cost[(int64_t)(P->h - 1) * P->pitch + xe] & (TSR__CC_DROP_B - 1);
    s->removed++;
}

/* ---- removal ---- */

/* What one remove thread carries across the barrier. */
typedef struct tsr__cc_cell {
    int32_t live;
    uint8_t luma, mask;
    uint16_t orig, energy;
} tsr__cc_cell;

/* remove, row y, before the first chunk (thread 0): records the removed pixel's column. The
 * seam index is the state's count (select already counted it). */
TSR__CC_FN void tsr__cc_remove_record(const tsr__cc_planes *P, int32_t y)
{
    const int32_t s = P->state->removed - 1;
    P->rec[(int64_t)s * P->h + y] = P->orig[(int64_t)y * P->pitch + P->xs[y]];
}

/* remove, row y, chunk starting at column c (c = xs[y], xs[y] + T, ... while c < w - 1), thread
 * t: read phase. Element c + t takes what is at c + t + 1. */
TSR__CC_FN void tsr__cc_remove_read(const tsr__cc_planes *P, int32_t w, int32_t y, int32_t c,
                                    int32_t t, tsr__cc_cell *r)
{
    const int32_t x = c + t;
    r->live = x < w - 1;
    if (!r->live)
        return;
    const int64_t o = (int64_t)y * P->pitch + x + 1;
    r->luma = P->luma[o];
    r->orig = P->orig[o];
    r->mask = P->mask ? P->mask[o] : 0;
    r->energy = P->energy ? P->energy[o] : 0;
}

/* remove: write phase of the same chunk (after a barrier). */
TSR__CC_FN void tsr__cc_remove_write(const tsr__cc_planes *P, int32_t y, int32_t c, int32_t t,
                                     const tsr__cc_cell *r)
{
    if (!r->live)
        return;
    const int64_t o = (int64_t)y * P->pitch + c + t;
    P->luma[o] = r->luma;
    P->orig[o] = r->orig;
    if (P->mask)
        P->mask[o] = r->mask;
    if (P->energy)
        P->energy[o] = r->energy;
}

#endif
