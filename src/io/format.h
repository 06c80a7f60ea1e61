/* The one rule that maps an output file's name to the format tessera writes into it, for every
 * command and writer: the extension after the last '.' of the last path component, compared
 * without case. A name without one ("-", "out") has TSR__FILE_NONE and takes the format its
 * command falls back to (documented per command); an extension that names no format tessera
 * writes is an error naming the extension and the formats it can write there. */
#ifndef TSR_IO_FORMAT_H
#define TSR_IO_FORMAT_H

#include "core/ctx.h"
#include "tessera/io.h"

typedef enum tsr__file_format {
    TSR__FILE_NONE = 0, /* no extension */
    TSR__FILE_PNG,      /* .png */
    TSR__FILE_JPEG,     /* .jpg .jpeg .jpe */
    TSR__FILE_PGM,      /* .pgm: P5, gray only */
    TSR__FILE_PPM,      /* .ppm: P6, colour only */
    TSR__FILE_PNM,      /* .pnm: P5 for gray, P6 for colour */
    TSR__FILE_PAM,      /* .pam: P7 */
    TSR__FILE_PFM,      /* .pfm: Pf gray, PF colour, f32 */
    TSR__FILE_TIFF,     /* .tif .tiff */
    TSR__FILE_WEBP,     /* .webp */
    TSR__FILE_BMP,      /* .bmp */
    TSR__FILE_JP2,      /* .jp2: JPEG 2000 file (tsr_j2k_encode_save) */
    TSR__FILE_J2K,      /* .j2k .j2c: JPEG 2000 codestream (tsr_j2k_encode_save) */
    TSR__FILE_PGX,      /* .pgx: JPEG 2000 conformance planes */
    TSR__FILE_JSON,     /* .json: contest graph drawing */
    TSR__FILE_SVG,      /* .svg */
    TSR__FILE_GRAPHML,  /* .graphml */
    TSR__FILE_OTHER     /* an extension of no format tessera writes */
} tsr__file_format;

#define TSR__FILE_BIT(f) (1u << (f))
/* What the row writer writes: PNG and PNM. */
#define TSR__WRITES_ROWS                                                                           \
    (TSR__FILE_BIT(TSR__FILE_PNG) | TSR__FILE_BIT(TSR__FILE_PGM) | TSR__FILE_BIT(TSR__FILE_PPM) |  \
     TSR__FILE_BIT(TSR__FILE_PNM))
/* What tsr_image_save writes. */
#define TSR__WRITES_IMAGE                                                                          \
    (TSR__WRITES_ROWS | TSR__FILE_BIT(TSR__FILE_JPEG) | TSR__FILE_BIT(TSR__FILE_PAM) |             \
     TSR__FILE_BIT(TSR__FILE_PFM) | TSR__FILE_BIT(TSR__FILE_TIFF) |                                \
     TSR__FILE_BIT(TSR__FILE_WEBP) | TSR__FILE_BIT(TSR__FILE_BMP))
/* Image files with JPEG 2000 too (tsr_j2k_encode_save writes those). */
#define TSR__WRITES_IMAGE_J2K                                                                      \
    (TSR__WRITES_IMAGE | TSR__FILE_BIT(TSR__FILE_JP2) | TSR__FILE_BIT(TSR__FILE_J2K))

/* What an image format holds, the one table tsr_image_save checks and the CLI converts to:
 * a mask of TSR__DEPTH_BIT(depth) and one of TSR__CHANNELS_BIT(channels) (1..4). JP2/J2K are
 * the JPEG 2000 encoder's (u8/u16, 1-4 channels). */
#define TSR__DEPTH_BIT(d) (1u << (d))
#define TSR__CHANNELS_BIT(c) (1u << (c))
unsigned tsr__format_depths(tsr_format f);
unsigned tsr__format_channels(tsr_format f);

/* The format path's extension names (TSR__FILE_NONE without one, also for "-" and for a hidden
 * file's bare name such as ".png"; TSR__FILE_OTHER for one tessera does not write). */
tsr__file_format tsr__file_format_of(const char *path);
/* The image format a file format is written by (TSR_FORMAT_UNKNOWN for non-image formats). */
tsr_format tsr__file_format_image(tsr__file_format f);
/* The format to write path in: its extension's when that is in `writable` (a mask of
 * TSR__FILE_BIT), `fallback` when the name has no extension and fallback is not
 * TSR__FILE_NONE; otherwise TSR_ERR_INVALID_ARGUMENT with the message "PATH: tessera cannot
 * write .EXT files here (it writes .png, .jpg, ...)" or, without an extension, "PATH: no
 * extension to choose the format (...)". */
tsr_status tsr__output_format(tsr_ctx *ctx, const char *path, unsigned writable,
                              tsr__file_format fallback, tsr__file_format *out);
/* Whether an image of `channels` channels can be written as f (PGM gray, PPM colour, PNM and
 * the others any); fails naming the format and what it holds. */
tsr_status tsr__file_format_check_channels(tsr_ctx *ctx, const char *path, tsr__file_format f,
                                           int channels);

#endif
