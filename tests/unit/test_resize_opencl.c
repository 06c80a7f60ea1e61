/* The OpenCL resize backend against the reference, byte for byte (runs on PoCL's CPU device
 * where there is no GPU, so CI exercises the OpenCL kernels). Skips (77) without an OpenCL
 * device. */
#include "resize_backend_check.h"

static tsr_status run_host(tsr_ctx *ctx, const tsr_image *src, tsr_image *dst,
                           const tsr_resize_options *opt, void *user)
{
    (void)user;
    return tsr_resize(ctx, src, dst, opt);
}

int main(void)
{
    if (!tsr_backend_available(TSR_BACKEND_OPENCL)) {
        printf("no OpenCL device: skipped\n");
        return TSR_TEST_SKIP;
    }
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_OPENCL;
    tsr_ctx *ctx = NULL, *ref = NULL;
    CHECK_OK(ctx, tsr_ctx_create(&o, &ctx));
    o.backend = TSR_BACKEND_REFERENCE;
    CHECK_OK(ref, tsr_ctx_create(&o, &ref));
    if (!ctx || !ref)
        return tsr_test_finish("test_resize_opencl");
    printf("device: %s\n", tsr_ctx_device_name(ctx));

    rb_sweep(ref, ctx, run_host, NULL, "opencl");
    rb_factors(ref, ctx, run_host, NULL, "opencl");

    /* batch through the sequential loop */
    {
        tsr_rng rng;
        tsr_rng_seed(&rng, 3);
        tsr_image s[3], w[3], g[3];
        int sz[3][4] = {{50, 40, 25, 20}, {33, 17, 70, 35}, {8, 8, 3, 5}};
        for (int i = 0; i < 3; i++) {
            rb_alloc(ctx, &s[i], sz[i][0], sz[i][1], 3, TSR_U8, 0);
            rb_alloc(ctx, &w[i], sz[i][2], sz[i][3], 3, TSR_U8, 0);
            rb_alloc(ctx, &g[i], sz[i][2], sz[i][3], 3, TSR_U8, 0);
            rb_fill(&rng, &s[i]);
            rb_poison(&g[i], 0x11);
        }
        tsr_resize_options opt;
        tsr_resize_options_init(&opt);
        size_t done = 99;
        CHECK_OK(ref, tsr_resize_batch(ref, s, w, 3, &opt, NULL));
        CHECK_OK(ctx, tsr_resize_batch(ctx, s, g, 3, &opt, &done));
        CHECK(done == 3);
        for (int i = 0; i < 3; i++) {
            CHECK(rb_rows_equal(&w[i], &g[i]));
            free(s[i].data), free(w[i].data), free(g[i].data);
        }
    }

    /* bad input: a CUDA device image on the OpenCL backend is refused with a message */
    {
        tsr_image s, d;
        rb_alloc(ctx, &s, 8, 8, 1, TSR_U8, 0);
        rb_alloc(ctx, &d, 4, 4, 1, TSR_U8, 0);
        s.memory = TSR_MEMORY_CUDA;
        CHECK_STATUS(tsr_resize(ctx, &s, &d, NULL), TSR_ERR_INVALID_ARGUMENT);
        CHECK(strstr(tsr_ctx_last_error(ctx), "host") != NULL);
        s.memory = TSR_MEMORY_HOST;
        CHECK_OK(ctx, tsr_resize(ctx, &s, &d, NULL)); /* the context still works */
        free(s.data), free(d.data);
    }
    tsr_ctx_destroy(ctx);
    tsr_ctx_destroy(ref);
    return tsr_test_finish("test_resize_opencl");
}
