/* 3D migration on a machine with a CUDA device (skipped without one): the cuda backend has no 3D
 * kernel, so a context asking for cuda gets TSR_ERR_UNSUPPORTED from tsr_migrate_image and
 * tsr_migrate_model on a 3D model, with a message that says so and names the backends that run
 * it, and leaves the image untouched (poisoned with NaN before: still NaN); auto takes cpu for
 * the same 3D call (tsr_ctx_backend says so) and gives, bit for bit, the cpu context's image
 * (both one thread); the same cuda context still migrates a 2D model. */
#include "cuda/cuda_device.h"
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NX = 16, NY = 12, NZ = 10, NT = 64 };

static tsr_ctx *make_ctx(tsr_backend b)
{
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = b;
    o.threads = 1;
    tsr_ctx *ctx = NULL;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK) {
        tsr_ctx_destroy(ctx);
        return NULL;
    }
    return ctx;
}

int main(void)
{
    if (tsr__cuda_device_count() < 1) {
        printf("test_migrate3d_cuda_gpu: no CUDA device; skipping\n");
        return TSR_TEST_SKIP;
    }
    tsr_ctx *cu = make_ctx(TSR_BACKEND_CUDA), *au = make_ctx(TSR_BACKEND_AUTO),
            *cpu = make_ctx(TSR_BACKEND_CPU);
    CHECK(cu && au && cpu);
    if (!cu || !au || !cpu)
        return tsr_test_finish("test_migrate3d_cuda_gpu");
    static float vel[NX * NY * NZ], trace[NT], a[NX * NY * NZ], b[NX * NY * NZ];
    for (int i = 0; i < NX * NY * NZ; i++)
        vel[i] = (float)(2000 + 400 * (i % NZ >= NZ / 2));
    trace[20] = 1;
    tsr_migrate_grid v = {NX, NZ, 10, 10, 0, 0, vel}, ia = {NX, NZ, 10, 10, 0, 0, a}, ib = ia;
    v.ny = ia.ny = ib.ny = NY;
    v.dy = ia.dy = ib.dy = 10;
    ib.data = b;
    double gx = 80, gy = 60;
    tsr_migrate_shot shot = {80, 60, 1, &gx, trace, &gy};
    tsr_migrate_gather g = {NT, 0.004, 0, 1, &shot};
    tsr_migrate_options opt;
    tsr_migrate_options_init(&opt);
    for (int i = 0; i < NX * NY * NZ; i++)
        a[i] = b[i] = NAN;
    CHECK_STATUS(tsr_migrate_image(cu, &v, &g, &opt, &ia), TSR_ERR_UNSUPPORTED);
    printf("cuda, 3D: %s\n", tsr_ctx_last_error(cu));
    CHECK(strstr(tsr_ctx_last_error(cu), "2D models only") != NULL);
    CHECK(isnan(a[0]) && isnan(a[NX * NY * NZ - 1]));
    opt.f0 = 15;
    CHECK_STATUS(tsr_migrate_model(cu, &v, NULL, &opt, &g), TSR_ERR_UNSUPPORTED);
    opt.f0 = 0;
    CHECK_OK(au, tsr_migrate_image(au, &v, &g, &opt, &ia));
    CHECK(tsr_ctx_backend(au) == TSR_BACKEND_CPU);
    printf("auto, 3D: %s (%s)\n", tsr_backend_name(tsr_ctx_backend(au)),
           tsr_ctx_backend_reason(au));
    CHECK_OK(cpu, tsr_migrate_image(cpu, &v, &g, &opt, &ib));
    CHECK(memcmp(a, b, sizeof a) == 0);
    /* the cuda context still migrates the model's first inline as a 2D model */
    tsr_migrate_grid v2 = {NX, NZ, 10, 10, 0, 0, vel}, i2 = {NX, NZ, 10, 10, 0, 0, a};
    CHECK_OK(cu, tsr_migrate_image(cu, &v2, &g, &opt, &i2));
    CHECK(tsr_ctx_backend(cu) == TSR_BACKEND_CUDA);
    tsr_ctx_destroy(cu);
    tsr_ctx_destroy(au);
    tsr_ctx_destroy(cpu);
    return tsr_test_finish("test_migrate3d_cuda_gpu");
}
