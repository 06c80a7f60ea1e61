/* WebP decoding and encoding through libwebp (1.2).
 *
 * Decoding: a still image (lossy VP8 or lossless VP8L, with or without an ALPH chunk) gives
 * 8-bit RGB, or RGBA where the file says it has alpha; animations are TSR_ERR_UNSUPPORTED. The
 * size is read from the header (WebPGetFeatures) and checked against the context's limits
 * before the image is allocated; libwebp then decodes straight into it.
 *
 * Encoding: lossless by default (quality 0) with `exact` set, so that every sample comes back
 * as written, also the colour under fully transparent pixels (libwebp otherwise changes it);
 * quality 1..100 is libwebp's lossy encoder at that quality. Method 4 (libwebp's default). */
#include "io/codecs.h"

#include "core/checked.h"
#include "core/ctx.h"

#include <string.h>
#include <webp/decode.h>
#include <webp/encode.h>

tsr_status tsr__webp_decode(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr_image *out)
{
    WebPBitstreamFeatures f;
    VP8StatusCode vs = WebPGetFeatures(data, len, &f);
    if (vs == VP8_STATUS_NOT_ENOUGH_DATA)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "WebP: truncated header");
    if (vs != VP8_STATUS_OK)
        return tsr__fail(
            ctx, vs == VP8_STATUS_UNSUPPORTED_FEATURE ? TSR_ERR_UNSUPPORTED : TSR_ERR_CORRUPT,
            "WebP: %s header (libwebp status %d)",
            vs == VP8_STATUS_UNSUPPORTED_FEATURE ? "unsupported" : "malformed", (int)vs);
    if (f.has_animation)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "WebP: animations are not supported");
    if (f.width <= 0 || f.height <= 0)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "WebP: size %dx%d in header", f.width, f.height);
    tsr_status st = tsr__image_check_pixels(ctx, "WebP: ", (uint64_t)f.width, (uint64_t)f.height);
    if (st != TSR_OK)
        return st;
    int ch = f.has_alpha ? 4 : 3;
    tsr_image img;
    if ((st = tsr_image_alloc(ctx, &img, f.width, f.height, ch, TSR_U8)) != TSR_OK)
        return st;
    size_t size = img.stride * (size_t)img.height; /* allocated, so it fits */
    uint8_t *got = ch == 4 ? WebPDecodeRGBAInto(data, len, img.data, size, (int)img.stride)
                           : WebPDecodeRGBInto(data, len, img.data, size, (int)img.stride);
    if (!got) {
        tsr_image_free(ctx, &img);
        return tsr__fail(ctx, TSR_ERR_CORRUPT,
                         "WebP: cannot decode the image (truncated or "
                         "malformed data)");
    }
    *out = img;
    return TSR_OK;
}

tsr_status tsr__webp_encode(tsr_ctx *ctx, const tsr_image *img, int quality, tsr__atomic_file *af)
{
    if (img->stride > (size_t)INT32_MAX)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "WebP: rows of %zu bytes are too long",
                         img->stride);
    WebPConfig config;
    WebPPicture pic;
    if (!WebPConfigInit(&config) || !WebPPictureInit(&pic))
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "WebP: libwebp version mismatch");
    if (quality == 0) {
        config.lossless = 1;
        config.exact = 1;
        config.quality = 75; /* lossless effort, libwebp's default */
    } else {
        config.quality = (float)quality;
    }
    pic.use_argb = 1;
    pic.width = img->width;
    pic.height = img->height;
    WebPMemoryWriter w;
    WebPMemoryWriterInit(&w);
    pic.writer = WebPMemoryWrite;
    pic.custom_ptr = &w;
    int ok = img->channels == 4 ? WebPPictureImportRGBA(&pic, img->data, (int)img->stride)
                                : WebPPictureImportRGB(&pic, img->data, (int)img->stride);
    tsr_status st = TSR_OK;
    if (!ok)
        st = tsr__fail(ctx, TSR_ERR_OUT_OF_MEMORY, "WebP: out of memory for the picture");
    else if (!WebPEncode(&config, &pic))
        st = tsr__fail(ctx,
                       pic.error_code == VP8_ENC_ERROR_OUT_OF_MEMORY ? TSR_ERR_OUT_OF_MEMORY
                                                                     : TSR_ERR_INTERNAL,
                       "WebP: encoding failed (libwebp error %d)", (int)pic.error_code);
    if (st == TSR_OK)
        st = tsr__atomic_write(ctx, af, w.mem, w.size);
    WebPPictureFree(&pic);
    WebPMemoryWriterClear(&w);
    return st;
}
