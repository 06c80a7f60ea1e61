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
 * So a thread computes floor(u/4) and floor(3u/4) once per source row and column and emits two
 * output rows from the previous and the current source row.
 *
 * Two elements per 32-bit operation, results scaled by 64 (ncu: the kernel was bound by its
 * integer pipe; run 15 measured ~11 instructions per output byte for the scalar form, runs 16-26
 * ~5.5 for a form with a final shift per sum; this one needs neither that shift nor a mask on
 * the 3u term): values live in 16-bit lanes of a word ("lane word"; lo lane = element e, hi lane =
 * element e + 2). Each source word is split once per row into two lane words (its even and its
 * odd bytes); a lane word of any two source bytes is then one byte permutation. Per lane word:
 *   u = X + 3Y                                   lanes <= 1020, no carry between lanes;
 *   q1 = (u << 4) & 0x3fc03fc0 = 64*floor(u/4)   lanes <= 16320;
 *   q3 = 48*u = 64*floor(3u/4) + 16*(3u mod 4)   lanes <= 48960, left unmasked (the last term is
 *                                                < 64: a fraction below the scaled integer);
 *   sum = q3' + q1 + 128 (and q1' + q3 + 128) = 64*S + f, S = floor(3u'/4) + floor(u/4) + 2,
 *   f <= 48: lanes <= 48960 + 16320 + 128 = 65408 < 2^16 (no carry into the hi lane), bits 6-15
 *   of a lane hold S exactly (S <= 1022, f < 64 cannot carry into bit 6), so byte 1 of the lane,
 *   bits 8-15, is S >> 2, the output. The final permutation takes bytes 1 and 3 of the lane words
 *   of elements e, e+2 and e+1, e+3. */
#ifndef TSR_RESIZE_UP2_H
#define TSR_RESIZE_UP2_H

#include "resize/resize_thread_io.h"

/* Source pixels per thread (8 output pixels) and the most channels. */
enum { TSR__UP2_PX = 4, TSR__UP2_CNMAX = TSR__RT_CNMAX };

/* Whether thread t reads its source rows as aligned words: pixels 4t-1 .. 4t+4 lie inside the
 * row and `al` (host-checked: rows start 4-byte aligned). */
TSR__RT_FN int tsr__up2_fast(int32_t w, int cn, int32_t t, int al)
{
    const int nw = (4 + 5 * cn + 3) / 4;
    return al && 4 * t * cn - 4 >= 0 && 4 * t * cn - 4 + 4 * nw <= w * cn;
}

/* The thread's source bytes of one row as little-endian words wd[0..6): byte 4 - cn + i of wd
 * is pixel 4t-1 + i/cn, channel i%cn (i < 6*cn). `fast`: the aligned words from byte
 * 4*t*cn - 4 of the row; otherwise the bytes one by one with the pixel index clamped into
 * [0, w-1] (the image's border threads and unaligned images). */
TSR__RT_FN void tsr__up2_fetch(const uint8_t *TSR__RT_RESTRICT row, int32_t w, int cn, int32_t t,
                               int fast, uint32_t *wd)
{
    if (fast) {
        TSR__RT_UNROLL
        for (int k = 0; k < 6; k++)
            if (k < (4 + 5 * cn + 3) / 4)
                wd[k] = tsr__rt_ld32(row + 4 * t * cn - 4 + 4 * k);
        return;
    }
    TSR__RT_UNROLL
    for (int k = 0; k < 6; k++)
        wd[k] = 0;
    TSR__RT_UNROLL
    for (int i = 0; i < 6 * TSR__UP2_CNMAX; i++)
        if (i < 6 * cn) {
            int32_t x = 4 * t - 1 + i / cn;
            x = x < 0 ? 0 : x > w - 1 ? w - 1 : x;
            const int o = i + 4 - cn;
            wd[o / 4] |= (uint32_t)row[x * cn + i % cn] << (8 * (o % 4));
        }
}

/* __byte_perm: byte n of the result is byte (s >> 4n) & 7 of the pair (x, y), x first. */
TSR__RT_FN uint32_t tsr__up2_perm(uint32_t x, uint32_t y, uint32_t s)
{
#ifdef __CUDA_ARCH__
    return __byte_perm(x, y, s);
#else
    const uint64_t xy = (uint64_t)x | (uint64_t)y << 32;
    uint32_t r = 0;
    for (int n = 0; n < 4; n++)
        r |= (uint32_t)((xy >> (8 * ((s >> (4 * n)) & 7))) & 255u) << (8 * n);
    return r;
#endif
}

/* The lane word (lo = source byte a, hi = source byte b; i = pixel 4t-1 + i/cn, channel i%cn)
 * from the row's split words: ev[k] holds bytes 0 and 2 of word k in its lanes, od[k] bytes 1
 * and 3. One permutation, none when both bytes already sit in one split word's lanes. */
TSR__RT_FN uint32_t tsr__up2_pair(const uint32_t *ev, const uint32_t *od, int cn, int a, int b)
{
    const int oa = a + 4 - cn, ob = b + 4 - cn; /* offsets in the fetched word stream */
    const uint32_t wa = oa % 2 ? od[oa / 4] : ev[oa / 4], wb = ob % 2 ? od[ob / 4] : ev[ob / 4];
    const int la = (oa % 4) / 2, lb = (ob % 4) / 2;
    if (oa / 4 == ob / 4 && oa % 2 == ob % 2 && la == 0 && lb == 1)
        return wa;
    return tsr__up2_perm(wa, wb,
                         (uint32_t)(2 * la) | (uint32_t)(2 * la + 1) << 4 |
                             (uint32_t)(4 + 2 * lb) << 8 | (uint32_t)(5 + 2 * lb) << 12);
}

/* Source bytes X and Y of output element e = j*cn + c (output pixel 8t + j, channel c), whose
 * u = X + 3Y: even j = 2k: X = pixel k, Y = k + 1; odd j: X = pixel k + 2, Y = k + 1. */
TSR__RT_FN int tsr__up2_x(int cn, int e)
{
    const int j = e / cn, c = e % cn;
    return (j % 2 ? j / 2 + 2 : j / 2) * cn + c;
}

TSR__RT_FN int tsr__up2_y(int cn, int e)
{
    return (e / cn / 2 + 1) * cn + e % cn;
}

/* u = X + 3Y of the lane word of elements e (lo) and e + 2 (hi), from the row's split words. */
TSR__RT_FN uint32_t tsr__up2_u2(const uint32_t *ev, const uint32_t *od, int cn, int e)
{
    return tsr__up2_pair(ev, od, cn, tsr__up2_x(cn, e), tsr__up2_x(cn, e + 2)) +
           3u * tsr__up2_pair(ev, od, cn, tsr__up2_y(cn, e), tsr__up2_y(cn, e + 2));
}

/* q1 = 64*floor(u/4) and q3 = 48u (unmasked) of lane word l, as above: elements
 * e = 4(l/2) + l%2 (lo lane) and e + 2 (hi lane). */
TSR__RT_FN void tsr__up2_q(const uint32_t *ev, const uint32_t *od, int cn, int l, uint32_t *q1,
                           uint32_t *q3)
{
    const uint32_t u = tsr__up2_u2(ev, od, cn, 4 * (l / 2) + l % 2);
    *q1 = (u << 4) & 0x3fc03fc0u;
    *q3 = 48u * u;
}

/* Thread t (output pixels 8t .. 8t+7) of the tile of source rows [m0, m0 + th): output rows
 * 2*m0 .. 2*(m0 + th) - 1 of a w x h -> 2w x 2h resize (rows past 2h are skipped). The state
 * between source rows is q1 (masked) and q3 (unmasked) of the previous row per lane word; the
 * lane word of output word k's elements 4k, 4k+2 is index 2k, of 4k+1, 4k+3 index 2k+1. Each
 * row's two output rows are made as soon as its u are known; the next row's words are fetched
 * before the current row is computed. al_src: rows start 4-byte aligned; al_dst: 8-byte aligned
 * (host-checked). */
TSR__RT_FN void tsr__up2_thread(const uint8_t *TSR__RT_RESTRICT src, int32_t sstride,
                                uint8_t *TSR__RT_RESTRICT dst, int32_t dstride, int32_t w,
                                int32_t h, int cn, int32_t t, int32_t m0, int32_t th, int al_src,
                                int al_dst)
{
    enum { NL = 4 * TSR__UP2_CNMAX }; /* lane words per row: 2 per output word */
    uint32_t q1p[NL], q3p[NL];
    uint32_t wd[6], ev[6], od[6];
    const int fast = tsr__up2_fast(w, cn, t, al_src);
    tsr__up2_fetch(src + (int64_t)(m0 > 0 ? m0 - 1 : 0) * sstride, w, cn, t, fast, wd);
    for (int32_t m = m0 - 1; m <= m0 + th && m <= h; m++) {
        TSR__RT_UNROLL
        for (int k = 0; k < 6; k++)
            if (k < (4 + 5 * cn + 3) / 4) { /* the words tsr__up2_fetch filled */
                ev[k] = tsr__up2_perm(wd[k], 0, 0x4240);
                od[k] = tsr__up2_perm(wd[k], 0, 0x4341);
            }
        /* the next row's words are in flight while this row is computed */
        if (m + 1 <= m0 + th && m + 1 <= h)
            tsr__up2_fetch(src + (int64_t)(m + 1 < h ? m + 1 : h - 1) * sstride, w, cn, t, fast,
                           wd);
        if (m < m0) { /* the row above the tile: its q only */
            TSR__RT_UNROLL
            for (int l = 0; l < NL; l++)
                if (l < 4 * cn)
                    tsr__up2_q(ev, od, cn, l, &q1p[l], &q3p[l]);
            continue;
        }
        uint32_t odd[NL], even[NL]; /* rows 2m-1 and 2m: lane words, then packed in place */
        TSR__RT_UNROLL
        for (int l = 0; l < NL; l++)
            if (l < 4 * cn) {
                uint32_t q1, q3;
                tsr__up2_q(ev, od, cn, l, &q1, &q3);
                odd[l] = q3p[l] + q1 + 0x00800080u;
                even[l] = q1p[l] + q3 + 0x00800080u;
                q1p[l] = q1, q3p[l] = q3;
            }
        TSR__RT_UNROLL
        for (int k = 0; k < 2 * TSR__UP2_CNMAX; k++)
            if (k < 2 * cn) {
                odd[k] = tsr__up2_perm(odd[2 * k], odd[2 * k + 1], 0x7351);
                even[k] = tsr__up2_perm(even[2 * k], even[2 * k + 1], 0x7351);
            }
        if (m > m0)
            tsr__rt_store8px(dst + (int64_t)(2 * m - 1) * dstride, 2 * w, cn, t, al_dst, odd);
        if (m < m0 + th && m < h)
            tsr__rt_store8px(dst + (int64_t)(2 * m) * dstride, 2 * w, cn, t, al_dst, even);
    }
}

#endif
