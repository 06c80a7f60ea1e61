/* PNM (netpbm PBM, PGM and PPM): P1/P2/P3 plain (ASCII) and P4/P5/P6 raw decoding, P5/P6
 * encoding; PAM (P7) decoding and encoding.
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
 * - PBM bitmaps (P1/P4, 1 = black) give u8 gray 0 (black) and 255 (white); tessera does not
 *   write them (.pgm holds the same picture). */
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
static tsr_status header_field(tsr_ctx *ctx, const char *prefix, pnm_reader *r, const char *what,
                               uint32_t limit, uint32_t *out)
{
    switch (read_uint(r, limit, out)) {
    case 1: return TSR_OK;
    case 0: return tsr__fail(ctx, TSR_ERR_CORRUPT, "%sheader ends before the %s", prefix, what);
    case -2:
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "%s%s above %lu in header", prefix, what,
                         (unsigned long)limit);
    default:
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "%s%s is not a decimal number in header", prefix,
                         what);
    }
}

/* Scales a sample of 0..maxval to 0..full (see the file comment); identity when equal. */
static uint32_t scale(uint32_t v, uint32_t maxval, uint32_t full)
{
    if (maxval == full)
        return v;
    return (uint32_t)(((uint64_t)v * full + maxval / 2) / maxval);
}

/* A raw raster at the full range (maxval 255 or 65535) into img, whose rows hold the samples
 * packed: copied as it is, 16-bit samples from big-endian. Every sample is valid. */
static void copy_full_range(const uint8_t *src, tsr_image *img)
{
    const size_t n = (size_t)img->width * img->channels;
    for (int32_t y = 0; y < img->height; y++) {
        uint8_t *row = (uint8_t *)img->data + (size_t)y * img->stride;
        if (img->depth == TSR_U8) {
            memcpy(row, src, n);
            src += n;
            continue;
        }
        uint16_t *d = (uint16_t *)(void *)row;
        for (size_t i = 0; i < n; i++, src += 2)
            d[i] = (uint16_t)(src[0] << 8 | src[1]);
    }
}

/* Checks the header's sizes and that the data can hold the raster, allocates the image and
 * reads the samples: raw (one byte for maxval <= 255, else two, big-endian), plain (decimal
 * numbers), or bits (PBM P4: rows of ceil(width/8) bytes, 1 black; P1: digits 0 and 1 that
 * need no separators). Bitmaps become u8 0 (black) and 255 (white). r->p is at the raster. */
typedef enum raster_kind { RASTER_RAW, RASTER_PLAIN, RASTER_BITS, RASTER_PLAIN_BITS } raster_kind;

static tsr_status read_raster(tsr_ctx *ctx, const char *prefix, pnm_reader *r, uint32_t width,
                              uint32_t height, int channels, uint32_t maxval, raster_kind kind,
                              tsr_image *out)
{
    tsr_status st = tsr__image_check_pixels(ctx, prefix, width, height);
    if (st != TSR_OK)
        return st;
    int wide = maxval > 255;
    uint32_t full = wide ? 65535u : 255u;
    size_t samples, raster;
    if (!tsr__size_mul3((size_t)width, (size_t)height, (size_t)channels, &samples) ||
        !tsr__size_mul(samples, wide ? 2 : 1, &raster))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "%simage of %lux%lu overflows memory sizes", prefix,
                         (unsigned long)width, (unsigned long)height);
    size_t bits_row = ((size_t)width + 7) / 8;
    if (kind == RASTER_BITS)
        raster = bits_row * height; /* no overflow: below samples */
    /* Check that the data can hold the raster before allocating for it: every plain sample
     * takes a digit and all but the last a separator (plain bits: a digit). */
    size_t have = (size_t)(r->end - r->p);
    if (kind == RASTER_RAW || kind == RASTER_BITS) {
        if (have < raster)
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "%struncated raster (need %zu bytes, have %zu)",
                             prefix, raster, have);
    } else if ((kind == RASTER_PLAIN ? (have + 1) / 2 : have) < samples) {
        return tsr__fail(ctx, TSR_ERR_CORRUPT,
                         "%struncated raster (%zu bytes cannot hold %zu samples)", prefix, have,
                         samples);
    }
    tsr_image img;
    st = tsr_image_alloc(ctx, &img, (int32_t)width, (int32_t)height, channels,
                         wide ? TSR_U16 : TSR_U8);
    if (st != TSR_OK)
        return st;
    if (kind == RASTER_RAW && maxval == full) {
        copy_full_range(r->p, &img);
        r->p += raster;
        *out = img;
        return TSR_OK;
    }
    uint8_t *u8 = img.data;
    uint16_t *u16 = img.data;
    for (size_t i = 0; i < samples; i++) {
        uint32_t v;
        if (kind == RASTER_BITS) {
            size_t y = i / width, x = i % width;
            u8[i] = (r->p[y * bits_row + x / 8] >> (7 - x % 8)) & 1 ? 0 : 255;
            continue;
        }
        if (kind == RASTER_PLAIN_BITS) {
            skip_space(r);
            if (r->p >= r->end || (*r->p != '0' && *r->p != '1')) {
                tsr_image_free(ctx, &img);
                return tsr__fail(ctx, TSR_ERR_CORRUPT, "%sbit %zu is %s", prefix, i,
                                 r->p >= r->end ? "missing (truncated raster)" : "not 0 or 1");
            }
            u8[i] = *r->p++ == '1' ? 0 : 255;
            continue;
        }
        if (kind == RASTER_PLAIN) {
            int rc = read_uint(r, 65535u, &v);
            if (rc != 1) {
                tsr_image_free(ctx, &img);
                if (rc == 0)
                    return tsr__fail(ctx, TSR_ERR_CORRUPT,
                                     "%struncated raster (%zu of %zu samples)", prefix, i, samples);
                return tsr__fail(ctx, TSR_ERR_CORRUPT, "%ssample %zu is not a number", prefix, i);
            }
        } else if (wide) {
            v = (uint32_t)r->p[0] << 8 | r->p[1];
            r->p += 2;
        } else {
            v = *r->p++;
        }
        if (v > maxval) {
            tsr_image_free(ctx, &img);
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "%ssample %zu is %lu, above maxval %lu", prefix,
                             i, (unsigned long)v, (unsigned long)maxval);
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

tsr_status tsr__pnm_decode(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr_image *out)
{
    if (len < 2 || data[0] != 'P')
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: bad magic");
    char kind = (char)data[1];
    if (kind < '1' || kind > '6')
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "PNM: P%c is not supported",
                         kind >= 0x20 && kind < 0x7f ? kind : '?');
    int bitmap = kind == '1' || kind == '4';
    int plain = kind <= '3';
    int channels = (kind == '3' || kind == '6') ? 3 : 1;
    pnm_reader r = {data + 2, data + len};
    if (r.p < r.end && !is_space(*r.p) && *r.p != '#')
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: bad magic");

    uint32_t width, height, maxval = 1;
    tsr_status st = header_field(ctx, "PNM: ", &r, "width", 0x7fffffffu, &width);
    if (st == TSR_OK)
        st = header_field(ctx, "PNM: ", &r, "height", 0x7fffffffu, &height);
    if (st == TSR_OK && !bitmap)
        st = header_field(ctx, "PNM: ", &r, "maxval", 65535u, &maxval);
    if (st != TSR_OK)
        return st;
    if (width == 0)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: width 0 in header");
    if (height == 0)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: height 0 in header");
    if (maxval == 0)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: maxval 0 in header");
    if (!plain) {
        if (r.p >= r.end)
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: truncated raster (no data after header)");
        if (!is_space(*r.p))
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNM: no whitespace after %s",
                             bitmap ? "height" : "maxval");
        r.p++; /* the single whitespace character before the raster */
    }
    raster_kind rk =
        bitmap ? (plain ? RASTER_PLAIN_BITS : RASTER_BITS) : (plain ? RASTER_PLAIN : RASTER_RAW);
    return read_raster(ctx, "PNM: ", &r, width, height, channels, bitmap ? 255 : maxval, rk, out);
}

/* PAM (netpbm pam(5)): "P7\n", then lines "WIDTH w", "HEIGHT h", "DEPTH d", "MAXVAL m",
 * "TUPLTYPE t" (any number, ignored: the depth gives the channels, 1 gray, 2 gray+alpha, 3
 * RGB, 4 RGBA, as for the standard tuple types) and '#' comments, in any order, each field
 * once, up to "ENDHDR\n"; then the raw raster as in P5/P6. Depths above 4 are unsupported. */
tsr_status tsr__pam_decode(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr_image *out)
{
    static const char *const names[4] = {"WIDTH", "HEIGHT", "DEPTH", "MAXVAL"};
    static const uint32_t limits[4] = {0x7fffffffu, 0x7fffffffu, 0xffffu, 65535u};
    uint32_t v[4] = {0, 0, 0, 0};
    int seen[4] = {0, 0, 0, 0};
    pnm_reader r = {data + 3, data + len};
    for (;;) {
        skip_space(&r);
        const uint8_t *w = r.p;
        while (r.p < r.end && !is_space(*r.p))
            r.p++;
        size_t n = (size_t)(r.p - w);
        if (n == 0)
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "PAM: header ends before ENDHDR");
        if (n == 6 && memcmp(w, "ENDHDR", 6) == 0)
            break;
        if (n == 8 && memcmp(w, "TUPLTYPE", 8) == 0) {
            while (r.p < r.end && *r.p != '\n')
                r.p++;
            continue;
        }
        int k = 0;
        while (k < 4 && !(strlen(names[k]) == n && memcmp(w, names[k], n) == 0))
            k++;
        if (k == 4)
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "PAM: unknown header line '%.*s'",
                             (int)(n > 20 ? 20 : n), (const char *)w);
        if (seen[k]++)
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "PAM: %s given twice", names[k]);
        tsr_status st = header_field(ctx, "PAM: ", &r, names[k], limits[k], &v[k]);
        if (st != TSR_OK)
            return st;
    }
    for (int k = 0; k < 4; k++)
        if (!seen[k] || v[k] == 0)
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "PAM: %s %s", names[k],
                             seen[k] ? "0 in header" : "missing from header");
    if (v[2] > 4)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "PAM: depth %lu (tessera reads 1 to 4)",
                         (unsigned long)v[2]);
    if (r.p >= r.end || *r.p != '\n')
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "PAM: no newline after ENDHDR");
    r.p++;
    return read_raster(ctx, "PAM: ", &r, v[0], v[1], (int)v[2], v[3], RASTER_RAW, out);
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

tsr_status tsr__pam_encode(tsr_ctx *ctx, const tsr_image *img, tsr__atomic_file *af)
{
    static const char *const types[5] = {"", "GRAYSCALE", "GRAYSCALE_ALPHA", "RGB", "RGB_ALPHA"};
    char header[128];
    int n = snprintf(header, sizeof header,
                     "P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL %d\nTUPLTYPE %s\nENDHDR\n",
                     (int)img->width, (int)img->height, (int)img->channels,
                     img->depth == TSR_U16 ? 65535 : 255, types[img->channels]);
    tsr_status st = tsr__atomic_write(ctx, af, header, (size_t)n);
    if (st != TSR_OK)
        return st;
    /* the raster is P5/P6's, channels interleaved */
    return tsr__pnm_encode_rows(ctx, img, img->data, img->stride, (size_t)img->height, af);
}
