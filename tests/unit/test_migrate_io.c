/* Migration I/O: grid sidecars and SEG-Y (src/migrate/grid_io.c, segy_io.c).
 *  - viking_small.segy reads as 4 shots x 120 traces of 600 samples (the binary header's count;
 *    its trace headers say 1500), dt 4 ms;
 *  - every file of ../shared/data/seismic/segy_test either reads or fails with a one-line
 *    message (TSR_ERR_CORRUPT, TSR_ERR_UNSUPPORTED); the multi-format copies of one data set read
 *    alike; truncated, header-only, empty, absurd-sample-count and missing files are errors;
 *  - gathers and grids written as SEG-Y read back exactly; no temporary file is left behind;
 *  - sidecars: round trip, the shared derived models load, malformed ones are refused (bad JSON
 *    by line and column, a key of the wrong type or a duplicated key by name);
 *  - NaN velocities and positions outside the model are refused naming the place. */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static void write_text(const char *path, const char *text)
{
    write_bytes(path, text, strlen(text));
}

/* Files in dir: only the expected ones (no temporaries). */
static int count_files(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.' || (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")))
            n++;
    if (d)
        closedir(d);
    return n;
}

static void expect_fail(tsr_ctx *ctx, const char *path, const char *what)
{
    tsr_migrate_gather g;
    tsr_status st = tsr_migrate_segy_read(ctx, path, &g, NULL);
    CHECK(st == TSR_ERR_CORRUPT || st == TSR_ERR_IO || st == TSR_ERR_UNSUPPORTED);
    const char *msg = tsr_ctx_last_error(ctx);
    CHECK(msg[0] != 0 && strchr(msg, '\n') == NULL);
    printf("%s: %s: %s\n", what, tsr_status_name(st), msg);
    if (st == TSR_OK)
        tsr_migrate_gather_free(ctx, &g);
}

static void viking(tsr_ctx *ctx)
{
    const char *path = tsr_test_data("seismic/shots/viking_small.segy");
    if (!path)
        return;
    tsr_migrate_gather g;
    tsr_migrate_segy_info info;
    CHECK_OK(ctx, tsr_migrate_segy_read(ctx, path, &g, &info));
    CHECK(g.nshots == 4 && g.nt == 600 && fabs(g.dt - 0.004) < 1e-12);
    CHECK(info.traces == 480 && info.samples == 600 && info.trace_header_samples == 1500);
    CHECK(info.format == 1 && !info.little_endian);
    for (int s = 0; s < g.nshots && s < 4; s++) {
        CHECK(g.shots[s].ntraces == 120);
        CHECK(g.shots[s].sx == 3237 + 25 * s);
    }
    double peak = 0;
    for (size_t i = 0; i < (size_t)480 * 600; i++)
        peak = fmax(peak, fabs(g.shots[0].traces[i]));
    CHECK(peak > 0 && isfinite(peak));
    tsr_migrate_gather_free(ctx, &g);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file of the test folder (and its sub-folders): reads, or a clear error. */
static void segy_test_folder(tsr_ctx *ctx, const char *folder, int *read, int *refused)
{
    DIR *d = opendir(folder);
    if (!d)
        return;
    char *names[256];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 256;)
        if (e->d_name[0] != '.' && !strstr(e->d_name, ".md"))
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    for (int i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", folder, names[i]);
        DIR *sub = opendir(path);
        if (sub) {
            closedir(sub);
            segy_test_folder(ctx, path, read, refused);
        } else {
            tsr_migrate_gather g;
            tsr_status st = tsr_migrate_segy_read(ctx, path, &g, NULL);
            if (st == TSR_OK) {
                CHECK(g.nshots >= 1 && g.nt >= 1 && g.dt > 0);
                tsr_migrate_gather_free(ctx, &g);
                (*read)++;
            } else {
                CHECK(st == TSR_ERR_CORRUPT || st == TSR_ERR_UNSUPPORTED);
                const char *msg = tsr_ctx_last_error(ctx);
                CHECK(strstr(msg, names[i]) != NULL && strchr(msg, '\n') == NULL);
                printf("refused %s: %s\n", names[i], msg);
                (*refused)++;
            }
        }
        free(names[i]);
    }
}

static void multiformats(tsr_ctx *ctx)
{
    const char *base = tsr_test_data("seismic/segy_test/segyio/multiformats");
    if (!base)
        return;
    const char *names[] = {"Format1msb.sgy", "Format1lsb.sgy", "Format5msb.sgy", "Format5lsb.sgy",
                           "Format2msb.sgy", "Format3msb.sgy", "Format8msb.sgy"};
    tsr_migrate_gather first = {0};
    for (int i = 0; i < 7; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", base, names[i]);
        tsr_migrate_gather g;
        CHECK_OK(ctx, tsr_migrate_segy_read(ctx, path, &g, NULL));
        if (!g.shots)
            continue;
        int total = 0;
        for (int s = 0; s < g.nshots; s++)
            total += g.shots[s].ntraces;
        CHECK(total == 414 && g.nt == 75);
        if (i == 0) {
            first = g;
            continue;
        }
        /* the float copies and the 4- and 2-byte integer copies hold the same numbers; the
         * 1-byte copy holds integers of -128 .. 127 */
        size_t n = (size_t)total * 75;
        if (i == 6) {
            int ok = 1;
            for (size_t k = 0; k < n; k++) {
                float s = g.shots[0].traces[k];
                ok &= s >= -128 && s <= 127 && s == floorf(s);
            }
            CHECK(ok);
            tsr_migrate_gather_free(ctx, &g);
            continue;
        }
        double worst = 0, scale = 0;
        for (size_t k = 0; k < n; k++) {
            worst = fmax(worst, fabs(g.shots[0].traces[k] - first.shots[0].traces[k]));
            scale = fmax(scale, fabs(first.shots[0].traces[k]));
        }
        printf("%s vs %s: max difference %g (max |sample| %g)\n", names[i], names[0], worst, scale);
        CHECK(worst <= 1e-6 * scale);
        tsr_migrate_gather_free(ctx, &g);
    }
    tsr_migrate_gather_free(ctx, &first);
}

static void broken_files(tsr_ctx *ctx)
{
    /* a valid file written here, then damaged copies of it */
    tsr_migrate_gather g;
    CHECK_OK(ctx, tsr_migrate_gather_alloc(ctx, &g, 2, 3, 50, 0.002, -0.01));
    for (int s = 0; s < 2; s++) {
        g.shots[s].sx = 100.25 + 50 * s;
        for (int r = 0; r < 3; r++)
            g.shots[s].gx[r] = 10.5 * r - 3;
    }
    for (int i = 0; i < 2 * 3 * 50; i++)
        g.shots[0].traces[i] = (float)sin(i * 0.37) * (i % 7 - 3);
    const char *good = tmp_path("good.sgy");
    int before = count_files();
    CHECK_OK(ctx, tsr_migrate_segy_write(ctx, good, &g));
    CHECK(count_files() == before + 1);
    tsr_migrate_gather back;
    CHECK_OK(ctx, tsr_migrate_segy_read(ctx, good, &back, NULL));
    if (back.shots) {
        CHECK(back.nshots == 2 && back.nt == 50 && fabs(back.dt - 0.002) < 1e-12 &&
              fabs(back.t0 + 0.01) < 1e-12);
        for (int s = 0; s < 2 && back.nshots == 2; s++) {
            CHECK(back.shots[s].sx == g.shots[s].sx && back.shots[s].ntraces == 3);
            for (int r = 0; r < 3; r++)
                CHECK(back.shots[s].gx[r] == g.shots[s].gx[r]);
        }
        CHECK(memcmp(back.shots[0].traces, g.shots[0].traces, sizeof(float) * 300) == 0);
        tsr_migrate_gather_free(ctx, &back);
    }
    size_t len = 0;
    unsigned char *bytes = tsr_test_read_file(good, &len);
    CHECK(bytes && len == 3600 + 6 * (240 + 200));
    if (bytes) {
        write_bytes(tmp_path("truncated.sgy"), bytes, len - 100);
        expect_fail(ctx, tmp_path("truncated.sgy"), "truncated");
        write_bytes(tmp_path("headers.sgy"), bytes, 3600);
        expect_fail(ctx, tmp_path("headers.sgy"), "zero traces");
        write_bytes(tmp_path("short.sgy"), bytes, 2000);
        expect_fail(ctx, tmp_path("short.sgy"), "shorter than the headers");
        write_bytes(tmp_path("empty.sgy"), bytes, 0);
        expect_fail(ctx, tmp_path("empty.sgy"), "empty");
        bytes[3220] = 0x75; /* binary header samples: 30000 */
        bytes[3221] = 0x30;
        write_bytes(tmp_path("absurd.sgy"), bytes, len);
        expect_fail(ctx, tmp_path("absurd.sgy"), "absurd sample count");
        bytes[3220] = 0;
        bytes[3221] = 50;
        bytes[3224] = 0x12; /* format code 0x1234 */
        bytes[3225] = 0x34;
        write_bytes(tmp_path("format.sgy"), bytes, len);
        expect_fail(ctx, tmp_path("format.sgy"), "bad format code");
        free(bytes);
    }
    expect_fail(ctx, tmp_path("missing.sgy"), "missing");
    /* an unwritable destination leaves nothing */
    CHECK(tsr_migrate_segy_write(ctx, tmp_path("no/such/dir.sgy"), &g) == TSR_ERR_IO);
    g.t0 = 0.0105; /* not whole ms */
    CHECK(tsr_migrate_segy_write(ctx, tmp_path("t0.sgy"), &g) == TSR_ERR_INVALID_ARGUMENT);
    tsr_migrate_gather_free(ctx, &g);
}

static void grids(tsr_ctx *ctx)
{
    tsr_migrate_grid g;
    CHECK_OK(ctx, tsr_migrate_grid_alloc(ctx, &g, 7, 5, 12.5, 4, -100, 8));
    for (int i = 0; i < 35; i++)
        g.data[i] = (float)(i * 1.25 - 7);
    CHECK_OK(ctx, tsr_migrate_grid_save(ctx, tmp_path("g.json"), &g, "m/s"));
    tsr_migrate_grid back;
    CHECK_OK(ctx, tsr_migrate_grid_load(ctx, tmp_path("g.json"), &back));
    if (back.data) {
        CHECK(back.nx == 7 && back.nz == 5 && back.dx == 12.5 && back.dz == 4 && back.ox == -100 &&
              back.oz == 8);
        CHECK(memcmp(back.data, g.data, sizeof(float) * 35) == 0);
        tsr_migrate_grid_free(ctx, &back);
    }
    /* as SEG-Y: one trace per column, depth samples */
    CHECK_OK(ctx, tsr_migrate_grid_save_segy(ctx, tmp_path("g.sgy"), &g));
    tsr_migrate_gather sg;
    CHECK_OK(ctx, tsr_migrate_segy_read(ctx, tmp_path("g.sgy"), &sg, NULL));
    if (sg.shots) {
        CHECK(sg.nshots == 7 && sg.nt == 5 && fabs(sg.dt - 0.004) < 1e-12);
        for (int s = 0; s < sg.nshots; s++) {
            CHECK(sg.shots[s].sx == -100 + 12.5 * s);
            CHECK(memcmp(sg.shots[s].traces, g.data + 5 * s, sizeof(float) * 5) == 0);
        }
        tsr_migrate_gather_free(ctx, &sg);
    }
    tsr_migrate_grid_free(ctx, &g);

    /* malformed sidecars */
    static const float data[6] = {1, 2, 3, 4, 5, 6};
    write_bytes(tmp_path("d.f32"), data, sizeof data);
    const struct {
        const char *text;
        tsr_status want;
        const char *says; /* in the message (NULL: not checked) */
    } bad[] = {
        {"{\"file\": \"d.f32\", \"nz\": 3, \"dx\": 1, \"dz\": 1}", TSR_ERR_CORRUPT, NULL},
        {"{\"file\": \"d.f32\", \"nx\": 0, \"nz\": 3, \"dx\": 1, \"dz\": 1}", TSR_ERR_CORRUPT,
         NULL},
        {"{\"file\": \"d.f32\", \"nx\": 1.5, \"nz\": 4, \"dx\": 1, \"dz\": 1}", TSR_ERR_CORRUPT,
         NULL},
        {"{\"file\": \"d.f32\", \"nx\": 3, \"nz\": 3, \"dx\": 1, \"dz\": 1}", TSR_ERR_CORRUPT,
         NULL},
        {"{\"file\": \"d.f32\", \"nx\": 2, \"nz\": 3, \"dx\": -1, \"dz\": 1}", TSR_ERR_CORRUPT,
         NULL},
        {"{\"file\": \"d.f32\", \"nx\": 2, \"nz\": 3, \"dx\": 1, \"dz\": 1", TSR_ERR_CORRUPT, NULL},
        {"{\"file\": \"d.f32\", \"nx\": 2, \"nz\": 3, \"dx\": 1, \"dz\": 1} x", TSR_ERR_CORRUPT,
         NULL},
        {"[1, 2]", TSR_ERR_CORRUPT, NULL},
        {"", TSR_ERR_CORRUPT, NULL},
        {"{\"file\": \"d.f32\", \"nx\": 2, \"nz\": 3, \"dx\": 1, \"dz\": 1, \"ny\": 3}",
         TSR_ERR_CORRUPT, "needs \"dy\""},
        {"{\"file\": \"gone.f32\", \"nx\": 2, \"nz\": 3, \"dx\": 1, \"dz\": 1}", TSR_ERR_IO, NULL},
        {"{\"nx\": 2, \"nz\": 3, \"dx\": 1, \"dz\": 1}", TSR_ERR_CORRUPT, NULL},
        {"{\"file\": \"d.f32\", \"nx\": 99999999999, \"nz\": 3, \"dx\": 1, \"dz\": 1}",
         TSR_ERR_CORRUPT, NULL},
        {"{\"file\": \"d.f32\", \"nx\": \"2\", \"nz\": 3, \"dx\": 1, \"dz\": 1}", TSR_ERR_CORRUPT,
         "\"nx\" is a string, not a number"},
        {"{\"file\": \"d.f32\", \"nx\": 2, \"nz\": 3, \"dx\": 1, \"dz\": [1]}", TSR_ERR_CORRUPT,
         "\"dz\" is an array"},
        {"{\"file\": 7, \"nx\": 2, \"nz\": 3, \"dx\": 1, \"dz\": 1}", TSR_ERR_CORRUPT,
         "\"file\" is a number, not a string"},
        {"{\"file\": \"d.f32\", \"nx\": 2, \"nx\": 2, \"nz\": 3, \"dx\": 1, \"dz\": 1}",
         TSR_ERR_CORRUPT, "duplicate"},
        {"{\"file\": \"d.f32\\u0000x\", \"nx\": 2, \"nz\": 3, \"dx\": 1, \"dz\": 1}",
         TSR_ERR_CORRUPT, "line 1"},
        {"{\"file\": \"d\xff.f32\", \"nx\": 2, \"nz\": 3, \"dx\": 1, \"dz\": 1}", TSR_ERR_CORRUPT,
         "line 1"},
        {"{\"file\": \"d.f32\", \"nx\": 2, \"nz\": 3, \"dx\": 1e999, \"dz\": 1}", TSR_ERR_CORRUPT,
         "line 1"},
        {"{\"file\": \"d.f32\",\n \"nx\": 2,\n \"nz\": 3,\n \"dx\": 1,\n \"dz\": tru}",
         TSR_ERR_CORRUPT, "line 5"},
        {"{\"file\": \"\", \"nx\": 2, \"nz\": 3, \"dx\": 1, \"dz\": 1}", TSR_ERR_CORRUPT,
         "names no \"file\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_text(tmp_path("bad.json"), bad[i].text);
        tsr_migrate_grid x;
        tsr_status st = tsr_migrate_grid_load(ctx, tmp_path("bad.json"), &x);
        printf("sidecar %zu: %s: %s\n", i, tsr_status_name(st), tsr_ctx_last_error(ctx));
        CHECK(st == bad[i].want);
        CHECK(strstr(tsr_ctx_last_error(ctx), "bad.json") != NULL);
        CHECK(!bad[i].says || strstr(tsr_ctx_last_error(ctx), bad[i].says) != NULL);
        if (st == TSR_OK)
            tsr_migrate_grid_free(ctx, &x);
    }
    write_text(tmp_path("ok.json"), "{\"file\": \"d.f32\", \"nx\": 2, \"nz\": 3, \"dx\": 1, "
                                    "\"dz\": 1, \"extra\": {\"a\": [1, {\"b\": null}]}, "
                                    "\"note\": \"\\u0041\\\"\"}");
    tsr_migrate_grid ok;
    CHECK_OK(ctx, tsr_migrate_grid_load(ctx, tmp_path("ok.json"), &ok));
    CHECK(ok.data && ok.data[5] == 6 && ok.ox == 0);
    tsr_migrate_grid_free(ctx, &ok);

    /* the shared models */
    const char *models[] = {"marmousi_ifp_12m",
                            "marmousi2_denise_20m_vp",
                            "marmousi2_denise_20m_vp_smooth",
                            "overthrust2d_denise_25m_vp",
                            "overthrust2d_denise_25m_vp_smooth",
                            "seg_eage_salt_slice1_10m"};
    for (int i = 0; i < 6; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "seismic/derived/%s.json", models[i]);
        const char *path = tsr_test_data(rel);
        if (!path)
            continue;
        tsr_migrate_grid m;
        CHECK_OK(ctx, tsr_migrate_grid_load(ctx, path, &m));
        if (!m.data)
            continue;
        float lo = INFINITY, hi = 0;
        for (size_t k = 0; k < (size_t)m.nx * m.nz; k++) {
            lo = fminf(lo, m.data[k]);
            hi = fmaxf(hi, m.data[k]);
        }
        printf("%s: %d x %d at %g x %g m, %g .. %g m/s\n", models[i], (int)m.nx, (int)m.nz, m.dx,
               m.dz, lo, hi);
        CHECK(lo >= 1000 && hi <= 6000);
        tsr_migrate_grid_free(ctx, &m);
    }
}

static void bad_migrations(tsr_ctx *ctx)
{
    static float vel[20 * 10], img[20 * 10], trace[2 * 64];
    for (int i = 0; i < 200; i++)
        vel[i] = 2000;
    tsr_migrate_grid v = {20, 10, 10, 10, 0, 0, vel}, out = {20, 10, 1, 1, 0, 0, img};
    double gx[2] = {50, 120};
    tsr_migrate_shot shot = {100, 0, 2, gx, trace};
    tsr_migrate_gather g = {64, 0.004, 0, 1, &shot};
    vel[37] = NAN;
    CHECK_STATUS(tsr_migrate_image(ctx, &v, &g, NULL, &out), TSR_ERR_INVALID_ARGUMENT);
    CHECK(strstr(tsr_ctx_last_error(ctx), "velocity") && strstr(tsr_ctx_last_error(ctx), "z = 70"));
    vel[37] = 2000;
    gx[1] = 250; /* the model ends at x = 190 */
    CHECK_STATUS(tsr_migrate_image(ctx, &v, &g, NULL, &out), TSR_ERR_INVALID_ARGUMENT);
    CHECK(strstr(tsr_ctx_last_error(ctx), "shot 1") && strstr(tsr_ctx_last_error(ctx), "trace 2"));
    gx[1] = 120;
    trace[70] = INFINITY;
    CHECK_STATUS(tsr_migrate_image(ctx, &v, &g, NULL, &out), TSR_ERR_INVALID_ARGUMENT);
    trace[70] = 0;
    out.nz = 9;
    CHECK_STATUS(tsr_migrate_image(ctx, &v, &g, NULL, &out), TSR_ERR_INVALID_ARGUMENT);
    out.nz = 10;
    CHECK_OK(ctx, tsr_migrate_image(ctx, &v, &g, NULL, &out));
    tsr_migrate_options opt;
    tsr_migrate_options_init(&opt);
    opt.f0 = 0;
    CHECK_STATUS(tsr_migrate_model(ctx, &v, NULL, &opt, &g), TSR_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    strcpy(dir, "/tmp/tsr_migrate_io_XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    tsr_ctx *ctx = tsr_test_reference_ctx();
    viking(ctx);
    const char *folder = tsr_test_data("seismic/segy_test");
    if (folder) {
        int read = 0, refused = 0;
        segy_test_folder(ctx, folder, &read, &refused);
        printf("segy_test: %d files read, %d refused with a message\n", read, refused);
        CHECK(read >= 40);
    }
    multiformats(ctx);
    broken_files(ctx);
    grids(ctx);
    bad_migrations(ctx);
    tsr_ctx_destroy(ctx);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", dir);
    return tsr_test_finish("test_migrate_io");
}
