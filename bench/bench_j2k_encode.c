/* bench_j2k_encode: JPEG 2000 encoding speed, tessera beside OpenJPEG (opj_compress), Grok
 * (grk_compress) and OpenJPH (ojph_compress), on the same files in the same run with the same
 * thread counts. Prints MSamples/s (width x height x components per second), the files' sizes
 * and the PSNR of each lossy file.
 *
 * Inputs: bench_j2k's frames (tsr_bench_make_frame): 2K (2048x1080), 4K (4096x2160) and 8K
 * (7680x4320) RGB PPMs written once into --dir.
 *
 * Rows: Part 1 lossless (tessera --lossless; opj_compress and grk_compress defaults: 5/3, RCT),
 * Part 1 lossy at 1 and 2 bits per pixel (tessera --rate B; opj_compress and grk_compress
 * -r 24/B, their own rate control); HT lossless (ojph_compress -reversible true) and HT lossy at
 * the 1 bpp size (ojph_compress -qstep Q, Q found by bisection on the file size, since OpenJPH
 * has no rate control); tessera's HT rows are --ht --lossless, --ht --rate 1 (its own rate
 * control to the same 1 bpp size) and --ht --qstep Q (the same fixed step as ojph_compress: the
 * same work, no rate control). ojph_compress has no threads option: the HT rows are printed at 1
 * thread only.
 *
 * Columns: "tessera lib" is tsr_j2k_encode on the image already in memory (no file I/O);
 * "tessera cli" and the peers are whole programs (start, read the PPM, encode, write the file
 * to /dev/shm), the fair comparison. "cli/best peer": tessera cli over the fastest peer. "bytes
 * (PSNR)": each program's file and the PSNR in dB over all RGB samples of its decode by
 * tessera's library against the PPM ("exact" for a bit-exact decode). "peak MB": the largest
 * resident set (wait4's ru_maxrss, the last run) of tessera / opj / grk / ojph.
 *
 * The programs of a row run in interleaved rounds (tsr_bench_measure_progs); each figure is a
 * median over the rounds.
 *
 * Durability: the 4K lossless file (the first size's where 4K is not measured) written into
 * --dir as the library's atomic output does it (a temporary file in the folder, renamed into
 * place), without and with fsync of the file and the folder before and after the rename, in
 * interleaved rounds: the cost of the durability step.
 *
 * Usage: bench_j2k_encode [--dir DIR] [--threads 1,2] [--sizes 2k,4k,8k] [--repeats N]
 *                         [--json F] [--tool PATH_TO_tessera] [--lib no] */
#define _POSIX_C_SOURCE 200809L /* fileno, fsync */
#include "harness.h"
#include "tessera/tessera.h"

#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The rows: which programs, with which coding arguments. */
typedef struct coding {
    const char *name;
    int ht;           /* 1: HT block coding, tessera beside ojph_compress only */
    double bpp;       /* lossy target; 0: lossless */
    const char *peer; /* opj/grk -r value (24 / bpp) */
    int at_step;      /* HT lossy at ojph_compress's -qstep instead of by rate control */
} coding;

static const coding codings[] = {
    {"P1 lossless", 0, 0, NULL, 0},   {"P1 1 bpp", 0, 1, "24", 0},
    {"P1 2 bpp", 0, 2, "12", 0},      {"HT lossless", 1, 0, NULL, 0},
    {"HT 1 bpp size", 1, 1, NULL, 0}, {"HT at ojph's step", 1, 1, NULL, 1}};
enum { NCODINGS = sizeof codings / sizeof codings[0] };

/* Each program's output file: tessera, opj_compress, grk_compress, ojph_compress. */
static const char *const outs[4] = {
    "/dev/shm/tsr_bench_enc_tsr.j2k", "/dev/shm/tsr_bench_enc_opj.j2k",
    "/dev/shm/tsr_bench_enc_grk.j2k", "/dev/shm/tsr_bench_enc_ojph.j2c"};

typedef struct lib_job {
    tsr_ctx *ctx;
    const tsr_image *img;
    tsr_j2k_encode_options opt;
} lib_job;

static int run_lib(void *user, int iter, double *us)
{
    (void)iter;
    (void)us;
    lib_job *j = user;
    uint8_t *data = NULL;
    size_t len = 0;
    const tsr_status st = tsr_j2k_encode(j->ctx, j->img, &j->opt, &data, &len);
    tsr_j2k_free(j->ctx, data);
    return st != TSR_OK;
}

static long file_size(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

/* "bytes (PSNR)" of the file at path against ref (8-bit RGB): decoded by tessera's library,
 * PSNR over all samples, "exact" when identical; "error" when it does not decode to ref's
 * size. */
static const char *bytes_psnr(tsr_ctx *ctx, const char *path, const tsr_image *ref)
{
    size_t len;
    uint8_t *data = tsr_bench_slurp(path, &len);
    if (!data)
        return "error";
    tsr_image dec;
    const char *cell = "error";
    if (tsr_j2k_decode_image_layout(ctx, data, len, NULL, &dec) == TSR_OK &&
        dec.width == ref->width && dec.height == ref->height && dec.channels == 3 &&
        dec.depth == TSR_U8 &&
        tsr_image_alloc(ctx, &dec, dec.width, dec.height, 3, TSR_U8) == TSR_OK) {
        if (tsr_j2k_decode_image(ctx, data, len, NULL, &dec, NULL) == TSR_OK) {
            double se = 0;
            for (int y = 0; y < ref->height; y++) {
                const uint8_t *a = (const uint8_t *)ref->data + (size_t)y * ref->stride;
                const uint8_t *b = (const uint8_t *)dec.data + (size_t)y * dec.stride;
                for (int x = 0; x < ref->width * 3; x++)
                    se += (double)(a[x] - b[x]) * (a[x] - b[x]);
            }
            const double mse = se / ((double)ref->width * ref->height * 3);
            cell = mse == 0 ? tsr_bench_fmt("%zu (exact)", len)
                            : tsr_bench_fmt("%zu (%.2f)", len, 10 * log10(255.0 * 255.0 / mse));
        }
        tsr_image_free(ctx, &dec);
    }
    free(data);
    return cell;
}

/* The ojph_compress -qstep whose lossy file is closest to `target` bytes (bisection on a log
 * scale between 1e-4 and 0.5; larger steps give smaller files); 0 when ojph fails. */
static double match_qstep(const char *ppm, const char *out, long target)
{
    double lo = 1e-4, hi = 0.5, best = 0;
    long best_err = -1;
    for (int it = 0; it < 9; it++) {
        const double q = sqrt(lo * hi);
        char qs[32];
        snprintf(qs, sizeof qs, "%.6g", q);
        tsr_bench_prog p = {{"ojph_compress", "-i", ppm, "-o", out, "-qstep", qs, NULL}, 0};
        if (tsr_bench_run_prog(&p, 0, NULL))
            return 0;
        const long got = file_size(out), err = labs(got - target);
        if (best_err < 0 || err < best_err) {
            best_err = err;
            best = atof(qs);
        }
        if (got > target)
            lo = q;
        else
            hi = q;
    }
    return best;
}

/* Writes len bytes to dir/name as the library's atomic output does (a temporary file in dir,
 * renamed into place); with sync, fsync of the file before the rename and of the folder after
 * it. 0 on success. */
static int write_atomic(const char *dir, const uint8_t *data, size_t len, int sync)
{
    char tmp[1024], dst[1024];
    snprintf(tmp, sizeof tmp, "%s/.tsr_bench_durable.j2k.tmp", dir);
    snprintf(dst, sizeof dst, "%s/tsr_bench_durable.j2k", dir);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return -1;
    int bad = fwrite(data, 1, len, f) != len || fflush(f) != 0;
    if (!bad && sync)
        bad = fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, dst) != 0) {
        unlink(tmp);
        return -1;
    }
    if (sync) {
        const int fd = open(dir, O_RDONLY);
        if (fd >= 0) {
            (void)fsync(fd);
            close(fd);
        }
    }
    return 0;
}

/* The durability table: write_atomic without and with sync of `data`, interleaved rounds. */
static void measure_durability(tsr_bench_table *t, const char *dir, const char *label,
                               const uint8_t *data, size_t len, int repeats, double cli_us)
{
    enum { R = 31 };
    double plain[R], synced[R];
    int n = repeats < 5 ? 5 : repeats > R ? R : repeats;
    for (int r = 0; r < n; r++) {
        double t0 = tsr_bench_now_us();
        if (write_atomic(dir, data, len, 0))
            return;
        plain[r] = tsr_bench_now_us() - t0;
        t0 = tsr_bench_now_us();
        if (write_atomic(dir, data, len, 1))
            return;
        synced[r] = tsr_bench_now_us() - t0;
    }
    tsr_bench_stats a, b;
    tsr_bench_stats_of(plain, n, &a);
    tsr_bench_stats_of(synced, n, &b);
    const char *row[6] = {
        label,
        tsr_bench_fmt("%zu", len),
        tsr_bench_fmt("%.2f", a.median_us / 1e3),
        tsr_bench_fmt("%.2f (%.2f-%.2f)", b.median_us / 1e3, b.min_us / 1e3, b.max_us / 1e3),
        tsr_bench_fmt("%.2f", (b.median_us - a.median_us) / 1e3),
        cli_us > 0 ? tsr_bench_fmt("%.1f%%", 100 * (b.median_us - a.median_us) / cli_us) : "n/a"};
    tsr_bench_table_row(t, row);
}

int main(int argc, char **argv)
{
    if (tsr_bench_spawner_start()) {
        perror("bench_j2k_encode: the program spawner");
        return 1;
    }
    tsr_bench_j2k_args args = {"/tmp/tsr_j2k_bench", "1,2", "2k,4k,8k", NULL, NULL, NULL, 3, 1};
    if (tsr_bench_j2k_parse(argc, argv, "dir threads sizes repeats json tool lib", &args))
        return 2;
    const char *dir = args.dir, *threads_arg = args.threads, *sizes_arg = args.sizes;
    const char *json = args.json, *tool = args.tool;
    const int repeats = args.repeats, with_lib = args.lib;
    const char *data_root = getenv("TSR_DATA") ? getenv("TSR_DATA") : "../shared/data";
    mkdir(dir, 0777);
    tsr_ctx *ctx;
    tsr_ctx_options copt;
    tsr_ctx_options_init(&copt);
    copt.backend = TSR_BACKEND_CPU;
    if (tsr_ctx_create(&copt, &ctx) != TSR_OK)
        return 1;
    const int has_opj = tsr_bench_have("opj_compress"), has_grk = tsr_bench_have("grk_compress");
    const int has_ojph = tsr_bench_have("ojph_compress");
    const tsr_bench_frame_size *sizes = tsr_bench_frame_sizes;
    tsr_image src;
    int have_src = 0;
    static const char *headers[] = {"size",
                                    "coding",
                                    "threads",
                                    "tessera lib",
                                    "tessera cli",
                                    "opj_compress",
                                    "grk_compress",
                                    "ojph_compress",
                                    "cli/best peer",
                                    "tessera bytes (PSNR)",
                                    "opj bytes (PSNR)",
                                    "grk bytes (PSNR)",
                                    "ojph bytes (PSNR)",
                                    "peak MB tsr/opj/grk/ojph"};
    enum { NCOLS = sizeof headers / sizeof headers[0] };
    tsr_bench_table *table = tsr_bench_table_new(
        "JPEG 2000 encode, MSamples/s (median); file bytes and PSNR (dB, decoded by tessera); "
        "peak resident memory of the programs",
        NCOLS, headers);
    static const char *dheaders[] = {"file",
                                     "bytes",
                                     "write+rename ms",
                                     "with fsync ms (min-max)",
                                     "fsync cost ms",
                                     "of cli 1-thread time"};
    char dtitle[1200];
    snprintf(dtitle, sizeof dtitle,
             "Durability step: the encoded file written atomically into %s, without and with "
             "fsync (file, then folder); medians",
             dir);
    tsr_bench_table *dtable = tsr_bench_table_new(dtitle, 6, dheaders);
    int durability_done = 0;
    for (size_t si = 0; si < TSR_BENCH_FRAME_SIZES; si++) {
        if (!strstr(sizes_arg, sizes[si].name))
            continue;
        char ppm[1024];
        snprintf(ppm, sizeof ppm, "%s/%s.ppm", dir, sizes[si].name);
        if (!tsr_bench_file_exists(ppm)) {
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
        tsr_image img;
        if (tsr_image_load(ctx, ppm, &img, NULL) != TSR_OK) {
            fprintf(stderr, "cannot load %s: %s\n", ppm, tsr_ctx_last_error(ctx));
            return 1;
        }
        const double samples = (double)sizes[si].w * sizes[si].h * 3;
        const long target_1bpp = (long)sizes[si].w * sizes[si].h / 8;
        char qstep[32] = "";
        if (has_ojph) {
            const double q = match_qstep(ppm, outs[3], target_1bpp);
            if (q > 0)
                snprintf(qstep, sizeof qstep, "%.6g", q);
        }
        double cli_lossless_1t_us = -1;
        for (size_t ci = 0; ci < NCODINGS; ci++) {
            const coding *c = &codings[ci];
            char rate[32];
            snprintf(rate, sizeof rate, "%g", c->bpp);
            lib_job job = {ctx, &img, {0}};
            tsr_j2k_encode_options_init(&job.opt);
            if (c->at_step && !qstep[0])
                continue; /* no ojph_compress step to match */
            if (c->at_step) {
                job.opt.lossless = 0;
                job.opt.quant_step = (float)atof(qstep);
            } else if (c->bpp > 0) {
                job.opt.lossless = 0;
                job.opt.num_rates = 1;
                job.opt.rates[0] = c->bpp;
            }
            const char *tpos = threads_arg;
            while (*tpos) {
                const int th = atoi(tpos);
                const char *comma = strchr(tpos, ',');
                tpos = comma ? comma + 1 : tpos + strlen(tpos);
                if (th < 1 || (c->ht && th != 1))
                    continue;
                char tbuf[16];
                snprintf(tbuf, sizeof tbuf, "%d", th);
                char c_lib[32] = "n/a", c_cli[32] = "n/a", c_opj[32] = "n/a", c_grk[32] = "n/a",
                     c_ojph[32] = "n/a", c_ratio[32] = "n/a";
                const char *b_tsr = "n/a", *b_opj = "n/a", *b_grk = "n/a", *b_ojph = "n/a";
                long mb[4] = {-1, -1, -1, -1};
                tsr_bench_stats s;
                job.opt.threads = th;
                job.opt.ht = c->ht;
                if (with_lib)
                    snprintf(c_lib, sizeof c_lib, "%s",
                             tsr_bench_measure(run_lib, &job, 1, repeats, &s) == 0
                                 ? tsr_bench_fmt("%.1f", samples / s.median_us)
                                 : "error");
                /* the programs, measured together: tessera's, then the peers present */
                tsr_bench_prog p[4];
                char *cell[4];
                int who[4], np = 0;
                if (tool) { /* --lossless, --rate B or --qstep Q, then --ht for the HT rows */
                    const char *ht = c->ht ? "--ht" : NULL;
                    p[np] = (tsr_bench_prog){{tool, "j2k", "encode", ppm, outs[0], "--threads",
                                              tbuf, "--quiet",
                                              c->at_step   ? "--qstep"
                                              : c->bpp > 0 ? "--rate"
                                                           : "--lossless",
                                              c->at_step   ? qstep
                                              : c->bpp > 0 ? rate
                                                           : ht,
                                              c->bpp > 0 ? ht : NULL, NULL},
                                             0};
                    cell[np] = c_cli;
                    who[np++] = 0;
                }
                if (!c->ht && has_opj) {
                    p[np] = (tsr_bench_prog){{"opj_compress", "-i", ppm, "-o", outs[1], "-threads",
                                              tbuf, c->peer ? "-r" : NULL, c->peer, NULL},
                                             0};
                    cell[np] = c_opj;
                    who[np++] = 1;
                }
                if (!c->ht && has_grk) {
                    p[np] = (tsr_bench_prog){{"grk_compress", "-i", ppm, "-o", outs[2], "-H", tbuf,
                                              c->peer ? "-r" : NULL, c->peer, NULL},
                                             0};
                    cell[np] = c_grk;
                    who[np++] = 2;
                }
                if (c->ht && has_ojph && (c->bpp == 0 || qstep[0])) {
                    p[np] = (tsr_bench_prog){{"ojph_compress", "-i", ppm, "-o", outs[3],
                                              c->bpp > 0 ? "-qstep" : "-reversible",
                                              c->bpp > 0 ? qstep : "true", NULL},
                                             0};
                    cell[np] = c_ojph;
                    who[np++] = 3;
                }
                double med[4], cli = 0, best = 0;
                tsr_bench_measure_progs(p, np, repeats, med);
                const char **bcell[4] = {&b_tsr, &b_opj, &b_grk, &b_ojph};
                for (int i = 0; i < np; i++) {
                    const double r = med[i] > 0 ? samples / med[i] : 0;
                    snprintf(cell[i], 32, r > 0 ? "%.1f" : "error", r);
                    if (r <= 0)
                        continue;
                    mb[who[i]] = (p[i].peak_kb + 512) / 1024;
                    *bcell[who[i]] = bytes_psnr(ctx, outs[who[i]], &img);
                    if (who[i] == 0) {
                        cli = r;
                        if (ci == 0 && th == 1)
                            cli_lossless_1t_us = med[i];
                    } else
                        best = r > best ? r : best;
                }
                if (cli > 0 && best > 0)
                    snprintf(c_ratio, sizeof c_ratio, "%.2f", cli / best);
                char c_mb[64] = "";
                for (int i = 0; i < 4; i++)
                    snprintf(c_mb + strlen(c_mb), sizeof c_mb - strlen(c_mb), "%s%s", i ? "/" : "",
                             mb[i] >= 0 ? tsr_bench_fmt("%ld", mb[i]) : "-");
                const char *name =
                    c->at_step ? tsr_bench_fmt("HT at qstep %s (both)", qstep)
                    : c->ht && c->bpp > 0
                        ? tsr_bench_fmt("HT 1 bpp (tessera --rate 1, ojph qstep %s)", qstep)
                        : c->name;
                const char *row[NCOLS] = {sizes[si].name, name,   tsr_bench_fmt("%d", th),
                                          c_lib,          c_cli,  c_opj,
                                          c_grk,          c_ojph, c_ratio,
                                          b_tsr,          b_opj,  b_grk,
                                          b_ojph,         c_mb};
                tsr_bench_table_row(table, row);
                fprintf(stderr, "%s %s t%d: lib %s cli %s opj %s grk %s ojph %s | %s %s %s %s\n",
                        sizes[si].name, name, th, c_lib, c_cli, c_opj, c_grk, c_ojph, b_tsr, b_opj,
                        b_grk, b_ojph);
            }
        }
        const int durability_size = !strstr(sizes_arg, "4k") || si == 1;
        if (!durability_done && durability_size) {
            tsr_j2k_encode_options opt;
            tsr_j2k_encode_options_init(&opt);
            uint8_t *data = NULL;
            size_t len = 0;
            if (tsr_j2k_encode(ctx, &img, &opt, &data, &len) == TSR_OK)
                measure_durability(dtable, dir, tsr_bench_fmt("%s lossless", sizes[si].name), data,
                                   len, repeats, cli_lossless_1t_us);
            tsr_j2k_free(ctx, data);
            durability_done = 1;
        }
        tsr_image_free(ctx, &img);
    }
    printf("%s\n", tsr_bench_host_description());
    tsr_bench_table_print(table, stdout);
    tsr_bench_table_print(dtable, stdout);
    if (json) {
        const char *meta[] = {"host", tsr_bench_host_description(), NULL};
        tsr_bench_table *const tables[2] = {table, dtable};
        tsr_bench_json_write(json, "bench_j2k_encode", meta, tables, 2);
    }
    char dst[1024];
    snprintf(dst, sizeof dst, "%s/tsr_bench_durable.j2k", dir);
    unlink(dst);
    for (int i = 0; i < 4; i++)
        unlink(outs[i]);
    tsr_bench_table_free(table);
    tsr_bench_table_free(dtable);
    if (have_src)
        tsr_image_free(ctx, &src);
    tsr_ctx_destroy(ctx);
    return 0;
}
