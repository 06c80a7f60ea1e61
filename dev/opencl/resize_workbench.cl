/* Resize workbench kernels (OpenCL C 1.2), for dev/opencl/resize_workbench.c.
 *
 * This file is not built alone: the workbench builds one program from two strings, the library's
 * src/resize/resize.cl (embedded in the library as resize_cl_source) followed by this file, so
 * the rk_* element functions, rk_params and the RK_* constants of resize.cl are in scope here and
 * FP_CONTRACT is OFF. The exact variants call those functions wherever the arithmetic allows;
 * where a variant must hold values in registers or local memory before storing them (4 pixels
 * per work item, 2D tiles), the one-line vertical steps of plan.h are written out here and cited.
 *
 * The exact variants cover the two paths that u8 linear resize takes (plan.h):
 *   SEPARABLE, ksize 2  (every scale except exact integer halvings)
 *   AREA_FAST 2x2       (OpenCV re-routes linear to INTER_AREA when both factors are exactly 2)
 * and fall back to resize.cl's generic per-element code for anything else (partial area cells). */

/* ---- 1: copy, 16 bytes per work item (the bandwidth reference) ---- */
__kernel void wb_copy(__global const uint4 *a, __global uint4 *b, ulong n)
{
    size_t i = get_global_id(0);
    if (i < n)
        b[i] = a[i];
}

/* ---- 2: hardware bilinear filtering (sampler on an RGBA u8 image): fast, NOT exact ----
 * Unnormalised coordinates: the centre of output pixel dx maps to source coordinate
 * (dx + 0.5) * sx, and the sampler's texel centres sit at i + 0.5, so this is OpenCV's
 * centre-aligned mapping; the interpolation weights are the device's (often 8-bit fixed point)
 * and the result is rounded from a normalised float, hence the differences it reports. */
__constant sampler_t wb_smp =
    CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;

__kernel void wb_sampler(__read_only image2d_t img, __global uchar *dst, int dw, int dh,
                         int dstride, float sx, float sy)
{
    int dx = (int)get_global_id(0), dy = (int)get_global_id(1);
    if (dx >= dw || dy >= dh)
        return;
    float4 v = read_imagef(img, wb_smp, (float2)((dx + 0.5f) * sx, (dy + 0.5f) * sy));
    __global uchar *d = dst + (size_t)dy * (size_t)dstride + (size_t)dx * 3;
    d[0] = convert_uchar_sat_rte(v.x * 255.f);
    d[1] = convert_uchar_sat_rte(v.y * 255.f);
    d[2] = convert_uchar_sat_rte(v.z * 255.f);
}

/* ---- 3: exact, one output element per work item: resize.cl's rk_element as it is ---- */
__kernel void wb_exact1(__global const uchar *src, __global uchar *dst, __global const uchar *tab,
                        rk_params p)
{
    int e = (int)get_global_id(0), dy = (int)get_global_id(1);
    if (e >= p.dw * p.cn || dy >= p.dh)
        return;
    rk_element(src, dst, tab, p, dy, e);
}

/* Value of u8 output element (dy, e) on the two fast paths, or -1 where the element needs the
 * generic code. SEPARABLE ksize 2: plan.h "u8 linear" vertical step over rk_h_u8's horizontal
 * step; AREA_FAST full cell with e < fast_end: plan.h "(s00 + s01 + s10 + s11 + 2) >> 2". */
static inline int wb_u8_value(__global const uchar *src, __global const uchar *tab, rk_params p,
                              int dy, int e)
{
    int dx = e / p.cn, c = e - dx * p.cn;
    if (p.path == RK_SEPARABLE && p.ksize == 2) {
        int sy = rk_ti(tab, p, RK_YOFS)[dy];
        __global const short *b = (__global const short *)(tab + p.off[RK_YCOEF]) + (size_t)dy * 2;
        int h0 = rk_h_u8(src, tab, p, rk_clampi(sy, 0, p.sh - 1), dx, c);
        int h1 = rk_h_u8(src, tab, p, rk_clampi(sy + 1, 0, p.sh - 1), dx, c);
        return rk_sat((((b[0] * (h0 >> 4)) >> 16) + ((b[1] * (h1 >> 4)) >> 16) + 2) >> 2, 1);
    }
    if (p.path == RK_AREA_FAST && dy < p.full_h && e < p.full_w && e < p.fast_end) {
        int y0 = 2 * dy, e0 = 2 * dx * p.cn + c;
        return (rk_si(src, p, y0, e0) + rk_si(src, p, y0, e0 + p.cn) + rk_si(src, p, y0 + 1, e0) +
                rk_si(src, p, y0 + 1, e0 + p.cn) + 2) >> 2;
    }
    return -1;
}

/* ---- 4: exact, 4 output pixels (4*cn elements) per work item, one vector store per pixel
 * group when cn == 3 (12 bytes: vstore8 + vstore4, any alignment) ---- */
__kernel void wb_exact4px(__global const uchar *src, __global uchar *dst,
                          __global const uchar *tab, rk_params p)
{
    int dx0 = 4 * (int)get_global_id(0), dy = (int)get_global_id(1);
    if (dx0 >= p.dw || dy >= p.dh)
        return;
    int n = p.dw * p.cn, e0 = dx0 * p.cn;
    __global uchar *d = dst + (size_t)dy * (size_t)p.dstride;
    if (p.cn == 3 && dx0 + 4 <= p.dw && p.depth == 1) {
        uchar v[12];
        int ok = 1;
        for (int i = 0; i < 12; i++) {
            int x = wb_u8_value(src, tab, p, dy, e0 + i);
            ok &= x >= 0;
            v[i] = (uchar)x;
        }
        if (ok) {
            vstore8((uchar8)(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]), 0, d + e0);
            vstore4((uchar4)(v[8], v[9], v[10], v[11]), 0, d + e0 + 8);
            return;
        }
    }
    /* tail pixels, other channel counts, elements outside the fast paths: one at a time */
    for (int e = e0; e < e0 + 4 * p.cn && e < n; e++)
        rk_element(src, dst, tab, p, dy, e);
}

/* ---- 5: 2D tiles. A work-group of WB_TW work items computes WB_TW elements x WB_TH rows:
 * first the horizontal step of every source row the tile needs, one row of WB_TW values per
 * pass, into local memory; after a barrier, the vertical step from local memory.
 *   SEPARABLE ksize 2: local row r holds rk_h_u8(row rlo + r) (int, exact)
 *   AREA_FAST 2x2:     local row r holds s(y, 2dx) + s(y, 2dx + 1) of source row rlo + r; the
 *                      vertical step adds two of them: the same int sum as plan.h's, reordered
 *                      (integer addition is exact)
 * Rows beyond WB_MAXR (steep downscales) are computed from global memory instead. ---- */
#define WB_TW 256
#define WB_TH 8
#define WB_MAXR 24

__kernel __attribute__((reqd_work_group_size(WB_TW, 1, 1))) void
wb_tiled(__global const uchar *src, __global uchar *dst, __global const uchar *tab, rk_params p)
{
    __local int hs[WB_MAXR][WB_TW];
    int lx = (int)get_local_id(0);
    int e = (int)get_group_id(0) * WB_TW + lx, n = p.dw * p.cn;
    int dy0 = (int)get_group_id(1) * WB_TH, dy1 = min(dy0 + WB_TH, p.dh);
    int sep = p.path == RK_SEPARABLE && p.ksize == 2 && p.depth == 1;
    int area = p.path == RK_AREA_FAST && p.depth == 1 && p.isx == 2 && p.isy == 2;
    int ec = min(e, n - 1), dx = ec / p.cn, c = ec - dx * p.cn;
    int rlo = 0, nr = 0;
    if (sep) {
        __global const int *yofs = rk_ti(tab, p, RK_YOFS);
        rlo = rk_clampi(yofs[dy0], 0, p.sh - 1);
        nr = min(rk_clampi(yofs[dy1 - 1] + 1, 0, p.sh - 1) - rlo + 1, WB_MAXR);
        for (int r = 0; r < nr; r++)
            hs[r][lx] = rk_h_u8(src, tab, p, rlo + r, dx, c);
    } else if (area) {
        rlo = 2 * dy0;
        nr = min(min(2 * dy1, p.sh) - rlo, WB_MAXR);
        int e2 = 2 * dx * p.cn + c, e3 = min(e2 + p.cn, p.sw * p.cn - 1);
        for (int r = 0; r < nr; r++)
            hs[r][lx] = rk_si(src, p, rlo + r, e2) + rk_si(src, p, rlo + r, e3);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (e >= n)
        return;
    __global uchar *d = dst + (size_t)dy0 * (size_t)p.dstride + e;
    for (int dy = dy0; dy < dy1; dy++, d += p.dstride) {
        if (sep) {
            int sy = rk_ti(tab, p, RK_YOFS)[dy];
            int r0 = rk_clampi(sy, 0, p.sh - 1) - rlo, r1 = rk_clampi(sy + 1, 0, p.sh - 1) - rlo;
            __global const short *b =
                (__global const short *)(tab + p.off[RK_YCOEF]) + (size_t)dy * 2;
            int h0 = r0 < nr ? hs[r0][lx] : rk_h_u8(src, tab, p, rlo + r0, dx, c);
            int h1 = r1 < nr ? hs[r1][lx] : rk_h_u8(src, tab, p, rlo + r1, dx, c);
            *d = (uchar)rk_sat((((b[0] * (h0 >> 4)) >> 16) + ((b[1] * (h1 >> 4)) >> 16) + 2) >> 2,
                               1);
        } else if (area && dy < p.full_h && e < p.full_w && e < p.fast_end &&
                   2 * (dy - dy0) + 1 < nr) {
            *d = (uchar)((hs[2 * (dy - dy0)][lx] + hs[2 * (dy - dy0) + 1][lx] + 2) >> 2);
        } else {
            rk_element(src, dst, tab, p, dy, e);
        }
    }
}
