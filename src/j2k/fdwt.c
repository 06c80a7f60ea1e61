/* Forward reversible 5/3 wavelet transform (T.800 F.4): per level the vertical analysis of
 * every column, then the horizontal analysis of every row (2D_SD, F.4.2), each a lifting pass
 * on an interleaved line (F.4.8.2) followed by the deinterleaving into low then high samples.
 * Integer lifting inverts exactly, so dwt.c's inverse (rows, then columns) returns the input. */
#include "j2k/encode_stages.h"
#include "j2k/fxform_hd.h"

#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static int thread_id(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

void tsr__dwt53_forward_line(int32_t *x, uint32_t n, uint32_t i0)
{
    const uint32_t cas = i0 & 1;
    if (n == 1) {
        if (cas) /* a lone high-pass sample (F.4.8.1) */
            x[0] *= 2;
        return;
    }
    if (n == 0)
        return;
    /* high-pass (odd absolute positions), then low-pass; symmetric extension at both ends */
    for (uint32_t i = 1 - cas; i < n; i += 2) {
        int32_t a = i > 0 ? x[i - 1] : x[1];
        int32_t b = i + 1 < n ? x[i + 1] : x[n - 2];
        x[i] = tsr__fdwt53_predict(x[i], a, b);
    }
    for (uint32_t i = cas; i < n; i += 2) {
        int32_t a = i > 0 ? x[i - 1] : x[1];
        int32_t b = i + 1 < n ? x[i + 1] : x[n - 2];
        x[i] = tsr__fdwt53_update(x[i], a, b);
    }
}

/* One line's lifting in place on n interleaved samples whose first has absolute position i0. */
typedef void (*forward_line_fn)(void *line, uint32_t n, uint32_t i0);
/* The same lifting on `cols` lines at once, stored as n rows of cols samples (row i holds
 * every line's sample i): column j's result equals the line function's on column j. */
typedef void (*forward_strip_fn)(void *rows, uint32_t n, uint32_t i0, uint32_t cols);

/* One row of n samples (first at absolute position i0) analysed in place, low-pass samples
 * first (F.4.2's DEINTERLEAVE after the line's lifting); tmp holds n + 1 samples. */
typedef void (*forward_row_fn)(unsigned char *row, uint32_t n, uint32_t i0, unsigned char *tmp);

/* Both transforms keep 32-bit samples in tc->data (int32 or float bits); the walk below moves
 * them as bytes, so one copy serves both. */
_Static_assert(sizeof(float) == sizeof(int32_t), "float and int32_t samples share tc->data");
enum { SAMPLE_BYTES = sizeof(int32_t) };

/* The n samples at x, step samples apart, analysed by line: low-pass ones (even absolute
 * positions) first, then high-pass ones (F.4.2, DEINTERLEAVE). */
static void analyse(unsigned char *x, size_t step, uint32_t n, uint32_t i0, unsigned char *tmp,
                    forward_line_fn line)
{
    const size_t stride = step * SAMPLE_BYTES;
    for (uint32_t i = 0; i < n; i++)
        memcpy(tmp + (size_t)i * SAMPLE_BYTES, x + (size_t)i * stride, SAMPLE_BYTES);
    line(tmp, n, i0);
    const uint32_t cas = i0 & 1;
    uint32_t k = 0;
    for (uint32_t i = cas; i < n; i += 2)
        memcpy(x + (size_t)k++ * stride, tmp + (size_t)i * SAMPLE_BYTES, SAMPLE_BYTES);
    for (uint32_t i = 1 - cas; i < n; i += 2)
        memcpy(x + (size_t)k++ * stride, tmp + (size_t)i * SAMPLE_BYTES, SAMPLE_BYTES);
}

/* analyse() of `cols` adjacent columns of n samples (rows `stride` samples apart) at once:
 * whole row pieces move, so the column pass reads memory a cache line at a time instead of
 * a sample per line; tmp holds n * cols samples. */
static inline void copy_piece(unsigned char *d, const unsigned char *s, size_t piece)
{
    if (piece == TSR__FDWT_STRIP * SAMPLE_BYTES) /* the usual width: moves the compiler inlines */
        memcpy(d, s, TSR__FDWT_STRIP * SAMPLE_BYTES);
    else
        memcpy(d, s, piece);
}

static void analyse_columns(unsigned char *x, size_t stride_samples, uint32_t n, uint32_t i0,
                            uint32_t cols, unsigned char *tmp, forward_strip_fn strip)
{
    const size_t stride = stride_samples * SAMPLE_BYTES, piece = (size_t)cols * SAMPLE_BYTES;
    for (uint32_t i = 0; i < n; i++)
        copy_piece(tmp + (size_t)i * piece, x + (size_t)i * stride, piece);
    strip(tmp, n, i0, cols);
    const uint32_t cas = i0 & 1;
    uint32_t k = 0;
    for (uint32_t i = cas; i < n; i += 2)
        copy_piece(x + (size_t)k++ * stride, tmp + (size_t)i * piece, piece);
    for (uint32_t i = 1 - cas; i < n; i += 2)
        copy_piece(x + (size_t)k++ * stride, tmp + (size_t)i * piece, piece);
}

/* 2D_SD (F.4.2) from the finest resolution down: per level every column (in strips of up to
 * TSR__FDWT_STRIP columns, as many as per_thread holds), then every row, each through strip
 * and row; tmp holds per_thread samples for each thread. */
static void forward_levels(tsr__j2k_tilecomp *tc, void *tmp, size_t per_thread, int threads,
                           forward_row_fn row, forward_strip_fn strip)
{
    unsigned char *data = (unsigned char *)tc->data;
    for (uint32_t r = tc->numres - 1; r >= 1; r--) {
        const tsr__j2k_res *res = &tc->res[r];
        const uint32_t rw = res->x1 - res->x0, rh = res->y1 - res->y0;
        if (rw == 0 || rh == 0)
            continue;
        const size_t fit = per_thread / rh;
        const uint32_t cols = fit < TSR__FDWT_STRIP ? (uint32_t)fit : TSR__FDWT_STRIP;
        const uint32_t nstrips = (rw + cols - 1) / cols;
        /* every column, then every row: independent lines (the same result at any count) */
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) if (threads > 1 && (uint64_t)rw * rh > 65536)
#else
        (void)threads;
#endif
        {
            unsigned char *t =
                (unsigned char *)tmp + (size_t)thread_id() * per_thread * SAMPLE_BYTES;
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
            for (uint32_t s = 0; s < nstrips; s++) {
                const uint32_t x = s * cols, c = rw - x < cols ? rw - x : cols;
                analyse_columns(data + (size_t)x * SAMPLE_BYTES, tc->stride, rh, res->y0, c, t,
                                strip);
            }
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
            for (uint32_t y = 0; y < rh; y++)
                row(data + (size_t)y * tc->stride * SAMPLE_BYTES, rw, res->x0, t);
        }
    }
}

static void forward_line53(void *line, uint32_t n, uint32_t i0)
{
    tsr__dwt53_forward_line(line, n, i0);
}

/* forward_row_fn for 5/3: from an even position, the lifting and the deinterleaving fused,
 * from a copy of the row straight into it (the same integers as tsr__dwt53_forward_line, whose
 * high-pass samples the update reads); else that function through analyse(). */
static void forward_row53(unsigned char *row, uint32_t n, uint32_t i0, unsigned char *tmp)
{
    if ((i0 & 1) || n < 2) {
        analyse(row, 1, n, i0, tmp, forward_line53);
        return;
    }
    int32_t *t = (int32_t *)(void *)tmp, *x = (int32_t *)(void *)row;
    memcpy(t, x, (size_t)n * sizeof *t);
    t[n] = t[n - 2]; /* the symmetric extension's sample past an even n's last high-pass one */
    const uint32_t nl = (n + 1) / 2, nh = n / 2;
    int32_t *lo = x, *hi = x + nl;
    for (uint32_t i = 0; i < nh; i++)
        hi[i] = tsr__fdwt53_predict(t[2 * i + 1], t[2 * i], t[2 * i + 2]);
    lo[0] = tsr__fdwt53_update(t[0], hi[0], hi[0]);
    for (uint32_t i = 1; i < nh; i++)
        lo[i] = tsr__fdwt53_update(t[2 * i], hi[i - 1], hi[i]);
    if (nl > nh) /* odd n: the last sample is low-pass, both neighbours the last high-pass one */
        lo[nh] = tsr__fdwt53_update(t[2 * nh], hi[nh - 1], hi[nh - 1]);
}

/* tsr__dwt53_forward_line on every column of n rows of cols samples. */
static void forward_strip53(void *rows, uint32_t n, uint32_t i0, uint32_t cols)
{
    int32_t *t = rows;
    const uint32_t cas = i0 & 1;
    if (n == 1) {
        if (cas)
            for (uint32_t j = 0; j < cols; j++)
                t[j] *= 2;
        return;
    }
    if (n == 0)
        return;
    for (uint32_t i = 1 - cas; i < n; i += 2) {
        const int32_t *a = t + (size_t)(i > 0 ? i - 1 : 1) * cols;
        const int32_t *b = t + (size_t)(i + 1 < n ? i + 1 : n - 2) * cols;
        int32_t *d = t + (size_t)i * cols;
        for (uint32_t j = 0; j < cols; j++)
            d[j] = tsr__fdwt53_predict(d[j], a[j], b[j]);
    }
    for (uint32_t i = cas; i < n; i += 2) {
        const int32_t *a = t + (size_t)(i > 0 ? i - 1 : 1) * cols;
        const int32_t *b = t + (size_t)(i + 1 < n ? i + 1 : n - 2) * cols;
        int32_t *d = t + (size_t)i * cols;
        for (uint32_t j = 0; j < cols; j++)
            d[j] = tsr__fdwt53_update(d[j], a[j], b[j]);
    }
}

void tsr__fdwt53(tsr__j2k_tilecomp *tc, int32_t *tmp, size_t per_thread, int threads)
{
    forward_levels(tc, tmp, per_thread, threads, forward_row53, forward_strip53);
}

/* ---- 9/7 (F.4.8.2): the decoder's inverse (dwt.c, dwt_level.h) run backwards ------------- */

static void lift97_forward(float *x, uint32_t n, uint32_t start, float c)
{
    for (uint32_t i = start; i < n; i += 2) {
        float a = i > 0 ? x[i - 1] : x[1];
        float b = i + 1 < n ? x[i + 1] : x[n - 2];
        x[i] = tsr__fdwt97_lift(x[i], c, a, b);
    }
}

void tsr__dwt97_forward_line(float *x, uint32_t n, uint32_t i0)
{
    const uint32_t cas = i0 & 1;
    if (n == 1) {
        if (cas)
            x[0] *= 2.0f;
        return;
    }
    if (n == 0)
        return;
    lift97_forward(x, n, 1 - cas, TSR__DWT97_ALPHA);
    lift97_forward(x, n, cas, TSR__DWT97_BETA);
    lift97_forward(x, n, 1 - cas, TSR__DWT97_GAMMA);
    lift97_forward(x, n, cas, TSR__DWT97_DELTA);
    for (uint32_t i = cas; i < n; i += 2)
        x[i] *= TSR__DWT97_INVK;
    for (uint32_t i = 1 - cas; i < n; i += 2)
        x[i] *= TSR__DWT97_KAPPA;
}

static void forward_line97(void *line, uint32_t n, uint32_t i0)
{
    tsr__dwt97_forward_line(line, n, i0);
}

/* One 9/7 lifting step on a row from an even position held deinterleaved, d[k] += c (s[k + o]
 * + s[k + o + 1]) for k < nd with s's nonexistent ends mirrored (F.4.8.2's extension): the low
 * samples d = e (o = -1, s = the nh high ones) or the high ones d = h (o = 0, s = the nl low
 * ones). The sums are those of lift97_forward, in the same order per sample. */
static void lift97_half(float *restrict d, uint32_t nd, const float *restrict s, uint32_t ns, int o,
                        float c)
{
    uint32_t k = 0;
    if (o < 0) { /* low sample 0: both neighbours high sample 0 */
        d[0] = tsr__fdwt97_lift(d[0], c, s[0], s[0]);
        k = 1;
    }
    const uint32_t inner = (uint32_t)((int)ns - 1 - o) < nd ? (uint32_t)((int)ns - 1 - o) : nd;
    for (; k < inner; k++)
        d[k] = tsr__fdwt97_lift(d[k], c, s[(int)k + o], s[(int)k + o + 1]);
    for (; k < nd; k++) /* past s's end: both neighbours its last sample */
        d[k] = tsr__fdwt97_lift(d[k], c, s[ns - 1], s[ns - 1]);
}

/* forward_row_fn for 9/7: from an even position, the row deinterleaved into tmp, then
 * tsr__dwt97_forward_line's lifting steps on the halves (lift97_half, the same operations in
 * the same order per sample) and the scaling written back, low half first; else that function
 * through analyse(). */
static void forward_row97(unsigned char *row, uint32_t n, uint32_t i0, unsigned char *tmp)
{
    if ((i0 & 1) || n < 2) {
        analyse(row, 1, n, i0, tmp, forward_line97);
        return;
    }
    float *x = (float *)(void *)row;
    const uint32_t nl = (n + 1) / 2, nh = n / 2;
    float *e = (float *)(void *)tmp, *h = e + nl;
    for (uint32_t k = 0; k < nh; k++) {
        e[k] = x[2 * k];
        h[k] = x[2 * k + 1];
    }
    if (nl > nh)
        e[nh] = x[n - 1];
    lift97_half(h, nh, e, nl, 0, TSR__DWT97_ALPHA);
    lift97_half(e, nl, h, nh, -1, TSR__DWT97_BETA);
    lift97_half(h, nh, e, nl, 0, TSR__DWT97_GAMMA);
    lift97_half(e, nl, h, nh, -1, TSR__DWT97_DELTA);
    for (uint32_t k = 0; k < nl; k++)
        x[k] = e[k] * TSR__DWT97_INVK;
    for (uint32_t k = 0; k < nh; k++)
        x[nl + k] = h[k] * TSR__DWT97_KAPPA;
}

/* lift97_forward on every column of n rows of cols samples. */
static void lift97_strip(float *t, uint32_t n, uint32_t start, uint32_t cols, float c)
{
    for (uint32_t i = start; i < n; i += 2) {
        const float *a = t + (size_t)(i > 0 ? i - 1 : 1) * cols;
        const float *b = t + (size_t)(i + 1 < n ? i + 1 : n - 2) * cols;
        float *d = t + (size_t)i * cols;
        for (uint32_t j = 0; j < cols; j++)
            d[j] = tsr__fdwt97_lift(d[j], c, a[j], b[j]);
    }
}

/* tsr__dwt97_forward_line on every column of n rows of cols samples. */
static void forward_strip97(void *rows, uint32_t n, uint32_t i0, uint32_t cols)
{
    float *t = rows;
    const uint32_t cas = i0 & 1;
    if (n == 1) {
        if (cas)
            for (uint32_t j = 0; j < cols; j++)
                t[j] *= 2.0f;
        return;
    }
    if (n == 0)
        return;
    lift97_strip(t, n, 1 - cas, cols, TSR__DWT97_ALPHA);
    lift97_strip(t, n, cas, cols, TSR__DWT97_BETA);
    lift97_strip(t, n, 1 - cas, cols, TSR__DWT97_GAMMA);
    lift97_strip(t, n, cas, cols, TSR__DWT97_DELTA);
    for (uint32_t i = 0; i < n; i++) {
        const float k = ((i & 1) == cas) ? TSR__DWT97_INVK : TSR__DWT97_KAPPA;
        float *d = t + (size_t)i * cols;
        for (uint32_t j = 0; j < cols; j++)
            d[j] *= k;
    }
}

void tsr__fdwt97(tsr__j2k_tilecomp *tc, float *tmp, size_t per_thread, int threads)
{
    forward_levels(tc, tmp, per_thread, threads, forward_row97, forward_strip97);
}
