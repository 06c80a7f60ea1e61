/* An image file written row by row as the rows arrive, top to bottom (PNG and PNM), for
 * producers that never hold the whole image (tsr_j2k_decode_rows in `tessera j2k decode`).
 * The file's bytes are those tsr_image_save(ctx, path, image, NULL) writes for the same image
 * (the same encoders, codecs.h), and it keeps that function's contract: the rows go to a
 * temporary file beside the destination (atomic_file.h), renamed over it only when every row
 * is written and tsr__row_writer_close succeeds; any failure, or tsr__row_writer_abort, removes
 * the temporary file and leaves the destination untouched.
 *
 * Use: tsr__row_writer_open; tsr__row_writer_rows any number of times; then exactly one of
 * tsr__row_writer_close or tsr__row_writer_abort (close aborts by itself when it fails). */
#ifndef TSR_IO_ROW_WRITER_H
#define TSR_IO_ROW_WRITER_H

#include "io/atomic_file.h"
#include "tessera/io.h"

typedef struct tsr__png_enc tsr__png_enc;

typedef struct tsr__row_writer {
    tsr_ctx *ctx;
    tsr__atomic_file af;
    tsr_image desc; /* the image's shape (data NULL) */
    tsr_format format;
    tsr__png_enc *png; /* PNG: the encoder */
    uint32_t rows;     /* rows written so far */
    tsr_status status; /* the first failure, TSR_OK while none */
    char message[512]; /* its message (the context's may be overwritten since) */
} tsr__row_writer;

/* Starts the file for an image of desc's width, height, channels and depth (u8 or u16, host
 * memory; data is not used) at path, whose name gives the format as for tsr_image_save: .png,
 * or .pgm/.ppm/.pnm (1 or 3 channels). Fails, with nothing left on disk and nothing to abort,
 * where tsr_image_save would refuse the image or the path, and for other formats
 * (TSR_ERR_UNSUPPORTED: JPEG is not written row by row). */
tsr_status tsr__row_writer_open(tsr_ctx *ctx, const char *path, const tsr_image *desc,
                                tsr__row_writer *w);
/* Appends count rows, stride bytes apart, each packed as in a tsr_image of desc's shape. Rows
 * beyond the image's height are an error. After a failure every later call fails the same way
 * (w->status, w->message). */
tsr_status tsr__row_writer_rows(tsr__row_writer *w, const void *rows, size_t stride,
                                uint32_t count);
/* Finishes the file and renames it into place; an error when rows are missing. */
tsr_status tsr__row_writer_close(tsr__row_writer *w);
/* Removes the temporary file; safe after a failed close and twice. */
void tsr__row_writer_abort(tsr__row_writer *w);

#endif
