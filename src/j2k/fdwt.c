/* Forward reversible 5/3 wavelet transform (T.800 F.4): per level the vertical analysis of
 * every column, then the horizontal analysis of every row (2D_SD, F.4.2), each a lifting pass
 * on an interleaved line (F.4.8.2) followed by the deinterleaving into low then high samples.
 * Integer lifting inverts exactly, so dwt.c's inverse (rows, then columns) returns the input. */
#include "core/simd_switch.h"
#include "j2k/encode_stages.h"
#include "j2k/fxform_hd.h"
#include "j2k/ht_bits.h"

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

/* One row of n samples (first at absolute position i0) analysed into dst (the row itself or n
 * samples apart from it), low-pass samples first (F.4.2's DEINTERLEAVE after the line's
 * lifting); tmp holds n samples. */
typedef void (*forward_row_fn)(unsigned char *dst, unsigned char *row, uint32_t n, uint32_t i0,
                               unsigned char *tmp);

/* The line kernels (fdwt_lines.h): the baseline build here, the AVX2 one in fdwt_avx2.c. */
#define FDWT_FN(name) name##_base
#define FDWT_SCOPE static
#include "j2k/fdwt_lines.h"

typedef struct fdwt_kernels {
    void (*row53)(int32_t *dst, const int32_t *x, uint32_t n, int32_t *t);
    forward_strip_fn strip53;
    void (*row97)(float *dst, const float *x, uint32_t n, float *t);
    forward_strip_fn strip97;
} fdwt_kernels;

/* The build to run: ht_decode.c's levels (1 or 2 runs the AVX2 one), the same output. */
static const fdwt_kernels *kernels(void)
{
    static const fdwt_kernels base = {row53_base, strip53_base, row97_base, strip97_base};
    static const fdwt_kernels avx2 = {tsr__fdwt_row53_avx2, tsr__fdwt_strip53_avx2,
                                      tsr__fdwt_row97_avx2, tsr__fdwt_strip97_avx2};
    static tsr__simd_switch sw = TSR__SIMD_SWITCH(tsr__ht_cpu_level, 1);
    return tsr__simd_on(&sw) ? &avx2 : &base;
}

/* Both transforms keep 32-bit samples in tc->data (int32 or float bits); the walk below moves
 * them as bytes, so one copy serves both. */
_Static_assert(sizeof(float) == sizeof(int32_t), "float and int32_t samples share tc->data");
enum { SAMPLE_BYTES = sizeof(int32_t) };

/* The n samples at x, step samples apart, analysed by line into dst's (x itself, or n samples
 * apart from it) with the same step: low-pass ones (even absolute positions) first, then
 * high-pass ones (F.4.2, DEINTERLEAVE). */
static void analyse(unsigned char *dst, const unsigned char *x, size_t step, uint32_t n,
                    uint32_t i0, unsigned char *tmp, forward_line_fn line)
{
    const size_t stride = step * SAMPLE_BYTES;
    for (uint32_t i = 0; i < n; i++)
        memcpy(tmp + (size_t)i * SAMPLE_BYTES, x + (size_t)i * stride, SAMPLE_BYTES);
    line(tmp, n, i0);
    const uint32_t cas = i0 & 1;
    uint32_t k = 0;
    for (uint32_t i = cas; i < n; i += 2)
        memcpy(dst + (size_t)k++ * stride, tmp + (size_t)i * SAMPLE_BYTES, SAMPLE_BYTES);
    for (uint32_t i = 1 - cas; i < n; i += 2)
        memcpy(dst + (size_t)k++ * stride, tmp + (size_t)i * SAMPLE_BYTES, SAMPLE_BYTES);
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

/* 2D_SD (F.4.2) from resolution top down: per level every column (in strips of up to
 * TSR__FDWT_STRIP columns, as many as per_thread holds), then every row, each through strip
 * and row; tmp holds per_thread samples for each thread. */
static void forward_levels(tsr__j2k_tilecomp *tc, uint32_t top, void *tmp, size_t per_thread,
                           int threads, forward_row_fn row, forward_strip_fn strip)
{
    unsigned char *data = (unsigned char *)tc->data;
    for (uint32_t r = top; r >= 1; r--) {
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
            for (uint32_t y = 0; y < rh; y++) {
                unsigned char *at = data + (size_t)y * tc->stride * SAMPLE_BYTES;
                row(at, at, rw, res->x0, t);
            }
        }
    }
}

static void forward_line53(void *line, uint32_t n, uint32_t i0)
{
    tsr__dwt53_forward_line(line, n, i0);
}

/* forward_row_fn for 5/3: from an even position the build's row53 (fdwt_lines.h), else
 * tsr__dwt53_forward_line through analyse(). */
static void forward_row53(unsigned char *dst, unsigned char *row, uint32_t n, uint32_t i0,
                          unsigned char *tmp)
{
    if ((i0 & 1) || n < 2)
        analyse(dst, row, 1, n, i0, tmp, forward_line53);
    else
        kernels()->row53((int32_t *)(void *)dst, (const int32_t *)(const void *)row, n,
                         (int32_t *)(void *)tmp);
}

void tsr__fdwt53(tsr__j2k_tilecomp *tc, int32_t *tmp, size_t per_thread, int threads)
{
    forward_levels(tc, tc->numres - 1, tmp, per_thread, threads, forward_row53, kernels()->strip53);
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

/* forward_row_fn for 9/7: from an even position the build's row97 (fdwt_lines.h), else
 * tsr__dwt97_forward_line through analyse(). */
static void forward_row97(unsigned char *dst, unsigned char *row, uint32_t n, uint32_t i0,
                          unsigned char *tmp)
{
    if ((i0 & 1) || n < 2)
        analyse(dst, row, 1, n, i0, tmp, forward_line97);
    else
        kernels()->row97((float *)(void *)dst, (const float *)(const void *)row, n,
                         (float *)(void *)tmp);
}

void tsr__fdwt97(tsr__j2k_tilecomp *tc, float *tmp, size_t per_thread, int threads)
{
    forward_levels(tc, tc->numres - 1, tmp, per_thread, threads, forward_row97, kernels()->strip97);
}

/* ---- the finest level fused with the samples' load (tsr__fdwt_fused) ----------------------- */

/* A band's rows, and the rows loaded above and below it: the lifting's reach. Each lifting step
 * reads the rows next to the ones it updates, so a row that the band's first step got wrong
 * (the strip's mirror at a loaded edge that is not the column's) spreads one row further a
 * step: after 9/7's four steps (5/3's two) the fourth row from a loaded edge is exact. Even, so
 * that a band's rows keep their absolute parities. */
enum { FUSED_BAND = 32, FUSED_HALO = 4 };
_Static_assert(FUSED_HALO % 2 == 0 && FUSED_HALO >= 4, "four lifting steps' reach, parity kept");

size_t tsr__fdwt_fused_words(uint32_t w, uint32_t ncomp)
{
    return (size_t)ncomp * (FUSED_BAND + 2 * FUSED_HALO) * w + w;
}

void tsr__fdwt_fused(tsr__j2k_tilecomp *const *tcs, uint32_t ncomp, int rev, tsr__fdwt_load_fn load,
                     void *user, void *tmp, size_t per_thread, int threads)
{
    const tsr__j2k_tilecomp *tc0 = tcs[0];
    const tsr__j2k_res *res = &tc0->res[tc0->numres - 1];
    const uint32_t w = res->x1 - res->x0, h = res->y1 - res->y0, cas = res->y0 & 1;
    if (w == 0 || h == 0)
        return;
    const int transform = tc0->numres > 1; /* else the samples stay as they load */
    const forward_row_fn row = rev ? forward_row53 : forward_row97;
    const forward_strip_fn strip = rev ? kernels()->strip53 : kernels()->strip97;
    const size_t room = (size_t)(FUSED_BAND + 2 * FUSED_HALO) * w;
    const uint32_t nl = (h + 1 - cas) / 2, nbands = (h + FUSED_BAND - 1) / FUSED_BAND;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && nbands > 1)
#else
    (void)threads;
#endif
    for (uint32_t b = 0; b < nbands; b++) {
        unsigned char *t = (unsigned char *)tmp + (size_t)thread_id() * per_thread * SAMPLE_BYTES;
        const uint32_t y0 = b * FUSED_BAND, y1 = h - y0 < FUSED_BAND ? h : y0 + FUSED_BAND;
        void *rows[TSR__FDWT_FUSED_COMPS];
        if (!transform) {
            for (uint32_t c = 0; c < ncomp; c++)
                rows[c] = tcs[c]->data + (size_t)y0 * tcs[c]->stride;
            load(user, y0, y1 - y0, rows);
            continue;
        }
        for (uint32_t c = 0; c < ncomp; c++)
            rows[c] = t + (size_t)c * room * SAMPLE_BYTES;
        unsigned char *line = t + (size_t)ncomp * room * SAMPLE_BYTES;
        const uint32_t a = y0 < FUSED_HALO ? 0 : y0 - FUSED_HALO,
                       e = h - y1 < FUSED_HALO ? h : y1 + FUSED_HALO;
        load(user, a, e - a, rows);
        for (uint32_t c = 0; c < ncomp; c++) {
            unsigned char *data = (unsigned char *)tcs[c]->data;
            const size_t stride = tcs[c]->stride * SAMPLE_BYTES;
            strip(rows[c], e - a, res->y0 + a, w); /* the columns, F.4.2's first pass */
            for (uint32_t i = y0; i < y1; i++) {   /* each row, into its place: low rows first */
                unsigned char *src = (unsigned char *)rows[c] + (size_t)(i - a) * w * SAMPLE_BYTES;
                const uint32_t k = ((i - cas) & 1) == 0 ? (i - cas) / 2 : nl + (i - (1 - cas)) / 2;
                row(data + (size_t)k * stride, src, w, res->x0, line);
            }
        }
    }
    for (uint32_t c = 0; transform && c < ncomp; c++)
        forward_levels(tcs[c], tc0->numres - 2, tmp, per_thread, threads, row, strip);
}
