/* The DP lane's state and row step for one key type, included twice by dp_kernel_hd.h (no
 * include guard): with TSR__CC_KEY uint64_t and TSR__CC_KB 64 (grids with a mask: plan.h's key
 * with the mask terms, tag in bits 59..63 of the hand keys) and with uint32_t and 32 (grids
 * without a mask: the key is the energy part, < 510 * 65535 < 2^25, tag in bits 27..31). Every
 * name defined here ends in the key width (tsr__cc_lane64, tsr__cc_lane_row32, ...); C++ also
 * gets overloads without the suffix, so the kernel is written once for both. The contracts are
 * in pass_kernel_hd.h's DP comment. */
#ifndef TSR__CC_KEY
#error "dp_row_kernel_hd.h: define TSR__CC_KEY and TSR__CC_KB before including it"
#endif

#define TSR__CC_N(name) TSR__CC_CAT(name, TSR__CC_KB)
#define TSR__CC_LANE_T TSR__CC_N(tsr__cc_lane)

/* A DP lane's registers: the keys of its C columns in the current row, scaled (<< TSR__CC_Q,
 * the low bits 0; the paths' origins are found after the band from the codes it leaves in
 * shared memory: tsr__cc_lane_entry). */
typedef struct TSR__CC_LANE_T {
    TSR__CC_KEY m[TSR__CC_C];
} TSR__CC_LANE_T;

/* dp, lane `lane` of an item of band b > 0: the previous band's last row (keys). Returns 1 when
 * every key it needs carries the tag of generation gen (stored by this launch), else 0 (the
 * caller polls again). */
TSR_HD int TSR__CC_N(tsr__cc_lane_load)(const tsr__cc_planes *P, int32_t w, const tsr__cc_item *it,
                                        int32_t lane, uint32_t gen, TSR__CC_LANE_T *L)
{
    const TSR__CC_KEY *hand = P->TSR__CC_N(hand) + (int64_t)(it->b - 1) * P->pitch;
    const TSR__CC_KEY tag = (TSR__CC_KEY)(gen & 31);
    int ready = 1;
    TSR_HD_UNROLL
    for (int32_t c = 0; c < TSR__CC_C; c++) {
        const int32_t x = it->base + lane * TSR__CC_C + c;
        const TSR__CC_KEY v = x >= 0 && x < w ? TSR__CC_N(TSR__CC_LOAD_L2_)(hand + x)
                                              : tag << TSR__CC_N(TSR__CC_TAG_SHIFT);
        ready &= (v >> TSR__CC_N(TSR__CC_TAG_SHIFT)) == tag;
        L->m[c] = (v & TSR__CC_N(TSR__CC_KEY_MASK)) << TSR__CC_Q;
    }
    return ready;
}

/* dp, band 0's first row (the image's row 0), lane `lane`: each cell's key is its own cost
 * (backward: the energy; forward: CU) plus the mask term. Its codes (1; batch mode: nibbles 1)
 * are stored but never read: seams are traced from row h - 1 up to row 1. */
TSR_HD void TSR__CC_N(tsr__cc_lane_first)(const tsr__cc_planes *P, int32_t w,
                                          const tsr__cc_item *it, const tsr__cc_stage *sb,
                                          int32_t lane, TSR__CC_LANE_T *L)
{
    TSR_HD_UNROLL
    for (int32_t c = 0; c < TSR__CC_C; c++) {
        const int32_t x = it->base + lane * TSR__CC_C + c, i = lane * TSR__CC_C + c;
        uint32_t dl, dc, dr;
        tsr__cc_costs(P, w, sb, 0, i, x, &dl, &dc, &dr);
        L->m[c] = (P->mask ? (TSR__CC_KEY)tsr__cc_pen(P, sb->mk[0][i]) << TSR__CC_Q : 0) + dc;
    }
    tsr__cc_put_codes(P, w, it, 0, lane, P->pair ? 0x1111u : 0x55u);
}

/* min(a + b, c): one instruction (VIADDMNMX) for 32-bit keys on sm_90, emulated elsewhere. */
TSR_HD TSR__CC_KEY TSR__CC_N(tsr__cc_addmin)(TSR__CC_KEY a, TSR__CC_KEY b, TSR__CC_KEY c)
{
#if defined(__CUDA_ARCH__) && TSR__CC_KB == 32
    return __viaddmin_u32(a, b, c);
#else
    return a + b < c ? a + b : c;
#endif
}

/* dp, row k > 0 of the item, or k = 0 of a band b > 0 (y0 + k < h), lane `lane`: its C cells
 * from the previous row (its own registers, and lm / rm: the keys of the columns just left and
 * right of its range, the neighbour lanes' edge values). dp_cpu.c's cell:
 * candidates left, centre, right compared with strict <, each plus its transition cost
 * (backward: the energy for all three, so it is added once after the comparison: the same
 * order, no key is near the type's top; forward: CL, CU, CR), plus the mask term. A missing
 * candidate (image border) is `none`, never strictly smaller; border = 0 (an interior item,
 * tsr__cc_item_interior: no window column at the image's edges) skips that test. Every cell of
 * the window is computed: a cell inside the trapezoid and the image (the valid ones) reads only
 * cells valid one row up, so what the others hold (garbage: unsigned sums wrap) never reaches an
 * output. Exact mode: every lane puts its byte of codes into sb->cd[k] (for
 * tsr__cc_lane_entry) and the output lanes store it to back; batch mode: the output lanes store
 * their word of nibbles (codes and pair bits) to pair. */
TSR_HD void TSR__CC_N(tsr__cc_lane_row)(const tsr__cc_planes *P, int32_t w, const tsr__cc_item *it,
                                        tsr__cc_stage *sb, int32_t k, int32_t lane,
                                        TSR__CC_LANE_T *L, TSR__CC_KEY lm, TSR__CC_KEY rm,
                                        int border)
{
    const int32_t x1 = it->base + lane * TSR__CC_C;
    TSR__CC_KEY pm[TSR__CC_C + 2];
    pm[0] = lm;
    pm[TSR__CC_C + 1] = rm;
    TSR_HD_UNROLL
    for (int32_t c = 0; c < TSR__CC_C; c++)
        pm[c + 1] = L->m[c];
    uint32_t codes = 0;
    const TSR__CC_KEY none = (TSR__CC_KEY) ~(TSR__CC_KEY)0;
    TSR_HD_UNROLL
    for (int32_t c = 0; c < TSR__CC_C; c++) {
        const int32_t x = x1 + c, i = lane * TSR__CC_C + c;
        uint32_t dl, dc, dr;
        tsr__cc_costs(P, w, sb, k, i, x, &dl, &dc, &dr);
        /* backward: dl = dc = dr, added after the choice */
        const TSR__CC_KEY al = P->forward ? dl : 0, ac = P->forward ? dc : 0,
                          ar = P->forward ? dr : 0;
        /* candidates scaled, with their codes 0, 1, 2 in the low bits (TSR__CC_Q): the least
         * is the least key, and among equal keys the leftmost choice, as dp_cpu.c's strict <;
         * a missing candidate (image border) is `none` or left out */
        const TSR__CC_KEY cl = !border || x > 0 ? pm[c] + al : none, cc = pm[c + 1] + ac;
        const TSR__CC_KEY cr = pm[c + 2] + ar;
        const int has_r = !border || x < w - 1;
        const TSR__CC_KEY lc = TSR__CC_N(tsr__cc_addmin)(cc, 1, cl); /* left against centre */
        const TSR__CC_KEY best = has_r ? TSR__CC_N(tsr__cc_addmin)(cr, 2, lc) : lc;
        const uint32_t code = (uint32_t)best & 3u;
        const TSR__CC_KEY pen =
            P->mask ? (TSR__CC_KEY)tsr__cc_pen(P, sb->mk[k][i]) << TSR__CC_Q : 0;
        L->m[c] = (best & ~(TSR__CC_KEY)3) + pen + (P->forward ? 0 : dc);
        if (P->pair) { /* the cell's nibble: the code, and the pair bits as the codes of two
                          more minima: A = right < centre (the right's code 2 wins), B =
                          centre < left (lc's code is 1) */
            const uint32_t a =
                has_r ? (uint32_t)(TSR__CC_N(tsr__cc_addmin)(cr, 2, cc + 1) >> 1) & 1u : 0u;
            codes |= (code | a << 2 | ((uint32_t)lc & 1u) << 3) << (4 * c);
        } else {
            codes |= code << (2 * c);
        }
    }
    if (!P->pair) /* for the origins (tsr__cc_lane_entry: exact mode only) */
        sb->cd[k][lane] = (uint8_t)codes;
    tsr__cc_put_codes(P, w, it, k, lane, codes);
}

/* dp, lane `lane` after the item's last row: its output columns' keys tagged with generation gen
 * (what the next band polls for). */
TSR_HD void TSR__CC_N(tsr__cc_lane_store)(const tsr__cc_planes *P, int32_t w,
                                          const tsr__cc_item *it, int32_t lane, uint32_t gen,
                                          const TSR__CC_LANE_T *L)
{
    const int32_t x1 = it->base + lane * TSR__CC_C;
    if (!tsr__cc_output_lane(it, x1))
        return;
    const int64_t o = (int64_t)it->b * P->pitch;
    TSR_HD_UNROLL
    for (int32_t c = 0; c < TSR__CC_C; c++)
        if (x1 + c < w)
            P->TSR__CC_N(hand)[o + x1 + c] =
                L->m[c] >> TSR__CC_Q | (TSR__CC_KEY)(gen & 31) << TSR__CC_N(TSR__CC_TAG_SHIFT);
}

#ifdef __cplusplus
/* The kernel's names for this key type (overloads on the lane type; C++ linkage, as the header
 * may be included inside extern "C"). */
extern "C++" {
TSR_HD int tsr__cc_lane_load(const tsr__cc_planes *P, int32_t w, const tsr__cc_item *it,
                             int32_t lane, uint32_t gen, TSR__CC_LANE_T *L)
{
    return TSR__CC_N(tsr__cc_lane_load)(P, w, it, lane, gen, L);
}
TSR_HD void tsr__cc_lane_first(const tsr__cc_planes *P, int32_t w, const tsr__cc_item *it,
                               const tsr__cc_stage *sb, int32_t lane, TSR__CC_LANE_T *L)
{
    TSR__CC_N(tsr__cc_lane_first)(P, w, it, sb, lane, L);
}
TSR_HD void tsr__cc_lane_row(const tsr__cc_planes *P, int32_t w, const tsr__cc_item *it,
                             tsr__cc_stage *sb, int32_t k, int32_t lane, TSR__CC_LANE_T *L,
                             TSR__CC_KEY lm, TSR__CC_KEY rm, int border)
{
    TSR__CC_N(tsr__cc_lane_row)(P, w, it, sb, k, lane, L, lm, rm, border);
}
TSR_HD void tsr__cc_lane_store(const tsr__cc_planes *P, int32_t w, const tsr__cc_item *it,
                               int32_t lane, uint32_t gen, const TSR__CC_LANE_T *L)
{
    TSR__CC_N(tsr__cc_lane_store)(P, w, it, lane, gen, L);
}
}
#endif

#undef TSR__CC_LANE_T
#undef TSR__CC_N
#undef TSR__CC_KEY
#undef TSR__CC_KB
