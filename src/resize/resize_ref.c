/* The single-threaded resize reference: plan.h's per-element formulas, written out one output
 * sample at a time with no caching and no cleverness. Every other backend must give the same
 * bytes. */
#include "resize/resize_backends.h"

#include <math.h>
#include <string.h>

/* One source sample, as an integer (u8/u16) or a float (any depth). e is the element index
 * within row y (pixel*cn + channel). */
static int ld_i(const tsr_image *img, int y, int e)
{
    const char *row = (const char *)img->data + (size_t)y * img->stride;
    return img->depth == TSR_U8 ? ((const uint8_t *)row)[e] : ((const uint16_t *)row)[e];
}

static float ld_f(const tsr_image *img, int y, int e)
{
    const char *row = (const char *)img->data + (size_t)y * img->stride;
    switch (img->depth) {
    case TSR_U8: return (float)((const uint8_t *)row)[e];
    case TSR_U16: return (float)((const uint16_t *)row)[e];
    default: return ((const float *)row)[e];
    }
}

/* Stores an integer result, saturated to the depth (u8/u16). */
static void st_i(tsr_image *img, int y, int e, long long v)
{
    char *row = (char *)img->data + (size_t)y * img->stride;
    if (img->depth == TSR_U8)
        ((uint8_t *)row)[e] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    else
        ((uint16_t *)row)[e] = (uint16_t)(v < 0 ? 0 : v > 65535 ? 65535 : v);
}

/* Stores a float result: rounded half to even and saturated for u8/u16, as is for f32. */
static void st_f(tsr_image *img, int y, int e, float v)
{
    if (img->depth == TSR_F32) {
        char *row = (char *)img->data + (size_t)y * img->stride;
        ((float *)row)[e] = v;
        return;
    }
    /* rne with saturation; NaN cannot occur (finite inputs, positive counts) */
    float lim = img->depth == TSR_U8 ? 255.f : 65535.f;
    st_i(img, y, e, v <= 0.f ? 0 : v >= lim ? (long long)lim : (long long)lrintf(v));
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static void ref_copy(const tsr__resize_plan *p, const tsr_image *src, tsr_image *dst)
{
    size_t row = (size_t)p->dst_w * (size_t)p->cn * tsr_depth_size(p->depth);
    for (int y = 0; y < p->dst_h; y++)
        memcpy((char *)dst->data + (size_t)y * dst->stride,
               (const char *)src->data + (size_t)y * src->stride, row);
}

static void ref_nearest(const tsr__resize_plan *p, const tsr_image *src, tsr_image *dst)
{
    const int32_t *xo = p->table[TSR__RT_XOFS], *yo = p->table[TSR__RT_YOFS];
    size_t es = tsr_depth_size(p->depth);
    for (int dy = 0; dy < p->dst_h; dy++)
        for (int dx = 0; dx < p->dst_w; dx++)
            for (int c = 0; c < p->cn; c++) {
                const char *s = (const char *)src->data + (size_t)yo[dy] * src->stride +
                                ((size_t)xo[dx] * p->cn + c) * es;
                char *d =
                    (char *)dst->data + (size_t)dy * dst->stride + ((size_t)dx * p->cn + c) * es;
                memcpy(d, s, es);
            }
}

/* Separable, step 1 for u8: the int32 horizontal value of row y at (dx, c). */
static int sep_h_u8(const tsr__resize_plan *p, const tsr_image *src, int y, int dx, int c)
{
    const int k = p->ksize, kh = k / 2, cn = p->cn;
    const int sx = ((const int32_t *)p->table[TSR__RT_XOFS])[dx];
    const int16_t *a = (const int16_t *)p->table[TSR__RT_XCOEF] + (size_t)dx * k;
    if (k == 2) {
        if (dx < p->xmax)
            return ld_i(src, y, sx * cn + c) * a[0] + ld_i(src, y, (sx + 1) * cn + c) * a[1];
        return ld_i(src, y, sx * cn + c) * 2048;
    }
    int h = 0;
    for (int j = 0; j < k; j++)
        h += ld_i(src, y, clampi(sx - kh + 1 + j, 0, p->src_w - 1) * cn + c) * a[j];
    return h;
}

/* Separable, step 1 for u16/f32: the float horizontal value (plan.h: interior sums without a
 * leading zero, border sums from +0). */
static float sep_h_f(const tsr__resize_plan *p, const tsr_image *src, int y, int dx, int c)
{
    const int k = p->ksize, kh = k / 2, cn = p->cn;
    const int sx = ((const int32_t *)p->table[TSR__RT_XOFS])[dx];
    const float *a = (const float *)p->table[TSR__RT_XCOEF] + (size_t)dx * k;
    if (k == 2) {
        if (dx < p->xmax)
            return ld_f(src, y, sx * cn + c) * a[0] + ld_f(src, y, (sx + 1) * cn + c) * a[1];
        return ld_f(src, y, sx * cn + c);
    }
    if (dx >= p->xmin && dx < p->xmax) {
        float h = ld_f(src, y, (sx - kh + 1) * cn + c) * a[0];
        for (int j = 1; j < k; j++)
            h = h + ld_f(src, y, (sx - kh + 1 + j) * cn + c) * a[j];
        return h;
    }
    float h = 0.f;
    for (int j = 0; j < k; j++)
        h = h + ld_f(src, y, clampi(sx - kh + 1 + j, 0, p->src_w - 1) * cn + c) * a[j];
    return h;
}

static void ref_separable(const tsr__resize_plan *p, const tsr_image *src, tsr_image *dst)
{
    const int k = p->ksize, kh = k / 2, cn = p->cn;
    const int32_t *yo = p->table[TSR__RT_YOFS];
    for (int dy = 0; dy < p->dst_h; dy++) {
        int rows[8];
        for (int j = 0; j < k; j++)
            rows[j] = clampi(yo[dy] - kh + 1 + j, 0, p->src_h - 1);
        for (int dx = 0; dx < p->dst_w; dx++)
            for (int c = 0; c < cn; c++) {
                const int e = dx * cn + c;
                if (p->depth == TSR_U8) {
                    const int16_t *b = (const int16_t *)p->table[TSR__RT_YCOEF] + (size_t)dy * k;
                    int h[8] = {0};
                    for (int j = 0; j < k; j++)
                        h[j] = sep_h_u8(p, src, rows[j], dx, c);
                    if (k == 2) {
                        st_i(dst, dy, e,
                             (((b[0] * (h[0] >> 4)) >> 16) + ((b[1] * (h[1] >> 4)) >> 16) + 2) >>
                                 2);
                    } else if (e < p->vec_end) {
                        float t = (float)h[k - 1] * ((float)b[k - 1] * (1.f / 4194304.f));
                        for (int j = k - 2; j >= 0; j--)
                            t = (float)h[j] * ((float)b[j] * (1.f / 4194304.f)) + t;
                        st_f(dst, dy, e, t);
                    } else {
                        int s = 0;
                        for (int j = 0; j < k; j++)
                            s += h[j] * b[j];
                        st_i(dst, dy, e, (s + (1 << 21)) >> 22);
                    }
                } else {
                    const float *b = (const float *)p->table[TSR__RT_YCOEF] + (size_t)dy * k;
                    float h[8] = {0}, t;
                    for (int j = 0; j < k; j++)
                        h[j] = sep_h_f(p, src, rows[j], dx, c);
                    tsr__resize_vform form = e < p->vec_end ? p->vform : TSR__VFORM_SEQ;
                    if (form == TSR__VFORM_NESTED) {
                        t = h[k - 1] * b[k - 1];
                        for (int j = k - 2; j >= 0; j--)
                            t = h[j] * b[j] + t;
                    } else {
                        t = h[0] * b[0];
                        for (int j = 1; j < k; j++)
                            t = t + h[j] * b[j];
                    }
                    st_f(dst, dy, e, t);
                }
            }
    }
}

static void ref_area_fast(const tsr__resize_plan *p, const tsr_image *src, tsr_image *dst)
{
    const int sx = p->iscale_x, sy = p->iscale_y, cn = p->cn;
    const int area = sx * sy;
    const float scale = 1.f / (float)area;
    for (int dy = 0; dy < p->dst_h; dy++)
        for (int e = 0; e < p->dst_w * cn; e++) {
            const int dx = e / cn, c = e % cn;
            const int y0 = dy * sy, e0 = dx * sx * cn + c;
            if (dy < p->full_h && e < p->full_w) {
                if (e < p->fast_end) {
                    if (p->depth == TSR_F32)
                        st_f(dst, dy, e,
                             ((ld_f(src, y0, e0) + ld_f(src, y0, e0 + cn)) +
                              (ld_f(src, y0 + 1, e0) + ld_f(src, y0 + 1, e0 + cn))) *
                                 0.25f);
                    else
                        st_i(dst, dy, e,
                             (ld_i(src, y0, e0) + ld_i(src, y0, e0 + cn) + ld_i(src, y0 + 1, e0) +
                              ld_i(src, y0 + 1, e0 + cn) + 2) >>
                                 2);
                    continue;
                }
                /* generic: sample n is (row n / sx, column n % sx); groups of four are summed
                 * first (exactly in int for u8/u16, left to right in float for f32) */
                float sum = 0.f;
                int isum = 0, n = 0;
#define AF_I(n) ld_i(src, y0 + (n) / sx, e0 + (n) % sx * cn)
#define AF_F(n) ld_f(src, y0 + (n) / sx, e0 + (n) % sx * cn)
                for (; n + 4 <= area; n += 4) {
                    if (p->depth == TSR_U8)
                        isum += AF_I(n) + AF_I(n + 1) + AF_I(n + 2) + AF_I(n + 3);
                    else if (p->depth == TSR_U16)
                        sum = sum + (float)(AF_I(n) + AF_I(n + 1) + AF_I(n + 2) + AF_I(n + 3));
                    else
                        sum = sum + (((AF_F(n) + AF_F(n + 1)) + AF_F(n + 2)) + AF_F(n + 3));
                }
                for (; n < area; n++) {
                    if (p->depth == TSR_U8)
                        isum += AF_I(n);
                    else
                        sum = sum + AF_F(n);
                }
#undef AF_I
#undef AF_F
                st_f(dst, dy, e, (p->depth == TSR_U8 ? (float)isum : sum) * scale);
                continue;
            }
            /* partial cell: the samples inside the source, one at a time */
            float fsum = 0.f;
            int isum = 0, count = 0;
            for (int i = 0; i < sy && y0 + i < p->src_h; i++)
                for (int j = 0; j < sx && e0 + j * cn < p->src_w * cn; j++, count++) {
                    if (p->depth == TSR_U8)
                        isum += ld_i(src, y0 + i, e0 + j * cn);
                    else
                        fsum = fsum + ld_f(src, y0 + i, e0 + j * cn);
                }
            if (p->depth == TSR_U8)
                fsum = (float)isum;
            st_f(dst, dy, e, fsum / (float)count);
        }
}

static void ref_area(const tsr__resize_plan *p, const tsr_image *src, tsr_image *dst)
{
    const int32_t *xs = p->table[TSR__RT_XSTART], *xo = p->table[TSR__RT_XOFS];
    const int32_t *ys = p->table[TSR__RT_YSTART], *yo = p->table[TSR__RT_YOFS];
    const float *xa = p->table[TSR__RT_XCOEF], *ya = p->table[TSR__RT_YCOEF];
    const int cn = p->cn;
    for (int dy = 0; dy < p->dst_h; dy++)
        for (int dx = 0; dx < p->dst_w; dx++)
            for (int c = 0; c < cn; c++) {
                float acc = 0.f;
                for (int j = ys[dy]; j < ys[dy + 1]; j++) {
                    float h = 0.f;
                    for (int k = xs[dx]; k < xs[dx + 1]; k++)
                        h = h + ld_f(src, yo[j], xo[k] * cn + c) * xa[k];
                    acc = j == ys[dy] ? ya[j] * h : acc + ya[j] * h;
                }
                st_f(dst, dy, dx * cn + c, acc);
            }
}

/* Linear-exact, horizontal: raw fixed-point value with frac_bits fractional bits. */
static uint64_t exact_h(const tsr__resize_plan *p, const tsr_image *src, int y, int dx, int c)
{
    const int f = p->frac_bits, cn = p->cn;
    if (dx < p->xmin)
        return (uint64_t)ld_i(src, y, c) << f;
    if (dx >= p->xmax)
        return (uint64_t)ld_i(src, y, (p->src_w - 1) * cn + c) << f;
    const int sx = ((const int32_t *)p->table[TSR__RT_XOFS])[dx];
    const uint32_t *a = (const uint32_t *)p->table[TSR__RT_XCOEF] + (size_t)dx * 2;
    return (uint64_t)a[0] * (uint64_t)ld_i(src, y, sx * cn + c) +
           (uint64_t)a[1] * (uint64_t)ld_i(src, y, (sx + 1) * cn + c);
}

static void ref_linear_exact(const tsr__resize_plan *p, const tsr_image *src, tsr_image *dst)
{
    const int f = p->frac_bits, cn = p->cn;
    const int32_t *yo = p->table[TSR__RT_YOFS];
    const uint32_t *yc = p->table[TSR__RT_YCOEF];
    for (int dy = 0; dy < p->dst_h; dy++)
        for (int dx = 0; dx < p->dst_w; dx++)
            for (int c = 0; c < cn; c++) {
                uint64_t v;
                if (dy < p->ymin || dy >= p->ymax) {
                    int row = dy < p->ymin ? 0 : p->src_h - 1;
                    v = (exact_h(p, src, row, dx, c) + (1ull << (f - 1))) >> f;
                } else {
                    uint64_t h0 = exact_h(p, src, yo[dy], dx, c);
                    uint64_t h1 = exact_h(p, src, yo[dy] + 1, dx, c);
                    v = (yc[2 * dy] * h0 + yc[2 * dy + 1] * h1 + (1ull << (2 * f - 1))) >> (2 * f);
                }
                st_i(dst, dy, dx * cn + c, (long long)v);
            }
}

tsr_status tsr__resize_ref(tsr_ctx *ctx, const tsr__resize_plan *plan, const tsr_image *src,
                           tsr_image *dst)
{
    switch (plan->path) {
    case TSR__RESIZE_COPY: ref_copy(plan, src, dst); break;
    case TSR__RESIZE_NEAREST: ref_nearest(plan, src, dst); break;
    case TSR__RESIZE_SEPARABLE: ref_separable(plan, src, dst); break;
    case TSR__RESIZE_AREA_FAST: ref_area_fast(plan, src, dst); break;
    case TSR__RESIZE_AREA: ref_area(plan, src, dst); break;
    case TSR__RESIZE_LINEAR_EXACT: ref_linear_exact(plan, src, dst); break;
    default: return tsr__fail(ctx, TSR_ERR_INTERNAL, "resize: unknown plan path");
    }
    return TSR_OK;
}
