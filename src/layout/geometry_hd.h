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

#endif
