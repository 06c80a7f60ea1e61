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
tsr_status tsr__pnm_decode(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr_image *out);

/* level: zlib compression level 0..9. */
tsr_status tsr__png_encode(tsr_ctx *ctx, const tsr_image *img, int level, tsr__atomic_file *af);
/* quality 1..100; img is u8 with 1 or 3 channels. */
tsr_status tsr__jpeg_encode(tsr_ctx *ctx, const tsr_image *img, int quality, tsr__atomic_file *af);
/* img has 1 or 3 channels (P5 / P6), u8 (maxval 255) or u16 (maxval 65535). */
tsr_status tsr__pnm_encode(tsr_ctx *ctx, const tsr_image *img, tsr__atomic_file *af);

/* 1 when this machine stores integers little-endian (16-bit samples are swapped for files). */
static inline int tsr__host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

#endif
