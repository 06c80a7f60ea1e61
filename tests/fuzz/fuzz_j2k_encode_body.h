/* The JPEG 2000 encoder's fuzz contract, shared by the libFuzzer target and its replay test.
 * The input chooses the options, rate control's targets among them, and a small image: its
 * first FUZZ_ENC_HEAD bytes are read as below (any value, valid or not), the rest are the
 * samples (cycled; zeros when there are none). Encoding returns; a failure leaves no output
 * (data NULL, len 0) and a message; a success gives a stream that reads back with the image's
 * size, components and precision and decodes without a warning, to the input exactly when its
 * last layer holds every pass of a lossless encode, within the last rate's bytes when the
 * encoder did not say that the markers alone exceed it (result.rate_short). In fuzz_ctx.h's
 * context (single-threaded reference backend, 64 MB per allocation). Returns 0, or 1 when the
 * contract was broken (the caller aborts or counts). */
#ifndef TSR_FUZZ_J2K_ENCODE_BODY_H
#define TSR_FUZZ_J2K_ENCODE_BODY_H

#include "fuzz_ctx.h"

#include <math.h>
#include <string.h>

enum { FUZZ_ENC_HEAD = 24 };

/* The options and the image's shape from the head h[0 .. FUZZ_ENC_HEAD - 1]. */
static void tsr_fuzz_enc_options(const uint8_t *h, tsr_j2k_encode_options *o, int32_t *w,
                                 int32_t *ht, int *channels, int *wide)
{
    tsr_j2k_encode_options_init(o);
    *w = 1 + h[0] % 48;
    *ht = 1 + h[1] % 48;
    *channels = 1 + h[2] % 4;
    *wide = h[2] >> 7 & 1;
    o->lossless = h[3] & 1;
    o->ht = h[3] >> 1 & 1;
    o->sop = h[3] >> 2 & 1;
    o->eph = h[3] >> 3 & 1;
    o->plt = h[3] >> 4 & 1;
    o->tlm = h[3] >> 5 & 1;
    o->container = (tsr_j2k_container)(h[3] >> 6); /* 3: not a container */
    o->levels = (int)(h[4] % 12) - 1;
    o->cblk_width = 1u << (h[5] % 12);
    o->cblk_height = 1u << (h[5] / 12 % 12);
    o->order = (tsr_j2k_progression)(h[6] % 6);
    o->tile_parts = (tsr_j2k_tile_parts)(h[6] / 6 % 5);
    o->layers = h[7] % 8;
    if (h[8] & 1) {
        o->tile_width = 1 + h[9] % 40;
        o->tile_height = 1 + h[10] % 40;
    }
    if (h[8] & 2) { /* offsets, valid or not */
        o->x0 = h[9] * 37u;
        o->y0 = h[10] * 11u;
        o->tile_x0 = o->x0 - h[11] % 8; /* may wrap: an invalid origin */
        o->tile_y0 = o->y0 > 3 ? o->y0 - 3 : 0;
    }
    o->num_precincts = h[8] >> 2 & 3;
    for (uint32_t i = 0; i < o->num_precincts; i++) {
        o->precinct_width[i] = 1u << (h[12 + i] % 16);
        o->precinct_height[i] = 1u << (h[12 + i] / 16 % 16);
    }
    o->quant_step = (float)(h[15] + 1) / 256.0f;
    /* rate control's targets: rates in bits per pixel, or PSNR targets, 0 to 3 of them,
     * ascending or not, negative or beyond every limit where the bytes say so */
    const uint32_t n = h[16] % 4;
    const int psnr = h[16] >> 2 & 1;
    for (uint32_t i = 0; i < n; i++) {
        const int8_t raw = (int8_t)h[17 + i];
        const double v = psnr ? 10 + raw / 2.0 : ldexp(raw, -4);
        if (psnr)
            o->psnrs[o->num_psnrs++] = v;
        else
            o->rates[o->num_rates++] = v;
    }
    o->mode = h[20] % 7 == 0 ? TSR_J2K_MODE_FAST_NONSTANDARD : TSR_J2K_MODE_STANDARD;
}

/* Whether the decode of a successful encode keeps the contract: reads back, decodes without a
 * warning, equals the input where the last layer is lossless. 1 when it does not. */
static int tsr_fuzz_enc_decoded(tsr_ctx *ctx, const tsr_image *img, const uint8_t *data, size_t len,
                                int exact)
{
    tsr_j2k_info info;
    tsr_j2k_component comps[4];
    if (tsr_j2k_read_header(ctx, data, len, &info, comps, 4) != TSR_OK ||
        info.width != (uint32_t)img->width || info.height != (uint32_t)img->height ||
        info.num_components != (uint32_t)img->channels ||
        comps[0].precision != (img->depth == TSR_U16 ? 16u : 8u))
        return 1;
    tsr_image out;
    if (tsr_image_alloc(ctx, &out, img->width, img->height, img->channels, img->depth) != TSR_OK)
        return 1;
    memset(out.data, 0xA5, out.stride * (size_t)out.height);
    tsr_j2k_result res;
    int bad = tsr_j2k_decode_image(ctx, data, len, NULL, &out, &res) != TSR_OK || res.warnings ||
              res.truncated;
    const size_t row = (size_t)img->width * (size_t)img->channels * (img->depth == TSR_U16 ? 2 : 1);
    for (int32_t y = 0; y < img->height && exact && !bad; y++)
        bad = memcmp((const uint8_t *)img->data + (size_t)y * img->stride,
                     (const uint8_t *)out.data + (size_t)y * out.stride, row) != 0;
    tsr_image_free(ctx, &out);
    return bad;
}

static int tsr_fuzz_j2k_encode_one(const uint8_t *data, size_t size)
{
    uint8_t head[FUZZ_ENC_HEAD];
    memset(head, 0, sizeof head);
    memcpy(head, data, size < sizeof head ? size : sizeof head);
    const uint8_t *samples = size > sizeof head ? data + sizeof head : NULL;
    const size_t nsamples = size > sizeof head ? size - sizeof head : 0;
    tsr_j2k_encode_options o;
    int32_t w, h;
    int channels, wide;
    tsr_fuzz_enc_options(head, &o, &w, &h, &channels, &wide);
    tsr_j2k_encode_result result;
    o.result = &result;
    tsr_ctx *ctx = tsr_fuzz_ctx();
    if (!ctx)
        return 0;
    tsr_image img;
    int bad = 0;
    if (tsr_image_alloc(ctx, &img, w, h, channels, wide ? TSR_U16 : TSR_U8) == TSR_OK) {
        const size_t row = (size_t)w * (size_t)channels * (wide ? 2 : 1);
        for (int32_t y = 0; y < h; y++)
            for (size_t i = 0; i < row; i++)
                ((uint8_t *)img.data)[(size_t)y * img.stride + i] =
                    nsamples ? samples[((size_t)y * row + i) % nsamples] : 0;
        uint8_t *out = (uint8_t *)&img; /* must be NULL after a failure */
        size_t len = 1;
        if (tsr_j2k_encode(ctx, &img, &o, &out, &len) != TSR_OK) {
            bad = out != NULL || len != 0 || !tsr_ctx_last_error(ctx)[0];
        } else {
            /* every pass in the last layer: lossless without targets, or a final lossless
             * layer after rates or PSNR targets */
            const int exact = o.lossless != 0;
            bad = !out || tsr_fuzz_enc_decoded(ctx, &img, out, len, exact);
            if (!bad && o.num_rates && !o.lossless && !result.rate_short)
                bad = (double)len > o.rates[o.num_rates - 1] * w * h / 8.0;
            tsr_j2k_free(ctx, out);
        }
        tsr_image_free(ctx, &img);
    }
    tsr_ctx_destroy(ctx);
    return bad;
}

#endif
