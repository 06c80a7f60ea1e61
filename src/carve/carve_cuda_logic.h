/* The per-thread bodies of the CUDA seam-carving kernels (carve_cuda.cu), written once as
 * __host__ __device__ functions so that a CPU test (tests/unit/test_carve_device_logic.c) runs
 * the kernels' own code for every thread of every block of every launch, in launch order, and
 * compares the seams with the CPU reference without a GPU. Compiled as C11 (host) and as CUDA
 * C++ (nvcc): no C++-only or C-only constructs.
 *
 * The device state of one pass (one grid, vertical seams; horizontal seams are found on the
 * host-transposed grid), planes of h x pitch: luma (u8), optional mask bits (u8), the column
 * each live pixel had at the start of the pass (`orig`, u16: sides <= 65535), no energy plane
 * (the DP computes the backward energy of its band from luma when it stages it); DP outputs:
 * 2-bit back-pointer codes (`back`, four columns a byte; batch mode: `pair`, a nibble per
 * column with the pair bits, carve_cuda_batch_logic.h), and per band of R rows the keys of its
 * last row (`hand64`, plan.h's key, when the grid has a mask, else
 * `hand32`, the energy part: the DP's key type, carve_cuda_dp_row.h) and, for each of them, the
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
#ifndef TSR_CARVE_CUDA_LOGIC_H
#define TSR_CARVE_CUDA_LOGIC_H

#include <stdint.h>

#ifdef __CUDACC__
#define TSR__CC_FN static __host__ __device__ __forceinline__
#define TSR__CC_UNROLL _Pragma("unroll")
#else
#define TSR__CC_FN static inline
#define TSR__CC_UNROLL
#endif

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

typedef struct tsr__cc_state {
    int32_t stop;        /* 1: no further seam (object removal finished) */
    int32_t removed;     /* seams removed so far in this pass */
    int64_t drops;       /* drop pixels left (object removal) */
    uint64_t energy_sum; /* sum of the removed seams' energy parts */
} tsr__cc_state;

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
    /* batch mode only (NULL in exact mode; carve_cuda_batch_logic.h): */
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

TSR__CC_FN int32_t tsr__cc_absdiff(int32_t a, int32_t b)
{
    return a > b ? a - b : b - a;
}

TSR__CC_FN int32_t tsr__cc_bands(int32_t h)
{
    return (h + TSR__CC_BAND - 1) / TSR__CC_BAND;
}

TSR__CC_FN int32_t tsr__cc_strips(int32_t w)
{
    return (w + TSR__CC_STRIP - 1) / TSR__CC_STRIP;
}

/* The device pitch for a pass starting at width w. */
TSR__CC_FN int32_t tsr__cc_pitch(int32_t w)
{
    return (w + TSR__CC_PITCH_ALIGN - 1) / TSR__CC_PITCH_ALIGN * TSR__CC_PITCH_ALIGN +
           TSR__CC_PITCH_ALIGN;
}

/* The key term of mask code m (0..3), without a dynamic index (which would put the kernels'
 * copy of the planes into local memory). */
TSR__CC_FN uint64_t tsr__cc_pen(const tsr__cc_planes *P, uint8_t m)
{
    return m == 0 ? P->pen[0] : m == 1 ? P->pen[1] : m == 2 ? P->pen[2] : P->pen[3];
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

/* 4 bytes of a plane at p (4-byte aligned): byte c of the result is p[c]. A plane no thread
 * writes during the launch (the read-only path on the device). */
TSR__CC_FN uint32_t tsr__cc_word4(const uint8_t *p)
{
#ifdef __CUDA_ARCH__
    return __ldg((const unsigned int *)(const void *)p);
#else
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}

/* Byte-wise |a - b| of two words of 4 bytes. */
TSR__CC_FN uint32_t tsr__cc_absdiff4(uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
    return __vabsdiffu4(a, b);
#else
    uint32_t r = 0;
    for (int32_t c = 0; c < 4; c++)
        r |= (uint32_t)tsr__cc_absdiff((int32_t)(a >> 8 * c & 255), (int32_t)(b >> 8 * c & 255))
             << 8 * c;
    return r;
#endif
}

/* ---- batch mode's halves and segments (batch.c) ----
 * A batch pass carves the top half (rows 0 .. m-1, m = h / 2) and the bottom half upside down
 * as two images of their own, and each half's DP restarts in segments (tsr__cc_seg). A half is a
 * view of the planes (tsr__cc_half, the trace's): the top one is the planes with h = m; the
 * bottom one has h - m rows, luma and mask from row h-1 upwards (flip), its own rows of pair
 * bits (from row m) and its rows of cols from row h-1 upwards. A segment is a view of a half
 * (tsr__cc_segment, the DP's) with its own rows of hand keys. topk, join, sum and gather work
 * on the whole planes. */

/* A half's DP restarts about every this many rows (one segment a half up to 2048-row images). */
enum { TSR__CC_SEG_ROWS = 1024 };

/* The segments of a half of hh rows: G = ceil(hh / SEG_ROWS) of S = ceil(hh / G) rows, counted
 * from the cut (the half's last row), so segment j (0: at the image's edge) starts at half row
 * *start and has *rows rows: segment 0 the rest, hh - (G - 1) S <= S. */
TSR__CC_FN int32_t tsr__cc_segs(int32_t hh)
{
    return hh <= TSR__CC_SEG_ROWS ? 1 : (hh + TSR__CC_SEG_ROWS - 1) / TSR__CC_SEG_ROWS;
}
TSR__CC_FN void tsr__cc_seg(int32_t hh, int32_t j, int32_t *start, int32_t *rows)
{
    const int32_t g = tsr__cc_segs(hh), S = (hh + g - 1) / g, first = hh - (g - 1) * S;
    *start = j == 0 ? 0 : first + (j - 1) * S;
    *rows = j == 0 ? first : S;
}

/* The DP's views of a batch pass over a grid of h rows (the top half's segments, then the
 * bottom half's), and the bands each is given (its hand keys: the longest segment's). */
TSR__CC_FN int32_t tsr__cc_views(int32_t h)
{
    return tsr__cc_segs(h / 2) + tsr__cc_segs(h - h / 2);
}
TSR__CC_FN int32_t tsr__cc_view_bands(int32_t h)
{
    const int32_t t = h / 2, b = h - t;
    const int32_t st = (t + tsr__cc_segs(t) - 1) / tsr__cc_segs(t);
    const int32_t sb = (b + tsr__cc_segs(b) - 1) / tsr__cc_segs(b);
    return tsr__cc_bands(st > sb ? st : sb);
}

/* Rows of hand keys (bands) a grid of h rows needs: every view's in batch mode. */
TSR__CC_FN int32_t tsr__cc_hand_bands(int32_t h, int batch)
{
    return batch ? tsr__cc_views(h) * tsr__cc_view_bands(h) : tsr__cc_bands(h);
}

/* Turns the whole planes *P of a batch pass of k seams into the view of its top (bottom = 0) or
 * bottom half. */
TSR__CC_FN void tsr__cc_half(tsr__cc_planes *P, int bottom, int32_t k)
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
TSR__CC_FN int64_t tsr__cc_lrow(const tsr__cc_planes *P)
{
    return P->flip ? -(int64_t)P->pitch : (int64_t)P->pitch;
}

/* Turns the whole planes *P of a batch pass into the DP's view v (tsr__cc_views). */
TSR__CC_FN void tsr__cc_segment(tsr__cc_planes *P, int32_t v)
{
    const int32_t gt = tsr__cc_segs(P->h / 2), nbv = tsr__cc_view_bands(P->h);
    const int64_t hand = (int64_t)v * nbv * P->pitch;
    if (P->hand64)
        P->hand64 += hand;
    else
        P->hand32 += hand;
    tsr__cc_half(P, v >= gt, 0); /* the DP reads no cols */
    int32_t start, rows;
    tsr__cc_seg(P->h, v >= gt ? v - gt : v, &start, &rows);
    P->luma += start * tsr__cc_lrow(P);
    if (P->mask)
        P->mask += start * tsr__cc_lrow(P);
    P->pair += (int64_t)start * (P->pitch / 4);
    P->h = rows;
}

/* Row r of a view's cols (k seams a row). */
TSR__CC_FN int32_t *tsr__cc_cols_row(const tsr__cc_planes *P, int32_t k, int32_t r)
{
    return P->cols + (P->flip ? -(int64_t)r : (int64_t)r) * k;
}

/* ---- DP ---- */

/* One item of a DP launch: band b (rows y0 .. y0 + rows - 1), strip s (output columns
 * [base + R, base + R + S), window [base, base + WIN)). */
typedef struct tsr__cc_item {
    int32_t b, s, y0, rows, base;
} tsr__cc_item;

/* The tickets of a DP launch at width w: a band of strips per band of the grid, or in batch
 * mode of each view, every view given the longest one's bands (the extra tickets are empty). */
TSR__CC_FN uint32_t tsr__cc_dp_items(const tsr__cc_planes *P, int32_t w)
{
    return (uint32_t)(tsr__cc_hand_bands(P->h, P->pair != NULL) * tsr__cc_strips(w));
}

/* The item of ticket t at width w, band-major: in exact mode over the grid; in batch mode *P
 * (the whole planes) becomes the item's view, the views taking turns band by band (band b of
 * every view, then band b + 1 ...), and 0 is returned for an empty ticket (a band past its
 * view's). Either way the items an item waits for (band b-1 of its view) hold smaller tickets. */
TSR__CC_FN int tsr__cc_item_of(tsr__cc_planes *P, int32_t w, uint32_t t, tsr__cc_item *it)
{
    const int32_t ns = tsr__cc_strips(w);
    int32_t b = (int32_t)(t / (uint32_t)ns);
    if (P->pair) {
        const int32_t nv = tsr__cc_views(P->h);
        tsr__cc_segment(P, b % nv);
        b /= nv;
        if (b >= tsr__cc_bands(P->h))
            return 0;
    }
    it->b = b;
    it->s = (int32_t)(t % (uint32_t)ns);
    it->y0 = it->b * TSR__CC_BAND;
    it->rows = P->h - it->y0 < TSR__CC_BAND ? P->h - it->y0 : TSR__CC_BAND;
    it->base = it->s * TSR__CC_STRIP - TSR__CC_BAND;
    return 1;
}

/* Whether no window column of the item is at the image's edges (0 or w - 1) or outside: then
 * every cell has all three candidates (the row step without the border test). */
TSR__CC_FN int tsr__cc_item_interior(const tsr__cc_item *it, int32_t w)
{
    return it->base >= 1 && it->base + TSR__CC_WIN <= w - 1;
}

/* An item's band inputs in shared memory: window column i of band row r (luma: row y0 - 1 + r,
 * the row above included for forward costs). Luma and mask columns outside the image hold 0;
 * energies are scaled (TSR__CC_Q), garbage outside the image (tsr__cc_stage_lane). */
typedef struct tsr__cc_stage {
    uint16_t en[TSR__CC_BAND][TSR__CC_WIN];
    uint8_t lu[TSR__CC_BAND + 1][TSR__CC_WIN];
    uint8_t mk[TSR__CC_BAND][TSR__CC_WIN];
    uint8_t cd[TSR__CC_BAND][TSR__CC_LANES]; /* the band's codes, a byte per lane and row (the
                                                 row step writes them) */
} tsr__cc_stage;

/* tsr__cc_stage_lane's backward energies, lane column i0, for an item with no window column
 * and no row (with the rows above and below it) at the grid's edges: nothing is clamped, every
 * load is at an immediate offset from its row's pointer (the word, the bytes just left and right
 * of it) and the rows' pointers step by one add, so a row takes about a third of the general
 * path's instructions. The same energies as that path. */
TSR__CC_FN void tsr__cc_stage_energy_interior(const tsr__cc_planes *P, const tsr__cc_item *it,
                                              int32_t i0, tsr__cc_stage *sb)
{
    const int64_t lrow = tsr__cc_lrow(P);
    const uint8_t *p = P->luma + (int64_t)(it->y0 - 1) * lrow + it->base + i0; /* row y0 - 1 */
    for (int32_t r0 = 0; r0 < it->rows; r0 += 8, p += 8 * lrow) {
        uint32_t wd[10], lb[8], rb[8]; /* wd[j]: row y0 + r0 - 1 + j */
        const uint8_t *q = p;
        TSR__CC_UNROLL
        for (int32_t j = 0; j < 10; j++, q += lrow) {
            wd[j] = tsr__cc_word4(q);
            if (j >= 1 && j <= 8) {
                lb[j - 1] = TSR__CC_LOAD_RO(q - 1);
                rb[j - 1] = TSR__CC_LOAD_RO(q + 4);
            }
        }
        TSR__CC_UNROLL
        for (int32_t j = 0; j < 8; j++) {
            const uint32_t Y = wd[j + 1];
            const uint32_t H = tsr__cc_absdiff4(Y >> 8 | rb[j] << 24, Y << 8 | lb[j]);
            const uint32_t V = tsr__cc_absdiff4(wd[j + 2], wd[j]);
            TSR__CC_UNROLL
            for (int32_t c = 0; c < TSR__CC_C; c++)
                sb->en[r0 + j][i0 + c] =
                    (uint16_t)(((H >> 8 * c & 255) + (V >> 8 * c & 255)) << TSR__CC_Q);
        }
    }
}

/* dp, lane `lane`: copies its C window columns of the band's inputs into sb (before the wait).
 * Eight rows at a time: every load first (unconditional, at clamped coordinates, so they are
 * all in flight together), then the stores (0 outside the image). Backward energy: computed here
 * from luma (energy_cpu.c's clamped differences), from the lane's aligned word of C = 4 columns
 * in rows y - 1, y, y + 1 (rows clamped into the image) and the bytes just left and right of it
 * (columns clamped: the one-sided differences at the image's edges; the image's last column,
 * when inside the word, takes its own value as its right neighbour). A lane outside the image
 * reads a clamped word: its energies are garbage, which no valid cell reads. */
TSR__CC_FN void tsr__cc_stage_lane(const tsr__cc_planes *P, int32_t w, const tsr__cc_item *it,
                                   int32_t lane, tsr__cc_stage *sb)
{
    const int32_t i0 = lane * TSR__CC_C;
    const int64_t lrow = tsr__cc_lrow(P);
    int32_t xc[TSR__CC_C], in[TSR__CC_C];
    TSR__CC_UNROLL
    for (int32_t c = 0; c < TSR__CC_C; c++) {
        const int32_t x = it->base + i0 + c;
        in[c] = x >= 0 && x < w;
        xc[c] = x < 0 ? 0 : x >= w ? w - 1 : x;
    }
    if (P->forward || P->mask)
        for (int32_t r0 = -P->forward; r0 < it->rows; r0 += 8) {
            uint32_t m[8][TSR__CC_C], l[8][TSR__CC_C];
            TSR__CC_UNROLL
            for (int32_t j = 0; j < 8; j++) {
                const int32_t r = r0 + j < it->rows ? r0 + j : it->rows - 1, y = it->y0 + r;
                const int64_t o = (int64_t)(y < 0 ? 0 : y) * lrow;
                TSR__CC_UNROLL
                for (int32_t c = 0; c < TSR__CC_C; c++) {
                    m[j][c] = P->mask ? TSR__CC_LOAD_RO(P->mask + o + xc[c]) : 0;
                    l[j][c] = P->forward ? TSR__CC_LOAD_RO(P->luma + o + xc[c]) : 0;
                }
            }
            TSR__CC_UNROLL
            for (int32_t j = 0; j < 8; j++) {
                const int32_t r = r0 + j;
                if (r >= it->rows)
                    break;
                TSR__CC_UNROLL
                for (int32_t c = 0; c < TSR__CC_C; c++) {
                    const int32_t i = i0 + c, ok = in[c] && it->y0 + r >= 0;
                    if (P->forward)
                        sb->lu[r + 1][i] = (uint8_t)(ok ? l[j][c] : 0);
                    if (r >= 0 && P->mask)
                        sb->mk[r][i] = (uint8_t)(ok ? m[j][c] : 0);
                }
            }
        }
    if (P->forward)
        return;
    /* batch mode's DP is bound by its items' instructions, most of them staging (run k3's ncu):
       its interior items take the short path (exact mode's stage hides behind its wait) */
    if (P->pair && tsr__cc_item_interior(it, w) && it->y0 >= 1 && it->y0 + it->rows < P->h) {
        tsr__cc_stage_energy_interior(P, it, i0, sb);
        return;
    }
    const int32_t x1 = it->base + i0, edge = w - 1 - x1;
    const int32_t xw = x1 < 0 ? 0 : x1 > w - 1 ? (w - 1) & ~3 : x1; /* x1 is a multiple of 4 */
    const int32_t xl = x1 - 1 < 0 ? 0 : x1 - 1 > w - 1 ? w - 1 : x1 - 1;
    const int32_t xr = x1 + 4 > w - 1 ? w - 1 : x1 + 4 < 0 ? 0 : x1 + 4;
    for (int32_t r0 = 0; r0 < it->rows; r0 += 8) {
        uint32_t wd[10], lb[8], rb[8]; /* wd[j]: row y0 + r0 - 1 + j */
        TSR__CC_UNROLL
        for (int32_t j = 0; j < 10; j++) {
            int32_t y = it->y0 + r0 - 1 + j;
            y = y < 0 ? 0 : y >= P->h ? P->h - 1 : y;
            wd[j] = tsr__cc_word4(P->luma + y * lrow + xw);
        }
        TSR__CC_UNROLL
        for (int32_t j = 0; j < 8; j++) {
            const int32_t y = it->y0 + r0 + j < P->h ? it->y0 + r0 + j : P->h - 1;
            lb[j] = TSR__CC_LOAD_RO(P->luma + y * lrow + xl);
            rb[j] = TSR__CC_LOAD_RO(P->luma + y * lrow + xr);
        }
        TSR__CC_UNROLL
        for (int32_t j = 0; j < 8; j++) {
            if (r0 + j >= it->rows)
                break;
            const uint32_t Y = wd[j + 1];
            uint32_t R = Y >> 8 | rb[j] << 24;
            if (edge >= 0 && edge < 3)
                R = (R & ~(0xffu << 8 * edge)) | (Y & 0xffu << 8 * edge);
            const uint32_t H = tsr__cc_absdiff4(R, Y << 8 | lb[j]);
            const uint32_t V = tsr__cc_absdiff4(wd[j + 2], wd[j]);
            TSR__CC_UNROLL
            for (int32_t c = 0; c < TSR__CC_C; c++)
                sb->en[r0 + j][i0 + c] =
                    (uint16_t)(((H >> 8 * c & 255) + (V >> 8 * c & 255)) << TSR__CC_Q);
        }
    }
}

/* The transition costs of window column i (image column x) in band row k, from the staged
 * inputs, scaled (TSR__CC_Q): backward, the energy for all three candidates; forward, CL, CU,
 * CR. */
TSR__CC_FN void tsr__cc_costs(const tsr__cc_planes *P, int32_t w, const tsr__cc_stage *sb,
                              int32_t k, int32_t i, int32_t x, uint32_t *dl, uint32_t *dc,
                              uint32_t *dr)
{
    if (!P->forward) {
        *dl = *dc = *dr = sb->en[k][i];
        return;
    }
    const uint8_t *row = sb->lu[k + 1];
    const int32_t l = row[x > 0 && i > 0 ? i - 1 : i];
    const int32_t r = row[x < w - 1 && i < TSR__CC_WIN - 1 ? i + 1 : i];
    const int32_t u = sb->lu[k][i];
    const uint32_t cu = (uint32_t)tsr__cc_absdiff(r, l);
    *dc = cu << TSR__CC_Q;
    *dl = (cu + (uint32_t)tsr__cc_absdiff(u, l)) << TSR__CC_Q;
    *dr = (cu + (uint32_t)tsr__cc_absdiff(u, r)) << TSR__CC_Q;
}

/* Whether the lane whose first column is x1 holds output columns of its item. */
TSR__CC_FN int tsr__cc_output_lane(const tsr__cc_item *it, int32_t x1)
{
    return x1 >= it->base + TSR__CC_BAND && x1 < it->base + TSR__CC_BAND + TSR__CC_STRIP;
}

/* dp: an output lane stores its codes of the item's row k: a byte of four 2-bit codes to back,
 * or in batch mode a word of four nibbles (code and pair bits) to pair. The row's offset as the
 * item's first row plus k rows (k * pitch / 4 < 2^31), so that the compiler steps it by an add
 * per row. */
TSR__CC_FN void tsr__cc_put_codes(const tsr__cc_planes *P, int32_t w, const tsr__cc_item *it,
                                  int32_t k, int32_t lane, uint32_t codes)
{
    const int32_t x1 = it->base + lane * TSR__CC_C, pq = P->pitch / 4;
    if (!tsr__cc_output_lane(it, x1) || x1 >= w)
        return;
    const int64_t o = (int64_t)it->y0 * pq + x1 / 4 + k * pq;
    if (P->pair)
        P->pair[o] = (uint16_t)codes;
    else
        P->back[o] = (uint8_t)codes;
}

/* The lane state, band load, first row, row step and store for each key type. */
#define TSR__CC_KEY uint64_t
#define TSR__CC_KB 64
#include "carve/carve_cuda_dp_row.h"
#define TSR__CC_KEY uint32_t
#define TSR__CC_KB 32
#include "carve/carve_cuda_dp_row.h"

/* dp, lane `lane` after the item's keys are stored (the next band is released first) and a
 * warp synchronisation (sb->cd holds every lane's codes): the origins of its two output columns,
 * window columns R + lane and R + LANES + lane (S = 2 LANES), each found by walking up the band's
 * codes (two independent chains) to the previous band's last row (band 0: to row 0), stored to
 * entry. An output column past the width stays where it is (nothing stored). */
TSR__CC_FN void tsr__cc_lane_entry(const tsr__cc_planes *P, int32_t w, const tsr__cc_item *it,
                                   const tsr__cc_stage *sb, int32_t lane)
{
    const int32_t xa = it->base + TSR__CC_BAND + lane, xb = xa + TSR__CC_LANES;
    const int32_t la = xa < w, lb = xb < w;
    int32_t ia = TSR__CC_BAND + lane, ib = ia + TSR__CC_LANES;
    for (int32_t k = it->rows - 1; k >= (it->b > 0 ? 0 : 1); k--) {
        const int32_t ca = (sb->cd[k][ia >> 2] >> ((ia & 3) * 2)) & 3;
        const int32_t cb = (sb->cd[k][ib >> 2] >> ((ib & 3) * 2)) & 3;
        ia += la ? ca - 1 : 0;
        ib += lb ? cb - 1 : 0;
    }
    const int64_t o = (int64_t)it->b * P->pitch;
    if (la)
        P->entry[o + xa] = (uint16_t)(it->base + ia);
    if (lb)
        P->entry[o + xb] = (uint16_t)(it->base + ib);
}

/* The key (tag removed) of column x of band b's last row, whichever the key type. */
TSR__CC_FN uint64_t tsr__cc_hand_key(const tsr__cc_planes *P, int32_t b, int32_t x)
{
    const int64_t o = (int64_t)b * P->pitch + x;
    return P->hand64 ? P->hand64[o] & TSR__CC_KEY_MASK64 : P->hand32[o] & TSR__CC_KEY_MASK32;
}

/* ---- seam selection ---- */

/* select, thread t of T: the leftmost minimum of its columns t, t + T, ... of the last row
 * (x = -1 when it has none). */
TSR__CC_FN void tsr__cc_argmin_partial(const tsr__cc_planes *P, int32_t w, int32_t t, int32_t T,
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
TSR__CC_FN int tsr__cc_hop_has(int32_t b0, int32_t j, int32_t t, int32_t x, int32_t w)
{
    return b0 - j >= 1 && t <= 2 * TSR__CC_BAND * j && (uint32_t)x < (uint32_t)w;
}

/* Thread t's loads for the group below band b0 (exit x0) at width w: v[j] for every j it has.
 * One 64-bit row address and 32-bit element offsets from it (entry row b0 - j, column x: offset
 * x - j pitch, within int32 as pitch <= 65535 + 128 and j < 16), so that no address stays live
 * across the loads: all of them in flight at once with no register spilled (a spilled load
 * result makes the warp wait for that load before issuing the next). */
TSR__CC_FN void tsr__cc_hop_load(const tsr__cc_planes *P, int32_t w, int32_t b0, int32_t x0,
                                 int32_t t, uint16_t v[TSR__CC_HOP_G])
{
    const uint16_t *row = P->entry + (int64_t)b0 * P->pitch;
    int32_t x = x0 + t;
    TSR__CC_UNROLL
    for (int32_t j = 0; j < TSR__CC_HOP_G; j++) {
        if (tsr__cc_hop_has(b0, j, t, x, w))
            v[j] = row[x - j * P->pitch];
        x -= TSR__CC_BAND;
    }
}

/* Thread t's stores of its loads (tsr__cc_hop_load) into the group's windows. */
TSR__CC_FN void tsr__cc_hop_store(int32_t w, int32_t b0, int32_t x0, int32_t t,
                                  const uint16_t v[TSR__CC_HOP_G],
                                  uint16_t win[TSR__CC_HOP_G][TSR__CC_HOP_W])
{
    int32_t x = x0 + t;
    TSR__CC_UNROLL
    for (int32_t j = 0; j < TSR__CC_HOP_G; j++) {
        if (tsr__cc_hop_has(b0, j, t, x, w))
            win[j][t] = v[j];
        x -= TSR__CC_BAND;
    }
}

/* Thread 0, after the group's windows are stored: exits[b0 - 1] ... down to band max(b0 - G, 0);
 * returns the last of them (the next group's x0). */
TSR__CC_FN int32_t tsr__cc_hop_walk(const uint16_t win[TSR__CC_HOP_G][TSR__CC_HOP_W], int32_t b0,
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
TSR__CC_FN int32_t tsr__cc_expand_word0(int32_t xe)
{
    return xe < TSR__CC_BAND ? 0 : (xe - TSR__CC_BAND) >> 4;
}

/* select, expansion of band b, lane `lane`: the window words of row y0 + lane (zeros past the
 * band's last row), which the kernel keeps in shared memory for the walk. */
TSR__CC_FN void tsr__cc_expand_load(const tsr__cc_planes *P, int32_t b, int32_t word0, int32_t lane,
                                    uint32_t win[TSR__CC_EXP_WORDS])
{
    const int32_t y = b * TSR__CC_BAND + lane;
    const uint32_t *row = (const uint32_t *)(const void *)(P->back + (int64_t)y * (P->pitch / 4));
    TSR__CC_UNROLL
    for (int32_t j = 0; j < TSR__CC_EXP_WORDS; j++)
        win[j] = y < P->h ? row[word0 + j] : 0;
}

/* select, expansion of a band by one thread: from the band's exit column x in its row `last`,
 * walks up through the rows' window words (win[r]: row y0 + r, tsr__cc_expand_load) and writes
 * the path's column of every row r <= last to xr[r]. One thread walks: a step is a shared load
 * and four operations (a walk by shuffles, every lane computing its own row's code, issued ~4x
 * as many instructions, and 32 warps share one SM). */
typedef char tsr__cc_lane_per_band_row[TSR__CC_LANES == TSR__CC_BAND ? 1 : -1];

TSR__CC_FN void tsr__cc_expand_walk(const uint32_t win[TSR__CC_BAND][TSR__CC_EXP_WORDS],
                                    int32_t word0, int32_t last, int32_t x,
                                    int32_t xr[TSR__CC_BAND])
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
TSR__CC_FN int32_t tsr__cc_expand_store(const tsr__cc_planes *P, int32_t b, int32_t lane, int32_t x)
{
    const int32_t y = b * TSR__CC_BAND + lane;
    if (lane >= TSR__CC_BAND || y >= P->h)
        return 0;
    P->xs[y] = x;
    return P->until && (P->mask[(int64_t)y * P->pitch + x] & TSR__CC_DROP_BIT) != 0;
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
TSR__CC_FN void tsr__cc_remove_record(const tsr__cc_planes *P, int32_t y)
{
    const int32_t s = P->state->removed - 1;
    P->rec[(int64_t)s * P->h + y] = P->orig[(int64_t)y * P->pitch + P->xs[y]];
}

/* remove, row y, chunk starting at column c (c = xs[y], xs[y] + T * E, ... while c < w - 1),
 * thread t: read phase. Element x takes what is at x + 1. */
TSR__CC_FN void tsr__cc_remove_read(const tsr__cc_planes *P, int32_t w, int32_t y, int32_t c,
                                    int32_t t, tsr__cc_cell *r)
{
    r->n = 0;
    TSR__CC_UNROLL
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
TSR__CC_FN void tsr__cc_remove_write(const tsr__cc_planes *P, int32_t y, int32_t c, int32_t t,
                                     const tsr__cc_cell *r)
{
    TSR__CC_UNROLL
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
