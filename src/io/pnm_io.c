/* PNM (netpbm PGM and PPM): P2/P3 plain (ASCII) and P5/P6 raw decoding, P5/P6 encoding.
 *
 * Header (netpbm pgm(5)/ppm(5)): magic, width, height, maxval as ASCII decimals separated by
 * whitespace, where '#' starts a comment running to the end of the line; then exactly one
 * whitespace character before a raw raster. Samples are one byte for maxval <= 255, else two
 * bytes, most significant first.
 *
 * Decisions where readers differ:
 * - maxval 1..255 gives u8, 256..65535 gives u16. maxval 255 and 65535 keep samples as stored.
 *   Any other maxval is scaled to the full range of the output depth with rounding,
 *   v' = (v * full + maxval / 2) / maxval (full = 255 or 65535), because the image API has no
 *   place to return the maxval and an unscaled maxval-15 image would read as nearly black.
 *   The mapping is exact and injective (full >= maxval), so no information is lost.
 * - A sample above maxval is an error (TSR_ERR_CORRUPT), not clamped.
 * - Bytes after the raster are ignored (netpbm files may hold several images; this reads the
 *   first). Plain rasters may hold '#' comments between samples (netpbm's readers accept them).
 * - P1/P4 (bitmaps) and P7 (PAM) are not read: TSR_ERR_UNSUPPORTED. */
#include "io/codecs.h"

#include "core/checked.h"
#include "core/ctx.h"

#include <stdio.h>
#include <string.h>

typedef struct pnm_reader {
    const uint8_t *p, *end;
} pnm_reader;

static int is_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Skips whitespace and comments. */
static void skip_space(pnm_reader *r)
{
    while (r->p < r->end) {
        if (is_space(*r->p)) {
            r->p++;
        } else if (*r->p == '#') {
            while (r->p < r->end && *r->p != '\n' && *r->p != '\r')
                r->p++;
        } else {
            break;
        }
    }
}

/* Reads an unsigned decimal after optional whitespace/comments. Returns 1 and *out, 0 at the
 * end of data, -1 for a character that is not a digit, -2 for a value above limit. The number
 * must be followed by whitespace, '#', or the end of data. */
static int read_uint(pnm_reader *r, uint32_t limit, uint32_t *out)
{
    skip_space(r);
    if (r->p >= r->end)
        return 0;
    if (*r->p < '0' || *r->p > '9')
        return -1;
    uint64_t v = 0;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') {
        v = v * 10 + (uint64_t)(*r->p - '0');
        if (v > limit)
            return -2;
        r->p++;
    }
    if (r->p < r->end && !is_space(*r->p) && *r->p != '#')
        return -1;
    *out = (uint32_t)v;
    return 1;
}

/* Reads one header field, failing with a message that names it. */
static tsr_status header_field(tsr_ctx *ctx, pnm_reader *r, const char *what, uint32_t limit,
                               uint32_t *out)
{
    switch (read_uint(r, limit, out)) {
    case 1: return TSR_OK;
    case 0: return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: header ends before the %s", what);
    case -2:
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: %s above %lu in header", what,
                         (unsigned long)limit);
    default:
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: %s is not a decimal number in header", what);
    }
}

/* Scales a sample of 0..maxval to 0..full (see the file comment); identity when equal. */
static uint32_t scale(uint32_t v, uint32_t maxval, uint32_t full)
{
    if (maxval == full)
        return v;
    return (uint32_t)(((uint64_t)v * full + maxval / 2) / maxval);
}

tsr_status tsr__pnm_decode(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr_image *out)
{
    if (len < 2 || data[0] != 'P')
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: bad magic");
    char kind = (char)data[1];
    if (kind == '1' || kind == '4')
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "PNM: P%c (bitmap) is not supported", kind);
    if (kind != '2' && kind != '3' && kind != '5' && kind != '6')
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "PNM: P%c is not supported",
                         kind >= 0x20 && kind < 0x7f ? kind : '?');
    int plain = kind == '2' || kind == '3';
    int channels = (kind == '3' || kind == '6') ? 3 : 1;
    pnm_reader r = {data + 2, data + len};
    if (r.p < r.end && !is_space(*r.p) && *r.p != '#')
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: bad magic");

    uint32_t width, height, maxval;
    tsr_status st = header_field(ctx, &r, "width", 0x7fffffffu, &width);
    if (st == TSR_OK)
        st = header_field(ctx, &r, "height", 0x7fffffffu, &height);
    if (st == TSR_OK)
        st = header_field(ctx, &r, "maxval", 65535u, &maxval);
    if (st != TSR_OK)
        return st;
    if (width == 0)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: width 0 in header");
    if (height == 0)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: height 0 in header");
    if (maxval == 0)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: maxval 0 in header");
    uint64_t pixels = (uint64_t)width * height;
    if (pixels > ctx->opt.max_image_pixels)
        return tsr__fail(ctx, TSR_ERR_LIMIT,
                         "PNM: image of %lux%lu exceeds the limit of %llu pixels",
                         (unsigned long)width, (unsigned long)height,
                         (unsigned long long)ctx->opt.max_image_pixels);
    int wide = maxval > 255;
    uint32_t full = wide ? 65535u : 255u;
    size_t samples, raster;
    if (!tsr__size_mul3((size_t)width, (size_t)height, (size_t)channels, &samples) ||
        !tsr__size_mul(samples, wide ? 2 : 1, &raster))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "PNM: image of %lux%lu overflows memory sizes",
                         (unsigned long)width, (unsigned long)height);

    /* Check that the data can hold the raster before allocating for it. */
    if (!plain) {
        if (r.p >= r.end)
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: truncated raster (no data after header)");
        if (!is_space(*r.p))
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: no whitespace after maxval");
        r.p++; /* the single whitespace character before the raster */
        size_t have = (size_t)(r.end - r.p);
        if (have < raster)
            return tsr__fail(ctx, TSR_ERR_CORRUPT,
                             "PNM: truncated raster (need %zu bytes, have %zu)", raster, have);
    } else {
        /* every sample takes a digit and all but the last a separator */
        size_t have = (size_t)(r.end - r.p);
        if ((have + 1) / 2 < samples)
            return tsr__fail(ctx, TSR_ERR_CORRUPT,
                             "PNM: truncated raster (%zu bytes cannot hold %zu samples)", have,
                             samples);
    }

    tsr_image img;
    st = tsr_image_alloc(ctx, &img, (int32_t)width, (int32_t)height, channels,
                         wide ? TSR_U16 : TSR_U8);
    if (st != TSR_OK)
        return st;
    uint8_t *u8 = img.data;
    uint16_t *u16 = img.data;
    for (size_t i = 0; i < samples; i++) {
        uint32_t v;
        if (plain) {
            int rc = read_uint(&r, 65535u, &v);
            if (rc != 1) {
                tsr_image_free(ctx, &img);
                if (rc == 0)
                    return tsr__fail(ctx, TSR_ERR_CORRUPT,
                                     "PNM: truncated raster (%zu of %zu samples)", i, samples);
                return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: sample %zu is not a number", i);
            }
        } else if (wide) {
            v = (uint32_t)r.p[0] << 8 | r.p[1];
            r.p += 2;
        } else {
            v = *r.p++;
        }
        if (v > maxval) {
            tsr_image_free(ctx, &img);
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: sample %zu is %lu, above maxval %lu", i,
                             (unsigned long)v, (unsigned long)maxval);
        }
        v = scale(v, maxval, full);
        if (wide)
            u16[i] = (uint16_t)v;
        else
            u8[i] = (uint8_t)v;
    }
    *out = img;
    return TSR_OK;
}

tsr_status tsr__pnm_encode_header(tsr_ctx *ctx, const tsr_image *img, tsr__atomic_file *af)
{
    char header[64];
    int n = snprintf(header, sizeof header, "P%c\n%d %d\n%d\n", img->channels == 1 ? '5' : '6',
                     (int)img->width, (int)img->height, img->depth == TSR_U16 ? 65535 : 255);
    return tsr__atomic_write(ctx, af, header, (size_t)n);
}

tsr_status tsr__pnm_encode_rows(tsr_ctx *ctx, const tsr_image *img, const void *rows, size_t stride,
                                size_t count, tsr__atomic_file *af)
{
    /* The rows go out in one write when they lie tight in memory as the file wants them, else
     * in pieces of about 1 MB of rows (copied, or byte-swapped for 16-bit samples on a
     * little-endian host), not one write per row: a 4K frame is 2160 system calls otherwise. */
    int wide = img->depth == TSR_U16;
    size_t row = (size_t)img->width * (size_t)img->channels * (wide ? 2 : 1);
    size_t h = count;
    int swap = wide && tsr__host_is_little_endian();
    if (!swap && stride == row)
        return tsr__atomic_write(ctx, af, rows, row * h); /* the caller bounds it */
    size_t piece = ((size_t)1 << 20) / row;
    piece = piece < 1 ? 1 : piece > h ? h : piece;
    void *buf;
    tsr_status st = tsr__alloc(ctx, piece * row, &buf);
    if (st != TSR_OK)
        return st;
    for (size_t y = 0; st == TSR_OK && y < h; y += piece) {
        size_t k = h - y < piece ? h - y : piece;
        for (size_t i = 0; i < k; i++) {
            const uint8_t *src = (const uint8_t *)rows + (y + i) * stride;
            uint8_t *b = (uint8_t *)buf + i * row;
            if (!swap) {
                memcpy(b, src, row);
                continue;
            }
            const uint16_t *s16 = (const uint16_t *)(const void *)src;
            for (size_t x = 0; x < row / 2; x++) {
                b[2 * x] = (uint8_t)(s16[x] >> 8);
                b[2 * x + 1] = (uint8_t)s16[x];
            }
        }
        st = tsr__atomic_write(ctx, af, buf, k * row);
    }
    tsr__free(ctx, buf);
    return st;
}

tsr_status tsr__pnm_encode(tsr_ctx *ctx, const tsr_image *img, tsr__atomic_file *af)
{
    tsr_status st = tsr__pnm_encode_header(ctx, img, af);
    if (st != TSR_OK)
        return st;
    return tsr__pnm_encode_rows(ctx, img, img->data, img->stride, (size_t)img->height, af);
}
