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

/* Copies a host image to a new device image with a padded pitch whose rows start `off` bytes
 * past the allocation's aligned rows (free with cudaFree(data - off); nothing is left allocated
 * when it fails), and back. */
static int to_device_at(const tsr_image *h, tsr_image *d, size_t off)
{
    *d = *h;
    d->memory = TSR_MEMORY_CUDA;
    size_t row = (size_t)h->width * h->channels * tsr_depth_size(h->depth);
    size_t pitch = 0;
    void *base;
    if (cudaMallocPitch(&base, &pitch, row + off, (size_t)h->height) != cudaSuccess)
        return 0;
    d->data = (char *)base + off;
    d->stride = pitch;
    /* a pageable cudaMemcpy2D may return before its DMA lands: synchronise */
    if (cudaMemcpy2D(d->data, pitch, h->data, h->stride, row, (size_t)h->height,
                     cudaMemcpyHostToDevice) == cudaSuccess &&
        cudaDeviceSynchronize() == cudaSuccess)
        return 1;
    cudaFree(base);
    return 0;
}

static int to_device(const tsr_image *h, tsr_image *d)
{
    return to_device_at(h, d, 0);
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

/* Host images large enough to move in several staged chunks (cuda_staging.cu: chunks of at least
 * 8 MiB, at most 8; 30 MB here: 4 chunks, the last one partial) in both directions, with padded
 * host rows, alone and as a batch: every chunk must land in its own rows (outputs poisoned; a chunk
 * copied to the wrong place or not at all shows as a mismatch against the reference). */
static void check_staged_chunks(tsr_ctx *ref, tsr_ctx *ctx)
{
    static const int sizes[][4] = {{4000, 2501, 1999, 1250}, {1999, 1250, 4000, 2501}};
    tsr_image s[2], w[2], g[2];
    tsr_rng rng;
    tsr_rng_seed(&rng, 23);
    for (int i = 0; i < 2; i++) {
        rb_alloc(ctx, &s[i], sizes[i][0], sizes[i][1], 3, TSR_U8, 5);
        rb_alloc(ctx, &w[i], sizes[i][2], sizes[i][3], 3, TSR_U8, 0);
        rb_alloc(ctx, &g[i], sizes[i][2], sizes[i][3], 3, TSR_U8, 7);
        rb_fill(&rng, &s[i]);
    }
    static const tsr_interp ips[] = {TSR_INTERP_LINEAR, TSR_INTERP_CUBIC};
    int bad = 0;
    for (size_t k = 0; k < sizeof ips / sizeof ips[0]; k++) {
        tsr_resize_options opt;
        tsr_resize_options_init(&opt);
        opt.interp = ips[k];
        for (int i = 0; i < 2; i++) {
            CHECK_OK(ref, tsr_resize(ref, &s[i], &w[i], &opt));
            rb_poison(&g[i], 0x3c);
            CHECK_OK(ctx, tsr_resize(ctx, &s[i], &g[i], &opt));
            bad += !rb_rows_equal(&w[i], &g[i]);
            rb_poison(&g[i], 0xc3);
        }
        size_t done = 0;
        CHECK_OK(ctx, tsr_resize_batch(ctx, s, g, 2, &opt, &done));
        CHECK(done == 2);
        for (int i = 0; i < 2; i++)
            bad += !rb_rows_equal(&w[i], &g[i]);
    }
    CHECK(bad == 0);
    printf("staged chunks: 8 large host-image resizes compared with the reference, %d mismatches\n",
           bad);
    for (int i = 0; i < 2; i++)
        free(s[i].data), free(w[i].data), free(g[i].data);
}

/* Exact 2x linear u8 (k_up2_u8) on device images, against the reference with the output
 * poisoned: sizes with several 512-pixel column blocks and a partial last one, row bands with a
 * partial last one, and rows that are not a multiple of 16 bytes; rows aligned (word loads,
 * 8-byte stores), the source 4 bytes off, and the destination 4 bytes off (byte stores). */
static void check_up2_tiles(tsr_ctx *ref, tsr_ctx *ctx)
{
    static const int sizes[][2] = {{513, 2}, {1100, 37}, {2050, 301}, {1600, 1203}, {4, 9}};
    static const size_t offs[][2] = {{0, 0}, {4, 0}, {0, 4}};
    tsr_rng rng;
    tsr_rng_seed(&rng, 2026113);
    int runs = 0, bad = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int cn = 1; cn <= 4; cn++) {
            if (tsr_test_quick() && (k > 1 || cn != 3))
                continue;
            const int sw = sizes[k][0], sh = sizes[k][1];
            tsr_image src, want, got, ds, dd;
            if (!rb_alloc(ctx, &src, sw, sh, cn, TSR_U8, 0) ||
                !rb_alloc(ctx, &want, 2 * sw, 2 * sh, cn, TSR_U8, 0) ||
                !rb_alloc(ctx, &got, 2 * sw, 2 * sh, cn, TSR_U8, 0)) {
                CHECK(0 && "out of memory");
                return;
            }
            rb_fill(&rng, &src);
            tsr_resize_options opt;
            tsr_resize_options_init(&opt);
            opt.interp = TSR_INTERP_LINEAR;
            CHECK_OK(ref, tsr_resize(ref, &src, &want, &opt));
            for (size_t o = 0; o < sizeof offs / sizeof offs[0]; o++) {
                rb_poison(&got, 0x5a + (int)o);
                if (!to_device_at(&src, &ds, offs[o][0])) {
                    CHECK(0 && "device out of memory");
                    break;
                }
                if (!to_device_at(&got, &dd, offs[o][1])) {
                    CHECK(0 && "device out of memory");
                    cudaFree((char *)ds.data - offs[o][0]);
                    break;
                }
                CHECK_OK(ctx, tsr_resize(ctx, &ds, &dd, &opt));
                CHECK(cudaDeviceSynchronize() == cudaSuccess && to_host(&dd, &got));
                runs++;
                if (!rb_rows_equal(&want, &got) && ++bad <= 8)
                    fprintf(stderr, "up2 tiles: mismatch %dx%d cn %d offsets %zu/%zu\n", sw, sh, cn,
                            offs[o][0], offs[o][1]);
                cudaFree((char *)ds.data - offs[o][0]);
                cudaFree((char *)dd.data - offs[o][1]);
            }
            free(src.data), free(want.data), free(got.data);
        }
    CHECK(bad == 0);
    printf("up2 tiles: %d runs compared with the reference, %d mismatches\n", runs, bad);
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
    check_staged_chunks(ref, ctx);
    check_up2_tiles(ref, ctx);

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
