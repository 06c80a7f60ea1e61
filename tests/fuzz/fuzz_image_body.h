/* The image readers' fuzz contract, shared by the libFuzzer target and the replay test:
 * tsr_image_decode on any bytes returns; a failure has a status other than TSR_OK (and not an
 * internal error) and a non-empty message; a success gives an image that passes tsr_image_check
 * and whose every row is readable (a short buffer shows up under ASan). Returns 0, or 1 when the
 * contract was broken (the caller aborts or counts). */
#ifndef TSR_FUZZ_IMAGE_BODY_H
#define TSR_FUZZ_IMAGE_BODY_H

#include "fuzz_ctx.h"

static int tsr_fuzz_image_one(const uint8_t *data, size_t size)
{
    tsr_ctx *ctx = tsr_fuzz_ctx();
    if (!ctx)
        return 1;
    tsr_image img;
    tsr_format format;
    int bad = 0;
    tsr_status st = tsr_image_decode(ctx, data, size, &img, &format);
    if (st == TSR_OK) {
        bad = tsr_image_check(ctx, &img) != TSR_OK;
        volatile uint8_t sum = 0;
        size_t row = (size_t)img.width * (size_t)img.channels * tsr_depth_size(img.depth);
        for (int32_t y = 0; y < img.height && !bad; y++) {
            const uint8_t *p = (const uint8_t *)img.data + (size_t)y * img.stride;
            sum ^= p[0];
            sum ^= p[row - 1];
        }
        (void)sum;
        tsr_image_free(ctx, &img);
    } else {
        const char *msg = tsr_ctx_last_error(ctx);
        bad = !msg || !msg[0] || st == TSR_ERR_INTERNAL;
    }
    tsr_ctx_destroy(ctx);
    return bad;
}

#endif
