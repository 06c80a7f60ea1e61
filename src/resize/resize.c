/* tsr_resize: argument checks, plan building, the choice of backend and the dispatch to it. */
#include "resize/resize_backends.h"

#include "core/backend.h"
#include "core/checked.h"
#include "core/names.h"
#include "cuda/nvjpeg.h"
#include "io/codecs.h"

#include <math.h>
#include <string.h>

static const char *const tsr__interp_names[] = {"nearest", "linear",   "cubic",
                                                "area",    "lanczos4", "linear-exact"};
enum { TSR__INTERP_COUNT = TSR__NAMES_COUNT(tsr__interp_names) };

const char *tsr_interp_name(tsr_interp interp)
{
    return tsr__name_of(tsr__interp_names, TSR__INTERP_COUNT, (int)interp, "?");
}

tsr_status tsr_interp_parse(const char *name, tsr_interp *out)
{
    int v;
    tsr_status st = tsr__name_parse(tsr__interp_names, TSR__INTERP_COUNT, name, &v);
    if (st == TSR_OK)
        *out = (tsr_interp)v;
    return st;
}

void tsr_resize_options_init(tsr_resize_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->interp = TSR_INTERP_LINEAR;
}

/* saturate_cast<int>(src * f): round half to even; 0 when it does not fit in int32. */
static int32_t tsr__scaled_side(int32_t side, double f)
{
    double r = nearbyint((double)side * f);
    if (!(r >= 1.0 && r <= 2147483647.0))
        return 0;
    return (int32_t)r;
}

tsr_status tsr_resize_size(int32_t src_width, int32_t src_height, double fx, double fy,
                           int32_t *dst_width, int32_t *dst_height)
{
    if (!dst_width || !dst_height || src_width < 1 || src_height < 1 || !(fx > 0) || !(fy > 0) ||
        !isfinite(fx) || !isfinite(fy))
        return TSR_ERR_INVALID_ARGUMENT;
    int32_t w = tsr__scaled_side(src_width, fx), h = tsr__scaled_side(src_height, fy);
    if (!w || !h)
        return TSR_ERR_INVALID_ARGUMENT;
    *dst_width = w;
    *dst_height = h;
    return TSR_OK;
}

/* [first byte, one past the last byte] an image touches. */
static void tsr__image_span(const tsr_image *img, uintptr_t *lo, uintptr_t *hi)
{
    size_t row = (size_t)img->width * (size_t)img->channels * tsr_depth_size(img->depth);
    *lo = (uintptr_t)img->data;
    *hi = *lo + (size_t)(img->height - 1) * img->stride + row;
}

/* Everything about one src/dst pair except the memory kind; fills OpenCV's inv_scale. */
static tsr_status tsr__resize_check(tsr_ctx *ctx, const tsr_image *src, const tsr_image *dst,
                                    const tsr_resize_options *opt, double *inv_x, double *inv_y)
{
    tsr_status st;
    if ((st = tsr_image_check(ctx, src)) != TSR_OK || (st = tsr_image_check(ctx, dst)) != TSR_OK)
        return st;
    if ((int)opt->interp < 0 || (int)opt->interp >= TSR__INTERP_COUNT)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "resize: unknown interpolation %d",
                         (int)opt->interp);
    if (src->channels != dst->channels || src->depth != dst->depth)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "resize: source (%d channels, %zu-byte samples) and destination (%d "
                         "channels, %zu-byte samples) differ",
                         (int)src->channels, tsr_depth_size(src->depth), (int)dst->channels,
                         tsr_depth_size(dst->depth));
    if (src->memory == dst->memory) {
        uintptr_t s0, s1, d0, d1;
        tsr__image_span(src, &s0, &s1);
        tsr__image_span(dst, &d0, &d1);
        if (s0 < d1 && d0 < s1)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "resize: source and destination memory overlap");
    }
    if (opt->scale_x == 0 && opt->scale_y == 0) {
        *inv_x = (double)dst->width / src->width;
        *inv_y = (double)dst->height / src->height;
        return TSR_OK;
    }
    int32_t w, h;
    if (tsr_resize_size(src->width, src->height, opt->scale_x, opt->scale_y, &w, &h) != TSR_OK)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "resize: scale factors %g x %g are not positive or give an empty or "
                         "too large image from %dx%d",
                         opt->scale_x, opt->scale_y, (int)src->width, (int)src->height);
    if (w != dst->width || h != dst->height)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "resize: scale factors %g x %g give %dx%d from %dx%d, but the "
                         "destination is %dx%d",
                         opt->scale_x, opt->scale_y, (int)w, (int)h, (int)src->width,
                         (int)src->height, (int)dst->width, (int)dst->height);
    *inv_x = opt->scale_x;
    *inv_y = opt->scale_y;
    return TSR_OK;
}

/* Where the images of this pair may live for backend b. */
static tsr_status tsr__resize_check_memory(tsr_ctx *ctx, tsr_backend b, const tsr_image *src,
                                           const tsr_image *dst)
{
    if (b == TSR_BACKEND_CUDA)
        return TSR_OK;
    if (src->memory != TSR_MEMORY_HOST || dst->memory != TSR_MEMORY_HOST)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "resize: the %s backend needs host images (a CUDA device image needs "
                         "the cuda backend)",
                         tsr_backend_name(b));
    return TSR_OK;
}

/* Every argument check of a resize on backend b; gives OpenCV's inv_scale pair for the plan. */
static tsr_status tsr__resize_args(tsr_ctx *ctx, tsr_backend b, const tsr_image *src,
                                   const tsr_image *dst, const tsr_resize_options *opt,
                                   double *inv_x, double *inv_y)
{
    tsr_status st = tsr__resize_check(ctx, src, dst, opt, inv_x, inv_y);
    return st != TSR_OK ? st : tsr__resize_check_memory(ctx, b, src, dst);
}

/* The backend of a resize of these images: an explicit request as it is; under auto, CUDA for
 * device images (they stay on the device) and the CPU for host images (for one-off host
 * images the CPU path is faster end to end than a CUDA start-up and two PCIe copies). */
static tsr_status tsr__resize_choose(tsr_ctx *ctx, const tsr_image *src, const tsr_image *dst,
                                     tsr_backend *out)
{
    const unsigned offered =
        TSR__BACKEND_BIT(TSR_BACKEND_REFERENCE) | TSR__BACKEND_BIT(TSR_BACKEND_CPU) |
        TSR__BACKEND_BIT(TSR_BACKEND_CUDA) | TSR__BACKEND_BIT(TSR_BACKEND_OPENCL);
    const int device =
        (src && src->memory == TSR_MEMORY_CUDA) || (dst && dst->memory == TSR_MEMORY_CUDA);
    return tsr__backend_choose(ctx, "resize", offered, device ? TSR_BACKEND_CUDA : TSR_BACKEND_CPU,
                               device ? "device images stay on the device"
                                      : "host images: the CPU is faster end to end than a CUDA "
                                        "start-up and two copies over PCIe",
                               out);
}

/* Checks the arguments and builds an uncached plan: the CUDA batch path holds one plan per image
 * for the whole batch, longer than a cache entry is guaranteed to live. */
static tsr_status tsr__resize_plan_for(tsr_ctx *ctx, tsr_backend b, const tsr_image *src,
                                       const tsr_image *dst, const tsr_resize_options *opt,
                                       tsr__resize_plan *plan)
{
    double inv_x = 0, inv_y = 0;
    tsr_status st = tsr__resize_args(ctx, b, src, dst, opt, &inv_x, &inv_y);
    if (st != TSR_OK)
        return st;
    return tsr__resize_plan_build(ctx, plan, src->width, src->height, dst->width, dst->height,
                                  src->channels, src->depth, opt->interp, inv_x, inv_y);
}

/* The context's plan cache: the last few plans, most recent first. Resizing frame after frame
 * of one geometry builds its tables once (building costs tens to hundreds of microseconds at
 * 4K, more than a GPU resize), and a backend can keep the tables on the device by plan id. */
enum { TSR__PLAN_CACHE = 4 };

typedef struct tsr__plan_cache {
    int count;
    tsr__resize_plan plans[TSR__PLAN_CACHE];
} tsr__plan_cache;

static void tsr__plan_cache_destroy(tsr_ctx *ctx, void *state)
{
    tsr__plan_cache *cache = state;
    for (int i = 0; i < cache->count; i++)
        tsr__resize_plan_free(ctx, &cache->plans[i]);
    tsr__free(ctx, cache);
}

static const tsr__ctx_state_kind tsr__plan_cache_kind = {"resize plan cache",
                                                         tsr__plan_cache_destroy};

/* Whether a cached plan was built from exactly these arguments. */
static int tsr__plan_matches(const tsr__resize_plan *p, const tsr_image *src, const tsr_image *dst,
                             tsr_interp interp, double inv_x, double inv_y)
{
    return p->src_w == src->width && p->src_h == src->height && p->dst_w == dst->width &&
           p->dst_h == dst->height && p->cn == src->channels && p->depth == src->depth &&
           p->requested_interp == interp && p->inv_scale_x == inv_x && p->inv_scale_y == inv_y;
}

/* Checks the arguments and returns the plan for them from the context's cache, building it
 * (and evicting the least recently used one) on a miss. The plan stays valid until the next
 * call of this function on the context. */
static tsr_status tsr__resize_plan_cached(tsr_ctx *ctx, tsr_backend b, const tsr_image *src,
                                          const tsr_image *dst, const tsr_resize_options *opt,
                                          const tsr__resize_plan **out)
{
    double inv_x = 0, inv_y = 0;
    tsr_status st = tsr__resize_args(ctx, b, src, dst, opt, &inv_x, &inv_y);
    if (st != TSR_OK)
        return st;
    tsr__plan_cache *cache;
    if ((st = tsr__ctx_state_get(ctx, &tsr__plan_cache_kind, sizeof *cache, (void **)&cache)) !=
        TSR_OK)
        return st;
    int hit = 0;
    while (hit < cache->count &&
           !tsr__plan_matches(&cache->plans[hit], src, dst, opt->interp, inv_x, inv_y))
        hit++;
    tsr__resize_plan found;
    if (hit < cache->count) {
        found = cache->plans[hit];
    } else {
        st = tsr__resize_plan_build(ctx, &found, src->width, src->height, dst->width, dst->height,
                                    src->channels, src->depth, opt->interp, inv_x, inv_y);
        if (st != TSR_OK)
            return st;
        if (cache->count == TSR__PLAN_CACHE)
            tsr__resize_plan_free(ctx, &cache->plans[--cache->count]);
        hit = cache->count++;
    }
    memmove(&cache->plans[1], &cache->plans[0], (size_t)hit * sizeof cache->plans[0]);
    cache->plans[0] = found;
    *out = &cache->plans[0];
    return TSR_OK;
}

static tsr_status tsr__resize_run(tsr_ctx *ctx, tsr_backend b, const tsr__resize_plan *plan,
                                  const tsr_image *src, tsr_image *dst)
{
    switch (b) {
    case TSR_BACKEND_REFERENCE: return tsr__resize_ref(ctx, plan, src, dst);
    case TSR_BACKEND_CPU: return tsr__resize_cpu(ctx, plan, src, dst);
    case TSR_BACKEND_CUDA: return tsr__resize_cuda(ctx, plan, src, dst);
    case TSR_BACKEND_OPENCL: return tsr__resize_opencl(ctx, plan, src, dst);
    default: break;
    }
    return tsr__fail(ctx, TSR_ERR_INTERNAL, "resize: no backend %d", (int)b);
}

tsr_status tsr_resize(tsr_ctx *ctx, const tsr_image *src, tsr_image *dst,
                      const tsr_resize_options *opt)
{
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    tsr_resize_options defaults;
    if (!opt) {
        tsr_resize_options_init(&defaults);
        opt = &defaults;
    }
    tsr_backend b;
    if ((st = tsr__resize_choose(ctx, src, dst, &b)) != TSR_OK)
        return st;
    const tsr__resize_plan *plan;
    st = tsr__resize_plan_cached(ctx, b, src, dst, opt, &plan);
    if (st != TSR_OK)
        return st;
    return tsr__resize_run(ctx, b, plan, src, dst);
}

tsr_status tsr_resize_batch(tsr_ctx *ctx, const tsr_image *src, tsr_image *dst, size_t count,
                            const tsr_resize_options *opt, size_t *done)
{
    if (done)
        *done = 0;
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (count && (!src || !dst))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "resize batch: image arrays are NULL");
    tsr_resize_options defaults;
    if (!opt) {
        tsr_resize_options_init(&defaults);
        opt = &defaults;
    }
    tsr_backend b;
    if ((st = tsr__resize_choose(ctx, count ? &src[0] : NULL, count ? &dst[0] : NULL, &b)) !=
        TSR_OK)
        return st;
    if (b == TSR_BACKEND_CUDA && count > 0) {
        size_t bytes, built = 0;
        tsr__resize_plan *plans = NULL;
        if (!tsr__size_mul(count, sizeof *plans, &bytes))
            return tsr__fail(ctx, TSR_ERR_OVERFLOW, "resize batch: %zu images overflow", count);
        if ((st = tsr__alloc(ctx, bytes, (void **)&plans)) != TSR_OK)
            return st;
        for (; built < count; built++) {
            st = tsr__resize_plan_for(ctx, b, &src[built], &dst[built], opt, &plans[built]);
            if (st != TSR_OK)
                break;
        }
        size_t ran = 0;
        /* images before the first bad one still run, as the sequential loop would */
        if (built > 0) {
            tsr_status run = tsr__resize_cuda_batch(ctx, plans, src, dst, built, &ran);
            if (run != TSR_OK)
                st = run;
        }
        for (size_t i = 0; i < built; i++)
            tsr__resize_plan_free(ctx, &plans[i]);
        tsr__free(ctx, plans);
        if (done)
            *done = ran;
        return st;
    }
    for (size_t i = 0; i < count; i++) {
        const tsr__resize_plan *plan;
        st = tsr__resize_plan_cached(ctx, b, &src[i], &dst[i], opt, &plan);
        if (st != TSR_OK)
            return st;
        st = tsr__resize_run(ctx, b, plan, &src[i], &dst[i]);
        if (st != TSR_OK)
            return st;
        if (done)
            *done = i + 1;
    }
    return TSR_OK;
}

tsr_status tsr_resize_jpeg_batch(tsr_ctx *ctx, const void *const *jpeg, const size_t *len,
                                 tsr_image *dst, size_t count, const tsr_resize_options *opt,
                                 size_t *done)
{
    if (done)
        *done = 0;
    tsr_status st = tsr__enter(ctx);
    if (st != TSR_OK)
        return st;
    if (count && (!jpeg || !len || !dst))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "resize jpeg batch: arrays are NULL");
    tsr_resize_options defaults;
    if (!opt) {
        tsr_resize_options_init(&defaults);
        opt = &defaults;
    }
    tsr_backend b;
    /* every backend is "offered" so that the choice (and under auto its fallback where CUDA
     * cannot be used) is recorded as usual; all but CUDA then fail here with the reason */
    const unsigned offered =
        TSR__BACKEND_BIT(TSR_BACKEND_REFERENCE) | TSR__BACKEND_BIT(TSR_BACKEND_CPU) |
        TSR__BACKEND_BIT(TSR_BACKEND_CUDA) | TSR__BACKEND_BIT(TSR_BACKEND_OPENCL);
    if ((st = tsr__backend_choose(ctx, "resize of nvJPEG-decoded images", offered, TSR_BACKEND_CUDA,
                                  "nvJPEG decodes on the GPU: the images stay on the device",
                                  &b)) != TSR_OK)
        return st;
    if (b != TSR_BACKEND_CUDA)
        return tsr__fail(ctx, TSR_ERR_NO_BACKEND,
                         "resize: nvJPEG decoding needs the cuda backend (%s backend: %s)",
                         tsr_backend_name(b), tsr_ctx_backend_reason(ctx));
    if (count == 0)
        return TSR_OK;
    size_t bytes;
    if (!tsr__size_mul(count, sizeof(tsr_image) + sizeof(tsr__resize_plan), &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "resize jpeg batch: %zu images overflow", count);
    tsr__resize_plan *plans = NULL;
    if ((st = tsr__alloc(ctx, bytes, (void **)&plans)) != TSR_OK)
        return st;
    tsr_image *src = (tsr_image *)(plans + count);
    /* the decoded sources: sizes from the headers, memory from the CUDA backend's buffers */
    size_t n = 0, built = 0, decoded = 0, ran = 0;
    for (; n < count; n++) {
        memset(&src[n], 0, sizeof src[n]);
        src[n].depth = TSR_U8;
        src[n].memory = TSR_MEMORY_CUDA;
        if (!jpeg[n] || tsr_format_detect(jpeg[n], len[n]) != TSR_FORMAT_JPEG) {
            st = tsr__fail(ctx, TSR_ERR_UNSUPPORTED, "resize jpeg batch: image %zu is not JPEG", n);
            break;
        }
        if ((st = tsr__jpeg_info(ctx, jpeg[n], len[n], &src[n].width, &src[n].height,
                                 &src[n].channels)) != TSR_OK ||
            (st = tsr__jpeg_check_complete(ctx, jpeg[n], len[n])) != TSR_OK)
            break;
    }
    tsr_status run = n ? tsr__resize_cuda_sources(ctx, src, n) : TSR_OK;
    if (run != TSR_OK)
        st = run, n = 0;
    for (; built < n; built++)
        if ((run = tsr__resize_plan_for(ctx, b, &src[built], &dst[built], opt, &plans[built])) !=
            TSR_OK) {
            st = run;
            break;
        }
    if (built && (run = tsr__nvjpeg_decode(ctx, jpeg, len, src, built, &decoded, NULL)) != TSR_OK)
        st = run;
    /* images before the first bad one still run, as the sequential loop would */
    if (decoded && (run = tsr__resize_cuda_batch(ctx, plans, src, dst, decoded, &ran)) != TSR_OK)
        st = run;
    for (size_t i = 0; i < built; i++)
        tsr__resize_plan_free(ctx, &plans[i]);
    tsr__free(ctx, plans);
    if (done)
        *done = ran;
    return st;
}
