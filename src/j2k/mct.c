/* Multiple-component transforms (T.800 Annex G). Inverse: the reversible colour transform (RCT,
 * G.2, exact integers) and the irreversible one (ICT, G.3, float with the standard's
 * coefficients); components 0, 1, 2 are Y, Cb (U), Cr (V) in and R, G, B out, in place.
 * Forward: the RCT, its exact inverse. The inverses of one sample are xform_hd.h's. */
#include "j2k/decode_stages.h"
#include "j2k/encode_stages.h"
#include "j2k/xform_hd.h"

void tsr__mct_rct_inverse(int32_t *c0, int32_t *c1, int32_t *c2, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int32_t rgb[3];
        tsr__rct_inverse1(c0[i], c1[i], c2[i], rgb);
        c0[i] = rgb[0];
        c1[i] = rgb[1];
        c2[i] = rgb[2];
    }
}

void tsr__mct_ict_inverse(float *c0, float *c1, float *c2, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float rgb[3];
        tsr__ict_inverse1(c0[i], c1[i], c2[i], rgb);
        c0[i] = rgb[0];
        c1[i] = rgb[1];
        c2[i] = rgb[2];
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
