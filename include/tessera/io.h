/* tessera image I/O: PNG (libpng), JPEG (libjpeg-turbo), PNM (PGM/PPM, P5/P6, 8 and 16 bit).
 *
 * Readers choose the format from the file's first bytes, never from its name. Writers choose it
 * from the output name's extension (or explicitly) and write through a temporary file in the
 * same folder that is renamed into place only when complete, so a failed write leaves nothing;
 * a symlink is followed to its target and a replaced file keeps its mode, while "-" (standard
 * output), devices and FIFOs are written directly. */
#ifndef TESSERA_IO_H
#define TESSERA_IO_H

#include "tessera/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tsr_format {
    TSR_FORMAT_UNKNOWN = 0,
    TSR_FORMAT_PNG,
    TSR_FORMAT_JPEG,
    TSR_FORMAT_PNM
} tsr_format;

/* "png", "jpeg", "pnm", "unknown". */
const char *tsr_format_name(tsr_format format);
/* The format a file's first bytes announce (TSR_FORMAT_UNKNOWN when none matches). */
tsr_format tsr_format_detect(const void *head, size_t len);
/* The format an output file name asks for by its extension (.png, .jpg/.jpeg, .pgm/.ppm/.pnm);
 * TSR_FORMAT_UNKNOWN for other extensions, which tsr_image_save refuses naming them. .pgm holds
 * gray images only, .ppm colour only, .pnm either. */
tsr_format tsr_format_from_name(const char *path);

/* Decodes an image held in memory. Allocates out->data with tsr_image_alloc (free it with
 * tsr_image_free). Output samples are u8, or u16 (native byte order) for 16-bit PNG and for PNM
 * with maxval > 255; channels are as stored (gray, gray+alpha, RGB, RGBA; palettes expand to
 * RGB/RGBA, tRNS becomes alpha, low bit depths expand to 8). JPEG gives gray or RGB with
 * libjpeg's default islow IDCT and fancy upsampling (OpenCV's imread pixels); CMYK/YCCK JPEG is
 * TSR_ERR_UNSUPPORTED. PNM samples are kept for maxval 255/65535 and otherwise scaled to the
 * full range of the output depth, rounding. format (may be NULL) receives the detected format.
 * Malformed or truncated data gives TSR_ERR_CORRUPT with a message naming the problem; sizes
 * over the context's max_image_pixels or max_memory give TSR_ERR_LIMIT before the image is
 * allocated. On failure *out is untouched and nothing is left allocated. */
tsr_status tsr_image_decode(tsr_ctx *ctx, const void *data, size_t len, tsr_image *out,
                            tsr_format *format);
/* Reads and decodes a file (see tsr_image_decode); the file must fit in max_memory. Failure
 * messages start with the path. */
tsr_status tsr_image_load(tsr_ctx *ctx, const char *path, tsr_image *out, tsr_format *format);

typedef struct tsr_save_options {
    tsr_format format;   /* TSR_FORMAT_UNKNOWN (default): from the file name's extension */
    int jpeg_quality;    /* 1..100, default 95 */
    int png_compression; /* 0..9, default 3 (zlib level; fast, as OpenCV's default is) */
    int sync;            /* 1: fsync the file and its folder before the rename, so that the
                            file survives a power loss; default 0 (atomic rename only, as
                            OpenCV, OpenJPEG and ImageMagick write) */
} tsr_save_options;

void tsr_save_options_init(tsr_save_options *opt);
/* Encodes a host image and writes it atomically (temporary file, then rename). JPEG takes u8
 * gray or RGB only; PNG and PNM take u8 and u16 (PNM without alpha). f32 images are rejected
 * with TSR_ERR_UNSUPPORTED. opt may be NULL. */
tsr_status tsr_image_save(tsr_ctx *ctx, const char *path, const tsr_image *img,
                          const tsr_save_options *opt);

#ifdef __cplusplus
}
#endif
#endif
