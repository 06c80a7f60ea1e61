/* The image formats beyond PNG, JPEG and PGM/PPM: PAM, PFM, TIFF, WebP, BMP and PBM bitmaps.
 * Round trips of random images for every depth x channel count (bit-exact: each of these
 * writers is lossless), what each format refuses, decoding of hand-built files (BMP palettes,
 * masks, top-down rows; PBM bits), and a must-reject list: every truncation of every format,
 * headers that lie about sizes, fields out of range. Set TSR_SEED to repeat a random run. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static tsr_rng rng;
static char tmpdir[256];

static size_t row_bytes(const tsr_image *img)
{
    return (size_t)img->width * (size_t)img->channels * tsr_depth_size(img->depth);
}

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

/* Encodes img as `format` through a file and returns the file's bytes (NULL on failure, with
 * *st saying why). */
static unsigned char *encode(tsr_ctx *ctx, const tsr_image *img, tsr_format format, size_t *len,
                             tsr_status *st)
{
    char path[512];
    snprintf(path, sizeof path, "%s/enc.bin", tmpdir);
    tsr_save_options so;
    tsr_save_options_init(&so);
    so.format = format;
    *st = tsr_image_save(ctx, path, img, &so);
    if (*st != TSR_OK)
        return NULL;
    return tsr_test_read_file(path, len);
}

/* ---- detection and names ---- */

static void test_detect(void)
{
    static const unsigned char jp2[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', '\r', '\n', 0x87, '\n'};
    CHECK(tsr_format_detect("P7\n", 3) == TSR_FORMAT_PAM);
    CHECK(tsr_format_detect("P7x", 3) == TSR_FORMAT_UNKNOWN);
    CHECK(tsr_format_detect("PF\n", 3) == TSR_FORMAT_PFM);
    CHECK(tsr_format_detect("Pf ", 3) == TSR_FORMAT_PFM);
    CHECK(tsr_format_detect("P4\n", 3) == TSR_FORMAT_PNM);
    CHECK(tsr_format_detect("II*\0", 4) == TSR_FORMAT_TIFF);
    CHECK(tsr_format_detect("MM\0*", 4) == TSR_FORMAT_TIFF);
    CHECK(tsr_format_detect("II+\0", 4) == TSR_FORMAT_TIFF);
    CHECK(tsr_format_detect("II*", 3) == TSR_FORMAT_UNKNOWN);
    CHECK(tsr_format_detect("RIFF\0\0\0\0WEBP", 12) == TSR_FORMAT_WEBP);
    CHECK(tsr_format_detect("RIFF\0\0\0\0WAVE", 12) == TSR_FORMAT_UNKNOWN);
    CHECK(tsr_format_detect("BM", 2) == TSR_FORMAT_BMP);
    CHECK(tsr_format_detect(jp2, 12) == TSR_FORMAT_JP2);
    CHECK(tsr_format_detect("\xff\x4f\xff\x51", 4) == TSR_FORMAT_J2K);
    CHECK(tsr_format_from_name("a.TIF") == TSR_FORMAT_TIFF);
    CHECK(tsr_format_from_name("a.tiff") == TSR_FORMAT_TIFF);
    CHECK(tsr_format_from_name("a.webp") == TSR_FORMAT_WEBP);
    CHECK(tsr_format_from_name("a.bmp") == TSR_FORMAT_BMP);
    CHECK(tsr_format_from_name("a.pam") == TSR_FORMAT_PAM);
    CHECK(tsr_format_from_name("a.pfm") == TSR_FORMAT_PFM);
    CHECK(tsr_format_from_name("a.jp2") == TSR_FORMAT_JP2);
    CHECK(tsr_format_from_name("a.j2c") == TSR_FORMAT_J2K);
    const char *names[] = {"pam", "pfm", "tiff", "webp", "bmp", "jp2", "j2k"};
    for (int i = 0; i < 7; i++)
        CHECK(strcmp(tsr_format_name((tsr_format)(TSR_FORMAT_PAM + i)), names[i]) == 0);
}

/* ---- round trips ---- */

/* What each writer holds, written out here independently of the library's table: depths as
 * bits 1 << depth, channels as bits 1 << channels. */
static const struct {
    tsr_format format;
    const char *ext;
    unsigned depths, channels;
} holds[] = {
    {TSR_FORMAT_PAM, "pam", 1u << TSR_U8 | 1u << TSR_U16, 0x1e},
    {TSR_FORMAT_PFM, "pfm", 1u << TSR_F32, 1u << 1 | 1u << 3},
    {TSR_FORMAT_TIFF, "tif", 1u << TSR_U8 | 1u << TSR_U16 | 1u << TSR_F32, 0x1e},
    {TSR_FORMAT_WEBP, "webp", 1u << TSR_U8, 1u << 3 | 1u << 4},
    {TSR_FORMAT_BMP, "bmp", 1u << TSR_U8, 1u << 1 | 1u << 3 | 1u << 4},
};
#define NFORMATS (sizeof holds / sizeof holds[0])

static void test_round_trips(void)
{
    tsr_ctx *ctx = tsr_test_reference_ctx();
    static const int sizes[][2] = {{1, 1}, {3, 2}, {17, 9}, {64, 33}, {257, 5}};
    static const tsr_depth depths[3] = {TSR_U8, TSR_U16, TSR_F32};
    int exact = 0, refused = 0;
    for (unsigned si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (int di = 0; di < 3; di++)
            for (int ch = 1; ch <= 4; ch++) {
                tsr_image img;
                CHECK_OK(ctx,
                         tsr_image_alloc(ctx, &img, sizes[si][0], sizes[si][1], ch, depths[di]));
                for (int32_t y = 0; y < img.height; y++) /* f32: any bits, NaNs too */
                    tsr_rng_fill(&rng, (char *)img.data + (size_t)y * img.stride, row_bytes(&img));
                for (unsigned f = 0; f < NFORMATS; f++) {
                    char path[512];
                    snprintf(path, sizeof path, "%s/rt.%s", tmpdir, holds[f].ext);
                    tsr_status st = tsr_image_save(ctx, path, &img, NULL);
                    int ok = (holds[f].depths >> depths[di] & 1) && (holds[f].channels >> ch & 1);
                    if (!ok) {
                        CHECK_STATUS(st, TSR_ERR_UNSUPPORTED);
                        CHECK(access(path, F_OK) != 0);
                        refused++;
                        continue;
                    }
                    CHECK_OK(ctx, st);
                    tsr_image back;
                    tsr_format got;
                    CHECK_OK(ctx, tsr_image_load(ctx, path, &back, &got));
                    CHECK(got == holds[f].format);
                    int32_t pw = 0, ph = 0;
                    CHECK_OK(ctx, tsr_image_probe(ctx, path, &pw, &ph));
                    CHECK(pw == img.width && ph == img.height);
                    int same = st == TSR_OK && images_equal(&img, &back);
                    CHECK(same);
                    if (!same)
                        fprintf(stderr, "%s %dx%d %d ch depth %d: not the same image back\n",
                                holds[f].ext, (int)img.width, (int)img.height, ch, (int)depths[di]);
                    exact += same;
                    tsr_image_free(ctx, &back);
                    unlink(path);
                }
                tsr_image_free(ctx, &img);
            }
    printf("round trips: %d exact, %d refused\n", exact, refused);

    /* Lossy WebP (a quality): the size and channels come back, the pixels near. */
    {
        tsr_image img, back;
        CHECK_OK(ctx, tsr_image_alloc(ctx, &img, 32, 24, 3, TSR_U8));
        for (int32_t y = 0; y < 24; y++)
            for (int32_t x = 0; x < 32 * 3; x++)
                ((uint8_t *)img.data)[(size_t)y * img.stride + (size_t)x] = (uint8_t)(x * 2 + y);
        char path[512];
        snprintf(path, sizeof path, "%s/lossy.webp", tmpdir);
        tsr_save_options so;
        tsr_save_options_init(&so);
        so.webp_quality = 90;
        CHECK_OK(ctx, tsr_image_save(ctx, path, &img, &so));
        CHECK_OK(ctx, tsr_image_load(ctx, path, &back, NULL));
        CHECK(back.width == 32 && back.height == 24 && back.channels == 3);
        tsr_image_free(ctx, &back);
        so.webp_quality = 101;
        CHECK_STATUS(tsr_image_save(ctx, path, &img, &so), TSR_ERR_INVALID_ARGUMENT);
        tsr_image_free(ctx, &img);
    }
    /* tsr_image_save does not write JPEG 2000 (tsr_j2k_encode_save does), by name or asked */
    {
        tsr_image img;
        CHECK_OK(ctx, tsr_image_alloc(ctx, &img, 2, 2, 1, TSR_U8));
        char path[512];
        snprintf(path, sizeof path, "%s/x.jp2", tmpdir);
        CHECK_STATUS(tsr_image_save(ctx, path, &img, NULL), TSR_ERR_INVALID_ARGUMENT);
        CHECK(strstr(tsr_ctx_last_error(ctx), "cannot write .jp2") != NULL);
        tsr_save_options so;
        tsr_save_options_init(&so);
        so.format = TSR_FORMAT_J2K;
        CHECK_STATUS(tsr_image_save(ctx, path, &img, &so), TSR_ERR_UNSUPPORTED);
        CHECK(strstr(tsr_ctx_last_error(ctx), "tsr_j2k_encode_save") != NULL);
        CHECK(access(path, F_OK) != 0);
        tsr_image_free(ctx, &img);
    }
    tsr_ctx_destroy(ctx);
}

/* tsr_image_probe on the formats of test_io (the round trips above probe the rest): the size
 * from the header; a file whose pixels are cut short probes all the same, except PNG, whose
 * decoder checks the chunk list before the size; a file whose header is cut short fails as its
 * load does; the context carries no message after a good probe. */
static void test_probe(void)
{
    tsr_ctx *ctx = tsr_test_reference_ctx();
    static const struct {
        const char *ext;
        int channels, cut_pixels_probe;
    } files[] = {{"png", 3, 0}, {"jpg", 3, 1}, {"ppm", 3, 1}, {"pgm", 1, 1}};
    for (unsigned i = 0; i < sizeof files / sizeof files[0]; i++) {
        tsr_image img;
        CHECK_OK(ctx, tsr_image_alloc(ctx, &img, 301, 77, files[i].channels, TSR_U8));
        for (int32_t y = 0; y < img.height; y++)
            tsr_rng_fill(&rng, (char *)img.data + (size_t)y * img.stride, row_bytes(&img));
        char path[512];
        snprintf(path, sizeof path, "%s/probe.%s", tmpdir, files[i].ext);
        CHECK_OK(ctx, tsr_image_save(ctx, path, &img, NULL));
        int32_t w = 0, h = 0;
        CHECK_OK(ctx, tsr_image_probe(ctx, path, &w, &h));
        CHECK(w == 301 && h == 77);
        CHECK(tsr_ctx_last_error(ctx)[0] == '\0');
        size_t len;
        unsigned char *bytes = tsr_test_read_file(path, &len);
        CHECK(bytes != NULL);
        FILE *f = fopen(path, "wb"); /* the pixels cut short */
        CHECK(f && fwrite(bytes, 1, len / 2, f) == len / 2);
        fclose(f);
        w = h = 0;
        if (files[i].cut_pixels_probe) {
            CHECK_OK(ctx, tsr_image_probe(ctx, path, &w, &h));
            CHECK(w == 301 && h == 77);
        } else {
            CHECK(tsr_image_probe(ctx, path, &w, &h) == TSR_ERR_CORRUPT);
        }
        tsr_image back;
        CHECK(tsr_image_load(ctx, path, &back, NULL) != TSR_OK);
        f = fopen(path, "wb"); /* the header cut short */
        CHECK(f && fwrite(bytes, 1, 8, f) == 8);
        fclose(f);
        CHECK(tsr_image_probe(ctx, path, &w, &h) != TSR_OK);
        CHECK(tsr_ctx_last_error(ctx)[0] != '\0');
        free(bytes);
        unlink(path);
        tsr_image_free(ctx, &img);
    }
    tsr_ctx_destroy(ctx);
}

/* ---- hand-built files ---- */

static void put16(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
    put16(p, v), put16(p + 2, v >> 16);
}

/* A BMP: file header, an info header of hsize bytes (40..124), masks (BI_BITFIELDS, at 54),
 * a palette of npal BGRX entries, then the raster. Returns the length. */
static size_t bmp_build(unsigned char *out, uint32_t hsize, int32_t w, int32_t h, int bpp,
                        int compression, const uint32_t masks[4], const unsigned char *pal,
                        int npal, const unsigned char *raster, size_t raster_len)
{
    size_t masks_len = compression == 3 && hsize < 52 ? 12 : 0;
    size_t off = 14 + hsize + masks_len + (size_t)npal * 4;
    memset(out, 0, off);
    out[0] = 'B', out[1] = 'M';
    put32(out + 2, (uint32_t)(off + raster_len));
    put32(out + 10, (uint32_t)off);
    put32(out + 14, hsize);
    put32(out + 18, (uint32_t)w);
    put32(out + 22, (uint32_t)h);
    put16(out + 26, 1);
    put16(out + 28, (uint32_t)bpp);
    put32(out + 30, (uint32_t)compression);
    put32(out + 46, (uint32_t)npal);
    if (compression == 3)
        for (int i = 0; i < (hsize >= 56 ? 4 : 3); i++)
            put32(out + 54 + 4 * i, masks[i]);
    if (npal)
        memcpy(out + 14 + hsize + masks_len, pal, (size_t)npal * 4);
    memcpy(out + off, raster, raster_len);
    return off + raster_len;
}

static void test_bmp_layouts(void)
{
    tsr_ctx *ctx = tsr_test_reference_ctx();
    unsigned char file[512];
    tsr_image img;
    /* 4-bit colour palette, 3x2, bottom-up: rows of 2 bytes padded to 4 */
    {
        const unsigned char pal[3 * 4] = {0, 0, 255, 0, 0, 255, 0, 0, 255, 0, 0, 0};
        const unsigned char raster[8] = {0x01, 0x20, 0, 0, 0x22, 0x10, 0, 0};
        size_t n = bmp_build(file, 40, 3, 2, 4, 0, NULL, pal, 3, raster, 8);
        CHECK_OK(ctx, tsr_image_decode(ctx, file, n, &img, NULL));
        if (img.data) {
            const uint8_t *p = img.data;
            /* top row is the file's second: indices 2, 2, 1 -> blue, blue, green */
            static const uint8_t want[18] = {0,   0, 255, 0, 0,   255, 0, 255, 0,
                                             255, 0, 0,   0, 255, 0,   0, 0,   255};
            CHECK(img.channels == 3 && img.width == 3 && img.height == 2);
            CHECK(memcmp(p, want, 9) == 0 && memcmp(p + img.stride, want + 9, 9) == 0);
            tsr_image_free(ctx, &img);
        }
    }
    /* 1-bit gray palette, top-down (negative height): a gray image */
    {
        const unsigned char pal[8] = {0, 0, 0, 0, 255, 255, 255, 0};
        const unsigned char raster[8] = {0xa0, 0, 0, 0, 0x40, 0, 0, 0};
        size_t n = bmp_build(file, 40, 3, -2, 1, 0, NULL, pal, 2, raster, 8);
        CHECK_OK(ctx, tsr_image_decode(ctx, file, n, &img, NULL));
        if (img.data) {
            const uint8_t *p = img.data;
            CHECK(img.channels == 1);
            CHECK(p[0] == 255 && p[1] == 0 && p[2] == 255);
            CHECK(p[img.stride] == 0 && p[img.stride + 1] == 255 && p[img.stride + 2] == 0);
            tsr_image_free(ctx, &img);
        }
    }
    /* 16-bit 5-6-5 BI_BITFIELDS: channels scaled to 8 bits, round(v * 255 / max) */
    {
        const uint32_t masks[4] = {0xf800, 0x07e0, 0x001f, 0};
        unsigned char raster[4] = {0};
        put16(raster, 0x1u << 11 | 0x20u << 5 | 0x1f); /* r 1/31, g 32/63, b 31/31 */
        size_t n = bmp_build(file, 40, 1, 1, 16, 3, masks, NULL, 0, raster, 4);
        CHECK_OK(ctx, tsr_image_decode(ctx, file, n, &img, NULL));
        if (img.data) {
            const uint8_t *p = img.data;
            CHECK(img.channels == 3 && p[0] == 8 && p[1] == 130 && p[2] == 255);
            tsr_image_free(ctx, &img);
        }
    }
    /* 32-bit with an alpha mask in a 56-byte header: RGBA; the same pixel BI_RGB: RGB */
    {
        const uint32_t masks[4] = {0x000000ffu, 0x0000ff00u, 0x00ff0000u, 0xff000000u};
        const unsigned char raster[4] = {10, 20, 30, 40};
        size_t n = bmp_build(file, 56, 1, 1, 32, 3, masks, NULL, 0, raster, 4);
        CHECK_OK(ctx, tsr_image_decode(ctx, file, n, &img, NULL));
        if (img.data) {
            const uint8_t *p = img.data;
            CHECK(img.channels == 4 && p[0] == 10 && p[1] == 20 && p[2] == 30 && p[3] == 40);
            tsr_image_free(ctx, &img);
        }
        n = bmp_build(file, 40, 1, 1, 32, 0, NULL, NULL, 0, raster, 4);
        CHECK_OK(ctx, tsr_image_decode(ctx, file, n, &img, NULL));
        if (img.data) {
            const uint8_t *p = img.data;
            CHECK(img.channels == 3 && p[0] == 30 && p[1] == 20 && p[2] == 10);
            tsr_image_free(ctx, &img);
        }
    }
    tsr_ctx_destroy(ctx);
}

static void test_bitmaps(void)
{
    tsr_ctx *ctx = tsr_test_reference_ctx();
    tsr_image img;
    /* P4: 10 wide, rows of 2 bytes, 1 = black */
    const char p4[] = "P4\n10 2\n\xc0\x40\x00\xc0";
    CHECK_OK(ctx, tsr_image_decode(ctx, p4, sizeof p4 - 1, &img, NULL));
    if (img.data) {
        const uint8_t *p = img.data;
        static const uint8_t want[20] = {0,   0,   255, 255, 255, 255, 255, 255, 255, 0,
                                         255, 255, 255, 255, 255, 255, 255, 255, 0,   0};
        CHECK(img.width == 10 && img.height == 2 && img.channels == 1 && img.depth == TSR_U8);
        CHECK(memcmp(p, want, 10) == 0 && memcmp(p + img.stride, want + 10, 10) == 0);
        tsr_image_free(ctx, &img);
    }
    /* P1 with and without separators between the bits */
    const char *p1[] = {"P1\n3 1\n1 0 1", "P1 3 1 101"};
    for (int i = 0; i < 2; i++) {
        CHECK_OK(ctx, tsr_image_decode(ctx, p1[i], strlen(p1[i]), &img, NULL));
        if (img.data) {
            const uint8_t *p = img.data;
            CHECK(p[0] == 0 && p[1] == 255 && p[2] == 0);
            tsr_image_free(ctx, &img);
        }
    }
    /* PAM with comments and a maxval that scales, fields in another order */
    const char pam[] = "P7\n# c\nHEIGHT 1\nWIDTH 2\nMAXVAL 15\nDEPTH 2\nTUPLTYPE GRAYSCALE_ALPHA\n"
                       "ENDHDR\n\x0f\x00\x07\x0f";
    CHECK_OK(ctx, tsr_image_decode(ctx, pam, sizeof pam - 1, &img, NULL));
    if (img.data) {
        const uint8_t *p = img.data;
        CHECK(img.channels == 2 && p[0] == 255 && p[1] == 0 && p[2] == 119 && p[3] == 255);
        tsr_image_free(ctx, &img);
    }
    /* PFM: big-endian (positive scale), bottom row first */
    const char pfm[] = "Pf\n1 2\n1.0\n\x3f\x80\x00\x00\x40\x00\x00\x00";
    CHECK_OK(ctx, tsr_image_decode(ctx, pfm, sizeof pfm - 1, &img, NULL));
    if (img.data) {
        const float *p = img.data;
        CHECK(img.depth == TSR_F32 && p[0] == 2.0f &&
              *(const float *)((const char *)p + img.stride) == 1.0f);
        tsr_image_free(ctx, &img);
    }
    tsr_ctx_destroy(ctx);
}

/* ---- must-reject list ---- */

static int rejected;

static void reject(tsr_ctx *ctx, const char *what, const void *data, size_t len, tsr_status want,
                   const char *needle)
{
    tsr_image img;
    memset(&img, 0, sizeof img);
    tsr_status st = tsr_image_decode(ctx, data, len, &img, NULL);
    const char *msg = tsr_ctx_last_error(ctx);
    tsr_test_checks++;
    if (st == TSR_OK || (want != TSR_OK && st != want) || !msg[0] || strchr(msg, '\n') ||
        (needle && !strstr(msg, needle)) || img.data) {
        tsr_test_failures++;
        fprintf(stderr, "must reject %s (%zu bytes): got %s \"%s\", want %s %s\n", what, len,
                tsr_status_name(st), msg, tsr_status_name(want), needle ? needle : "");
    }
    if (st == TSR_OK)
        tsr_image_free(ctx, &img);
    rejected++;
}

static void test_must_reject(void)
{
    tsr_ctx *ctx = tsr_test_reference_ctx();
    tsr_image rgb, rgba16, gray32;
    CHECK_OK(ctx, tsr_image_alloc(ctx, &rgb, 24, 20, 3, TSR_U8));
    CHECK_OK(ctx, tsr_image_alloc(ctx, &rgba16, 9, 7, 4, TSR_U16));
    CHECK_OK(ctx, tsr_image_alloc(ctx, &gray32, 6, 5, 1, TSR_F32));
    tsr_rng_fill(&rng, rgb.data, rgb.stride * 20);
    tsr_rng_fill(&rng, rgba16.data, rgba16.stride * 7);
    memset(gray32.data, 0, gray32.stride * 5);
    const struct {
        const char *name;
        const tsr_image *img;
        tsr_format format;
    } files[] = {{"PAM", &rgb, TSR_FORMAT_PAM},         {"PAM 16", &rgba16, TSR_FORMAT_PAM},
                 {"PFM", &gray32, TSR_FORMAT_PFM},      {"TIFF", &rgb, TSR_FORMAT_TIFF},
                 {"TIFF 16", &rgba16, TSR_FORMAT_TIFF}, {"TIFF f32", &gray32, TSR_FORMAT_TIFF},
                 {"WebP", &rgb, TSR_FORMAT_WEBP},       {"BMP", &rgb, TSR_FORMAT_BMP}};
    tsr_ctx_options small_opt;
    tsr_ctx_options_init(&small_opt);
    small_opt.max_image_pixels = 29; /* below each image above */
    tsr_ctx *small = NULL;
    CHECK_STATUS(tsr_ctx_create(&small_opt, &small), TSR_OK);
    for (unsigned f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t len;
        tsr_status st;
        unsigned char *data = encode(ctx, files[f].img, files[f].format, &len, &st);
        CHECK_OK(ctx, st);
        if (!data)
            continue;
        /* every prefix: a clean one-line error (each of these rasters or trailers is needed),
         * except that libtiff reads a TIFF whose last IFD lacks its 4-byte link to the next
         * one: such a prefix must then give the whole file's image */
        for (size_t cut = 1; cut < len; cut++) {
            char what[64];
            snprintf(what, sizeof what, "%s cut at %zu", files[f].name, cut);
            unsigned char *copy = malloc(cut); /* exact size: ASan sees any over-read */
            memcpy(copy, data, cut);
            tsr_image back;
            if (files[f].format == TSR_FORMAT_TIFF && cut >= len - 4 &&
                tsr_image_decode(ctx, copy, cut, &back, NULL) == TSR_OK) {
                CHECK(images_equal(&back, files[f].img));
                tsr_image_free(ctx, &back);
            } else {
                reject(ctx, what, copy, cut, TSR_OK, NULL);
            }
            free(copy);
        }
        /* a header whose size is over the context's limit, before allocating */
        char what[64];
        snprintf(what, sizeof what, "%s over the pixel limit", files[f].name);
        reject(small, what, data, len, TSR_ERR_LIMIT, "exceeds the limit");
        free(data);
    }
    tsr_ctx_destroy(small);

    /* headers that lie or break the rules */
    reject(ctx, "PAM no ENDHDR", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 255\n", 38,
           TSR_ERR_CORRUPT, "PAM: header ends before ENDHDR");
    reject(ctx, "PAM no depth", "P7\nWIDTH 1\nHEIGHT 1\nMAXVAL 255\nENDHDR\n\x01", 38,
           TSR_ERR_CORRUPT, "DEPTH missing");
    reject(ctx, "PAM depth 5", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 5\nMAXVAL 255\nENDHDR\n\1\1\1\1\1", 51,
           TSR_ERR_UNSUPPORTED, "depth 5");
    reject(ctx, "PAM twice", "P7\nWIDTH 1\nWIDTH 1\nENDHDR\n", 25, TSR_ERR_CORRUPT, "twice");
    reject(ctx, "PAM unknown line", "P7\nCOLOUR 1\nENDHDR\n", 19, TSR_ERR_CORRUPT, "unknown");
    reject(ctx, "PAM huge",
           "P7\nWIDTH 2000000000\nHEIGHT 2000000000\nDEPTH 1\nMAXVAL 255\nENDHDR\n\1", 66,
           TSR_ERR_LIMIT, "PAM: ");
    reject(ctx, "PAM sample above maxval", "P7\nWIDTH 1\nHEIGHT 1\nDEPTH 1\nMAXVAL 9\nENDHDR\n\x0a",
           45, TSR_ERR_CORRUPT, "above maxval");
    reject(ctx, "P4 short raster", "P4 9 2\n\1\1\1", 10, TSR_ERR_CORRUPT, "truncated");
    reject(ctx, "P1 bit 2", "P1 2 1 12", 9, TSR_ERR_CORRUPT, "not 0 or 1");
    reject(ctx, "P1 missing bit", "P1 3 1 1 1", 10, TSR_ERR_CORRUPT, "truncated");
    reject(ctx, "PFM scale 0", "Pf 1 1 0 \0\0\0\0", 13, TSR_ERR_CORRUPT, "scale");
    reject(ctx, "PFM scale nan", "Pf 1 1 nan \0\0\0\0", 15, TSR_ERR_CORRUPT, "scale");
    reject(ctx, "PFM width -1", "Pf -1 1 -1 \0\0\0\0", 15, TSR_ERR_CORRUPT, "width");
    reject(ctx, "PFM huge", "PF 2000000000 2000000000 -1 \0", 29, TSR_ERR_LIMIT, "PFM: ");
    reject(ctx, "PFM no header", "PF\n", 3, TSR_ERR_CORRUPT, "header ends");
    {
        unsigned char file[256];
        const uint32_t bad_masks[4] = {0x0f0f, 0x00f0, 0x000f, 0};
        const unsigned char raster[16] = {0};
        const unsigned char pal[8] = {1, 2, 3, 0, 4, 5, 6, 0};
        size_t n = bmp_build(file, 40, 2, 2, 8, 0, NULL, pal, 2, raster, 8);
        file[n - 8] = 7; /* the first pixel: index 7 of a 2-entry palette */
        reject(ctx, "BMP index past the palette", file, n, TSR_ERR_CORRUPT, "palette index 7");
        n = bmp_build(file, 40, 1, 1, 16, 3, bad_masks, NULL, 0, raster, 4);
        reject(ctx, "BMP broken mask", file, n, TSR_ERR_CORRUPT, "mask");
        n = bmp_build(file, 40, 1, 1, 8, 1, NULL, pal, 2, raster, 4);
        reject(ctx, "BMP RLE", file, n, TSR_ERR_UNSUPPORTED, "compression 1");
        n = bmp_build(file, 40, 1, 1, 2, 0, NULL, pal, 2, raster, 4);
        reject(ctx, "BMP 2 bpp", file, n, TSR_ERR_UNSUPPORTED, "2 bits per pixel");
        n = bmp_build(file, 40, 0x7fffffff, -0x7fffffff, 24, 0, NULL, NULL, 0, raster, 4);
        reject(ctx, "BMP huge", file, n, TSR_ERR_LIMIT, "BMP: ");
        n = bmp_build(file, 40, 0, 1, 24, 0, NULL, NULL, 0, raster, 4);
        reject(ctx, "BMP width 0", file, n, TSR_ERR_CORRUPT, "size 0x1");
        n = bmp_build(file, 40, 1, 1, 24, 0, NULL, NULL, 0, raster, 4);
        put32(file + 14, 41 + 200);
        reject(ctx, "BMP header size 241", file, n, TSR_ERR_CORRUPT, "header size");
        put32(file + 14, 40);
        put32(file + 10, 0xfffffff0u); /* raster offset past the end */
        reject(ctx, "BMP raster offset", file, n, TSR_ERR_CORRUPT, "truncated raster");
        reject(ctx, "BMP magic only", "BM", 2, TSR_ERR_CORRUPT, "BMP: truncated header");
    }
    {
        /* TIFF: a header whose IFD claims 2^31-1 x 2^31-1 (and nothing else) */
        unsigned char t[64] = {'I', 'I', 42, 0, 8, 0, 0, 0, 2, 0};
        put16(t + 10, 256), put16(t + 12, 4), put32(t + 14, 1), put32(t + 18, 0x7fffffff);
        put16(t + 22, 257), put16(t + 24, 4), put32(t + 26, 1), put32(t + 30, 0x7fffffff);
        reject(ctx, "TIFF huge", t, 40, TSR_OK, "TIFF: ");
        reject(ctx, "TIFF header only", "II*\0\x08\0\0\0", 8, TSR_ERR_CORRUPT, "TIFF: ");
        reject(ctx, "TIFF IFD past the end", "II*\0\xff\0\0\0", 8, TSR_ERR_CORRUPT, "TIFF: ");
    }
    reject(ctx, "WebP RIFF only", "RIFF\x04\0\0\0WEBP", 12, TSR_ERR_CORRUPT, "WebP: ");
    {
        static const unsigned char jp2[12] = {0,   0,   0,    12,   'j',  'P',
                                              ' ', ' ', '\r', '\n', 0x87, '\n'};
        reject(ctx, "JP2 through tsr_image_decode", jp2, 12, TSR_ERR_UNSUPPORTED,
               "tsr_j2k_decode_image");
    }
    printf("must-reject: %d malformed inputs refused cleanly\n", rejected);
    tsr_image_free(ctx, &rgb);
    tsr_image_free(ctx, &rgba16);
    tsr_image_free(ctx, &gray32);
    tsr_ctx_destroy(ctx);
}

int main(void)
{
    tsr_rng_seed(&rng, 0x1f0a7e5ull);
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/tsr_test_io_formats_XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_detect();
    test_round_trips();
    test_probe();
    test_bmp_layouts();
    test_bitmaps();
    test_must_reject();
    char path[512];
    snprintf(path, sizeof path, "%s/enc.bin", tmpdir);
    unlink(path);
    rmdir(tmpdir);
    return tsr_test_finish("test_io_formats");
}
