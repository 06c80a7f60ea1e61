/* tsr_j2k_decode_images against single tsr_j2k_decode_image calls, for the CPU test
 * (test_j2k_batch.c) and the CUDA one (test_j2k_decode_cuda_gpu.c): a list of streams (random
 * images encoded by tessera with and without tiles, shared conformance streams, and corrupt or
 * mismatched ones in between), each item's image poisoned before the batch and each reference
 * image before its single decode; per item the same status, the same message on failure (when
 * asked: the CPU and CUDA paths word a mismatched device image differently), the same warnings
 * (count, truncation, the first one) and the same bytes. */
#ifndef TSR_TEST_J2K_BATCH_CHECK_H
#define TSR_TEST_J2K_BATCH_CHECK_H

#include "tessera/j2k.h"
#include "testlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a batch item's image lives: NULL for host memory (malloc), or the CUDA test's device
 * memory. alloc sets img->data (and memory) for bytes bytes filled with poison; fetch copies the
 * image's bytes to host; release frees it. */
typedef struct j2k_batch_mem {
    int (*alloc)(tsr_image *img, size_t bytes, int poison);
    void (*fetch)(const tsr_image *img, uint8_t *host, size_t bytes);
    void (*release)(tsr_image *img);
} j2k_batch_mem;

typedef struct j2k_batch_stream {
    const char *what;
    uint8_t *data; /* malloc'd (the list frees it) */
    size_t len;
    int widen; /* 1: give the item an image one pixel wider than the layout's (must fail) */
} j2k_batch_stream;

typedef struct j2k_batch_list {
    j2k_batch_stream s[64];
    uint32_t n;
} j2k_batch_list;

static void j2k_batch_add(j2k_batch_list *l, const char *what, const uint8_t *data, size_t len,
                          int widen)
{
    if (l->n >= sizeof l->s / sizeof l->s[0] || !(l->s[l->n].data = malloc(len ? len : 1)))
        return;
    memcpy(l->s[l->n].data, data, len);
    l->s[l->n].what = what;
    l->s[l->n].len = len;
    l->s[l->n].widen = widen;
    l->n++;
}

static void j2k_batch_free(j2k_batch_list *l)
{
    for (uint32_t i = 0; i < l->n; i++)
        free(l->s[i].data);
    l->n = 0;
}

/* A random image, smooth plus noise (code-blocks with many passes), 8 or 16 bits. */
static void j2k_batch_image(tsr_ctx *ctx, tsr_rng *rng, tsr_image *img, int w, int h, int cn,
                            tsr_depth depth)
{
    CHECK(tsr_image_alloc(ctx, img, w, h, cn, depth) == TSR_OK);
    const int maxv = depth == TSR_U16 ? 65535 : 255;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w * cn; x++) {
            int v = (x * 7 + y * 13) % (maxv + 1) / 2 + tsr_rng_range(rng, 0, maxv / 4);
            v = v > maxv ? maxv : v;
            if (depth == TSR_U16)
                ((uint16_t *)((uint8_t *)img->data + (size_t)y * img->stride))[x] = (uint16_t)v;
            else
                ((uint8_t *)img->data + (size_t)y * img->stride)[x] = (uint8_t)v;
        }
}

/* Encodes a random w x h x cn image (HT or Part 1, lossless or not, tiles of tw x th or none)
 * into the list; with garble, every 5th byte of the stream's second half is random (a corrupt
 * stream: it may decode with warnings or fail). */
static void j2k_batch_encoded(j2k_batch_list *l, tsr_ctx *ctx, tsr_rng *rng, const char *what,
                              int w, int h, int cn, tsr_depth depth, int ht, int lossless,
                              uint32_t tw, uint32_t th, int garble)
{
    tsr_image img;
    j2k_batch_image(ctx, rng, &img, w, h, cn, depth);
    tsr_j2k_encode_options eo;
    tsr_j2k_encode_options_init(&eo);
    eo.ht = ht;
    eo.lossless = lossless;
    if (!lossless)
        eo.quant_step = 1.0f / 128;
    eo.tile_width = tw;
    eo.tile_height = th;
    uint8_t *data = NULL;
    size_t len = 0;
    CHECK(tsr_j2k_encode(ctx, &img, &eo, &data, &len) == TSR_OK);
    if (data && garble && len > 200) /* every 5th byte of the second half, EOC kept */
        for (size_t k = len / 2; k + 8 < len; k += 5)
            data[k] = (uint8_t)tsr_rng_range(rng, 0, 255);
    if (data)
        j2k_batch_add(l, what, data, len, 0);
    tsr_j2k_free(ctx, data);
    tsr_image_free(ctx, &img);
}

static int j2k_batch_host_alloc(tsr_image *img, size_t bytes, int poison)
{
    img->memory = TSR_MEMORY_HOST;
    img->data = malloc(bytes ? bytes : 1);
    if (img->data)
        memset(img->data, poison, bytes);
    return img->data != NULL;
}

/* Decodes the list in one batch on bctx (images from mem, NULL: host) and one by one on rctx
 * (host images); checks as above. Returns the number of items that decoded on both. */
static int j2k_batch_check(tsr_ctx *bctx, tsr_ctx *rctx, const j2k_batch_list *l,
                           const j2k_batch_mem *mem, int same_messages)
{
    const uint32_t n = l->n;
    tsr_j2k_decode_item *items = calloc(n ? n : 1, sizeof *items);
    size_t *bytes = calloc(n ? n : 1, sizeof *bytes);
    if (!items || !bytes) {
        CHECK(0);
        free(items);
        free(bytes);
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        tsr_image desc;
        if (tsr_j2k_decode_image_layout(rctx, l->s[i].data, l->s[i].len, NULL, &desc) != TSR_OK) {
            memset(&desc, 0, sizeof desc); /* no layout (a corrupt header): an 8 x 8 gray image */
            desc.width = desc.height = 8;
            desc.channels = 1;
            desc.depth = TSR_U8;
            desc.stride = 8;
        }
        if (l->s[i].widen) {
            desc.width++;
            desc.stride = (size_t)desc.width * desc.channels * (desc.depth == TSR_U16 ? 2 : 1);
        }
        bytes[i] = desc.stride * (size_t)desc.height;
        items[i].data = l->s[i].data;
        items[i].len = l->s[i].len;
        items[i].image = desc;
        CHECK(mem ? mem->alloc(&items[i].image, bytes[i], 0x3c)
                  : j2k_batch_host_alloc(&items[i].image, bytes[i], 0x3c));
    }
    const tsr_status call = tsr_j2k_decode_images(bctx, NULL, items, n);
    char call_msg[512];
    snprintf(call_msg, sizeof call_msg, "%s", tsr_ctx_last_error(bctx));
    tsr_status first_failed = TSR_OK;
    int decoded = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *what = l->s[i].what;
        tsr_image ref = items[i].image;
        ref.memory = TSR_MEMORY_HOST;
        CHECK(j2k_batch_host_alloc(&ref, bytes[i], 0xa5));
        tsr_j2k_result rr;
        const tsr_status sr =
            tsr_j2k_decode_image(rctx, l->s[i].data, l->s[i].len, NULL, &ref, &rr);
        const tsr_j2k_decode_item *it = &items[i];
        if (!first_failed)
            first_failed = it->status;
        printf("  item %2u %-28s %s, %u warnings%s%s\n", i, what, tsr_status_name(it->status),
               it->result.warnings, it->result.warnings ? ": " : "", it->result.warning);
        if (it->status != sr) {
            printf("FAIL batch item %u (%s): status %s, single decode %s (%s | %s)\n", i, what,
                   tsr_status_name(it->status), tsr_status_name(sr), it->error,
                   tsr_ctx_last_error(rctx));
            CHECK(0);
        } else if (sr != TSR_OK) {
            if (same_messages && strcmp(it->error, tsr_ctx_last_error(rctx))) {
                printf("FAIL batch item %u (%s): message '%s', single decode '%s'\n", i, what,
                       it->error, tsr_ctx_last_error(rctx));
                CHECK(0);
            }
            CHECK(it->error[0] != '\0');
        } else {
            CHECK(it->error[0] == '\0');
            if (it->result.warnings != rr.warnings || it->result.truncated != rr.truncated ||
                strcmp(it->result.warning, rr.warning)) {
                printf("FAIL batch item %u (%s): warnings %u '%s' truncated %d, single decode %u "
                       "'%s' %d\n",
                       i, what, it->result.warnings, it->result.warning, it->result.truncated,
                       rr.warnings, rr.warning, rr.truncated);
                CHECK(0);
            }
            uint8_t *got = mem ? malloc(bytes[i] ? bytes[i] : 1) : (uint8_t *)it->image.data;
            if (mem && got)
                mem->fetch(&it->image, got, bytes[i]);
            if (!got || memcmp(got, ref.data, bytes[i])) {
                size_t k = 0;
                while (got && got[k] == ((uint8_t *)ref.data)[k])
                    k++;
                printf("FAIL batch item %u (%s): image differs at byte %zu of %zu\n", i, what, k,
                       bytes[i]);
                CHECK(0);
            } else {
                decoded++;
            }
            if (mem)
                free(got);
        }
        free(ref.data);
    }
    /* the call's status: the first failed item's, its message naming the item */
    CHECK(call == first_failed);
    if (call != TSR_OK)
        CHECK(strncmp(call_msg, "item ", 5) == 0);
    for (uint32_t i = 0; i < n; i++) {
        if (mem)
            mem->release(&items[i].image);
        else
            free(items[i].image.data);
    }
    free(items);
    free(bytes);
    return decoded;
}

/* The test's list: random encoded images (HT and Part 1, one tile and many), a truncated
 * header, garbled streams and a mismatched image among them, and up to `shared` streams of
 * ../shared/data/j2k/htj2k and conformance whose decode makes an image. */
static void j2k_batch_make_list(j2k_batch_list *l, tsr_ctx *ctx, tsr_rng *rng, int shared)
{
    j2k_batch_encoded(l, ctx, rng, "HT lossless RGB", 257, 131, 3, TSR_U8, 1, 1, 0, 0, 0);
    j2k_batch_encoded(l, ctx, rng, "Part 1 lossy gray 16-bit", 131, 67, 1, TSR_U16, 0, 0, 0, 0, 0);
    j2k_batch_encoded(l, ctx, rng, "HT RGB 5 x 3 tiles", 257, 131, 3, TSR_U8, 1, 1, 64, 64, 0);
    const uint32_t first = l->n;
    j2k_batch_encoded(l, ctx, rng, "truncated header", 64, 64, 3, TSR_U8, 1, 1, 0, 0, 0);
    if (l->n > first)
        l->s[first].len = 40;
    j2k_batch_encoded(l, ctx, rng, "garbled HT tiles", 200, 120, 3, TSR_U8, 1, 1, 48, 48, 1);
    j2k_batch_encoded(l, ctx, rng, "Part 1 RGBA 4 tiles", 130, 90, 4, TSR_U8, 0, 1, 65, 45, 0);
    j2k_batch_encoded(l, ctx, rng, "garbled Part 1", 160, 100, 1, TSR_U8, 0, 1, 0, 0, 1);
    j2k_batch_encoded(l, ctx, rng, "garbled HT one tile", 180, 110, 3, TSR_U8, 1, 0, 0, 0, 1);
    const uint32_t wide = l->n;
    j2k_batch_encoded(l, ctx, rng, "image one pixel too wide", 33, 17, 1, TSR_U8, 1, 1, 0, 0, 0);
    if (l->n > wide)
        l->s[wide].widen = 1;
    j2k_batch_encoded(l, ctx, rng, "HT lossy RGB 16-bit", 99, 77, 3, TSR_U16, 1, 0, 0, 0, 0);
    const char *root = tsr_test_data("j2k");
    static const char *const names[] = {"htj2k/ds0_ht_01_b11.j2k", "htj2k/ds0_ht_02_b11.j2k",
                                        "conformance/p0_01.j2k",   "conformance/p0_03.j2k",
                                        "conformance/p1_02.j2k",   "htj2k/ds0_ht_09_b11.j2k"};
    for (size_t k = 0; root && k < sizeof names / sizeof names[0] && shared > 0; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", root, names[k]);
        size_t len;
        uint8_t *data = tsr_test_read_file(path, &len);
        tsr_image desc;
        if (data && tsr_j2k_decode_image_layout(ctx, data, len, NULL, &desc) == TSR_OK) {
            j2k_batch_add(l, names[k], data, len, 0);
            shared--;
        }
        free(data);
    }
}

#endif
