/* bench_j2k_encode_cuda: JPEG 2000 encoding on the CUDA backend beside the CPU backend, same
 * frames, same run. Inputs: bench_j2k's frames (tsr_bench_make_frame from
 * ../shared/data/images/desert_mesa_4611x8192.jpg, RGB 8-bit), encoded as HT lossless, HT at 2
 * bits per pixel, Part 1 lossless and Part 1 at 2 bpp, and tessera's fast-nonstandard coder
 * lossless (NOT JPEG 2000: fast_coder.h) (5 levels, 64x64 code-blocks, one tile).
 * On cuda the samples, colour transform, DWT and every code-block run on the device (HT:
 * cleanup passes, or rate control's candidates plane by plane; Part 1: its passes); rate
 * control, packets and markers on the host.
 *
 * Columns (library calls, the stream into memory; medians over --repeats):
 *   cpu ms       tsr_j2k_encode of a host image on the CPU backend, --threads threads
 *   cuda h2h ms  the same on the CUDA backend: the image up, the coded bytes down
 *   cuda dev ms  from a device image (device-resident input)
 *   PCIe floor   (image bytes + stream bytes) / 55 GB/s, the H200 host's pinned copy rate
 *                (bench/results/resize-h200-2026-12-02-staging.md): host to host cannot beat it
 * and per frame size the device stages' floors at the H200's ~4.2 TB/s copy rate (the notes,
 * bench/notes/j2k-cuda.md, derive them): samples (3 bytes read, 12 written a pixel), forward
 * DWT (about 16.3 x 4/3 bytes a sample over all levels), and the coefficients read once by the
 * block coder. Every CUDA stream is checked against the CPU's once (bytes equal) before timing.
 * Then where each call's time goes, from the encoder's progress reports (medians over the timed
 * repeats, ms): the samples and transforms (on CUDA: the image reaching the device), the
 * code-blocks (on CUDA: samples, DWT and block coding on the device, the bytes brought back),
 * rate control and the packets (T2), the codestream written.
 *
 * Usage: bench_j2k_encode_cuda [--sizes 2k,4k,8k] [--threads N (0: all cores)] [--repeats N]
 *        [--json F] */
#include "harness.h"
#include "tessera/tessera.h"

#ifdef TSR_HAVE_CUDA
#include <cuda_runtime.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TSR_HAVE_CUDA /* the runner needs a device build; main says what others do */
enum { STAGES = 4, MAX_RUNS = 256 };

/* One job's stage times: the running call's start and stage ends (host clock, us), and each
 * timed call's stage durations. */
typedef struct stage_times {
    double start, end[STAGES];
    double took[STAGES][MAX_RUNS];
    int n;
} stage_times;

/* The recorder of the call in flight (the contexts' progress user points here). */
static stage_times *recording;

static int on_progress(void *user, const char *stage, double done, double total)
{
    (void)total;
    stage_times *s = *(stage_times **)user;
    if (s && !strcmp(stage, "j2k encode") && done >= 1 && done <= STAGES)
        s->end[(int)done - 1] = tsr_bench_now_us();
    return 0;
}

typedef struct job {
    tsr_ctx *ctx;
    const tsr_image *img;
    const tsr_j2k_encode_options *opt;
    uint8_t *last; /* the last run's stream (freed by the next run) */
    size_t len;
    stage_times stages;
} job;

static void job_init(job *j, tsr_ctx *ctx, const tsr_image *img, const tsr_j2k_encode_options *opt)
{
    memset(j, 0, sizeof *j);
    j->ctx = ctx;
    j->img = img;
    j->opt = opt;
}

static int run_encode(void *user, int iter, double *us)
{
    (void)us;
    job *j = user;
    tsr_j2k_free(j->ctx, j->last);
    j->last = NULL;
    recording = &j->stages;
    j->stages.start = tsr_bench_now_us();
    const int bad = tsr_j2k_encode(j->ctx, j->img, j->opt, &j->last, &j->len) != TSR_OK;
    recording = NULL;
    stage_times *s = &j->stages;
    if (!bad && iter > 0 && s->n < MAX_RUNS) { /* iter 0: the warm-up */
        for (int k = 0; k < STAGES; k++)
            s->took[k][s->n] = s->end[k] - (k ? s->end[k - 1] : s->start);
        s->n++;
    }
    return bad;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of stage k's durations, in ms. */
static double stage_ms(stage_times *s, int k)
{
    if (!s->n)
        return 0;
    qsort(s->took[k], (size_t)s->n, sizeof s->took[k][0], by_value);
    return s->took[k][s->n / 2] / 1e3;
}

#endif

typedef struct coding {
    const char *name;
    int ht, lossless;
    double rate;
    int fast; /* the fast-nonstandard coder (not JPEG 2000) */
} coding;

enum { COPY_GBS = 4200, PCIE_GBS = 55 }; /* H200: device copy rate, pinned PCIe (GB/s) */

int main(int argc, char **argv)
{
    tsr_bench_j2k_args args = {NULL, "0", "4k", NULL, NULL, NULL, 10, 1};
    if (tsr_bench_j2k_parse(argc, argv, "sizes threads repeats json", &args))
        return 2;
#ifndef TSR_HAVE_CUDA
    printf("bench_j2k_encode_cuda: built without CUDA: nothing to compare\n");
    return 0;
#else
    const char *sizes_arg = args.sizes, *json = args.json;
    const int threads = atoi(args.threads), repeats = args.repeats;
    if (!tsr_backend_available(TSR_BACKEND_CUDA)) {
        printf("bench_j2k_encode_cuda: no CUDA device: nothing to compare\n");
        return 0;
    }
    tsr_ctx *cpu = NULL, *gpu = NULL;
    tsr_image src;
    if (tsr_bench_j2k_cuda_setup(threads, on_progress, &recording, &cpu, &gpu, &src))
        return 1;
    static const coding codings[] = {{"HT lossless", 1, 1, 0, 0},
                                     {"HT 2 bpp", 1, 0, 2.0, 0},
                                     {"Part 1 lossless", 0, 1, 0, 0},
                                     {"Part 1 2 bpp", 0, 0, 2.0, 0},
                                     {"fast-nonstd lossless", 0, 1, 0, 1}};
    const tsr_bench_frame_size *all_sizes = tsr_bench_frame_sizes;
    printf("host: %s; device: %s; %d repeats\n", tsr_bench_host_description(),
           tsr_ctx_device_name(gpu), repeats);
    const char *hdr[] = {"frame",   "coding",  "file MB", "cpu ms",  "cuda h2h ms",   "cuda dev ms",
                         "h2h fps", "dev fps", "cpu/h2h", "cpu/dev", "PCIe floor ms", "h2h/floor"};
    tsr_bench_table *t = tsr_bench_table_new("tsr_j2k_encode, CPU and CUDA", 12, hdr);
    const char *fhdr[] = {"frame", "samples floor ms", "DWT floor ms", "block input floor ms",
                          "device floor ms"};
    tsr_bench_table *ft = tsr_bench_table_new("device stages' floors at the copy rate", 5, fhdr);
    const char *shdr[] = {"frame",          "coding",       "call",      "samples ms",
                          "code-blocks ms", "rate + T2 ms", "written ms"};
    tsr_bench_table *st = tsr_bench_table_new(
        "where a call's time goes (the encoder's progress reports; medians)", 7, shdr);
    int fails = 0;
    for (size_t si = 0; si < TSR_BENCH_FRAME_SIZES; si++) {
        if (!strstr(sizes_arg, all_sizes[si].name))
            continue;
        const int w = all_sizes[si].w, h = all_sizes[si].h;
        char ppm[256];
        snprintf(ppm, sizeof ppm, "/tmp/bench_j2k_encode_cuda_%s.ppm", all_sizes[si].name);
        if (tsr_bench_make_frame(cpu, &src, w, h, ppm))
            return 1;
        tsr_image frame;
        if (tsr_image_load(cpu, ppm, &frame, NULL) != TSR_OK)
            return 1;
        const double samples = (double)w * h * 3, copy = COPY_GBS * 1e9 / 1e3; /* bytes a ms */
        const double f_samples = (double)w * h * (3 + 12) / copy,
                     f_dwt = samples * 4 * 16.3 / 4 * 4 / 3 / copy, f_blocks = samples * 4 / copy;
        const char *frow[] = {all_sizes[si].name, tsr_bench_fmt("%.3f", f_samples),
                              tsr_bench_fmt("%.3f", f_dwt), tsr_bench_fmt("%.3f", f_blocks),
                              tsr_bench_fmt("%.3f", f_samples + f_dwt + f_blocks)};
        tsr_bench_table_row(ft, frow);
        tsr_image dev = frame;
        dev.memory = TSR_MEMORY_CUDA;
        if (cudaMalloc(&dev.data, frame.stride * (size_t)h) != cudaSuccess ||
            cudaMemcpy(dev.data, frame.data, frame.stride * (size_t)h, cudaMemcpyHostToDevice) !=
                cudaSuccess)
            return 1;
        for (size_t ci = 0; ci < sizeof codings / sizeof codings[0]; ci++) {
            const coding *c = &codings[ci];
            tsr_j2k_encode_options eo;
            tsr_j2k_encode_options_init(&eo);
            eo.ht = c->ht;
            eo.lossless = c->lossless;
            eo.mode = c->fast ? TSR_J2K_MODE_FAST_NONSTANDARD : TSR_J2K_MODE_STANDARD;
            if (c->rate > 0) {
                eo.num_rates = 1;
                eo.rates[0] = c->rate;
            }
            static job jc, jh, jd; /* their stage records are large */
            job_init(&jc, cpu, &frame, &eo);
            job_init(&jh, gpu, &frame, &eo);
            job_init(&jd, gpu, &dev, &eo);
            int bad = run_encode(&jc, 0, NULL) || run_encode(&jh, 0, NULL) || jh.len != jc.len ||
                      memcmp(jh.last, jc.last, jc.len) || run_encode(&jd, 0, NULL) ||
                      jd.len != jc.len || memcmp(jd.last, jc.last, jc.len);
            if (bad) {
                fprintf(stderr, "%s %s: the CUDA encode failed or differs from the CPU's (%s)\n",
                        all_sizes[si].name, c->name, tsr_ctx_last_error(gpu));
                fails++;
            } else {
                tsr_bench_stats sc, sh, sd;
                tsr_bench_measure(run_encode, &jc, 1, repeats, &sc);
                tsr_bench_measure(run_encode, &jh, 1, repeats, &sh);
                tsr_bench_measure(run_encode, &jd, 1, repeats, &sd);
                const double floor_ms =
                    ((double)jc.len + (double)frame.stride * h) / (PCIE_GBS * 1e9) * 1e3;
                const double mc = sc.median_us / 1e3, mh = sh.median_us / 1e3,
                             md = sd.median_us / 1e3;
                const char *row[] = {all_sizes[si].name,
                                     c->name,
                                     tsr_bench_fmt("%.2f", jc.len / 1e6),
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
                const struct {
                    const char *name;
                    job *j;
                } calls[] = {{"cpu", &jc}, {"cuda h2h", &jh}, {"cuda dev", &jd}};
                for (int k = 0; k < 3; k++) {
                    stage_times *s = &calls[k].j->stages;
                    const char *srow[] = {all_sizes[si].name,
                                          c->name,
                                          calls[k].name,
                                          tsr_bench_fmt("%.2f", stage_ms(s, 0)),
                                          tsr_bench_fmt("%.2f", stage_ms(s, 1)),
                                          tsr_bench_fmt("%.2f", stage_ms(s, 2)),
                                          tsr_bench_fmt("%.2f", stage_ms(s, 3))};
                    tsr_bench_table_row(st, srow);
                }
            }
            tsr_j2k_free(cpu, jc.last);
            tsr_j2k_free(gpu, jh.last);
            tsr_j2k_free(gpu, jd.last);
        }
        cudaFree(dev.data);
        tsr_image_free(cpu, &frame);
    }
    tsr_bench_table_print(t, stdout);
    tsr_bench_table_print(ft, stdout);
    tsr_bench_table_print(st, stdout);
    if (json) {
        const char *meta[] = {"host", tsr_bench_host_description(), NULL};
        tsr_bench_table *const tables[] = {t, ft, st};
        tsr_bench_json_write(json, "bench_j2k_encode_cuda", meta, tables, 3);
    }
    tsr_bench_table_free(t);
    tsr_bench_table_free(ft);
    tsr_bench_table_free(st);
    tsr_image_free(cpu, &src);
    tsr_ctx_destroy(gpu);
    tsr_ctx_destroy(cpu);
    return fails ? 1 : 0;
#endif
}
