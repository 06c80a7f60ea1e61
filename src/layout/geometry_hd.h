/* Exact integer geometry of the layout domain, written once for the CPU stages and the CUDA
 * kernels (TSR_HD, core/hd.h; layout_cuda_logic.h's thread bodies call it). Coordinates are in [0,
 * TSR_LAYOUT_MAX_CANVAS] = [0, 2^30], so a difference fits in 31 bits and one orientation product
 * in 62: the orientation is exact in int64. Two orientations are never multiplied together (that
 * would overflow on canvases of 10^6); only their signs are compared. */
#ifndef TSR_LAYOUT_GEOMETRY_HD_H
#define TSR_LAYOUT_GEOMETRY_HD_H

#include "core/hd.h"

#include <stdint.h>

/* Sign of the cross product (b - a) x (c - a): 1 left turn, -1 right turn, 0 collinear. */
TSR_HD int tsr__orient(int32_t ax, int32_t ay, int32_t bx, int32_t by, int32_t cx, int32_t cy)
{
    int64_t l = (int64_t)(bx - ax) * (int64_t)(cy - ay);
    int64_t r = (int64_t)(by - ay) * (int64_t)(cx - ax);
    return (l > r) - (l < r);
}

/* Proper crossing of segments ab and cd: each segment's endpoints strictly on opposite sides of
 * the other's line. The caller excludes pairs that share an endpoint (by node index). */
TSR_HD int tsr__segments_cross(int32_t ax, int32_t ay, int32_t bx, int32_t by, int32_t cx,
                               int32_t cy, int32_t dx, int32_t dy)
{
    int o1 = tsr__orient(ax, ay, bx, by, cx, cy);
    int o2 = tsr__orient(ax, ay, bx, by, dx, dy);
    if (o1 == 0 || o2 == 0 || o1 == o2)
        return 0;
    int o3 = tsr__orient(cx, cy, dx, dy, ax, ay);
    int o4 = tsr__orient(cx, cy, dx, dy, bx, by);
    return o3 != 0 && o4 != 0 && o3 != o4;
}

/* Point p on the closed segment ab (end points included). */
TSR_HD int tsr__point_on_segment(int32_t px, int32_t py, int32_t ax, int32_t ay, int32_t bx,
                                 int32_t by)
{
    if (tsr__orient(ax, ay, bx, by, px, py) != 0)
        return 0;
    int32_t lox = ax < bx ? ax : bx, hix = ax < bx ? bx : ax;
    int32_t loy = ay < by ? ay : by, hiy = ay < by ? by : ay;
    return px >= lox && px <= hix && py >= loy && py <= hiy;
}

/* floor(a / b) for b > 0 (C's division truncates toward zero): the cell rasters' rounding. */
TSR_HD int64_t tsr__floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* The conservative cell raster of a segment, the one rule the CPU grid (grid_cpu.c) and the
 * device (layout_cuda_logic.h) list cells by: every cell holding a point of the segment. Per
 * column c of cells (width s) the segment spans, the rows between floor and ceil of its y over
 * the column's x range. y(x) = ay + dy * (x - ax) / dx is exact rational; its floor and ceil at
 * the column boundaries x = (c+1) * s are stepped as quotient and remainder (two divisions per
 * segment, not per column). Use: tsr__column_walk_begin (which orders the endpoints: left end
 * first, then lower), the caller's column of w->ax and of w->bx (its own division), then
 * tsr__column_walk_next until it returns 0; the caller maps ylo, yhi to rows. */
typedef struct tsr__column_walk {
    int32_t ax, ay, bx, by; /* ordered */
    int64_t s, dx, c, cb, c_last;
    int64_t yq, yr, sq, sr; /* y at the boundary after column c: ay + yq + yr / dx, 0 <= yr < dx */
    int64_t fl, cl;         /* floor and ceil of y at the column's left edge */
} tsr__column_walk;

TSR_HD void tsr__column_walk_begin(tsr__column_walk *w, int64_t s, int32_t ax, int32_t ay,
                                   int32_t bx, int32_t by)
{
    if (ax > bx || (ax == bx && ay > by)) {
        int32_t t = ax;
        ax = bx;
        bx = t;
        t = ay;
        ay = by;
        by = t;
    }
    w->ax = ax, w->ay = ay, w->bx = bx, w->by = by, w->s = s;
}

/* c0, cb: the columns of ax and bx; c_last: the last column of the grid (columns past it are
 * not visited). */
TSR_HD void tsr__column_walk_columns(tsr__column_walk *w, int64_t c0, int64_t cb, int64_t c_last)
{
    const int64_t dx = (int64_t)w->bx - w->ax, dy = (int64_t)w->by - w->ay;
    w->dx = dx;
    w->c = c0;
    w->cb = cb;
    w->c_last = cb < c_last ? cb : c_last;
    w->yq = w->yr = w->sq = w->sr = 0;
    if (cb > c0) {
        const int64_t n = dy * ((c0 + 1) * w->s - w->ax), st = dy * w->s;
        w->yq = tsr__floor_div(n, dx);
        w->yr = n - w->yq * dx;
        w->sq = tsr__floor_div(st, dx);
        w->sr = st - w->sq * dx;
    }
    w->fl = w->cl = w->ay;
}

/* The next column: *c, and the least and greatest y of the segment over it; 0 when done. */
TSR_HD int tsr__column_walk_next(tsr__column_walk *w, int64_t *c, int64_t *ylo, int64_t *yhi)
{
    if (w->c > w->c_last)
        return 0;
    int64_t fr = w->by, cr = w->by; /* floor and ceil at the right edge (the last ends at bx) */
    if (w->c < w->cb) {
        fr = w->ay + w->yq;
        cr = fr + (w->yr != 0);
        w->yq += w->sq;
        w->yr += w->sr;
        if (w->yr >= w->dx) {
            w->yr -= w->dx;
            w->yq++;
        }
    }
    *c = w->c++;
    *ylo = w->fl < fr ? w->fl : fr;
    *yhi = w->cl > cr ? w->cl : cr;
    w->fl = fr;
    w->cl = cr;
    return 1;
}

#endif
