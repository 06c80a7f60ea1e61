/* Inverse discrete wavelet transform (T.800 Annex F): 2D_SR as whole-array passes, one level at
 * a time, horizontal (rows) then vertical (columns), each with the lifting steps of F.3.8.
 *
 * Layout: a tile-component's samples hold, for the resolution being reconstructed, LL in the
 * top-left (sn_x by sn_y), HL to its right, LH below, HH diagonally (the "deinterleaved" layout
 * of F.3.3's inverse). A line is interleaved into scratch memory, lifted, and written back.
 *
 * Parity: a line's first sample sits at absolute position i0; even positions are low-pass. Ends
 * use whole-sample symmetric extension (F.3.7). A single sample at an odd position is halved.
 *
 * 5/3: exact integer arithmetic (F-8): floor divisions by arithmetic shifts.
 * 9/7: the standard's lifting (F-9, Table F.4) in single-precision float, steps in the order
 *      K / 1/K scaling, delta, gamma, beta, alpha, each rounded to float, no fused multiply-add
 *      (the library is built without -ffast-math and x86-64 baseline has no FMA); output is
 *      rounded to nearest by the caller after the colour transform.
 *
 * The per-level passes are in dwt_level.h, compiled here, for AVX2 in dwt_avx2.c and for
 * AVX-512 in dwt_avx512.c. */
#define DWT_LEVEL_2D level_2d_base
#define DWT_HROW hrow_base
#define DWT_VSTRIP vstrip_base
#define DWT_SCOPE static
#include "j2k/dwt_level.h"
#include "j2k/t1_internal.h"

/* The same level compiled for AVX2 (dwt_avx2.c) and for AVX-512 (dwt_avx512.c), indexed by
 * tsr__ht_simd()'s level (ht_decode.c: 1 on an AVX2 + BMI2 CPU, 2 where it also has AVX-512
 * F/BW/DQ/VL and a test or benchmark selected it, 0 otherwise); never called on other targets,
 * where the level is 0. */
typedef void level_fn(int32_t *data, size_t stride, uint32_t rw, uint32_t rh, uint32_t snx,
                      uint32_t sny, uint32_t x0, uint32_t y0, int rev, int32_t *scratch,
                      size_t scratch_per_thread, int threads);
typedef void hrow_fn(int32_t *row, uint32_t rw, uint32_t snx, uint32_t x0, int rev, int32_t *tmp);
typedef void vstrip_fn(int32_t *data, size_t stride, uint32_t rw, uint32_t rh, uint32_t sny,
                       uint32_t y0, int rev, uint32_t s, int32_t *tmp);
level_fn tsr__dwt_level_2d_avx2, tsr__dwt_level_2d_avx512;
hrow_fn tsr__dwt_hrow_avx2, tsr__dwt_hrow_avx512;
vstrip_fn tsr__dwt_vstrip_avx2, tsr__dwt_vstrip_avx512;
static level_fn *const LEVEL_2D[3] = {level_2d_base, tsr__dwt_level_2d_avx2,
                                      tsr__dwt_level_2d_avx512};
static hrow_fn *const HROW[3] = {hrow_base, tsr__dwt_hrow_avx2, tsr__dwt_hrow_avx512};
static vstrip_fn *const VSTRIP[3] = {vstrip_base, tsr__dwt_vstrip_avx2, tsr__dwt_vstrip_avx512};

/* ---- 5/3 --------------------------------------------------------------------------------- */

void tsr__dwt53_line(int32_t *x, uint32_t n, uint32_t i0)
{
    uint32_t cas = i0 & 1;
    if (n == 1) {
        if (cas)
            x[0] /= 2;
        return;
    }
    if (n == 0)
        return;
    /* Step 1: even (low) positions. */
    for (uint32_t i = cas; i < n; i += 2) {
        int32_t a = i > 0 ? x[i - 1] : x[1];
        int32_t b = i + 1 < n ? x[i + 1] : x[n - 2];
        x[i] = tsr__dwt53_lift_low(x[i], a, b);
    }
    /* Step 2: odd (high) positions. */
    for (uint32_t i = 1 - cas; i < n; i += 2) {
        int32_t a = i > 0 ? x[i - 1] : x[1];
        int32_t b = i + 1 < n ? x[i + 1] : x[n - 2];
        x[i] = tsr__dwt53_lift_high(x[i], a, b);
    }
}

/* ---- 9/7 --------------------------------------------------------------------------------- */

static inline void lift97(float *x, uint32_t n, uint32_t start, float c)
{
    for (uint32_t i = start; i < n; i += 2) {
        float a = i > 0 ? x[i - 1] : x[1];
        float b = i + 1 < n ? x[i + 1] : x[n - 2];
        x[i] = tsr__dwt97_lift(x[i], c, a, b);
    }
}

void tsr__dwt97_line(float *x, uint32_t n, uint32_t i0)
{
    uint32_t cas = i0 & 1;
    if (n == 1) {
        if (cas)
            x[0] *= 0.5f;
        return;
    }
    if (n == 0)
        return;
    const float invk = 1.0f / KAPPA;
    for (uint32_t i = cas; i < n; i += 2)
        x[i] *= KAPPA;
    for (uint32_t i = 1 - cas; i < n; i += 2)
        x[i] *= invk;
    lift97(x, n, cas, DELTA);
    lift97(x, n, 1 - cas, GAMMA);
    lift97(x, n, cas, BETA);
    lift97(x, n, 1 - cas, ALPHA);
}

void tsr__dwt_level(int32_t *data, size_t stride, uint32_t rw, uint32_t rh, uint32_t snx,
                    uint32_t sny, uint32_t x0, uint32_t y0, int rev, int32_t *scratch,
                    size_t per_thread, int threads)
{
    LEVEL_2D[tsr__ht_simd()](data, stride, rw, rh, snx, sny, x0, y0, rev, scratch, per_thread,
                             threads);
}

void tsr__dwt_hrow(int32_t *row, uint32_t rw, uint32_t snx, uint32_t x0, int rev, int32_t *tmp)
{
    HROW[tsr__ht_simd()](row, rw, snx, x0, rev, tmp);
}

void tsr__dwt_vstrip(int32_t *data, size_t stride, uint32_t rw, uint32_t rh, uint32_t sny,
                     uint32_t y0, int rev, uint32_t s, int32_t *tmp)
{
    VSTRIP[tsr__ht_simd()](data, stride, rw, rh, sny, y0, rev, s, tmp);
}

static void inverse(tsr__j2k_tilecomp *tc, uint32_t nres, int rev, int32_t *scratch,
                    size_t per_thread, int threads)
{
    for (uint32_t r = 1; r < nres; r++) {
        const tsr__j2k_res *res = &tc->res[r], *low = &tc->res[r - 1];
        uint32_t rw = res->x1 - res->x0, rh = res->y1 - res->y0;
        if (rw == 0 || rh == 0)
            continue;
        tsr__dwt_level(tc->data, tc->stride, rw, rh, low->x1 - low->x0, low->y1 - low->y0, res->x0,
                       res->y0, rev, scratch, per_thread, threads);
    }
}

size_t tsr__dwt_scratch_per_thread(const tsr__j2k_tilecomp *tc)
{
    size_t m = tc->data_w > tc->data_h ? tc->data_w : tc->data_h;
    return m * LANES + 64;
}

void tsr__dwt53_inverse2(tsr__j2k_tilecomp *tc, uint32_t nres, int32_t *scratch, int threads)
{
    inverse(tc, nres, 1, scratch, tsr__dwt_scratch_per_thread(tc), threads);
}

void tsr__dwt97_inverse2(tsr__j2k_tilecomp *tc, uint32_t nres, int32_t *scratch, int threads)
{
    inverse(tc, nres, 0, scratch, tsr__dwt_scratch_per_thread(tc), threads);
}
