/* Workbench variants of u8 3-channel cubic (OpenCV INTER_CUBIC, plan.h's SEPARABLE path with
 * ksize 4), included by resize_workbench.cu. Not the library: candidates for replacing
 * k_walk_u8<4, 3> / k_stile_u8<4, 3>, each checked there against the reference backend.
 *
 * cw_cubic<PX>: a row walker like k_walk_u8, cut down to fewer instructions per output element:
 *   - a thread owns PX consecutive output pixels (3 PX elements), so the per-row work that does
 *     not depend on the element (row coefficients, loop, ring phase) is shared by 3 PX elements,
 *     and stores 3 PX bytes as 3 PX / 4 aligned 32-bit words;
 *   - per-column window start and folded coefficients come from a host table (cw_col), not from
 *     XOFS/XCOEF and the clamping loop;
 *   - the tile's source rows are staged as tap quads: quad j of a staged row holds the bytes of
 *     elements j, j + 3, j + 6, j + 9 (an element's 4 horizontal taps of one channel), so one
 *     horizontal value is one 32-bit shared load and two dp2a (k_walk_u8: two 16-bit loads, a
 *     byte permute, two dp2a and an int-to-float conversion);
 *   - the conversion to float is folded into the arithmetic (see "exactness" below).
 *
 * Exactness (plan.h, u8 cubic):
 *   Horizontal: h = sum_m f_m S(s0 + m), f_m the folded coefficients (resize_cuda_walk.cuh's
 *   argument: the clamped taps of a column all lie in the 4 pixels from s0 = wk_window; integer
 *   sums are exact in any order). |f_m| <= 2^15 (int16: the folded sums of OpenCV's cubic
 *   coefficients are within [-400, 2600]) and S <= 255, so |h| <= 4 * 255 * 2600 < 2^22.
 *   dp2a accumulates into c = 0x4B400000 (the bits of M = 1.5 * 2^23), giving the int bits of
 *   H = M + h: for |h| < 2^22, M + h lies in [2^23, 2^24), where floats have ulp 1 and the bits
 *   are 0x4B000000 + (M + h - 2^23) = 0x4B400000 + h. So H is the float M + h exactly.
 *   Vertical, e < vec_end (OpenCV's SIMD form): f_k = rn((float)h_k * bf_k), bf_k = b_k / 2^22
 *   (exact). fmaf(H, bf_k, -3 b_k) rounds H bf_k - 3 b_k = (M + h) bf_k - M bf_k = h bf_k once
 *   (M bf_k = 3 b_k is an integer below 2^14, exact): the same float as rn(h * bf_k), except that
 *   h = 0 gives +0 where the product may give -0; a zero's sign never changes the result (x + -0
 *   = x + +0 for x != 0, and an all-zero sum clamps to +0 before rounding). Then
 *   f_0 + (f_1 + (f_2 + f_3)) rounded at each step, clamped to [0, 255] in float and rounded to
 *   the nearest integer, ties to even, by adding M (resize_cuda_walk.cuh's form).
 *   Vertical, e >= vec_end: sat_u8((sum_k h_k b_k + 2^21) >> 22) with h_k = bits(H) - 0x4B400000.
 *
 * Staging: thread i of a block (NT threads) builds quads 4i .. 4i + 3 of a row from four aligned
 * 32-bit loads (the quads start 4-byte aligned in the row: sb below is a multiple of 4), bytes past
 * the row's end read as 0 (only ever multiplied by a zero coefficient). */
#ifndef TSR_RESIZE_WORKBENCH_CUBIC_CUH
#define TSR_RESIZE_WORKBENCH_CUBIC_CUH

enum { CW_THMAX = 32 };

/* One output column: window start s0 (pixel), folded coefficients f0 | f1 << 16, f2 | f3 << 16. */
struct cw_col {
    int s0;
    uint f01, f23;
    int pad;
};

/* One output row: unclamped first tap row YOFS - 1, coefficients as ints, b / 2^22 and -3 b. */
struct cw_row {
    int top, pad[3];
    int4 b;
    float4 bf, cb;
};

__device__ __forceinline__ int cw_dp2a_lo(uint a, uint b, int c)
{
    int d;
    asm("dp2a.lo.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}
__device__ __forceinline__ int cw_dp2a_hi(uint a, uint b, int c)
{
    int d;
    asm("dp2a.hi.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

/* Stages rows [rlo, rlo + nr) of the source as quads from element sb (a multiple of 4): np
 * quads per row (a multiple of 4), row r at q + r * np. rb: bytes in a source row. */
template <int NT>
__device__ __forceinline__ void cw_stage(uint *q, const uchar *src, int sstride, int rlo, int nr,
                                         int sb, int np, int rb, int al4, int t)
{
    const int ng = np >> 2, total = nr * ng;
    for (int i = t; i < total; i += NT) {
        const int r = i / ng, j = (i - r * ng) << 2, a = sb + j;
        const uchar *g = src + (size_t)(rlo + r) * sstride + a;
        uint w[4];
        if (al4 && a + 16 <= rb) {
            const uint *g4 = (const uint *)g;
            w[0] = __ldg(g4), w[1] = __ldg(g4 + 1), w[2] = __ldg(g4 + 2), w[3] = __ldg(g4 + 3);
        } else {
#pragma unroll
            for (int k = 0; k < 4; k++)
                w[k] = 0;
#pragma unroll
            for (int k = 0; k < 16; k++)
                if (a + k < rb)
                    w[k / 4] |= (uint)__ldg(g + k) << (8 * (k % 4));
        }
        /* quad k: bytes k, k + 3, k + 6, k + 9 of w (k + 9 <= 12) */
        uint4 o;
        o.x = __byte_perm(__byte_perm(w[0], w[1], 0x0630), w[2], 0x5210);
        o.y = __byte_perm(__byte_perm(w[0], w[1], 0x0741), w[2], 0x6210);
        o.z = __byte_perm(__byte_perm(w[0], w[1], 0x0052), w[2], 0x7410);
        o.w = __byte_perm(o.x, w[3], 0x4321); /* bytes 3, 6, 9 are o.x's 1, 2, 3 */
        *(uint4 *)(q + (size_t)r * np + j) = o;
    }
}

/* The ring's new row: R = horizontal values (as bits of M + h) of staged row `row`. */
template <int PX>
__device__ __forceinline__ void cw_h(float (&R)[3 * PX], const uint *row, const int (&off)[PX],
                                     const uint (&f01)[PX], const uint (&f23)[PX])
{
#pragma unroll
    for (int i = 0; i < PX; i++)
#pragma unroll
        for (int c = 0; c < 3; c++) {
            const uint s = row[off[i] + c];
            R[3 * i + c] = __int_as_float(cw_dp2a_hi(f23[i], s, cw_dp2a_lo(f01[i], s, 0x4B400000)));
        }
}

/* One output row from the ring (tap row k in slot (P + k) % 4): v[j] is element j as the bits
 * of rn(acc + M), acc clamped to [0, 255] first (C16 = 0: the low byte is the output) or not
 * (C16 = 1: the low 16 bits are rne(acc) as a signed 16-bit value, clamped by cw_pack;
 * |acc| <= 255 x 1.375^2 < 2^9, 1.375 the largest sum of |cubic weights|). Elements >= vec_end
 * get the integer form's byte. */
template <int PX, int P, int C16>
__device__ __forceinline__ void cw_v(const float (&R)[4][3 * PX], const cw_row &rw, int tail,
                                     int el, int vec_end, uint (&v)[3 * PX])
{
#pragma unroll
    for (int j = 0; j < 3 * PX; j++) {
        float acc = __fmaf_rn(R[(P + 3) % 4][j], rw.bf.w, rw.cb.w);
        acc = __fadd_rn(__fmaf_rn(R[(P + 2) % 4][j], rw.bf.z, rw.cb.z), acc);
        acc = __fadd_rn(__fmaf_rn(R[(P + 1) % 4][j], rw.bf.y, rw.cb.y), acc);
        acc = __fadd_rn(__fmaf_rn(R[P % 4][j], rw.bf.x, rw.cb.x), acc);
        if (!C16)
            acc = fminf(fmaxf(acc, 0.f), 255.f);
        v[j] = __float_as_uint(__fadd_rn(acc, 12582912.f));
    }
    if (tail) {
#pragma unroll
        for (int j = 0; j < 3 * PX; j++) {
            const int h0 = __float_as_int(R[P % 4][j]) - 0x4B400000;
            const int h1 = __float_as_int(R[(P + 1) % 4][j]) - 0x4B400000;
            const int h2 = __float_as_int(R[(P + 2) % 4][j]) - 0x4B400000;
            const int h3 = __float_as_int(R[(P + 3) % 4][j]) - 0x4B400000;
            const int s = h0 * rw.b.x + h1 * rw.b.y + h2 * rw.b.z + h3 * rw.b.w;
            if (el + j >= vec_end)
                v[j] = (uint)min(max((s + (1 << 21)) >> 22, 0), 255);
        }
    }
}

/* Output word w (elements 4w .. 4w + 3) from cw_v's values. C16 = 1: two elements' signed
 * 16-bit values per word, clamped to [0, 255] by 16x2 integer max/min (one instruction each on
 * sm_90, emulated elsewhere), then their low bytes packed. */
template <int C16> __device__ __forceinline__ uint cw_pack(const uint *v)
{
    if (!C16)
        return __byte_perm(__byte_perm(v[0], v[1], 0x0040), __byte_perm(v[2], v[3], 0x0040),
                           0x5410);
    const uint a = __vmins2(__vmaxs2(__byte_perm(v[0], v[1], 0x5410), 0u), 0x00ff00ffu);
    const uint b = __vmins2(__vmaxs2(__byte_perm(v[2], v[3], 0x5410), 0u), 0x00ff00ffu);
    return __byte_perm(a, b, 0x6420);
}

#define CW_PHASE(ph, STEP)                                                                         \
    switch (ph) {                                                                                  \
    case 0: STEP(0); break;                                                                        \
    case 1: STEP(1); break;                                                                        \
    case 2: STEP(2); break;                                                                        \
    default: STEP(3); break;                                                                       \
    }

/* Grid (ceil(dw / (NT PX)), ceil(dh / th)), NT threads; C16 picks cw_pack's clamp; dynamic shared
 * memory for the largest block's quads x rows (host: cw_geometry). */
template <int PX, int NT, int C16>
__global__ void __launch_bounds__(NT)
    cw_cubic(const uchar *__restrict__ src, uchar *__restrict__ dst,
             const cw_col *__restrict__ cols, const cw_row *__restrict__ rowt, int sw, int sh,
             int dw, int dh, int sstride, int dstride, int vec_end, int th, int al4, int vst)
{
    enum { TP = NT * PX };
    static_assert(PX % 4 == 0, "whole 32-bit output words per thread");
    extern __shared__ uint4 cwsm[];
    uint *q = (uint *)cwsm;
    __shared__ cw_row s_r[CW_THMAX];
    const int t = threadIdx.x, n = dw * 3, rb = sw * 3;
    const int p0 = blockIdx.x * TP, p1 = min(p0 + TP, dw) - 1;
    const int dy0 = blockIdx.y * th, dy1 = min(dy0 + th, dh);
    const int sb = (__ldg(&cols[p0].s0) * 3) & ~3;
    const int nq = ((__ldg(&cols[p1].s0) * 3 + 3 - sb) + 3) & ~3;
    const int rlo = min(max(__ldg(&rowt[dy0].top), 0), sh - 1);
    const int nr = min(max(__ldg(&rowt[dy1 - 1].top) + 3, 0), sh - 1) - rlo + 1;
    if (t < dy1 - dy0)
        s_r[t] = rowt[dy0 + t];
    cw_stage<NT>(q, src, sstride, rlo, nr, sb, nq, rb, al4, t);
    __syncthreads();
    const int px = p0 + t * PX;
    if (px >= dw)
        return;
    int off[PX];
    uint f01[PX], f23[PX];
#pragma unroll
    for (int i = 0; i < PX; i++) {
        const int4 c = __ldg((const int4 *)&cols[min(px + i, dw - 1)]);
        off[i] = c.x * 3 - sb, f01[i] = (uint)c.y, f23[i] = (uint)c.z;
    }
    const int el = px * 3, full = vst && px + PX <= dw;
    const int tail = el + 3 * PX > vec_end;
    float R[4][3 * PX];
    int top = s_r[0].top - 4, ph = 0;
    uchar *dp = dst + (size_t)dy0 * dstride + el;
    for (int k = 0; k < dy1 - dy0; k++, dp += dstride) {
        const int want = s_r[k].top;
        if (want - top > 4)
            top = want - 4;
        for (; top < want; top++, ph = (ph + 1) & 3) {
            const uint *row = q + (size_t)(min(max(top + 4, 0), sh - 1) - rlo) * nq;
#define TSR_CW_H(P) cw_h<PX>(R[P], row, off, f01, f23)
            CW_PHASE(ph, TSR_CW_H)
#undef TSR_CW_H
        }
        uint v[3 * PX];
        const cw_row rw = s_r[k];
#define TSR_CW_V(P) cw_v<PX, P, C16>(R, rw, tail, el, vec_end, v)
        CW_PHASE(ph, TSR_CW_V)
#undef TSR_CW_V
        uint wd[3 * PX / 4];
#pragma unroll
        for (int w = 0; w < 3 * PX / 4; w++)
            wd[w] = cw_pack<C16>(v + 4 * w);
        if (full) {
#pragma unroll
            for (int w = 0; w < 3 * PX / 4; w++)
                ((uint *)dp)[w] = wd[w];
        } else {
#pragma unroll
            for (int j = 0; j < 3 * PX; j++)
                if (el + j < n)
                    dp[j] = (uchar)(wd[j / 4] >> (8 * (j % 4)));
        }
    }
}

#endif
