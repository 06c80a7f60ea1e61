/* TIFF decoding and encoding through libtiff (4.5: per-handle error handlers and an allocation
 * cap), from and to memory.
 *
 * Decoding: 8- and 16-bit unsigned and 32-bit IEEE float samples of gray (MinIsBlack, 1 or 2
 * samples: gray, gray+alpha) and RGB (3 or 4 samples: RGB, RGBA) images, in strips or tiles,
 * contiguous or planar, under any compression libtiff decodes, are returned as stored (the
 * first image of the file). Every other layout (bilevel and 2/4-bit, MinIsWhite, palette,
 * YCbCr, CMYK, Lab, ...) goes through libtiff's RGBA reader and gives 8-bit RGB, or RGBA where
 * the file has an extra sample. Alpha is kept as stored (associated or not). Each of libtiff's
 * allocations is capped at the context's max_memory (1 GiB without one), and the image itself
 * is bounded by max_image_pixels before it is allocated; a strip or tile that decodes to fewer
 * bytes than its rows need is TSR_ERR_CORRUPT.
 *
 * Encoding: one image, contiguous, Deflate-compressed without a predictor, strips of about
 * 8 KB (libtiff's default); MinIsBlack or RGB, an unassociated-alpha extra sample for 2 and 4
 * channels, SampleFormat IEEEFP for f32. The file is built in memory (libtiff seeks while it
 * writes) and then written out. */
#include "io/codecs.h"

#include "core/checked.h"
#include "core/ctx.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <tiffio.h>

/* A file in memory that libtiff reads, or writes into (growing). */
typedef struct tiff_mem {
    tsr_ctx *ctx;
    uint8_t *data;
    size_t len, cap, pos;
    int writable;
    int failed; /* a write could not grow the buffer */
    char message[200];
} tiff_mem;

static tmsize_t mem_read(thandle_t h, void *buf, tmsize_t n)
{
    tiff_mem *m = h;
    size_t k = m->pos < m->len ? m->len - m->pos : 0;
    if (n < 0)
        return -1;
    if ((size_t)n < k)
        k = (size_t)n;
    memcpy(buf, m->data + m->pos, k);
    m->pos += k;
    return (tmsize_t)k;
}

static tmsize_t mem_write(thandle_t h, void *buf, tmsize_t n)
{
    tiff_mem *m = h;
    size_t end;
    if (!m->writable || n < 0 || !tsr__size_add(m->pos, (size_t)n, &end)) {
        m->failed = 1;
        return -1;
    }
    if (end > m->cap) {
        size_t cap = m->cap ? m->cap : 1 << 16;
        while (cap < end)
            if (!tsr__size_mul(cap, 2, &cap)) {
                m->failed = 1;
                return -1;
            }
        void *p;
        if (tsr__alloc(m->ctx, cap, &p) != TSR_OK) {
            m->failed = 1;
            return -1;
        }
        if (m->len)
            memcpy(p, m->data, m->len);
        tsr__free(m->ctx, m->data);
        m->data = p;
        m->cap = cap;
    }
    if (m->pos > m->len)
        memset(m->data + m->len, 0, m->pos - m->len);
    memcpy(m->data + m->pos, buf, (size_t)n);
    m->pos = end;
    if (end > m->len)
        m->len = end;
    return n;
}

static toff_t mem_seek(thandle_t h, toff_t off, int whence)
{
    tiff_mem *m = h;
    uint64_t base = whence == SEEK_CUR ? m->pos : whence == SEEK_END ? m->len : 0;
    uint64_t to = base + off;
    if (to < base || to > (uint64_t)SIZE_MAX / 2)
        return (toff_t)-1;
    m->pos = (size_t)to;
    return to;
}

static int mem_close(thandle_t h)
{
    (void)h;
    return 0;
}

static toff_t mem_size(thandle_t h)
{
    return ((tiff_mem *)h)->len;
}

static int mem_map(thandle_t h, void **base, toff_t *size)
{
    (void)h, (void)base, (void)size;
    return 0; /* no mapping: libtiff reads through mem_read */
}

static void mem_unmap(thandle_t h, void *base, toff_t size)
{
    (void)h, (void)base, (void)size;
}

/* libtiff's error handler: keeps the first message. */
static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif, (void)module;
    tiff_mem *m = user;
    if (!m->message[0])
        vsnprintf(m->message, sizeof m->message, fmt, ap);
    return 1;
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif, (void)user, (void)module, (void)fmt, (void)ap;
    return 1; /* warnings are not errors and the library does not print */
}

static TIFF *mem_open(tiff_mem *m, const char *mode)
{
    TIFFOpenOptions *o = TIFFOpenOptionsAlloc();
    if (!o)
        return NULL;
    uint64_t cap = m->ctx->opt.max_memory ? m->ctx->opt.max_memory : ((uint64_t)1 << 30) - 1;
    TIFFOpenOptionsSetMaxSingleMemAlloc(
        o, (tmsize_t)(cap > (uint64_t)INT64_MAX / 2 ? (uint64_t)INT64_MAX / 2 : cap));
    TIFFOpenOptionsSetErrorHandlerExtR(o, on_error, m);
    TIFFOpenOptionsSetWarningHandlerExtR(o, on_warning, m);
    TIFF *tif = TIFFClientOpenExt("tiff", mode, m, mem_read, mem_write, mem_seek, mem_close,
                                  mem_size, mem_map, mem_unmap, o);
    TIFFOpenOptionsFree(o);
    return tif;
}

static tsr_status tiff_error(tsr_ctx *ctx, const tiff_mem *m, const char *what)
{
    return tsr__fail(ctx, TSR_ERR_CORRUPT, "TIFF: %s%s%s", what, m->message[0] ? ": " : "",
                     m->message);
}

/* Copies one decoded strip or tile (rows of bw pixels: spp samples each when contiguous, one
 * when planar) into img at (x0, y0); plane < 0 for contiguous data. */
static void put_block(tsr_image *img, const uint8_t *buf, uint32_t x0, uint32_t y0, uint32_t bw,
                      uint32_t bh, int plane)
{
    size_t bps = tsr_depth_size(img->depth), ch = (size_t)img->channels;
    size_t px = plane < 0 ? ch * bps : bps;
    if (x0 >= (uint32_t)img->width || y0 >= (uint32_t)img->height)
        return;
    uint32_t w = x0 + bw > (uint32_t)img->width ? (uint32_t)img->width - x0 : bw;
    uint32_t h = y0 + bh > (uint32_t)img->height ? (uint32_t)img->height - y0 : bh;
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *s = buf + (size_t)y * bw * px;
        uint8_t *d = (uint8_t *)img->data + (size_t)(y0 + y) * img->stride + (size_t)x0 * ch * bps;
        if (plane < 0) {
            memcpy(d, s, (size_t)w * px);
            continue;
        }
        for (uint32_t x = 0; x < w; x++)
            memcpy(d + ((size_t)x * ch + (size_t)plane) * bps, s + (size_t)x * bps, bps);
    }
}

/* Contiguous strips of unpadded rows: each strip decoded straight into its rows of img, so a
 * strip of the whole image costs no second copy of it. */
static tsr_status read_strips_in_place(tsr_ctx *ctx, TIFF *tif, tiff_mem *m, tsr_image *img)
{
    uint32_t bh = (uint32_t)img->height;
    TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &bh);
    if (bh > (uint32_t)img->height || bh == 0)
        bh = (uint32_t)img->height;
    for (uint32_t y = 0; y < (uint32_t)img->height; y += bh) {
        uint32_t rows = y + bh > (uint32_t)img->height ? (uint32_t)img->height - y : bh;
        size_t need = (size_t)rows * img->stride;
        tmsize_t got =
            TIFFReadEncodedStrip(tif, TIFFComputeStrip(tif, y, 0),
                                 (uint8_t *)img->data + (size_t)y * img->stride, (tmsize_t)need);
        if (got < 0 || (size_t)got < need)
            return tiff_error(ctx, m, "cannot decode a strip (truncated data?)");
    }
    return TSR_OK;
}

/* The direct path: strips or tiles decoded into img (allocated by the caller). */
static tsr_status read_blocks(tsr_ctx *ctx, TIFF *tif, tiff_mem *m, tsr_image *img, int planar)
{
    int tiled = TIFFIsTiled(tif);
    if (!tiled && !planar &&
        img->stride == (size_t)img->width * (size_t)img->channels * tsr_depth_size(img->depth))
        return read_strips_in_place(ctx, tif, m, img);
    tmsize_t size = tiled ? TIFFTileSize(tif) : TIFFStripSize(tif);
    if (size <= 0)
        return tiff_error(ctx, m, "no strip or tile size");
    void *buf;
    tsr_status st = tsr__alloc(ctx, (size_t)size, &buf);
    if (st != TSR_OK)
        return st;
    uint32_t bw = (uint32_t)img->width, bh = (uint32_t)img->height;
    if (tiled) {
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &bw);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &bh);
    } else {
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &bh);
        if (bh > (uint32_t)img->height || bh == 0)
            bh = (uint32_t)img->height;
    }
    if (bw == 0 || bh == 0) {
        tsr__free(ctx, buf);
        return tiff_error(ctx, m, "tile size 0");
    }
    const size_t px = (planar ? 1 : (size_t)img->channels) * tsr_depth_size(img->depth);
    int planes = planar ? img->channels : 1;
    for (int p = 0; p < planes && st == TSR_OK; p++)
        for (uint32_t y = 0; y < (uint32_t)img->height && st == TSR_OK; y += bh)
            for (uint32_t x = 0; x < (uint32_t)img->width && st == TSR_OK; x += bw) {
                tmsize_t got;
                if (tiled)
                    got = TIFFReadEncodedTile(tif, TIFFComputeTile(tif, x, y, 0, (uint16_t)p), buf,
                                              size);
                else
                    got =
                        TIFFReadEncodedStrip(tif, TIFFComputeStrip(tif, y, (uint16_t)p), buf, size);
                /* A tile is whole; a strip may be short only at the bottom. */
                uint32_t rows =
                    !tiled && y + bh > (uint32_t)img->height ? (uint32_t)img->height - y : bh;
                size_t need;
                if (got < 0 || !tsr__size_mul3(rows, bw, px, &need) || (size_t)got < need)
                    st = tiff_error(ctx, m,
                                    tiled ? "cannot decode a tile"
                                          : "cannot decode a strip (truncated data?)");
                else
                    put_block(img, buf, x, y, bw, bh, planar ? p : -1);
            }
    tsr__free(ctx, buf);
    return st;
}

/* Every other layout: libtiff's RGBA reader, top row first; RGB unless there is an extra
 * sample. */
static tsr_status read_rgba(tsr_ctx *ctx, TIFF *tif, tiff_mem *m, uint32_t w, uint32_t h, int alpha,
                            tsr_image *out)
{
    char why[1024];
    if (!TIFFRGBAImageOK(tif, why))
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "TIFF: %s", why);
    size_t n;
    if (!tsr__size_mul3(w, h, 4, &n))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "TIFF: image of %ux%u overflows memory sizes", w,
                         h);
    uint32_t *rgba;
    tsr_status st = tsr__alloc(ctx, n, (void **)&rgba);
    if (st != TSR_OK)
        return st;
    if (!TIFFReadRGBAImageOriented(tif, w, h, rgba, ORIENTATION_TOPLEFT, 0)) {
        tsr__free(ctx, rgba);
        return tiff_error(ctx, m, "cannot decode the image");
    }
    tsr_image img;
    if ((st = tsr_image_alloc(ctx, &img, (int32_t)w, (int32_t)h, alpha ? 4 : 3, TSR_U8)) ==
        TSR_OK) {
        for (uint32_t y = 0; y < h; y++) {
            uint8_t *d = (uint8_t *)img.data + (size_t)y * img.stride;
            for (uint32_t x = 0; x < w; x++) {
                uint32_t v = rgba[(size_t)y * w + x];
                *d++ = (uint8_t)TIFFGetR(v), *d++ = (uint8_t)TIFFGetG(v),
                *d++ = (uint8_t)TIFFGetB(v);
                if (alpha)
                    *d++ = (uint8_t)TIFFGetA(v);
            }
        }
        *out = img;
    }
    tsr__free(ctx, rgba);
    return st;
}

tsr_status tsr__tiff_decode(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr_image *out)
{
    tiff_mem m = {ctx, (uint8_t *)data, len, len, 0, 0, 0, ""};
    TIFF *tif = mem_open(&m, "rm");
    if (!tif)
        return tiff_error(ctx, &m, "cannot read the header");
    uint32_t w = 0, h = 0;
    uint16_t spp = 1, bits = 1, format = SAMPLEFORMAT_UINT, photometric = 0,
             planar = PLANARCONFIG_CONTIG, extra = 0, *extra_types = NULL;
    tsr_status st = TSR_OK;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h) ||
        w == 0 || h == 0 || w > 0x7fffffff || h > 0x7fffffff)
        st =
            tsr__fail(ctx, TSR_ERR_CORRUPT, "TIFF: image size %ux%u missing or out of range", w, h);
    if (st == TSR_OK)
        st = tsr__image_check_pixels(ctx, "TIFF: ", w, h);
    if (st == TSR_OK) {
        TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
        TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
        TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
        TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
        TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &extra, &extra_types);
        if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric))
            photometric = spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
        tsr_depth depth = bits == 8 && format == SAMPLEFORMAT_UINT      ? TSR_U8
                          : bits == 16 && format == SAMPLEFORMAT_UINT   ? TSR_U16
                          : bits == 32 && format == SAMPLEFORMAT_IEEEFP ? TSR_F32
                                                                        : (tsr_depth)0;
        int direct = depth && ((photometric == PHOTOMETRIC_MINISBLACK && spp <= 2) ||
                               (photometric == PHOTOMETRIC_RGB && spp >= 3 && spp <= 4));
        if (direct) {
            tsr_image img;
            if ((st = tsr_image_alloc(ctx, &img, (int32_t)w, (int32_t)h, spp, depth)) == TSR_OK) {
                st = read_blocks(ctx, tif, &m, &img, planar == PLANARCONFIG_SEPARATE);
                if (st == TSR_OK)
                    *out = img;
                else
                    tsr_image_free(ctx, &img);
            }
        } else {
            st = read_rgba(ctx, tif, &m, w, h, extra > 0, out);
        }
    }
    TIFFClose(tif);
    return st;
}

tsr_status tsr__tiff_encode(tsr_ctx *ctx, const tsr_image *img, tsr__atomic_file *af)
{
    tiff_mem m = {ctx, NULL, 0, 0, 0, 1, 0, ""};
    TIFF *tif = mem_open(&m, "w");
    if (!tif) {
        tsr__free(ctx, m.data);
        return tsr__fail(ctx, m.failed ? TSR_ERR_OUT_OF_MEMORY : TSR_ERR_INTERNAL,
                         "TIFF: cannot start a file: %s",
                         m.failed ? "out of memory for the file" : m.message);
    }
    const int ch = img->channels;
    const size_t row = (size_t)img->width * (size_t)ch * tsr_depth_size(img->depth);
    uint16_t extra = EXTRASAMPLE_UNASSALPHA;
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)img->width);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)img->height);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)ch);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)(8 * tsr_depth_size(img->depth)));
    TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT,
                 img->depth == TSR_F32 ? SAMPLEFORMAT_IEEEFP : SAMPLEFORMAT_UINT);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, ch >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif, 0));
    if (ch == 2 || ch == 4)
        TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, (uint16_t)1, &extra);
    void *buf = NULL; /* TIFFWriteScanline may change the row it is given (some codecs do) */
    tsr_status st = tsr__alloc(ctx, row, &buf);
    int ok = st == TSR_OK;
    for (int32_t y = 0; y < img->height && ok; y++) {
        memcpy(buf, (const uint8_t *)img->data + (size_t)y * img->stride, row);
        ok = TIFFWriteScanline(tif, buf, (uint32_t)y, 0) >= 0;
    }
    ok = ok && TIFFWriteDirectory(tif);
    TIFFClose(tif);
    tsr__free(ctx, buf);
    if (st == TSR_OK && (!ok || m.failed))
        st = tsr__fail(ctx, m.failed ? TSR_ERR_OUT_OF_MEMORY : TSR_ERR_INTERNAL,
                       "TIFF: cannot encode: %s",
                       m.failed ? "out of memory for the file" : m.message);
    if (st == TSR_OK)
        st = tsr__atomic_write(ctx, af, m.data, m.len);
    tsr__free(ctx, m.data);
    return st;
}
