/* Image formats: names and detection from a file's first bytes; and the rule that gives an
 * output name its format (format.h), for images and every other file tessera writes. Reading
 * never trusts a name; writing asks the name only when the caller does not say. */
#include "io/format.h"

#include <stdio.h>
#include <string.h>

const char *tsr_format_name(tsr_format format)
{
    switch (format) {
    case TSR_FORMAT_PNG: return "png";
    case TSR_FORMAT_JPEG: return "jpeg";
    case TSR_FORMAT_PNM: return "pnm";
    case TSR_FORMAT_UNKNOWN: break;
    }
    return "unknown";
}

/* Signatures: PNG, the 8 bytes of ISO 15948 5.2; JPEG, SOI followed by the first byte of the
 * next marker (FF D8 FF); PNM, 'P' and a digit 1..6 (netpbm: P1/P4 bitmaps, P2/P5 graymaps,
 * P3/P6 pixmaps) followed by whitespace, or by '#' starting a comment. Bitmaps are detected so
 * that the decoder can say they are unsupported rather than "unknown format". */
tsr_format tsr_format_detect(const void *head, size_t len)
{
    static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    const unsigned char *p = head;
    if (!p)
        return TSR_FORMAT_UNKNOWN;
    if (len >= 8 && memcmp(p, png_sig, 8) == 0)
        return TSR_FORMAT_PNG;
    if (len >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff)
        return TSR_FORMAT_JPEG;
    if (len >= 3 && p[0] == 'P' && p[1] >= '1' && p[1] <= '6' &&
        (p[2] == ' ' || p[2] == '\t' || p[2] == '\n' || p[2] == '\r' || p[2] == '\v' ||
         p[2] == '\f' || p[2] == '#'))
        return TSR_FORMAT_PNM;
    return TSR_FORMAT_UNKNOWN;
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
    tsr__file_format format;
} extensions[] = {
    {"png", TSR__FILE_PNG},  {"jpg", TSR__FILE_JPEG},        {"jpeg", TSR__FILE_JPEG},
    {"jpe", TSR__FILE_JPEG}, {"ppm", TSR__FILE_PPM},         {"pgm", TSR__FILE_PGM},
    {"pnm", TSR__FILE_PNM},  {"pgx", TSR__FILE_PGX},         {"json", TSR__FILE_JSON},
    {"svg", TSR__FILE_SVG},  {"graphml", TSR__FILE_GRAPHML},
};

/* The extension of path's last component (NULL when none). */
static const char *extension_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    return !dot || dot == base || !dot[1] ? NULL : dot + 1;
}

tsr__file_format tsr__file_format_of(const char *path)
{
    const char *ext = path ? extension_of(path) : NULL;
    if (!ext)
        return TSR__FILE_NONE;
    for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++)
        if (ext_equal(ext, extensions[i].ext))
            return extensions[i].format;
    return TSR__FILE_OTHER;
}

tsr_format tsr__file_format_image(tsr__file_format f)
{
    switch (f) {
    case TSR__FILE_PNG: return TSR_FORMAT_PNG;
    case TSR__FILE_JPEG: return TSR_FORMAT_JPEG;
    case TSR__FILE_PGM:
    case TSR__FILE_PPM:
    case TSR__FILE_PNM: return TSR_FORMAT_PNM;
    default: return TSR_FORMAT_UNKNOWN;
    }
}

tsr_format tsr_format_from_name(const char *path)
{
    return tsr__file_format_image(tsr__file_format_of(path));
}

tsr_status tsr__output_format(tsr_ctx *ctx, const char *path, unsigned writable,
                              tsr__file_format fallback, tsr__file_format *out)
{
    tsr__file_format f = tsr__file_format_of(path);
    if (f == TSR__FILE_NONE && fallback != TSR__FILE_NONE)
        f = fallback;
    if (f != TSR__FILE_NONE && f != TSR__FILE_OTHER && (writable & TSR__FILE_BIT(f))) {
        *out = f;
        return TSR_OK;
    }
    char list[160] = "";
    size_t used = 0;
    for (size_t i = 0; i < sizeof extensions / sizeof extensions[0]; i++)
        if (writable & TSR__FILE_BIT(extensions[i].format)) {
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

tsr_status tsr__file_format_check_channels(tsr_ctx *ctx, const char *path, tsr__file_format f,
                                           int channels)
{
    if (f == TSR__FILE_PGM && channels != 1)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "%s: PGM holds gray images; this one has %d channels (use .ppm for "
                         "colour, or .pnm, which takes either)",
                         path, channels);
    if (f == TSR__FILE_PPM && channels != 3)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED,
                         "%s: PPM holds colour (RGB) images; this one has %d channel%s (use .pgm "
                         "for gray, or .pnm, which takes either)",
                         path, channels, channels == 1 ? "" : "s");
    return TSR_OK;
}
