/* The image codecs' internal entry points, called by image_io.c (not installed).
 *
 * Decoders: data/len is the whole file in memory (len >= 1; the caller has checked the magic).
 * On success *out holds an image from tsr_image_alloc; on failure *out is untouched, nothing
 * leaks, and the context's message names the problem, prefixed by the format ("PNG: ...").
 * Status: TSR_ERR_CORRUPT for malformed or truncated data, TSR_ERR_UNSUPPORTED for valid files
 * using features tessera does not read, TSR_ERR_LIMIT / TSR_ERR_OUT_OF_MEMORY / TSR_ERR_OVERFLOW
 * for sizes.
 *
 * Encoders: img is a checked host image whose depth and channels the caller has already
 * accepted for the format (see image_io.c); they write the whole file to af and never commit
 * or abort it (the caller does). */
#ifndef TSR_IO_CODECS_H
#define TSR_IO_CODECS_H

#include "io/atomic_file.h"
#include "tessera/io.h"

#include <stddef.h>
#include <stdint.h>

tsr_status tsr__png_decode(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr_image *out);
tsr_status tsr__jpeg_decode(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr_image *out);
/* The size and channels (1 gray, 3 RGB) tsr__jpeg_decode would give, from the header alone,
 * with its errors (and its max_image_pixels check) for what the header shows. */
tsr_status tsr__jpeg_info(tsr_ctx *ctx, const uint8_t *data, size_t len, int32_t *width,
                          int32_t *height, int32_t *channels);
/* TSR_ERR_CORRUPT ("Premature end of JPEG file", as tsr__jpeg_decode says) unless an EOI marker
 * follows the first SOS: for decoders that do not report truncation (nvJPEG's hardware path).
 * FF D9 cannot occur inside entropy-coded data (an FF there is followed by 00 or RSTn). */
tsr_status tsr__jpeg_check_complete(tsr_ctx *ctx, const uint8_t *data, size_t len);
tsr_status tsr__pnm_decode(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr_image *out);
tsr_status tsr__pam_decode(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr_image *out);
tsr_status tsr__pfm_decode(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr_image *out);
tsr_status tsr__tiff_decode(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr_image *out);
tsr_status tsr__webp_decode(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr_image *out);
tsr_status tsr__bmp_decode(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr_image *out);

/* level: zlib compression level 0..9. */
tsr_status tsr__png_encode(tsr_ctx *ctx, const tsr_image *img, int level, tsr__atomic_file *af);
/* quality 1..100; img is u8 with 1 or 3 channels. */
tsr_status tsr__jpeg_encode(tsr_ctx *ctx, const tsr_image *img, int quality, tsr__atomic_file *af);
/* img has 1 or 3 channels (P5 / P6), u8 (maxval 255) or u16 (maxval 65535). */
tsr_status tsr__pnm_encode(tsr_ctx *ctx, const tsr_image *img, tsr__atomic_file *af);
/* 1-4 channels, u8 or u16; TUPLTYPE GRAYSCALE, GRAYSCALE_ALPHA, RGB or RGB_ALPHA. */
tsr_status tsr__pam_encode(tsr_ctx *ctx, const tsr_image *img, tsr__atomic_file *af);
/* f32, 1 or 3 channels. */
tsr_status tsr__pfm_encode(tsr_ctx *ctx, const tsr_image *img, tsr__atomic_file *af);
/* u8, u16 or f32, 1-4 channels. */
tsr_status tsr__tiff_encode(tsr_ctx *ctx, const tsr_image *img, tsr__atomic_file *af);
/* u8, 3 or 4 channels; quality 0: lossless, 1..100: lossy. */
tsr_status tsr__webp_encode(tsr_ctx *ctx, const tsr_image *img, int quality, tsr__atomic_file *af);
/* u8, 1, 3 or 4 channels. */
tsr_status tsr__bmp_encode(tsr_ctx *ctx, const tsr_image *img, tsr__atomic_file *af);

/* The same encoders row by row (row_writer.c), for an image described by img (its data is not
 * used): begin (PNG) or the header (PNM), then rows top to bottom, count at a time, `stride`
 * bytes apart, then the end (PNG); the bytes are those of the whole-image calls above, which
 * are made of these steps. A PNG encoder from begin is freed by tsr__png_encode_free (also
 * after a failure). */
typedef struct tsr__png_enc tsr__png_enc;
tsr_status tsr__png_encode_begin(tsr_ctx *ctx, const tsr_image *img, int level,
                                 tsr__atomic_file *af, tsr__png_enc **out);
tsr_status tsr__png_encode_rows(tsr__png_enc *e, const void *rows, size_t stride, size_t count);
tsr_status tsr__png_encode_end(tsr__png_enc *e);
void tsr__png_encode_free(tsr__png_enc *e);
tsr_status tsr__pnm_encode_header(tsr_ctx *ctx, const tsr_image *img, tsr__atomic_file *af);
tsr_status tsr__pnm_encode_rows(tsr_ctx *ctx, const tsr_image *img, const void *rows, size_t stride,
                                size_t count, tsr__atomic_file *af);

/* image_io.c: whether format f can hold img (TSR_OK, else fails naming what it cannot), and a
 * failure's message prefixed with the path ("PATH: message"), as tsr_image_save reports them. */
tsr_status tsr__image_check_savable(tsr_ctx *ctx, tsr_format f, const tsr_image *img);
tsr_status tsr__image_prefix_path(tsr_ctx *ctx, tsr_status st, const char *path);

/* The largest image a decoder may allocate: fails with TSR_ERR_LIMIT, the message naming the
 * format prefix ("BMP: "), when width x height exceeds the context's max_image_pixels. */
tsr_status tsr__image_check_pixels(tsr_ctx *ctx, const char *prefix, uint64_t width,
                                   uint64_t height);

/* 1 when this machine stores integers little-endian (16-bit samples are swapped for files). */
static inline int tsr__host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

#endif
