/* Grids in files: the JSON sidecar + raw little-endian float32 format of
 * ../shared/data/seismic/derived (keys file, nx, nz, dx, dz, ox, oz; C order (nx, nz), z fast;
 * 3D: ny >= 2, dy, oy and C order (ny, nx, nz)). The sidecar is read with jansson (RFC 8259,
 * UTF-8): one object, at most 1 MiB, each key once; keys other than file, nx, nz, dx, dz, ox, oz,
 * ny, dy and oy are ignored whatever their values. */
#include "core/checked.h"
#include "core/ctx.h"
#include "migrate/plan.h"
#include "io/atomic_file.h"
#include "tessera/migrate.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TSR__SIDECAR_MAX = 1 << 20, TSR__NAME_MAX = 4096 };

/* What a sidecar says: the data file's name and the numeric keys present. */
typedef struct sidecar {
    char file[TSR__NAME_MAX];
    double num[9]; /* nx nz dx dz ox oz ny dy oy */
    int have[9];
} sidecar;

enum { KEY_NY = 6, KEY_DY = 7, KEY_OY = 8, NKEYS = 9 };
static const char *const num_keys[NKEYS] = {"nx", "nz", "dx", "dz", "ox", "oz", "ny", "dy", "oy"};

/* The JSON type of v, for messages. */
static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* Parses len bytes of text (the sidecar at path, for messages) into *sc: TSR_ERR_CORRUPT naming
 * the line and column of a JSON error, or the key whose value has the wrong type;
 * TSR_ERR_OUT_OF_MEMORY when jansson runs out. Presence and ranges are the caller's. */
static tsr_status parse_sidecar(tsr_ctx *ctx, const char *path, const char *text, size_t len,
                                sidecar *sc)
{
    memset(sc, 0, sizeof *sc);
    json_error_t err;
    json_t *top = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    if (!top)
        return tsr__fail(ctx,
                         json_error_code(&err) == json_error_out_of_memory ? TSR_ERR_OUT_OF_MEMORY
                                                                           : TSR_ERR_CORRUPT,
                         "'%s': line %d, column %d: %s", path, err.line, err.column, err.text);
    tsr_status st = TSR_OK;
    if (!json_is_object(top))
        st = tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s': the sidecar is %s, not a JSON object", path,
                       type_name(top));
    for (int i = 0; i < NKEYS && !st; i++) {
        const json_t *v = json_object_get(top, num_keys[i]);
        if (!v)
            continue;
        if (!json_is_number(v))
            st = tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s': \"%s\" is %s, not a number", path,
                           num_keys[i], type_name(v));
        sc->num[i] = json_number_value(v);
        sc->have[i] = 1;
    }
    const json_t *file = st ? NULL : json_object_get(top, "file");
    if (file && !json_is_string(file))
        st = tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s': \"file\" is %s, not a string", path,
                       type_name(file));
    else if (file && (json_string_length(file) >= sizeof sc->file ||
                      strlen(json_string_value(file)) != json_string_length(file)))
        st = tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s': \"file\" is not a file name (%zu bytes%s)",
                       path, json_string_length(file),
                       json_string_length(file) >= sizeof sc->file ? "" : ", with a NUL");
    else if (file)
        memcpy(sc->file, json_string_value(file), json_string_length(file) + 1);
    json_decref(top);
    return st;
}

/* The whole (small) file at path; *len its size. */
static tsr_status read_small(tsr_ctx *ctx, const char *path, char **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return tsr__fail(ctx, TSR_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    char *buf;
    tsr_status st = tsr__alloc(ctx, TSR__SIDECAR_MAX + 1, (void **)&buf);
    if (st) {
        fclose(f);
        return st;
    }
    size_t n = fread(buf, 1, TSR__SIDECAR_MAX + 1, f);
    int err = ferror(f);
    fclose(f);
    if (err || n > TSR__SIDECAR_MAX) {
        tsr__free(ctx, buf);
        return tsr__fail(ctx, err ? TSR_ERR_IO : TSR_ERR_LIMIT,
                         err ? "cannot read '%s'" : "'%s' is larger than a grid sidecar (1 MiB)",
                         path);
    }
    *out = buf;
    *len = n;
    return TSR_OK;
}

static int host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

static void swap32(float *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        u = __builtin_bswap32(u);
        memcpy(&v[i], &u, 4);
    }
}

/* The data file's path: name as given when absolute, else beside the sidecar. */
static tsr_status data_path(tsr_ctx *ctx, const char *json_path, const char *name, char *out,
                            size_t cap)
{
    const char *slash = strrchr(json_path, '/');
    int dir = name[0] == '/' || !slash ? 0 : (int)(slash - json_path + 1);
    if (snprintf(out, cap, "%.*s%s", dir, json_path, name) >= (int)cap)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "the path of '%s' is too long", name);
    return TSR_OK;
}

size_t tsr_migrate_grid_cells(const tsr_migrate_grid *g)
{
    size_t n;
    if (!g || g->nx < 0 || g->nz < 0 ||
        !tsr__size_mul3((size_t)g->nx, (size_t)tsr__mig_grid_ny(g), (size_t)g->nz, &n))
        return 0;
    return n;
}

/* A zeroed grid of nx x ny x nz (ny 1: 2D). */
static tsr_status grid_alloc(tsr_ctx *ctx, tsr_migrate_grid *grid, int32_t nx, int32_t ny,
                             int32_t nz)
{
    size_t bytes;
    if (!tsr__size_mul3((size_t)nx, (size_t)ny, (size_t)nz, &bytes) ||
        !tsr__size_mul(bytes, sizeof(float), &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "grid: %d x %d x %d overflows", (int)nx, (int)ny,
                         (int)nz);
    memset(grid, 0, sizeof *grid);
    tsr_status st = tsr__alloc(ctx, bytes, (void **)&grid->data);
    if (st)
        return st;
    memset(grid->data, 0, bytes);
    grid->nx = nx;
    grid->nz = nz;
    return TSR_OK;
}

tsr_status tsr_migrate_grid_alloc(tsr_ctx *ctx, tsr_migrate_grid *grid, int32_t nx, int32_t nz,
                                  double dx, double dz, double ox, double oz)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (!grid || nx < 1 || nz < 1)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "grid: %d x %d is not a grid size", (int)nx,
                         (int)nz);
    if ((st = grid_alloc(ctx, grid, nx, 1, nz)))
        return st;
    grid->dx = dx;
    grid->dz = dz;
    grid->ox = ox;
    grid->oz = oz;
    return TSR_OK;
}

tsr_status tsr_migrate_grid_alloc3d(tsr_ctx *ctx, tsr_migrate_grid *grid, int32_t nx, int32_t ny,
                                    int32_t nz, double dx, double dy, double dz, double ox,
                                    double oy, double oz)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (!grid || nx < 1 || ny < 2 || nz < 1)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "grid: %d x %d x %d (nx, ny, nz) is not a 3D grid size (ny >= 2)", (int)nx,
                         (int)ny, (int)nz);
    if (!(dy > 0) || !isfinite(dy) || !isfinite(oy))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "grid: a 3D grid needs dy > 0 and a finite oy (dy %g, oy %g)", dy, oy);
    if ((st = grid_alloc(ctx, grid, nx, ny, nz)))
        return st;
    grid->dx = dx;
    grid->dz = dz;
    grid->ox = ox;
    grid->oz = oz;
    grid->ny = ny;
    grid->dy = dy;
    grid->oy = oy;
    return TSR_OK;
}

tsr_status tsr_migrate_grid_alloc_like(tsr_ctx *ctx, tsr_migrate_grid *grid,
                                       const tsr_migrate_grid *like)
{
    if (!like)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "grid: nothing to allocate like");
    if (like->ny > 1)
        return tsr_migrate_grid_alloc3d(ctx, grid, like->nx, like->ny, like->nz, like->dx, like->dy,
                                        like->dz, like->ox, like->oy, like->oz);
    return tsr_migrate_grid_alloc(ctx, grid, like->nx, like->nz, like->dx, like->dz, like->ox,
                                  like->oz);
}

void tsr_migrate_grid_free(tsr_ctx *ctx, tsr_migrate_grid *grid)
{
    if (!ctx || !grid)
        return;
    tsr__free(ctx, grid->data);
    memset(grid, 0, sizeof *grid);
}

tsr_status tsr_migrate_grid_load(tsr_ctx *ctx, const char *json_path, tsr_migrate_grid *grid)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (!json_path || !grid)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "grid: no path or grid");
    memset(grid, 0, sizeof *grid);
    char *text = NULL;
    size_t len = 0;
    if ((st = read_small(ctx, json_path, &text, &len)))
        return st;
    sidecar sc;
    st = parse_sidecar(ctx, json_path, text, len, &sc);
    tsr__free(ctx, text);
    if (st)
        return st;
    for (int i = 0; i < 4; i++)
        if (!sc.have[i])
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s': the sidecar has no \"%s\"", json_path,
                             num_keys[i]);
    if (!sc.file[0])
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s': the sidecar names no \"file\"", json_path);
    for (int i = 0; i < 2; i++)
        if (!(sc.num[i] >= 1 && sc.num[i] <= INT32_MAX) || sc.num[i] != floor(sc.num[i]))
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s': %s = %g is not a positive integer",
                             json_path, num_keys[i], sc.num[i]);
    for (int i = 2; i < 4; i++)
        if (!(sc.num[i] > 0) || !isfinite(sc.num[i]))
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s': %s = %g is not positive", json_path,
                             num_keys[i], sc.num[i]);
    /* ny absent or 1: 2D (dy, oy ignored); ny >= 2: 3D, dy > 0 required, oy 0 by default */
    if (sc.have[KEY_NY] && (!(sc.num[KEY_NY] >= 1 && sc.num[KEY_NY] <= INT32_MAX) ||
                            sc.num[KEY_NY] != floor(sc.num[KEY_NY])))
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s': ny = %g is not a positive integer", json_path,
                         sc.num[KEY_NY]);
    const int32_t ny = sc.have[KEY_NY] ? (int32_t)sc.num[KEY_NY] : 1;
    if (ny > 1 && !sc.have[KEY_DY])
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s': a 3D grid (ny = %d) needs \"dy\"", json_path,
                         (int)ny);
    if (ny > 1 && (!(sc.num[KEY_DY] > 0) || !isfinite(sc.num[KEY_DY])))
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s': dy = %g is not positive", json_path,
                         sc.num[KEY_DY]);
    for (int i = 4; i < 6; i++)
        if (sc.have[i] && !isfinite(sc.num[i]))
            return tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s': %s = %g is not finite", json_path,
                             num_keys[i], sc.num[i]);
    if (ny > 1 && sc.have[KEY_OY] && !isfinite(sc.num[KEY_OY]))
        return tsr__fail(ctx, TSR_ERR_CORRUPT, "'%s': oy = %g is not finite", json_path,
                         sc.num[KEY_OY]);
    int32_t nx = (int32_t)sc.num[0], nz = (int32_t)sc.num[1];
    char path[TSR__NAME_MAX + 1024];
    if ((st = data_path(ctx, json_path, sc.file, path, sizeof path)))
        return st;
    size_t count, bytes;
    if (!tsr__size_mul3((size_t)nx, (size_t)ny, (size_t)nz, &count) ||
        !tsr__size_mul(count, sizeof(float), &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "'%s': %d x %d x %d samples overflow", json_path,
                         (int)nx, (int)ny, (int)nz);
    FILE *f = fopen(path, "rb");
    if (!f)
        return tsr__fail(ctx, TSR_ERR_IO, "'%s': cannot open its data '%s': %s", json_path, path,
                         strerror(errno));
    long long size = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        size = (long long)ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return tsr__fail(ctx, TSR_ERR_IO, "'%s': cannot size its data '%s'", json_path, path);
    }
    if ((unsigned long long)size != (unsigned long long)bytes) {
        fclose(f);
        if (ny > 1)
            return tsr__fail(ctx, TSR_ERR_CORRUPT,
                             "'%s': its data '%s' holds %lld bytes; ny * nx * nz = %d x %d x %d "
                             "float32 samples need %zu",
                             json_path, path, size, (int)ny, (int)nx, (int)nz, bytes);
        return tsr__fail(ctx, TSR_ERR_CORRUPT,
                         "'%s': its data '%s' holds %lld bytes; nx * nz = %d x %d float32 "
                         "samples need %zu",
                         json_path, path, size, (int)nx, (int)nz, bytes);
    }
    tsr_migrate_grid g;
    const double ox = sc.have[4] ? sc.num[4] : 0.0, oz = sc.have[5] ? sc.num[5] : 0.0;
    if ((st = ny > 1 ? tsr_migrate_grid_alloc3d(ctx, &g, nx, ny, nz, sc.num[2], sc.num[KEY_DY],
                                                sc.num[3], ox,
                                                sc.have[KEY_OY] ? sc.num[KEY_OY] : 0.0, oz)
                     : tsr_migrate_grid_alloc(ctx, &g, nx, nz, sc.num[2], sc.num[3], ox, oz))) {
        fclose(f);
        return st;
    }
    size_t got = fread(g.data, sizeof(float), count, f);
    fclose(f);
    if (got != count) {
        tsr_migrate_grid_free(ctx, &g);
        return tsr__fail(ctx, TSR_ERR_IO, "'%s': cannot read its data '%s'", json_path, path);
    }
    if (!host_is_little_endian())
        swap32(g.data, count);
    *grid = g;
    return TSR_OK;
}

/* OUT.json -> OUT.f32 (or OUT + ".f32"). */
static tsr_status f32_path(tsr_ctx *ctx, const char *json_path, char *out, size_t cap)
{
    size_t n = strlen(json_path);
    size_t stem = n >= 5 && strcmp(json_path + n - 5, ".json") == 0 ? n - 5 : n;
    if (snprintf(out, cap, "%.*s.f32", (int)stem, json_path) >= (int)cap)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "the path '%s' is too long", json_path);
    return TSR_OK;
}

static void json_escaped(char *out, size_t cap, const char *s)
{
    size_t n = 0;
    for (; *s && n + 7 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            n += (size_t)snprintf(out + n, cap - n, "\\%c", c);
        else if (c < 0x20)
            n += (size_t)snprintf(out + n, cap - n, "\\u%04x", c);
        else
            out[n++] = (char)c;
    }
    out[n] = 0;
}

tsr_status tsr_migrate_grid_save(tsr_ctx *ctx, const char *json_path, const tsr_migrate_grid *grid,
                                 const char *units)
{
    tsr_status st = tsr__enter(ctx);
    if (st)
        return st;
    if (!json_path || !grid || !grid->data || grid->nx < 1 || grid->nz < 1)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "grid: nothing to save");
    char path[TSR__NAME_MAX];
    if ((st = f32_path(ctx, json_path, path, sizeof path)))
        return st;
    if (grid->ny > 1 && (!(grid->dy > 0) || !isfinite(grid->dy) || !isfinite(grid->oy)))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "grid: a 3D grid needs dy > 0 and a finite oy (dy %g, oy %g)", grid->dy,
                         grid->oy);
    size_t count = tsr_migrate_grid_cells(grid);
    if (!count)
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "grid: size overflows");
    tsr__atomic_file af;
    if ((st = tsr__atomic_open(ctx, path, &af)))
        return st;
    float chunk[1024];
    for (size_t i = 0; i < count && !st; i += 1024) {
        size_t n = count - i < 1024 ? count - i : 1024;
        memcpy(chunk, grid->data + i, n * sizeof(float));
        if (!host_is_little_endian())
            swap32(chunk, n);
        st = tsr__atomic_write(ctx, &af, chunk, n * sizeof(float));
    }
    if (st) {
        tsr__atomic_abort(ctx, &af);
        return st;
    }
    if ((st = tsr__atomic_commit(ctx, &af)))
        return st;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char ebase[2 * TSR__NAME_MAX], eunits[256];
    json_escaped(ebase, sizeof ebase, base);
    json_escaped(eunits, sizeof eunits, units ? units : "");
    char text[3 * TSR__NAME_MAX];
    int n = grid->ny > 1
                ? snprintf(text, sizeof text,
                           "{\n \"file\": \"%s\",\n \"dtype\": \"float32 little-endian\",\n"
                           " \"layout\": \"C-order (ny, nx, nz): z is the fast axis\",\n"
                           " \"nz\": %d,\n \"nx\": %d,\n \"ny\": %d,\n \"dz\": %.17g,\n"
                           " \"dx\": %.17g,\n \"dy\": %.17g,\n \"oz\": %.17g,\n"
                           " \"ox\": %.17g,\n \"oy\": %.17g,\n \"units\": \"%s\"\n}\n",
                           ebase, (int)grid->nz, (int)grid->nx, (int)grid->ny, grid->dz, grid->dx,
                           grid->dy, grid->oz, grid->ox, grid->oy, eunits)
                : snprintf(text, sizeof text,
                           "{\n \"file\": \"%s\",\n \"dtype\": \"float32 little-endian\",\n"
                           " \"layout\": \"C-order (nx, nz): z is the fast axis\",\n"
                           " \"nz\": %d,\n \"nx\": %d,\n \"dz\": %.17g,\n \"dx\": %.17g,\n"
                           " \"oz\": %.17g,\n \"ox\": %.17g,\n \"units\": \"%s\"\n}\n",
                           ebase, (int)grid->nz, (int)grid->nx, grid->dz, grid->dx, grid->oz,
                           grid->ox, eunits);
    if (n < 0 || n >= (int)sizeof text)
        return tsr__fail(ctx, TSR_ERR_INTERNAL, "grid: sidecar text too long");
    if ((st = tsr__atomic_open(ctx, json_path, &af)))
        return st;
    if ((st = tsr__atomic_write(ctx, &af, text, (size_t)n))) {
        tsr__atomic_abort(ctx, &af);
        return st;
    }
    return tsr__atomic_commit(ctx, &af);
}
