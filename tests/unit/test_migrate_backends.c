/* The migrate backends against each other, on a laterally varying model, all three methods,
 * both imaging conditions:
 *  - modelling: the cpu backend's traces equal the reference's bit for bit (every frequency is
 *    computed by the same code on the same inputs, and frequencies are not summed);
 *  - migration: per frequency the two backends add identical float terms; the reference sums them
 *    into a double in frequency order, the cpu backend per thread and then across threads. Both
 *    double sums carry an ordering error below nf * 2^-53 * sum|terms| (nf <= 200 here: about
 *    2e-14 of sum|terms|), and each is rounded once to float (at most 2^-24 relative). So
 *    |ref - cpu| <= 2^-23 |ref| + 1e-9 max|ref| holds as long as sum|terms| stays below 1e4
 *    max|image| (the 1e-9 term), which a 64 x 40 image of a few shots does by far;
 *  - the outputs are poisoned (NaN) before each run, so a backend that skips a sample fails;
 *  - progress counts frequencies up to nshots * nfreq; a callback that cancels stops either
 *    backend with TSR_ERR_INTERRUPTED and leaves the image untouched;
 *  - auto takes the cuda backend where a CUDA device is present, the cpu backend elsewhere; a
 *    context on a backend without a migration path (OpenCL, where PoCL provides one) fails with
 *    TSR_ERR_NO_BACKEND. (test_migrate_cuda_gpu checks the cuda backend itself.) */
#include "testlib.h"

#include "cuda/cuda_device.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NX = 64, NZ = 40, NT = 200, NSHOTS = 2, NREC = 32 };

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

typedef struct progress_log {
    int calls, cancel_at;
    double last, total;
    int monotone;
} progress_log;

static int on_progress(void *user, const char *stage, double done, double total)
{
    progress_log *p = user;
    p->monotone &= done >= p->last && strcmp(stage, "migrate") == 0;
    p->last = done;
    p->total = total;
    return ++p->calls == p->cancel_at;
}

static void check_progress(tsr_backend b, const tsr_migrate_grid *v, const tsr_migrate_gather *g)
{
    for (int cancel = 0; cancel < 2; cancel++) {
        progress_log log = {0, cancel ? 3 : -1, 0, 0, 1};
        tsr_ctx_options o;
        tsr_ctx_options_init(&o);
        o.backend = b;
        o.threads = 2;
        o.progress = on_progress;
        o.progress_user = &log;
        tsr_ctx *ctx;
        if (tsr_ctx_create(&o, &ctx) != TSR_OK)
            continue;
        static float g0[NX * NZ];
        tsr_migrate_grid img = {NX, NZ, 1, 1, 0, 0, g0};
        g0[7] = 12345;
        tsr_migrate_options opt;
        tsr_migrate_options_init(&opt);
        opt.fmax = 30;
        tsr_status st = tsr_migrate_image(ctx, v, g, &opt, &img);
        if (cancel) {
            CHECK(st == TSR_ERR_INTERRUPTED && g0[7] == 12345);
            CHECK(log.calls == 3);
        } else {
            CHECK(st == TSR_OK && log.monotone && log.last == log.total && log.total > NSHOTS);
        }
        printf("%s, %s: %d progress calls, %g of %g\n", tsr_backend_name(b),
               cancel ? "cancelled at the third" : "to the end", log.calls, log.last, log.total);
        tsr_ctx_destroy(ctx);
    }
}

static void poison(float *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = NAN;
}

int main(void)
{
    static float vel[NX * NZ];
    for (int ix = 0; ix < NX; ix++)
        for (int iz = 0; iz < NZ; iz++) {
            double lens = (ix - 40) * (ix - 40) + (iz - 22) * (iz - 22) < 36 ? -300 : 0;
            vel[ix * NZ + iz] = (float)(1800 + 4 * ix + 12 * iz + (iz >= 25 ? 400 : 0) + lens);
        }
    tsr_migrate_grid v = {NX, NZ, 10, 10, 100, 0, vel};
    tsr_ctx *ref = make_ctx(TSR_BACKEND_REFERENCE, 1);
    tsr_ctx *cpu2 = make_ctx(TSR_BACKEND_CPU, 2), *cpu3 = make_ctx(TSR_BACKEND_CPU, 3);
    tsr_ctx *autox = make_ctx(TSR_BACKEND_AUTO, 0);
    CHECK(ref && cpu2 && cpu3 && autox);
    if (!ref || !cpu2 || !cpu3 || !autox)
        return tsr_test_finish("test_migrate_backends");
    CHECK(tsr_migrate_backend(autox) ==
          (tsr__cuda_device_count() > 0 ? TSR_BACKEND_CUDA : TSR_BACKEND_CPU));
    CHECK(tsr_migrate_backend(ref) == TSR_BACKEND_REFERENCE);
    CHECK(tsr_migrate_backend(cpu2) == TSR_BACKEND_CPU);

    for (int m = 0; m < 3; m++) {
        tsr_migrate_options opt;
        tsr_migrate_options_init(&opt);
        opt.method = (tsr_migrate_method)m;
        opt.f0 = 20;
        opt.taper = 8;
        tsr_migrate_gather a, b;
        CHECK_OK(ref, tsr_migrate_gather_alloc(ref, &a, NSHOTS, NREC, NT, 0.004, -0.05));
        CHECK_OK(ref, tsr_migrate_gather_alloc(ref, &b, NSHOTS, NREC, NT, 0.004, -0.05));
        if (!a.shots || !b.shots)
            break;
        for (int s = 0; s < NSHOTS; s++) {
            a.shots[s].sx = b.shots[s].sx = 250 + 300 * s;
            for (int r = 0; r < NREC; r++)
                a.shots[s].gx[r] = b.shots[s].gx[r] = 100 + 20 * r;
        }
        const size_t nsamp = (size_t)NSHOTS * NREC * NT;
        poison(a.shots[0].traces, nsamp);
        poison(b.shots[0].traces, nsamp);
        CHECK_OK(ref, tsr_migrate_model(ref, &v, NULL, &opt, &a));
        CHECK_OK(cpu3, tsr_migrate_model(cpu3, &v, NULL, &opt, &b));
        CHECK(memcmp(a.shots[0].traces, b.shots[0].traces, nsamp * sizeof(float)) == 0);
        double peak = 0;
        for (size_t i = 0; i < nsamp; i++)
            peak = fmax(peak, fabs(a.shots[0].traces[i]));
        CHECK(peak > 0 && isfinite(peak));

        for (int im = 0; im < 2; im++) {
            tsr_migrate_options mo;
            tsr_migrate_options_init(&mo);
            mo.method = opt.method;
            mo.imaging = im ? TSR_MIGRATE_NORMALIZED : TSR_MIGRATE_CROSS;
            mo.taper = 8;
            mo.fmax = 40;
            static float gr[NX * NZ], g2[NX * NZ], g3[NX * NZ];
            tsr_migrate_grid ir = {NX, NZ, 1, 1, 0, 0, gr}, i2 = ir, i3 = ir;
            i2.data = g2;
            i3.data = g3;
            poison(gr, NX * NZ);
            poison(g2, NX * NZ);
            poison(g3, NX * NZ);
            CHECK_OK(ref, tsr_migrate_image(ref, &v, &a, &mo, &ir));
            CHECK_OK(cpu2, tsr_migrate_image(cpu2, &v, &a, &mo, &i2));
            CHECK_OK(cpu3, tsr_migrate_image(cpu3, &v, &a, &mo, &i3));
            double most = 0, worst = 0;
            int bad = 0;
            for (int i = 0; i < NX * NZ; i++)
                most = fmax(most, fabs(gr[i]));
            for (int i = 0; i < NX * NZ; i++) {
                double tol = ldexp(fabs(gr[i]), -23) + 1e-9 * most;
                double d = fmax(fabs(gr[i] - g2[i]), fabs(gr[i] - g3[i]));
                if (!(d <= tol))
                    bad++;
                if (d > worst || d != d)
                    worst = d;
            }
            printf("%s, %s: max |image| %.6g, max |ref - cpu| %.3g, %d samples over the "
                   "tolerance\n",
                   tsr_migrate_method_name(mo.method), tsr_migrate_imaging_name(mo.imaging), most,
                   worst, bad);
            CHECK(most > 0 && isfinite(most));
            CHECK(bad == 0);
            CHECK(ir.dx == 10 && ir.ox == 100);
        }
        if (m == 0) {
            check_progress(TSR_BACKEND_REFERENCE, &v, &a);
            check_progress(TSR_BACKEND_CPU, &v, &a);
        }
        tsr_migrate_gather_free(ref, &a);
        tsr_migrate_gather_free(ref, &b);
    }

    tsr_ctx *ocl = make_ctx(TSR_BACKEND_OPENCL, 0);
    if (ocl) {
        static float g[NX * NZ];
        tsr_migrate_grid img = {NX, NZ, 1, 1, 0, 0, g};
        tsr_migrate_gather a;
        CHECK_OK(ref, tsr_migrate_gather_alloc(ref, &a, 1, 1, NT, 0.004, 0));
        a.shots[0].sx = a.shots[0].gx[0] = 300;
        CHECK_STATUS(tsr_migrate_image(ocl, &v, &a, NULL, &img), TSR_ERR_NO_BACKEND);
        CHECK(strstr(tsr_ctx_last_error(ocl), "opencl") != NULL);
        CHECK(tsr_migrate_backend(ocl) == TSR_BACKEND_AUTO);
        tsr_migrate_gather_free(ref, &a);
        tsr_ctx_destroy(ocl);
    } else {
        printf("no OpenCL device: the no-backend case is not exercised\n");
    }
    tsr_ctx_destroy(ref);
    tsr_ctx_destroy(cpu2);
    tsr_ctx_destroy(cpu3);
    tsr_ctx_destroy(autox);
    return tsr_test_finish("test_migrate_backends");
}
