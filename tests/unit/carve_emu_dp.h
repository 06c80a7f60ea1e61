/* test_carve_device_logic's emulation of one DP item for one key type, included twice (no
 * include guard) with EMU_KB 64 and 32: the kernel dp_kernel's steps (carve_cuda_kernels.cuh)
 * through dp_row_kernel_hd.h's bodies of that width. */
#ifndef EMU_KB
#error "carve_emu_dp.h: define EMU_KB (64 or 32) before including it"
#endif

#define EMU_N(name) TSR__CC_CAT(name, EMU_KB)
#define EMU_LANE TSR__CC_CAT(tsr__cc_lane, EMU_KB)

/* Whether every lane's poll of item it would succeed now. */
static int EMU_N(item_ready)(const tsr__cc_planes *P, int32_t w, const tsr__cc_item *it,
                             uint32_t gen)
{
    int ok = 1;
    EMU_LANE probe;
    for (int32_t lane = 0; lane < TSR__CC_LANES && it->b > 0; lane++)
        ok &= EMU_N(tsr__cc_lane_load)(P, w, it, lane, gen, &probe);
    return ok;
}

/* One DP item (one warp), all its lanes in lockstep: the shuffles read the lanes' registers as
 * they were before the row. */
static void EMU_N(run_item)(const tsr__cc_planes *whole, int32_t w, uint32_t ticket, uint32_t gen)
{
    static tsr__cc_stage sb;
    EMU_LANE L[TSR__CC_LANES], prev[TSR__CC_LANES];
    tsr__cc_item it;
    tsr__cc_planes V = *whole, *P = &V; /* the item's view (its segment in batch mode) */
    if (!tsr__cc_item_of(P, w, ticket, &it))
        return; /* an empty ticket */
    poison(&sb, sizeof sb);
    poison(L, sizeof L);
    for (int32_t lane = TSR__CC_LANES - 1; lane >= 0; lane--)
        tsr__cc_stage_lane(P, w, &it, lane, &sb);
    for (int32_t lane = TSR__CC_LANES - 1; lane >= 0; lane--)
        if (it.b == 0)
            EMU_N(tsr__cc_lane_first)(P, w, &it, &sb, lane, &L[lane]);
        else if (!EMU_N(tsr__cc_lane_load)(P, w, &it, lane, gen, &L[lane]))
            abort(); /* launch_dp runs only ready items */
    const int border = !tsr__cc_item_interior(&it, w);
    for (int32_t k = it.b > 0 ? 0 : 1; k < it.rows; k++) {
        memcpy(prev, L, sizeof L);
        for (int32_t lane = TSR__CC_LANES - 1; lane >= 0; lane--) {
            /* shfl_up / shfl_down: a lane without a neighbour gets its own value */
            const EMU_LANE *l = &prev[lane > 0 ? lane - 1 : lane];
            const EMU_LANE *r = &prev[lane < TSR__CC_LANES - 1 ? lane + 1 : lane];
            EMU_N(tsr__cc_lane_row)
            (P, w, &it, &sb, k, lane, &L[lane], l->m[TSR__CC_C - 1], r->m[0], border);
        }
    }
    for (int32_t lane = TSR__CC_LANES - 1; lane >= 0; lane--)
        EMU_N(tsr__cc_lane_store)(P, w, &it, lane, gen, &L[lane]);
    if (!P->pair) /* dp_kernel: the origins in exact mode only */
        for (int32_t lane = TSR__CC_LANES - 1; lane >= 0; lane--)
            tsr__cc_lane_entry(P, w, &it, &sb, lane);
}

#undef EMU_LANE
#undef EMU_N
#undef EMU_KB
