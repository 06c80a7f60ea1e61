/* k_cub4_u8<CN>: u8 cubic (plan ksize 4) as a row walker, for plans that are not vertical
 * downscales, horizontal scale <= CB_XMAX (resize_cuda.cu launches it; included there after
 * resize_cuda_kernels.cuh). It is correct for any scale; the launcher's rule is speed.
 *
 * A block of CB_NT threads makes an output tile of TE = CB_NT * CB_EPT consecutive row elements
 * x th rows; each thread owns CB_EPT consecutive elements.
 * Staging (once per block, stage_pairs as k_lin2_u8's): the tile's source rows [rlo, rlo + nr)
 * (the clamped span of its rows' taps) from byte column sb (16-aligned) as u16 tap pairs
 * s[j] | s[j + CN] << 8, W pairs per row; per output row its first tap row (YOFS - 1,
 * unclamped) and vertical coefficients. One barrier.
 * Horizontal taps, folded: an element's taps are the pixels clamp(sx - 1 + k, 0, sw - 1),
 * k = 0..3 (plan.h; sw the source width). They all lie in the four pixels from
 * s0 = clamp(sx - 1, 0, max(sw - 4, 0)) (clamped taps repeat pixel 0 or sw - 1, both inside that
 * window), so h = sum_m f_m S(s0 + m) with f_m the sum of the coefficients of the taps on pixel
 * s0 + m: the same integer as plan.h's (integer sums are exact in any order; window pixels past
 * the row's end, when sw < 4, have f_m = 0 and are staged as 0). The four bytes are the pairs at
 * the window's offset and 2 CN after it, and h is two dp2a (signed 16-bit f_m, unsigned bytes).
 * Walk: the thread keeps the horizontal values of the four current tap rows as floats (exact:
 * |h| <= 255 * 2600 < 2^24) and shifts in the rows each output row needs (none, one or several:
 * the branches are uniform over the block). Vertical, e < vec_end (OpenCV's SIMD form, plan.h):
 * f_k = h_k * (b_k / 2^22) rounded, f_0 + (f_1 + (f_2 + f_3)) rounded at each step (the same
 * __fmul_rn/__fadd_rn sequence as resize.cl), then clamped to [0, 255] in float and rounded to
 * the nearest integer, ties to even, by adding 1.5 * 2^23 (whose low mantissa byte is then the
 * value): the same byte as sat_u8(rne(x)), since clamping to integer bounds commutes with
 * rounding. e >= vec_end: the integer form (sum_k h_k b_k + 2^21) >> 22 from the exact h_k.
 * One 4-byte store per row where the destination is 4-byte aligned. A tile whose rows do not
 * fit (nr > nrmax, a span wider than W or YOFS decreasing: never with OpenCV's tables, checked)
 * takes the per-element formula. */
#ifndef TSR_RESIZE_CUDA_CUB4_CUH
#define TSR_RESIZE_CUDA_CUB4_CUH

enum { CB_NT = 128, CB_EPT = 4, CB_THMAX = 32, CB_XMAX = 4, CB_SMEM = 44 * 1024 };

/* First pixel of the four that hold output column dx's taps (see above); host and device. */
__host__ __device__ __forceinline__ int cb_window(int sx, int sw)
{
    const int hi = sw > 4 ? sw - 4 : 0;
    return sx - 1 < 0 ? 0 : sx - 1 > hi ? hi : sx - 1;
}

/* c + the dot product of a's two signed 16-bit halves with b's bytes 0, 1 (lo) or 2, 3 (hi),
 * unsigned (PTX dp2a with mixed operand types; CUDA's intrinsics take both signed or both
 * unsigned). */
__device__ __forceinline__ int cb_dp2a_lo(uint a, uint b, int c)
{
    int d;
    asm("dp2a.lo.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}
__device__ __forceinline__ int cb_dp2a_hi(uint a, uint b, int c)
{
    int d;
    asm("dp2a.hi.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

/* R = the horizontal values of staged row `row` for the thread's elements (as floats). */
template <int CN>
__device__ __forceinline__ void cb_h(float (&R)[CB_EPT], const unsigned short *row,
                                     const int (&off)[CB_EPT], const uint (&f01)[CB_EPT],
                                     const uint (&f23)[CB_EPT])
{
#pragma unroll
    for (int i = 0; i < CB_EPT; i++) {
        const uint s4 = __byte_perm(row[off[i]], row[off[i] + 2 * CN], 0x5410);
        R[i] = (float)cb_dp2a_hi(f23[i], s4, cb_dp2a_lo(f01[i], s4, 0));
    }
}

/* The SIMD-form vertical pass from tap rows a..d (top first): v[i]'s low byte is the output. */
__device__ __forceinline__ void cb_v(const float (&a)[CB_EPT], const float (&b)[CB_EPT],
                                     const float (&c)[CB_EPT], const float (&d)[CB_EPT], float4 bf,
                                     uint (&v)[CB_EPT])
{
#pragma unroll
    for (int i = 0; i < CB_EPT; i++) {
        float acc = __fmul_rn(d[i], bf.w);
        acc = __fadd_rn(__fmul_rn(c[i], bf.z), acc);
        acc = __fadd_rn(__fmul_rn(b[i], bf.y), acc);
        acc = __fadd_rn(__fmul_rn(a[i], bf.x), acc);
        v[i] = __float_as_uint(__fadd_rn(fminf(fmaxf(acc, 0.f), 255.f), 12582912.f));
    }
}

/* The integer-form vertical pass for the elements el + i >= vec_end (the others keep v). */
__device__ __forceinline__ void cb_v_int(const float (&a)[CB_EPT], const float (&b)[CB_EPT],
                                         const float (&c)[CB_EPT], const float (&d)[CB_EPT],
                                         int4 bi, int el, int vec_end, uint (&v)[CB_EPT])
{
#pragma unroll
    for (int i = 0; i < CB_EPT; i++) {
        const int s = (int)a[i] * bi.x + (int)b[i] * bi.y + (int)c[i] * bi.z + (int)d[i] * bi.w;
        if (el + i >= vec_end)
            v[i] = (uint)min(max((s + (1 << 21)) >> 22, 0), 255);
    }
}

template <int CN>
__global__ void __launch_bounds__(CB_NT)
    k_cub4_u8(const uchar *__restrict__ src, uchar *__restrict__ dst, const uchar *__restrict__ tab,
              rk_params p, int th, int W, int nrmax, int al16, int vst)
{
    enum { TE = CB_NT * CB_EPT };
    extern __shared__ int4 cbsm[];
    unsigned short *rows = (unsigned short *)cbsm;
    __shared__ int s_top[CB_THMAX];
    __shared__ __align__(16) int s_b[CB_THMAX][4];
    __shared__ __align__(16) float s_bf[CB_THMAX][4];
    const int n = p.dw * CN, rb = p.sw * CN, t = threadIdx.x;
    const int e0 = blockIdx.x * TE, dy0 = blockIdx.y * th, dy1 = min(dy0 + th, p.dh);
    const int *xofs = rk_ti(tab, p, RK_XOFS), *yofs = rk_ti(tab, p, RK_YOFS);
    const short *xc = (const short *)(tab + p.off[RK_XCOEF]);
    const short *yc = (const short *)(tab + p.off[RK_YCOEF]);
    const int sb = (cb_window(__ldg(xofs + e0 / CN), p.sw) * CN) & ~15;
    const int np = (cb_window(__ldg(xofs + (min(e0 + TE, n) - 1) / CN), p.sw) + 4) * CN - sb;
    const int rlo = rk_clampi(__ldg(yofs + dy0) - 1, 0, p.sh - 1);
    const int nr = rk_clampi(__ldg(yofs + dy1 - 1) + 2, 0, p.sh - 1) - rlo + 1;
    int bad = nr > nrmax || np > W;
    /* table reads first: their latency overlaps the staging's */
    if (t < dy1 - dy0) {
        const int dy = dy0 + t, top = __ldg(yofs + dy) - 1;
        bad |= rk_clampi(top, 0, p.sh - 1) < rlo || rk_clampi(top + 3, 0, p.sh - 1) >= rlo + nr;
        bad |= t > 0 && top < __ldg(yofs + dy - 1) - 1; /* the walk needs YOFS non-decreasing */
        s_top[t] = top;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int b = __ldg(yc + (size_t)dy * 4 + k);
            s_b[t][k] = b;
            s_bf[t][k] = __fmul_rn((float)b, 1.f / 4194304.f); /* exact: a power of two */
        }
    }
    if (!bad)
        stage_pairs<CN, CB_NT>(rows, W, src, p.sstride, rlo, nr, sb, np, rb, al16, t);
    if (__syncthreads_or(bad)) {
        for (int i = t; i < (dy1 - dy0) * TE; i += CB_NT) {
            const int q = i / TE, e = e0 + i - q * TE;
            if (e < n)
                rk_separable(src, dst, tab, p, dy0 + q, e);
        }
        return;
    }
    const int el = e0 + t * CB_EPT;
    if (el >= n)
        return;
    /* this thread's elements: window offsets and folded coefficients (clamped to the row's
     * last element; only elements < n are stored) */
    int off[CB_EPT];
    uint f01[CB_EPT], f23[CB_EPT];
#pragma unroll
    for (int i = 0; i < CB_EPT; i++) {
        const int e = min(el + i, n - 1), dx = e / CN, sx = __ldg(xofs + dx);
        const int s0 = cb_window(sx, p.sw);
        off[i] = s0 * CN + (e - dx * CN) - sb;
        int f[4] = {0, 0, 0, 0};
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int m = rk_clampi(sx - 1 + k, 0, p.sw - 1) - s0;
            const int c = __ldg(xc + dx * 4 + k);
#pragma unroll
            for (int j = 0; j < 4; j++)
                f[j] += j == m ? c : 0;
        }
        f01[i] = (uint)(ushort)f[0] | (uint)f[1] << 16;
        f23[i] = (uint)(ushort)f[2] | (uint)f[3] << 16;
    }
    const int full = vst && el + CB_EPT <= n, tail = el + CB_EPT > p.vec_end;
    /* the ring: rows top .. top + 3's horizontal values, row top in slot ph (slots R0..R3 named
     * at compile time in each case of the switches, so rows enter without register moves) */
    float R0[CB_EPT], R1[CB_EPT], R2[CB_EPT], R3[CB_EPT];
    int top = s_top[0] - 4, ph = 0;
    uchar *dp = dst + (size_t)dy0 * p.dstride + el;
    for (int q = 0; q < dy1 - dy0; q++, dp += p.dstride) {
        const int want = s_top[q];
        if (want - top > 4)
            top = want - 4;
        for (; top < want; top++, ph = (ph + 1) & 3) {
            const unsigned short *row = rows + (rk_clampi(top + 4, 0, p.sh - 1) - rlo) * W;
            switch (ph) {
            case 0: cb_h<CN>(R0, row, off, f01, f23); break;
            case 1: cb_h<CN>(R1, row, off, f01, f23); break;
            case 2: cb_h<CN>(R2, row, off, f01, f23); break;
            default: cb_h<CN>(R3, row, off, f01, f23); break;
            }
        }
        const float4 bf = *(const float4 *)s_bf[q];
        uint v[CB_EPT];
        switch (ph) {
        case 0: cb_v(R0, R1, R2, R3, bf, v); break;
        case 1: cb_v(R1, R2, R3, R0, bf, v); break;
        case 2: cb_v(R2, R3, R0, R1, bf, v); break;
        default: cb_v(R3, R0, R1, R2, bf, v); break;
        }
        if (tail) {
            const int4 bi = *(const int4 *)s_b[q];
            switch (ph) {
            case 0: cb_v_int(R0, R1, R2, R3, bi, el, p.vec_end, v); break;
            case 1: cb_v_int(R1, R2, R3, R0, bi, el, p.vec_end, v); break;
            case 2: cb_v_int(R2, R3, R0, R1, bi, el, p.vec_end, v); break;
            default: cb_v_int(R3, R0, R1, R2, bi, el, p.vec_end, v); break;
            }
        }
        if (full) {
            *(uint *)dp = __byte_perm(__byte_perm(v[0], v[1], 0x0040),
                                      __byte_perm(v[2], v[3], 0x0040), 0x5410);
        } else {
#pragma unroll
            for (int i = 0; i < CB_EPT; i++)
                if (el + i < n)
                    dp[i] = (uchar)v[i];
        }
    }
}

#endif
