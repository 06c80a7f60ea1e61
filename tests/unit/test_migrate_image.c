/* Migration against analytic answers (tsr_migrate_image, tsr_migrate_model), both extrapolators:
 *  - impulse response: one spike at time t in a zero-offset trace migrates to a half-circle of
 *    radius v t / 2 about the source-receiver point; along rays at 0, 20, 40 and 55 degrees from
 *    the vertical the image's energy centroid lies within one grid cell of that radius;
 *  - a flat reflector, modelled and migrated: the image's peak under the source lies at the
 *    reflector's depth within a quarter wavelength (v / (4 f0));
 *  - v(z) with two reflectors: the explicit and phase-shift images correlate >= 0.95 (the
 *    phase shift is exact for v(z)); PSPI, one reference per depth there, matches the phase
 *    shift (>= 0.999);
 *  - strong lateral velocity change: PSPI and explicit images correlate >= 0.9, and better than
 *    the phase shift's (one velocity per depth) does with either. */
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static float *make_vel(int nx, int nz, double dz, float (*v_of_z)(double z))
{
    float *v = malloc(sizeof(float) * (size_t)nx * nz);
    for (int ix = 0; ix < nx; ix++)
        for (int iz = 0; iz < nz; iz++)
            v[(size_t)ix * nz + iz] = v_of_z(iz * dz);
    return v;
}

static float v2000(double z)
{
    (void)z;
    return 2000.0f;
}

/* Bilinear sample of a grid at (x, z) metres. */
static double sample(const tsr_migrate_grid *g, double x, double z)
{
    double fx = (x - g->ox) / g->dx, fz = (z - g->oz) / g->dz;
    int ix = (int)floor(fx), iz = (int)floor(fz);
    if (ix < 0 || iz < 0 || ix + 1 >= g->nx || iz + 1 >= g->nz)
        return 0;
    double ax = fx - ix, az = fz - iz;
    const float *d = g->data;
    return (1 - ax) *
               ((1 - az) * d[(size_t)ix * g->nz + iz] + az * d[(size_t)ix * g->nz + iz + 1]) +
           ax * ((1 - az) * d[(size_t)(ix + 1) * g->nz + iz] +
                 az * d[(size_t)(ix + 1) * g->nz + iz + 1]);
}

static void impulse(tsr_ctx *ctx, tsr_migrate_method method)
{
    enum { NX = 161, NZ = 81, NT = 256 };
    const double dx = 10, dz = 10, dt = 0.004, sx = 800;
    const int spike = 125; /* t = 0.5 s: radius v t / 2 = 500 m */
    float *vel = make_vel(NX, NZ, dz, v2000);
    tsr_migrate_grid v = {NX, NZ, dx, dz, 0, 0, vel};
    static float trace[NT];
    memset(trace, 0, sizeof trace);
    trace[spike] = 1;
    double gx = sx;
    tsr_migrate_shot shot = {sx, 0, 1, &gx, trace};
    tsr_migrate_gather g = {NT, dt, 0, 1, &shot};
    tsr_migrate_options opt;
    tsr_migrate_options_init(&opt);
    opt.method = method;
    opt.fmax = 40;
    tsr_migrate_grid img;
    CHECK_OK(ctx, tsr_migrate_grid_alloc(ctx, &img, NX, NZ, 1, 1, 0, 0));
    CHECK_OK(ctx, tsr_migrate_image(ctx, &v, &g, &opt, &img));
    const double radius = 2000 * spike * dt / 2;
    const double angles[] = {0, 20, 40, 45, 50, 55};
    for (int a = 0; a < 6; a++) {
        double th = angles[a] * PI / 180, num = 0, den = 0;
        for (double r = radius - 150; r <= radius + 150; r += 1) {
            double s = sample(&img, sx + r * sin(th), r * cos(th));
            num += r * s * s;
            den += s * s;
        }
        double centroid = den > 0 ? num / den : 0;
        printf("%s impulse: %2.0f degrees: energy centroid at %.1f m (radius %.0f m)\n",
               tsr_migrate_method_name(method), angles[a], centroid, radius);
        CHECK(fabs(centroid - radius) <= dx);
    }
    tsr_migrate_grid_free(ctx, &img);
    free(vel);
}

static float two_layers(double z)
{
    return z < 300 ? 2000.0f : 2600.0f;
}

static float gradient_two_jumps(double z)
{
    return (float)(1800 + 0.6 * z + (z >= 250 ? 300 : 0) + (z >= 450 ? 400 : 0));
}

/* Models one shot at the middle of the grid, receivers at every column, and migrates it. */
static void model_and_migrate(tsr_ctx *ctx, const tsr_migrate_grid *v, double f0,
                              tsr_migrate_method model_method, tsr_migrate_method image_method,
                              tsr_migrate_grid *img)
{
    enum { NT = 260 };
    tsr_migrate_gather g;
    CHECK_OK(ctx, tsr_migrate_gather_alloc(ctx, &g, 1, v->nx, NT, 0.004, -0.067));
    if (!g.shots)
        return;
    g.shots[0].sx = v->ox + (v->nx / 2) * v->dx;
    for (int i = 0; i < v->nx; i++)
        g.shots[0].gx[i] = v->ox + i * v->dx;
    tsr_migrate_options opt;
    tsr_migrate_options_init(&opt);
    opt.method = model_method;
    opt.f0 = f0;
    CHECK_OK(ctx, tsr_migrate_model(ctx, v, NULL, &opt, &g));
    double peak = 0;
    for (int i = 0; i < v->nx * NT; i++)
        peak = fmax(peak, fabs(g.shots[0].traces[i]));
    CHECK(peak > 0 && isfinite(peak));
    tsr_migrate_options_init(&opt);
    opt.method = image_method;
    opt.fmax = 3 * f0;
    CHECK_OK(ctx, tsr_migrate_grid_alloc(ctx, img, v->nx, v->nz, 1, 1, 0, 0));
    CHECK_OK(ctx, tsr_migrate_image(ctx, v, &g, &opt, img));
    tsr_migrate_gather_free(ctx, &g);
}

static void reflector(tsr_ctx *ctx, tsr_migrate_method method)
{
    enum { NX = 121, NZ = 61 };
    const double dz = 10, f0 = 15;
    float *vel = make_vel(NX, NZ, dz, two_layers);
    tsr_migrate_grid v = {NX, NZ, 10, dz, 0, 0, vel}, img = {0};
    model_and_migrate(ctx, &v, f0, method, method, &img);
    if (img.data) {
        /* the image averaged over the 21 columns about the source; its largest value */
        int best = 0;
        double best_v = -1e300;
        for (int iz = 5; iz < NZ; iz++) {
            double s = 0;
            for (int ix = NX / 2 - 10; ix <= NX / 2 + 10; ix++)
                s += img.data[(size_t)ix * NZ + iz];
            if (s > best_v) {
                best_v = s;
                best = iz;
            }
        }
        double quarter = 2000 / f0 / 4;
        printf("%s reflector at 300 m: image peak at %.0f m (quarter wavelength %.1f m)\n",
               tsr_migrate_method_name(method), best * dz, quarter);
        CHECK(fabs(best * dz - 300) <= quarter);
        CHECK(best_v > 0);
    }
    tsr_migrate_grid_free(ctx, &img);
    free(vel);
}

static double correlation(const float *a, const float *b, size_t n)
{
    double ab = 0, aa = 0, bb = 0;
    for (size_t i = 0; i < n; i++) {
        ab += (double)a[i] * b[i];
        aa += (double)a[i] * a[i];
        bb += (double)b[i] * b[i];
    }
    return aa > 0 && bb > 0 ? ab / sqrt(aa * bb) : 0;
}

static void explicit_vs_phase_shift(tsr_ctx *ctx)
{
    enum { NX = 121, NZ = 61 };
    float *vel = make_vel(NX, NZ, 10, gradient_two_jumps);
    tsr_migrate_grid v = {NX, NZ, 10, 10, 0, 0, vel}, a = {0}, b = {0};
    model_and_migrate(ctx, &v, 15, TSR_MIGRATE_PHASE_SHIFT, TSR_MIGRATE_EXPLICIT, &a);
    model_and_migrate(ctx, &v, 15, TSR_MIGRATE_PHASE_SHIFT, TSR_MIGRATE_PHASE_SHIFT, &b);
    tsr_migrate_grid c = {0};
    model_and_migrate(ctx, &v, 15, TSR_MIGRATE_PHASE_SHIFT, TSR_MIGRATE_PSPI, &c);
    if (a.data && b.data && c.data) {
        double ab = correlation(a.data, b.data, (size_t)NX * NZ);
        double bc = correlation(b.data, c.data, (size_t)NX * NZ);
        printf("v(z): explicit vs phase-shift image correlation %.4f, pspi vs phase-shift %.6f\n",
               ab, bc);
        CHECK(ab >= 0.95);
        CHECK(bc >= 0.999);
    }
    tsr_migrate_grid_free(ctx, &a);
    tsr_migrate_grid_free(ctx, &b);
    tsr_migrate_grid_free(ctx, &c);
    free(vel);
}

static void lateral(tsr_ctx *ctx)
{
    enum { NX = 121, NZ = 61 };
    float *vel = malloc(sizeof(float) * NX * NZ);
    for (int ix = 0; ix < NX; ix++)
        for (int iz = 0; iz < NZ; iz++)
            vel[ix * NZ + iz] = (float)(1800 + 10.0 * ix + (iz >= 35 ? 600 : 0));
    tsr_migrate_grid v = {NX, NZ, 10, 10, 0, 0, vel}, e = {0}, p = {0}, s = {0};
    model_and_migrate(ctx, &v, 15, TSR_MIGRATE_EXPLICIT, TSR_MIGRATE_EXPLICIT, &e);
    model_and_migrate(ctx, &v, 15, TSR_MIGRATE_EXPLICIT, TSR_MIGRATE_PSPI, &p);
    model_and_migrate(ctx, &v, 15, TSR_MIGRATE_EXPLICIT, TSR_MIGRATE_PHASE_SHIFT, &s);
    if (e.data && p.data && s.data) {
        double ep = correlation(e.data, p.data, (size_t)NX * NZ);
        double es = correlation(e.data, s.data, (size_t)NX * NZ);
        double ps = correlation(p.data, s.data, (size_t)NX * NZ);
        printf("lateral: explicit vs pspi %.4f, explicit vs phase-shift %.4f, pspi vs "
               "phase-shift %.4f\n",
               ep, es, ps);
        CHECK(ep >= 0.9);
        CHECK(ep > es && ep > ps);
    }
    tsr_migrate_grid_free(ctx, &e);
    tsr_migrate_grid_free(ctx, &p);
    tsr_migrate_grid_free(ctx, &s);
    free(vel);
}

int main(void)
{
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.backend = TSR_BACKEND_CPU;
    tsr_ctx *ctx;
    if (tsr_ctx_create(&o, &ctx) != TSR_OK)
        return 1;
    impulse(ctx, TSR_MIGRATE_EXPLICIT);
    impulse(ctx, TSR_MIGRATE_PHASE_SHIFT);
    reflector(ctx, TSR_MIGRATE_EXPLICIT);
    reflector(ctx, TSR_MIGRATE_PHASE_SHIFT);
    explicit_vs_phase_shift(ctx);
    lateral(ctx);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("test_migrate_image");
}
