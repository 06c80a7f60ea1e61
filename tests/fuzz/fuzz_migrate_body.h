/* The migrate readers' fuzz contract, shared by the libFuzzer target and its replay test. The
 * first byte chooses the reader: even, a SEG-Y file (the rest of the input) through
 * tsr_migrate_segy_read; odd, a grid: the rest up to its first NUL is the JSON sidecar
 * (grid.json), what follows the NUL its data file (grid.f32, the name the seeds' sidecars give),
 * through tsr_migrate_grid_load. Both readers take paths, so the bytes go to files in a private
 * temporary folder first. Any input returns; a failure has a status other than TSR_OK and a
 * non-empty message; a success gives a gather or grid whose sizes, steps and arrays are in range
 * (every sample readable), in fuzz_ctx.h's context. Returns 0, or 1 when the contract was broken
 * (the caller aborts or counts). */
#ifndef TSR_FUZZ_MIGRATE_BODY_H
#define TSR_FUZZ_MIGRATE_BODY_H

#include "fuzz_ctx.h"
#include "tessera/migrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tsr_fuzz_migrate_folder[256];

static void tsr_fuzz_migrate_cleanup(void)
{
    static const char *const names[] = {"shots.sgy", "grid.json", "grid.f32"};
    char path[300];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", tsr_fuzz_migrate_folder, names[i]);
        remove(path);
    }
    rmdir(tsr_fuzz_migrate_folder);
}

/* The folder the inputs are written into (made once per process, removed at exit; NULL when it
 * cannot be made). */
static const char *tsr_fuzz_migrate_dir(void)
{
    char *dir = tsr_fuzz_migrate_folder;
    if (!dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof tsr_fuzz_migrate_folder, "%s/tsr-fuzz-migrate-XXXXXX",
                 tmp && tmp[0] ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            dir[0] = '\0';
            return NULL;
        }
        atexit(tsr_fuzz_migrate_cleanup);
    }
    return dir;
}

static int tsr_fuzz_write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    int ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

static int tsr_fuzz_gather_bad(const tsr_migrate_gather *g)
{
    if (g->nt < 2 || !(g->dt > 0) || !isfinite(g->t0) || g->nshots < 1 || !g->shots)
        return 1;
    volatile float sink = 0;
    for (int32_t s = 0; s < g->nshots; s++) {
        const tsr_migrate_shot *sh = &g->shots[s];
        if (sh->ntraces < 1 || !sh->gx || !sh->gy || !sh->traces || !isfinite(sh->sx) ||
            !isfinite(sh->sy))
            return 1;
        for (int32_t t = 0; t < sh->ntraces; t++)
            sink += (float)sh->gx[t] + (float)sh->gy[t] + sh->traces[(size_t)t * (size_t)g->nt] +
                    sh->traces[(size_t)t * (size_t)g->nt + (size_t)g->nt - 1];
    }
    (void)sink;
    return 0;
}

static int tsr_fuzz_grid_bad(const tsr_migrate_grid *g)
{
    if (g->nx < 1 || g->nz < 1 || !(g->dx > 0) || !(g->dz > 0) || !isfinite(g->ox) ||
        !isfinite(g->oz) || !g->data || g->ny < 0 ||
        (g->ny > 1 && (!(g->dy > 0) || !isfinite(g->dy) || !isfinite(g->oy))))
        return 1;
    volatile float sink = 0;
    for (size_t i = 0, n = tsr_migrate_grid_cells(g); i < n; i++) /* nx * ny * nz in 3D */
        sink += g->data[i];
    (void)sink;
    return 0;
}

static int tsr_fuzz_migrate_one(const uint8_t *data, size_t size)
{
    const char *dir = tsr_fuzz_migrate_dir();
    tsr_ctx *ctx = tsr_fuzz_ctx();
    if (!dir || !ctx) {
        tsr_ctx_destroy(ctx);
        return 1;
    }
    char path[300], aux[300];
    int bad = 0;
    const uint8_t *rest = size ? data + 1 : data;
    size_t n = size ? size - 1 : 0;
    if (size == 0 || (data[0] & 1) == 0) {
        snprintf(path, sizeof path, "%s/shots.sgy", dir);
        tsr_migrate_gather g;
        memset(&g, 0, sizeof g);
        tsr_status st = tsr_fuzz_write_file(path, rest, n)
                            ? tsr_migrate_segy_read(ctx, path, &g, NULL)
                            : TSR_ERR_IO;
        bad = st == TSR_OK ? tsr_fuzz_gather_bad(&g) : !tsr_ctx_last_error(ctx)[0];
        tsr_migrate_gather_free(ctx, &g);
    } else {
        const uint8_t *nul = memchr(rest, 0, n);
        size_t json_len = nul ? (size_t)(nul - rest) : n;
        snprintf(path, sizeof path, "%s/grid.json", dir);
        snprintf(aux, sizeof aux, "%s/grid.f32", dir);
        tsr_migrate_grid grid;
        memset(&grid, 0, sizeof grid);
        tsr_status st =
            tsr_fuzz_write_file(path, rest, json_len) &&
                    tsr_fuzz_write_file(aux, nul ? nul + 1 : rest + n, nul ? n - json_len - 1 : 0)
                ? tsr_migrate_grid_load(ctx, path, &grid)
                : TSR_ERR_IO;
        bad = st == TSR_OK ? tsr_fuzz_grid_bad(&grid) : !tsr_ctx_last_error(ctx)[0];
        tsr_migrate_grid_free(ctx, &grid);
    }
    tsr_ctx_destroy(ctx);
    return bad;
}

#endif
