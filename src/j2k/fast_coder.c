/* The fast-nonstandard block coder on the host (fast_coder.h): the block's stripes one after
 * the other through fast_coder_hd.h's per-stripe encoder, its lengths in front; the decoder
 * is fast_coder_hd.h's. */
#include "j2k/fast_coder.h"

#include "j2k/fast_coder_hd.h"

#include <string.h>

size_t tsr__fns_encode_bound(uint32_t w, uint32_t h, uint32_t K)
{
    /* a decision narrows the range by at most 2^-7 (probabilities stay in [31, 2017] of 2048),
     * so at most 7/8 byte each; two decisions per coefficient and plane; per stripe 5 flush
     * bytes and a 3-byte length */
    const size_t S = (h + FNS_STRIPE_H - 1) / FNS_STRIPE_H;
    return (size_t)w * h * K * 3 + S * 8 + 16;
}

long tsr__fns_encode_block(const int32_t *coef, uint32_t w, uint32_t h, uint32_t orient, uint32_t K,
                           uint8_t *buf, size_t cap)
{
    if (!w || !h || w > TSR__T1_MAX_W || h > TSR__T1_MAX_H || (size_t)w * h > TSR__T1_MAX_AREA ||
        K < 1 || K > 31 || cap < tsr__fns_encode_bound(w, h, K))
        return -1;
    const uint32_t S = (h + FNS_STRIPE_H - 1) / FNS_STRIPE_H, head = 3 * (S - 1);
    uint8_t zc[256];
    uint32_t len[FNS_MAX_STRIPES];
    fns_zc_table(orient, zc);
    /* the segments after room for the longest header, then the header in front of them */
    size_t at = head;
    for (uint32_t s = 0; s < S; s++) {
        fns_enc e;
        fns_enc_init(&e, buf + at, cap - at);
        fns_encode_stripe(&e, coef, w, w, h, K, s, zc);
        if (e.over || e.len >= (1u << 21))
            return -1;
        len[s] = (uint32_t)e.len;
        at += e.len;
    }
    uint8_t hdr[3 * FNS_MAX_STRIPES];
    size_t n = 0;
    for (uint32_t s = 0; s + 1 < S; s++) {
        uint32_t v = len[s];
        while (v >= 0x80) {
            hdr[n++] = (uint8_t)(v | 0x80);
            v >>= 7;
        }
        hdr[n++] = (uint8_t)v;
    }
    memmove(buf + n, buf + head, at - head);
    memcpy(buf, hdr, n);
    return (long)(n + at - head);
}

size_t tsr__fns_workspace_size(void)
{
    return sizeof(fns_ws) + 16; /* room to align it */
}

int tsr__fns_decode(const tsr__t1_block *blk, void *ws, size_t ws_size, int32_t *out, size_t stride)
{
    return fns_decode_block(blk, ws, ws_size, out, stride);
}
