/* The CUDA resize backend against the reference, byte for byte: host images (staged through
 * pinned memory), device images (TSR_MEMORY_CUDA, used in place), the batch API, and bad inputs.
 * Skips (77) where there is no CUDA device. TSR_TEST_QUICK=1 runs a reduced sweep (sanitizers). */
#include "resize_backend_check.h"

#include <cuda_runtime.h>

static tsr_status run_host(tsr_ctx *ctx, const tsr_image *src, tsr_image *dst,
                           const tsr_resize_options *opt, void *user)
{
    (void)user;
    return tsr_resize(ctx, src, dst, opt);
}

/* Copies a host image to a new device image with a padded pitch, and back. */
static int to_device(const tsr_image *h, tsr_image *d)
{
    *d = *h;
    d->memory = TSR_MEMORY_CUDA;
    size_t row = (size_t)h->width * h->channels * tsr_depth_size(h->depth);
    size_t pitch = 0;
    if (cudaMallocPitch(&d->data, &pitch, row, (size_t)h->height) != cudaSuccess)
        return 0;
    d->stride = pitch;
    /* a pageable cudaMemcpy2D may return before its DMA lands: synchronise */
    return cudaMemcpy2D(d->data, pitch, h->data, h->stride, row, (size_t)h->height,
                        cudaMemcpyHostToDevice) == cudaSuccess &&
           cudaDeviceSynchronize() == cudaSuccess;
}

static int to_host(const tsr_image *d, tsr_image *h)
{
    size_t row = (size_t)h->width * h->channels * tsr_depth_size(h->depth);
    return cudaMemcpy2D(h->data, h->stride, d->data, d->stride, row, (size_t)h->height,
                        cudaMemcpyDeviceToHost) == cudaSuccess;
}

/* Device images on both sides (user = 1: device source, host destination, mixed). */
static tsr_status run_device(tsr_ctx *ctx, const tsr_image *src, tsr_image *dst,
                             const tsr_resize_options *opt, void *user)
{
    int mixed = user != NULL;
    tsr_image ds, dd;
    if (!to_device(src, &ds))
        return TSR_ERR_DEVICE_OUT_OF_MEMORY;
    tsr_status st;
    if (mixed) {
        st = tsr_resize(ctx, &ds, dst, opt);
    } else {
        if (!to_device(dst, &dd)) { /* carries the poison */
            cudaFree(ds.data);
            return TSR_ERR_DEVICE_OUT_OF_MEMORY;
        }
        st = tsr_resize(ctx, &ds, &dd, opt);
        if (cudaDeviceSynchronize() != cudaSuccess || !to_host(&dd, dst))
            st = TSR_ERR_DEVICE;
        cudaFree(dd.data);
    }
    cudaFree(ds.data);
    return st;
}

static tsr_ctx *make(tsr_backend b, void *stream)
{
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = b;
    o.cuda_stream = stream;
    tsr_ctx *c = NULL;
    CHECK_OK(c, tsr_ctx_create(&o, &c));
    return c;
}

static void check_batch(tsr_ctx *ref, tsr_ctx *ctx)
{
    enum { N = 7 };
    tsr_rng rng;
    tsr_rng_seed(&rng, 11);
    tsr_image s[N], w[N], g[N];
    for (int i = 0; i < N; i++) {
        int sw = tsr_rng_range(&rng, 1, 300), sh = tsr_rng_range(&rng, 1, 200);
        int dw = tsr_rng_range(&rng, 1, 300), dh = tsr_rng_range(&rng, 1, 200);
        int cn = tsr_rng_range(&rng, 1, 4);
        rb_alloc(ctx, &s[i], sw, sh, cn, TSR_U8, i & 1);
        rb_alloc(ctx, &w[i], dw, dh, cn, TSR_U8, 0);
        rb_alloc(ctx, &g[i], dw, dh, cn, TSR_U8, i % 3);
        rb_fill(&rng, &s[i]);
        rb_poison(&g[i], 0x99);
    }
    for (int ip = 0; ip < 6; ip++) {
        tsr_resize_options opt;
        tsr_resize_options_init(&opt);
        opt.interp = (tsr_interp)ip;
        size_t done = 0;
        for (int i = 0; i < N; i++)
            rb_poison(&g[i], 0x99 + ip);
        CHECK_OK(ref, tsr_resize_batch(ref, s, w, N, &opt, NULL));
        CHECK_OK(ctx, tsr_resize_batch(ctx, s, g, N, &opt, &done));
        CHECK(done == N);
        for (int i = 0; i < N; i++)
            CHECK(rb_rows_equal(&w[i], &g[i]));
    }
    for (int i = 0; i < N; i++)
        free(s[i].data), free(w[i].data), free(g[i].data);
}

int main(void)
{
    if (!tsr_backend_available(TSR_BACKEND_CUDA)) {
        printf("no CUDA device: skipped\n");
        return TSR_TEST_SKIP;
    }
    tsr_ctx *ctx = make(TSR_BACKEND_CUDA, NULL), *ref = make(TSR_BACKEND_REFERENCE, NULL);
    if (!ctx || !ref)
        return tsr_test_finish("test_resize_cuda_gpu");
    printf("device: %s\n", tsr_ctx_device_name(ctx));

    rb_sweep(ref, ctx, run_host, NULL, "cuda host images");
    rb_sweep(ref, ctx, run_device, NULL, "cuda device images");
    if (!tsr_test_quick())
        rb_sweep(ref, ctx, run_device, (void *)1, "cuda device source, host destination");
    rb_factors(ref, ctx, run_host, NULL, "cuda");
    check_batch(ref, ctx);

    /* a caller's stream: device work is queued on it */
    {
        cudaStream_t s;
        CHECK(cudaStreamCreate(&s) == cudaSuccess);
        tsr_ctx *cs = make(TSR_BACKEND_CUDA, s);
        if (cs) {
            rb_factors(ref, cs, run_device, NULL, "cuda caller stream");
            tsr_ctx_destroy(cs);
        }
        cudaStreamDestroy(s);
    }

    /* bad inputs */
    {
        tsr_image h, d, hd;
        rb_alloc(ctx, &h, 16, 16, 3, TSR_U8, 0);
        rb_alloc(ctx, &hd, 8, 8, 3, TSR_U8, 0);
        rb_fill(&(tsr_rng){5}, &h);
        CHECK(to_device(&h, &d));
        tsr_ctx *cpu = make(TSR_BACKEND_CPU, NULL);
        if (cpu) { /* a device image with the CPU backend: clear error, no crash */
            CHECK_STATUS(tsr_resize(cpu, &d, &hd, NULL), TSR_ERR_INVALID_ARGUMENT);
            CHECK(strstr(tsr_ctx_last_error(cpu), "cuda") != NULL);
            tsr_ctx_destroy(cpu);
        }
        CHECK_STATUS(tsr_resize(ref, &d, &hd, NULL), TSR_ERR_INVALID_ARGUMENT);
        tsr_image bad = hd;
        bad.data = NULL;
        CHECK_STATUS(tsr_resize(ctx, &d, &bad, NULL), TSR_ERR_INVALID_ARGUMENT);
        CHECK_OK(ctx, tsr_resize(ctx, &d, &hd, NULL)); /* still usable */
        cudaFree(d.data);
        free(h.data), free(hd.data);
    }
    tsr_ctx_destroy(ctx);
    tsr_ctx_destroy(ref);
    return tsr_test_finish("test_resize_cuda_gpu");
}
