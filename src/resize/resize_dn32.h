/* Exact 3:2 downscale of u8 images (dst = 2/3 src on both axes, e.g. 1920x1080 -> 1280x720),
 * linear, area and nearest, the per-thread body of resize_cuda.cu's k_dn32_u8, written once as a
 * __host__ __device__ function so that a CPU test (tests/unit/test_resize_dn32_logic.c) runs
 * the kernel's own code for every thread without a GPU. Compiled as C11 (host) and as CUDA C++.
 *
 * When it applies: plan.c sets plan.dn32 only after checking the plan's tables entry by entry.
 * At 3:2 every output pair (2k, 2k+1) reads the source triple (3k, 3k+1, 3k+2) on each axis:
 *   linear (plan.dn32 == TSR__DN32_LINEAR; the separable u8 tables, no border columns):
 *     output 2k  -> (3k;   1536, 512), output 2k+1 -> (3k+1; 512, 1536) on both axes.
 *     plan.h's separable u8 formula with these numbers (the derivation is resize_up2.h's):
 *     the horizontal value is 32*u with u = 3*s[3k] + s[3k+1] (even outputs) or
 *     s[3k+1] + 3*s[3k+2] (odd outputs), u <= 1020; the vertical (b*(32u)) >> 16 is
 *     floor(3u/4) for b = 1536 and floor(u/4) for b = 512, so, with u_r the row-r values,
 *       output row 2k   = (floor(3u_a/4) + floor(u_b/4) + 2) >> 2,
 *       output row 2k+1 = (floor(u_b/4) + floor(3u_c/4) + 2) >> 2,   a, b, c = 3k, 3k+1, 3k+2;
 *     every value lies in [0, 255].
 *   area (plan.dn32 == TSR__DN32_AREA; OpenCV's DecimateAlpha tables): every output has two
 *     taps, (3k, 3k+1) for even outputs and (3k+1, 3k+2) for odd ones, in this order, and the
 *     weights of all even outputs are one pair (w[0], w[1]), of all odd outputs another (w[2],
 *     w[3]); w[4..7] the same for rows. plan.h's AREA formula is then, one rounding per
 *     operation (h starts at 0.f, and 0.f + x == x for the non-negative x of u8 data):
 *       h_r = S(r, 3k)*w0 + S(r, 3k+1)*w1 (even column) or S(r, 3k+1)*w2 + S(r, 3k+2)*w3 (odd),
 *       row 2k: acc = w4*h_a + w5*h_b, row 2k+1: acc = w6*h_b + w7*h_c, D = sat_u8(rne(acc)).
 *   nearest (plan.dn32 == TSR__DN32_NEAREST; XOFS/YOFS of output 2k are 3k, of 2k+1 are 3k+1):
 *     D(2k+q, 2j+p) = S(3k+q, 3j+p); row 3k+2 is not read.
 * A thread makes 8 output pixels (8t .. 8t+7) of one output row pair k from 12 source pixels of
 * three source rows, which no other thread reads: all 3 * 3cn words are loaded before any
 * arithmetic (one memory latency per thread). */
#ifndef TSR_RESIZE_DN32_H
#define TSR_RESIZE_DN32_H

#include "resize/plan.h"

#include "resize/resize_thread_io.h"

#include <math.h>
#include <stdint.h>

/* Source words per row and thread for the most channels (12 pixels x 4 bytes / 4). */
enum { TSR__DN32_CNMAX = TSR__RT_CNMAX, TSR__DN32_WORDS = 3 * TSR__DN32_CNMAX };

/* float product and sum with one rounding each (no contraction on either side). */
TSR__RT_FN float tsr__dn32_mul(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}

TSR__RT_FN float tsr__dn32_add(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}

/* sat_u8(rne(v)) for v >= 0 (non-negative weights and samples). */
TSR__RT_FN uint32_t tsr__dn32_round(float v)
{
#ifdef __CUDA_ARCH__
    const int r = __float2int_rn(v);
#else
    const long r = lrintf(v);
#endif
    return r > 255 ? 255u : (uint32_t)r;
}

/* The thread's 12*cn source bytes of row `row` (pixels 12t .. 12t+11) as little-endian words:
 * aligned 32-bit loads when `fast`, else byte by byte with the pixel index clamped into
 * [0, sw-1] (the values of clamped pixels only feed outputs that are not stored). */
TSR__RT_FN void tsr__dn32_fetch(const uint8_t *TSR__RT_RESTRICT row, int32_t sw, int cn, int32_t t,
                                int fast, uint32_t *wd)
{
    if (fast) {
        TSR__RT_UNROLL
        for (int k = 0; k < TSR__DN32_WORDS; k++)
            if (k < 3 * cn) {
                wd[k] = tsr__rt_ld32(row + (int64_t)12 * t * cn + 4 * k);
            }
        return;
    }
    TSR__RT_UNROLL
    for (int k = 0; k < TSR__DN32_WORDS; k++)
        wd[k] = 0;
    TSR__RT_UNROLL
    for (int i = 0; i < 4 * TSR__DN32_WORDS; i++)
        if (i < 12 * cn) {
            int32_t x = 12 * t + i / cn;
            x = x > sw - 1 ? sw - 1 : x;
            wd[i / 4] |= (uint32_t)row[(int64_t)x * cn + i % cn] << (8 * (i % 4));
        }
}

/* Byte i of a fetched row. */
TSR__RT_FN uint32_t tsr__dn32_byte(const uint32_t *wd, int i)
{
    return (wd[i / 4] >> (8 * (i % 4))) & 255u;
}

/* Thread t of output row pair k of an sw x sh -> dw x dh resize (dw = 2sw/3, dh = 2sh/3, both
 * even), `mode` a TSR__DN32_* form (w[8] are the area weights above; unused otherwise).
 * al_src: rows start 4-byte aligned; al_dst: 8-byte aligned (host-checked). */
TSR__RT_FN void tsr__dn32_thread(const uint8_t *TSR__RT_RESTRICT src, int32_t sstride,
                                 uint8_t *TSR__RT_RESTRICT dst, int32_t dstride, int32_t dw, int cn,
                                 int32_t t, int32_t k, int mode, const float *w, int al_src,
                                 int al_dst)
{
    const int32_t sw = dw / 2 * 3;
    const int fast = al_src && 12 * t + 12 <= sw;
    uint32_t wd[3][TSR__DN32_WORDS];
    TSR__RT_UNROLL
    for (int r = 0; r < (mode == TSR__DN32_NEAREST ? 2 : 3); r++)
        tsr__dn32_fetch(src + (int64_t)(3 * k + r) * sstride, sw, cn, t, fast, wd[r]);
    uint32_t out[2][2 * TSR__DN32_CNMAX];
    TSR__RT_UNROLL
    for (int i = 0; i < 2 * TSR__DN32_CNMAX; i++)
        out[0][i] = out[1][i] = 0;
    TSR__RT_UNROLL
    for (int e = 0; e < 4 * TSR__DN32_CNMAX; e++) {
        if (e >= 4 * cn)
            continue;
        /* element e = j*cn + c of the source triples: pixels 3j, 3j+1, 3j+2, channel c; outputs
         * 2j (even) and 2j+1 (odd), channel c */
        const int j = e / cn, c = e % cn, i0 = 3 * j * cn + c, oe = 2 * j * cn + c, oo = oe + cn;
        uint32_t v[2][2]; /* [row 2k / 2k+1][even / odd] */
        if (mode == TSR__DN32_NEAREST) {
            TSR__RT_UNROLL
            for (int q = 0; q < 2; q++) {
                v[q][0] = tsr__dn32_byte(wd[q], i0);
                v[q][1] = tsr__dn32_byte(wd[q], i0 + cn);
            }
        } else if (mode == TSR__DN32_LINEAR) {
            uint32_t ue[3], uo[3];
            TSR__RT_UNROLL
            for (int r = 0; r < 3; r++) {
                const uint32_t s0 = tsr__dn32_byte(wd[r], i0), s1 = tsr__dn32_byte(wd[r], i0 + cn),
                               s2 = tsr__dn32_byte(wd[r], i0 + 2 * cn);
                ue[r] = 3 * s0 + s1;
                uo[r] = s1 + 3 * s2;
            }
            v[0][0] = ((3 * ue[0] >> 2) + (ue[1] >> 2) + 2) >> 2;
            v[0][1] = ((3 * uo[0] >> 2) + (uo[1] >> 2) + 2) >> 2;
            v[1][0] = ((ue[1] >> 2) + (3 * ue[2] >> 2) + 2) >> 2;
            v[1][1] = ((uo[1] >> 2) + (3 * uo[2] >> 2) + 2) >> 2;
        } else {
            float he[3], ho[3];
            TSR__RT_UNROLL
            for (int r = 0; r < 3; r++) {
                const float s0 = (float)tsr__dn32_byte(wd[r], i0),
                            s1 = (float)tsr__dn32_byte(wd[r], i0 + cn),
                            s2 = (float)tsr__dn32_byte(wd[r], i0 + 2 * cn);
                he[r] = tsr__dn32_add(tsr__dn32_mul(s0, w[0]), tsr__dn32_mul(s1, w[1]));
                ho[r] = tsr__dn32_add(tsr__dn32_mul(s1, w[2]), tsr__dn32_mul(s2, w[3]));
            }
            v[0][0] = tsr__dn32_round(
                tsr__dn32_add(tsr__dn32_mul(w[4], he[0]), tsr__dn32_mul(w[5], he[1])));
            v[0][1] = tsr__dn32_round(
                tsr__dn32_add(tsr__dn32_mul(w[4], ho[0]), tsr__dn32_mul(w[5], ho[1])));
            v[1][0] = tsr__dn32_round(
                tsr__dn32_add(tsr__dn32_mul(w[6], he[1]), tsr__dn32_mul(w[7], he[2])));
            v[1][1] = tsr__dn32_round(
                tsr__dn32_add(tsr__dn32_mul(w[6], ho[1]), tsr__dn32_mul(w[7], ho[2])));
        }
        TSR__RT_UNROLL
        for (int q = 0; q < 2; q++) {
            out[q][oe / 4] |= v[q][0] << (8 * (oe % 4));
            out[q][oo / 4] |= v[q][1] << (8 * (oo % 4));
        }
    }
    tsr__rt_store8px(dst + (int64_t)(2 * k) * dstride, dw, cn, t, al_dst, out[0]);
    tsr__rt_store8px(dst + (int64_t)(2 * k + 1) * dstride, dw, cn, t, al_dst, out[1]);
}

#endif
