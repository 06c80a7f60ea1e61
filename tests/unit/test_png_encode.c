/* The PNG encoder (src/io/png_encode.c) on fresh random images: the whole-image call gives the
 * same bytes on 1 and on 4 threads and the same bytes as the row-by-row encoder fed in uneven
 * pieces; libpng decodes every file back to the image exactly. Shapes cover one segment, many
 * segments (tall images), one row per segment (rows over a MiB), 1-4 channels, 8 and 16 bits,
 * levels 0 (stored, unfiltered), 1, 3 and 9; images mix smooth gradients (so the filters differ
 * row by row) with noise. */
#include "testlib.h"

#include "core/ctx.h"
#include "io/codecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256];

static void fill(tsr_rng *r, tsr_image *img)
{
    const size_t n = (size_t)img->width * (size_t)img->channels;
    for (int32_t y = 0; y < img->height; y++) {
        uint8_t *row = (uint8_t *)img->data + (size_t)y * img->stride;
        const int noisy = tsr_rng_range(r, 0, 3) == 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t v = noisy ? (uint32_t)tsr_rng_next(r) : (uint32_t)(i * 3 + (size_t)y * 5);
            if (img->depth == TSR_U16)
                ((uint16_t *)row)[i] = (uint16_t)(v * 257u + (uint32_t)(tsr_rng_next(r) & 3));
            else
                row[i] = (uint8_t)v;
        }
    }
}

/* The file that `encode` writes through an atomic file, read back. */
static unsigned char *encode_with(tsr_ctx *ctx, const tsr_image *img, int level, size_t piece,
                                  size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/enc.png", tmpdir);
    tsr__atomic_file af;
    CHECK_OK(ctx, tsr__atomic_open(ctx, path, &af));
    tsr_status st;
    if (!piece) {
        st = tsr__png_encode(ctx, img, level, &af);
    } else {
        tsr__png_enc *e = NULL;
        st = tsr__png_encode_begin(ctx, img, level, &af, &e);
        for (int32_t y = 0; st == TSR_OK && y < img->height; y += (int32_t)piece) {
            size_t n = img->height - y < (int32_t)piece ? (size_t)(img->height - y) : piece;
            st = tsr__png_encode_rows(e, (const uint8_t *)img->data + (size_t)y * img->stride,
                                      img->stride, n);
        }
        if (st == TSR_OK)
            st = tsr__png_encode_end(e);
        tsr__png_encode_free(e);
    }
    CHECK_OK(ctx, st);
    if (st != TSR_OK) {
        tsr__atomic_abort(ctx, &af);
        return NULL;
    }
    CHECK_OK(ctx, tsr__atomic_commit(ctx, &af));
    return tsr_test_read_file(path, len);
}

static void one(tsr_ctx *c1, tsr_ctx *c4, tsr_rng *r, int w, int h, int cn, tsr_depth d, int level)
{
    tsr_image img, back;
    CHECK_OK(c1, tsr_image_alloc(c1, &img, w, h, cn, d));
    fill(r, &img);
    size_t l1 = 0, l4 = 0, lr = 0;
    unsigned char *f1 = encode_with(c1, &img, level, 0, &l1);
    unsigned char *f4 = encode_with(c4, &img, level, 0, &l4);
    unsigned char *fr = encode_with(c1, &img, level, (size_t)tsr_rng_range(r, 1, 9), &lr);
    if (!f1 || !f4 || !fr) {
        CHECK(0);
    } else {
        CHECK(l1 == l4 && memcmp(f1, f4, l1) == 0);
        CHECK(l1 == lr && memcmp(f1, fr, l1) == 0);
        if (tsr__png_decode(c1, f1, l1, &back) != TSR_OK) {
            fprintf(stderr, "%dx%d cn %d depth %d level %d: %s\n", w, h, cn, (int)d, level,
                    tsr_ctx_last_error(c1));
            CHECK(0);
        } else {
            int same =
                back.width == w && back.height == h && back.channels == cn && back.depth == d;
            const size_t row = (size_t)w * (size_t)cn * tsr_depth_size(d);
            for (int32_t y = 0; same && y < h; y++)
                same = memcmp((uint8_t *)back.data + (size_t)y * back.stride,
                              (uint8_t *)img.data + (size_t)y * img.stride, row) == 0;
            if (!same)
                fprintf(stderr, "%dx%d cn %d depth %d level %d: decoded image differs\n", w, h, cn,
                        (int)d, level);
            CHECK(same);
            tsr_image_free(c1, &back);
        }
    }
    free(f1);
    free(f4);
    free(fr);
    tsr_image_free(c1, &img);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tsr_png_encode_%d", (int)getpid());
    if (mkdir(tmpdir, 0700) != 0)
        return 1;
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_CPU;
    o.threads = 1;
    tsr_ctx *c1, *c4;
    if (tsr_ctx_create(&o, &c1) != TSR_OK)
        return 1;
    o.threads = 4;
    if (tsr_ctx_create(&o, &c4) != TSR_OK)
        return 1;
    tsr_rng r;
    tsr_rng_seed(&r, 61);
    static const int shapes[][2] = {{1, 1},     {3, 1},       {1, 700},    {17, 3},
                                    {640, 480}, {1000, 2300}, {300000, 3}, {5, 40000}};
    static const int levels[] = {0, 1, 3, 9};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int cn = 1; cn <= 4; cn++)
            for (int d = 0; d < 2; d++) {
                const int big = shapes[s][0] * shapes[s][1] > 100000;
                const int level = levels[(s + (size_t)cn + (size_t)d) % 4];
                if (big && (cn + d) % 2) /* the large shapes at half the combinations */
                    continue;
                one(c1, c4, &r, shapes[s][0], shapes[s][1], cn, d ? TSR_U16 : TSR_U8,
                    big && level == 9 ? 1 : level);
            }
    tsr_ctx_destroy(c1);
    tsr_ctx_destroy(c4);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return tsr_test_finish("test_png_encode");
}
