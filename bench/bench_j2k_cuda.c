/* bench_j2k_cuda: JPEG 2000 decoding on the CUDA backend beside the CPU backend, same files, same
 * run. Inputs: bench_j2k's frames (tsr_bench_make_frame from
 * ../shared/data/images/desert_mesa_4611x8192.jpg, RGB 8-bit) encoded by tessera itself as HT
 * lossless, HT lossy (quantisation step 1/128 of the range), Part 1 lossless and Part 1 lossy at
 * 2 bits per pixel (5 levels, 64x64 code-blocks, one tile).
 *
 * Columns (library calls on the file already in memory; medians over --repeats):
 *   cpu ms       tsr_j2k_decode_image into a host image, --threads threads
 *   cuda h2h ms  the same on the CUDA backend: the file's code-blocks up, the image down
 *   cuda dev ms  into a device image (device-resident output; the file still comes from host
 *                memory, as from a reader)
 *   PCIe floor   (file bytes + image bytes) / 55 GB/s, the pinned copy rate of the H200 host
 *                (bench/results/resize-h200-2026-12-02-staging.md): what host-to-host cannot beat
 * Every CUDA decode is checked against the CPU's image once (bytes equal) before timing.
 *
 * Usage: bench_j2k_cuda [--sizes 2k,4k,8k] [--threads N (0: all cores)] [--repeats N] [--json F] */
#include "harness.h"
#include "tessera/tessera.h"

#ifdef TSR_HAVE_CUDA
#include <cuda_runtime.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct job {
    tsr_ctx *ctx;
    const uint8_t *data;
    size_t len;
    tsr_image *img;
} job;

static int run_decode(void *user, int iter, double *us)
{
    (void)iter;
    (void)us;
    job *j = user;
    return tsr_j2k_decode_image(j->ctx, j->data, j->len, NULL, j->img, NULL) != TSR_OK;
}

typedef struct coding {
    const char *name;
    int ht, lossless;
    double rate;
    float qstep;
} coding;

int main(int argc, char **argv)
{
    tsr_bench_j2k_args args = {NULL, "0", "4k", NULL, NULL, NULL, 10, 1};
    if (tsr_bench_j2k_parse(argc, argv, "sizes threads repeats json", &args))
        return 2;
    const char *sizes_arg = args.sizes, *json = args.json;
    const int threads = atoi(args.threads), repeats = args.repeats;
#ifndef TSR_HAVE_CUDA
    (void)json;
    printf("bench_j2k_cuda: built without CUDA: nothing to compare\n");
    return 0;
#else
    if (!tsr_backend_available(TSR_BACKEND_CUDA)) {
        printf("bench_j2k_cuda: no CUDA device: nothing to compare\n");
        return 0;
    }
    tsr_ctx_options co;
    tsr_ctx_options_init(&co);
    co.backend = TSR_BACKEND_CPU;
    co.threads = threads;
    tsr_ctx *cpu, *gpu;
    if (tsr_ctx_create(&co, &cpu) != TSR_OK)
        return 1;
    co.backend = TSR_BACKEND_CUDA;
    if (tsr_ctx_create(&co, &gpu) != TSR_OK) {
        fprintf(stderr, "cuda context: %s\n", tsr_ctx_last_error(cpu));
        return 1;
    }
    const char *root = getenv("TSR_DATA") ? getenv("TSR_DATA") : "../shared/data";
    char srcpath[1024];
    snprintf(srcpath, sizeof srcpath, "%s/images/desert_mesa_4611x8192.jpg", root);
    tsr_image src;
    if (tsr_image_load(cpu, srcpath, &src, NULL) != TSR_OK) {
        fprintf(stderr, "cannot load %s (set TSR_DATA): %s\n", srcpath, tsr_ctx_last_error(cpu));
        return 1;
    }
    static const coding codings[] = {{"HT lossless", 1, 1, 0, 0},
                                     {"HT lossy q 1/128", 1, 0, 0, 1.0f / 128},
                                     {"Part 1 lossless", 0, 1, 0, 0},
                                     {"Part 1 lossy 2 bpp", 0, 0, 2.0, 0}};
    const tsr_bench_frame_size *all_sizes = tsr_bench_frame_sizes;
    printf("host: %s; device: %s; %d repeats\n", tsr_bench_host_description(),
           tsr_ctx_device_name(gpu), repeats);
    const char *hdr[] = {"frame",   "coding",  "file MB", "cpu ms",  "cuda h2h ms",   "cuda dev ms",
                         "h2h fps", "dev fps", "cpu/h2h", "cpu/dev", "PCIe floor ms", "h2h/floor"};
    tsr_bench_table *t = tsr_bench_table_new("tsr_j2k_decode_image, CPU and CUDA", 12, hdr);
    int fails = 0;
    for (size_t si = 0; si < TSR_BENCH_FRAME_SIZES; si++) {
        if (!strstr(sizes_arg, all_sizes[si].name))
            continue;
        const int w = all_sizes[si].w, h = all_sizes[si].h;
        char ppm[256];
        snprintf(ppm, sizeof ppm, "/tmp/bench_j2k_cuda_%s.ppm", all_sizes[si].name);
        if (tsr_bench_make_frame(cpu, &src, w, h, ppm))
            return 1;
        tsr_image frame;
        if (tsr_image_load(cpu, ppm, &frame, NULL) != TSR_OK)
            return 1;
        for (size_t ci = 0; ci < sizeof codings / sizeof codings[0]; ci++) {
            const coding *c = &codings[ci];
            tsr_j2k_encode_options eo;
            tsr_j2k_encode_options_init(&eo);
            eo.ht = c->ht;
            eo.lossless = c->lossless;
            if (c->qstep > 0)
                eo.quant_step = c->qstep;
            if (c->rate > 0) {
                eo.num_rates = 1;
                eo.rates[0] = c->rate;
            }
            uint8_t *data;
            size_t len;
            if (tsr_j2k_encode(cpu, &frame, &eo, &data, &len) != TSR_OK) {
                fprintf(stderr, "encode %s: %s\n", c->name, tsr_ctx_last_error(cpu));
                return 1;
            }
            tsr_image ref, out, dev;
            tsr_image_alloc(cpu, &ref, w, h, 3, TSR_U8);
            tsr_image_alloc(cpu, &out, w, h, 3, TSR_U8);
            dev = out;
            dev.memory = TSR_MEMORY_CUDA;
            if (cudaMalloc(&dev.data, out.stride * (size_t)h) != cudaSuccess)
                return 1;
            job jc = {cpu, data, len, &ref}, jh = {gpu, data, len, &out},
                jd = {gpu, data, len, &dev};
            int bad = run_decode(&jc, 0, NULL) || run_decode(&jh, 0, NULL);
            if (!bad) {
                memset(out.data, 0x33, out.stride * (size_t)h);
                bad = run_decode(&jh, 0, NULL) || memcmp(ref.data, out.data, out.stride * h);
            }
            if (!bad) {
                cudaMemset(dev.data, 0x44, dev.stride * (size_t)h);
                bad = run_decode(&jd, 0, NULL) ||
                      cudaMemcpy(out.data, dev.data, out.stride * (size_t)h,
                                 cudaMemcpyDeviceToHost) != cudaSuccess ||
                      memcmp(ref.data, out.data, out.stride * h);
            }
            if (bad) {
                fprintf(stderr, "%s %s: the CUDA decode failed or differs from the CPU's (%s)\n",
                        all_sizes[si].name, c->name, tsr_ctx_last_error(gpu));
                fails++;
            } else {
                tsr_bench_stats sc, sh, sd;
                tsr_bench_measure(run_decode, &jc, 1, repeats, &sc);
                tsr_bench_measure(run_decode, &jh, 1, repeats, &sh);
                tsr_bench_measure(run_decode, &jd, 1, repeats, &sd);
                const double floor_ms = ((double)len + (double)out.stride * h) / 55e9 * 1e3;
                const double mc = sc.median_us / 1e3, mh = sh.median_us / 1e3,
                             md = sd.median_us / 1e3;
                const char *row[] = {all_sizes[si].name,
                                     c->name,
                                     tsr_bench_fmt("%.2f", len / 1e6),
                                     tsr_bench_fmt("%.2f", mc),
                                     tsr_bench_fmt("%.2f", mh),
                                     tsr_bench_fmt("%.2f", md),
                                     tsr_bench_fmt("%.0f", 1e3 / mh),
                                     tsr_bench_fmt("%.0f", 1e3 / md),
                                     tsr_bench_fmt("%.2f", mc / mh),
                                     tsr_bench_fmt("%.2f", mc / md),
                                     tsr_bench_fmt("%.3f", floor_ms),
                                     tsr_bench_fmt("%.1f", mh / floor_ms)};
                tsr_bench_table_row(t, row);
            }
            cudaFree(dev.data);
            tsr_image_free(cpu, &ref);
            tsr_image_free(cpu, &out);
            tsr_j2k_free(cpu, data);
        }
        tsr_image_free(cpu, &frame);
    }
    tsr_bench_table_print(t, stdout);
    if (json) {
        const char *meta[] = {"host", tsr_bench_host_description(), NULL};
        tsr_bench_json_write(json, "bench_j2k_cuda", meta, &t, 1);
    }
    tsr_bench_table_free(t);
    tsr_image_free(cpu, &src);
    tsr_ctx_destroy(gpu);
    tsr_ctx_destroy(cpu);
    return fails ? 1 : 0;
#endif
}
