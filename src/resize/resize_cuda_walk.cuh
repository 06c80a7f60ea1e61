/* k_walk_u8<KS, CN>: u8 cubic (KS = 4) and lanczos4 (KS = 8) as row walkers (resize_cuda.cu
 * launches them, for the plans its rule gives them; included there after
 * resize_cuda_kernels.cuh). Correct for any scale; the launcher's rule is speed.
 *
 * A block of WK_NT threads makes an output tile of TE = WK_NT * WK_EPT consecutive row elements
 * x th rows; each thread owns WK_EPT consecutive elements.
 * Staging (once per block, stage_pairs as k_lin2_u8's): the tile's source rows [rlo, rlo + nr)
 * (the clamped span of its rows' taps) from byte column sb (16-aligned) as u16 tap pairs
 * s[j] | s[j + CN] << 8, W pairs per row; per output row its first tap row
 * (YOFS - KS/2 + 1, unclamped) and vertical coefficients. One barrier.
 * Horizontal taps, folded: an element's taps are the pixels clamp(sx - KS/2 + 1 + k, 0, sw - 1),
 * k < KS (plan.h; sw the source width). They all lie in the KS pixels from
 * s0 = clamp(sx - KS/2 + 1, 0, max(sw - KS, 0)) (clamped taps repeat pixel 0 or sw - 1, both
 * inside that window), so h = sum_m f_m S(s0 + m) with f_m the sum of the coefficients of the
 * taps on pixel s0 + m: the same integer as plan.h's (integer sums are exact in any order;
 * window pixels past the row's end, when sw < KS, have f_m = 0 and are staged as 0). Each four
 * bytes of the window are two staged pairs (2 CN apart), and h is KS/2 dp2a (signed 16-bit f_m,
 * unsigned bytes).
 * Walk: the thread keeps the horizontal values of the KS current tap rows in a ring of registers
 * (slot named at compile time in each case of a switch on the ring's phase, so rows enter
 * without register moves) and computes the rows each output row needs as they enter (none,
 * one or several: the branches are uniform over the block).
 * Vertical (plan.h): cubic, e < vec_end (OpenCV's SIMD form): the ring holds floats (exact:
 * |h| <= 255 * 2600 < 2^24), f_k = h_k * (b_k / 2^22) rounded, f_0 + (f_1 + (f_2 + f_3)) rounded
 * at each step (resize.cl's __fmul_rn/__fadd_rn sequence), clamped to [0, 255] in float and
 * rounded to the nearest integer, ties to even, by adding 1.5 * 2^23 (whose low mantissa byte
 * is then the value): the byte sat_u8(rne(x)), since clamping to integer bounds commutes with
 * rounding. Cubic e >= vec_end and lanczos4 (vec_end 0 for u8): the integer form
 * sat_u8((sum_k h_k b_k + 2^21) >> 22) (lanczos4's ring holds ints).
 * One 4-byte store per row where the destination is 4-byte aligned. A tile whose rows do not
 * fit (nr > nrmax, a span wider than W or YOFS decreasing: never with OpenCV's tables, checked)
 * takes the per-element formula. */
#ifndef TSR_RESIZE_CUDA_WALK_CUH
#define TSR_RESIZE_CUDA_WALK_CUH

enum { WK_NT = 128, WK_EPT = 4, WK_THMAX = 32, WK_XMAX = 4, WK_SMEM = 44 * 1024 };

/* First pixel of the ks pixels that hold output column dx's taps (see above); host and device. */
__host__ __device__ __forceinline__ int wk_window(int sx, int sw, int ks)
{
    const int lo = sx - ks / 2 + 1, hi = sw > ks ? sw - ks : 0;
    return lo < 0 ? 0 : lo > hi ? hi : lo;
}

/* c + the dot product of a's two signed 16-bit halves with b's bytes 0, 1 (lo) or 2, 3 (hi),
 * unsigned (PTX dp2a with mixed operand types; CUDA's intrinsics take both signed or both
 * unsigned). */
__device__ __forceinline__ int wk_dp2a_lo(uint a, uint b, int c)
{
    int d;
    asm("dp2a.lo.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}
__device__ __forceinline__ int wk_dp2a_hi(uint a, uint b, int c)
{
    int d;
    asm("dp2a.hi.s32.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

/* The ring's values: floats for cubic's float vertical form, ints for lanczos4's integer one. */
template <int KS> struct wk_ring {
    typedef float T;
};
template <> struct wk_ring<8> {
    typedef int T;
};

/* R = the horizontal values of staged row `row` for the thread's elements; f[i][j] packs the
 * folded coefficients of window pixels 2j, 2j + 1 of element i. */
template <int KS, int CN, class T>
__device__ __forceinline__ void wk_h(T (&R)[WK_EPT], const unsigned short *row,
                                     const int (&off)[WK_EPT], const uint (&f)[WK_EPT][KS / 2])
{
#pragma unroll
    for (int i = 0; i < WK_EPT; i++) {
        int h = 0;
#pragma unroll
        for (int m = 0; m < KS / 4; m++) {
            const uint s4 =
                __byte_perm(row[off[i] + 4 * m * CN], row[off[i] + (4 * m + 2) * CN], 0x5410);
            h = wk_dp2a_hi(f[i][2 * m + 1], s4, wk_dp2a_lo(f[i][2 * m], s4, h));
        }
        R[i] = (T)h;
    }
}

/* The vertical pass of one output row from the ring whose tap row k is in slot (P + k) % KS:
 * v[i]'s low byte is element i's output (the integer form where fl = 0 or el + i >= vec_end). */
template <int KS, int P, class T>
__device__ __forceinline__ void wk_v(const T (&R)[KS][WK_EPT], const float *bf, const int *bi,
                                     int tail, int el, int vec_end, uint (&v)[WK_EPT])
{
    if (KS == 4) {
        const float4 b = *(const float4 *)bf;
#pragma unroll
        for (int i = 0; i < WK_EPT; i++) {
            float acc = __fmul_rn((float)R[(P + 3) % KS][i], b.w);
            acc = __fadd_rn(__fmul_rn((float)R[(P + 2) % KS][i], b.z), acc);
            acc = __fadd_rn(__fmul_rn((float)R[(P + 1) % KS][i], b.y), acc);
            acc = __fadd_rn(__fmul_rn((float)R[P % KS][i], b.x), acc);
            v[i] = __float_as_uint(__fadd_rn(fminf(fmaxf(acc, 0.f), 255.f), 12582912.f));
        }
    }
    if (KS == 8 || tail) {
        int b[KS];
#pragma unroll
        for (int k = 0; k < KS; k += 4) {
            const int4 w = *(const int4 *)(bi + k);
            b[k] = w.x, b[k + 1] = w.y, b[k + 2] = w.z, b[k + 3] = w.w;
        }
#pragma unroll
        for (int i = 0; i < WK_EPT; i++) {
            int s = 0;
#pragma unroll
            for (int k = 0; k < KS; k++)
                s += (int)R[(P + k) % KS][i] * b[k];
            if (KS == 8 || el + i >= vec_end)
                v[i] = (uint)min(max((s + (1 << 21)) >> 22, 0), 255);
        }
    }
}

/* Runs STEP(P) for the ring phase ph, P a compile-time constant (KS cases). */
#define WK_PHASE(KS, ph, STEP)                                                                     \
    switch (ph) {                                                                                  \
    case 0: STEP(0); break;                                                                        \
    case 1: STEP(1); break;                                                                        \
    case 2: STEP(2); break;                                                                        \
    case 3: STEP(3); break;                                                                        \
    case 4: STEP(4 % KS); break;                                                                   \
    case 5: STEP(5 % KS); break;                                                                   \
    case 6: STEP(6 % KS); break;                                                                   \
    default: STEP(7 % KS); break;                                                                  \
    }

template <int KS, int CN>
__global__ void __launch_bounds__(WK_NT)
    k_walk_u8(const uchar *__restrict__ src, uchar *__restrict__ dst, const uchar *__restrict__ tab,
              rk_params p, int th, int W, int nrmax, int al16, int vst)
{
    typedef typename wk_ring<KS>::T T;
    enum { TE = WK_NT * WK_EPT, KH = KS / 2 };
    extern __shared__ int4 wksm[];
    unsigned short *rows = (unsigned short *)wksm;
    __shared__ int s_top[WK_THMAX];
    __shared__ __align__(16) int s_b[WK_THMAX][KS];
    __shared__ __align__(16) float s_bf[WK_THMAX][4];
    const int n = p.dw * CN, rb = p.sw * CN, t = threadIdx.x;
    const int e0 = blockIdx.x * TE, dy0 = blockIdx.y * th, dy1 = min(dy0 + th, p.dh);
    const int *xofs = rk_ti(tab, p, RK_XOFS), *yofs = rk_ti(tab, p, RK_YOFS);
    const short *xc = (const short *)(tab + p.off[RK_XCOEF]);
    const short *yc = (const short *)(tab + p.off[RK_YCOEF]);
    const int sb = (wk_window(__ldg(xofs + e0 / CN), p.sw, KS) * CN) & ~15;
    const int np = (wk_window(__ldg(xofs + (min(e0 + TE, n) - 1) / CN), p.sw, KS) + KS) * CN - sb;
    const int rlo = rk_clampi(__ldg(yofs + dy0) - KH + 1, 0, p.sh - 1);
    const int nr = rk_clampi(__ldg(yofs + dy1 - 1) + KH, 0, p.sh - 1) - rlo + 1;
    int bad = nr > nrmax || np > W;
    /* table reads first: their latency overlaps the staging's */
    if (t < dy1 - dy0) {
        const int dy = dy0 + t, top = __ldg(yofs + dy) - KH + 1;
        bad |=
            rk_clampi(top, 0, p.sh - 1) < rlo || rk_clampi(top + KS - 1, 0, p.sh - 1) >= rlo + nr;
        bad |= t > 0 && top < __ldg(yofs + dy - 1) - KH + 1; /* the walk needs YOFS monotone */
        s_top[t] = top;
#pragma unroll
        for (int k = 0; k < KS; k++) {
            const int b = __ldg(yc + (size_t)dy * KS + k);
            s_b[t][k] = b;
            if (KS == 4)
                s_bf[t][k % 4] = __fmul_rn((float)b, 1.f / 4194304.f); /* exact: a power of 2 */
        }
    }
    if (!bad)
        stage_pairs<CN, WK_NT>(rows, W, src, p.sstride, rlo, nr, sb, np, rb, al16, t);
    if (__syncthreads_or(bad)) {
        for (int i = t; i < (dy1 - dy0) * TE; i += WK_NT) {
            const int q = i / TE, e = e0 + i - q * TE;
            if (e < n)
                rk_separable(src, dst, tab, p, dy0 + q, e);
        }
        return;
    }
    const int el = e0 + t * WK_EPT;
    if (el >= n)
        return;
    /* this thread's elements: window offsets and folded coefficients (clamped to the row's
     * last element; only elements < n are stored) */
    int off[WK_EPT];
    uint f[WK_EPT][KH];
#pragma unroll
    for (int i = 0; i < WK_EPT; i++) {
        const int e = min(el + i, n - 1), dx = e / CN, sx = __ldg(xofs + dx);
        const int s0 = wk_window(sx, p.sw, KS);
        off[i] = s0 * CN + (e - dx * CN) - sb;
        int fm[KS];
#pragma unroll
        for (int m = 0; m < KS; m++)
            fm[m] = 0;
#pragma unroll
        for (int k = 0; k < KS; k++) {
            const int m = rk_clampi(sx - KH + 1 + k, 0, p.sw - 1) - s0;
            const int c = __ldg(xc + dx * KS + k);
#pragma unroll
            for (int j = 0; j < KS; j++)
                fm[j] += j == m ? c : 0;
        }
#pragma unroll
        for (int j = 0; j < KH; j++)
            f[i][j] = (uint)(ushort)fm[2 * j] | (uint)fm[2 * j + 1] << 16;
    }
    const int full = vst && el + WK_EPT <= n, tail = KS == 4 && el + WK_EPT > p.vec_end;
    /* the ring: rows top .. top + KS - 1's horizontal values, row top in slot ph */
    T R[KS][WK_EPT];
    int top = s_top[0] - KS, ph = 0;
    uchar *dp = dst + (size_t)dy0 * p.dstride + el;
    for (int q = 0; q < dy1 - dy0; q++, dp += p.dstride) {
        const int want = s_top[q];
        if (want - top > KS)
            top = want - KS;
        for (; top < want; top++, ph = ph + 1 == KS ? 0 : ph + 1) {
            const unsigned short *row = rows + (rk_clampi(top + KS, 0, p.sh - 1) - rlo) * W;
#define TSR_WK_H(P) wk_h<KS, CN>(R[P], row, off, f)
            WK_PHASE(KS, ph, TSR_WK_H)
#undef TSR_WK_H
        }
        uint v[WK_EPT];
#define TSR_WK_V(P) wk_v<KS, P>(R, s_bf[q], s_b[q], tail, el, p.vec_end, v)
        WK_PHASE(KS, ph, TSR_WK_V)
#undef TSR_WK_V
        if (full) {
            *(uint *)dp = __byte_perm(__byte_perm(v[0], v[1], 0x0040),
                                      __byte_perm(v[2], v[3], 0x0040), 0x5410);
        } else {
#pragma unroll
            for (int i = 0; i < WK_EPT; i++)
                if (el + i < n)
                    dp[i] = (uchar)v[i];
        }
    }
}

#endif
