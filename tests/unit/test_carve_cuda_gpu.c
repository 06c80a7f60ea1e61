/* Seam carving on the CUDA backend (exact mode: carve_cuda.cu through pass_device.c; batch mode:
 * the CPU path) against the single-threaded reference, byte for byte: the configurations of
 * test_carve_backends (random images of many shapes: 1 to 3 columns, tall and thin, wide and
 * short, u8 and u16, 1 to 4 channels, both energies, shrink and enlarge in both directions,
 * every order, with and without masks, object removal, exact and batch; seam overlay and report
 * too), with the CUDA outputs poisoned before each call; plus seam-order maps, larger images
 * (several strips and bands) and a real image from ../shared/data when present. Skips (77)
 * where there is no CUDA device. Prints ms/seam at 1080p/4K/8K: the whole call, and the device
 * pass alone. TSR_TEST_QUICK=1 (compute-sanitizer): a small subset, no timing. */
#include "carve_backend_check.h"

#include "carve/carve_cuda.h"
#include "core/ctx.h"

#include <time.h>

/* Larger images: many 64-column strips and 32-row bands, a handful of seams. */
static void larger(tsr_rng *r)
{
    static const int shapes[][2] = {{1100, 300}, {777, 513}, {300, 1500}};
    for (size_t s = 0; s < (quick ? 1 : sizeof shapes / sizeof shapes[0]); s++)
        for (int e = 0; e < 2; e++) {
            tsr_image src;
            CHECK_OK(ref, tsr_image_alloc(ref, &src, shapes[s][0], shapes[s][1], 3, TSR_U8));
            fill_image(r, &src, (int)s + e);
            tsr_carve_options o;
            tsr_carve_options_init(&o);
            o.energy = (tsr_carve_energy)e;
            o.width = src.width - (quick ? 4 : 40);
            o.height = src.height - (quick ? 1 : 3);
            compare(&src, &o, "larger");
            tsr_image_free(ref, &src);
        }
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Time per seam of the CUDA exact path (50 vertical seams, backward energy), for the tuning
 * session; no assertion. "whole call": tsr_carve (host grid and luma, upload, seams, fetch, host
 * gather of the pixels); "device": tsr__carve_cuda_open (upload, first energy and DP) and the 50
 * seams enqueued and waited for, as pass_device.c runs them. */
static void timing(tsr_rng *r)
{
    static const int sizes[][2] = {{1920, 1080}, {3840, 2160}, {7680, 4320}};
    for (size_t i = 0; i < 3; i++) {
        tsr_image src, dst;
        CHECK_OK(other, tsr_image_alloc(other, &src, sizes[i][0], sizes[i][1], 3, TSR_U8));
        fill_image(r, &src, 2);
        CHECK_OK(other, tsr_image_alloc(other, &dst, sizes[i][0] - 50, sizes[i][1], 3, TSR_U8));
        tsr_carve_options o;
        tsr_carve_options_init(&o);
        o.width = dst.width;
        double t0 = now_ms();
        CHECK_OK(other, tsr_carve(other, &src, &dst, &o));
        double t1 = now_ms();
        tsr_image_free(other, &dst);
        tsr__carve_grid g;
        CHECK_OK(other, tsr__carve_grid_alloc(other, &g, src.width, src.height, src.width, 3,
                                              TSR_U8, 0, 0, 0));
        for (int32_t y = 0; y < g.h; y++)
            for (int32_t x = 0; x < g.w; x++)
                g.luma[(size_t)y * (size_t)g.pitch + (size_t)x] =
                    ((uint8_t *)src.data)[(size_t)y * src.stride + (size_t)x * 3];
        const uint64_t pen[4] = {0, 0, 0, 0};
        tsr__carve_cuda *c = NULL;
        tsr__cc_state st;
        double t2 = now_ms();
        CHECK_OK(other, tsr__carve_cuda_open(other, &g, TSR_CARVE_BACKWARD, pen, 50, 0, 0, &c));
        double t3 = now_ms();
        CHECK_OK(other, tsr__carve_cuda_seams(other, c, 0, 50));
        CHECK_OK(other, tsr__carve_cuda_state(other, c, &st));
        double t4 = now_ms();
        CHECK(st.removed == 50);
        tsr__carve_cuda_close(other, c);
        printf("cuda exact %dx%d: %.3f ms/seam (50 seams, whole call); device: open %.2f ms, "
               "%.4f ms/seam\n",
               sizes[i][0], sizes[i][1], (t1 - t0) / 50.0, t3 - t2, (t4 - t3) / 50.0);
        tsr__carve_grid_free(other, &g);
        tsr_image_free(other, &src);
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
    co.backend = TSR_BACKEND_REFERENCE;
    if (tsr_ctx_create(&co, &ref) != TSR_OK)
        return 1;
    co.backend = TSR_BACKEND_CUDA;
    co.threads = 2;
    if (tsr_ctx_create(&co, &other) != TSR_OK)
        return 1;
    printf("device: %s\n", tsr_ctx_device_name(other));
    const char *q = getenv("TSR_TEST_QUICK");
    quick = q && *q == '1';
    tsr_rng r;
    tsr_rng_seed(&r, 44);
    random_cases(&r);
    if (!quick)
        real_image();
    maps(&r);
    larger(&r);
    fprintf(stderr, "%d cases, %d mismatches\n", cases, mismatches);
    if (mismatches == 0 && !quick)
        timing(&r);
    tsr_ctx_destroy(ref);
    tsr_ctx_destroy(other);
    return tsr_test_finish("test_carve_cuda_gpu");
}
