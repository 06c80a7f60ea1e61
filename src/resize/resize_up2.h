/* Exact 2x linear upscale of u8 images (both axes), the per-thread body of resize_cuda.cu's
 * k_up2_u8, written once as a __host__ __device__ function so that a CPU test
 * (tests/unit/test_resize_up2_logic.c) runs the kernel's own code for every thread without a GPU.
 * Compiled as C11 (host) and as CUDA C++ (nvcc).
 *
 * When it applies: plan.c sets plan.up2 only after checking, entry by entry, that the plan's
 * tables are OpenCV's for dst = 2 x src on both axes:
 *   x: XOFS/XCOEF of output column d: d = 0 -> (0; 2048, 0); d = 2w-1 -> (w-1; 2048, 0);
 *      other even d = 2k -> (k-1; 512, 1536); other odd d = 2k+1 -> (k; 1536, 512);
 *   y: YOFS/YCOEF of output row d: d = 2k -> (k-1; 512, 1536); d = 2k+1 -> (k; 1536, 512)
 *      (rows clamped into [0, h-1], as every separable plan's rows are).
 * The arithmetic is then plan.h's separable u8 formula with these numbers:
 *   horizontal x = (c0*s0 + c1*s1) >> 4 = 32*u exactly, with u = s[k-1] + 3*s[k] (even columns),
 *   3*s[k] + s[k+1] (odd), 4*s[0] and 4*s[w-1] at the two border columns, which is what clamping
 *   the pixel index into [0, w-1] gives; u <= 1020;
 *   vertical (b*x) >> 16 = (b*u) >> 11: floor(u/4) for b = 512, floor(3u/4) for b = 1536, so
 *   output row 2m   = (floor(u[m-1]/4) + floor(3u[m]/4) + 2) >> 2,
 *   output row 2m-1 = (floor(3u[m-1]/4) + floor(u[m]/4) + 2) >> 2   (source rows clamped);
 *   every value lies in [0, 255] (no clamp needed).
 * So a thread computes q1 = u >> 2 and q3 = (3u) >> 2 once per source row and column and emits
 * two output rows from the previous and the current source row. */
#ifndef TSR_RESIZE_UP2_H
#define TSR_RESIZE_UP2_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define TSR__UP2_FN static __host__ __device__ __forceinline__
#define TSR__UP2_UNROLL _Pragma("unroll")
#define TSR__UP2_RESTRICT __restrict__
#else
#define TSR__UP2_FN static inline
#define TSR__UP2_UNROLL
#define TSR__UP2_RESTRICT restrict
#endif

/* Aligned 32-bit load and 64-bit store (memcpy on the host: no aliasing assumptions there). */
TSR__UP2_FN uint32_t tsr__up2_ld32(const uint8_t *p)
{
#ifdef __CUDA_ARCH__
    return *(const uint32_t *)p;
#else
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
#endif
}

TSR__UP2_FN void tsr__up2_st64(uint8_t *p, uint64_t v)
{
#ifdef __CUDA_ARCH__
    *(uint64_t *)p = v;
#else
    memcpy(p, &v, 8);
#endif
}

/* Source pixels per thread (8 output pixels) and the most channels. */
enum { TSR__UP2_PX = 4, TSR__UP2_CNMAX = 4 };

/* Whether thread t reads its source rows as aligned words: pixels 4t-1 .. 4t+4 lie inside the
 * row and `al` (host-checked: rows start 4-byte aligned). */
TSR__UP2_FN int tsr__up2_fast(int32_t w, int cn, int32_t t, int al)
{
    const int nw = (4 + 5 * cn + 3) / 4;
    return al && 4 * t * cn - 4 >= 0 && 4 * t * cn - 4 + 4 * nw <= w * cn;
}

/* The thread's source bytes of one row as little-endian words wd[0..6): byte 4 - cn + i of wd
 * is pixel 4t-1 + i/cn, channel i%cn (i < 6*cn). `fast`: the aligned words from byte
 * 4*t*cn - 4 of the row; otherwise the bytes one by one with the pixel index clamped into
 * [0, w-1] (the image's border threads and unaligned images). */
TSR__UP2_FN void tsr__up2_fetch(const uint8_t *TSR__UP2_RESTRICT row, int32_t w, int cn, int32_t t,
                                int fast, uint32_t *wd)
{
    if (fast) {
        TSR__UP2_UNROLL
        for (int k = 0; k < 6; k++)
            if (k < (4 + 5 * cn + 3) / 4)
                wd[k] = tsr__up2_ld32(row + 4 * t * cn - 4 + 4 * k);
        return;
    }
    TSR__UP2_UNROLL
    for (int k = 0; k < 6; k++)
        wd[k] = 0;
    TSR__UP2_UNROLL
    for (int i = 0; i < 6 * TSR__UP2_CNMAX; i++)
        if (i < 6 * cn) {
            int32_t x = 4 * t - 1 + i / cn;
            x = x < 0 ? 0 : x > w - 1 ? w - 1 : x;
            const int o = i + 4 - cn;
            wd[o / 4] |= (uint32_t)row[x * cn + i % cn] << (8 * (o % 4));
        }
}

/* Source byte i (pixel 4t-1 + i/cn, channel i%cn) from the fetched words. */
TSR__UP2_FN uint32_t tsr__up2_b(const uint32_t *wd, int cn, int i)
{
    const int o = i + 4 - cn;
    return (wd[o / 4] >> (8 * (o % 4))) & 255u;
}

/* u of the thread's output element e = j*cn + c (output pixel 8t + j, channel c). */
TSR__UP2_FN int32_t tsr__up2_u(const uint32_t *wd, int cn, int e)
{
    const int j = e / cn, c = e % cn, k = j / 2;
    return j % 2 == 0
               ? (int32_t)(tsr__up2_b(wd, cn, k * cn + c) + 3 * tsr__up2_b(wd, cn, (k + 1) * cn + c))
               : (int32_t)(3 * tsr__up2_b(wd, cn, (k + 1) * cn + c) +
                           tsr__up2_b(wd, cn, (k + 2) * cn + c));
}

/* Stores the thread's 8*cn bytes of one output row (packed little-endian in wd[2*cn]) at drow:
 * 8-byte stores when `al` (host-checked: the row starts 8-byte aligned) and all 8 pixels lie in
 * the row (dw pixels), else the bytes that do. */
TSR__UP2_FN void tsr__up2_store(uint8_t *TSR__UP2_RESTRICT drow, int32_t dw, int cn, int32_t t,
                                int al, const uint32_t *wd)
{
    uint8_t *d = drow + (int64_t)8 * t * cn;
    if (al && 8 * t + 8 <= dw) {
        TSR__UP2_UNROLL
        for (int k = 0; k < TSR__UP2_CNMAX; k++)
            if (k < cn)
                tsr__up2_st64(d + 8 * k, (uint64_t)wd[2 * k] | (uint64_t)wd[2 * k + 1] << 32);
    } else {
        for (int i = 0; i < 8 * cn && 8 * t + i / cn < dw; i++)
            d[i] = (uint8_t)(wd[i / 4] >> (8 * (i % 4)));
    }
}

/* Thread t (output pixels 8t .. 8t+7) of the tile of source rows [m0, m0 + th): output rows
 * 2*m0 .. 2*(m0 + th) - 1 of a w x h -> 2w x 2h resize (rows past 2h are skipped). The state
 * between source rows is q1 and q3 of the previous row; each element's two output bytes are
 * made as soon as its u of the current row is known; the next row's words are fetched before
 * the current row is computed. */
TSR__UP2_FN void tsr__up2_thread(const uint8_t *TSR__UP2_RESTRICT src, int32_t sstride,
                                 uint8_t *TSR__UP2_RESTRICT dst, int32_t dstride, int32_t w,
                                 int32_t h, int cn, int32_t t, int32_t m0, int32_t th, int al_src,
                                 int al_dst)
{
    uint32_t qp[8 * TSR__UP2_CNMAX]; /* previous row: q1 | q3 << 16 (q1 <= 255, q3 <= 765) */
    uint32_t wd[6];
    const int fast = tsr__up2_fast(w, cn, t, al_src);
    tsr__up2_fetch(src + (int64_t)(m0 > 0 ? m0 - 1 : 0) * sstride, w, cn, t, fast, wd);
    TSR__UP2_UNROLL
    for (int e = 0; e < 8 * TSR__UP2_CNMAX; e++)
        if (e < 8 * cn) {
            const int32_t u = tsr__up2_u(wd, cn, e);
            qp[e] = (uint32_t)(u >> 2) | (uint32_t)((3 * u) >> 2) << 16;
        }
    tsr__up2_fetch(src + (int64_t)(m0 < h ? m0 : h - 1) * sstride, w, cn, t, fast, wd);
    for (int32_t m = m0; m <= m0 + th && m <= h; m++) {
        uint32_t cur[6];
        TSR__UP2_UNROLL
        for (int k = 0; k < 6; k++)
            cur[k] = wd[k];
        /* the next row's words are in flight while this row is computed */
        if (m + 1 <= m0 + th && m + 1 <= h)
            tsr__up2_fetch(src + (int64_t)(m + 1 < h ? m + 1 : h - 1) * sstride, w, cn, t, fast,
                           wd);
        uint32_t odd[2 * TSR__UP2_CNMAX], even[2 * TSR__UP2_CNMAX]; /* rows 2m-1 and 2m */
        TSR__UP2_UNROLL
        for (int k = 0; k < 2 * TSR__UP2_CNMAX; k++)
            odd[k] = 0, even[k] = 0;
        TSR__UP2_UNROLL
        for (int e = 0; e < 8 * TSR__UP2_CNMAX; e++)
            if (e < 8 * cn) {
                const int32_t u = tsr__up2_u(cur, cn, e), q1 = u >> 2, q3 = (3 * u) >> 2;
                const int32_t q1p = (int32_t)(qp[e] & 0xffffu), q3p = (int32_t)(qp[e] >> 16);
                odd[e / 4] |= (uint32_t)((q3p + q1 + 2) >> 2) << (8 * (e % 4));
                even[e / 4] |= (uint32_t)((q1p + q3 + 2) >> 2) << (8 * (e % 4));
                qp[e] = (uint32_t)q1 | (uint32_t)q3 << 16;
            }
        if (m > m0)
            tsr__up2_store(dst + (int64_t)(2 * m - 1) * dstride, 2 * w, cn, t, al_dst, odd);
        if (m < m0 + th && m < h)
            tsr__up2_store(dst + (int64_t)(2 * m) * dstride, 2 * w, cn, t, al_dst, even);
    }
}

#endif
