/* The CUDA resize's kernels (resize_cuda.cu launches them; included there, one translation
 * unit). The per-element arithmetic is resize.cl's, shared with the OpenCL backend.
 *
 *   k_generic      every path, depth and channel count; one thread per output element.
 *   k_up2_u8<CN>   u8 linear upscale by exactly 2 on both axes (plan.up2): resize_up2.h's
 *                  closed form, 8 output pixels x 2*th rows per thread.
 *   k_dn32_u8<CN,MODE> u8 linear, area and nearest downscale by exactly 3:2 on both axes
 *                  (plan.dn32): resize_dn32.h, 8 output pixels x 2 rows per thread.
 *   k_lin2_u8<CN,EPT> the other u8 linear and area plans with unit coefficient pairs (plan
 *                  unit_pairs) and horizontal scale <= LN_XMAX: output tiles of 128*EPT
 *                  elements x th rows, the tile's source rows staged in shared memory as u16 tap
 *                  pairs, each thread walking its EPT elements down the rows with the current
 *                  source row pair's horizontal values in registers (one __dp2a_lo each).
 *   k_stile_u8<KS,CN> the other u8 separable plans with 2 or 4 taps (cubic vertical
 *                  downscales, linear downscales beyond LN_XMAX): output tiles, horizontal pass
 *                  into shared memory, then the vertical pass.
 *   k_walk_u8<KS,CN> (resize_cuda_walk.cuh) u8 lanczos4 and the other u8 cubic plans: the
 *                  tile's source rows staged as tap pairs, each thread walking its 4 elements
 *                  down the rows with the KS current tap rows' horizontal values in registers.
 *   k_areaw_u8<MT> u8 fractional area (DecimateAlpha), <= MT column taps kept in registers,
 *                  4 elements per thread, R rows.
 *   k_area2_u8v<CN> u8 area-fast 2x2 cells (also OpenCV's linear at exactly half size), 4 output
 *                  pixels per thread, 8-byte loads, 4-byte stores (k_area2_u8 when unaligned).
 *   k_nearest4<PB> nearest, 4 output pixels of PB <= 4 bytes per thread, 4-byte stores
 *                  (k_nearest, one pixel per thread, for wider pixels).
 */
#ifndef TSR_RESIZE_CUDA_KERNELS_CUH
#define TSR_RESIZE_CUDA_KERNELS_CUH

__global__ void k_generic(const uchar *__restrict__ src, uchar *__restrict__ dst,
                          const uchar *__restrict__ tab, rk_params p)
{
    int n = p.dw * p.cn;
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= n)
        return;
    for (int dy = p.row0 + blockIdx.y; dy < p.row0 + p.rows; dy += gridDim.y)
        rk_element(src, dst, tab, p, dy, e);
}

__global__ void k_nearest(const uchar *__restrict__ src, uchar *__restrict__ dst,
                          const uchar *__restrict__ tab, rk_params p)
{
    int dx = blockIdx.x * blockDim.x + threadIdx.x;
    if (dx >= p.dw)
        return;
    int sx = rk_ti(tab, p, RK_XOFS)[dx];
    const int *yofs = rk_ti(tab, p, RK_YOFS);
    int px = p.cn * p.depth; /* bytes per pixel */
    for (int dy = p.row0 + blockIdx.y; dy < p.row0 + p.rows; dy += gridDim.y) {
        const uchar *s = src + (size_t)yofs[dy] * p.sstride + (size_t)sx * px;
        uchar *d = dst + (size_t)dy * p.dstride + (size_t)dx * px;
        if (px == 3) {
            d[0] = s[0], d[1] = s[1], d[2] = s[2];
        } else {
            for (int i = 0; i < px; i++)
                d[i] = s[i];
        }
    }
}

/* u8 area-fast with 2x2 cells: each thread makes 4 consecutive output pixels (4*cn elements)
 * from 8*cn source bytes of two rows; elements outside [0, fast_end) of full rows and partial
 * cells go through rk_area_fast. */
__global__ void k_area2_u8(const uchar *__restrict__ src, uchar *__restrict__ dst, rk_params p)
{
    int dx0 = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (dx0 >= p.dw)
        return;
    int cn = p.cn;
    for (int dy = p.row0 + blockIdx.y; dy < p.row0 + p.rows; dy += gridDim.y) {
        int e0 = dx0 * cn, e1 = min(dx0 + 4, p.dw) * cn;
        if (dy < p.full_h && e1 <= p.fast_end) {
            const uchar *r0 = src + (size_t)(2 * dy) * p.sstride + (size_t)2 * e0;
            const uchar *r1 = r0 + p.sstride;
            uchar *d = dst + (size_t)dy * p.dstride;
            for (int e = e0; e < e1; e++) {
                int j = 2 * (e - e0) - (e - e0) % cn; /* element of pixel 2dx within the run */
                int s = r0[j] + r0[j + cn] + r1[j] + r1[j + cn];
                d[e] = (uchar)((s + 2) >> 2);
            }
        } else {
            for (int e = e0; e < e1; e++)
                rk_area_fast(src, dst, p, dy, e);
        }
    }
}

/* Fused separable u8 resize, output tiles (run 10). One block of TE = TW*CN threads (CN a
 * template parameter: TW = 256/128/64/64 pixels for CN = 1/2/3/4, so TE = 256, 256, 192, 256
 * elements) takes output elements [bx*TE, +TE) of output rows [dy0, dy0 + th), th <= 32 chosen
 * on the host so that the tile's source rows fit in ST_SMEM. On entry every thread computes the
 * tile's clamped source row span [rlo, rlo + nr) from YOFS of the tile's first and last rows
 * (monotone), and threads < th stage their output row's KS row offsets (clamped, relative to
 * rlo) and coefficients in shared memory. Phase 1 (horizontal): thread t owns element column
 * e0 + t (taps and coefficients in registers, read once; border columns use the same formula
 * with the clamped taps: for KS == 2, dx >= xmax is S*2048 + S*0 with both taps on S) and
 * computes it for the nr source rows, UNR rows' loads in flight at a time, into shared memory:
 * h >> 4 as int16 for KS == 2 (all the linear vertical formula uses; 0 <= h >> 4 <= 32640),
 * h as int32 for KS == 4. Phase 2 (vertical): thread t takes EPT consecutive elements (8 for
 * KS == 2, 4 for cubic: one 16-byte shared load per tap) of rows q, q + EPT, ... and writes
 * them with one 8-/4-byte store when the host found the destination aligned (`vst`), byte
 * stores at the row's end. The arithmetic is plan.h's: KS == 2 computes (b*x) >> 16 as
 * __mulhi(b*65536, x) (the high word of the exact product); cubic keeps the vec_end split, the
 * nested __fmul_rn/__fadd_rn form below vec_end (b*(1/2^22) staged as float: exact, a power
 * of two) and (sum + 2^21) >> 22 above. If a tile's rows do not fit (nr > nrmax, or a row
 * outside the span: never with OpenCV's monotone YOFS, checked anyway) the whole block takes
 * the per-element formula (rk_separable) instead. */
enum { ST_THMAX = 32, ST_SMEM = 28 * 1024 };

template <int CN> struct st_shape {
    enum { TW = CN == 1 ? 256 : CN == 2 ? 128 : 64, TE = TW * CN };
};
template <int KS> struct st_h {
    typedef int T;
};
template <> struct st_h<2> {
    typedef short T;
};

template <int KS, int CN>
__global__ void __launch_bounds__(st_shape<CN>::TE)
    k_stile_u8(const uchar *__restrict__ src, uchar *__restrict__ dst,
               const uchar *__restrict__ tab, rk_params p, int th, int nrmax, int vst)
{
    typedef typename st_h<KS>::T HT;
    enum {
        TE = st_shape<CN>::TE,
        NT = TE,
        EPT = KS == 2 ? 8 : 4,
        TPR = TE / EPT, /* threads per output row in phase 2 */
        RPP = NT / TPR, /* rows per pass (= EPT) */
        UNR = KS == 2 ? 8 : 4
    };
    extern __shared__ int4 smem4[];
    HT *hs = (HT *)smem4;
    __shared__ int s_r[ST_THMAX][KS];
    __shared__ int s_b[ST_THMAX][KS];
    __shared__ float s_bf[KS == 4 ? ST_THMAX : 1][KS];
    const int kh = KS / 2, n = p.dw * CN, t = threadIdx.x;
    const int e0 = blockIdx.x * TE, dy0 = blockIdx.y * th, dy1 = min(dy0 + th, p.dh);
    const int rows = dy1 - dy0;
    const int *yofs = rk_ti(tab, p, RK_YOFS);
    const int rlo = rk_clampi(__ldg(yofs + dy0) - kh + 1, 0, p.sh - 1);
    const int rhi = rk_clampi(__ldg(yofs + dy1 - 1) + kh, 0, p.sh - 1);
    const int nr = rhi - rlo + 1;
    int bad = nr > nrmax;
    if (t < rows) {
        const short *yc = (const short *)(tab + p.off[RK_YCOEF]);
        const int dy = dy0 + t, sy = __ldg(yofs + dy);
#pragma unroll
        for (int k = 0; k < KS; k++) {
            int r = rk_clampi(sy - kh + 1 + k, 0, p.sh - 1) - rlo;
            bad |= r < 0 || r >= nr;
            s_r[t][k] = r * TE;
            int b = __ldg(yc + (size_t)dy * KS + k);
            s_b[t][k] = KS == 2 ? b * 65536 : b;
            if (KS == 4)
                s_bf[t % (KS == 4 ? ST_THMAX : 1)][k] = __fmul_rn((float)b, 1.f / 4194304.f);
        }
    }
    if (!bad) {
        const int *xofs = rk_ti(tab, p, RK_XOFS);
        const short *xc = (const short *)(tab + p.off[RK_XCOEF]);
        const int e = min(e0 + t, n - 1);
        const int dx = e / CN, c = e - dx * CN;
        const int sx = __ldg(xofs + dx);
        int off[KS], co[KS];
#pragma unroll
        for (int k = 0; k < KS; k++) {
            if (KS == 2) {
                const int inside = dx < p.xmax;
                off[k] = (inside ? sx + k : sx) * CN + c;
                co[k] = inside ? __ldg(xc + dx * 2 + k) : (k == 0 ? 2048 : 0);
            } else {
                off[k] = rk_clampi(sx - kh + 1 + k, 0, p.sw - 1) * CN + c;
                co[k] = __ldg(xc + dx * KS + k);
            }
        }
        const uchar *row = src + (size_t)rlo * p.sstride;
        const int ss = p.sstride;
        HT *h = hs + t;
        int r = 0;
        for (; r + UNR <= nr; r += UNR) {
            int v[UNR];
#pragma unroll
            for (int u = 0; u < UNR; u++) {
                v[u] = 0;
#pragma unroll
                for (int k = 0; k < KS; k++)
                    v[u] += (int)__ldg(row + (size_t)u * ss + off[k]) * co[k];
            }
#pragma unroll
            for (int u = 0; u < UNR; u++)
                h[(r + u) * TE] = (HT)(KS == 2 ? v[u] >> 4 : v[u]);
            row += (size_t)UNR * ss;
        }
        for (; r < nr; r++) {
            int v = 0;
#pragma unroll
            for (int k = 0; k < KS; k++)
                v += (int)__ldg(row + off[k]) * co[k];
            h[r * TE] = (HT)(KS == 2 ? v >> 4 : v);
            row += ss;
        }
    }
    if (__syncthreads_or(bad)) {
        for (int i = t; i < rows * TE; i += NT) {
            const int q = i / TE, e = e0 + i - q * TE;
            if (e < n)
                rk_separable(src, dst, tab, p, dy0 + q, e);
        }
        return;
    }

    const int el = (t % TPR) * EPT, e = e0 + el;
    if (e >= n)
        return;
    const int full = vst && e + EPT <= n;
    for (int q = t / TPR; q < rows; q += RPP) {
        int v[EPT];
        if (KS == 2) {
            const int b0 = s_b[q][0], b1 = s_b[q][1];
            const int4 w0 = *(const int4 *)(hs + s_r[q][0] + el);
            const int4 w1 = *(const int4 *)(hs + s_r[q][1] + el);
            const int a0[4] = {w0.x, w0.y, w0.z, w0.w}, a1[4] = {w1.x, w1.y, w1.z, w1.w};
#pragma unroll
            for (int i = 0; i < EPT; i++) {
                const int x0 = (i & 1) ? a0[i >> 1] >> 16 : (int)(short)(a0[i >> 1] & 0xffff);
                const int x1 = (i & 1) ? a1[i >> 1] >> 16 : (int)(short)(a1[i >> 1] & 0xffff);
                v[i] = (__mulhi(b0, x0) + __mulhi(b1, x1) + 2) >> 2;
                v[i] = min(max(v[i], 0), 255);
            }
        } else {
            int hv[KS][4];
#pragma unroll
            for (int k = 0; k < KS; k++) {
                const int4 w = *(const int4 *)(hs + s_r[q][k] + el);
                hv[k][0] = w.x, hv[k][1] = w.y, hv[k][2] = w.z, hv[k][3] = w.w;
            }
            if (e + EPT <= p.vec_end) {
                float bf[KS];
#pragma unroll
                for (int k = 0; k < KS; k++)
                    bf[k] = s_bf[q % (KS == 4 ? ST_THMAX : 1)][k];
#pragma unroll
                for (int i = 0; i < EPT; i++) {
                    float acc = 0.f;
#pragma unroll
                    for (int k = KS - 1; k >= 0; k--) {
                        const float f = __fmul_rn((float)hv[k][i & 3], bf[k]);
                        acc = k == KS - 1 ? f : __fadd_rn(f, acc);
                    }
                    v[i] = min(max(__float2int_rn(acc), 0), 255);
                }
            } else {
#pragma unroll
                for (int i = 0; i < EPT; i++) {
                    if (e + i < p.vec_end) {
                        float acc = 0.f;
#pragma unroll
                        for (int k = KS - 1; k >= 0; k--) {
                            const float f = __fmul_rn((float)hv[k][i & 3],
                                                      s_bf[q % (KS == 4 ? ST_THMAX : 1)][k]);
                            acc = k == KS - 1 ? f : __fadd_rn(f, acc);
                        }
                        v[i] = __float2int_rn(acc);
                    } else {
                        int s = 0;
#pragma unroll
                        for (int k = 0; k < KS; k++)
                            s += hv[k][i & 3] * s_b[q][k];
                        v[i] = (s + (1 << 21)) >> 22;
                    }
                    v[i] = min(max(v[i], 0), 255);
                }
            }
        }
        uchar *dp = dst + (size_t)(dy0 + q) * p.dstride + e;
        if (full) {
            const uint w0 = __byte_perm(__byte_perm(v[0], v[1], 0x0040),
                                        __byte_perm(v[2], v[3], 0x0040), 0x5410);
            if (EPT == 8) {
                const uint w1 = __byte_perm(__byte_perm(v[4 % EPT], v[5 % EPT], 0x0040),
                                            __byte_perm(v[6 % EPT], v[7 % EPT], 0x0040), 0x5410);
                *(uint2 *)dp = make_uint2(w0, w1);
            } else {
                *(uint *)dp = w0;
            }
        } else {
#pragma unroll
            for (int i = 0; i < EPT; i++)
                if (e + i < n)
                    dp[i] = (uchar)v[i];
        }
    }
}

/* u8 separable plans with 2 taps whose coefficient pairs are unit pairs (plan.h unit_pairs:
 * linear and area), horizontal scale <= LN_XMAX: a block of LN_NT threads makes an output tile of
 * TE = LN_NT*EPT consecutive row elements x th rows.
 * Staging (once per block): the tile's source rows [rlo, rhi] (the clamped YOFS span) from byte
 * column sb (16-aligned), W positions per row, as tap pairs: pair j of a row is the u16
 * s[sb + j] | s[sb + j + CN] << 8 (read with 16-byte loads where the image is 16-byte aligned;
 * bytes past the row end are 0 and only ever meet coefficient 0); the rows' pair offsets and
 * vertical coefficients as one int4 per output row. One barrier.
 * Walk: each thread owns EPT consecutive elements (pair offset and packed coefficients c0 | c1 <<
 * 16 in registers; beyond xmax the pair (2048, 0) on the element's own tap, as plan.h) and walks
 * the th rows keeping x = h >> 4 of the current top and bottom source rows in two register arrays,
 * h = c0*s0 + c1*s1 by one __dp2a_lo. When the row pair moves down by one (the bottom row becomes
 * the top), only the new bottom row is computed, into the array that held the old top, and the
 * arrays swap roles (two inlined copies of the row step, no register moves); the branches are
 * uniform over the block. Vertical: (__mulhi(b0 << 16, x0) + __mulhi(b1 << 16, x1) + 2) >> 2,
 * which lies in [0, 255] for unit pairs (each product <= b*32640/65536, b0 + b1 = 2048), so no
 * clamp. One EPT-byte store per row. A tile whose rows do not fit (nr > nrmax or a row outside
 * the span: never with OpenCV's monotone YOFS, checked anyway) takes the per-element formula. */
enum { LN_NT = 128, LN_THMAX = 32, LN_XMAX = 4, LN_SMEM = 40 * 1024, LN_SB = 4 };

/* First-tap byte offsets (from byte column sb) and packed coefficients c0 | c1 << 16 of the EPT
 * elements from el (clamped to the row's last element); beyond xmax the pair (2048, 0) on the
 * element's own tap, as plan.h. */
template <int CN, int EPT>
__device__ __forceinline__ void lin2_taps(const int *xofs, const short *xc, const rk_params &p,
                                          int el, int sb, int (&off)[EPT], uint (&cc)[EPT])
{
#pragma unroll
    for (int i = 0; i < EPT; i++) {
        const int e = min(el + i, p.dw * CN - 1), dx = e / CN;
        off[i] = __ldg(xofs + dx) * CN + (e - dx * CN) - sb;
        cc[i] = dx < p.xmax ? (uint)(ushort)__ldg(xc + dx * 2) | (uint)__ldg(xc + dx * 2 + 1) << 16
                            : 2048u;
    }
}

/* x = (c0*s0 + c1*s1) >> 4 for EPT elements of the staged row at `row` (u16 pairs). */
template <int EPT>
__device__ __forceinline__ void lin2_h(int (&x)[EPT], const unsigned short *row,
                                       const int (&off)[EPT], const uint (&cc)[EPT])
{
#pragma unroll
    for (int i = 0; i < EPT; i++)
        x[i] = (int)(__dp2a_lo(cc[i], (uint)row[off[i]], 0u) >> 4);
}

/* One output row from top x0 and bottom x1 (b = coefficient << 16), stored at dp. */
template <int EPT>
__device__ __forceinline__ void lin2_v(const int (&x0)[EPT], const int (&x1)[EPT], int b0, int b1,
                                       uchar *dp, int full, int m)
{
    uint w[EPT / 4];
#pragma unroll
    for (int j = 0; j < EPT / 4; j++) {
        int v[4];
#pragma unroll
        for (int k = 0; k < 4; k++)
            v[k] = (__mulhi(b0, x0[4 * j + k]) + __mulhi(b1, x1[4 * j + k]) + 2) >> 2;
        w[j] =
            __byte_perm(__byte_perm(v[0], v[1], 0x0040), __byte_perm(v[2], v[3], 0x0040), 0x5410);
    }
    if (full) {
        if (EPT == 8)
            *(uint2 *)dp = make_uint2(w[0], w[(EPT / 4) - 1]);
        else
            *(uint *)dp = w[0];
    } else {
#pragma unroll
        for (int i = 0; i < EPT; i++)
            if (i < m)
                dp[i] = (uchar)(w[i / 4] >> (8 * (i % 4)));
    }
}

/* One row step with T holding source row curT (top) and U row curU (bottom); rows o0/o1 (pair
 * offsets) are needed. Returns 1 when the pair moved down by one: then U is the new top and T
 * (recomputed) the new bottom, and the caller swaps the roles. */
template <int EPT>
__device__ __forceinline__ int lin2_step(int (&T)[EPT], int (&U)[EPT], int &curT, int &curU, int4 r,
                                         const unsigned short *rows, const int (&off)[EPT],
                                         const uint (&cc)[EPT], uchar *dp, int full, int m)
{
    if (r.x == curU && r.x != curT) {
        lin2_h(T, rows + r.y, off, cc);
        curT = curU, curU = r.y;
        lin2_v(U, T, r.z, r.w, dp, full, m);
        return 1;
    }
    if (r.x != curT)
        lin2_h(T, rows + r.x, off, cc);
    if (r.y != curU)
        lin2_h(U, rows + r.y, off, cc);
    curT = r.x, curU = r.y;
    lin2_v(T, U, r.z, r.w, dp, full, m);
    return 0;
}

/* Stages source rows [rlo, rlo + nr), byte columns [sb, sb + np) (sb 16-aligned; bytes at or
 * past rb, the row's end, read as 0), into rows (W pairs apart) as u16 tap pairs: pair j of a
 * row is s[sb + j] | s[sb + j + CN] << 8. The NT threads of the block (this one is t) share the
 * 16-byte chunks; al16: the image is 16-byte aligned (16-byte loads). The caller synchronises. */
template <int CN, int NT>
__device__ __forceinline__ void stage_pairs(unsigned short *rows, int W, const uchar *src,
                                            int sstride, int rlo, int nr, int sb, int np, int rb,
                                            int al16, int t)
{
    /* LN_SB chunks per thread and round: all their loads are issued before the first is
     * converted, so a round costs one memory latency, not LN_SB */
    const int nch = (np + 15) >> 4, total = nr * nch;
    for (int i0 = t; i0 < total; i0 += NT * LN_SB) {
        uint w[LN_SB][5];
#pragma unroll
        for (int b = 0; b < LN_SB; b++) {
            const int i = i0 + b * NT, r = i / nch, c = (i - r * nch) << 4;
            if (i >= total)
                break;
            const uchar *g = src + (size_t)(rlo + r) * sstride + sb + c;
            if (al16 && sb + c + 20 <= rb) {
                const int4 v = __ldg((const int4 *)g);
                w[b][0] = v.x, w[b][1] = v.y, w[b][2] = v.z, w[b][3] = v.w;
                w[b][4] = __ldg((const uint *)(g + 16));
            } else {
#pragma unroll
                for (int k = 0; k < 5; k++)
                    w[b][k] = 0;
#pragma unroll
                for (int k = 0; k < 20; k++)
                    if (sb + c + k < rb)
                        w[b][k / 4] |= (uint)__ldg(g + k) << (8 * (k % 4));
            }
        }
#pragma unroll
        for (int b = 0; b < LN_SB; b++) {
            const int i = i0 + b * NT, r = i / nch, c = (i - r * nch) << 4;
            if (i >= total)
                break;
            uint q[8]; /* pairs j, j + 1 (j even): bytes j, j + CN, j + 1, j + 1 + CN */
#pragma unroll
            for (int j = 0; j < 16; j += 2) {
                const int a = j & 3, s0 = a, s1 = a + CN, s2 = a + 1, s3 = a + 1 + CN;
                q[j / 2] =
                    __byte_perm(w[b][j / 4], w[b][j / 4 + 1], s0 | s1 << 4 | s2 << 8 | s3 << 12);
            }
            int4 *d = (int4 *)(rows + (size_t)r * W + c);
            d[0] = make_int4((int)q[0], (int)q[1], (int)q[2], (int)q[3]);
            d[1] = make_int4((int)q[4], (int)q[5], (int)q[6], (int)q[7]);
        }
    }
}

template <int CN, int EPT>
__global__ void __launch_bounds__(LN_NT, 8)
    k_lin2_u8(const uchar *__restrict__ src, uchar *__restrict__ dst, const uchar *__restrict__ tab,
              rk_params p, int th, int W, int nrmax, int al16, int vst)
{
    enum { TE = LN_NT * EPT };
    extern __shared__ int4 lsm[];
    unsigned short *rows = (unsigned short *)lsm;
    __shared__ int4 s_row[LN_THMAX];
    const int n = p.dw * CN, rb = p.sw * CN, t = threadIdx.x;
    const int e0 = blockIdx.x * TE, dy0 = blockIdx.y * th, dy1 = min(dy0 + th, p.dh);
    const int *xofs = rk_ti(tab, p, RK_XOFS), *yofs = rk_ti(tab, p, RK_YOFS);
    const short *xc = (const short *)(tab + p.off[RK_XCOEF]);
    const short *yc = (const short *)(tab + p.off[RK_YCOEF]);
    const int sb = (__ldg(xofs + e0 / CN) * CN) & ~15;
    const int np = (__ldg(xofs + (min(e0 + TE, n) - 1) / CN) + 1) * CN - sb;
    const int rlo = rk_clampi(__ldg(yofs + dy0), 0, p.sh - 1);
    const int nr = rk_clampi(__ldg(yofs + dy1 - 1) + 1, 0, p.sh - 1) - rlo + 1;
    int bad = nr > nrmax || np > W;
    /* table reads first: their latency overlaps the staging's */
    if (t < dy1 - dy0) {
        const int dy = dy0 + t, sy = __ldg(yofs + dy);
        const int r0 = rk_clampi(sy, 0, p.sh - 1) - rlo, r1 = rk_clampi(sy + 1, 0, p.sh - 1) - rlo;
        bad |= r0 < 0 || r1 >= nr;
        s_row[t] = make_int4(r0 * W, r1 * W, (int)__ldg(yc + (size_t)dy * 2) << 16,
                             (int)__ldg(yc + (size_t)dy * 2 + 1) << 16);
    }
    int off[EPT];
    uint cc[EPT];
    const int el = e0 + t * EPT;
    lin2_taps<CN>(xofs, xc, p, el, sb, off, cc);
    if (!bad)
        stage_pairs<CN, LN_NT>(rows, W, src, p.sstride, rlo, nr, sb, np, rb, al16, t);
    if (__syncthreads_or(bad)) {
        for (int i = t; i < (dy1 - dy0) * TE; i += LN_NT) {
            const int q = i / TE, e = e0 + i - q * TE;
            if (e < n)
                rk_separable(src, dst, tab, p, dy0 + q, e);
        }
        return;
    }
    if (el >= n)
        return;
    const int full = vst && el + EPT <= n, m = n - el;
    int hA[EPT], hB[EPT], curT = -1, curU = -1, swapped = 0;
    uchar *dp = dst + (size_t)dy0 * p.dstride + el;
    for (int q = 0; q < dy1 - dy0; q++, dp += p.dstride) {
        const int4 r = s_row[q];
        if (!swapped)
            swapped = lin2_step(hA, hB, curT, curU, r, rows, off, cc, dp, full, m);
        else
            swapped = !lin2_step(hB, hA, curT, curU, r, rows, off, cc, dp, full, m);
    }
}

/* Exact 2x linear upscale (plan.up2, both axes): resize_up2.h's thread body. 128 threads per
 * block; a thread makes 8 output pixels of the output rows of its band's source rows (nb bands
 * of at most UP2_THMAX rows, resize_cuda.cu's up2_bands), reading its 6 source pixels of each
 * row with aligned 32-bit loads (L1 shares them between neighbours) and writing 8-byte words,
 * each warp's contiguous through shared memory (resize_thread_io.h); two elements per 32-bit
 * operation (five integer operations per lane word, resize_up2.h). */
enum { UP2_NT = 128, UP2_THMAX = 10 };

/* Resident blocks per SM of k_up2_u8<cn>: as many as the registers of its interior (warp) path
 * allow without spilling in any path (nvcc 13: 48, 64, 70 and 96 registers for 1-4 channels);
 * 7 and 8 blocks measured alike at 3 channels (session o). */
constexpr int up2_min_blocks(int cn)
{
    return cn == 4 ? 5 : cn == 3 ? 7 : 8;
}

template <int CN>
__global__ void __launch_bounds__(UP2_NT, up2_min_blocks(CN))
    k_up2_u8(const uchar *__restrict__ src, uchar *__restrict__ dst, rk_params p, int nb,
             int al_src, int al_dst)
{
    __shared__ uint32_t stage[UP2_NT / 32][128 * CN];
    const int t = blockIdx.x * UP2_NT + threadIdx.x;
    if (4 * t >= p.sw)
        return;
    /* band blockIdx.y of nb: its rows as evenly divided as integers allow */
    const int m0 = (int)((int64_t)blockIdx.y * p.sh / nb);
    const int m1 = (int)((int64_t)(blockIdx.y + 1) * p.sh / nb);
    tsr__up2_thread(src, p.sstride, dst, p.dstride, p.sw, p.sh, CN, t, m0, m1 - m0, al_src, al_dst,
                    stage[threadIdx.x / 32]);
}

/* Exact 3:2 downscale, linear, area or nearest (plan.dn32): resize_dn32.h's thread body. 128
 * threads per block; a thread makes 8 output pixels of output row pair k (grid y, strided past
 * 65535) from 12 source pixels of three rows (two for nearest) that no other thread reads, every
 * load issued before any arithmetic; 8-byte stores. The area weights (resize_dn32.h's w[8]) are
 * kernel arguments. */
enum { DN32_NT = 128 };
struct dn32_weights {
    float w[8];
};

template <int CN, int MODE>
__global__ void __launch_bounds__(DN32_NT)
    k_dn32_u8(const uchar *__restrict__ src, uchar *__restrict__ dst, rk_params p, dn32_weights w,
              int al_src, int al_dst)
{
    const int t = blockIdx.x * DN32_NT + threadIdx.x;
    if (8 * t >= p.dw)
        return;
    for (int k = blockIdx.y; k < p.dh / 2; k += gridDim.y)
        tsr__dn32_thread(src, p.sstride, dst, p.dstride, p.dw, CN, t, k, MODE, w.w, al_src, al_dst);
}

/* u8 fractional area (DecimateAlpha tables), tiled: a thread makes AW_EPT consecutive
 * elements of R output rows. Each element's column taps (at most MT: k in [XSTART[dx],
 * XSTART[dx+1])) are read once into registers and padded to MT with weight 0 on the element's
 * last tap: h + S*0.f == h exactly for the finite, non-negative h of u8 data, so the padded sum
 * is plan.h's h bit for bit (the host picks MT >= the plan's most taps per column). Rows: the row
 * taps of output row dy (the same for the whole block) are read per row; acc = b0*h0, then
 * acc + b_j*h_j, one rounding per operation (__fmul_rn/__fadd_rn), D = sat_u8(rne(acc)). */
enum { AW_NT = 128, AW_EPT = 4 };

template <int MT>
__global__ void __launch_bounds__(AW_NT)
    k_areaw_u8(const uchar *__restrict__ src, uchar *__restrict__ dst,
               const uchar *__restrict__ tab, rk_params p, int R, int vst)
{
    const int cn = p.cn, n = p.dw * cn;
    const int e0 = (blockIdx.x * AW_NT + threadIdx.x) * AW_EPT;
    if (e0 >= n)
        return;
    const int dy0 = blockIdx.y * R, dy1 = min(dy0 + R, p.dh);
    const int *xstart = rk_ti(tab, p, RK_XSTART), *xofs = rk_ti(tab, p, RK_XOFS);
    const int *ystart = rk_ti(tab, p, RK_YSTART), *yofs = rk_ti(tab, p, RK_YOFS);
    const float *xc = (const float *)(tab + p.off[RK_XCOEF]);
    const float *yc = (const float *)(tab + p.off[RK_YCOEF]);
    int off[AW_EPT][MT];
    float w[AW_EPT][MT];
#pragma unroll
    for (int i = 0; i < AW_EPT; i++) {
        int e = min(e0 + i, n - 1);
        int dx = e / cn, c = e - dx * cn;
        int k0 = __ldg(xstart + dx), k1 = __ldg(xstart + dx + 1);
#pragma unroll
        for (int q = 0; q < MT; q++) {
            int k = max(min(k0 + q, k1 - 1), 0);
            off[i][q] = __ldg(xofs + k) * cn + c;
            w[i][q] = k0 + q < k1 ? __ldg(xc + k) : 0.f;
        }
    }
    for (int dy = dy0; dy < dy1; dy++) {
        const int j0 = __ldg(ystart + dy), j1 = __ldg(ystart + dy + 1);
        float acc[AW_EPT] = {0.f, 0.f, 0.f, 0.f};
        for (int j = j0; j < j1; j++) {
            const uchar *row = src + (size_t)__ldg(yofs + j) * p.sstride;
            const float b = __ldg(yc + j);
#pragma unroll
            for (int i = 0; i < AW_EPT; i++) {
                float h = 0.f;
#pragma unroll
                for (int q = 0; q < MT; q++)
                    h = __fadd_rn(h, __fmul_rn((float)__ldg(row + off[i][q]), w[i][q]));
                float qv = __fmul_rn(b, h);
                acc[i] = j == j0 ? qv : __fadd_rn(acc[i], qv);
            }
        }
        int v[AW_EPT];
#pragma unroll
        for (int i = 0; i < AW_EPT; i++)
            v[i] = min(max(__float2int_rn(acc[i]), 0), 255);
        uchar *dp = dst + (size_t)dy * p.dstride + e0;
        if (vst && e0 + AW_EPT <= n) {
            *(uint *)dp = __byte_perm(__byte_perm(v[0], v[1], 0x0040),
                                      __byte_perm(v[2], v[3], 0x0040), 0x5410);
        } else {
#pragma unroll
            for (int i = 0; i < AW_EPT; i++)
                if (e0 + i < n)
                    dp[i] = (uchar)v[i];
        }
    }
}

/* Nearest, PB (1..4) bytes per pixel: each thread copies 4 consecutive output pixels (4*PB bytes,
 * stored as PB aligned 4-byte words) of nrows <= NN_ROWS rows; the 4 source offsets are read once.
 */
enum { NN_ROWS = 4 };
template <int PB>
__global__ void k_nearest4(const uchar *__restrict__ src, uchar *__restrict__ dst,
                           const uchar *__restrict__ tab, rk_params p, int aligned, int nrows)
{
    int dx0 = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (dx0 >= p.dw)
        return;
    const int *xofs = rk_ti(tab, p, RK_XOFS), *yofs = rk_ti(tab, p, RK_YOFS);
    int so[4];
#pragma unroll
    for (int i = 0; i < 4; i++)
        so[i] = __ldg(xofs + min(dx0 + i, p.dw - 1)) * PB;
    const int full = aligned && dx0 + 4 <= p.dw;
    const int dy0 = blockIdx.y * nrows, dy1 = min(dy0 + nrows, p.dh);
    for (int dy = dy0; dy < dy1; dy++) {
        const uchar *s = src + (size_t)__ldg(yofs + dy) * p.sstride;
        uchar *d = dst + (size_t)dy * p.dstride + (size_t)dx0 * PB;
        uint b[4 * PB];
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int j = 0; j < PB; j++)
                b[i * PB + j] = __ldg(s + so[i] + j);
        if (full) {
#pragma unroll
            for (int w = 0; w < PB; w++)
                ((uint *)d)[w] =
                    __byte_perm(__byte_perm(b[4 * w], b[4 * w + 1], 0x0040),
                                __byte_perm(b[4 * w + 2], b[4 * w + 3], 0x0040), 0x5410);
        } else {
            int m = min(4, p.dw - dx0) * PB;
            for (int i = 0; i < m; i++)
                d[i] = (uchar)b[i];
        }
    }
}

/* u8 area-fast 2x2, CN channels: each thread makes 4 output pixels (4*CN bytes, CN 4-byte
 * stores) from 8*CN bytes of each of two source rows (CN 8-byte loads per row). Threads whose
 * run leaves [0, fast_end) or the full rows take the element formula (rk_area_fast). The host
 * checks the alignment (source 8 bytes, destination 4 bytes, strides too). */
template <int CN>
__global__ void k_area2_u8v(const uchar *__restrict__ src, uchar *__restrict__ dst, rk_params p)
{
    int dx0 = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (dx0 >= p.dw)
        return;
    const int e0 = dx0 * CN, e1 = min(dx0 + 4, p.dw) * CN;
    for (int dy = blockIdx.y; dy < p.dh; dy += gridDim.y) {
        if (dy < p.full_h && e0 + 4 * CN <= p.fast_end) {
            const uint2 *r0 = (const uint2 *)(src + (size_t)(2 * dy) * p.sstride + (size_t)2 * e0);
            const uint2 *r1 = (const uint2 *)((const uchar *)r0 + p.sstride);
            uint a[2 * CN], c[2 * CN];
#pragma unroll
            for (int w = 0; w < CN; w++) {
                uint2 x = __ldg(r0 + w), y = __ldg(r1 + w);
                a[2 * w] = x.x, a[2 * w + 1] = x.y, c[2 * w] = y.x, c[2 * w + 1] = y.y;
            }
            uint o[CN];
#pragma unroll
            for (int w = 0; w < CN; w++) {
                uint v[4];
#pragma unroll
                for (int q = 0; q < 4; q++) {
                    const int e = 4 * w + q, j = 2 * e - e % CN, jj = j + CN;
                    uint s = ((a[j >> 2] >> (8 * (j & 3))) & 255) +
                             ((a[jj >> 2] >> (8 * (jj & 3))) & 255) +
                             ((c[j >> 2] >> (8 * (j & 3))) & 255) +
                             ((c[jj >> 2] >> (8 * (jj & 3))) & 255);
                    v[q] = (s + 2) >> 2;
                }
                o[w] = v[0] | (v[1] << 8) | (v[2] << 16) | (v[3] << 24);
            }
            uint *d = (uint *)(dst + (size_t)dy * p.dstride + e0);
#pragma unroll
            for (int w = 0; w < CN; w++)
                d[w] = o[w];
        } else {
            for (int e = e0; e < e1; e++)
                rk_area_fast(src, dst, p, dy, e);
        }
    }
}

#endif
