/* 3D migration and modelling on the migrate cuda backend (extrap3_cuda.cu) against the reference,
 * method explicit, on random laterally varying 3D models of several shapes: a slice smaller than
 * one 32 x 8 tile, several tiles in x and y with sizes not multiples of the tile, an exact
 * multiple, nx != ny and dx != dy, several rows of the pair kernel's 32-row cores; and on an
 * impulse (one spike in one zero-offset trace, constant velocity). Modelling and migration with
 * both imaging conditions, every output poisoned (NaN) before the call, each run twice: with the
 * frequencies in one chunk (the device has room) and with at most 3 frequencies per chunk
 * (TSR_MIGRATE_CUDA_CHUNK=3, the chunked path, its last chunk smaller when 3 does not divide the
 * band).
 *
 * Tolerances: those of test_migrate_cuda_gpu.c, derived at its top, hold unchanged: the 3D
 * device step runs tsr__mig_x3_point and the same recurrence helpers per point in the
 * reference's order without contraction (zeros outside the slice stand for the terms the CPU
 * skips, 0 + a = a), so every wavefield sample is the reference's float and
 *  - modelling: every trace sample equals the reference's (==, not memcmp: the sign of a zero);
 *  - migration: |ref - cuda| <= 2^-23 |ref| + 1e-9 max|ref|, from the order of the double sums
 *    over frequencies only (nf <= 100 here, few shots: the condition sum|terms| < 1e4 max|image|
 *    holds by far).
 * A wrong stencil, operation order or chunk offset would miss these bounds by orders of
 * magnitude. Each case prints the measured error against the bound and, on failure, the first
 * mismatching point (ix, iy, iz) or trace sample with both values.
 *
 * Also: auto takes cuda for 3D explicit and says why; phase shift on a 3D model asked of cuda
 * is TSR_ERR_NO_BACKEND and under auto runs on the CPU; the same context still migrates 2D.
 * Skips (77) where there is no CUDA device. TSR_TEST_QUICK=1 (compute-sanitizer): the two
 * smallest shapes and the impulse, chunked once; TSR_TEST_QUICK=2 (racecheck and synccheck, which
 * instrument every shared-memory access): the 3 x 3-tile shape alone, chunked, 40 samples. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "cuda/cuda_device.h"
#include "migrate/migrate_backends.h"
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int quick;

/* The chunk cap for the next calls: 0 lifts it. */
static void set_chunk(int cap)
{
    if (cap > 0) {
        char v[16];
        snprintf(v, sizeof v, "%d", cap);
        setenv("TSR_MIGRATE_CUDA_CHUNK", v, 1);
    } else {
        unsetenv("TSR_MIGRATE_CUDA_CHUNK");
    }
}

/* A random 3D model, sample (iy, ix, iz) at [(iy nx + ix) nz + iz]: a gradient in z and x, a
 * dipping step, a random spherical lens and a few percent of noise. */
static void random_model(tsr_rng *r, int nx, int ny, int nz, float *vel)
{
    int lx = tsr_rng_range(r, 0, nx - 1), ly = tsr_rng_range(r, 0, ny - 1),
        lz = tsr_rng_range(r, 0, nz - 1);
    int step = tsr_rng_range(r, nz / 3, nz - 1), rad = 2 + nx / 6;
    for (int iy = 0; iy < ny; iy++)
        for (int ix = 0; ix < nx; ix++)
            for (int iz = 0; iz < nz; iz++) {
                double v =
                    1600 + 3.0 * ix - 2.0 * iy + 15.0 * iz + (iz >= step + (ix + iy) / 8 ? 500 : 0);
                int d2 = (ix - lx) * (ix - lx) + (iy - ly) * (iy - ly) + (iz - lz) * (iz - lz);
                if (d2 < rad * rad)
                    v -= 250;
                v *= 1 + 0.03 * ((double)tsr_rng_range(r, 0, 1000) / 1000 - 0.5);
                vel[((size_t)iy * nx + ix) * nz + iz] = (float)v;
            }
}

static double peak_of(const float *a, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, fabs(a[i]));
    return m;
}

/* Images a (reference) and b (cuda) of grid g: every sample within 2^-23 |a| + 1e-9 max|a| (NaN
 * misses); prints the error and the first miss. */
static void compare_images(const char *what, const tsr_migrate_grid *g, const float *a,
                           const float *b)
{
    const size_t n = (size_t)g->nx * g->ny * g->nz;
    const double most = peak_of(a, n), tol = 1e-9 * most;
    double worst = 0;
    size_t bad = 0, first = n;
    for (size_t i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (!(d <= ldexp(fabs(a[i]), -23) + tol)) {
            if (!bad)
                first = i;
            bad++;
        }
        if (d > worst || d != d)
            worst = d;
    }
    printf("  %s: max |ref| %.6g, max |ref - cuda| %.3g (%.3g of max|ref|; bound 2^-23 |ref| + "
           "1e-9 max|ref|), %zu of %zu samples over\n",
           what, most, worst, most > 0 ? worst / most : 0, bad, n);
    if (bad) {
        const size_t iz = first % g->nz, c = first / g->nz;
        printf("  first miss at ix %zu, iy %zu, iz %zu: ref %.9g, cuda %.9g, bound %.3g\n",
               c % g->nx, c / g->nx, iz, a[first], b[first], ldexp(fabs(a[first]), -23) + tol);
    }
    CHECK(most > 0 && isfinite(most));
    CHECK(bad == 0);
}

/* Traces of a (reference) and b (cuda), nsamp samples of nt per trace: equal. */
static void compare_traces(const char *what, const float *a, const float *b, size_t nsamp, int nt)
{
    size_t differ = 0, first = nsamp;
    double worst = 0;
    for (size_t i = 0; i < nsamp; i++) {
        if (!(a[i] == b[i])) {
            if (!differ)
                first = i;
            differ++;
        }
        worst = fmax(worst, fabs((double)a[i] - (double)b[i]));
    }
    printf("  %s: max |trace| %.4g, %zu of %zu samples differ (max %.3g)\n", what,
           peak_of(a, nsamp), differ, nsamp, worst);
    if (differ)
        printf("  first difference: trace %zu (over all shots), sample %zu: ref %.9g, cuda %.9g\n",
               first / (size_t)nt, first % (size_t)nt, a[first], b[first]);
    CHECK(peak_of(a, nsamp) > 0 && isfinite(peak_of(a, nsamp)));
    CHECK(differ == 0);
}

/* A gather of nshots shots along the slice's diagonal, receivers on every stride-th node in x and
 * y. */
static void make_gather(tsr_ctx *ctx, const tsr_migrate_grid *v, int nshots, int stride, int nt,
                        tsr_migrate_gather *g)
{
    const int rx = (v->nx + stride - 1) / stride, ry = (v->ny + stride - 1) / stride;
    CHECK_OK(ctx, tsr_migrate_gather_alloc(ctx, g, nshots, rx * ry, nt, 0.004, -0.05));
    if (!g->shots)
        return;
    for (int s = 0; s < nshots; s++) {
        tsr_migrate_shot *sh = &g->shots[s];
        sh->sx = v->ox + (v->nx - 1) * v->dx * (s + 1) / (nshots + 1);
        sh->sy = v->oy + (v->ny - 1) * v->dy * (s + 1) / (nshots + 1);
        for (int k = 0; k < rx * ry; k++) {
            sh->gx[k] = v->ox + (k % rx) * stride * v->dx;
            sh->gy[k] = v->oy + (k / rx) * stride * v->dy;
        }
    }
}

/* Models the gather on v with both backends (traces equal), then migrates the reference's data
 * with both, both imaging conditions; chunk: the cap on frequencies per chunk (0: none). */
static void one_case(tsr_ctx *ref, tsr_ctx *cu, const tsr_migrate_grid *v, int nshots, int stride,
                     int nt, int chunk)
{
    const int nx = v->nx, ny = v->ny, nz = v->nz;
    printf("%d x %d x %d (nx, ny, nz), dx %g, dy %g, %d shot(s), chunk cap %d:\n", nx, ny, nz,
           v->dx, v->dy, nshots, chunk);
    set_chunk(chunk);
    tsr_migrate_options opt;
    tsr_migrate_options_init(&opt);
    opt.f0 = 15;
    opt.taper = (nx < ny ? nx : ny) / 4 < 5 ? (nx < ny ? nx : ny) / 4 : 5;
    tsr_migrate_gather a, b;
    make_gather(ref, v, nshots, stride, nt, &a);
    make_gather(ref, v, nshots, stride, nt, &b);
    if (!a.shots || !b.shots)
        return;
    const size_t nsamp = (size_t)nshots * a.shots[0].ntraces * nt;
    tsr_test_poison_nan(a.shots[0].traces, nsamp);
    tsr_test_poison_nan(b.shots[0].traces, nsamp);
    CHECK_OK(ref, tsr_migrate_model(ref, v, NULL, &opt, &a));
    CHECK_OK(cu, tsr_migrate_model(cu, v, NULL, &opt, &b));
    CHECK(tsr_ctx_backend(cu) == TSR_BACKEND_CUDA);
    compare_traces("model", a.shots[0].traces, b.shots[0].traces, nsamp, nt);

    const size_t cells = (size_t)nx * ny * nz;
    float *gr = malloc(cells * sizeof(float)), *gc = malloc(cells * sizeof(float));
    CHECK(gr && gc);
    for (int im = 0; im < 2 && gr && gc; im++) {
        tsr_migrate_options mo;
        tsr_migrate_options_init(&mo);
        mo.imaging = im ? TSR_MIGRATE_NORMALIZED : TSR_MIGRATE_CROSS;
        mo.taper = opt.taper;
        tsr_migrate_grid ir = {nx, nz, 1, 1, 0, 0, gr, ny, 1, 0}, ic = ir;
        ic.data = gc;
        tsr_test_poison_nan(gr, cells);
        tsr_test_poison_nan(gc, cells);
        CHECK_OK(ref, tsr_migrate_image(ref, v, &a, &mo, &ir));
        CHECK_OK(cu, tsr_migrate_image(cu, v, &a, &mo, &ic));
        CHECK(tsr_ctx_backend(cu) == TSR_BACKEND_CUDA);
        CHECK(tsr__migrate_cuda_loop_ms(cu) > 0); /* the 3D loop's timer ran */
        compare_images(im ? "normalized image" : "cross image", v, gr, gc);
        CHECK(ic.ny == ny && ic.dy == v->dy && ic.dx == v->dx);
    }
    free(gr);
    free(gc);
    tsr_migrate_gather_free(ref, &a);
    tsr_migrate_gather_free(ref, &b);
    set_chunk(0);
}

/* One spike in one zero-offset trace at the slice's middle, constant velocity: the images of
 * both backends (its shape is test_migrate_3d's). */
static void impulse(tsr_ctx *ref, tsr_ctx *cu, int chunk)
{
    enum { NX = 40, NY = 36, NZ = 30, NT = 128 };
    static float vel[NX * NY * NZ], gr[NX * NY * NZ], gc[NX * NY * NZ];
    for (int i = 0; i < NX * NY * NZ; i++)
        vel[i] = 2000;
    tsr_migrate_grid v = {NX, NZ, 10, 10, 0, 0, vel, NY, 10, 0};
    printf("impulse %d x %d x %d, chunk cap %d:\n", NX, NY, NZ, chunk);
    set_chunk(chunk);
    tsr_migrate_gather g;
    CHECK_OK(ref, tsr_migrate_gather_alloc(ref, &g, 1, 1, NT, 0.004, 0));
    if (!g.shots)
        return;
    g.shots[0].sx = g.shots[0].gx[0] = 200;
    g.shots[0].sy = g.shots[0].gy[0] = 180;
    g.shots[0].traces[40] = 1; /* t = 0.16 s: radius v t / 2 = 160 m */
    tsr_migrate_options mo;
    tsr_migrate_options_init(&mo);
    mo.taper = 5;
    tsr_migrate_grid ir = {NX, NZ, 1, 1, 0, 0, gr, NY, 1, 0}, ic = ir;
    ic.data = gc;
    tsr_test_poison_nan(gr, NX * NY * NZ);
    tsr_test_poison_nan(gc, NX * NY * NZ);
    CHECK_OK(ref, tsr_migrate_image(ref, &v, &g, &mo, &ir));
    CHECK_OK(cu, tsr_migrate_image(cu, &v, &g, &mo, &ic));
    compare_images("impulse image", &v, gr, gc);
    tsr_migrate_gather_free(ref, &g);
    set_chunk(0);
}

/* Backend choice on a 3D model: auto takes cuda for explicit, cpu for phase shift; cuda refuses
 * phase shift; the cuda context still migrates 2D. */
static void choice(tsr_ctx *ref, tsr_ctx *cu)
{
    enum { NX = 16, NY = 12, NZ = 10, NT = 64 };
    static float vel[NX * NY * NZ], g0[NX * NY * NZ];
    for (int i = 0; i < NX * NY * NZ; i++)
        vel[i] = (float)(2000 + 400 * (i % NZ >= NZ / 2));
    tsr_migrate_grid v = {NX, NZ, 10, 10, 0, 0, vel, NY, 10, 0};
    tsr_migrate_grid img = {NX, NZ, 1, 1, 0, 0, g0, NY, 1, 0};
    tsr_migrate_gather g;
    CHECK_OK(ref, tsr_migrate_gather_alloc(ref, &g, 1, 1, NT, 0.004, 0));
    if (!g.shots)
        return;
    g.shots[0].sx = g.shots[0].gx[0] = 80;
    g.shots[0].sy = g.shots[0].gy[0] = 60;
    g.shots[0].traces[20] = 1;
    tsr_ctx *au = tsr_test_ctx(TSR_BACKEND_AUTO);
    CHECK(au != NULL);
    if (au) {
        CHECK_OK(au, tsr_migrate_image(au, &v, &g, NULL, &img));
        CHECK(tsr_ctx_backend(au) == TSR_BACKEND_CUDA);
        printf("auto, 3D explicit: %s (%s)\n", tsr_backend_name(tsr_ctx_backend(au)),
               tsr_ctx_backend_reason(au));
        tsr_migrate_options po;
        tsr_migrate_options_init(&po);
        po.method = TSR_MIGRATE_PHASE_SHIFT;
        CHECK_OK(au, tsr_migrate_image(au, &v, &g, &po, &img));
        CHECK(tsr_ctx_backend(au) == TSR_BACKEND_CPU);
        printf("auto, 3D phase-shift: %s (%s)\n", tsr_backend_name(tsr_ctx_backend(au)),
               tsr_ctx_backend_reason(au));
        tsr_ctx_destroy(au);
    }
    tsr_migrate_options po;
    tsr_migrate_options_init(&po);
    po.method = TSR_MIGRATE_PHASE_SHIFT;
    g0[3] = 777;
    CHECK_STATUS(tsr_migrate_image(cu, &v, &g, &po, &img), TSR_ERR_NO_BACKEND);
    CHECK(g0[3] == 777);
    printf("cuda, 3D phase-shift: %s\n", tsr_ctx_last_error(cu));
    /* the first inline as a 2D model, on the same context */
    tsr_migrate_grid v2 = {NX, NZ, 10, 10, 0, 0, vel}, i2 = {NX, NZ, 10, 10, 0, 0, g0};
    CHECK_OK(cu, tsr_migrate_image(cu, &v2, &g, NULL, &i2));
    CHECK(tsr_ctx_backend(cu) == TSR_BACKEND_CUDA);
    tsr_migrate_gather_free(ref, &g);
}

int main(void)
{
    quick = getenv("TSR_TEST_QUICK") ? atoi(getenv("TSR_TEST_QUICK")) : 0;
    if (tsr__cuda_device_count() < 1) {
        printf("test_migrate3d_cuda_gpu: no CUDA device; skipping\n");
        return TSR_TEST_SKIP;
    }
    tsr_ctx *ref = tsr_test_ctx(TSR_BACKEND_REFERENCE), *cu = tsr_test_ctx(TSR_BACKEND_CUDA);
    CHECK(ref && cu);
    if (!ref || !cu)
        return tsr_test_finish("test_migrate3d_cuda_gpu");
    tsr_rng r;
    tsr_rng_seed(&r, 2403);
    /* nx, ny, nz, dx, dy, shots, receiver stride: a slice inside one 32 x 8 tile; 3 x 3 tiles,
     * neither size a multiple; exactly 2 x 2 tiles; one past a tile in x and y, dy > dx; 2 x 3 of
     * k3_pair's 32 x 32 cores (the others fit one row of them), ny not a multiple */
    static const struct {
        int nx, ny, nz;
        double dx, dy;
        int shots, stride;
    } shapes[] = {{12, 6, 16, 10, 10, 1, 1},
                  {70, 20, 20, 10, 12, 2, 3},
                  {64, 16, 12, 10, 10, 1, 2},
                  {33, 9, 24, 8, 12, 2, 1},
                  {40, 70, 10, 10, 10, 1, 2}};
    const int count = quick ? 2 : (int)(sizeof shapes / sizeof shapes[0]);
    for (int k = quick >= 2 ? 1 : 0; k < count; k++) {
        const int nx = shapes[k].nx, ny = shapes[k].ny, nz = shapes[k].nz;
        float *vel = malloc((size_t)nx * ny * nz * sizeof(float));
        CHECK(vel != NULL);
        if (!vel)
            break;
        random_model(&r, nx, ny, nz, vel);
        tsr_migrate_grid v = {nx, nz, shapes[k].dx, 8, 40, 0, vel, ny, shapes[k].dy, 20};
        for (int c = quick ? 1 : 0; c < 2; c++)
            one_case(ref, cu, &v, shapes[k].shots, shapes[k].stride,
                     quick >= 2 ? 40
                     : quick    ? 80
                                : 100,
                     c ? 3 : 0);
        free(vel);
    }
    if (quick < 2)
        impulse(ref, cu, 0);
    if (!quick)
        impulse(ref, cu, 2);
    choice(ref, cu);
    tsr_ctx_destroy(ref);
    tsr_ctx_destroy(cu);
    return tsr_test_finish("test_migrate3d_cuda_gpu");
}
