/* 3D migration I/O (src/migrate/grid_io.c, segy_io.c, checkpoint.c):
 *  - a 3D grid sidecar (ny, dy, oy) round trips exactly, samples in (ny, nx, nz) order;
 *  - malformed 3D sidecars are refused: no dy, dy <= 0, ny not an integer, a data file whose size
 *    is not ny * nx * nz samples (the message names the three counts); ny = 1 is a 2D grid;
 *  - a 3D gather written as SEG-Y reads back exactly (sx, sy, gx, gy, samples), shots grouped by
 *    (sx, sy); a 3D image written as SEG-Y has one trace per (x, y), x fastest, CDP x and y at
 *    bytes 181 and 185 (centimetres), inline iy + 1 at 189 and crossline ix + 1 at 193;
 *  - a 3D checkpoint resumes a 3D run, and is refused for the 2D run of its first inline (and a
 *    2D checkpoint for the 3D run), naming the difference.
 * Outputs are NaN-poisoned before each read. */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NX = 5, NY = 3, NZ = 4 };

static char dir[64];

static const char *tmp_path(const char *name)
{
    static char buf[8][256];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, 256, "%s/%s", dir, name);
    return p;
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        if (n)
            fwrite(data, 1, n, f);
        fclose(f);
    }
}

static int32_t be32(const unsigned char *p)
{
    return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
}

static void grid_round_trip(tsr_ctx *ctx)
{
    tsr_migrate_grid g;
    CHECK_OK(ctx, tsr_migrate_grid_alloc3d(ctx, &g, NX, NY, NZ, 12.5, 20, 4, -100, 300, 8));
    if (!g.data)
        return;
    CHECK(tsr_migrate_grid_cells(&g) == (size_t)NX * NY * NZ);
    for (int i = 0; i < NX * NY * NZ; i++)
        g.data[i] = (float)(i * 0.25 - 3);
    CHECK_OK(ctx, tsr_migrate_grid_save(ctx, tmp_path("g3.json"), &g, "m/s"));
    tsr_migrate_grid r;
    memset(&r, 0xff, sizeof r);
    CHECK_OK(ctx, tsr_migrate_grid_load(ctx, tmp_path("g3.json"), &r));
    CHECK(r.nx == NX && r.ny == NY && r.nz == NZ);
    CHECK(r.dx == 12.5 && r.dy == 20 && r.dz == 4 && r.ox == -100 && r.oy == 300 && r.oz == 8);
    CHECK(r.data && memcmp(r.data, g.data, sizeof(float) * NX * NY * NZ) == 0);
    tsr_migrate_grid_free(ctx, &r);
    /* ny = 1 with dy and oy: a 2D grid */
    static const float d2[6] = {1, 2, 3, 4, 5, 6};
    write_bytes(tmp_path("d2.f32"), d2, sizeof d2);
    FILE *f = fopen(tmp_path("one.json"), "w");
    if (f) {
        fputs("{\"file\": \"d2.f32\", \"nx\": 2, \"nz\": 3, \"dx\": 1, \"dz\": 1, \"ny\": 1, "
              "\"dy\": 5, \"oy\": 7}",
              f);
        fclose(f);
    }
    CHECK_OK(ctx, tsr_migrate_grid_load(ctx, tmp_path("one.json"), &r));
    CHECK(r.ny == 0 && r.nx == 2 && r.nz == 3);
    tsr_migrate_grid_free(ctx, &r);

    /* malformed 3D sidecars (the data file holds NX * NY * NZ samples) */
    const struct {
        const char *text;
        const char *says;
    } bad[] = {
        {"{\"file\": \"g3.f32\", \"nx\": 5, \"nz\": 4, \"dx\": 1, \"dz\": 1, \"ny\": 3}",
         "needs \"dy\""},
        {"{\"file\": \"g3.f32\", \"nx\": 5, \"nz\": 4, \"dx\": 1, \"dz\": 1, \"ny\": 3, \"dy\": 0}",
         "dy = 0 is not positive"},
        {"{\"file\": \"g3.f32\", \"nx\": 5, \"nz\": 4, \"dx\": 1, \"dz\": 1, \"ny\": 3, "
         "\"dy\": -2}",
         "dy = -2"},
        {"{\"file\": \"g3.f32\", \"nx\": 5, \"nz\": 4, \"dx\": 1, \"dz\": 1, \"ny\": 2.5, "
         "\"dy\": 1}",
         "ny = 2.5"},
        {"{\"file\": \"g3.f32\", \"nx\": 5, \"nz\": 4, \"dx\": 1, \"dz\": 1, \"ny\": 4, \"dy\": 1}",
         "ny * nx * nz = 4 x 5 x 4"},
        {"{\"file\": \"g3.f32\", \"nx\": 5, \"nz\": 4, \"dx\": 1, \"dz\": 1, \"ny\": 3, \"dy\": 1, "
         "\"oy\": \"a\"}",
         "\"oy\" is a string"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f = fopen(tmp_path("bad.json"), "w");
        if (f) {
            fputs(bad[i].text, f);
            fclose(f);
        }
        tsr_status st = tsr_migrate_grid_load(ctx, tmp_path("bad.json"), &r);
        printf("3D sidecar %zu: %s: %s\n", i, tsr_status_name(st), tsr_ctx_last_error(ctx));
        CHECK(st == TSR_ERR_CORRUPT);
        CHECK(strstr(tsr_ctx_last_error(ctx), bad[i].says) != NULL);
    }

    /* the image as SEG-Y: trace iy * nx + ix at (ox + ix dx, oy + iy dy) */
    CHECK_OK(ctx, tsr_migrate_grid_save_segy(ctx, tmp_path("g3.sgy"), &g));
    size_t len;
    unsigned char *b = tsr_test_read_file(tmp_path("g3.sgy"), &len);
    const size_t trace = 240 + 4 * NZ;
    CHECK(b && len == 3600 + NX * NY * trace);
    for (int i = 0; b && len == 3600 + NX * NY * trace && i < NX * NY; i++) {
        const unsigned char *h = b + 3600 + i * trace;
        int ix = i % NX, iy = i / NX;
        CHECK(be32(h + 180) == (int32_t)lround((-100 + 12.5 * ix) * 100));
        CHECK(be32(h + 184) == (int32_t)lround((300 + 20.0 * iy) * 100));
        CHECK(be32(h + 188) == iy + 1 && be32(h + 192) == ix + 1);
    }
    free(b);
    tsr_migrate_gather sg;
    CHECK_OK(ctx, tsr_migrate_segy_read(ctx, tmp_path("g3.sgy"), &sg, NULL));
    /* each column is its own "shot" (source = receiver = the column), sorted by x then y */
    CHECK(sg.nshots == NX * NY && sg.nt == NZ);
    for (int s = 0; s < sg.nshots && sg.nshots == NX * NY; s++) {
        int ix = s / NY, iy = s % NY;
        CHECK(sg.shots[s].sx == -100 + 12.5 * ix && sg.shots[s].sy == 300 + 20.0 * iy);
        CHECK(sg.shots[s].gy && sg.shots[s].gy[0] == sg.shots[s].sy);
        CHECK(memcmp(sg.shots[s].traces, g.data + ((size_t)iy * NX + ix) * NZ,
                     sizeof(float) * NZ) == 0);
    }
    tsr_migrate_gather_free(ctx, &sg);
    tsr_migrate_grid_free(ctx, &g);
}

static void gather_round_trip(tsr_ctx *ctx)
{
    enum { NS = 3, NR = 4, NT = 7 };
    tsr_migrate_gather g;
    CHECK_OK(ctx, tsr_migrate_gather_alloc(ctx, &g, NS, NR, NT, 0.004, -0.02));
    if (!g.shots)
        return;
    for (int s = 0; s < NS; s++) {
        /* shots 0 and 1 share sx: grouped apart by sy */
        g.shots[s].sx = s < 2 ? 100 : 250.5;
        g.shots[s].sy = 40 + 30 * s;
        for (int r = 0; r < NR; r++) {
            g.shots[s].gx[r] = 10 * r + s;
            g.shots[s].gy[r] = -5.25 + 20 * r;
            for (int j = 0; j < NT; j++)
                g.shots[s].traces[(size_t)r * NT + j] = (float)(s * 100 + r * 10 + j);
        }
    }
    CHECK_OK(ctx, tsr_migrate_segy_write(ctx, tmp_path("s3.sgy"), &g));
    tsr_migrate_gather b;
    tsr_migrate_segy_info info;
    memset(&info, 0xff, sizeof info);
    CHECK_OK(ctx, tsr_migrate_segy_read(ctx, tmp_path("s3.sgy"), &b, &info));
    CHECK(b.nshots == NS && b.nt == NT);
    CHECK(info.sy_min == 40 && info.sy_max == 100 && info.gy_min == -5.25 && info.gy_max == 54.75);
    for (int s = 0; s < NS && b.nshots == NS; s++) {
        CHECK(b.shots[s].sx == g.shots[s].sx && b.shots[s].sy == g.shots[s].sy);
        CHECK(b.shots[s].ntraces == NR);
        CHECK(memcmp(b.shots[s].gx, g.shots[s].gx, sizeof(double) * NR) == 0);
        CHECK(memcmp(b.shots[s].gy, g.shots[s].gy, sizeof(double) * NR) == 0);
        CHECK(memcmp(b.shots[s].traces, g.shots[s].traces, sizeof(float) * NR * NT) == 0);
    }
    tsr_migrate_gather_free(ctx, &b);
    /* gy NULL: written as sy */
    g.shots[2].gy = NULL;
    CHECK_OK(ctx, tsr_migrate_segy_write(ctx, tmp_path("s3b.sgy"), &g));
    CHECK_OK(ctx, tsr_migrate_segy_read(ctx, tmp_path("s3b.sgy"), &b, NULL));
    CHECK(b.nshots == NS && b.shots[2].gy[NR - 1] == g.shots[2].sy);
    tsr_migrate_gather_free(ctx, &b);
    g.shots[2].gy = g.shots[1].gy + NR;
    tsr_migrate_gather_free(ctx, &g);
}

static void checkpoints(tsr_ctx *ctx)
{
    enum { NT = 40 };
    static float vel[NX * NY * NZ], trace[NT];
    for (int i = 0; i < NX * NY * NZ; i++)
        vel[i] = 2000;
    trace[10] = 1;
    tsr_migrate_grid v3 = {NX, NZ, 10, 10, 0, 0, vel}, v2 = v3;
    v3.ny = NY;
    v3.dy = 10;
    double gx = 20, gy = 10;
    tsr_migrate_shot shot = {20, 10, 1, &gx, trace};
    shot.gy = &gy;
    tsr_migrate_gather g = {NT, 0.004, 0, 1, &shot};
    tsr_migrate_options opt;
    tsr_migrate_options_init(&opt);
    opt.method = TSR_MIGRATE_PHASE_SHIFT;
    static double sum[NX * NY * NZ], again[NX * NY * NZ];
    tsr_migrate_checkpoint *cp;
    int32_t done = -1;
    const char *ck3 = tmp_path("ck3"), *ck2 = tmp_path("ck2");
    CHECK_OK(ctx,
             tsr_migrate_checkpoint_open(ctx, ck3, &v3, &g, &opt, NULL, NULL, &cp, &done, sum));
    CHECK(done == 0);
    CHECK_OK(ctx, tsr_migrate_image_add(ctx, &v3, &g, &opt, 0, 1, sum, NULL, NULL));
    CHECK_OK(ctx, tsr_migrate_checkpoint_save(ctx, cp, 1, sum));
    tsr_migrate_checkpoint_close(ctx, cp);
    for (int i = 0; i < NX * NY * NZ; i++)
        again[i] = NAN;
    CHECK_OK(ctx,
             tsr_migrate_checkpoint_open(ctx, ck3, &v3, &g, &opt, NULL, NULL, &cp, &done, again));
    CHECK(done == 1 && memcmp(sum, again, sizeof sum) == 0);
    tsr_migrate_checkpoint_close(ctx, cp);
    /* the 2D run of the first inline (the same first nx * nz samples) is another run */
    CHECK_STATUS(tsr_migrate_checkpoint_open(ctx, ck3, &v2, &g, &opt, NULL, NULL, &cp, &done, sum),
                 TSR_ERR_INVALID_ARGUMENT);
    printf("2D run, 3D checkpoint: %s\n", tsr_ctx_last_error(ctx));
    CHECK(strstr(tsr_ctx_last_error(ctx), "velocity") != NULL);
    /* a 2D checkpoint for the 3D run */
    CHECK_OK(ctx,
             tsr_migrate_checkpoint_open(ctx, ck2, &v2, &g, &opt, NULL, NULL, &cp, &done, sum));
    CHECK_OK(ctx, tsr_migrate_checkpoint_save(ctx, cp, 0, sum));
    tsr_migrate_checkpoint_close(ctx, cp);
    CHECK_STATUS(tsr_migrate_checkpoint_open(ctx, ck2, &v3, &g, &opt, NULL, NULL, &cp, &done, sum),
                 TSR_ERR_INVALID_ARGUMENT);
    printf("3D run, 2D checkpoint: %s\n", tsr_ctx_last_error(ctx));
    /* another receiver y is another 3D run */
    CHECK_OK(ctx,
             tsr_migrate_checkpoint_open(ctx, ck3, &v3, &g, &opt, NULL, NULL, &cp, &done, sum));
    tsr_migrate_checkpoint_close(ctx, cp);
    gy = 20;
    CHECK_STATUS(tsr_migrate_checkpoint_open(ctx, ck3, &v3, &g, &opt, NULL, NULL, &cp, &done, sum),
                 TSR_ERR_INVALID_ARGUMENT);
    printf("3D run, other gy: %s\n", tsr_ctx_last_error(ctx));
    CHECK(strstr(tsr_ctx_last_error(ctx), "shots.hash") != NULL);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/tsr_migrate_io3d_XXXXXX");
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp");
        return tsr_test_finish("test_migrate_io3d");
    }
    tsr_ctx *ctx = tsr_test_reference_ctx();
    grid_round_trip(ctx);
    gather_round_trip(ctx);
    checkpoints(ctx);
    tsr_ctx_destroy(ctx);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        CHECK(!"rm");
    return tsr_test_finish("test_migrate_io3d");
}
