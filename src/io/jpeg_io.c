/* JPEG through libjpeg-turbo: decoding from memory and encoding to an atomic file.
 *
 * Decoding reads baseline, extended and progressive JFIF/Adobe files with 1 component (gray)
 * or 3 (YCbCr or RGB), giving u8 gray or RGB with libjpeg's defaults (islow IDCT, fancy
 * upsampling): the same pixels as OpenCV's imread and libjpeg-turbo's djpeg. CMYK and YCCK are
 * refused with TSR_ERR_UNSUPPORTED. libjpeg never prints: its messages go to the context.
 * Truncated data is an error (TSR_ERR_CORRUPT), not grey padding: running out of input and a
 * scan cut short by a marker (libjpeg's JWRN_JPEG_EOF and JWRN_HIT_MARKER warnings) are fatal.
 * Other libjpeg warnings (stray bytes between markers, odd progression) are tolerated, as in
 * other readers, because the image is still fully defined.
 *
 * libjpeg's error_exit longjmps back here; as in png_io.c, everything that changes after
 * setjmp lives in a struct owned by the function that calls the one that calls setjmp.
 * libjpeg allocates with its own malloc; the context's max_memory bounds it through
 * max_memory_to_use (a progressive image's coefficient buffer is the big one). */
#include "io/codecs.h"

#include "core/checked.h"
#include "core/ctx.h"

#include <limits.h>
#include <setjmp.h>
#include <stdio.h> /* jpeglib.h needs FILE and size_t first */
#include <string.h>

#include <jpeglib.h>

/* after jpeglib.h: jerror.h numbers its message codes by JPEG_LIB_VERSION, which jpeglib.h
 * defines (62 on Debian; 80 for libjpeg-turbo built with the jpeg8 ABI, as on Ubuntu); included
 * first, the codes were the v6b ones whatever the library, so a jpeg8 build misread its errors */
#include <jerror.h>

/* A file with more scans than this is refused: libjpeg accepts any number of progressive scans,
 * and each one can cost a pass over the whole coefficient buffer (a denial of service that
 * libjpeg-turbo's own fuzzers also cap). Real encoders write at most a few dozen. */
enum { MAX_SCANS = 1000 };

typedef struct jpeg_state {
    tsr_ctx *ctx;
    struct jpeg_error_mgr err;
    jmp_buf jmp;
    tsr_status status; /* set before a longjmp (TSR_OK: use the libjpeg message) */
    int have_decompress, have_compress;
    struct jpeg_decompress_struct d;
    struct jpeg_compress_struct c;
    struct jpeg_source_mgr src;
    struct jpeg_destination_mgr dst;
    struct jpeg_progress_mgr progress;
    tsr__atomic_file *af;
    tsr_image img;     /* decoding: the image being filled (freed on failure) */
    JOCTET buf[16384]; /* encoding: the output buffer */
} jpeg_state;

static jpeg_state *state_of(j_common_ptr cinfo)
{
    return (jpeg_state *)cinfo->client_data;
}

/* Records libjpeg's message for its current msg_code, prefixed "JPEG: ". */
static void record_message(j_common_ptr cinfo, tsr_status status)
{
    jpeg_state *s = state_of(cinfo);
    if (s->status != TSR_OK)
        return;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    tsr__fail(s->ctx, status, "JPEG: %s", text);
    s->status = status;
}

static void on_error_exit(j_common_ptr cinfo)
{
    jpeg_state *s = state_of(cinfo);
    tsr_status st = TSR_ERR_CORRUPT;
    switch (cinfo->err->msg_code) {
    case JERR_OUT_OF_MEMORY: st = TSR_ERR_OUT_OF_MEMORY; break;
    case JERR_NO_BACKING_STORE: /* needs more than max_memory_to_use */ st = TSR_ERR_LIMIT; break;
    case JERR_IMAGE_TOO_BIG:
    case JERR_WIDTH_OVERFLOW: st = TSR_ERR_LIMIT; break;
    case JERR_BAD_PRECISION:   /* 12- and 16-bit JPEG */
    case JERR_SOF_UNSUPPORTED: /* lossless and hierarchical processes */
    case JERR_NOT_COMPILED:    /* a feature this libjpeg lacks */
#if JPEG_LIB_VERSION < 70      /* later ABIs report it as JERR_NOT_COMPILED */
    case JERR_ARITH_NOTIMPL:   /* arithmetic coding in a build without it */
#endif
        st = TSR_ERR_UNSUPPORTED;
        break;
    default: break;
    }
    if (s->have_compress && st == TSR_ERR_CORRUPT)
        st = TSR_ERR_INTERNAL; /* encoding our own valid image: not a corrupt input */
    record_message(cinfo, st);
    longjmp(s->jmp, 1);
}

/* Warnings (msg_level -1) that mean lost data are fatal; trace messages (>= 0) are dropped. */
static void on_emit_message(j_common_ptr cinfo, int msg_level)
{
    if (msg_level >= 0)
        return;
    int code = cinfo->err->msg_code;
    if (code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER) {
        record_message(cinfo, TSR_ERR_CORRUPT);
        longjmp(state_of(cinfo)->jmp, 1);
    }
    cinfo->err->num_warnings++;
}

static void on_output_message(j_common_ptr cinfo)
{
    (void)cinfo; /* never print */
}

/* ---- source: the whole file in memory ---- */

static void src_init(j_decompress_ptr d)
{
    (void)d;
}

/* Called only when libjpeg has consumed everything: the file ended too early. */
static boolean src_fill(j_decompress_ptr d)
{
    d->err->msg_code = JWRN_JPEG_EOF;
    on_emit_message((j_common_ptr)d, -1); /* longjmps */
    return FALSE;
}

static void src_skip(j_decompress_ptr d, long n)
{
    if (n <= 0)
        return;
    if ((size_t)n > d->src->bytes_in_buffer) {
        d->src->next_input_byte += d->src->bytes_in_buffer;
        d->src->bytes_in_buffer = 0;
        src_fill(d);
        return;
    }
    d->src->next_input_byte += n;
    d->src->bytes_in_buffer -= (size_t)n;
}

static void src_term(j_decompress_ptr d)
{
    (void)d;
}

static void on_progress(j_common_ptr cinfo)
{
    if (!cinfo->is_decompressor)
        return;
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (d->input_scan_number > MAX_SCANS) {
        jpeg_state *s = state_of(cinfo);
        if (s->status == TSR_OK)
            s->status =
                tsr__fail(s->ctx, TSR_ERR_LIMIT, "JPEG: more than %d scans", (int)MAX_SCANS);
        longjmp(s->jmp, 1);
    }
}

/* A zeroed state of ctx with libjpeg's errors routed to it; the caller frees it (tsr__free). */
static tsr_status state_new(tsr_ctx *ctx, jpeg_state **out)
{
    jpeg_state *s;
    tsr_status st = tsr__alloc(ctx, sizeof *s, (void **)&s);
    if (st != TSR_OK)
        return st;
    memset(s, 0, sizeof *s);
    s->ctx = ctx;
    jpeg_std_error(&s->err);
    s->err.error_exit = on_error_exit;
    s->err.emit_message = on_emit_message;
    s->err.output_message = on_output_message;
    *out = s;
    return TSR_OK;
}

/* Reads the header up to the frame's size and colour space: *channels receives 1 (gray) or 3
 * (RGB out). Called under decode_body's or info_body's setjmp. Touches only *s. */
static tsr_status read_header(jpeg_state *s, const uint8_t *data, size_t len, int *channels)
{
    s->d.err = &s->err;
    s->d.client_data = s;
    jpeg_create_decompress(&s->d);
    s->have_decompress = 1;
    if (s->ctx->opt.max_memory)
        s->d.mem->max_memory_to_use =
            (long)(s->ctx->opt.max_memory > (uint64_t)LONG_MAX ? LONG_MAX
                                                               : (long)s->ctx->opt.max_memory);
    s->src.init_source = src_init;
    s->src.fill_input_buffer = src_fill;
    s->src.skip_input_data = src_skip;
    s->src.resync_to_restart = jpeg_resync_to_restart;
    s->src.term_source = src_term;
    s->src.next_input_byte = data;
    s->src.bytes_in_buffer = len;
    s->d.src = &s->src;
    s->progress.progress_monitor = on_progress;
    s->d.progress = &s->progress;

    if (jpeg_read_header(&s->d, TRUE) != JPEG_HEADER_OK) {
        s->status = tsr__fail(s->ctx, TSR_ERR_CORRUPT, "JPEG: no image in the stream");
        return s->status;
    }
    switch (s->d.jpeg_color_space) {
    case JCS_GRAYSCALE:
        s->d.out_color_space = JCS_GRAYSCALE;
        *channels = 1;
        break;
    case JCS_YCbCr:
    case JCS_RGB:
        s->d.out_color_space = JCS_RGB;
        *channels = 3;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        s->status = tsr__fail(s->ctx, TSR_ERR_UNSUPPORTED,
                              "JPEG: %s colour space is not supported (gray and RGB/YCbCr are)",
                              s->d.jpeg_color_space == JCS_CMYK ? "CMYK" : "YCCK");
        return s->status;
    default:
        s->status = tsr__fail(s->ctx, TSR_ERR_UNSUPPORTED,
                              "JPEG: %d components of unknown colour space are not supported",
                              s->d.num_components);
        return s->status;
    }
    s->status = tsr__image_check_pixels(s->ctx, "JPEG: ", s->d.image_width, s->d.image_height);
    return s->status;
}

/* The part of decoding that libjpeg may longjmp out of. Touches only *s. */
static tsr_status decode_body(jpeg_state *s, const uint8_t *data, size_t len)
{
    if (setjmp(s->jmp))
        return s->status != TSR_OK ? s->status : TSR_ERR_CORRUPT;
    int channels = 0;
    if (read_header(s, data, len, &channels) != TSR_OK)
        return s->status;
    tsr_status st = tsr_image_alloc(s->ctx, &s->img, (int32_t)s->d.image_width,
                                    (int32_t)s->d.image_height, channels, TSR_U8);
    if (st != TSR_OK) {
        s->status = st;
        return st;
    }
    jpeg_start_decompress(&s->d);
    if (s->d.output_width != (JDIMENSION)s->img.width ||
        s->d.output_height != (JDIMENSION)s->img.height || s->d.output_components != channels) {
        s->status = tsr__fail(s->ctx, TSR_ERR_INTERNAL, "JPEG: output geometry changed");
        return s->status;
    }
    while (s->d.output_scanline < s->d.output_height) {
        JSAMPROW row =
            (JSAMPROW)((uint8_t *)s->img.data + (size_t)s->d.output_scanline * s->img.stride);
        if (jpeg_read_scanlines(&s->d, &row, 1) != 1) {
            s->status = tsr__fail(s->ctx, TSR_ERR_CORRUPT, "JPEG: decoder stalled at row %u",
                                  (unsigned)s->d.output_scanline);
            return s->status;
        }
    }
    /* Reads to EOI, so a file cut after its last scan still counts as truncated. */
    jpeg_finish_decompress(&s->d);
    return TSR_OK;
}

tsr_status tsr__jpeg_decode(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr_image *out)
{
    jpeg_state *s;
    tsr_status st = state_new(ctx, &s);
    if (st != TSR_OK)
        return st;
    st = decode_body(s, data, len);
    if (s->have_decompress)
        jpeg_destroy_decompress(&s->d);
    if (st != TSR_OK)
        tsr_image_free(ctx, &s->img);
    else
        *out = s->img;
    tsr__free(ctx, s);
    return st;
}

/* The header part of decoding, under its own setjmp. */
static tsr_status info_body(jpeg_state *s, const uint8_t *data, size_t len, int *channels)
{
    if (setjmp(s->jmp))
        return s->status != TSR_OK ? s->status : TSR_ERR_CORRUPT;
    return read_header(s, data, len, channels);
}

tsr_status tsr__jpeg_info(tsr_ctx *ctx, const uint8_t *data, size_t len, int32_t *width,
                          int32_t *height, int32_t *channels)
{
    jpeg_state *s;
    tsr_status st = state_new(ctx, &s);
    if (st != TSR_OK)
        return st;
    int ch = 0;
    st = info_body(s, data, len, &ch);
    if (st == TSR_OK) {
        *width = (int32_t)s->d.image_width;
        *height = (int32_t)s->d.image_height;
        *channels = ch;
    }
    if (s->have_decompress)
        jpeg_destroy_decompress(&s->d);
    tsr__free(ctx, s);
    return st;
}

/* ---- destination: the atomic file ---- */

static void dst_init(j_compress_ptr c)
{
    jpeg_state *s = state_of((j_common_ptr)c);
    s->dst.next_output_byte = s->buf;
    s->dst.free_in_buffer = sizeof s->buf;
}

static void dst_write(jpeg_state *s, size_t n)
{
    tsr_status st = tsr__atomic_write(s->ctx, s->af, s->buf, n);
    if (st != TSR_OK) {
        if (s->status == TSR_OK)
            s->status = st;
        longjmp(s->jmp, 1);
    }
}

/* The buffer is full (libjpeg ignores free_in_buffer here: the whole buffer is written). */
static boolean dst_empty(j_compress_ptr c)
{
    jpeg_state *s = state_of((j_common_ptr)c);
    dst_write(s, sizeof s->buf);
    s->dst.next_output_byte = s->buf;
    s->dst.free_in_buffer = sizeof s->buf;
    return TRUE;
}

static void dst_term(j_compress_ptr c)
{
    jpeg_state *s = state_of((j_common_ptr)c);
    dst_write(s, sizeof s->buf - s->dst.free_in_buffer);
}

/* The part of encoding that libjpeg may longjmp out of. Touches only *s; img is read-only. */
static tsr_status encode_body(jpeg_state *s, const tsr_image *img, int quality)
{
    if (setjmp(s->jmp))
        return s->status != TSR_OK ? s->status : TSR_ERR_INTERNAL;
    s->c.err = &s->err;
    s->c.client_data = s;
    jpeg_create_compress(&s->c);
    s->have_compress = 1;
    s->dst.init_destination = dst_init;
    s->dst.empty_output_buffer = dst_empty;
    s->dst.term_destination = dst_term;
    s->c.dest = &s->dst;
    s->c.image_width = (JDIMENSION)img->width;
    s->c.image_height = (JDIMENSION)img->height;
    s->c.input_components = img->channels;
    s->c.in_color_space = img->channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    /* libjpeg's defaults: JFIF, 4:2:0 chroma subsampling for colour, islow DCT, optimised
     * Huffman tables off (OpenCV's imwrite defaults are the same). */
    jpeg_set_defaults(&s->c);
    jpeg_set_quality(&s->c, quality, TRUE);
    jpeg_start_compress(&s->c, TRUE);
    while (s->c.next_scanline < s->c.image_height) {
        JSAMPROW row =
            (JSAMPROW)((const uint8_t *)img->data + (size_t)s->c.next_scanline * img->stride);
        jpeg_write_scanlines(&s->c, &row, 1);
    }
    jpeg_finish_compress(&s->c);
    return TSR_OK;
}

tsr_status tsr__jpeg_encode(tsr_ctx *ctx, const tsr_image *img, int quality, tsr__atomic_file *af)
{
    jpeg_state *s;
    tsr_status st = state_new(ctx, &s);
    if (st != TSR_OK)
        return st;
    s->af = af;
    st = encode_body(s, img, quality);
    if (s->have_compress)
        jpeg_destroy_compress(&s->c);
    tsr__free(ctx, s);
    return st;
}

tsr_status tsr__jpeg_check_complete(tsr_ctx *ctx, const uint8_t *data, size_t len)
{
    size_t i = 0;
    while (i + 1 < len && !(data[i] == 0xFF && data[i + 1] == 0xDA))
        i++;
    for (; i + 1 < len; i++)
        if (data[i] == 0xFF && data[i + 1] == 0xD9)
            return TSR_OK;
    return tsr__fail(ctx, TSR_ERR_CORRUPT, "JPEG: Premature end of JPEG file (no EOI marker)");
}
