/* Forward reversible 5/3 wavelet transform (T.800 F.4): per level the vertical analysis of
 * every column, then the horizontal analysis of every row (2D_SD, F.4.2), each a lifting pass
 * on an interleaved line (F.4.8.2) followed by the deinterleaving into low then high samples.
 * Integer lifting inverts exactly, so dwt.c's inverse (rows, then columns) returns the input. */
#include "j2k/encode_stages.h"

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
        x[i] -= (a + b) >> 1;
    }
    for (uint32_t i = cas; i < n; i += 2) {
        int32_t a = i > 0 ? x[i - 1] : x[1];
        int32_t b = i + 1 < n ? x[i + 1] : x[n - 2];
        x[i] += (a + b + 2) >> 2;
    }
}

/* The n samples at x, step apart, analysed: low-pass ones (even absolute positions) first. */
static void analyse(int32_t *x, size_t step, uint32_t n, uint32_t i0, int32_t *tmp)
{
    for (uint32_t i = 0; i < n; i++)
        tmp[i] = x[i * step];
    tsr__dwt53_forward_line(tmp, n, i0);
    const uint32_t cas = i0 & 1;
    uint32_t k = 0;
    for (uint32_t i = cas; i < n; i += 2)
        x[(size_t)k++ * step] = tmp[i];
    for (uint32_t i = 1 - cas; i < n; i += 2)
        x[(size_t)k++ * step] = tmp[i];
}

void tsr__fdwt53(tsr__j2k_tilecomp *tc, int32_t *tmp, size_t per_thread, int threads)
{
    for (uint32_t r = tc->numres - 1; r >= 1; r--) {
        const tsr__j2k_res *res = &tc->res[r];
        const uint32_t rw = res->x1 - res->x0, rh = res->y1 - res->y0;
        if (rw == 0 || rh == 0)
            continue;
            /* every column, then every row: independent lines (the same result at any count) */
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) if (threads > 1 && (uint64_t)rw * rh > 65536)
#endif
        {
            int32_t *t = tmp + (size_t)thread_id() * per_thread;
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
            for (uint32_t x = 0; x < rw; x++)
                analyse(tc->data + x, tc->stride, rh, res->y0, t);
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
            for (uint32_t y = 0; y < rh; y++)
                analyse(tc->data + (size_t)y * tc->stride, 1, rw, res->x0, t);
        }
    }
}

/* ---- 9/7 (F.4.8.2): the decoder's inverse (dwt.c, dwt_level.h) run backwards ------------- */
static const float ALPHA97 = -1.586134342059924f;
static const float BETA97 = -0.052980118572961f;
static const float GAMMA97 = 0.882911075530934f;
static const float DELTA97 = 0.443506852043971f;
static const float KAPPA97 = 1.230174104914001f;

static void lift97_forward(float *x, uint32_t n, uint32_t start, float c)
{
    for (uint32_t i = start; i < n; i += 2) {
        float a = i > 0 ? x[i - 1] : x[1];
        float b = i + 1 < n ? x[i + 1] : x[n - 2];
        x[i] = x[i] + c * (a + b);
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
    lift97_forward(x, n, 1 - cas, ALPHA97);
    lift97_forward(x, n, cas, BETA97);
    lift97_forward(x, n, 1 - cas, GAMMA97);
    lift97_forward(x, n, cas, DELTA97);
    const float invk = 1.0f / KAPPA97;
    for (uint32_t i = cas; i < n; i += 2)
        x[i] *= invk;
    for (uint32_t i = 1 - cas; i < n; i += 2)
        x[i] *= KAPPA97;
}

static void analyse97(float *x, size_t step, uint32_t n, uint32_t i0, float *tmp)
{
    for (uint32_t i = 0; i < n; i++)
        tmp[i] = x[i * step];
    tsr__dwt97_forward_line(tmp, n, i0);
    const uint32_t cas = i0 & 1;
    uint32_t k = 0;
    for (uint32_t i = cas; i < n; i += 2)
        x[(size_t)k++ * step] = tmp[i];
    for (uint32_t i = 1 - cas; i < n; i += 2)
        x[(size_t)k++ * step] = tmp[i];
}

void tsr__fdwt97(tsr__j2k_tilecomp *tc, float *tmp, size_t per_thread, int threads)
{
    float *data = (float *)(void *)tc->data;
    for (uint32_t r = tc->numres - 1; r >= 1; r--) {
        const tsr__j2k_res *res = &tc->res[r];
        const uint32_t rw = res->x1 - res->x0, rh = res->y1 - res->y0;
        if (rw == 0 || rh == 0)
            continue;
#ifdef _OPENMP
#pragma omp parallel num_threads(threads) if (threads > 1 && (uint64_t)rw * rh > 65536)
#endif
        {
            float *t = tmp + (size_t)thread_id() * per_thread;
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
            for (uint32_t x = 0; x < rw; x++)
                analyse97(data + x, tc->stride, rh, res->y0, t);
#ifdef _OPENMP
#pragma omp for schedule(static)
#endif
            for (uint32_t y = 0; y < rh; y++)
                analyse97(data + (size_t)y * tc->stride, 1, rw, res->x0, t);
        }
    }
}
