/* Modelling is the adjoint of migration (src/migrate/extrap_freq.c), per frequency and for every
 * extrapolator on a laterally varying model: for a random reflectivity r and random surface data
 * d, <model(r), d> = Re sum conj(model(r)) d equals <r, image(d)> = sum r Re(conj(S) R_d).
 * Both sides are float computations through nz steps of the same operators, each step rounding
 * to a few float ulps (6e-8) of the field: measured 1.4e-7 of sum |terms| here (nz = 30); the
 * test asks 1e-5, while a wrong sign, a missing taper or a transposed coefficient shows as an
 * O(1) difference. The same holds on a 3D model (a depth slice of nx * ny points, the cross
 * stencil, the 2D transforms of phase shift and PSPI): measured 3e-8 there. */
#include "migrate/extrap.h"
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NX = 48, NZ = 30, NT = 128 };

static double rnd(tsr_rng *rng)
{
    return tsr_rng_range(rng, -100000, 100000) / 100000.0;
}

/* The dot-product test on a laterally varying 3D model (12 x 10 x 16), every method. */
static void adjoint_3d(tsr_ctx *ctx, tsr_rng *rng)
{
    enum { X3 = 12, Y3 = 10, Z3 = 16, C3 = X3 * Y3 };
    static float vel[C3 * Z3], trace[NT], refl[Z3 * C3];
    for (int c = 0; c < C3; c++)
        for (int iz = 0; iz < Z3; iz++)
            vel[c * Z3 + iz] =
                (float)(1700 + 9 * (c % X3) + 13 * (c / X3) + 15 * iz + (iz > 9 ? 500 : 0));
    tsr_migrate_grid v = {X3, Z3, 10, 8, 0, 0, vel};
    v.ny = Y3;
    v.dy = 12;
    double gx = 0;
    tsr_migrate_shot shot = {0, 0, 1, &gx, trace};
    tsr_migrate_gather g = {NT, 0.004, 0, 1, &shot};
    for (int m = 0; m < 3; m++) {
        tsr_migrate_options opt;
        tsr_migrate_options_init(&opt);
        opt.method = (tsr_migrate_method)m;
        opt.f0 = 20;
        opt.taper = 2;
        tsr__migrate_plan plan;
        tsr__mig_fft fft;
        tsr__mig_work work;
        CHECK_OK(ctx, tsr__migrate_plan_build(ctx, &plan, &v, &g, &opt, 1));
        CHECK_OK(ctx, tsr__mig_fft_create(ctx, &plan, &fft));
        CHECK_OK(ctx, tsr__mig_work_alloc(ctx, &plan, 1, &work));
        static tsr__cf src[C3], d[C3], rec[C3];
        static double image[Z3 * C3], illum[Z3 * C3];
        double worst = 0;
        for (int f = 0; f < plan.nfreq; f += plan.nfreq / 4 + 1) {
            memset(src, 0, sizeof src);
            src[(Y3 / 2) * X3 + X3 / 3] = plan.wavelet[f];
            for (int i = 0; i < Z3 * C3; i++)
                refl[i] = (float)rnd(rng);
            for (int i = 0; i < C3; i++)
                d[i] = tsr__cf_make((float)rnd(rng), (float)rnd(rng));
            tsr__mig_model_freq(&plan, &fft, f, src, refl, &work, rec);
            memset(image, 0, sizeof image);
            memset(illum, 0, sizeof illum);
            tsr__mig_image_freq(&plan, &fft, f, src, d, &work, image, illum);
            double lhs = 0, rhs = 0, scale = 0;
            for (int i = 0; i < C3; i++) {
                lhs += (double)rec[i].re * d[i].re + (double)rec[i].im * d[i].im;
                scale += fabs((double)rec[i].re * d[i].re) + fabs((double)rec[i].im * d[i].im);
            }
            for (int i = 0; i < Z3 * C3; i++)
                rhs += refl[i] * image[i];
            double rel = fabs(lhs - rhs) / (scale > 0 ? scale : 1);
            worst = fmax(worst, rel);
            CHECK(scale > 0 && rel <= 1e-5);
        }
        printf("3D %s: <model(r), d> vs <r, image(d)>: worst relative difference %.3g\n",
               tsr_migrate_method_name(opt.method), worst);
        tsr__mig_work_free(ctx, &work);
        tsr__mig_fft_destroy(&fft);
        tsr__migrate_plan_free(ctx, &plan);
    }
}

int main(void)
{
    tsr_ctx *ctx = tsr_test_reference_ctx();
    static float vel[NX * NZ], trace[NT], refl[NZ * NX];
    for (int ix = 0; ix < NX; ix++)
        for (int iz = 0; iz < NZ; iz++)
            vel[ix * NZ + iz] = (float)(1700 + 9 * ix + 15 * iz + (iz > 18 ? 500 : 0));
    tsr_migrate_grid v = {NX, NZ, 10, 8, 0, 0, vel};
    double gx = 0;
    tsr_migrate_shot shot = {0, 0, 1, &gx, trace};
    tsr_migrate_gather g = {NT, 0.004, 0, 1, &shot};
    tsr_rng rng;
    tsr_rng_seed(&rng, 7);
    for (int m = 0; m < 3; m++) {
        tsr_migrate_options opt;
        tsr_migrate_options_init(&opt);
        opt.method = (tsr_migrate_method)m;
        opt.f0 = 20;
        opt.taper = 6;
        tsr__migrate_plan plan;
        tsr__mig_fft fft;
        tsr__mig_work work;
        CHECK_OK(ctx, tsr__migrate_plan_build(ctx, &plan, &v, &g, &opt, 1));
        CHECK_OK(ctx, tsr__mig_fft_create(ctx, &plan, &fft));
        CHECK_OK(ctx, tsr__mig_work_alloc(ctx, &plan, 1, &work));
        static tsr__cf src[NX], d[NX], rec[NX];
        static double image[NZ * NX], illum[NZ * NX];
        double worst = 0;
        for (int f = 0; f < plan.nfreq; f += plan.nfreq / 5 + 1) {
            memset(src, 0, sizeof src);
            src[NX / 3] = plan.wavelet[f];
            for (int i = 0; i < NZ * NX; i++)
                refl[i] = (float)rnd(&rng);
            for (int i = 0; i < NX; i++)
                d[i] = tsr__cf_make((float)rnd(&rng), (float)rnd(&rng));
            tsr__mig_model_freq(&plan, &fft, f, src, refl, &work, rec);
            memset(image, 0, sizeof image);
            memset(illum, 0, sizeof illum);
            tsr__mig_image_freq(&plan, &fft, f, src, d, &work, image, illum);
            double lhs = 0, rhs = 0, scale = 0;
            for (int i = 0; i < NX; i++) {
                lhs += (double)rec[i].re * d[i].re + (double)rec[i].im * d[i].im;
                scale += fabs((double)rec[i].re * d[i].re) + fabs((double)rec[i].im * d[i].im);
            }
            for (int i = 0; i < NZ * NX; i++)
                rhs += refl[i] * image[i];
            double rel = fabs(lhs - rhs) / (scale > 0 ? scale : 1);
            worst = fmax(worst, rel);
            CHECK(scale > 0 && rel <= 1e-5);
        }
        printf("%s: <model(r), d> vs <r, image(d)>: worst relative difference %.3g\n",
               tsr_migrate_method_name(opt.method), worst);
        tsr__mig_work_free(ctx, &work);
        tsr__mig_fft_destroy(&fft);
        tsr__migrate_plan_free(ctx, &plan);
    }
    adjoint_3d(ctx, &rng);
    tsr_ctx_destroy(ctx);
    return tsr_test_finish("test_migrate_adjoint");
}
