/* The context's resize plan cache: a sequence of calls whose geometries, interpolations and
 * factors hit, miss and evict cache entries gives exactly what a fresh context (no cache) gives,
 * on every backend this machine has. */
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

typedef struct call {
    int sw, sh, dw, dh;
    tsr_interp interp;
    double fx, fy; /* 0: size given */
} call;

static void fill(tsr_rng *rng, tsr_image *img)
{
    tsr_rng_fill(rng, img->data, img->stride * (size_t)img->height);
}

static void run_sequence(tsr_backend backend)
{
    const call calls[] = {
        {64, 48, 31, 17, TSR_INTERP_LINEAR, 0, 0},
        {64, 48, 31, 17, TSR_INTERP_CUBIC, 0, 0},
        {64, 48, 31, 17, TSR_INTERP_LINEAR, 0, 0},
        {40, 30, 100, 75, TSR_INTERP_AREA, 2.5, 2.5},
        {40, 30, 100, 75, TSR_INTERP_AREA, 0, 0},
        {40, 30, 12, 9, TSR_INTERP_NEAREST, 0.3, 0.3},
        {40, 30, 12, 9, TSR_INTERP_NEAREST, 0, 0},
        {64, 48, 32, 24, TSR_INTERP_LINEAR, 0, 0},
        {77, 5, 13, 40, TSR_INTERP_LANCZOS4, 0, 0},
        {64, 48, 31, 17, TSR_INTERP_LINEAR, 0, 0},
        {64, 48, 31, 17, TSR_INTERP_LINEAR_EXACT, 0, 0},
        {40, 30, 100, 75, TSR_INTERP_AREA, 2.5, 2.5},
    };
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    opt.backend = backend;
    tsr_ctx *cached = NULL;
    if (tsr_ctx_create(&opt, &cached) != TSR_OK) {
        tsr_ctx_destroy(cached);
        return;
    }
    fprintf(stderr, "backend %s\n", tsr_backend_name(backend));
    tsr_rng rng;
    tsr_rng_seed(&rng, 7);
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
            const call *c = &calls[i];
            tsr_image src, a, b;
            CHECK_OK(cached, tsr_image_alloc(cached, &src, c->sw, c->sh, 3, TSR_U8));
            CHECK_OK(cached, tsr_image_alloc(cached, &a, c->dw, c->dh, 3, TSR_U8));
            CHECK_OK(cached, tsr_image_alloc(cached, &b, c->dw, c->dh, 3, TSR_U8));
            fill(&rng, &src);
            memset(a.data, 0xA5, a.stride * (size_t)a.height);
            memset(b.data, 0x5A, b.stride * (size_t)b.height);
            tsr_resize_options ro;
            tsr_resize_options_init(&ro);
            ro.interp = c->interp;
            ro.scale_x = c->fx;
            ro.scale_y = c->fy;
            CHECK_OK(cached, tsr_resize(cached, &src, &a, &ro));
            tsr_ctx *fresh = NULL;
            CHECK_OK(fresh, tsr_ctx_create(&opt, &fresh));
            CHECK_OK(fresh, tsr_resize(fresh, &src, &b, &ro));
            tsr_ctx_destroy(fresh);
            CHECK(memcmp(a.data, b.data, a.stride * (size_t)a.height) == 0);
            tsr_image_free(cached, &src);
            tsr_image_free(cached, &a);
            tsr_image_free(cached, &b);
        }
    }
    tsr_ctx_destroy(cached);
}

int main(void)
{
    run_sequence(TSR_BACKEND_REFERENCE);
    run_sequence(TSR_BACKEND_CPU);
    run_sequence(TSR_BACKEND_CUDA);
    run_sequence(TSR_BACKEND_OPENCL);
    return tsr_test_finish("test_resize_cache");
}
