/* j2k_decode_many.h: `tessera j2k decode IN... FOLDER`, the batch convention of tessera resize
 * (outputs under the inputs' names in a folder created if missing, progress on a terminal, a
 * failed file reported and the rest written, exit status 1 at the end). */
#define _POSIX_C_SOURCE 200809L
#include "j2k_decode_many.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* Files a batch on CUDA holds in memory at once (inputs and decoded images): the pipeline runs
 * within a group; a group of 4K RGB frames holds about 16 x (12 + 26.5) MB. */
enum { GROUP = 16 };

typedef struct name_list {
    char **v;
    int n, cap;
} name_list;

static int list_add(name_list *l, const char *s)
{
    if (l->n == l->cap) {
        const int cap = l->cap ? 2 * l->cap : 64;
        char **v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v)
            return 0;
        l->v = v;
        l->cap = cap;
    }
    return (l->v[l->n] = strdup(s)) != NULL && ++l->n;
}

static void list_free(name_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

int j2k_is_folder(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of folder dir (not those starting with '.', not sub-folders), in name order. */
static int add_folder(const cli_command *cmd, name_list *l, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        cli_error(cmd, "cannot read folder '%s': %s", dir, strerror(errno));
        return TSR_EXIT_FAILURE;
    }
    const int first = l->n;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        char path[4096];
        if (e->d_name[0] == '.')
            continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= (int)sizeof path) {
            cli_error(cmd, "path '%s/%s' is too long", dir, e->d_name);
            rc = TSR_EXIT_USAGE;
        } else if (!j2k_is_folder(path) && !list_add(l, path)) {
            cli_error(cmd, "out of memory");
            rc = TSR_EXIT_FAILURE;
        }
    }
    closedir(d);
    qsort(l->v + first, (size_t)(l->n - first), sizeof *l->v, by_name);
    return rc;
}

/* folder/NAME.ext for input in (NAME: its file name up to the last '.'); 0 when too long. */
static int output_name(char *out, size_t cap, const char *folder, const char *in, const char *ext)
{
    const char *base = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
    const char *dot = strrchr(base, '.');
    const int stem = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
    return snprintf(out, cap, "%s/%.*s.%s", folder, stem, base, ext) < (int)cap;
}

int j2k_read_file(const cli_command *cmd, const char *path, uint8_t **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        cli_error(cmd, "cannot open '%s': %s", path, strerror(errno));
        return TSR_EXIT_FAILURE;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        uint8_t *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int err = ferror(f);
    fclose(f);
    if (!buf || err) {
        free(buf);
        cli_error(cmd, "cannot read '%s'", path);
        return TSR_EXIT_FAILURE;
    }
    *data = buf;
    *len = n;
    return 0;
}

int j2k_note_nonstandard(tsr_ctx *ctx, const uint8_t *data, size_t len, const char *in, int quiet)
{
    tsr_j2k_info info;
    if (tsr_j2k_read_header(ctx, data, len, &info, NULL, 0) || !info.nonstandard)
        return 0;
    if (!quiet)
        fprintf(stderr,
                "tessera j2k: note: %s is NOT a JPEG 2000 stream (tessera's fast-nonstandard "
                "block coder); decoded exactly by tessera only\n",
                in);
    return 1;
}

typedef struct run_state {
    const cli_command *cmd;
    tsr_ctx *ctx;
    int quiet, failed, done;
} run_state;

static void report_warnings(const run_state *r, const char *in, const tsr_j2k_result *res)
{
    if (res->warnings && !r->quiet)
        fprintf(stderr, "tessera j2k: warning: %s: %s%s\n", in, res->warning,
                res->warnings > 1 ? " (and more)" : "");
}

/* One file through tsr_j2k_decode_save (CPU backends, and PGX outputs). */
static void decode_one(run_state *r, const tsr_j2k_decode_options *opt, const char *in,
                       const char *out)
{
    uint8_t *data;
    size_t len;
    if (j2k_read_file(r->cmd, in, &data, &len)) {
        r->failed++;
        return;
    }
    tsr_j2k_save_result res;
    const tsr_status st = tsr_j2k_decode_save(r->ctx, data, len, opt, out, &res);
    if (!st)
        j2k_note_nonstandard(r->ctx, data, len, in, r->quiet);
    free(data);
    if (st) {
        cli_fail(r->cmd, r->ctx, st, res.output_failed ? out : in);
        r->failed++;
    } else {
        report_warnings(r, in, &res.decode);
    }
}

/* Files in[0 .. n) through one tsr_j2k_decode_images call into host images, then saved. */
static void decode_group(run_state *r, const tsr_j2k_decode_options *opt, char *const *in,
                         char *const *out, int n)
{
    tsr_j2k_decode_item items[GROUP];
    uint8_t *data[GROUP];
    memset(items, 0, sizeof items);
    uint32_t m = 0;
    int at[GROUP];
    for (int i = 0; i < n; i++) {
        size_t len;
        if (j2k_read_file(r->cmd, in[i], &data[i], &len)) {
            r->failed++;
            continue;
        }
        tsr_image desc;
        tsr_status st = tsr_j2k_decode_image_layout(r->ctx, data[i], len, opt, &desc);
        if (!st)
            st = tsr_image_alloc(r->ctx, &items[m].image, desc.width, desc.height, desc.channels,
                                 desc.depth);
        if (st) {
            cli_fail(r->cmd, r->ctx, st, in[i]);
            r->failed++;
            free(data[i]);
            continue;
        }
        items[m].data = data[i];
        items[m].len = len;
        at[m++] = i;
    }
    tsr_j2k_decode_images(r->ctx, opt, items, m);
    for (uint32_t k = 0; k < m; k++) {
        const int i = at[k];
        tsr_status st = items[k].status;
        if (st == TSR_ERR_INTERRUPTED && cli_stop_requested()) {
            /* a signal stopped the batch: said once at the end */
        } else if (st) {
            cli_error(r->cmd, "%s: %s", in[i], items[k].error);
            r->failed++;
        } else if ((st = tsr_image_save(r->ctx, out[i], &items[k].image, NULL))) {
            cli_fail(r->cmd, r->ctx, st, out[i]);
            r->failed++;
        } else {
            report_warnings(r, in[i], &items[k].result);
        }
        tsr_image_free(r->ctx, &items[k].image);
        free(data[i]);
    }
}

int j2k_decode_many(const cli_command *cmd, const cli_args *args, tsr_ctx *ctx,
                    const tsr_j2k_decode_options *opt, char *const *inputs, int ninputs,
                    const char *folder, const char *ext)
{
    static const char *const exts[] = {"png", "pgm", "ppm", "pnm", "pgx"};
    int known = 0;
    for (size_t k = 0; k < sizeof exts / sizeof exts[0]; k++)
        known |= strcasecmp(ext, exts[k]) == 0;
    if (!known) {
        cli_error(cmd, "--format wants png, pgm, ppm, pnm or pgx, not '%s'", ext);
        return TSR_EXIT_USAGE;
    }
    name_list in = {0}, out = {0};
    int rc = 0;
    for (int i = 0; i < ninputs && rc == 0; i++)
        rc = j2k_is_folder(inputs[i])   ? add_folder(cmd, &in, inputs[i])
             : list_add(&in, inputs[i]) ? 0
                                        : TSR_EXIT_FAILURE;
    if (rc == 0 && in.n == 0) {
        cli_error(cmd, "no input files");
        rc = TSR_EXIT_USAGE;
    }
    for (int i = 0; i < in.n && rc == 0; i++) {
        char path[4096];
        if (!output_name(path, sizeof path, folder, in.v[i], ext) || !list_add(&out, path)) {
            cli_error(cmd, "output path for '%s' is too long", in.v[i]);
            rc = TSR_EXIT_USAGE;
        }
    }
    if (rc == 0 && !j2k_is_folder(folder) && mkdir(folder, 0777) != 0) {
        cli_error(cmd, "cannot create output folder '%s': %s", folder, strerror(errno));
        rc = TSR_EXIT_FAILURE;
    }
    cli_output *checks = rc == 0 ? calloc((size_t)in.n, sizeof *checks) : NULL;
    if (rc == 0 && !checks) {
        cli_error(cmd, "out of memory");
        rc = TSR_EXIT_FAILURE;
    }
    for (int i = 0; i < in.n && rc == 0; i++)
        checks[i] =
            (cli_output){out.v[i],      "output",      TSR_WRITES_ROWS | TSR_FILE_BIT(TSR_FILE_PGX),
                         TSR_FILE_NONE, TSR_FILE_NONE, 0};
    if (rc == 0)
        rc = cli_check_outputs(cmd, ctx, (const char *const *)in.v, in.n, checks, in.n, 0);
    free(checks);
    if (rc) {
        list_free(&in);
        list_free(&out);
        return rc;
    }
    run_state r = {cmd, ctx, cli_get(cmd, args, "quiet") != NULL, 0, 0};
    const int json = cli_get(cmd, args, "json") != NULL;
    /* the batch call on CUDA; PGX planes and the CPU backends one file at a time */
    const int batch = tsr_ctx_backend(ctx) == TSR_BACKEND_CUDA && strcasecmp(ext, "pgx") != 0;
    cli_progress progress;
    cli_progress_init(&progress, r.quiet || json);
    const double t0 = cli_now();
    for (int i = 0; i < in.n && !cli_stop_requested();) {
        const int n = batch ? (in.n - i < GROUP ? in.n - i : GROUP) : 1;
        if (batch)
            decode_group(&r, opt, in.v + i, out.v + i, n);
        else
            decode_one(&r, opt, in.v[i], out.v[i]);
        if (cli_stop_requested())
            break; /* the files of a stopped group or file are not counted as done */
        i += n;
        r.done = i;
        cli_progress_update(&progress, "j2k decode", r.done, in.n);
    }
    const double t1 = cli_now();
    cli_progress_end(&progress);
    if (r.done < in.n) {
        cli_error(cmd, "interrupted after %d of %d files (those are written)", r.done, in.n);
        rc = TSR_EXIT_INTERRUPTED;
    } else if (r.failed) {
        cli_error(cmd, "%d of %d files failed (the others are written)", r.failed, in.n);
        rc = TSR_EXIT_FAILURE;
    }
    if (json) {
        printf("{\"command\": \"j2k decode\", \"inputs\": %d, \"failed\": %d, \"folder\": ", in.n,
               r.failed);
        cli_json_string(stdout, folder);
        printf(", \"seconds\": %.6f, \"frames_per_second\": %.3f, \"batch\": %s, \"backend\": "
               "\"%s\", \"device\": ",
               t1 - t0, t1 > t0 ? (r.done - r.failed) / (t1 - t0) : 0.0, batch ? "true" : "false",
               tsr_backend_name(tsr_ctx_backend(ctx)));
        cli_json_string(stdout, tsr_ctx_device_name(ctx));
        printf(", \"ok\": %s}\n", rc == 0 ? "true" : "false");
    }
    if (rc == 0)
        cli_note_backend(cmd, ctx, r.quiet || json);
    list_free(&in);
    list_free(&out);
    return rc;
}
