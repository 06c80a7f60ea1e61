/* Core: status list, backends, context options, allocator hooks, limits, image descriptors. */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include "core/backend.h"
#include "core/checked.h"
#include "core/copy_rows.h"
#include "core/ctx.h"
#include "core/names.h"

#include <stdlib.h>
#include <string.h>

static void test_status(void)
{
    for (int s = 0; s < TSR_STATUS_COUNT; s++) {
        CHECK(strlen(tsr_strerror((tsr_status)s)) > 0);
        CHECK(strncmp(tsr_status_name((tsr_status)s), "TSR_", 4) == 0);
        for (int t = 0; t < s; t++)
            CHECK(strcmp(tsr_status_name((tsr_status)s), tsr_status_name((tsr_status)t)) != 0);
    }
    CHECK(strcmp(tsr_status_name(TSR_ERR_CORRUPT), "TSR_ERR_CORRUPT") == 0);
    CHECK(strcmp(tsr_strerror(TSR_STATUS_COUNT), "unknown status") == 0);
    CHECK(strcmp(tsr_strerror((tsr_status)-1), "unknown status") == 0);
    CHECK(strcmp(tsr_version(), TSR_VERSION_STRING) == 0);
}

static void free_hook(void *user, void *ptr)
{
    (void)user;
    free(ptr);
}

static void test_backends(void)
{
    const tsr_backend all[] = {TSR_BACKEND_AUTO, TSR_BACKEND_CPU, TSR_BACKEND_REFERENCE,
                               TSR_BACKEND_CUDA, TSR_BACKEND_OPENCL};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        tsr_backend b;
        CHECK_STATUS(tsr_backend_parse(tsr_backend_name(all[i]), &b), TSR_OK);
        CHECK(b == all[i]);
    }
    tsr_backend b;
    CHECK_STATUS(tsr_backend_parse("gpu", &b), TSR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(tsr_backend_parse(NULL, &b), TSR_ERR_INVALID_ARGUMENT);
    CHECK(tsr_backend_available(TSR_BACKEND_CPU));
    CHECK(tsr_backend_available(TSR_BACKEND_REFERENCE));
    /* Device counts: the host backends have no device ordinal; a device backend is available
     * exactly where it has a device. */
    CHECK(tsr_backend_device_count(TSR_BACKEND_CPU) == 0);
    CHECK(tsr_backend_device_count(TSR_BACKEND_REFERENCE) == 0);
    CHECK(tsr_backend_device_count(TSR_BACKEND_AUTO) == 0);
    CHECK((tsr_backend_device_count(TSR_BACKEND_CUDA) > 0) ==
          tsr_backend_available(TSR_BACKEND_CUDA));
    CHECK((tsr_backend_device_count(TSR_BACKEND_OPENCL) > 0) ==
          tsr_backend_available(TSR_BACKEND_OPENCL));

    /* Asking for a device backend where there is none is a clear error, never a silent CPU. */
    if (!tsr_backend_available(TSR_BACKEND_CUDA)) {
        tsr_ctx_options opt;
        tsr_ctx_options_init(&opt);
        opt.backend = TSR_BACKEND_CUDA;
        tsr_ctx *ctx = NULL;
        CHECK_STATUS(tsr_ctx_create(&opt, &ctx), TSR_ERR_NO_BACKEND);
        CHECK(ctx != NULL && strstr(tsr_ctx_last_error(ctx), "CUDA") != NULL);
        tsr_ctx_destroy(ctx);
    }
    /* auto never fails, and resolves to a concrete backend. */
    tsr_ctx *ctx = NULL;
    CHECK_OK(ctx, tsr_ctx_create(NULL, &ctx));
    CHECK(tsr_ctx_backend(ctx) != TSR_BACKEND_AUTO);
    CHECK(strlen(tsr_ctx_device_name(ctx)) > 0);
    CHECK(tsr_ctx_threads(ctx) >= 1);
    tsr_ctx_destroy(ctx);
    /* the threads asked for are the threads used, and the device line says so */
    tsr_ctx_options three;
    tsr_ctx_options_init(&three);
    three.backend = TSR_BACKEND_CPU;
    three.threads = 3;
    CHECK_OK(ctx, tsr_ctx_create(&three, &ctx));
    CHECK(tsr_ctx_threads(ctx) == 3 || tsr_ctx_threads(ctx) == 1); /* 1: a build without OpenMP */
    CHECK(tsr_ctx_threads(ctx) != 3 || strstr(tsr_ctx_device_name(ctx), "3 threads") != NULL);
    tsr_ctx_destroy(ctx);

    tsr_ctx_options bad;
    tsr_ctx_options_init(&bad);
    bad.threads = -1;
    CHECK_STATUS(tsr_ctx_create(&bad, &ctx), TSR_ERR_INVALID_ARGUMENT);
    CHECK(ctx == NULL);
    tsr_ctx_options_init(&bad);
    bad.allocator.alloc = NULL;
    bad.allocator.free = free_hook; /* one hook without the other */
    CHECK_STATUS(tsr_ctx_create(&bad, &ctx), TSR_ERR_INVALID_ARGUMENT);
}

/* The one rule of backend choice (core/backend.h): an explicit request the operation does not
 * offer is TSR_ERR_NO_BACKEND naming the operation; auto takes the operation's pick and reason;
 * a device pick where none can be used runs on the CPU and says so. */
static void test_backend_choice(void)
{
    const unsigned host =
        TSR__BACKEND_BIT(TSR_BACKEND_CPU) | TSR__BACKEND_BIT(TSR_BACKEND_REFERENCE);
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    tsr_ctx *ctx = NULL;
    CHECK_OK(ctx, tsr_ctx_create(&opt, &ctx));
    CHECK(tsr_ctx_backend(ctx) == TSR_BACKEND_CPU); /* auto opens nothing at creation */
    CHECK(ctx->cuda == NULL && ctx->opencl == NULL);
    tsr_backend b = TSR_BACKEND_AUTO;
    CHECK_OK(ctx, tsr__backend_choose(ctx, "op", host, TSR_BACKEND_REFERENCE, "small", &b));
    CHECK(b == TSR_BACKEND_REFERENCE && strcmp(tsr_ctx_backend_reason(ctx), "small") == 0);
    CHECK(tsr_ctx_backend(ctx) == TSR_BACKEND_REFERENCE);
    if (!tsr_backend_available(TSR_BACKEND_CUDA)) {
        CHECK_OK(ctx, tsr__backend_choose(ctx, "op", host | TSR__BACKEND_BIT(TSR_BACKEND_CUDA),
                                          TSR_BACKEND_CUDA, "large", &b));
        CHECK(b == TSR_BACKEND_CPU && strstr(tsr_ctx_backend_reason(ctx), "no usable CUDA"));
        CHECK(!ctx->failed && ctx->message[0] == '\0');
    }
    tsr_ctx_destroy(ctx);
    opt.backend = TSR_BACKEND_REFERENCE;
    CHECK_OK(ctx, tsr_ctx_create(&opt, &ctx));
    CHECK_STATUS(tsr__backend_choose(ctx, "carve", TSR__BACKEND_BIT(TSR_BACKEND_CPU),
                                     TSR_BACKEND_CPU, "x", &b),
                 TSR_ERR_NO_BACKEND);
    CHECK(strstr(tsr_ctx_last_error(ctx), "carve has no reference backend") != NULL);
    CHECK_OK(ctx, tsr__backend_choose(ctx, "op", host, TSR_BACKEND_CPU, "x", &b));
    CHECK(b == TSR_BACKEND_REFERENCE && strcmp(tsr_ctx_backend_reason(ctx), "asked for") == 0);
    tsr_ctx_destroy(ctx);

    static const char *const names[] = {"zero", NULL, "two"};
    int v = -1;
    CHECK(strcmp(tsr__name_of(names, TSR__NAMES_COUNT(names), 2, "?"), "two") == 0);
    CHECK(strcmp(tsr__name_of(names, TSR__NAMES_COUNT(names), 1, "?"), "?") == 0);
    CHECK(strcmp(tsr__name_of(names, TSR__NAMES_COUNT(names), -1, "?"), "?") == 0);
    CHECK(tsr__name_parse(names, TSR__NAMES_COUNT(names), "two", &v) == TSR_OK && v == 2);
    CHECK(tsr__name_parse(names, TSR__NAMES_COUNT(names), "one", &v) == TSR_ERR_INVALID_ARGUMENT);
}

/* tsr__copy_rows on 1 and 4 threads, strided and packed, small and over a MiB: every byte of
 * every row lands, and nothing outside the rows is written. */
static void test_copy_rows(void)
{
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    for (int threads = 1; threads <= 4; threads += 3) {
        opt.threads = threads;
        tsr_ctx *ctx = NULL;
        CHECK_OK(ctx, tsr_ctx_create(&opt, &ctx));
        static const size_t shapes[][3] = {{7, 3, 0}, {5000, 700, 0}, {5000, 700, 13}, {1, 1, 1}};
        for (size_t s = 0; s < 4; s++) {
            const size_t rb = shapes[s][0], rows = shapes[s][1], pad = shapes[s][2];
            unsigned char *src = malloc((rb + pad) * rows), *dst = malloc((rb + 2 * pad) * rows);
            for (size_t i = 0; i < (rb + pad) * rows; i++)
                src[i] = (unsigned char)(i * 7 + 3);
            memset(dst, 0xa5, (rb + 2 * pad) * rows);
            tsr__copy_rows(ctx, dst, rb + 2 * pad, src, rb + pad, rb, rows);
            int same = 1;
            for (size_t y = 0; y < rows; y++) {
                same &= memcmp(dst + y * (rb + 2 * pad), src + y * (rb + pad), rb) == 0;
                for (size_t i = rb; i < rb + 2 * pad; i++)
                    same &= dst[y * (rb + 2 * pad) + i] == 0xa5;
            }
            CHECK(same);
            free(src);
            free(dst);
        }
        tsr_ctx_destroy(ctx);
    }
}

typedef struct counting {
    int allocs, frees, fail_at;
} counting;

static void *counting_alloc(void *user, size_t size, size_t align)
{
    counting *c = user;
    if (c->fail_at && c->allocs + 1 == c->fail_at)
        return NULL;
    c->allocs++;
    void *p = NULL;
    return posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size) ? NULL : p;
}

static void counting_free(void *user, void *ptr)
{
    ((counting *)user)->frees++;
    free(ptr);
}

static void test_allocator_and_limits(void)
{
    counting c = {0, 0, 0};
    tsr_ctx_options opt;
    tsr_ctx_options_init(&opt);
    opt.backend = TSR_BACKEND_CPU;
    opt.allocator.alloc = counting_alloc;
    opt.allocator.free = counting_free;
    opt.allocator.user = &c;
    opt.max_image_pixels = 1000;
    opt.max_memory = 4000;
    tsr_ctx *ctx = NULL;
    CHECK_OK(ctx, tsr_ctx_create(&opt, &ctx));
    tsr_image img;
    CHECK_OK(ctx, tsr_image_alloc(ctx, &img, 10, 10, 3, TSR_U8));
    CHECK(img.stride == 30 && img.data != NULL && img.memory == TSR_MEMORY_HOST);
    tsr_image_free(ctx, &img);
    CHECK(img.data == NULL);
    CHECK_STATUS(tsr_image_alloc(ctx, &img, 100, 11, 1, TSR_U8), TSR_ERR_LIMIT);
    CHECK(strstr(tsr_ctx_last_error(ctx), "limit") != NULL);
    CHECK_STATUS(tsr_image_alloc(ctx, &img, 30, 30, 4, TSR_F32), TSR_ERR_LIMIT); /* 14400 B */
    tsr_ctx_destroy(ctx);
    CHECK(c.allocs == c.frees);

    /* Every allocation failing in turn gives a clean out-of-memory status. */
    c = (counting){0, 0, 2};
    opt.max_memory = 0;
    CHECK_STATUS(tsr_ctx_create(&opt, &ctx), TSR_OK);
    CHECK_STATUS(tsr_image_alloc(ctx, &img, 10, 10, 1, TSR_U8), TSR_ERR_OUT_OF_MEMORY);
    tsr_ctx_destroy(ctx);
    CHECK(c.allocs == c.frees);
    c = (counting){0, 0, 1};
    CHECK_STATUS(tsr_ctx_create(&opt, &ctx), TSR_ERR_OUT_OF_MEMORY);
    CHECK(ctx == NULL);
}

static void test_image_check(void)
{
    tsr_ctx *ctx = NULL;
    CHECK_OK(ctx, tsr_ctx_create(NULL, &ctx));
    unsigned char buf[64];
    tsr_image ok = {4, 4, 1, TSR_U8, 4, buf, TSR_MEMORY_HOST};
    CHECK_OK(ctx, tsr_image_check(ctx, &ok));
    tsr_image t = ok;
    t.width = 0;
    CHECK_STATUS(tsr_image_check(ctx, &t), TSR_ERR_INVALID_ARGUMENT);
    t = ok;
    t.channels = 5;
    CHECK_STATUS(tsr_image_check(ctx, &t), TSR_ERR_UNSUPPORTED);
    t = ok;
    t.depth = (tsr_depth)3;
    CHECK_STATUS(tsr_image_check(ctx, &t), TSR_ERR_UNSUPPORTED);
    t = ok;
    t.stride = 3;
    CHECK_STATUS(tsr_image_check(ctx, &t), TSR_ERR_INVALID_ARGUMENT);
    t = ok;
    t.data = NULL;
    CHECK_STATUS(tsr_image_check(ctx, &t), TSR_ERR_INVALID_ARGUMENT);
    /* u16/f32 rows: stride and address multiples of the sample size */
    uint32_t wbuf[64];
    tsr_image w = {2, 2, 1, TSR_U16, 6, wbuf, TSR_MEMORY_HOST};
    CHECK_OK(ctx, tsr_image_check(ctx, &w));
    w.stride = 5;
    CHECK_STATUS(tsr_image_check(ctx, &w), TSR_ERR_INVALID_ARGUMENT);
    w.stride = 6;
    w.data = (unsigned char *)wbuf + 1;
    CHECK_STATUS(tsr_image_check(ctx, &w), TSR_ERR_INVALID_ARGUMENT);
    w = (tsr_image){2, 2, 1, TSR_F32, 10, wbuf, TSR_MEMORY_HOST};
    CHECK_STATUS(tsr_image_check(ctx, &w), TSR_ERR_INVALID_ARGUMENT);
    t = ok;
    t.width = INT32_MAX;
    t.height = INT32_MAX;
    CHECK(tsr_image_check(ctx, &t) != TSR_OK);
    CHECK_STATUS(tsr_image_alloc(ctx, &t, INT32_MAX, 3, 4, TSR_F32), TSR_ERR_LIMIT);
    CHECK_STATUS(tsr_image_alloc(ctx, &t, 4, 4, 0, TSR_U8), TSR_ERR_UNSUPPORTED);
    CHECK(tsr_depth_size(TSR_U16) == 2 && tsr_depth_size((tsr_depth)7) == 0);

    /* A poisoned context refuses further work and keeps the message that poisoned it. */
    tsr__fail(ctx, TSR_ERR_DEVICE, "device lost");
    tsr__poison(ctx);
    CHECK_STATUS(tsr_image_alloc(ctx, &t, 4, 4, 1, TSR_U8), TSR_ERR_BAD_STATE);
    CHECK(strcmp(tsr_ctx_last_error(ctx), "device lost") == 0);
    tsr_ctx_destroy(ctx);
}

static void test_checked(void)
{
    size_t r = 7;
    CHECK(tsr__size_mul(3, 5, &r) && r == 15);
    CHECK(!tsr__size_mul(SIZE_MAX / 2 + 1, 2, &r) && r == 15);
    CHECK(!tsr__size_add(SIZE_MAX, 1, &r));
    CHECK(tsr__size_mul3(2, 3, 4, &r) && r == 24);
    CHECK(!tsr__size_mul3((size_t)1 << 40, (size_t)1 << 20, 1 << 10, &r));
}

int main(void)
{
    test_status();
    test_backends();
    test_backend_choice();
    test_copy_rows();
    test_allocator_and_limits();
    test_image_check();
    test_checked();
    return tsr_test_finish("test_core");
}
