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
 * (measure_progs); each figure is a median over the rounds.
 *
 * Usage: bench_j2k [--dir DIR] [--threads 1,2] [--sizes 2k,4k,8k] [--repeats N] [--json F]
 *                  [--tool PATH_TO_tessera] [--codings p1,ht] [--lib no]
 * (--lib no: only the programs, without the two library columns: a third of the time.) */
#define _DEFAULT_SOURCE /* wait4 */
#include "harness.h"
#include "tessera/tessera.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && st.st_size > 0;
}

static int have(const char *prog)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", prog);
    return system(cmd) == 0;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* Cuts the source into a w x h RGB PPM (rotating the portrait source for 8K). */
static int make_frame(tsr_ctx *ctx, const tsr_image *src, int w, int h, const char *out)
{
    tsr_image img;
    if (tsr_image_alloc(ctx, &img, w, h, 3, TSR_U8) != TSR_OK)
        return 1;
    int rotate = w > src->width;
    for (int y = 0; y < h; y++) {
        uint8_t *d = (uint8_t *)img.data + (size_t)y * img.stride;
        for (int x = 0; x < w; x++) {
            int sx = rotate ? 100 + y : 200 + x, sy = rotate ? 100 + (w - 1 - x) : 1000 + y;
            const uint8_t *s =
                (const uint8_t *)src->data + (size_t)sy * src->stride + (size_t)sx * 3;
            memcpy(d + (size_t)x * 3, s, 3);
        }
    }
    tsr_status st = tsr_image_save(ctx, out, &img, NULL);
    tsr_image_free(ctx, &img);
    return st != TSR_OK;
}

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

/* Programs are started by a small spawner process forked at the start of main: a process's
 * peak resident memory (ru_maxrss) counts the memory of the process it was forked from, so
 * forking the programs from this one, which holds the images, would report its size instead
 * of theirs. The spawner reads a request (argv as NUL-separated strings, after its byte count),
 * runs the program with stdout and stderr to /dev/null, waits for it with wait4 and answers
 * {exit ok, peak KB}. */
static int spawn_req = -1, spawn_resp = -1;

static void spawner(int req, int resp)
{
    static char buf[8192];
    uint32_t n;
    while (read(req, &n, sizeof n) == (ssize_t)sizeof n && n < sizeof buf &&
           read(req, buf, n) == (ssize_t)n) {
        char *argv[32];
        int argc = 0;
        for (uint32_t i = 0; i < n && argc < 31; i += (uint32_t)strlen(buf + i) + 1)
            argv[argc++] = buf + i;
        argv[argc] = NULL;
        long answer[2] = {0, 0};
        const pid_t pid = fork();
        if (pid == 0) {
            const int fd = open("/dev/null", O_WRONLY);
            if (fd >= 0) {
                dup2(fd, 1);
                dup2(fd, 2);
            }
            execvp(argv[0], argv);
            _exit(127);
        }
        int status;
        struct rusage ru;
        if (pid > 0 && wait4(pid, &status, 0, &ru) == pid) {
            answer[0] = WIFEXITED(status) && WEXITSTATUS(status) == 0;
            answer[1] = ru.ru_maxrss;
        }
        if (write(resp, answer, sizeof answer) != (ssize_t)sizeof answer)
            break;
    }
    _exit(0);
}

/* Forks the spawner; 0 or -1. */
static int start_spawner(void)
{
    int a[2], b[2];
    if (pipe(a) || pipe(b))
        return -1;
    const pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(a[1]);
        close(b[0]);
        spawner(a[0], b[1]);
    }
    close(a[0]);
    close(b[1]);
    spawn_req = a[1];
    spawn_resp = b[0];
    return 0;
}

/* A program run for tsr_bench_measure: argv (NULL-terminated) through the spawner; peak_kb:
 * the last run's peak resident memory. */
typedef struct prog_run {
    const char *argv[16];
    long peak_kb;
} prog_run;

static int run_prog(void *user, int iter, double *us)
{
    (void)iter;
    (void)us;
    prog_run *p = user;
    char buf[8192];
    uint32_t n = 0;
    for (int i = 0; p->argv[i]; i++) {
        const size_t l = strlen(p->argv[i]) + 1;
        if (n + l > sizeof buf)
            return -1;
        memcpy(buf + n, p->argv[i], l);
        n += (uint32_t)l;
    }
    long answer[2];
    if (write(spawn_req, &n, sizeof n) != (ssize_t)sizeof n ||
        write(spawn_req, buf, n) != (ssize_t)n ||
        read(spawn_resp, answer, sizeof answer) != (ssize_t)sizeof answer)
        return -1;
    p->peak_kb = answer[1];
    return !answer[0];
}

enum { MAX_ROUNDS = 31 };

/* Measures n programs in interleaved rounds (one run of each a round, after a warm-up round), so
 * that a slow moment of the machine falls on all of them alike: `repeats` rounds, raised until
 * the fastest program's runs add up to about a second (at most MAX_ROUNDS): a 40-ms program's
 * median of a few runs moves by 10-20% with this machine's bimodal system time
 * (bench/notes/j2k.md). median_us[i]: program i's median, or -1 when a run of it failed (it is
 * left out of the later rounds). */
static void measure_progs(prog_run *p, int n, int repeats, double *median_us)
{
    double t[4][MAX_ROUNDS];
    int ok[4];
    for (int i = 0; i < n; i++) {
        double us = -1;
        ok[i] = run_prog(&p[i], 0, &us) == 0; /* warm-up */
        median_us[i] = -1;
    }
    int rounds = repeats < MAX_ROUNDS ? repeats : MAX_ROUNDS;
    for (int r = 0; r < rounds; r++) {
        double fastest = 1e300;
        for (int i = 0; i < n; i++) {
            if (!ok[i])
                continue;
            double us = -1;
            const double t0 = tsr_bench_now_us();
            ok[i] = run_prog(&p[i], r + 1, &us) == 0;
            t[i][r] = tsr_bench_now_us() - t0;
            fastest = t[i][r] < fastest ? t[i][r] : fastest;
        }
        if (r == 0 && fastest < 1e300) {
            const int need = (int)(1e6 / fastest) + 1;
            rounds = need > rounds ? (need < MAX_ROUNDS ? need : MAX_ROUNDS) : rounds;
        }
    }
    for (int i = 0; i < n; i++) {
        tsr_bench_stats s;
        if (!ok[i])
            continue;
        tsr_bench_stats_of(t[i], rounds, &s);
        median_us[i] = s.median_us;
    }
}

int main(int argc, char **argv)
{
    if (start_spawner()) {
        perror("bench_j2k: the program spawner");
        return 1;
    }
    const char *dir = "/tmp/tsr_j2k_bench", *threads_arg = "1,2", *sizes_arg = "2k,4k,8k";
    const char *json = NULL, *tool = NULL, *codings_arg = "p1,ht";
    int repeats = 3, with_lib = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--dir"))
            dir = argv[i + 1];
        else if (!strcmp(argv[i], "--threads"))
            threads_arg = argv[i + 1];
        else if (!strcmp(argv[i], "--sizes"))
            sizes_arg = argv[i + 1];
        else if (!strcmp(argv[i], "--repeats"))
            repeats = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--json"))
            json = argv[i + 1];
        else if (!strcmp(argv[i], "--tool"))
            tool = argv[i + 1];
        else if (!strcmp(argv[i], "--codings"))
            codings_arg = argv[i + 1];
        else if (!strcmp(argv[i], "--lib"))
            with_lib = strcmp(argv[i + 1], "no") != 0;
        else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (repeats < 1)
        repeats = 1;
    const char *data_root = getenv("TSR_DATA") ? getenv("TSR_DATA") : "../shared/data";
    mkdir(dir, 0777);
    tsr_ctx *ctx;
    tsr_ctx_options copt;
    tsr_ctx_options_init(&copt);
    copt.backend = TSR_BACKEND_CPU;
    if (tsr_ctx_create(&copt, &ctx) != TSR_OK)
        return 1;
    int has_opj = have("opj_decompress"), has_opj_enc = have("opj_compress");
    int has_grk = have("grk_decompress");
    int has_ojph = have("ojph_expand"), has_ojph_enc = have("ojph_compress");
    static const struct {
        const char *name;
        int w, h;
    } sizes[] = {{"2k", 2048, 1080}, {"4k", 4096, 2160}, {"8k", 7680, 4320}};
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
    for (size_t si = 0; si < 3; si++) {
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
            if (strstr(codings_arg, codings[ci].ht ? "ht" : "p1") && !file_exists(st))
                need_ppm = 1;
        }
        if (need_ppm && !file_exists(ppm)) {
            if (!have_src) {
                char p[1024];
                snprintf(p, sizeof p, "%s/images/desert_mesa_4611x8192.jpg", data_root);
                if (tsr_image_load(ctx, p, &src, NULL) != TSR_OK) {
                    fprintf(stderr, "cannot load %s: %s\n", p, tsr_ctx_last_error(ctx));
                    return 1;
                }
                have_src = 1;
            }
            if (make_frame(ctx, &src, sizes[si].w, sizes[si].h, ppm))
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
            if (!file_exists(stream)) {
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
            uint8_t *data = slurp(stream, &len);
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
                prog_run p[4];
                char *cell[4];
                int np = 0;
                if (tool) {
                    p[np] = (prog_run){{tool, "j2k", "decode", stream, out_ppm, "--threads", tbuf,
                                        "--quiet", NULL},
                                       0};
                    cell[np++] = c_cli;
                }
                if (has_opj) {
                    p[np] = (prog_run){
                        {"opj_decompress", "-i", stream, "-o", out_ppm, "-threads", tbuf, NULL}, 0};
                    cell[np++] = c_opj;
                }
                if (has_grk) {
                    p[np] = (prog_run){
                        {"grk_decompress", "-i", stream, "-o", out_ppm, "-H", tbuf, NULL}, 0};
                    cell[np++] = c_grk;
                }
                if (has_ojph && codings[ci].ht && th == 1) {
                    p[np] = (prog_run){{"ojph_expand", "-i", stream, "-o", out_ppm, NULL}, 0};
                    cell[np++] = c_ojph;
                }
                double med[4];
                measure_progs(p, np, repeats, med);
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
