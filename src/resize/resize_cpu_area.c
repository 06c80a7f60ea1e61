/* The CPU resize's area paths: area-fast (integer factors: every output pixel the mean of a
 * whole block of source pixels, 2x2 blocks by dedicated loops) and area (fractional factors:
 * horizontal then vertical weighted sums in float, resize_ref.c's order). */
#include "resize/resize_cpu_job.h"

/* ---- area-fast ------------------------------------------------------------------------------- */

/* 2x2 rows with the (s+2)>>2 rounding, u8/u16, CN channels: elements [0, end). */
#define AF2_INT(NAME, T)                                                                           \
    TSR__HOT static void NAME(const T *s0, const T *s1, T *d, int end, int cn)                     \
    {                                                                                              \
        switch (cn) {                                                                              \
        case 1:                                                                                    \
            for (int e = 0; e < end; e++)                                                          \
                d[e] = (T)((s0[2 * e] + s0[2 * e + 1] + s1[2 * e] + s1[2 * e + 1] + 2) >> 2);      \
            break;                                                                                 \
        case 3:                                                                                    \
            for (int x = 0; x < end / 3; x++)                                                      \
                for (int c = 0; c < 3; c++)                                                        \
                    d[3 * x + c] = (T)((s0[6 * x + c] + s0[6 * x + 3 + c] + s1[6 * x + c] +        \
                                        s1[6 * x + 3 + c] + 2) >>                                  \
                                       2);                                                         \
            break;                                                                                 \
        default:                                                                                   \
            for (int x = 0; x < end / 4; x++)                                                      \
                for (int c = 0; c < 4; c++)                                                        \
                    d[4 * x + c] = (T)((s0[8 * x + c] + s0[8 * x + 4 + c] + s1[8 * x + c] +        \
                                        s1[8 * x + 4 + c] + 2) >>                                  \
                                       2);                                                         \
            break;                                                                                 \
        }                                                                                          \
    }
AF2_INT(af2_u8, uint8_t)
AF2_INT(af2_u16, uint16_t)

TSR__HOT static void af2_f32(const float *s0, const float *s1, float *d, int end, int cn)
{
    for (int e = 0; e < end; e++) {
        const int i = (e / cn) * 2 * cn + e % cn;
        d[e] = ((s0[i] + s0[i + cn]) + (s1[i] + s1[i + cn])) * 0.25f;
    }
}

static float af_load(const tsr_image *img, int y, int e)
{
    const char *row = CROW(img, y);
    switch (img->depth) {
    case TSR_U8: return (float)((const uint8_t *)row)[e];
    case TSR_U16: return (float)((const uint16_t *)row)[e];
    default: return ((const float *)row)[e];
    }
}

static int af_load_i(const tsr_image *img, int y, int e)
{
    const char *row = CROW(img, y);
    return img->depth == TSR_U8 ? ((const uint8_t *)row)[e] : ((const uint16_t *)row)[e];
}

static void af_store(tsr_image *img, int y, int e, float v)
{
    char *row = ROW(img, y);
    switch (img->depth) {
    case TSR_U8: ((uint8_t *)row)[e] = sat_u8f(v); break;
    case TSR_U16: ((uint16_t *)row)[e] = sat_u16f(v); break;
    default: ((float *)row)[e] = v; break;
    }
}

/* Generic full cells of row dy, elements [e0, e1): plan.h's grouped sums. ofs[n] is the
 * element offset of sample n from the cell's first sample (row offsets in elements of the
 * source stride are not usable, so rows are addressed separately: ofs_row/ofs_col). */
static void af_generic(const tsr__resize_plan *p, const tsr_image *src, tsr_image *dst, int dy,
                       int e0, int e1)
{
    const int sx = p->iscale_x, sy = p->iscale_y, cn = p->cn, area = sx * sy;
    const float scale = 1.f / (float)area;
    const int y0 = dy * sy;
    for (int e = e0; e < e1; e++) {
        const int b = (e / cn) * sx * cn + e % cn;
        int n = 0, isum = 0;
        float sum = 0.f;
#define AFI(n) af_load_i(src, y0 + (n) / sx, b + (n) % sx * cn)
#define AFF(n) af_load(src, y0 + (n) / sx, b + (n) % sx * cn)
        for (; n + 4 <= area; n += 4) {
            if (p->depth == TSR_U8)
                isum += AFI(n) + AFI(n + 1) + AFI(n + 2) + AFI(n + 3);
            else if (p->depth == TSR_U16)
                sum = sum + (float)(AFI(n) + AFI(n + 1) + AFI(n + 2) + AFI(n + 3));
            else
                sum = sum + (((AFF(n) + AFF(n + 1)) + AFF(n + 2)) + AFF(n + 3));
        }
        for (; n < area; n++) {
            if (p->depth == TSR_U8)
                isum += AFI(n);
            else
                sum = sum + AFF(n);
        }
#undef AFI
#undef AFF
        af_store(dst, dy, e, (p->depth == TSR_U8 ? (float)isum : sum) * scale);
    }
}

/* Partial cells of row dy, elements [e0, e1). */
static void af_partial(const tsr__resize_plan *p, const tsr_image *src, tsr_image *dst, int dy,
                       int e0, int e1)
{
    const int sx = p->iscale_x, sy = p->iscale_y, cn = p->cn, y0 = dy * sy;
    for (int e = e0; e < e1; e++) {
        const int b = (e / cn) * sx * cn + e % cn;
        float fsum = 0.f;
        int isum = 0, count = 0;
        for (int i = 0; i < sy && y0 + i < p->src_h; i++)
            for (int j = 0; j < sx && b + j * cn < p->src_w * cn; j++, count++) {
                if (p->depth == TSR_U8)
                    isum += af_load_i(src, y0 + i, b + j * cn);
                else
                    fsum = fsum + af_load(src, y0 + i, b + j * cn);
            }
        af_store(dst, dy, e, (p->depth == TSR_U8 ? (float)isum : fsum) / (float)count);
    }
}

static void area_fast_stripe(void *arg, int stripe, int slot)
{
    const cpu_job *j = arg;
    const tsr__resize_plan *p = j->p;
    const tsr_image *src = j->src;
    tsr_image *dst = j->dst;
    const int width = p->dst_w * p->cn, simd = j->simd;
    int y0, y1;
    (void)slot;
    job_rows(j, stripe, &y0, &y1);
    for (int dy = y0; dy < y1; dy++) {
        if (dy >= p->full_h) {
            af_partial(p, src, dst, dy, 0, width);
            continue;
        }
        int e = p->fast_end;
        if (e > 0) {
            const char *s0 = CROW(src, 2 * dy), *s1 = CROW(src, 2 * dy + 1);
            char *d = ROW(dst, dy);
            if (p->depth == TSR_U8) {
                const uint8_t *a = (const uint8_t *)s0, *b = (const uint8_t *)s1;
                const int v =
                    simd ? tsr__rcpu_area2_u8_avx2(a, b, (uint8_t *)d, e, p->cn, p->src_w * p->cn)
                         : 0;
                af2_u8(a + 2 * v, b + 2 * v, (uint8_t *)d + v, e - v, p->cn);
            } else if (p->depth == TSR_U16) {
                af2_u16((const uint16_t *)s0, (const uint16_t *)s1, (uint16_t *)d, e, p->cn);
            } else {
                af2_f32((const float *)s0, (const float *)s1, (float *)d, e, p->cn);
            }
        }
        af_generic(p, src, dst, dy, e, p->full_w);
        af_partial(p, src, dst, dy, p->full_w, width);
    }
}

tsr_status tsr__rcpu_area_fast(tsr_ctx *ctx, const tsr__resize_plan *p, const tsr_image *src,
                               tsr_image *dst)
{
    cpu_job job = {p, src, dst, tsr__rcpu_avx2(), NULL, 0, 0, NULL};
    return tsr__rcpu_run_rows(ctx, &job, 0, area_fast_stripe);
}

/* ---- area ------------------------------------------------------------------------------------ */

/* acc = b*h (first row tap) or acc + b*h. */
TSR__HOT static void area_accumulate(float *acc, const float *h, float b, int first, int width)
{
    if (first)
        for (int e = 0; e < width; e++)
            acc[e] = b * h[e];
    else
        for (int e = 0; e < width; e++)
            acc[e] = acc[e] + b * h[e];
}

/* The output row: sat(rne(acc)) for u8/u16, acc for f32. */
static void area_store(const tsr__resize_plan *p, const float *acc, int simd, char *d)
{
    const int width = p->dst_w * p->cn;
    int e = 0;
    switch (p->depth) {
    case TSR_U8:
        if (simd)
            e = tsr__rcpu_store_u8_avx2(acc, (uint8_t *)d, width);
        for (; e < width; e++)
            ((uint8_t *)d)[e] = sat_u8f(acc[e]);
        break;
    case TSR_U16:
        for (; e < width; e++)
            ((uint16_t *)d)[e] = sat_u16f(acc[e]);
        break;
    default: memcpy(d, acc, (size_t)width * sizeof(float)); break;
    }
}

/* f32 horizontal pass of one source row, taps as the plan lists them (f32 samples may be
 * infinite, so they cannot take the weight-0 padding of the u8/u16 tables). */
static void area_hrow_f32(const tsr__resize_plan *p, const float *row, float *h)
{
    const int32_t *xs = p->table[TSR__RT_XSTART], *xo = p->table[TSR__RT_XOFS];
    const float *xa = p->table[TSR__RT_XCOEF];
    const int cn = p->cn;
    for (int dx = 0; dx < p->dst_w; dx++)
        for (int c = 0; c < cn; c++) {
            float v = 0.f;
            for (int k = xs[dx]; k < xs[dx + 1]; k++)
                v = v + row[xo[k] * cn + c] * xa[k];
            h[dx * cn + c] = v;
        }
}

/* u8/u16 horizontal pass from the padded tables: the vector prefix, then the rest. */
#define AREA_HROW(NAME, T)                                                                         \
    TSR__HOT static void NAME(const tsr__rcpu_atab *t, int simd, int width, const T *s, float *h)  \
    {                                                                                              \
        int e = simd ? tsr__rcpu_area_hrow_u8_avx2(t, (const uint8_t *)s, h) : 0;                  \
        for (; e < width; e++) {                                                                   \
            const size_t i = (size_t)(e / 8) * t->taps * 8 + e % 8;                                \
            float v = 0.f;                                                                         \
            for (int k = 0; k < t->taps; k++)                                                      \
                v = v + (float)s[t->ofs[i + 8 * k]] * t->coef[i + 8 * k];                          \
            h[e] = v;                                                                              \
        }                                                                                          \
    }
AREA_HROW(area_hrow_u8, uint8_t)
AREA_HROW(area_hrow_u16, uint16_t)

/* The padded tables of the u8/u16 horizontal pass (tsr__rcpu_atab), in one allocation. */
static tsr_status area_tab_build(tsr_ctx *ctx, const tsr__resize_plan *p, tsr__rcpu_atab *t)
{
    const int32_t *xs = p->table[TSR__RT_XSTART], *xo = p->table[TSR__RT_XOFS];
    const float *xa = p->table[TSR__RT_XCOEF];
    const int cn = p->cn, width = p->dst_w * cn, src_elems = p->src_w * cn;
    memset(t, 0, sizeof *t);
    for (int dx = 0; dx < p->dst_w; dx++)
        t->taps = xs[dx + 1] - xs[dx] > t->taps ? xs[dx + 1] - xs[dx] : t->taps;
    t->groups = (width + 7) / 8;
    size_t bytes;
    if (!tsr__size_mul3((size_t)t->groups * 8, (size_t)t->taps, 8, &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "resize: area tables overflow");
    tsr_status st = tsr__alloc(ctx, bytes, (void **)&t->ofs);
    if (st != TSR_OK)
        return st;
    t->coef = (float *)(t->ofs + (size_t)t->groups * 8 * t->taps);
    t->vec_groups = -1;
    for (int g = 0; g < t->groups; g++)
        for (int i = 0; i < 8; i++) {
            const int e = 8 * g + i < width ? 8 * g + i : width - 1;
            const int dx = e / cn, c = e % cn, n = xs[dx + 1] - xs[dx];
            for (int k = 0; k < t->taps; k++) {
                const size_t at = ((size_t)g * t->taps + k) * 8 + i;
                t->ofs[at] = xo[xs[dx] + (k < n ? k : 0)] * cn + c;
                t->coef[at] = k < n ? xa[xs[dx] + k] : 0.f;
                /* the gather reads 4 bytes; the padding elements of the last group are not real */
                if (t->vec_groups < 0 && (t->ofs[at] + 4 > src_elems || 8 * g + i >= width))
                    t->vec_groups = g;
            }
        }
    if (t->vec_groups < 0)
        t->vec_groups = t->groups;
    return TSR_OK;
}

/* Fractional area: per output row, the weighted sum of the horizontal passes of its source rows
 * (plan.h's order); a row shared with the previous output row (the boundary) is kept. */
/* One stripe of the fractional area resize; scratch: acc and two h rows. */
static void area_stripe(void *arg, int stripe, int slot)
{
    const cpu_job *job = arg;
    const tsr__resize_plan *p = job->p;
    const tsr__rcpu_atab *t = job->tabs;
    const int width = p->dst_w * p->cn, simd = job->simd;
    const int32_t *ys = p->table[TSR__RT_YSTART], *yo = p->table[TSR__RT_YOFS];
    const float *ya = p->table[TSR__RT_YCOEF];
    float *acc = job_scratch(job, slot);
    float *h = acc + width, *kept = h + width;
    int kept_row = -1, y0, y1;
    job_rows(job, stripe, &y0, &y1);
    for (int dy = y0; dy < y1; dy++) {
        for (int j = ys[dy]; j < ys[dy + 1]; j++) {
            const float *r = kept;
            if (yo[j] != kept_row) {
                float *out = h;
                if (j == ys[dy + 1] - 1) { /* the next output row may start with it */
                    h = kept;
                    kept = out;
                    kept_row = yo[j];
                }
                const char *row = CROW(job->src, yo[j]);
                if (p->depth == TSR_U8)
                    area_hrow_u8(t, simd, width, (const uint8_t *)row, out);
                else if (p->depth == TSR_U16)
                    area_hrow_u16(t, 0, width, (const uint16_t *)row, out);
                else
                    area_hrow_f32(p, (const float *)row, out);
                r = out;
            }
            area_accumulate(acc, r, ya[j], j == ys[dy], width);
        }
        area_store(p, acc, simd, ROW(job->dst, dy));
    }
}

tsr_status tsr__rcpu_area(tsr_ctx *ctx, const tsr__resize_plan *p, const tsr_image *src,
                          tsr_image *dst)
{
    tsr__rcpu_atab t;
    memset(&t, 0, sizeof t);
    tsr_status st = p->depth == TSR_F32 ? TSR_OK : area_tab_build(ctx, p, &t);
    if (st != TSR_OK)
        return st;
    cpu_job job = {p, src, dst, p->depth == TSR_U8 && tsr__rcpu_avx2(), &t, 0, 0, NULL};
    size_t per;
    if (!tsr__size_mul3((size_t)p->dst_w * p->cn, 3, sizeof(float), &per))
        st = tsr__fail(ctx, TSR_ERR_OVERFLOW, "resize: row buffers overflow");
    else
        st = tsr__rcpu_run_rows(ctx, &job, per, area_stripe);
    tsr__free(ctx, t.ofs);
    return st;
}
