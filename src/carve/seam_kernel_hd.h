/* The select and remove kernels' per-thread bodies (carve_cuda_kernels.cuh; the launch order is
 * in pass_kernel_hd.h's file comment), written with TSR_HD so that test_carve_device_logic runs
 * them on the CPU for every thread. */
#ifndef TSR_CARVE_SEAM_KERNEL_HD_H
#define TSR_CARVE_SEAM_KERNEL_HD_H

#include "carve/dp_kernel_hd.h"

/* ---- seam selection ---- */

/* select, thread t of T: the leftmost minimum of its columns t, t + T, ... of the last row
 * (x = -1 when it has none). */
TSR_HD void tsr__cc_argmin_partial(const tsr__cc_planes *P, int32_t w, int32_t t, int32_t T,
                                   uint64_t *v, int32_t *x)
{
    const int32_t last = tsr__cc_bands(P->h) - 1;
    int32_t bx = -1;
    uint64_t bv = 0;
    for (int32_t c = t; c < w; c += T) {
        const uint64_t v = tsr__cc_hand_key(P, last, c);
        if (bx < 0 || v < bv) {
            bv = v;
            bx = c;
        }
    }
    *v = bv;
    *x = bx;
}

/* Tree step: (v, x) becomes the better of itself and (v2, x2): smaller key, then smaller column
 * (so the result is the leftmost minimum whatever the pairing). */
TSR_HD void tsr__cc_argmin_combine(uint64_t *v, int32_t *x, uint64_t v2, int32_t x2)
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
TSR_HD int tsr__cc_select_begin(const tsr__cc_planes *P)
{
    if (P->until && P->state->drops == 0) {
        P->state->stop = 1;
        return 0;
    }
    return 1;
}

/* select, the band hops (exits[b] = the seam's column in band b's last row, from exits[nb - 1] =
 * its end column) in groups of HOP_G bands: from band b0's exit x0, band b0 - j - 1's exit is
 * entry row b0 - j at a column within R j of x0 (a path moves at most R columns per band). Thread
 * t loads window column t of each entry row b0 - j it covers (tsr__cc_hop_has) into registers,
 * every load before any store (all in flight at once); the caller stores them to the shared
 * windows, synchronises, and thread 0 walks the group there (tsr__cc_hop_walk): one memory round
 * trip per group instead of one per band. */
enum {
    TSR__CC_HOP_G = 16,
    TSR__CC_HOP_W = 2 * TSR__CC_BAND * (TSR__CC_HOP_G - 1) + 1 /* the widest window */
};
typedef char tsr__cc_hop_fits[(int)TSR__CC_HOP_W <= (int)TSR__CC_SEL_THREADS ? 1 : -1];

/* Whether thread t holds column t of the window of entry row b0 - j: the row exists, the column
 * is inside the window (t <= 2 R j) and inside the image (x = x0 - R j + t in [0, w)). A window
 * column outside the image is never walked to (a path stays in the image), so it is left
 * unwritten. */
TSR_HD int tsr__cc_hop_has(int32_t b0, int32_t j, int32_t t, int32_t x, int32_t w)
{
    return b0 - j >= 1 && t <= 2 * TSR__CC_BAND * j && (uint32_t)x < (uint32_t)w;
}

/* Thread t's loads for the group below band b0 (exit x0) at width w: v[j] for every j it has.
 * One 64-bit row address and 32-bit element offsets from it (entry row b0 - j, column x: offset
 * x - j pitch, within int32 as pitch <= 65535 + 128 and j < 16), so that no address stays live
 * across the loads: all of them in flight at once with no register spilled (a spilled load
 * result makes the warp wait for that load before issuing the next). */
TSR_HD void tsr__cc_hop_load(const tsr__cc_planes *P, int32_t w, int32_t b0, int32_t x0, int32_t t,
                             uint16_t v[TSR__CC_HOP_G])
{
    const uint16_t *row = P->entry + (int64_t)b0 * P->pitch;
    int32_t x = x0 + t;
    TSR_HD_UNROLL
    for (int32_t j = 0; j < TSR__CC_HOP_G; j++) {
        if (tsr__cc_hop_has(b0, j, t, x, w))
            v[j] = row[x - j * P->pitch];
        x -= TSR__CC_BAND;
    }
}

/* Thread t's stores of its loads (tsr__cc_hop_load) into the group's windows. */
TSR_HD void tsr__cc_hop_store(int32_t w, int32_t b0, int32_t x0, int32_t t,
                              const uint16_t v[TSR__CC_HOP_G],
                              uint16_t win[TSR__CC_HOP_G][TSR__CC_HOP_W])
{
    int32_t x = x0 + t;
    TSR_HD_UNROLL
    for (int32_t j = 0; j < TSR__CC_HOP_G; j++) {
        if (tsr__cc_hop_has(b0, j, t, x, w))
            win[j][t] = v[j];
        x -= TSR__CC_BAND;
    }
}

/* Thread 0, after the group's windows are stored: exits[b0 - 1] ... down to band max(b0 - G, 0);
 * returns the last of them (the next group's x0). */
TSR_HD int32_t tsr__cc_hop_walk(const uint16_t win[TSR__CC_HOP_G][TSR__CC_HOP_W], int32_t b0,
                                int32_t x0, int32_t *exits)
{
    int32_t x = x0;
    for (int32_t j = 0; j < TSR__CC_HOP_G && b0 - j >= 1; j++) {
        x = win[j][x - x0 + TSR__CC_BAND * j];
        exits[b0 - j - 1] = x;
    }
    return x;
}

/* select, expansion of a band: the first back-pointer word of the window around its exit column
 * xe (the path moves at most R - 1 columns inside a band; 5 words = 80 columns from column
 * 16 * word0 >= xe - R - 15 cover it). The pitch (>= w + 64) keeps the window inside the row. */
TSR_HD int32_t tsr__cc_expand_word0(int32_t xe)
{
    return xe < TSR__CC_BAND ? 0 : (xe - TSR__CC_BAND) >> 4;
}

/* select, expansion of band b, lane `lane`: the window words of row y0 + lane (zeros past the
 * band's last row), which the kernel keeps in shared memory for the walk. */
TSR_HD void tsr__cc_expand_load(const tsr__cc_planes *P, int32_t b, int32_t word0, int32_t lane,
                                uint32_t win[TSR__CC_EXP_WORDS])
{
    const int32_t y = b * TSR__CC_BAND + lane;
    const uint32_t *row = (const uint32_t *)(const void *)(P->back + (int64_t)y * (P->pitch / 4));
    TSR_HD_UNROLL
    for (int32_t j = 0; j < TSR__CC_EXP_WORDS; j++)
        win[j] = y < P->h ? row[word0 + j] : 0;
}

/* select, expansion of a band by one thread: from the band's exit column x in its row `last`,
 * walks up through the rows' window words (win[r]: row y0 + r, tsr__cc_expand_load) and writes
 * the path's column of every row r <= last to xr[r]. One thread walks: a step is a shared load
 * and four operations (a walk by shuffles, every lane computing its own row's code, issued ~4x
 * as many instructions, and 32 warps share one SM). */
typedef char tsr__cc_lane_per_band_row[TSR__CC_LANES == TSR__CC_BAND ? 1 : -1];

TSR_HD void tsr__cc_expand_walk(const uint32_t win[TSR__CC_BAND][TSR__CC_EXP_WORDS], int32_t word0,
                                int32_t last, int32_t x, int32_t xr[TSR__CC_BAND])
{
    xr[last] = x;
    for (int32_t r = last; r > 0; r--) {
        const uint32_t v = win[r][(x >> 4) - word0];
        x += (int32_t)((v >> ((x & 15) * 2)) & 3) - 1;
        xr[r - 1] = x;
    }
}

/* select, expansion of band b, lane `lane` after the walk (x: the seam's column in row
 * y0 + lane): stores it and returns 1 when the pixel is a drop pixel (object removal). */
TSR_HD int32_t tsr__cc_expand_store(const tsr__cc_planes *P, int32_t b, int32_t lane, int32_t x)
{
    const int32_t y = b * TSR__CC_BAND + lane;
    if (lane >= TSR__CC_BAND || y >= P->h)
        return 0;
    P->xs[y] = x;
    return P->until && (P->mask[(int64_t)y * P->pitch + x] & TSR__CC_DROP_BIT) != 0;
}

/* select, thread 0 after the drop counts are summed: updates the state (pass.c's loop: object
 * removal stops when the seam crosses no drop pixel). */
TSR_HD void tsr__cc_select_finish(const tsr__cc_planes *P, int32_t xe, int32_t sd)
{
    tsr__cc_state *s = P->state;
    if (P->until) {
        if (sd == 0) {
            s->stop = 1;
            return;
        }
        s->drops -= sd;
    }
    s->energy_sum += tsr__cc_hand_key(P, tsr__cc_bands(P->h) - 1, xe) & (TSR__CC_DROP_B - 1);
    s->removed++;
}

/* ---- removal ---- */

/* What one remove thread carries across the barrier: columns c + t + j * THREADS, j < E. */
typedef struct tsr__cc_cell {
    int32_t n; /* how many of them are live (a prefix) */
    uint8_t luma[TSR__CC_RM_E], mask[TSR__CC_RM_E];
    uint16_t orig[TSR__CC_RM_E];
} tsr__cc_cell;

/* remove, row y, before the first chunk (thread 0): records the removed pixel's column. The
 * seam index is the state's count (select already counted it). */
TSR_HD void tsr__cc_remove_record(const tsr__cc_planes *P, int32_t y)
{
    const int32_t s = P->state->removed - 1;
    P->rec[(int64_t)s * P->h + y] = P->orig[(int64_t)y * P->pitch + P->xs[y]];
}

/* remove, row y, chunk starting at column c (c = xs[y], xs[y] + T * E, ... while c < w - 1),
 * thread t: read phase. Element x takes what is at x + 1. */
TSR_HD void tsr__cc_remove_read(const tsr__cc_planes *P, int32_t w, int32_t y, int32_t c, int32_t t,
                                tsr__cc_cell *r)
{
    r->n = 0;
    TSR_HD_UNROLL
    for (int32_t j = 0; j < TSR__CC_RM_E; j++) {
        const int32_t x = c + t + j * TSR__CC_THREADS;
        if (x >= w - 1)
            break;
        const int64_t o = (int64_t)y * P->pitch + x + 1;
        r->luma[j] = P->luma[o];
        r->orig[j] = P->orig[o];
        r->mask[j] = P->mask ? P->mask[o] : 0;
        r->n = j + 1;
    }
}

/* remove: write phase of the same chunk (after a barrier). */
TSR_HD void tsr__cc_remove_write(const tsr__cc_planes *P, int32_t y, int32_t c, int32_t t,
                                 const tsr__cc_cell *r)
{
    TSR_HD_UNROLL
    for (int32_t j = 0; j < TSR__CC_RM_E; j++) {
        if (j >= r->n)
            break;
        const int64_t o = (int64_t)y * P->pitch + c + t + j * TSR__CC_THREADS;
        P->luma[o] = r->luma[j];
        P->orig[o] = r->orig[j];
        if (P->mask)
            P->mask[o] = r->mask[j];
    }
}

#endif
