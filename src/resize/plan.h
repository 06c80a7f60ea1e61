/* The resize plan: everything cv::resize (OpenCV 4.6, C++ path, IPP off, x86-64 128-bit SIMD build
 * as shipped by Debian) decides before it touches a pixel, computed once on the host.
 *
 * A plan names one path and holds flat coefficient/offset tables (int32/int16/uint32/float) that a
 * backend copies to its device as they are (tsr__resize_plan_table gives each table's pointer
 * and byte size). Every output sample can be computed independently from the tables and the
 * source image with the formulas below; resize_ref.c is the executable form of this comment and
 * defines the answer for every backend.
 *
 * Notation. W, H: source width/height; OW, OH: output width/height; cn: channels; all "x" in
 * the formulas are pixel indices unless called "element" (element e = pixel*cn + c). S(y, x, c)
 * is the source sample (row y, pixel x, channel c). D(dy, dx, c) the output. clampi(v, lo, hi)
 * clamps an int. "float" means IEEE binary32 with round-to-nearest-even and NO fused
 * multiply-add (nvcc --fmad=false or __fmul_rn/__fadd_rn; OpenCL `#pragma OPENCL FP_CONTRACT
 * OFF`); every expression is evaluated exactly as parenthesised, left to right otherwise, with
 * one rounding per operation. f32 outputs are bit-identical to OpenCV too.
 * rne(f): round float to nearest integer, ties to even (cvRound, cvtps2dq, __float2int_rn,
 * rint). sat_u8 / sat_u16: clamp to [0,255] / [0,65535].
 *
 * Path by path (p = the plan):
 *
 * TSR__RESIZE_COPY (output size == input size): D = S, byte for byte.
 *
 * TSR__RESIZE_NEAREST: tables XOFS int32[OW], YOFS int32[OH] (source pixel / row indices, already
 *   clamped). D(dy,dx,c) = S(YOFS[dy], XOFS[dx], c).
 *
 * TSR__RESIZE_SEPARABLE (linear, cubic, lanczos4; area when upscaling): p->ksize taps (2, 4, 8),
 *   kh = ksize/2. Tables XOFS int32[OW] (pixel of tap kh-1; may be < 0 or >= W for cubic and
 *   lanczos4), YOFS int32[OH] (row of tap kh-1, likewise), XCOEF [OW*ksize] and YCOEF [OH*ksize]:
 *   int16 for u8 (11-bit fixed point, 2048 = 1.0), float for u16 and f32. p->xmin, p->xmax
 *   (pixels): output columns dx < xmin or dx >= xmax are "border" columns.
 *   Step 1, horizontal, for one source row y (y already clamped) and output element (dx, c):
 *     u8: integer arithmetic (int32, exact). u16/f32: float.
 *     ksize == 2 (linear, area-mode):
 *       dx <  xmax: h = S(y,sx,c)*a0 + S(y,sx+1,c)*a1      (sx = XOFS[dx], a = XCOEF + dx*2)
 *       dx >= xmax: h = S(y,sx,c)*2048 (u8), h = (float)S(y,sx,c) (u16/f32)
 *     ksize 4 / 8:
 *       interior (xmin <= dx < xmax): h = S(y,sx-kh+1,c)*a0 + S(y,sx-kh+2,c)*a1 + ... + a[ksize-1]
 *       border: h = 0; for j in 0..ksize-1: h = h + S(y, clampi(sx-kh+1+j, 0, W-1), c)*a[j]
 *         (the same value as the interior formula with clamped taps, except that a float sum
 *         that starts from +0 turns an all -0 sum into +0; write it this way for f32 bytes).
 *   Step 2, vertical, for output element e = dx*cn + c of row dy: the rows are
 *     r_k = clampi(YOFS[dy] - kh + 1 + k, 0, H - 1), k = 0..ksize-1, h_k = step 1 on row r_k,
 *     b = YCOEF + dy*ksize, and e < p->vec_end selects OpenCV's SIMD formula (see vform):
 *     u8 linear:   D = sat_u8((((b0*(h0>>4))>>16) + ((b1*(h1>>4))>>16) + 2) >> 2)
 *                  (>> is arithmetic on int32; the same for all e)
 *     u8 cubic/lanczos4, e >= vec_end (scalar): D = sat_u8((sum_k h_k*b_k + (1<<21)) >> 22)
 *                  (int32 sum, left to right; exact)
 *     u8 cubic, e < vec_end (SIMD):  f_k = (float)h_k * ((float)b_k * (1.f/4194304.f)),
 *                  D = sat_u8(rne(f_0 + (f_1 + (f_2 + f_3))))
 *     u16/f32 (all ksize), t = per p->vform for e < vec_end, VFORM_SEQ for e >= vec_end:
 *       VFORM_SEQ:    t = ((h_0*b_0 + h_1*b_1) + h_2*b_2) + ...   (plain left to right)
 *       VFORM_NESTED: t = h_0*b_0 + (h_1*b_1 + (h_2*b_2 + (... + h_{k-1}*b_{k-1})))
 *       u16: D = sat_u16(rne(t)); f32: D = t.
 *   What the Debian 4.6 binary does (found by testing row widths around the vector sizes;
 *   width = OW*cn elements): u8 linear, u8 lanczos4, u16 lanczos4 and every linear/area-mode
 *   pass have no SIMD difference (vec_end = 0); u8 cubic and u16 cubic: vec_end = width/8*8,
 *   nested; f32 cubic and f32 lanczos4: vec_end = width/4*4, nested.
 *
 * TSR__RESIZE_AREA_FAST (integer factors sx = p->iscale_x, sy = p->iscale_y; no tables):
 *   full cells: dy < p->full_h (= H / sy) and element e < p->full_w (= (W / sx) * cn).
 *   e = dx*cn + c; the cell's samples are S(dy*sy + i, dx*sx + j, c), i < sy, j < sx.
 *   Full cell, e < p->fast_end (OpenCV's 2x2 fast code; only when sx == sy == 2):
 *     u8/u16: D = (s00 + s01 + s10 + s11 + 2) >> 2          (s_ij = S(2dy+i, 2dx+j, c), int)
 *     f32:    D = ((s00 + s01) + (s10 + s11)) * 0.25f
 *   Full cell, e >= p->fast_end (generic): the samples in row-major order (i outer, j inner),
 *     n = 0..sx*sy-1, taken in groups of four from the start (OpenCV's unrolled loop): each
 *     group is summed first, exactly in int32 for u8/u16, ((a + b) + c) + d in float for f32,
 *     then added to the accumulator (int32 for u8; float for u16 and f32, starting at 0.f); the
 *     last (sx*sy)%4 samples are added one at a time. D = sat(rne(acc * scale)) for u8/u16,
 *     with scale = 1.f / (sx*sy) and the product in float ((float)acc * scale); f32: acc*scale.
 *   fast_end (Debian 4.6): sx == sy == 2 and u8/u16 with cn != 2: full_w (all full cells);
 *     f32 with cn == 1: full_w/4*4; f32 with cn == 4: full_w; otherwise 0.
 *   Partial cell (dy >= full_h or e >= full_w): sum (int32 / float, same order) and count
 *     the samples that lie inside the source; D = sat(rne((float)sum / (float)count)) for u8/u16,
 *     sum / (float)count for f32.
 *
 * TSR__RESIZE_AREA (decimation with fractional factors, OpenCV's DecimateAlpha tables):
 *   Tables XSTART int32[OW+1], XOFS int32[nx] (source pixel per tap), XCOEF float[nx];
 *   YSTART int32[OH+1], YOFS int32[ny], YCOEF float[ny]. Taps of output column dx are
 *   k in [XSTART[dx], XSTART[dx+1]) in table order; likewise rows.
 *   For output (dy, dx, c): for each row tap j in order (row r = YOFS[j], weight b = YCOEF[j]):
 *     h = 0.f; for each column tap k in order: h = h + (float)S(r, XOFS[k], c) * XCOEF[k]
 *     acc = (j is the first row tap) ? b*h : acc + b*h
 *   D = sat(rne(acc)) for u8/u16, acc for f32.
 *
 * TSR__RESIZE_LINEAR_EXACT (OpenCV's resize_bitExact, u8 and u16 only): unsigned fixed point
 *   with F = p->frac_bits fractional bits (8 for u8, 16 for u16). Tables XOFS int32[OW],
 *   XCOEF uint32[OW*2], YOFS int32[OH], YCOEF uint32[OH*2] (raw fixed values, c0 + c1 == 1<<F),
 *   p->xmin, p->xmax, p->ymin, p->ymax.
 *   Horizontal, row y, element (dx, c), raw value with F fractional bits:
 *     dx <  xmin: h = S(y, 0, c) << F
 *     dx >= xmax: h = S(y, W-1, c) << F
 *     else:       h = c0*S(y, XOFS[dx], c) + c1*S(y, XOFS[dx]+1, c)      (exact, < 2^(F+bits))
 *   Vertical, row dy:
 *     dy <  ymin: D = (h(row 0) + (1<<(F-1))) >> F
 *     dy >= ymax: D = (h(row H-1) + (1<<(F-1))) >> F
 *     else: D = (d0*h(row YOFS[dy]) + d1*h(row YOFS[dy]+1) + (1<<(2F-1))) >> 2F
 *           (64-bit for u16; d = YCOEF + dy*2; saturate to the type, never needed in practice)
 */
#ifndef TSR_RESIZE_PLAN_H
#define TSR_RESIZE_PLAN_H

#include "core/ctx.h"
#include "tessera/resize.h"

#include <stddef.h>
#include <stdint.h>

typedef enum tsr__resize_path {
    TSR__RESIZE_COPY = 0,
    TSR__RESIZE_NEAREST,
    TSR__RESIZE_SEPARABLE,
    TSR__RESIZE_AREA_FAST,
    TSR__RESIZE_AREA,
    TSR__RESIZE_LINEAR_EXACT
} tsr__resize_path;

/* The vertical-sum orders of OpenCV's loops (see the comment above). */
typedef enum tsr__resize_vform {
    TSR__VFORM_SEQ = 0, /* scalar loops */
    TSR__VFORM_NESTED   /* SIMD loops built from nested multiply-adds */
} tsr__resize_vform;

/* plan.dn32: which 3:2 downscale form of resize_dn32.h the tables have. */
enum { TSR__DN32_NONE = 0, TSR__DN32_LINEAR = 1, TSR__DN32_AREA = 2, TSR__DN32_NEAREST = 3 };

/* The plan's tables. Which ones a path uses, their element types and lengths: see above. */
typedef enum tsr__resize_table {
    TSR__RT_XOFS = 0,
    TSR__RT_YOFS,
    TSR__RT_XCOEF,
    TSR__RT_YCOEF,
    TSR__RT_XSTART,
    TSR__RT_YSTART,
    TSR__RT_COUNT
} tsr__resize_table;

typedef struct tsr__resize_plan {
    tsr__resize_path path;
    tsr_interp requested_interp; /* what the caller asked for */
    tsr_interp interp; /* the effective one, after OpenCV's re-routing (linear 2x -> area...) */
    tsr_depth depth;
    int32_t cn;
    int32_t src_w, src_h, dst_w, dst_h;
    double inv_scale_x, inv_scale_y; /* OpenCV's inv_scale (fx, fy) */

    /* SEPARABLE */
    int32_t ksize;      /* 2, 4 or 8 */
    int32_t xmin, xmax; /* border columns: dx < xmin, dx >= xmax (pixels) */
    int32_t vec_end;    /* vertical pass: elements [0, vec_end) of a row use vform */
    tsr__resize_vform vform;
    /* u8 with ksize 2 only: 1 when every coefficient pair the kernels use (x: dx < xmax; y: all
     * rows) is non-negative and sums to 2048, as linear and area-upscale tables do. Then
     * h = s0*2048 + (s1 - s0)*c1 exactly, and the vertical result needs no clamping. */
    int32_t unit_pairs;
    /* u8 with ksize 2 only: 1 when the tables are exactly OpenCV's linear 2x upscale on both axes
     * (the entries listed in resize_up2.h, checked one by one), so resize_up2.h's formula applies.
     */
    int32_t up2;
    /* u8 only: TSR__DN32_LINEAR (separable), TSR__DN32_AREA (AREA) or TSR__DN32_NEAREST when the
     * tables are exactly a 3:2 downscale on both axes in resize_dn32.h's form (checked entry by
     * entry), else 0. */
    int32_t dn32;

    /* AREA_FAST */
    int32_t iscale_x, iscale_y;
    int32_t full_w;   /* elements of a row that belong to full cells */
    int32_t full_h;   /* rows made of full cells */
    int32_t fast_end; /* elements [0, fast_end) of full rows use the 2x2 fast formula */

    /* LINEAR_EXACT */
    int32_t frac_bits;
    int32_t ymin, ymax; /* (xmin, xmax above are shared) */

    /* Identifies these tables' contents: unique per build in the process, so a backend that
     * keeps a device copy of the tables can tell it is still current. Never 0. */
    uint64_t id;

    /* Tables: one host allocation, each part 16-byte aligned. */
    void *table[TSR__RT_COUNT];
    size_t table_bytes[TSR__RT_COUNT]; /* 0 for a table the path does not use */
    void *block;
} tsr__resize_plan;

/* Builds the plan for resizing a src_w x src_h image to dst_w x dst_h with cn channels
 * (1..4) of depth `depth`, as cv::resize(src, dsize or fx/fy, interp) does. inv_scale_x/y are
 * OpenCV's fx/fy: dst/src when the caller gave a size, the caller's factors otherwise (then
 * dst must be the size tsr_resize_size gives). Arguments are assumed checked by the caller
 * (sizes >= 1, valid enums). Allocates through ctx; free with tsr__resize_plan_free. */
tsr_status tsr__resize_plan_build(tsr_ctx *ctx, tsr__resize_plan *plan, int32_t src_w,
                                  int32_t src_h, int32_t dst_w, int32_t dst_h, int32_t cn,
                                  tsr_depth depth, tsr_interp interp, double inv_scale_x,
                                  double inv_scale_y);

/* Frees the tables; the plan is zeroed. NULL or a zeroed plan is a no-op. */
void tsr__resize_plan_free(tsr_ctx *ctx, tsr__resize_plan *plan);

/* Pointer and byte size of one table (NULL and 0 when the path does not use it). */
static inline const void *tsr__resize_plan_table(const tsr__resize_plan *plan, tsr__resize_table t,
                                                 size_t *bytes)
{
    if (bytes)
        *bytes = plan->table_bytes[t];
    return plan->table[t];
}

/* Total bytes of all tables (what a device copy needs). */
size_t tsr__resize_plan_tables_bytes(const tsr__resize_plan *plan);

/* "copy", "nearest", "separable", "area-fast", "area", "linear-exact". */
const char *tsr__resize_path_name(tsr__resize_path path);

#endif
