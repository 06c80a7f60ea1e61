/* Image formats: names, detection from a file's first bytes, and the extension of an output
 * name. Reading never trusts a name; writing asks the name only when the caller does not say. */
#include "tessera/io.h"

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

/* The extension is what follows the last '.' of the last path component. */
tsr_format tsr_format_from_name(const char *path)
{
    static const struct {
        const char *ext;
        tsr_format format;
    } table[] = {
        {"png", TSR_FORMAT_PNG},  {"jpg", TSR_FORMAT_JPEG}, {"jpeg", TSR_FORMAT_JPEG},
        {"jpe", TSR_FORMAT_JPEG}, {"pgm", TSR_FORMAT_PNM},  {"ppm", TSR_FORMAT_PNM},
        {"pnm", TSR_FORMAT_PNM},
    };
    if (!path)
        return TSR_FORMAT_UNKNOWN;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base)
        return TSR_FORMAT_UNKNOWN; /* no extension, or a hidden file's name such as ".png" */
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (ext_equal(dot + 1, table[i].ext))
            return table[i].format;
    return TSR_FORMAT_UNKNOWN;
}
