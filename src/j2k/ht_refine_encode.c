/* HT refinement passes encoding (T.814 7.4, 7.5; contract in ht_encode.h): SigProp and MagRef
 * of plane p - 1 after a cleanup pass at p, in ht_decode.c's scan orders, written as its
 * sigprop() and magref() read them. SigProp (7.1.5): forward, little-endian bits, 7 bits after
 * a 0xFF byte, the last byte padded with 0 (the reader's fill). MagRef (7.1.6): from the
 * segment's end backward, little-endian bits, 7 bits in a byte whose low 7 bits are all 1 after
 * one above 0x8F (the reader starts as after 0xFF), the last byte padded with 0. */
#include "j2k/ht_encode.h"

#include "j2k/ht_write.h"

#include <string.h>

enum { RF_SIG = 1, RF_NEW = 2 }; /* significant at p; made significant by SigProp */

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
    /* flags with a border of one zero sample: at most 3 x 4098 (w = 1) */
    uint8_t fl[3 * 4098];
    const size_t S = w + 2;
    memset(fl, 0, S * (h + 2));
    uint8_t *f0 = fl + S + 1;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            const int32_t v = coef[(size_t)y * w + x];
            const uint32_t m = v < 0 ? (uint32_t)-v : (uint32_t)v;
            f0[y * S + x] = (m >> p) ? RF_SIG : 0;
        }
    if (newsig)
        memset(newsig, 0, (size_t)w * h);
    const uint32_t b = p - 1;

    fwd_wr sp = {buf, 0, cap, 0, 0, 8, 0};
    for (uint32_t y0 = 0; y0 < h; y0 += 4) {
        const uint32_t y1 = y0 + 4 < h ? y0 + 4 : h;
        for (uint32_t x0 = 0; x0 < w; x0 += 4) {
            const uint32_t x1 = x0 + 4 < w ? x0 + 4 : w;
            for (uint32_t x = x0; x < x1; x++)
                for (uint32_t y = y0; y < y1; y++) {
                    uint8_t *f = f0 + y * S + x;
                    if (*f & RF_SIG)
                        continue;
                    const uint32_t nb = f[-(ptrdiff_t)S - 1] | f[-(ptrdiff_t)S] |
                                        f[-(ptrdiff_t)S + 1] | f[-1] | f[1] | f[S - 1] | f[S] |
                                        f[S + 1];
                    if (!nb)
                        continue;
                    const int32_t v = coef[(size_t)y * w + x];
                    const uint32_t bit = ((v < 0 ? (uint32_t)-v : (uint32_t)v) >> b) & 1;
                    fwd_put(&sp, bit, 1);
                    if (bit) {
                        *f |= RF_NEW;
                        if (newsig)
                            newsig[(size_t)y * w + x] = 1;
                    }
                }
            for (uint32_t x = x0; x < x1; x++)
                for (uint32_t y = y0; y < y1; y++)
                    if (f0[y * S + x] & RF_NEW)
                        fwd_put(&sp, coef[(size_t)y * w + x] < 0, 1);
        }
    }
    if (sp.nb)
        fwd_byte(&sp, sp.tmp);
    size_t len = sp.len;
    if (sp_len)
        *sp_len = sp.len;
    if (magref) {
        /* MagRef's bytes are written after SigProp's in the order made, then reversed */
        bwd_wr mr = {buf + len, 0, cap - len, 0, 0, 0xFF, 0};
        for (uint32_t y0 = 0; y0 < h; y0 += 4) {
            const uint32_t y1 = y0 + 4 < h ? y0 + 4 : h;
            for (uint32_t x = 0; x < w; x++)
                for (uint32_t y = y0; y < y1; y++)
                    if (f0[y * S + x] & RF_SIG) {
                        const int32_t v = coef[(size_t)y * w + x];
                        bwd_put(&mr, ((v < 0 ? (uint32_t)-v : (uint32_t)v) >> b) & 1, 1);
                    }
        }
        bwd_end(&mr);
        if (mr.over)
            return -1;
        for (size_t i = 0; i < mr.len / 2; i++) {
            const uint8_t t = mr.p[i];
            mr.p[i] = mr.p[mr.len - 1 - i];
            mr.p[mr.len - 1 - i] = t;
        }
        len += mr.len;
    }
    return sp.over ? -1 : (long)len;
}
