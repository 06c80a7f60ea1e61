/* PFM (portable float map, as netpbm's pfm(5) and OpenCV read it): "PF" (RGB) or "Pf" (gray),
 * whitespace, width and height as decimals, whitespace, the scale as a decimal number, exactly
 * one whitespace character, then width x height x channels IEEE 754 binary32 samples, rows from
 * the bottom of the image to the top. A negative scale means little-endian samples, a positive
 * one big-endian.
 *
 * Decisions: the samples are returned as stored (f32); the scale's magnitude, which some
 * writers use as a brightness hint, is not applied, but it must be a finite non-zero number.
 * Non-finite samples are kept (a PFM may hold them). tessera writes scale -1 (little-endian). */
#include "io/codecs.h"

#include "core/checked.h"
#include "core/ctx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int pfm_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* The next whitespace-separated header word (at most cap - 1 bytes) as a C string; 0 when the
 * data end first or the word is too long. */
static int pfm_word(const uint8_t **p, const uint8_t *end, char *out, size_t cap)
{
    while (*p < end && pfm_space(**p))
        ++*p;
    size_t n = 0;
    while (*p < end && !pfm_space(**p)) {
        if (n + 1 >= cap)
            return 0;
        out[n++] = (char)*(*p)++;
    }
    out[n] = '\0';
    return n > 0;
}

tsr_status tsr__pfm_decode(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr_image *out)
{
    int channels = data[1] == 'F' ? 3 : 1;
    const uint8_t *p = data + 2, *end = data + len;
    char word[3][40];
    static const char *const what[3] = {"width", "height", "scale"};
    for (int i = 0; i < 3; i++)
        if (!pfm_word(&p, end, word[i], sizeof word[i]))
            return tsr__fail(ctx, TSR_ERR_CORRUPT,
                             "PFM: header ends before the %s, or it is "
                             "too long",
                             what[i]);
    long long side[2];
    for (int i = 0; i < 2; i++) {
        char *e;
        side[i] = word[i][0] >= '0' && word[i][0] <= '9' ? strtoll(word[i], &e, 10) : -1;
        if (side[i] < 1 || side[i] > 0x7fffffff || *e)
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "PFM: %s '%s' is not 1 to 2147483647", what[i],
                             word[i]);
    }
    char *e;
    double scale = strtod(word[2], &e);
    if (*e || !isfinite(scale) || scale == 0)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "PFM: scale '%s' is not a finite non-zero number",
                         word[2]);
    if (p >= end || !pfm_space(*p))
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "PFM: truncated raster (no data after header)");
    p++; /* the one whitespace character before the raster */
    uint32_t w = (uint32_t)side[0], h = (uint32_t)side[1];
    tsr_status st = tsr__image_check_pixels(ctx, "PFM: ", w, h);
    if (st != TSR_OK)
        return st;
    size_t row, raster;
    if (!tsr__size_mul3(w, (size_t)channels, 4, &row) || !tsr__size_mul(row, h, &raster))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "PFM: image of %ux%u overflows memory sizes", w, h);
    if ((size_t)(end - p) < raster)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "PFM: truncated raster (need %zu bytes, have %zu)",
                         raster, (size_t)(end - p));
    tsr_image img;
    if ((st = tsr_image_alloc(ctx, &img, (int32_t)w, (int32_t)h, channels, TSR_F32)) != TSR_OK)
        return st;
    int swap = (scale < 0) != tsr__host_is_little_endian();
    for (uint32_t y = 0; y < h; y++) {
        uint8_t *d = (uint8_t *)img.data + (size_t)y * img.stride;
        const uint8_t *s = p + (size_t)(h - 1 - y) * row;
        if (!swap) {
            memcpy(d, s, row);
            continue;
        }
        for (size_t i = 0; i < row; i += 4)
            d[i] = s[i + 3], d[i + 1] = s[i + 2], d[i + 2] = s[i + 1], d[i + 3] = s[i];
    }
    *out = img;
    return TSR_OK;
}

tsr_status tsr__pfm_encode(tsr_ctx *ctx, const tsr_image *img, tsr__atomic_file *af)
{
    char header[64];
    int n = snprintf(header, sizeof header, "P%c\n%d %d\n-1.0\n", img->channels == 3 ? 'F' : 'f',
                     (int)img->width, (int)img->height);
    tsr_status st = tsr__atomic_write(ctx, af, header, (size_t)n);
    size_t row = (size_t)img->width * (size_t)img->channels * 4;
    uint8_t *swapped = NULL;
    if (st == TSR_OK && !tsr__host_is_little_endian())
        st = tsr__alloc(ctx, row, (void **)&swapped);
    for (int32_t y = img->height - 1; y >= 0 && st == TSR_OK; y--) {
        const uint8_t *s = (const uint8_t *)img->data + (size_t)y * img->stride;
        if (swapped) {
            for (size_t i = 0; i < row; i += 4)
                swapped[i] = s[i + 3], swapped[i + 1] = s[i + 2], swapped[i + 2] = s[i + 1],
                swapped[i + 3] = s[i];
            s = swapped;
        }
        st = tsr__atomic_write(ctx, af, s, row);
    }
    tsr__free(ctx, swapped);
    return st;
}
