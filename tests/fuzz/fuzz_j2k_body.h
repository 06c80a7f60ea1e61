/* The JPEG 2000 fuzz contract, shared by the libFuzzer target and its replay test: decoding any
 * bytes returns; a failure has a status other than TSR_OK and a non-empty message; a success
 * gives planes whose every sample is readable and within the plane's precision, and the same
 * pixels through the interleaved image entry where it applies, in fuzz_ctx.h's context (at most
 * 1<<20 pixels). Returns 0, or 1 when the contract was broken (the caller aborts or counts). */
#ifndef TSR_FUZZ_J2K_BODY_H
#define TSR_FUZZ_J2K_BODY_H

#include "fuzz_ctx.h"

#include <string.h>

/* tsr_j2k_decode_rows' sink in the contract: the rows must come in order, once each, equal to
 * the image's (img); a mismatch is counted in bad and stops the decode. */
typedef struct tsr_fuzz_j2k_rows {
    const tsr_image *img;
    uint32_t next; /* the next row expected */
    int bad;
} tsr_fuzz_j2k_rows;

static int tsr_fuzz_j2k_sink(void *user, const void *rows, size_t stride, uint32_t y,
                             uint32_t count)
{
    tsr_fuzz_j2k_rows *r = (tsr_fuzz_j2k_rows *)user;
    const size_t row_bytes =
        (size_t)r->img->width * (size_t)r->img->channels * (r->img->depth == TSR_U16 ? 2 : 1);
    if (y != r->next || count < 1 || y + count > (uint32_t)r->img->height)
        r->bad = 1;
    for (uint32_t i = 0; i < count && !r->bad; i++)
        if (memcmp((const uint8_t *)rows + (size_t)i * stride,
                   (const uint8_t *)r->img->data + (size_t)(y + i) * r->img->stride, row_bytes))
            r->bad = 1;
    r->next = y + count;
    return r->bad;
}

/* After a successful planes decode: the interleaved image entry (tsr_j2k_decode_image) must
 * decode too where its layout makes an image, into the pixels j2k.h's rule makes of the planes,
 * and its layout must refuse only with a message; the row entry (tsr_j2k_decode_rows) must give
 * that image's rows, in order, each once. Returns 1 when the contract was broken. */
static int tsr_fuzz_j2k_image(tsr_ctx *ctx, const uint8_t *data, size_t size,
                              const tsr_j2k_decode_options *o, const tsr_j2k_plane *p, uint32_t n)
{
    tsr_image img;
    if (tsr_j2k_decode_image_layout(ctx, data, size, o, &img) != TSR_OK)
        return !tsr_ctx_last_error(ctx)[0];
    if ((uint32_t)img.channels != n ||
        tsr_image_alloc(ctx, &img, img.width, img.height, img.channels, img.depth) != TSR_OK)
        return (uint32_t)img.channels != n;
    int bad = tsr_j2k_decode_image(ctx, data, size, o, &img, NULL) != TSR_OK;
    const int wide = img.depth == TSR_U16;
    for (int32_t y = 0; y < img.height && !bad; y++)
        for (int32_t x = 0; x < img.width; x++)
            for (uint32_t c = 0; c < n; c++) {
                const uint64_t m = wide ? 65535 : 255, den = ((uint64_t)1 << p[c].precision) - 1;
                const int64_t off = p[c].is_signed ? (int64_t)1 << (p[c].precision - 1) : 0;
                const uint64_t v = (uint64_t)(p[c].data[(size_t)y * p[c].stride + (size_t)x] + off);
                const size_t at = (size_t)y * img.stride / (wide ? 2 : 1) + (size_t)x * n + c;
                const uint32_t got =
                    wide ? ((const uint16_t *)img.data)[at] : ((const uint8_t *)img.data)[at];
                if (got != (v * m * 2 + den) / (2 * den))
                    bad = 1;
            }
    if (!bad) {
        tsr_fuzz_j2k_rows rows = {&img, 0, 0};
        bad = tsr_j2k_decode_rows(ctx, data, size, o, tsr_fuzz_j2k_sink, &rows, NULL) != TSR_OK ||
              rows.bad || rows.next != (uint32_t)img.height;
    }
    tsr_image_free(ctx, &img);
    return bad;
}

static int tsr_fuzz_j2k_one(const uint8_t *data, size_t size)
{
    /* 1<<20 pixels: an image this size is decoded three times (planes, image, rows), which at
     * the limit of the others takes 10-13 s under ASan at -O1 for a 1 KB stream of empty blocks
     * (0.5 s in a release build): a libFuzzer timeout, not a fault */
    tsr_ctx *ctx = tsr_fuzz_ctx_pixels((uint64_t)1 << 20);
    if (!ctx)
        return 1;
    int bad = 0;
    tsr_j2k_info info;
    tsr_status st = tsr_j2k_read_header(ctx, data, size, &info, NULL, 0);
    if (st != TSR_OK && !tsr_ctx_last_error(ctx)[0])
        bad = 1;
    for (int pass = 0; pass < 2 && !bad; pass++) {
        tsr_j2k_decode_options o;
        tsr_j2k_decode_options_init(&o);
        if (pass == 1) {
            /* a reduced, layer-limited region of what decoded */
            if (st != TSR_OK || info.levels == 0)
                break;
            o.reduce = 1;
            o.layers = 1;
            o.region_x = info.width / 4;
            o.region_y = info.height / 4;
            o.region_w = info.width / 2 + 1;
            o.region_h = info.height / 2 + 1;
        }
        tsr_j2k_plane *planes = NULL;
        uint32_t n = 0;
        tsr_j2k_result res;
        st = tsr_j2k_decode_alloc(ctx, data, size, &o, &planes, &n, &res);
        if (st == TSR_OK) {
            for (uint32_t i = 0; i < n; i++) {
                int64_t lo = planes[i].is_signed ? -((int64_t)1 << (planes[i].precision - 1)) : 0;
                int64_t hi = planes[i].is_signed ? ((int64_t)1 << (planes[i].precision - 1)) - 1
                                                 : ((int64_t)1 << planes[i].precision) - 1;
                for (uint32_t y = 0; y < planes[i].height; y++)
                    for (uint32_t x = 0; x < planes[i].width; x++) {
                        int32_t v = planes[i].data[(size_t)y * planes[i].stride + x];
                        if (v < lo || v > hi)
                            bad = 1;
                    }
            }
            if (!bad)
                bad = tsr_fuzz_j2k_image(ctx, data, size, &o, planes, n);
            tsr_j2k_planes_free(ctx, planes, n);
        } else if (!tsr_ctx_last_error(ctx)[0]) {
            bad = 1;
        }
    }
    tsr_ctx_destroy(ctx);
    return bad;
}

#endif
