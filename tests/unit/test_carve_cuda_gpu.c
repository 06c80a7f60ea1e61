/* Seam carving on the CUDA backend (exact and batch mode: carve_cuda.cu through pass_device.c)
 * against the single-threaded reference, byte for byte: the configurations of
 * test_carve_backends (random images of many shapes: 1 to 3 columns, tall and thin, wide and
 * short, u8 and u16, 1 to 4 channels, both energies, shrink and enlarge in both directions,
 * every order, with and without masks, object removal, exact and batch; seam overlay and report
 * too), with the CUDA outputs poisoned before each call; plus seam-order maps, larger images
 * (several strips and bands), the largest keys (largest_keys: the 32-bit keys' bound), a
 * batch-mode sweep (batch_cases, also on the portable kernels of GPUs before sm_90 through
 * tsr__cuda_cap_arch), the optimal order's device transport map (optimal_orders)
 * and a real image from
 * ../shared/data when present. Skips (77) where there is no CUDA device. Prints ms/seam at
 * 1080p/4K/8K: the whole call, and the device pass alone (exact and batch mode). TSR_TEST_QUICK=1
 * (compute-sanitizer): a small subset, no timing. */
#include "carve_backend_check.h"

#include "carve/carve_cuda.h"
#include "core/ctx.h"
#include "cuda/cuda_device.h"

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

/* The optimal order's transport map on the device (order_cuda.cu) against the host's: more
 * rows than columns removed and the reverse, a single row or column, both energies, keep and
 * drop masks, a real image; the seam sequence and so the bytes must match. */
static void optimal_orders(tsr_rng *r)
{
    static const int cases[][4] = {{64, 48, 10, 20},
                                   {150, 90, 30, 12},
                                   {97, 130, 1, 25},
                                   {120, 77, 25, 1},
                                   {300, 200, 16, 16}};
    for (size_t k = 0; k < (quick ? 1 : sizeof cases / sizeof cases[0]); k++)
        for (int t = 0; t < (quick ? 1 : 4); t++) {
            const int w = cases[k][0], h = cases[k][1];
            tsr_image src, keep, drop;
            make_case(r, w, h, 3, TSR_U8, (int)k + t, 3, 3, &src, &keep, &drop);
            tsr_carve_options o;
            tsr_carve_options_init(&o);
            o.order = TSR_CARVE_OPTIMAL;
            o.energy = t & 1 ? TSR_CARVE_FORWARD : TSR_CARVE_BACKWARD;
            o.keep = t == 2 ? &keep : NULL;
            o.drop = t == 3 ? &drop : NULL;
            o.width = w - cases[k][3];
            o.height = h - cases[k][2];
            compare(&src, &o, "optimal order (device map)");
            free_case(&src, &keep, &drop);
        }
    const char *path = quick ? NULL : tsr_test_data("images/chelsea.png");
    tsr_image src;
    if (path && tsr_image_load(ref, path, &src, NULL) == TSR_OK) {
        tsr_carve_options o;
        tsr_carve_options_init(&o);
        o.order = TSR_CARVE_OPTIMAL;
        o.width = src.width - 30;
        o.height = src.height - 20;
        compare(&src, &o, "optimal order (chelsea)");
        tsr_image_free(ref, &src);
    }
}

/* The largest keys: TSR_CARVE_MAX_SIDE rows of 2-pixel stripes both ways (every interior pixel's
 * energy and forward cost at the maximum, 510), so the unmasked DP's 32-bit keys come within a
 * few percent of their bound (510 * 65535 < 2^25, the tag above bit 27): exact and batch, both
 * energies, vertical seams on a tall image and horizontal ones on a wide image. */
static void largest_keys(void)
{
    for (int t = 0; t < (quick ? 1 : 8); t++) {
        const int tall = !(t & 2), w = tall ? 3 + t / 4 : TSR_CARVE_MAX_SIDE;
        const int h = tall ? TSR_CARVE_MAX_SIDE : 3 + t / 4;
        tsr_image src;
        CHECK_OK(ref, tsr_image_alloc(ref, &src, w, h, 1, TSR_U8));
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                ((uint8_t *)src.data)[(size_t)y * src.stride + (size_t)x] =
                    (uint8_t)(((x >> 1) ^ (y >> 1)) & 1 ? 255 : 0);
        tsr_carve_options o;
        tsr_carve_options_init(&o);
        o.energy = t & 1 ? TSR_CARVE_FORWARD : TSR_CARVE_BACKWARD;
        o.mode = t & 4 ? TSR_CARVE_BATCH : TSR_CARVE_EXACT;
        if (tall)
            o.width = 1;
        else
            o.height = 1;
        compare(&src, &o, "largest keys");
        tsr_image_free(ref, &src);
    }
}

/* Batch mode (carve_cuda_batch_kernels.cuh) against the CPU batch path: random shapes, both
 * energies, both directions (width and height, so horizontal passes too), keep and drop masks,
 * object removal, the adaptive and fixed K (up to 300: every form of the trace); plus the kernels'
 * fallbacks: rows too wide for the trace's staged code rows (> ~24K columns), more seams than the
 * trace keeps in shared memory (K > 4096), both at once, and more than the gather stages (K >
 * 8192). */
static void batch_cases(tsr_rng *r)
{
    static const int shapes[][2] = {{2, 1},    {2, 40},   {3, 7},    {3, 300},  {9, 200},
                                    {300, 2},  {700, 5},  {64, 48},  {130, 90}, {257, 33},
                                    {40, 600}, {600, 40}, {1030, 70}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int t = 0; t < 8; t++) {
            const int w = shapes[s][0], h = shapes[s][1];
            if (quick && (s != 7 || t > 3))
                continue;
            tsr_image src, keep, drop;
            make_case(r, w, h, 1 + t % 4, TSR_U8, t + (int)s, 2, 3, &src, &keep, &drop);
            tsr_carve_options o;
            tsr_carve_options_init(&o);
            o.mode = TSR_CARVE_BATCH;
            o.energy = t & 1 ? TSR_CARVE_FORWARD : TSR_CARVE_BACKWARD;
            o.batch_seams = t & 4 ? 1 + (t + (int)s) % 7 : 0;
            o.order = (t / 2) % 2 ? TSR_CARVE_HEIGHT_FIRST : TSR_CARVE_WIDTH_FIRST;
            if (t & 2) {
                o.keep = &keep;
                if (t & 4)
                    o.drop = &drop;
            }
            o.width = (t & 1) && w > 1 ? 1 + w / 4 : w > 1 ? w - 1 - w / 3 : 1;
            o.height = h > 2 ? h - 1 - (t % 3) * h / 4 : 1;
            compare(&src, &o, "batch");
            tsr_carve_options_init(&o);
            o.mode = TSR_CARVE_BATCH;
            o.energy = t & 1 ? TSR_CARVE_FORWARD : TSR_CARVE_BACKWARD;
            o.batch_seams = t & 2 ? 2 : 0;
            o.drop = &drop;
            if (w > 1 && h > 1)
                compare(&src, &o, "batch object removal");
            free_case(&src, &keep, &drop);
        }
    /* passes of 33 to 300 seams: the warp trace with 2, 4 and 8 seams a lane, the block trace
     * past 256 */
    static const int wide_k[] = {33, 100, 129, 256, 300};
    for (int i = 0; i < 5; i++) {
        if (quick && i != 2)
            continue;
        tsr_image src;
        CHECK_OK(ref, tsr_image_alloc(ref, &src, 1100, 40, 3, TSR_U8));
        fill_image(r, &src, i);
        tsr_carve_options o;
        tsr_carve_options_init(&o);
        o.mode = TSR_CARVE_BATCH;
        o.energy = i & 1 ? TSR_CARVE_FORWARD : TSR_CARVE_BACKWARD;
        o.batch_seams = wide_k[i];
        o.width = 1100 - 2 * wide_k[i] - i;
        compare(&src, &o, "batch warp trace");
        tsr_image_free(ref, &src);
    }
    /* halves of several segments (the DP's restarts and the joins): tall images */
    static const int tall[][2] = {{700, 2100}, {300, 5000}};
    for (size_t s = 0; s < (quick ? 1 : 2); s++)
        for (int e = 0; e < 2; e++) {
            tsr_image src;
            CHECK_OK(ref, tsr_image_alloc(ref, &src, tall[s][0], tall[s][1], 3, TSR_U8));
            fill_image(r, &src, (int)s + e + 1);
            tsr_carve_options o;
            tsr_carve_options_init(&o);
            o.mode = TSR_CARVE_BATCH;
            o.energy = (tsr_carve_energy)e;
            o.width = tall[s][0] - 40;
            compare(&src, &o, "batch segments");
            tsr_image_free(ref, &src);
        }
    static const int big[][3] = {
        {24100, 20, 0}, {9000, 6, 5000}, {9000, 4, 8500}, {26000, 4, 4200}};
    for (size_t s = 0; s < (quick ? 0 : sizeof big / sizeof big[0]); s++)
        for (int e = 0; e < 2; e++) {
            tsr_image src;
            CHECK_OK(ref, tsr_image_alloc(ref, &src, big[s][0], big[s][1], 3, TSR_U8));
            fill_image(r, &src, (int)s + e);
            tsr_carve_options o;
            tsr_carve_options_init(&o);
            o.mode = TSR_CARVE_BATCH;
            o.energy = (tsr_carve_energy)e;
            o.batch_seams = big[s][2];
            o.width = big[s][2] ? big[s][0] - big[s][2] - 7 : big[s][0] - 900;
            compare(&src, &o, "batch fallbacks");
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
        /* batch mode, the adaptive K: 50 seams, and passes removing a quarter of the width */
        for (int32_t n = 50; n > 0; n = n == 50 ? g.w / 4 : 0) {
            const int32_t kmax = tsr__carve_batch_k(g.w, n, 0);
            double b0 = now_ms();
            CHECK_OK(other, tsr__carve_cuda_open_batch(other, &g, TSR_CARVE_BACKWARD, pen, n, kmax,
                                                       0, 0, &c));
            double b1 = now_ms();
            int32_t w = g.w, done = 0, passes = 0;
            while (done < n) {
                const int32_t k = tsr__carve_batch_k(w, n - done, 0);
                CHECK_OK(other, tsr__carve_cuda_batch(other, c, w, k, done, done + k < n));
                done += k;
                w -= k;
                passes++;
            }
            CHECK_OK(other, tsr__carve_cuda_state(other, c, &st));
            double b2 = now_ms();
            /* the device's own time, the first DP included (events: tsr_carve_report.device_ms) */
            uint16_t *rec = malloc(sizeof *rec * (size_t)n * (size_t)g.h);
            double dev = 0;
            CHECK_OK(other, tsr__carve_cuda_fetch(other, c, n, rec));
            CHECK_OK(other, tsr__carve_cuda_device_ms(other, c, &dev));
            free(rec);
            tsr__carve_cuda_close(other, c);
            printf("cuda batch %dx%d: %d seams in %d passes: device: open %.2f ms, %.4f ms/seam "
                   "(%.3f ms/pass); events from the first DP: %.4f ms/seam\n",
                   sizes[i][0], sizes[i][1], (int)n, (int)passes, b1 - b0, (b2 - b1) / n,
                   (b2 - b1) / passes, dev / n);
        }
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
    quick = tsr_test_quick();
    tsr_rng r;
    tsr_rng_seed(&r, 44);
    random_cases(&r);
    if (!quick)
        real_image();
    maps(&r);
    larger(&r);
    largest_keys();
    batch_cases(&r);
    /* the batch sweep again on the portable kernels, as a GPU before sm_90 runs them */
    tsr_ctx *native = other;
    if (tsr_ctx_create(&co, &other) != TSR_OK)
        return 1;
    tsr__cuda_cap_arch(other, 80);
    batch_cases(&r);
    tsr_ctx_destroy(other);
    other = native;
    optimal_orders(&r);
    fprintf(stderr, "%d cases, %d mismatches\n", cases, mismatches);
    if (mismatches == 0 && !quick)
        timing(&r);
    tsr_ctx_destroy(ref);
    tsr_ctx_destroy(other);
    return tsr_test_finish("test_carve_cuda_gpu");
}
