/* 3D migration (tessera/migrate.h with ny >= 2; design.c's 3D mapping, extrap_hd.h's cross
 * stencil, extrap_phase.c's 2D transforms):
 *  - the explicit operator's 3D table over the default 3D band: |G| <= 1 over all of X in
 *    [-1, 1] on every row and between rows (for dy = dx and dy = 2 dx), and its error against
 *    exp(i kz dz) along the x axis and along the diagonal kx = ky at 0 .. 60 degrees, with the
 *    true |k| and the filter's own symbols (printed, with the phase error per step): asked
 *    |G - E| <= 0.02 up to 45 degrees and <= 0.04 up to 60 on both azimuths (measured 0.018 and
 *    0.037 at dy = dx, 0.014 and 0.026 at dy = 2 dx; 2D reaches 0.012 and 0.024: the 3D X
 *    spectrum is twice as wide for the same band, design.c);
 *  - 2,000 explicit 3D steps of random slices do not grow them, and the evanescent checkerboard
 *    decays;
 *  - impulse response: one spike in a zero-offset trace migrates to a hemisphere of radius
 *    v t / 2 about the source: the energy centroid along rays at several polar angles and
 *    azimuths lies within one grid cell of that radius (explicit and phase shift);
 *  - a shot modelled over a v(z) model and migrated: the image's peak under the source lies at
 *    the first reflector's depth within a quarter wavelength; explicit and phase-shift images
 *    correlate >= 0.95, PSPI (one reference per depth in v(z)) and phase shift >= 0.999;
 *  - reference (one thread, image summed in double) vs cpu (2 threads): modelling gives the same
 *    bits (each frequency's arithmetic is the same code; only which thread runs it differs);
 *    the images differ only by the order of the double sums over frequencies, which moves a
 *    double by about nfreq * 2^-52 of the sum of |terms| and so the float image by at most one
 *    rounding, 2^-23 |a| (plus, where terms cancel, nfreq * 2^-52 * sum |terms|, far below
 *    1e-9 max |a|): the tolerance asked is 2^-23 |a| + 1e-9 max |a|;
 *  - auto takes cpu for 3D; bad 3D input (dy <= 0, sources and receivers outside in y, an image
 *    of another ny, a survey whose working set exceeds the machine) is a clear error.
 * Outputs are NaN-poisoned before each run. Grids are small (28 x 28 x 24) so the test stays
 * quick on CI's two cores. */
#include "migrate/extrap.h"
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

enum { NX = 28, NY = 28, NZ = 24 };
static const double H = 10.0; /* dx = dy = dz */

static double cheb_eval(const tsr__cf *c, double x, double *im)
{
    double t0 = 1, t1 = x, re = c[0].re, i = c[0].im;
    re += c[1].re * t1;
    i += c[1].im * t1;
    for (int n = 2; n < TSR__MIG_TERMS; n++) {
        double t2 = 2 * x * t1 - t0;
        re += c[n].re * t2;
        i += c[n].im * t2;
        t0 = t1;
        t1 = t2;
    }
    *im = i;
    return re;
}

static void poison(float *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = NAN;
}

/* A 3D grid of (ny, nx, nz) with v(z) from v_of_z. */
static float *make_vel(int nx, int ny, int nz, double dz, float (*v_of_z)(double z))
{
    float *v = malloc(sizeof(float) * (size_t)nx * ny * nz);
    for (int c = 0; c < nx * ny; c++)
        for (int iz = 0; iz < nz; iz++)
            v[(size_t)c * nz + iz] = v_of_z(iz * dz);
    return v;
}

static float v2000(double z)
{
    (void)z;
    return 2000.0f;
}

static float gradient_two_jumps(double z)
{
    return (float)(1800 + 0.6 * z + (z >= 120 ? 300 : 0) + (z >= 190 ? 400 : 0));
}

static tsr_migrate_grid grid3(float *data, int nx, int ny, int nz, double dy)
{
    tsr_migrate_grid g = {nx, nz, H, H, 0, 0, data};
    g.ny = ny;
    g.dy = dy;
    g.oy = 0;
    return g;
}

/* The 3D table of a plan for dy = ry dx: |G| <= 1, and the error along the x axis and the
 * diagonal. */
static void check_table(tsr_ctx *ctx, double ry)
{
    enum { NT = 256 };
    static float data[8 * 8 * 4], trace[NT];
    for (size_t i = 0; i < sizeof data / sizeof data[0]; i++)
        data[i] = 1500.0f;
    tsr_migrate_grid v = grid3(data, 8, 8, 4, H * ry);
    double gx = 0;
    tsr_migrate_shot shot = {0, 0, 1, &gx, trace};
    tsr_migrate_gather g = {NT, 0.002, 0, 1, &shot};
    tsr_migrate_options opt;
    tsr_migrate_options_init(&opt);
    tsr__migrate_plan plan;
    CHECK_OK(ctx, tsr__migrate_plan_build(ctx, &plan, &v, &g, &opt, 0));
    if (!plan.table)
        return;
    const double rho = 1.0 / (ry * ry), lmax = tsr__migrate_filter_symbol(plan.d2, PI);
    CHECK(plan.ny == 8 && plan.ncols == 64);
    CHECK(fabs(plan.xscale - 2.0 / (lmax * (1 + rho))) < 1e-6 * plan.xscale);
    CHECK(fabs(plan.xscale_y - rho * plan.xscale) < 1e-6 * plan.xscale);
    double worst_mag = 0;
    for (int j = 0; j < plan.ntable; j++) {
        const tsr__cf *c = plan.table + (size_t)j * TSR__MIG_TERMS;
        tsr__cf mid[TSR__MIG_TERMS];
        for (int n = 0; n < TSR__MIG_TERMS; n++) {
            const tsr__cf *d = j + 1 < plan.ntable ? c + TSR__MIG_TERMS : c;
            mid[n].re = 0.5f * c[n].re + 0.5f * d[n].re;
            mid[n].im = 0.5f * c[n].im + 0.5f * d[n].im;
        }
        for (int q = 0; q <= 20000; q++) {
            double x = -1.0 + q / 10000.0, im;
            double re = cheb_eval(c, x, &im);
            worst_mag = fmax(worst_mag, hypot(re, im));
            re = cheb_eval(mid, x, &im);
            worst_mag = fmax(worst_mag, hypot(re, im));
        }
    }
    printf("3D table, dy = %.0f dx: %d rows up to w dz / v = %.3f, max |G| %.7f\n", ry,
           (int)plan.ntable, (plan.ntable - 1) * plan.table_dp, worst_mag);
    CHECK(worst_mag <= 1.0);
    /* error at propagation angle theta, along x (azimuth 0) and along the diagonal of the
     * (x, y) wavenumber plane (kx = ky); kz dz = p cos(theta), |k| dz = p sin(theta) */
    const double angles[] = {0, 15, 30, 45, 60};
    for (int az = 0; az < 2; az++)
        for (int a = 0; a < 5; a++) {
            double worst = 0, worst_phase = 0;
            const double th = angles[a] * PI / 180;
            for (int j = 1; j < plan.ntable; j++) {
                const tsr__cf *c = plan.table + (size_t)j * TSR__MIG_TERMS;
                const double p = j * plan.table_dp, k = p * sin(th) / (plan.dz / plan.dx);
                const double kx = az ? k / sqrt(2.0) : k, ky = az ? k / sqrt(2.0) : 0;
                const double x = 1 - 2 *
                                         (tsr__migrate_filter_symbol(plan.d2, kx) +
                                          rho * tsr__migrate_filter_symbol(plan.d2, ky * ry)) /
                                         (lmax * (1 + rho));
                double im, re = cheb_eval(c, x, &im);
                const double kz = p * cos(th);
                worst = fmax(worst, hypot(re - cos(kz), im - sin(kz)));
                double ph = atan2(im * cos(kz) - re * sin(kz), re * cos(kz) + im * sin(kz));
                worst_phase = fmax(worst_phase, fabs(ph));
            }
            printf("  %s %2.0f degrees: max |G - E| %.4f, max phase error %.4f rad per step\n",
                   az ? "diagonal" : "x axis  ", angles[a], worst, worst_phase);
            CHECK(worst <= (angles[a] <= 45 ? 0.02 : 0.04));
        }
    tsr__migrate_plan_free(ctx, &plan);
}

static double slice_energy(const tsr__cf *u, int n)
{
    double e = 0;
    for (int i = 0; i < n; i++)
        e += (double)u[i].re * u[i].re + (double)u[i].im * u[i].im;
    return e;
}

/* 2,000 steps of the 3D explicit operator, no taper, on random 16 x 16 slices. */
static void check_stability(tsr_ctx *ctx)
{
    enum { SX = 16, SY = 16, N = SX * SY, NT = 256, STEPS = 2000 };
    static float data[SX * SY * 4], trace[NT];
    for (size_t i = 0; i < sizeof data / sizeof data[0]; i++)
        data[i] = 1500.0f;
    tsr_migrate_grid v = grid3(data, SX, SY, 4, H);
    double gx = 0;
    tsr_migrate_shot shot = {0, 0, 1, &gx, trace};
    tsr_migrate_gather g = {NT, 0.002, 0, 1, &shot};
    tsr_migrate_options opt;
    tsr_migrate_options_init(&opt);
    tsr__migrate_plan plan;
    CHECK_OK(ctx, tsr__migrate_plan_build(ctx, &plan, &v, &g, &opt, 0));
    if (!plan.table)
        return;
    tsr__mig_step es = {SX,        TSR__MIG_TERMS, plan.ntable,
                        {0},       plan.xscale,    (float)(1.0 / plan.table_dp),
                        plan.table};
    memcpy(es.d2, plan.d2, sizeof es.d2);
    es.ny = SY;
    es.xscale_y = plan.xscale_y;
    static tsr__cf u[N], w0[N], w1[N], w2[N], acc[N];
    static int32_t j[N];
    static float a[N], slow[N], ones[N];
    tsr_rng rng;
    tsr_rng_seed(&rng, 243);
    const double pmax = (plan.ntable - 1) * plan.table_dp;
    for (int trial = 0; trial < 2; trial++) {
        for (int i = 0; i < N; i++) {
            u[i] = tsr__cf_make((float)(tsr_rng_range(&rng, -1000, 1000) / 1000.0),
                                (float)(tsr_rng_range(&rng, -1000, 1000) / 1000.0));
            ones[i] = 1.0f;
            double p = trial == 0 ? 0.9 * pmax : pmax * tsr_rng_range(&rng, 0, 1000) / 1000.0;
            slow[i] = (float)p; /* wdz below is 1 */
        }
        double e0 = slice_energy(u, N);
        tsr__mig_lookup_row(&es, slow, 1.0f, j, a);
        for (int s = 0; s < STEPS; s++)
            tsr__mig_explicit_row(&es, u, j, a, ones, s & 1, w0, w1, w2, acc);
        double e1 = slice_energy(u, N);
        printf("3D stability trial %d: energy %.6g -> %.6g after %d steps\n", trial, e0, e1, STEPS);
        CHECK(isfinite(e1));
        CHECK(e1 <= e0 * 1.0001);
    }
    /* evanescent: the checkerboard (kx dx = ky dy = pi, X = -1) at p = 0.3 */
    for (int i = 0; i < N; i++) {
        u[i] = tsr__cf_make(((i % SX) + (i / SX)) & 1 ? -1.0f : 1.0f, 0.0f);
        slow[i] = 0.3f;
    }
    double e0 = slice_energy(u, N);
    tsr__mig_lookup_row(&es, slow, 1.0f, j, a);
    for (int s = 0; s < 10; s++)
        tsr__mig_explicit_row(&es, u, j, a, ones, 0, w0, w1, w2, acc);
    double e1 = slice_energy(u, N);
    printf("3D evanescent slice: energy %.6g -> %.6g after 10 steps\n", e0, e1);
    CHECK(e1 < e0 * 1e-2);
    tsr__migrate_plan_free(ctx, &plan);
}

/* Trilinear sample of a 3D grid at (x, y, z) metres. */
static double sample(const tsr_migrate_grid *g, double x, double y, double z)
{
    double f[3] = {(x - g->ox) / g->dx, (y - g->oy) / g->dy, (z - g->oz) / g->dz};
    int i[3], n[3] = {g->nx, g->ny, g->nz};
    double w[3];
    for (int d = 0; d < 3; d++) {
        i[d] = (int)floor(f[d]);
        w[d] = f[d] - i[d];
        if (i[d] < 0 || i[d] + 1 >= n[d])
            return 0;
    }
    double s = 0;
    for (int c = 0; c < 8; c++) {
        int ix = i[0] + (c & 1), iy = i[1] + (c >> 1 & 1), iz = i[2] + (c >> 2 & 1);
        double wt = ((c & 1) ? w[0] : 1 - w[0]) * ((c >> 1 & 1) ? w[1] : 1 - w[1]) *
                    ((c >> 2 & 1) ? w[2] : 1 - w[2]);
        s += wt * g->data[((size_t)iy * g->nx + ix) * g->nz + iz];
    }
    return s;
}

static void impulse(tsr_ctx *ctx, tsr_migrate_method method)
{
    enum { NT = 96 };
    const double dt = 0.004, sx = 140, sy = 140;
    const int spike = 25; /* t = 0.1 s: radius v t / 2 = 100 m */
    float *vel = make_vel(NX, NY, NZ, H, v2000);
    tsr_migrate_grid v = grid3(vel, NX, NY, NZ, H);
    static float trace[NT];
    memset(trace, 0, sizeof trace);
    trace[spike] = 1;
    double gx = sx, gy = sy;
    tsr_migrate_shot shot = {sx, sy, 1, &gx, trace};
    shot.gy = &gy;
    tsr_migrate_gather g = {NT, dt, 0, 1, &shot};
    tsr_migrate_options opt;
    tsr_migrate_options_init(&opt);
    opt.method = method;
    opt.fmax = 50;
    opt.f0 = 20; /* a Ricker source: no ringing from the band's sharp edges */
    opt.taper = 4;
    tsr_migrate_grid img;
    CHECK_OK(ctx, tsr_migrate_grid_alloc_like(ctx, &img, &v));
    poison(img.data, tsr_migrate_grid_cells(&img));
    CHECK_OK(ctx, tsr_migrate_image(ctx, &v, &g, &opt, &img));
    CHECK(img.ny == NY && img.dy == H);
    const double radius = 2000 * spike * dt / 2;
    /* polar angle from the vertical, azimuth from the x axis */
    const double rays[][2] = {{0, 0}, {25, 0}, {25, 90}, {35, 45}, {40, 180}, {40, 270}};
    for (int a = 0; a < 6; a++) {
        double th = rays[a][0] * PI / 180, ph = rays[a][1] * PI / 180, num = 0, den = 0;
        for (double r = radius - 40; r <= radius + 40; r += 1) {
            double s =
                sample(&img, sx + r * sin(th) * cos(ph), sy + r * sin(th) * sin(ph), r * cos(th));
            num += r * s * s;
            den += s * s;
        }
        double centroid = den > 0 ? num / den : 0;
        printf("%s 3D impulse: polar %2.0f, azimuth %3.0f degrees: energy centroid at %.1f m "
               "(radius %.0f m)\n",
               tsr_migrate_method_name(method), rays[a][0], rays[a][1], centroid, radius);
        CHECK(fabs(centroid - radius) <= H);
    }
    tsr_migrate_grid_free(ctx, &img);
    free(vel);
}

/* One shot at the middle of the surface, receivers on every node, modelled with model_method
 * and f0 = 15 Hz on ctx_model. */
static void model_shot(tsr_ctx *ctx, const tsr_migrate_grid *v, tsr_migrate_method model_method,
                       tsr_migrate_gather *g)
{
    enum { NT = 80 };
    const int n = v->nx * v->ny;
    CHECK_OK(ctx, tsr_migrate_gather_alloc(ctx, g, 1, n, NT, 0.004, -0.067));
    if (!g->shots)
        return;
    g->shots[0].sx = v->ox + (v->nx / 2) * v->dx;
    g->shots[0].sy = v->oy + (v->ny / 2) * v->dy;
    for (int i = 0; i < n; i++) {
        g->shots[0].gx[i] = v->ox + (i % v->nx) * v->dx;
        g->shots[0].gy[i] = v->oy + (i / v->nx) * v->dy;
    }
    poison(g->shots[0].traces, (size_t)n * NT);
    tsr_migrate_options opt;
    tsr_migrate_options_init(&opt);
    opt.method = model_method;
    opt.f0 = 15;
    opt.taper = 5;
    CHECK_OK(ctx, tsr_migrate_model(ctx, v, NULL, &opt, g));
    double peak = 0;
    for (int i = 0; i < n * NT; i++)
        peak = fmax(peak, fabs(g->shots[0].traces[i]));
    CHECK(peak > 0 && isfinite(peak));
}

static void migrate(tsr_ctx *ctx, const tsr_migrate_grid *v, const tsr_migrate_gather *g,
                    tsr_migrate_method method, tsr_migrate_grid *img)
{
    tsr_migrate_options opt;
    tsr_migrate_options_init(&opt);
    opt.method = method;
    opt.fmax = 45;
    opt.taper = 5;
    CHECK_OK(ctx, tsr_migrate_grid_alloc_like(ctx, img, v));
    if (!img->data)
        return;
    poison(img->data, tsr_migrate_grid_cells(img));
    CHECK_OK(ctx, tsr_migrate_image(ctx, v, g, &opt, img));
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

/* The v(z) survey: reflector depth, explicit vs phase shift vs PSPI, reference vs cpu. */
static void vz_survey(tsr_ctx *cpu, tsr_ctx *ref)
{
    float *vel = make_vel(NX, NY, NZ, H, gradient_two_jumps);
    tsr_migrate_grid v = grid3(vel, NX, NY, NZ, H), e = {0}, p = {0}, s = {0}, r = {0};
    tsr_migrate_gather g = {0}, gr = {0};
    model_shot(cpu, &v, TSR_MIGRATE_PHASE_SHIFT, &g);
    model_shot(ref, &v, TSR_MIGRATE_PHASE_SHIFT, &gr);
    if (g.shots && gr.shots)
        CHECK(memcmp(g.shots[0].traces, gr.shots[0].traces,
                     sizeof(float) * (size_t)g.shots[0].ntraces * g.nt) == 0);
    CHECK(tsr_ctx_backend(cpu) == TSR_BACKEND_CPU);
    migrate(cpu, &v, &g, TSR_MIGRATE_EXPLICIT, &e);
    migrate(cpu, &v, &g, TSR_MIGRATE_PHASE_SHIFT, &p);
    migrate(cpu, &v, &g, TSR_MIGRATE_PSPI, &s);
    migrate(ref, &v, &g, TSR_MIGRATE_EXPLICIT, &r);
    const size_t n = (size_t)NX * NY * NZ;
    if (e.data && p.data && s.data && r.data) {
        const tsr_migrate_grid *both[2] = {&e, &p};
        for (int m = 0; m < 2; m++) {
            /* the image averaged over the 5 x 5 columns about the source; its largest value */
            int best = 0;
            double best_v = -1e300;
            for (int iz = 4; iz < NZ; iz++) {
                double sum = 0;
                for (int iy = NY / 2 - 2; iy <= NY / 2 + 2; iy++)
                    for (int ix = NX / 2 - 2; ix <= NX / 2 + 2; ix++)
                        sum += both[m]->data[((size_t)iy * NX + ix) * NZ + iz];
                if (sum > best_v) {
                    best_v = sum;
                    best = iz;
                }
            }
            double quarter = gradient_two_jumps(100) / 15.0 / 4;
            printf("%s 3D reflector at 120 m: image peak at %.0f m (quarter wavelength %.1f m)\n",
                   m ? "phase-shift" : "explicit", best * H, quarter);
            CHECK(fabs(best * H - 120) <= quarter);
        }
        double ep = correlation(e.data, p.data, n), sp = correlation(s.data, p.data, n);
        printf("3D v(z): explicit vs phase-shift correlation %.4f, pspi vs phase-shift %.6f\n", ep,
               sp);
        CHECK(ep >= 0.95);
        CHECK(sp >= 0.999);
        double most = 0, worst = 0;
        for (size_t i = 0; i < n; i++)
            most = fmax(most, fabs(r.data[i]));
        size_t off = 0;
        for (size_t i = 0; i < n; i++) {
            double d = fabs((double)e.data[i] - r.data[i]);
            worst = fmax(worst, d);
            if (!(d <= ldexp(fabs(r.data[i]), -23) + 1e-9 * most))
                off++;
        }
        printf("3D reference vs cpu (2 threads): largest difference %.3g of max %.3g, %zu samples "
               "outside 2^-23 |a| + 1e-9 max|a|\n",
               worst, most, off);
        CHECK(off == 0);
    }
    tsr_migrate_grid *imgs[] = {&e, &p, &s, &r};
    for (int i = 0; i < 4; i++)
        tsr_migrate_grid_free(cpu, imgs[i]);
    tsr_migrate_gather_free(cpu, &g);
    tsr_migrate_gather_free(ref, &gr);
    free(vel);
}

static void bad_input(tsr_ctx *ctx)
{
    enum { NT = 32, SX = 8, SY = 6, SZ = 4 };
    static float vel[SX * SY * SZ], trace[2 * NT], out[SX * SY * SZ];
    for (int i = 0; i < SX * SY * SZ; i++)
        vel[i] = 2000;
    tsr_migrate_grid v = grid3(vel, SX, SY, SZ, H), img = grid3(out, SX, SY, SZ, H);
    double gx[2] = {10, 20}, gy[2] = {10, 20};
    tsr_migrate_shot shot = {30, 20, 2, gx, trace};
    shot.gy = gy;
    tsr_migrate_gather g = {NT, 0.004, 0, 1, &shot};
    tsr_migrate_options opt;
    tsr_migrate_options_init(&opt);
    CHECK_OK(ctx, tsr_migrate_image(ctx, &v, &g, &opt, &img));
    /* dy <= 0 */
    v.dy = 0;
    CHECK_STATUS(tsr_migrate_image(ctx, &v, &g, &opt, &img), TSR_ERR_INVALID_ARGUMENT);
    printf("dy 0: %s\n", tsr_ctx_last_error(ctx));
    CHECK(strstr(tsr_ctx_last_error(ctx), "y spacing") != NULL);
    v.dy = H;
    /* the source's y outside (y 0 .. 50 m) */
    shot.sy = 80;
    CHECK_STATUS(tsr_migrate_image(ctx, &v, &g, &opt, &img), TSR_ERR_INVALID_ARGUMENT);
    printf("source y outside: %s\n", tsr_ctx_last_error(ctx));
    CHECK(strstr(tsr_ctx_last_error(ctx), "shot 1") &&
          strstr(tsr_ctx_last_error(ctx), "y 0 .. 50"));
    shot.sy = 20;
    /* receiver 2's y outside */
    gy[1] = -30;
    CHECK_STATUS(tsr_migrate_image(ctx, &v, &g, &opt, &img), TSR_ERR_INVALID_ARGUMENT);
    printf("receiver y outside: %s\n", tsr_ctx_last_error(ctx));
    CHECK(strstr(tsr_ctx_last_error(ctx), "trace 2") != NULL);
    /* gy NULL: every receiver at sy, inside */
    shot.gy = NULL;
    CHECK_OK(ctx, tsr_migrate_image(ctx, &v, &g, &opt, &img));
    /* an image of another ny, and a 2D image for a 3D model */
    img.ny = SY - 1;
    CHECK_STATUS(tsr_migrate_image(ctx, &v, &g, &opt, &img), TSR_ERR_INVALID_ARGUMENT);
    printf("image ny: %s\n", tsr_ctx_last_error(ctx));
    CHECK(strstr(tsr_ctx_last_error(ctx), "x 6 x") != NULL);
    img.ny = 0;
    CHECK_STATUS(tsr_migrate_image(ctx, &v, &g, &opt, &img), TSR_ERR_INVALID_ARGUMENT);
    /* a 3D grid needs ny >= 2 and dy > 0 */
    tsr_migrate_grid bad;
    CHECK_STATUS(tsr_migrate_grid_alloc3d(ctx, &bad, 4, 1, 4, H, H, H, 0, 0, 0),
                 TSR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(tsr_migrate_grid_alloc3d(ctx, &bad, 4, 3, 4, H, -1, H, 0, 0, 0),
                 TSR_ERR_INVALID_ARGUMENT);
}

/* A survey whose spectra alone exceed the machine: refused, naming the bytes. */
static void too_big(tsr_ctx *ctx)
{
    enum { BX = 2000, BY = 1000, BZ = 2, NT = 60000 };
    float *vel = malloc(sizeof(float) * (size_t)BX * BY * BZ);
    float *trace = calloc(NT, sizeof(float));
    if (!vel || !trace) {
        free(vel);
        free(trace);
        return;
    }
    for (size_t i = 0; i < (size_t)BX * BY * BZ; i++)
        vel[i] = 2000;
    tsr_migrate_grid v = grid3(vel, BX, BY, BZ, H);
    v.dx = v.dy = v.dz = 1;
    double gx = 0;
    tsr_migrate_shot shot = {0, 0, 1, &gx, trace};
    tsr_migrate_gather g = {NT, 0.0005, 0, 1, &shot};
    tsr_migrate_options opt;
    tsr_migrate_options_init(&opt);
    opt.method = TSR_MIGRATE_PHASE_SHIFT;
    double *sum = malloc(sizeof(double));
    CHECK_STATUS(tsr_migrate_image_add(ctx, &v, &g, &opt, 0, 1, sum, NULL, NULL), TSR_ERR_LIMIT);
    printf("too big: %s\n", tsr_ctx_last_error(ctx));
    CHECK(strstr(tsr_ctx_last_error(ctx), "bytes") != NULL);
    free(sum);
    free(vel);
    free(trace);
}

int main(void)
{
    tsr_ctx_options o;
    tsr_ctx_options_init(&o);
    o.threads = 2;
    tsr_ctx *cpu, *ref = tsr_test_reference_ctx();
    if (tsr_ctx_create(&o, &cpu) != TSR_OK)
        return 1;
    check_table(ref, 1.0);
    check_table(ref, 2.0);
    check_stability(ref);
    impulse(cpu, TSR_MIGRATE_EXPLICIT);
    impulse(cpu, TSR_MIGRATE_PHASE_SHIFT);
    vz_survey(cpu, ref);
    bad_input(cpu);
    too_big(cpu);
    tsr_ctx_destroy(cpu);
    tsr_ctx_destroy(ref);
    return tsr_test_finish("test_migrate_3d");
}
