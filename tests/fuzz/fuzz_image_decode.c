/* libFuzzer target: tsr_image_decode on arbitrary bytes.
 *
 * Contract checked: every input returns (no crash, leak, hang or sanitizer report); a failure
 * carries a status other than TSR_OK and a non-empty message; a success gives an image that
 * passes tsr_image_check and whose every byte is readable. Limits keep single inputs cheap:
 * 1<<22 pixels, 64 MB per allocation. */
#include "tessera/tessera.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    opt.backend = TSR_BACKEND_REFERENCE;
    opt.max_image_pixels = (uint64_t)1 << 22;
    opt.max_memory = (uint64_t)64 << 20;
    tsr_ctx *ctx = NULL;
    if (tsr_ctx_create(&opt, &ctx) != TSR_OK)
        abort();
    tsr_image img;
    tsr_format format;
    tsr_status st = tsr_image_decode(ctx, data, size, &img, &format);
    if (st == TSR_OK) {
        if (tsr_image_check(ctx, &img) != TSR_OK)
            abort();
        /* touch every row so that a short buffer shows up under ASan */
        volatile uint8_t sum = 0;
        size_t row = (size_t)img.width * (size_t)img.channels * tsr_depth_size(img.depth);
        for (int32_t y = 0; y < img.height; y++) {
            const uint8_t *p = (const uint8_t *)img.data + (size_t)y * img.stride;
            sum ^= p[0];
            sum ^= p[row - 1];
        }
        (void)sum;
        tsr_image_free(ctx, &img);
    } else {
        const char *msg = tsr_ctx_last_error(ctx);
        if (!msg || !msg[0])
            abort();
    }
    tsr_ctx_destroy(ctx);
    return 0;
}
