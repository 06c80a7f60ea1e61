/* The DP kernel's per-thread bodies (carve_cuda_kernels.cuh's dp_kernel; the contract, the item
 * and ticket scheme and the launch order are in pass_kernel_hd.h's file comment), written with
 * TSR_HD so that test_carve_device_logic runs them on the CPU for every lane of every item. */
#ifndef TSR_CARVE_DP_KERNEL_HD_H
#define TSR_CARVE_DP_KERNEL_HD_H

#include "carve/pass_kernel_hd.h"

/* One item of a DP launch: band b (rows y0 .. y0 + rows - 1), strip s (output columns
 * [base + R, base + R + S), window [base, base + WIN)). */
typedef struct tsr__cc_item {
    int32_t b, s, y0, rows, base;
} tsr__cc_item;

/* The tickets of a DP launch at width w: a band of strips per band of the grid, or in batch
 * mode of each view, every view given the longest one's bands (the extra tickets are empty). */
TSR_HD uint32_t tsr__cc_dp_items(const tsr__cc_planes *P, int32_t w)
{
    return (uint32_t)(tsr__cc_hand_bands(P->h, P->pair != NULL) * tsr__cc_strips(w));
}

/* The item of ticket t at width w, band-major: in exact mode over the grid; in batch mode *P
 * (the whole planes) becomes the item's view, the views taking turns band by band (band b of
 * every view, then band b + 1 ...), and 0 is returned for an empty ticket (a band past its
 * view's). Either way the items an item waits for (band b-1 of its view) hold smaller tickets. */
TSR_HD int tsr__cc_item_of(tsr__cc_planes *P, int32_t w, uint32_t t, tsr__cc_item *it)
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
TSR_HD int tsr__cc_item_interior(const tsr__cc_item *it, int32_t w)
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
TSR_HD void tsr__cc_stage_energy_interior(const tsr__cc_planes *P, const tsr__cc_item *it,
                                          int32_t i0, tsr__cc_stage *sb)
{
    const int64_t lrow = tsr__cc_lrow(P);
    const uint8_t *p = P->luma + (int64_t)(it->y0 - 1) * lrow + it->base + i0; /* row y0 - 1 */
    for (int32_t r0 = 0; r0 < it->rows; r0 += 8, p += 8 * lrow) {
        uint32_t wd[10], lb[8], rb[8]; /* wd[j]: row y0 + r0 - 1 + j */
        const uint8_t *q = p;
        TSR_HD_UNROLL
        for (int32_t j = 0; j < 10; j++, q += lrow) {
            wd[j] = tsr__cc_word4(q);
            if (j >= 1 && j <= 8) {
                lb[j - 1] = TSR__CC_LOAD_RO(q - 1);
                rb[j - 1] = TSR__CC_LOAD_RO(q + 4);
            }
        }
        TSR_HD_UNROLL
        for (int32_t j = 0; j < 8; j++) {
            const uint32_t Y = wd[j + 1];
            const uint32_t H = tsr__cc_absdiff4(Y >> 8 | rb[j] << 24, Y << 8 | lb[j]);
            const uint32_t V = tsr__cc_absdiff4(wd[j + 2], wd[j]);
            TSR_HD_UNROLL
            for (int32_t c = 0; c < TSR__CC_C; c++)
                sb->en[r0 + j][i0 + c] =
                    (uint16_t)(((H >> 8 * c & 255) + (V >> 8 * c & 255)) << TSR__CC_Q);
        }
    }
}

/* dp, lane `lane`: copies its C window columns of the band's inputs into sb (before the wait).
 * Eight rows at a time: every load first (unconditional, at clamped coordinates, so they are
 * all in flight together), then the stores (0 outside the image). Backward energy: computed here
 * from luma (energy_hd.h's clamped differences), from the lane's aligned word of C = 4 columns
 * in rows y - 1, y, y + 1 (rows clamped into the image) and the bytes just left and right of it
 * (columns clamped: the one-sided differences at the image's edges; the image's last column,
 * when inside the word, takes its own value as its right neighbour). A lane outside the image
 * reads a clamped word: its energies are garbage, which no valid cell reads. */
TSR_HD void tsr__cc_stage_lane(const tsr__cc_planes *P, int32_t w, const tsr__cc_item *it,
                               int32_t lane, tsr__cc_stage *sb)
{
    const int32_t i0 = lane * TSR__CC_C;
    const int64_t lrow = tsr__cc_lrow(P);
    int32_t xc[TSR__CC_C], in[TSR__CC_C];
    TSR_HD_UNROLL
    for (int32_t c = 0; c < TSR__CC_C; c++) {
        const int32_t x = it->base + i0 + c;
        in[c] = x >= 0 && x < w;
        xc[c] = x < 0 ? 0 : x >= w ? w - 1 : x;
    }
    if (P->forward || P->mask)
        for (int32_t r0 = -P->forward; r0 < it->rows; r0 += 8) {
            uint32_t m[8][TSR__CC_C], l[8][TSR__CC_C];
            TSR_HD_UNROLL
            for (int32_t j = 0; j < 8; j++) {
                const int32_t r = r0 + j < it->rows ? r0 + j : it->rows - 1, y = it->y0 + r;
                const int64_t o = (int64_t)(y < 0 ? 0 : y) * lrow;
                TSR_HD_UNROLL
                for (int32_t c = 0; c < TSR__CC_C; c++) {
                    m[j][c] = P->mask ? TSR__CC_LOAD_RO(P->mask + o + xc[c]) : 0;
                    l[j][c] = P->forward ? TSR__CC_LOAD_RO(P->luma + o + xc[c]) : 0;
                }
            }
            TSR_HD_UNROLL
            for (int32_t j = 0; j < 8; j++) {
                const int32_t r = r0 + j;
                if (r >= it->rows)
                    break;
                TSR_HD_UNROLL
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
    /* batch mode's DP is bound by its items' instructions, most of them staging (profiled):
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
        TSR_HD_UNROLL
        for (int32_t j = 0; j < 10; j++) {
            int32_t y = it->y0 + r0 - 1 + j;
            y = y < 0 ? 0 : y >= P->h ? P->h - 1 : y;
            wd[j] = tsr__cc_word4(P->luma + y * lrow + xw);
        }
        TSR_HD_UNROLL
        for (int32_t j = 0; j < 8; j++) {
            const int32_t y = it->y0 + r0 + j < P->h ? it->y0 + r0 + j : P->h - 1;
            lb[j] = TSR__CC_LOAD_RO(P->luma + y * lrow + xl);
            rb[j] = TSR__CC_LOAD_RO(P->luma + y * lrow + xr);
        }
        TSR_HD_UNROLL
        for (int32_t j = 0; j < 8; j++) {
            if (r0 + j >= it->rows)
                break;
            const uint32_t Y = wd[j + 1];
            uint32_t R = Y >> 8 | rb[j] << 24;
            if (edge >= 0 && edge < 3)
                R = (R & ~(0xffu << 8 * edge)) | (Y & 0xffu << 8 * edge);
            const uint32_t H = tsr__cc_absdiff4(R, Y << 8 | lb[j]);
            const uint32_t V = tsr__cc_absdiff4(wd[j + 2], wd[j]);
            TSR_HD_UNROLL
            for (int32_t c = 0; c < TSR__CC_C; c++)
                sb->en[r0 + j][i0 + c] =
                    (uint16_t)(((H >> 8 * c & 255) + (V >> 8 * c & 255)) << TSR__CC_Q);
        }
    }
}

/* The transition costs of window column i (image column x) in band row k, from the staged
 * inputs, scaled (TSR__CC_Q): backward, the energy for all three candidates; forward, CL, CU,
 * CR. */
TSR_HD void tsr__cc_costs(const tsr__cc_planes *P, int32_t w, const tsr__cc_stage *sb, int32_t k,
                          int32_t i, int32_t x, uint32_t *dl, uint32_t *dc, uint32_t *dr)
{
    if (!P->forward) {
        *dl = *dc = *dr = sb->en[k][i];
        return;
    }
    const uint8_t *row = sb->lu[k + 1];
    const int32_t l = row[x > 0 && i > 0 ? i - 1 : i];
    const int32_t r = row[x < w - 1 && i < TSR__CC_WIN - 1 ? i + 1 : i];
    const int32_t u = sb->lu[k][i];
    const uint32_t cu = (uint32_t)tsr__carve_absdiff(r, l);
    *dc = cu << TSR__CC_Q;
    *dl = (cu + (uint32_t)tsr__carve_absdiff(u, l)) << TSR__CC_Q;
    *dr = (cu + (uint32_t)tsr__carve_absdiff(u, r)) << TSR__CC_Q;
}

/* Whether the lane whose first column is x1 holds output columns of its item. */
TSR_HD int tsr__cc_output_lane(const tsr__cc_item *it, int32_t x1)
{
    return x1 >= it->base + TSR__CC_BAND && x1 < it->base + TSR__CC_BAND + TSR__CC_STRIP;
}

/* dp: an output lane stores its codes of the item's row k: a byte of four 2-bit codes to back,
 * or in batch mode a word of four nibbles (code and pair bits) to pair. The row's offset as the
 * item's first row plus k rows (k * pitch / 4 < 2^31), so that the compiler steps it by an add
 * per row. */
TSR_HD void tsr__cc_put_codes(const tsr__cc_planes *P, int32_t w, const tsr__cc_item *it, int32_t k,
                              int32_t lane, uint32_t codes)
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
#include "carve/dp_row_kernel_hd.h"
#define TSR__CC_KEY uint32_t
#define TSR__CC_KB 32
#include "carve/dp_row_kernel_hd.h"

/* dp, lane `lane` after the item's keys are stored (the next band is released first) and a
 * warp synchronisation (sb->cd holds every lane's codes): the origins of its two output columns,
 * window columns R + lane and R + LANES + lane (S = 2 LANES), each found by walking up the band's
 * codes (two independent chains) to the previous band's last row (band 0: to row 0), stored to
 * entry. An output column past the width stays where it is (nothing stored). */
TSR_HD void tsr__cc_lane_entry(const tsr__cc_planes *P, int32_t w, const tsr__cc_item *it,
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
TSR_HD uint64_t tsr__cc_hand_key(const tsr__cc_planes *P, int32_t b, int32_t x)
{
    const int64_t o = (int64_t)b * P->pitch + x;
    return P->hand64 ? P->hand64[o] & TSR__CC_KEY_MASK64 : P->hand32[o] & TSR__CC_KEY_MASK32;
}

#endif
