/* The CPU resize's separable path (linear, cubic, lanczos4 and the area upscales that run as
 * linear): source rows resized horizontally once per stripe and cached (as OpenCV does), with
 * the per-pixel tables expanded to per-element tables so that the inner loops have no channel
 * arithmetic; then the vertical taps. The hottest loops have AVX2 forms (resize_cpu_avx2.c)
 * that do a prefix of each row. */
#include "resize/resize_cpu_job.h"

/* Per-element tables of one separable plan. u8: every tap of every element as a source element
 * index, clamped to the row, with its coefficient, so that one formula covers interior and
 * border elements (integer sums are exact in any order); plus their vector form for a prefix
 * of the row when the AVX2 loops run. u16/f32: the first tap (valid in the interior only) and
 * the coefficients; the float border sums keep plan.h's own form. */
typedef struct sep_tabs {
    int width;        /* OW*cn */
    int lo, hi;       /* interior elements [lo, hi): xmin*cn, xmax*cn */
    int simd;         /* the AVX2 loops run */
    int32_t *to, *ai; /* u8: [width*ksize] */
    int32_t *xe;      /* u16/f32: [width] */
    float *af;        /* u16/f32: [width*ksize] */
    tsr__rcpu_hwin win;
    void *block;
} sep_tabs;

/* Horizontal pass of one source row, u8 cubic/lanczos4 (int32 out): the vector prefix, then
 * every tap from the tables. */
TSR__HOT static void hrow_u8(const tsr__resize_plan *p, const sep_tabs *t, const uint8_t *s,
                             int32_t *h)
{
    const int k = p->ksize;
    const int32_t *to = t->to, *a = t->ai;
    for (int e = t->simd ? tsr__rcpu_hrow_u8_avx2(&t->win, s, h) : 0; e < t->width; e++) {
        int v = 0;
        for (int j = 0; j < k; j++)
            v += s[to[k * e + j]] * a[k * e + j];
        h[e] = v;
    }
}

/* Horizontal pass of one source row, u8 linear/area-mode (ksize 2): h >> 4 as int16, all that
 * the vertical pass uses of h (h <= 255*2049, so h >> 4 < 2^15). */
TSR__HOT static void hrow_lin_u8(const sep_tabs *t, const uint8_t *s, int16_t *h)
{
    const int32_t *to = t->to, *a = t->ai;
    for (int e = t->simd ? tsr__rcpu_hrow_lin_u8_avx2(&t->win, s, h) : 0; e < t->width; e++)
        h[e] = (int16_t)((s[to[2 * e]] * a[2 * e] + s[to[2 * e + 1]] * a[2 * e + 1]) >> 4);
}

/* Horizontal pass of one source row, u16/f32 (float out): sums as plan.h writes them. */
#define HROW_F(NAME, T)                                                                            \
    TSR__HOT static void NAME(const tsr__resize_plan *p, const sep_tabs *t, const T *s, float *h)  \
    {                                                                                              \
        const int k = p->ksize, cn = p->cn, kh = k / 2;                                            \
        const int32_t *xe = t->xe;                                                                 \
        const float *a = t->af;                                                                    \
        if (k == 2) {                                                                              \
            for (int e = 0; e < t->hi; e++)                                                        \
                h[e] = (float)s[xe[e]] * a[2 * e] + (float)s[xe[e] + cn] * a[2 * e + 1];           \
            for (int e = t->hi; e < t->width; e++)                                                 \
                h[e] = (float)s[xe[e]];                                                            \
            return;                                                                                \
        }                                                                                          \
        const int32_t *xofs = p->table[TSR__RT_XOFS];                                              \
        for (int e = 0; e < t->width; e++) {                                                       \
            if (e == t->lo && t->lo < t->hi) {                                                     \
                if (k == 4)                                                                        \
                    for (; e < t->hi; e++) {                                                       \
                        const T *q = s + xe[e];                                                    \
                        const float *c = a + 4 * e;                                                \
                        h[e] = (float)q[0] * c[0] + (float)q[cn] * c[1] +                          \
                               (float)q[2 * cn] * c[2] + (float)q[3 * cn] * c[3];                  \
                    }                                                                              \
                else                                                                               \
                    for (; e < t->hi; e++) {                                                       \
                        const T *q = s + xe[e];                                                    \
                        const float *c = a + 8 * e;                                                \
                        h[e] = (float)q[0] * c[0] + (float)q[cn] * c[1] +                          \
                               (float)q[2 * cn] * c[2] + (float)q[3 * cn] * c[3] +                 \
                               (float)q[4 * cn] * c[4] + (float)q[5 * cn] * c[5] +                 \
                               (float)q[6 * cn] * c[6] + (float)q[7 * cn] * c[7];                  \
                    }                                                                              \
                if (e >= t->width)                                                                 \
                    break;                                                                         \
            }                                                                                      \
            const int dx = e / cn, c = e % cn, sx = xofs[dx] - kh + 1;                             \
            float v = 0.f;                                                                         \
            for (int j = 0; j < k; j++)                                                            \
                v = v + (float)s[clampi(sx + j, 0, p->src_w - 1) * cn + c] * a[k * e + j];         \
            h[e] = v;                                                                              \
        }                                                                                          \
    }
HROW_F(hrow_u16, uint16_t)
HROW_F(hrow_f32, float)

/* Vertical pass, u8 linear/area-mode, from the int16 rows of hrow_lin_u8. */
TSR__HOT static void vrow_lin_u8(const sep_tabs *t, const int16_t *r0, const int16_t *r1,
                                 const int16_t *b, uint8_t *d)
{
    const int b0 = b[0], b1 = b[1];
    int e = t->simd ? tsr__rcpu_vrow_linear_u8_avx2(r0, r1, b0, b1, d, t->width) : 0;
    for (; e < t->width; e++)
        d[e] = sat_u8i((((b0 * r0[e]) >> 16) + ((b1 * r1[e]) >> 16) + 2) >> 2);
}

/* Vertical pass, u8 cubic/lanczos4, one output row from k cached horizontal rows. */
TSR__HOT static void vrow_u8(const tsr__resize_plan *p, const sep_tabs *t, const int32_t *const *r,
                             const int16_t *b, uint8_t *d)
{
    const int width = t->width, k = p->ksize;
    int e = 0;
    if (k == 4) {
        const float sc = 1.f / 4194304.f;
        const float f[4] = {(float)b[0] * sc, (float)b[1] * sc, (float)b[2] * sc, (float)b[3] * sc};
        const int32_t *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3];
        if (t->simd)
            e = tsr__rcpu_vrow_cubic_u8_avx2(r, f, d, p->vec_end);
        for (; e < p->vec_end; e++)
            d[e] = sat_u8f((float)r0[e] * f[0] +
                           ((float)r1[e] * f[1] + ((float)r2[e] * f[2] + (float)r3[e] * f[3])));
    }
    for (; e < width; e++) {
        int s = 0;
        for (int j = 0; j < k; j++)
            s += r[j][e] * b[j];
        d[e] = sat_u8i((s + (1 << 21)) >> 22);
    }
}

/* Vertical pass, u16/f32: the float sum t per plan.h, then the store. */
#define VROW_F(NAME, T, STORE)                                                                     \
    TSR__HOT static void NAME(const tsr__resize_plan *p, const float *const *r, const float *b,    \
                              T *d)                                                                \
    {                                                                                              \
        const int width = p->dst_w * p->cn, k = p->ksize;                                          \
        int e = 0;                                                                                 \
        if (k == 2) {                                                                              \
            const float b0 = b[0], b1 = b[1];                                                      \
            const float *r0 = r[0], *r1 = r[1];                                                    \
            for (; e < width; e++)                                                                 \
                d[e] = STORE(r0[e] * b0 + r1[e] * b1);                                             \
            return;                                                                                \
        }                                                                                          \
        if (k == 4) {                                                                              \
            const float b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];                                \
            const float *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3];                            \
            if (p->vform == TSR__VFORM_NESTED)                                                     \
                for (; e < p->vec_end; e++)                                                        \
                    d[e] = STORE(r0[e] * b0 + (r1[e] * b1 + (r2[e] * b2 + r3[e] * b3)));           \
            for (; e < width; e++)                                                                 \
                d[e] = STORE(r0[e] * b0 + r1[e] * b1 + r2[e] * b2 + r3[e] * b3);                   \
            return;                                                                                \
        }                                                                                          \
        if (p->vform == TSR__VFORM_NESTED)                                                         \
            for (; e < p->vec_end; e++) {                                                          \
                float t = r[7][e] * b[7];                                                          \
                for (int j = 6; j >= 0; j--)                                                       \
                    t = r[j][e] * b[j] + t;                                                        \
                d[e] = STORE(t);                                                                   \
            }                                                                                      \
        for (; e < width; e++) {                                                                   \
            float t = r[0][e] * b[0];                                                              \
            for (int j = 1; j < 8; j++)                                                            \
                t = t + r[j][e] * b[j];                                                            \
            d[e] = STORE(t);                                                                       \
        }                                                                                          \
    }
#define STORE_F32(v) (v)
VROW_F(vrow_u16, uint16_t, sat_u16f)
VROW_F(vrow_f32, float, STORE_F32)

/* The vector form (tsr__rcpu_hwin) of the u8 tap tables for the longest prefix of whole
 * groups whose taps fit the 16-byte windows; src_bytes: bytes of a source row. */
static void sep_win_fill(const tsr__resize_plan *p, sep_tabs *t, int src_bytes)
{
    const int k = p->ksize, pairs = k / 2, groups = t->width / 8;
    tsr__rcpu_hwin *w = &t->win;
    w->pairs = pairs;
    w->groups = 0;
    if (src_bytes < 16)
        return;
    for (int g = 0; g < groups; g++)
        for (int q = 0; q < pairs; q++)
            for (int l = 0; l < 2; l++) {
                const size_t i = (size_t)g * pairs + q;
                const int e0 = 8 * g + 4 * l;
                int mn = src_bytes, mx = 0;
                for (int e = e0; e < e0 + 4; e++)
                    for (int j = 2 * q; j < 2 * q + 2; j++) {
                        mn = t->to[k * e + j] < mn ? t->to[k * e + j] : mn;
                        mx = t->to[k * e + j] > mx ? t->to[k * e + j] : mx;
                    }
                const int base = mn < src_bytes - 16 ? mn : src_bytes - 16;
                if (mx - base > 15)
                    return;
                w->base[2 * i + l] = base;
                for (int e = e0; e < e0 + 4; e++) {
                    uint8_t *c = w->ctrl + 32 * i + 16 * l + 4 * (e - e0);
                    c[0] = (uint8_t)(t->to[k * e + 2 * q] - base);
                    c[2] = (uint8_t)(t->to[k * e + 2 * q + 1] - base);
                    c[1] = c[3] = 0x80;
                    w->coef[16 * i + 2 * (e - e0 + 4 * l)] = (int16_t)t->ai[k * e + 2 * q];
                    w->coef[16 * i + 2 * (e - e0 + 4 * l) + 1] = (int16_t)t->ai[k * e + 2 * q + 1];
                }
                if (q == pairs - 1 && l == 1)
                    w->groups = g + 1;
            }
}

/* u8 taps (plan.h step 1 as k clamped taps; k == 2 border elements as S*2048 + S*0). */
static void sep_taps_u8(const tsr__resize_plan *p, sep_tabs *t)
{
    const int cn = p->cn, k = p->ksize, kh = k / 2;
    const int32_t *xofs = p->table[TSR__RT_XOFS];
    const int16_t *xc = p->table[TSR__RT_XCOEF];
    for (int e = 0; e < t->width; e++) {
        const int dx = e / cn, c = e % cn;
        const int border2 = k == 2 && e >= t->hi;
        for (int j = 0; j < k; j++) {
            const int sx = border2 ? xofs[dx] : xofs[dx] - kh + 1 + j;
            t->to[k * e + j] = clampi(sx, 0, p->src_w - 1) * cn + c;
            t->ai[k * e + j] = border2 ? (j == 0 ? 2048 : 0) : xc[dx * k + j];
        }
    }
}

/* u16/f32: first tap element and coefficients. */
static void sep_taps_f(const tsr__resize_plan *p, sep_tabs *t)
{
    const int cn = p->cn, k = p->ksize, kh = k / 2;
    const int32_t *xofs = p->table[TSR__RT_XOFS];
    const float *xc = p->table[TSR__RT_XCOEF];
    for (int e = 0; e < t->width; e++) {
        const int dx = e / cn, c = e % cn;
        const int first = k == 2 ? xofs[dx] : xofs[dx] - kh + 1;
        /* border elements of cubic/lanczos4 never use xe (their taps are clamped) */
        t->xe[e] = (k == 2 || (e >= t->lo && e < t->hi)) ? first * cn + c : 0;
        for (int j = 0; j < k; j++)
            t->af[(size_t)e * k + j] = xc[dx * k + j];
    }
}

static tsr_status sep_tabs_build(tsr_ctx *ctx, const tsr__resize_plan *p, int simd, sep_tabs *t)
{
    const int k = p->ksize, u8 = p->depth == TSR_U8;
    memset(t, 0, sizeof *t);
    t->width = p->dst_w * p->cn;
    t->lo = p->xmin * p->cn;
    t->hi = p->xmax * p->cn;
    t->simd = u8 && simd;
    /* u8: to, ai [width*k] int32 each, then the windows (ctrl 32, coef 32 and base 8 bytes per
     * group and pair); u16/f32: xe [width] int32, af [width*k] float */
    const size_t n = (size_t)t->width, groups = n / 8, pairs = (size_t)k / 2;
    size_t taps, win, bytes;
    int ok = tsr__size_mul3(n, (size_t)k, 4, &taps) && tsr__size_mul3(groups, pairs, 72, &win);
    if (ok && u8)
        ok = tsr__size_mul(taps, 2, &bytes) && tsr__size_add(bytes, t->simd ? win : 0, &bytes);
    else if (ok)
        ok = tsr__size_add(taps, 4 * n, &bytes);
    if (!ok)
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "resize: tables overflow");
    tsr_status st = tsr__alloc(ctx, bytes, &t->block);
    if (st != TSR_OK)
        return st;
    char *m = t->block;
    if (!u8) {
        t->xe = (int32_t *)m;
        t->af = (float *)(m + 4 * n);
        sep_taps_f(p, t);
        return TSR_OK;
    }
    t->to = (int32_t *)m;
    t->ai = (int32_t *)(m + taps);
    sep_taps_u8(p, t);
    if (t->simd) {
        t->win.ctrl = (uint8_t *)(m + 2 * taps);
        t->win.coef = (int16_t *)(m + 2 * taps + 32 * groups * pairs);
        t->win.base = (int32_t *)(m + 2 * taps + 64 * groups * pairs);
        sep_win_fill(p, t, p->src_w * p->cn);
    }
    return TSR_OK;
}

/* One stripe of a separable resize, with a cache of k horizontal rows in the thread's scratch
 * (k * width elements of 4 bytes). */
static void sep_stripe(void *arg, int stripe, int thread)
{
    const cpu_job *job = arg;
    const tsr__resize_plan *p = job->p;
    const sep_tabs *t = job->tabs;
    const tsr_image *src = job->src;
    tsr_image *dst = job->dst;
    char *buf = job_scratch(job, thread);
    int y0, y1;
    job_rows(job, stripe, &y0, &y1);
    const int k = p->ksize, kh = k / 2, width = t->width;
    const int32_t *yofs = p->table[TSR__RT_YOFS];
    int held[8]; /* source row held by each cache slot, -1 none */
    void *slot[8];
    for (int j = 0; j < k; j++) {
        held[j] = -1;
        slot[j] = (char *)buf + (size_t)j * width * 4;
    }
    for (int dy = y0; dy < y1; dy++) {
        const void *rows[8];
        int want[8], used[8] = {0};
        for (int j = 0; j < k; j++)
            want[j] = clampi(yofs[dy] - kh + 1 + j, 0, p->src_h - 1);
        int missing[8], nmiss = 0;
        for (int j = 0; j < k; j++) {
            int found = -1;
            for (int s = 0; s < k && found < 0; s++)
                if (held[s] == want[j])
                    found = s;
            if (found >= 0) {
                used[found] = 1;
                rows[j] = slot[found];
            } else {
                missing[nmiss++] = j;
            }
        }
        for (int m = 0; m < nmiss; m++) {
            const int j = missing[m];
            int s = 0;
            while (used[s])
                s++;
            /* duplicate rows (clamped at the edges) share a freshly computed slot */
            int dup = -1;
            for (int q = 0; q < m; q++)
                if (want[missing[q]] == want[j])
                    dup = missing[q];
            if (dup >= 0) {
                rows[j] = rows[dup];
                continue;
            }
            used[s] = 1;
            held[s] = want[j];
            rows[j] = slot[s];
            const char *srow = CROW(src, want[j]);
            if (p->depth == TSR_U8 && k == 2)
                hrow_lin_u8(t, (const uint8_t *)srow, slot[s]);
            else if (p->depth == TSR_U8)
                hrow_u8(p, t, (const uint8_t *)srow, slot[s]);
            else if (p->depth == TSR_U16)
                hrow_u16(p, t, (const uint16_t *)srow, slot[s]);
            else
                hrow_f32(p, t, (const float *)srow, slot[s]);
        }
        char *drow = ROW(dst, dy);
        if (p->depth == TSR_U8 && k == 2)
            vrow_lin_u8(t, rows[0], rows[1], (const int16_t *)p->table[TSR__RT_YCOEF] + 2 * dy,
                        (uint8_t *)drow);
        else if (p->depth == TSR_U8)
            vrow_u8(p, t, (const int32_t *const *)rows,
                    (const int16_t *)p->table[TSR__RT_YCOEF] + (size_t)dy * k, (uint8_t *)drow);
        else if (p->depth == TSR_U16)
            vrow_u16(p, (const float *const *)rows,
                     (const float *)p->table[TSR__RT_YCOEF] + (size_t)dy * k, (uint16_t *)drow);
        else
            vrow_f32(p, (const float *const *)rows,
                     (const float *)p->table[TSR__RT_YCOEF] + (size_t)dy * k, (float *)drow);
    }
}

tsr_status tsr__rcpu_separable(tsr_ctx *ctx, const tsr__resize_plan *p, const tsr_image *src,
                               tsr_image *dst)
{
    sep_tabs t;
    tsr_status st = sep_tabs_build(ctx, p, tsr__rcpu_avx2(), &t);
    if (st != TSR_OK)
        return st;
    size_t per;
    cpu_job job = {p, src, dst, t.simd, &t, 0, 0, NULL};
    if (!tsr__size_mul3((size_t)t.width, (size_t)p->ksize, 4, &per))
        st = tsr__fail(ctx, TSR_ERR_OVERFLOW, "resize: row buffers overflow");
    else
        st = tsr__rcpu_run_rows(ctx, &job, per, sep_stripe);
    tsr__free(ctx, t.block);
    return st;
}
