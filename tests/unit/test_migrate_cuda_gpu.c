/* The migrate cuda backend (extrap_cuda.cu) against the reference, method explicit, on random
 * laterally varying velocity models of several widths (one tile, a row narrower than the
 * filter, several tiles and a width that ends exactly on a tile) and on an impulse (one spike
 * in one trace), modelling and migration with both imaging conditions, every output poisoned
 * (NaN) before the call.
 *
 * Tolerances. The device runs extrap_hd.h's float operations per point in the reference's order
 * and the build turns fused multiply-add off, so every wavefield sample is the reference's
 * float: X's sums at the row's ends add a +0 the CPU skips, which changes at most the sign of a
 * zero, never a value. Hence
 *  - modelling: every trace sample equals the reference's (compared with ==, not memcmp: -0);
 *  - migration: each (frequency, depth, point) adds the same float term; the reference sums them
 *    into a double in frequency order, the device with atomicAdd in any order. Both double sums
 *    are within nf * 2^-53 * sum|terms| of the exact sum (nf <= 100 here: 1.2e-14 sum|terms|),
 *    and each is rounded once to float (2^-24 relative). So |ref - cuda| <= 2^-23 |ref| +
 *    1e-9 max|ref| whenever sum|terms| stays below 1e4 max|image|, which the few-shot images of
 *    this test satisfy by far (the same bound as cpu vs reference in test_migrate_backends).
 * Had the float arithmetic differed (another operation order, contraction), the fields would
 * differ by a random walk of roundings, about sqrt(nz * 16 terms * 20 operations) * 2^-24
 * relative (2e-5 for nz = 64): some 1e4 times the bound above, which would then fail. The test
 * prints the measured error of each case in units of max|ref| beside the bound.
 *
 * Also: auto picks cuda for explicit (and says why), phase-shift asked of cuda is
 * TSR_ERR_NO_BACKEND naming the method, phase-shift under auto runs on the CPU. Skips (77)
 * where there is no CUDA device. TSR_TEST_QUICK=1 (compute-sanitizer): the small cases only. */
#include "testlib.h"

#include "cuda/cuda_device.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int quick;

/* A random smooth-ish model: a gradient, a step at a random depth, a random lens and noise of
 * a few percent. */
static void random_model(tsr_rng *r, int nx, int nz, float *vel)
{
    int lx = tsr_rng_range(r, 0, nx - 1), lz = tsr_rng_range(r, 0, nz - 1);
    int step = tsr_rng_range(r, nz / 3, nz - 1), rad = 2 + nx / 8;
    for (int ix = 0; ix < nx; ix++)
        for (int iz = 0; iz < nz; iz++) {
            double v = 1600 + 2.0 * ix + 15.0 * iz + (iz >= step ? 500 : 0);
            if ((ix - lx) * (ix - lx) + (iz - lz) * (iz - lz) < rad * rad)
                v -= 250;
            v *= 1 + 0.03 * ((double)tsr_rng_range(r, 0, 1000) / 1000 - 0.5);
            vel[(size_t)ix * nz + iz] = (float)v;
        }
}

/* Largest |a - b| over n samples, and whether every sample is within 2^-23 |a| + abs_tol; NaN
 * in b counts as a miss. */
static int compare(const float *a, const float *b, size_t n, double abs_tol, double *worst)
{
    int bad = 0;
    *worst = 0;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (!(d <= ldexp(fabs(a[i]), -23) + abs_tol))
            bad++;
        if (d > *worst || d != d)
            *worst = d;
    }
    return bad;
}

static double peak_of(const float *a, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(a[i]));
    return m;
}

/* Models shots on v with both backends (traces must be equal), then migrates the reference's
 * shots with both, both imaging conditions. */
static void one_case(tsr_ctx *ref, tsr_ctx *cu, const tsr_migrate_grid *v, int nshots, int nrec,
                     int nt, const char *name)
{
    const int nx = v->nx, nz = v->nz;
    tsr_migrate_options opt;
    tsr_migrate_options_init(&opt);
    opt.f0 = 18;
    opt.taper = nx / 4 < 8 ? nx / 4 : 8;
    tsr_migrate_gather a, b;
    CHECK_OK(ref, tsr_migrate_gather_alloc(ref, &a, nshots, nrec, nt, 0.004, -0.05));
    CHECK_OK(ref, tsr_migrate_gather_alloc(ref, &b, nshots, nrec, nt, 0.004, -0.05));
    if (!a.shots || !b.shots)
        return;
    const double width = (nx - 1) * v->dx;
    for (int s = 0; s < nshots; s++) {
        a.shots[s].sx = b.shots[s].sx = v->ox + width * (s + 1) / (nshots + 1);
        for (int r = 0; r < nrec; r++)
            a.shots[s].gx[r] = b.shots[s].gx[r] = v->ox + width * r / (nrec > 1 ? nrec - 1 : 1);
    }
    const size_t nsamp = (size_t)nshots * nrec * nt;
    tsr_test_poison_nan(a.shots[0].traces, nsamp);
    tsr_test_poison_nan(b.shots[0].traces, nsamp);
    CHECK_OK(ref, tsr_migrate_model(ref, v, NULL, &opt, &a));
    CHECK_OK(cu, tsr_migrate_model(cu, v, NULL, &opt, &b));
    CHECK(tsr_ctx_backend(cu) == TSR_BACKEND_CUDA);
    double peak = peak_of(a.shots[0].traces, nsamp), worst = 0;
    size_t differ = 0;
    for (size_t i = 0; i < nsamp; i++) {
        float x = a.shots[0].traces[i], y = b.shots[0].traces[i];
        differ += !(x == y);
        worst = fmax(worst, fabs((double)x - (double)y));
    }
    printf("%s %dx%d: model, max |trace| %.4g, %zu of %zu samples differ (max %.3g)\n", name, nx,
           nz, peak, differ, nsamp, worst);
    CHECK(peak > 0 && isfinite(peak));
    CHECK(differ == 0);

    size_t cells = (size_t)nx * nz;
    float *gr = malloc(cells * sizeof(float)), *gc = malloc(cells * sizeof(float));
    CHECK(gr && gc);
    for (int im = 0; im < 2 && gr && gc; im++) {
        tsr_migrate_options mo;
        tsr_migrate_options_init(&mo);
        mo.imaging = im ? TSR_MIGRATE_NORMALIZED : TSR_MIGRATE_CROSS;
        mo.taper = opt.taper;
        mo.fmax = 40;
        tsr_migrate_grid ir = {nx, nz, 1, 1, 0, 0, gr}, ic = ir;
        ic.data = gc;
        tsr_test_poison_nan(gr, cells);
        tsr_test_poison_nan(gc, cells);
        CHECK_OK(ref, tsr_migrate_image(ref, v, &a, &mo, &ir));
        CHECK_OK(cu, tsr_migrate_image(cu, v, &a, &mo, &ic));
        double most = peak_of(gr, cells);
        double worst;
        int bad = compare(gr, gc, cells, 1e-9 * most, &worst);
        printf("%s %dx%d: %s image, max |ref| %.6g, max |ref - cuda| %.3g (%.3g of max|ref|; "
               "bound 2^-23 |ref| + 1e-9 max|ref|), %d samples over\n",
               name, nx, nz, tsr_migrate_imaging_name(mo.imaging), most, worst,
               most > 0 ? worst / most : 0, bad);
        CHECK(most > 0 && isfinite(most));
        CHECK(bad == 0);
        CHECK(ic.dx == v->dx && ic.ox == v->ox);
    }
    free(gr);
    free(gc);
    tsr_migrate_gather_free(ref, &a);
    tsr_migrate_gather_free(ref, &b);
}

/* One spike in one trace at zero offset, constant velocity: the image of each backend, compared
 * (its half-circle shape is test_migrate_image's). */
static void impulse(tsr_ctx *ref, tsr_ctx *cu)
{
    enum { NX = 160, NZ = 80, NT = 256 };
    static float vel[NX * NZ], gr[NX * NZ], gc[NX * NZ];
    for (int i = 0; i < NX * NZ; i++)
        vel[i] = 2000;
    tsr_migrate_grid v = {NX, NZ, 10, 10, 0, 0, vel};
    tsr_migrate_gather g;
    CHECK_OK(ref, tsr_migrate_gather_alloc(ref, &g, 1, 1, NT, 0.004, 0));
    if (!g.shots)
        return;
    g.shots[0].sx = g.shots[0].gx[0] = 800;
    memset(g.shots[0].traces, 0, NT * sizeof(float));
    g.shots[0].traces[60] = 1; /* t = 0.24 s: radius v t / 2 = 240 m */
    tsr_migrate_options mo;
    tsr_migrate_options_init(&mo);
    mo.fmax = 45;
    tsr_migrate_grid ir = {NX, NZ, 1, 1, 0, 0, gr}, ic = ir;
    ic.data = gc;
    tsr_test_poison_nan(gr, NX * NZ);
    tsr_test_poison_nan(gc, NX * NZ);
    CHECK_OK(ref, tsr_migrate_image(ref, &v, &g, &mo, &ir));
    CHECK_OK(cu, tsr_migrate_image(cu, &v, &g, &mo, &ic));
    double most = peak_of(gr, NX * NZ), worst;
    int bad = compare(gr, gc, NX * NZ, 1e-9 * most, &worst);
    printf("impulse %dx%d: max |ref| %.6g, max |ref - cuda| %.3g (%.3g of max|ref|), %d over\n", NX,
           NZ, most, worst, most > 0 ? worst / most : 0, bad);
    CHECK(most > 0 && isfinite(most));
    CHECK(bad == 0);
    tsr_migrate_gather_free(ref, &g);
}

/* Backend choice: auto on explicit is cuda with its reason; phase-shift is not on cuda. */
static void choice(tsr_ctx *ref, tsr_ctx *cu)
{
    enum { NX = 40, NZ = 20, NT = 64 };
    static float vel[NX * NZ], g0[NX * NZ];
    for (int i = 0; i < NX * NZ; i++)
        vel[i] = 1800;
    tsr_migrate_grid v = {NX, NZ, 10, 10, 0, 0, vel}, img = {NX, NZ, 1, 1, 0, 0, g0};
    tsr_migrate_gather g;
    CHECK_OK(ref, tsr_migrate_gather_alloc(ref, &g, 1, 1, NT, 0.004, 0));
    if (!g.shots)
        return;
    g.shots[0].sx = g.shots[0].gx[0] = 200;
    memset(g.shots[0].traces, 0, NT * sizeof(float));
    g.shots[0].traces[20] = 1;
    tsr_ctx *au = tsr_test_ctx(TSR_BACKEND_AUTO);
    CHECK(au != NULL);
    if (au) {
        CHECK(tsr_migrate_backend(au) == TSR_BACKEND_CUDA);
        CHECK_OK(au, tsr_migrate_image(au, &v, &g, NULL, &img));
        CHECK(tsr_ctx_backend(au) == TSR_BACKEND_CUDA);
        printf("auto, explicit: %s (%s)\n", tsr_backend_name(tsr_ctx_backend(au)),
               tsr_ctx_backend_reason(au));
        tsr_migrate_options po;
        tsr_migrate_options_init(&po);
        po.method = TSR_MIGRATE_PHASE_SHIFT;
        CHECK_OK(au, tsr_migrate_image(au, &v, &g, &po, &img));
        CHECK(tsr_ctx_backend(au) == TSR_BACKEND_CPU);
        printf("auto, phase-shift: %s (%s)\n", tsr_backend_name(tsr_ctx_backend(au)),
               tsr_ctx_backend_reason(au));
        tsr_ctx_destroy(au);
    }
    tsr_migrate_options po;
    tsr_migrate_options_init(&po);
    po.method = TSR_MIGRATE_PSPI;
    g0[3] = 777;
    CHECK_STATUS(tsr_migrate_image(cu, &v, &g, &po, &img), TSR_ERR_NO_BACKEND);
    CHECK(strstr(tsr_ctx_last_error(cu), "pspi") && strstr(tsr_ctx_last_error(cu), "cuda"));
    CHECK(g0[3] == 777);
    printf("cuda, pspi: %s\n", tsr_ctx_last_error(cu));
    tsr_migrate_gather_free(ref, &g);
}

int main(void)
{
    quick = getenv("TSR_TEST_QUICK") && atoi(getenv("TSR_TEST_QUICK"));
    if (tsr__cuda_device_count() < 1) {
        printf("test_migrate_cuda_gpu: no CUDA device; skipping\n");
        return TSR_TEST_SKIP;
    }
    tsr_ctx *ref = tsr_test_ctx(TSR_BACKEND_REFERENCE), *cu = tsr_test_ctx(TSR_BACKEND_CUDA);
    CHECK(ref && cu);
    if (!ref || !cu)
        return tsr_test_finish("test_migrate_cuda_gpu");
    tsr_rng r;
    tsr_rng_seed(&r, 24);
    /* widths: one tile, below the filter's reach, exactly 2 tiles (CORE = 384), several tiles;
     * 11 shots: one full batch of TSR__MIG_BATCH (8) shots per launch and a part one */
    static const int shapes[][4] = {
        {64, 40, 2, 32}, {48, 24, 11, 12}, {6, 30, 1, 6}, {768, 48, 2, 96}, {1000, 64, 2, 120}};
    const int count = quick ? 2 : (int)(sizeof shapes / sizeof shapes[0]);
    for (int k = 0; k < count; k++) {
        const int nx = shapes[k][0], nz = shapes[k][1];
        float *vel = malloc((size_t)nx * nz * sizeof(float));
        CHECK(vel != NULL);
        if (!vel)
            break;
        random_model(&r, nx, nz, vel);
        tsr_migrate_grid v = {nx, nz, 10, 8, 50, 0, vel};
        one_case(ref, cu, &v, shapes[k][2], shapes[k][3], quick ? 128 : 200, "random");
        free(vel);
    }
    impulse(ref, cu);
    choice(ref, cu);
    tsr_ctx_destroy(ref);
    tsr_ctx_destroy(cu);
    return tsr_test_finish("test_migrate_cuda_gpu");
}
