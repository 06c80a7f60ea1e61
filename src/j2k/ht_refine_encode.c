/* HT refinement passes encoding (T.814 7.4, 7.5; contract in ht_encode.h): the bound, and
 * ht_rd_hd.h's encoder (shared with the device) behind the limits' checks. */
#include "j2k/ht_encode.h"

#include "j2k/ht_rd_hd.h"

size_t tsr__ht_refine_bound(uint32_t w, uint32_t h)
{
    /* SigProp: at most 2 bits a sample, MagRef 1; 8/7 for stuffing, a padded byte each */
    return (size_t)w * h * 3 / 7 + 8;
}

long tsr__ht_encode_refine(const int32_t *coef, uint32_t w, uint32_t h, uint32_t p, int magref,
                           uint8_t *buf, size_t cap, uint8_t *newsig, size_t *sp_len)
{
    if (!w || !h || w > 1024 || (size_t)w * h > 4096 || p == 0 || p > 30 ||
        cap < tsr__ht_refine_bound(w, h))
        return -1;
    uint8_t fl[TSR__HT_REFINE_FLAGS];
    return tsr__ht_encode_refine_hd(coef, w, w, h, p, magref, buf, cap, newsig, sp_len, fl);
}
