/* Migration in parts (tsr_migrate_image_add, tsr_migrate_image_from_sum) and the thread count:
 *  - the reference backend's image does not depend on --threads (the surface spectra are made on
 *    the context's threads, one shot per thread, by the same code): bit for bit;
 *  - 11 shots (where a backend takes batches of 8: 8 + 3 whole, 1 + 8 + 2 in parts) migrated in
 *    parts, shot 0, none, then from shot 1 with a callback that stops the call once 9 or more
 *    shots are in, then the rest: the image equals tsr_migrate_image's bit for bit on the
 *    reference (1 and 3 threads) and cpu (1 thread) backends, whose one shot's image is
 *    deterministic; on cpu with 3 threads and on cuda (where a device is present) within
 *    2^-23 |image| + 1e-9 max|image|, the bound of test_migrate_backends for the order of the
 *    double sums over frequencies;
 *  - the callback hears every shot (one at a time) or every batch (cuda), in order, and a stop
 *    leaves exactly the announced shots in the sum;
 *  - a checkpointed run (tsr_migrate_checkpoint_*) stopped after STOP_AT shots and reopened
 *    resumes from the saved sum exactly and ends at the uninterrupted image bit for bit; other
 *    options are refused naming the option; a missing sum file or a folder that is a file is
 *    an I/O error;
 *  - outputs are poisoned (NaN) before each run; shot ranges outside the gather and an image of
 *    the wrong size are TSR_ERR_INVALID_ARGUMENT. */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include "cuda/cuda_device.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { NX = 48, NZ = 30, NT = 160, NSHOTS = 11, NREC = 24, STOP_AT = 9 };

static tsr_ctx *make_ctx(tsr_backend b, int threads)
{
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = b;
    o.threads = threads;
    tsr_ctx *ctx = NULL;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK) {
        tsr_ctx_destroy(ctx);
        return NULL;
    }
    return ctx;
}

static void poison(float *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = NAN;
}

/* What the callback heard: the shots_done values in order; it stops once stop_at are in. */
typedef struct heard {
    int32_t done[NSHOTS + 1];
    int count;
    int32_t stop_at;
} heard;

static int on_added(void *user, int32_t shots_done, const double *sum)
{
    heard *h = user;
    if (h->count < NSHOTS + 1)
        h->done[h->count++] = shots_done;
    return sum && shots_done >= h->stop_at;
}

/* Number of samples of b off a by more than 2^-23 |a| + 1e-9 max|a| (exact: any difference). */
static int misses(const float *a, const float *b, int exact)
{
    double most = 0;
    for (int i = 0; i < NX * NZ; i++)
        most = fmax(most, fabs(a[i]));
    int bad = 0;
    for (int i = 0; i < NX * NZ; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (exact ? memcmp(&a[i], &b[i], sizeof(float)) != 0
                  : !(d <= ldexp(fabs(a[i]), -23) + 1e-9 * most))
            bad++;
    }
    return bad;
}

/* Whole and in parts on ctx; returns the whole image in `whole`. */
static void one_backend(tsr_ctx *ctx, const char *name, int exact, const tsr_migrate_grid *v,
                        const tsr_migrate_gather *g, const tsr_migrate_options *opt, float *whole)
{
    static float parts[NX * NZ];
    static double sum[NX * NZ];
    tsr_migrate_grid iw = {NX, NZ, 1, 1, 0, 0, whole}, ip = iw;
    ip.data = parts;
    poison(whole, NX * NZ);
    poison(parts, NX * NZ);
    CHECK_OK(ctx, tsr_migrate_image(ctx, v, g, opt, &iw));
    memset(sum, 0, sizeof sum);
    heard h = {{0}, 0, NSHOTS + 1};
    CHECK_OK(ctx, tsr_migrate_image_add(ctx, v, g, opt, 0, 1, sum, on_added, &h));
    CHECK_OK(ctx, tsr_migrate_image_add(ctx, v, g, opt, 1, 0, sum, on_added, &h));
    CHECK(h.count == 1 && h.done[0] == 1);
    h.stop_at = STOP_AT;
    CHECK_STATUS(tsr_migrate_image_add(ctx, v, g, opt, 1, NSHOTS - 1, sum, on_added, &h),
                 TSR_ERR_INTERRUPTED);
    const int32_t stopped = h.done[h.count - 1];
    CHECK(stopped >= STOP_AT && stopped < NSHOTS);
    int ordered = 1;
    for (int i = 1; i < h.count; i++)
        ordered &= h.done[i] > h.done[i - 1];
    CHECK(ordered);
    h.stop_at = NSHOTS + 1;
    CHECK_OK(ctx,
             tsr_migrate_image_add(ctx, v, g, opt, stopped, NSHOTS - stopped, sum, on_added, &h));
    CHECK(h.done[h.count - 1] == NSHOTS);
    CHECK_OK(ctx, tsr_migrate_image_from_sum(ctx, v, sum, &ip));
    CHECK(ip.dx == v->dx && ip.ox == v->ox);
    int bad = misses(whole, parts, exact);
    printf("%s, %s: %d callbacks (stopped after shot %d), %d samples of the split image %s\n", name,
           tsr_migrate_imaging_name(opt->imaging), h.count, (int)stopped, bad,
           exact ? "differ" : "off the tolerance");
    CHECK(bad == 0);
}

/* The callback of a checkpointed run: saves, stopping once stop_at shots are in. */
typedef struct saving {
    tsr_ctx *ctx;
    tsr_migrate_checkpoint *cp;
    int32_t stop_at;
    int saves;
} saving;

static int on_save(void *user, int32_t shots_done, const double *sum)
{
    saving *s = user;
    s->saves++;
    return tsr_migrate_checkpoint_save(s->ctx, s->cp, shots_done, sum) != TSR_OK ||
           shots_done >= s->stop_at;
}

/* A checkpointed run on ctx stopped after STOP_AT shots, reopened, finished: its image is
 * `whole` bit for bit; a reopened checkpoint holds the saved sum exactly; other options are
 * refused naming the option; a folder that is a file is an I/O error. */
static void checkpointed(tsr_ctx *ctx, const tsr_migrate_grid *v, const tsr_migrate_gather *g,
                         const tsr_migrate_options *opt, const float *whole)
{
    char dir[] = "/tmp/tsr_migrate_parts_XXXXXX", ck[64], file[64];
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp");
        return;
    }
    snprintf(ck, sizeof ck, "%s/ck", dir);
    static double sum[NX * NZ], again[NX * NZ];
    static float image[NX * NZ];
    for (int i = 0; i < NX * NZ; i++)
        sum[i] = again[i] = NAN;
    tsr_migrate_checkpoint *cp = NULL;
    int32_t done = -1;
    CHECK_OK(ctx,
             tsr_migrate_checkpoint_open(ctx, ck, v, g, opt, "shots", "model", &cp, &done, sum));
    CHECK(cp && done == 0 && sum[0] == 0 && sum[NX * NZ - 1] == 0);
    saving sv = {ctx, cp, STOP_AT, 0};
    CHECK_STATUS(tsr_migrate_image_add(ctx, v, g, opt, 0, NSHOTS, sum, on_save, &sv),
                 TSR_ERR_INTERRUPTED);
    tsr_migrate_checkpoint_close(ctx, cp);
    CHECK_OK(ctx, tsr_migrate_checkpoint_open(ctx, ck, v, g, opt, NULL, NULL, &cp, &done, again));
    CHECK(done >= STOP_AT && done < NSHOTS && sv.saves >= 1);
    CHECK(memcmp(sum, again, sizeof sum) == 0);
    sv.cp = cp;
    sv.stop_at = NSHOTS + 1;
    CHECK_OK(ctx, tsr_migrate_image_add(ctx, v, g, opt, done, NSHOTS - done, again, on_save, &sv));
    tsr_migrate_grid im = {NX, NZ, 1, 1, 0, 0, image};
    poison(image, NX * NZ);
    CHECK_OK(ctx, tsr_migrate_image_from_sum(ctx, v, again, &im));
    CHECK(memcmp(image, whole, sizeof image) == 0);
    tsr_migrate_checkpoint_close(ctx, cp);
    printf("checkpoint: stopped after shot %d, resumed, %d saves, image equal: %d\n", (int)done,
           sv.saves, memcmp(image, whole, sizeof image) == 0);

    tsr_migrate_options other = *opt;
    other.taper = opt->taper + 1;
    CHECK_STATUS(tsr_migrate_checkpoint_open(ctx, ck, v, g, &other, NULL, NULL, &cp, &done, sum),
                 TSR_ERR_INVALID_ARGUMENT);
    CHECK(strstr(tsr_ctx_last_error(ctx), "options.taper") != NULL);
    CHECK_STATUS(tsr_migrate_checkpoint_open(ctx, ck, v, g, opt, NULL, NULL, &cp, NULL, sum),
                 TSR_ERR_INVALID_ARGUMENT);
    snprintf(file, sizeof file, "%s/ck/manifest.json", dir);
    CHECK_STATUS(tsr_migrate_checkpoint_open(ctx, file, v, g, opt, NULL, NULL, &cp, &done, sum),
                 TSR_ERR_IO);
    snprintf(file, sizeof file, "%s/ck/sum-%d.f64", dir, (int)NSHOTS);
    CHECK(remove(file) == 0);
    CHECK_STATUS(tsr_migrate_checkpoint_open(ctx, ck, v, g, opt, NULL, NULL, &cp, &done, sum),
                 TSR_ERR_IO);
    snprintf(file, sizeof file, "%s/ck/manifest.json", dir);
    remove(file);
    rmdir(ck);
    rmdir(dir);
}

int main(void)
{
    static float vel[NX * NZ];
    for (int ix = 0; ix < NX; ix++)
        for (int iz = 0; iz < NZ; iz++)
            vel[ix * NZ + iz] = (float)(1700 + 5 * ix + 14 * iz + (iz >= 18 ? 450 : 0));
    tsr_migrate_grid v = {NX, NZ, 10, 10, 50, 0, vel};
    tsr_ctx *ref1 = make_ctx(TSR_BACKEND_REFERENCE, 1), *ref3 = make_ctx(TSR_BACKEND_REFERENCE, 3);
    tsr_ctx *cpu1 = make_ctx(TSR_BACKEND_CPU, 1), *cpu3 = make_ctx(TSR_BACKEND_CPU, 3);
    CHECK(ref1 && ref3 && cpu1 && cpu3);
    if (!ref1 || !ref3 || !cpu1 || !cpu3)
        return tsr_test_finish("test_migrate_parts");
    tsr_migrate_options mopt;
    tsr_migrate_options_init(&mopt);
    mopt.f0 = 20;
    mopt.taper = 6;
    tsr_migrate_gather g;
    CHECK_OK(ref1, tsr_migrate_gather_alloc(ref1, &g, NSHOTS, NREC, NT, 0.004, -0.05));
    if (!g.shots)
        return tsr_test_finish("test_migrate_parts");
    for (int s = 0; s < NSHOTS; s++) {
        g.shots[s].sx = 80 + 37 * s;
        for (int r = 0; r < NREC; r++)
            g.shots[s].gx[r] = 50 + 19.5 * r;
    }
    CHECK_OK(ref1, tsr_migrate_model(ref1, &v, NULL, &mopt, &g));

    static float w_ref1[NX * NZ], w_ref3[NX * NZ], w_other[NX * NZ];
    for (int im = 0; im < 2; im++) {
        tsr_migrate_options opt;
        tsr_migrate_options_init(&opt);
        opt.imaging = im ? TSR_MIGRATE_NORMALIZED : TSR_MIGRATE_CROSS;
        opt.taper = 6;
        opt.fmax = 40;
        one_backend(ref1, "reference, 1 thread", 1, &v, &g, &opt, w_ref1);
        one_backend(ref3, "reference, 3 threads", 1, &v, &g, &opt, w_ref3);
        int bad = misses(w_ref1, w_ref3, 1);
        printf("reference, %s: %d samples differ between 1 and 3 threads\n",
               tsr_migrate_imaging_name(opt.imaging), bad);
        CHECK(bad == 0);
        checkpointed(ref3, &v, &g, &opt, w_ref1);
        one_backend(cpu1, "cpu, 1 thread", 1, &v, &g, &opt, w_other);
        one_backend(cpu3, "cpu, 3 threads", 0, &v, &g, &opt, w_other);
        CHECK(misses(w_ref1, w_other, 0) == 0);
        tsr_ctx *cu = tsr__cuda_device_count() > 0 ? make_ctx(TSR_BACKEND_CUDA, 0) : NULL;
        if (cu) {
            one_backend(cu, "cuda", 0, &v, &g, &opt, w_other);
            CHECK(misses(w_ref1, w_other, 0) == 0);
            tsr_ctx_destroy(cu);
        } else if (im == 0) {
            printf("no CUDA device: the cuda backend's batches are not exercised\n");
        }
    }

    static double sum[NX * NZ];
    CHECK_STATUS(tsr_migrate_image_add(ref1, &v, &g, NULL, -1, 2, sum, NULL, NULL),
                 TSR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(tsr_migrate_image_add(ref1, &v, &g, NULL, 5, NSHOTS - 4, sum, NULL, NULL),
                 TSR_ERR_INVALID_ARGUMENT);
    CHECK(strstr(tsr_ctx_last_error(ref1), "shots 6 .. 12") != NULL);
    CHECK_STATUS(tsr_migrate_image_add(ref1, &v, &g, NULL, 0, 1, NULL, NULL, NULL),
                 TSR_ERR_INVALID_ARGUMENT);
    tsr_migrate_grid small = {NX - 1, NZ, 1, 1, 0, 0, w_other};
    CHECK_STATUS(tsr_migrate_image_from_sum(ref1, &v, sum, &small), TSR_ERR_INVALID_ARGUMENT);

    tsr_migrate_gather_free(ref1, &g);
    tsr_ctx_destroy(ref1);
    tsr_ctx_destroy(ref3);
    tsr_ctx_destroy(cpu1);
    tsr_ctx_destroy(cpu3);
    return tsr_test_finish("test_migrate_parts");
}
