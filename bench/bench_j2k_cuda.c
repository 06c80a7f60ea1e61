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
 * Second table, sequences: tsr_j2k_decode_images over --frames frames (default 64), the same
 * file repeated (one frame's stream, N items: every item does the whole decode, so this is the
 * pipeline's rate, not a cache effect: nothing is kept between items but the buffers), each item
 * its own output image (host, or device), every image checked against the CPU's once:
 *   seq h2h fps / seq dev fps   frames per second over the call (median of max(3, repeats / 3)
 *                               calls), host images / device images
 *   h2h gain, dev gain          against the single-frame decodes of the first table
 *   PCIe floor fps              1 / the first table's floor (file up + image down at 55 GB/s)
 *   h2h/floor                   the fraction of that floor that the host-to-host sequence reaches
 *
 * Usage: bench_j2k_cuda [--sizes 2k,4k,8k] [--threads N (0: all cores)] [--repeats N]
 *                       [--frames N] [--json F] */
#include "harness.h"
#include "tessera/tessera.h"

#ifdef TSR_HAVE_CUDA
#include <cuda_runtime.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TSR_HAVE_CUDA /* the helpers below need the runtime; main says what a build without it does \
                      */
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

/* A sequence: count items through one tsr_j2k_decode_images call. */
typedef struct seq_job {
    tsr_ctx *ctx;
    tsr_j2k_decode_item *items;
    uint32_t count;
} seq_job;

static int run_sequence(void *user, int iter, double *us)
{
    (void)iter;
    (void)us;
    seq_job *j = user;
    return tsr_j2k_decode_images(j->ctx, NULL, j->items, j->count) != TSR_OK;
}

/* count items of the stream into host images (device 0) or device images (device 1) of w x h
 * RGB 8-bit, poisoned; 0, or 1 when memory runs out. */
static int seq_items(tsr_ctx *ctx, tsr_j2k_decode_item *items, uint32_t count, const uint8_t *data,
                     size_t len, int w, int h, int device)
{
    memset(items, 0, count * sizeof *items);
    for (uint32_t i = 0; i < count; i++) {
        items[i].data = data;
        items[i].len = len;
        if (tsr_image_alloc(ctx, &items[i].image, w, h, 3, TSR_U8) != TSR_OK)
            return 1;
        const size_t bytes = items[i].image.stride * (size_t)h;
        memset(items[i].image.data, 0x5c, bytes);
        if (device) {
            void *d;
            if (cudaMalloc(&d, bytes) != cudaSuccess || cudaMemset(d, 0x5c, bytes) != cudaSuccess)
                return 1;
            tsr_image img = items[i].image; /* tsr_image_free zeroes the geometry too */
            tsr_image_free(ctx, &items[i].image);
            img.data = d;
            img.memory = TSR_MEMORY_CUDA;
            items[i].image = img;
        }
    }
    return 0;
}

static void seq_items_free(tsr_ctx *ctx, tsr_j2k_decode_item *items, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        if (items[i].image.memory == TSR_MEMORY_CUDA)
            cudaFree(items[i].image.data);
        else
            tsr_image_free(ctx, &items[i].image);
    }
}

/* Every item decoded and equal to ref (bytes); 0, or 1 after a message. */
static int seq_check(const tsr_j2k_decode_item *items, uint32_t count, const tsr_image *ref,
                     uint8_t *tmp)
{
    const size_t bytes = ref->stride * (size_t)ref->height;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *got = items[i].image.data;
        if (items[i].status) {
            fprintf(stderr, "sequence item %u: %s\n", i, items[i].error);
            return 1;
        }
        if (items[i].image.memory == TSR_MEMORY_CUDA) {
            if (cudaMemcpy(tmp, got, bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
                return 1;
            got = tmp;
        }
        if (memcmp(got, ref->data, bytes)) {
            fprintf(stderr, "sequence item %u (%s image) differs from the CPU's\n", i,
                    items[i].image.memory == TSR_MEMORY_CUDA ? "device" : "host");
            return 1;
        }
    }
    return 0;
}

typedef struct coding {
    const char *name;
    int ht, lossless;
    double rate;
    float qstep;
} coding;

#endif

int main(int argc, char **argv)
{
    /* --frames N is this benchmark's own; the rest are the j2k benchmarks' options */
    uint32_t frames = 64;
    int nargs = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
            frames = atoi(argv[++i]) < 1 ? 1 : (uint32_t)atoi(argv[i]);
            continue;
        }
        argv[nargs++] = argv[i];
    }
    tsr_bench_j2k_args args = {NULL, "0", "4k", NULL, NULL, NULL, 10, 1};
    if (tsr_bench_j2k_parse(nargs, argv, "sizes threads repeats json", &args))
        return 2;
#ifndef TSR_HAVE_CUDA
    (void)frames;
    printf("bench_j2k_cuda: built without CUDA: nothing to compare\n");
    return 0;
#else
    const char *sizes_arg = args.sizes, *json = args.json;
    const int threads = atoi(args.threads), repeats = args.repeats;
    if (!tsr_backend_available(TSR_BACKEND_CUDA)) {
        printf("bench_j2k_cuda: no CUDA device: nothing to compare\n");
        return 0;
    }
    tsr_ctx *cpu = NULL, *gpu = NULL;
    tsr_image src;
    if (tsr_bench_j2k_cuda_setup(threads, NULL, NULL, &cpu, &gpu, &src))
        return 1;
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
    const char *shdr[] = {"frame",       "coding",       "frames",      "seq h2h fps",
                          "seq dev fps", "h2h gain",     "dev gain",    "PCIe floor fps",
                          "h2h/floor",   "seq h2h ms/f", "seq dev ms/f"};
    char stitle[160];
    snprintf(stitle, sizeof stitle,
             "tsr_j2k_decode_images on CUDA, %u frames (one file repeated, an image each)", frames);
    tsr_bench_table *ts = tsr_bench_table_new(stitle, 11, shdr);
    tsr_j2k_decode_item *items = calloc(frames, sizeof *items);
    if (!items)
        return 1;
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
                /* the sequence, host images then device images */
                double seq_ms[2] = {0, 0};
                for (int device = 0; device < 2 && !bad; device++) {
                    seq_job js = {gpu, items, frames};
                    tsr_bench_stats ss = {0};
                    bad = seq_items(cpu, items, frames, data, len, w, h, device) ||
                          run_sequence(&js, 0, NULL) || seq_check(items, frames, &ref, out.data) ||
                          tsr_bench_measure(run_sequence, &js, 0, repeats / 3 > 3 ? repeats / 3 : 3,
                                            &ss);
                    seq_ms[device] = ss.median_us / 1e3 / frames;
                    seq_items_free(cpu, items, frames);
                }
                if (bad) {
                    fprintf(stderr, "%s %s: the sequence failed or differs (%s)\n",
                            all_sizes[si].name, c->name, tsr_ctx_last_error(gpu));
                    fails++;
                } else {
                    const char *srow[] = {all_sizes[si].name,
                                          c->name,
                                          tsr_bench_fmt("%u", frames),
                                          tsr_bench_fmt("%.0f", 1e3 / seq_ms[0]),
                                          tsr_bench_fmt("%.0f", 1e3 / seq_ms[1]),
                                          tsr_bench_fmt("%.2f", mh / seq_ms[0]),
                                          tsr_bench_fmt("%.2f", md / seq_ms[1]),
                                          tsr_bench_fmt("%.0f", 1e3 / floor_ms),
                                          tsr_bench_fmt("%.2f", floor_ms / seq_ms[0]),
                                          tsr_bench_fmt("%.2f", seq_ms[0]),
                                          tsr_bench_fmt("%.2f", seq_ms[1])};
                    tsr_bench_table_row(ts, srow);
                }
            }
            cudaFree(dev.data);
            tsr_image_free(cpu, &ref);
            tsr_image_free(cpu, &out);
            tsr_j2k_free(cpu, data);
        }
        tsr_image_free(cpu, &frame);
    }
    tsr_bench_table_print(t, stdout);
    tsr_bench_table_print(ts, stdout);
    if (json) {
        const char *meta[] = {"host", tsr_bench_host_description(), NULL};
        tsr_bench_table *both[2] = {t, ts};
        tsr_bench_json_write(json, "bench_j2k_cuda", meta, both, 2);
    }
    tsr_bench_table_free(t);
    tsr_bench_table_free(ts);
    free(items);
    tsr_image_free(cpu, &src);
    tsr_ctx_destroy(gpu);
    tsr_ctx_destroy(cpu);
    return fails ? 1 : 0;
#endif
}
