/* Building the resize plan: the decisions and tables of cv::resize / cv::hal::resize
 * (OpenCV 4.6, modules/imgproc/src/resize.cpp), recomputed in the same arithmetic.
 * The formulas each path's tables feed are in plan.h. */
#include "resize/plan.h"

#include "core/checked.h"

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <string.h>

enum { TSR__COEF_BITS = 11, TSR__COEF_SCALE = 1 << TSR__COEF_BITS };

/* cvFloor / cvRound (round half to even, as lrint in the default rounding mode). */
static int tsr__floor_d(double v)
{
    return (int)floor(v);
}
static int tsr__floor_f(float v)
{
    return (int)floorf(v);
}
static int tsr__round_f(float v)
{
    return (int)lrintf(v);
}

/* saturate_cast<int>(double): round half to even, clamped to int. */
static int tsr__sat_int(double v)
{
    double r = nearbyint(v);
    if (r >= 2147483647.0)
        return 2147483647;
    if (r <= -2147483648.0)
        return (-2147483647 - 1);
    return (int)r;
}

static int16_t tsr__sat_short(int v)
{
    return (int16_t)(v < -32768 ? -32768 : v > 32767 ? 32767 : v);
}

/* OpenCV's interpolateCubic (A = -0.75), float arithmetic in its order. */
static void tsr__cubic_coeffs(float x, float *c)
{
    const float a = -0.75f;
    c[0] = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a;
    c[1] = ((a + 2) * x - (a + 3)) * x * x + 1;
    c[2] = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1;
    c[3] = 1.f - c[0] - c[1] - c[2];
}

/* OpenCV's interpolateLanczos4: double sin/cos, float normalisation. */
static void tsr__lanczos4_coeffs(float x, float *c)
{
    static const double s45 = 0.70710678118654752440084436210485;
    static const double cs[8][2] = {{1, 0},  {-s45, -s45}, {0, 1},  {s45, -s45},
                                    {-1, 0}, {s45, s45},   {0, -1}, {-s45, s45}};
    const double pi = 3.1415926535897932384626433832795;
    if (x < FLT_EPSILON) {
        for (int i = 0; i < 8; i++)
            c[i] = 0;
        c[3] = 1;
        return;
    }
    float sum = 0;
    double y0 = -(x + 3) * pi * 0.25, s0 = sin(y0), c0 = cos(y0);
    for (int i = 0; i < 8; i++) {
        double y = -(x + 3 - i) * pi * 0.25;
        c[i] = (float)((cs[i][0] * s0 + cs[i][1] * c0) / (y * y));
        sum += c[i];
    }
    sum = 1.f / sum;
    for (int i = 0; i < 8; i++)
        c[i] *= sum;
}

/* Table layout: element sizes and counts per table, filled before the one allocation. */
typedef struct tsr__layout {
    size_t elem[TSR__RT_COUNT];
    size_t count[TSR__RT_COUNT];
} tsr__layout;

static tsr_status tsr__plan_alloc(tsr_ctx *ctx, tsr__resize_plan *p, const tsr__layout *lay)
{
    size_t total = 0, offs[TSR__RT_COUNT];
    for (int t = 0; t < TSR__RT_COUNT; t++) {
        size_t bytes, padded;
        if (!tsr__size_mul(lay->elem[t], lay->count[t], &bytes) ||
            !tsr__size_add(bytes, 15, &padded))
            return tsr__fail(ctx, TSR_ERR_OVERFLOW, "resize: coefficient tables overflow");
        offs[t] = total;
        p->table_bytes[t] = bytes;
        if (!tsr__size_add(total, padded & ~(size_t)15, &total))
            return tsr__fail(ctx, TSR_ERR_OVERFLOW, "resize: coefficient tables overflow");
    }
    if (total == 0)
        return TSR_OK;
    tsr_status st = tsr__alloc(ctx, total, &p->block);
    if (st != TSR_OK)
        return st;
    memset(p->block, 0, total);
    for (int t = 0; t < TSR__RT_COUNT; t++)
        p->table[t] = p->table_bytes[t] ? (char *)p->block + offs[t] : NULL;
    return TSR_OK;
}

/* One axis of the generic (HResize/VResize) tables: offsets and ksize coefficients per output
 * position, OpenCV's coordinate mapping, border clamping for linear/area only. Returns the
 * border limits (used for the x axis). */
static void tsr__separable_axis(const tsr__resize_plan *p, int ssize, int dsize, double scale,
                                double inv_scale, int clamp_taps, int32_t *ofs, void *coef,
                                int32_t *out_min, int32_t *out_max)
{
    const int ksize = p->ksize, kh = ksize / 2;
    const int area_mode = p->interp == TSR_INTERP_AREA;
    const int fixpt = p->depth == TSR_U8;
    int32_t lo = 0, hi = dsize;
    for (int d = 0; d < dsize; d++) {
        float f, cbuf[8];
        int s;
        if (!area_mode) {
            f = (float)((d + 0.5) * scale - 0.5);
            s = tsr__floor_f(f);
            f -= (float)s;
        } else {
            s = tsr__floor_d(d * scale);
            f = (float)((d + 1) - (s + 1) * inv_scale);
            f = f <= 0 ? 0.f : f - (float)tsr__floor_f(f);
        }
        if (clamp_taps) {
            if (s < kh - 1) {
                lo = d + 1;
                if (s < 0 && ksize == 2)
                    f = 0, s = 0;
            }
            if (s + kh >= ssize) {
                if (d < hi)
                    hi = d;
                if (s >= ssize - 1 && ksize == 2)
                    f = 0, s = ssize - 1;
            }
        }
        ofs[d] = s;
        if (ksize == 4)
            tsr__cubic_coeffs(f, cbuf);
        else if (ksize == 8)
            tsr__lanczos4_coeffs(f, cbuf);
        else {
            cbuf[0] = 1.f - f;
            cbuf[1] = f;
        }
        for (int k = 0; k < ksize; k++) {
            if (fixpt)
                ((int16_t *)coef)[d * ksize + k] =
                    tsr__sat_short(tsr__round_f(cbuf[k] * TSR__COEF_SCALE));
            else
                ((float *)coef)[d * ksize + k] = cbuf[k];
        }
    }
    *out_min = lo;
    *out_max = hi;
}

/* 1 when the first n pairs of 2-tap fixed-point coefficients are non-negative and sum to 2048. */
static int tsr__unit_pairs(const int16_t *c, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        if (c[2 * i] < 0 || c[2 * i + 1] < 0 || c[2 * i] + c[2 * i + 1] != TSR__COEF_SCALE)
            return 0;
    return 1;
}

/* 1 when one axis' offsets and 2-tap coefficients are OpenCV's linear 2x upscale, entry by entry
 * (resize_up2.h lists them): output d = 2k uses (k-1; 512, 1536), d = 2k+1 uses (k; 1536, 512),
 * except, with clamped taps (the x axis), d = 0 -> (0; 2048, 0) and d = 2n-1 -> (n-1; 2048, 0). */
static int tsr__up2_axis(const int32_t *ofs, const int16_t *c, int32_t n, int32_t dsize, int clamp)
{
    if (dsize != 2 * n)
        return 0;
    for (int32_t d = 0; d < dsize; d++) {
        int32_t s = d % 2 ? (d - 1) / 2 : d / 2 - 1, c0 = d % 2 ? 1536 : 512;
        if (clamp && (d == 0 || d == dsize - 1))
            s = d == 0 ? 0 : n - 1, c0 = TSR__COEF_SCALE;
        if (ofs[d] != s || c[2 * d] != c0 || c[2 * d + 1] != TSR__COEF_SCALE - c0)
            return 0;
    }
    return 1;
}

/* 1 when every output d < dsize of a u8 2-tap axis copies one source index: coefficients
 * (2048, 0) for d < copy_end (the entries past it are border columns, which use the first tap
 * alone) and the index inside [0, n). */
static int tsr__copies_taps(const int32_t *ofs, const int16_t *c, int32_t dsize, int32_t copy_end,
                            int32_t n)
{
    for (int32_t d = 0; d < dsize; d++)
        if (ofs[d] < 0 || ofs[d] >= n ||
            (d < copy_end && (c[2 * d] != TSR__COEF_SCALE || c[2 * d + 1] != 0)))
            return 0;
    return 1;
}

/* 1 when n -> dsize is 3:2 (dsize = 2m, n = 3m). */
static int tsr__dn32_sizes(int32_t n, int32_t dsize)
{
    return dsize % 2 == 0 && 3 * (int64_t)dsize == 2 * (int64_t)n;
}

/* 1 when one axis' offsets (first tap) are resize_dn32.h's 3:2 pattern: output d = 2k reads from
 * source 3k, d = 2k+1 from 3k+1 (OpenCV's nearest and linear tables at 3:2). */
static int tsr__dn32_ofs(const int32_t *ofs, int32_t n, int32_t dsize)
{
    if (!tsr__dn32_sizes(n, dsize))
        return 0;
    for (int32_t d = 0; d < dsize; d++)
        if (ofs[d] != 3 * (d / 2) + d % 2)
            return 0;
    return 1;
}

/* 1 when one axis' offsets and 2-tap coefficients are OpenCV's linear 3:2 downscale, entry by
 * entry (resize_dn32.h): output d = 2k uses (3k; 1536, 512), d = 2k+1 uses (3k+1; 512, 1536). */
static int tsr__dn32_linear_axis(const int32_t *ofs, const int16_t *c, int32_t n, int32_t dsize)
{
    if (!tsr__dn32_ofs(ofs, n, dsize))
        return 0;
    for (int32_t d = 0; d < dsize; d++) {
        const int32_t c0 = d % 2 ? 512 : 1536;
        if (c[2 * d] != c0 || c[2 * d + 1] != TSR__COEF_SCALE - c0)
            return 0;
    }
    return 1;
}

/* 1 when one axis' area taps are resize_dn32.h's 3:2 form: two taps per output, (3k, 3k+1) for
 * d = 2k and (3k+1, 3k+2) for d = 2k+1, the weights of every even output equal to output 0's and
 * of every odd output to output 1's. */
static int tsr__dn32_area_axis(const int32_t *start, const int32_t *ofs, const float *w, int32_t n,
                               int32_t dsize)
{
    if (!tsr__dn32_sizes(n, dsize) || start[dsize] != 2 * dsize)
        return 0;
    for (int32_t d = 0; d < dsize; d++) {
        const int32_t s = 3 * (d / 2) + d % 2, q = 2 * (d % 2);
        if (start[d] != 2 * d || ofs[2 * d] != s || ofs[2 * d + 1] != s + 1 || w[2 * d] != w[q] ||
            w[2 * d + 1] != w[q + 1] || !(w[q] >= 0.f) || !(w[q + 1] >= 0.f))
            return 0;
    }
    return 1;
}

/* OpenCV's computeResizeAreaTab for one axis (cn = 1, pixel indices). With tab == NULL only
 * counts the taps. start[d] receives the first tap of output d, start[dsize] the total. */
static size_t tsr__area_axis(int ssize, int dsize, double scale, int32_t *start, int32_t *si,
                             float *alpha)
{
    size_t k = 0;
    for (int d = 0; d < dsize; d++) {
        double fs1 = d * scale, fs2 = fs1 + scale;
        double cell = fmin(scale, ssize - fs1);
        int s1 = (int)ceil(fs1), s2 = tsr__floor_d(fs2);
        if (s2 > ssize - 1)
            s2 = ssize - 1;
        if (s1 > s2)
            s1 = s2;
        if (start)
            start[d] = (int32_t)k;
        if (s1 - fs1 > 1e-3) {
            if (si) {
                si[k] = s1 - 1;
                alpha[k] = (float)((s1 - fs1) / cell);
            }
            k++;
        }
        for (int s = s1; s < s2; s++) {
            if (si) {
                si[k] = s;
                alpha[k] = (float)(1.0 / cell);
            }
            k++;
        }
        if (fs2 - s2 > 1e-3) {
            if (si) {
                si[k] = s2;
                alpha[k] = (float)(fmin(fmin(fs2 - s2, 1.), cell) / cell);
            }
            k++;
        }
    }
    if (start)
        start[dsize] = (int32_t)k;
    return k;
}

/* interpolationLinear::getCoeffs of resize_bitExact for one axis: double arithmetic (OpenCV
 * uses softdouble, which is IEEE double without contraction), coefficients rounded half to
 * even to frac_bits. */
static void tsr__exact_axis(int ssize, int dsize, double inv_scale, int frac_bits, int32_t *ofs,
                            uint32_t *coef, int32_t *out_min, int32_t *out_max)
{
    const double scale = 1.0 / inv_scale;
    const uint32_t one = 1u << frac_bits;
    int32_t lo = 0, hi = dsize;
    for (int d = 0; d < dsize; d++) {
        double fval = scale * ((double)d + 0.5) - 0.5;
        int ival = tsr__floor_d(fval);
        ofs[d] = 0;
        coef[2 * d] = one;
        coef[2 * d + 1] = 0;
        if (ival >= 0 && ssize > 1) {
            if (ival < ssize - 1) {
                double frac = fval - (double)ival;
                uint32_t c1 = (uint32_t)nearbyint(frac * (double)one);
                ofs[d] = ival;
                coef[2 * d + 1] = c1;
                coef[2 * d] = one - c1;
            } else {
                ofs[d] = ssize - 1;
                if (d < hi)
                    hi = d;
            }
        } else if (d + 1 > lo) {
            lo = d + 1;
        }
    }
    *out_min = lo;
    *out_max = hi;
}

const char *tsr__resize_path_name(tsr__resize_path path)
{
    switch (path) {
    case TSR__RESIZE_COPY: return "copy";
    case TSR__RESIZE_NEAREST: return "nearest";
    case TSR__RESIZE_SEPARABLE: return "separable";
    case TSR__RESIZE_AREA_FAST: return "area-fast";
    case TSR__RESIZE_AREA: return "area";
    case TSR__RESIZE_LINEAR_EXACT: return "linear-exact";
    }
    return "?";
}

size_t tsr__resize_plan_tables_bytes(const tsr__resize_plan *plan)
{
    size_t total = 0;
    for (int t = 0; t < TSR__RT_COUNT; t++)
        total += plan->table_bytes[t];
    return total;
}

void tsr__resize_plan_free(tsr_ctx *ctx, tsr__resize_plan *plan)
{
    if (!plan)
        return;
    if (plan->block)
        tsr__free(ctx, plan->block);
    memset(plan, 0, sizeof *plan);
}

/* Chooses the path as cv::resize and hal::resize do, in their order. */
static tsr__resize_path tsr__choose_path(tsr__resize_plan *p, double scale_x, double scale_y)
{
    if (p->src_w == p->dst_w && p->src_h == p->dst_h)
        return TSR__RESIZE_COPY;
    tsr_interp interp = p->interp;
    if (interp == TSR_INTERP_LINEAR_EXACT && p->depth == TSR_F32)
        interp = TSR_INTERP_LINEAR; /* cv::resize: bit-exact has no float version */
    if (interp == TSR_INTERP_NEAREST)
        return TSR__RESIZE_NEAREST;
    int isx = tsr__sat_int(scale_x), isy = tsr__sat_int(scale_y);
    int area_fast = fabs(scale_x - isx) < DBL_EPSILON && fabs(scale_y - isy) < DBL_EPSILON;
    int exact2x = area_fast && isx == 2 && isy == 2;
    if (interp == TSR_INTERP_LINEAR_EXACT) {
        /* 2x2 decimation goes to area (its rounding equals the fixed point), except for 2
         * channels, whose area code does not round the same way. */
        if (exact2x && p->cn != 2)
            interp = TSR_INTERP_AREA;
        else
            return TSR__RESIZE_LINEAR_EXACT;
    }
    if (interp == TSR_INTERP_LINEAR && exact2x)
        interp = TSR_INTERP_AREA;
    p->interp = interp;
    if (interp == TSR_INTERP_AREA && scale_x >= 1 && scale_y >= 1) {
        p->iscale_x = isx;
        p->iscale_y = isy;
        return area_fast ? TSR__RESIZE_AREA_FAST : TSR__RESIZE_AREA;
    }
    return TSR__RESIZE_SEPARABLE;
}

/* The vertical SIMD loops of the Debian 4.6 build (128-bit universal intrinsics): which
 * elements of a row they cover and in which order they sum (plan.h). */
static void tsr__separable_simd(tsr__resize_plan *p)
{
    const int width = p->dst_w * p->cn;
    p->vform = TSR__VFORM_SEQ;
    p->vec_end = 0;
    if (p->depth == TSR_U8) {
        if (p->ksize == 4) {
            p->vform = TSR__VFORM_NESTED;
            p->vec_end = width / 8 * 8;
        }
    } else if (p->ksize == 4) {
        p->vform = TSR__VFORM_NESTED;
        p->vec_end = p->depth == TSR_F32 ? width / 4 * 4 : width / 8 * 8;
    } else if (p->ksize == 8 && p->depth == TSR_F32) {
        p->vform = TSR__VFORM_NESTED; /* u16 lanczos4 sums left to right everywhere */
        p->vec_end = width / 4 * 4;
    }
}

static void tsr__area_fast_simd(tsr__resize_plan *p)
{
    p->fast_end = 0;
    if (p->iscale_x != 2 || p->iscale_y != 2)
        return;
    if (p->depth == TSR_F32) {
        if (p->cn == 1)
            p->fast_end = p->full_w / 4 * 4;
        else if (p->cn == 4)
            p->fast_end = p->full_w;
    } else if (p->cn != 2) {
        p->fast_end = p->full_w;
    }
}

tsr_status tsr__resize_plan_build(tsr_ctx *ctx, tsr__resize_plan *p, int32_t src_w, int32_t src_h,
                                  int32_t dst_w, int32_t dst_h, int32_t cn, tsr_depth depth,
                                  tsr_interp interp, double inv_scale_x, double inv_scale_y)
{
    static _Atomic uint64_t next_id = 1;
    memset(p, 0, sizeof *p);
    p->id = atomic_fetch_add(&next_id, 1);
    p->requested_interp = interp;
    p->interp = interp;
    p->depth = depth;
    p->cn = cn;
    p->src_w = src_w;
    p->src_h = src_h;
    p->dst_w = dst_w;
    p->dst_h = dst_h;
    p->inv_scale_x = inv_scale_x;
    p->inv_scale_y = inv_scale_y;
    const double scale_x = 1. / inv_scale_x, scale_y = 1. / inv_scale_y;
    p->path = tsr__choose_path(p, scale_x, scale_y);

    tsr__layout lay;
    memset(&lay, 0, sizeof lay);
    tsr_status st;
    switch (p->path) {
    case TSR__RESIZE_COPY: return TSR_OK;

    case TSR__RESIZE_NEAREST: {
        lay.elem[TSR__RT_XOFS] = lay.elem[TSR__RT_YOFS] = sizeof(int32_t);
        lay.count[TSR__RT_XOFS] = (size_t)dst_w;
        lay.count[TSR__RT_YOFS] = (size_t)dst_h;
        if ((st = tsr__plan_alloc(ctx, p, &lay)) != TSR_OK)
            return st;
        int32_t *xo = p->table[TSR__RT_XOFS], *yo = p->table[TSR__RT_YOFS];
        for (int x = 0; x < dst_w; x++) {
            int s = tsr__floor_d(x * scale_x);
            xo[x] = s < src_w - 1 ? s : src_w - 1;
        }
        for (int y = 0; y < dst_h; y++) {
            int s = tsr__floor_d(y * scale_y);
            yo[y] = s < src_h - 1 ? s : src_h - 1;
        }
        if (depth == TSR_U8 && tsr__dn32_ofs(xo, src_w, dst_w) && tsr__dn32_ofs(yo, src_h, dst_h))
            p->dn32 = TSR__DN32_NEAREST;
        return TSR_OK;
    }

    case TSR__RESIZE_SEPARABLE: {
        p->ksize = p->interp == TSR_INTERP_CUBIC ? 4 : p->interp == TSR_INTERP_LANCZOS4 ? 8 : 2;
        size_t ce = depth == TSR_U8 ? sizeof(int16_t) : sizeof(float);
        lay.elem[TSR__RT_XOFS] = lay.elem[TSR__RT_YOFS] = sizeof(int32_t);
        lay.elem[TSR__RT_XCOEF] = lay.elem[TSR__RT_YCOEF] = ce;
        lay.count[TSR__RT_XOFS] = (size_t)dst_w;
        lay.count[TSR__RT_YOFS] = (size_t)dst_h;
        lay.count[TSR__RT_XCOEF] = (size_t)dst_w * (size_t)p->ksize;
        lay.count[TSR__RT_YCOEF] = (size_t)dst_h * (size_t)p->ksize;
        if ((st = tsr__plan_alloc(ctx, p, &lay)) != TSR_OK)
            return st;
        int32_t unused_lo, unused_hi;
        tsr__separable_axis(p, src_w, dst_w, scale_x, inv_scale_x, 1, p->table[TSR__RT_XOFS],
                            p->table[TSR__RT_XCOEF], &p->xmin, &p->xmax);
        tsr__separable_axis(p, src_h, dst_h, scale_y, inv_scale_y, 0, p->table[TSR__RT_YOFS],
                            p->table[TSR__RT_YCOEF], &unused_lo, &unused_hi);
        tsr__separable_simd(p);
        p->unit_pairs = depth == TSR_U8 && p->ksize == 2 &&
                        tsr__unit_pairs(p->table[TSR__RT_XCOEF], p->xmax) &&
                        tsr__unit_pairs(p->table[TSR__RT_YCOEF], dst_h);
        p->up2 = p->unit_pairs && p->xmax == dst_w - 1 &&
                 tsr__up2_axis(p->table[TSR__RT_XOFS], p->table[TSR__RT_XCOEF], src_w, dst_w, 1) &&
                 tsr__up2_axis(p->table[TSR__RT_YOFS], p->table[TSR__RT_YCOEF], src_h, dst_h, 0);
        if (p->unit_pairs && p->xmax == dst_w &&
            tsr__dn32_linear_axis(p->table[TSR__RT_XOFS], p->table[TSR__RT_XCOEF], src_w, dst_w) &&
            tsr__dn32_linear_axis(p->table[TSR__RT_YOFS], p->table[TSR__RT_YCOEF], src_h, dst_h))
            p->dn32 = TSR__DN32_LINEAR;
        /* u8 tables that only copy (INTER_AREA upscales by integer factors, linear downscales by
         * odd integer factors): the vertical formula gives ((2048 * (2048s >> 4)) >> 16 + 2) >> 2
         * = (4s + 2) >> 2 = s, so the plan is the nearest plan with these offsets. */
        if (depth == TSR_U8 && p->ksize == 2 &&
            tsr__copies_taps(p->table[TSR__RT_XOFS], p->table[TSR__RT_XCOEF], dst_w, p->xmax,
                             src_w) &&
            tsr__copies_taps(p->table[TSR__RT_YOFS], p->table[TSR__RT_YCOEF], dst_h, dst_h,
                             src_h)) {
            p->path = TSR__RESIZE_NEAREST;
            p->unit_pairs = p->up2 = p->dn32 = 0;
            p->table[TSR__RT_XCOEF] = p->table[TSR__RT_YCOEF] = NULL; /* unused; freed with block */
            p->table_bytes[TSR__RT_XCOEF] = p->table_bytes[TSR__RT_YCOEF] = 0;
        }
        return TSR_OK;
    }

    case TSR__RESIZE_AREA_FAST:
        p->full_w = (src_w / p->iscale_x) * cn;
        p->full_h = src_h / p->iscale_y;
        tsr__area_fast_simd(p);
        return TSR_OK;

    case TSR__RESIZE_AREA: {
        size_t nx = tsr__area_axis(src_w, dst_w, scale_x, NULL, NULL, NULL);
        size_t ny = tsr__area_axis(src_h, dst_h, scale_y, NULL, NULL, NULL);
        lay.elem[TSR__RT_XOFS] = lay.elem[TSR__RT_YOFS] = sizeof(int32_t);
        lay.elem[TSR__RT_XSTART] = lay.elem[TSR__RT_YSTART] = sizeof(int32_t);
        lay.elem[TSR__RT_XCOEF] = lay.elem[TSR__RT_YCOEF] = sizeof(float);
        lay.count[TSR__RT_XOFS] = lay.count[TSR__RT_XCOEF] = nx;
        lay.count[TSR__RT_YOFS] = lay.count[TSR__RT_YCOEF] = ny;
        lay.count[TSR__RT_XSTART] = (size_t)dst_w + 1;
        lay.count[TSR__RT_YSTART] = (size_t)dst_h + 1;
        if ((st = tsr__plan_alloc(ctx, p, &lay)) != TSR_OK)
            return st;
        tsr__area_axis(src_w, dst_w, scale_x, p->table[TSR__RT_XSTART], p->table[TSR__RT_XOFS],
                       p->table[TSR__RT_XCOEF]);
        tsr__area_axis(src_h, dst_h, scale_y, p->table[TSR__RT_YSTART], p->table[TSR__RT_YOFS],
                       p->table[TSR__RT_YCOEF]);
        if (depth == TSR_U8 &&
            tsr__dn32_area_axis(p->table[TSR__RT_XSTART], p->table[TSR__RT_XOFS],
                                p->table[TSR__RT_XCOEF], src_w, dst_w) &&
            tsr__dn32_area_axis(p->table[TSR__RT_YSTART], p->table[TSR__RT_YOFS],
                                p->table[TSR__RT_YCOEF], src_h, dst_h))
            p->dn32 = TSR__DN32_AREA;
        return TSR_OK;
    }

    case TSR__RESIZE_LINEAR_EXACT: {
        p->frac_bits = depth == TSR_U8 ? 8 : 16;
        lay.elem[TSR__RT_XOFS] = lay.elem[TSR__RT_YOFS] = sizeof(int32_t);
        lay.elem[TSR__RT_XCOEF] = lay.elem[TSR__RT_YCOEF] = sizeof(uint32_t);
        lay.count[TSR__RT_XOFS] = (size_t)dst_w;
        lay.count[TSR__RT_YOFS] = (size_t)dst_h;
        lay.count[TSR__RT_XCOEF] = (size_t)dst_w * 2;
        lay.count[TSR__RT_YCOEF] = (size_t)dst_h * 2;
        if ((st = tsr__plan_alloc(ctx, p, &lay)) != TSR_OK)
            return st;
        tsr__exact_axis(src_w, dst_w, inv_scale_x, p->frac_bits, p->table[TSR__RT_XOFS],
                        p->table[TSR__RT_XCOEF], &p->xmin, &p->xmax);
        tsr__exact_axis(src_h, dst_h, inv_scale_y, p->frac_bits, p->table[TSR__RT_YOFS],
                        p->table[TSR__RT_YCOEF], &p->ymin, &p->ymax);
        return TSR_OK;
    }
    }
    return tsr__fail(ctx, TSR_ERR_INTERNAL, "resize: unknown path");
}
