/* tessera image I/O: PNG (libpng), JPEG (libjpeg-turbo), PNM (PBM/PGM/PPM, 8 and 16 bit), PAM,
 * PFM (32-bit float), TIFF (libtiff), WebP (libwebp) and BMP. JPEG 2000 files are recognised here
 * and decoded by tessera/j2k.h.
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
    TSR_FORMAT_PNM,
    TSR_FORMAT_PAM,  /* netpbm P7 */
    TSR_FORMAT_PFM,  /* portable float map: "PF" (RGB) or "Pf" (gray), f32 */
    TSR_FORMAT_TIFF, /* baseline TIFF and BigTIFF, through libtiff */
    TSR_FORMAT_WEBP, /* RIFF WebP, through libwebp */
    TSR_FORMAT_BMP,  /* Windows bitmap */
    TSR_FORMAT_JP2,  /* JPEG 2000 JP2/JPH file: detected only, decoded by tessera/j2k.h */
    TSR_FORMAT_J2K   /* JPEG 2000 codestream: detected only, decoded by tessera/j2k.h */
} tsr_format;

/* "png", "jpeg", "pnm", "pam", "pfm", "tiff", "webp", "bmp", "jp2", "j2k", "unknown". */
const char *tsr_format_name(tsr_format format);
/* The format a file's first bytes announce (TSR_FORMAT_UNKNOWN when none matches). */
tsr_format tsr_format_detect(const void *head, size_t len);
/* The format an output file name asks for by its extension (.png, .jpg/.jpeg, .pgm/.ppm/.pnm,
 * .pam, .pfm, .tif/.tiff, .webp, .bmp, .jp2, .j2k/.j2c); TSR_FORMAT_UNKNOWN for other
 * extensions, which tsr_image_save refuses naming them. .pgm holds gray images only, .ppm
 * colour only, .pnm either. tsr_image_save does not write JP2/J2K (tsr_j2k_encode_save does). */
tsr_format tsr_format_from_name(const char *path);

/* Decodes an image held in memory. Allocates out->data with tsr_image_alloc (free it with
 * tsr_image_free). Output samples are u8, or u16 (native byte order) for 16-bit PNG and TIFF and
 * for PNM/PAM with maxval > 255, or f32 for PFM and floating-point TIFF; channels are as stored
 * (gray, gray+alpha, RGB, RGBA; palettes expand to RGB/RGBA, or to gray where every entry is
 * gray; tRNS becomes alpha, low bit depths expand to 8). JPEG gives gray or RGB with libjpeg's
 * default islow IDCT and fancy upsampling (OpenCV's imread pixels); CMYK/YCCK JPEG is
 * TSR_ERR_UNSUPPORTED. PNM/PAM samples are kept for maxval 255/65535 and otherwise scaled to
 * the full range of the output depth, rounding; PBM bitmaps (P1/P4) give u8 gray, 0 black and
 * 255 white. WebP gives RGB, or RGBA when the file has alpha. BMP reads 1/4/8-bit palettes and
 * 16/24/32-bit pixels (BI_RGB, BI_BITFIELDS), bottom-up or top-down; alpha where the header has
 * an alpha mask. TIFF reads 1 to 16-bit integer and 32-bit float samples, gray, gray+alpha, RGB,
 * RGBA and palette, contiguous or planar, any compression libtiff decodes (other layouts go
 * through libtiff's RGBA reader as 8-bit RGBA). JP2/J2K data give TSR_ERR_UNSUPPORTED naming
 * tsr_j2k_decode_image. format (may be NULL) receives the detected format.
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
    int webp_quality;    /* 0 (default): lossless WebP (the same pixels back); 1..100: lossy */
    int sync;            /* 1: fsync the file and its folder before the rename, so that the
                            file survives a power loss; default 0 (atomic rename only, as
                            OpenCV, OpenJPEG and ImageMagick write) */
} tsr_save_options;

void tsr_save_options_init(tsr_save_options *opt);
/* Encodes a host image and writes it atomically (temporary file, then rename). What each format
 * holds (anything else is TSR_ERR_UNSUPPORTED naming it): JPEG u8 gray or RGB; PNG and PAM u8
 * and u16, 1-4 channels; PNM u8 and u16 without alpha; PFM f32 gray or RGB (little-endian, scale
 * -1); TIFF u8, u16 and f32, 1-4 channels (Deflate-compressed, contiguous); WebP u8 RGB
 * or RGBA (lossless unless webp_quality is set); BMP u8 gray (8-bit gray palette), RGB (24-bit)
 * and RGBA (32-bit with an alpha mask). opt may be NULL. */
tsr_status tsr_image_save(tsr_ctx *ctx, const char *path, const tsr_image *img,
                          const tsr_save_options *opt);

#ifdef __cplusplus
}
#endif
#endif
