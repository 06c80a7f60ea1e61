/* PNG decoding through libpng 1.6, from memory (encoding: png_encode.c).
 *
 * Decoding gives 8- or 16-bit gray, gray+alpha, RGB or RGBA as stored: palettes expand to RGB
 * (RGBA with tRNS), gray of 1/2/4 bits expands to 8, tRNS becomes an alpha channel, interlaced
 * images are deinterlaced; no gamma or colour-space conversion is applied. 16-bit samples are
 * big-endian in the file (ISO 15948 7.1) and native in memory.
 *
 * libpng reports errors by calling our error function, which longjmps back. Everything that
 * changes between setjmp and a longjmp lives in a struct owned by the caller of the function
 * that calls setjmp (C11 7.13.2.1: only such objects keep defined values), so cleanup after a
 * longjmp is safe. libpng's own allocations go through the context's allocator, so the memory
 * limit and the allocation-fault tests see them too. */
#include "io/codecs.h"

#include "core/checked.h"
#include "core/ctx.h"

#include <png.h>
#include <setjmp.h>
#include <string.h>

typedef struct png_state {
    tsr_ctx *ctx;
    png_structp png;
    png_infop info;
    const uint8_t *data; /* decoding: the file in memory */
    size_t len, pos;
    tsr_image img;     /* decoding: the image being filled (freed on failure) */
    png_bytep *rows;   /* row pointers (context allocator) */
    uint64_t idat;     /* decoding: bytes of IDAT data in the file */
    tsr_status status; /* set by the callbacks before they longjmp; TSR_OK = not set */
    int alloc_failed;  /* an allocation for libpng failed: its "out of memory" is ours */
} png_state;

/* libpng error callback: records the first message and longjmps (never returns). */
static void on_error(png_structp png, png_const_charp msg)
{
    png_state *s = png_get_error_ptr(png);
    if (s->status == TSR_OK) {
        s->status = s->alloc_failed ? TSR_ERR_OUT_OF_MEMORY : TSR_ERR_CORRUPT;
        if (!s->alloc_failed)
            tsr__fail(s->ctx, TSR_ERR_CORRUPT, "PNG: %s", msg);
        /* with alloc_failed, the allocator's own message stays */
    }
    png_longjmp(png, 1);
}

/* Warnings (an ancillary chunk's CRC, an unknown chunk, ...) are ignored: the image is intact. */
static void on_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

static png_voidp on_malloc(png_structp png, png_alloc_size_t size)
{
    png_state *s = png_get_mem_ptr(png);
    void *p;
    tsr_status st = tsr__alloc(s->ctx, size, &p);
    if (st != TSR_OK) {
        s->alloc_failed = 1;
        if (s->status == TSR_OK)
            s->status = st; /* TSR_ERR_OUT_OF_MEMORY, or TSR_ERR_LIMIT for max_memory */
        return NULL;
    }
    return p;
}

static void on_free(png_structp png, png_voidp ptr)
{
    png_state *s = png_get_mem_ptr(png);
    tsr__free(s->ctx, ptr);
}

/* A chunk type as printable text ("IDAT"; '?' for bytes that are not letters). */
static void chunk_name(png_uint_32 type, char name[5])
{
    for (int i = 0; i < 4; i++) {
        unsigned char c = (unsigned char)(type >> (24 - 8 * i));
        name[i] = (char)((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ? c : '?');
    }
    name[4] = '\0';
}

static png_uint_32 read_be32(const uint8_t *p)
{
    return (png_uint_32)p[0] << 24 | (png_uint_32)p[1] << 16 | (png_uint_32)p[2] << 8 | p[3];
}

/* Walks the chunk list (ISO 15948 5.3: length, type, data, CRC) up to IEND, checks that every
 * chunk's length is in range and fits in the data, and adds up the IDAT lengths into *idat.
 * libpng 1.6 allocates what an ancillary chunk claims before reading it (its "chunk data is too
 * large" check is only a benign error), so without this a 50-byte file could make it allocate
 * up to 2 GB. */
static tsr_status check_chunks(tsr_ctx *ctx, const uint8_t *data, size_t len, uint64_t *idat)
{
    size_t pos = 8; /* after the signature */
    *idat = 0;
    while (pos < len) {
        if (len - pos < 8)
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNG: truncated data (chunk header)");
        png_uint_32 n = read_be32(data + pos);
        char name[5];
        chunk_name(read_be32(data + pos + 4), name);
        if (n > 0x7fffffffu)
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNG: chunk length %lu out of range (%s)",
                             (unsigned long)n, name);
        if ((size_t)n + 12 > len - pos)
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "PNG: truncated data (%s)", name);
        if (memcmp(data + pos + 4, "IEND", 4) == 0)
            break;
        if (memcmp(data + pos + 4, "IDAT", 4) == 0)
            *idat += n;
        pos += (size_t)n + 12;
    }
    return TSR_OK;
}

/* Whether IDAT chunks of idat bytes in all can hold a width x height image of bits per pixel.
 * Deflate (RFC 1951) codes at most 258 bytes in 2 bits (a length-258 match with 1-bit literal/
 * length and distance codes), so a zlib stream of n bytes inflates to at most 1032 n bytes; the
 * image's filtered data holds at least floor(width x bits / 8) bytes a row, interlaced or not.
 * A header that claims more than its data can hold is refused before libpng allocates (and
 * clears) rows for it. */
static int idat_can_hold(uint64_t idat, png_uint_32 width, png_uint_32 height, int bits)
{
    uint64_t row = (uint64_t)width * (uint64_t)bits / 8;
    uint64_t cap = idat * 1032 + 1032;
    return height == 0 || row <= cap / height;
}

/* Reads from the memory buffer; running out is the "truncated" error, naming the chunk. */
static void on_read(png_structp png, png_bytep out, size_t n)
{
    png_state *s = png_get_io_ptr(png);
    if (n > s->len - s->pos) {
        if (s->status == TSR_OK) {
            png_uint_32 type = png_get_io_chunk_type(png);
            char name[5];
            chunk_name(type, name);
            if (type)
                tsr__fail(s->ctx, TSR_ERR_CORRUPT, "PNG: truncated data (%s)", name);
            else
                tsr__fail(s->ctx, TSR_ERR_CORRUPT,
                          "PNG: truncated data (signature or chunk header)");
            s->status = TSR_ERR_CORRUPT;
        }
        png_longjmp(png, 1);
    }
    memcpy(out, s->data + s->pos, n);
    s->pos += n;
}

/* The part of decoding that libpng may longjmp out of. Touches only *s. */
static tsr_status decode_body(png_state *s)
{
    if (setjmp(png_jmpbuf(s->png)))
        return s->status != TSR_OK ? s->status : TSR_ERR_CORRUPT;

    png_set_read_fn(s->png, s, on_read);
    /* Dimensions are checked against the context below; libpng's own ceiling must not be lower
     * than PNG's 2^31-1 for that check to be the one that speaks. */
    png_set_user_limits(s->png, 0x7fffffffu, 0x7fffffffu);
    /* An ancillary chunk may claim up to 2^31-1 bytes, and libpng allocates what a chunk claims
     * (or decompresses to) before reading it: cap that at 8 MB (libpng's suggested
     * PNG_USER_CHUNK_MALLOC_MAX; ICC profiles and text are far smaller), and the number of
     * stored ancillary chunks at 1000, so a tiny file cannot make a huge allocation. */
    png_set_chunk_malloc_max(s->png, 8000000);
    png_set_chunk_cache_max(s->png, 1000);
    png_read_info(s->png, s->info);

    png_uint_32 width = png_get_image_width(s->png, s->info);
    png_uint_32 height = png_get_image_height(s->png, s->info);
    if ((s->status = tsr__image_check_pixels(s->ctx, "PNG: ", width, height)) != TSR_OK)
        return s->status;
    int file_bits = png_get_bit_depth(s->png, s->info) * png_get_channels(s->png, s->info);
    if (!idat_can_hold(s->idat, width, height, file_bits)) {
        s->status =
            tsr__fail(s->ctx, TSR_ERR_CORRUPT,
                      "PNG: truncated data: %llu bytes of IDAT cannot hold a %lux%lu image",
                      (unsigned long long)s->idat, (unsigned long)width, (unsigned long)height);
        return s->status;
    }

    png_set_expand(s->png); /* palette -> RGB(A), gray 1/2/4 -> 8, tRNS -> alpha */
    if (png_get_bit_depth(s->png, s->info) == 16 && tsr__host_is_little_endian())
        png_set_swap(s->png);
    int passes = png_set_interlace_handling(s->png);
    (void)passes;
    png_read_update_info(s->png, s->info);

    int channels = png_get_channels(s->png, s->info);
    int depth = png_get_bit_depth(s->png, s->info);
    if (channels < 1 || channels > 4 || (depth != 8 && depth != 16)) {
        s->status = tsr__fail(s->ctx, TSR_ERR_UNSUPPORTED,
                              "PNG: %d channels of %d bits after expansion", channels, depth);
        return s->status;
    }
    tsr_status st = tsr_image_alloc(s->ctx, &s->img, (int32_t)width, (int32_t)height, channels,
                                    depth == 16 ? TSR_U16 : TSR_U8);
    if (st != TSR_OK) {
        s->status = st;
        return st;
    }
    if (png_get_rowbytes(s->png, s->info) != s->img.stride) {
        s->status = tsr__fail(s->ctx, TSR_ERR_INTERNAL, "PNG: row size %zu, expected %zu",
                              (size_t)png_get_rowbytes(s->png, s->info), s->img.stride);
        return s->status;
    }
    size_t rows_size;
    if (!tsr__size_mul((size_t)height, sizeof(png_bytep), &rows_size)) {
        s->status =
            tsr__fail(s->ctx, TSR_ERR_OVERFLOW, "PNG: %lu rows overflow", (unsigned long)height);
        return s->status;
    }
    void *rows;
    st = tsr__alloc(s->ctx, rows_size, &rows);
    if (st != TSR_OK) {
        s->status = st;
        return st;
    }
    s->rows = rows;
    for (png_uint_32 y = 0; y < height; y++)
        s->rows[y] = (png_bytep)s->img.data + (size_t)y * s->img.stride;
    png_read_image(s->png, s->rows);
    /* Reads the chunks after the image up to IEND, so a file cut after its pixels still
     * counts as truncated (and their CRCs are checked). */
    png_read_end(s->png, NULL);
    return TSR_OK;
}

tsr_status tsr__png_decode(tsr_ctx *ctx, const uint8_t *data, size_t len, tsr_image *out)
{
    uint64_t idat;
    tsr_status st = check_chunks(ctx, data, len, &idat);
    if (st != TSR_OK)
        return st;
    png_state s;
    memset(&s, 0, sizeof s);
    s.idat = idat;
    s.ctx = ctx;
    s.data = data;
    s.len = len;
    s.png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, &s, on_error, on_warning, &s, on_malloc,
                                     on_free);
    if (!s.png) {
        if (s.status == TSR_OK)
            return tsr__fail(ctx, TSR_ERR_OUT_OF_MEMORY, "PNG: cannot create the decoder");
        return s.status;
    }
    /* png_create_info_struct returns NULL (without longjmp) when its allocation fails. */
    s.info = png_create_info_struct(s.png);
    if (!s.info)
        st = s.status != TSR_OK ? s.status
                                : tsr__fail(ctx, TSR_ERR_OUT_OF_MEMORY, "PNG: out of memory");
    else
        st = decode_body(&s);
    png_destroy_read_struct(&s.png, s.info ? &s.info : NULL, NULL);
    tsr__free(ctx, s.rows);
    if (st != TSR_OK) {
        tsr_image_free(ctx, &s.img);
        return st;
    }
    *out = s.img;
    return TSR_OK;
}
