/* The truncation candidates of an HT code-block (contract in encode_stages.h): ht_rd_hd.h's,
 * shared with the device, written straight into the output bytes. */
#include "j2k/encode_stages.h"
#include "j2k/ht_encode.h"
#include "j2k/ht_rd_hd.h"

_Static_assert(TSR__J2K_HT_RD_SCRATCH == 3 * 4096 + TSR__HT_REFINE_FLAGS,
               "the candidates' scratch: MEL, VLC, new significances, refinement flags");

uint32_t tsr__j2k_ht_candidates(const int32_t *coef, const float *mag, uint32_t w, uint32_t h,
                                uint32_t K, uint8_t *buf, tsr__j2k_bytes *out,
                                tsr__j2k_ht_set *sets, uint32_t *rate, double *dist, double *err0)
{
    const size_t ccap = tsr__ht_encode_bound(w, h), rcap = tsr__ht_refine_bound(w, h);
    const size_t cap = (size_t)(K < 30 ? K : 30) * (ccap + rcap);
    if (!w || !h || w > 1024 || (size_t)w * h > 4096 || tsr__j2k_bytes_reserve(out, cap))
        return 0;
    size_t used;
    const uint32_t ns =
        tsr__j2k_ht_candidates_hd(coef, mag, w, w, h, K, ccap, rcap, tsr__ht_cw_tables(), buf,
                                  out->p + out->len, cap, &used, sets, rate, dist, err0);
    if (ns)
        out->len += used;
    return ns;
}
