/* Checkpoints of a migration (tessera/migrate.h): a folder holding manifest.json and the double
 * sum of the shots done, sum-N.f64 (N shots; raw little-endian float64, depth rows). The
 * manifest (jansson) says what the sum is of: its "velocity", "shots" and "options" sections
 * (the grid's geometry (ny, dy, oy in 3D only, so a 2D key is what it was before 3D and never
 * equals a 3D one), counts, time axis, 64-bit FNV-1a hashes of the samples and positions,
 * every option that changes the image and the backend) must equal this run's for the sum to be
 * taken; "inputs" (names, for people), "shots_done" and "sum" (file, bytes, hash) follow. Each
 * file is written atomically, the sum first: the manifest's rename is the moment a checkpoint
 * changes, so a kill at any point leaves the previous checkpoint or the new one whole. */
#include "core/checked.h"
#include "core/ctx.h"
#include "io/atomic_file.h"
#include "migrate/migrate_backends.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TSR__CKPT_FORMAT "tessera migrate checkpoint 1"
enum { TSR__CKPT_MANIFEST_MAX = 1 << 20, TSR__CKPT_PATH_MAX = 4096 };

struct tsr_migrate_checkpoint {
    char dir[TSR__CKPT_PATH_MAX];
    json_t *key;  /* format, inputs, velocity, shots, options */
    size_t cells; /* nx * nz, nx * ny * nz in 3D */
    int32_t done; /* shots in the sum on disk (0: none yet) */
    char sum[64]; /* its file name ("" when none) */
};

static const char *const tsr__ckpt_sections[] = {"format", "velocity", "shots", "options"};

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}
#define TSR__FNV_BASIS 0xcbf29ce484222325ULL

static void hex64(uint64_t h, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)h);
}

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

static void swap64(double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t u;
        memcpy(&u, &v[i], 8);
        u = __builtin_bswap64(u);
        memcpy(&v[i], &u, 8);
    }
}

/* Hash of the sum as stored (little-endian bytes). */
static uint64_t sum_hash(const double *sum, size_t cells)
{
    if (host_is_little_endian())
        return fnv1a(TSR__FNV_BASIS, sum, cells * sizeof(double));
    uint64_t h = TSR__FNV_BASIS;
    for (size_t i = 0; i < cells; i++) {
        double d = sum[i];
        swap64(&d, 1);
        h = fnv1a(h, &d, sizeof d);
    }
    return h;
}

static tsr_status join(tsr_ctx *ctx, const char *dir, const char *name, char *out)
{
    if (snprintf(out, TSR__CKPT_PATH_MAX, "%s/%s", dir, name) >= TSR__CKPT_PATH_MAX)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "checkpoint: the path '%s' is too long",
                         dir);
    return TSR_OK;
}

/* This run's key: what the sum depends on. */
static tsr_status make_key(tsr_ctx *ctx, const tsr_migrate_grid *v, const tsr_migrate_gather *g,
                           const tsr_migrate_options *opt, tsr_backend backend,
                           const char *shots_name, const char *model_name, json_t **out)
{
    char vh[17], sh[17];
    const int is3d = v->ny > 1;
    hex64(fnv1a(TSR__FNV_BASIS, v->data, sizeof(float) * tsr_migrate_grid_cells(v)), vh);
    uint64_t h = TSR__FNV_BASIS;
    for (int32_t s = 0; s < g->nshots; s++) {
        const tsr_migrate_shot *shot = &g->shots[s];
        h = fnv1a(h, &shot->sx, sizeof shot->sx);
        h = fnv1a(h, &shot->sy, sizeof shot->sy);
        h = fnv1a(h, &shot->ntraces, sizeof shot->ntraces);
        h = fnv1a(h, shot->gx, sizeof(double) * (size_t)shot->ntraces);
        /* 3D: the receivers' y too (their sy where gy is NULL, as the migration places them);
         * 2D ignores gy, and so does its hash (a 2D key is what it was before 3D) */
        for (int32_t i = 0; is3d && i < shot->ntraces; i++)
            h = fnv1a(h, shot->gy ? &shot->gy[i] : &shot->sy, sizeof(double));
        h = fnv1a(h, shot->traces, sizeof(float) * (size_t)shot->ntraces * (size_t)g->nt);
    }
    hex64(h, sh);
    *out = json_pack(
        "{s:s, s:{s:s?, s:s?}, s:{s:i, s:i, s:f, s:f, s:f, s:f, s:s},"
        " s:{s:i, s:i, s:f, s:f, s:s},"
        " s:{s:s, s:s, s:f, s:f, s:f, s:f, s:i, s:s}}",
        "format", TSR__CKPT_FORMAT, "inputs", "shots", shots_name, "model", model_name, "velocity",
        "nx", (int)v->nx, "nz", (int)v->nz, "dx", v->dx, "dz", v->dz, "ox", v->ox, "oz", v->oz,
        "hash", vh, "shots", "count", (int)g->nshots, "nt", (int)g->nt, "dt", g->dt, "t0", g->t0,
        "hash", sh, "options", "method", tsr_migrate_method_name(opt->method), "imaging",
        tsr_migrate_imaging_name(opt->imaging), "fmin", opt->fmin, "fmax", opt->fmax, "f0", opt->f0,
        "epsilon", opt->epsilon, "taper", (int)opt->taper, "backend", tsr_backend_name(backend));
    if (*out && is3d) {
        json_t *vel = json_object_get(*out, "velocity");
        if (json_object_set_new(vel, "ny", json_integer(v->ny)) ||
            json_object_set_new(vel, "dy", json_real(v->dy)) ||
            json_object_set_new(vel, "oy", json_real(v->oy))) {
            json_decref(*out);
            *out = NULL;
        }
    }
    return *out ? TSR_OK
                : tsr__fail(ctx, TSR_ERR_OUT_OF_MEMORY, "checkpoint: no memory for the manifest");
}

/* A value as JSON text, for messages (at most cap - 1 bytes). */
static void shown(const json_t *v, char *out, size_t cap)
{
    char *t = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    snprintf(out, cap, "%s", t ? t : "missing");
    free(t);
}

/* The first difference between the manifest m and this run's key, as TSR_ERR_INVALID_ARGUMENT
 * naming it. */
static tsr_status compare(tsr_ctx *ctx, const char *path, const json_t *m, const json_t *key)
{
    for (size_t i = 0; i < sizeof tsr__ckpt_sections / sizeof tsr__ckpt_sections[0]; i++) {
        const char *sec = tsr__ckpt_sections[i];
        const json_t *want = json_object_get(key, sec), *got = json_object_get(m, sec);
        const char *name;
        const json_t *w;
        char a[128], b[128];
        if (!json_is_object(want)) {
            if (json_equal(want, got))
                continue;
            shown(got, a, sizeof a);
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "checkpoint '%s' is not a migration checkpoint (format %s)", path, a);
        }
        /* a key of the manifest's section that this run lacks (a 3D checkpoint's ny for a 2D
         * run) is a difference too */
        json_object_foreach((json_t *)got, name, w)
        {
            if (json_object_get(want, name))
                continue;
            shown(w, a, sizeof a);
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "checkpoint '%s' was made from other inputs or options: its %s.%s "
                             "is %s, this run has none (a 3D checkpoint for a 2D run?); remove "
                             "the folder to start again",
                             path, sec, name, a);
        }
        json_object_foreach((json_t *)want, name, w)
        {
            const json_t *g = json_object_get(got, name);
            if (json_equal(w, g))
                continue;
            shown(g, a, sizeof a);
            shown(w, b, sizeof b);
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "checkpoint '%s' was made from other inputs or options: its %s.%s "
                             "is %s, this run's %s; remove the folder to start again",
                             path, sec, name, a, b);
        }
    }
    return TSR_OK;
}

/* Reads the sum file `name` of `bytes` bytes and hash `hash` into sum. */
static tsr_status read_sum(tsr_ctx *ctx, const char *dir, const char *name, size_t cells,
                           const char *hash, double *sum)
{
    char path[TSR__CKPT_PATH_MAX];
    tsr_status st = join(ctx, dir, name, path);
    if (st)
        return st;
    FILE *f = fopen(path, "rb");
    if (!f)
        return tsr__fail(ctx, TSR_ERR_IO, "checkpoint: cannot open '%s': %s", path,
                         strerror(errno));
    size_t got = fread(sum, sizeof(double), cells, f);
    int extra = fgetc(f) != EOF;
    fclose(f);
    if (got != cells || extra)
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "checkpoint: '%s' does not hold %zu doubles", path,
                         cells);
    if (!host_is_little_endian())
        swap64(sum, cells);
    char h[17];
    hex64(sum_hash(sum, cells), h);
    if (strcmp(h, hash) != 0)
        return tsr__fail(ctx, TSR_ERR_CORRUPT,
                         "checkpoint: '%s' has hash %s, its manifest says %s (damaged)", path, h,
                         hash);
    return TSR_OK;
}

/* The manifest at path (present) into cp and sum, when it is of this run. */
static tsr_status load(tsr_ctx *ctx, tsr_migrate_checkpoint *cp, const char *path, int32_t nshots,
                       double *sum)
{
    json_error_t err;
    json_t *m = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!m)
        return tsr__fail(ctx,
                         json_error_code(&err) == json_error_out_of_memory ? TSR_ERR_OUT_OF_MEMORY
                                                                           : TSR_ERR_CORRUPT,
                         "checkpoint '%s': line %d, column %d: %s", path, err.line, err.column,
                         err.text);
    tsr_status st = compare(ctx, path, m, cp->key);
    const json_t *done = json_object_get(m, "shots_done"), *s = json_object_get(m, "sum");
    const char *file = json_string_value(json_object_get(s, "file"));
    const char *hash = json_string_value(json_object_get(s, "hash"));
    const json_t *bytes = json_object_get(s, "bytes");
    if (!st && (!json_is_integer(done) || json_integer_value(done) < 0 ||
                json_integer_value(done) > nshots || !file || !hash || strchr(file, '/') ||
                strlen(file) >= sizeof cp->sum || !json_is_integer(bytes) ||
                (json_int_t)(cp->cells * sizeof(double)) != json_integer_value(bytes)))
        st = tsr__fail(ctx, TSR_ERR_CORRUPT,
                       "checkpoint '%s': \"shots_done\" (0 .. %d) or \"sum\" (file, bytes %zu, "
                       "hash) is missing or wrong",
                       path, (int)nshots, cp->cells * sizeof(double));
    if (!st && !(st = read_sum(ctx, cp->dir, file, cp->cells, hash, sum))) {
        cp->done = (int32_t)json_integer_value(done);
        snprintf(cp->sum, sizeof cp->sum, "%s", file);
    }
    json_decref(m);
    return st;
}

/* Removes sum-*.f64 files of the folder other than the current one (left by a run killed between
 * writing a sum and its manifest); best effort. */
static void remove_stale(const tsr_migrate_checkpoint *cp)
{
    DIR *d = opendir(cp->dir);
    if (!d)
        return;
    struct dirent *e;
    char path[TSR__CKPT_PATH_MAX];
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n > 8 && strncmp(e->d_name, "sum-", 4) == 0 && strcmp(e->d_name + n - 4, ".f64") == 0 &&
            strcmp(e->d_name, cp->sum) != 0 &&
            snprintf(path, sizeof path, "%s/%s", cp->dir, e->d_name) < (int)sizeof path)
            remove(path);
    }
    closedir(d);
}

void tsr_migrate_checkpoint_close(tsr_ctx *ctx, tsr_migrate_checkpoint *cp)
{
    if (!cp)
        return;
    json_decref(cp->key);
    tsr__free(ctx, cp);
}

tsr_status tsr_migrate_checkpoint_open(tsr_ctx *ctx, const char *dir,
                                       const tsr_migrate_grid *velocity,
                                       const tsr_migrate_gather *shots,
                                       const tsr_migrate_options *opt, const char *shots_name,
                                       const char *model_name, tsr_migrate_checkpoint **out,
                                       int32_t *shots_done, double *sum)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (!dir || !dir[0] || !velocity || !velocity->data || velocity->nx < 1 || velocity->nz < 1 ||
        !shots || shots->nshots < 1 || !shots->shots || !out || !shots_done || !sum)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "checkpoint: needs a folder, a velocity model, shots and a sum");
    *out = NULL;
    tsr_migrate_options defaults;
    if (!opt) {
        tsr_migrate_options_init(&defaults);
        opt = &defaults;
    }
    tsr_backend backend;
    if ((st = tsr__migrate_backend_pick(ctx, opt->method, velocity->ny > 1, &backend)))
        return st;
    tsr_migrate_checkpoint *cp;
    if ((st = tsr__alloc(ctx, sizeof *cp, (void **)&cp)))
        return st;
    memset(cp, 0, sizeof *cp);
    cp->cells = tsr_migrate_grid_cells(velocity);
    if (snprintf(cp->dir, sizeof cp->dir, "%s", dir) >= (int)sizeof cp->dir - 80) {
        tsr__free(ctx, cp);
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "checkpoint: the path '%s' is too long",
                         dir);
    }
    if ((st = make_key(ctx, velocity, shots, opt, backend, shots_name, model_name, &cp->key))) {
        tsr__free(ctx, cp);
        return st;
    }
    struct stat sb;
    char path[TSR__CKPT_PATH_MAX];
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        st = tsr__fail(ctx, TSR_ERR_IO, "checkpoint: cannot make the folder '%s': %s", dir,
                       strerror(errno));
    else if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        st = tsr__fail(ctx, TSR_ERR_IO, "checkpoint: '%s' is not a folder", dir);
    else if (!(st = join(ctx, dir, "manifest.json", path))) {
        if (stat(path, &sb) == 0)
            st = load(ctx, cp, path, shots->nshots, sum);
        else if (errno != ENOENT)
            st = tsr__fail(ctx, TSR_ERR_IO, "checkpoint: cannot read '%s': %s", path,
                           strerror(errno));
    }
    if (st) {
        tsr_migrate_checkpoint_close(ctx, cp);
        return st;
    }
    if (cp->done == 0)
        memset(sum, 0, sizeof(double) * cp->cells);
    remove_stale(cp);
    *shots_done = cp->done;
    *out = cp;
    return TSR_OK;
}

/* Writes n bytes to dir/name atomically. */
static tsr_status write_file(tsr_ctx *ctx, const char *dir, const char *name, const void *data,
                             size_t n)
{
    char path[TSR__CKPT_PATH_MAX];
    tsr__atomic_file af;
    tsr_status st = join(ctx, dir, name, path);
    if (st || (st = tsr__atomic_open(ctx, path, &af)))
        return st;
    if ((st = tsr__atomic_write(ctx, &af, data, n))) {
        tsr__atomic_abort(ctx, &af);
        return st;
    }
    return tsr__atomic_commit(ctx, &af);
}

/* The sum as little-endian bytes into dir/name. */
static tsr_status write_sum(tsr_ctx *ctx, const char *dir, const char *name, const double *sum,
                            size_t cells)
{
    if (host_is_little_endian())
        return write_file(ctx, dir, name, sum, sizeof(double) * cells);
    double *le;
    tsr_status st = tsr__alloc(ctx, sizeof(double) * cells, (void **)&le);
    if (st)
        return st;
    memcpy(le, sum, sizeof(double) * cells);
    swap64(le, cells);
    st = write_file(ctx, dir, name, le, sizeof(double) * cells);
    tsr__free(ctx, le);
    return st;
}

tsr_status tsr_migrate_checkpoint_save(tsr_ctx *ctx, tsr_migrate_checkpoint *cp, int32_t shots_done,
                                       const double *sum)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    const json_int_t nshots =
        json_integer_value(json_object_get(json_object_get(cp ? cp->key : NULL, "shots"), "count"));
    if (!cp || !sum || shots_done < 0 || shots_done > nshots)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "checkpoint: no checkpoint or sum, or %d shots done is out of range",
                         (int)shots_done);
    char name[64], hash[17];
    snprintf(name, sizeof name, "sum-%d.f64", (int)shots_done);
    hex64(sum_hash(sum, cp->cells), hash);
    if ((st = write_sum(ctx, cp->dir, name, sum, cp->cells)))
        return st;
    json_t *m = json_deep_copy(cp->key);
    if (!m || json_object_set_new(m, "shots_done", json_integer(shots_done)) ||
        json_object_set_new(m, "sum",
                            json_pack("{s:s, s:I, s:s}", "file", name, "bytes",
                                      (json_int_t)(cp->cells * sizeof(double)), "hash", hash))) {
        json_decref(m);
        return tsr__fail(ctx, TSR_ERR_OUT_OF_MEMORY, "checkpoint: no memory for the manifest");
    }
    char *text = json_dumps(m, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
    json_decref(m);
    if (!text)
        return tsr__fail(ctx, TSR_ERR_OUT_OF_MEMORY, "checkpoint: no memory for the manifest");
    size_t n = strlen(text);
    char *line = realloc(text, n + 2);
    if (!line) {
        free(text);
        return tsr__fail(ctx, TSR_ERR_OUT_OF_MEMORY, "checkpoint: no memory for the manifest");
    }
    line[n++] = '\n';
    st = write_file(ctx, cp->dir, "manifest.json", line, n);
    free(line);
    if (st)
        return st;
    if (cp->sum[0] && strcmp(cp->sum, name) != 0) {
        char old[TSR__CKPT_PATH_MAX];
        if (!join(ctx, cp->dir, cp->sum, old))
            remove(old);
    }
    snprintf(cp->sum, sizeof cp->sum, "%s", name);
    cp->done = shots_done;
    return TSR_OK;
}
