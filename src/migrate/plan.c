/* The migration plan (plan.h): argument checks of the model and time axis, the frequency band,
 * the source spectrum, the derivative filter, the coefficient table, slowness and taper. */
#include "migrate/plan.h"

#include "core/checked.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#define PI 3.14159265358979323846

/* Second derivative, 8th-order central difference (Fornberg 1988, table 1): taps at 0, +-1 .. +-4
 * in units of 1/dx^2. Its symbol is monotonic on [0, pi]: lambda_max = 6.5016 at pi. */
static const float tsr__mig_d2[5] = {-205.0f / 72.0f, 8.0f / 5.0f, -1.0f / 5.0f, 8.0f / 315.0f,
                                     -1.0f / 560.0f};

/* Smallest n >= m whose only prime factors are 2, 3 and 5 (sizes FFTW transforms fastest);
 * 0 when it does not fit in int32. */
static int32_t fast_size(int64_t m)
{
    for (int64_t n = m < 1 ? 1 : m; n <= INT32_MAX; n++) {
        int64_t q = n;
        while (q % 2 == 0)
            q /= 2;
        while (q % 3 == 0)
            q /= 3;
        while (q % 5 == 0)
            q /= 5;
        if (q == 1)
            return (int32_t)n;
    }
    return 0;
}

double tsr__mig_ricker(double w, double f0)
{
    double f = w / (2.0 * PI);
    return 2.0 / sqrt(PI) * (f * f) / (f0 * f0 * f0) * exp(-(f * f) / (f0 * f0));
}

/* A 3D velocity's y axis (ny >= 2): dy positive and finite, oy finite, and slices of at most
 * INT32_MAX points. */
static tsr_status check_velocity_y(tsr_ctx *ctx, const tsr_migrate_grid *v)
{
    if (!(v->dy > 0) || !isfinite(v->dy) || !isfinite(v->oy))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "migrate: the 3D velocity model's y spacing must be positive and finite "
                         "and its origin finite (ny %d, dy %g, oy %g)",
                         (int)v->ny, v->dy, v->oy);
    if ((int64_t)v->nx * v->ny > INT32_MAX)
        return tsr__fail(ctx, TSR_ERR_LIMIT,
                         "migrate: a depth slice of %d x %d points is more than this build takes",
                         (int)v->nx, (int)v->ny);
    return TSR_OK;
}

static tsr_status check_velocity(tsr_ctx *ctx, const tsr_migrate_grid *v, float *vmin, float *vmax)
{
    if (!v->data || v->nx < 1 || v->nz < 2)
        return tsr__fail(
            ctx, TSR_ERR_INVALID_ARGUMENT,
            "migrate: the velocity model needs data and nx >= 1, nz >= 2 (got %d x %d)", (int)v->nx,
            (int)v->nz);
    if (!(v->dx > 0) || !(v->dz > 0) || !isfinite(v->dx) || !isfinite(v->dz) || !isfinite(v->ox) ||
        !isfinite(v->oz))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "migrate: the velocity model's spacing must be positive and finite and "
                         "its origin finite (dx %g, dz %g, ox %g, oz %g)",
                         v->dx, v->dz, v->ox, v->oz);
    tsr_status st;
    if (v->ny > 1 && (st = check_velocity_y(ctx, v)))
        return st;
    *vmin = INFINITY;
    *vmax = 0;
    const int64_t ny = tsr__mig_grid_ny(v);
    for (int64_t iy = 0; iy < ny; iy++)
        for (int64_t ix = 0; ix < v->nx; ix++)
            for (int64_t iz = 0; iz < v->nz; iz++) {
                float s = v->data[(iy * v->nx + ix) * v->nz + iz];
                if (!(s > 0) || !isfinite(s)) {
                    if (ny > 1)
                        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                                         "migrate: velocity %g at x = %g m, y = %g m, z = %g m "
                                         "(column %lld, inline %lld, sample %lld) is not a "
                                         "positive finite number",
                                         (double)s, v->ox + (double)ix * v->dx,
                                         v->oy + (double)iy * v->dy, v->oz + (double)iz * v->dz,
                                         (long long)ix, (long long)iy, (long long)iz);
                    return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                                     "migrate: velocity %g at x = %g m, z = %g m (column %lld, "
                                     "sample %lld) is not a positive finite number",
                                     (double)s, v->ox + (double)ix * v->dx,
                                     v->oz + (double)iz * v->dz, (long long)ix, (long long)iz);
                }
                if (s < *vmin)
                    *vmin = s;
                if (s > *vmax)
                    *vmax = s;
            }
    return TSR_OK;
}

static tsr_status alloc_array(tsr_ctx *ctx, size_t count, size_t size, void **out)
{
    size_t bytes;
    if (!tsr__size_mul(count, size, &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "migrate: plan arrays overflow");
    return tsr__alloc(ctx, bytes ? bytes : 1, out);
}

/* Frequencies: nfft, the band, omega and the source spectrum. */
static tsr_status plan_band(tsr_ctx *ctx, tsr__migrate_plan *plan, const tsr_migrate_gather *g,
                            const tsr_migrate_options *opt, float vmin, int model)
{
    if (g->nt < 2 || !(g->dt > 0) || !isfinite(g->dt) || !isfinite(g->t0))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "migrate: the shots need nt >= 2 samples of a positive interval (got %d "
                         "of %g s)",
                         (int)g->nt, g->dt);
    plan->nt = g->nt;
    plan->dt = g->dt;
    plan->t0 = g->t0;
    plan->nfft = fast_size(2 * (int64_t)g->nt);
    if (!plan->nfft)
        return tsr__fail(ctx, TSR_ERR_LIMIT, "migrate: %d samples per trace is too many",
                         (int)g->nt);
    double df = 1.0 / (plan->nfft * g->dt), nyquist = 0.5 / g->dt;
    if (!(opt->fmin >= 0) || !(opt->fmax >= 0) || !isfinite(opt->fmin) || !isfinite(opt->fmax) ||
        (opt->fmax > 0 && opt->fmax <= opt->fmin))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "migrate: the band %g .. %g Hz is not a range of non-negative "
                         "frequencies",
                         opt->fmin, opt->fmax);
    if (opt->fmax > nyquist * (1 + 1e-9))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "migrate: fmax %g Hz is above the Nyquist frequency %g Hz of dt = %g s",
                         opt->fmax, nyquist, g->dt);
    if (!(opt->f0 >= 0) || !isfinite(opt->f0) || (model && !(opt->f0 > 0)))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "migrate: the wavelet's peak frequency f0 = %g Hz must be %s", opt->f0,
                         model ? "positive for modelling" : "0 (impulse) or positive");
    double fmax = opt->fmax;
    if (fmax == 0) {
        double h = plan->dx > plan->dz ? plan->dx : plan->dz;
        if (plan->ny > 1 && plan->dy > h)
            h = plan->dy;
        /* 3D: 3 points per shortest wavelength rather than 2: beyond, the cross stencil's symbol
         * differs between the axes and the diagonals by more than the design can share out
         * (design.c), and steep dips lose their accuracy */
        fmax = (double)vmin / ((plan->ny > 1 ? 3.0 : 2.0) * h);
        if (fmax > nyquist)
            fmax = nyquist;
    }
    if (model && fmax > 3.0 * opt->f0)
        fmax = 3.0 * opt->f0;
    int64_t kmin = (int64_t)ceil(opt->fmin / df - 1e-9), kmax = (int64_t)floor(fmax / df + 1e-9);
    if (kmin < 1)
        kmin = 1;
    if (kmax > plan->nfft / 2)
        kmax = plan->nfft / 2;
    if (kmax < kmin)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "migrate: the band %g .. %g Hz holds no frequency of the transform "
                         "(spacing %g Hz)",
                         opt->fmin, fmax, df);
    plan->kmin = (int32_t)kmin;
    plan->nfreq = (int32_t)(kmax - kmin + 1);
    tsr_status st;
    if ((st = alloc_array(ctx, (size_t)plan->nfreq, sizeof(double), (void **)&plan->omega)) ||
        (st = alloc_array(ctx, (size_t)plan->nfreq, sizeof(tsr__cf), (void **)&plan->wavelet)) ||
        (st = alloc_array(ctx, (size_t)plan->nfreq, sizeof(tsr__cf), (void **)&plan->delay)))
        return st;
    for (int32_t f = 0; f < plan->nfreq; f++) {
        double w = 2.0 * PI * (double)(kmin + f) * df;
        plan->omega[f] = w;
        double s = opt->f0 > 0 ? tsr__mig_ricker(w, opt->f0) / g->dt : 1.0;
        plan->wavelet[f] = tsr__cf_make((float)s, 0.0f);
        const double phase = -plan->omega[f] * plan->t0;
        plan->delay[f] = tsr__cf_make((float)cos(phase), (float)sin(phase));
    }
    return TSR_OK;
}

/* The derivative filter and the coefficient table over 0 .. w_max dz / v_min, at most
 * TSR__MIG_TABLE_MAX rows TSR__MIG_TABLE_STEP apart: a model, depth step and band that reach
 * further (a step of many wavelengths, which 16 terms cannot follow) are refused. Rows are
 * designed on the context's threads; each row's coefficients do not depend on the others. */
static tsr_status plan_table(tsr_ctx *ctx, tsr__migrate_plan *plan, float vmin)
{
    memcpy(plan->d2, tsr__mig_d2, sizeof plan->d2);
    /* 3D: X = 1 + xscale (D2x + rho D2y), rho = dx^2 / dy^2 (extrap_hd.h) */
    const double rho = plan->ny > 1 ? (plan->dx * plan->dx) / (plan->dy * plan->dy) : 0.0;
    if (plan->ny > 1) {
        plan->xscale = (float)(2.0 / (tsr__migrate_filter_symbol(plan->d2, PI) * (1.0 + rho)));
        plan->xscale_y =
            (float)(2.0 * rho / (tsr__migrate_filter_symbol(plan->d2, PI) * (1.0 + rho)));
    } else {
        plan->xscale = (float)(2.0 / tsr__migrate_filter_symbol(plan->d2, PI));
    }
    const double wmax = plan->omega[plan->nfreq - 1];
    double pmax = wmax * plan->dz / (double)vmin * (1 + 1e-6);
    double rows = ceil(pmax / TSR__MIG_TABLE_STEP) + 1;
    if (rows > TSR__MIG_TABLE_MAX)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "migrate: the slowest velocity %g m/s with dz %g m at %g Hz makes a "
                         "depth step of %.3g radians (w dz / v), beyond the %.3g the explicit "
                         "method's coefficient table covers: raise the model's slowest velocity "
                         "or lower --fmax or dz",
                         (double)vmin, plan->dz, wmax / (2 * PI), pmax,
                         (TSR__MIG_TABLE_MAX - 1) * TSR__MIG_TABLE_STEP);
    int32_t n = rows < TSR__MIG_TABLE_MIN ? TSR__MIG_TABLE_MIN : (int32_t)rows;
    plan->ntable = n;
    plan->table_dp = pmax / (n - 1);
    tsr_status st =
        alloc_array(ctx, (size_t)n * TSR__MIG_TERMS, sizeof(tsr__cf), (void **)&plan->table);
    if (st)
        return st;
    const double r = plan->dz / plan->dx;
    int32_t failed = n; /* the first row whose design failed; redone below for its message */
#pragma omp parallel for num_threads(ctx->threads) schedule(dynamic, 8) reduction(min : failed)
    for (int32_t j = 0; j < n; j++)
        if (tsr__migrate_design3(NULL, plan->d2, r, rho, j * plan->table_dp,
                                 plan->table + (size_t)j * TSR__MIG_TERMS, NULL) != TSR_OK &&
            j < failed)
            failed = j;
    if (failed < n)
        return tsr__migrate_design3(ctx, plan->d2, r, rho, failed * plan->table_dp,
                                    plan->table + (size_t)failed * TSR__MIG_TERMS, NULL);
    return TSR_OK;
}

/* Taper weight of index i of n with nt taper points at each end. */
static double taper_at(int32_t i, int32_t n, int32_t nt)
{
    int32_t d = i < n - 1 - i ? i : n - 1 - i; /* distance from the edge */
    double g = 1.0;
    if (d < nt) {
        double q = 0.3 * (double)(nt - d) / nt;
        g = exp(-q * q);
    }
    return g;
}

static tsr_status plan_model(tsr_ctx *ctx, tsr__migrate_plan *plan, const tsr_migrate_grid *v,
                             const tsr_migrate_options *opt)
{
    const int64_t nx = v->nx, nz = v->nz, ny = plan->ny, ncols = plan->ncols;
    size_t cells;
    if (!tsr__size_mul((size_t)ncols, (size_t)nz, &cells))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "migrate: model size overflows");
    tsr_status st;
    if ((st = alloc_array(ctx, cells, sizeof(float), (void **)&plan->slow)) ||
        (st = alloc_array(ctx, (size_t)nz, sizeof(double), (void **)&plan->slow_ref)) ||
        (st = alloc_array(ctx, (size_t)ncols, sizeof(float), (void **)&plan->taper)))
        return st;
    /* column c = iy * nx + ix of the grid's (iy * nx + ix) * nz + iz */
    for (int64_t iz = 0; iz < nz; iz++) {
        double sum = 0;
        for (int64_t c = 0; c < ncols; c++) {
            float s = 1.0f / v->data[c * nz + iz];
            plan->slow[iz * ncols + c] = s;
            sum += s;
        }
        plan->slow_ref[iz] = sum / ncols;
    }
    plan->nxfft = fast_size(nx + nx / 2 + 8);
    plan->nyfft = ny > 1 ? fast_size(ny + ny / 2 + 8) : 1;
    if (plan->method == TSR_MIGRATE_PSPI) {
        if ((st = alloc_array(ctx, (size_t)nz * TSR__MIG_PSPI_REFS, sizeof(double),
                              (void **)&plan->pspi_slow)) ||
            (st = alloc_array(ctx, (size_t)nz, sizeof(int32_t), (void **)&plan->pspi_count)))
            return st;
        for (int64_t iz = 0; iz < nz; iz++) {
            const float *row = plan->slow + iz * ncols;
            double lo = row[0], hi = row[0];
            for (int64_t c = 1; c < ncols; c++) {
                lo = row[c] < lo ? row[c] : lo;
                hi = row[c] > hi ? row[c] : hi;
            }
            /* references 5% of the smallest slowness apart, at most TSR__MIG_PSPI_REFS */
            double n = hi > lo ? ceil((hi - lo) / (0.05 * lo)) + 1 : 1;
            int32_t count = n > TSR__MIG_PSPI_REFS ? TSR__MIG_PSPI_REFS : (int32_t)n;
            plan->pspi_count[iz] = count;
            for (int32_t j = 0; j < count; j++)
                plan->pspi_slow[iz * TSR__MIG_PSPI_REFS + j] =
                    count == 1 ? lo : lo + (hi - lo) * j / (count - 1);
        }
    }
    if (opt->taper < 0)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "migrate: taper %d is negative",
                         (int)opt->taper);
    int32_t ntx = opt->taper < v->nx / 4 ? opt->taper : v->nx / 4;
    int32_t nty = opt->taper < (int32_t)ny / 4 ? opt->taper : (int32_t)ny / 4;
    for (int64_t iy = 0; iy < ny; iy++) /* 3D: the product of the x and y tapers */
        for (int64_t ix = 0; ix < nx; ix++) {
            double g = taper_at((int32_t)ix, (int32_t)nx, ntx);
            if (ny > 1)
                g *= taper_at((int32_t)iy, (int32_t)ny, nty);
            plan->taper[iy * nx + ix] = (float)g;
        }
    return TSR_OK;
}

tsr_status tsr__migrate_plan_build(tsr_ctx *ctx, tsr__migrate_plan *plan,
                                   const tsr_migrate_grid *velocity,
                                   const tsr_migrate_gather *gather, const tsr_migrate_options *opt,
                                   int model)
{
    static _Atomic uint64_t next_id = 1;
    memset(plan, 0, sizeof *plan);
    plan->id = atomic_fetch_add(&next_id, 1);
    if ((int)opt->method < 0 || opt->method > TSR_MIGRATE_PSPI || (int)opt->imaging < 0 ||
        opt->imaging > TSR_MIGRATE_NORMALIZED)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT, "migrate: unknown method or imaging");
    if (!(opt->epsilon > 0) || !isfinite(opt->epsilon))
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "migrate: epsilon %g must be positive and finite", opt->epsilon);
    plan->method = opt->method;
    plan->imaging = opt->imaging;
    plan->epsilon = opt->epsilon;
    float vmin = 0, vmax = 0;
    tsr_status st = check_velocity(ctx, velocity, &vmin, &vmax);
    if (st)
        return st;
    plan->nx = velocity->nx;
    plan->nz = velocity->nz;
    plan->dx = velocity->dx;
    plan->dz = velocity->dz;
    plan->ox = velocity->ox;
    plan->oz = velocity->oz;
    plan->ny = tsr__mig_grid_ny(velocity);
    plan->ncols = plan->nx * plan->ny; /* <= INT32_MAX: check_velocity */
    if (plan->ny > 1) {
        plan->dy = velocity->dy;
        plan->oy = velocity->oy;
    }
    if ((st = plan_band(ctx, plan, gather, opt, vmin, model)) ||
        (st = plan_model(ctx, plan, velocity, opt)) ||
        (plan->method == TSR_MIGRATE_EXPLICIT && (st = plan_table(ctx, plan, vmin)))) {
        tsr__migrate_plan_free(ctx, plan);
        return st;
    }
    return TSR_OK;
}

void tsr__migrate_plan_free(tsr_ctx *ctx, tsr__migrate_plan *plan)
{
    tsr__free(ctx, plan->omega);
    tsr__free(ctx, plan->wavelet);
    tsr__free(ctx, plan->delay);
    tsr__free(ctx, plan->table);
    tsr__free(ctx, plan->slow);
    tsr__free(ctx, plan->slow_ref);
    tsr__free(ctx, plan->taper);
    tsr__free(ctx, plan->pspi_slow);
    tsr__free(ctx, plan->pspi_count);
    memset(plan, 0, sizeof *plan);
}
