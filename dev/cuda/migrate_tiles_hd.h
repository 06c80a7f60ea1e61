/* The migrate workbench's index arithmetic (dev/cuda/migrate_workbench.cu), written once for the
 * host and the device so that tests/unit/test_migrate_tiles.c runs every variant's thread bodies
 * on the CPU against the library's straightforward stencil (extrap_hd.h's tsr__mig_x3_slice).
 *
 * A tile variant covers a slice (ny rows of nx, x fastest) with blocks of cw x ch core points
 * (the outputs) whose tile adds a halo of R = 4 (the filter's radius) on every side: tw x th =
 * (cw + 2R) x (ch + 2R) samples. Block b's core starts at (x0, y0) (tiles in rows of
 * ceil(nx / cw)). The load mapping: the block's threads sweep the tile's samples in order, x
 * fastest (item k: tile point (k % tw, k / tw)), so that a warp reads contiguous runs; the
 * compute mapping: the threads sweep the core's points in order (item k: core point
 * (k % cw, k / cw)). The two differ whenever the block's thread shape is not the core's: the
 * library's 32 x 8 core with 32 x 8 threads computes one point per thread, the chapter's 48 x 32
 * tile (a 40 x 24 core) with 48 x 8 threads loads 4 samples and computes 2.5 points per thread.
 * Samples outside the slice load as 0 (the CPU's skipped terms: 0 + a is a); with the halo off,
 * samples outside the block's core load as 0 too: the edge artifact. */
#ifndef TSR_DEV_MIGRATE_TILES_HD_H
#define TSR_DEV_MIGRATE_TILES_HD_H

#include "migrate/extrap_hd.h"

#include <stddef.h>

enum { TSR__MWB_R = 4 };

typedef struct tsr__mwb_tile {
    int32_t cw, ch; /* core points of a tile */
    int32_t tw, th; /* the tile: the core and its halo */
    int halo;       /* 0: the halo loads as zeros */
} tsr__mwb_tile;

TSR_HD tsr__mwb_tile tsr__mwb_tile_make(int32_t cw, int32_t ch, int halo)
{
    tsr__mwb_tile t;
    t.cw = cw;
    t.ch = ch;
    t.tw = cw + 2 * TSR__MWB_R;
    t.th = ch + 2 * TSR__MWB_R;
    t.halo = halo;
    return t;
}

/* Blocks covering an nx x ny slice. */
TSR_HD int32_t tsr__mwb_blocks(const tsr__mwb_tile *t, int32_t nx, int32_t ny)
{
    return ((nx + t->cw - 1) / t->cw) * ((ny + t->ch - 1) / t->ch);
}

/* Block b's first core point. */
TSR_HD void tsr__mwb_origin(const tsr__mwb_tile *t, int32_t nx, int32_t b, int32_t *x0, int32_t *y0)
{
    const int32_t tiles_x = (nx + t->cw - 1) / t->cw;
    *x0 = (b % tiles_x) * t->cw;
    *y0 = (b / tiles_x) * t->ch;
}

/* Load item k (0 .. tw th - 1) of the block whose core starts at (x0, y0): tile sample k of
 * slice u. */
TSR_HD tsr__cf tsr__mwb_load(const tsr__mwb_tile *t, const tsr__cf *u, int32_t nx, int32_t ny,
                             int32_t x0, int32_t y0, int32_t k)
{
    const int32_t x = x0 - TSR__MWB_R + k % t->tw, y = y0 - TSR__MWB_R + k / t->tw;
    const int in_slice = x >= 0 && x < nx && y >= 0 && y < ny;
    const int in_core = x >= x0 && x < x0 + t->cw && y >= y0 && y < y0 + t->ch;
    if (!in_slice || (!t->halo && !in_core))
        return tsr__cf_make(0.0f, 0.0f);
    return u[(size_t)y * (size_t)nx + (size_t)x];
}

/* Compute item k (0 .. cw ch - 1) of the block at (x0, y0): its core point (*cx, *cy) and slice
 * point (*ix, *iy); 0 when that lies outside the slice (nothing to compute). */
TSR_HD int tsr__mwb_item(const tsr__mwb_tile *t, int32_t nx, int32_t ny, int32_t x0, int32_t y0,
                         int32_t k, int32_t *cx, int32_t *cy, int32_t *ix, int32_t *iy)
{
    *cx = k % t->cw;
    *cy = k / t->cw;
    *ix = x0 + *cx;
    *iy = y0 + *cy;
    return *ix < nx && *iy < ny;
}

/* (X u) at core point (cx, cy) from the block's loaded tile of u. */
TSR_HD tsr__cf tsr__mwb_x_tile(const tsr__mwb_tile *t, const tsr__cf *tile, int32_t cx, int32_t cy,
                               const tsr__mig_step *st)
{
    return tsr__mig_x3_point(tile, cx + TSR__MWB_R, cy + TSR__MWB_R, t->tw, t->th, st->d2,
                             st->xscale, st->xscale_y, 1);
}

/* The tile's own sample at core point (cx, cy). */
TSR_HD tsr__cf tsr__mwb_own(const tsr__mwb_tile *t, const tsr__cf *tile, int32_t cx, int32_t cy)
{
    return tile[(cy + TSR__MWB_R) * t->tw + cx + TSR__MWB_R];
}

/* V1 (global): (X u)(ix, iy) read straight from the slice, the CPU's own call. */
TSR_HD tsr__cf tsr__mwb_x_global(const tsr__cf *u, int32_t nx, int32_t ny, int32_t ix, int32_t iy,
                                 const tsr__mig_step *st)
{
    const int interior =
        ix >= TSR__MWB_R && ix < nx - TSR__MWB_R && iy >= TSR__MWB_R && iy < ny - TSR__MWB_R;
    return tsr__mig_x3_point(u, ix, iy, nx, ny, st->d2, st->xscale, st->xscale_y, interior);
}

/* One sample in one 8-byte load on the device: through the read-only data path (__ldg) when ro,
 * a plain global load otherwise (tsr__cf is 4-byte aligned, so reading it as the struct takes
 * two 4-byte loads; fields from cudaMalloc are 8-byte aligned). A plain load on the host. */
TSR_HD tsr__cf tsr__mwb_read(const tsr__cf *p, int ro)
{
#ifdef __CUDA_ARCH__
    const float2 v = ro ? __ldg((const float2 *)p) : *(const float2 *)p;
    return tsr__cf_make(v.x, v.y);
#else
    (void)ro;
    return *p;
#endif
}

enum { TSR__MWB_W = 2 * TSR__MWB_R + 1 }; /* the cross's window: W x W, centre (R, R) */

/* V4 (read-only path, ro) and V7 (8-byte global loads): the 4 R + 1 samples of (ix, iy)'s cross
 * read with tsr__mwb_read into a W x W window (0 outside the slice; the window's other entries
 * are never read), then tsr__mig_x3_point on the window's centre. */
TSR_HD tsr__cf tsr__mwb_x_cross(const tsr__cf *u, int32_t nx, int32_t ny, int32_t ix, int32_t iy,
                                const tsr__mig_step *st, int ro)
{
    tsr__cf w[TSR__MWB_W * TSR__MWB_W];
    const tsr__cf zero = tsr__cf_make(0.0f, 0.0f);
    const size_t row = (size_t)iy * (size_t)nx;
    TSR_HD_UNROLL
    for (int32_t m = -TSR__MWB_R; m <= TSR__MWB_R; m++) {
        const int32_t x = ix + m, y = iy + m;
        w[TSR__MWB_R * TSR__MWB_W + TSR__MWB_R + m] =
            x >= 0 && x < nx ? tsr__mwb_read(u + row + (size_t)x, ro) : zero;
        w[(TSR__MWB_R + m) * TSR__MWB_W + TSR__MWB_R] =
            y >= 0 && y < ny ? tsr__mwb_read(u + (size_t)y * (size_t)nx + (size_t)ix, ro) : zero;
    }
    return tsr__mig_x3_point(w, TSR__MWB_R, TSR__MWB_R, TSR__MWB_W, TSR__MWB_W, st->d2, st->xscale,
                             st->xscale_y, 1);
}

/* T_n's slice of a field in a step: T_0 in u, the odd terms in odd, the even ones over u (T_2
 * overwrites T_0, read for the last time by term 1), as the library's 3D migration step. */
TSR_HD tsr__cf *tsr__mwb_term_at(int32_t n, tsr__cf *u, tsr__cf *odd)
{
    return n % 2 ? odd : u;
}

/* Term n (1 .. terms - 1) of tsr__mig_explicit_row at slice point o, given x = (X T_{n-1})(o),
 * own = T_0(o) (read for n = 1 only), the table position (j, a) and the taper t: T_n = x (n = 1)
 * or 2 x - T_{n-2}(o), sum = c_0 T_0 + c_1 T_1 (n = 1) or sum + c_n T_n; the last term writes
 * t sum and not T_n. out may be prev2 (each point reads and writes only its own sample). */
TSR_HD void tsr__mwb_term_point(const tsr__mig_step *st, int32_t n, int conj, int32_t j, float a,
                                float t, tsr__cf x, tsr__cf own, const tsr__cf *prev2, tsr__cf *out,
                                tsr__cf *sum, size_t o)
{
    tsr__cf tn, s;
    if (n == 1) {
        tn = x;
        s = tsr__cf_mul(tsr__mig_coef(st->table, st->terms, j, a, 0), own, conj);
        s = tsr__cf_madd(s, tsr__mig_coef(st->table, st->terms, j, a, 1), x, conj);
    } else {
        tn = tsr__mig_cheb_next(x, prev2[o]);
        s = tsr__cf_madd(sum[o], tsr__mig_coef(st->table, st->terms, j, a, n), tn, conj);
    }
    const int last = n + 1 == st->terms;
    if (!last)
        out[o] = tn;
    sum[o] = last ? tsr__cf_scale(t, s) : s;
}

/* HBM bytes per point and frequency of one field's depth step (terms - 1 launches), each sample
 * counted once (halo re-reads come from L1 / L2): term 1 reads T_0 and writes T_1 and the sum,
 * terms 2 .. terms - 2 read T_{n-1}, T_{n-2} and the sum and write T_n and the sum, the last
 * writes only the sum; every term reads the slowness, the last the taper. */
TSR_HD double tsr__mwb_step_bytes(int32_t terms)
{
    const double cf = 8.0, fl = 4.0;
    return (3 * cf + fl) + (terms - 3) * (5 * cf + fl) + (4 * cf + fl + fl);
}

/* The same for the two-terms-per-launch step (the workbench's variant 8, the library's k3_pair):
 * term 1 alone as above, then the pairs (2, 3) .. (terms - 4, terms - 3) read T_{n-1}, T_{n-2}
 * and the sum and write T_n, T_{n+1} and the sum, the last pair writes only the sum; every
 * launch reads the slowness, the last the taper. terms even. */
TSR_HD double tsr__mwb_pair_step_bytes(int32_t terms)
{
    const double cf = 8.0, fl = 4.0;
    return (3 * cf + fl) + ((terms - 4) / 2) * (6 * cf + fl) + (4 * cf + fl + fl);
}

#endif
