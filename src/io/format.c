/* Image formats: names and detection from a file's first bytes; and the rule that gives an
 * output name its format (format.h), for images and every other file tessera writes. Reading
 * never trusts a name; writing asks the name only when the caller does not say. */
#include "tessera/io.h"

#include "core/ctx.h"

#include <stdio.h>
#include <string.h>

const char *tsr_format_name(tsr_format format)
{
    switch (format) {
    case TSR_FORMAT_PNG: return "png";
    case TSR_FORMAT_JPEG: return "jpeg";
    case TSR_FORMAT_PNM: return "pnm";
    case TSR_FORMAT_PAM: return "pam";
    case TSR_FORMAT_PFM: return "pfm";
    case TSR_FORMAT_TIFF: return "tiff";
    case TSR_FORMAT_WEBP: return "webp";
    case TSR_FORMAT_BMP: return "bmp";
    case TSR_FORMAT_JP2: return "jp2";
    case TSR_FORMAT_J2K: return "j2k";
    case TSR_FORMAT_UNKNOWN: break;
    }
    return "unknown";
}

static int is_netpbm_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Signatures: PNG, the 8 bytes of ISO 15948 5.2; JPEG, SOI followed by the first byte of the
 * next marker (FF D8 FF); PNM, 'P' and a digit 1..6 (netpbm: P1/P4 bitmaps, P2/P5 graymaps,
 * P3/P6 pixmaps) followed by whitespace, or by '#' starting a comment; PAM, "P7" and
 * whitespace; PFM, "PF" or "Pf" and whitespace; TIFF, "II*\0" or "MM\0*" (BigTIFF: 43 for 42);
 * WebP, "RIFF", a size, "WEBP"; BMP, "BM" (the file header is checked by the decoder);
 * JPEG 2000, the JP2 signature box (T.800 I.5.1) or SOC followed by SIZ (FF 4F FF 51). */
tsr_format tsr_format_detect(const void *head, size_t len)
{
    static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const unsigned char jp2_sig[12] = {0,   0,   0,    12,   'j',  'P',
                                              ' ', ' ', '\r', '\n', 0x87, '\n'};
    const unsigned char *p = head;
    if (!p)
        return TSR_FORMAT_UNKNOWN;
    if (len >= 8 && memcmp(p, png_sig, 8) == 0)
        return TSR_FORMAT_PNG;
    if (len >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff)
        return TSR_FORMAT_JPEG;
    if (len >= 3 && p[0] == 'P' && p[1] >= '1' && p[1] <= '6' &&
        (is_netpbm_space(p[2]) || p[2] == '#'))
        return TSR_FORMAT_PNM;
    if (len >= 3 && p[0] == 'P' && p[1] == '7' && is_netpbm_space(p[2]))
        return TSR_FORMAT_PAM;
    if (len >= 3 && p[0] == 'P' && (p[1] == 'F' || p[1] == 'f') && is_netpbm_space(p[2]))
        return TSR_FORMAT_PFM;
    if (len >= 4 && ((p[0] == 'I' && p[1] == 'I' && (p[2] == 42 || p[2] == 43) && p[3] == 0) ||
                     (p[0] == 'M' && p[1] == 'M' && p[2] == 0 && (p[3] == 42 || p[3] == 43))))
        return TSR_FORMAT_TIFF;
    if (len >= 12 && memcmp(p, "RIFF", 4) == 0 && memcmp(p + 8, "WEBP", 4) == 0)
        return TSR_FORMAT_WEBP;
    if (len >= 2 && p[0] == 'B' && p[1] == 'M')
        return TSR_FORMAT_BMP;
    if (len >= 12 && memcmp(p, jp2_sig, 12) == 0)
        return TSR_FORMAT_JP2;
    if (len >= 4 && p[0] == 0xff && p[1] == 0x4f && p[2] == 0xff && p[3] == 0x51)
        return TSR_FORMAT_J2K;
    return TSR_FORMAT_UNKNOWN;
}

unsigned tsr_format_depths(tsr_format f)
{
    const unsigned u8 = TSR_DEPTH_BIT(TSR_U8), u16 = TSR_DEPTH_BIT(TSR_U16),
                   f32 = TSR_DEPTH_BIT(TSR_F32);
    switch (f) {
    case TSR_FORMAT_JPEG:
    case TSR_FORMAT_WEBP:
    case TSR_FORMAT_BMP: return u8;
    case TSR_FORMAT_PNG:
    case TSR_FORMAT_PNM:
    case TSR_FORMAT_PAM:
    case TSR_FORMAT_JP2:
    case TSR_FORMAT_J2K: return u8 | u16;
    case TSR_FORMAT_PFM: return f32;
    case TSR_FORMAT_TIFF: return u8 | u16 | f32;
    case TSR_FORMAT_UNKNOWN: break;
    }
    return 0;
}

unsigned tsr_format_channels(tsr_format f)
{
    const unsigned gray = TSR_CHANNELS_BIT(1), rgb = TSR_CHANNELS_BIT(3),
                   alpha = TSR_CHANNELS_BIT(2) | TSR_CHANNELS_BIT(4);
    switch (f) {
    case TSR_FORMAT_JPEG:
    case TSR_FORMAT_PNM:
    case TSR_FORMAT_PFM: return gray | rgb;
    case TSR_FORMAT_WEBP: return rgb | TSR_CHANNELS_BIT(4);
    case TSR_FORMAT_BMP: return gray | rgb | TSR_CHANNELS_BIT(4);
    case TSR_FORMAT_PNG:
    case TSR_FORMAT_PAM:
    case TSR_FORMAT_TIFF:
    case TSR_FORMAT_JP2:
    case TSR_FORMAT_J2K: return gray | rgb | alpha;
    case TSR_FORMAT_UNKNOWN: break;
    }
    return 0;
}

/* ASCII case-insensitive comparison of two NUL-terminated strings (locale-independent). */
static int ext_equal(const char *a, const char *b)
{
    for (;; a++, b++) {
        unsigned char ca = (unsigned char)*a, cb = (unsigned char)*b;
        if (ca >= 'A' && ca <= 'Z')
            ca = (unsigned char)(ca - 'A' + 'a');
        if (ca != cb)
            return 0;
        if (!ca)
            return 1;
    }
}

/* Every extension tessera writes, in the order messages list them. */
static const struct {
    const char *ext;
    tsr_file_type format;
} extensions[] = {
    {"png", TSR_FILE_PNG},  {"jpg", TSR_FILE_JPEG},        {"jpeg", TSR_FILE_JPEG},
    {"jpe", TSR_FILE_JPEG}, {"ppm", TSR_FILE_PPM},         {"pgm", TSR_FILE_PGM},
    {"pnm", TSR_FILE_PNM},  {"pam", TSR_FILE_PAM},         {"pfm", TSR_FILE_PFM},
    {"tif", TSR_FILE_TIFF}, {"tiff", TSR_FILE_TIFF},       {"webp", TSR_FILE_WEBP},
    {"bmp", TSR_FILE_BMP},  {"jp2", TSR_FILE_JP2},         {"j2k", TSR_FILE_J2K},
    {"j2c", TSR_FILE_J2K},  {"pgx", TSR_FILE_PGX},         {"json", TSR_FILE_JSON},
    {"svg", TSR_FILE_SVG},  {"graphml", TSR_FILE_GRAPHML},
};

/* The extension of path's last component (NULL when none). */
static const char *extension_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    return !dot || dot == base || !dot[1] ? NULL : dot + 1;
}

tsr_file_type tsr_file_type_of(const char *path)
{
    const char *ext = path ? extension_of(path) : NULL;
    if (!ext)
        return TSR_FILE_NONE;
    for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++)
        if (ext_equal(ext, extensions[i].ext))
            return extensions[i].format;
    return TSR_FILE_OTHER;
}

tsr_format tsr_file_type_image(tsr_file_type f)
{
    switch (f) {
    case TSR_FILE_PNG: return TSR_FORMAT_PNG;
    case TSR_FILE_JPEG: return TSR_FORMAT_JPEG;
    case TSR_FILE_PGM:
    case TSR_FILE_PPM:
    case TSR_FILE_PNM: return TSR_FORMAT_PNM;
    case TSR_FILE_PAM: return TSR_FORMAT_PAM;
    case TSR_FILE_PFM: return TSR_FORMAT_PFM;
    case TSR_FILE_TIFF: return TSR_FORMAT_TIFF;
    case TSR_FILE_WEBP: return TSR_FORMAT_WEBP;
    case TSR_FILE_BMP: return TSR_FORMAT_BMP;
    case TSR_FILE_JP2: return TSR_FORMAT_JP2;
    case TSR_FILE_J2K: return TSR_FORMAT_J2K;
    default: return TSR_FORMAT_UNKNOWN;
    }
}

tsr_format tsr_format_from_name(const char *path)
{
    return tsr_file_type_image(tsr_file_type_of(path));
}

tsr_status tsr_output_format(tsr_ctx *ctx, const char *path, unsigned writable,
                             tsr_file_type fallback, tsr_file_type *out)
{
    tsr_file_type f = tsr_file_type_of(path);
    if (f == TSR_FILE_NONE && fallback != TSR_FILE_NONE)
        f = fallback;
    if (f != TSR_FILE_NONE && f != TSR_FILE_OTHER && (writable & TSR_FILE_BIT(f))) {
        *out = f;
        return TSR_OK;
    }
    char list[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++)
        if (writable & TSR_FILE_BIT(extensions[i].format)) {
            int n = snprintf(list + used, sizeof list - used, "%s.%s", used ? ", " : "",
                             extensions[i].ext);
            if (n < 0 || (size_t)n >= sizeof list - used)
                break;
            used += (size_t)n;
        }
    const char *ext = extension_of(path);
    if (!ext)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "%s: no extension to choose the format by (it writes %s)", path, list);
    return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                     "%s: tessera cannot write .%s files here (it writes %s)", path, ext, list);
}

tsr_status tsr_file_type_check_channels(tsr_ctx *ctx, const char *path, tsr_file_type f,
                                        int channels)
{
    if (f == TSR_FILE_PGM && channels != 1)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "%s: PGM holds gray images; this one has %d channels (use .ppm for "
                         "colour, or .pnm, which takes either)",
                         path, channels);
    if (f == TSR_FILE_PPM && channels != 3)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "%s: PPM holds colour (RGB) images; this one has %d channel%s (use .pgm "
                         "for gray, or .pnm, which takes either)",
                         path, channels, channels == 1 ? "" : "s");
    return TSR_OK;
}
