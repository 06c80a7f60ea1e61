/* Image I/O as the commands spend it: decoding an image file and encoding PNG (levels 1, 3, 6)
 * and JPEG (quality 95) through tsr_image_load / tsr_image_save, on 1 thread and on all of
 * them, with MB/s over the image's bytes. bench/bench_io.py runs it beside OpenCV's imdecode /
 * imencode on the same file (the peer a vision pipeline uses) and prints the ratios.
 *
 * usage: bench_io IMAGE [--repeats N] [--threads N] [--json FILE] [--out DIR]
 *   IMAGE: any file tessera reads (the 4611x8192 sample JPEG of ../shared/data/images, say);
 *   --threads: the "all" column's thread count (default: every core); --out: where the encoded
 *   files go (default /tmp); each timed save writes the same path again. */
#include "harness.h"

#include "tessera/tessera.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct io_run {
    tsr_ctx *ctx;
    const char *path; /* load: the input; save: the output */
    tsr_image *img;   /* save: the image */
    tsr_save_options so;
} io_run;

static int run_load(void *user, int iter, double *us)
{
    (void)iter, (void)us;
    io_run *r = user;
    tsr_image img;
    if (tsr_image_load(r->ctx, r->path, &img, NULL) != TSR_OK)
        return 1;
    tsr_image_free(r->ctx, &img);
    return 0;
}

static int run_save(void *user, int iter, double *us)
{
    (void)iter, (void)us;
    io_run *r = user;
    return tsr_image_save(r->ctx, r->path, r->img, &r->so) != TSR_OK;
}

static tsr_ctx *cpu_ctx(int threads)
{
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_CPU;
    o.threads = threads;
    tsr_ctx *ctx = NULL;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK) {
        fprintf(stderr, "bench_io: %s\n", ctx ? tsr_ctx_last_error(ctx) : "no context");
        exit(1);
    }
    return ctx;
}

int main(int argc, char **argv)
{
    const char *image = NULL, *json = NULL, *outdir = "/tmp";
    int repeats = 5, threads = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--repeats") && v)
            repeats = atoi(argv[++i]);
        else if (!strcmp(a, "--threads") && v)
            threads = atoi(argv[++i]);
        else if (!strcmp(a, "--json") && v)
            json = argv[++i];
        else if (!strcmp(a, "--out") && v)
            outdir = argv[++i];
        else if (a[0] != '-' && !image)
            image = a;
        else {
            fprintf(stderr,
                    "usage: %s IMAGE [--repeats N] [--threads N] [--json FILE] [--out DIR]\n",
                    argv[0]);
            return 2;
        }
    }
    if (!image || repeats < 1) {
        fprintf(stderr, "usage: %s IMAGE [--repeats N] [--threads N] [--json FILE] [--out DIR]\n",
                argv[0]);
        return 2;
    }
    tsr_ctx *one = cpu_ctx(1), *all = cpu_ctx(threads);
    tsr_image img;
    if (tsr_image_load(all, image, &img, NULL) != TSR_OK) {
        fprintf(stderr, "bench_io: %s\n", tsr_ctx_last_error(all));
        return 1;
    }
    const double mb =
        (double)img.width * img.height * img.channels * tsr_depth_size(img.depth) / 1e6;
    printf("bench_io: %s, %dx%d, %d channels, %.1f MB of pixels; %s\n", image, (int)img.width,
           (int)img.height, (int)img.channels, mb, tsr_bench_host_description());
    static const char *const headers[] = {"step",     "1 thread ms", "all ms",
                                          "all MB/s", "file bytes",  "speedup"};
    tsr_bench_table *t = tsr_bench_table_new("tessera image I/O (median ms)", 6, headers);
    struct {
        const char *name, *ext;
        tsr_format format;
        int level, quality;
    } steps[] = {{"decode input", NULL, TSR_FORMAT_UNKNOWN, 0, 0},
                 {"PNG level 1", "png", TSR_FORMAT_PNG, 1, 0},
                 {"PNG level 3", "png", TSR_FORMAT_PNG, 3, 0},
                 {"PNG level 6", "png", TSR_FORMAT_PNG, 6, 0},
                 {"JPEG q95", "jpg", TSR_FORMAT_JPEG, 0, 95}};
    int rc = 0;
    for (size_t s = 0; s < sizeof steps / sizeof steps[0] && !rc; s++) {
        char path[512];
        io_run r[2];
        tsr_bench_stats st[2];
        for (int k = 0; k < 2; k++) {
            r[k].ctx = k ? all : one;
            r[k].img = &img;
            tsr_save_options_init(&r[k].so);
            if (steps[s].ext) {
                snprintf(path, sizeof path, "%s/bench_io.%s", outdir, steps[s].ext);
                r[k].path = path;
                r[k].so.format = steps[s].format;
                r[k].so.png_compression = steps[s].level;
                if (steps[s].quality)
                    r[k].so.jpeg_quality = steps[s].quality;
            } else {
                r[k].path = image;
            }
            rc = tsr_bench_measure(steps[s].ext ? run_save : run_load, &r[k], 1, repeats, &st[k]);
            if (rc) {
                fprintf(stderr, "bench_io: %s: %s\n", steps[s].name, tsr_ctx_last_error(r[k].ctx));
                break;
            }
        }
        if (rc)
            break;
        long long bytes = -1;
        FILE *f = fopen(steps[s].ext ? path : image, "rb");
        if (f && fseek(f, 0, SEEK_END) == 0)
            bytes = ftell(f);
        if (f)
            fclose(f);
        const char *cells[6] = {steps[s].name,
                                tsr_bench_fmt("%.1f", st[0].median_us / 1e3),
                                tsr_bench_fmt("%.1f", st[1].median_us / 1e3),
                                tsr_bench_fmt("%.0f", mb / (st[1].median_us / 1e6)),
                                tsr_bench_fmt("%lld", bytes),
                                tsr_bench_fmt("%.2f", st[0].median_us / st[1].median_us)};
        tsr_bench_table_row(t, cells);
    }
    tsr_bench_table_print(t, stdout);
    if (json && !rc) {
        const char *meta[] = {"image", image, "host", tsr_bench_host_description(), NULL};
        if (tsr_bench_json_write(json, "bench_io", meta, &t, 1) != 0)
            rc = 1;
    }
    tsr_bench_table_free(t);
    tsr_image_free(all, &img);
    tsr_ctx_destroy(one);
    tsr_ctx_destroy(all);
    return rc;
}
