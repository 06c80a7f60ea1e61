/* The migrate workbench's index arithmetic (dev/cuda/migrate_tiles_hd.h) run on the CPU, block by
 * block and item by item as the workbench's kernels run it, against extrap_hd.h's straightforward
 * stencil and step, on random slices whose sizes are not multiples of the tiles:
 *  - X u by the 32 x 8 tile (one point per thread) and the chapter's 40 x 24 core in a 48 x 32
 *    tile (48 x 8 threads: 4 loads and 2.5 points per thread), by V1's global reads and V4's
 *    cross window: equal to tsr__mig_x3_slice bit for bit at every point;
 *  - with the halo off: equal where a point's cross lies in its block's core or off the slice,
 *    different at some points near tile edges (the artifact the workbench measures);
 *  - a whole depth step (15 terms through tsr__mwb_term_point and tsr__mwb_term_at's buffers, the
 *    48 x 32 tile's mappings) equal to tsr__mig_explicit_row bit for bit, both conj;
 *  - tsr__mwb_step_bytes(16) is the 640 bytes the workbench's table reports. */
#include "testlib.h"

#include "../../dev/cuda/migrate_tiles_hd.h"

#include <stdlib.h>
#include <string.h>

enum { TERMS = 16, NTABLE = 12, NX = 83, NY = 53 };

static const float d2[5] = {-205.0f / 72.0f, 8.0f / 5.0f, -1.0f / 5.0f, 8.0f / 315.0f,
                            -1.0f / 560.0f};

static float uniform(tsr_rng *r)
{
    return (float)((double)(tsr_rng_next(r) >> 11) / 9007199254740992.0) * 2.0f - 1.0f;
}

static void fill(tsr_rng *r, tsr__cf *u, size_t n)
{
    for (size_t i = 0; i < n; i++)
        u[i] = tsr__cf_make(uniform(r), uniform(r));
}

/* X u over the slice by tile t, as a kernel's blocks would (load sweep, then compute sweep). */
static void x_by_tiles(const tsr__mwb_tile *t, const tsr__mig_step *st, const tsr__cf *u,
                       tsr__cf *out, tsr__cf *tile)
{
    for (int32_t b = 0; b < tsr__mwb_blocks(t, NX, NY); b++) {
        int32_t x0, y0, cx, cy, ix, iy;
        tsr__mwb_origin(t, NX, b, &x0, &y0);
        for (int32_t k = 0; k < t->tw * t->th; k++)
            tile[k] = tsr__mwb_load(t, u, NX, NY, x0, y0, k);
        for (int32_t k = 0; k < t->cw * t->ch; k++)
            if (tsr__mwb_item(t, NX, NY, x0, y0, k, &cx, &cy, &ix, &iy))
                out[(size_t)iy * NX + ix] = tsr__mwb_x_tile(t, tile, cx, cy, st);
    }
}

/* Whether (ix, iy)'s cross lies, wherever it is on the slice, in the core of tile t's block. */
static int cross_in_core(const tsr__mwb_tile *t, int32_t ix, int32_t iy)
{
    const int32_t x0 = ix / t->cw * t->cw, y0 = iy / t->ch * t->ch, R = TSR__MWB_R;
    const int x_ok = (ix - R >= x0 || ix - R < 0) && (ix + R < x0 + t->cw || ix + R >= NX);
    const int y_ok = (iy - R >= y0 || iy - R < 0) && (iy + R < y0 + t->ch || iy + R >= NY);
    return x_ok && y_ok;
}

static int same(const tsr__cf *a, const tsr__cf *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

int main(void)
{
    tsr_rng r;
    tsr_rng_seed(&r, 38);
    const size_t np = (size_t)NX * NY;
    tsr__cf *u = malloc(np * sizeof *u), *want = malloc(np * sizeof *u),
            *got = malloc(np * sizeof *u), *tile = malloc(48 * 32 * sizeof *u),
            *table = malloc((size_t)NTABLE * TERMS * sizeof *u);
    tsr__cf *w[8];
    for (int i = 0; i < 8; i++)
        w[i] = malloc(np * sizeof *u);
    float *slow = malloc(np * sizeof *slow), *taper = malloc(np * sizeof *slow);
    int32_t *j = malloc(np * sizeof *j);
    float *a = malloc(np * sizeof *a);
    fill(&r, u, np);
    fill(&r, table, (size_t)NTABLE * TERMS);
    for (size_t i = 0; i < np; i++) {
        slow[i] = 0.5f + 0.5f * uniform(&r);
        taper[i] = 0.75f + 0.25f * uniform(&r);
    }
    tsr__mig_step st;
    memset(&st, 0, sizeof st);
    st.nx = NX;
    st.ny = NY;
    st.terms = TERMS;
    st.ntable = NTABLE;
    memcpy(st.d2, d2, sizeof d2);
    st.xscale = 0.15f;
    st.xscale_y = 0.15f * 0.8f;
    st.inv_dp = 7.0f;
    st.table = table;
    tsr__mig_x3_slice(u, want, NX, NY, st.d2, st.xscale, st.xscale_y);

    const tsr__mwb_tile lib = tsr__mwb_tile_make(32, 8, 1), chapter = tsr__mwb_tile_make(40, 24, 1),
                        off = tsr__mwb_tile_make(32, 8, 0);
    CHECK(chapter.tw == 48 && chapter.th == 32 && lib.tw * lib.th == 640);
    const tsr__mwb_tile *exact[2] = {&lib, &chapter};
    for (int v = 0; v < 2; v++) {
        tsr_test_poison_nan((float *)got, 2 * np);
        x_by_tiles(exact[v], &st, u, got, tile);
        CHECK(memcmp(got, want, np * sizeof *u) == 0);
    }
    size_t bad_global = 0, bad_cross = 0, bad_off_core = 0, off_differ = 0;
    tsr_test_poison_nan((float *)got, 2 * np);
    x_by_tiles(&off, &st, u, got, tile);
    for (int32_t iy = 0; iy < NY; iy++)
        for (int32_t ix = 0; ix < NX; ix++) {
            const size_t i = (size_t)iy * NX + ix;
            const tsr__cf g = tsr__mwb_x_global(u, NX, NY, ix, iy, &st),
                          c = tsr__mwb_x_cross(u, NX, NY, ix, iy, &st, 1);
            bad_global += !same(&g, &want[i]);
            bad_cross += !same(&c, &want[i]);
            if (cross_in_core(&off, ix, iy))
                bad_off_core += !same(&got[i], &want[i]);
            else
                off_differ += !same(&got[i], &want[i]);
        }
    CHECK(bad_global == 0);
    CHECK(bad_cross == 0);
    CHECK(bad_off_core == 0);
    CHECK(off_differ > np / 4);

    /* a depth step through the workbench's per-point update and buffers, the chapter's tile */
    for (int conj = 0; conj < 2; conj++) {
        const float wdz = 0.9f + 0.1f * (float)conj;
        tsr__mig_lookup_row(&st, slow, wdz, j, a);
        memcpy(w[0], u, np * sizeof *u);
        tsr__mig_explicit_row(&st, w[0], j, a, taper, conj, w[1], w[2], w[3], w[4]);
        tsr__cf *t0 = w[5], *odd = w[6], *sum = w[7];
        memcpy(t0, u, np * sizeof *u);
        tsr_test_poison_nan((float *)odd, 2 * np);
        tsr_test_poison_nan((float *)sum, 2 * np);
        const tsr__mwb_tile *t = &chapter;
        for (int32_t n = 1; n < TERMS; n++) {
            const tsr__cf *prev1 = tsr__mwb_term_at(n - 1, t0, odd);
            tsr__cf *out = tsr__mwb_term_at(n, t0, odd);
            /* every block's tile first: on the device, blocks of one launch see only T_{n-1} */
            tsr__cf *xs = w[1];
            x_by_tiles(t, &st, prev1, xs, tile);
            for (size_t o = 0; o < np; o++)
                tsr__mwb_term_point(&st, n, conj, j[o], a[o], taper[o], xs[o], t0[o], out, out, sum,
                                    o);
        }
        CHECK(memcmp(sum, w[0], np * sizeof *u) == 0);
    }
    CHECK(tsr__mwb_step_bytes(TERMS) == 640.0);

    free(u);
    free(want);
    free(got);
    free(tile);
    free(table);
    for (int i = 0; i < 8; i++)
        free(w[i]);
    free(slow);
    free(taper);
    free(j);
    free(a);
    return tsr_test_finish("test_migrate_tiles");
}
