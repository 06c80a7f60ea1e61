/* The carving grid: allocation, copy and transposition of all its planes (see plan.h). */
#include "carve/plan.h"

#include "core/checked.h"
#include "core/ctx.h"

#include <string.h>

/* Allocates rows*pitch elements of `es` bytes into *out (NULL when es == 0). */
static tsr_status plane_alloc(tsr_ctx *ctx, size_t es, int32_t pitch, int32_t rows, void **out)
{
    size_t n;
    *out = NULL;
    if (!es)
        return TSR_OK;
    if (!tsr__size_mul3((size_t)pitch, (size_t)rows, es, &n))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "carve: a %dx%d plane overflows memory sizes",
                         (int)pitch, (int)rows);
    return tsr__alloc(ctx, n ? n : 1, out);
}

tsr_status tsr__carve_grid_alloc(tsr_ctx *ctx, tsr__carve_grid *g, int32_t w, int32_t h,
                                 int32_t pitch, int32_t channels, tsr_depth depth, int with_pix,
                                 int with_mask, int with_index)
{
    memset(g, 0, sizeof *g);
    g->w = w;
    g->h = h;
    g->pitch = pitch;
    g->channels = channels;
    g->depth = depth;
    g->px = with_pix ? (size_t)channels * tsr_depth_size(depth) : 0;
    tsr_status st;
    void *p;
    if ((st = plane_alloc(ctx, g->px, pitch, h, &p)) != TSR_OK)
        goto fail;
    g->pix = p;
    if ((st = plane_alloc(ctx, 1, pitch, h, &p)) != TSR_OK)
        goto fail;
    g->luma = p;
    if ((st = plane_alloc(ctx, with_mask ? 1 : 0, pitch, h, &p)) != TSR_OK)
        goto fail;
    g->mask = p;
    if ((st = plane_alloc(ctx, with_index ? sizeof(uint32_t) : 0, pitch, h, &p)) != TSR_OK)
        goto fail;
    g->index = p;
    return TSR_OK;
fail:
    tsr__carve_grid_free(ctx, g);
    return st;
}

void tsr__carve_grid_free(tsr_ctx *ctx, tsr__carve_grid *g)
{
    tsr__free(ctx, g->pix);
    tsr__free(ctx, g->luma);
    tsr__free(ctx, g->mask);
    tsr__free(ctx, g->index);
    memset(g, 0, sizeof *g);
}

tsr_status tsr__carve_grid_copy(tsr_ctx *ctx, const tsr__carve_grid *src, tsr__carve_grid *dst,
                                int32_t pitch)
{
    if (pitch < src->w)
        pitch = src->w;
    tsr_status st =
        tsr__carve_grid_alloc(ctx, dst, src->w, src->h, pitch, src->channels, src->depth,
                              src->px != 0, src->mask != NULL, src->index != NULL);
    if (st != TSR_OK)
        return st;
    dst->has_keep = src->has_keep;
    dst->has_drop = src->has_drop;
    for (int32_t y = 0; y < src->h; y++) {
        size_t so = (size_t)y * (size_t)src->pitch, d = (size_t)y * (size_t)pitch;
        if (src->pix)
            memcpy(dst->pix + d * src->px, src->pix + so * src->px, (size_t)src->w * src->px);
        memcpy(dst->luma + d, src->luma + so, (size_t)src->w);
        if (src->mask)
            memcpy(dst->mask + d, src->mask + so, (size_t)src->w);
        if (src->index)
            memcpy(dst->index + d, src->index + so, (size_t)src->w * sizeof(uint32_t));
    }
    return TSR_OK;
}

/* Transposes a plane of es-byte elements in 32x32 blocks (cache-friendly both ways). */
static void transpose_plane(const uint8_t *s, size_t spitch, uint8_t *d, size_t dpitch, int32_t w,
                            int32_t h, size_t es)
{
    enum { B = 32 };
    for (int32_t y0 = 0; y0 < h; y0 += B)
        for (int32_t x0 = 0; x0 < w; x0 += B) {
            int32_t y1 = y0 + B < h ? y0 + B : h, x1 = x0 + B < w ? x0 + B : w;
            for (int32_t y = y0; y < y1; y++)
                for (int32_t x = x0; x < x1; x++)
                    memcpy(d + ((size_t)x * dpitch + (size_t)y) * es,
                           s + ((size_t)y * spitch + (size_t)x) * es, es);
        }
}

tsr_status tsr__carve_grid_transpose(tsr_ctx *ctx, const tsr__carve_grid *src, tsr__carve_grid *dst)
{
    tsr_status st =
        tsr__carve_grid_alloc(ctx, dst, src->h, src->w, src->h, src->channels, src->depth,
                              src->px != 0, src->mask != NULL, src->index != NULL);
    if (st != TSR_OK)
        return st;
    dst->has_keep = src->has_keep;
    dst->has_drop = src->has_drop;
    size_t sp = (size_t)src->pitch, dp = (size_t)dst->pitch;
    if (src->pix)
        transpose_plane(src->pix, sp, dst->pix, dp, src->w, src->h, src->px);
    transpose_plane(src->luma, sp, dst->luma, dp, src->w, src->h, 1);
    if (src->mask)
        transpose_plane(src->mask, sp, dst->mask, dp, src->w, src->h, 1);
    if (src->index)
        transpose_plane((const uint8_t *)src->index, sp, (uint8_t *)dst->index, dp, src->w, src->h,
                        sizeof(uint32_t));
    return TSR_OK;
}

int64_t tsr__carve_grid_drops(const tsr__carve_grid *g)
{
    int64_t n = 0;
    for (int32_t y = 0; y < g->h; y++)
        for (int32_t x = 0; x < g->w; x++)
            n += (g->mask[(size_t)y * (size_t)g->pitch + (size_t)x] & TSR__CARVE_DROP) != 0;
    return n;
}
