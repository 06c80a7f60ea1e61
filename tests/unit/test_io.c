/* Image I/O: round trips for every supported format x depth x channel count, detection by
 * content, a must-reject list of malformed inputs, the shared sample images against OpenCV's
 * pixels, the atomic writer's failure behaviour, and an allocation fault loop (SQLite style).
 * Set TSR_SEED to repeat a random run. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, setrlimit, dirent */
#include "testlib.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <jpeglib.h>

static tsr_rng rng;
static char tmpdir[256];

static tsr_ctx *make_ctx(void)
{
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    opt.backend = TSR_BACKEND_REFERENCE;
    tsr_ctx *ctx = NULL;
    if (tsr_ctx_create(&opt, &ctx) != TSR_OK) {
        fprintf(stderr, "cannot create a context\n");
        exit(1);
    }
    return ctx;
}

static void write_all(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}

static size_t row_bytes(const tsr_image *img)
{
    return (size_t)img->width * (size_t)img->channels * tsr_depth_size(img->depth);
}

/* 1 when a and b have the same geometry and samples. */
static int images_equal(const tsr_image *a, const tsr_image *b)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels ||
        a->depth != b->depth)
        return 0;
    for (int32_t y = 0; y < a->height; y++)
        if (memcmp((const char *)a->data + (size_t)y * a->stride,
                   (const char *)b->data + (size_t)y * b->stride, row_bytes(a)) != 0)
            return 0;
    return 1;
}

/* Largest absolute difference between two u8 images of equal geometry (-1 if they differ). */
static int max_diff_u8(const tsr_image *a, const tsr_image *b)
{
    if (a->width != b->width || a->height != b->height || a->channels != b->channels ||
        a->depth != TSR_U8 || b->depth != TSR_U8)
        return -1;
    int m = 0;
    for (int32_t y = 0; y < a->height; y++) {
        const uint8_t *p = (const uint8_t *)a->data + (size_t)y * a->stride;
        const uint8_t *q = (const uint8_t *)b->data + (size_t)y * b->stride;
        for (size_t i = 0; i < row_bytes(a); i++) {
            int d = abs((int)p[i] - (int)q[i]);
            if (d > m)
                m = d;
        }
    }
    return m;
}

static void fill_random(tsr_image *img)
{
    for (int32_t y = 0; y < img->height; y++)
        tsr_rng_fill(&rng, (char *)img->data + (size_t)y * img->stride, row_bytes(img));
}

/* A smooth u8 image (gradients), the kind of content JPEG is made for. */
static void fill_smooth(tsr_image *img)
{
    for (int32_t y = 0; y < img->height; y++) {
        uint8_t *p = (uint8_t *)img->data + (size_t)y * img->stride;
        for (int32_t x = 0; x < img->width; x++)
            for (int c = 0; c < img->channels; c++)
                p[x * img->channels + c] =
                    (uint8_t)(x * (100 + 40 * c) / img->width + y * (100 - 30 * c) / img->height);
    }
}

static int count_temp_files(void)
{
    DIR *d = opendir(tmpdir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".tmp-"))
            n++;
    if (d)
        closedir(d);
    return n;
}

/* ---- detection and names ---- */

static void test_detect(void)
{
    static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const unsigned char jpg[3] = {0xff, 0xd8, 0xff};
    CHECK(tsr_format_detect(png, 8) == TSR_FORMAT_PNG);
    CHECK(tsr_format_detect(png, 7) == TSR_FORMAT_UNKNOWN);
    CHECK(tsr_format_detect(jpg, 3) == TSR_FORMAT_JPEG);
    CHECK(tsr_format_detect(jpg, 2) == TSR_FORMAT_UNKNOWN);
    CHECK(tsr_format_detect("P5\n", 3) == TSR_FORMAT_PNM);
    CHECK(tsr_format_detect("P6 ", 3) == TSR_FORMAT_PNM);
    CHECK(tsr_format_detect("P2#", 3) == TSR_FORMAT_PNM);
    CHECK(tsr_format_detect("P8\n", 3) == TSR_FORMAT_UNKNOWN);
    CHECK(tsr_format_detect("P5x", 3) == TSR_FORMAT_UNKNOWN);
    CHECK(tsr_format_detect("GIF89a", 6) == TSR_FORMAT_UNKNOWN);
    CHECK(tsr_format_detect(NULL, 0) == TSR_FORMAT_UNKNOWN);
    CHECK(tsr_format_from_name("a/b.PNG") == TSR_FORMAT_PNG);
    CHECK(tsr_format_from_name("x.jpg") == TSR_FORMAT_JPEG);
    CHECK(tsr_format_from_name("x.JPEG") == TSR_FORMAT_JPEG);
    CHECK(tsr_format_from_name("x.pgm") == TSR_FORMAT_PNM);
    CHECK(tsr_format_from_name("x.ppm") == TSR_FORMAT_PNM);
    CHECK(tsr_format_from_name("x.pnm") == TSR_FORMAT_PNM);
    CHECK(tsr_format_from_name("x.png.txt") == TSR_FORMAT_UNKNOWN);
    CHECK(tsr_format_from_name("dir.png/x") == TSR_FORMAT_UNKNOWN);
    CHECK(tsr_format_from_name(".png") == TSR_FORMAT_UNKNOWN);
    CHECK(tsr_format_from_name("png") == TSR_FORMAT_UNKNOWN);
    CHECK(strcmp(tsr_format_name(TSR_FORMAT_PNG), "png") == 0);
    CHECK(strcmp(tsr_format_name(TSR_FORMAT_JPEG), "jpeg") == 0);
    CHECK(strcmp(tsr_format_name(TSR_FORMAT_PNM), "pnm") == 0);
    CHECK(strcmp(tsr_format_name((tsr_format)99), "unknown") == 0);
}

/* ---- round trips ---- */

/* Saves img as path with the given format (UNKNOWN: by name), loads it back, returns it. */
static tsr_status save_load(tsr_ctx *ctx, const char *name, tsr_format format, const tsr_image *img,
                            int quality, tsr_image *back, tsr_format *got)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    tsr_save_options so;
    tsr_save_options_init(&so);
    so.format = format;
    so.jpeg_quality = quality;
    tsr_status st = tsr_image_save(ctx, path, img, &so);
    if (st != TSR_OK)
        return st;
    return tsr_image_load(ctx, path, back, got);
}

static void test_round_trips(void)
{
    tsr_ctx *ctx = make_ctx();
    static const int sizes[][2] = {{1, 1}, {3, 2}, {17, 9}, {64, 33}, {257, 5}};
    for (unsigned si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        int w = sizes[si][0], h = sizes[si][1];
        for (int depth = 1; depth <= 2; depth++) {
            for (int ch = 1; ch <= 4; ch++) {
                tsr_image img, back;
                tsr_format got;
                CHECK_OK(ctx, tsr_image_alloc(ctx, &img, w, h, ch, (tsr_depth)depth));
                fill_random(&img);
                /* PNG: every combination, exact, at two compression levels */
                for (int level = 0; level <= 9; level += 9) {
                    char path[512];
                    snprintf(path, sizeof path, "%s/rt.png", tmpdir);
                    tsr_save_options so;
                    tsr_save_options_init(&so);
                    so.png_compression = level;
                    CHECK_OK(ctx, tsr_image_save(ctx, path, &img, &so));
                    CHECK_OK(ctx, tsr_image_load(ctx, path, &back, &got));
                    CHECK(got == TSR_FORMAT_PNG);
                    CHECK(images_equal(&img, &back));
                    tsr_image_free(ctx, &back);
                }
                /* PNM: without alpha, exact; with alpha, refused */
                tsr_status st = save_load(ctx, ch <= 2 ? "rt.pgm" : "rt.ppm", TSR_FORMAT_UNKNOWN,
                                          &img, 95, &back, &got);
                if (ch == 1 || ch == 3) {
                    CHECK_OK(ctx, st);
                    CHECK(got == TSR_FORMAT_PNM);
                    CHECK(images_equal(&img, &back));
                    tsr_image_free(ctx, &back);
                } else {
                    CHECK_STATUS(st, TSR_ERR_UNSUPPORTED);
                    CHECK(strstr(tsr_ctx_last_error(ctx), "alpha") != NULL);
                }
                /* JPEG: u8 gray/RGB only */
                st = save_load(ctx, "rt.jpg", TSR_FORMAT_UNKNOWN, &img, 100, &back, &got);
                if (depth == 1 && (ch == 1 || ch == 3)) {
                    CHECK_OK(ctx, st);
                    CHECK(got == TSR_FORMAT_JPEG);
                    if (ch == 1) {
                        /* Quality 100 gray: all quantisers are 1, so the error is the integer
                         * DCT's rounding, a few levels at most even on noise. */
                        int d = max_diff_u8(&img, &back);
                        CHECK(d >= 0 && d <= 4);
                        if (d > 4)
                            fprintf(stderr, "JPEG gray q100 max diff %d\n", d);
                    }
                    tsr_image_free(ctx, &back);
                } else {
                    CHECK_STATUS(st, TSR_ERR_UNSUPPORTED);
                    CHECK(tsr_ctx_last_error(ctx)[0] != '\0');
                }
                tsr_image_free(ctx, &img);
            }
        }
    }

    /* JPEG colour: 4:2:0 subsampling loses detail in noise, so use smooth content; at
     * quality 100 the chroma averaging of a gradient costs a few levels. */
    {
        tsr_image img, back, again;
        tsr_format got;
        CHECK_OK(ctx, tsr_image_alloc(ctx, &img, 48, 40, 3, TSR_U8));
        fill_smooth(&img);
        CHECK_OK(ctx, save_load(ctx, "smooth.jpg", TSR_FORMAT_UNKNOWN, &img, 100, &back, &got));
        int d = max_diff_u8(&img, &back);
        CHECK(d >= 0 && d <= 12);
        if (d > 12)
            fprintf(stderr, "JPEG RGB q100 smooth max diff %d\n", d);
        /* determinism: a second encode gives the same bytes, a second decode the same pixels */
        char p1[512], p2[512];
        snprintf(p1, sizeof p1, "%s/smooth.jpg", tmpdir);
        snprintf(p2, sizeof p2, "%s/smooth2.jpg", tmpdir);
        tsr_save_options so;
        tsr_save_options_init(&so);
        so.jpeg_quality = 100;
        CHECK_OK(ctx, tsr_image_save(ctx, p2, &img, &so));
        size_t n1, n2;
        unsigned char *b1 = tsr_test_read_file(p1, &n1), *b2 = tsr_test_read_file(p2, &n2);
        CHECK(b1 && b2 && n1 == n2 && memcmp(b1, b2, n1) == 0);
        CHECK_OK(ctx, tsr_image_decode(ctx, b1, n1, &again, NULL));
        CHECK(images_equal(&back, &again));
        free(b1);
        free(b2);
        tsr_image_free(ctx, &again);
        tsr_image_free(ctx, &back);
        tsr_image_free(ctx, &img);
    }

    /* A padded stride is honoured by every writer. */
    {
        tsr_image img, back;
        tsr_format got;
        int w = 13, h = 7;
        size_t stride = (size_t)w * 3 + 11;
        unsigned char *buf = malloc(stride * (size_t)h);
        tsr_rng_fill(&rng, buf, stride * (size_t)h);
        img = (tsr_image){w, h, 3, TSR_U8, stride, buf, TSR_MEMORY_HOST};
        const char *names[] = {"stride.png", "stride.ppm"};
        for (int i = 0; i < 2; i++) {
            CHECK_OK(ctx, save_load(ctx, names[i], TSR_FORMAT_UNKNOWN, &img, 95, &back, &got));
            CHECK(images_equal(&img, &back));
            tsr_image_free(ctx, &back);
        }
        CHECK_OK(ctx, save_load(ctx, "stride.jpg", TSR_FORMAT_UNKNOWN, &img, 95, &back, &got));
        tsr_image_free(ctx, &back);
        free(buf);
    }

    /* Rasters of several of the PNM writer's ~1 MB pieces, tight and padded, 8- and 16-bit:
     * the bytes after the header are the rows in order (16-bit big-endian), nothing else. */
    for (int wide = 0; wide <= 1; wide++)
        for (int pad = 0; pad <= 1; pad++) {
            int w = 701, h = 613, ch = 3;
            size_t bps = wide ? 2 : 1, row = (size_t)w * ch * bps, stride = row + (pad ? 6 : 0);
            unsigned char *buf = malloc(stride * (size_t)h);
            tsr_rng_fill(&rng, buf, stride * (size_t)h);
            tsr_image img = {w, h, ch, wide ? TSR_U16 : TSR_U8, stride, buf, TSR_MEMORY_HOST};
            char path[512];
            snprintf(path, sizeof path, "%s/pieces.ppm", tmpdir);
            CHECK_OK(ctx, tsr_image_save(ctx, path, &img, NULL));
            size_t n;
            unsigned char *f = tsr_test_read_file(path, &n);
            char head[64];
            int hl = snprintf(head, sizeof head, "P6\n%d %d\n%d\n", w, h, wide ? 65535 : 255);
            CHECK(f && n == (size_t)hl + row * (size_t)h && memcmp(f, head, (size_t)hl) == 0);
            int same = f != NULL && n == (size_t)hl + row * (size_t)h;
            for (int y = 0; same && y < h; y++)
                for (size_t i = 0; same && i < row / bps; i++) {
                    const unsigned char *s = buf + (size_t)y * stride + i * bps;
                    const unsigned char *d = f + hl + (size_t)y * row + i * bps;
                    unsigned v = wide ? *(const uint16_t *)(const void *)s : *s;
                    unsigned got = wide ? (unsigned)d[0] << 8 | d[1] : d[0];
                    same = v == got;
                }
            CHECK(same);
            free(f);
            free(buf);
        }

    /* 16-bit samples are big-endian in the files: check the bytes, not only the round trip. */
    {
        tsr_image img;
        CHECK_OK(ctx, tsr_image_alloc(ctx, &img, 1, 1, 1, TSR_U16));
        *(uint16_t *)img.data = 0x1234;
        char path[512];
        snprintf(path, sizeof path, "%s/be.pgm", tmpdir);
        CHECK_OK(ctx, tsr_image_save(ctx, path, &img, NULL));
        size_t n;
        unsigned char *b = tsr_test_read_file(path, &n);
        CHECK(b && n >= 2 && b[n - 2] == 0x12 && b[n - 1] == 0x34);
        CHECK(b && n > 3 && memcmp(b, "P5\n1 1\n65535\n", 13) == 0);
        free(b);
        /* PNG at compression level 0 stores the filtered row verbatim in a stored deflate
         * block; every filter leaves the one pixel of the first row as it is. */
        snprintf(path, sizeof path, "%s/be.png", tmpdir);
        tsr_save_options so;
        tsr_save_options_init(&so);
        so.png_compression = 0;
        CHECK_OK(ctx, tsr_image_save(ctx, path, &img, &so));
        b = tsr_test_read_file(path, &n);
        int found_be = 0, found_le = 0;
        for (size_t i = 0; b && i + 1 < n; i++) {
            found_be |= b[i] == 0x12 && b[i + 1] == 0x34;
            found_le |= b[i] == 0x34 && b[i + 1] == 0x12;
        }
        CHECK(found_be && !found_le);
        free(b);
        tsr_image_free(ctx, &img);
    }
    tsr_ctx_destroy(ctx);
}

/* Content decides the format, whatever the name says. */
static void test_misleading_names(void)
{
    tsr_ctx *ctx = make_ctx();
    tsr_image img, back;
    tsr_format got;
    CHECK_OK(ctx, tsr_image_alloc(ctx, &img, 5, 4, 3, TSR_U8));
    fill_random(&img);
    CHECK_OK(ctx, save_load(ctx, "really_a_png.jpg", TSR_FORMAT_PNG, &img, 95, &back, &got));
    CHECK(got == TSR_FORMAT_PNG);
    CHECK(images_equal(&img, &back));
    tsr_image_free(ctx, &back);
    CHECK_OK(ctx, save_load(ctx, "really_a_ppm.png", TSR_FORMAT_PNM, &img, 95, &back, &got));
    CHECK(got == TSR_FORMAT_PNM);
    CHECK(images_equal(&img, &back));
    tsr_image_free(ctx, &back);
    CHECK_OK(ctx, save_load(ctx, "really_a_jpeg.pgm", TSR_FORMAT_JPEG, &img, 95, &back, &got));
    CHECK(got == TSR_FORMAT_JPEG);
    tsr_image_free(ctx, &back);
    CHECK_OK(ctx, save_load(ctx, "no_extension", TSR_FORMAT_PNG, &img, 95, &back, &got));
    CHECK(got == TSR_FORMAT_PNG);
    tsr_image_free(ctx, &back);
    /* without an explicit format, an unknown extension is refused */
    char path[512];
    snprintf(path, sizeof path, "%s/what.gif", tmpdir);
    CHECK_STATUS(tsr_image_save(ctx, path, &img, NULL), TSR_ERR_INVALID_ARGUMENT);
    CHECK(access(path, F_OK) != 0);
    tsr_image_free(ctx, &img);
    tsr_ctx_destroy(ctx);
}

/* ---- must-reject list ---- */

static int rejected_count;

/* The input must fail with a status other than OK (and, when want != TSR_OK, that status) and
 * a message; optionally the message must contain needle. */
static void reject(tsr_ctx *ctx, const char *what, const void *data, size_t len, tsr_status want,
                   const char *needle)
{
    tsr_image img;
    memset(&img, 0, sizeof img);
    tsr_status st = tsr_image_decode(ctx, data, len, &img, NULL);
    tsr_test_checks++;
    int bad = st == TSR_OK || (want != TSR_OK && st != want) ||
              tsr_ctx_last_error(ctx)[0] == '\0' ||
              (needle && !strstr(tsr_ctx_last_error(ctx), needle)) || img.data != NULL;
    if (bad) {
        tsr_test_failures++;
        fprintf(stderr, "must reject %s (%zu bytes): got %s \"%s\", want %s%s%s\n", what, len,
                tsr_status_name(st), tsr_ctx_last_error(ctx),
                tsr_status_name(want == TSR_OK ? TSR_ERR_CORRUPT : want),
                needle ? " containing " : "", needle ? needle : "");
    }
    if (st == TSR_OK)
        tsr_image_free(ctx, &img);
    rejected_count++;
}

/* Encodes img in memory through a file and returns the bytes. */
static unsigned char *encode(tsr_ctx *ctx, const tsr_image *img, tsr_format f, int quality,
                             size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/enc.bin", tmpdir);
    tsr_save_options so;
    tsr_save_options_init(&so);
    so.format = f;
    so.jpeg_quality = quality;
    CHECK_OK(ctx, tsr_image_save(ctx, path, img, &so));
    return tsr_test_read_file(path, len);
}

static uint32_t crc32_of(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return c ^ 0xffffffffu;
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* A PNG whose IHDR says w x h (with a valid CRC), then (with_idat) an IDAT holding a tiny
 * zlib stream, then IEND. */
static size_t png_with_ihdr(unsigned char *out, uint32_t w, uint32_t h, int bit_depth, int type,
                            int with_idat)
{
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    memcpy(out, sig, 8);
    put_be32(out + 8, 13);
    memcpy(out + 12, "IHDR", 4);
    put_be32(out + 16, w);
    put_be32(out + 20, h);
    out[24] = (unsigned char)bit_depth;
    out[25] = (unsigned char)type;
    out[26] = out[27] = out[28] = 0;
    put_be32(out + 29, crc32_of(out + 12, 17));
    size_t n = 33;
    if (with_idat) {
        /* zlib header, one empty final stored block, Adler-32 of nothing */
        static const unsigned char z[11] = {0x78, 0x01, 0x01, 0x00, 0x00, 0xff,
                                            0xff, 0x00, 0x00, 0x00, 0x01};
        put_be32(out + n, sizeof z);
        memcpy(out + n + 4, "IDAT", 4);
        memcpy(out + n + 8, z, sizeof z);
        put_be32(out + n + 8 + sizeof z, crc32_of(out + n + 4, 4 + sizeof z));
        n += 12 + sizeof z;
    }
    put_be32(out + n, 0);
    memcpy(out + n + 4, "IEND", 4);
    put_be32(out + n + 8, crc32_of(out + n + 4, 4));
    return n + 12;
}

/* A CMYK JPEG written with libjpeg directly (tessera never writes one). */
static unsigned char *cmyk_jpeg(unsigned long *len)
{
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    unsigned char *out = NULL;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    jpeg_mem_dest(&c, &out, len);
    c.image_width = 8;
    c.image_height = 8;
    c.input_components = 4;
    c.in_color_space = JCS_CMYK;
    jpeg_set_defaults(&c);
    jpeg_start_compress(&c, TRUE);
    unsigned char row[32];
    for (int i = 0; i < 32; i++)
        row[i] = (unsigned char)(i * 8);
    while (c.next_scanline < 8) {
        JSAMPROW r = row;
        jpeg_write_scanlines(&c, &r, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    return out;
}

static void test_must_reject(void)
{
    tsr_ctx *ctx = make_ctx();
    tsr_image img;
    CHECK_OK(ctx, tsr_image_alloc(ctx, &img, 24, 20, 3, TSR_U8));
    fill_smooth(&img);
    size_t png_len, jpg_len, pnm_len, pnm16_len;
    unsigned char *png = encode(ctx, &img, TSR_FORMAT_PNG, 95, &png_len);
    unsigned char *jpg = encode(ctx, &img, TSR_FORMAT_JPEG, 90, &jpg_len);
    unsigned char *pnm = encode(ctx, &img, TSR_FORMAT_PNM, 95, &pnm_len);
    tsr_image img16;
    CHECK_OK(ctx, tsr_image_alloc(ctx, &img16, 5, 3, 1, TSR_U16));
    fill_random(&img16);
    unsigned char *pnm16 = encode(ctx, &img16, TSR_FORMAT_PNM, 95, &pnm16_len);
    tsr_image_free(ctx, &img16);
    tsr_image_free(ctx, &img);
    if (!png || !jpg || !pnm || !pnm16) {
        CHECK(0);
        return;
    }
    /* Truncated at every offset: a prefix of a file is never a valid image (PNG and JPEG read
     * to their end markers; raw PNM needs its whole raster). */
    const struct {
        const char *name;
        unsigned char *data;
        size_t len;
    } files[] = {{"PNG", png, png_len},
                 {"JPEG", jpg, jpg_len},
                 {"PNM", pnm, pnm_len},
                 {"PNM 16", pnm16, pnm16_len}};
    for (unsigned f = 0; f < 4; f++) {
        for (size_t cut = 1; cut < files[f].len; cut++) {
            char what[64];
            snprintf(what, sizeof what, "%s cut at %zu", files[f].name, cut);
            unsigned char *copy = malloc(cut); /* exact size: ASan sees any over-read */
            memcpy(copy, files[f].data, cut);
            reject(ctx, what, copy, cut, TSR_OK, NULL);
            free(copy);
        }
    }
    /* messages name the problem */
    reject(ctx, "PNG cut in IDAT", png, png_len - 20, TSR_ERR_CORRUPT,
           "PNG: truncated data (IDAT)");
    reject(ctx, "JPEG cut", jpg, jpg_len / 2, TSR_ERR_CORRUPT, "JPEG: Premature end of JPEG file");
    reject(ctx, "PNM cut", pnm, pnm_len - 1, TSR_ERR_CORRUPT, "PNM: truncated raster");

    /* bad magic and unknown formats */
    reject(ctx, "empty", "", 0, TSR_ERR_CORRUPT, NULL);
    reject(ctx, "GIF", "GIF89a\1\0\1\0", 10, TSR_ERR_UNSUPPORTED, "unknown image format");
    reject(ctx, "PNG bad signature", "\x89PNG\r\n\x1a\r", 8, TSR_ERR_UNSUPPORTED, NULL);
    reject(ctx, "P4 bitmap without raster", "P4 1 1 ", 7, TSR_ERR_CORRUPT, "truncated");
    reject(ctx, "P1 bitmap without raster", "P1 1 1 ", 7, TSR_ERR_CORRUPT, "truncated");

    /* PNM headers */
    reject(ctx, "PNM width 0", "P5 0 1 255 \x01", 12, TSR_ERR_CORRUPT, "PNM: width 0 in header");
    reject(ctx, "PNM height 0", "P5 1 0 255 \x01", 12, TSR_ERR_CORRUPT, "PNM: height 0 in header");
    reject(ctx, "PNM maxval 0", "P5 1 1 0 \x00", 10, TSR_ERR_CORRUPT, "PNM: maxval 0 in header");
    reject(ctx, "PNM maxval 65536", "P5 1 1 65536 \x00\x00", 15, TSR_ERR_CORRUPT, "maxval");
    reject(ctx, "PNM huge width", "P5 99999999999 1 255 \x00", 22, TSR_ERR_CORRUPT, "width");
    reject(ctx, "PNM huge image", "P5 2000000000 2000000000 255 \x00", 30, TSR_ERR_LIMIT, NULL);
    reject(ctx, "PNM negative", "P5 -1 1 255 \x00", 13, TSR_ERR_CORRUPT, NULL);
    reject(ctx, "PNM letters", "P5 a 1 255 \x00", 12, TSR_ERR_CORRUPT, NULL);
    reject(ctx, "PNM no header", "P6\n", 3, TSR_ERR_CORRUPT, "header ends");
    reject(ctx, "PNM sample above maxval", "P5 2 1 100 \x05\x65", 13, TSR_ERR_CORRUPT,
           "above maxval");
    reject(ctx, "PNM plain sample above maxval", "P2 2 1 100 5 101", 16, TSR_ERR_CORRUPT,
           "above maxval");
    reject(ctx, "PNM plain missing sample", "P3 2 1 255 1 2 3 4 5", 20, TSR_ERR_CORRUPT,
           "truncated");
    reject(ctx, "PNM plain junk sample", "P2 2 1 255 1 x", 14, TSR_ERR_CORRUPT, "not a number");
    reject(ctx, "PNM comment eats raster", "P5 1 1 255#\x01", 12, TSR_ERR_CORRUPT, NULL);
    reject(ctx, "PNM 16-bit short raster", "P5 1 1 256 \x01", 12, TSR_ERR_CORRUPT, "truncated");

    /* PNG headers: zero and huge dimensions, bad bit depth, bad colour type (valid CRCs) */
    unsigned char hdr[64];
    size_t n = png_with_ihdr(hdr, 0, 1, 8, 0, 1);
    reject(ctx, "PNG width 0", hdr, n, TSR_ERR_CORRUPT, "PNG: ");
    n = png_with_ihdr(hdr, 1, 0, 8, 0, 1);
    reject(ctx, "PNG height 0", hdr, n, TSR_ERR_CORRUPT, "PNG: ");
    n = png_with_ihdr(hdr, 0x7fffffffu, 0x7fffffffu, 8, 6, 1);
    reject(ctx, "PNG huge", hdr, n, TSR_ERR_LIMIT, "exceeds the limit");
    n = png_with_ihdr(hdr, 0x80000000u, 1, 8, 0, 1);
    reject(ctx, "PNG width 2^31", hdr, n, TSR_ERR_CORRUPT, "PNG: ");
    n = png_with_ihdr(hdr, 4, 4, 7, 0, 1);
    reject(ctx, "PNG bit depth 7", hdr, n, TSR_ERR_CORRUPT, "PNG: ");
    n = png_with_ihdr(hdr, 4, 4, 8, 5, 1);
    reject(ctx, "PNG colour type 5", hdr, n, TSR_ERR_CORRUPT, "PNG: ");
    n = png_with_ihdr(hdr, 4, 4, 8, 0, 0);
    reject(ctx, "PNG without IDAT", hdr, n, TSR_ERR_CORRUPT, "PNG: ");
    {
        /* a limit below the image's size */
        tsr_ctx_options opt;
        tsr_ctx_options_init(&opt);
        opt.max_image_pixels = 24 * 20 - 1;
        tsr_ctx *small = NULL;
        CHECK_STATUS(tsr_ctx_create(&opt, &small), TSR_OK);
        reject(small, "PNG over the pixel limit", png, png_len, TSR_ERR_LIMIT, "exceeds the limit");
        reject(small, "JPEG over the pixel limit", jpg, jpg_len, TSR_ERR_LIMIT,
               "exceeds the limit");
        reject(small, "PNM over the pixel limit", pnm, pnm_len, TSR_ERR_LIMIT, "exceeds the limit");
        tsr_ctx_destroy(small);
        tsr_ctx_options_init(&opt);
        opt.max_memory = 24 * 20 * 3 - 1;
        CHECK_STATUS(tsr_ctx_create(&opt, &small), TSR_OK);
        reject(small, "PNM over the memory limit", pnm, pnm_len, TSR_ERR_LIMIT, "memory limit");
        /* An ancillary chunk claiming 2^31-1 bytes in a tiny file is truncated data; the reader
         * must say so without first allocating what the chunk claims (found by fuzzing). */
        unsigned char big[64];
        size_t bn = png_with_ihdr(big, 4, 4, 8, 0, 0) - 12; /* drop IEND */
        put_be32(big + bn, 0x7fffffffu);
        memcpy(big + bn + 4, "sPLT", 4);
        memcpy(big + bn + 8, "abcd", 4);
        reject(small, "PNG chunk longer than the file", big, bn + 12, TSR_ERR_CORRUPT,
               "PNG: truncated data (sPLT)");
        put_be32(big + bn, 0x80000000u);
        reject(small, "PNG chunk length 2^31", big, bn + 12, TSR_ERR_CORRUPT, "out of range");
        tsr_ctx_destroy(small);
    }
    /* bad CRCs: IHDR's, and the first IDAT's (flip a data byte) */
    {
        unsigned char *bad = malloc(png_len);
        memcpy(bad, png, png_len);
        bad[29] ^= 0x01; /* IHDR CRC */
        reject(ctx, "PNG bad IHDR CRC", bad, png_len, TSR_ERR_CORRUPT, "CRC");
        memcpy(bad, png, png_len);
        /* find IDAT */
        for (size_t i = 8; i + 12 <= png_len; i++) {
            if (memcmp(bad + i, "IDAT", 4) == 0) {
                size_t data_len = (size_t)bad[i - 4] << 24 | (size_t)bad[i - 3] << 16 |
                                  (size_t)bad[i - 2] << 8 | bad[i - 1];
                if (i + 4 + data_len + 4 <= png_len)
                    bad[i + 4 + data_len + 1] ^= 0x40; /* the chunk's CRC */
                break;
            }
        }
        reject(ctx, "PNG bad IDAT CRC", bad, png_len, TSR_ERR_CORRUPT, "CRC");
        free(bad);
    }
    /* JPEG: a scan cut short and closed with EOI (the data stops, the markers look complete) */
    {
        size_t sos = 0;
        for (size_t i = 2; i + 1 < jpg_len; i++)
            if (jpg[i] == 0xff && jpg[i + 1] == 0xda) {
                sos = i;
                break;
            }
        CHECK(sos > 0);
        size_t cut = sos + (jpg_len - sos) / 3;
        unsigned char *bad = malloc(cut + 2);
        memcpy(bad, jpg, cut);
        bad[cut] = 0xff;
        bad[cut + 1] = 0xd9;
        reject(ctx, "JPEG truncated scan + EOI", bad, cut + 2, TSR_ERR_CORRUPT, "JPEG: ");
        free(bad);
        /* SOF with zero height */
        bad = malloc(jpg_len);
        memcpy(bad, jpg, jpg_len);
        for (size_t i = 2; i + 8 < jpg_len; i++)
            if (bad[i] == 0xff && (bad[i + 1] == 0xc0 || bad[i + 1] == 0xc2)) {
                bad[i + 5] = 0;
                bad[i + 6] = 0;
                break;
            }
        reject(ctx, "JPEG height 0", bad, jpg_len, TSR_ERR_CORRUPT, "JPEG: ");
        /* valid files using what tessera does not read: 12-bit precision, lossless process */
        for (int variant = 0; variant < 2; variant++) {
            memcpy(bad, jpg, jpg_len);
            for (size_t i = 2; i + 8 < jpg_len; i++)
                if (bad[i] == 0xff && bad[i + 1] == 0xc0) {
                    if (variant == 0)
                        bad[i + 4] = 12; /* P */
                    else
                        bad[i + 1] = 0xc3; /* SOF3 */
                    break;
                }
            reject(ctx, variant == 0 ? "JPEG 12-bit" : "JPEG lossless", bad, jpg_len,
                   TSR_ERR_UNSUPPORTED, "JPEG: ");
        }
        free(bad);
    }
    reject(ctx, "JPEG SOI only", "\xff\xd8\xff", 3, TSR_ERR_CORRUPT, "JPEG: ");
    {
        unsigned long clen = 0;
        unsigned char *cmyk = cmyk_jpeg(&clen);
        reject(ctx, "JPEG CMYK", cmyk, clen, TSR_ERR_UNSUPPORTED, "CMYK");
        free(cmyk);
    }
    printf("must-reject: %d malformed inputs refused cleanly\n", rejected_count);
    free(png);
    free(jpg);
    free(pnm);
    free(pnm16);
    tsr_ctx_destroy(ctx);
}

/* PNM decisions: comments, plain formats, maxval scaling (see pnm_io.c). */
static void test_pnm_details(void)
{
    tsr_ctx *ctx = make_ctx();
    tsr_image img;
    const char p2[] = "P2\n# a comment\n3 1 # another\n15\n0 7 15\n";
    CHECK_OK(ctx, tsr_image_decode(ctx, p2, sizeof p2 - 1, &img, NULL));
    if (img.data) {
        const uint8_t *p = img.data;
        CHECK(img.depth == TSR_U8 && img.channels == 1 && img.width == 3);
        CHECK(p[0] == 0 && p[1] == 119 && p[2] == 255); /* (7*255+7)/15 = 119 */
        tsr_image_free(ctx, &img);
    }
    const char p3[] = "P3 1 1 1000 0 500 1000";
    CHECK_OK(ctx, tsr_image_decode(ctx, p3, sizeof p3 - 1, &img, NULL));
    if (img.data) {
        const uint16_t *p = img.data;
        CHECK(img.depth == TSR_U16 && img.channels == 3);
        CHECK(p[0] == 0 && p[1] == 32768 && p[2] == 65535); /* (500*65535+500)/1000 = 32768 */
        tsr_image_free(ctx, &img);
    }
    const char p5[] = "P5 2 1 255\n\x00\xff trailing bytes are ignored";
    CHECK_OK(ctx, tsr_image_decode(ctx, p5, sizeof p5 - 1, &img, NULL));
    if (img.data) {
        const uint8_t *p = img.data;
        CHECK(p[0] == 0 && p[1] == 255);
        tsr_image_free(ctx, &img);
    }
    const char p6[] = "P6 1 1 65535\n\x12\x34\xab\xcd\x00\x01";
    CHECK_OK(ctx, tsr_image_decode(ctx, p6, sizeof p6 - 1, &img, NULL));
    if (img.data) {
        const uint16_t *p = img.data;
        CHECK(p[0] == 0x1234 && p[1] == 0xabcd && p[2] == 1);
        tsr_image_free(ctx, &img);
    }
    tsr_ctx_destroy(ctx);
}

/* ---- the shared sample images against OpenCV ---- */

/* Reference values made with Debian's /usr/bin/python3, OpenCV 4.6.0 over the system
 * libjpeg-turbo 2.1.5 and libpng 1.6.39:
 *   a = cv2.imread(name, cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)   (JPEG)
 *   a = cv2.imread(name, cv2.IMREAD_UNCHANGED)                               (PNG)
 *   a = a[:, :, ::-1]   (BGR -> RGB);  sum = int(a.astype(uint64).sum())
 *   pixels at (y, x) = (0, 0), (h // 2, w // 3), (h - 1, w - 1)
 * OpenCV decodes JPEG with libjpeg's defaults (islow IDCT, fancy upsampling), as tessera does,
 * so the pixels must match exactly. */
static const struct sample_ref {
    const char *name;
    int width, height, channels;
    uint64_t sum;
    uint8_t px[3][3];
} sample_refs[] = {
    {"images/rocket.jpg", 640, 427, 3, 53516744ull, {{17, 33, 58}, {53, 75, 114}, {83, 61, 37}}},
    {"images/hubble_deep_field.jpg",
     1000,
     872,
     3,
     50108051ull,
     {{15, 7, 4}, {13, 15, 10}, {7, 18, 12}}},
    {"images/desert_mesa_4611x8192.jpg",
     4611,
     8192,
     3,
     8928069930ull, /* progressive */
     {{1, 72, 94}, {100, 144, 153}, {80, 45, 7}}},
    {"images/broadway_tower_1428x968.jpg",
     1428,
     968,
     3,
     560016109ull,
     {{0, 93, 157}, {83, 149, 209}, {149, 128, 37}}},
    {"images/astronaut.png", 512, 512, 3, 90124324ull, {{154, 147, 151}, {42, 23, 13}, {0, 0, 0}}},
    {"images/chelsea.png",
     451,
     300,
     3,
     46802357ull,
     {{143, 120, 104}, {146, 105, 61}, {162, 138, 128}}},
    {"images/coffee.png", 600, 400, 3, 71003487ull, {{21, 13, 8}, {144, 48, 23}, {143, 60, 29}}},
};

static void test_sample_images(void)
{
    tsr_ctx *ctx = make_ctx();
    int found = 0;
    for (unsigned i = 0; i < sizeof sample_refs / sizeof sample_refs[0]; i++) {
        const struct sample_ref *r = &sample_refs[i];
        const char *path = tsr_test_data(r->name);
        if (!path)
            continue;
        found++;
        tsr_image img;
        tsr_format f;
        tsr_status st = tsr_image_load(ctx, path, &img, &f);
        CHECK_OK(ctx, st);
        if (st != TSR_OK)
            continue;
        CHECK(img.width == r->width && img.height == r->height && img.channels == r->channels &&
              img.depth == TSR_U8);
        CHECK(f == (strstr(r->name, ".png") ? TSR_FORMAT_PNG : TSR_FORMAT_JPEG));
        uint64_t sum = 0;
        for (int32_t y = 0; y < img.height; y++) {
            const uint8_t *p = (const uint8_t *)img.data + (size_t)y * img.stride;
            for (size_t k = 0; k < row_bytes(&img); k++)
                sum += p[k];
        }
        CHECK(sum == r->sum);
        if (sum != r->sum)
            fprintf(stderr, "%s: sum %llu, OpenCV %llu\n", r->name, (unsigned long long)sum,
                    (unsigned long long)r->sum);
        const int ys[3] = {0, img.height / 2, img.height - 1};
        const int xs[3] = {0, img.width / 3, img.width - 1};
        for (int k = 0; k < 3; k++) {
            const uint8_t *p = (const uint8_t *)img.data + (size_t)ys[k] * img.stride +
                               (size_t)xs[k] * (size_t)img.channels;
            CHECK(memcmp(p, r->px[k], 3) == 0);
        }
        tsr_image_free(ctx, &img);
    }
    if (!found)
        fprintf(stderr, "note: no shared sample images found; the OpenCV comparison was skipped\n");
    else
        printf("sample images: %d decoded and compared with OpenCV\n", found);
    tsr_ctx_destroy(ctx);
}

/* tsr_jpeg_info: the decode's size and channels from the header alone, for colour and gray
 * files; its errors for other data, a cut header and the pixel limit. */
static void test_jpeg_info(void)
{
    tsr_ctx *ctx = make_ctx();
    for (int channels = 1; channels <= 3; channels += 2) {
        tsr_image img, back;
        CHECK_OK(ctx, tsr_image_alloc(ctx, &img, 37, 23, channels, TSR_U8));
        fill_smooth(&img);
        char path[600];
        snprintf(path, sizeof path, "%s/info%d.jpg", tmpdir, channels);
        CHECK_OK(ctx, tsr_image_save(ctx, path, &img, NULL));
        size_t len = 0;
        unsigned char *bytes = tsr_test_read_file(path, &len);
        CHECK(bytes != NULL);
        if (bytes) {
            int32_t w = 0, h = 0, c = 0;
            CHECK_OK(ctx, tsr_jpeg_info(ctx, bytes, len, &w, &h, &c));
            CHECK_OK(ctx, tsr_image_decode(ctx, bytes, len, &back, NULL));
            CHECK(w == back.width && h == back.height && c == back.channels && c == channels);
            tsr_image_free(ctx, &back);
            CHECK_STATUS(tsr_jpeg_info(ctx, bytes, 40, &w, &h, &c), TSR_ERR_CORRUPT);
            tsr_ctx_options opt;
            tsr_ctx_options_init(&opt);
            opt.max_image_pixels = 37 * 23 - 1;
            tsr_ctx *small = NULL;
            CHECK_OK(small, tsr_ctx_create(&opt, &small));
            CHECK_STATUS(tsr_jpeg_info(small, bytes, len, &w, &h, &c), TSR_ERR_LIMIT);
            tsr_ctx_destroy(small);
            free(bytes);
        }
        tsr_image_free(ctx, &img);
    }
    static const unsigned char png_magic[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
    int32_t w, h, c;
    CHECK_STATUS(tsr_jpeg_info(ctx, png_magic, sizeof png_magic, &w, &h, &c), TSR_ERR_UNSUPPORTED);
    tsr_ctx_destroy(ctx);
}

/* ---- the atomic writer ---- */

static void test_atomic_writer(void)
{
    tsr_ctx *ctx = make_ctx();
    tsr_image img;
    CHECK_OK(ctx, tsr_image_alloc(ctx, &img, 300, 200, 3, TSR_U8));
    fill_random(&img);
    char path[512];

    /* a folder that does not exist: TSR_ERR_IO naming the path, no file anywhere */
    snprintf(path, sizeof path, "%s/no/such/folder/out.png", tmpdir);
    CHECK_STATUS(tsr_image_save(ctx, path, &img, NULL), TSR_ERR_IO);
    CHECK(strstr(tsr_ctx_last_error(ctx), "out.png") != NULL);
    CHECK(access(path, F_OK) != 0);
    CHECK(count_temp_files() == 0);

    /* refused images leave nothing: f32, JPEG with alpha, PNM with alpha */
    tsr_image f32;
    CHECK_OK(ctx, tsr_image_alloc(ctx, &f32, 4, 4, 1, TSR_F32));
    memset(f32.data, 0, 4 * 4 * 4);
    const char *names[] = {"f32.png", "f32.pgm", "f32.jpg"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
        CHECK_STATUS(tsr_image_save(ctx, path, &f32, NULL), TSR_ERR_UNSUPPORTED);
        CHECK(strstr(tsr_ctx_last_error(ctx), "f32") != NULL);
        CHECK(access(path, F_OK) != 0);
    }
    tsr_image_free(ctx, &f32);
    CHECK(count_temp_files() == 0);

    /* A write failing half way (the file size limit, so EFBIG): the old file is untouched and
     * the temporary file is removed. */
    snprintf(path, sizeof path, "%s/keep.png", tmpdir);
    write_all(path, "old contents", 12);
    struct rlimit old_lim, lim;
    getrlimit(RLIMIT_FSIZE, &old_lim);
    lim = old_lim;
    lim.rlim_cur = 4096; /* the image compresses to ~180 KB */
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &lim) == 0) {
        tsr_save_options so;
        tsr_save_options_init(&so);
        so.png_compression = 0;
        tsr_status st = tsr_image_save(ctx, path, &img, &so);
        setrlimit(RLIMIT_FSIZE, &old_lim);
        CHECK_STATUS(st, TSR_ERR_IO);
        CHECK(strstr(tsr_ctx_last_error(ctx), "keep.png") != NULL);
        size_t n;
        unsigned char *b = tsr_test_read_file(path, &n);
        CHECK(b && n == 12 && memcmp(b, "old contents", 12) == 0);
        free(b);
        CHECK(count_temp_files() == 0);
        /* same through the JPEG and PNM writers */
        snprintf(path, sizeof path, "%s/keep.ppm", tmpdir);
        write_all(path, "old", 3);
        setrlimit(RLIMIT_FSIZE, &lim);
        st = tsr_image_save(ctx, path, &img, NULL);
        setrlimit(RLIMIT_FSIZE, &old_lim);
        CHECK_STATUS(st, TSR_ERR_IO);
        b = tsr_test_read_file(path, &n);
        CHECK(b && n == 3);
        free(b);
        snprintf(path, sizeof path, "%s/keep.jpg", tmpdir);
        write_all(path, "old", 3);
        setrlimit(RLIMIT_FSIZE, &lim);
        so.jpeg_quality = 100;
        st = tsr_image_save(ctx, path, &img, &so);
        setrlimit(RLIMIT_FSIZE, &old_lim);
        CHECK_STATUS(st, TSR_ERR_IO);
        b = tsr_test_read_file(path, &n);
        CHECK(b && n == 3);
        free(b);
        CHECK(count_temp_files() == 0);
    } else {
        fprintf(stderr, "note: cannot lower RLIMIT_FSIZE; mid-write failure not tested\n");
    }
    signal(SIGXFSZ, old_handler);

    /* success replaces the old file completely */
    snprintf(path, sizeof path, "%s/keep.png", tmpdir);
    CHECK_OK(ctx, tsr_image_save(ctx, path, &img, NULL));
    tsr_image back;
    CHECK_OK(ctx, tsr_image_load(ctx, path, &back, NULL));
    CHECK(images_equal(&img, &back));
    tsr_image_free(ctx, &back);
    CHECK(count_temp_files() == 0);

    /* loading: a missing file and a folder give TSR_ERR_IO with the name */
    snprintf(path, sizeof path, "%s/missing.png", tmpdir);
    CHECK_STATUS(tsr_image_load(ctx, path, &back, NULL), TSR_ERR_IO);
    CHECK(strstr(tsr_ctx_last_error(ctx), "missing.png") != NULL);
    CHECK_STATUS(tsr_image_load(ctx, tmpdir, &back, NULL), TSR_ERR_IO);
    /* a corrupt file's message starts with its name */
    snprintf(path, sizeof path, "%s/bad.pgm", tmpdir);
    write_all(path, "P5 0 1 255 x", 12);
    CHECK_STATUS(tsr_image_load(ctx, path, &back, NULL), TSR_ERR_CORRUPT);
    CHECK(strncmp(tsr_ctx_last_error(ctx), path, strlen(path)) == 0);
    CHECK(strstr(tsr_ctx_last_error(ctx), "width 0") != NULL);
    tsr_image_free(ctx, &img);
    tsr_ctx_destroy(ctx);
}

/* ---- allocation fault loop ---- */

typedef struct fault_alloc {
    long count;   /* allocations made */
    long fail_at; /* the allocation number that fails (1-based); 0 = none */
    long live;    /* outstanding allocations */
    int failed;   /* the planned failure happened */
} fault_alloc;

static void *fault_alloc_fn(void *user, size_t size, size_t align)
{
    fault_alloc *fa = user;
    fa->count++;
    if (fa->fail_at && fa->count == fa->fail_at) {
        fa->failed = 1;
        return NULL;
    }
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1))
        return NULL;
    fa->live++;
    return p;
}

static void fault_free_fn(void *user, void *ptr)
{
    fault_alloc *fa = user;
    if (ptr) {
        fa->live--;
        free(ptr);
    }
}

/* Decodes data with the Nth allocation failing, N = 1, 2, ... until a run needs no failure.
 * Each failing run must give TSR_ERR_OUT_OF_MEMORY with a message, or (when libpng tolerates
 * the failure of an optional allocation) the right image; no run may leak. */
static void fault_loop_decode(const char *what, const void *data, size_t len, const tsr_image *want)
{
    int runs = 0;
    for (long n = 1;; n++) {
        fault_alloc fa = {0, 0, 0, 0};
        tsr_ctx_options opt;
        tsr_ctx_options_init(&opt);
        opt.backend = TSR_BACKEND_REFERENCE;
        opt.allocator = (tsr_allocator){fault_alloc_fn, fault_free_fn, &fa};
        tsr_ctx *ctx = NULL;
        if (tsr_ctx_create(&opt, &ctx) != TSR_OK) {
            CHECK(0);
            return;
        }
        long base_live = fa.live;
        fa.count = 0;
        fa.fail_at = n;
        tsr_image img;
        tsr_status st = tsr_image_decode(ctx, data, len, &img, NULL);
        runs++;
        if (st == TSR_OK) {
            CHECK(images_equal(&img, want));
            tsr_image_free(ctx, &img);
        } else {
            tsr_test_checks++;
            if (st != TSR_ERR_OUT_OF_MEMORY || !fa.failed || !tsr_ctx_last_error(ctx)[0]) {
                tsr_test_failures++;
                fprintf(stderr, "%s: allocation %ld failing gave %s \"%s\"\n", what, n,
                        tsr_status_name(st), tsr_ctx_last_error(ctx));
            }
        }
        tsr_test_checks++;
        if (fa.live != base_live) {
            tsr_test_failures++;
            fprintf(stderr, "%s: allocation %ld failing leaks %ld blocks\n", what, n,
                    fa.live - base_live);
        }
        int done = !fa.failed;
        tsr_ctx_destroy(ctx);
        if (done) {
            CHECK(st == TSR_OK);
            break;
        }
        if (n > 100000) {
            CHECK(0);
            break;
        }
    }
    printf("fault loop %s: %d runs\n", what, runs);
}

/* The same for saving: every failure is OUT_OF_MEMORY, leaves no file, and leaks nothing. */
static void fault_loop_save(const char *name, const tsr_image *src)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    int runs = 0;
    for (long n = 1;; n++) {
        fault_alloc fa = {0, 0, 0, 0};
        tsr_ctx_options opt;
        tsr_ctx_options_init(&opt);
        opt.allocator = (tsr_allocator){fault_alloc_fn, fault_free_fn, &fa};
        tsr_ctx *ctx = NULL;
        if (tsr_ctx_create(&opt, &ctx) != TSR_OK) {
            CHECK(0);
            return;
        }
        long base_live = fa.live;
        fa.count = 0;
        fa.fail_at = n;
        unlink(path);
        tsr_status st = tsr_image_save(ctx, path, src, NULL);
        runs++;
        if (st != TSR_OK) {
            CHECK_STATUS(st, TSR_ERR_OUT_OF_MEMORY);
            CHECK(access(path, F_OK) != 0);
        }
        CHECK(fa.live == base_live);
        CHECK(count_temp_files() == 0);
        int done = !fa.failed;
        tsr_ctx_destroy(ctx);
        if (done) {
            CHECK_STATUS(st, TSR_OK);
            break;
        }
    }
    printf("fault loop save %s: %d runs\n", name, runs);
}

static void test_fault_loops(void)
{
    tsr_ctx *ctx = make_ctx();
    tsr_image rgba, gray16, rgb;
    CHECK_OK(ctx, tsr_image_alloc(ctx, &rgba, 19, 11, 4, TSR_U8));
    CHECK_OK(ctx, tsr_image_alloc(ctx, &gray16, 7, 5, 1, TSR_U16));
    CHECK_OK(ctx, tsr_image_alloc(ctx, &rgb, 16, 16, 3, TSR_U8));
    fill_random(&rgba);
    fill_random(&gray16);
    fill_smooth(&rgb);
    size_t n;
    unsigned char *b = encode(ctx, &rgba, TSR_FORMAT_PNG, 95, &n);
    fault_loop_decode("PNG RGBA", b, n, &rgba);
    free(b);
    b = encode(ctx, &gray16, TSR_FORMAT_PNG, 95, &n);
    fault_loop_decode("PNG gray16", b, n, &gray16);
    free(b);
    b = encode(ctx, &gray16, TSR_FORMAT_PNM, 95, &n);
    fault_loop_decode("PNM gray16", b, n, &gray16);
    free(b);
    b = encode(ctx, &rgb, TSR_FORMAT_JPEG, 90, &n);
    tsr_image want;
    CHECK_OK(ctx, tsr_image_decode(ctx, b, n, &want, NULL));
    fault_loop_decode("JPEG RGB", b, n, &want);
    tsr_image_free(ctx, &want);
    free(b);
    /* the interlaced palette seed from the fuzz corpus, when the tests folder is known */
    const char *tests = getenv("TSR_TESTS");
    if (tests) {
        const char *seeds[] = {"seed_pal2_trns.png", "seed_rgb8_adam7.png", "seed_p2.pgm",
                               "seed_rgb_progressive.jpg"};
        for (int i = 0; i < 4; i++) {
            char path[1024];
            snprintf(path, sizeof path, "%s/fuzz/corpus/image_decode/%s", tests, seeds[i]);
            b = tsr_test_read_file(path, &n);
            if (!b)
                continue;
            CHECK_OK(ctx, tsr_image_decode(ctx, b, n, &want, NULL));
            fault_loop_decode(seeds[i], b, n, &want);
            tsr_image_free(ctx, &want);
            free(b);
        }
    }
    /* the other lossless formats, each through its own decoder and encoder */
    const struct {
        tsr_format format;
        const char *name;
        tsr_image *img;
    } more[] = {{TSR_FORMAT_PAM, "fault.pam", &rgba},
                {TSR_FORMAT_TIFF, "fault.tif", &rgba},
                {TSR_FORMAT_TIFF, "fault16.tif", &gray16},
                {TSR_FORMAT_WEBP, "fault.webp", &rgba},
                {TSR_FORMAT_BMP, "fault.bmp", &rgba}};
    for (int i = 0; i < 5; i++) {
        b = encode(ctx, more[i].img, more[i].format, 95, &n);
        fault_loop_decode(more[i].name, b, n, more[i].img);
        free(b);
        fault_loop_save(more[i].name, more[i].img);
    }
    fault_loop_save("fault.png", &rgba);
    fault_loop_save("fault.jpg", &rgb);
    fault_loop_save("fault.ppm", &rgb);
    fault_loop_save("fault16.pgm", &gray16);
    tsr_image_free(ctx, &rgba);
    tsr_image_free(ctx, &gray16);
    tsr_image_free(ctx, &rgb);
    tsr_ctx_destroy(ctx);
}

/* Arguments: NULLs and a poisoned context. */
static void test_arguments(void)
{
    tsr_ctx *ctx = make_ctx();
    tsr_image img;
    CHECK_STATUS(tsr_image_decode(NULL, "P5", 2, &img, NULL), TSR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(tsr_image_decode(ctx, "P5", 2, NULL, NULL), TSR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(tsr_image_decode(ctx, NULL, 5, &img, NULL), TSR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(tsr_image_load(ctx, NULL, &img, NULL), TSR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(tsr_image_save(ctx, NULL, &img, NULL), TSR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(tsr_image_save(ctx, "x.png", NULL, NULL), TSR_ERR_INVALID_ARGUMENT);
    tsr_save_options so;
    tsr_save_options_init(&so);
    CHECK(so.format == TSR_FORMAT_UNKNOWN && so.jpeg_quality == 95 && so.png_compression == 3);
    CHECK_OK(ctx, tsr_image_alloc(ctx, &img, 2, 2, 1, TSR_U8));
    so.jpeg_quality = 0;
    CHECK_STATUS(tsr_image_save(ctx, "x.jpg", &img, &so), TSR_ERR_INVALID_ARGUMENT);
    so.jpeg_quality = 95;
    so.png_compression = 10;
    CHECK_STATUS(tsr_image_save(ctx, "x.png", &img, &so), TSR_ERR_INVALID_ARGUMENT);
    tsr_image cuda_img = img;
    cuda_img.memory = TSR_MEMORY_CUDA;
    char path[512];
    snprintf(path, sizeof path, "%s/cuda.png", tmpdir);
    CHECK_STATUS(tsr_image_save(ctx, path, &cuda_img, NULL), TSR_ERR_INVALID_ARGUMENT);
    CHECK(access(path, F_OK) != 0);
    tsr_image_free(ctx, &img);
    tsr_ctx_destroy(ctx);
}

static void remove_tmpdir(void)
{
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    char path[1024];
    while (d && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
        unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(tmpdir);
}

int main(void)
{
    tsr_rng_seed(&rng, 0x10a11ce5ull);
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/tsr_test_io_XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_detect();
    test_round_trips();
    test_misleading_names();
    test_must_reject();
    test_pnm_details();
    test_atomic_writer();
    test_fault_loops();
    test_arguments();
    test_sample_images();
    test_jpeg_info();
    remove_tmpdir();
    return tsr_test_finish("test_io");
}
