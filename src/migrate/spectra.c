/* The time axis and the surface (spectra.h). */
#include "migrate/spectra.h"

#include "core/checked.h"
#include "core/thread_num.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

static pthread_mutex_t tsr__fftw_lock = PTHREAD_MUTEX_INITIALIZER;

tsr_status tsr__mig_fft_create(tsr_ctx *ctx, const tsr__migrate_plan *plan, tsr__mig_fft *fft)
{
    memset(fft, 0, sizeof *fft);
    int32_t nf = plan->nfft, nx = plan->nxfft;
    float *tr = fftwf_malloc(sizeof(float) * (size_t)nf);
    fftwf_complex *tc = fftwf_malloc(sizeof(fftwf_complex) * ((size_t)nf / 2 + 1));
    const int32_t ny = plan->nyfft;
    fftwf_complex *xa = fftwf_malloc(sizeof(fftwf_complex) * (size_t)nx * (size_t)ny);
    const unsigned flags = FFTW_ESTIMATE | FFTW_UNALIGNED;
    if (tr && tc && xa) {
        pthread_mutex_lock(&tsr__fftw_lock);
        fft->t_fwd = fftwf_plan_dft_r2c_1d(nf, tr, tc, flags);
        fft->t_bwd = fftwf_plan_dft_c2r_1d(nf, tc, tr, flags);
        if (plan->ny > 1) { /* 3D: one transform of the padded (nyfft, nxfft) slice */
            fft->x_fwd = fftwf_plan_dft_2d(ny, nx, xa, xa, FFTW_FORWARD, flags);
            fft->x_bwd = fftwf_plan_dft_2d(ny, nx, xa, xa, FFTW_BACKWARD, flags);
        } else {
            fft->x_fwd = fftwf_plan_dft_1d(nx, xa, xa, FFTW_FORWARD, flags);
            fft->x_bwd = fftwf_plan_dft_1d(nx, xa, xa, FFTW_BACKWARD, flags);
        }
        pthread_mutex_unlock(&tsr__fftw_lock);
    }
    fftwf_free(tr);
    fftwf_free(tc);
    fftwf_free(xa);
    if (!fft->t_fwd || !fft->t_bwd || !fft->x_fwd || !fft->x_bwd) {
        tsr__mig_fft_destroy(fft);
        return tsr__fail(ctx, TSR_ERR_OUT_OF_MEMORY,
                         "migrate: FFTW could not plan transforms of %d and %d points", (int)nf,
                         (int)nx);
    }
    return TSR_OK;
}

void tsr__mig_fft_destroy(tsr__mig_fft *fft)
{
    pthread_mutex_lock(&tsr__fftw_lock);
    fftwf_plan *p[4] = {&fft->t_fwd, &fft->t_bwd, &fft->x_fwd, &fft->x_bwd};
    for (int i = 0; i < 4; i++)
        if (*p[i]) {
            fftwf_destroy_plan(*p[i]);
            *p[i] = NULL;
        }
    pthread_mutex_unlock(&tsr__fftw_lock);
}

/* Node of position x on an axis of n nodes from o spaced d: round((x - o) / d), or -1 when more
 * than half a cell outside. */
static int32_t node_of(double o, double d, int32_t n, double x)
{
    double c = (x - o) / d;
    if (!(c >= -0.5) || !(c <= (double)n - 0.5))
        return -1;
    long long r = llround(c);
    return r < 0 ? 0 : r >= n ? n - 1 : (int32_t)r;
}

/* Column of position x: round((x - ox) / dx), or -1 when more than half a cell outside. */
static int32_t column_of(const tsr__migrate_plan *plan, double x)
{
    return node_of(plan->ox, plan->dx, plan->nx, x);
}

/* 3D: the columns iy * nx + ix of the source and receivers, each (x, y) checked. */
static tsr_status shot_columns3(tsr_ctx *ctx, const tsr__migrate_plan *plan,
                                const tsr_migrate_shot *shot, int32_t index, int32_t *scol,
                                int32_t *gcol)
{
    double x1 = plan->ox + (double)(plan->nx - 1) * plan->dx;
    double y1 = plan->oy + (double)(plan->ny - 1) * plan->dy;
    int32_t sx = column_of(plan, shot->sx), sy = node_of(plan->oy, plan->dy, plan->ny, shot->sy);
    if (sx < 0 || sy < 0)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "migrate: shot %d: source (x, y) = (%g, %g) m is outside the model "
                         "(x %g .. %g m, y %g .. %g m)",
                         (int)index + 1, shot->sx, shot->sy, plan->ox, x1, plan->oy, y1);
    *scol = sy * plan->nx + sx;
    for (int32_t i = 0; i < shot->ntraces; i++) {
        double gy = shot->gy ? shot->gy[i] : shot->sy;
        int32_t gx = column_of(plan, shot->gx[i]), iy = node_of(plan->oy, plan->dy, plan->ny, gy);
        if (gx < 0 || iy < 0)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "migrate: shot %d (source (x, y) = (%g, %g) m), trace %d: receiver "
                             "(x, y) = (%g, %g) m is outside the model (x %g .. %g m, y %g .. %g "
                             "m)",
                             (int)index + 1, shot->sx, shot->sy, (int)i + 1, shot->gx[i], gy,
                             plan->ox, x1, plan->oy, y1);
        gcol[i] = iy * plan->nx + gx;
    }
    return TSR_OK;
}

tsr_status tsr__mig_shot_columns(tsr_ctx *ctx, const tsr__migrate_plan *plan,
                                 const tsr_migrate_shot *shot, int32_t index, int32_t *scol,
                                 int32_t *gcol)
{
    if (plan->ny > 1)
        return shot_columns3(ctx, plan, shot, index, scol, gcol);
    double x1 = plan->ox + (double)(plan->nx - 1) * plan->dx;
    *scol = column_of(plan, shot->sx);
    if (*scol < 0)
        return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                         "migrate: shot %d: source x = %g m is outside the model (x %g .. %g m)",
                         (int)index + 1, shot->sx, plan->ox, x1);
    for (int32_t i = 0; i < shot->ntraces; i++) {
        gcol[i] = column_of(plan, shot->gx[i]);
        if (gcol[i] < 0)
            return tsr__fail(ctx, TSR_ERR_INVALID_ARGUMENT,
                             "migrate: shot %d (source x = %g m), trace %d: receiver x = %g m is "
                             "outside the model (x %g .. %g m)",
                             (int)index + 1, shot->sx, (int)i + 1, shot->gx[i], plan->ox, x1);
    }
    return TSR_OK;
}

void tsr__mig_columns_free(tsr_ctx *ctx, tsr__mig_columns *cols)
{
    tsr__free(ctx, cols->gcol);
    tsr__free(ctx, cols->scol);
    tsr__free(ctx, cols->gofs);
    memset(cols, 0, sizeof *cols);
}

tsr_status tsr__mig_columns_make(tsr_ctx *ctx, const tsr__migrate_plan *plan,
                                 const tsr_migrate_gather *g, tsr__mig_columns *cols)
{
    memset(cols, 0, sizeof *cols);
    size_t traces = 0, ns = (size_t)g->nshots;
    for (int32_t s = 0; s < g->nshots; s++)
        traces += (size_t)g->shots[s].ntraces;
    size_t gbytes, sbytes, obytes;
    if (!tsr__size_mul(traces, sizeof(int32_t), &gbytes) ||
        !tsr__size_mul(ns, sizeof(int32_t), &sbytes) || !tsr__size_mul(ns, sizeof(size_t), &obytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "migrate: column tables overflow");
    tsr_status st;
    if ((st = tsr__alloc(ctx, gbytes, (void **)&cols->gcol)) ||
        (st = tsr__alloc(ctx, sbytes, (void **)&cols->scol)) ||
        (st = tsr__alloc(ctx, obytes, (void **)&cols->gofs))) {
        tsr__mig_columns_free(ctx, cols);
        return st;
    }
    size_t o = 0;
    for (int32_t s = 0; s < g->nshots; o += (size_t)g->shots[s].ntraces, s++) {
        cols->gofs[s] = o;
        if ((st = tsr__mig_shot_columns(ctx, plan, &g->shots[s], s, &cols->scol[s],
                                        cols->gcol + o))) {
            tsr__mig_columns_free(ctx, cols);
            return st;
        }
    }
    return TSR_OK;
}

tsr_status tsr__mig_scratch_alloc(tsr_ctx *ctx, const tsr__migrate_plan *plan, int threads,
                                  tsr__mig_trace_scratch **out)
{
    const size_t t = (size_t)(threads < 1 ? 1 : threads), nf = (size_t)plan->nfft;
    const size_t spec = sizeof(tsr__cf) * (nf / 2 + 1), buf = sizeof(float) * nf;
    /* per thread: the complex spectrum first (its alignment), then the real trace */
    const size_t each = spec + (buf + sizeof(tsr__cf) - 1) / sizeof(tsr__cf) * sizeof(tsr__cf);
    size_t bytes;
    if (!tsr__size_mul(t, sizeof(tsr__mig_trace_scratch) + each, &bytes))
        return tsr__fail(ctx, TSR_ERR_OVERFLOW, "migrate: trace scratch overflows");
    tsr_status st = tsr__alloc(ctx, bytes, (void **)out);
    if (st)
        return st;
    unsigned char *p = (unsigned char *)(*out + t);
    for (size_t i = 0; i < t; i++, p += each) {
        (*out)[i].spec = (tsr__cf *)(void *)p;
        (*out)[i].buf = (float *)(void *)(p + spec);
    }
    return TSR_OK;
}

/* exp(i phase) */
static tsr__cf cis(double phase)
{
    return tsr__cf_make((float)cos(phase), (float)sin(phase));
}

/* A real trace of nf samples and its half spectrum (nf / 2 + 1 bins), both or neither. */
static tsr_status trace_buffers_alloc(tsr_ctx *ctx, int32_t nf, float **buf, tsr__cf **spec)
{
    tsr_status st = tsr__alloc(ctx, sizeof(float) * (size_t)nf, (void **)buf);
    if (st)
        return st;
    if ((st = tsr__alloc(ctx, sizeof(tsr__cf) * ((size_t)nf / 2 + 1), (void **)spec)))
        tsr__free(ctx, *buf);
    return st;
}

void tsr__mig_shot_spectra(const tsr__migrate_plan *plan, const tsr__mig_fft *fft,
                           const tsr_migrate_shot *shot, const int32_t *gcol,
                           const tsr__mig_trace_scratch *scratch, tsr__cf *rec)
{
    const int32_t nf = plan->nfft, nx = plan->ncols;
    float *buf = scratch->buf;
    tsr__cf *spec = scratch->spec;
    memset(rec, 0, sizeof(tsr__cf) * (size_t)plan->nfreq * (size_t)nx);
    for (int32_t i = 0; i < shot->ntraces; i++) {
        memcpy(buf, shot->traces + (size_t)i * plan->nt, sizeof(float) * (size_t)plan->nt);
        memset(buf + plan->nt, 0, sizeof(float) * (size_t)(nf - plan->nt));
        fftwf_execute_dft_r2c(fft->t_fwd, buf, (fftwf_complex *)spec);
        for (int32_t f = 0; f < plan->nfreq; f++) {
            tsr__cf d = spec[plan->kmin + f];
            tsr__cf *out = &rec[(size_t)f * nx + gcol[i]];
            tsr__cf v = tsr__cf_mul(plan->delay[f], d, 0);
            out->re += v.re;
            out->im += v.im;
        }
    }
}

tsr_status tsr__mig_shot_traces(tsr_ctx *ctx, const tsr__migrate_plan *plan,
                                const tsr__mig_fft *fft, const tsr__cf *rec, const int32_t *gcol,
                                tsr_migrate_shot *shot)
{
    const int32_t nf = plan->nfft, nx = plan->ncols;
    float *buf;
    tsr__cf *spec;
    tsr_status st = trace_buffers_alloc(ctx, nf, &buf, &spec);
    if (st)
        return st;
    const float scale = 1.0f / (float)nf;
    for (int32_t i = 0; i < shot->ntraces; i++) {
        memset(spec, 0, sizeof(tsr__cf) * ((size_t)nf / 2 + 1));
        for (int32_t f = 0; f < plan->nfreq; f++)
            spec[plan->kmin + f] =
                tsr__cf_mul(cis(plan->omega[f] * plan->t0), rec[(size_t)f * nx + gcol[i]], 0);
        fftwf_execute_dft_c2r(fft->t_bwd, (fftwf_complex *)spec, buf);
        float *out = shot->traces + (size_t)i * plan->nt;
        for (int32_t j = 0; j < plan->nt; j++)
            out[j] = buf[j] * scale;
    }
    tsr__free(ctx, buf);
    tsr__free(ctx, spec);
    return TSR_OK;
}

void tsr__mig_spectra_shots(const tsr__migrate_plan *plan, const tsr__mig_fft *fft,
                            const tsr_migrate_gather *g, int32_t s0, int32_t n,
                            const tsr__mig_columns *cols, int threads,
                            const tsr__mig_trace_scratch *scratch, tsr__cf *src, tsr__cf *rec)
{
    const size_t slab = (size_t)plan->nfreq * (size_t)plan->ncols;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int32_t k = 0; k < n; k++) {
        const int32_t s = s0 + k;
        tsr__mig_shot_spectra(plan, fft, &g->shots[s], cols->gcol + cols->gofs[s],
                              &scratch[tsr__thread_num()], rec + (size_t)k * slab);
        tsr__mig_source_rows(plan, cols->scol[s], src + (size_t)k * slab);
    }
}

void tsr__mig_source_rows(const tsr__migrate_plan *plan, int32_t scol, tsr__cf *src)
{
    memset(src, 0, sizeof(tsr__cf) * (size_t)plan->nfreq * (size_t)plan->ncols);
    for (int32_t f = 0; f < plan->nfreq; f++)
        src[(size_t)f * plan->ncols + scol] = plan->wavelet[f];
}
