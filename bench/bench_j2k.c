/* bench_j2k: JPEG 2000 decoding speed, tessera beside OpenJPEG (opj_decompress), Grok
 * (grk_decompress) and OpenJPH (ojph_expand), on the same files in the same run with the same
 * thread counts. Prints MSamples/s (width x height x components per second).
 *
 * Inputs: 2K (2048x1080), 4K (4096x2160) and 8K (7680x4320) RGB frames cut from
 * ../shared/data/images/desert_mesa_4611x8192.jpg (8K is a rotated 4320x7680 cut), encoded once
 * into --dir as Part 1 lossless (opj_compress defaults: 5/3, 6 resolutions, 64x64 blocks, RCT),
 * Part 1 lossy (opj_compress -I -r 20: 9/7, ICT), HT lossless (ojph_compress -reversible true)
 * and HT lossy (ojph_compress -qstep 0.005).
 *
 * Columns: "tessera lib" is tsr_j2k_decode on the file already in memory into preallocated
 * planes, "lib image" tsr_j2k_decode_image into a preallocated 8-bit RGB image (what the
 * program decodes into for PPM output); "tessera cli" and the peers are whole programs (start,
 * read, decode, write a PPM to /dev/shm), the fair comparison. ojph_expand has no threads option:
 * its figure is 1 thread. "peak MB": the largest resident set of tessera's program and of
 * opj_decompress (wait4's ru_maxrss, the last run), the memory comparison.
 *
 * The programs of a case run in interleaved rounds (tessera, opj, grk, ojph, then again), N rounds
 * (--repeats) or more for short programs, until the fastest one has run about a second
 * (tsr_bench_measure_progs); each figure is a median over the rounds.
 *
 * Usage: bench_j2k [--dir DIR] [--threads 1,2] [--sizes 2k,4k,8k] [--repeats N] [--json F]
 *                  [--tool PATH_TO_tessera] [--codings p1,ht] [--lib no]
 * (--lib no: only the programs, without the two library columns: a third of the time.) */
#include "harness.h"
#include "tessera/tessera.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct lib_job {
    tsr_ctx *ctx;
    const uint8_t *data;
    size_t len;
    tsr_j2k_decode_options opt;
    tsr_j2k_plane *planes;
    uint32_t n;
    tsr_image img;
} lib_job;

static int run_lib(void *user, int iter, double *us)
{
    (void)iter;
    (void)us;
    lib_job *j = user;
    return tsr_j2k_decode(j->ctx, j->data, j->len, &j->opt, j->planes, j->n, NULL) != TSR_OK;
}

static int run_lib_image(void *user, int iter, double *us)
{
    (void)iter;
    (void)us;
    lib_job *j = user;
    return tsr_j2k_decode_image(j->ctx, j->data, j->len, &j->opt, &j->img, NULL) != TSR_OK;
}

int main(int argc, char **argv)
{
    if (tsr_bench_spawner_start()) {
        perror("bench_j2k: the program spawner");
        return 1;
    }
    tsr_bench_j2k_args args = {"/tmp/tsr_j2k_bench", "1,2", "2k,4k,8k", NULL, NULL, "p1,ht", 3, 1};
    if (tsr_bench_j2k_parse(argc, argv, "dir threads sizes repeats json tool codings lib", &args))
        return 2;
    const char *dir = args.dir, *threads_arg = args.threads, *sizes_arg = args.sizes;
    const char *json = args.json, *tool = args.tool, *codings_arg = args.codings;
    const int repeats = args.repeats, with_lib = args.lib;
    const char *data_root = getenv("TSR_DATA") ? getenv("TSR_DATA") : "../shared/data";
    mkdir(dir, 0777);
    tsr_ctx *ctx;
    tsr_ctx_options copt;
    tsr_ctx_options_init(&copt);
    copt.backend = TSR_BACKEND_CPU;
    if (tsr_ctx_create(&copt, &ctx) != TSR_OK)
        return 1;
    int has_opj = tsr_bench_have("opj_decompress"), has_opj_enc = tsr_bench_have("opj_compress");
    int has_grk = tsr_bench_have("grk_decompress");
    int has_ojph = tsr_bench_have("ojph_expand"), has_ojph_enc = tsr_bench_have("ojph_compress");
    const tsr_bench_frame_size *sizes = tsr_bench_frame_sizes;
    static const struct {
        const char *name;
        int ht;
        const char *enc;
    } codings[] = {{"P1 lossless", 0, "opj_compress -i %s -o %s"},
                   {"P1 lossy", 0, "opj_compress -i %s -o %s -I -r 20"},
                   {"HT lossless", 1, "ojph_compress -i %s -o %s -reversible true"},
                   {"HT lossy", 1, "ojph_compress -i %s -o %s -qstep 0.005"}};
    tsr_image src;
    int have_src = 0;
    static const char *headers[] = {"size",           "coding",         "threads",
                                    "tessera lib",    "lib image",      "tessera cli",
                                    "opj_decompress", "grk_decompress", "ojph_expand",
                                    "cli/best peer",  "cli peak MB",    "opj peak MB"};
    tsr_bench_table *table = tsr_bench_table_new(
        "JPEG 2000 decode, MSamples/s (median); peak resident memory of the programs", 12, headers);
    for (size_t si = 0; si < TSR_BENCH_FRAME_SIZES; si++) {
        if (!strstr(sizes_arg, sizes[si].name))
            continue;
        char ppm[1024];
        snprintf(ppm, sizeof ppm, "%s/%s.ppm", dir, sizes[si].name);
        int need_ppm = 0;
        for (size_t ci = 0; ci < 4; ci++) {
            char st[1024];
            snprintf(st, sizeof st, "%s/%s_%s%s.j2k", dir, sizes[si].name,
                     codings[ci].ht ? "ht" : "p1",
                     strstr(codings[ci].name, "lossless") ? "rev" : "irr");
            if (strstr(codings_arg, codings[ci].ht ? "ht" : "p1") && !tsr_bench_file_exists(st))
                need_ppm = 1;
        }
        if (need_ppm && !tsr_bench_file_exists(ppm)) {
            if (!have_src) {
                char p[1024];
                snprintf(p, sizeof p, "%s/images/desert_mesa_4611x8192.jpg", data_root);
                if (tsr_image_load(ctx, p, &src, NULL) != TSR_OK) {
                    fprintf(stderr, "cannot load %s: %s\n", p, tsr_ctx_last_error(ctx));
                    return 1;
                }
                have_src = 1;
            }
            if (tsr_bench_make_frame(ctx, &src, sizes[si].w, sizes[si].h, ppm))
                return 1;
        }
        double samples = (double)sizes[si].w * sizes[si].h * 3;
        for (size_t ci = 0; ci < 4; ci++) {
            char stream[1024], cmd[4096];
            if (!strstr(codings_arg, codings[ci].ht ? "ht" : "p1"))
                continue;
            snprintf(stream, sizeof stream, "%s/%s_%s%s.j2k", dir, sizes[si].name,
                     codings[ci].ht ? "ht" : "p1",
                     strstr(codings[ci].name, "lossless") ? "rev" : "irr");
            if (!tsr_bench_file_exists(stream)) {
                if ((codings[ci].ht && !has_ojph_enc) || (!codings[ci].ht && !has_opj_enc))
                    continue;
                snprintf(cmd, sizeof cmd, codings[ci].enc, ppm, stream);
                strcat(cmd, " >/dev/null 2>&1");
                if (system(cmd) != 0) {
                    fprintf(stderr, "encoding failed: %s\n", cmd);
                    continue;
                }
            }
            size_t len;
            uint8_t *data = tsr_bench_slurp(stream, &len);
            if (!data)
                continue;
            lib_job job = {ctx, data, len, {0}, NULL, 0, {0}};
            tsr_j2k_decode_options_init(&job.opt);
            int lib_ok = tsr_j2k_decode_layout(ctx, data, len, &job.opt, NULL, &job.n) == TSR_OK;
            if (lib_ok) {
                job.planes = calloc(job.n, sizeof *job.planes);
                lib_ok =
                    tsr_j2k_decode_layout(ctx, data, len, &job.opt, job.planes, &job.n) == TSR_OK;
                for (uint32_t i = 0; lib_ok && i < job.n; i++)
                    job.planes[i].data =
                        malloc((size_t)job.planes[i].width * job.planes[i].height * 4);
            }
            int img_ok =
                tsr_j2k_decode_image_layout(ctx, data, len, &job.opt, &job.img) == TSR_OK &&
                tsr_image_alloc(ctx, &job.img, job.img.width, job.img.height, job.img.channels,
                                job.img.depth) == TSR_OK;
            const char *tpos = threads_arg;
            while (*tpos) {
                int th = atoi(tpos);
                const char *comma = strchr(tpos, ',');
                tpos = comma ? comma + 1 : tpos + strlen(tpos);
                if (th < 1)
                    continue;
                tsr_bench_stats s;
                char c_lib[32] = "n/a", c_img[32] = "n/a", c_cli[32] = "n/a", c_opj[32] = "n/a",
                     c_grk[32] = "n/a", c_ojph[32] = "n/a", c_ratio[32] = "n/a",
                     c_cli_mb[32] = "n/a", c_opj_mb[32] = "n/a";
                double cli = 0, best = 0;
                job.opt.threads = th;
                if (with_lib && lib_ok && tsr_bench_measure(run_lib, &job, 1, repeats, &s) == 0)
                    snprintf(c_lib, sizeof c_lib, "%.1f", samples / s.median_us);
                else if (with_lib && lib_ok)
                    snprintf(c_lib, sizeof c_lib, "error");
                if (with_lib && img_ok &&
                    tsr_bench_measure(run_lib_image, &job, 1, repeats, &s) == 0)
                    snprintf(c_img, sizeof c_img, "%.1f", samples / s.median_us);
                else if (with_lib && img_ok)
                    snprintf(c_img, sizeof c_img, "error");
                char tbuf[16];
                snprintf(tbuf, sizeof tbuf, "%d", th);
                const char *out_ppm = "/dev/shm/tsr_bench_j2k.ppm";
                /* the programs, measured together: tessera's, then the peers present */
                tsr_bench_prog p[4];
                char *cell[4];
                int np = 0;
                if (tool) {
                    p[np] = (tsr_bench_prog){{tool, "j2k", "decode", stream, out_ppm, "--threads",
                                              tbuf, "--quiet", NULL},
                                             0};
                    cell[np++] = c_cli;
                }
                if (has_opj) {
                    p[np] = (tsr_bench_prog){
                        {"opj_decompress", "-i", stream, "-o", out_ppm, "-threads", tbuf, NULL}, 0};
                    cell[np++] = c_opj;
                }
                if (has_grk) {
                    p[np] = (tsr_bench_prog){
                        {"grk_decompress", "-i", stream, "-o", out_ppm, "-H", tbuf, NULL}, 0};
                    cell[np++] = c_grk;
                }
                if (has_ojph && codings[ci].ht && th == 1) {
                    p[np] = (tsr_bench_prog){{"ojph_expand", "-i", stream, "-o", out_ppm, NULL}, 0};
                    cell[np++] = c_ojph;
                }
                double med[4];
                tsr_bench_measure_progs(p, np, repeats, med);
                for (int i = 0; i < np; i++) {
                    const double rate = med[i] > 0 ? samples / med[i] : 0;
                    snprintf(cell[i], 32, rate > 0 ? "%.1f" : "error", rate);
                    if (cell[i] == c_cli) {
                        cli = rate;
                        if (rate > 0)
                            snprintf(c_cli_mb, sizeof c_cli_mb, "%.0f", p[i].peak_kb / 1024.0);
                    } else {
                        best = rate > best ? rate : best;
                        if (cell[i] == c_opj && rate > 0)
                            snprintf(c_opj_mb, sizeof c_opj_mb, "%.0f", p[i].peak_kb / 1024.0);
                    }
                }
                if (cli > 0 && best > 0)
                    snprintf(c_ratio, sizeof c_ratio, "%.2f", cli / best);
                const char *row[12] = {sizes[si].name,
                                       codings[ci].name,
                                       tsr_bench_fmt("%d", th),
                                       c_lib,
                                       c_img,
                                       c_cli,
                                       c_opj,
                                       c_grk,
                                       c_ojph,
                                       c_ratio,
                                       c_cli_mb,
                                       c_opj_mb};
                tsr_bench_table_row(table, row);
                fprintf(stderr, "%s %s t%d: lib %s image %s cli %s opj %s grk %s ojph %s\n",
                        sizes[si].name, codings[ci].name, th, c_lib, c_img, c_cli, c_opj, c_grk,
                        c_ojph);
            }
            for (uint32_t i = 0; job.planes && i < job.n; i++)
                free(job.planes[i].data);
            free(job.planes);
            tsr_image_free(ctx, &job.img);
            free(data);
        }
    }
    printf("%s\n", tsr_bench_host_description());
    tsr_bench_table_print(table, stdout);
    if (json) {
        const char *meta[] = {"host", tsr_bench_host_description(), NULL};
        tsr_bench_json_write(json, "bench_j2k", meta, &table, 1);
    }
    unlink("/dev/shm/tsr_bench_j2k.ppm");
    tsr_bench_table_free(table);
    if (have_src)
        tsr_image_free(ctx, &src);
    tsr_ctx_destroy(ctx);
    return 0;
}
