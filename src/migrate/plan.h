/* The migration plan: everything about a migration or modelling run that does not depend on the
 * shot, built once on the host and shared read-only by every backend (and, copied as is, by a
 * device backend): the frequencies, the derivative filter, the explicit operator's coefficient
 * table, the transposed slowness, the phase-shift reference slowness and the boundary taper. */
#ifndef TSR_MIGRATE_PLAN_H
#define TSR_MIGRATE_PLAN_H

#include "core/ctx.h"
#include "migrate/extrap_hd.h"
#include "tessera/migrate.h"

/* The explicit operator's fixed design (design.c says how each is used). */
enum {
    TSR__MIG_TERMS = 16,       /* Chebyshev terms c_0 .. c_15 */
    TSR__MIG_TABLE_MIN = 64,   /* coefficient table rows, at least */
    TSR__MIG_TABLE_MAX = 4096, /* and at most */
    TSR__MIG_PSPI_REFS = 8     /* PSPI reference velocities per depth, at most */
};
/* Largest spacing of the table in w dz / v: interpolating c linearly between rows errs by about
 * step^2 / 8 |d^2 c / dp^2|, about 5e-5, far below the fit's own error. */
#define TSR__MIG_TABLE_STEP 0.02
#define TSR__MIG_ANGLE_DEG 60.0 /* propagation angle up to which G fits exp(i kz dz) */

typedef struct tsr__migrate_plan {
    uint64_t id; /* unique per build: a device backend's note of which plan it uploaded */
    tsr_migrate_method method;
    tsr_migrate_imaging imaging;
    int32_t nx, nz;
    double dx, dz, ox, oz;
    /* 3D: ny >= 2 inlines dy apart from oy; 2D: ny = 1 (dy, oy 0). Every row of the wavefields,
     * slowness, taper and images is a depth slice of ncols = nx * ny points, x fastest (in 2D the
     * row of nx of before). */
    int32_t ny, ncols;
    double dy, oy;

    /* Time axis: nt samples of dt from t0, transformed with nfft >= 2 nt points. */
    int32_t nt, nfft;
    double dt, t0;
    /* Frequencies used: FFT bins kmin .. kmin + nfreq - 1, omega[i] = 2 pi k / (nfft dt). */
    int32_t kmin, nfreq;
    double *omega;
    /* Source spectrum at each frequency: 1 (impulse) or the zero-phase Ricker (tsr__mig_ricker)
     * scaled by 1/dt, so that a Ricker of peak 1 in time has these DFT values. */
    tsr__cf *wavelet;
    /* exp(-i omega[f] t0) in float, (float)cos and (float)sin of the double phase: the shift of
     * each frequency of a trace's transform to the source's time (spectra.c). */
    tsr__cf *delay;
    double epsilon;

    /* Explicit operator: X = 1 + (2 / lambda_max) D2 with D2 the radius-4 second-derivative
     * filter (taps d2[0] centre, d2[m] at +-m, in units of 1/dx^2), lambda_max = -D2's symbol at
     * kx dx = pi. Coefficients: table rows j = 0 .. ntable-1 at p = j * table_dp (p = w dz / v),
     * TSR__MIG_TERMS complex c_n per row. */
    float d2[5];
    float xscale;   /* 2 / lambda_max; 3D: 2 / (lambda_max (1 + rho)), rho = dx^2 / dy^2 */
    float xscale_y; /* 3D: rho xscale, the weight of D2y; 2D: 0 */
    int32_t ntable;
    double table_dp;
    tsr__cf *table; /* ntable * TSR__MIG_TERMS */

    /* Slowness (s/m), transposed so that a depth's row is contiguous: slow[iz * nx + ix]. */
    float *slow;
    /* Phase shift: the mean slowness of each depth row; nxfft >= nx points along x, nyfft >= ny
     * along y (1 in 2D). */
    double *slow_ref;
    int32_t nxfft, nyfft;
    /* PSPI: pspi_count[iz] (1 .. TSR__MIG_PSPI_REFS) reference slownesses of depth row iz,
     * increasing, at pspi_slow[iz * TSR__MIG_PSPI_REFS + j]. */
    double *pspi_slow;
    int32_t *pspi_count;
    /* Damping applied to each column after every depth step (1 inside, < 1 in the taper; 3D:
     * the product of the x and y tapers), ncols. */
    float *taper;
} tsr__migrate_plan;

/* Checks the velocity and builds the plan for `gather`'s time axis (its positions are checked by
 * the caller). model != 0: modelling (needs opt->f0 > 0; band capped at 3 f0). */
tsr_status tsr__migrate_plan_build(tsr_ctx *ctx, tsr__migrate_plan *plan,
                                   const tsr_migrate_grid *velocity,
                                   const tsr_migrate_gather *gather, const tsr_migrate_options *opt,
                                   int model);
void tsr__migrate_plan_free(tsr_ctx *ctx, tsr__migrate_plan *plan);

/* The coefficient design (design.c): for r = dz / dx and the filter of the plan, fills row
 * c[0 .. TSR__MIG_TERMS-1] with the Chebyshev coefficients of G for p = w dz / v; |G| <= 1 over
 * the whole of X's range [-1, 1] (checked on a fine grid and enforced by scaling). Returns the
 * largest |G - exp(i kz dz)| over the band up to TSR__MIG_ANGLE_DEG in *band_error (may be NULL).
 * ctx may be NULL (a failure then has no message; the design is thread-safe without one).
 */
tsr_status tsr__migrate_design(tsr_ctx *ctx, const float d2[5], double r, double p, tsr__cf *c,
                               double *band_error);
/* The same for 3D's X (rho = dx^2 / dy^2 > 0; rho 0 is the 2D design above). */
tsr_status tsr__migrate_design3(tsr_ctx *ctx, const float d2[5], double r, double rho, double p,
                                tsr__cf *c, double *band_error);
/* -D2's symbol at kx dx = k: -(d2[0] + 2 sum_m d2[m] cos(m k)). */
double tsr__migrate_filter_symbol(const float d2[5], double k);

/* The grid's ny as the plan counts it: 1 for a 2D grid (ny 0 or 1). */
static inline int32_t tsr__mig_grid_ny(const tsr_migrate_grid *g)
{
    return g->ny > 1 ? g->ny : 1;
}

/* The zero-phase Ricker wavelet's spectrum at angular frequency w = 2 pi f for peak frequency
 * f0: (2 / sqrt(pi)) (f^2 / f0^3) exp(-f^2 / f0^2), the Fourier transform of
 * (1 - 2 pi^2 f0^2 t^2) exp(-pi^2 f0^2 t^2). */
double tsr__mig_ricker(double w, double f0);

#endif
