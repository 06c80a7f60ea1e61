/* CUDA backend of tsr_resize: executes a plan (plan.h) bit-identically to resize_ref.c.
 *
 * The per-element arithmetic is resize.cl's (included below, shared with the OpenCL backend).
 * Kernels:
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
 *   k_stile_u8<KS,CN> the other u8 separable plans with 2 or 4 taps (cubic; linear downscales
 *                  beyond LN_XMAX): output tiles, horizontal pass into shared memory, then the
 *                  vertical pass.
 *   k_areaw_u8<MT> u8 fractional area (DecimateAlpha), <= MT column taps kept in registers,
 *                  4 elements per thread, R rows.
 *   k_area2_u8v<CN> u8 area-fast 2x2 cells (also OpenCV's linear at exactly half size), 4 output
 *                  pixels per thread, 8-byte loads, 4-byte stores (k_area2_u8 when unaligned).
 *   k_nearest4<PB> nearest, 4 output pixels of PB <= 4 bytes per thread, 4-byte stores
 *                  (k_nearest, one pixel per thread, for wider pixels).
 * Images: device images (TSR_MEMORY_CUDA) are used in place; host images are staged through the
 * context's pinned buffers and device scratch (no allocation once warm). The plan's tables are
 * copied to device scratch on the stream when the plan differs from the last one copied there
 * (plan ids).
 * Synchronisation: with a stream of the caller's (tsr_ctx_options.cuda_stream) and device images
 * the work is only queued on it; otherwise the call returns when the output is written. */
#include "cuda/cuda_internal.cuh"

#include "resize/resize.cl"
extern "C" {
#include "resize/resize_backends.h"
#include "resize/resize_gpu.h"
}
#include "resize/resize_dn32.h"
#include "resize/resize_up2.h"

#include <atomic>
#include <math.h>
#include <string.h>

enum { SLOT_SRC = 0, SLOT_DST = 1, SLOT_TAB = 2, SLOT_SRC2 = 3, SLOT_DST2 = 4, SLOT_TAB2 = 5 };

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
    if (!bad) {
        /* LN_SB chunks per thread and round: all their loads are issued before the first is
         * converted, so a round costs one memory latency, not LN_SB */
        const int nch = (np + 15) >> 4, total = nr * nch;
        for (int i0 = t; i0 < total; i0 += LN_NT * LN_SB) {
            uint w[LN_SB][5];
#pragma unroll
            for (int b = 0; b < LN_SB; b++) {
                const int i = i0 + b * LN_NT, r = i / nch, c = (i - r * nch) << 4;
                if (i >= total)
                    break;
                const uchar *g = src + (size_t)(rlo + r) * p.sstride + sb + c;
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
                const int i = i0 + b * LN_NT, r = i / nch, c = (i - r * nch) << 4;
                if (i >= total)
                    break;
                uint q[8]; /* pairs j, j + 1 (j even): bytes j, j + CN, j + 1, j + 1 + CN */
#pragma unroll
                for (int j = 0; j < 16; j += 2) {
                    const int a = j & 3, s0 = a, s1 = a + CN, s2 = a + 1, s3 = a + 1 + CN;
                    q[j / 2] = __byte_perm(w[b][j / 4], w[b][j / 4 + 1],
                                           s0 | s1 << 4 | s2 << 8 | s3 << 12);
                }
                int4 *d = (int4 *)(rows + (size_t)r * W + c);
                d[0] = make_int4((int)q[0], (int)q[1], (int)q[2], (int)q[3]);
                d[1] = make_int4((int)q[4], (int)q[5], (int)q[6], (int)q[7]);
            }
        }
    }
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
 * block; a thread makes 8 output pixels of the 2*th output rows of th source rows, reading its
 * 6 source pixels of each row with aligned 32-bit loads (L1 shares them between neighbours) and
 * writing 8-byte words; two elements per 32-bit operation (six integer operations per lane word
 * of two elements, resize_up2.h), no shared memory. */
enum { UP2_NT = 128, UP2_THMAX = 8 };

template <int CN>
__global__ void __launch_bounds__(UP2_NT)
    k_up2_u8(const uchar *__restrict__ src, uchar *__restrict__ dst, rk_params p, int th,
             int al_src, int al_dst)
{
    const int t = blockIdx.x * UP2_NT + threadIdx.x;
    if (4 * t >= p.sw)
        return;
    tsr__up2_thread(src, p.sstride, dst, p.dstride, p.sw, p.sh, CN, t, blockIdx.y * th, th, al_src,
                    al_dst);
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

/* Development knob for dev/cuda/resize_workbench.cu (not public; 0 in the library): bit 0 gives
 * k_lin2_u8 4 elements per thread instead of 8; bit 1 turns k_lin2_u8 off (k_stile_u8, run 10's
 * kernel, takes its plans); bit 2 turns k_up2_u8 off (the generic kernels take exact 2x
 * upscales); bit 3 sizes k_lin2_u8's tiles for 4x more blocks (run 14's shorter tiles), bit 10
 * for 2x fewer; bits 4 and 7 give k_up2_u8 older grid shapes (up2_rows); bits 8 and 9 give
 * k_areaw_u8 2x more and 2x fewer threads; bit 11 turns k_dn32_u8 off (k_lin2_u8 and k_areaw_u8
 * take its plans), so the workbench can time the variants side by side. */
extern "C" int tsr__resize_cuda_variant;
int tsr__resize_cuda_variant = 0;

enum { WALK_RMAX = 32 };

/* Rows per block for the walker kernels: the largest R <= WALK_RMAX (a power of two) that still
 * gives about a full wave of threads (2^18) on a large GPU; fewer rows per block means more
 * horizontal passes repeated at block edges, more rows means fewer blocks. 0 when the grid
 * does not fit. */
static int walk_rows(int blocks_x, int threads, int dh, int target)
{
    int R = WALK_RMAX;
    while (R > 1 && (double)blocks_x * threads * ((dh + R - 1) / R) < (double)target)
        R /= 2;
    while ((dh + R - 1) / R > 65535 && R < WALK_RMAX)
        R *= 2;
    return (dh + R - 1) / R > 65535 ? 0 : R;
}

/* Rows per tile for k_stile_u8: the largest th <= ST_THMAX (a power of two) whose tile source
 * rows fit in ST_SMEM and whose grid has >= 1024 blocks (down to th = 4), with *nrmax the row count
 * the shared memory is sized for; 0 if none. A tile of th output rows spans YOFS[dy1-1] - YOFS[dy0]
 * <= ceil((th-1)*scale) + 1 source rows (YOFS = floor of an affine function of dy with slope scale
 * = src/dst, or 1/inv_scale_y when the caller gave factors), plus ksize; one row of margin. The
 * kernel checks each tile anyway. */
static int stile_rows(const tsr__resize_plan *pl, int te, int hb, int gx, int *nrmax)
{
    double sc = (double)pl->src_h / (double)pl->dst_h;
    if (pl->inv_scale_y > 0 && 1.0 / pl->inv_scale_y > sc)
        sc = 1.0 / pl->inv_scale_y;
    for (int th = ST_THMAX; th >= 1; th /= 2) {
        double nm = ceil((th - 1) * sc) + pl->ksize + 2;
        /* fewer rows when the grid would have fewer than ~8 blocks per SM of a large GPU */
        if (nm * te * hb <= ST_SMEM &&
            (th <= 4 || (double)gx * ((pl->dst_h + th - 1) / th) >= 1024)) {
            *nrmax = (int)nm;
            return th;
        }
    }
    return 0;
}

/* Most column taps of one output column in an AREA plan (XSTART differences). */
static int area_max_taps(const tsr__resize_plan *pl)
{
    const int32_t *xs = (const int32_t *)pl->table[TSR__RT_XSTART];
    int m = 0;
    for (int dx = 0; dx < pl->dst_w; dx++)
        m = xs[dx + 1] - xs[dx] > m ? xs[dx + 1] - xs[dx] : m;
    return m;
}

/* Launch shape of k_lin2_u8 with ept elements per thread: tile rows th (the largest power of
 * two <= LN_THMAX that still gives >= LN2_BLOCKS blocks: tall tiles repay the staging of the
 * rows above and below and the per-thread tap setup, which at 2 rows per tile cost more than the
 * walk itself; bench/notes/resize.md, runs 17-19), the staged row pitch W in tap pairs
 * (the widest tile span, exact from XOFS, rounded up to 16), nrmax rows of shared memory (a
 * bound, like stile_rows'; the kernel checks each tile). 0 when the tiles do not fit in LN_SMEM
 * or the grid in 65535 rows. LN_BLOCKS is the grid size the other kernels aim for. */
enum { LN_BLOCKS = 2048, LN2_BLOCKS = 512 };
struct lin2_shape {
    dim3 grid;
    int th, W, nrmax;
    size_t smem;
};
static int lin2_geometry(const tsr__resize_plan *pl, int ept, lin2_shape *g)
{
    const int32_t *xofs = (const int32_t *)pl->table[TSR__RT_XOFS];
    const int cn = pl->cn, n = pl->dst_w * cn, te = LN_NT * ept, gx = (n + te - 1) / te;
    int W = 0;
    for (int b = 0; b < gx; b++) {
        const int e0 = b * te, e1 = (e0 + te < n ? e0 + te : n) - 1;
        const int span = (xofs[e1 / cn] + 1) * cn - ((xofs[e0 / cn] * cn) & ~15);
        W = span > W ? span : W;
    }
    W = (W + 15) & ~15;
    double sc = (double)pl->src_h / (double)pl->dst_h;
    if (pl->inv_scale_y > 0 && 1.0 / pl->inv_scale_y > sc)
        sc = 1.0 / pl->inv_scale_y;
    int th = LN_THMAX;
    const int target = tsr__resize_cuda_variant & 8      ? LN2_BLOCKS * 4
                       : tsr__resize_cuda_variant & 1024 ? LN2_BLOCKS / 2
                                                         : LN2_BLOCKS;
    while (th > 1 && (double)gx * ((pl->dst_h + th - 1) / th) < target)
        th /= 2;
    while ((pl->dst_h + th - 1) / th > 65535 && th < LN_THMAX)
        th *= 2;
    g->th = th;
    g->W = W;
    g->nrmax = (int)ceil((th - 1) * sc) + 3;
    g->smem = (size_t)g->nrmax * W * 2;
    g->grid = dim3(gx, (pl->dst_h + th - 1) / th);
    return g->smem <= LN_SMEM && g->grid.y <= 65535;
}

/* Source rows per k_up2_u8 thread: the fewest that fit the grid (gx blocks per row band) in one
 * wave of resident blocks, at most UP2_THMAX. Every row band re-reads the row above it (the
 * prologue), so fewer, taller bands cost less, and a grid that ends a few blocks into a last wave
 * runs those blocks with the GPU mostly idle; but walks longer than 8 rows were slower (4K->8K:
 * 17 rows in one wave 55.6 us, 8 rows in 2.05 waves 48.1; bench/notes/resize.md, run 25).
 * Dev knob bit 4: run 21's rule instead (the tallest power of two <= 8 that still gives
 * >= LN_BLOCKS blocks); bit 7: the same for LN_BLOCKS / 2. */
static int up2_rows(tsr_ctx *ctx, int cn, int gx, int h)
{
    int th;
    if (tsr__resize_cuda_variant & (16 | 128)) {
        const int target = tsr__resize_cuda_variant & 128 ? LN_BLOCKS / 2 : LN_BLOCKS;
        th = 8;
        while (th > 1 && gx * ((h + th - 1) / th) < target)
            th /= 2;
    } else {
        /* resident blocks per SM of each instance (a property of the binary and the device
         * architecture: computed once; concurrent first calls store the same value) */
        static std::atomic<int> per_sm[5];
        if (!per_sm[cn].load(std::memory_order_relaxed)) {
            int n = 0;
            switch (cn) {
            case 1:
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k_up2_u8<1>, UP2_NT, 0);
                break;
            case 2:
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k_up2_u8<2>, UP2_NT, 0);
                break;
            case 3:
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k_up2_u8<3>, UP2_NT, 0);
                break;
            default:
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, k_up2_u8<4>, UP2_NT, 0);
                break;
            }
            per_sm[cn].store(n > 0 ? n : 1, std::memory_order_relaxed);
        }
        const int bands =
            per_sm[cn].load(std::memory_order_relaxed) * ctx->cuda->prop.multiProcessorCount / gx;
        th = bands > 0 ? (h + bands - 1) / bands : UP2_THMAX;
        th = th < 1 ? 1 : th > UP2_THMAX ? UP2_THMAX : th;
    }
    while ((h + th - 1) / th > 65535)
        th *= 2;
    return th;
}

/* Launches the kernels for one image on `stream`. s, d are device pointers with the strides in
 * p; t is the device copy of the tables. */
static tsr_status launch(tsr_ctx *ctx, const tsr__resize_plan *pl, const uchar *s, uchar *d,
                         const uchar *t, const rk_params &p, cudaStream_t stream)
{
    if (pl->path == TSR__RESIZE_COPY) {
        size_t row = (size_t)pl->dst_w * pl->cn * pl->depth;
        TSR_CUDA_TRY(ctx, cudaMemcpy2DAsync(d, p.dstride, s, p.sstride, row, pl->dst_h,
                                            cudaMemcpyDeviceToDevice, stream));
        return TSR_OK;
    }
    int gy = pl->dst_h < 65535 ? pl->dst_h : 65535;
    if (pl->up2 && !(tsr__resize_cuda_variant & 4)) {
        const int gx = ((pl->src_w + 3) / 4 + UP2_NT - 1) / UP2_NT;
        const int th = up2_rows(ctx, pl->cn, gx, pl->src_h);
        const dim3 grid(gx, (pl->src_h + th - 1) / th);
        const int als = (((size_t)s | (size_t)p.sstride) & 3) == 0;
        const int ald = (((size_t)d | (size_t)p.dstride) & 7) == 0;
        switch (pl->cn) {
        case 1: k_up2_u8<1><<<grid, UP2_NT, 0, stream>>>(s, d, p, th, als, ald); break;
        case 2: k_up2_u8<2><<<grid, UP2_NT, 0, stream>>>(s, d, p, th, als, ald); break;
        case 3: k_up2_u8<3><<<grid, UP2_NT, 0, stream>>>(s, d, p, th, als, ald); break;
        default: k_up2_u8<4><<<grid, UP2_NT, 0, stream>>>(s, d, p, th, als, ald); break;
        }
        TSR_CUDA_CHECK_LAUNCH(ctx, "k_up2_u8");
        return TSR_OK;
    }
    if (pl->dn32 && !(tsr__resize_cuda_variant & 2048)) {
        dn32_weights w = {};
        if (pl->dn32 == TSR__DN32_AREA) {
            const float *xw = (const float *)pl->table[TSR__RT_XCOEF];
            const float *yw = (const float *)pl->table[TSR__RT_YCOEF];
            for (int i = 0; i < 4; i++)
                w.w[i] = xw[i], w.w[4 + i] = yw[i];
        }
        const dim3 grid(((pl->dst_w + 7) / 8 + DN32_NT - 1) / DN32_NT,
                        pl->dst_h / 2 < 65535 ? pl->dst_h / 2 : 65535);
        const int als = (((size_t)s | (size_t)p.sstride) & 3) == 0;
        const int ald = (((size_t)d | (size_t)p.dstride) & 7) == 0;
#define TSR_DN32(CN, MODE) k_dn32_u8<CN, MODE><<<grid, DN32_NT, 0, stream>>>(s, d, p, w, als, ald)
        switch (pl->cn * 4 + pl->dn32) {
        case 5: TSR_DN32(1, TSR__DN32_LINEAR); break;
        case 6: TSR_DN32(1, TSR__DN32_AREA); break;
        case 7: TSR_DN32(1, TSR__DN32_NEAREST); break;
        case 9: TSR_DN32(2, TSR__DN32_LINEAR); break;
        case 10: TSR_DN32(2, TSR__DN32_AREA); break;
        case 11: TSR_DN32(2, TSR__DN32_NEAREST); break;
        case 13: TSR_DN32(3, TSR__DN32_LINEAR); break;
        case 14: TSR_DN32(3, TSR__DN32_AREA); break;
        case 15: TSR_DN32(3, TSR__DN32_NEAREST); break;
        case 17: TSR_DN32(4, TSR__DN32_LINEAR); break;
        case 18: TSR_DN32(4, TSR__DN32_AREA); break;
        default: TSR_DN32(4, TSR__DN32_NEAREST); break;
        }
#undef TSR_DN32
        TSR_CUDA_CHECK_LAUNCH(ctx, "k_dn32_u8");
        return TSR_OK;
    }
    const int lin2_plan =
        pl->path == TSR__RESIZE_SEPARABLE && pl->unit_pairs && pl->src_w <= LN_XMAX * pl->dst_w;
    lin2_shape lg;
    const int ept = tsr__resize_cuda_variant & 1 ? 4 : 8;
    if (!(tsr__resize_cuda_variant & 2) && lin2_plan && lin2_geometry(pl, ept, &lg)) {
        const int al16 = (((size_t)s | (size_t)p.sstride) & 15) == 0;
        const int vst = (((size_t)d | (size_t)p.dstride) & (size_t)(ept - 1)) == 0;
#define TSR_LIN2(CN, EPT)                                                                          \
    k_lin2_u8<CN, EPT>                                                                             \
        <<<lg.grid, LN_NT, lg.smem, stream>>>(s, d, t, p, lg.th, lg.W, lg.nrmax, al16, vst)
        switch (pl->cn * 32 + ept) {
        case 36: TSR_LIN2(1, 4); break;
        case 68: TSR_LIN2(2, 4); break;
        case 100: TSR_LIN2(3, 4); break;
        case 132: TSR_LIN2(4, 4); break;
        case 40: TSR_LIN2(1, 8); break;
        case 72: TSR_LIN2(2, 8); break;
        case 104: TSR_LIN2(3, 8); break;
        default: TSR_LIN2(4, 8); break;
        }
#undef TSR_LIN2
        TSR_CUDA_CHECK_LAUNCH(ctx, "k_lin2_u8");
        return TSR_OK;
    }
    /* Output tiles (k_stile_u8) for every other u8 separable plan with 2 or 4 taps whose tile
     * rows fit. */
    if (pl->path == TSR__RESIZE_SEPARABLE && pl->depth == TSR_U8 &&
        (pl->ksize == 2 || pl->ksize == 4) && pl->cn >= 1 && pl->cn <= 4) {
        const int te = pl->cn == 3 ? 192 : 256, hb = pl->ksize == 2 ? 2 : 4;
        const int n = pl->dst_w * pl->cn;
        int nrmax = 0;
        const int th = stile_rows(pl, te, hb, (n + te - 1) / te, &nrmax);
        if (th && (pl->dst_h + th - 1) / th <= 65535) {
            dim3 grid((n + te - 1) / te, (pl->dst_h + th - 1) / th);
            const size_t smem = (size_t)nrmax * te * hb;
            const int vst = (((size_t)d | (size_t)p.dstride) & (pl->ksize == 2 ? 7 : 3)) == 0;
#define TSR_STILE(KS, CN) k_stile_u8<KS, CN><<<grid, te, smem, stream>>>(s, d, t, p, th, nrmax, vst)
            switch (pl->cn * 8 + pl->ksize) {
            case 10: TSR_STILE(2, 1); break;
            case 18: TSR_STILE(2, 2); break;
            case 26: TSR_STILE(2, 3); break;
            case 34: TSR_STILE(2, 4); break;
            case 12: TSR_STILE(4, 1); break;
            case 20: TSR_STILE(4, 2); break;
            case 28: TSR_STILE(4, 3); break;
            default: TSR_STILE(4, 4); break;
            }
#undef TSR_STILE
            TSR_CUDA_CHECK_LAUNCH(ctx, "k_stile_u8");
            return TSR_OK;
        }
    }
    if (pl->path == TSR__RESIZE_AREA && pl->depth == TSR_U8) {
        const int mt = area_max_taps(pl), n = pl->dst_w * pl->cn;
        const int gx = (n + AW_NT * AW_EPT - 1) / (AW_NT * AW_EPT);
        const int R = walk_rows(gx, AW_NT, pl->dst_h,
                                tsr__resize_cuda_variant & 256   ? 524288
                                : tsr__resize_cuda_variant & 512 ? 131072
                                                                 : 262144);
        if (R && mt <= 4) {
            dim3 grid(gx, (pl->dst_h + R - 1) / R);
            int vst = (((size_t)d | (size_t)p.dstride) & 3) == 0;
            if (mt <= 2)
                k_areaw_u8<2><<<grid, AW_NT, 0, stream>>>(s, d, t, p, R, vst);
            else if (mt == 3)
                k_areaw_u8<3><<<grid, AW_NT, 0, stream>>>(s, d, t, p, R, vst);
            else
                k_areaw_u8<4><<<grid, AW_NT, 0, stream>>>(s, d, t, p, R, vst);
            TSR_CUDA_CHECK_LAUNCH(ctx, "k_areaw_u8");
            return TSR_OK;
        }
    }
    if (pl->path == TSR__RESIZE_AREA_FAST && pl->depth == TSR_U8 && pl->iscale_x == 2 &&
        pl->iscale_y == 2) {
        int px4 = (pl->dst_w + 3) / 4;
        dim3 grid((px4 + 127) / 128, gy);
        int al = ((((size_t)s | (size_t)p.sstride) & 7) == 0) &&
                 ((((size_t)d | (size_t)p.dstride) & 3) == 0);
        if (al && pl->cn == 3)
            k_area2_u8v<3><<<grid, 128, 0, stream>>>(s, d, p);
        else if (al && pl->cn == 4)
            k_area2_u8v<4><<<grid, 128, 0, stream>>>(s, d, p);
        else if (al && pl->cn == 1)
            k_area2_u8v<1><<<grid, 128, 0, stream>>>(s, d, p);
        else
            k_area2_u8<<<grid, 128, 0, stream>>>(s, d, p);
        TSR_CUDA_CHECK_LAUNCH(ctx, "k_area2_u8");
        return TSR_OK;
    }
    if (pl->path == TSR__RESIZE_NEAREST) {
        int pb = pl->cn * pl->depth;
        /* rows per thread: NN_ROWS, fewer while the grid has under LN_BLOCKS blocks */
        const int gxn = ((pl->dst_w + 3) / 4 + 127) / 128;
        int nrows = NN_ROWS;
        while (nrows > 1 && gxn * ((pl->dst_h + nrows - 1) / nrows) < LN_BLOCKS)
            nrows /= 2;
        int gyn = (pl->dst_h + nrows - 1) / nrows;
        if (pb <= 4 && gyn <= 65535) {
            int al = (((size_t)d | (size_t)p.dstride) & 3) == 0;
            dim3 grid(gxn, gyn);
            switch (pb) {
            case 1: k_nearest4<1><<<grid, 128, 0, stream>>>(s, d, t, p, al, nrows); break;
            case 2: k_nearest4<2><<<grid, 128, 0, stream>>>(s, d, t, p, al, nrows); break;
            case 3: k_nearest4<3><<<grid, 128, 0, stream>>>(s, d, t, p, al, nrows); break;
            default: k_nearest4<4><<<grid, 128, 0, stream>>>(s, d, t, p, al, nrows); break;
            }
            TSR_CUDA_CHECK_LAUNCH(ctx, "k_nearest4");
            return TSR_OK;
        }
        dim3 grid((pl->dst_w + 127) / 128, gy);
        k_nearest<<<grid, 128, 0, stream>>>(s, d, t, p);
        TSR_CUDA_CHECK_LAUNCH(ctx, "k_nearest");
        return TSR_OK;
    }
    int n = pl->dst_w * pl->cn;
    dim3 grid((n + 127) / 128, gy);
    k_generic<<<grid, 128, 0, stream>>>(s, d, t, p);
    TSR_CUDA_CHECK_LAUNCH(ctx, "k_generic");
    return TSR_OK;
}

/* For dev/cuda/resize_workbench.cu (not public): the kernels alone on device images, with the
 * plan's tables already in device memory `tab` in the layout of tsr__resize_gpu_params. */
extern "C" tsr_status tsr__resize_cuda_launch(tsr_ctx *ctx, const tsr__resize_plan *pl,
                                              const void *s, size_t sstride, void *d,
                                              size_t dstride, const void *tab, void *stream)
{
    rk_params p;
    if (!tsr__resize_gpu_params(pl, sstride, dstride, &p))
        return tsr__fail(ctx, TSR_ERR_LIMIT, "stride too large");
    return launch(ctx, pl, (const uchar *)s, (uchar *)d, (const uchar *)tab, p,
                  (cudaStream_t)stream);
}

/* Uploads the plan's tables to device buffer slot `slot` on `stream`; fills *p (strides given). */
static tsr_status upload_tables(tsr_ctx *ctx, const tsr__resize_plan *pl, int slot, size_t sstride,
                                size_t dstride, cudaStream_t stream, rk_params *p, uchar **dtab)
{
    size_t tbytes = tsr__resize_gpu_params(pl, sstride, dstride, p);
    if (!tbytes)
        return tsr__fail(ctx, TSR_ERR_LIMIT,
                         "image row stride or plan tables too large for the CUDA kernels");
    void *t = NULL;
    tsr_status st = tsr__cuda_scratch(ctx, slot, tbytes, &t);
    if (st != TSR_OK)
        return st;
    *dtab = (uchar *)t;
    /* Tables of this very plan (the context caches plans) are already there: skip the copy. */
    uint64_t *tag = &ctx->cuda->scratch_tag[slot];
    if (*tag == pl->id)
        return TSR_OK;
    *tag = 0;
    /* The plan's one host block has the same layout (each used table 16-byte aligned, in
     * order): then one copy of the used span instead of one per table (each pageable copy costs
     * microseconds of host time inside the call). */
    int same = pl->block != NULL;
    size_t span = 0;
    for (int i = 0; i < TSR__RT_COUNT && same; i++) {
        if (!pl->table_bytes[i])
            continue;
        same = (const uchar *)pl->table[i] == (const uchar *)pl->block + p->off[i];
        span = (size_t)p->off[i] + pl->table_bytes[i];
    }
    if (same && span) {
        TSR_CUDA_TRY(ctx, cudaMemcpyAsync(t, pl->block, span, cudaMemcpyHostToDevice, stream));
    } else {
        for (int i = 0; i < TSR__RT_COUNT; i++) {
            size_t n = 0;
            const void *hp = tsr__resize_plan_table(pl, (tsr__resize_table)i, &n);
            if (n)
                TSR_CUDA_TRY(ctx, cudaMemcpyAsync((uchar *)t + p->off[i], hp, n,
                                                  cudaMemcpyHostToDevice, stream));
        }
    }
    *tag = pl->id;
    return TSR_OK;
}

static int row_bytes(const tsr__resize_plan *pl, int dst, size_t *out)
{
    size_t w = (size_t)(dst ? pl->dst_w : pl->src_w), h = (size_t)(dst ? pl->dst_h : pl->src_h);
    size_t r = w * (size_t)pl->cn * (size_t)pl->depth;
    if (r / w / (size_t)pl->depth != (size_t)pl->cn || (h && r * h / h != r))
        return 0;
    *out = r;
    return 1;
}

/* One image on `stream` with scratch slots (ss, sd, st) and pinned slots (ss, sd). When the
 * destination is a host image, its rows are left in pinned slot sd and *pending is set: the
 * caller synchronizes `stream` and then calls finish_host_dst. */
static tsr_status run_one(tsr_ctx *ctx, const tsr__resize_plan *pl, const tsr_image *src,
                          tsr_image *dst, cudaStream_t stream, int ss, int sd, int stab,
                          int *pending)
{
    size_t srow, drow;
    *pending = 0;
    if (!row_bytes(pl, 0, &srow) || !row_bytes(pl, 1, &drow))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "image size overflows");
    const uchar *s;
    uchar *d;
    size_t sstride, dstride;
    tsr_status st;
    if (src->memory == TSR_MEMORY_CUDA) {
        s = (const uchar *)src->data, sstride = src->stride;
    } else {
        void *pin, *dev;
        size_t bytes = srow * (size_t)pl->src_h;
        if ((st = tsr__cuda_pinned(ctx, ss, bytes, &pin)) != TSR_OK ||
            (st = tsr__cuda_scratch(ctx, ss, bytes, &dev)) != TSR_OK)
            return st;
        for (int y = 0; y < pl->src_h; y++)
            memcpy((uchar *)pin + (size_t)y * srow,
                   (const uchar *)src->data + (size_t)y * src->stride, srow);
        TSR_CUDA_TRY(ctx, cudaMemcpyAsync(dev, pin, bytes, cudaMemcpyHostToDevice, stream));
        s = (const uchar *)dev, sstride = srow;
    }
    if (dst->memory == TSR_MEMORY_CUDA) {
        d = (uchar *)dst->data, dstride = dst->stride;
    } else {
        void *dev;
        if ((st = tsr__cuda_scratch(ctx, sd, drow * (size_t)pl->dst_h, &dev)) != TSR_OK)
            return st;
        d = (uchar *)dev, dstride = drow;
    }
    rk_params p;
    uchar *t;
    if ((st = upload_tables(ctx, pl, stab, sstride, dstride, stream, &p, &t)) != TSR_OK)
        return st;
    if ((st = launch(ctx, pl, s, d, t, p, stream)) != TSR_OK)
        return st;
    if (dst->memory != TSR_MEMORY_CUDA) {
        void *pin;
        size_t bytes = drow * (size_t)pl->dst_h;
        if ((st = tsr__cuda_pinned(ctx, sd, bytes, &pin)) != TSR_OK)
            return st;
        TSR_CUDA_TRY(ctx, cudaMemcpyAsync(pin, d, bytes, cudaMemcpyDeviceToHost, stream));
        *pending = 1;
    }
    return TSR_OK;
}

static void finish_host_dst(tsr_ctx *ctx, const tsr__resize_plan *pl, tsr_image *dst, int sd)
{
    size_t drow = (size_t)pl->dst_w * pl->cn * pl->depth;
    const uchar *pin = (const uchar *)ctx->cuda->pinned[sd];
    for (int y = 0; y < pl->dst_h; y++)
        memcpy((uchar *)dst->data + (size_t)y * dst->stride, pin + (size_t)y * drow, drow);
}

extern "C" tsr_status tsr__resize_cuda(tsr_ctx *ctx, const tsr__resize_plan *plan,
                                       const tsr_image *src, tsr_image *dst)
{
    struct tsr__cuda *c = ctx->cuda;
    if (!c)
        return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "CUDA backend not open on this context");
    TSR_CUDA_TRY(ctx, cudaSetDevice(c->device));
    if (c->own_stream && (src->memory == TSR_MEMORY_CUDA || dst->memory == TSR_MEMORY_CUDA)) {
        /* The context's own stream does not synchronise with the legacy default stream, where a
         * caller without streams filled the device image (a pageable cudaMemcpy can return
         * before its DMA lands): order this call after the default stream's work. */
        cudaEvent_t ev;
        TSR_CUDA_TRY(ctx, cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
        cudaError_t e1 = cudaEventRecord(ev, cudaStreamLegacy);
        cudaError_t e2 = e1 == cudaSuccess ? cudaStreamWaitEvent(c->stream, ev, 0) : e1;
        cudaEventDestroy(ev);
        TSR_CUDA_TRY(ctx, e2);
    }
    int pending = 0;
    tsr_status st = run_one(ctx, plan, src, dst, c->stream, SLOT_SRC, SLOT_DST, SLOT_TAB, &pending);
    if (st != TSR_OK)
        return st;
    int host = src->memory != TSR_MEMORY_CUDA || dst->memory != TSR_MEMORY_CUDA;
    if (host || c->own_stream)
        TSR_CUDA_TRY(ctx, cudaStreamSynchronize(c->stream));
    if (pending)
        finish_host_dst(ctx, plan, dst, SLOT_DST);
    return TSR_OK;
}

/* Batch: images alternate between two streams with their own scratch and pinned slots, so the
 * host copy into pinned memory and the upload of image i overlap the kernel and download of
 * image i-1 on the other stream. Device images run on the context's stream one after another. */
extern "C" tsr_status tsr__resize_cuda_batch(tsr_ctx *ctx, const tsr__resize_plan *plans,
                                             const tsr_image *src, tsr_image *dst, size_t count,
                                             size_t *done)
{
    struct tsr__cuda *c = ctx->cuda;
    *done = 0;
    if (!c)
        return tsr__fail(ctx, TSR_ERR_NO_BACKEND, "CUDA backend not open on this context");
    TSR_CUDA_TRY(ctx, cudaSetDevice(c->device));
    cudaStream_t s2[2] = {NULL, NULL};
    cudaEvent_t start = NULL;
    tsr_status st = TSR_OK;
    size_t prev[2] = {(size_t)-1, (size_t)-1}; /* image whose host output waits on stream k */
    const int ss[2] = {SLOT_SRC, SLOT_SRC2}, sd[2] = {SLOT_DST, SLOT_DST2},
              stb[2] = {SLOT_TAB, SLOT_TAB2};
    cudaError_t e;
    if ((e = cudaEventCreateWithFlags(&start, cudaEventDisableTiming)) != cudaSuccess)
        return tsr__cuda_error(ctx, e, "cudaEventCreate", __FILE__, __LINE__);
    for (int k = 0; k < 2 && st == TSR_OK; k++) {
        if ((e = cudaStreamCreateWithFlags(&s2[k], cudaStreamNonBlocking)) != cudaSuccess)
            st = tsr__cuda_error(ctx, e, "cudaStreamCreate", __FILE__, __LINE__);
    }
    /* Ordered after whatever the caller queued on the context's stream. */
    if (st == TSR_OK && (e = cudaEventRecord(start, c->stream)) != cudaSuccess)
        st = tsr__cuda_error(ctx, e, "cudaEventRecord", __FILE__, __LINE__);
    for (int k = 0; k < 2 && st == TSR_OK; k++)
        if ((e = cudaStreamWaitEvent(s2[k], start, 0)) != cudaSuccess)
            st = tsr__cuda_error(ctx, e, "cudaStreamWaitEvent", __FILE__, __LINE__);
    size_t completed = 0;
    for (size_t i = 0; i < count && st == TSR_OK; i++) {
        int k = (int)(i & 1);
        /* stream k's previous image must be done before its pinned buffers are reused */
        if ((e = cudaStreamSynchronize(s2[k])) != cudaSuccess) {
            st = tsr__cuda_error(ctx, e, "cudaStreamSynchronize", __FILE__, __LINE__);
            break;
        }
        if (prev[k] != (size_t)-1) {
            finish_host_dst(ctx, &plans[prev[k]], &dst[prev[k]], sd[k]);
            prev[k] = (size_t)-1;
        }
        int pending = 0;
        st = run_one(ctx, &plans[i], &src[i], &dst[i], s2[k], ss[k], sd[k], stb[k], &pending);
        if (st == TSR_OK && pending)
            prev[k] = i;
    }
    /* Drain both streams in order; count completed images as the prefix that finished. */
    for (int k = 0; k < 2; k++) {
        if (s2[k] && (e = cudaStreamSynchronize(s2[k])) != cudaSuccess && st == TSR_OK)
            st = tsr__cuda_error(ctx, e, "cudaStreamSynchronize", __FILE__, __LINE__);
    }
    for (int k = 0; k < 2; k++)
        if (prev[k] != (size_t)-1 && st == TSR_OK)
            finish_host_dst(ctx, &plans[prev[k]], &dst[prev[k]], sd[k]);
    if (st == TSR_OK)
        completed = count;
    /* On failure the images before the failing one on the same pipeline are done; report only
     * what is certain: none after the first failure. */
    *done = completed;
    for (int k = 0; k < 2; k++)
        if (s2[k])
            cudaStreamDestroy(s2[k]);
    cudaEventDestroy(start);
    return st;
}
