/* tsr_j2k_decode_image on the CUDA backend against the CPU backend, byte for byte: every stream
 * of the conformance and HTJ2K sets and, with TSR_TESTS, the j2k fuzz corpus and its kept
 * crashers (corrupt streams: the same status, the same warnings: their number and the first),
 * each decoded in full and with one set of random options (reduction, layers, a region), into a
 * host image and into a device image, both poisoned first; then streams made by tessera's encoder
 * from random images (HT and Part 1, lossless and lossy, 1-4 channels, 8 and 16 bits, odd sizes,
 * tiles, code-block sizes). Decodes the CPU makes through planes (palette, sYCC/ICC, subsampling)
 * must be refused by CUDA with TSR_ERR_UNSUPPORTED, as must fast-nonstandard streams. Then
 * tsr_j2k_decode_images on CUDA (pipelined) against single CPU decodes (j2k_batch_check.h: corrupt
 * and mismatched items among them), into host images and into device images, twice each (the second
 * batch reuses the context's buffers). TSR_TEST_QUICK (compute-sanitizer runs): every fourth
 * stream, full decodes only, and a quarter of the encoded cases. Skips (77) without a CUDA device;
 * the shared streams are skipped without
 * ../shared/data (the encoded ones still run). */
#define _POSIX_C_SOURCE 200809L
#include "j2k_batch_check.h"
#include "j2k_stream_walk.h"
#include "testlib.h"

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

static tsr_ctx *cpu, *gpu;
static int compared, refused, failed_alike, quick, seen;

/* Decodes on the CUDA context into a device image poisoned with 0x5a, copied back into *host
 * (allocated by the caller, of the descriptor's size, tight). */
static tsr_status decode_device(const uint8_t *data, size_t len, const tsr_j2k_decode_options *o,
                                const tsr_image *desc, uint8_t *host, tsr_j2k_result *res)
{
    const size_t row = desc->stride, bytes = row * (size_t)desc->height;
    void *d = NULL;
    if (cudaMalloc(&d, bytes) != cudaSuccess || cudaMemset(d, 0x5a, bytes) != cudaSuccess) {
        CHECK(0);
        return TSR_ERR_DEVICE_OUT_OF_MEMORY;
    }
    tsr_image img = *desc;
    img.data = d;
    img.memory = TSR_MEMORY_CUDA;
    tsr_status st = tsr_j2k_decode_image(gpu, data, len, o, &img, res);
    if (cudaMemcpy(host, d, bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
        CHECK(0);
    cudaFree(d);
    return st;
}

/* 1 when the main header marks tessera's fast-nonstandard coder (not JPEG 2000). */
static int nonstandard(const uint8_t *data, size_t len)
{
    tsr_j2k_info info;
    tsr_j2k_component comp[4];
    return tsr_j2k_read_header(cpu, data, len, &info, comp, 4) == TSR_OK && info.nonstandard;
}

/* One decode with options o on both backends: the same status; on success the same warnings and
 * the same bytes (host image and device image). */
static void check_one(const char *what, const uint8_t *data, size_t len,
                      const tsr_j2k_decode_options *o)
{
    tsr_image desc;
    if (tsr_j2k_decode_image_layout(cpu, data, len, o, &desc) != TSR_OK)
        return; /* no image for these options (the planes tests cover those) */
    const size_t bytes = desc.stride * (size_t)desc.height;
    uint8_t *ref = malloc(bytes), *got = malloc(bytes), *dev = malloc(bytes);
    if (!ref || !got || !dev) {
        CHECK(0);
        goto out;
    }
    memset(ref, 0xa5, bytes);
    memset(got, 0x3c, bytes);
    tsr_image a = desc, b = desc;
    a.data = ref;
    b.data = got;
    tsr_j2k_result ra, rb, rc;
    const tsr_status sa = tsr_j2k_decode_image(cpu, data, len, o, &a, &ra);
    const tsr_status sb = tsr_j2k_decode_image(gpu, data, len, o, &b, &rb);
    if (sb == TSR_ERR_UNSUPPORTED && (sa == TSR_OK || nonstandard(data, len))) {
        /* through the planes on the CPU (palette, colour conversion, grids), or a
         * fast-nonstandard stream, which CUDA refuses from its header, corrupt or not */
        refused++;
        goto out;
    }
    if (sa != sb) {
        printf("FAIL %s: cpu status %s, cuda %s (%s)\n", what, tsr_status_name(sa),
               tsr_status_name(sb), tsr_ctx_last_error(gpu));
        CHECK(0);
        goto out;
    }
    if (sa != TSR_OK) {
        failed_alike++;
        goto out;
    }
    if (ra.warnings != rb.warnings || ra.truncated != rb.truncated ||
        strcmp(ra.warning, rb.warning)) {
        printf("FAIL %s: cpu %u warnings '%s' truncated %d, cuda %u '%s' %d\n", what, ra.warnings,
               ra.warning, ra.truncated, rb.warnings, rb.warning, rb.truncated);
        CHECK(0);
    }
    if (memcmp(ref, got, bytes)) {
        size_t i = 0;
        while (ref[i] == got[i])
            i++;
        printf("FAIL %s: host image differs at byte %zu (row %zu): cpu %u cuda %u\n", what, i,
               i / desc.stride, ref[i], got[i]);
        CHECK(0);
        goto out;
    }
    const tsr_status sd = decode_device(data, len, o, &desc, dev, &rc);
    CHECK(sd == TSR_OK);
    if (sd == TSR_OK && memcmp(ref, dev, bytes)) {
        printf("FAIL %s: device image differs\n", what);
        CHECK(0);
    }
    compared++;
out:
    free(ref);
    free(got);
    free(dev);
}

/* Device images for j2k_batch_check. */
static int dev_alloc(tsr_image *img, size_t bytes, int poison)
{
    img->memory = TSR_MEMORY_CUDA;
    img->data = NULL;
    if (cudaMalloc(&img->data, bytes ? bytes : 1) != cudaSuccess)
        return 0;
    return cudaMemset(img->data, poison, bytes) == cudaSuccess;
}

static void dev_fetch(const tsr_image *img, uint8_t *host, size_t bytes)
{
    CHECK(cudaMemcpy(host, img->data, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
}

static void dev_release(tsr_image *img)
{
    cudaFree(img->data);
    img->data = NULL;
}

/* The batch on CUDA against the CPU's single decodes, host and device images. */
static void batch_cases(tsr_rng *rng)
{
    j2k_batch_list l;
    memset(&l, 0, sizeof l);
    j2k_batch_make_list(&l, cpu, rng, 6);
    const j2k_batch_mem dev = {dev_alloc, dev_fetch, dev_release};
    for (int round = 0; round < 2; round++) {
        const int h = j2k_batch_check(gpu, cpu, &l, NULL, 1);
        const int d = j2k_batch_check(gpu, cpu, &l, &dev, 0);
        printf("batch round %d: %u items, %d host and %d device images as the CPU's\n", round, l.n,
               h, d);
        CHECK(h >= 6 && h == d);
    }
    j2k_batch_free(&l);
}

static void check_stream(const char *path, const uint8_t *data, size_t len,
                         const tsr_j2k_info *info, void *user)
{
    tsr_rng *rng = user;
    tsr_j2k_decode_options o;
    tsr_j2k_decode_options_init(&o);
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (quick && seen++ % 4)
        return;
    check_one(name, data, len, &o);
    if (quick)
        return;
    /* one random set of options */
    uint32_t comps[4];
    const int v = tsr_rng_range(rng, 1, 5);
    if (v == 1 && info->levels > 0)
        o.reduce = (uint32_t)tsr_rng_range(rng, 1, (int)info->levels);
    if (v == 2 && info->layers > 1)
        o.layers = (uint32_t)tsr_rng_range(rng, 1, (int)info->layers - 1);
    if (v == 3 && info->width > 1 && info->height > 1) {
        o.region_x = (uint32_t)tsr_rng_range(rng, 0, (int)(info->width - 1));
        o.region_y = (uint32_t)tsr_rng_range(rng, 0, (int)(info->height - 1));
        o.region_w = (uint32_t)tsr_rng_range(rng, 1, (int)info->width);
        o.region_h = (uint32_t)tsr_rng_range(rng, 1, (int)info->height);
    }
    if (v == 4 && info->num_components > 1) { /* components 1, 0 (a subset in another order) */
        comps[0] = 1;
        comps[1] = 0;
        o.components = comps;
        o.num_components = 2;
    }
    if (v == 5)
        o.apply_palette = 0;
    char what[512];
    snprintf(what, sizeof what, "%s (options %d: reduce %u layers %u region %u,%u %ux%u)", name, v,
             o.reduce, o.layers, o.region_x, o.region_y, o.region_w, o.region_h);
    check_one(what, data, len, &o);
}

static void encoded_cases(tsr_rng *rng)
{
    static const int sizes[][2] = {{1, 1}, {1, 37}, {17, 3}, {64, 64}, {257, 131}, {640, 480}};
    for (int i = 0; i < (quick ? 12 : 48); i++) {
        const int *sz = sizes[i % 6];
        const int cn = 1 + (int)tsr_rng_range(rng, 0, 3);
        const tsr_depth depth = tsr_rng_range(rng, 0, 3) ? TSR_U8 : TSR_U16;
        tsr_image img;
        j2k_batch_image(cpu, rng, &img, sz[0], sz[1], cn, depth);
        tsr_j2k_encode_options eo;
        tsr_j2k_encode_options_init(&eo);
        eo.ht = i % 2;
        eo.lossless = (i / 2) % 2;
        if (!eo.lossless)
            eo.quant_step = 1.0f / (float)(64 << tsr_rng_range(rng, 0, 3));
        if (!eo.ht && !eo.lossless && tsr_rng_range(rng, 0, 1)) {
            eo.num_rates = 1;
            eo.rates[0] = 0.5 + tsr_rng_range(rng, 0, 3);
        }
        eo.levels = (int)tsr_rng_range(rng, 0, 6);
        eo.cblk_width = 4u << tsr_rng_range(rng, 0, 4);
        eo.cblk_height = 4u << tsr_rng_range(rng, 0, 4);
        if (i % 8 == 7) { /* the widest code-blocks */
            eo.cblk_width = 1024;
            eo.cblk_height = 4;
        }
        if (tsr_rng_range(rng, 0, 2) == 0) {
            eo.tile_width = 16u + tsr_rng_range(rng, 0, 199);
            eo.tile_height = 16u + tsr_rng_range(rng, 0, 199);
        }
        uint8_t *data = NULL;
        size_t len = 0;
        tsr_status st = tsr_j2k_encode(cpu, &img, &eo, &data, &len);
        if (st != TSR_OK) { /* options the encoder refuses for this size are fine */
            tsr_image_free(cpu, &img);
            continue;
        }
        char what[160];
        snprintf(what, sizeof what, "encoded %dx%dx%d %s %s %s levels %d cblk %ux%u tiles %ux%u",
                 sz[0], sz[1], cn, depth == TSR_U16 ? "16-bit" : "8-bit", eo.ht ? "HT" : "Part 1",
                 eo.lossless ? "lossless" : "lossy", eo.levels, eo.cblk_width, eo.cblk_height,
                 eo.tile_width, eo.tile_height);
        tsr_j2k_decode_options o;
        tsr_j2k_decode_options_init(&o);
        check_one(what, data, len, &o);
        tsr_j2k_free(cpu, data);
        tsr_image_free(cpu, &img);
    }
}

int main(void)
{
    if (!tsr_backend_available(TSR_BACKEND_CUDA)) {
        printf("no CUDA device: skipped\n");
        return TSR_TEST_SKIP;
    }
    tsr_ctx_options co;
    tsr_ctx_options_init(&co);
    co.backend = TSR_BACKEND_CPU;
    co.threads = 1; /* tiles in order: the first warning is deterministic (several threads
                       decode many tiles in parallel, whose warnings then come in any order) */
    CHECK(tsr_ctx_create(&co, &cpu) == TSR_OK);
    co.threads = 2;
    co.backend = TSR_BACKEND_CUDA;
    CHECK(tsr_ctx_create(&co, &gpu) == TSR_OK);
    if (!cpu || !gpu)
        return 1;
    printf("device: %s\n", tsr_ctx_device_name(gpu));
    quick = tsr_test_quick();
    tsr_rng rng;
    tsr_rng_seed(&rng, 26);
    encoded_cases(&rng);
    printf("encoded: %d compared\n", compared);
    batch_cases(&rng);
    if (!j2k_walk_streams(cpu, check_stream, &rng))
        printf("SKIP shared streams: ../shared/data/j2k is absent\n");
    printf("%d decodes identical, %d refused by cuda (CPU through planes), %d failed alike\n",
           compared, refused, failed_alike);
    tsr_ctx_destroy(gpu);
    tsr_ctx_destroy(cpu);
    return tsr_test_finish("test_j2k_decode_cuda_gpu");
}
