/* Multiple-component transforms (T.800 Annex G). Inverse: the reversible colour transform (RCT,
 * G.2, exact integers) and the irreversible one (ICT, G.3, float with the standard's
 * coefficients); components 0, 1, 2 are Y, Cb (U), Cr (V) in and R, G, B out, in place.
 * Forward: the RCT, its exact inverse, and the ICT. The inverses of one sample are xform_hd.h's,
 * the forward transforms fxform_hd.h's. */
#include "j2k/decode_stages.h"
#include "j2k/encode_stages.h"
#include "j2k/fxform_hd.h"
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
        int32_t yuv[3];
        tsr__rct_forward1(c0[i], c1[i], c2[i], yuv);
        c0[i] = yuv[0];
        c1[i] = yuv[1];
        c2[i] = yuv[2];
    }
}

void tsr__mct_ict_forward(float *c0, float *c1, float *c2, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        float yuv[3];
        tsr__ict_forward1(c0[i], c1[i], c2[i], yuv);
        c0[i] = yuv[0];
        c1[i] = yuv[1];
        c2[i] = yuv[2];
    }
}
