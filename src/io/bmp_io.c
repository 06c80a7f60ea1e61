/* BMP (Windows bitmap) decoding and encoding, by hand: the format is a fixed header over an
 * uncompressed raster.
 *
 * Layout read (Microsoft's BITMAPFILEHEADER, then BITMAPCOREHEADER of 12 bytes or
 * BITMAPINFOHEADER of 40 and its longer versions up to BITMAPV5HEADER's 124): little-endian
 * fields; rows padded to 4 bytes, bottom-up for a positive height and top-down for a negative
 * one; pixels of 1, 4 or 8 bits index a palette of BGR(X) entries; 16 and 32-bit pixels are
 * split by channel masks (BI_BITFIELDS: from the header, at byte 54; BI_RGB: 5-5-5 and 8-8-8),
 * each channel scaled to 8 bits as round(v * 255 / max); 24-bit pixels are BGR.
 *
 * Decisions: a palette whose entries are all gray gives a gray image (tessera writes gray
 * images so, and reads them back the same); alpha is read only from an alpha mask in a header
 * of 56 bytes or more with BI_BITFIELDS (the fourth byte of a BI_RGB pixel is reserved);
 * a palette index past the palette, a mask that is not one run of bits, or a raster past the
 * end of the file is TSR_ERR_CORRUPT; RLE, embedded JPEG/PNG and 2/64-bit pixels are
 * TSR_ERR_UNSUPPORTED. Writing: gray as 8-bit with a gray palette, RGB as 24-bit, RGBA as 32-bit
 * with a BITMAPV4HEADER and BI_BITFIELDS masks; rows bottom-up. */
#include "io/codecs.h"

#include "core/checked.h"
#include "core/ctx.h"

#include <string.h>

static uint32_t le16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A channel mask as shift and maximum ((mask >> shift) + 1 a power of two); 0 when the mask
 * is not one run of set bits. A zero mask gives max 0 (the channel reads 0). */
typedef struct bmp_mask {
    uint32_t mask, shift, max;
} bmp_mask;

static int mask_split(uint32_t mask, bmp_mask *m)
{
    m->mask = mask;
    m->shift = 0;
    m->max = 0;
    if (!mask)
        return 1;
    while (!(mask & 1u))
        mask >>= 1, m->shift++;
    m->max = mask;
    return (mask & (mask + 1u)) == 0; /* contiguous: mask + 1 is a power of two (or 2^32) */
}

static uint8_t mask_value(const bmp_mask *m, uint32_t pixel)
{
    if (!m->max)
        return 0;
    uint64_t v = (pixel & m->mask) >> m->shift;
    return (uint8_t)((v * 255 + m->max / 2) / m->max);
}

tsr_status tsr__bmp_decode(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr_image *out)
{
    if (len < 18)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "BMP: truncated header (%zu bytes)", len);
    uint32_t offset = le32(data + 10), hsize = le32(data + 14);
    if (hsize != 12 && (hsize < 40 || hsize > 124))
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "BMP: header size %u is not 12 or 40 to 124", hsize);
    if (len < 14 + (size_t)hsize)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "BMP: truncated header (%zu bytes)", len);
    const uint8_t *h = data + 14;
    int64_t width, height;
    uint32_t bpp, compression = 0, colours = 0;
    if (hsize == 12) {
        width = le16(h + 4);
        height = le16(h + 6);
        bpp = le16(h + 10);
    } else {
        width = (int32_t)le32(h + 4);
        height = (int32_t)le32(h + 8);
        bpp = le16(h + 14);
        compression = le32(h + 16);
        colours = le32(h + 32);
    }
    int top_down = height < 0;
    if (top_down)
        height = -height;
    if (width <= 0 || height <= 0 || height > 0x7fffffff)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "BMP: size %lldx%lld in header", (long long)width,
                         (long long)(top_down ? -height : height));
    if (compression != 0 && compression != 3)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "BMP: compression %u (RLE, JPEG, PNG) is not supported", compression);
    if (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 16 && bpp != 24 && bpp != 32)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "BMP: %u bits per pixel is not supported", bpp);
    if (compression == 3 && bpp != 16 && bpp != 32)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "BMP: BI_BITFIELDS with %u bits per pixel", bpp);
    tsr_status st = tsr__image_check_pixels(ctx, "BMP: ", (uint64_t)width, (uint64_t)height);
    if (st != TSR_OK)
        return st;

    /* Channel masks (B, G, R, A order of the output is R, G, B, A). */
    bmp_mask m[4];
    size_t masks_end = 14 + (size_t)hsize;
    if (compression == 3) {
        size_t need = hsize >= 52 ? 14 + (size_t)hsize : 54 + 12;
        if (len < need)
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "BMP: truncated channel masks");
        masks_end = need;
        uint32_t alpha = hsize >= 56 ? le32(data + 66) : 0;
        if (!mask_split(le32(data + 54), &m[0]) || !mask_split(le32(data + 58), &m[1]) ||
            !mask_split(le32(data + 62), &m[2]) || !mask_split(alpha, &m[3]))
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "BMP: a channel mask is not one run of bits");
    } else if (bpp == 16) {
        mask_split(0x7c00, &m[0]), mask_split(0x03e0, &m[1]), mask_split(0x001f, &m[2]);
        mask_split(0, &m[3]);
    } else {
        mask_split(0xff0000, &m[0]), mask_split(0xff00, &m[1]), mask_split(0xff, &m[2]);
        mask_split(0, &m[3]);
    }

    /* Palette. */
    uint8_t palette[256][3];
    uint32_t entries = 0;
    int gray = 0;
    if (bpp <= 8) {
        uint32_t most = 1u << bpp, esize = hsize == 12 ? 3 : 4;
        entries = colours == 0 || colours > most ? most : colours;
        if (len < masks_end || (len - masks_end) / esize < entries)
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "BMP: truncated palette (%u entries)", entries);
        gray = 1;
        for (uint32_t i = 0; i < entries; i++) {
            const uint8_t *e = data + masks_end + (size_t)i * esize;
            palette[i][0] = e[2], palette[i][1] = e[1], palette[i][2] = e[0];
            gray &= e[0] == e[1] && e[1] == e[2];
        }
    }
    int channels = bpp <= 8 ? (gray ? 1 : 3) : m[3].max ? 4 : 3;

    size_t row_bits, row, raster;
    if (!tsr__size_mul((size_t)width, bpp, &row_bits) || !tsr__size_add(row_bits, 31, &row) ||
        !tsr__size_mul(row / 32, 4, &row) || !tsr__size_mul(row, (size_t)height, &raster))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "BMP: image of %lldx%lld overflows memory sizes",
                         (long long)width, (long long)height);
    if (offset > len || len - offset < raster)
        return tsr__fail(ctx, TSR_ERR_CORRUPT,
                         "BMP: truncated raster (need %zu bytes at offset %u, file has %zu)",
                         raster, offset, len);
    tsr_image img;
    if ((st = tsr_image_alloc(ctx, &img, (int32_t)width, (int32_t)height, channels, TSR_U8)) !=
        TSR_OK)
        return st;
    for (int64_t y = 0; y < height; y++) {
        const uint8_t *s = data + offset + (size_t)(top_down ? y : height - 1 - y) * row;
        uint8_t *d = (uint8_t *)img.data + (size_t)y * img.stride;
        for (int64_t x = 0; x < width; x++, d += channels) {
            if (bpp <= 8) {
                size_t bit = (size_t)x * bpp;
                uint32_t idx = (s[bit / 8] >> (8 - bpp - (uint32_t)(bit % 8))) & ((1u << bpp) - 1);
                if (idx >= entries) {
                    tsr_image_free(ctx, &img);
                    return tsr__fail(ctx, TSR_ERR_CORRUPT,
                                     "BMP: palette index %u at (%lld, %lld) of %u entries", idx,
                                     (long long)x, (long long)y, entries);
                }
                memcpy(d, palette[idx], (size_t)channels);
            } else if (bpp == 24) {
                const uint8_t *p = s + (size_t)x * 3;
                d[0] = p[2], d[1] = p[1], d[2] = p[0];
            } else {
                uint32_t pixel = bpp == 16 ? le16(s + (size_t)x * 2) : le32(s + (size_t)x * 4);
                for (int c = 0; c < channels; c++)
                    d[c] = mask_value(&m[c], pixel);
            }
        }
    }
    *out = img;
    return TSR_OK;
}

static void put_le16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
    put_le16(p, v), put_le16(p + 2, v >> 16);
}

tsr_status tsr__bmp_encode(tsr_ctx *ctx, const tsr_image *img, tsr__atomic_file *af)
{
    const int ch = img->channels;
    const uint32_t bpp = ch == 1 ? 8 : ch == 3 ? 24 : 32, hsize = ch == 4 ? 108 : 40;
    const uint32_t palette = ch == 1 ? 1024 : 0, offset = 14 + hsize + palette;
    uint64_t row = ((uint64_t)img->width * bpp + 31) / 32 * 4;
    uint64_t total = offset + row * (uint64_t)img->height;
    if (total > 0xffffffffu)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "BMP files are at most 4 GiB (%llu bytes)",
                         (unsigned long long)total);
    uint8_t head[14 + 108 + 1024];
    memset(head, 0, sizeof head);
    head[0] = 'B', head[1] = 'M';
    put_le32(head + 2, (uint32_t)total);
    put_le32(head + 10, offset);
    uint8_t *h = head + 14;
    put_le32(h, hsize);
    put_le32(h + 4, (uint32_t)img->width);
    put_le32(h + 8, (uint32_t)img->height); /* positive: bottom-up */
    put_le16(h + 12, 1);
    put_le16(h + 14, bpp);
    put_le32(h + 16, ch == 4 ? 3 : 0); /* BI_BITFIELDS : BI_RGB */
    put_le32(h + 20, (uint32_t)(row * (uint64_t)img->height));
    put_le32(h + 24, 2835), put_le32(h + 28, 2835); /* 72 dpi */
    if (ch == 1)
        put_le32(h + 32, 256);
    if (ch == 4) {
        put_le32(h + 40, 0x00ff0000u), put_le32(h + 44, 0x0000ff00u);
        put_le32(h + 48, 0x000000ffu), put_le32(h + 52, 0xff000000u);
        memcpy(h + 56, "BGRs", 4); /* LCS_WINDOWS_COLOR_SPACE, little-endian "sRGB" */
    }
    for (uint32_t i = 0; i < palette / 4; i++)
        memset(head + 14 + hsize + 4 * i, (int)i, 3);
    tsr_status st = tsr__atomic_write(ctx, af, head, offset);
    uint8_t *buf = NULL;
    if (st == TSR_OK)
        st = tsr__alloc(ctx, (size_t)row, (void **)&buf);
    for (int32_t y = img->height - 1; y >= 0 && st == TSR_OK; y--) {
        const uint8_t *s = (const uint8_t *)img->data + (size_t)y * img->stride;
        memset(buf, 0, (size_t)row);
        for (int32_t x = 0; x < img->width; x++, s += ch) {
            uint8_t *d = buf + (size_t)x * (size_t)(bpp / 8);
            if (ch == 1)
                d[0] = s[0];
            else
                d[0] = s[2], d[1] = s[1], d[2] = s[0];
            if (ch == 4)
                d[3] = s[3];
        }
        st = tsr__atomic_write(ctx, af, buf, (size_t)row);
    }
    tsr__free(ctx, buf);
    return st;
}
