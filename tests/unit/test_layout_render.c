/* tsr_layout_render: the picture of a drawing as pixels (picture_raster.c). On a drawing whose
 * look is known from picture.h (two edges crossing, the most crossed, so red; one uncrossed edge,
 * light grey; nodes dark blue; white elsewhere), rendered into images poisoned first: every pixel
 * is written (a frame of white margin and white background where nothing is drawn), the crossing
 * point is red, the light edge grey, a node blue; the picture's size follows the canvas's
 * proportions; random drawings render into images of awkward sizes (1x1 to odd aspect ratios)
 * without touching memory outside them (run under ASan); bad images are refused. */
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

static tsr_ctx *ctx;

static const uint8_t *pixel(const tsr_image *img, double fx, double fy)
{
    int32_t x = (int32_t)(fx * img->width), y = (int32_t)(fy * img->height);
    return (const uint8_t *)img->data + (size_t)y * img->stride + (size_t)x * 3;
}

/* Canvas 100x100; margin 1.25 units: canvas point (x, y) lies at ((x + 1.25) / 102.5) of the
 * picture's side. */
static double at(double v)
{
    return (v + 1.25) / 102.5;
}

static void test_known_picture(void)
{
    tsr_layout *l = NULL;
    CHECK_OK(ctx, tsr_layout_alloc(ctx, 5, 3, &l));
    if (!l)
        return;
    l->width = l->height = 100;
    const int32_t xs[5] = {0, 100, 0, 100, 50}, ys[5] = {0, 100, 100, 0, 10};
    const int32_t us[3] = {0, 2, 4}, vs[3] = {1, 3, 3};
    memcpy(l->x, xs, sizeof xs);
    memcpy(l->y, ys, sizeof ys);
    memcpy(l->edge_u, us, sizeof us);
    memcpy(l->edge_v, vs, sizeof vs);
    l->has_coordinates = 1;
    int32_t w = 0, h = 0;
    CHECK_OK(ctx, tsr_layout_render_size(ctx, l, 900, &w, &h));
    CHECK(w == 900 && h == 900);
    tsr_image img;
    CHECK_OK(ctx, tsr_image_alloc(ctx, &img, w, h, 3, TSR_U8));
    for (int32_t y = 0; y < h; y++)
        memset((uint8_t *)img.data + (size_t)y * img.stride, 0xa5, (size_t)w * 3);
    CHECK_OK(ctx, tsr_layout_render(ctx, l, &img));
    size_t poisoned = 0, white = 0;
    for (int32_t y = 0; y < h; y++)
        for (int32_t x = 0; x < w; x++) {
            const uint8_t *q = (const uint8_t *)img.data + (size_t)y * img.stride + (size_t)x * 3;
            poisoned += q[0] == 0xa5 && q[1] == 0xa5 && q[2] == 0xa5;
            white += q[0] == 255 && q[1] == 255 && q[2] == 255;
        }
    CHECK(poisoned == 0);
    CHECK(white > (size_t)w * h * 9 / 10); /* strokes of 1-3 pixels cover far less than 10% */
    const uint8_t *corner = pixel(&img, 0.001, 0.001);
    CHECK(corner[0] == 255 && corner[1] == 255 && corner[2] == 255); /* margin */
    const uint8_t *cross = pixel(&img, at(50), at(50));
    CHECK(cross[0] > 150 && cross[1] < 60 && cross[2] < 60); /* red */
    const uint8_t *grey = pixel(&img, at(75), at(5));
    CHECK(grey[0] < 250 && abs(grey[0] - grey[1]) < 8 && grey[1] == grey[2]); /* light grey */
    const uint8_t *node = pixel(&img, at(50), at(10));
    CHECK(node[2] > node[0] && node[0] < 100); /* dark blue */
    const uint8_t *blank = pixel(&img, at(50), at(80));
    CHECK(blank[0] == 255 && blank[1] == 255 && blank[2] == 255);
    tsr_image_free(ctx, &img);

    l->width = 200; /* a wide canvas: margin 2.5, frame 205 x 105 */
    CHECK_OK(ctx, tsr_layout_render_size(ctx, l, 900, &w, &h));
    CHECK(w == 900 && h == 461);
    CHECK_STATUS(tsr_layout_render_size(ctx, l, 0, &w, &h), TSR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(tsr_layout_render_size(ctx, l, TSR_LAYOUT_MAX_PICTURE + 1, &w, &h),
                 TSR_ERR_INVALID_ARGUMENT);
    CHECK_OK(ctx, tsr_image_alloc(ctx, &img, 8, 8, 1, TSR_U8));
    CHECK_STATUS(tsr_layout_render(ctx, l, &img), TSR_ERR_UNSUPPORTED);
    tsr_image_free(ctx, &img);
    tsr_layout_free(ctx, l);
}

static void test_random_sizes(void)
{
    tsr_rng r;
    tsr_rng_seed(&r, 7);
    static const int32_t sizes[][2] = {{1, 1}, {2, 3}, {3, 2}, {17, 5}, {64, 64}, {5, 300}};
    for (int round = 0; round < 6; round++) {
        const int32_t n = tsr_rng_range(&r, 2, 40), m = tsr_rng_range(&r, 1, 60);
        tsr_layout *l = NULL;
        CHECK_OK(ctx, tsr_layout_alloc(ctx, n, m, &l));
        if (!l)
            return;
        l->width = tsr_rng_range(&r, 1, 1000);
        l->height = tsr_rng_range(&r, 1, 1000);
        for (int32_t i = 0; i < n; i++) { /* anywhere, also outside the canvas */
            l->x[i] = tsr_rng_range(&r, -50, l->width + 50);
            l->y[i] = tsr_rng_range(&r, -50, l->height + 50);
        }
        for (int32_t e = 0; e < m; e++) {
            l->edge_u[e] = tsr_rng_range(&r, 0, n - 1);
            l->edge_v[e] = tsr_rng_range(&r, 0, n - 1);
        }
        l->has_coordinates = 1;
        tsr_image img;
        CHECK_OK(ctx, tsr_image_alloc(ctx, &img, sizes[round][0], sizes[round][1], 3, TSR_U8));
        CHECK_OK(ctx, tsr_layout_render(ctx, l, &img));
        tsr_image_free(ctx, &img);
        tsr_layout_free(ctx, l);
    }
}

int main(void)
{
    ctx = tsr_test_reference_ctx();
    if (!ctx)
        return 1;
    test_known_picture();
    test_random_sizes();
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("test_layout_render");
}
