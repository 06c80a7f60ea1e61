/* The inverse DWT's per-level passes (dwt.c describes the transform, the layout and the
 * rounding), written once and compiled twice: by dwt.c for the baseline instruction set and
 * by dwt_avx2.c for AVX2. DWT_LEVEL_2D names the level function, DWT_HROW and DWT_VSTRIP its
 * row and column-strip steps (callable on their own), DWT_SCOPE their linkage.
 * Both builds run the same C operations in the same order (integer lifting; float multiplies
 * and adds, never fused: the build has -ffp-contract=off and AVX2 does not imply FMA), so
 * their outputs are identical bit for bit; only the compiler's vector width differs. */
#if !defined(DWT_LEVEL_2D) || !defined(DWT_HROW) || !defined(DWT_VSTRIP) || !defined(DWT_SCOPE)
#error "define DWT_LEVEL_2D, DWT_HROW, DWT_VSTRIP and DWT_SCOPE (static or nothing) first"
#endif
#include "j2k/decode_stages.h"
#include "j2k/xform_hd.h"

#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define LANES TSR__DWT_STRIP /* columns per strip of the vertical pass */

/* Standard lifting parameters (T.800 Table F.4). The 5/3 steps are xform_hd.h's; the 9/7 step
 * d - c (a + b) is tsr__dwt97_lift's expression written out in the loops below, where GCC folds
 * the coefficients' signs into adds that take d from memory (through the inline function it
 * does not, and the vertical sweeps gain a load per vector). */
static const float ALPHA = TSR__DWT97_ALPHA;
static const float BETA = TSR__DWT97_BETA;
static const float GAMMA = TSR__DWT97_GAMMA;
static const float DELTA = TSR__DWT97_DELTA;
static const float KAPPA = TSR__DWT97_KAPPA;

/* LANES columns at once: x[i * LANES + k]. */
static void dwt53_lanes(int32_t *x, uint32_t n, uint32_t i0)
{
    uint32_t cas = i0 & 1;
    if (n == 1) {
        if (cas)
            for (int k = 0; k < LANES; k++)
                x[k] /= 2;
        return;
    }
    for (uint32_t i = cas; i < n; i += 2) {
        const int32_t *a = x + (size_t)(i > 0 ? i - 1 : 1) * LANES;
        const int32_t *b = x + (size_t)(i + 1 < n ? i + 1 : n - 2) * LANES;
        int32_t *d = x + (size_t)i * LANES;
        for (int k = 0; k < LANES; k++)
            d[k] = tsr__dwt53_lift_low(d[k], a[k], b[k]);
    }
    for (uint32_t i = 1 - cas; i < n; i += 2) {
        const int32_t *a = x + (size_t)(i > 0 ? i - 1 : 1) * LANES;
        const int32_t *b = x + (size_t)(i + 1 < n ? i + 1 : n - 2) * LANES;
        int32_t *d = x + (size_t)i * LANES;
        for (int k = 0; k < LANES; k++)
            d[k] = tsr__dwt53_lift_high(d[k], a[k], b[k]);
    }
}

/* ---- 9/7 ----------------------------------------------------------------------------------- */

static inline void lift97_lanes(float *x, uint32_t n, uint32_t start, float c)
{
    for (uint32_t i = start; i < n; i += 2) {
        const float *a = x + (size_t)(i > 0 ? i - 1 : 1) * LANES;
        const float *b = x + (size_t)(i + 1 < n ? i + 1 : n - 2) * LANES;
        float *d = x + (size_t)i * LANES;
        for (int k = 0; k < LANES; k++)
            d[k] = d[k] - c * (a[k] + b[k]);
    }
}

static void dwt97_lanes(float *x, uint32_t n, uint32_t i0)
{
    uint32_t cas = i0 & 1;
    if (n == 1) {
        if (cas)
            for (int k = 0; k < LANES; k++)
                x[k] *= 0.5f;
        return;
    }
    const float invk = 1.0f / KAPPA;
    for (uint32_t i = cas; i < n; i += 2)
        for (int k = 0; k < LANES; k++)
            x[(size_t)i * LANES + k] *= KAPPA;
    for (uint32_t i = 1 - cas; i < n; i += 2)
        for (int k = 0; k < LANES; k++)
            x[(size_t)i * LANES + k] *= invk;
    lift97_lanes(x, n, cas, DELTA);
    lift97_lanes(x, n, 1 - cas, GAMMA);
    lift97_lanes(x, n, cas, BETA);
    lift97_lanes(x, n, 1 - cas, ALPHA);
}

/* ---- fused lane sweeps (vertical pass) -----------------------------------------------------
 * Two consecutive lifting steps in one sweep down the strip: at row i the first step updates
 * position i (parity pa) from its untouched neighbours, then the second step updates position
 * i - 1 (the other parity), whose neighbours i - 2 and i are both final for the first step. The
 * arithmetic and its operands are exactly those of two separate sweeps; only the memory traffic
 * changes. Mirrored neighbours: -1 -> 1, n -> n - 2 (F.3.7). */
#define ROWP(x, i) ((x) + (size_t)(i)*LANES)
#define NB(i, n) ((i) < 0 ? 1 : (i) >= (int64_t)(n) ? (int64_t)(n)-2 : (i))

static void fused97_lanes(float *x, uint32_t n, uint32_t pa, float ca, float cb)
{
    for (int64_t i = 0; i <= (int64_t)n; i++) {
        if (i < (int64_t)n && (uint32_t)(i & 1) == pa) {
            const float *a = ROWP(x, NB(i - 1, n)), *b = ROWP(x, NB(i + 1, n));
            float *d = ROWP(x, i);
            for (int k = 0; k < LANES; k++)
                d[k] = d[k] - ca * (a[k] + b[k]);
        }
        int64_t j = i - 1;
        if (j >= 0 && (uint32_t)(j & 1) != pa) {
            const float *a = ROWP(x, NB(j - 1, n)), *b = ROWP(x, NB(j + 1, n));
            float *d = ROWP(x, j);
            for (int k = 0; k < LANES; k++)
                d[k] = d[k] - cb * (a[k] + b[k]);
        }
    }
}

static void fused53_lanes(int32_t *x, uint32_t n, uint32_t pa)
{
    for (int64_t i = 0; i <= (int64_t)n; i++) {
        if (i < (int64_t)n && (uint32_t)(i & 1) == pa) {
            const int32_t *a = ROWP(x, NB(i - 1, n)), *b = ROWP(x, NB(i + 1, n));
            int32_t *d = ROWP(x, i);
            for (int k = 0; k < LANES; k++)
                d[k] = tsr__dwt53_lift_low(d[k], a[k], b[k]);
        }
        int64_t j = i - 1;
        if (j >= 0 && (uint32_t)(j & 1) != pa) {
            const int32_t *a = ROWP(x, NB(j - 1, n)), *b = ROWP(x, NB(j + 1, n));
            int32_t *d = ROWP(x, j);
            for (int k = 0; k < LANES; k++)
                d[k] = tsr__dwt53_lift_high(d[k], a[k], b[k]);
        }
    }
}

/* ---- deinterleaved lines (horizontal pass) ------------------------------------------------
 * The same lifting on a row still split into its low half L[0..sn) and high half H[0..dn), so
 * that the inner loops run over contiguous memory. With cas = i0 & 1 the interleaved line is
 * x[2k + cas] = L[k], x[2k + 1 - cas] = H[k]; a low sample's neighbours are H[k - 1 + cas] and
 * H[k + cas], a high sample's L[k - cas] and L[k + 1 - cas]; a neighbour beyond either end is
 * the other neighbour (whole-sample symmetric extension, F.3.7). */

#define NEIGH(arr, n, a, b, out_a, out_b)                                                          \
    do {                                                                                           \
        int64_t a_ = (a), b_ = (b);                                                                \
        int va_ = a_ >= 0 && a_ < (int64_t)(n), vb_ = b_ >= 0 && b_ < (int64_t)(n);                \
        out_a = va_ ? (arr)[a_] : (arr)[b_];                                                       \
        out_b = vb_ ? (arr)[b_] : (arr)[a_];                                                       \
    } while (0)

/* dst[k] += f(src[k + off], src[k + off + 1]) for k in [0, n), src of length m. The middle range
 * where both neighbours exist runs without checks. */
#define LIFT_RANGE(T, dst, n, src, m, off, EXPR)                                                   \
    do {                                                                                           \
        int64_t lo_ = -(int64_t)(off), hi_ = (int64_t)(m)-1 - (int64_t)(off);                      \
        if (lo_ < 0)                                                                               \
            lo_ = 0;                                                                               \
        if (hi_ > (int64_t)(n))                                                                    \
            hi_ = (int64_t)(n);                                                                    \
        if (hi_ < lo_)                                                                             \
            hi_ = lo_;                                                                             \
        for (int64_t k = 0; k < (int64_t)(n); k++) {                                               \
            if (k == lo_ && hi_ > lo_) {                                                           \
                for (; k < hi_; k++) {                                                             \
                    T a = src[k + (off)], b = src[k + (off) + 1];                                  \
                    dst[k] EXPR;                                                                   \
                }                                                                                  \
                if (k >= (int64_t)(n))                                                             \
                    break;                                                                         \
            }                                                                                      \
            T a, b;                                                                                \
            NEIGH(src, m, k + (off), k + (off) + 1, a, b);                                         \
            dst[k] EXPR;                                                                           \
        }                                                                                          \
    } while (0)

static void dwt53_split(int32_t *L, uint32_t sn, int32_t *H, uint32_t dn, uint32_t cas)
{
    if (sn + dn == 1) {
        if (cas)
            H[0] /= 2;
        return;
    }
    int64_t lo = (int64_t)cas - 1, ho = -(int64_t)cas;
    LIFT_RANGE(int32_t, L, sn, H, dn, lo, = tsr__dwt53_lift_low(L[k], a, b));
    LIFT_RANGE(int32_t, H, dn, L, sn, ho, = tsr__dwt53_lift_high(H[k], a, b));
}

static void dwt97_split(float *L, uint32_t sn, float *H, uint32_t dn, uint32_t cas)
{
    if (sn + dn == 1) {
        if (cas)
            H[0] *= 0.5f;
        return;
    }
    const float invk = 1.0f / KAPPA;
    for (uint32_t k = 0; k < sn; k++)
        L[k] *= KAPPA;
    for (uint32_t k = 0; k < dn; k++)
        H[k] *= invk;
    int64_t lo = (int64_t)cas - 1, ho = -(int64_t)cas;
    LIFT_RANGE(float, L, sn, H, dn, lo, = L[k] - DELTA * (a + b));
    LIFT_RANGE(float, H, dn, L, sn, ho, = H[k] - GAMMA * (a + b));
    LIFT_RANGE(float, L, sn, H, dn, lo, = L[k] - BETA * (a + b));
    LIFT_RANGE(float, H, dn, L, sn, ho, = H[k] - ALPHA * (a + b));
}

/* ---- 2D driver ---------------------------------------------------------------------------- */

/* dst[0 .. n) = e[0], o[0], e[1], o[1], ...: the even positions from e (ceil(n/2) samples), the
 * odd ones from o; one loop with both stores, which compilers turn into vector unpacks. */
static void interleave(int32_t *restrict dst, uint32_t n, const int32_t *restrict e,
                       const int32_t *restrict o)
{
    const uint32_t m = n / 2;
    for (uint32_t i = 0; i < m; i++) {
        dst[2 * i] = e[i];
        dst[2 * i + 1] = o[i];
    }
    if (n & 1)
        dst[n - 1] = e[m];
}

/* n <= LANES samples of one strip row; the whole-strip case with a constant size, so that it
 * compiles to a few vector moves instead of a library call per row */
static inline void copy_lanes(int32_t *dst, const int32_t *src, uint32_t n)
{
    if (n == LANES)
        memcpy(dst, src, LANES * sizeof *dst);
    else
        memcpy(dst, src, n * sizeof *dst);
}

/* Strip rows are a tile row apart, each in another page, where hardware prefetchers stop: the
 * gathers ask for the row PF_AHEAD rows ahead of the one they copy (all of its nl <= LANES
 * samples, for writing: the lines are written back after the lifting). */
/* The calling OpenMP thread's part of a scratch buffer of `per_thread` words per thread. */
static inline int32_t *thread_scratch(int32_t *scratch, size_t per_thread)
{
    int tid = 0;
#ifdef _OPENMP
    tid = omp_get_thread_num();
#endif
    return scratch + (size_t)tid * per_thread;
}

#define PF_AHEAD 16
static inline void prefetch_lanes(const int32_t *p, uint32_t nl)
{
    for (uint32_t k = 0; k < nl; k += 64 / sizeof *p)
        __builtin_prefetch(p + k, 1, 3);
}

/* Row `row` of a level (rw samples: snx low ones first, the first at absolute column x0)
 * lifted and interleaved in place; tmp: rw words. */
DWT_SCOPE void DWT_HROW(int32_t *row, uint32_t rw, uint32_t snx, uint32_t x0, int rev, int32_t *tmp)
{
    uint32_t cx = x0 & 1, dn = rw - snx;
    /* lift in the split layout, then interleave: low samples at cx, cx+2, ... */
    if (rev)
        dwt53_split(row, snx, row + snx, dn, cx);
    else
        dwt97_split((float *)row, snx, (float *)row + snx, dn, cx);
    interleave(tmp, rw, cx ? row + snx : row, cx ? row : row + snx);
    memcpy(row, tmp, (size_t)rw * sizeof *row);
}

/* Columns [LANES s, LANES s + LANES) of a level (of rw) lifted in place: rows [0, rh) of data,
 * `stride` apart, the sny low rows first, the first at absolute row y0; tmp: rh * LANES words. */
DWT_SCOPE void DWT_VSTRIP(int32_t *data, size_t stride, uint32_t rw, uint32_t rh, uint32_t sny,
                          uint32_t y0, int rev, uint32_t s, int32_t *tmp)
{
    uint32_t cy = y0 & 1;
    uint32_t xs = s * LANES;
    uint32_t nl = rw - xs < LANES ? rw - xs : LANES;
    uint32_t dn = rh - sny;
    if (nl < LANES)
        memset(tmp, 0, (size_t)rh * LANES * sizeof *tmp);
    if (rh == 1 || rev) {
        for (uint32_t i = 0; i < rh; i++) {
            if (i + PF_AHEAD < rh)
                prefetch_lanes(data + (size_t)(i + PF_AHEAD) * stride + xs, nl);
            const uint32_t t = i < sny ? cy + 2 * i : 1 - cy + 2 * (i - sny);
            copy_lanes(tmp + (size_t)t * LANES, data + (size_t)i * stride + xs, nl);
        }
        if (rh == 1 && rev)
            dwt53_lanes(tmp, rh, y0);
        else if (rh == 1)
            dwt97_lanes((float *)tmp, rh, y0);
        else
            fused53_lanes(tmp, rh, cy);
    } else {
        /* gather with the K / 1/K scaling of step 1, then two fused sweeps */
        const float invk = 1.0f / KAPPA;
        float *ft = (float *)tmp;
        for (uint32_t i = 0; i < sny; i++) {
            if (i + PF_AHEAD < rh)
                prefetch_lanes(data + (size_t)(i + PF_AHEAD) * stride + xs, nl);
            const float *src = (const float *)(data + (size_t)i * stride + xs);
            float *d = ft + (size_t)(cy + 2 * i) * LANES;
            for (uint32_t k = 0; k < nl; k++)
                d[k] = src[k] * KAPPA;
        }
        for (uint32_t i = 0; i < dn; i++) {
            if (sny + i + PF_AHEAD < rh)
                prefetch_lanes(data + (size_t)(sny + i + PF_AHEAD) * stride + xs, nl);
            const float *src = (const float *)(data + (size_t)(sny + i) * stride + xs);
            float *d = ft + (size_t)(1 - cy + 2 * i) * LANES;
            for (uint32_t k = 0; k < nl; k++)
                d[k] = src[k] * invk;
        }
        fused97_lanes(ft, rh, cy, DELTA, GAMMA);
        fused97_lanes(ft, rh, cy, BETA, ALPHA);
    }
    for (uint32_t i = 0; i < rh; i++)
        copy_lanes(data + (size_t)i * stride + xs, tmp + (size_t)i * LANES, nl);
}

/* One level: rows [0, rh) of width rw (sn low samples first), then columns. T is int32_t or
 * float (same size); the lifting functions are chosen by `rev`. Contract in dwt.c. */
DWT_SCOPE void DWT_LEVEL_2D(int32_t *data, size_t stride, uint32_t rw, uint32_t rh, uint32_t snx,
                            uint32_t sny, uint32_t x0, uint32_t y0, int rev, int32_t *scratch,
                            size_t scratch_per_thread, int threads)
{
    (void)threads;
    /* Horizontal. */
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && rh > 16)
    for (uint32_t y = 0; y < rh; y++)
        DWT_HROW(data + (size_t)y * stride, rw, snx, x0, rev,
                 thread_scratch(scratch, scratch_per_thread));
    /* Vertical, LANES columns at a time. */
    uint32_t nstrips = (rw + LANES - 1) / LANES;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && nstrips > 1)
    for (uint32_t s = 0; s < nstrips; s++)
        DWT_VSTRIP(data, stride, rw, rh, sny, y0, rev, s,
                   thread_scratch(scratch, scratch_per_thread));
}
