/* Host side shared by the two GPU backends (resize_cuda.cu, resize_opencl.c): the launch
 * parameters of resize.cl's kernels filled from a plan, and the packed layout of the plan's
 * tables in one device buffer. */
#ifndef TSR_RESIZE_GPU_H
#define TSR_RESIZE_GPU_H

#include "resize/plan.h"
#include "resize/resize.cl"

#include <limits.h>
#include <string.h>

/* Fills *p from the plan (row range: all rows) for device images with the given row strides in
 * bytes, and the table offsets in a buffer where each used table starts 16-byte aligned; returns
 * the buffer's size in bytes, or 0 when a stride or the tables do not fit in int (the caller
 * then reports TSR_ERR_LIMIT). */
static inline size_t tsr__resize_gpu_params(const tsr__resize_plan *pl, size_t sstride,
                                            size_t dstride, rk_params *p)
{
    memset(p, 0, sizeof *p);
    if (sstride > INT_MAX || dstride > INT_MAX)
        return 0;
    p->path = (int)pl->path;
    p->depth = (int)pl->depth;
    p->cn = pl->cn;
    p->sw = pl->src_w, p->sh = pl->src_h, p->dw = pl->dst_w, p->dh = pl->dst_h;
    p->sstride = (int)sstride, p->dstride = (int)dstride;
    p->ksize = pl->ksize, p->xmin = pl->xmin, p->xmax = pl->xmax;
    p->vec_end = pl->vec_end, p->vform = (int)pl->vform;
    p->isx = pl->iscale_x, p->isy = pl->iscale_y;
    p->full_w = pl->full_w, p->full_h = pl->full_h, p->fast_end = pl->fast_end;
    p->frac_bits = pl->frac_bits, p->ymin = pl->ymin, p->ymax = pl->ymax;
    p->rows = pl->dst_h, p->row0 = 0;
    size_t off = 0;
    for (int t = 0; t < TSR__RT_COUNT && t < 6; t++) {
        if (!pl->table_bytes[t]) {
            p->off[t] = 0;
            continue;
        }
        if (off > (size_t)INT_MAX - pl->table_bytes[t] - 16)
            return 0;
        p->off[t] = (int)off;
        off += (pl->table_bytes[t] + 15) & ~(size_t)15;
    }
    return off ? off : 16;
}

#endif
