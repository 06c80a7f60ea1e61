/* The per-sample arithmetic of the decoder's last stages, written once for the CPU (dwt_level.h,
 * mct.c, store_row.h, pixels.c) and the device (xform_cuda.cu): one lifting step of the inverse
 * 5/3 and 9/7 (T.800 F.3.8), the inverse RCT and ICT of one sample (G.2, G.3), the store rule of
 * one sample (DC level shift, rounding, clamping) and the scaling of one stored sample to an
 * 8- or 16-bit pixel. Float expressions are single operations in a fixed order; both builds
 * keep them unfused (-ffp-contract=off for C, --fmad=false for CUDA), so both backends give the
 * same bits. */
#ifndef TSR_J2K_XFORM_HD_H
#define TSR_J2K_XFORM_HD_H

#include "core/hd.h"

#include <math.h>
#include <stdint.h>

/* Standard 9/7 lifting parameters (T.800 Table F.4). */
#define TSR__DWT97_ALPHA (-1.586134342059924f)
#define TSR__DWT97_BETA (-0.052980118572961f)
#define TSR__DWT97_GAMMA 0.882911075530934f
#define TSR__DWT97_DELTA 0.443506852043971f
#define TSR__DWT97_KAPPA 1.230174104914001f
#define TSR__DWT97_INVK (1.0f / TSR__DWT97_KAPPA)

/* 5/3, F-8: a low-pass sample d between the high-pass samples a and b, then a high-pass sample
 * between the updated low-pass ones (arithmetic shifts: floor divisions). */
TSR_HD int32_t tsr__dwt53_lift_low(int32_t d, int32_t a, int32_t b)
{
    return d - ((a + b + 2) >> 2);
}
TSR_HD int32_t tsr__dwt53_lift_high(int32_t d, int32_t a, int32_t b)
{
    return d + ((a + b) >> 1);
}
/* 9/7, F-9: one step with coefficient c (DELTA, GAMMA, BETA, ALPHA in turn). */
TSR_HD float tsr__dwt97_lift(float d, float c, float a, float b)
{
    return d - c * (a + b);
}

/* Inverse RCT of one sample (G-6): Y, U, V in, R, G, B out. */
TSR_HD void tsr__rct_inverse1(int32_t y, int32_t u, int32_t v, int32_t out[3])
{
    const int32_t g = y - ((u + v) >> 2); /* floor((U + V) / 4) */
    out[0] = v + g;
    out[1] = g;
    out[2] = u + g;
}
/* Inverse ICT of one sample (G.3, the standard's coefficients). */
TSR_HD void tsr__ict_inverse1(float y, float u, float v, float out[3])
{
    out[0] = y + 1.402f * v;
    out[1] = y - 0.34413f * u - 0.71414f * v;
    out[2] = y + 1.772f * u;
}

/* Store rule of an integer sample: clamped to [clo, chi] = [lo, hi] - shift, then shifted by sh
 * (the same as clamping the shifted value to [lo, hi]; all within int32). */
TSR_HD int32_t tsr__store_int1(int32_t q, int32_t clo, int32_t chi, int32_t sh)
{
    q = q < clo ? clo : q;
    q = q > chi ? chi : q;
    return q + sh;
}
/* Whether a float plan can use tsr__store_float_near1 (its bounds within +-2^22). */
TSR_HD int tsr__store_float_is_near(int64_t lo, int64_t hi)
{
    return hi < (1 << 22) && lo > -(1 << 22);
}
/* Store rule of a float sample when tsr__store_float_is_near: NaN to 0, clamped to
 * [flo, fhi] = [lo, hi] - shift in float, rounded to nearest even by adding and subtracting
 * 1.5 * 2^23 (exact for |v| < 2^22, lrintf's result), shifted by sh. */
TSR_HD int32_t tsr__store_float_near1(float v, float flo, float fhi, int32_t sh)
{
    const float magic = 12582912.0f;
    v = v == v ? v : 0.0f;
    v = v > fhi ? fhi : v;
    v = v < flo ? flo : v;
    v = (v + magic) - magic;
    return (int32_t)v + sh;
}
/* Store rule of a float sample for any bounds: NaN to 0, beyond +-4e9 to the bound, else
 * rounded to nearest even (lrintf), shifted, clamped to [lo, hi]. */
TSR_HD int32_t tsr__store_float_far1(float v, int64_t lo, int64_t hi, int64_t shift)
{
    int64_t q;
    if (!(v == v))
        q = 0;
    else if (v > 4e9f)
        q = hi;
    else if (v < -4e9f)
        q = lo;
    else
        q = (int64_t)lrintf(v);
    q += shift;
    return (int32_t)(q < lo ? lo : q > hi ? hi : q);
}

/* A stored sample s of a channel to its pixel value: (s + off) * num / den rounded to nearest,
 * halves up (pixels.c states the rule; num / den = maxval / (2^p - 1)). */
TSR_HD uint32_t tsr__pixel_scale1(int32_t s, int32_t off, uint64_t num, uint64_t den)
{
    const uint64_t v = (uint64_t)(uint32_t)(s + off);
    return (uint32_t)((v * num + den / 2) / den);
}

#endif
