/* nvJPEG decoding (src/cuda/nvjpeg.h) against libjpeg-turbo (tsr_image_decode), and
 * tsr_resize_jpeg_batch against the reference resize of nvJPEG's pixels.
 *
 * Inputs: the shared JPEGs (four of TSR_DATA/images/, all of its .jpg files) and fresh
 * random-content JPEGs written by tessera's own JPEG writer (libjpeg defaults: 4:2:0 colour, and
 * gray; the writer has no 4:4:4 option), odd sizes so that partial MCUs occur. All are decoded in
 * one batched call (gray and colour mixed), twice, into device images poisoned first with 0xA5 and
 * then 0x5A whose rows carry 64 bytes of padding: a sample equal in both runs was written (and
 * deterministically), padding equal to its poison was not touched.
 *
 * The bound. nvJPEG and libjpeg's islow IDCT are both accurate IDCTs (IEEE 1180 class: peak
 * error <= 1 per sample, mean square <= 0.06 against the exact transform), so their Y, Cb, Cr
 * samples differ by at most 2 with a mean square well under 1; the YCbCr -> RGB conversion
 * scales chroma errors by at most 1.772 (Cb into B), and the two decoders may round it
 * differently by 1: per-channel MSE of at most a few units, PSNR = 10 log10(255^2 / MSE) above
 * 45 dB. Gray and 4:4:4 files must reach 40 dB. Subsampled chroma adds the upsampling
 * difference: libjpeg's fancy (triangular 3/4, 1/4) filter against nvJPEG's, which differ by up
 * to a quarter of the step between neighbouring chroma samples (times 1.772 in RGB); in photos
 * and in the smooth random fields made here the steps are a few levels, so subsampled files
 * must reach 30 dB (RMS error 8), loose enough for strong chroma edges and still far above
 * what a wrong plane, channel order or colour matrix gives (below 20 dB). Every image prints
 * its max |difference| and PSNR: the numbers the documentation states.
 *
 * Skips (77) without a CUDA device or without libnvjpeg. */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include "cuda/nvjpeg.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { MAX_IMAGES = 16, PAD = 64 };

typedef struct input {
    char name[96];
    unsigned char *bytes;
    size_t len;
    int subsampled; /* a chroma component has fewer samples than luma (from the SOF marker) */
    tsr_image want; /* libjpeg-turbo's decode (host) */
    tsr_image dev;  /* the device destination */
    unsigned char *got[2]; /* the device rows (stride * height) after each poisoned run */
} input;

/* Whether the JPEG's frame header gives some component other sampling factors than the first:
 * scans markers to the first SOFn. */
static int jpeg_subsampled(const unsigned char *p, size_t n)
{
    size_t i = 2;
    while (i + 4 <= n) {
        if (p[i] != 0xFF) {
            i++;
            continue;
        }
        unsigned m = p[i + 1];
        size_t seg = ((size_t)p[i + 2] << 8) | p[i + 3];
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
            if (i + 10 > n)
                return 0;
            int nc = p[i + 9];
            if (i + 10 + 3 * (size_t)nc > n || nc < 2)
                return 0;
            for (int c = 1; c < nc; c++)
                if (p[i + 10 + 3 * c + 1] != p[i + 10 + 1])
                    return 1;
            return 0;
        }
        i += 2 + seg;
    }
    return 0;
}

/* A smooth random field (a few random low-frequency cosines per channel, small noise), as
 * photos are, of w x h and 1 or 3 channels. */
static void random_field(tsr_rng *r, tsr_image *img)
{
    double f[3][4][3]; /* per channel, per term: fx, fy, amplitude */
    for (int c = 0; c < 3; c++)
        for (int t = 0; t < 4; t++) {
            f[c][t][0] = tsr_rng_range(r, 1, 12) * 0.0031;
            f[c][t][1] = tsr_rng_range(r, 1, 12) * 0.0027;
            f[c][t][2] = tsr_rng_range(r, 10, 40);
        }
    for (int y = 0; y < img->height; y++) {
        unsigned char *row = (unsigned char *)img->data + (size_t)y * img->stride;
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < img->channels; c++) {
                double v = 128 + tsr_rng_range(r, -4, 4);
                for (int t = 0; t < 4; t++)
                    v += f[c][t][2] * cos(f[c][t][0] * x * 6.283 + f[c][t][1] * y * 6.283 + t);
                row[(size_t)x * img->channels + c] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
    }
}

static int add_file(tsr_ctx *ctx, input *in, const char *name, unsigned char *bytes, size_t len)
{
    memset(in, 0, sizeof *in);
    snprintf(in->name, sizeof in->name, "%s", name);
    in->bytes = bytes;
    in->len = len;
    in->subsampled = jpeg_subsampled(bytes, len);
    tsr_status st = tsr_image_decode(ctx, bytes, len, &in->want, NULL);
    CHECK_OK(ctx, st);
    return st == TSR_OK;
}

/* A fresh JPEG of w x h x channels written by tsr_image_save (quality q) and read back. */
static int add_fresh(tsr_ctx *ctx, tsr_rng *r, input *in, int w, int h, int channels, int q)
{
    tsr_image img;
    CHECK_OK(ctx, tsr_image_alloc(ctx, &img, w, h, channels, TSR_U8));
    random_field(r, &img);
    char path[64];
    snprintf(path, sizeof path, "/tmp/tsr_nvjpeg_%d_%dx%dx%d.jpg", (int)getpid(), w, h, channels);
    tsr_save_options so;
    tsr_save_options_init(&so);
    so.jpeg_quality = q;
    CHECK_OK(ctx, tsr_image_save(ctx, path, &img, &so));
    tsr_image_free(ctx, &img);
    size_t len = 0;
    unsigned char *bytes = tsr_test_read_file(path, &len);
    unlink(path);
    CHECK(bytes != NULL);
    char name[96];
    snprintf(name, sizeof name, "fresh %dx%d %s q%d", w, h, channels == 1 ? "gray" : "rgb", q);
    return bytes && add_file(ctx, in, name, bytes, len);
}

int main(void)
{
    if (!tsr_backend_available(TSR_BACKEND_CUDA)) {
        printf("no CUDA device: skipped\n");
        return TSR_TEST_SKIP;
    }
    if (!tsr__nvjpeg_available()) {
        printf("no libnvjpeg (libnvjpeg.so.13): skipped\n");
        return TSR_TEST_SKIP;
    }
    tsr_ctx *ctx = tsr_test_ctx(TSR_BACKEND_CUDA), *ref = tsr_test_reference_ctx();
    if (!ctx) {
        CHECK(ctx != NULL);
        return tsr_test_finish("test_nvjpeg_cuda_gpu");
    }
    printf("device: %s\n", tsr_ctx_device_name(ctx));
    tsr_rng rng;
    tsr_rng_seed(&rng, 0x6e766a706567ull);

    input in[MAX_IMAGES];
    int n = 0;
    static const char *const shared[] = {"images/broadway_tower_1428x968.jpg",
                                         "images/desert_mesa_4611x8192.jpg",
                                         "images/hubble_deep_field.jpg", "images/rocket.jpg"};
    for (size_t k = 0; k < sizeof shared / sizeof shared[0]; k++) {
        const char *path = tsr_test_data(shared[k]);
        size_t len = 0;
        unsigned char *bytes = path ? tsr_test_read_file(path, &len) : NULL;
        if (bytes && add_file(ref, &in[n], shared[k] + 7, bytes, len))
            n++;
    }
    static const int fresh[][4] = {
        {517, 389, 3, 95}, {64, 48, 3, 75}, {301, 211, 1, 90}, {1029, 771, 3, 85}, {17, 9, 3, 95}};
    for (size_t k = 0; k < sizeof fresh / sizeof fresh[0]; k++)
        if (add_fresh(ref, &rng, &in[n], fresh[k][0], fresh[k][1], fresh[k][2], fresh[k][3]))
            n++;

    /* device destinations with padded rows */
    for (int i = 0; i < n; i++) {
        tsr_image *d = &in[i].dev;
        *d = in[i].want;
        d->memory = TSR_MEMORY_CUDA;
        d->stride = (size_t)d->width * d->channels + PAD;
        CHECK(cudaMalloc(&d->data, d->stride * d->height) == cudaSuccess);
    }
    const void *bits[MAX_IMAGES];
    size_t lens[MAX_IMAGES], done = 0;
    tsr_image dev[MAX_IMAGES];
    for (int i = 0; i < n; i++)
        bits[i] = in[i].bytes, lens[i] = in[i].len, dev[i] = in[i].dev;
    static const unsigned char poison[2] = {0xA5, 0x5A};
    for (int run = 0; run < 2; run++) {
        for (int i = 0; i < n; i++)
            CHECK(cudaMemset(in[i].dev.data, poison[run], in[i].dev.stride * in[i].dev.height) ==
                  cudaSuccess);
        CHECK(cudaDeviceSynchronize() == cudaSuccess);
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        size_t hw = 0;
        CHECK_OK(ctx, tsr__nvjpeg_decode(ctx, bits, lens, dev, (size_t)n, &done, &hw));
        clock_gettime(CLOCK_MONOTONIC, &t1);
        printf("run %d: %zu of %d images decoded in one call, %zu of them by the hardware "
               "decoders, %.1f ms (the first run includes creating nvJPEG's handles)\n",
               run, done, n, hw, (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6);
        CHECK(done == (size_t)n);
        for (int i = 0; i < n; i++) {
            size_t bytes = in[i].dev.stride * in[i].dev.height;
            in[i].got[run] = malloc(bytes);
            CHECK(in[i].got[run] && cudaMemcpy(in[i].got[run], in[i].dev.data, bytes,
                                               cudaMemcpyDeviceToHost) == cudaSuccess);
        }
    }

    double worst_444 = 1e9, worst_sub = 1e9;
    for (int i = 0; i < n; i++) {
        const input *p = &in[i];
        size_t row = (size_t)p->want.width * p->want.channels;
        size_t unwritten = 0, padding = 0;
        int maxd = 0;
        double se = 0;
        for (int y = 0; y < p->want.height; y++) {
            const unsigned char *a = p->got[0] + (size_t)y * p->dev.stride,
                                *b = p->got[1] + (size_t)y * p->dev.stride,
                                *w = (const unsigned char *)p->want.data +
                                     (size_t)y * p->want.stride;
            for (size_t x = 0; x < row; x++) {
                unwritten += a[x] != b[x];
                int d = abs((int)a[x] - (int)w[x]);
                maxd = d > maxd ? d : maxd;
                se += (double)d * d;
            }
            for (size_t x = row; x < p->dev.stride; x++)
                padding += a[x] != poison[0] || b[x] != poison[1];
        }
        double mse = se / ((double)row * p->want.height);
        double psnr = mse > 0 ? 10 * log10(255.0 * 255.0 / mse) : INFINITY;
        const double bound = p->subsampled ? 30 : 40;
        printf("%-34s %5dx%-5d %s %s: max |nvjpeg - libjpeg| %3d, PSNR %6.2f dB (bound %.0f), "
               "unwritten %zu, padding touched %zu\n",
               p->name, (int)p->want.width, (int)p->want.height,
               p->want.channels == 1 ? "gray" : "rgb ", p->subsampled ? "subsampled" : "full-res  ",
               maxd, psnr, bound, unwritten, padding);
        CHECK(unwritten == 0);
        CHECK(padding == 0);
        CHECK(psnr >= bound);
        if (p->subsampled)
            worst_sub = psnr < worst_sub ? psnr : worst_sub;
        else
            worst_444 = psnr < worst_444 ? psnr : worst_444;
    }
    printf("lowest PSNR: %.2f dB gray/4:4:4, %.2f dB subsampled\n", worst_444, worst_sub);

    /* tsr_resize_jpeg_batch: the reference resize (INTER_AREA, to about half) of nvJPEG's
     * pixels, byte for byte, into poisoned host images */
    tsr_image dst[MAX_IMAGES];
    for (int i = 0; i < n; i++) {
        int32_t w = (in[i].want.width + 1) / 2, h = (in[i].want.height + 1) / 2;
        CHECK_OK(ref, tsr_image_alloc(ref, &dst[i], w, h, in[i].want.channels, TSR_U8));
        memset(dst[i].data, 0xA5, dst[i].stride * dst[i].height);
    }
    tsr_resize_options ro;
    tsr_resize_options_init(&ro);
    ro.interp = TSR_INTERP_AREA;
    CHECK_OK(ctx, tsr_resize_jpeg_batch(ctx, bits, lens, dst, (size_t)n, &ro, &done));
    CHECK(done == (size_t)n);
    CHECK(tsr_ctx_backend(ctx) == TSR_BACKEND_CUDA);
    int resize_bad = 0;
    for (int i = 0; i < n; i++) {
        tsr_image src = in[i].want, want;
        src.data = in[i].got[0];
        src.stride = in[i].dev.stride;
        CHECK_OK(ref,
                 tsr_image_alloc(ref, &want, dst[i].width, dst[i].height, src.channels, TSR_U8));
        CHECK_OK(ref, tsr_resize(ref, &src, &want, &ro));
        for (int y = 0; y < want.height; y++)
            resize_bad += memcmp((unsigned char *)want.data + (size_t)y * want.stride,
                                 (unsigned char *)dst[i].data + (size_t)y * dst[i].stride,
                                 (size_t)want.width * want.channels) != 0;
        tsr_image_free(ref, &want);
    }
    CHECK(resize_bad == 0);
    printf("tsr_resize_jpeg_batch: %d images, %d rows differ from the reference resize of "
           "nvJPEG's pixels\n",
           n, resize_bad);

    /* a bad file after a good one: the good one is written, the call says which failed */
    {
        static const unsigned char junk[] = {0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x02, 0x13, 0x37};
        const void *two[2] = {bits[0], junk};
        size_t two_len[2] = {lens[0], sizeof junk};
        tsr_image two_dst[2] = {dst[0], dst[0]};
        tsr_status st = tsr_resize_jpeg_batch(ctx, two, two_len, two_dst, 2, &ro, &done);
        CHECK(st == TSR_ERR_CORRUPT);
        CHECK(done == 1);
        printf("bad second file: %s, %zu done (%s)\n", tsr_status_name(st), done,
               tsr_ctx_last_error(ctx));
    }
    /* another explicit backend cannot take GPU-decoded images */
    {
        tsr_ctx *cpu = tsr_test_ctx(TSR_BACKEND_CPU);
        CHECK(cpu != NULL);
        if (cpu)
            CHECK_STATUS(tsr_resize_jpeg_batch(cpu, bits, lens, dst, 1, &ro, &done),
                         TSR_ERR_NO_BACKEND);
        tsr_ctx_destroy(cpu);
    }

    for (int i = 0; i < n; i++) {
        tsr_image_free(ref, &dst[i]);
        tsr_image_free(ref, &in[i].want);
        cudaFree(in[i].dev.data);
        free(in[i].got[0]), free(in[i].got[1]);
        free(in[i].bytes);
    }
    tsr_ctx_destroy(ctx);
    tsr_ctx_destroy(ref);
    return tsr_test_finish("test_nvjpeg_cuda_gpu");
}
