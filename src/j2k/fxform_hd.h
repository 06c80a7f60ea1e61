/* The per-sample arithmetic of the encoder's first stages, written once for the CPU (encode.c,
 * mct.c, fdwt.c) and the device (fxform_cuda.cu): the DC level shift (G.1), the forward RCT and
 * ICT of one sample (G.2, G.3), one lifting step of the forward 5/3 and 9/7 (F.4.8.2) and the
 * deadzone scalar quantisation of one 9/7 coefficient (E.1). Float expressions are single
 * operations in a fixed order; both builds keep them unfused (-ffp-contract=off for C,
 * --fmad=false for CUDA), so both backends give the same bits. The 9/7's parameters are
 * xform_hd.h's. */
#ifndef TSR_J2K_FXFORM_HD_H
#define TSR_J2K_FXFORM_HD_H

#include "core/hd.h"
#include "j2k/xform_hd.h"

#include <math.h>
#include <stdint.h>

/* DC level shift (G.1) of an unsigned sample of prec bits: v - 2^(prec - 1). */
TSR_HD int32_t tsr__j2k_level_shift1(uint32_t v, uint32_t prec)
{
    return (int32_t)v - (int32_t)(1u << (prec - 1));
}

/* Forward RCT of one sample (G-5): R, G, B in, Y = floor((R + 2G + B) / 4), U = B - G,
 * V = R - G out. */
TSR_HD void tsr__rct_forward1(int32_t r, int32_t g, int32_t b, int32_t out[3])
{
    out[0] = (r + 2 * g + b) >> 2;
    out[1] = b - g;
    out[2] = r - g;
}
/* Forward ICT of one sample (G-8, the standard's coefficients). */
TSR_HD void tsr__ict_forward1(float r, float g, float b, float out[3])
{
    out[0] = 0.299f * r + 0.587f * g + 0.114f * b;
    out[1] = -0.16875f * r - 0.33126f * g + 0.5f * b;
    out[2] = 0.5f * r - 0.41869f * g - 0.08131f * b;
}

/* 5/3, F-5: a high-pass sample d between the low-pass samples a and b (the predict step), then
 * a low-pass sample between the updated high-pass ones (the update step); arithmetic shifts
 * are floor divisions. */
TSR_HD int32_t tsr__fdwt53_predict(int32_t d, int32_t a, int32_t b)
{
    return d - ((a + b) >> 1);
}
TSR_HD int32_t tsr__fdwt53_update(int32_t d, int32_t a, int32_t b)
{
    return d + ((a + b + 2) >> 2);
}
/* 9/7, F-6: one forward step with coefficient c (ALPHA, BETA, GAMMA, DELTA in turn; then the
 * low-pass samples times 1 / KAPPA, the high-pass ones times KAPPA). */
TSR_HD float tsr__fdwt97_lift(float d, float c, float a, float b)
{
    return d + c * (a + b);
}

/* Deadzone scalar quantisation (E.1) of a 9/7 coefficient c with inv = 1 / delta (a float, as
 * the encoder computes it): sign(c) floor(|c| inv), magnitudes capped at 2^30 - 1 (NaN too).
 * *q receives |c| inv, the magnitude in steps before the floor. */
TSR_HD int32_t tsr__j2k_quantise1(float c, float inv, float *q)
{
    const float m = fabsf(c) * inv;
    const int32_t i = m < (float)(1 << 30) ? (int32_t)m : (1 << 30) - 1;
    *q = m;
    return c < 0 ? -i : i;
}

#endif
