/* Image I/O dispatch: decode from memory, load a file, save a file atomically. */
#include "io/codecs.h"
#include "tessera/io.h"

#include "core/checked.h"
#include "core/ctx.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

tsr_status tsr_image_decode(tsr_ctx *ctx, const void *data, size_t len, tsr_image *out,
                            tsr_format *format)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (format)
        *format = TSR_FORMAT_UNKNOWN;
    if (!out)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "output image descriptor is NULL");
    if (!data && len)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "input data is NULL");
    if (len == 0)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "empty input");
    tsr_format f = tsr_format_detect(data, len);
    if (format)
        *format = f;
    st = TSR_ERR_UNSUPPORTED;
    switch (f) {
    case TSR_FORMAT_PNG: st = tsr__png_decode(ctx, data, len, out); break;
    case TSR_FORMAT_JPEG: st = tsr__jpeg_decode(ctx, data, len, out); break;
    case TSR_FORMAT_PNM: st = tsr__pnm_decode(ctx, data, len, out); break;
    case TSR_FORMAT_PAM: st = tsr__pam_decode(ctx, data, len, out); break;
    case TSR_FORMAT_PFM: st = tsr__pfm_decode(ctx, data, len, out); break;
    case TSR_FORMAT_TIFF: st = tsr__tiff_decode(ctx, data, len, out); break;
    case TSR_FORMAT_WEBP: st = tsr__webp_decode(ctx, data, len, out); break;
    case TSR_FORMAT_BMP: st = tsr__bmp_decode(ctx, data, len, out); break;
    case TSR_FORMAT_JP2:
    case TSR_FORMAT_J2K:
        st = tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                       "JPEG 2000: decoded by tsr_j2k_decode_image (tessera/j2k.h), not here");
        break;
    case TSR_FORMAT_UNKNOWN: break;
    }
    if (st == TSR_OK) {
        ctx->message[0] = '\0'; /* an optional allocation libpng did without may have left one */
        return st;
    }
    if (f != TSR_FORMAT_UNKNOWN) {
        /* Messages from shared code (allocation, limits) do not name the format: add it. */
        static const char *const prefixes[] = {
            "",       "PNG: ",  "JPEG: ", "PNM: ",       "PAM: ",      "PFM: ",
            "TIFF: ", "WebP: ", "BMP: ",  "JPEG 2000: ", "JPEG 2000: "};
        const char *prefix = prefixes[f];
        if (strncmp(ctx->message, prefix, strlen(prefix)) != 0) {
            char msg[sizeof ctx->message];
            memcpy(msg, ctx->message, sizeof msg);
            msg[sizeof msg - 1] = '\0';
            tsr__fail(ctx, st, "%s%s", prefix, msg);
        }
        return st;
    }
    const uint8_t *p = data;
    return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                     "unknown image format (first bytes %02x %02x %02x %02x; PNG, JPEG, PNM, PAM, "
                     "PFM, TIFF, WebP and BMP are read)",
                     p[0], len > 1 ? p[1] : 0, len > 2 ? p[2] : 0, len > 3 ? p[3] : 0);
}

/* Puts "<path>: " before the context's message. */
tsr_status tsr__image_prefix_path(tsr_ctx *ctx, tsr_status st, const char *path)
{
    char msg[sizeof ctx->message];
    memcpy(msg, ctx->message, sizeof msg);
    msg[sizeof msg - 1] = '\0';
    return tsr__fail(ctx, st, "%s: %s", path, msg);
}

/* Reads what is left of fd (a pipe, a FIFO, a terminal) into memory, growing the buffer, up to
 * the context's max_memory. */
static tsr_status read_stream(tsr_ctx *ctx, int fd, uint8_t **out, size_t *out_len)
{
    size_t len = 0, cap = 0;
    uint8_t *buf = NULL;
    tsr_status st = TSR_OK;
    for (;;) {
        if (len == cap) {
            size_t grown = cap ? cap * 2 : (size_t)1 << 16;
            void *p;
            if (grown < cap) {
                st = tsr__fail(ctx, TSR_ERR_OVERFLOW, "input too large");
                break;
            }
            if ((st = tsr__alloc(ctx, grown, &p)) != TSR_OK)
                break;
            if (len)
                memcpy(p, buf, len);
            tsr__free(ctx, buf);
            buf = p;
            cap = grown;
        }
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            st = tsr__fail(ctx, TSR_ERR_IO, "cannot read: %s", strerror(errno));
            break;
        }
        if (n == 0)
            break;
        len += (size_t)n;
        if (ctx->opt.max_memory && len > ctx->opt.max_memory) {
            st = tsr__fail(ctx, TSR_ERR_LIMIT, "input exceeds the memory limit");
            break;
        }
    }
    if (st == TSR_OK && len == 0)
        st = tsr__fail(ctx, TSR_ERR_CORRUPT, "empty input");
    if (st != TSR_OK) {
        tsr__free(ctx, buf);
        return st;
    }
    *out = buf;
    *out_len = len;
    return TSR_OK;
}

/* Reads a whole file into memory from the context's allocator: a regular file by its size,
 * "-" (standard input) and other files that are not folders as a stream. */
static tsr_status read_file(tsr_ctx *ctx, const char *path, uint8_t **out, size_t *out_len)
{
    if (strcmp(path, "-") == 0)
        return read_stream(ctx, STDIN_FILENO, out, out_len);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return tsr__fail(ctx, TSR_ERR_IO, "cannot open: %s", strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return tsr__fail(ctx, TSR_ERR_IO, "cannot stat: %s", strerror(e));
    }
    if (S_ISDIR(sb.st_mode)) {
        close(fd);
        return tsr__fail(ctx, TSR_ERR_IO, "is a folder, not an image file");
    }
    if (!S_ISREG(sb.st_mode)) {
        tsr_status st = read_stream(ctx, fd, out, out_len);
        close(fd);
        return st;
    }
    if (sb.st_size <= 0) {
        close(fd);
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "empty file");
    }
    if ((uint64_t)sb.st_size > (uint64_t)SIZE_MAX ||
        (ctx->opt.max_memory && (uint64_t)sb.st_size > ctx->opt.max_memory)) {
        close(fd);
        return tsr__fail(ctx, TSR_ERR_LIMIT, "file of %lld bytes exceeds the memory limit",
                         (long long)sb.st_size);
    }
    size_t len = (size_t)sb.st_size;
    void *buf;
    tsr_status st = tsr__alloc(ctx, len, &buf);
    if (st != TSR_OK) {
        close(fd);
        return st;
    }
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (uint8_t *)buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            tsr__free(ctx, buf);
            return tsr__fail(ctx, TSR_ERR_IO, "cannot read: %s", strerror(e));
        }
        if (n == 0)
            break; /* shrank while reading: decode what there is */
        got += (size_t)n;
    }
    close(fd);
    *out = buf;
    *out_len = got;
    return TSR_OK;
}

tsr_status tsr_jpeg_info(tsr_ctx *ctx, const void *data, size_t len, int32_t *width,
                         int32_t *height, int32_t *channels)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (!width || !height || !channels || (!data && len))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "JPEG info: NULL argument");
    if (tsr_format_detect(data, len) != TSR_FORMAT_JPEG)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "JPEG info: the data are not a JPEG file");
    return tsr__jpeg_info(ctx, data, len, width, height, channels);
}

tsr_status tsr_image_load(tsr_ctx *ctx, const char *path, tsr_image *out, tsr_format *format)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (format)
        *format = TSR_FORMAT_UNKNOWN;
    if (!path || !out)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "path or output image is NULL");
    uint8_t *data = NULL;
    size_t len = 0;
    st = read_file(ctx, path, &data, &len);
    if (st == TSR_OK) {
        st = len ? tsr_image_decode(ctx, data, len, out, format)
                 : tsr__fail(ctx, TSR_ERR_CORRUPT, "empty file");
        tsr__free(ctx, data);
    }
    if (st != TSR_OK)
        return tsr__image_prefix_path(ctx, st, path);
    return TSR_OK;
}

tsr_status tsr_image_probe(tsr_ctx *ctx, const char *path, int32_t *width, int32_t *height)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (!width || !height)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "NULL size output");
    tsr_image img;
    memset(&img, 0, sizeof img);
    ctx->probe = 1;
    ctx->probed = 0;
    st = tsr_image_load(ctx, path, &img, NULL);
    ctx->probe = 0;
    if (st == TSR_OK) /* a decoder that never checked its size: the whole image was decoded */
        tsr_image_free(ctx, &img);
    if (!ctx->probed) /* st == TSR_OK: a format without a size check; else the load's error */
        return st == TSR_OK ? tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "%s: no size check", path) : st;
    if (ctx->probe_width > INT32_MAX || ctx->probe_height > INT32_MAX)
        return tsr__fail(ctx, TSR_ERR_LIMIT, "%s: image of %llux%llu", path,
                         (unsigned long long)ctx->probe_width,
                         (unsigned long long)ctx->probe_height);
    *width = (int32_t)ctx->probe_width;
    *height = (int32_t)ctx->probe_height;
    ctx->message[0] = '\0';
    return TSR_OK;
}

void tsr_save_options_init(tsr_save_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->format = TSR_FORMAT_UNKNOWN;
    opt->jpeg_quality = 95;
    opt->png_compression = 3;
}

tsr_status tsr__image_check_pixels(tsr_ctx *ctx, const char *prefix, uint64_t width,
                                   uint64_t height)
{
    if (ctx->probe) {
        ctx->probe_width = width;
        ctx->probe_height = height;
        ctx->probed = 1;
        return tsr__fail(ctx, TSR_ERR_INTERRUPTED, "%ssize probed", prefix);
    }
    if (width && height > ctx->opt.max_image_pixels / width)
        return tsr__fail(ctx, TSR_ERR_LIMIT,
                         "%simage of %llux%llu exceeds the limit of %llu pixels", prefix,
                         (unsigned long long)width, (unsigned long long)height,
                         (unsigned long long)ctx->opt.max_image_pixels);
    return TSR_OK;
}

static const char *depth_text(tsr_depth d)
{
    return d == TSR_U8 ? "u8" : d == TSR_U16 ? "u16" : "f32";
}

/* Whether the format can hold the image (format.c's table); fails with a message naming what
 * it cannot. */
tsr_status tsr__image_check_savable(tsr_ctx *ctx, tsr_format f, const tsr_image *img)
{
    if (img->memory != TSR_MEMORY_HOST)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "saving needs an image in host memory");
    if (f == TSR_FORMAT_JP2 || f == TSR_FORMAT_J2K)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "JPEG 2000 files are written by tsr_j2k_encode_save (tessera/j2k.h)");
    if (!tsr_format_depths(f))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "unknown output format %d", (int)f);
    if (!(tsr_format_depths(f) & TSR_DEPTH_BIT(img->depth)))
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "%s cannot store %s samples", tsr_format_name(f),
                         depth_text(img->depth));
    if (!(tsr_format_channels(f) & TSR_CHANNELS_BIT(img->channels))) {
        if (f == TSR_FORMAT_PNM)
            return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                             "PNM (PGM/PPM) cannot store an alpha channel (%d channels given; "
                             ".pam can)",
                             (int)img->channels);
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "%s cannot store %d-channel images",
                         tsr_format_name(f), (int)img->channels);
    }
    if (f == TSR_FORMAT_JPEG && (img->width > 65500 || img->height > 65500))
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "JPEG images are at most 65500 wide and high");
    if (f == TSR_FORMAT_WEBP && (img->width > 16383 || img->height > 16383))
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "WebP images are at most 16383 wide and high");
    return TSR_OK;
}

tsr_status tsr_image_save(tsr_ctx *ctx, const char *path, const tsr_image *img,
                          const tsr_save_options *opt)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (!path)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "output path is NULL");
    tsr_save_options o;
    if (opt)
        o = *opt;
    else
        tsr_save_options_init(&o);
    if (o.jpeg_quality < 1 || o.jpeg_quality > 100)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "JPEG quality %d is outside 1..100",
                         o.jpeg_quality);
    if (o.png_compression < 0 || o.png_compression > 9)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "PNG compression %d is outside 0..9",
                         o.png_compression);
    if (o.webp_quality < 0 || o.webp_quality > 100)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "WebP quality %d is outside 0..100 (0: lossless)", o.webp_quality);
    tsr_format f = o.format;
    tsr_file_type named = TSR_FILE_NONE; /* PGM and PPM say which PNM */
    if (f == TSR_FORMAT_UNKNOWN) {
        if ((st = tsr_output_format(ctx, path, TSR_WRITES_IMAGE, TSR_FILE_NONE, &named)) != TSR_OK)
            return st;
        f = tsr_file_type_image(named);
    }
    st = tsr_image_check(ctx, img);
    if (st == TSR_OK)
        st = tsr__image_check_savable(ctx, f, img);
    if (st != TSR_OK)
        return tsr__image_prefix_path(ctx, st, path);
    if ((st = tsr_file_type_check_channels(ctx, path, named, img->channels)) != TSR_OK)
        return st;

    tsr__atomic_file af;
    st = tsr__atomic_open(ctx, path, &af);
    if (st != TSR_OK)
        return st; /* the message names the path */
    af.sync = o.sync;
    switch (f) {
    case TSR_FORMAT_PNG: st = tsr__png_encode(ctx, img, o.png_compression, &af); break;
    case TSR_FORMAT_JPEG: st = tsr__jpeg_encode(ctx, img, o.jpeg_quality, &af); break;
    case TSR_FORMAT_PAM: st = tsr__pam_encode(ctx, img, &af); break;
    case TSR_FORMAT_PFM: st = tsr__pfm_encode(ctx, img, &af); break;
    case TSR_FORMAT_TIFF: st = tsr__tiff_encode(ctx, img, &af); break;
    case TSR_FORMAT_WEBP: st = tsr__webp_encode(ctx, img, o.webp_quality, &af); break;
    case TSR_FORMAT_BMP: st = tsr__bmp_encode(ctx, img, &af); break;
    default: st = tsr__pnm_encode(ctx, img, &af); break;
    }
    if (st != TSR_OK) {
        tsr__atomic_abort(ctx, &af);
        return tsr__image_prefix_path(ctx, st, path);
    }
    return tsr__atomic_commit(ctx, &af); /* aborts by itself on failure; names the path */
}
