/* The CUDA seam-removal pass's planes, constants and views (carve_cuda.cu), and the overview of
 * its kernels, whose per-thread bodies are written once as TSR_HD functions (dp_kernel_hd.h,
 * seam_kernel_hd.h, batch_kernel_hd.h) so that a CPU test (tests/unit/test_carve_device_logic.c)
 * runs the kernels' own code for every thread of every block of every launch, in launch order,
 * and compares the seams with the CPU reference without a GPU. Compiled as C11 (host) and as
 * CUDA C++ (nvcc): no C++-only or C-only constructs.
 *
 * The device state of one pass (one grid, vertical seams; horizontal seams are found on the
 * host-transposed grid), planes of h x pitch: luma (u8), optional mask bits (u8), the column
 * each live pixel had at the start of the pass (`orig`, u16: sides <= 65535), no energy plane
 * (the DP computes the backward energy of its band from luma when it stages it); DP outputs:
 * 2-bit back-pointer codes (`back`, four columns a byte; batch mode: `pair`, a nibble per
 * column with the pair bits, batch_kernel_hd.h), and per band of R rows the keys of its
 * last row (`hand64`, plan.h's key, when the grid has a mask, else
 * `hand32`, the energy part: the DP's key type, dp_row_kernel_hd.h) and, for each of them, the
 * column of the previous band's last row the path comes from (`entry`, exact mode); the current
 * seam xs[h]; the removed pixels' start-of-pass columns rec[seam * h + y]; a small state word (stop
 * flag, seams removed, drop pixels left, energy sum). Pixels never go to the device: the host
 * removes the rec columns from its rows once at the end of the pass (tsr__carve_apply_seams).
 *
 * The DP (one launch per DP, kernel dp): items of (band b, strip s), one warp each; a warp
 * holds a window of WIN = 32 lanes x C columns starting R columns left of its strip of S = WIN -
 * 2R output columns, the keys of one row in registers (C per lane, the lane edges exchanged by
 * shuffles: no barrier per row). Row k of the band is valid on a range one column narrower per
 * side per row (trapezoid), so the S output columns are exact after R rows from the previous
 * band's last row alone: an item needs only items (b-1, s-1..s+1). Items take tickets in
 * band-major order from an atomic counter; an item polls the previous band's keys it needs until
 * all carry this launch's generation tag (the top 5 bits of the stored key, below them the key
 * with room to spare; a 64- or 32-bit store is atomic, so a tagged key is complete: no flag, no
 * fence). A producer always holds a smaller ticket, so it is running or done: no deadlock,
 * whatever the grid size or residency. An item copies its band's inputs (backward: the energies
 * computed from luma; forward: luma; mask) into shared memory before it polls. The image's row
 * 0 (band 0's first row) is its own step (tsr__cc_lane_first*), so the row step has no first-row
 * case. The origins (entry) are read by select only: an item finds them after storing its keys,
 * from the codes of its band kept in shared memory (tsr__cc_lane_entry), so the row step carries
 * keys alone. In batch mode one launch runs the DP of every segment of both halves (views of the
 * planes, "batch mode's halves and segments" below), their bands taking turns.
 *
 * Launch order (carve_cuda.cu; the emulation repeats it):
 *   dp (generation 1)                      one warp per item (above)
 *   per seam k:
 *     select                               one block of SEL_THREADS: leftmost minimum of the
 *                                          last band's keys (strided partial minima, warp
 *                                          shuffles, one barrier, warp 0's shuffles); the
 *                                          bands' exits by hops in groups (tsr__cc_hop_*);
 *                                          one warp per band expands its rows: each lane loads
 *                                          one row's back-pointer words around the band's exit
 *                                          into shared memory, then lane 0 walks the path up
 *                                          (tsr__cc_expand_walk) and every lane stores its
 *                                          row's column; drop counts
 *                                          summed; thread 0 updates the state
 *     remove                               one block per row: chunks of THREADS x E columns
 *                                          right of the seam, all reads, barrier, all writes
 *     dp (generation k + 2), not after the last seam
 * Every kernel returns at once when the state's stop flag is set (object removal ends on the
 * device; later launches of the batch are no-ops). */
#ifndef TSR_CARVE_PASS_KERNEL_HD_H
#define TSR_CARVE_PASS_KERNEL_HD_H

#include "carve/batch_hd.h"
#include "carve/energy_hd.h"
#include "carve/pass_state.h"
#include "core/hd.h"

#include <stdint.h>

#define TSR__CC_CAT2(a, b) a##b
#define TSR__CC_CAT(a, b) TSR__CC_CAT2(a, b)

/* A load of data another block may be storing during this launch (polled: every call reads
 * memory, at L2), for 64- and 32-bit keys. A load of a plane no thread writes during the launch:
 * through the read-only path (a global load the compiler may move ahead of shared-memory
 * stores). */
#ifdef __CUDA_ARCH__
__device__ __forceinline__ uint64_t tsr__cc_load_relaxed64(const uint64_t *p)
{
    uint64_t v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ uint32_t tsr__cc_load_relaxed32(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
#define TSR__CC_LOAD_L2_64(p) tsr__cc_load_relaxed64(p)
#define TSR__CC_LOAD_L2_32(p) tsr__cc_load_relaxed32(p)
#define TSR__CC_LOAD_RO(p) __ldg(p)
#else
#define TSR__CC_LOAD_L2_64(p) (*(p))
#define TSR__CC_LOAD_L2_32(p) (*(p))
#define TSR__CC_LOAD_RO(p) (*(p))
#endif

enum {
    TSR__CC_THREADS = 256,      /* threads per block of the remove kernel */
    TSR__CC_SEL_THREADS = 1024, /* of the select kernel (a warp per band in the expansion) */
    TSR__CC_LANES = 32,         /* threads of a DP item (one warp) */
    TSR__CC_C = 4,              /* columns per DP lane (one byte of back-pointer codes) */
    TSR__CC_WIN = TSR__CC_LANES * TSR__CC_C, /* columns of a DP item's window */
    TSR__CC_BAND = 32,                       /* R: rows per band, and halo columns per side */
    TSR__CC_STRIP = TSR__CC_WIN - 2 * TSR__CC_BAND, /* S: columns an item outputs */
    TSR__CC_MAX_BANDS = (65535 + TSR__CC_BAND - 1) / TSR__CC_BAND,
    TSR__CC_PITCH_ALIGN = 64, /* device row pitch: a multiple of this, >= w + this */
    TSR__CC_EXP_WORDS = 5,    /* back-pointer words (16 columns each) per row in the expansion */
    TSR__CC_RM_E = 8          /* columns per remove thread per chunk */
};

/* tsr__cc_lane_entry gives every lane two output columns */
typedef char tsr__cc_strip_is_two_lanes[TSR__CC_STRIP == 2 * TSR__CC_LANES ? 1 : -1];

#define TSR__CC_DROP_B ((uint64_t)1 << 25)
/* hand keys: the top 5 bits hold the generation (mod 32) of the DP launch that stored them:
 * bits 59..63 of the 64-bit keys (grids with a mask: plan.h's keys are below 2^59), bits 27..31
 * of the 32-bit keys (grids without a mask: the energy part, below 510 * 65535 < 2^25) */
#define TSR__CC_TAG_SHIFT64 59
#define TSR__CC_TAG_SHIFT32 27
#define TSR__CC_KEY_MASK64 (((uint64_t)1 << TSR__CC_TAG_SHIFT64) - 1)
#define TSR__CC_KEY_MASK32 (((uint32_t)1 << TSR__CC_TAG_SHIFT32) - 1)
/* The DP's keys in registers and its transition costs (tsr__cc_costs, the staged energies) are
 * scaled by 4: a candidate carries its code (0 left, 1 centre, 2 right) in the two low bits, so
 * one minimum gives the least key and, among equal keys, dp_cpu.c's choice (strict <: left before
 * centre before right), and a strict compare of two candidates with different codes is the
 * strict compare of their keys. Scaled keys stay below 2^27 (32-bit) and 2^61 (64-bit); the
 * hand keys are stored unscaled. */
#define TSR__CC_Q 2
#define TSR__CC_KEEP_BIT 1
#define TSR__CC_DROP_BIT 2

typedef struct tsr__cc_planes {
    uint8_t *luma, *mask; /* mask NULL when the grid has none */
    uint16_t *orig;
    uint64_t *hand64;  /* bands x pitch: keys of each band's last row, tagged (dp); */
    uint32_t *hand32;  /* hand64 when the grid has a mask, else hand32 (the other NULL) */
    uint16_t *entry;   /* bands x pitch: for each column of a band's last row, the column
                          of the previous band's last row its path comes from */
    uint8_t *back;     /* h x pitch / 4: codes 0, 1, 2 = predecessor offset + 1 */
    uint32_t *tickets; /* per DP launch (generation - 1): items taken */
    int32_t *xs;
    uint16_t *rec;
    tsr__cc_state *state;
    /* batch mode only (NULL in exact mode; batch_kernel_hd.h): */
    uint16_t *pair;         /* h x pitch / 4 words, per cell a nibble (the DP writes it instead
                               of `back`): its code (bits 0-1) and its pair bits, A (bit 2) =
                               right candidate < centre, B (bit 3) = centre < left, as the DP
                               compared them */
    int32_t *cols;          /* h x K: the pass's removed columns, cols[y * k + j], increasing */
    uint8_t *luma2, *mask2; /* the gather's destination planes (swapped with luma, mask, orig */
    uint16_t *orig2;        /* after every pass) */
    int32_t pitch, h;       /* pitch: elements per row, a multiple of TSR__CC_PITCH_ALIGN */
    int32_t flip;           /* batch mode's bottom half (tsr__cc_half): the view's rows of luma,
                               mask and cols run upwards from the pointers; else 0 */
    int32_t forward;        /* 0 backward, 1 forward */
    int32_t until;          /* object removal: stop when no drop pixel is left or a seam has none */
    uint64_t pen[4];        /* key term per mask code (tsr__carve_dp_penalties) */
} tsr__cc_planes;

TSR_HD int32_t tsr__cc_bands(int32_t h)
{
    return (h + TSR__CC_BAND - 1) / TSR__CC_BAND;
}

TSR_HD int32_t tsr__cc_strips(int32_t w)
{
    return (w + TSR__CC_STRIP - 1) / TSR__CC_STRIP;
}

/* The device pitch for a pass starting at width w. */
TSR_HD int32_t tsr__cc_pitch(int32_t w)
{
    return (w + TSR__CC_PITCH_ALIGN - 1) / TSR__CC_PITCH_ALIGN * TSR__CC_PITCH_ALIGN +
           TSR__CC_PITCH_ALIGN;
}

/* The key term of mask code m (0..3), without a dynamic index (which would put the kernels'
 * copy of the planes into local memory). */
TSR_HD uint64_t tsr__cc_pen(const tsr__cc_planes *P, uint8_t m)
{
    return m == 0 ? P->pen[0] : m == 1 ? P->pen[1] : m == 2 ? P->pen[2] : P->pen[3];
}

/* ---- energy ---- */

/* 4 bytes of a plane at p (4-byte aligned): byte c of the result is p[c]. A plane no thread
 * writes during the launch (the read-only path on the device). */
TSR_HD uint32_t tsr__cc_word4(const uint8_t *p)
{
#ifdef __CUDA_ARCH__
    return __ldg((const unsigned int *)(const void *)p);
#else
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}

/* Byte-wise |a - b| of two words of 4 bytes. */
TSR_HD uint32_t tsr__cc_absdiff4(uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
    return __vabsdiffu4(a, b);
#else
    uint32_t r = 0;
    for (int32_t c = 0; c < 4; c++)
        r |= (uint32_t)tsr__carve_absdiff((int32_t)(a >> 8 * c & 255), (int32_t)(b >> 8 * c & 255))
             << 8 * c;
    return r;
#endif
}

/* ---- batch mode's halves and segments (batch.c) ----
 * A batch pass carves the top half (rows 0 .. m-1, m = h / 2) and the bottom half upside down
 * as two images of their own, and each half's DP restarts in segments (tsr__carve_batch_seg). A
 * half is a view of the planes (tsr__cc_half, the trace's): the top one is the planes with h = m;
 * the bottom one has h - m rows, luma and mask from row h-1 upwards (flip), its own rows of pair
 * bits (from row m) and its rows of cols from row h-1 upwards. A segment is a view of a half
 * (tsr__cc_segment, the DP's) with its own rows of hand keys. topk, join, sum and gather work
 * on the whole planes. */

/* The DP's views of a batch pass over a grid of h rows (the top half's segments, then the
 * bottom half's), and the bands each is given (its hand keys: the longest segment's). */
TSR_HD int32_t tsr__cc_views(int32_t h)
{
    return tsr__carve_batch_segs(h / 2) + tsr__carve_batch_segs(h - h / 2);
}
TSR_HD int32_t tsr__cc_view_bands(int32_t h)
{
    const int32_t t = h / 2, b = h - t;
    const int32_t st = (t + tsr__carve_batch_segs(t) - 1) / tsr__carve_batch_segs(t);
    const int32_t sb = (b + tsr__carve_batch_segs(b) - 1) / tsr__carve_batch_segs(b);
    return tsr__cc_bands(st > sb ? st : sb);
}

/* Rows of hand keys (bands) a grid of h rows needs: every view's in batch mode. */
TSR_HD int32_t tsr__cc_hand_bands(int32_t h, int batch)
{
    return batch ? tsr__cc_views(h) * tsr__cc_view_bands(h) : tsr__cc_bands(h);
}

/* Turns the whole planes *P of a batch pass of k seams into the view of its top (bottom = 0) or
 * bottom half. */
TSR_HD void tsr__cc_half(tsr__cc_planes *P, int bottom, int32_t k)
{
    const int32_t m = P->h / 2;
    if (!bottom) {
        P->h = m;
        return;
    }
    const int64_t last = (int64_t)(P->h - 1) * P->pitch;
    P->luma += last;
    if (P->mask)
        P->mask += last;
    P->pair += (int64_t)m * (P->pitch / 4);
    if (P->cols)
        P->cols += (int64_t)(P->h - 1) * k;
    P->flip = 1;
    P->h -= m;
}

/* Elements from one row of luma (or mask) of a view to its next row. */
TSR_HD int64_t tsr__cc_lrow(const tsr__cc_planes *P)
{
    return P->flip ? -(int64_t)P->pitch : (int64_t)P->pitch;
}

/* Turns the whole planes *P of a batch pass into the DP's view v (tsr__cc_views). */
TSR_HD void tsr__cc_segment(tsr__cc_planes *P, int32_t v)
{
    const int32_t gt = tsr__carve_batch_segs(P->h / 2), nbv = tsr__cc_view_bands(P->h);
    const int64_t hand = (int64_t)v * nbv * P->pitch;
    if (P->hand64)
        P->hand64 += hand;
    else
        P->hand32 += hand;
    tsr__cc_half(P, v >= gt, 0); /* the DP reads no cols */
    int32_t start, rows;
    tsr__carve_batch_seg(P->h, v >= gt ? v - gt : v, &start, &rows);
    P->luma += start * tsr__cc_lrow(P);
    if (P->mask)
        P->mask += start * tsr__cc_lrow(P);
    P->pair += (int64_t)start * (P->pitch / 4);
    P->h = rows;
}

/* Row r of a view's cols (k seams a row). */
TSR_HD int32_t *tsr__cc_cols_row(const tsr__cc_planes *P, int32_t k, int32_t r)
{
    return P->cols + (P->flip ? -(int64_t)r : (int64_t)r) * k;
}

#endif
