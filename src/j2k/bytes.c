/* Growable output bytes (encode_stages.h). */
#include "j2k/encode_stages.h"

#include <string.h>

void tsr__j2k_bytes_init(tsr__j2k_bytes *b, tsr_ctx *ctx)
{
    memset(b, 0, sizeof *b);
    b->ctx = ctx;
}

void tsr__j2k_bytes_free(tsr__j2k_bytes *b)
{
    tsr__free(b->ctx, b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

int tsr__j2k_bytes_reserve(tsr__j2k_bytes *b, size_t more)
{
    if (b->st)
        return -1;
    size_t need;
    if (!tsr__size_add(b->len, more, &need)) {
        b->st = tsr__fail(b->ctx, TSR_ERR_OVERFLOW, "j2k encode: output size overflows");
        return -1;
    }
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) {
            cap = need;
            break;
        }
        cap *= 2;
    }
    uint8_t *p;
    if ((b->st = tsr__alloc(b->ctx, cap, (void **)&p)))
        return -1;
    if (b->len)
        memcpy(p, b->p, b->len);
    tsr__free(b->ctx, b->p);
    b->p = p;
    b->cap = cap;
    return 0;
}

void tsr__j2k_bytes_put(tsr__j2k_bytes *b, const void *data, size_t n)
{
    if (n == 0 || tsr__j2k_bytes_reserve(b, n))
        return;
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

void tsr__j2k_bytes_u16(tsr__j2k_bytes *b, uint32_t v)
{
    uint8_t c[2] = {(uint8_t)(v >> 8), (uint8_t)v};
    tsr__j2k_bytes_put(b, c, 2);
}

void tsr__j2k_bytes_u32(tsr__j2k_bytes *b, uint32_t v)
{
    uint8_t c[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    tsr__j2k_bytes_put(b, c, 4);
}

void tsr__j2k_bytes_set32(tsr__j2k_bytes *b, size_t off, uint32_t v)
{
    if (b->st || off + 4 > b->len)
        return;
    b->p[off] = (uint8_t)(v >> 24);
    b->p[off + 1] = (uint8_t)(v >> 16);
    b->p[off + 2] = (uint8_t)(v >> 8);
    b->p[off + 3] = (uint8_t)v;
}
