/* Image descriptors: validation and host allocation. */
#include "core/checked.h"
#include "core/ctx.h"

#include <stdint.h>
#include <string.h>

size_t tsr_depth_size(tsr_depth depth)
{
    switch (depth) {
    case TSR_U8: return 1;
    case TSR_U16: return 2;
    case TSR_F32: return 4;
    }
    return 0;
}

tsr_status tsr_image_check(tsr_ctx *ctx, const tsr_image *img)
{
    if (!img)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "image descriptor is NULL");
    if (img->width < 1 || img->height < 1)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "image size %dx%d is not positive",
                         (int)img->width, (int)img->height);
    if (img->channels < 1 || img->channels > 4)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "%d channels (1 to 4 are supported)",
                         (int)img->channels);
    size_t es = tsr_depth_size(img->depth);
    if (!es)
        return tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "sample depth %d (u8, u16, f32 supported)",
                         (int)img->depth);
    if (img->memory != TSR_MEMORY_HOST && img->memory != TSR_MEMORY_CUDA)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "unknown memory kind %d", (int)img->memory);
    uint64_t pixels = (uint64_t)img->width * (uint64_t)img->height;
    if (ctx && pixels > ctx->opt.max_image_pixels)
        return tsr__fail(ctx, TSR_ERR_LIMIT, "image of %dx%d exceeds the limit of %llu pixels",
                         (int)img->width, (int)img->height,
                         (unsigned long long)ctx->opt.max_image_pixels);
    size_t row, total;
    if (!tsr__size_mul3((size_t)img->width, (size_t)img->channels, es, &row) ||
        !tsr__size_mul(img->stride, (size_t)img->height, &total))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "image of %dx%d overflows memory sizes",
                         (int)img->width, (int)img->height);
    if (img->stride < row)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "row stride %zu is below the row size %zu",
                         img->stride, row);
    if (!img->data)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "image data is NULL");
    if (img->stride % es || (uintptr_t)img->data % es)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "row stride %zu and data address must be multiples of the %zu-byte sample",
                         img->stride, es);
    return TSR_OK;
}

tsr_status tsr_image_alloc(tsr_ctx *ctx, tsr_image *img, int32_t width, int32_t height,
                           int32_t channels, tsr_depth depth)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (!img)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "image descriptor is NULL");
    /* a placeholder address (never dereferenced) aligned for every depth, for the check */
    tsr_image t = {width, height, channels, depth, 0, (void *)(uintptr_t)16, TSR_MEMORY_HOST};
    size_t es = tsr_depth_size(depth), row = 0, total = 0;
    if (es && width > 0 && channels > 0 &&
        !tsr__size_mul3((size_t)width, (size_t)channels, es, &row))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "image of %dx%d overflows memory sizes", (int)width,
                         (int)height);
    t.stride = row;
    st = tsr_image_check(ctx, &t);
    if (st != TSR_OK)
        return st;
    if (!tsr__size_mul(row, (size_t)height, &total))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "image of %dx%d overflows memory sizes", (int)width,
                         (int)height);
    st = tsr__alloc(ctx, total, &t.data);
    if (st != TSR_OK)
        return st;
    *img = t;
    return TSR_OK;
}

void tsr_image_free(tsr_ctx *ctx, tsr_image *img)
{
    if (!img || !img->data)
        return;
    if (img->memory == TSR_MEMORY_HOST)
        tsr__free(ctx, img->data);
    memset(img, 0, sizeof *img);
}
