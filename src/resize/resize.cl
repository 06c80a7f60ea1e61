/* Resize kernels: the per-element formulas of src/resize/plan.h (OpenCV cv::resize), written once
 * in the common subset of OpenCL C 1.2 and CUDA C++. The OpenCL backend builds this file as it is
 * (embedded as resize_cl_source); resize_cuda.cu includes it for the same element functions, so
 * both GPU backends execute literally the same arithmetic as resize_ref.c.
 *
 * Exactness: float operations are written one rounding at a time, in the order plan.h gives;
 * contraction into fma is off (FP_CONTRACT OFF here, --fmad=false for nvcc). rne() is
 * round-half-even (convert_int_rte / __float2int_rn). */
#ifndef TSR_RESIZE_CL
#define TSR_RESIZE_CL
#if defined(__OPENCL_VERSION__)
#pragma OPENCL FP_CONTRACT OFF
#define RK_G __global
#define RK_FN static inline
#define RK_RNE(f) convert_int_rte(f)
typedef ulong rk_u64;
#elif defined(__CUDACC__)
#define RK_G
#define RK_FN static __device__ __forceinline__
#define RK_RNE(f) __float2int_rn(f)
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long long rk_u64;
#endif
/* (Included from host C for rk_params alone: everything after it needs a device compiler.) */

/* Launch parameters: ints only, so the layout is the same in C, CUDA and OpenCL. */
typedef struct rk_params {
    int path, depth, cn;
    int sw, sh, dw, dh;
    int sstride, dstride; /* bytes */
    int ksize, xmin, xmax, vec_end, vform;
    int isx, isy, full_w, full_h, fast_end;
    int frac_bits, ymin, ymax;
    int off[6]; /* byte offsets of the tables (plan.h order) in the table buffer; -1 unused */
    int rows;   /* output rows this launch covers, starting at row0 */
    int row0;
} rk_params;

/* plan.h enums */
#define RK_COPY 0
#define RK_NEAREST 1
#define RK_SEPARABLE 2
#define RK_AREA_FAST 3
#define RK_AREA 4
#define RK_LINEAR_EXACT 5
#define RK_SEQ 0
#define RK_NESTED 1
#define RK_XOFS 0
#define RK_YOFS 1
#define RK_XCOEF 2
#define RK_YCOEF 3
#define RK_XSTART 4
#define RK_YSTART 5

#if defined(__OPENCL_VERSION__) || defined(__CUDACC__)
RK_FN const RK_G int *rk_ti(const RK_G uchar *tab, rk_params p, int t)
{
    return (const RK_G int *)(tab + p.off[t]);
}

RK_FN int rk_clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

RK_FN int rk_sat(int v, int depth)
{
    int hi = depth == 1 ? 255 : 65535;
    return v < 0 ? 0 : v > hi ? hi : v;
}

/* Source sample at row y, element e, as int (u8/u16) or float (any depth). */
RK_FN int rk_si(const RK_G uchar *src, rk_params p, int y, int e)
{
    const RK_G uchar *row = src + (size_t)y * (size_t)p.sstride;
    return p.depth == 1 ? (int)row[e] : (int)((const RK_G ushort *)row)[e];
}

RK_FN float rk_sf(const RK_G uchar *src, rk_params p, int y, int e)
{
    const RK_G uchar *row = src + (size_t)y * (size_t)p.sstride;
    if (p.depth == 4)
        return ((const RK_G float *)row)[e];
    return p.depth == 1 ? (float)row[e] : (float)((const RK_G ushort *)row)[e];
}

RK_FN void rk_store_i(RK_G uchar *dst, rk_params p, int dy, int e, int v)
{
    RK_G uchar *row = dst + (size_t)dy * (size_t)p.dstride;
    if (p.depth == 1)
        row[e] = (uchar)v;
    else
        ((RK_G ushort *)row)[e] = (ushort)v;
}

RK_FN void rk_store_f(RK_G uchar *dst, rk_params p, int dy, int e, float v)
{
    RK_G uchar *row = dst + (size_t)dy * (size_t)p.dstride;
    ((RK_G float *)row)[e] = v;
}

/* ---- SEPARABLE: horizontal step on source row y for output element (dx, c) ---- */
RK_FN int rk_h_u8(const RK_G uchar *src, const RK_G uchar *tab, rk_params p, int y, int dx, int c)
{
    int sx = rk_ti(tab, p, RK_XOFS)[dx];
    const RK_G short *a = (const RK_G short *)(tab + p.off[RK_XCOEF]) + (size_t)dx * p.ksize;
    const RK_G uchar *row = src + (size_t)y * (size_t)p.sstride;
    int cn = p.cn;
    if (p.ksize == 2) {
        if (dx < p.xmax)
            return (int)row[sx * cn + c] * a[0] + (int)row[(sx + 1) * cn + c] * a[1];
        return (int)row[sx * cn + c] * 2048;
    }
    int kh = p.ksize / 2, h = 0;
    for (int j = 0; j < p.ksize; j++)
        h += (int)row[rk_clampi(sx - kh + 1 + j, 0, p.sw - 1) * cn + c] * a[j];
    return h;
}

RK_FN float rk_h_f(const RK_G uchar *src, const RK_G uchar *tab, rk_params p, int y, int dx, int c)
{
    int sx = rk_ti(tab, p, RK_XOFS)[dx];
    const RK_G float *a = (const RK_G float *)(tab + p.off[RK_XCOEF]) + (size_t)dx * p.ksize;
    int cn = p.cn;
    if (p.ksize == 2) {
        if (dx < p.xmax)
            return rk_sf(src, p, y, sx * cn + c) * a[0] + rk_sf(src, p, y, (sx + 1) * cn + c) * a[1];
        return rk_sf(src, p, y, sx * cn + c);
    }
    int kh = p.ksize / 2;
    int border = dx < p.xmin || dx >= p.xmax;
    float h = rk_sf(src, p, y, rk_clampi(sx - kh + 1, 0, p.sw - 1) * cn + c) * a[0];
    if (border)
        h = 0.f + h; /* the border loop starts from +0 (plan.h) */
    for (int j = 1; j < p.ksize; j++)
        h = h + rk_sf(src, p, y, rk_clampi(sx - kh + 1 + j, 0, p.sw - 1) * cn + c) * a[j];
    return h;
}

RK_FN void rk_separable(const RK_G uchar *src, RK_G uchar *dst, const RK_G uchar *tab, rk_params p,
                        int dy, int e)
{
    int dx = e / p.cn, c = e - dx * p.cn;
    int ks = p.ksize, kh = ks / 2;
    int sy = rk_ti(tab, p, RK_YOFS)[dy];
    if (p.depth == 1) {
        const RK_G short *b = (const RK_G short *)(tab + p.off[RK_YCOEF]) + (size_t)dy * ks;
        if (ks == 2) {
            int h0 = rk_h_u8(src, tab, p, rk_clampi(sy, 0, p.sh - 1), dx, c);
            int h1 = rk_h_u8(src, tab, p, rk_clampi(sy + 1, 0, p.sh - 1), dx, c);
            int v = (((b[0] * (h0 >> 4)) >> 16) + ((b[1] * (h1 >> 4)) >> 16) + 2) >> 2;
            rk_store_i(dst, p, dy, e, rk_sat(v, 1));
            return;
        }
        if (e < p.vec_end) {
            /* OpenCV's SIMD cubic: f_k = h_k * (b_k / 2^22), summed innermost first */
            float acc = 0.f;
            for (int k = ks - 1; k >= 0; k--) {
                int h = rk_h_u8(src, tab, p, rk_clampi(sy - kh + 1 + k, 0, p.sh - 1), dx, c);
                float f = (float)h * ((float)b[k] * (1.f / 4194304.f));
                acc = k == ks - 1 ? f : f + acc;
            }
            rk_store_i(dst, p, dy, e, rk_sat(RK_RNE(acc), 1));
            return;
        }
        int s = 0;
        for (int k = 0; k < ks; k++)
            s += rk_h_u8(src, tab, p, rk_clampi(sy - kh + 1 + k, 0, p.sh - 1), dx, c) * b[k];
        rk_store_i(dst, p, dy, e, rk_sat((s + (1 << 21)) >> 22, 1));
        return;
    }
    const RK_G float *b = (const RK_G float *)(tab + p.off[RK_YCOEF]) + (size_t)dy * ks;
    int form = e < p.vec_end ? p.vform : RK_SEQ;
    float t;
    if (form == RK_NESTED) {
        t = 0.f;
        for (int k = ks - 1; k >= 0; k--) {
            float q = rk_h_f(src, tab, p, rk_clampi(sy - kh + 1 + k, 0, p.sh - 1), dx, c) * b[k];
            t = k == ks - 1 ? q : q + t;
        }
    } else {
        t = 0.f;
        for (int k = 0; k < ks; k++) {
            float q = rk_h_f(src, tab, p, rk_clampi(sy - kh + 1 + k, 0, p.sh - 1), dx, c) * b[k];
            t = k == 0 ? q : t + q;
        }
    }
    if (p.depth == 4)
        rk_store_f(dst, p, dy, e, t);
    else
        rk_store_i(dst, p, dy, e, rk_sat(RK_RNE(t), 2));
}

/* ---- AREA_FAST ---- */
RK_FN void rk_area_fast(const RK_G uchar *src, RK_G uchar *dst, rk_params p, int dy, int e)
{
    int cn = p.cn, dx = e / cn, c = e - dx * cn;
    int sx = p.isx, sy = p.isy;
    int full = dy < p.full_h && e < p.full_w;
    if (full && e < p.fast_end) {
        int y0 = 2 * dy, e0 = 2 * dx * cn + c;
        if (p.depth == 4) {
            float s00 = rk_sf(src, p, y0, e0), s01 = rk_sf(src, p, y0, e0 + cn);
            float s10 = rk_sf(src, p, y0 + 1, e0), s11 = rk_sf(src, p, y0 + 1, e0 + cn);
            rk_store_f(dst, p, dy, e, ((s00 + s01) + (s10 + s11)) * 0.25f);
        } else {
            int s = rk_si(src, p, y0, e0) + rk_si(src, p, y0, e0 + cn) +
                    rk_si(src, p, y0 + 1, e0) + rk_si(src, p, y0 + 1, e0 + cn);
            rk_store_i(dst, p, dy, e, (s + 2) >> 2);
        }
        return;
    }
    int y0 = dy * sy, ex = dx * sx * cn + c;
    if (full) {
        /* generic full cell (resize_ref.c): sample n is (row n / sx, column n % sx); groups of
         * four summed first, exactly in int for u8/u16, left to right in float for f32 */
        int area = sx * sy, n = 0, isum = 0;
        float sum = 0.f;
        float scale = 1.f / (float)area;
        for (; n + 4 <= area; n += 4) {
            int y_0 = y0 + n / sx, y_1 = y0 + (n + 1) / sx, y_2 = y0 + (n + 2) / sx,
                y_3 = y0 + (n + 3) / sx;
            int x_0 = ex + n % sx * cn, x_1 = ex + (n + 1) % sx * cn, x_2 = ex + (n + 2) % sx * cn,
                x_3 = ex + (n + 3) % sx * cn;
            if (p.depth == 1)
                isum += rk_si(src, p, y_0, x_0) + rk_si(src, p, y_1, x_1) +
                        rk_si(src, p, y_2, x_2) + rk_si(src, p, y_3, x_3);
            else if (p.depth == 2)
                sum = sum + (float)(rk_si(src, p, y_0, x_0) + rk_si(src, p, y_1, x_1) +
                                    rk_si(src, p, y_2, x_2) + rk_si(src, p, y_3, x_3));
            else
                sum = sum + (((rk_sf(src, p, y_0, x_0) + rk_sf(src, p, y_1, x_1)) +
                              rk_sf(src, p, y_2, x_2)) +
                             rk_sf(src, p, y_3, x_3));
        }
        for (; n < area; n++) {
            if (p.depth == 1)
                isum += rk_si(src, p, y0 + n / sx, ex + n % sx * cn);
            else
                sum = sum + rk_sf(src, p, y0 + n / sx, ex + n % sx * cn);
        }
        float v = (p.depth == 1 ? (float)isum : sum) * scale;
        if (p.depth == 4)
            rk_store_f(dst, p, dy, e, v);
        else
            rk_store_i(dst, p, dy, e, rk_sat(RK_RNE(v), p.depth));
        return;
    }
    /* partial cell: the samples inside the source, one at a time */
    int count = 0, isum = 0;
    float fsum = 0.f;
    for (int i = 0; i < sy && y0 + i < p.sh; i++)
        for (int j = 0; j < sx && dx * sx + j < p.sw; j++, count++) {
            if (p.depth == 1)
                isum += rk_si(src, p, y0 + i, ex + j * cn);
            else
                fsum = fsum + rk_sf(src, p, y0 + i, ex + j * cn);
        }
    if (p.depth == 1)
        fsum = (float)isum;
    float v = fsum / (float)count;
    if (p.depth == 4)
        rk_store_f(dst, p, dy, e, v);
    else
        rk_store_i(dst, p, dy, e, rk_sat(RK_RNE(v), p.depth));
}

/* ---- AREA (DecimateAlpha tables) ---- */
RK_FN void rk_area(const RK_G uchar *src, RK_G uchar *dst, const RK_G uchar *tab, rk_params p,
                   int dy, int e)
{
    int cn = p.cn, dx = e / cn, c = e - dx * cn;
    const RK_G int *xstart = rk_ti(tab, p, RK_XSTART), *xofs = rk_ti(tab, p, RK_XOFS);
    const RK_G int *ystart = rk_ti(tab, p, RK_YSTART), *yofs = rk_ti(tab, p, RK_YOFS);
    const RK_G float *xc = (const RK_G float *)(tab + p.off[RK_XCOEF]);
    const RK_G float *yc = (const RK_G float *)(tab + p.off[RK_YCOEF]);
    int k0 = xstart[dx], k1 = xstart[dx + 1];
    float acc = 0.f;
    for (int j = ystart[dy]; j < ystart[dy + 1]; j++) {
        int r = yofs[j];
        float h = 0.f;
        for (int k = k0; k < k1; k++)
            h = h + rk_sf(src, p, r, xofs[k] * cn + c) * xc[k];
        float q = yc[j] * h;
        acc = j == ystart[dy] ? q : acc + q;
    }
    if (p.depth == 4)
        rk_store_f(dst, p, dy, e, acc);
    else
        rk_store_i(dst, p, dy, e, rk_sat(RK_RNE(acc), p.depth));
}

/* ---- LINEAR_EXACT (resize_bitExact) ---- */
RK_FN rk_u64 rk_hx(const RK_G uchar *src, const RK_G uchar *tab, rk_params p, int y, int dx, int c)
{
    int F = p.frac_bits, cn = p.cn;
    if (dx < p.xmin)
        return (rk_u64)(uint)rk_si(src, p, y, c) << F;
    if (dx >= p.xmax)
        return (rk_u64)(uint)rk_si(src, p, y, (p.sw - 1) * cn + c) << F;
    int sx = rk_ti(tab, p, RK_XOFS)[dx];
    const RK_G uint *a = (const RK_G uint *)(tab + p.off[RK_XCOEF]) + (size_t)dx * 2;
    return (rk_u64)a[0] * (uint)rk_si(src, p, y, sx * cn + c) +
           (rk_u64)a[1] * (uint)rk_si(src, p, y, (sx + 1) * cn + c);
}

RK_FN void rk_linear_exact(const RK_G uchar *src, RK_G uchar *dst, const RK_G uchar *tab,
                           rk_params p, int dy, int e)
{
    int cn = p.cn, dx = e / cn, c = e - dx * cn, F = p.frac_bits;
    rk_u64 v;
    if (dy < p.ymin) {
        v = (rk_hx(src, tab, p, 0, dx, c) + ((rk_u64)1 << (F - 1))) >> F;
    } else if (dy >= p.ymax) {
        v = (rk_hx(src, tab, p, p.sh - 1, dx, c) + ((rk_u64)1 << (F - 1))) >> F;
    } else {
        int sy = rk_ti(tab, p, RK_YOFS)[dy];
        const RK_G uint *d = (const RK_G uint *)(tab + p.off[RK_YCOEF]) + (size_t)dy * 2;
        v = ((rk_u64)d[0] * rk_hx(src, tab, p, sy, dx, c) +
             (rk_u64)d[1] * rk_hx(src, tab, p, sy + 1, dx, c) + ((rk_u64)1 << (2 * F - 1))) >>
            (2 * F);
    }
    rk_u64 hi = p.depth == 1 ? 255u : 65535u;
    rk_store_i(dst, p, dy, e, (int)(v > hi ? hi : v));
}

/* One output element (row dy, element e) of any path except COPY. */
RK_FN void rk_element(const RK_G uchar *src, RK_G uchar *dst, const RK_G uchar *tab, rk_params p,
                      int dy, int e)
{
    switch (p.path) {
    case RK_NEAREST: {
        int dx = e / p.cn, c = e - dx * p.cn;
        int sx = rk_ti(tab, p, RK_XOFS)[dx], sy = rk_ti(tab, p, RK_YOFS)[dy];
        const RK_G uchar *s = src + (size_t)sy * (size_t)p.sstride;
        RK_G uchar *d = dst + (size_t)dy * (size_t)p.dstride;
        int bytes = p.depth;
        for (int i = 0; i < bytes; i++)
            d[e * bytes + i] = s[(sx * p.cn + c) * bytes + i];
        break;
    }
    case RK_SEPARABLE:
        rk_separable(src, dst, tab, p, dy, e);
        break;
    case RK_AREA_FAST:
        rk_area_fast(src, dst, p, dy, e);
        break;
    case RK_AREA:
        rk_area(src, dst, tab, p, dy, e);
        break;
    case RK_LINEAR_EXACT:
        rk_linear_exact(src, dst, tab, p, dy, e);
        break;
    default: { /* COPY */
        int bytes = p.depth;
        const RK_G uchar *s = src + (size_t)dy * (size_t)p.sstride;
        RK_G uchar *d = dst + (size_t)dy * (size_t)p.dstride;
        for (int i = 0; i < bytes; i++)
            d[e * bytes + i] = s[e * bytes + i];
        break;
    }
    }
}

#ifdef __OPENCL_VERSION__
/* Generic kernel: a 2D range of (elements of a row, rows); one work item per output element. */
__kernel void tsr_resize_generic(__global const uchar *src, __global uchar *dst,
                                 __global const uchar *tab, rk_params p)
{
    int e = (int)get_global_id(0), dy = (int)get_global_id(1) + p.row0;
    if (e >= p.dw * p.cn || dy >= p.row0 + p.rows)
        return;
    rk_element(src, dst, tab, p, dy, e);
}

#endif
#endif /* device code */
#endif /* TSR_RESIZE_CL */
