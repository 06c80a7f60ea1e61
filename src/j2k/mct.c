/* Multiple-component transforms (T.800 Annex G). Inverse: the reversible colour transform (RCT,
 * G.2, exact integers) and the irreversible one (ICT, G.3, float with the standard's
 * coefficients); components 0, 1, 2 are Y, Cb (U), Cr (V) in and R, G, B out, in place.
 * Forward: the RCT, its exact inverse. */
#include "j2k/decode_stages.h"
#include "j2k/encode_stages.h"

void tsr__mct_rct_inverse(int32_t *c0, int32_t *c1, int32_t *c2, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int32_t y = c0[i], u = c1[i], v = c2[i];
        int32_t g = y - ((u + v) >> 2); /* floor((U + V) / 4), G-6 */
        c0[i] = v + g;
        c1[i] = g;
        c2[i] = u + g;
    }
}

void tsr__mct_ict_inverse(float *c0, float *c1, float *c2, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float y = c0[i], u = c1[i], v = c2[i];
        c0[i] = y + 1.402f * v;
        c1[i] = y - 0.34413f * u - 0.71414f * v;
        c2[i] = y + 1.772f * u;
    }
}

void tsr__mct_rct_forward(int32_t *c0, int32_t *c1, int32_t *c2, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const int32_t r = c0[i], g = c1[i], b = c2[i];
        c0[i] = (r + 2 * g + b) >> 2;
        c1[i] = b - g;
        c2[i] = r - g;
    }
}

void tsr__mct_ict_forward(float *c0, float *c1, float *c2, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const float r = c0[i], g = c1[i], b = c2[i];
        c0[i] = 0.299f * r + 0.587f * g + 0.114f * b;
        c1[i] = -0.16875f * r - 0.33126f * g + 0.5f * b;
        c2[i] = 0.5f * r - 0.41869f * g - 0.08131f * b;
    }
}
