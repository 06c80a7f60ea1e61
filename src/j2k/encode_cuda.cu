/* encode_cuda.h: the buffers of a JPEG 2000 encode on CUDA, owned by the context and reused.
 *
 * A host image goes up once through the ring of page-locked slots (cuda_internal.cuh); per tile,
 * its components' planes (one device buffer, the tile's width apart) receive the samples and
 * the forward DWT, and come back through the ring into the tiles' tc->data (4 bytes a sample
 * and component). */
#include "cuda/cuda_internal.cuh"

extern "C" {
#include "core/checked.h"
#include "j2k/encode_cuda.h"
#include "j2k/fxform_cuda.h"
}

#include <string.h>

typedef struct j2k_enc_cuda_state {
    tsr__cuda_buffer image;  /* device: a host image's copy */
    tsr__cuda_buffer planes; /* device: a tile's components */
    tsr__cuda_ring ring;
    const void *img; /* the encode's image on the device */
    size_t stride;   /* its bytes per row */
    uint32_t nc;     /* its channels */
    int wide;        /* 16-bit samples */
} j2k_enc_cuda_state;

static void state_destroy(tsr_ctx *ctx, void *p)
{
    j2k_enc_cuda_state *s = (j2k_enc_cuda_state *)p;
    if (ctx->cuda)
        cudaStreamSynchronize(ctx->cuda->stream);
    tsr__cuda_buffer_free(&s->image);
    tsr__cuda_buffer_free(&s->planes);
    tsr__cuda_ring_free(&s->ring);
    tsr__free(ctx, s);
}

static const tsr__ctx_state_kind j2k_enc_cuda_kind = {"j2k encode CUDA buffers", state_destroy};

static tsr_status state_of(tsr_ctx *ctx, j2k_enc_cuda_state **out)
{
    if (!ctx->cuda)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "j2k encode on CUDA without a device");
    return tsr__ctx_state_get(ctx, &j2k_enc_cuda_kind, sizeof **out, (void **)out);
}

extern "C" tsr_status tsr__j2k_enc_cuda_begin(tsr_ctx *ctx, const tsr_image *img)
{
    j2k_enc_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st)
        return st;
    if (tsr__cuda_use(ctx->cuda) != TSR_OK)
        return tsr__fail(ctx, TSR_ERR_DEVICE, "j2k encode on CUDA: cannot select the device");
    s->nc = (uint32_t)img->channels;
    s->wide = img->depth == TSR_U16;
    if (img->memory == TSR_MEMORY_CUDA) {
        s->img = img->data;
        s->stride = img->stride;
        return TSR_OK;
    }
    const size_t row = (size_t)img->width * img->channels * (s->wide ? 2 : 1);
    size_t bytes; /* tsr_image_check has bounded the image */
    if (!tsr__size_mul(row, (size_t)img->height, &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "j2k encode on CUDA: image size");
    if ((st = tsr__cuda_buffer_reserve(ctx, &s->image, bytes ? bytes : 1)))
        return st;
    s->img = s->image.ptr;
    s->stride = row;
    return tsr__cuda_ring_upload(ctx, &s->ring, s->image.ptr, row, img->data, img->stride, row,
                                 (size_t)img->height, ctx->cuda->stream);
}

extern "C" tsr_status tsr__j2k_enc_cuda_transform(tsr_ctx *ctx, tsr__j2k_tile *t, uint32_t prec,
                                                  int mct, int rev)
{
    j2k_enc_cuda_state *s;
    tsr_status st = state_of(ctx, &s);
    if (st)
        return st;
    const uint32_t w = t->x1 - t->x0, h = t->y1 - t->y0;
    if (t->ncomps != s->nc || t->ncomps > 4)
        return tsr__fail(ctx, TSR_ERR_INTERNAL,
                         "j2k encode on CUDA: a tile of %u components for an image of %u channels",
                         t->ncomps, s->nc);
    size_t plane, bytes;
    if (!tsr__size_mul(w, h, &plane) || !tsr__size_mul(plane, 4 * (size_t)t->ncomps, &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "j2k encode on CUDA: tile size");
    if ((st = tsr__cuda_buffer_reserve(ctx, &s->planes, bytes ? bytes : 1)))
        return st;
    tsr__j2k_dev_fload o;
    memset(&o, 0, sizeof o);
    o.src = (const unsigned char *)s->img + (size_t)t->y0 * s->stride +
            (size_t)t->x0 * s->nc * (s->wide ? 2 : 1);
    o.src_stride = s->stride;
    o.channels = s->nc;
    o.wide = s->wide;
    o.prec = prec;
    o.w = w;
    o.h = h;
    o.mct = mct;
    o.rev = rev;
    for (uint32_t c = 0; c < t->ncomps; c++)
        o.dst[c] = (int32_t *)s->planes.ptr + c * plane;
    o.dst_stride = w;
    if ((st = tsr__j2k_fload_cuda(ctx, &o)))
        return st;
    for (uint32_t c = 0; c < t->ncomps; c++) {
        const tsr__j2k_tilecomp *tc = &t->comps[c];
        if ((st = tsr__j2k_fdwt_cuda(ctx, o.dst[c], w, tc->res, tc->numres, rev)))
            return st;
    }
    for (uint32_t c = 0; c < t->ncomps && !st; c++) {
        tsr__j2k_tilecomp *tc = &t->comps[c];
        st = tsr__cuda_ring_download(ctx, &s->ring, tc->data, tc->stride * 4, o.dst[c],
                                     (size_t)w * 4, (size_t)w * 4, h, ctx->cuda->stream);
    }
    return st;
}
