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
/* The width, height and channels (1 gray, 3 RGB) that tsr_image_decode gives for the JPEG file
 * in data, from its header alone, with the errors (and the max_image_pixels check) the decode
 * would report from the header; data that are not JPEG are TSR_ERR_UNSUPPORTED. For sizing the
 * outputs of tsr_resize_jpeg_batch (tessera/resize.h). */
tsr_status tsr_jpeg_info(tsr_ctx *ctx, const void *data, size_t len, int32_t *width,
                         int32_t *height, int32_t *channels);
/* Reads and decodes a file (see tsr_image_decode); the file must fit in max_memory. Failure
 * messages start with the path. */
tsr_status tsr_image_load(tsr_ctx *ctx, const char *path, tsr_image *out, tsr_format *format);
/* The size of the image in a file, from its header: the file is read and its decoder stops at
 * the size, before any pixel (for deciding where an image will go before it is decoded). The
 * formats tsr_image_load reads. A file the load would reject fails here with the load's error
 * when what the decoder reads before the size shows it (the header; for PNG also the chunk
 * list); a file cut short in its pixels probes fine otherwise. */
tsr_status tsr_image_probe(tsr_ctx *ctx, const char *path, int32_t *width, int32_t *height);

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

/* Output names. One rule maps an output file's name to the format tessera writes into it, for
 * every command and writer: the extension after the last '.' of the last path component,
 * compared without case. A name without one ("-", "out") has TSR_FILE_NONE and takes the format
 * its caller falls back to; an extension that names no format tessera writes is an error naming
 * the extension and the formats it can write there. */
typedef enum tsr_file_type {
    TSR_FILE_NONE = 0, /* no extension */
    TSR_FILE_PNG,      /* .png */
    TSR_FILE_JPEG,     /* .jpg .jpeg .jpe */
    TSR_FILE_PGM,      /* .pgm: P5, gray only */
    TSR_FILE_PPM,      /* .ppm: P6, colour only */
    TSR_FILE_PNM,      /* .pnm: P5 for gray, P6 for colour */
    TSR_FILE_PAM,      /* .pam: P7 */
    TSR_FILE_PFM,      /* .pfm: Pf gray, PF colour, f32 */
    TSR_FILE_TIFF,     /* .tif .tiff */
    TSR_FILE_WEBP,     /* .webp */
    TSR_FILE_BMP,      /* .bmp */
    TSR_FILE_JP2,      /* .jp2: JPEG 2000 file (tsr_j2k_encode_save) */
    TSR_FILE_J2K,      /* .j2k .j2c: JPEG 2000 codestream (tsr_j2k_encode_save) */
    TSR_FILE_PGX,      /* .pgx: JPEG 2000 conformance planes */
    TSR_FILE_JSON,     /* .json: contest graph drawing */
    TSR_FILE_SVG,      /* .svg */
    TSR_FILE_GRAPHML,  /* .graphml */
    TSR_FILE_OTHER     /* an extension of no format tessera writes */
} tsr_file_type;

#define TSR_FILE_BIT(f) (1u << (f))
/* The image files written row by row, without the whole image in memory: PNG and PNM. */
#define TSR_WRITES_ROWS                                                                            \
    (TSR_FILE_BIT(TSR_FILE_PNG) | TSR_FILE_BIT(TSR_FILE_PGM) | TSR_FILE_BIT(TSR_FILE_PPM) |        \
     TSR_FILE_BIT(TSR_FILE_PNM))
/* What tsr_image_save writes. */
#define TSR_WRITES_IMAGE                                                                           \
    (TSR_WRITES_ROWS | TSR_FILE_BIT(TSR_FILE_JPEG) | TSR_FILE_BIT(TSR_FILE_PAM) |                  \
     TSR_FILE_BIT(TSR_FILE_PFM) | TSR_FILE_BIT(TSR_FILE_TIFF) | TSR_FILE_BIT(TSR_FILE_WEBP) |      \
     TSR_FILE_BIT(TSR_FILE_BMP))
/* Image files with JPEG 2000 too (tsr_j2k_encode_save writes those). */
#define TSR_WRITES_IMAGE_J2K                                                                       \
    (TSR_WRITES_IMAGE | TSR_FILE_BIT(TSR_FILE_JP2) | TSR_FILE_BIT(TSR_FILE_J2K))

/* The type path's extension names (TSR_FILE_NONE without one, also for "-" and for a hidden
 * file's bare name such as ".png"; TSR_FILE_OTHER for one tessera does not write). */
tsr_file_type tsr_file_type_of(const char *path);
/* The image format a file type is written in (TSR_FORMAT_UNKNOWN for non-image types). */
tsr_format tsr_file_type_image(tsr_file_type type);
/* The type to write path as: its extension's when that is in `writable` (a mask of
 * TSR_FILE_BIT), `fallback` when the name has no extension and fallback is not TSR_FILE_NONE;
 * otherwise TSR_ERR_INVALID_ARGUMENT with the message "PATH: tessera cannot write .EXT files
 * here (it writes .png, .jpg, ...)" or, without an extension, "PATH: no extension to choose the
 * format (...)". */
tsr_status tsr_output_format(tsr_ctx *ctx, const char *path, unsigned writable,
                             tsr_file_type fallback, tsr_file_type *out);
/* Whether an image of `channels` channels can be written as `type` (PGM gray, PPM colour, PNM
 * and the others any); fails naming the format and what it holds. */
tsr_status tsr_file_type_check_channels(tsr_ctx *ctx, const char *path, tsr_file_type type,
                                        int channels);

/* What an image format holds, the one table tsr_image_save checks and callers convert to: a
 * mask of TSR_DEPTH_BIT(depth) and one of TSR_CHANNELS_BIT(channels) (1..4); 0 for
 * TSR_FORMAT_UNKNOWN. JP2/J2K are the JPEG 2000 encoder's (u8/u16, 1-4 channels). */
#define TSR_DEPTH_BIT(d) (1u << (d))
#define TSR_CHANNELS_BIT(c) (1u << (c))
unsigned tsr_format_depths(tsr_format format);
unsigned tsr_format_channels(tsr_format format);

/* How every writer of the library writes a path (tsr_output_probe tells which, beforehand). */
typedef enum tsr_output_kind {
    TSR_OUTPUT_NEW = 1, /* nothing there yet: temporary file, then rename */
    TSR_OUTPUT_REPLACE, /* a regular file (a symlink's target): temporary file, then rename */
    TSR_OUTPUT_STREAM   /* standard output or a file that is not regular: written directly */
} tsr_output_kind;

/* Checks, writing nothing, that path can be written as the library's writers will: "-"; an
 * existing file that is not a folder and that the process may write, and for a regular file
 * whose folder it may create files in; or a new name (a dangling symlink's target) in an
 * existing folder it may create files in. kind (may be NULL) receives how it would be written.
 * Fails with TSR_ERR_IO and "PATH: reason". */
tsr_status tsr_output_probe(tsr_ctx *ctx, const char *path, tsr_output_kind *kind);

/* What a name stands for, to tell whether two names are one file: an existing regular file's
 * device and inode (after symlinks), or a new name's folder (device and inode) and last
 * component. */
typedef struct tsr_file_identity {
    uint64_t dev, ino;
    char name[256]; /* "" for an existing file */
} tsr_file_identity;
/* Fills *id and returns 1, or returns 0 when path is neither ("-", a device, a FIFO, a name
 * that cannot be resolved). */
int tsr_file_identify(const char *path, tsr_file_identity *id);
/* Orders identities (for sorting); 0 when they are one file. */
int tsr_file_identity_compare(const tsr_file_identity *a, const tsr_file_identity *b);
/* 1 when a and b name one file: the same existing regular file (device and inode, after
 * symlinks), the same new name in the same folder, or both "-"; else 0. */
int tsr_same_file(const char *a, const char *b);

#ifdef __cplusplus
}
#endif
#endif
