/* The truncation candidates of an HT code-block (contract in encode_stages.h): ht_rd_hd.h's
 * parts, shared with the device, the planes coded one after another straight into the output
 * bytes (all of a block's at once, or a plane at a time for HT rate control to a size). */
#include "j2k/encode_stages.h"
#include "j2k/ht_encode.h"
#include "j2k/ht_rd_hd.h"

_Static_assert(TSR__J2K_HT_RD_SCRATCH == 3 * 4096 + TSR__HT_REFINE_FLAGS,
               "the candidates' scratch: MEL, VLC, new significances, refinement flags");

double tsr__j2k_ht_err0(const int32_t *coef, const float *mag, uint32_t w, uint32_t h)
{
    double e0 = 0;
    for (uint32_t lane = 0; lane < TSR__J2K_HT_ERR_LANES; lane++)
        e0 += tsr__j2k_ht_err0_hd(coef, mag, w, w, h, lane);
    return e0;
}

uint32_t tsr__j2k_ht_candidates(const int32_t *coef, const float *mag, uint32_t w, uint32_t h,
                                uint32_t K, uint8_t *buf, tsr__j2k_bytes *out,
                                tsr__j2k_ht_set *sets, uint32_t *rate, double *dist, double *err0)
{
    if (!w || !h || w > 1024 || (size_t)w * h > 4096)
        return 0;
    *err0 = tsr__j2k_ht_err0(coef, mag, w, h);
    if (K < 1 || K > 30)
        return 0;
    uint32_t ns = 0;
    double prev = *err0;
    size_t len = 0;
    for (uint32_t i = 0; i < K; i++)
        if (!tsr__j2k_ht_candidates_plane(coef, mag, w, h, K - 1 - i, buf, out, sets, &ns, rate,
                                          dist, &prev, &len))
            return 0;
    return ns;
}

int tsr__j2k_ht_candidates_plane(const int32_t *coef, const float *mag, uint32_t w, uint32_t h,
                                 uint32_t p, uint8_t *buf, tsr__j2k_bytes *out,
                                 tsr__j2k_ht_set *sets, uint32_t *ns, uint32_t *rate, double *dist,
                                 double *prev, size_t *len)
{
    const size_t ccap = tsr__ht_encode_bound(w, h), rcap = tsr__ht_refine_bound(w, h);
    if (!w || !h || w > 1024 || (size_t)w * h > 4096 || p > 29 ||
        tsr__j2k_bytes_reserve(out, ccap + rcap))
        return 0;
    tsr__j2k_ht_plane pl;
    tsr__j2k_ht_plane_hd(coef, mag, w, w, h, p, ccap, rcap, tsr__ht_cw_tables(), buf,
                         out->p + out->len, &pl);
    const size_t before = *len;
    if (!tsr__j2k_ht_sets_add_hd(&pl, p, sets, ns, rate, dist, prev, len))
        return 0;
    out->len += *len - before;
    return 1;
}
