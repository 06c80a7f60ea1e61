/* tsr_j2k_encode on the CUDA backend against the CPU backend, byte for byte: random images of odd
 * sizes (1x1, 17x3, thin, 1-4 channels, 8 and 16 bits, one 1920x1080) and a real image from
 * ../shared/data, each encoded with HT lossless, HT at 2 bpp, Part 1 lossless, Part 1 at 2 bpp
 * and at a quantisation step, tiles of odd sizes, layers; from a host image on the cuda backend,
 * from a device image on the cuda backend and from a device image under auto (which must pick
 * cuda). The device image is a copy of the host one; the output buffers are fresh each time. A
 * host image under auto must stay on the CPU. A mismatch prints the options, the image and the
 * first differing byte (the device transforms themselves are test_j2k_fxform_cuda_gpu's).
 * TSR_TEST_QUICK (compute-sanitizer runs): the small images and a third of the options. Skips
 * (77) without a CUDA device; the real image is skipped without ../shared/data. */
#include "testlib.h"

#include "cuda/cuda_device.h"
#include "tessera/io.h"
#include "tessera/j2k.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tsr_ctx *cpu, *gpu, *autox;
static int quick, compared;

typedef struct options_case {
    const char *name;
    int ht, lossless;
    double rate;                       /* bits per pixel, 0: none */
    float qstep;                       /* lossy without a rate, 0: none */
    uint32_t tile;                     /* square tiles, 0: one */
    uint32_t layers;                   /* 0: one */
    uint32_t x0, y0, tile_x0, tile_y0; /* offsets on the reference grid */
    int fast;                          /* the fast-nonstandard coder */
} options_case;

static const options_case cases[] = {
    {"HT lossless", 1, 1, 0, 0, 0, 0},
    {"HT 2 bpp", 1, 0, 2, 0, 0, 0},
    {"Part 1 lossless", 0, 1, 0, 0, 0, 0},
    {"Part 1 2 bpp", 0, 0, 2, 0, 0, 0},
    {"Part 1 qstep 1/128", 0, 0, 0, 1.0f / 128, 0, 0},
    {"HT qstep 1/256", 1, 0, 0, 1.0f / 256, 0, 0},
    {"Part 1 lossless tiles 37", 0, 1, 0, 0, 37, 0},
    {"HT 1 bpp tiles 64", 1, 0, 1, 0, 64, 0},
    {"Part 1 3 layers", 0, 1, 0, 0, 0, 3},
    {"HT lossless at (1001,37), tiles 64 from (1000,0)", 1, 1, 0, 0, 64, 0, 1001, 37, 1000, 0},
    {"Part 1 1 bpp at (3,5), tiles 37 from (0,0)", 0, 0, 1, 0, 37, 0, 3, 5, 0, 0},
    {"HT 2 bpp at (7,1), one tile", 1, 0, 2, 0, 0, 0, 7, 1, 0, 0},
    {"fast-nonstandard lossless", 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1},
    {"fast-nonstandard qstep 1/64, tiles 64", 0, 0, 0, 1.0f / 64, 64, 0, 0, 0, 0, 0, 1},
};

static void options_of(const options_case *c, tsr_j2k_encode_options *o)
{
    tsr_j2k_encode_options_init(o);
    o->ht = c->ht;
    o->lossless = c->lossless;
    if (c->rate > 0) {
        o->num_rates = 1;
        o->rates[0] = c->rate;
    }
    if (c->qstep > 0)
        o->quant_step = c->qstep;
    o->tile_width = o->tile_height = c->tile;
    o->layers = c->layers;
    o->x0 = c->x0;
    o->y0 = c->y0;
    o->tile_x0 = c->tile_x0;
    o->tile_y0 = c->tile_y0;
    o->mode = c->fast ? TSR_J2K_MODE_FAST_NONSTANDARD : TSR_J2K_MODE_STANDARD;
}

/* Encodes img on ctx; *data (free with tsr_j2k_free on cpu) and *len. */
static tsr_status encode(tsr_ctx *ctx, const tsr_image *img, const tsr_j2k_encode_options *o,
                         uint8_t **data, size_t *len)
{
    *data = NULL;
    *len = 0;
    return tsr_j2k_encode(ctx, img, o, data, len);
}

/* The stream got (on ctx, from `from`) against the CPU's want: 1 when equal, else a note. */
static int same(const char *what, const char *img, const char *from, const uint8_t *want,
                size_t wlen, tsr_status st, tsr_ctx *ctx, const uint8_t *got, size_t glen)
{
    if (st != TSR_OK) {
        printf("FAIL %s, %s, %s: %s (%s)\n", what, img, from, tsr_status_name(st),
               tsr_ctx_last_error(ctx));
        return 0;
    }
    if (wlen == glen && !memcmp(want, got, wlen))
        return 1;
    size_t i = 0;
    while (i < wlen && i < glen && want[i] == got[i])
        i++;
    printf("FAIL %s, %s, %s: cpu %zu bytes, cuda %zu; first difference at byte %zu (cpu 0x%02x, "
           "cuda 0x%02x)\n",
           what, img, from, wlen, glen, i, i < wlen ? want[i] : 0, i < glen ? got[i] : 0);
    return 0;
}

static void check_image(const char *name, const tsr_image *host)
{
    const size_t bytes = host->stride * (size_t)host->height;
    void *d = NULL;
    if (cudaMalloc(&d, bytes ? bytes : 1) != cudaSuccess ||
        cudaMemcpy(d, host->data, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        CHECK(0);
        cudaFree(d);
        return;
    }
    tsr_image dev = *host;
    dev.data = d;
    dev.memory = TSR_MEMORY_CUDA;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        if (quick && k % 3)
            continue;
        const options_case *c = &cases[k];
        tsr_j2k_encode_options o;
        options_of(c, &o);
        uint8_t *want, *got;
        size_t wlen, glen;
        tsr_status st = encode(cpu, host, &o, &want, &wlen);
        if (st != TSR_OK) { /* options this image cannot take fail alike */
            CHECK(encode(gpu, host, &o, &got, &glen) == st);
            tsr_j2k_free(cpu, got);
            continue;
        }
        st = encode(gpu, host, &o, &got, &glen);
        CHECK(same(c->name, name, "host image", want, wlen, st, gpu, got, glen));
        CHECK(tsr_ctx_backend(gpu) == TSR_BACKEND_CUDA);
        tsr_j2k_free(gpu, got);
        st = encode(gpu, &dev, &o, &got, &glen);
        CHECK(same(c->name, name, "device image", want, wlen, st, gpu, got, glen));
        tsr_j2k_free(gpu, got);
        st = encode(autox, &dev, &o, &got, &glen);
        CHECK(same(c->name, name, "device image, auto", want, wlen, st, autox, got, glen));
        CHECK(tsr_ctx_backend(autox) == TSR_BACKEND_CUDA);
        tsr_j2k_free(autox, got);
        st = encode(autox, host, &o, &got, &glen);
        CHECK(st == TSR_OK && tsr_ctx_backend(autox) == TSR_BACKEND_CPU);
        tsr_j2k_free(autox, got);
        tsr_j2k_free(cpu, want);
        compared++;
    }
    /* a device image on the CPU backend: a clear refusal */
    tsr_j2k_encode_options o;
    tsr_j2k_encode_options_init(&o);
    uint8_t *none;
    size_t nlen;
    CHECK_STATUS(encode(cpu, &dev, &o, &none, &nlen), TSR_ERR_UNSUPPORTED);
    CHECK(none == NULL);
    cudaFree(d);
}

static void random_image(tsr_rng *rng, int w, int h, int nc, int wide)
{
    tsr_image img;
    CHECK_OK(cpu, tsr_image_alloc(cpu, &img, w, h, nc, wide ? TSR_U16 : TSR_U8));
    if (!img.data)
        return;
    /* smooth content with noise, so that rate control has work at 2 bpp */
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w * nc; x++) {
            const uint32_t v = (uint32_t)(x * 7 + y * 3) + (uint32_t)tsr_rng_range(rng, 0, 40);
            if (wide)
                ((uint16_t *)(void *)((uint8_t *)img.data + (size_t)y * img.stride))[x] =
                    (uint16_t)(v * 211);
            else
                ((uint8_t *)img.data + (size_t)y * img.stride)[x] = (uint8_t)v;
        }
    char name[64];
    snprintf(name, sizeof name, "random %dx%d, %d channels of %d bits", w, h, nc, wide ? 16 : 8);
    check_image(name, &img);
    tsr_image_free(cpu, &img);
}

static tsr_ctx *context(tsr_backend b)
{
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    opt.backend = b;
    tsr_ctx *ctx = NULL;
    CHECK(tsr_ctx_create(&opt, &ctx) == TSR_OK);
    return ctx;
}

int main(void)
{
    if (tsr__cuda_device_count() < 1) {
        printf("test_j2k_encode_cuda_gpu: no CUDA device; skipping\n");
        return TSR_TEST_SKIP;
    }
    quick = tsr_test_quick();
    cpu = context(TSR_BACKEND_CPU);
    gpu = context(TSR_BACKEND_CUDA);
    autox = context(TSR_BACKEND_AUTO);
    if (!cpu || !gpu || !autox)
        return tsr_test_finish("test_j2k_encode_cuda_gpu");
    tsr_rng rng;
    tsr_rng_seed(&rng, 2626);
    static const int sizes[][4] = {{1, 1, 1, 0},   {17, 3, 1, 0},     {3, 17, 3, 1},
                                   {61, 37, 3, 0}, {130, 7, 2, 1},    {257, 129, 4, 1},
                                   {97, 75, 3, 1}, {1920, 1080, 3, 0}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (!quick || sizes[i][0] * sizes[i][1] < 100000)
            random_image(&rng, sizes[i][0], sizes[i][1], sizes[i][2], sizes[i][3]);
    const char *path = tsr_test_data("images/astronaut.png");
    if (path) {
        tsr_image img;
        CHECK_OK(cpu, tsr_image_load(cpu, path, &img, NULL));
        if (img.data)
            check_image("astronaut.png", &img);
        tsr_image_free(cpu, &img);
    }
    printf("test_j2k_encode_cuda_gpu: %d image and option pairs compared\n", compared);
    tsr_ctx_destroy(cpu);
    tsr_ctx_destroy(gpu);
    tsr_ctx_destroy(autox);
    return tsr_test_finish("test_j2k_encode_cuda_gpu");
}
