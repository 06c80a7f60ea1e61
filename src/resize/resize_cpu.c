/* The CPU parallel resize: the plan (plan.h) executed over stripes of output rows by the
 * threads of resize_cpu_pool.c (at most ctx->threads at a time), bit-identical to resize_ref.c.
 *
 * Separable paths cache horizontally resized source rows per stripe (as OpenCV does), with the
 * per-pixel tables expanded to per-element tables so that the inner loops have no channel
 * arithmetic; channel counts are compile-time constants in the loops that need them. The hot
 * loops are compiled twice (AVX2 and baseline, chosen at load time by target_clones), and the
 * hottest have AVX2 intrinsics versions (resize_cpu_avx2.c) that do a prefix of each row; the
 * arithmetic is the same in all: no contraction (-ffp-contract=off), no reassociation. */
#include "resize/resize_backends.h"
#include "resize/resize_cpu_pool.h"
#include "resize/resize_cpu_simd.h"

#include "core/checked.h"

#include <math.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&                             \
    !defined(__SANITIZE_ADDRESS__)
#define TSR__HOT __attribute__((target_clones("avx2", "default")))
#else
#define TSR__HOT
#endif

#define ROW(img, y) ((char *)(img)->data + (size_t)(y) * (img)->stride)
#define CROW(img, y) ((const char *)(img)->data + (size_t)(y) * (img)->stride)

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* One parallel call over the output rows: what every path's stripe function needs. */
typedef struct cpu_job {
    const tsr__resize_plan *p;
    const tsr_image *src;
    tsr_image *dst;
    int simd;         /* the AVX2 loops run */
    const void *tabs; /* the path's tables */
    int stripes;
    size_t per; /* scratch bytes per thread */
    char *scratch;
} cpu_job;

/* Rows [*y0, *y1) of stripe s. */
static void job_rows(const cpu_job *j, int s, int *y0, int *y1)
{
    *y0 = (int)((long long)j->p->dst_h * s / j->stripes);
    *y1 = (int)((long long)j->p->dst_h * (s + 1) / j->stripes);
}

/* Thread `slot`'s scratch. */
static void *job_scratch(const cpu_job *j, int slot)
{
    return j->scratch + j->per * (size_t)slot;
}

/* Runs fn over j's output rows on ctx->threads threads with `per` bytes of scratch each. Stripes
 * of at least 16 rows, 1 to 8 per thread: enough for a thread that starts late to leave its
 * share to the others, few enough that the rows cached again at each stripe's start stay
 * cheap. */
static tsr_status run_rows(tsr_ctx *ctx, cpu_job *j, size_t per, tsr__rcpu_fn fn)
{
    const int threads = ctx->threads > 0 ? ctx->threads : 1, h = j->p->dst_h;
    int n = h / 16;
    n = n < threads ? threads : n > 8 * threads ? 8 * threads : n;
    j->stripes = n < h ? n : h;
    const int slots = threads < j->stripes ? threads : j->stripes;
    j->per = per;
    j->scratch = NULL;
    size_t bytes;
    if (!tsr__size_mul(per, (size_t)slots, &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "resize: row buffers overflow");
    if (bytes) {
        tsr_status st = tsr__alloc(ctx, bytes, (void **)&j->scratch);
        if (st != TSR_OK)
            return st;
    }
    tsr__rcpu_parallel(slots, j->stripes, fn, j);
    if (j->scratch)
        tsr__free(ctx, j->scratch);
    return TSR_OK;
}

static uint8_t sat_u8f(float v)
{
    return (uint8_t)(v <= 0.f ? 0 : v >= 255.f ? 255 : lrintf(v));
}
static uint16_t sat_u16f(float v)
{
    return (uint16_t)(v <= 0.f ? 0 : v >= 65535.f ? 65535 : lrintf(v));
}
static uint8_t sat_u8i(int v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* ---- copy and nearest ------------------------------------------------------------------------ */

static void copy_stripe(void *arg, int s, int slot)
{
    const cpu_job *j = arg;
    const tsr__resize_plan *p = j->p;
    const size_t row = (size_t)p->dst_w * (size_t)p->cn * tsr_depth_size(p->depth);
    int y0, y1;
    (void)slot;
    job_rows(j, s, &y0, &y1);
    for (int y = y0; y < y1; y++)
        memcpy(ROW(j->dst, y), CROW(j->src, y), row);
}

/* One nearest row: pixel x of d is pixel xo[x] of s, PS bytes each, moved UNIT bytes at a time
 * (UNIT > PS: the extra bytes are rewritten by the next pixel) for x < fast, exactly after. */
#define NN_ROW(PS, UNIT)                                                                           \
    {                                                                                              \
        int x = 0;                                                                                 \
        for (; x < fast; x++)                                                                      \
            memcpy(d + (size_t)x * (PS), s + (size_t)xo[x] * (PS), (UNIT));                        \
        for (; x < w; x++)                                                                         \
            memcpy(d + (size_t)x * (PS), s + (size_t)xo[x] * (PS), (PS));                          \
    }

TSR__HOT static void nn_row(const int32_t *xo, int w, int fast, size_t ps, const char *s, char *d)
{
    switch (ps) {
    case 1: NN_ROW(1, 1) break;
    case 2: NN_ROW(2, 2) break;
    case 3: NN_ROW(3, 4) break;
    case 4: NN_ROW(4, 4) break;
    case 6: NN_ROW(6, 8) break;
    case 8: NN_ROW(8, 8) break;
    case 12: NN_ROW(12, 16) break;
    default: NN_ROW(16, 16) break;
    }
}

/* Nearest, one stripe: an output row that repeats the previous one's source row is copied. */
static void nearest_stripe(void *arg, int s, int slot)
{
    const cpu_job *j = arg;
    const tsr__resize_plan *p = j->p;
    const int32_t *xo = p->table[TSR__RT_XOFS], *yo = p->table[TSR__RT_YOFS];
    const int w = p->dst_w;
    const size_t ps = (size_t)p->cn * tsr_depth_size(p->depth), row = ps * (size_t)w;
    const size_t unit = ps == 3 || ps == 6 || ps == 12 ? ps / 3 * 4 : ps;
    /* the wide moves stay inside the source row (xo grows) and the output row (x < w - 1) */
    int fast = w - 1, y0, y1;
    while (fast > 0 && (size_t)xo[fast - 1] * ps + unit > (size_t)p->src_w * ps)
        fast--;
    (void)slot;
    job_rows(j, s, &y0, &y1);
    for (int y = y0; y < y1; y++) {
        if (y > y0 && yo[y] == yo[y - 1])
            memcpy(ROW(j->dst, y), ROW(j->dst, y - 1), row);
        else
            nn_row(xo, w, fast, ps, CROW(j->src, yo[y]), ROW(j->dst, y));
    }
}

/* ---- separable ------------------------------------------------------------------------------- */

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

static tsr_status cpu_separable(tsr_ctx *ctx, const tsr__resize_plan *p, const tsr_image *src,
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
        st = run_rows(ctx, &job, per, sep_stripe);
    tsr__free(ctx, t.block);
    return st;
}

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

static tsr_status cpu_area(tsr_ctx *ctx, const tsr__resize_plan *p, const tsr_image *src,
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
        st = run_rows(ctx, &job, per, area_stripe);
    tsr__free(ctx, t.ofs);
    return st;
}

/* ---- linear-exact ---------------------------------------------------------------------------- */

/* Horizontal fixed-point row (raw, frac_bits fractional bits; fits in uint32 for u8 and u16). */
static void exact_hrow(const tsr__resize_plan *p, const tsr_image *src, int y, uint32_t *h)
{
    const int cn = p->cn, f = p->frac_bits, w = p->dst_w;
    const int32_t *xo = p->table[TSR__RT_XOFS];
    const uint32_t *xc = p->table[TSR__RT_XCOEF];
    const char *row = CROW(src, y);
    for (int dx = 0; dx < w; dx++)
        for (int c = 0; c < cn; c++) {
            uint32_t v;
            if (dx < p->xmin || dx >= p->xmax) {
                const int e = (dx < p->xmin ? 0 : p->src_w - 1) * cn + c;
                v = (uint32_t)(p->depth == TSR_U8 ? ((const uint8_t *)row)[e]
                                                  : ((const uint16_t *)row)[e])
                    << f;
            } else {
                const int e = xo[dx] * cn + c;
                uint32_t a =
                    p->depth == TSR_U8 ? ((const uint8_t *)row)[e] : ((const uint16_t *)row)[e];
                uint32_t b = p->depth == TSR_U8 ? ((const uint8_t *)row)[e + cn]
                                                : ((const uint16_t *)row)[e + cn];
                v = xc[2 * dx] * a + xc[2 * dx + 1] * b;
            }
            h[dx * cn + c] = v;
        }
}

/* One stripe of linear-exact; scratch: the two horizontal rows in use. */
static void exact_stripe(void *arg, int stripe, int slot)
{
    const cpu_job *job = arg;
    const tsr__resize_plan *p = job->p;
    const tsr_image *src = job->src;
    tsr_image *dst = job->dst;
    const int width = p->dst_w * p->cn, f = p->frac_bits;
    const int32_t *yo = p->table[TSR__RT_YOFS];
    const uint32_t *yc = p->table[TSR__RT_YCOEF];
    uint32_t *h[2] = {job_scratch(job, slot), NULL};
    h[1] = h[0] + width;
    int held[2] = {-1, -1}, y0, y1;
    job_rows(job, stripe, &y0, &y1);
    for (int dy = y0; dy < y1; dy++) {
        char *d = ROW(dst, dy);
        if (dy < p->ymin || dy >= p->ymax) {
            const int y = dy < p->ymin ? 0 : p->src_h - 1;
            if (held[0] != y) {
                exact_hrow(p, src, y, h[0]);
                held[0] = y;
            }
            for (int e = 0; e < width; e++) {
                uint64_t v = ((uint64_t)h[0][e] + (1u << (f - 1))) >> f;
                if (p->depth == TSR_U8)
                    ((uint8_t *)d)[e] = (uint8_t)(v > 255 ? 255 : v);
                else
                    ((uint16_t *)d)[e] = (uint16_t)(v > 65535 ? 65535 : v);
            }
            continue;
        }
        const int y = yo[dy];
        /* keep whichever of the two held rows is still needed */
        if (held[1] == y || held[0] == y + 1) {
            uint32_t *tp = h[0];
            h[0] = h[1];
            h[1] = tp;
            int ti = held[0];
            held[0] = held[1];
            held[1] = ti;
        }
        if (held[0] != y) {
            exact_hrow(p, src, y, h[0]);
            held[0] = y;
        }
        if (held[1] != y + 1) {
            exact_hrow(p, src, y + 1, h[1]);
            held[1] = y + 1;
        }
        const uint64_t c0 = yc[2 * dy], c1 = yc[2 * dy + 1], half = 1ull << (2 * f - 1);
        if (p->depth == TSR_U8) {
            for (int e = 0; e < width; e++) {
                uint64_t v = (c0 * h[0][e] + c1 * h[1][e] + half) >> 16;
                ((uint8_t *)d)[e] = (uint8_t)(v > 255 ? 255 : v);
            }
        } else {
            for (int e = 0; e < width; e++) {
                uint64_t v = (c0 * h[0][e] + c1 * h[1][e] + half) >> 32;
                ((uint16_t *)d)[e] = (uint16_t)(v > 65535 ? 65535 : v);
            }
        }
    }
}

static tsr_status cpu_linear_exact(tsr_ctx *ctx, const tsr__resize_plan *p, const tsr_image *src,
                                   tsr_image *dst)
{
    cpu_job job = {p, src, dst, 0, NULL, 0, 0, NULL};
    size_t per;
    if (!tsr__size_mul3((size_t)p->dst_w * p->cn, 2, sizeof(uint32_t), &per))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "resize: row buffers overflow");
    return run_rows(ctx, &job, per, exact_stripe);
}

tsr_status tsr__resize_cpu(tsr_ctx *ctx, const tsr__resize_plan *plan, const tsr_image *src,
                           tsr_image *dst)
{
    cpu_job job = {plan, src, dst, tsr__rcpu_avx2(), NULL, 0, 0, NULL};
    switch (plan->path) {
    case TSR__RESIZE_COPY: return run_rows(ctx, &job, 0, copy_stripe);
    case TSR__RESIZE_NEAREST: return run_rows(ctx, &job, 0, nearest_stripe);
    case TSR__RESIZE_SEPARABLE: return cpu_separable(ctx, plan, src, dst);
    case TSR__RESIZE_AREA_FAST: return run_rows(ctx, &job, 0, area_fast_stripe);
    case TSR__RESIZE_AREA: return cpu_area(ctx, plan, src, dst);
    case TSR__RESIZE_LINEAR_EXACT: return cpu_linear_exact(ctx, plan, src, dst);
    }
    return tsr__fail(ctx, TSR_ERR_INTERNAL, "resize: unknown plan path");
}
